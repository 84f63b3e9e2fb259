/*
 * cmd_measure.c — `blkpeak measure KIND --target SPEC`: the command line.
 * options.c parses and checks the options into struct measure_opts; run.c runs the
 * steps, output.c prints them, and analyze_store_measurement()
 * (common/commands.h) stores the results document as `analyze import`
 * would.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cliutil.h"
#include "commands.h"
#include "dbpath.h"
#include "knee.h"
#include "measure.h"
#include "outfile.h"

/* The help, in sections: `blkpeak measure --help` prints them all,
 * `blkpeak measure KIND --help` only what KIND takes. */
static const char help_kinds[] =
"The standard disk measurements, run through replay's engines and targets\n"
"(each step is a child 'blkpeak replay', as fast as possible). KIND:\n";
static const char *const help_kind_line[] = {
	[MEASURE_QD_SWEEP] =
"  qd-sweep   an IOMeter access spec at each queue depth: IOPS, MB/s,\n"
"             latency p50/p99/p99.9/max, and a weighted score\n",
	[MEASURE_ZCAV] =
"  zcav       sequential read throughput in zones from the first to the\n"
"             last sector\n",
	[MEASURE_SEEKS] =
"  seeks      random reads at depth 1 over spans of the target\n",
	[MEASURE_COMMIT] =
"  commit     small writes at depth 1, each followed by a flush (or FUA)\n",
};
/* (knee, a search over a trace's speed: blkpeak measure knee --help) */
static const char help_common[] =
"\n"
"target and safety (as in blkpeak replay):\n"
"  -t, --target SPEC      /dev/sdX, a regular file, or raid0:chunk=64k:A,B,\n"
"                         raid1:A,B, raid10:..., linear:..., hdd:MODEL:PATH\n"
"  --allow-write          let a spec's writes reach a block device (commit,\n"
"                         and qd-sweep patterns or traces with writes)\n"
"\n"
"every kind:\n"
"  --ios N                I/Os measured per step (commits for commit; default\n"
"                         qd-sweep 10000, zcav 64, seeks 2000, commit 1000)\n"
"  --warmup N             I/Os done before them in each step and left out\n"
"                         (default a tenth of --ios; with --time, the I/Os\n"
"                         issued in its first tenth)\n"
"  --time T               stop each step after T (10s, 500ms; warm-up\n"
"                         included) or --ios, whichever comes first; --ios\n"
"                         then defaults to 1000000 (zcav: 64)\n"
"  --seed N               random seed of the access spec (default 1)\n"
"  --engine NAME          one of replay's engines (replay's default: libaio;\n"
"                         null: no I/O, for tests)\n"
"  --null-latency T       the null engine's service time\n"
"\n";
static const char *const help_kind_opts[] = {
	[MEASURE_QD_SWEEP] =
"qd-sweep:\n"
"  --pattern P            fileserver, webserver, workstation, database (the\n"
"                         IOMeter specs), random (default) or sequential\n"
"  --like TRACE           the read share, random share and sizes of a trace\n"
"  --depths LIST          queue depths (default 1,2,4,8,16,32,64,128,256)\n"
"  --weights LIST         DEPTH:WEIGHT,... for the score (default equal)\n"
"  --weights-from TRACE   weights = the share of the trace's busy time spent\n"
"                         at each depth (counted for the next swept depth up)\n",
	[MEASURE_ZCAV] =
"zcav:\n"
"  --zones N              zones from start to end (default 16)\n"
"  --bs SIZE              read size (default 1m)\n"
"  --depth N              queue depth (default 1)\n",
	[MEASURE_SEEKS] =
"seeks:\n"
"  --spans LIST           spans in percent of the target (default 1,10,50,100)\n"
"  --bs SIZE              read size (default 4k)\n",
	[MEASURE_COMMIT] =
"commit:\n"
"  --bs SIZE              write size (default 4k)\n"
"  --region SIZE          bytes the writes cycle over from offset 0 (default 1m)\n"
"  --fua                  FUA writes instead of a flush after each write\n",
};
static const char help_output[] =
"\n"
"output:\n"
"  -o, --output FILE      write the results document (JSON)\n"
"  --label NAME           the measurement's name in analyze's tables and\n"
"                         charts (up to 63 bytes; default: a short name\n"
"                         from the target), in the document's \"label\"\n"
"  --json                 print the results document instead of the table\n"
"  --db PATH              the analysis database the results are stored in\n"
"                         (as by blkpeak analyze import; default $BLKPEAK_DB,\n"
"                         else ./blkpeak.db)\n"
"  --no-store             do not store the results\n"
"  -h, --help             this text\n"
"\n"
"Exit status: 0 when every step ran without an I/O error, 1 when a step\n"
"failed or had I/O errors, 2 for bad usage.\n";

/* The kind named on the command line before --help, or -1: its help. */
static int help_kind = -1;

static void usage(FILE *f)
{
	int nk = (int)(sizeof(help_kind_line) / sizeof(help_kind_line[0]));

	if (help_kind >= 0 && help_kind < nk) {
		fprintf(f, "usage: blkpeak measure %s --target SPEC [options]\n\n%s",
			measure_kind_name((enum measure_kind)help_kind), help_kind_line[help_kind]);
		fprintf(f, "%s%s%s", help_common, help_kind_opts[help_kind], help_output);
		fputs("\nThe other kinds: blkpeak measure --help.\n", f);
		return;
	}
	fprintf(f, "usage: blkpeak measure KIND --target SPEC [options]\n\n%s", help_kinds);
	for (int k = 0; k < nk; k++)
		fputs(help_kind_line[k], f);
	fputs(help_common, f);
	for (int k = 0; k < nk; k++)
		fputs(help_kind_opts[k], f);
	fputs(help_output, f);
	fputs("\nblkpeak measure knee TRACE: the largest speed factor at which a trace's\n"
	      "replay meets a latency target (blkpeak measure knee --help).\n", f);
}

/* A size mix "4096:779,524288:68,..." (most frequent first) in words:
 * "4.0 KiB 77.9%, 512.0 KiB 6.8%, ... (13 sizes)", the first four. */
static void mix_words(const char *mix, char *buf, size_t len)
{
	double total = 0;
	size_t o = 0, n = 0;
	const char *p;

	for (p = mix; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		total += strtod(strchr(p, ':') ? strchr(p, ':') + 1 : "0", NULL);
	for (p = mix; p && *p && o < len; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL, n++) {
		char sz[32];

		if (n < 4 && total > 0)
			o += (size_t)snprintf(buf + o, len - o, "%s%s %.1f%%", n ? ", " : "",
					      fmt_bytes(strtoull(p, NULL, 10), sz, sizeof(sz)),
					      100 * strtod(strchr(p, ':') + 1, NULL) / total);
	}
	if (n > 4 && o < len)
		snprintf(buf + o, len - o, ", ... (%zu sizes)", n);
}

/* What the steps run, in words, from the options (and --like's trace). */
static int describe(const struct measure_opts *o, struct measure_result *r)
{
	struct bpt_error err = { 0 };
	char sz[32];

	snprintf(r->target, sizeof(r->target), "%s", o->target);
	r->kind = o->kind;
	switch (o->kind) {
	case MEASURE_QD_SWEEP:
		snprintf(r->weights, sizeof(r->weights), "%s",
			 o->weights_from ? "trace" : o->weights_given ? "given" : "equal");
		if (o->like) {
			if (measure_like(o->like, &r->read_pct, &r->random_pct, r->bs, sizeof(r->bs),
					 &err)) {
				pr_err("measure: --like: %s", err.msg);
				return EXIT_FAIL;
			}
			for (const char *p = r->bs; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
				uint64_t b = strtoull(p, NULL, 10);

				if (b > r->max_bs)
					r->max_bs = b;
			}
			snprintf(r->access, sizeof(r->access), "like the trace: %.1f%% read, %.1f%% random, ",
				 r->read_pct, r->random_pct);
			mix_words(r->bs, r->access + strlen(r->access),
				  sizeof(r->access) - strlen(r->access));
		} else {
			snprintf(r->access, sizeof(r->access), "pattern %s, random offsets",
				 o->pattern ? o->pattern : "random");
			r->max_bs = 512u << 10; /* the largest size of generate's presets */
		}
		break;
	case MEASURE_ZCAV:
		snprintf(r->access, sizeof(r->access), "%u zones, sequential %s reads at depth %u",
			 o->zones, fmt_bytes(o->bs, sz, sizeof(sz)), o->depth);
		break;
	case MEASURE_SEEKS:
		snprintf(r->bs, sizeof(r->bs), "%llu", (unsigned long long)o->bs);
		r->read_pct = 100;
		r->random_pct = 100;
		snprintf(r->access, sizeof(r->access), "random %s reads at depth 1", fmt_bytes(o->bs, sz, sizeof(sz)));
		break;
	case MEASURE_COMMIT:
		snprintf(r->access, sizeof(r->access), "%s writes at depth 1, each %s",
			 fmt_bytes(o->bs, sz, sizeof(sz)), o->fua ? "with FUA" : "followed by a flush");
		break;
	}
	return 0;
}

/* Write the results document to path (all or nothing, common/outfile.h). */
static int write_results(const struct measure_opts *o, const struct measure_result *r,
			 const char *path)
{
	const char *inputs[4] = { 0 };
	struct outfile out;
	int rc, n = 0;

	if (o->like)
		inputs[n++] = o->like;
	if (o->weights_from)
		inputs[n++] = o->weights_from;
	if (!o->no_store)
		inputs[n++] = db_default_path(o->db);
	rc = outfile_open(&out, path, &(struct outfile_opts){ .what = "measurement results",
							      .inputs = inputs });
	if (rc) {
		pr_err("measure: %s", out.err.msg);
		return EXIT_FAIL;
	}
	measure_print_json(out.f, o, r);
	if (outfile_close(&out, 0)) {
		pr_err("measure: %s", out.err.msg);
		return EXIT_FAIL;
	}
	return 0;
}

struct doc {
	const struct measure_opts *o;
	const struct measure_result *r;
};

static void print_doc(FILE *f, const void *arg)
{
	const struct doc *d = arg;

	measure_print_json(f, d->o, d->r);
}

int cmd_measure(int argc, char **argv)
{
	struct measure_opts o;
	struct measure_result *r;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "knee")) /* a search over a trace: knee.c */
		return measure_knee(argc, argv);
	/* KIND before --help ("measure qd-sweep --help"): KIND's own help */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		enum measure_kind k;

		if (argv[i][0] != '-' && !measure_kind_parse(argv[i], &k)) {
			help_kind = (int)k;
			break;
		}
	}
	rc = measure_opts_parse(argc, argv, &o, usage);

	if (rc >= 0)
		return rc;
	if (o.output) {
		struct bpt_error err = { 0 };
		const char *inputs[4] = { 0 };
		int ni = 0;

		if (o.like)
			inputs[ni++] = o.like;
		if (o.weights_from)
			inputs[ni++] = o.weights_from;
		if (!o.no_store)
			inputs[ni++] = db_default_path(o.db);

		if (outfile_check(o.output, "measurement results", inputs, &err)) {
			pr_err("measure: %s", err.msg);
			return EXIT_FAIL;
		}
	}
	if (!o.no_store) { /* a database that cannot take the results: said now */
		struct bpt_error err = { 0 };

		if (analyze_store_ready(o.db, &err)) {
			pr_err("measure: %s", err.msg);
			return EXIT_FAIL;
		}
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		pr_err("measure: out of memory");
		return EXIT_FAIL;
	}
	if ((rc = describe(&o, r)))
		goto out;
	if (o.weights_from) {
		struct bpt_error err = { 0 };

		if (depths_weights_from(o.weights_from, &o.depths, &err)) {
			pr_err("measure: --weights-from: %s", err.msg);
			rc = EXIT_FAIL;
			goto out;
		}
	}
	rc = measure_run(&o, r);
	if (rc && !r->npoints)
		goto out;
	if (o.json)
		measure_print_json(stdout, &o, r);
	else
		measure_print_text(stdout, &o, r);
	if (o.output) {
		int wrc = write_results(&o, r, o.output);

		rc = rc ? rc : wrc;
	}
	if (!rc && !o.no_store)
		rc = measure_store("measure", o.db, o.output, print_doc, &(struct doc){ &o, r });
out:
	free(r);
	return rc;
}
