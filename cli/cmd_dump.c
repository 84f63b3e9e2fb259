/*
 * cmd_dump.c — `blkpeak dump FILE [--format text|csv|json] [--start T]
 * [--end T]`: one line per I/O. The columns are described in
 * dump_format.h; this file reads the trace and picks the time window.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "bpt.h"
#include "cliutil.h"
#include "commands.h"
#include "dump_format.h"
#include "trace_open.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: blkpeak dump FILE [--format text|csv|json] [--start T] [--end T]\n"
"\n"
"Print one line per I/O, in file order: queue, issue and completion time\n"
"in microseconds from the trace start, device, sector, bytes, op, flags,\n"
"pid, comm, cgroup, wait (issue - queue) and service (complete - issue)\n"
"time in microseconds, error; replay run files add sched_us, source and\n"
"member when they carry them.\n"
"\n"
"  -f, --format F   text (default, aligned columns), csv (with a header\n"
"                   row) or json (one array, one object per line)\n"
"  --start T        only I/Os issued at or after T from the trace start\n"
"                   (10s, 1.5s, 250ms, 20us); seeks through the index\n"
"  --end T          only I/Os issued before T\n"
"  -h, --help       this text\n");
}

static const char *dump_path(void *ctx, uint32_t file_dev, uint64_t inode)
{
	return bpt_reader_path(ctx, file_dev, inode);
}

static const char *dump_string(void *ctx, uint32_t id)
{
	return bpt_reader_string(ctx, id);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "start", required_argument, NULL, 's' },
		{ "end", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_out out = { .f = stdout, .fmt = DUMP_TEXT };
	struct bpt_reader *r = NULL;
	struct bpt_error err = { 0 };
	struct bpt_record rec;
	uint64_t start = 0, end = UINT64_MAX;
	const char *path;
	int c, ret;
	struct opt_loop ol = { .cmd = "dump", .usage = usage };

	while ((c = opt_next(&ol, argc, argv, ":f:h", opts)) != -1) {
		switch (c) {
		case 'f':
			if (dump_format_parse(optarg, &out.fmt)) {
				pr_err("dump: --format: '%s': not text, csv or json", optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
		case 'e':
			if (parse_duration_ns(optarg, c == 's' ? &start : &end)) {
				pr_err("dump: --%s: '%s': not a duration (10s, 250ms, 20us)",
				       c == 's' ? "start" : "end", optarg);
				return EXIT_USAGE;
			}
			break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (trace_file_arg("dump", argc, argv, optind, &path))
		return EXIT_USAGE;
	if (end <= start) {
		pr_err("dump: --end must be after --start");
		return EXIT_USAGE;
	}
	if (trace_open("dump", path, &r) < 0)
		return EXIT_FAIL;
	if (start && (ret = bpt_reader_seek_time(r, start, &err)) < 0) {
		trace_error("dump", path, ret, &err);
		bpt_reader_close(r);
		return EXIT_FAIL;
	}
	out.hdr = bpt_reader_header(r);
	out.path = dump_path;
	out.string = dump_string;
	out.path_ctx = r;
	/* fully buffered in large chunks: dumps run to millions of lines */
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	dump_begin(&out);
	/* captures store records in completion order, so issue times are not
	 * sorted: the window is a filter over the rest of the file */
	while ((ret = bpt_reader_next(r, &rec, &err)) == 1)
		if (rec.issue_ns >= start && rec.issue_ns < end)
			dump_record(&out, &rec, bpt_reader_string(r, rec.comm_id));
	dump_end(&out);
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("dump: standard output: %s", strerror(errno));
		bpt_reader_close(r);
		return EXIT_FAIL;
	}
	if (ret < 0) {
		trace_error("dump", path, ret, &err);
		bpt_reader_close(r);
		return EXIT_FAIL;
	}
	trace_warn_truncated("dump", path, r);
	bpt_reader_close(r);
	return EXIT_OK;
}
