/*
 * codec_speed.c — the trace codec's speed and size on synthetic records:
 * encode and decode records per second on one core, and bytes per I/O on
 * disk, for a random and a sequential 4 KiB workload.
 *
 * usage: codec_speed [--count N] [--span BYTES] [--iops N] [--level L]
 *                    [--tick NS] [--attribution] [--repeat N] [--dir DIR]
 *                    [--keep] [--json]
 *
 * Workloads, all 4 KiB, timestamps in nanoseconds with the jitter a real
 * device has (records are written in completion order, as a capture
 * writes them):
 *   random:      uniformly random 4 KiB-aligned offsets over --span
 *                (default 10 GiB), Poisson arrivals at --iops (default
 *                100000), service time 20 us + exponential(mean 60 us),
 *                queue wait exponential(mean 2 us), two processes
 *                (70/30), 70% reads;
 *   seq-fixed:   sequential offsets, fixed arrivals at --iops, service
 *                15 us + exponential(mean 3 us), queue wait 300 ns +
 *                exponential(mean 100 ns), one process, reads;
 *   seq-qd1:     sequential reads at queue depth 1: each issued
 *                1 us + exponential(mean 1 us) after the previous one
 *                completed, service and queue wait as seq-fixed;
 *   seq-qd16:    sequential reads at queue depth 16: each issued
 *                1 us + exponential(mean 1 us) after the earliest of the
 *                16 outstanding completed (in completion order the
 *                offsets come slightly out of order), service and queue
 *                wait as seq-fixed;
 *   seq-poisson: sequential offsets with the random workload's timing.
 * With --tick NS every time is what a clock advancing in steps of NS
 * nanoseconds (not a whole number: this VM's is 10.015) reads then, as
 * on the machines whose captures the tick column kind is for.
 * With --attribution the trace carries the file and cause columns of
 * format 1.3 (header bits BPT_COL_FILE and BPT_COL_CAUSE): every I/O is
 * data of one of 64 files, 16 MiB apart on the device, at its offset in
 * that file; a write was caused by a third task (cause_pid 555, as a
 * kworker's writeback of a process's data is), a read by nobody known.
 * Encoding is timed from the first bpt_writer_add to the end of
 * bpt_writer_close (file in --dir, default /dev/shm); decoding from
 * bpt_reader_open to the last bpt_reader_next, both in the thread's CPU
 * time (user + system). The trace is read twice: once comparing every
 * record read back with the one written ("with the compare", which
 * reads the 200-byte source records from memory as well: about 20 ns a
 * record on its own), then decoding alone, summing a few fields of each
 * record ("decode"). Until 2026-12-05 only the first was printed, as
 * "decode". With --repeat N each is run N times and the median rate is
 * printed.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpt.h"

static uint64_t rng = 0x1234567887654321ull;
static int keep; /* --keep: leave the written traces in --dir */
static double tick; /* --tick: the clock's step in ns, 0 for 1 ns */
static int attribution; /* --attribution: file and cause columns */
static volatile uint64_t sink; /* read_back's sum, so the fields are read */

/* What a clock of step `tick` reads at time t. */
static uint64_t reading(uint64_t t)
{
	return tick > 0 ? (uint64_t)(floor(t / tick) * tick) : t;
}

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double unif(void)
{
	return ((rnd() >> 11) + 0.5) / 9007199254740992.0;
}

static uint64_t expo(double mean)
{
	return (uint64_t)(-log(unif()) * mean);
}

static int by_complete(const void *a, const void *b)
{
	const struct bpt_record *x = a, *y = b;

	return x->complete_ns < y->complete_ns ? -1 : x->complete_ns > y->complete_ns;
}

/*
 * CPU time of this thread (user + system, so the writes to --dir count):
 * "records per second on one core", and far less disturbed than wall
 * time by other processes on a busy machine.
 */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

enum { RANDOM, SEQ_FIXED, SEQ_QD1, SEQ_QD16, SEQ_POISSON };

#define QD16 16

/* Field by field: the struct has tail padding (after `completion`) that
 * neither the writer nor the reader promises to keep. */
static int same_record(const struct bpt_record *a, const struct bpt_record *b)
{
	return a->queue_ns == b->queue_ns && a->issue_ns == b->issue_ns &&
	       a->complete_ns == b->complete_ns && a->sector == b->sector &&
	       a->cgroup_id == b->cgroup_id && a->bytes == b->bytes &&
	       a->pid == b->pid && a->comm_id == b->comm_id && a->error == b->error &&
	       a->dev == b->dev && a->op == b->op && a->flags == b->flags &&
	       a->member == b->member && a->sched_ns == b->sched_ns &&
	       a->source_index == b->source_index && a->completion == b->completion &&
	       a->file_class == b->file_class && a->file_dev == b->file_dev &&
	       a->inode == b->inode && a->file_offset == b->file_offset &&
	       a->file_bytes == b->file_bytes && a->cause_pid == b->cause_pid &&
	       a->cause_comm_id == b->cause_comm_id && a->cause_cgroup == b->cause_cgroup;
}

static void make(struct bpt_record *r, size_t n, int kind, uint64_t span,
		 double iops, const uint32_t comm[2])
{
	uint64_t t = 1000000, sector = 2048, slot[QD16];
	int seq = kind != RANDOM;

	for (unsigned k = 0; k < QD16; k++)
		slot[k] = t;

	for (size_t i = 0; i < n; i++) {
		struct bpt_record *x = &r[i];
		int p2 = !seq && unif() < 0.3;

		memset(x, 0, sizeof(*x));
		x->bytes = 4096;
		x->op = seq || unif() < 0.7 ? BPT_OP_READ : BPT_OP_WRITE;
		x->pid = p2 ? 4711 : 1234;
		x->comm_id = comm[p2];
		x->cgroup_id = 9876;
		switch (kind) {
		case SEQ_QD1:
		case SEQ_FIXED:
			if (kind == SEQ_FIXED)
				t = 1000000 + (uint64_t)(i * (1e9 / iops));
			x->issue_ns = t;
			x->complete_ns = t + 15000 + expo(3000);
			x->queue_ns = x->issue_ns - 300 - expo(100);
			if (kind == SEQ_QD1)
				t = x->complete_ns + 1000 + expo(1000);
			break;
		case SEQ_QD16: {
			/* 16 slots; a slot issues its next I/O 1 us +
			 * exp(1 us) after its last one completed, the
			 * earliest slot first (so issue order is offset
			 * order) */
			unsigned k = 0;

			for (unsigned j = 1; j < QD16; j++)
				k = slot[j] < slot[k] ? j : k;
			x->issue_ns = slot[k];
			x->complete_ns = x->issue_ns + 15000 + expo(3000);
			x->queue_ns = x->issue_ns - 300 - expo(100);
			slot[k] = x->complete_ns + 1000 + expo(1000);
			break;
		}
		default:
			t += expo(1e9 / iops);
			x->issue_ns = t;
			x->queue_ns = t - expo(2000);
			x->complete_ns = t + 20000 + expo(60000);
			break;
		}
		if (attribution) {
			uint64_t byte = x->sector * 512, file = byte >> 24;

			x->file_class = BPT_FILE_DATA;
			x->file_dev = 8u << 20 | 1;
			x->inode = 1000 + file % 64;
			x->file_offset = byte & ((1u << 24) - 1);
			x->file_bytes = x->bytes;
			if (x->op == BPT_OP_WRITE) {
				x->cause_pid = 555;
				x->cause_comm_id = comm[0];
				x->cause_cgroup = 4321;
			}
		}
		x->queue_ns = reading(x->queue_ns);
		x->issue_ns = reading(x->issue_ns);
		x->complete_ns = reading(x->complete_ns);
		if (kind == RANDOM) {
			x->sector = (rnd() % (span / 4096)) * 8;
		} else {
			x->sector = sector;
			sector += 8;
		}
	}
	qsort(r, n, sizeof(*r), by_complete);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Read the trace at path back, timed from bpt_reader_open to the last
 * bpt_reader_next: records per CPU second in *rate. With `compare` every
 * record is compared with recs[] as it is read (that pass reads the
 * 200-byte records of the source array too, from memory: the compare
 * costs about as much as decoding); without, a few fields of each are
 * summed, as a reader that uses them would. 0, or <0 with a message.
 */
static int read_back(const char *path, const struct bpt_record *recs, size_t n,
		     int compare, double *rate)
{
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	struct bpt_record got;
	uint64_t sum = 0;
	size_t cnt = 0;
	int rc;
	double t0 = now();

	if ((rc = bpt_reader_open(&r, path, &e))) {
		fprintf(stderr, "codec_speed: %s\n", e.msg);
		return rc;
	}
	while ((rc = bpt_reader_next(r, &got, &e)) == 1) {
		sum += got.sector ^ got.issue_ns ^ got.complete_ns ^ got.bytes ^ got.inode;
		if (compare && cnt < n && !same_record(&got, &recs[cnt]))
			rc = -EBADMSG;
		cnt++;
		if (rc < 0)
			break;
	}
	double t1 = now();

	bpt_reader_close(r);
	if (rc < 0 || cnt != n) {
		fprintf(stderr, "codec_speed: %s: read back %zu of %zu records%s%s\n",
			path, cnt, n, e.msg[0] ? ": " : "", e.msg);
		return rc ? rc : -EBADMSG;
	}
	*rate = n / (t1 - t0);
	sink = sum;
	return 0;
}

/* One encode + decode; rates in *enc, *dec (decode alone) and *cmp
 * (decode and compare with what was written), file size in *bytes. */
static int once(const char *name, int kind, size_t n, uint64_t span,
		double iops, int level, const char *dir, double *enc,
		double *dec, double *cmp, uint64_t *bytes_out)
{
	struct bpt_record *recs = malloc(n * sizeof(*recs));
	struct bpt_header h;
	struct bpt_device d = { .name = "bench0", .size_bytes = span,
				.logical_block_size = 512,
				.physical_block_size = 4096 };
	struct bpt_writer_opts o = { .zstd_level = level };
	struct bpt_writer *w;
	struct bpt_reader *r;
	struct bpt_error e = { 0 };
	char path[4096];
	uint32_t comm[2];
	int rc;

	if (!recs)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/codec-speed-%d-%s.bpt", dir,
		 (int)getpid(), name);
	bpt_header_init(&h, "generate");
	bpt_header_add_device(&h, &d);
	if (attribution)
		h.columns |= BPT_COL_FILE | BPT_COL_CAUSE;
	if ((rc = bpt_writer_create(&w, path, &h, &o, &e))) {
		fprintf(stderr, "codec_speed: %s\n", e.msg);
		free(recs);
		return rc;
	}
	bpt_writer_intern(w, "fio", &comm[0]);
	bpt_writer_intern(w, "postgres", &comm[1]);
	make(recs, n, kind, span, iops, comm);
	double t0 = now();

	for (size_t i = 0; i < n && !rc; i++)
		rc = bpt_writer_add(w, &recs[i]);
	uint64_t bytes = bpt_writer_bytes(w);

	rc = rc ? rc : bpt_writer_close(w, &e);
	double t1 = now();

	if (rc) {
		fprintf(stderr, "codec_speed: %s: write failed: %s\n", path, e.msg);
		goto out;
	}
	struct bpt_stats st;

	if ((rc = bpt_reader_open(&r, path, &e))) {
		fprintf(stderr, "codec_speed: %s\n", e.msg);
		goto out;
	}
	bpt_reader_stats(r, &st);
	bytes = st.file_bytes;
	bpt_reader_close(r);
	if ((rc = read_back(path, recs, n, 1, cmp)) || (rc = read_back(path, recs, n, 0, dec)))
		goto out;
	*enc = n / (t1 - t0);
	*bytes_out = bytes;
out:
	if (!keep)
		unlink(path);
	free(recs);
	return rc;
}

static int run(const char *name, int kind, size_t n, uint64_t span,
	       double iops, int level, int repeat, const char *dir, int json)
{
	double enc[16], dec[16], cmp[16];
	uint64_t bytes = 0;
	int rc = 0;

	for (int i = 0; i < repeat && !rc; i++) {
		rng = 0x1234567887654321ull; /* same records every time */
		rc = once(name, kind, n, span, iops, level, dir, &enc[i], &dec[i], &cmp[i],
			  &bytes);
	}
	if (rc)
		return rc;
	qsort(enc, repeat, sizeof(double), cmp_double);
	qsort(dec, repeat, sizeof(double), cmp_double);
	qsort(cmp, repeat, sizeof(double), cmp_double);
	double e = enc[repeat / 2], d = dec[repeat / 2], c = cmp[repeat / 2];

	if (json)
		printf("{\"pattern\":\"%s\",\"records\":%zu,\"span\":%llu,"
		       "\"file_bytes\":%llu,\"bytes_per_io\":%.3f,"
		       "\"encode_rps\":%.0f,\"decode_rps\":%.0f,\"decode_compare_rps\":%.0f}\n",
		       name, n, (unsigned long long)span, (unsigned long long)bytes,
		       (double)bytes / n, e, d, c);
	else
		printf("%-12s %8zu I/Os  %6.3f bytes/I/O  encode %6.2f M rec/s  "
		       "decode %6.2f M rec/s (%6.2f with the compare)\n", name, n,
		       (double)bytes / n, e / 1e6, d / 1e6, c / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "count", required_argument, 0, 'n' },
		{ "span", required_argument, 0, 's' },
		{ "iops", required_argument, 0, 'i' },
		{ "level", required_argument, 0, 'l' },
		{ "tick", required_argument, 0, 't' },
		{ "attribution", no_argument, 0, 'a' },
		{ "dir", required_argument, 0, 'd' },
		{ "repeat", required_argument, 0, 'r' },
		{ "keep", no_argument, 0, 'k' },
		{ "json", no_argument, 0, 'j' },
		{ "only", required_argument, 0, 'o' },
		{ "help", no_argument, 0, 'h' },
		{ 0 }
	};
	size_t n = 1000000;
	uint64_t span = 10ull << 30;
	double iops = 100000;
	int level = 0, json = 0, repeat = 1, c, rc = 0;
	const char *dir = "/dev/shm", *only = NULL;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 's': span = strtoull(optarg, NULL, 0); break;
		case 'i': iops = strtod(optarg, NULL); break;
		case 'l': level = atoi(optarg); break;
		case 't': tick = strtod(optarg, NULL); break;
		case 'd': dir = optarg; break;
		case 'r': repeat = atoi(optarg); break;
		case 'k': keep = 1; break;
		case 'a': attribution = 1; break;
		case 'j': json = 1; break;
		case 'o': only = optarg; break;
		case 'h':
			printf("usage: codec_speed [--count N] [--span BYTES] [--iops N] "
			       "[--level L] [--tick NS] [--attribution] [--repeat N] [--dir DIR] "
			       "[--keep] [--json] [--only WORKLOAD]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!n || span < 4096 || iops <= 0 || repeat < 1 || repeat > 16 ||
	    !(tick >= 0 && tick < 1e6)) {
		fprintf(stderr, "codec_speed: bad --count, --span, --iops, --tick or --repeat\n");
		return 2;
	}
	static const struct { const char *name; int kind; } wl[] = {
		{ "random", RANDOM }, { "seq-fixed", SEQ_FIXED }, { "seq-qd1", SEQ_QD1 },
		{ "seq-qd16", SEQ_QD16 }, { "seq-poisson", SEQ_POISSON },
	};
	int ran = 0;

	for (size_t k = 0; k < sizeof(wl) / sizeof(wl[0]); k++)
		if (!only || !strcmp(only, wl[k].name)) {
			rc |= run(wl[k].name, wl[k].kind, n, span, iops, level, repeat, dir, json);
			ran = 1;
		}
	if (!ran) {
		fprintf(stderr, "codec_speed: no workload named %s\n", only);
		return 2;
	}
	return rc ? 1 : 0;
}
