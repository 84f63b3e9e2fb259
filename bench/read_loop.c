/*
 * read_loop.c — the floor under the Python module's speed: records per
 * CPU second of bpt_reader_next() alone over a trace (bpt.h's read loop,
 * summing one field so the loop is not optimised away), best of
 * --repeat runs. bench/bench-python.sh prints it beside the module's
 * figures.
 *
 * usage: read_loop TRACE [REPEAT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bpt.h"

static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int repeat = argc > 2 ? atoi(argv[2]) : 3;
	double best = 0;
	unsigned long long n = 0, sum = 0;

	if (argc < 2 || repeat < 1) {
		fprintf(stderr, "usage: read_loop TRACE [REPEAT]\n");
		return 2;
	}
	for (int i = 0; i < repeat; i++) {
		struct bpt_reader *r;
		struct bpt_record rec;
		struct bpt_error err;
		int rc;
		double t0 = cpu_s();
		if (bpt_reader_open(&r, argv[1], &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		n = 0;
		while ((rc = bpt_reader_next(r, &rec, &err)) == 1) {
			n++;
			sum += rec.bytes;
		}
		bpt_reader_close(r);
		if (rc < 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		double t = cpu_s() - t0;
		if (i == 0 || t < best)
			best = t;
	}
	printf("%llu records, %.3f CPU s, %.2f M records/s (checksum %llu)\n", n, best,
	       (double)n / best / 1e6, sum);
	return 0;
}
