/*
 * cmd_measure.c — `blkpeak measure KIND --target SPEC`: the command line.
 * Parses and checks the options into struct measure_opts; run.c runs the
 * steps, output.c prints them, and `analyze import` stores the results
 * document (--db runs it in this process, through common/commands.h).
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
"  --engine NAME          libaio (default) or null (no I/O, for tests);\n"
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
}

enum {
	OPT_ALLOW_WRITE = 256, OPT_IOS, OPT_WARMUP, OPT_SEED, OPT_ENGINE, OPT_NULL_LAT,
	OPT_PATTERN, OPT_LIKE, OPT_DEPTHS, OPT_WEIGHTS, OPT_WEIGHTS_FROM, OPT_ZONES, OPT_BS,
	OPT_DEPTH, OPT_SPANS, OPT_REGION, OPT_FUA, OPT_JSON, OPT_DB, OPT_TIME, OPT_NO_STORE,
	OPT_LABEL,
};

static const struct option long_opts[] = {
	{ "target", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "allow-write", no_argument, NULL, OPT_ALLOW_WRITE },
	{ "ios", required_argument, NULL, OPT_IOS },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "null-latency", required_argument, NULL, OPT_NULL_LAT },
	{ "pattern", required_argument, NULL, OPT_PATTERN },
	{ "like", required_argument, NULL, OPT_LIKE },
	{ "depths", required_argument, NULL, OPT_DEPTHS },
	{ "weights", required_argument, NULL, OPT_WEIGHTS },
	{ "weights-from", required_argument, NULL, OPT_WEIGHTS_FROM },
	{ "zones", required_argument, NULL, OPT_ZONES },
	{ "bs", required_argument, NULL, OPT_BS },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "spans", required_argument, NULL, OPT_SPANS },
	{ "region", required_argument, NULL, OPT_REGION },
	{ "fua", no_argument, NULL, OPT_FUA },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "db", required_argument, NULL, OPT_DB },
	{ "no-store", no_argument, NULL, OPT_NO_STORE },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* The kinds each kind-specific option belongs to (bit per kind). */
#define K(k) (1u << (k))
static unsigned option_kinds(int c)
{
	switch (c) {
	case OPT_PATTERN: case OPT_LIKE: case OPT_DEPTHS: case OPT_WEIGHTS:
	case OPT_WEIGHTS_FROM:
		return K(MEASURE_QD_SWEEP);
	case OPT_ZONES: case OPT_DEPTH:
		return K(MEASURE_ZCAV);
	case OPT_SPANS:
		return K(MEASURE_SEEKS);
	case OPT_REGION: case OPT_FUA:
		return K(MEASURE_COMMIT);
	case OPT_BS:
		return K(MEASURE_ZCAV) | K(MEASURE_SEEKS) | K(MEASURE_COMMIT);
	default:
		return ~0u;
	}
}

/* The option's text, for messages. */
static const char *option_name(int c)
{
	for (const struct option *o = long_opts; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

static int parse_spans(const char *s, struct measure_opts *o)
{
	char buf[512], *save = NULL, *tok;

	if (strlen(s) >= sizeof(buf)) {
		pr_err("measure: --spans: too long");
		return EXIT_USAGE;
	}
	strcpy(buf, s);
	o->nspans = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double v;
		size_t l = strlen(tok);

		if (l && tok[l - 1] == '%')
			tok[l - 1] = '\0';
		if (parse_double(tok, &v) || !(v > 0) || v > 100) {
			pr_err("measure: --spans: '%s': a span is a percentage above 0 and at most 100",
			       tok);
			return EXIT_USAGE;
		}
		if (o->nspans && v <= o->span_pct[o->nspans - 1]) {
			pr_err("measure: --spans: %s: spans must increase", tok);
			return EXIT_USAGE;
		}
		if (o->nspans == MEASURE_MAX_SPANS) {
			pr_err("measure: --spans: more than %d spans", MEASURE_MAX_SPANS);
			return EXIT_USAGE;
		}
		o->span_pct[o->nspans++] = v;
	}
	if (!o->nspans) {
		pr_err("measure: --spans: '%s': no span", s);
		return EXIT_USAGE;
	}
	return 0;
}

/* A positive count option into *v; EXIT_USAGE (printed) when it is not. */
static int parse_count(const char *name, const char *arg, uint64_t min, uint64_t max,
		       uint64_t *v)
{
	if (parse_u64(arg, v) || *v < min || *v > max) {
		pr_err("measure: --%s: '%s': not a number from %llu to %llu", name, arg,
		       (unsigned long long)min, (unsigned long long)max);
		return EXIT_USAGE;
	}
	return 0;
}

static const char *const patterns[] = {
	"random", "sequential", "fileserver", "webserver", "workstation", "database", NULL,
};

static int parse_opt(int c, const char *arg, struct measure_opts *o, int *ios_set,
		     int *warmup_set, const char **depths, const char **weights)
{
	uint64_t v;

	switch (c) {
	case 't': o->target = arg; return 0;
	case 'o': o->output = arg; return 0;
	case OPT_ALLOW_WRITE: o->allow_write = 1; return 0;
	case OPT_IOS:
		*ios_set = 1;
		return parse_count("ios", arg, 1, 100000000, &o->ios);
	case OPT_WARMUP:
		*warmup_set = 1;
		return parse_count("warmup", arg, 0, 100000000, &o->warmup);
	case OPT_TIME:
		if (parse_duration_ns(arg, &o->time_ns) == 0 && o->time_ns > 0)
			return 0;
		pr_err("measure: --time: '%s': not a duration above 0", arg);
		return EXIT_USAGE;
	case OPT_SEED:
		return parse_count("seed", arg, 0, UINT64_MAX, &o->seed);
	case OPT_ENGINE: o->engine = arg; return 0;
	case OPT_NULL_LAT:
		if (parse_duration_ns(arg, &o->null_latency_ns) == 0)
			return 0;
		pr_err("measure: --null-latency: '%s': not a duration", arg);
		return EXIT_USAGE;
	case OPT_PATTERN:
		for (const char *const *p = patterns; *p; p++)
			if (!strcmp(*p, arg)) {
				o->pattern = arg;
				return 0;
			}
		pr_err("measure: --pattern: '%s': not random, sequential, fileserver, webserver,"
		       " workstation or database", arg);
		return EXIT_USAGE;
	case OPT_LIKE: o->like = arg; return 0;
	case OPT_DEPTHS: *depths = arg; return 0;
	case OPT_WEIGHTS: *weights = arg; return 0;
	case OPT_WEIGHTS_FROM: o->weights_from = arg; return 0;
	case OPT_ZONES:
		if (parse_count("zones", arg, 1, MEASURE_MAX_STEPS, &v))
			return EXIT_USAGE;
		o->zones = (unsigned)v;
		return 0;
	case OPT_DEPTH:
		if (parse_count("depth", arg, 1, MEASURE_MAX_DEPTH, &v))
			return EXIT_USAGE;
		o->depth = (unsigned)v;
		return 0;
	case OPT_BS:
		if (parse_size(arg, &o->bs) || !o->bs || o->bs % 512 || o->bs > (64u << 20)) {
			pr_err("measure: --bs: '%s': not a multiple of 512 up to 64m", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_SPANS: return parse_spans(arg, o);
	case OPT_REGION:
		if (parse_size(arg, &o->region) || !o->region || o->region % 4096) {
			pr_err("measure: --region: '%s': not a multiple of 4k", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_FUA: o->fua = 1; return 0;
	case OPT_JSON: o->json = 1; return 0;
	case OPT_LABEL:
		if (!*arg || strlen(arg) > 63) {
			pr_err("measure: --label: '%s': give a name of 1 to 63 bytes", arg);
			return EXIT_USAGE;
		}
		o->label = arg;
		return 0;
	case OPT_DB: o->db = arg; return 0;
	case OPT_NO_STORE: o->no_store = 1; return 0;
	}
	return EXIT_USAGE;
}

/* Defaults of the kind, then the checks across options. */
static int finish_opts(struct measure_opts *o, int ios_set, int warmup_set,
		       const char *depths, const char *weights)
{
	static const uint64_t default_ios[] = { 10000, 64, 2000, 1000 };
	struct bpt_error err = { 0 };

	if (!o->target) {
		pr_err("measure: --target SPEC is required");
		return EXIT_USAGE;
	}
	if (!ios_set)
		o->ios = o->time_ns && o->kind != MEASURE_ZCAV ? 1000000 : default_ios[o->kind];
	if (!warmup_set && o->time_ns) {
		o->warmup = 0;
		o->warmup_ns = o->time_ns / 10;
	} else if (!warmup_set) {
		o->warmup = o->ios / 10;
	}
	if (!o->bs)
		o->bs = o->kind == MEASURE_ZCAV ? 1u << 20 : 4096;
	if (!o->zones)
		o->zones = 16;
	if (!o->depth)
		o->depth = 1;
	if (!o->region)
		o->region = 1u << 20;
	if (o->kind == MEASURE_COMMIT && o->region < o->bs) {
		pr_err("measure: --region: smaller than --bs");
		return EXIT_USAGE;
	}
	if (!o->nspans) {
		static const double d[] = { 1, 10, 50, 100 };

		memcpy(o->span_pct, d, sizeof(d));
		o->nspans = 4;
	}
	if (o->pattern && o->like) {
		pr_err("measure: --pattern and --like: give one");
		return EXIT_USAGE;
	}
	if (o->db && o->no_store) {
		pr_err("measure: --db and --no-store: give one");
		return EXIT_USAGE;
	}
	if (weights && o->weights_from) {
		pr_err("measure: --weights and --weights-from: give one");
		return EXIT_USAGE;
	}
	if (depths_parse(depths ? depths : "1,2,4,8,16,32,64,128,256", &o->depths, &err) ||
	    (weights && depths_weights_parse(weights, &o->depths, &err))) {
		pr_err("measure: %s", err.msg);
		return EXIT_USAGE;
	}
	o->weights_given = weights != NULL;
	if (o->engine && strcmp(o->engine, "libaio") && strcmp(o->engine, "null")) {
		pr_err("measure: --engine: '%s': not libaio or null", o->engine);
		return EXIT_USAGE;
	}
	return 0;
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

/* Store: `blkpeak analyze import [--db DB] -q RESULTS` in this process
 * (without --db, analyze's default database). */
static int store(const struct measure_opts *o, const struct measure_result *r)
{
	char tmp[300];
	const char *t = getenv("TMPDIR"), *path = o->output;
	int rc, fd = -1;

	if (!path) {
		snprintf(tmp, sizeof(tmp), "%s/blkpeak-measure-XXXXXX.json", t && *t ? t : "/var/tmp");
		fd = mkstemps(tmp, 5);
		if (fd < 0) {
			pr_err("measure: %s: %s", tmp, strerror(errno));
			return EXIT_FAIL;
		}
		close(fd);
		path = tmp;
		if ((rc = write_results(o, r, path))) {
			unlink(tmp);
			return rc;
		}
	}
	{
		char *argv[] = { "analyze", "import", "-q", (char *)path, "--db", (char *)o->db, NULL };

		rc = cmd_analyze(o->db ? 6 : 4, argv);
	}
	if (fd >= 0)
		unlink(tmp);
	return rc;
}

int cmd_measure(int argc, char **argv)
{
	struct measure_opts o = { .seed = 1 };
	struct opt_loop ol = { .cmd = "measure", .usage = usage };
	struct measure_result *r;
	const char *depths = NULL, *weights = NULL;
	unsigned seen_kinds[64] = { 0 };
	int c, rc, ios_set = 0, warmup_set = 0, nseen = 0;
	int seen_opt[64];

	/* KIND before --help ("measure qd-sweep --help"): KIND's own help */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		enum measure_kind k;

		if (argv[i][0] != '-' && !measure_kind_parse(argv[i], &k)) {
			help_kind = (int)k;
			break;
		}
	}
	while ((c = opt_next(&ol, argc, argv, ":ht:o:", long_opts)) != -1) {
		if ((rc = parse_opt(c, optarg, &o, &ios_set, &warmup_set, &depths, &weights)))
			return rc;
		if (option_kinds(c) != ~0u && nseen < 64) {
			seen_kinds[nseen] = option_kinds(c);
			seen_opt[nseen++] = c;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	if (optind != argc - 1) {
		pr_err("measure: %s; see 'blkpeak measure --help'",
		       optind == argc ? "missing KIND (qd-sweep, zcav, seeks or commit)"
				      : "one KIND only");
		return EXIT_USAGE;
	}
	if (measure_kind_parse(argv[optind], &o.kind)) {
		pr_err("measure: '%s': not qd-sweep, zcav, seeks or commit", argv[optind]);
		return EXIT_USAGE;
	}
	for (int i = 0; i < nseen; i++)
		if (!(seen_kinds[i] & K(o.kind))) {
			pr_err("measure: --%s: not an option of %s", option_name(seen_opt[i]),
			       measure_kind_name(o.kind));
			return EXIT_USAGE;
		}
	if ((rc = finish_opts(&o, ios_set, warmup_set, depths, weights)))
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
		rc = store(&o, r);
out:
	free(r);
	return rc;
}
