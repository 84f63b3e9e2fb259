/*
 * read_blktrace.c — blktrace binary traces: `struct blk_io_trace` v0x07
 * and `struct blk_io_trace2` v0x08 (Linux 6.19), from the kernel's
 * include/uapi/linux/blktrace_api.h; blktrace_format.h has the layout and
 * units (times in ns of the kernel's clock, sectors of 512 bytes, bytes),
 * blktrace_pair.h how events become I/Os.
 *
 * An input is one of:
 *   - PREFIX, a name that is no file, as `blkparse -i PREFIX` takes it:
 *     the per-CPU files PREFIX.blktrace.0, .1, ... that blktrace writes,
 *     merged by time;
 *   - a per-CPU file PREFIX.blktrace.N: with the other files of its set
 *     given as inputs too, the first of them reads them all together (a
 *     request's completion is often on another CPU than its issue), and
 *     none when PREFIX itself is an input;
 *   - any other file: one stream, such as the ftrace blk tracer's binary
 *     output (trace_pipe with the `bin` option), which holds every CPU's
 *     events already merged.
 * Each file may be compressed (ff_input). The device is named after the
 * prefix ("sda" for sda.blktrace.N; other devices in the same files, and
 * every device of a single stream, "MAJ,MIN" as blkparse shows them).
 *
 * What is not an I/O is counted into the trace's meta (ff_note), not
 * dropped silently: completions of requests whose issue is not in the
 * trace, requests queued but never issued, passthrough and zone
 * management requests, unknown actions, events out of time order.
 * Issued requests without a completion are I/Os with completion
 * "pending".
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blktrace_source.h"
#include "foreign.h"

struct rb_file {
	struct ff_input *in;
	char *path;
	unsigned cpu;
};

struct rb_state {
	struct rb_file *f;
	unsigned n;
	struct bt_source_input *src_in;
	struct bt_source *src;
	char name[64];     /* the prefix's base name, "" for a single stream */
	uint32_t named_dev; /* the device that got that name */
	int have_named;
	int opened, idle;
	uint64_t zone_mgmt;
	/* the device of the last I/O and its index (ff_device), so that
	 * its name is not made again for every I/O */
	uint32_t last_dev;
	int last_dev_idx;    /* -1: none yet */
	/* the process name of the last I/O and its id (ff_intern) */
	char last_comm[64];
	uint32_t last_comm_id;
	int have_comm;
};

/* Does path end in ".blktrace.<digits>"? Returns the prefix's length,
 * and the CPU number in *cpu; 0 when not. */
static size_t cpu_file(const char *path, unsigned *cpu)
{
	static const char tag[] = ".blktrace.";
	size_t len = strlen(path), d = len;

	while (d > 0 && path[d - 1] >= '0' && path[d - 1] <= '9')
		d--;
	if (d == len || len - d > 6 || d < sizeof(tag) - 1 + 1 ||
	    memcmp(path + d - (sizeof(tag) - 1), tag, sizeof(tag) - 1))
		return 0;
	if (cpu)
		*cpu = (unsigned)strtoul(path + d, NULL, 10);
	return d - (sizeof(tag) - 1);
}

static int by_cpu(const void *a, const void *b)
{
	const struct rb_file *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int add_file(struct rb_state *rb, const char *path, unsigned cpu)
{
	struct rb_file *f = realloc(rb->f, (rb->n + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	rb->f = f;
	f[rb->n] = (struct rb_file){ .path = strdup(path), .cpu = cpu };
	if (!f[rb->n].path)
		return -ENOMEM;
	rb->n++;
	return 0;
}

/* The files PREFIX.blktrace.N in the prefix's directory. */
static int prefix_files(struct rb_state *rb, const char *prefix)
{
	char dir[PATH_MAX], path[PATH_MAX];
	const char *slash = strrchr(prefix, '/'), *base = slash ? slash + 1 : prefix;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - prefix) ? (int)(slash - prefix) : 1, prefix);
	else
		snprintf(dir, sizeof(dir), ".");
	if (!(d = opendir(dir)))
		return -errno;
	while (!rc && (e = readdir(d))) {
		unsigned cpu;
		size_t pl = cpu_file(e->d_name, &cpu);

		if (pl && pl == strlen(base) && !memcmp(e->d_name, base, pl)) {
			if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
				rc = -ENAMETOOLONG;
			else
				rc = add_file(rb, path, cpu);
		}
	}
	closedir(d);
	if (!rc && rb->n)
		qsort(rb->f, rb->n, sizeof(*rb->f), by_cpu);
	return rc;
}

static int detect(const char *path, const char *head, size_t len)
{
	struct bt_layout lay;
	struct rb_state probe = { 0 };
	int found;

	if (head && len >= 4) {
		int rc = bt_layout_detect((const uint8_t *)head, &lay);
		struct bt_event ev;
		long n;

		if (rc == -EPROTONOSUPPORT)
			return 60; /* blktrace's magic, a version open() names */
		if (rc < 0)
			return 0;
		n = bt_decode((const uint8_t *)head, len, &lay, &ev);
		if (n < 0)
			return 0;
		/* A second record with the same magic makes it certain. */
		if (n > 0 && (size_t)n + 4 <= len)
			return bt_decode((const uint8_t *)head + n, len - (size_t)n, &lay, &ev) >= 0 ? 100 : 0;
		return 90;
	}
	if (head)
		return 0;
	/* No such file: a prefix of per-CPU files? */
	found = prefix_files(&probe, path) == 0 && probe.n > 0;
	for (unsigned i = 0; i < probe.n; i++)
		free(probe.f[i].path);
	free(probe.f);
	return found ? 100 : 0;
}

static long rb_read(void *ctx, void *buf, size_t len, struct bpt_error *err)
{
	return (long)ff_input_read(ctx, buf, len, err);
}

static void rb_close(void *state)
{
	struct rb_state *rb = state;

	if (!rb)
		return;
	bt_source_close(rb->src);
	for (unsigned i = 0; i < rb->n; i++) {
		ff_input_close(rb->f[i].in);
		free(rb->f[i].path);
	}
	free(rb->f);
	free(rb->src_in);
	free(rb);
}

static int rb_open(struct ff_ctx *cx, void **state)
{
	struct rb_state *rb = calloc(1, sizeof(*rb));

	*state = rb;
	if (!rb)
		return ff_fail(cx, -ENOMEM, "out of memory");
	rb->last_dev_idx = -1;
	return 0;
}

/*
 * Which files this input reads; done at the first next(), when every
 * input of the conversion is known. A per-CPU file reads the files of its
 * set among the inputs, unless an earlier input does (then it is idle).
 */
static int resolve(struct rb_state *rb, struct ff_ctx *cx)
{
	const char *path = ff_ctx_path(cx);
	struct stat st;
	size_t pl, self = ff_ctx_index(cx);
	unsigned cpu;
	int rc = 0;

	rb->opened = 1;
	if (stat(path, &st) < 0 && errno == ENOENT) {
		if ((rc = prefix_files(rb, path)) < 0)
			return ff_fail(cx, rc, "cannot list the per-CPU files: %s", strerror(-rc));
		if (!rb->n)
			return ff_fail(cx, -ENOENT, "no such file, and no %s.blktrace.N files", path);
		pl = strlen(path);
	} else if ((pl = cpu_file(path, &cpu))) {
		const char *other;

		for (size_t i = 0; !rc && (other = ff_ctx_input_path(cx, i)); i++) {
			unsigned c;

			if (strlen(other) == pl && !memcmp(other, path, pl)) {
				rb->idle = 1; /* the set's prefix is an input: it reads all */
				return 0;
			}
			if (cpu_file(other, &c) != pl || memcmp(other, path, pl))
				continue;
			if (i < self) {
				rb->idle = 1; /* input i reads this file */
				return 0;
			}
			rc = add_file(rb, other, c);
		}
		if (rc)
			return ff_fail(cx, rc, "out of memory");
		qsort(rb->f, rb->n, sizeof(*rb->f), by_cpu);
	} else {
		if ((rc = add_file(rb, path, 0)))
			return ff_fail(cx, rc, "out of memory");
	}
	if (pl) {
		const char *b = path + pl;

		while (b > path && b[-1] != '/')
			b--;
		snprintf(rb->name, sizeof(rb->name), "%.*s", (int)(path + pl - b), b);
	}
	if (!(rb->src_in = calloc(rb->n, sizeof(*rb->src_in))))
		return ff_fail(cx, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < rb->n; i++) {
		struct bpt_error e = { 0 };

		if ((rc = ff_input_open(&rb->f[i].in, rb->f[i].path, &e)))
			return ff_fail(cx, rc, "%s", e.msg);
		rb->src_in[i] = (struct bt_source_input){ rb->f[i].path, rb_read, rb->f[i].in };
	}
	{
		struct bpt_error e = { 0 };

		if ((rc = bt_source_open(&rb->src, rb->src_in, rb->n, &e)))
			return ff_fail(cx, rc, "%s", e.msg);
	}
	return 0;
}

/* The counts a user must see, into the trace's meta. */
static int report(struct rb_state *rb, struct ff_ctx *cx)
{
	const struct bt_pair_stats *st = bt_source_pair_stats(rb->src);
	struct bt_source_info info;
	int rc;

	bt_source_info(rb->src, &info);
	if ((rc = ff_note(cx, "unpaired_completions", st->unmatched_completions)) ||
	    (rc = ff_note(cx, "never_issued", st->never_issued)) ||
	    (rc = ff_note(cx, "passthrough_events", st->passthrough)) ||
	    (rc = ff_note(cx, "zone_mgmt_requests", rb->zone_mgmt)) ||
	    (rc = ff_note(cx, "unknown_actions", st->unknown_actions)) ||
	    (rc = ff_note(cx, "given_up_in_flight", st->given_up)) ||
	    (rc = ff_note(cx, "events_out_of_order", info.backwards)) ||
	    (rc = ff_note(cx, "names_dropped", info.names_dropped)))
		return rc;
	return 0;
}

/* A message from the blktrace code names the file itself; ff_fail adds
 * the input's path, so drop it when it is the same. */
static int fail_with(struct ff_ctx *cx, int rc, const struct bpt_error *e)
{
	const char *m = e->msg, *p = ff_ctx_path(cx);
	size_t pl = strlen(p);

	if (!strncmp(m, p, pl) && m[pl] == ':' && m[pl + 1] == ' ')
		m += pl + 2;
	return ff_fail(cx, rc, "%s", m);
}

static int rb_next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct rb_state *rb = state;
	struct bpt_error e = { 0 };
	struct bt_io io;
	const char *comm;
	uint8_t op, flags;
	int rc;

	if (!rb->opened && (rc = resolve(rb, cx)))
		return rc;
	if (rb->idle)
		return 0;
	for (;;) {
		rc = bt_source_next(rb->src, &io, &comm, &e);
		if (rc < 0)
			return fail_with(cx, rc, &e);
		if (rc == 0)
			return report(rb, cx);
		if (bt_cat_to_op(io.cat, io.bytes, &op, &flags) == 0)
			break;
		rb->zone_mgmt++;
	}
	if (rb->last_dev_idx >= 0 && io.dev == rb->last_dev) {
		rec->dev = (uint32_t)rb->last_dev_idx;
	} else {
		char devname[64];
		uint32_t maj = bt_dev_major(io.dev), min = bt_dev_minor(io.dev);
		int dev;

		if (rb->name[0] && (!rb->have_named || rb->named_dev == io.dev)) {
			rb->have_named = 1;
			rb->named_dev = io.dev;
			snprintf(devname, sizeof(devname), "%s", rb->name);
		} else {
			snprintf(devname, sizeof(devname), "%u,%u", maj, min);
		}
		dev = ff_device(cx, devname, maj, min);
		if (dev < 0)
			return dev;
		rec->dev = (uint32_t)dev;
		rb->last_dev = io.dev;
		rb->last_dev_idx = dev;
	}
	if (rb->have_comm && !strcmp(comm, rb->last_comm)) {
		rec->comm_id = rb->last_comm_id;
	} else {
		size_t len = strlen(comm);

		if ((rc = ff_intern(cx, comm, len, &rec->comm_id)))
			return rc;
		rb->have_comm = len < sizeof(rb->last_comm);
		if (rb->have_comm) {
			memcpy(rb->last_comm, comm, len + 1);
			rb->last_comm_id = rec->comm_id;
		}
	}
	rec->queue_ns = io.queue_ns;
	rec->issue_ns = io.issue_ns;
	rec->complete_ns = io.complete_ns;
	rec->completion = io.completed ? BPT_COMPLETION_SEEN : io.unseen;
	rec->sector = io.sector;
	rec->bytes = io.bytes;
	rec->pid = io.pid;
	rec->cgroup_id = io.cgroup;
	rec->error = io.error;
	rec->op = op;
	rec->flags = flags;
	return 1;
}

const struct ff_reader_ops ff_read_blktrace = {
	.name = "blktrace",
	.summary = "blktrace binary (blktrace -o, ftrace blk tracer), v0x07 and v0x08",
	.flags = FF_OWN_FILES | FF_BINARY,
	.detect = detect,
	.open = rb_open,
	.next = rb_next,
	.close = rb_close,
};
