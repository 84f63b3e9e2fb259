/*
 * commands.h — the subcommands of `blkpeak`.
 *
 * Each subcommand is one function `int cmd_NAME(int argc, char **argv)`,
 * called with argv[0] == "NAME". It parses its own options (getopt_long,
 * with --help printing its usage to stdout and returning EXIT_OK), prints
 * its own output and errors, and returns an exit code from cliutil.h:
 * EXIT_OK, EXIT_FAIL or EXIT_USAGE.
 *
 * To add a command: declare it here, add a row to the table in main.c
 * (run by common/dispatch.c),
 * and put its code in the folder it belongs to (capture/, replay/, generate/,
 * analyze/, measure/, suite/, or cli/ for the file tools).
 *
 * Below the commands: the only functions one part calls in another
 * (tests/e2e/04-include-walls.sh checks the objects: a part calls lib/,
 * common/ and what this file declares; cmd_* only from cli/main.c's table).
 */
#ifndef BLKPEAK_COMMANDS_H
#define BLKPEAK_COMMANDS_H

#include <stddef.h>
#include <stdint.h>

int cmd_info(int argc, char **argv);     /* cli/cmd_info.c */
int cmd_dump(int argc, char **argv);     /* cli/cmd_dump.c */
int cmd_generate(int argc, char **argv); /* generate/cmd_generate.c */
int cmd_capture(int argc, char **argv);  /* capture/cmd_capture.c */
int cmd_replay(int argc, char **argv);   /* replay/cmd_replay.c */
int cmd_analyze(int argc, char **argv);  /* analyze/cmd_analyze.c */
int cmd_measure(int argc, char **argv);  /* measure/cmd_measure.c */
int cmd_convert(int argc, char **argv);  /* formats/cmd_convert.c */
int cmd_suite(int argc, char **argv);    /* suite/cmd_suite.c */

/*
 * Foreign trace files (MSR CSV, blktrace, fio iologs...) as .bpt readers
 * (formats/open_foreign.c): main() registers this with
 * bpt_reader_set_foreign_opener() (lib/bpt.h), so every command that
 * opens a trace reads them too. Same contract as that opener.
 */
struct bpt_reader;
struct bpt_error;
int formats_reader_open(struct bpt_reader **out, const char *path, struct bpt_error *err);
/* The reorder window (records) formats_reader_open() uses from now on,
 * for a command's --window: 1 .. FORMATS_WINDOW_MAX, else -ERANGE. */
#define FORMATS_WINDOW_MAX (1u << 24)
int formats_set_window(unsigned long long n);

/* The name of replay's engine i (replay/engine/engine.c's table, the
 * order of `replay --list`), or NULL past the last. */
const char *replay_engine_name(size_t i);

/*
 * Store a `blkpeak measure` results document (path,
 * schemas/measure-results.schema.json) in the analysis database
 * (analyze/measure_store.c): db as analyze's --db (NULL: $BLKPEAK_DB, else
 * ./blkpeak.db; postgresql://... or key=value: PostgreSQL), created when
 * missing. The same measurement twice is kept once. 0 with *id (may be
 * NULL) the measurement's id, or -errno with err saying which database or
 * document and why. Prints nothing.
 */
int analyze_store_measurement(const char *db, const char *path, int64_t *id,
			      struct bpt_error *err);
/* Whether analyze_store_measurement() could store into db: an existing
 * file is opened and its schema checked (and migrated when older, as the
 * store would), a missing one needs a folder that takes a new file (it is
 * not made here), a PostgreSQL store is connected to. Measurements call
 * it before they start, so that a database that cannot take the results
 * is named before minutes of measuring, not after. 0, or -errno with err
 * saying which database and why. */
int analyze_store_ready(const char *db, struct bpt_error *err);

#endif
