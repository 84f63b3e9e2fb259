/*
 * engine_uring.c — the io_uring engine (liburing): every operation the
 * trace has is a native io_uring request, so no helper thread is needed:
 *
 *   read, write     IORING_OP_{READ,WRITE}_FIXED on the registered
 *                   buffers (plain READ/WRITE when a buffer is outside
 *                   them or registering failed); FUA as RWF_DSYNC
 *   flush           IORING_OP_FSYNC with IORING_FSYNC_DATASYNC
 *   discard         block device: IORING_OP_URING_CMD
 *                   BLOCK_URING_CMD_DISCARD (Linux 6.12; older kernels
 *                   complete it with -EOPNOTSUPP, engine_uring_usable
 *                   says so); file: IORING_OP_FALLOCATE PUNCH_HOLE
 *   write-zeroes    IORING_OP_FALLOCATE ZERO_RANGE (a block device runs
 *                   it as BLKZEROOUT does: zero-out without unmapping)
 *
 * The members' descriptors are registered (IOSQE_FIXED_FILE: no file
 * reference taken per I/O); the kernel's workers for the requests it
 * cannot issue inline (io-wq) are kept off the issuer's CPU. queue() fills a submission entry, commit()
 * submits the batch with one io_uring_enter, and completions are taken
 * from the shared completion ring without a system call; the engine only
 * enters the kernel to sleep for one. The ring is made without
 * COOP_TASKRUN and DEFER_TASKRUN, both of which hold completions back
 * until the task next enters the kernel (a polling issuer would not see
 * them).
 */
#include <errno.h>
#include <linux/falloc.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "bpt.h"
#include "engine.h"

/* linux/fs.h of Linux 6.12; the build's headers may be older */
#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD _IO(0x12, 0)
#endif

struct engine {
	struct io_uring ring;
	int ring_ok;
	unsigned depth;
	unsigned inflight;          /* submitted, completion not yet taken */
	unsigned nqueued;           /* prepared, not yet submitted */
	int *file_index;            /* fd → registered index, -1: none */
	int nfd_slots;              /* size of file_index */
	const struct iovec *bufs;   /* registered buffers, NULL: none */
	unsigned nbufs;
	struct eng_io **ready;
	unsigned nready;
};

static void ur_close(struct engine *e)
{
	if (!e)
		return;
	if (e->ring_ok) {
		/* wait for what is still in the kernel so its buffers can go */
		while (e->inflight) {
			struct io_uring_cqe *cqe;
			int rc = io_uring_wait_cqe(&e->ring, &cqe);

			if (rc < 0 && rc != -EINTR)
				break;
			if (!rc) {
				io_uring_cqe_seen(&e->ring, cqe);
				e->inflight--;
			}
		}
		/* Drop the registered files now: left to the ring's teardown,
		 * which the kernel runs from a workqueue after close, they keep
		 * the targets open (and O_EXCL-busy, e.g. for mkfs) for a moment
		 * after replay has exited. */
		io_uring_unregister_files(&e->ring);
		if (e->bufs)
			io_uring_unregister_buffers(&e->ring);
		io_uring_queue_exit(&e->ring);
	}
	free(e->file_index);
	free(e->ready);
	free(e);
}

/* A ring of `entries`: single issuer where the kernel has it (6.0). */
static int ring_init(struct io_uring *ring, unsigned entries)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SINGLE_ISSUER };
	int rc = io_uring_queue_init_params(entries, ring, &p);

	if (rc == -EINVAL) {
		memset(&p, 0, sizeof(p));
		rc = io_uring_queue_init_params(entries, ring, &p);
	}
	return rc;
}

/* Register the members' descriptors; without them (or when the kernel
 * refuses) every I/O names its descriptor itself. */
static void register_files(struct engine *e, const struct engine_opts *o)
{
	int maxfd = -1;

	for (unsigned i = 0; i < o->nfds; i++)
		if (o->fds[i] > maxfd)
			maxfd = o->fds[i];
	if (maxfd < 0)
		return;
	e->file_index = malloc((size_t)(maxfd + 1) * sizeof(*e->file_index));
	if (!e->file_index)
		return;
	for (int i = 0; i <= maxfd; i++)
		e->file_index[i] = -1;
	if (io_uring_register_files(&e->ring, o->fds, o->nfds) < 0) {
		free(e->file_index);
		e->file_index = NULL;
		return;
	}
	for (unsigned i = 0; i < o->nfds; i++)
		if (e->file_index[o->fds[i]] < 0) /* the same fd twice: the first */
			e->file_index[o->fds[i]] = (int)i;
	e->nfd_slots = maxfd + 1;
}

static int ur_open(struct engine **out, const struct engine_opts *opts)
{
	struct engine *e = calloc(1, sizeof(*e));
	int rc;

	if (!e)
		return -ENOMEM;
	e->depth = opts->depth ? opts->depth : 1;
	e->ready = calloc(e->depth, sizeof(*e->ready));
	if (!e->ready) {
		ur_close(e);
		return -ENOMEM;
	}
	rc = ring_init(&e->ring, e->depth);
	if (rc < 0) {
		ur_close(e);
		return rc;
	}
	e->ring_ok = 1;
	register_files(e, opts);
	/* best effort: without it a punted I/O may wait for the issuer */
	if (opts->worker_cpus)
		(void)io_uring_register_iowq_aff(&e->ring, sizeof(*opts->worker_cpus),
						 opts->worker_cpus);
	/* Pinning the buffers can fail (RLIMIT_MEMLOCK): plain I/O then. */
	if (opts->nbufs && io_uring_register_buffers(&e->ring, opts->bufs, opts->nbufs) == 0) {
		e->bufs = opts->bufs; /* the caller keeps them alive */
		e->nbufs = opts->nbufs;
	}
	*out = e;
	return 0;
}

/* The registered buffer holding [buf, buf + len), or -1. */
static int buf_index(const struct engine *e, const void *buf, uint64_t len)
{
	const char *p = buf;

	for (unsigned i = 0; i < e->nbufs; i++) {
		const char *b = e->bufs[i].iov_base;

		if (p >= b && p + len <= b + e->bufs[i].iov_len)
			return (int)i;
	}
	return -1;
}

static enum eng_status ur_queue(struct engine *e, struct eng_io *io)
{
	struct io_uring_sqe *sqe;
	int fd = io->fd, bi;

	if (e->inflight + e->nqueued >= e->depth)
		return ENG_BUSY;
	switch (io->op) {
	case BPT_OP_READ:
	case BPT_OP_WRITE:
	case BPT_OP_FLUSH:
	case BPT_OP_DISCARD:
	case BPT_OP_WRITE_ZEROES:
		break;
	default:
		io->result = -EOPNOTSUPP;
		return ENG_COMPLETED;
	}
	sqe = io_uring_get_sqe(&e->ring);
	if (!sqe)
		return ENG_BUSY; /* cannot happen: the ring holds depth entries */
	int idx = e->file_index && fd >= 0 && fd < e->nfd_slots ? e->file_index[fd] : -1;
	int fixed = idx >= 0, real_fd = fixed ? idx : fd;

	switch (io->op) {
	case BPT_OP_READ:
		bi = buf_index(e, io->buf, io->len);
		if (bi >= 0)
			io_uring_prep_read_fixed(sqe, real_fd, io->buf, (unsigned)io->len,
						 io->offset, bi);
		else
			io_uring_prep_read(sqe, real_fd, io->buf, (unsigned)io->len, io->offset);
		break;
	case BPT_OP_WRITE:
		bi = buf_index(e, io->buf, io->len);
		if (bi >= 0)
			io_uring_prep_write_fixed(sqe, real_fd, io->buf, (unsigned)io->len,
						  io->offset, bi);
		else
			io_uring_prep_write(sqe, real_fd, io->buf, (unsigned)io->len, io->offset);
		if (io->flags & BPT_F_FUA)
			sqe->rw_flags = RWF_DSYNC;
		break;
	case BPT_OP_FLUSH:
		io_uring_prep_fsync(sqe, real_fd, IORING_FSYNC_DATASYNC);
		break;
	case BPT_OP_DISCARD:
		if (io->is_blkdev) {
			io_uring_prep_rw(IORING_OP_URING_CMD, sqe, real_fd, NULL, 0, 0);
			sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
			sqe->addr = io->offset;
			sqe->addr3 = io->len;
		} else {
			io_uring_prep_fallocate(sqe, real_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
						io->offset, io->len);
		}
		break;
	case BPT_OP_WRITE_ZEROES:
		io_uring_prep_fallocate(sqe, real_fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
					io->offset, io->len);
		break;
	}
	if (fixed)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, io);
	e->nqueued++;
	return ENG_QUEUED;
}

static int ur_commit(struct engine *e)
{
	int total = 0;

	while (e->nqueued) {
		int n = io_uring_submit(&e->ring);

		if (n == -EINTR)
			continue;
		if (n == -EAGAIN || n == -EBUSY || n == 0)
			break; /* the kernel is short of room: reap and commit again */
		if (n < 0)
			return n;
		e->inflight += (unsigned)n;
		e->nqueued -= (unsigned)n;
		total += n;
	}
	return total;
}

/* Move up to `max` completions from the shared ring to the ready list,
 * without a system call; returns how many. */
static unsigned ring_reap(struct engine *e, unsigned max)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&e->ring, head, cqe) {
		struct eng_io *io;

		if (n == max)
			break;
		io = io_uring_cqe_get_data(cqe);
		/* a discard or write-zeroes says 0 on success: bytes done */
		io->result = cqe->res == 0 && io->op != BPT_OP_READ && io->op != BPT_OP_WRITE ?
				     (int64_t)io->len : (int64_t)cqe->res;
		e->ready[e->nready++] = io;
		n++;
	}
	io_uring_cq_advance(&e->ring, n);
	e->inflight -= n;
	return n;
}

static int ur_getevents(struct engine *e, unsigned min, unsigned max, uint64_t timeout_ns)
{
	if (max > e->depth)
		max = e->depth;
	if (min > e->inflight)
		min = e->inflight;
	if (min > max)
		min = max;
	e->nready = 0;
	ring_reap(e, max);
	while (e->nready < min) {
		struct io_uring_cqe *cqe;
		struct __kernel_timespec ts;
		int rc;

		if (timeout_ns == UINT64_MAX) {
			rc = io_uring_wait_cqe(&e->ring, &cqe);
		} else {
			ts.tv_sec = (long long)(timeout_ns / 1000000000u);
			ts.tv_nsec = (long long)(timeout_ns % 1000000000u);
			rc = io_uring_wait_cqe_timeout(&e->ring, &cqe, &ts);
		}
		if (rc == -ETIME || rc == -EINTR)
			break; /* time is up, or a signal: let the caller look */
		if (rc < 0)
			return rc;
		ring_reap(e, max - e->nready);
		if (timeout_ns != UINT64_MAX)
			break; /* one wait per call: the caller's deadline holds */
	}
	return (int)e->nready;
}

static struct eng_io *ur_event(struct engine *e, unsigned i)
{
	return i < e->nready ? e->ready[i] : NULL;
}

static unsigned ur_pending(const struct engine *e)
{
	return e->nqueued;
}

const struct engine_ops engine_uring_ops = {
	.name = "io_uring",
	.summary = "io_uring (Linux 6.12 on: discard as an io_uring command)",
	.usable = engine_uring_usable,
	.open = ur_open,
	.close = ur_close,
	.queue = ur_queue,
	.commit = ur_commit,
	.getevents = ur_getevents,
	.event = ur_event,
	.pending = ur_pending,
};

/* Kernel release at least major.minor (uname; "6.18.44-..." → 6, 18). */
static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

int engine_uring_probe(void)
{
	struct io_uring ring;
	int rc = ring_init(&ring, 1);

	if (rc < 0)
		return rc;
	io_uring_queue_exit(&ring);
	return 0;
}

int engine_uring_usable(char *why, size_t len)
{
	int rc = engine_uring_probe();

	if (rc < 0) {
		snprintf(why, len, "%s (io_uring is disabled by kernel.io_uring_disabled or a "
			 "seccomp filter, or not built in)", strerror(-rc));
		return 0;
	}
	if (!kernel_at_least(6, 12)) {
		snprintf(why, len, "io_uring has no discard on block devices before Linux 6.12");
		return 0;
	}
	return 1;
}
