/*
 * cmd_info.c — `blkpeak info FILE [--json] [--verify]`: a trace's header,
 * devices and totals. Reads every record once (constant memory) for the
 * I/O mix; --verify also checks every block checksum and the footer.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "bpt.h"
#include "cliutil.h"
#include "commands.h"
#include "info_print.h"
#include "trace_open.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: blkpeak info FILE [--json] [--verify] [--window N]\n"
"\n"
"Show a trace's header (kind, versions, host, kernel, start, options),\n"
"its device table, record count, time span, I/O mix, flags, errors, lost\n"
"events, bytes per I/O on disk and whether the file is complete.\n"
"\n"
"  --json      the same as one JSON object\n"
"  --verify    read every block and check every checksum and the footer;\n"
"              exit 1 naming the offset of the first problem\n"
"  --window N  a foreign trace: re-order within N records (default 65536;\n"
"              as blkpeak convert --window)\n"
"  -h, --help  this text\n");
}

/* Read every record into d->sum; 0 or the reader's error (printed). */
static int summarise(struct bpt_reader *r, const char *path, struct info_data *d)
{
	struct bpt_error err = { 0 };
	struct bpt_record rec;
	int ret;

	trace_summary_init(&d->sum);
	while ((ret = bpt_reader_next(r, &rec, &err)) == 1)
		if (trace_summary_add(&d->sum, &rec)) {
			pr_err("info: %s: out of memory", path);
			return -ENOMEM;
		}
	if (ret < 0) {
		trace_error("info", path, ret, &err);
		return ret;
	}
	bpt_reader_stats(r, &d->st);
	return 0;
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verify", no_argument, NULL, 'v' },
		{ "window", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct info_data d = { .verified = -1 };
	struct bpt_reader *r = NULL;
	struct bpt_error err = { 0 };
	int json = 0, verify = 0, c, ret;
	struct opt_loop ol = { .cmd = "info", .usage = usage };

	while ((c = opt_next(&ol, argc, argv, ":h", opts)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'v': verify = 1; break;
		case 'w': {
			uint64_t v;

			if (parse_u64(optarg, &v) || formats_set_window(v)) {
				pr_err("info: --window: '%s': not a number of records from 1 to %u",
				       optarg, FORMATS_WINDOW_MAX);
				return EXIT_USAGE;
			}
			break;
		}
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (trace_file_arg("info", argc, argv, optind, &d.path))
		return EXIT_USAGE;
	if (trace_open("info", d.path, &r) < 0)
		return EXIT_FAIL;
	d.hdr = bpt_reader_header(r);
	if (summarise(r, d.path, &d)) {
		trace_summary_free(&d.sum);
		bpt_reader_close(r);
		return EXIT_FAIL;
	}
	ret = 0;
	if (verify) {
		d.verified = 0;
		ret = bpt_reader_verify(r, &err);
		if (ret < 0) {
			trace_error("info", d.path, ret, &err);
		} else if (!d.st.complete) {
			pr_err("info: %s: verify: the file is cut off: good data ends at offset %llu, "
			       "%llu bytes after it", d.path, (unsigned long long)d.st.valid_bytes,
			       (unsigned long long)cut_bytes(&d.st));
			ret = -1;
		} else {
			d.verified = 1;
		}
	}
	if (bpt_reader_digest(r, &d.digest, NULL) == 0)
		d.have_digest = 1;
	/* the report is printed also when --verify fails: it shows what is there */
	if (json)
		info_print_json(stdout, &d);
	else
		info_print_text(stdout, &d);
	if (!verify)
		trace_warn_truncated("info", d.path, r);
	trace_summary_free(&d.sum);
	bpt_reader_close(r);
	return ret ? EXIT_FAIL : EXIT_OK;
}
