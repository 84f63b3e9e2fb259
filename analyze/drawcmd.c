/*
 * drawcmd.c — the command-line frame of `analyze plot` and `analyze html`
 * (drawcmd.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cliutil.h"
#include "db.h"
#include "drawcmd.h"

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

int drawcmd_begin(struct drawcmd *d, const char *cmd, const char *dbopt, const char *out,
		  char **args, int nargs, int min_ids)
{
	struct bpt_error err = { 0 };
	int rc;

	memset(d, 0, sizeof(*d));
	d->cmd = cmd;
	if (nargs < min_ids) {
		pr_err("analyze %s: no trace id given; see --help", cmd);
		return EXIT_USAGE;
	}
	rc = parse_trace_ids(cmd, args, nargs, &d->ids);
	if (rc)
		return rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	d->n = (size_t)nargs;
	d->db_path = adb_default_path(dbopt);
	if (adb_open(&d->db, d->db_path, ADB_READONLY, &err)) {
		pr_err("analyze %s: %s", cmd, err.msg);
		goto fail;
	}
	const char *inputs[] = { d->db_path, NULL };

	rc = outfile_open(&d->out, out, &(struct outfile_opts){
		.what = !strcmp(cmd, "html") ? "an HTML report" : "a chart",
		.inputs = inputs, .allow_stdout = 1 });
	if (rc) {
		pr_err("analyze %s: %s", cmd, d->out.err.msg);
		goto fail;
	}
	return 0;
fail:
	sqlite3_close(d->db);
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
	sqlite3_close(d->db);
	free(d->ids);
	memset(d, 0, sizeof(*d));
	return rc ? EXIT_FAIL : EXIT_OK;
}
