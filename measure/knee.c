/*
 * knee.c — `blkpeak measure knee`: where a trace's replay breaks a
 * latency target. Each step is a child `blkpeak replay TRACE --speed F
 * --json` on the target; its summary gives the step's IOPS, MB/s and
 * latency percentiles (total: issue to completion, all operations). The
 * search: a coarse sweep from --from doubling the factor until a step
 * misses the target (or --max), then bisection between the last factor
 * that met it and the first that did not, until they are within
 * --precision of each other. The answer is the largest factor that met
 * the target; the steps are printed in the order run. The steps and
 * the answer are a results document of kind "knee" (schemas/
 * measure-results.schema.json), stored in analyze's database as the
 * other measurements are (measure_store()).
 *
 * Latency grows without bound once the replayed rate passes what the
 * target serves (the queue grows for the rest of the replay), so
 * "meets the target" is monotonic in the factor up to noise; a step
 * near the knee may go either way from run to run.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "cliutil.h"
#include "commands.h"
#include "dbpath.h"
#include "jsonout.h"
#include "knee.h"
#include "measure.h"
#include "outfile.h"
#include "version.h"

/* The latency figures a target may name, and where replay --json has them. */
static const struct { const char *name, *key; } figures[] = {
	{ "mean", "mean_ns" }, { "p50", "p50_ns" }, { "p90", "p90_ns" }, { "p99", "p99_ns" },
	{ "p99.9", "p99_9_ns" }, { "p99.99", "p99_99_ns" }, { "max", "max_ns" },
};
#define NFIG (sizeof(figures) / sizeof(figures[0]))

struct step {
	double factor;
	double iops, mbps;
	double lat[NFIG];    /* ns */
	uint64_t ios, errors, bytes, window_ns, count, depth, total_ios;
	int met;
};

/* What the search found, for the results document. */
struct knee_result {
	const struct knee_opts *o;
	const struct step *s;
	unsigned n;
	int best;
	uint64_t capacity;
	int64_t started_wall_ns;
};

static void usage(FILE *f)
{
	fputs(
"usage: blkpeak measure knee TRACE --target SPEC --slo FIGURE=TIME [options]\n"
"\n"
"The largest speed factor at which the replay of TRACE on the target still\n"
"meets a latency target: a sweep of factors (--from, doubling) until one\n"
"misses it, then bisection. Each step is a child 'blkpeak replay --speed F';\n"
"its IOPS, MB/s and latency percentiles (issue to completion) are shown.\n"
"\n"
"  -t, --target SPEC      as in blkpeak replay\n"
"  --slo FIGURE=TIME      the target: FIGURE is mean, p50, p90, p99, p99.9,\n"
"                         p99.99 or max; TIME 5ms, 200us, ...; repeatable\n"
"                         (every one must hold)\n"
"  --from F               the first factor (default 1)\n"
"  --max F                the largest factor tried (default 1024)\n"
"  --precision P          stop when the factors that met and missed the\n"
"                         target are within P of each other (default 0.05)\n"
"  --timing MODE          original (default) or causal, as in replay\n"
"  --allow-write          let the trace's writes reach a block device\n"
"  --engine NAME          replay's engine (default libaio; null for tests)\n"
"  -o, --output FILE      write the steps and the answer as JSON (a results\n"
"                         document of kind knee)\n"
"  --json                 print them as JSON instead of the table\n"
"  --label NAME           the search's name in analyze's tables and charts\n"
"                         (up to 63 bytes; default: a short name from the\n"
"                         target)\n"
"  --db PATH              the analysis database the results are stored in\n"
"                         (as by blkpeak analyze import; default $BLKPEAK_DB,\n"
"                         else ./blkpeak.db)\n"
"  --no-store             do not store the results\n"
"  -h, --help             this text\n"
"\n"
"Exit status: 0 when a factor met the target, 1 when none did (or a step\n"
"failed), 2 for bad usage.\n", f);
}

static int parse_slo(const char *s, struct knee_slo *o)
{
	const char *eq = strchr(s, '=');

	if (!eq)
		return -EINVAL;
	for (unsigned i = 0; i < NFIG; i++)
		if (strlen(figures[i].name) == (size_t)(eq - s) &&
		    !strncmp(s, figures[i].name, (size_t)(eq - s))) {
			o->fig = i;
			o->text = s;
			return parse_duration_ns(eq + 1, &o->limit_ns) || !o->limit_ns ? -EINVAL : 0;
		}
	return -EINVAL;
}

static int parse_factor(const char *opt, const char *s, double *v)
{
	if (parse_double(s, v) || !(*v > 0) || *v >= 1e6) {
		pr_err("measure knee: %s: '%s': not a factor above 0 and below 1000000", opt, s);
		return EXIT_USAGE;
	}
	return 0;
}

int knee_opts_parse(int argc, char **argv, struct knee_opts *o)
{
	static const struct option opts[] = {
		{ "target", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "slo", required_argument, NULL, 's' },
		{ "from", required_argument, NULL, 'F' },
		{ "max", required_argument, NULL, 'M' },
		{ "precision", required_argument, NULL, 'P' },
		{ "timing", required_argument, NULL, 'T' },
		{ "allow-write", no_argument, NULL, 'w' },
		{ "engine", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "label", required_argument, NULL, 'L' },
		{ "db", required_argument, NULL, 'D' },
		{ "no-store", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct opt_loop ol = { .cmd = "measure knee", .usage = usage };
	int c, rc;

	*o = (struct knee_opts){ .from = 1, .max = 1024, .precision = 0.05, .timing = "original" };
	while ((c = opt_next(&ol, argc - 1, argv + 1, ":t:o:h", opts)) != -1) {
		switch (c) {
		case 't': o->target = optarg; break;
		case 'o': o->output = optarg; break;
		case 'e': o->engine = optarg; break;
		case 'w': o->allow_write = 1; break;
		case 'j': o->json = 1; break;
		case 'D': o->db = optarg; break;
		case 'N': o->no_store = 1; break;
		case 'L':
			if (!*optarg || strlen(optarg) > 63) {
				pr_err("measure knee: --label: '%s': give a name of 1 to 63 bytes", optarg);
				return EXIT_USAGE;
			}
			o->label = optarg;
			break;
		case 's':
			if (o->nslo == KNEE_MAX_SLO || parse_slo(optarg, &o->slo[o->nslo])) {
				pr_err("measure knee: --slo: '%s': not FIGURE=TIME (mean, p50, p90, "
				       "p99, p99.9, p99.99 or max; a time above 0; %d at most)",
				       optarg, KNEE_MAX_SLO);
				return EXIT_USAGE;
			}
			o->nslo++;
			break;
		case 'F': if ((rc = parse_factor("--from", optarg, &o->from))) return rc; break;
		case 'M': if ((rc = parse_factor("--max", optarg, &o->max))) return rc; break;
		case 'P':
			if (parse_double(optarg, &o->precision) || !(o->precision >= 0.001) ||
			    o->precision > 1) {
				pr_err("measure knee: --precision: '%s': not from 0.001 to 1", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'T':
			if (strcmp(optarg, "original") && strcmp(optarg, "causal")) {
				pr_err("measure knee: --timing: '%s': original or causal (afap has no "
				       "speed)", optarg);
				return EXIT_USAGE;
			}
			o->timing = optarg;
			break;
		}
	}
	if (ol.ret >= 0)
		return ol.ret;
	optind++; /* argv + 1 above */
	if (optind != argc - 1)
		pr_err("measure knee: %s; see 'blkpeak measure knee --help'",
		       optind >= argc ? "no trace given" : "one trace");
	else if (!o->target)
		pr_err("measure knee: no target: give --target SPEC");
	else if (!o->nslo)
		pr_err("measure knee: no latency target: give --slo FIGURE=TIME (p99=5ms)");
	else if (o->from > o->max)
		pr_err("measure knee: --from %g is above --max %g", o->from, o->max);
	else if (o->db && o->no_store)
		pr_err("measure knee: --db and --no-store: give one");
	else {
		o->trace = argv[optind];
		return -1;
	}
	return EXIT_USAGE;
}

/* The number after "KEY": in s, or NAN. */
static double num_after(const char *s, const char *key)
{
	char k[48];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = s ? strstr(s, k) : NULL;
	return p ? strtod(p + strlen(k), NULL) : NAN;
}

/* One step: replay at `factor`, its figures from the summary line of
 * replay --json in the log. 0, or an exit code after saying why. */
static int run_step(const struct knee_opts *o, const char *dir, struct step *st, const char *run)
{
	char log[300], speed[32], line[65536], *argv[18];
	const char *total;
	int n = 0, rc;
	FILE *f;

	snprintf(log, sizeof(log), "%s/replay.log", dir);
	snprintf(speed, sizeof(speed), "%.17g", st->factor);
	argv[n++] = "blkpeak";
	argv[n++] = "replay";
	argv[n++] = (char *)o->trace;
	argv[n++] = "--target";
	argv[n++] = (char *)o->target;
	argv[n++] = "--speed";
	argv[n++] = speed;
	argv[n++] = "--timing";
	argv[n++] = (char *)o->timing;
	argv[n++] = "--json";
	if (o->allow_write)
		argv[n++] = "--allow-write";
	if (o->engine) {
		argv[n++] = "--engine";
		argv[n++] = (char *)o->engine;
	}
	if (run) { /* the run file: the size replay gives the target */
		argv[n++] = "-o";
		argv[n++] = (char *)run;
	}
	argv[n] = NULL;
	rc = child_run(argv, log, 0, NULL, NULL);
	if (child_interrupted()) {
		pr_err("measure knee: interrupted");
		return EXIT_FAIL;
	}
	/* exit status 1 with a summary: the replay had I/O errors (counted) */
	if (rc < 0 || (rc != 0 && rc != 1) || !(f = fopen(log, "re"))) {
		child_show_log(log);
		pr_err("measure knee: the replay at speed %s failed", speed);
		return EXIT_FAIL;
	}
	line[0] = 0;
	while (fgets(line, sizeof(line), f) && line[0] != '{')
		;
	fclose(f);
	total = strstr(line, "\"total\":{\"all\":");
	st->iops = num_after(line, "ios_per_s");
	st->mbps = num_after(line, "mb_per_s");
	st->ios = (uint64_t)num_after(line, "ios");
	st->errors = (uint64_t)num_after(line, "errors");
	st->bytes = (uint64_t)num_after(line, "bytes");
	st->window_ns = (uint64_t)num_after(line, "duration_ns");
	st->depth = (uint64_t)num_after(line, "queue_depth");
	st->total_ios = (uint64_t)num_after(line, "total_ios");
	st->count = (uint64_t)num_after(total, "count");
	for (unsigned i = 0; i < NFIG; i++)
		st->lat[i] = num_after(total, figures[i].key);
	if (line[0] != '{' || !total || isnan(st->iops) || isnan(st->lat[3]) ||
	    isnan(num_after(line, "bytes"))) {
		child_show_log(log);
		pr_err("measure knee: the replay at speed %s gave no summary with latency", speed);
		return EXIT_FAIL;
	}
	st->met = !st->errors;
	for (unsigned k = 0; k < o->nslo; k++)
		if (!(st->lat[o->slo[k].fig] <= (double)o->slo[k].limit_ns))
			st->met = 0;
	return 0;
}

static void print_text(const struct knee_opts *o, const struct step *s, unsigned n, int best)
{
	char a[32], b[32], c[32], d[32];

	printf("knee: %s on %s, target", o->trace, o->target);
	for (unsigned k = 0; k < o->nslo; k++)
		printf("%s %s", k ? "," : "", o->slo[k].text);
	printf(" (%s timing)\n", o->timing);
	printf("  %9s %10s %9s %10s %10s %10s %10s  %s\n", "factor", "IOPS", "MB/s", "p50", "p99",
	       "p99.9", "max", "target");
	for (unsigned i = 0; i < n; i++)
		printf("  %9.4g %10.1f %9.2f %10s %10s %10s %10s  %s\n", s[i].factor, s[i].iops,
		       s[i].mbps, fmt_ns(s[i].lat[1], a, sizeof(a)), fmt_ns(s[i].lat[3], b, sizeof(b)),
		       fmt_ns(s[i].lat[4], c, sizeof(c)), fmt_ns(s[i].lat[6], d, sizeof(d)),
		       s[i].errors ? "missed (I/O errors)" : s[i].met ? "met" : "missed");
	if (best < 0)
		printf("knee: no factor from %g met the target\n", o->from);
	else
		printf("knee: factor %.4g (%.1f IOPS) is the largest that met the target%s\n",
		       s[best].factor, s[best].iops, s[best].factor >= o->max ? " (--max)" : "");
}

/* The results document (schemas/measure-results.schema.json, kind knee):
 * the keys every measurement has, then the target and the answer; a
 * point per step, in the order run. */
static void print_json(FILE *f, const void *arg)
{
	const struct knee_result *k = arg;
	const struct knee_opts *o = k->o;
	const struct step *s = k->s;
	char access[1024];
	struct jw w;

	snprintf(access, sizeof(access), "replay of %s at %s timing, speed factors %g to %g",
		 o->trace, o->timing, o->from, o->max);
	jw_init(&w, f, 2);
	jw_obj(&w);
	jw_kstr(&w, "format", "blkpeak-measure");
	jw_ku64(&w, "format_version", 1);
	jw_kstr(&w, "tool_version", BLKPEAK_VERSION);
	jw_kstr(&w, "kind", "knee");
	jw_kstr(&w, "target", o->target);
	jw_key(&w, "label");
	jw_str_or_null(&w, o->label);
	jw_ku64(&w, "capacity_bytes", k->capacity);
	jw_ki64(&w, "started_wall_ns", k->started_wall_ns);
	jw_kstr(&w, "access", access);
	jw_key(&w, "engine");
	jw_str_or_null(&w, o->engine);
	jw_ku64(&w, "ios_per_step", k->n ? s[0].total_ios : 0);
	jw_ku64(&w, "warmup_ios", 0);
	static const char *const nulls[] = { "warmup_ns", "time_limit_ns", "write_cache",
					     "weights", "weights_from", "score_ios_per_s" };
	for (unsigned i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++) {
		jw_key(&w, nulls[i]);
		jw_null(&w);
	}
	jw_kstr(&w, "trace", o->trace);
	jw_kstr(&w, "timing", o->timing);
	jw_key(&w, "slo");
	jw_obj(&w);
	for (unsigned i = 0; i < o->nslo; i++)
		jw_ku64(&w, figures[o->slo[i].fig].key, o->slo[i].limit_ns);
	jw_obj_end(&w);
	jw_key(&w, "knee_factor");
	if (k->best >= 0)
		jw_num(&w, s[k->best].factor, 6);
	else
		jw_null(&w);
	jw_key(&w, "points");
	jw_arr(&w);
	for (unsigned i = 0; i < k->n; i++) {
		jw_obj(&w);
		jw_ku64(&w, "step", i);
		jw_ku64(&w, "depth", s[i].depth);
		jw_key(&w, "zone");
		jw_null(&w);
		jw_ku64(&w, "offset_bytes", 0);
		jw_ku64(&w, "span_bytes", 0);
		jw_key(&w, "span_pct");
		jw_null(&w);
		jw_key(&w, "weight");
		jw_null(&w);
		jw_ku64(&w, "ios", s[i].ios);
		jw_ku64(&w, "bytes", s[i].bytes);
		jw_ku64(&w, "errors", s[i].errors);
		jw_ku64(&w, "window_ns", s[i].window_ns);
		jw_knum(&w, "ios_per_s", s[i].iops, 3);
		jw_knum(&w, "mb_per_s", s[i].mbps, 3);
		jw_key(&w, "latency");
		jw_obj(&w);
		jw_ku64(&w, "count", s[i].count);
		jw_knum(&w, figures[0].key, s[i].lat[0], 1);
		for (unsigned j = 1; j < NFIG; j++)
			jw_ku64(&w, figures[j].key, (uint64_t)s[i].lat[j]);
		jw_obj_end(&w);
		jw_knum(&w, "speed_factor", s[i].factor, 6);
		jw_kbool(&w, "met", s[i].met);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_finish(&w);
}

int measure_knee(int argc, char **argv)
{
	struct knee_opts o;
	struct step *s = calloc(KNEE_MAX_STEPS, sizeof(*s));
	struct knee_result k = { .o = &o, .s = s, .best = -1 };
	struct bpt_error err = { 0 };
	char dir[256], run[300];
	const char *t = getenv("TMPDIR"), *inputs[3] = { 0 };
	double good = 0, bad = 0, f;
	unsigned n = 0;
	int rc = knee_opts_parse(argc, argv, &o);

	if (rc >= 0 || !s) {
		free(s);
		if (rc < 0)
			pr_err("measure knee: out of memory");
		return rc >= 0 ? rc : EXIT_FAIL;
	}
	/* --output never over the trace or the database, checked before the search */
	inputs[0] = o.trace;
	if (!o.no_store)
		inputs[1] = db_default_path(o.db);
	if (o.output && outfile_check(o.output, "knee results", inputs, &err)) {
		pr_err("measure knee: %s", err.msg);
		free(s);
		return EXIT_FAIL;
	}
	if (!o.no_store && analyze_store_ready(o.db, &err)) {
		pr_err("measure knee: %s", err.msg);
		free(s);
		return EXIT_FAIL;
	}
	snprintf(dir, sizeof(dir), "%s/blkpeak-knee-XXXXXX", t && *t ? t : "/var/tmp");
	if (!mkdtemp(dir)) {
		pr_err("measure knee: %s: cannot make a temporary folder: %s", dir, strerror(errno));
		free(s);
		return EXIT_FAIL;
	}
	snprintf(run, sizeof(run), "%s/run.bpt", dir);
	child_catch_signals();
	k.started_wall_ns = now_wall_ns();
	/* the sweep: from --from, doubling, until one misses or --max */
	for (f = o.from; n < KNEE_MAX_STEPS; f = f * 2 > o.max && f < o.max ? o.max : f * 2) {
		s[n].factor = f;
		if ((rc = run_step(&o, dir, &s[n], n ? NULL : run)))
			goto out;
		if (!n && measure_run_capacity(run, &k.capacity, &err)) {
			pr_err("measure knee: the first step's run: %s", err.msg);
			rc = EXIT_FAIL;
			goto out;
		}
		if (!s[n++].met) {
			bad = f;
			break;
		}
		good = f;
		if (f >= o.max)
			break;
	}
	/* bisection between the last that met and the first that missed */
	while (good > 0 && bad > 0 && bad - good > o.precision * good && n < KNEE_MAX_STEPS) {
		s[n].factor = (good + bad) / 2;
		if ((rc = run_step(&o, dir, &s[n], NULL)))
			goto out;
		if (s[n].met)
			good = s[n].factor;
		else
			bad = s[n].factor;
		n++;
	}
	k.n = n;
	for (unsigned i = 0; i < n; i++)
		if (s[i].met && s[i].factor == good)
			k.best = (int)i;
	if (o.json)
		print_json(stdout, &k);
	else
		print_text(&o, s, n, k.best);
	if (o.output) { /* all or nothing (common/outfile.h) */
		struct outfile out;

		if (outfile_open(&out, o.output, &(struct outfile_opts){
					.what = "knee results", .inputs = inputs })) {
			pr_err("measure knee: %s", out.err.msg);
			rc = EXIT_FAIL;
			goto out;
		}
		print_json(out.f, &k);
		if (outfile_close(&out, 0)) {
			pr_err("measure knee: %s", out.err.msg);
			rc = EXIT_FAIL;
			goto out;
		}
	}
	/* a search that ran to its end is a result, a knee found or not */
	if (!o.no_store && (rc = measure_store("measure knee", o.db, o.output, print_json, &k)))
		goto out;
	rc = k.best >= 0 ? EXIT_OK : EXIT_FAIL;
out:
	unlink(run);
	unlink(strcat(dir, "/replay.log"));
	*strrchr(dir, '/') = 0;
	rmdir(dir);
	free(s);
	return rc;
}
