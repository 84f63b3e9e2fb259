/* Unit tests of `blkpeak generate`'s command line (generate/gen_options.c):
 * defaults, presets with overrides in any order, and every bad value. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "gen_options.h"

#define ARGV(...) (char *[]){ "generate", __VA_ARGS__, NULL }
#define ARGC(...) ((int)(sizeof((char *[]){ "generate", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, msg, ...) \
	gen_options_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o), &(msg))

Test(gen_options, defaults)
{
	struct gen_options o;
	struct bpt_error msg = { 0 };

	cr_assert_eq(PARSE(&o, msg, "-o", "x.bpt"), GEN_OPT_RUN, "%s", msg.msg);
	cr_assert_str_eq(o.output, "x.bpt");
	cr_assert_str_eq(o.pattern, "random");
	cr_assert_eq(o.p.count, GEN_DEFAULT_COUNT);
	cr_assert_eq(o.p.span, 1ull << 30);
	cr_assert_eq(o.p.bs.n, 1);
	cr_assert_eq(o.p.bs.size[0], 4096);
	cr_assert_eq(o.p.read_pct, 100);
	cr_assert_eq(o.p.random_pct, 100);
	cr_assert_eq(o.p.queue_depth, 1);
	cr_assert_eq(o.p.iops, 0);
	cr_assert_eq(o.device_size, 1ull << 30);
	cr_assert_str_eq(o.device_name, "gen0");
}

Test(gen_options, everything)
{
	struct gen_options o;
	struct bpt_error msg = { 0 };
	char line[224];

	cr_assert_eq(PARSE(&o, msg, "--output=y.bpt", "--pattern", "sequential", "--read-pct", "30",
			   "--bs", "512:1,64k:3", "--span", "64m", "--offset", "1m",
			   "--duration", "2s", "--iops", "5000", "--arrival", "poisson",
			   "--queue-depth", "16", "--latency", "50us", "--bandwidth", "2g",
			   "--seed", "7", "--device-size", "1g", "--device-name", "sdz", "-q"),
		     GEN_OPT_RUN, "%s", msg.msg);
	cr_assert_eq(o.p.random_pct, 0);
	cr_assert_eq(o.p.read_pct, 30);
	cr_assert_eq(o.p.bs.n, 2);
	cr_assert_eq(o.p.span, 64 << 20);
	cr_assert_eq(o.p.offset, 1 << 20);
	cr_assert_eq(o.p.count, 0);
	cr_assert_eq(o.p.duration_ns, 2000000000ull);
	cr_assert_eq(o.p.iops, 5000);
	cr_assert_eq(o.p.arrival, GEN_ARRIVAL_POISSON);
	cr_assert_eq(o.p.queue_depth, 16);
	cr_assert_eq(o.p.latency_ns, 50000);
	cr_assert_eq(o.p.bandwidth, 2147483648.0);
	cr_assert_eq(o.p.seed, 7);
	cr_assert_eq(o.device_size, 1 << 30);
	cr_assert_str_eq(o.device_name, "sdz");
	cr_assert(o.quiet);
	gen_options_describe(&o, line, sizeof(line));
	cr_assert_str_eq(line, "pattern=sequential read-pct=30 random-pct=0 span=64m offset=1m "
		"duration=2000000000ns iops=5000 arrival=poisson queue-depth=16 latency=50000ns "
		"bandwidth=2g seed=7");
}

Test(gen_options, preset_then_override_any_order)
{
	struct gen_options o;
	struct bpt_error msg = { 0 };

	cr_assert_eq(PARSE(&o, msg, "--read-pct", "50", "--pattern", "database", "-o", "d.bpt"),
		     GEN_OPT_RUN, "%s", msg.msg);
	cr_assert_eq(o.p.read_pct, 50, "explicit --read-pct wins over the preset");
	cr_assert_eq(o.p.random_pct, 100);
	cr_assert_eq(o.p.bs.size[0], 8192);
	cr_assert_eq(PARSE(&o, msg, "--pattern", "workstation", "-o", "w.bpt"), GEN_OPT_RUN);
	cr_assert_eq(o.p.read_pct, 80);
	cr_assert_eq(o.p.random_pct, 80);
	cr_assert_eq(PARSE(&o, msg, "--pattern", "fileserver", "-o", "f.bpt"), GEN_OPT_RUN);
	cr_assert_eq(o.p.bs.n, 8);
	cr_assert_eq(o.p.read_pct, 80);
	cr_assert_eq(PARSE(&o, msg, "--pattern", "webserver", "--bs", "4k", "-o", "w.bpt"),
		     GEN_OPT_RUN);
	cr_assert_eq(o.p.bs.n, 1, "explicit --bs wins over the preset");
	cr_assert_eq(o.p.read_pct, 100);
}

/* Each bad command line fails with a message that names the option. */
Test(gen_options, bad_values)
{
	static const struct {
		const char *opt, *val, *msg;
	} cases[] = {
		{ "--read-pct", "101", "--read-pct: '101': not a percentage from 0 to 100" },
		{ "--read-pct", "x", "--read-pct: 'x': not a percentage from 0 to 100" },
		{ "--random-pct", "-1", "--random-pct: '-1': not a percentage from 0 to 100" },
		{ "--bs", "4q", "--bs: '4q': not a size" },
		{ "--bs", "1000", "--bs: '1000': size must be a non-zero multiple of 512" },
		{ "--span", "0", "--span: '0': not a size above 0" },
		{ "--span", "2k", "--span: smaller than the largest I/O size" },
		{ "--offset", "100", "--offset: must be a multiple of 512" },
		{ "--count", "0", "--count: '0': not a number above 0" },
		{ "--duration", "5x", "--duration: '5x': not a duration above 0" },
		{ "--iops", "-5", "--iops: '-5': not 0 or a rate from 0.001 to 1000000000" },
		/* issue 27: every arrival was clamped to 2^63 ns */
		{ "--iops", "1e-300", "--iops: '1e-300': not 0 or a rate from 0.001 to 1000000000" },
		{ "--arrival", "bursty", "--arrival: 'bursty': not fixed or poisson" },
		{ "--queue-depth", "0", "--queue-depth: '0': not a number from 1 to 65536" },
		{ "--latency", "2h", "--latency: '2h': not a duration up to 60s" },
		{ "--bandwidth", "0", "--bandwidth: '0': not a size above 0" },
		{ "--seed", "abc", "--seed: 'abc': not a number" },
		{ "--device-size", "1m", "--device-size: smaller than --offset + --span" },
		{ "--pattern", "zipf", "--pattern: 'zipf': not random, sequential, fileserver, "
		  "webserver, workstation or database" },
	};
	struct gen_options o;
	struct bpt_error msg = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { "generate", "-o", "x.bpt", (char *)cases[i].opt,
				 (char *)cases[i].val, NULL };

		msg.msg[0] = '\0';
		cr_assert_eq(gen_options_parse(5, argv, &o, &msg), -EINVAL,
			     "%s %s accepted", cases[i].opt, cases[i].val);
		cr_assert_str_eq(msg.msg, cases[i].msg);
	}
	cr_assert_eq(PARSE(&o, msg, "--count", "5"), -EINVAL);
	cr_assert_str_eq(msg.msg, "no output file; give -o FILE");
	cr_assert_eq(PARSE(&o, msg, "-o", "x", "--count", "5", "--duration", "1s"), -EINVAL);
	cr_assert_str_eq(msg.msg, "--count and --duration: give one, not both");
	cr_assert_eq(PARSE(&o, msg, "-o", "x", "--count", "1000000000", "--iops", "0.001"), -EINVAL);
	cr_assert(strstr(msg.msg, "the trace would last 1e+12 s; the longest is 2^62 ns"), "%s", msg.msg);
	/* named on stderr by the shared option loop (usage_bad_option) */
	cr_assert_eq(PARSE(&o, msg, "-o", "x", "--frob"), GEN_OPT_BAD_OPTION);
	cr_assert_eq(PARSE(&o, msg, "-o", "x", "--bs"), GEN_OPT_BAD_OPTION);
	cr_assert_eq(PARSE(&o, msg, "-o", "x", "extra"), -EINVAL);
	cr_assert_str_eq(msg.msg, "'extra': unexpected argument");
	cr_assert_eq(PARSE(&o, msg, "--help"), GEN_OPT_HELP);
}
