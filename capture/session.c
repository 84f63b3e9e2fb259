/*
 * session.c — the running capture: the loop that drains the BPF ring
 * buffer into the trace writer until the capture ends.
 *
 * The BPF side does not wake us per event: it submits with
 * BPF_RB_NO_WAKEUP unless a quarter of the ring buffer is pending (looked
 * at on a sample of the completions: bpf_loader.c). So we
 * sleep in epoll_wait() for at most `poll_ms`, then consume
 * whatever is there (the events read in place: ringread.c). Each turn also
 *   - reads the loss counters (mapped .bss: no system call) and writes
 *     any increase as a loss entry covering the time since the last turn;
 *   - flushes the writer once a second, so a SIGKILL loses about a second;
 *   - checks the end conditions: SIGINT/SIGTERM, the duration, CMD's exit;
 *   - on a terminal, redraws the status line once a second (elapsed,
 *     I/Os, IOPS and MB/s over the last second, lost events), as iostat
 *     and biotop do; common/progress.h draws it, and erases it at the end.
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
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture.h"
#include "cliutil.h"
#include "progress.h"

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
	uint64_t bytes;                /* of the records seen (the status line) */
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

	/* a short event (capture_events.h) has no file nor cause, which
	 * convert_event then leaves unread */
	if (size < sizeof(struct capture_event) &&
	    (size < CAPTURE_EVENT_SHORT ||
	     capture_event_needs_tail(((const struct capture_event *)data)->file_kind,
				      ((const struct capture_event *)data)->cause_kind)))
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
	d->bytes += rec.bytes;
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

/* What the loop of session_run carries from one turn to the next. */
struct session {
	struct capture_bpf_handle *h;
	struct bpt_writer *w;
	struct convert *conv;
	struct session_result *res;
	struct evring er;       /* the events */
	struct ring_buffer *rb; /* the path events; NULL: none */
	int epfd;               /* both, for wait_events() */
	struct drain d;
	uint64_t last_turn, last_flush, deadline, lost_seen;
	pid_t child;   /* -- CMD while it runs, else -1 */
	int forwarded; /* a stop signal was passed on to CMD */
	struct progress status;             /* the status line (terminal only) */
	uint64_t st_ns, st_ios, st_bytes;   /* at its last redraw */
};

/* Everything waiting in the ring buffers: the events (read in place,
 * ringread.c), then the path events (libbpf's reader: few). The number
 * of events, or the error that stops the capture. */
static int drain(struct session *s)
{
	int n = evring_consume(&s->er, on_event, &s->d), m;

	if (n >= 0 && s->rb) {
		m = ring_buffer__consume(s->rb);
		if (m < 0)
			n = m;
	}
	return n;
}

/* loader_wait_inflight()'s tick: keep the ring buffers drained meanwhile. */
static void drain_tick(void *s)
{
	drain(s);
}

/* Sleep until the BPF side wakes us (much data pending) or `ms` pass.
 * An epoll set, as libbpf's: a ring buffer that got data without a wake
 * up is not ready to it, so a busy ring does not end the sleep early. */
static int wait_events(struct session *s, unsigned ms)
{
	struct epoll_event ev[2];
	int n = epoll_wait(s->epfd, ev, 2, (int)ms);

	return n < 0 ? -errno : n;
}

/* Add `fd` to the epoll set `epfd`, waiting for data to read. */
static int epoll_add(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* The ring buffers' readers and the epoll set that waits on them. */
static int open_rings(struct session *s, struct bpt_error *error)
{
	int err;

	s->epfd = -1;
	s->rb = NULL;
	err = evring_open(&s->er, loader_ringbuf_fd(s->h), s->h->ringbuf_bytes);
	if (err)
		return bpt_error_set(error, err, "ring buffer: %s", strerror(-err));
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	err = s->epfd < 0 ? -errno : epoll_add(s->epfd, loader_ringbuf_fd(s->h));
	if (err)
		return bpt_error_set(error, err, "ring buffer: %s", strerror(-err));
	if (s->conv->files && loader_path_fd(s->h) >= 0) {
		s->rb = ring_buffer__new(loader_path_fd(s->h), files_on_path, s->conv->files, NULL);
		err = !s->rb ? -errno : epoll_add(s->epfd, ring_buffer__epoll_fd(s->rb));
		if (err)
			return bpt_error_set(error, err, "path ring buffer: %s", strerror(-err));
	}
	return 0;
}

static void close_rings(struct session *s)
{
	ring_buffer__free(s->rb);
	evring_close(&s->er);
	if (s->epfd >= 0)
		close(s->epfd);
}

/* The status line, once a second: the rates are over the last second. */
static void status_line(struct session *s, uint64_t now)
{
	char line[160];
	double dt = (double)(now - s->st_ns) / 1e9;
	uint64_t ios = s->res->seen, lost = s->lost_seen;

	if (!s->status.on || now - s->st_ns < NSEC_PER_SEC)
		return;
	snprintf(line, sizeof(line), "capture: %.0f s, %llu I/Os, %.0f IOPS, %.1f MB/s, %llu lost",
		 (double)(now - s->conv->start_ns) / 1e9,
		 (unsigned long long)ios, (double)(ios - s->st_ios) / dt,
		 (double)(s->d.bytes - s->st_bytes) / 1e6 / dt, (unsigned long long)lost);
	if (progress_text(&s->status, line)) {
		s->st_ns = now;
		s->st_ios = ios;
		s->st_bytes = s->d.bytes;
	}
}

/* One turn: drain the ring buffer into the writer, write new losses with
 * the window they happened in, flush once a second. 0 or the error that
 * ends the capture (with `error` set). */
static int record_turn(struct session *s, unsigned poll_ms, struct bpt_error *error)
{
	int n = wait_events(s, poll_ms), err = 0;
	uint64_t now, lost;

	if (s->conv->files)
		files_tick(s->conv->files, now_mono_ns());
	if (n >= 0 || n == -EINTR)
		n = drain(s);
	if (s->d.err) {
		err = s->d.err;
		return bpt_error_set(error, err, "writing the trace: %s", strerror(-err));
	}
	if (n < 0 && n != -EINTR)
		return bpt_error_set(error, n, "reading the ring buffer: %s", strerror(-n));
	now = now_mono_ns();
	lost = losses(s->h, s->res);
	if (lost > s->lost_seen) {
		err = bpt_writer_add_loss(s->w, s->last_turn - s->conv->start_ns,
					  now - s->conv->start_ns, lost - s->lost_seen);
		s->lost_seen = lost;
	}
	if (!err && now - s->last_flush >= NSEC_PER_SEC) {
		err = bpt_writer_flush(s->w);
		s->last_flush = now;
	}
	if (err)
		return bpt_error_set(error, err, "writing the trace: %s", strerror(-err));
	s->last_turn = now;
	status_line(s, now);
	return 0;
}

/* After a turn: 1 when the capture ends (CMD exited, a stop signal with
 * no CMD, the duration passed with no CMD); signals and the duration's
 * end are passed on to CMD, which then decides. */
static int should_stop(struct session *s)
{
	int st;

	if (s->child > 0 && got_sigchld) {
		got_sigchld = 0;
		if (waitpid(s->child, &st, WNOHANG) == s->child) {
			s->res->cmd_status = wait_status(st);
			s->child = -1;
			return 1;
		}
	}
	if (got_stop_signal) {
		if (s->child <= 0) {
			s->res->stopped_by_signal = got_stop_signal;
			return 1;
		}
		/* CMD decides when the capture ends; a second signal kills it */
		kill(s->child, s->forwarded ? SIGKILL : got_stop_signal);
		s->forwarded = 1;
		got_stop_signal = 0;
	}
	if (s->deadline && s->last_turn >= s->deadline) {
		if (s->child <= 0)
			return 1;
		kill(s->child, SIGTERM);
		s->deadline = 0;
	}
	return 0;
}

/* What completed up to now, and what was issued by then: requests still
 * in flight get a moment to finish; then the programs stop, so the table
 * holds still, and those that never finished are recorded as pending,
 * bounded by now. */
static int record_unfinished(struct session *s, struct bpt_error *error)
{
	uint64_t now, lost;
	int err = 0;

	loader_wait_inflight(s->h, UNFINISHED_WAIT_MS, drain_tick, s);
	loader_detach(s->h);
	drain(s);
	if (!s->d.err)
		s->d.err = loader_each_pending(s->h, now_mono_ns(), on_pending, &s->d);
	if (s->d.err) {
		err = s->d.err;
		bpt_error_set(error, err, "writing the trace: %s", strerror(-err));
	}
	now = now_mono_ns();
	lost = losses(s->h, s->res);
	if (!err && lost > s->lost_seen)
		err = bpt_writer_add_loss(s->w, s->last_turn - s->conv->start_ns,
					  now - s->conv->start_ns, lost - s->lost_seen);
	return err;
}

/* End CMD if it still runs: a writer error ended the capture early. */
static void end_cmd(struct session *s)
{
	int st;

	if (s->child > 0) {
		kill(s->child, SIGTERM);
		if (waitpid(s->child, &st, 0) == s->child)
			s->res->cmd_status = wait_status(st);
	}
}

/* The counters of the result, read once the programs stopped. */
static void count_results(struct session *s)
{
	struct session_result *res = s->res;

	res->lost = losses(s->h, res);
	res->ring_full = loader_counters(s->h)->lost;
	res->table_full = loader_counters(s->h)->map_full;
	res->skipped_runs = loader_missed_runs(s->h);
	res->own = loader_counters(s->h)->own;
	res->duration_ns = now_mono_ns() - s->conv->start_ns;
}

int session_run(struct capture_bpf_handle *h, struct bpt_writer *w,
		struct convert *conv, const struct session_opts *o,
		struct session_result *res, struct bpt_error *error)
{
	unsigned poll_ms = o->poll_ms ? o->poll_ms : 50;
	struct session s = { .h = h, .w = w, .conv = conv, .res = res, .child = -1,
			     .d = { .w = w, .conv = conv, .res = res } };
	struct sigaction old[3];
	int err = 0;

	memset(res, 0, sizeof(*res));
	res->cmd_status = -1;
	err = open_rings(&s, error);
	if (err) {
		close_rings(&s);
		return err;
	}
	got_stop_signal = 0;
	got_sigchld = 0;
	install_handlers(old);
	if (o->cmd) {
		s.child = start_cmd(o->cmd);
		if (s.child < 0) {
			err = -errno;
			bpt_error_set(error, err, "%s: cannot start: %s", o->cmd[0], strerror(-err));
		}
	}
	progress_init(&s.status, "capture", "I/Os", o->status);
	s.status.period_ns = NSEC_PER_SEC / 2; /* status_line() keeps to once a second */
	if (!err) {
		s.last_turn = s.last_flush = s.st_ns = now_mono_ns();
		s.deadline = o->duration_ns ? s.last_turn + o->duration_ns : 0;
		while (!(err = record_turn(&s, poll_ms, error)) && !should_stop(&s))
			;
		if (!err)
			err = record_unfinished(&s, error);
	}
	progress_end(&s.status);
	end_cmd(&s);
	restore_handlers(old);
	close_rings(&s);
	count_results(&s);
	return err;
}
