/*
 * cmd_convert.c — `blkpeak convert IN... -o OUT [--from FMT] [--to FMT]
 * [--device NAME]... [--skip-bad] [--window N]`: foreign traces to .bpt,
 * and .bpt (or any format read) to the formats the writers know.
 *
 * Streaming with constant memory: the inputs are read by a foreign
 * source (source.h; a .bpt input by the trace reader) and each record
 * goes straight to the writer. The output is written all or nothing
 * (common/outfile.h): a conversion that fails leaves no file.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpt.h"
#include "cliutil.h"
#include "commands.h"
#include "foreign.h"
#include "jsonout.h"
#include "outfile.h"
#include "progress.h"
#include "source.h"
#include "xform.h"

struct convert_opts {
	const char *out;
	const char *from, *to;
	const char **devices; /* NULL-terminated, or NULL */
	size_t ndevices;
	int skip_bad, json, quiet;
	unsigned writer_options; /* enum ff_writer_option */
	uint32_t window;
	const char *const *inputs;
	size_t ninputs;
	struct xform *xf;     /* what-if transforms (transform/xform.h) */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: blkpeak convert IN... -o OUT [--from FMT] [--to FMT] [--device NAME]...\n"
"                       [--skip-bad] [--window N] [--cgroup-ids] [--json] [-q]\n"
"       blkpeak convert --list\n"
"\n"
"Convert block traces: blktrace, blkparse text, fio iologs, MSR Cambridge,\n"
"SPC, Alibaba, Tencent CBS, SNIA SYSTOR'17, FIU and biosnoop files (plain\n"
"or .gz, .bz2, .xz, .zst) to a .bpt trace, and a trace to the formats\n"
"other tools read. The input format is found from the content; several\n"
"inputs are merged by time. Every other command reads these files too.\n"
"\n"
"  -o, --output OUT  the file to write (written whole or not at all); for\n"
"                    --to blktrace a directory (not a file prefix as for\n"
"                    blktrace -o): DIR/DEV.blktrace.0 per device, which\n"
"                    blkparse -D DIR -i DEV reads; or NAME.blktrace.0, that\n"
"                    one file, for a trace of one device (blkparse -i NAME)\n"
"  --from FMT        the inputs' format, instead of detecting it\n"
"  --to FMT          the output format (bpt, or a writer of --list);\n"
"                    default: from OUT's name (NAME.blktrace.0: blktrace),\n"
"                    else bpt\n"
"  --cgroup-ids      --to blktrace: write the cgroup ids (BT_TA_CGROUP);\n"
"                    blkparse, btt and iowatcher before blktrace 1.3.0\n"
"                    drop every such event (\"Bad fs action\")\n"
"  --device NAME     keep only the I/Os of this device (volume, disk);\n"
"                    repeatable; needed when a trace has more than %d\n"
"  --skip-bad        skip lines that cannot be read, count them (stored\n"
"                    in the trace's meta as import.bad_lines) and go on\n"
"  --window N        re-order unsorted inputs within N records (default\n"
"                    %u); an input out of order by more fails\n"
"  --list            the formats read and written, with their units\n"
"  --json            the summary as JSON (schemas/convert.schema.json)\n"
"  -q, --quiet       no summary\n"
"  -h, --help        this text\n",
		BPT_MAX_DEVICES, FF_WINDOW_DEFAULT);
	fprintf(f, "\n%s(on the records as they are written: --spread rounds to 512 bytes;\n"
		"--fill is recorded for replay in the trace's meta \"fill\")\n", xform_usage);
}

static void list_formats(void)
{
	printf("read (--from):\n");
	printf("  %-10s %s\n", "bpt", "blkpeak trace (.bpt)");
	for (size_t i = 0; i < ff_nreaders; i++)
		printf("  %-10s %s\n", ff_readers[i]->name, ff_readers[i]->summary);
	printf("write (--to):\n");
	printf("  %-10s %s\n", "bpt", "blkpeak trace (.bpt), the default");
	for (size_t i = 0; i < ff_nwriters; i++)
		printf("  %-10s %s\n", ff_writers[i]->name, ff_writers[i]->summary);
}

/* Progress on a terminal (common/progress.h): from 2 s on, the phase
 * ("checking", "converting"), how far through the input, the rate and the
 * time left; each phase has its own rate. */
static void show_progress(void *arg, const char *phase, uint64_t done, uint64_t total)
{
	struct progress *p = arg;
	char what[sizeof(p->what)];

	snprintf(what, sizeof(what), "convert: %s", phase);
	if (p->on && strcmp(what, p->what)) {
		double ran = progress_elapsed(p);
		struct progress next;

		progress_init(&next, what, "bytes", 1);
		next.delay_ns = ran * 1e9 >= PROGRESS_DELAY_NS ? 0 : PROGRESS_DELAY_NS - (uint64_t)(ran * 1e9);
		next.shown = p->shown;
		*p = next;
	}
	progress_update(p, done, total);
}

struct sink {
	const struct ff_writer_ops *ops; /* NULL: .bpt */
	void *state;
	struct outfile of;
	int of_open;
	struct bpt_writer *w;
	uint32_t *comm_map;  /* source comm id -> writer comm id (.bpt) */
	uint32_t ncomm;
	uint64_t lag_ns;     /* FF_WOPT_LAG: measured by measure_lag() */
};

/* For a writer that wants it (FF_WOPT_LAG): read the input once, the most
 * any record's queue time lies before the latest issue of the records
 * read before it, then rewind. 0 or <0 (err set). */
static int measure_lag(struct bpt_reader *r, uint64_t *lag, struct bpt_error *err)
{
	struct bpt_record rec;
	uint64_t max_issue = 0;
	int any = 0, rc;

	*lag = 0;
	while ((rc = bpt_reader_next(r, &rec, err)) == 1) {
		uint64_t q = rec.queue_ns && rec.queue_ns <= rec.issue_ns ? rec.queue_ns : rec.issue_ns;

		if (any && max_issue > q && max_issue - q > *lag)
			*lag = max_issue - q;
		if (!any || rec.issue_ns > max_issue)
			max_issue = rec.issue_ns;
		any = 1;
	}
	if (rc < 0)
		return rc;
	return bpt_reader_rewind(r, err);
}

static int sink_open(struct sink *k, const struct convert_opts *o, const struct bpt_header *hdr,
		     struct bpt_error *err)
{
	const char **inputs = calloc(o->ninputs + 1, sizeof(*inputs));
	int rc;

	if (!inputs)
		return bpt_error_set(err, -ENOMEM, "out of memory");
	memcpy(inputs, o->inputs, o->ninputs * sizeof(*inputs));
	if (k->ops) {
		struct ff_writer_opts wo = { .flags = o->writer_options, .lag_ns = k->lag_ns };

		if (k->ops->accepts & FF_WOPT_LAG)
			wo.flags |= FF_WOPT_LAG;
		if (k->ops->open_opts)
			rc = k->ops->open_opts(&k->state, o->out, hdr, inputs, &wo, err);
		else
			rc = k->ops->open(&k->state, o->out, hdr, inputs, err);
		free(inputs);
		return rc;
	}
	rc = outfile_open(&k->of, o->out,
			  &(struct outfile_opts){ .what = "a trace", .inputs = inputs });
	free(inputs);
	if (rc) {
		*err = k->of.err;
		return rc;
	}
	k->of_open = 1;
	rc = outfile_dup_fd(&k->of);
	if (rc < 0) {
		*err = k->of.err;
		return rc;
	}
	return bpt_writer_create_fd(&k->w, rc, o->out, hdr, NULL, err);
}

/* The writer's id for the reader's comm id (the .bpt writer interns on
 * first use). */
static int map_comm(struct sink *k, struct bpt_reader *r, uint32_t id, uint32_t *out,
		    struct bpt_error *err)
{
	if (id >= k->ncomm) {
		uint32_t n = k->ncomm ? k->ncomm : 256;

		while (n <= id)
			n *= 2;
		uint32_t *p = realloc(k->comm_map, sizeof(*p) * n);

		if (!p)
			return bpt_error_set(err, -ENOMEM, "out of memory");
		memset(p + k->ncomm, 0xff, sizeof(*p) * (n - k->ncomm));
		k->comm_map = p;
		k->ncomm = n;
	}
	if (k->comm_map[id] == UINT32_MAX) {
		const char *s = bpt_reader_string(r, id);
		int rc = bpt_writer_intern(k->w, s ? s : "", &k->comm_map[id]);

		if (rc)
			return bpt_error_set(err, rc, "%s: cannot store process name", k->of.path);
	}
	*out = k->comm_map[id];
	return 0;
}

static int sink_add(struct sink *k, struct bpt_reader *r, struct bpt_record *rec,
		    const char *out, struct bpt_error *err)
{
	int rc;

	if (k->ops) {
		const char *comm = bpt_reader_string(r, rec->comm_id);

		return k->ops->add(k->state, rec, comm ? comm : "", err);
	}
	if ((rc = map_comm(k, r, rec->comm_id, &rec->comm_id, err)))
		return rc;
	rc = bpt_writer_add(k->w, rec);
	if (rc)
		return bpt_error_set(err, rc, "%s: cannot write: %s", out, strerror(-rc));
	return 0;
}

/* Finish (failed == 0) or abandon. Returns the first error. */
static int sink_close(struct sink *k, int failed, struct bpt_error *err)
{
	int rc = failed;

	free(k->comm_map);
	if (k->ops) {
		if (k->state) {
			int c = k->ops->close(k->state, failed, err);

			if (!rc)
				rc = c;
		}
		return rc;
	}
	if (k->w) {
		int c = bpt_writer_close(k->w, failed ? NULL : err);

		if (!rc)
			rc = c;
	}
	if (k->of_open) {
		int c = outfile_close(&k->of, rc);

		if (!rc && c) {
			*err = k->of.err;
			rc = c;
		}
	}
	return rc;
}

/* A .bpt output keeps the input's path table (the names of the files its
 * I/Os touched: --select path:, --map path:, analyze's files read it)
 * and, when the records keep their times (no transform), its windows of
 * lost events. 0 or <0 (err set). */
static int sink_copy_footer(struct sink *k, struct bpt_reader *r, int times_kept,
			    struct bpt_error *err)
{
	const struct bpt_path *p;
	const struct bpt_loss *l;
	size_t np = bpt_reader_paths(r, &p), nl = times_kept ? bpt_reader_losses(r, &l) : 0;
	int rc;

	if (!k->w)
		return 0;
	for (size_t i = 0; i < np; i++) {
		const char *s = bpt_reader_string(r, p[i].path_id);

		if (s && (rc = bpt_writer_add_path(k->w, p[i].file_dev, p[i].inode, s)) < 0)
			return bpt_error_set(err, rc, "cannot copy the path table: %s", strerror(-rc));
	}
	for (size_t i = 0; i < nl; i++)
		if ((rc = bpt_writer_add_loss(k->w, l[i].t0_ns, l[i].t1_ns, l[i].count)) < 0)
			return bpt_error_set(err, rc, "cannot copy the lost events: %s", strerror(-rc));
	return 0;
}

/* 1 when path is a .bpt file (its magic). */
static int is_bpt(const char *path)
{
	static const char magic[8] = "\x89" "BPT\r\n\x1a\n";
	char m[8];
	struct stat st;
	/* O_NONBLOCK: a FIFO must not wait for a writer here */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int ok = fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
		 pread(fd, m, 8, 0) == 8 && !memcmp(m, magic, 8);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* The first input that is not a .bpt file. */
static const char *first_not_bpt(const struct convert_opts *o)
{
	for (size_t i = 0; i < o->ninputs; i++)
		if (!is_bpt(o->inputs[i]))
			return o->inputs[i];
	return o->inputs[0];
}

/* 1 when every input is a .bpt file (read by the trace reader itself). */
static int all_bpt(const struct convert_opts *o)
{
	if (o->from && strcmp(o->from, "bpt"))
		return 0;
	for (size_t i = 0; i < o->ninputs; i++)
		if (!is_bpt(o->inputs[i]))
			return 0;
	return 1;
}

static void print_summary(const struct convert_opts *o, const char *to,
			  const struct bpt_header *hdr, const struct bpt_stats *st,
			  const struct ff_totals *t, int foreign, uint64_t deselected)
{
	const char *tx = xform_describe(o->xf);
	const char *fmt = bpt_header_get_meta(hdr, BPT_META_IMPORT_FORMAT);
	/* a writer's output on standard output (-o - with fio, oracle,
	 * csv-zst): the summary must not join it */
	FILE *f = strcmp(o->out, "-") || !strcmp(to, "bpt") || !strcmp(to, "blktrace") ? stdout : stderr;

	if (o->json) {
		struct jw j;

		jw_init(&j, f, 2);
		jw_obj(&j);
		jw_kstr(&j, "output", o->out);
		jw_kstr(&j, "to", to);
		jw_kstr(&j, "from", foreign && fmt ? fmt : "bpt");
		jw_ku64(&j, "inputs", o->ninputs);
		jw_ku64(&j, "ios", st->records);
		jw_ku64(&j, "devices", hdr->ndevices);
		jw_ku64(&j, "bad_lines", t->bad_lines);
		jw_ku64(&j, "dropped", t->dropped);
		jw_ku64(&j, "span_ns", st->last_issue_ns - st->first_issue_ns);
		jw_key(&j, "transform");
		jw_str_or_null(&j, tx[0] ? tx : NULL);
		jw_ku64(&j, "deselected", deselected);
		jw_obj_end(&j);
		jw_finish(&j);
		return;
	}
	fprintf(f, "%s: %" PRIu64 " I/Os on %u device%s over %.3f s, from %s, written as %s\n",
	       o->out, st->records, hdr->ndevices, hdr->ndevices == 1 ? "" : "s",
	       (double)(st->last_issue_ns - st->first_issue_ns) / 1e9,
	       foreign && fmt ? fmt : "bpt", to);
	if (tx[0])
		fprintf(f, "%s: transformed: %s (%" PRIu64 " I/O%s left out)\n", o->out, tx,
			deselected, deselected == 1 ? "" : "s");
	if (o->skip_bad)
		fprintf(f, "%s: %" PRIu64 " bad line%s skipped (--skip-bad)\n", o->out, t->bad_lines,
		       t->bad_lines == 1 ? "" : "s");
	if (o->ndevices)
		fprintf(f, "%s: %" PRIu64 " I/O%s of other devices left out (--device)\n", o->out,
		       t->dropped, t->dropped == 1 ? "" : "s");
	/* what a reader counted besides records (ff_note) */
	for (uint32_t i = 0; i < hdr->nmeta; i++)
		if (!strncmp(hdr->meta[i].key, "note.", 5)) {
			fprintf(f, "%s: %s ", o->out, hdr->meta[i].value);
			for (const char *c = hdr->meta[i].key + 5; *c; c++)
				fputc(*c == '_' ? ' ' : *c, f);
			fputc('\n', f);
		}
}

static int convert(const struct convert_opts *o)
{
	const struct ff_writer_ops *wops = NULL;
	struct progress prog;
	struct ff_source_opts so = {
		.from = o->from && strcmp(o->from, "bpt") ? o->from : NULL,
		.devices = o->devices, .skip_bad = o->skip_bad, .window = o->window,
		.progress = show_progress, .progress_arg = &prog,
	};

	progress_init(&prog, "convert", "bytes", !o->json && !o->quiet);
	prog.delay_ns = PROGRESS_DELAY_NS;
	struct bpt_reader *r = NULL;
	struct bpt_error err = { 0 };
	struct ff_totals t = { 0 };
	struct sink k = { 0 };
	struct bpt_record rec;
	struct bpt_stats st;
	const char *to = "bpt";
	int foreign, rc;

	if (o->to && strcmp(o->to, "bpt")) {
		if (!(wops = ff_writer_find(o->to))) {
			pr_err("convert: --to: '%s': not a format blkpeak writes; see 'blkpeak convert --list'",
			       o->to);
			return EXIT_USAGE;
		}
	} else if (!o->to) {
		wops = ff_writer_for_path(o->out);
	}
	if (wops)
		to = wops->name;
	if (o->writer_options & ~(wops ? wops->accepts : 0)) {
		pr_err("convert: --cgroup-ids: not an option of the %s output (only of --to blktrace)", to);
		return EXIT_USAGE;
	}
	foreign = !all_bpt(o);
	if (foreign && o->from && !strcmp(o->from, "bpt")) {
		pr_err("convert: --from bpt: %s: not a .bpt trace (leave --from out to detect "
		       "its format)", first_not_bpt(o));
		return EXIT_FAIL;
	}
	if (foreign) {
		rc = formats_reader_open_opts(&r, o->inputs, o->ninputs, &so, &err);
	} else {
		if (o->ninputs > 1 || o->ndevices || o->skip_bad) {
			pr_err("convert: .bpt input: one file, without --device or --skip-bad");
			return EXIT_USAGE;
		}
		rc = bpt_reader_open(&r, o->inputs[0], &err);
	}
	progress_end(&prog);
	if (rc) {
		if (rc == -ENOMSG)
			pr_err("convert: %s: not a trace format blkpeak reads (%s)",
			       o->inputs[0], err.msg);
		else
			pr_err("convert: %s", err.msg);
		return rc == -EINVAL && !err.msg[0] ? EXIT_USAGE : EXIT_FAIL;
	}
	k.ops = wops;
	rc = 0;
	if (wops && (wops->accepts & FF_WOPT_LAG))
		rc = measure_lag(r, &k.lag_ns, &err);
	struct bpt_header oh = { 0 };
	uint64_t deselected = 0, written = 0, wfirst = 0, wlast = 0;
	const struct bpt_header *hdr = bpt_reader_header(r);
	int have_oh = 0;

	if (!rc && xform_active(o->xf)) {
		rc = xform_prepare(o->xf, r, &oh, &err);
		have_oh = !rc;
		hdr = have_oh ? &oh : hdr;
	}
	if (!rc)
		rc = sink_open(&k, o, hdr, &err);
	bpt_reader_stats(r, &st); /* a complete file's count, from its footer */
	snprintf(prog.what, sizeof(prog.what), "convert: writing %s", to);
	prog.unit = "I/Os";
	uint64_t n = 0, total = st.complete ? st.records * xform_passes(o->xf) : 0;

	for (unsigned pass = 0; !rc && pass < xform_passes(o->xf); pass++) {
		if (pass && (rc = bpt_reader_rewind(r, &err)))
			break;
		while (!rc && (rc = bpt_reader_next(r, &rec, &err)) == 1) {
			if ((rc = xform_apply(o->xf, &rec, pass, n, &deselected, &err)) == 1) {
				if (!written++ || rec.issue_ns < wfirst)
					wfirst = rec.issue_ns;
				if (rec.issue_ns > wlast)
					wlast = rec.issue_ns;
				rc = sink_add(&k, r, &rec, o->out, &err);
			}
			if (!(n++ & 0xffff))
				progress_update(&prog, n, total);
		}
	}
	progress_end(&prog);
	if (have_oh)
		bpt_header_free(&oh);
	if (rc >= 0)
		rc = sink_copy_footer(&k, r, !xform_changes_records(o->xf) &&
				      xform_passes(o->xf) == 1 && !(o->xf->ramp_from > 0), &err);
	rc = sink_close(&k, rc < 0 ? rc : 0, &err);
	if (rc) {
		pr_err("convert: %s", err.msg[0] ? err.msg : strerror(-rc));
		bpt_reader_close(r);
		return EXIT_FAIL;
	}
	bpt_reader_stats(r, &st);
	if (foreign) {
		const char *b = bpt_header_get_meta(bpt_reader_header(r), BPT_META_IMPORT_BAD);
		const char *d = bpt_header_get_meta(bpt_reader_header(r), BPT_META_IMPORT_DROPPED);

		t.bad_lines = b ? strtoull(b, NULL, 10) : 0;
		t.dropped = d ? strtoull(d, NULL, 10) : 0;
	}
	if (xform_active(o->xf)) { /* what was written, not what was read */
		st.records = written;
		st.first_issue_ns = wfirst;
		st.last_issue_ns = wlast;
	}
	if (!o->quiet)
		print_summary(o, to, bpt_reader_header(r), &st, &t, foreign, deselected);
	bpt_reader_close(r);
	return EXIT_OK;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "device", required_argument, NULL, 'd' },
		{ "skip-bad", no_argument, NULL, 'b' },
		{ "cgroup-ids", no_argument, NULL, 'g' },
		{ "window", required_argument, NULL, 'w' },
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		XFORM_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct xform xf = { 0 };
	struct convert_opts o = { .xf = &xf };
	struct opt_loop ol = { .cmd = "convert", .usage = usage };
	int c, list = 0, ret;
	uint64_t v;

	o.devices = calloc((size_t)argc + 1, sizeof(*o.devices));
	if (!o.devices) {
		pr_err("convert: out of memory");
		return EXIT_FAIL;
	}
	while ((c = opt_next(&ol, argc, argv, ":o:qh", opts)) != -1) {
		switch (c) {
		case 'o': o.out = optarg; break;
		case 'F': o.from = optarg; break;
		case 'T': o.to = optarg; break;
		case 'd': o.devices[o.ndevices++] = optarg; break;
		case 'b': o.skip_bad = 1; break;
		case 'g': o.writer_options |= FF_WOPT_CGROUP_IDS; break;
		case 'l': list = 1; break;
		case 'j': o.json = 1; break;
		case 'q': o.quiet = 1; break;
		default:
			if (xform_is_option(c) && xform_cli_option(&xf, "convert", c, optarg)) {
				free(o.devices);
				return EXIT_USAGE;
			}
			break;
		case 'w':
			if (parse_u64(optarg, &v) || !v || v > FF_WINDOW_MAX) {
				pr_err("convert: --window: '%s': not a number of records from 1 to %u",
				       optarg, FF_WINDOW_MAX);
				free(o.devices);
				return EXIT_USAGE;
			}
			o.window = (uint32_t)v;
			break;
		}
	}
	if (ol.ret >= 0 || (ol.ret = xform_cli_check(&xf, "convert"))) {
		free(o.devices);
		return ol.ret;
	}
	if (list) {
		list_formats();
		free(o.devices);
		return EXIT_OK;
	}
	ret = EXIT_USAGE;
	if (optind >= argc)
		pr_err("convert: no input given; see 'blkpeak convert --help'");
	else if (!o.out)
		pr_err("convert: no output given (-o OUT); see 'blkpeak convert --help'");
	else if (o.from && strcmp(o.from, "bpt") && !ff_reader_find(o.from))
		pr_err("convert: --from: '%s': not a format blkpeak reads; see 'blkpeak convert --list'",
		       o.from);
	else
		ret = -1;
	if (ret < 0) {
		if (!o.ndevices) {
			free(o.devices);
			o.devices = NULL;
		}
		o.inputs = (const char *const *)argv + optind;
		o.ninputs = (size_t)(argc - optind);
		ret = convert(&o);
	}
	free(o.devices);
	xform_free(&xf);
	return ret;
}
