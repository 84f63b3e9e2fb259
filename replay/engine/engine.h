/*
 * engine.h — the I/O engine abstraction of `blkpeak replay`.
 *
 * An engine is a table of functions (fio's ioengines.h idea): the
 * scheduler queues I/Os, commits them (one system call for a batch),
 * waits for completions with getevents and fetches each completed I/O with
 * event. Everything the scheduler knows about real I/O goes through this
 * table, so the null engine (engine_null.c) can stand in for the kernel in
 * unit tests and the hdd engine (target_hdd.c) can layer emulated disks
 * over a real engine.
 *
 * Ownership: the caller owns every struct eng_io and keeps it alive (and
 * unchanged) from queue() until event() hands it back. Engines never print
 * and return 0 or a negative errno.
 */
#ifndef BLKPEAK_ENGINE_H
#define BLKPEAK_ENGINE_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Result of queue(): the I/O either finished at once (its result is set,
 * it will not come back through event()), was queued for the next commit,
 * or could not be taken now (commit and reap, then queue it again). */
enum eng_status {
	ENG_COMPLETED = 0,
	ENG_QUEUED = 1,
	ENG_BUSY = 2,
};

/* One I/O on one file descriptor (one part of a replayed request). */
struct eng_io {
	int fd;             /* member's descriptor (O_DIRECT) */
	uint8_t op;         /* enum bpt_op */
	uint8_t flags;      /* enum bpt_flag bits; BPT_F_FUA → RWF_DSYNC */
	uint8_t is_blkdev;  /* discard/write-zeroes: ioctl (1) or fallocate (0) */
	uint64_t offset;    /* bytes */
	uint64_t len;       /* bytes; 0 for a flush */
	void *buf;          /* aligned buffer of len bytes (read/write) */
	int64_t result;     /* set on completion: bytes done or a negative errno */
	void *priv;         /* the caller's, untouched */
	uint32_t layer_priv; /* a layering engine's (target_hdd.c), untouched below */
	/* set by an engine that knows when the I/O finished better than the
	 * moment it is reaped (target_hdd.c: the emulated disk's finish time,
	 * CLOCK_MONOTONIC ns); 0: the caller takes the time it reaps it */
	uint64_t done_ns;
	uint8_t engine_priv[80]; /* the engine's per-I/O state (e.g. an iocb) */
};

struct engine;
struct hdd_set;

struct engine_opts {
	unsigned depth;          /* most I/Os outstanding at once */
	uint64_t null_latency_ns; /* null engine: time from commit to completion */
	/* hdd engine (target_hdd.h): the engine that does the real I/O and
	 * the emulated disks whose completions it holds back */
	const struct engine_ops *inner;
	struct hdd_set *hdd;
	/* every descriptor an I/O may name, and the buffers every read and
	 * write lies in (the caller keeps both alive until close): an engine
	 * may register them with the kernel (io_uring) or ignore them */
	const int *fds;
	unsigned nfds;
	const struct iovec *bufs;
	unsigned nbufs;
	/* the CPUs the engine's kernel workers (io_uring's io-wq) may use,
	 * NULL: any; the issuer's own CPU is kept out of it, where a worker
	 * would wait behind the spinning SCHED_FIFO issuer */
	const cpu_set_t *worker_cpus;
};

/* engine_ops.flags */
enum engine_flag {
	ENGINE_F_NO_IO = 1u << 0, /* touches no device: nothing to verify */
};

/*
 * An engine is this one table row: engine.c's list of them is what
 * --engine accepts (replay's and measure's), what `blkpeak replay --list`
 * prints (and so the bash completion and the man page, made from it) and
 * what an unknown name's error lists. A new engine is a file and a row there.
 */
struct engine_ops {
	const char *name;
	const char *summary;     /* one line for replay --list */
	unsigned flags;          /* enum engine_flag bits */
	/* Whether the engine can run here: 1, or 0 with the reason in why
	 * (checked before anything is opened); NULL: always. */
	int (*usable)(char *why, size_t len);
	/* Create an engine for up to opts->depth outstanding I/Os. */
	int (*open)(struct engine **out, const struct engine_opts *opts);
	/* Wait for every outstanding I/O (reaped, results dropped), then
	 * free everything; NULL is accepted. */
	void (*close)(struct engine *e);
	/* Take one I/O for the next commit. */
	enum eng_status (*queue)(struct engine *e, struct eng_io *io);
	/* Submit what was queued. Returns the number submitted (>= 0; fewer
	 * than queued when the kernel is full: reap, then commit again) or a
	 * negative errno; an I/O the kernel refuses outright is completed
	 * with that error instead. */
	int (*commit)(struct engine *e);
	/* Wait until at least `min` I/Os completed or `timeout_ns` passed
	 * (UINT64_MAX: no limit); returns how many are ready (<= max) for
	 * event(), or a negative errno. */
	int (*getevents)(struct engine *e, unsigned min, unsigned max,
			 uint64_t timeout_ns);
	/* The i-th I/O made ready by the last getevents, result set. */
	struct eng_io *(*event)(struct engine *e, unsigned i);
	/* Number of I/Os queued but not yet committed. */
	unsigned (*pending)(const struct engine *e);
};

extern const struct engine_ops engine_uring_ops;
extern const struct engine_ops engine_libaio_ops;
extern const struct engine_ops engine_null_ops;
extern const struct engine_ops engine_hdd_ops;

/* The engine called `name` (a row of engine.c's table), or NULL. */
const struct engine_ops *engine_find(const char *name);
/* The i-th engine of the table (0, 1, ...), NULL past the last. */
const struct engine_ops *engine_at(size_t i);
/* The engines' names, "io_uring, libaio, null", for an error message. */
void engine_names(char *buf, size_t len);

/* Whether an io_uring can be made here: 0, or the negative errno of
 * io_uring_setup (-ENOSYS: not built in, or a seccomp filter's answer;
 * -EPERM: kernel.io_uring_disabled, 2, or 1 outside io_uring_group, or a
 * seccomp filter). */
int engine_uring_probe(void);
/* Whether io_uring should replay here (engine_uring_ops.usable):
 * engine_uring_probe succeeds and the kernel has discard as an io_uring
 * command (Linux 6.12). 1, or 0 with the reason in why. */
int engine_uring_usable(char *why, size_t len);

/* The engine `replay` uses without --engine: libaio, the faster one in
 * bench/RESULTS.md here (why, when non-NULL, is left empty: nothing to
 * warn about). */
const struct engine_ops *engine_default(char *why, size_t len);

#endif
