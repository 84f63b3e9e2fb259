/*
 * fuzz_measure_json.c — libFuzzer target for the measurement results
 * document that `blkpeak analyze import` reads (schemas/
 * measure-results.schema.json; analyze/measure_import.h): the input is
 * written to a file of the target's temporary folder, sniffed
 * (measure_results_is), checked (measure_results_check) and, when it
 * passes, imported into a database of that folder (measure_import),
 * which is emptied after each input.
 *
 * What must hold: no crash, leak or undefined behaviour; a document the
 * check passes imports; a refused one names a reason.
 */
#include <stdio.h>
#include <stdlib.h>

#include "db.h"
#include "fuzz_util.h"
#include "measure_import.h"

static sqlite3 *db;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[128];
	struct bpt_error e = { 0 };

	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "%s/fuzz.db", fuzz_tmpdir());
	if (adb_open(&db, path, ADB_CREATE, &e) ||
	    adb_exec(db, "PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY", &e)) {
		fprintf(stderr, "fuzz_measure_json: %s\n", e.msg);
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[128];
	struct bpt_error e = { 0 };
	struct measure_import_result res;

	fuzz_write_file("m.json", data, size, path, sizeof(path));
	measure_results_is(path);
	if (measure_results_check(path, &e)) {
		if (!e.msg[0])
			abort();
		return 0;
	}
	if (measure_import(db, path, &res, &e))
		abort(); /* checked, yet refused */
	if (adb_exec(db, "DELETE FROM measurement_points; DELETE FROM measurements", &e))
		abort();
	return 0;
}
