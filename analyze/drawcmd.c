/*
 * drawcmd.c — the command-line frame of `analyze plot` and `analyze html`
 * (drawcmd.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cliutil.h"
#include "db.h"
#include "drawcmd.h"
#include "import.h"
#include "progress.h"

int parse_trace_ids(const char *cmd, char **args, int n, int64_t **out)
{
	int64_t *ids = calloc(n ? n : 1, sizeof(*ids));

	if (!ids) {
		pr_err("analyze %s: out of memory", cmd);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		uint64_t v;

		if (parse_u64(args[i], &v) || v == 0 || v > INT64_MAX) {
			pr_err("analyze %s: '%s': not a trace id (a positive number)", cmd, args[i]);
			free(ids);
			return -EINVAL;
		}
		ids[i] = (int64_t)v;
	}
	*out = ids;
	return 0;
}

/* How many of args[0..n) are files (a path that exists, as compare reads
 * them: a file wins over an id of the same spelling). */
static int count_files(char **args, int n)
{
	struct stat st;
	int files = 0;

	for (int i = 0; i < n; i++)
		files += stat(args[i], &st) == 0;
	return files;
}

int files_db_open(const char *cmd, char **paths, int n, sqlite3 **db, int64_t *ids,
		  char tmpdb[PATH_MAX], struct progress *cmd_prog)
{
	const char *tmp = getenv("TMPDIR");
	struct bpt_error err = { 0 };
	int fd;

	*db = NULL;
	snprintf(tmpdb, PATH_MAX, "%s/blkpeak-%s.XXXXXX", tmp && tmp[0] ? tmp : "/tmp", cmd);
	if ((fd = mkstemp(tmpdb)) < 0) {
		pr_err("analyze %s: %s: cannot create a temporary database: %s", cmd, tmpdb,
		       strerror(errno));
		tmpdb[0] = '\0';
		return EXIT_FAIL;
	}
	close(fd);
	if (adb_open(db, tmpdb, ADB_CREATE, &err)) {
		pr_err("analyze %s: %s", cmd, err.msg);
		files_db_close(*db, tmpdb);
		*db = NULL;
		return EXIT_FAIL;
	}
	for (int i = 0; i < n; i++) {
		struct import_result res;
		struct progress own, *prog = cmd_prog ? cmd_prog : &own;
		char what[64];
		int rc;

		snprintf(what, sizeof(what), "reading %s", paths[i]);
		if (!cmd_prog) {
			progress_init(&own, what, "I/Os", 1);
			own.delay_ns = PROGRESS_DELAY_NS;
		} else {
			snprintf(prog->what, sizeof(prog->what), "%s", what);
		}
		rc = import_file(*db, paths[i], &(struct import_opts){
			.progress = progress_cb, .progress_arg = prog }, &res, &err);
		if (!cmd_prog)
			progress_end(&own);
		if (rc) {
			pr_err("analyze %s: %s", cmd, err.msg);
			files_db_close(*db, tmpdb);
			*db = NULL;
			return EXIT_FAIL;
		}
		ids[i] = res.trace_id;
	}
	return 0;
}

void files_db_close(sqlite3 *db, char tmpdb[PATH_MAX])
{
	sqlite3_close(db);
	if (tmpdb[0])
		unlink(tmpdb);
	tmpdb[0] = '\0';
}

int drawcmd_begin(struct drawcmd *d, const char *cmd, const char *dbopt, const char *out,
		  char **args, int nargs, int min_ids)
{
	struct bpt_error err = { 0 };
	int rc, files;

	memset(d, 0, sizeof(*d));
	d->cmd = cmd;
	progress_init(&d->prog, cmd, "I/Os", 1);
	d->prog.delay_ns = PROGRESS_DELAY_NS;
	if (nargs < min_ids) {
		pr_err("analyze %s: no trace id given; see --help", cmd);
		return EXIT_USAGE;
	}
	files = count_files(args, nargs);
	if (files && files < nargs) {
		pr_err("analyze %s: give trace ids or trace files, not both", cmd);
		return EXIT_USAGE;
	}
	if (files) {
		if (!(d->ids = calloc((size_t)nargs, sizeof(*d->ids)))) {
			pr_err("analyze %s: out of memory", cmd);
			return EXIT_FAIL;
		}
		d->n = (size_t)nargs;
		d->db_path = args[0];
		if (files_db_open(cmd, args, nargs, &d->db, d->ids, d->tmpdb, &d->prog))
			goto fail;
	} else {
		rc = parse_trace_ids(cmd, args, nargs, &d->ids);
		if (rc)
			return rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
		d->n = (size_t)nargs;
		d->db_path = adb_display_name(adb_default_path(dbopt), d->db_name, sizeof(d->db_name));
		if (adb_open(&d->db, adb_default_path(dbopt), ADB_READONLY, &err)) {
			pr_err("analyze %s: %s", cmd, err.msg);
			goto fail;
		}
		for (size_t i = 0; i < d->n; i++)
			if (adb_need_related(d->db, d->ids[i], &err)) {
				pr_err("analyze %s: %s", cmd, err.msg);
				goto fail;
			}
	}
	const char **inputs = calloc((size_t)nargs + 2, sizeof(*inputs));

	if (!inputs) {
		pr_err("analyze %s: out of memory", cmd);
		goto fail;
	}
	if (files)
		for (int i = 0; i < nargs; i++)
			inputs[i] = args[i];
	else
		inputs[0] = d->db_path;
	rc = outfile_open(&d->out, out, &(struct outfile_opts){
		.what = !strcmp(cmd, "html") ? "an HTML report" : "a chart",
		.inputs = inputs, .allow_stdout = 1 });
	free(inputs);
	if (rc) {
		pr_err("analyze %s: %s", cmd, d->out.err.msg);
		goto fail;
	}
	return 0;
fail:
	progress_end(&d->prog);
	files_db_close(d->db, d->tmpdb);
	free(d->ids);
	memset(d, 0, sizeof(*d));
	return EXIT_FAIL;
}

int drawcmd_end(struct drawcmd *d, int rc)
{
	int c = outfile_close(&d->out, rc);

	if (c && !rc) {
		pr_err("analyze %s: %s", d->cmd, d->out.err.msg);
		rc = c;
	}
	progress_end(&d->prog);
	files_db_close(d->db, d->tmpdb);
	free(d->ids);
	memset(d, 0, sizeof(*d));
	return rc ? EXIT_FAIL : EXIT_OK;
}
