/*
 * trace_open.c — opening traces and reporting their problems the same
 * way in every file tool (see trace_open.h).
 */
#include "trace_open.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cliutil.h"

void trace_error(const char *cmd, const char *path, int ret, const struct bpt_error *err)
{
	if (err && err->msg[0])
		pr_err("%s: %s", cmd, err->msg);
	else
		pr_err("%s: %s: %s", cmd, path, strerror(ret < 0 ? -ret : ret));
}

int trace_file_arg(const char *cmd, int argc, char **argv, int first,
		   const char **path)
{
	if (argc - first != 1) {
		pr_err("%s: %s; see 'blkpeak %s --help'", cmd,
		       argc <= first ? "no trace file given" : "one trace file at a time", cmd);
		return -EINVAL;
	}
	*path = argv[first];
	return 0;
}

int trace_open(const char *cmd, const char *path, struct bpt_reader **r)
{
	struct bpt_error err = { 0 };
	int ret = bpt_reader_open(r, path, &err);

	if (ret < 0)
		trace_error(cmd, path, ret, &err);
	return ret;
}

void trace_warn_truncated(const char *cmd, const char *path, const struct bpt_reader *r)
{
	struct bpt_stats st;

	bpt_reader_stats(r, &st);
	if (st.complete && !st.truncated)
		return;
	pr_warn("%s: %s: truncated: good data ends at offset %" PRIu64 ", %" PRIu64
		" bytes after it cut off; showing the %" PRIu64 " I/Os of the complete blocks",
		cmd, path, st.valid_bytes,
		st.file_bytes > st.valid_bytes ? st.file_bytes - st.valid_bytes : 0, st.records);
}
