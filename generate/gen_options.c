/*
 * gen_options.c — command-line parsing for `blkpeak generate` (see
 * gen_options.h).
 */
#include "gen_options.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cliutil.h"
#include "gen_presets.h"

enum {
	OPT_PATTERN = 256, OPT_READ_PCT, OPT_RANDOM_PCT, OPT_BS, OPT_SPAN,
	OPT_OFFSET, OPT_COUNT, OPT_DURATION, OPT_IOPS, OPT_ARRIVAL, OPT_QD,
	OPT_LATENCY, OPT_BANDWIDTH, OPT_SEED, OPT_DEVSIZE, OPT_DEVNAME,
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "pattern", required_argument, NULL, OPT_PATTERN },
	{ "read-pct", required_argument, NULL, OPT_READ_PCT },
	{ "random-pct", required_argument, NULL, OPT_RANDOM_PCT },
	{ "bs", required_argument, NULL, OPT_BS },
	{ "span", required_argument, NULL, OPT_SPAN },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "iops", required_argument, NULL, OPT_IOPS },
	{ "arrival", required_argument, NULL, OPT_ARRIVAL },
	{ "queue-depth", required_argument, NULL, OPT_QD },
	{ "latency", required_argument, NULL, OPT_LATENCY },
	{ "bandwidth", required_argument, NULL, OPT_BANDWIDTH },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "device-size", required_argument, NULL, OPT_DEVSIZE },
	{ "device-name", required_argument, NULL, OPT_DEVNAME },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void gen_options_usage(FILE *f)
{
	size_t n;
	const struct gen_preset *pr = gen_presets(&n);

	fprintf(f,
"usage: blkpeak generate -o FILE [options]\n"
"\n"
"Write a synthetic trace: what a capture of the described workload on a\n"
"simple device model would record.\n"
"\n"
"  -o, --output FILE      trace to write (replaced if it exists)\n"
"  --pattern P            random (default), sequential, or a preset below\n"
"  --read-pct P           share of reads, 0..100 (default 100)\n"
"  --random-pct P         share of I/Os at random offsets, the others follow\n"
"                         the previous I/O (random: 100, sequential: 0)\n"
"  --bs MIX               I/O size, or a weighted mix 512:10,4k:60,64k:30\n"
"                         (default 4k)\n"
"  --span SIZE            bytes the I/Os fall in (default 1g)\n"
"  --offset SIZE          where the span starts (default 0)\n"
"  --count N              number of I/Os (default %d)\n"
"  --duration T           or: arrivals for this long (10s, 500ms, ...)\n"
"  --iops R               arrival rate (0.001 to 1e9); 0 (default): closed\n"
"                         loop, keeping --queue-depth I/Os outstanding\n"
"  --arrival A            fixed (default) or poisson spacing of arrivals\n"
"  --queue-depth Q        I/Os the device serves at once (default 1); more\n"
"                         wait in the queue\n"
"  --latency T            device model: base service time (default 100us,\n"
"                         varied by +-20%%)\n"
"  --bandwidth SIZE       device model: bytes per second (default 1g)\n"
"  --seed N               random seed (default 1); same seed and options,\n"
"                         same records\n"
"  --device-size SIZE     size in the device table (default offset+span)\n"
"  --device-name NAME     name in the device table (default gen0)\n"
"  -q, --quiet            no summary line\n"
"  -h, --help             this text\n"
"\n"
"presets (Intel IOMeter access specifications):\n", GEN_DEFAULT_COUNT);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-12s %s\n", pr[i].name, pr[i].summary);
}

static int pct(const char *opt, const char *arg, double *out, struct bpt_error *error)
{
	if (parse_double(arg, out) || *out < 0 || *out > 100)
		return bpt_error_set(error, -EINVAL, "%s: '%s': not a percentage from 0 to 100", opt, arg);
	return 0;
}

int gen_options_parse(int argc, char **argv, struct gen_options *o,
		      struct bpt_error *error)
{
	/* explicit values, applied after the preset whatever their order */
	const char *bs = NULL;
	double read_pct = -1, random_pct = -1;
	int have_devsize = 0, c, ret;
	uint64_t v;
	struct bpt_error why;
	struct opt_loop ol = { .cmd = "generate", .usage = gen_options_usage };

	memset(o, 0, sizeof(*o));
	gen_params_default(&o->p);
	o->pattern = "random";
	o->device_name = "gen0";
	while ((c = opt_next(&ol, argc, argv, ":o:qh", long_opts)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = 1; break;
		case OPT_PATTERN: o->pattern = optarg; break;
		case OPT_BS: bs = optarg; break;
		case OPT_READ_PCT:
			if ((ret = pct("--read-pct", optarg, &read_pct, error)))
				return ret;
			break;
		case OPT_RANDOM_PCT:
			if ((ret = pct("--random-pct", optarg, &random_pct, error)))
				return ret;
			break;
		case OPT_SPAN:
			if (parse_size(optarg, &o->p.span) || o->p.span == 0)
				return bpt_error_set(error, -EINVAL, "--span: '%s': not a size above 0", optarg);
			break;
		case OPT_OFFSET:
			if (parse_size(optarg, &o->p.offset))
				return bpt_error_set(error, -EINVAL, "--offset: '%s': not a size", optarg);
			break;
		case OPT_COUNT:
			if (parse_u64(optarg, &o->p.count) || o->p.count == 0)
				return bpt_error_set(error, -EINVAL, "--count: '%s': not a number above 0", optarg);
			break;
		case OPT_DURATION:
			if (parse_duration_ns(optarg, &o->p.duration_ns) || o->p.duration_ns == 0)
				return bpt_error_set(error, -EINVAL, "--duration: '%s': not a duration above 0", optarg);
			break;
		case OPT_IOPS:
			if (parse_double(optarg, &o->p.iops) || o->p.iops < 0 || o->p.iops > 1e9 ||
			    (o->p.iops > 0 && o->p.iops < GEN_MIN_IOPS))
				return bpt_error_set(error, -EINVAL, "--iops: '%s': not 0 or a rate from %g to "
						     "1000000000", optarg, GEN_MIN_IOPS);
			break;
		case OPT_ARRIVAL:
			if (!strcmp(optarg, "fixed"))
				o->p.arrival = GEN_ARRIVAL_FIXED;
			else if (!strcmp(optarg, "poisson"))
				o->p.arrival = GEN_ARRIVAL_POISSON;
			else
				return bpt_error_set(error, -EINVAL, "--arrival: '%s': not fixed or poisson", optarg);
			break;
		case OPT_QD:
			if (parse_u64(optarg, &v) || v < 1 || v > GEN_MAX_QD)
				return bpt_error_set(error, -EINVAL, "--queue-depth: '%s': not a number from 1 to %d",
					   optarg, GEN_MAX_QD);
			o->p.queue_depth = (uint32_t)v;
			break;
		case OPT_LATENCY:
			if (parse_duration_ns(optarg, &o->p.latency_ns) ||
			    o->p.latency_ns > 60000000000ull)
				return bpt_error_set(error, -EINVAL, "--latency: '%s': not a duration up to 60s", optarg);
			break;
		case OPT_BANDWIDTH:
			if (parse_size(optarg, &v) || v == 0)
				return bpt_error_set(error, -EINVAL, "--bandwidth: '%s': not a size above 0", optarg);
			o->p.bandwidth = (double)v;
			break;
		case OPT_SEED:
			if (parse_u64(optarg, &o->p.seed))
				return bpt_error_set(error, -EINVAL, "--seed: '%s': not a number", optarg);
			break;
		case OPT_DEVSIZE:
			if (parse_size(optarg, &o->device_size) || o->device_size == 0)
				return bpt_error_set(error, -EINVAL, "--device-size: '%s': not a size above 0", optarg);
			have_devsize = 1;
			break;
		case OPT_DEVNAME:
			if (!*optarg || strlen(optarg) >= sizeof(((struct bpt_device *)0)->name))
				return bpt_error_set(error, -EINVAL, "--device-name: '%s': empty or longer than 31 bytes",
					   optarg);
			o->device_name = optarg;
			break;
		}
	}
	if (ol.ret == EXIT_OK)
		return GEN_OPT_HELP;
	if (ol.ret >= 0)
		return GEN_OPT_BAD_OPTION;
	if (optind < argc)
		return bpt_error_set(error, -EINVAL, "'%s': unexpected argument", argv[optind]);
	if (!o->output)
		return bpt_error_set(error, -EINVAL, "no output file; give -o FILE");
	if (o->p.count && o->p.duration_ns)
		return bpt_error_set(error, -EINVAL, "--count and --duration: give one, not both");
	if (!o->p.count && !o->p.duration_ns)
		o->p.count = GEN_DEFAULT_COUNT;
	/* arrivals past 2^62 ns would be clamped, not spaced */
	if (o->p.iops > 0 && o->p.count && (double)o->p.count / o->p.iops >= 0x1p62 / 1e9)
		return bpt_error_set(error, -EINVAL, "--iops %g with --count %" PRIu64 ": the trace "
				     "would last %.3g s; the longest is 2^62 ns (about 146 years)",
				     o->p.iops, o->p.count, (double)o->p.count / o->p.iops);

	/* the pattern first, explicit options over it */
	if (!strcmp(o->pattern, "random")) {
		o->p.random_pct = 100;
	} else if (!strcmp(o->pattern, "sequential")) {
		o->p.random_pct = 0;
	} else {
		const struct gen_preset *pr = gen_preset_find(o->pattern);

		if (!pr)
			return bpt_error_set(error, -EINVAL, "--pattern: '%s': not random, sequential, "
				   "fileserver, webserver, workstation or database", o->pattern);
		size_mix_parse(pr->bs, &o->p.bs, NULL);
		o->p.read_pct = pr->read_pct;
		o->p.random_pct = pr->random_pct;
	}
	if (bs && size_mix_parse(bs, &o->p.bs, &why))
		return bpt_error_set(error, -EINVAL, "--bs: '%s': %s", bs, why.msg);
	if (read_pct >= 0)
		o->p.read_pct = read_pct;
	if (random_pct >= 0)
		o->p.random_pct = random_pct;
	if (gen_params_check(&o->p, error))
		return -EINVAL;
	if (!have_devsize)
		o->device_size = o->p.offset + o->p.span;
	else if (o->device_size < o->p.offset + o->p.span)
		return bpt_error_set(error, -EINVAL, "--device-size: smaller than --offset + --span");
	return GEN_OPT_RUN;
}

char *gen_options_describe(const struct gen_options *o, char *buf, size_t len)
{
	const struct gen_params *p = &o->p;
	char span[24], off[24], bw[24];

	snprintf(buf, len,
		 "pattern=%s read-pct=%g random-pct=%g span=%s offset=%s "
		 "%s=%" PRIu64 "%s iops=%g arrival=%s queue-depth=%u latency=%" PRIu64
		 "ns bandwidth=%s seed=%" PRIu64,
		 o->pattern, p->read_pct, p->random_pct,
		 size_short(p->span, span, sizeof(span)),
		 size_short(p->offset, off, sizeof(off)),
		 p->count ? "count" : "duration",
		 p->count ? p->count : p->duration_ns, p->count ? "" : "ns",
		 p->iops, p->arrival == GEN_ARRIVAL_POISSON ? "poisson" : "fixed",
		 p->queue_depth, p->latency_ns,
		 size_short((uint64_t)p->bandwidth, bw, sizeof(bw)), p->seed);
	return buf;
}
