/*
 * noise_floor.c — the machine's timing noise floor: what an ideal issuer
 * could reach here. One thread, doing nothing else, spins on
 * CLOCK_MONOTONIC against COUNT due times spread uniformly at RATE per
 * second (the first 1 ms after the start, as replay's own start lead)
 * and notes how late it saw each one. No I/O, no system call but the
 * clock read (vDSO), no allocation while spinning: every microsecond of
 * lateness is time the thread did not run (preemption, interrupts, the
 * hypervisor), which a replayer cannot avoid either.
 *
 * usage: noise_floor --count N --rate PER_SECOND
 *
 * Prints one line:
 *   floor N due times at R/s: lateness us p50 A p99 B max C; lost D% in gaps > 10 us
 * Percentiles are nearest-rank on the sorted values, index
 * round(p/100 * (n-1)), the rule tests/e2e/replay_check.py uses for the
 * replayers' issue errors, so the two compare. "lost" is the share of the
 * spinning time spent in gaps of more than 10 us between two consecutive
 * clock reads. Exit 0, 1 on a failure, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define START_LEAD_NS 1000000ull
#define GAP_NS 10000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static double pct_us(const uint64_t *v, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);

	return (double)v[i < n ? i : n - 1] / 1000.0;
}

static int parse_pos(const char *s, const char *what, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out > 0)) {
		fprintf(stderr, "noise_floor: %s: not a positive number: %s\n", what, s);
		return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: noise_floor --count N --rate PER_SECOND\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double count = 0, rate = 0;
	int c;

	while ((c = getopt_long(argc, argv, "n:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_pos(optarg, "--count", &count))
				return 2;
			break;
		case 'r':
			if (parse_pos(optarg, "--rate", &rate))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || count < 1 || rate <= 0 || count > 1e9) {
		usage(stderr);
		return 2;
	}
	size_t n = (size_t)count;
	double step_ns = 1e9 / rate;
	uint64_t *late = malloc(n * sizeof(*late));

	if (!late) {
		fprintf(stderr, "noise_floor: %zu due times: %s\n", n, strerror(ENOMEM));
		return 1;
	}
	memset(late, 0, n * sizeof(*late)); /* fault the pages in before timing */

	uint64_t t0 = now_ns() + START_LEAD_NS, prev = now_ns(), lost = 0, start = prev;

	for (size_t i = 0; i < n; i++) {
		uint64_t due = t0 + (uint64_t)((double)i * step_ns), now;

		for (;;) {
			now = now_ns();
			if (now - prev > GAP_NS)
				lost += now - prev;
			prev = now;
			if (now >= due)
				break;
		}
		late[i] = now - due;
	}
	uint64_t spun = prev - start;

	qsort(late, n, sizeof(*late), cmp_u64);
	printf("floor %zu due times at %.0f/s: lateness us p50 %.1f p99 %.1f max %.1f; "
	       "lost %.2f%% in gaps > 10 us\n", n, rate, pct_us(late, n, 50), pct_us(late, n, 99),
	       (double)late[n - 1] / 1000.0, spun ? 100.0 * (double)lost / (double)spun : 0.0);
	free(late);
	return 0;
}
