/*
 * session.c — the running capture: the loop that drains the BPF ring
 * buffer into the trace writer until the capture ends.
 *
 * The BPF side does not wake us per event: it submits with
 * BPF_RB_NO_WAKEUP unless a quarter of the ring buffer is pending (looked
 * at on a sample of the completions: bpf_loader.c). So we
 * sleep in ring_buffer__poll() for at most `poll_ms`, then consume
 * whatever is there. Each turn also
 *   - reads the loss counters (mapped .bss: no system call) and writes
 *     any increase as a loss entry covering the time since the last turn;
 *   - flushes the writer once a second, so a SIGKILL loses about a second;
 *   - checks the end conditions: SIGINT/SIGTERM, the duration, CMD's exit.
 * At the end, the requests still in flight get a moment to finish; then
 * the programs are detached and those that did not are recorded as
 * pending (their completion not seen).
 *
 * With `-- CMD`, CMD is forked after the BPF programs are attached; a
 * SIGINT or SIGTERM is passed on to it (the capture goes on until it
 * exits; a second one kills it), the duration's end sends it SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture.h"
#include "cliutil.h"

#define NSEC_PER_SEC 1000000000ull
#define MAX_WARNED_DEVS 8
#define UNFINISHED_WAIT_MS 1000

/*
 * Set by the signal handlers, read by the loop. Process-wide by nature
 * (a signal has no other way in); only session_run() installs handlers
 * that write them.
 */
static volatile sig_atomic_t got_stop_signal; /* SIGINT/SIGTERM number */
static volatile sig_atomic_t got_sigchld;

static void on_stop_signal(int sig)
{
	got_stop_signal = sig;
}

static void on_sigchld(int sig)
{
	(void)sig;
	got_sigchld = 1;
}

/* What the ring buffer callback needs. */
struct drain {
	struct bpt_writer *w;
	struct convert *conv;
	struct session_result *res;
	int err;                       /* first writer error; stops the capture */
	uint32_t warned[MAX_WARNED_DEVS]; /* unknown devices already reported */
	unsigned nwarned;
};

static void warn_unknown_dev(struct drain *d, uint32_t kdev)
{
	for (unsigned i = 0; i < d->nwarned; i++)
		if (d->warned[i] == kdev)
			return;
	if (d->nwarned < MAX_WARNED_DEVS)
		d->warned[d->nwarned++] = kdev;
	pr_warn("capture: I/O on device %u:%u, which was not in the device table "
		"at the start, is not recorded (counted as lost)",
		capture_kdev_major(kdev), capture_kdev_minor(kdev));
}

static int record_event(struct drain *d, const struct capture_event *ev);

static int on_event(void *ctx, void *data, size_t size)
{
	struct drain *d = ctx;
	int err;

	if (size < sizeof(struct capture_event))
		return 0;
	err = record_event(d, data);
	return err;
}

/* Convert and write one event; counts it. */
static int record_event(struct drain *d, const struct capture_event *ev)
{
	struct bpt_record rec;
	int err;

	err = convert_event(d->conv, ev, &rec);
	if (err == -ENODEV) {
		d->res->unknown_dev++;
		warn_unknown_dev(d, ev->dev);
		return 0;
	}
	if (err == -EOPNOTSUPP) {
		d->res->skipped++;
		return 0;
	}
	if (err) {
		d->err = err; /* the interner is the writer's */
		return err;   /* stops ring_buffer__consume */
	}
	/* in hand from here on: a failed write counts it as not written */
	d->res->seen++;
	if (rec.completion == BPT_COMPLETION_REUSED)
		d->res->unseen_reused++;
	else if (rec.completion == BPT_COMPLETION_PENDING)
		d->res->unseen_pending++;
	err = bpt_writer_add(d->w, &rec);
	if (err)
		d->err = err;
	return err;
}

/* loader_each_pending()'s callback: write one pending request. */
static int on_pending(void *ctx, const struct capture_event *ev)
{
	return record_event(ctx, ev);
}

/* Losses so far: ring buffer full, in-flight table full, program runs
 * the kernel skipped, unknown devices. A completion not seen is no loss:
 * its request is recorded, flagged. */
static uint64_t losses(const struct capture_bpf_handle *h, const struct session_result *r)
{
	const volatile struct capture_counters *c = loader_counters(h);

	return __atomic_load_n(&c->lost, __ATOMIC_RELAXED) +
	       __atomic_load_n(&c->map_full, __ATOMIC_RELAXED) +
	       loader_missed_runs(h) + r->unknown_dev;
}

/* loader_wait_inflight()'s tick: keep the ring buffer drained meanwhile. */
static void drain_ring(void *rb)
{
	ring_buffer__consume(rb);
}

static pid_t start_cmd(char **cmd)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	execvp(cmd[0], cmd);
	pr_err("capture: %s: %s", cmd[0], strerror(errno));
	_exit(127);
}

static int wait_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

static void install_handlers(struct sigaction old[3])
{
	struct sigaction sa = { 0 };

	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop_signal; /* no SA_RESTART: interrupt the poll */
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, &old[2]);
}

static void restore_handlers(const struct sigaction old[3])
{
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
	sigaction(SIGCHLD, &old[2], NULL);
}

int session_run(struct capture_bpf_handle *h, struct bpt_writer *w,
		struct convert *conv, const struct session_opts *o,
		struct session_result *res, struct bpt_error *error)
{
	unsigned poll_ms = o->poll_ms ? o->poll_ms : 50;
	struct drain d = { .w = w, .conv = conv, .res = res };
	uint64_t now, last_turn, last_flush, deadline, lost_seen = 0, lost;
	struct sigaction old[3];
	struct ring_buffer *rb;
	int forwarded = 0, err = 0, st;
	pid_t child = -1;

	memset(res, 0, sizeof(*res));
	res->cmd_status = -1;
	rb = ring_buffer__new(loader_ringbuf_fd(h), on_event, &d, NULL);
	if (!rb) {
		err = -errno;
		bpt_error_set(error, err, "ring buffer: %s", strerror(-err));
		return err;
	}
	got_stop_signal = 0;
	got_sigchld = 0;
	install_handlers(old);
	if (o->cmd) {
		child = start_cmd(o->cmd);
		if (child < 0) {
			err = -errno;
			bpt_error_set(error, err, "%s: cannot start: %s",
				 o->cmd[0], strerror(-err));
			goto out;
		}
	}
	last_turn = last_flush = now_mono_ns();
	deadline = o->duration_ns ? last_turn + o->duration_ns : 0;

	for (;;) {
		int n = ring_buffer__poll(rb, poll_ms);

		if (n >= 0 || n == -EINTR)
			n = ring_buffer__consume(rb);
		if (d.err) {
			err = d.err;
			bpt_error_set(error, err, "writing the trace: %s",
				 strerror(-err));
			break;
		}
		if (n < 0 && n != -EINTR) {
			err = n;
			bpt_error_set(error, err, "reading the ring buffer: %s",
				 strerror(-err));
			break;
		}
		now = now_mono_ns();
		lost = losses(h, res);
		if (lost > lost_seen) {
			err = bpt_writer_add_loss(w, last_turn - conv->start_ns,
						  now - conv->start_ns, lost - lost_seen);
			lost_seen = lost;
		}
		if (!err && now - last_flush >= NSEC_PER_SEC) {
			err = bpt_writer_flush(w);
			last_flush = now;
		}
		if (err) {
			bpt_error_set(error, err, "writing the trace: %s",
				 strerror(-err));
			break;
		}
		last_turn = now;

		if (child > 0 && got_sigchld) {
			got_sigchld = 0;
			if (waitpid(child, &st, WNOHANG) == child) {
				res->cmd_status = wait_status(st);
				child = -1;
				break;
			}
		}
		if (got_stop_signal) {
			if (child <= 0) {
				res->stopped_by_signal = got_stop_signal;
				break;
			}
			/* CMD decides when the capture ends; a second signal kills it */
			kill(child, forwarded ? SIGKILL : got_stop_signal);
			forwarded = 1;
			got_stop_signal = 0;
		}
		if (deadline && now >= deadline) {
			if (child <= 0)
				break;
			kill(child, SIGTERM);
			deadline = 0;
		}
	}

	/* what completed up to now, and what was issued by then: requests
	 * still in flight get a moment to finish; then the programs stop, so
	 * the table holds still, and those that never finished are recorded
	 * as pending, bounded by now */
	if (!err) {
		loader_wait_inflight(h, UNFINISHED_WAIT_MS, drain_ring, rb);
		loader_detach(h);
		ring_buffer__consume(rb);
		if (!d.err)
			d.err = loader_each_pending(h, now_mono_ns(), on_pending, &d);
		if (d.err) {
			err = d.err;
			bpt_error_set(error, err, "writing the trace: %s",
				 strerror(-err));
		}
		now = now_mono_ns();
		lost = losses(h, res);
		if (!err && lost > lost_seen)
			err = bpt_writer_add_loss(w, last_turn - conv->start_ns,
						  now - conv->start_ns, lost - lost_seen);
	}
out:
	if (child > 0) { /* a writer error ended the capture early */
		kill(child, SIGTERM);
		if (waitpid(child, &st, 0) == child)
			res->cmd_status = wait_status(st);
	}
	restore_handlers(old);
	ring_buffer__free(rb);
	res->lost = losses(h, res);
	res->ring_full = loader_counters(h)->lost;
	res->table_full = loader_counters(h)->map_full;
	res->skipped_runs = loader_missed_runs(h);
	res->own = loader_counters(h)->own;

	res->duration_ns = now_mono_ns() - conv->start_ns;
	return err;
}
