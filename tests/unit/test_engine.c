/* Unit tests of the I/O engines (replay/engine/engine_*.c) on a temporary file,
 * each run on libaio and io_uring: reads and writes land where asked (on
 * io_uring through the registered file and buffer, and without them),
 * flushes and FUA writes complete, discards and write-zeroes too (libaio:
 * on the helper thread; io_uring: native), an I/O the kernel refuses
 * comes back with its error, the depth is enforced. No root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpt.h"
#include "../../replay/engine/engine.h"

static char path[64];
static int fd = -1;
static void *buf;

static void setup(void)
{
	snprintf(path, sizeof(path), "/tmp/blkpeak-engine-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 1 << 20), 0);
	cr_assert_eq(posix_memalign(&buf, 4096, 65536), 0);
}

static void teardown(void)
{
	close(fd);
	unlink(path);
	free(buf);
}

TestSuite(engine, .init = setup, .fini = teardown);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Queue, commit and wait for the given I/Os; results in io[i].result. */
static const struct engine_ops *const real[] = { &engine_libaio_ops, &engine_uring_ops };
#define NREAL (sizeof(real) / sizeof(real[0]))

/* `registered`: the file and the buffer are offered for registration. */
static void run_reg(const struct engine_ops *ops, struct eng_io *io, unsigned n, int registered)
{
	struct engine *e;
	struct iovec iov = { buf, 65536 };
	struct engine_opts eo = { .depth = 8 };
	unsigned done = 0;

	if (registered) {
		eo.fds = &fd;
		eo.nfds = 1;
		eo.bufs = &iov;
		eo.nbufs = 1;
	}
	cr_assert_eq(ops->open(&e, &eo), 0);
	for (unsigned i = 0; i < n; i++) {
		enum eng_status st = ops->queue(e, &io[i]);

		cr_assert(st == ENG_QUEUED || st == ENG_COMPLETED);
		done += st == ENG_COMPLETED;
	}
	cr_assert_geq(ops->commit(e), 0);
	cr_expect_eq(ops->pending(e), 0);
	/* getevents may return 0 before its time-out: a signal interrupts
	 * the wait (criterion stops and continues its test processes with
	 * SIGSTOP/SIGCONT, which ends libaio's io_getevents with EINTR) */
	uint64_t deadline = now_ns() + 2000000000ull;

	while (done < n) {
		int got = ops->getevents(e, 1, 8, 2000000000ull);

		cr_assert_geq(got, 0, "%s: getevents: %s", ops->name, strerror(-got));
		cr_assert(got > 0 || now_ns() < deadline, "%s: %u of %u I/Os complete after 2 s",
			  ops->name, done, n);
		for (int i = 0; i < got; i++)
			cr_assert_not_null(ops->event(e, (unsigned)i));
		done += (unsigned)got;
	}
	ops->close(e);
}

static void run(const struct engine_ops *ops, struct eng_io *io, unsigned n)
{
	run_reg(ops, io, n, 1);
}

static struct eng_io mk(int f, unsigned op, uint64_t off, uint64_t len, void *b)
{
	return (struct eng_io){ .fd = f, .op = (uint8_t)op, .offset = off, .len = len, .buf = b };
}

Test(engine, reads_writes_flushes)
{
	char *w = buf, *r = (char *)buf + 32768;
	struct eng_io io[3];

	for (unsigned k = 0; k < NREAL * 2; k++) {
		const struct engine_ops *ops = real[k % NREAL];
		int reg = k < NREAL; /* then again with nothing registered */

		memset(w, 0x5a + (int)k, 8192);
		io[0] = mk(fd, BPT_OP_WRITE, 65536, 8192, w);
		io[1] = mk(fd, BPT_OP_WRITE, 131072, 4096, w);
		io[1].flags = BPT_F_FUA;
		io[2] = mk(fd, BPT_OP_FLUSH, 0, 0, NULL);
		run_reg(ops, io, 3, reg);
		cr_expect_eq(io[0].result, 8192, "%s", ops->name);
		cr_expect_eq(io[1].result, 4096, "%s", ops->name);
		cr_expect_eq(io[2].result, 0, "%s", ops->name);
		cr_assert_eq(pread(fd, r, 8192, 65536), 8192);
		cr_expect_eq(memcmp(r, w, 8192), 0, "%s: the write landed at its offset", ops->name);

		memset(r, 0, 8192);
		io[0] = mk(fd, BPT_OP_READ, 65536, 4096, r);
		run_reg(ops, io, 1, reg);
		cr_expect_eq(io[0].result, 4096, "%s", ops->name);
		cr_expect_eq(r[0], 0x5a + (int)k, "%s", ops->name);
		cr_expect_eq(r[4095], 0x5a + (int)k, "%s", ops->name);
	}
}

Test(engine, discard_and_zeroes)
{
	char *w = buf, *r = (char *)buf + 32768;
	struct eng_io io[2];

	for (unsigned k = 0; k < NREAL; k++) {
		memset(w, 0x77, 16384);
		cr_assert_eq(pwrite(fd, w, 16384, 0), 16384);
		cr_assert_eq(pwrite(fd, w, 16384, 262144), 16384);
		io[0] = mk(fd, BPT_OP_DISCARD, 0, 8192, NULL);
		io[1] = mk(fd, BPT_OP_WRITE_ZEROES, 262144, 4096, NULL);
		run(real[k], io, 2);
		if (io[0].result == -EOPNOTSUPP || io[1].result == -EOPNOTSUPP)
			cr_skip_test("this file system cannot punch holes or zero ranges");
		cr_expect_eq(io[0].result, 8192, "%s", real[k]->name);
		cr_expect_eq(io[1].result, 4096, "%s", real[k]->name);
		cr_assert_eq(pread(fd, r, 16384, 0), 16384);
		cr_expect_eq(r[0], 0, "%s", real[k]->name);
		cr_expect_eq(r[8191], 0, "%s", real[k]->name);
		cr_expect_eq(r[8192], 0x77, "%s: only the discarded range", real[k]->name);
		cr_assert_eq(pread(fd, r, 8192, 262144), 8192);
		cr_expect_eq(r[4095], 0, "%s", real[k]->name);
		cr_expect_eq(r[4096], 0x77, "%s", real[k]->name);
	}
}

Test(engine, refused_io_comes_back_with_its_error)
{
	struct eng_io io[2];

	for (unsigned k = 0; k < NREAL; k++) {
		io[0] = mk(-1, BPT_OP_READ, 0, 4096, buf);
		io[1] = mk(fd, BPT_OP_READ, 0, 4096, buf);
		run(real[k], io, 2);
		cr_expect_eq(io[0].result, -EBADF, "%s", real[k]->name);
		cr_expect_eq(io[1].result, 4096, "%s: the next I/O of the batch still runs",
			     real[k]->name);
		/* reading past the end of the file: 0 bytes, a short I/O */
		io[0] = mk(fd, BPT_OP_READ, 2 << 20, 4096, buf);
		run(real[k], io, 1);
		cr_expect_eq(io[0].result, 0, "%s", real[k]->name);
	}
}

Test(engine, depth_is_enforced)
{
	const struct engine_ops *ops[] = { &engine_libaio_ops, &engine_uring_ops, &engine_null_ops };

	for (unsigned k = 0; k < 3; k++) {
		struct engine *e;
		struct engine_opts eo = { .depth = 2, .null_latency_ns = 1000 };
		struct eng_io io[3] = { mk(fd, BPT_OP_READ, 0, 4096, buf),
					mk(fd, BPT_OP_READ, 4096, 4096, buf),
					mk(fd, BPT_OP_READ, 8192, 4096, buf) };

		cr_assert_eq(ops[k]->open(&e, &eo), 0);
		cr_expect_eq(ops[k]->queue(e, &io[0]), ENG_QUEUED);
		cr_expect_eq(ops[k]->queue(e, &io[1]), ENG_QUEUED);
		cr_expect_eq(ops[k]->queue(e, &io[2]), ENG_BUSY, "%s", ops[k]->name);
		cr_expect_eq(ops[k]->commit(e), 2);
		cr_expect_eq(ops[k]->queue(e, &io[2]), ENG_BUSY, "still 2 in flight");
		cr_assert_eq(ops[k]->getevents(e, 2, 2, 2000000000ull), 2);
		cr_expect_eq(ops[k]->queue(e, &io[2]), ENG_QUEUED);
		ops[k]->close(e); /* with one queued, never committed */
	}
	cr_expect_eq(engine_find("libaio"), &engine_libaio_ops);
	cr_expect_eq(engine_find("io_uring"), &engine_uring_ops);
	cr_expect_null(engine_find("uring"));
}
