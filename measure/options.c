/*
 * options.c — the command line of `blkpeak measure` into struct
 * measure_opts (measure.h): the option loop, each option's value, the
 * kind's defaults and the checks across options. Kept apart from the
 * command (cmd_measure.c) so that it is tested and fuzzed without
 * measuring anything (tests/fuzz/fuzz_measure.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliutil.h"
#include "commands.h"
#include "measure.h"

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

/* --engine: a row of replay's engine table (replay runs each step, as a
 * child); else 0 after saying which engines there are. */
static int engine_known(const char *name)
{
	char names[256];
	size_t n = 0;

	for (size_t i = 0; replay_engine_name(i); i++)
		if (!strcmp(replay_engine_name(i), name))
			return 1;
	names[0] = 0;
	for (size_t i = 0; replay_engine_name(i) && n < sizeof(names); i++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
				      replay_engine_name(i));
	pr_err("measure: --engine: '%s': not an engine of replay (%s)", name, names);
	return 0;
}

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
	if (o->engine && !engine_known(o->engine))
		return EXIT_USAGE;
	return 0;
}

int measure_opts_parse(int argc, char **argv, struct measure_opts *o, void (*usage)(FILE *))
{
	struct opt_loop ol = { .cmd = "measure", .usage = usage };
	const char *depths = NULL, *weights = NULL;
	unsigned seen_kinds[64] = { 0 };
	int c, rc, ios_set = 0, warmup_set = 0, nseen = 0;
	int seen_opt[64];

	*o = (struct measure_opts){ .seed = 1 };

	while ((c = opt_next(&ol, argc, argv, ":ht:o:", long_opts)) != -1) {
		if ((rc = parse_opt(c, optarg, o, &ios_set, &warmup_set, &depths, &weights)))
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
	if (measure_kind_parse(argv[optind], &o->kind)) {
		pr_err("measure: '%s': not qd-sweep, zcav, seeks or commit", argv[optind]);
		return EXIT_USAGE;
	}
	for (int i = 0; i < nseen; i++)
		if (!(seen_kinds[i] & K(o->kind))) {
			pr_err("measure: --%s: not an option of %s", option_name(seen_opt[i]),
			       measure_kind_name(o->kind));
			return EXIT_USAGE;
		}
	if ((rc = finish_opts(o, ios_set, warmup_set, depths, weights)))
		return rc;
	return -1;
}
