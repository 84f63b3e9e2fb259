/*
 * noise_floor.c — the machine's timing noise floor: what an ideal issuer
 * could reach here. One thread, doing nothing else, spins on
 * CLOCK_MONOTONIC against a list of due times (the first 1 ms after the
 * start, as replay's own start lead) and notes how late it saw each one.
 * No I/O, no system call but the clock read (vDSO), no allocation while
 * spinning: every microsecond of lateness is time the thread did not run
 * (preemption, interrupts, the hypervisor), which a replayer cannot avoid
 * either.
 *
 * usage: noise_floor --times TRACE.csv
 *        noise_floor --count N --rate PER_SECOND
 *
 * --times takes the due times of a trace: the issue_us column of
 * `blkpeak dump --format csv` (microseconds, any order; they are sorted
 * and taken from the first), so the floor is the ideal issuer of the very
 * trace a replayer is compared on. --count/--rate spread N due times
 * uniformly instead. Beware that a uniform grid can alias with the
 * kernel's periodic tick: at 5000/s the grid's 200 us step divides the
 * 4 ms tick of HZ=250, so every due time keeps the same phase to the
 * tick, and either a twentieth of them land in its gaps or none do (the
 * floor's p99 read 0 in half the rounds while the thread lost 5% of its
 * time in gaps; bench/RESULTS.md). Random (Poisson) due times, as the
 * replayed traces have, meet the gaps as often as they cover the time.
 *
 * Prints one line:
 *   floor N due times at R/s: lateness us p50 A p99 B max C; lost D% in gaps > 10 us
 * (R: the mean rate of the due times). Percentiles are nearest-rank on
 * the sorted values, index round(p/100 * (n-1)), the rule
 * tests/e2e/replay_check.py uses for the replayers' issue errors, so the
 * two compare. "lost" is the share of the spinning time spent in gaps of
 * more than 10 us between two consecutive clock reads. Exit 0, 1 on a
 * failure, 2 on a usage error.
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
	fprintf(f, "usage: noise_floor --times TRACE.csv\n"
		   "       noise_floor --count N --rate PER_SECOND\n");
}

/* The issue_us column of a `blkpeak dump --format csv` file, in ns from
 * its smallest value, sorted; *n set. NULL on an error, said. */
static uint64_t *read_times(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int col = -1;
	size_t cap = 0, len = 0;
	uint64_t *t = NULL;

	if (!f) {
		fprintf(stderr, "noise_floor: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, ",\r\n", &save);

		for (int i = 0; tok; i++, tok = strtok_r(NULL, ",\r\n", &save))
			if (!strcmp(tok, "issue_us"))
				col = i;
	}
	if (col < 0) {
		fprintf(stderr, "noise_floor: %s: no issue_us column in the first line "
			"(a CSV of blkpeak dump --format csv)\n", path);
		fclose(f);
		return NULL;
	}
	for (unsigned long ln = 2; fgets(line, sizeof(line), f); ln++) {
		char *p = line, *end;
		double us;

		for (int i = 0; i < col && p; i++)
			if ((p = strchr(p, ',')))
				p++;
		errno = 0;
		us = p ? strtod(p, &end) : 0;
		if (!p || errno || end == p || us < 0) {
			fprintf(stderr, "noise_floor: %s:%lu: no issue_us value\n", path, ln);
			goto fail;
		}
		if (len == cap) {
			uint64_t *nt = realloc(t, (cap = cap ? 2 * cap : 65536) * sizeof(*t));

			if (!nt) {
				fprintf(stderr, "noise_floor: %s: %s\n", path, strerror(ENOMEM));
				goto fail;
			}
			t = nt;
		}
		t[len++] = (uint64_t)(us * 1000.0 + 0.5);
	}
	if (ferror(f) || !len) {
		fprintf(stderr, "noise_floor: %s: %s\n", path, ferror(f) ? strerror(errno) : "no due times");
		goto fail;
	}
	fclose(f);
	qsort(t, len, sizeof(*t), cmp_u64);
	for (size_t i = len; i-- > 0;)
		t[i] -= t[0];
	*n = len;
	return t;
fail:
	fclose(f);
	free(t);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "times", required_argument, NULL, 't' },
		{ "count", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *times = NULL;
	double count = 0, rate = 0;
	int c;

	while ((c = getopt_long(argc, argv, "t:n:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			times = optarg;
			break;
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
	if (optind != argc || (times ? count > 0 || rate > 0 : count < 1 || rate <= 0 || count > 1e9)) {
		usage(stderr);
		return 2;
	}
	size_t n;
	uint64_t *due_rel; /* ns from the first due time */

	if (times) {
		due_rel = read_times(times, &n);
		if (!due_rel)
			return 1;
	} else {
		n = (size_t)count;
		due_rel = malloc(n * sizeof(*due_rel));
		if (!due_rel) {
			fprintf(stderr, "noise_floor: %zu due times: %s\n", n, strerror(ENOMEM));
			return 1;
		}
		for (size_t i = 0; i < n; i++)
			due_rel[i] = (uint64_t)((double)i * 1e9 / rate);
	}
	uint64_t *late = malloc(n * sizeof(*late));

	if (!late) {
		fprintf(stderr, "noise_floor: %zu due times: %s\n", n, strerror(ENOMEM));
		free(due_rel);
		return 1;
	}
	memset(late, 0, n * sizeof(*late)); /* fault the pages in before timing */

	uint64_t t0 = now_ns() + START_LEAD_NS, prev = now_ns(), lost = 0, start = prev;

	for (size_t i = 0; i < n; i++) {
		uint64_t due = t0 + due_rel[i], now;

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
	double span_s = (double)due_rel[n - 1] / 1e9;

	qsort(late, n, sizeof(*late), cmp_u64);
	printf("floor %zu due times at %.0f/s: lateness us p50 %.1f p99 %.1f max %.1f; "
	       "lost %.2f%% in gaps > 10 us\n", n, span_s > 0 ? (double)(n - 1) / span_s : 0.0,
	       pct_us(late, n, 50), pct_us(late, n, 99), (double)late[n - 1] / 1000.0,
	       spun ? 100.0 * (double)lost / (double)spun : 0.0);
	free(late);
	free(due_rel);
	return 0;
}
