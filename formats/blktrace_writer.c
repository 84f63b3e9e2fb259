/*
 * blktrace_writer.c — .bpt records to blktrace files (blktrace_writer.h).
 *
 * A record waiting for its events to be written is a slot; the heap
 * holds each slot once, keyed by the time of its next event (note, Q, D,
 * C in that order) and an arrival number that keeps ties in the order the
 * events were pushed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "blktrace_format.h"
#include "blktrace_pair.h"
#include "blktrace_writer.h"
#include "heap.h"
#include "outfile.h"

enum { K_NOTE, K_Q, K_D, K_C, K_DONE };

/* A not-seen completion is written as a MESSAGE note at the D's time
 * (kind K_C with unseen set): blktrace_writer.h. */

struct btw_file {
	struct outfile o;
	char *path;
	uint32_t kdev;
	uint32_t seq;
};

struct btw_slot {
	uint64_t t[4];       /* note, Q, D, C */
	uint64_t sector, cgroup;
	uint32_t bytes, pid, cat, next_free;
	uint16_t error, dev;
	uint64_t bound;      /* unseen: complete_ns on the file's clock */
	uint8_t kind, last;  /* next kind to write, last kind to write */
	uint8_t unseen;      /* 0 seen, else the enum bpt_completion value */
	char comm[17];
};

struct btw_node {
	uint64_t time, seq;
	uint32_t slot;
};

/* (pid, name hash) pairs already announced by a PROCESS note. */
#define SEEN_SLOTS (1u << 16)

struct btw {
	struct btw_file *f;
	unsigned nf;
	struct btw_slot *slot;
	uint32_t cap, free_head, held;
	struct btw_node *heap;
	uint32_t hn;
	uint64_t seq, t0, last_out, max_issue;
	uint64_t slack;      /* BTW_SLACK_NS, or the input's lag */
	uint64_t *seen;      /* pid << 32 | name hash, 0 = empty */
	uint32_t nseen;
	const char *dir;
	char **inputs;       /* expand_inputs() */
	unsigned options;    /* BTW_OPT_* */
	/* more devices than open files allowed: every event goes here first,
	 * as (u32 device index, u32 length, bytes), and btw_close writes the
	 * files in batches that fit, one pass over the spool each */
	FILE *spool;
};

/* A spool record's payload is at most one event: header + a note. */
#define SPOOL_MAX (BT_HDR_SIZE_1 + BTW_UNSEEN_MAX + 16)

void btw_file_name(const char *dev, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "%s", dev[0] ? dev : "dev");
	for (i = 0; buf[i]; i++)
		if (buf[i] == '/' || (unsigned char)buf[i] < 0x20)
			buf[i] = '_';
	if (!strcmp(buf, ".") || !strcmp(buf, ".."))
		buf[0] = '_';
}

static int make_dir(const char *dir, struct bpt_error *err)
{
	struct stat st;

	if (mkdir(dir, 0777) == 0)
		return 0;
	if (errno != EEXIST)
		return bpt_error_set(err, -errno, "%s: cannot create the directory: %s", dir,
				     strerror(errno));
	if (stat(dir, &st) < 0)
		return bpt_error_set(err, -errno, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return bpt_error_set(err, -ENOTDIR, "%s: not a directory; blktrace output is a "
				     "directory of DEV.blktrace.0 files", dir);
	return 0;
}

/* Descriptors open now (/proc/self/fd), or 64 when it cannot be read. */
static unsigned fds_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	if (!d)
		return 64;
	while (readdir(d))
		n++;
	closedir(d);
	return n; /* ".", ".." and the directory's own: a small margin */
}

/*
 * Every file is written at once, each holding two descriptors (the new
 * file and its lock, common/outfile.h): make room for nf files under
 * RLIMIT_NOFILE, raising the soft limit up to the hard one when needed,
 * or refuse before anything is created.
 */
static int fd_room(const char *dir, unsigned nf, struct bpt_error *err)
{
	/* (the spool of a batched export: the caller asks for 1 file) */
	rlim_t need = (rlim_t)nf * 2 + fds_open() + 16;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) {
		rl.rlim_cur = need;
		if (!setrlimit(RLIMIT_NOFILE, &rl))
			return 0;
	}
	return bpt_error_set(err, -EMFILE, "%s: writing %u file%s at once needs %llu open files; "
			     "the limit is %llu (ulimit -n, hard limit %llu): raise it", dir, nf,
			     nf == 1 ? "" : "s", (unsigned long long)need,
			     (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
}

/* An unnamed temporary file in dir (O_TMPFILE), else one made and
 * unlinked at once: the spool never outlives the writer. */
static FILE *spool_open(const char *dir)
{
	char *path = NULL;
	FILE *f;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0) {
		if (asprintf(&path, "%s/.blkpeak-spool.XXXXXX", dir) < 0)
			return NULL;
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
		free(path);
		if (fd < 0)
			return NULL;
	}
	if (!(f = fdopen(fd, "w+")))
		close(fd);
	return f;
}

static void free_strv(char **v);

static void free_all(struct btw *w, int failed)
{
	for (unsigned i = 0; i < w->nf; i++) {
		if (w->f[i].path)
			outfile_close(&w->f[i].o, failed ? -ECANCELED : 0);
		free(w->f[i].path);
	}
	if (w->spool)
		fclose(w->spool);
	free(w->f);
	free(w->slot);
	free(w->heap);
	free(w->seen);
	free_strv(w->inputs);
	free(w);
}

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Append a copy of p to the NULL-terminated *v (*n entries). */
static int strv_add(char ***v, size_t *n, const char *p)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (!(nv[*n] = strdup(p)))
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

/*
 * The inputs and, for an input that is no file (a blktrace prefix), the
 * files PREFIX.blktrace.N in its directory: the output may be none of
 * them. NULL-terminated and malloc'd; NULL on ENOMEM.
 */
static char **expand_inputs(const char *const *inputs)
{
	char **v = calloc(1, sizeof(*v));
	size_t n = 0;

	for (const char *const *in = inputs; v && in && *in; in++) {
		const char *slash = strrchr(*in, '/'), *base = slash ? slash + 1 : *in;
		char dir[4096], p[4096];
		struct dirent *e;
		struct stat st;
		DIR *d;

		if (strv_add(&v, &n, *in))
			goto fail;
		if (stat(*in, &st) == 0 || !base[0])
			continue;
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - *in) + 1 : 2, slash ? *in : "./");
		if (!(d = opendir(dir)))
			continue;
		while ((e = readdir(d))) {
			size_t bl = strlen(base);
			const char *t = e->d_name + bl;

			if (strncmp(e->d_name, base, bl) || strncmp(t, ".blktrace.", 10) ||
			    t[10] < '0' || t[10] > '9' || strspn(t + 10, "0123456789") != strlen(t + 10))
				continue;
			if ((size_t)snprintf(p, sizeof(p), "%s%s", dir, e->d_name) >= sizeof(p))
				continue;
			if (strv_add(&v, &n, p)) {
				closedir(d);
				goto fail;
			}
		}
		closedir(d);
	}
	return v;
fail:
	free_strv(v);
	return NULL;
}

/*
 * Is path DIR/NAME.blktrace.N? Returns N (as far as it is digits), or -1
 * when path has no such ending.
 */
static long cpu_suffix(const char *path)
{
	static const char tag[] = ".blktrace.";
	size_t len = strlen(path), d = len;

	while (d > 0 && path[d - 1] >= '0' && path[d - 1] <= '9')
		d--;
	if (d == len || len - d > 9 || d <= sizeof(tag) - 1 ||
	    memcmp(path + d - (sizeof(tag) - 1), tag, sizeof(tag) - 1) ||
	    path[d - sizeof(tag)] == '/')
		return -1;
	return strtol(path + d, NULL, 10);
}

static int put(struct btw *w, struct btw_file *f, const void *p, size_t len,
	       struct bpt_error *err);

int btw_open(struct btw **out, const char *dir, const struct bpt_header *hdr,
	     const char *const *inputs, unsigned options, struct bpt_error *err)
{
	char **all_inputs = expand_inputs(inputs);
	struct outfile_opts oo = { .what = "a blktrace file", .inputs = (const char *const *)all_inputs };
	struct btw *w = calloc(1, sizeof(*w));
	unsigned n = hdr->ndevices ? hdr->ndevices : 1;
	long cpu = cpu_suffix(dir);
	int rc;

	*out = NULL;
	if (cpu > 0 || (cpu == 0 && n > 1)) {
		free(w);
		free_strv(all_inputs);
		if (cpu > 0)
			return bpt_error_set(err, -EINVAL, "%s: a trace without CPUs is written as "
					     "CPU 0: give NAME.blktrace.0, or a directory", dir);
		return bpt_error_set(err, -EINVAL, "%s: the trace has %u devices, one file each: "
				     "give a directory (-o DIR, DIR/DEV.blktrace.0 per device)",
				     dir, n);
	}
	if (!w || !all_inputs) {
		free(w);
		free_strv(all_inputs);
		return bpt_error_set(err, -ENOMEM, "%s: out of memory", dir);
	}
	w->dir = dir;
	w->inputs = all_inputs;
	w->options = options;
	w->slack = BTW_SLACK_NS;
	/* A reader takes time 0 for "no time": an origin of 1 s when the
	 * trace has none (imports start at 0). */
	w->t0 = hdr->start_mono_ns ? hdr->start_mono_ns : 1000000000ull;
	w->free_head = UINT32_MAX;
	w->f = calloc(n, sizeof(*w->f));
	w->seen = calloc(SEEN_SLOTS, sizeof(*w->seen));
	if (!w->f || !w->seen) {
		free_all(w, 1);
		return bpt_error_set(err, -ENOMEM, "%s: out of memory", dir);
	}
	int batched = 0;

	if (n > 1 && fd_room(dir, n, err)) {
		/* not all at once: the spool and a batch of at least one file */
		if ((rc = fd_room(dir, 2, err))) {
			free_all(w, 1);
			return rc;
		}
		batched = 1;
	}
	if (cpu < 0 && (rc = make_dir(dir, err))) {
		free_all(w, 1);
		return rc;
	}
	if (batched && !(w->spool = spool_open(dir))) {
		rc = bpt_error_set(err, -errno ? -errno : -EIO, "%s: cannot create a temporary file: %s",
				   dir, strerror(errno ? errno : EIO));
		free_all(w, 1);
		return rc;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct bpt_device *d = hdr->ndevices ? &hdr->devices[i] : NULL;
		char name[64];
		size_t len;

		btw_file_name(d ? d->name : "", name, sizeof(name));
		/* Two devices of one name get distinct files. */
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(d->name, hdr->devices[j].name)) {
				len = strlen(name);
				snprintf(name + len, sizeof(name) - len, "_%u", i);
				break;
			}
		len = strlen(dir) + strlen(name) + 16;
		if (!(w->f[i].path = malloc(len))) {
			free_all(w, 1);
			return bpt_error_set(err, -ENOMEM, "%s: out of memory", dir);
		}
		if (cpu == 0) /* NAME.blktrace.0: that file */
			snprintf(w->f[i].path, len, "%s", dir);
		else
			snprintf(w->f[i].path, len, "%s/%s.blktrace.0", dir, name);
		w->f[i].kdev = d ? bt_dev_make(d->major, d->minor) : 0;
		/* batched: the files are opened at the end, checked now */
		if (batched ? (rc = outfile_check(w->f[i].path, oo.what, oo.inputs, err))
			    : (rc = outfile_open(&w->f[i].o, w->f[i].path, &oo))) {
			if (!batched)
				*err = w->f[i].o.err;
			free(w->f[i].path);
			w->f[i].path = NULL;
			free_all(w, 1);
			return rc;
		}
		w->nf = i + 1;
	}
	/* The wall clock at the start, as blktrace notes it. */
	if (hdr->start_wall_ns > 0) {
		for (unsigned i = 0; i < w->nf; i++) {
			uint8_t rec[BT_HDR_SIZE_1 + 8];
			uint32_t ts[2] = { (uint32_t)(hdr->start_wall_ns / 1000000000),
					   (uint32_t)(hdr->start_wall_ns % 1000000000) };

			bt_encode_v1(rec, 0, w->t0, 0, 0, BT_TN_TIMESTAMP | (uint32_t)BT_TC_NOTIFY << BT_TC_SHIFT,
				     0, w->f[i].kdev, 0, 0, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
			ts[0] = __builtin_bswap32(ts[0]);
			ts[1] = __builtin_bswap32(ts[1]);
#endif
			memcpy(rec + BT_HDR_SIZE_1, ts, 8);
			if ((rc = put(w, &w->f[i], rec, sizeof(rec), err))) {
				free_all(w, 1);
				return rc;
			}
		}
	}
	*out = w;
	return 0;
}

/* --------------------------------------------------------------- heap */

static inline int before(const void *ctx, const struct btw_node *a, const struct btw_node *b)
{
	(void)ctx;
	return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

HEAP_DEFINE(nodes, struct btw_node, before)

static void heap_push(struct btw *w, uint32_t slot)
{
	struct btw_slot *s = &w->slot[slot];

	nodes_push(w->heap, w->hn++, (struct btw_node){ s->t[s->kind], w->seq++, slot }, NULL);
}

static struct btw_node heap_pop(struct btw *w)
{
	return nodes_pop(w->heap, w->hn--, NULL);
}

/* ---------------------------------------------------------- emitting */

static int put(struct btw *w, struct btw_file *f, const void *p, size_t len,
	       struct bpt_error *err)
{
	if (w->spool) {
		uint32_t h[2] = { (uint32_t)(f - w->f), (uint32_t)len };

		if (fwrite(h, sizeof(h), 1, w->spool) == 1 && fwrite(p, len, 1, w->spool) == 1)
			return 0;
		return bpt_error_set(err, -errno ? -errno : -EIO, "%s: cannot write the temporary "
				     "file: %s", w->dir, strerror(errno ? errno : EIO));
	}
	if (fwrite(p, len, 1, f->o.f) != 1)
		return bpt_error_set(err, -errno ? -errno : -EIO, "%s: write failed: %s", f->path,
				     strerror(errno ? errno : EIO));
	return 0;
}

/*
 * The spool into the files, in batches of as many files as the open-file
 * limit leaves room for (two descriptors each): open the batch, pass over
 * the spool once copying its events, place the batch. On a failure the
 * files placed already are removed: the export is whole or absent.
 */
static int spool_place(struct btw *w, const char *const *inputs, struct bpt_error *err)
{
	struct outfile_opts oo = { .what = "a blktrace file", .inputs = inputs };
	uint8_t buf[SPOOL_MAX];
	unsigned k = 1, done = 0;
	struct rlimit rl;
	int rc = 0;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur > (rlim_t)fds_open() + 16)
		k = (unsigned)((rl.rlim_cur - fds_open() - 16) / 2);
	if (k < 1)
		k = 1;
	if (fflush(w->spool))
		return bpt_error_set(err, -errno, "%s: cannot write the temporary file: %s", w->dir,
				     strerror(errno));
	for (unsigned b = 0; b < w->nf && !rc; b += k) {
		unsigned e = w->nf - b < k ? w->nf : b + k, opened = b;
		uint32_t h[2];

		for (; opened < e; opened++)
			if ((rc = outfile_open(&w->f[opened].o, w->f[opened].path, &oo))) {
				*err = w->f[opened].o.err;
				break;
			}
		rewind(w->spool);
		while (!rc && fread(h, sizeof(h), 1, w->spool) == 1) {
			if (h[0] >= w->nf || h[1] > sizeof(buf) || fread(buf, h[1], 1, w->spool) != 1) {
				rc = bpt_error_set(err, -EIO, "%s: the temporary file reads back "
						   "wrong", w->dir);
				break;
			}
			if (h[0] >= b && h[0] < e &&
			    fwrite(buf, h[1], 1, w->f[h[0]].o.f) != 1)
				rc = bpt_error_set(err, -errno ? -errno : -EIO, "%s: write failed: %s",
						   w->f[h[0]].path, strerror(errno ? errno : EIO));
		}
		if (!rc && ferror(w->spool))
			rc = bpt_error_set(err, -EIO, "%s: cannot read the temporary file", w->dir);
		for (unsigned i = b; i < opened; i++) {
			int r = outfile_close(&w->f[i].o, rc ? -ECANCELED : 0);

			if (r && !rc) {
				*err = w->f[i].o.err;
				rc = r;
			}
		}
		if (!rc)
			done = e;
	}
	if (rc) /* no part of an export: remove the batches placed */
		for (unsigned i = 0; i < done; i++)
			unlink(w->f[i].path);
	return rc;
}

static int write_event(struct btw *w, struct btw_slot *s, struct bpt_error *err)
{
	struct btw_file *f = &w->f[s->dev];
	uint8_t rec[BT_HDR_SIZE_1 + 16];
	uint32_t action, bytes = s->bytes;
	uint16_t error = 0, pdu = 0;
	uint64_t time = s->t[s->kind];
	uint32_t seq = 0;
	int rc;

	switch (s->kind) {
	case K_NOTE: {
		size_t len = strlen(s->comm);

		/* The kernel writes the whole comm array (16 bytes). */
		bt_encode_v1(rec, 0, time, 0, 0, BT_TN_PROCESS | (uint32_t)BT_TC_NOTIFY << BT_TC_SHIFT,
			     s->pid, f->kdev, 0, 0, 16);
		memset(rec + BT_HDR_SIZE_1, 0, 16);
		memcpy(rec + BT_HDR_SIZE_1, s->comm, len > 16 ? 16 : len);
		return put(w, f, rec, BT_HDR_SIZE_1 + 16, err);
	}
	case K_Q:
		action = BT_TA_QUEUE | (s->cat | BT_TC_QUEUE) << BT_TC_SHIFT;
		break;
	case K_D:
		action = BT_TA_ISSUE | (s->cat | BT_TC_ISSUE | BT_TC_FS) << BT_TC_SHIFT;
		break;
	default:
		if (s->unseen) {
			char msg[BTW_UNSEEN_MAX];
			int len = btw_unseen_text(msg, sizeof(msg), s->unseen, s->bound);

			/* The note names the request by its header (device,
			 * sector, bytes, pid), as its D does. */
			bt_encode_v1(rec, 0, time, s->sector, bytes,
				     BT_TN_MESSAGE | (uint32_t)BT_TC_NOTIFY << BT_TC_SHIFT,
				     s->pid, f->kdev, 0, 0, (uint16_t)len);
			if ((rc = put(w, f, rec, BT_HDR_SIZE_1, err)) ||
			    (rc = put(w, f, msg, (size_t)len, err)))
				return rc;
			/* and a C at the same time, so that blkparse, btt and
			 * iowatcher see the request end (latency 0) instead of
			 * pairing a later C with it */
		}
		action = BT_TA_COMPLETE | (s->cat | BT_TC_COMPLETE | BT_TC_FS) << BT_TC_SHIFT;
		error = s->error;
		break;
	}
	if (s->cgroup && (w->options & BTW_OPT_CGROUP)) {
		uint64_t cg = s->cgroup;

		action |= BT_TA_CGROUP;
		pdu = 8;
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
		cg = __builtin_bswap64(cg);
#endif
		memcpy(rec + BT_HDR_SIZE_1, &cg, 8);
	}
	seq = ++f->seq;
	bt_encode_v1(rec, seq, time, s->sector, bytes, action, s->pid, f->kdev, 0, error, pdu);
	return put(w, f, rec, BT_HDR_SIZE_1 + pdu, err);
}

/* Write the earliest event held; requeue its record for its next one. */
static int emit_one(struct btw *w, struct bpt_error *err)
{
	struct btw_node nd = heap_pop(w);
	struct btw_slot *s = &w->slot[nd.slot];
	int rc;

	if (nd.time < w->last_out)
		return bpt_error_set(err, -ERANGE, "%s: an event at %" PRIu64 " ns comes after "
				     "events at %" PRIu64 " ns were written: a record queued more than "
				     "%llu ms before its issue, or records not in issue order",
				     w->dir, nd.time - w->t0, w->last_out - w->t0,
				     (unsigned long long)(w->slack / 1000000));
	w->last_out = nd.time;
	if ((rc = write_event(w, s, err)))
		return rc;
	if (s->kind < s->last) {
		s->kind++;
		heap_push(w, nd.slot);
	} else {
		s->next_free = w->free_head;
		w->free_head = nd.slot;
		w->held--;
	}
	return 0;
}

/* Was (pid, comm) announced? Marks it. When the table is full, every
 * later name is announced again (correct, only longer). */
static int seen_before(struct btw *w, uint32_t pid, const char *comm)
{
	uint32_t h = 2166136261u;
	uint64_t key;
	uint32_t i;

	for (const char *c = comm; *c; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	key = (uint64_t)pid << 32 | (h ? h : 1);
	i = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 48) & (SEEN_SLOTS - 1);
	while (w->seen[i] && w->seen[i] != key)
		i = (i + 1) & (SEEN_SLOTS - 1);
	if (w->seen[i])
		return 1;
	if (w->nseen >= SEEN_SLOTS / 2)
		return 0;
	w->seen[i] = key;
	w->nseen++;
	return 0;
}

void btw_set_lag(struct btw *w, uint64_t lag_ns)
{
	w->slack = lag_ns >= BTW_SLACK_NS ? lag_ns + 1000 : BTW_SLACK_NS;
}

int btw_add(struct btw *w, const struct bpt_record *rec, const char *comm,
	    struct bpt_error *err)
{
	struct btw_slot *s;
	uint64_t q, issue = w->t0 + rec->issue_ns;
	uint32_t i;
	int rc;

	if (rec->dev >= w->nf)
		return bpt_error_set(err, -EINVAL, "%s: record of device %u, the trace has %u",
				     w->dir, rec->dev, w->nf);
	if (w->free_head == UINT32_MAX) {
		uint32_t ncap = w->cap ? w->cap * 2 : 1024;
		struct btw_slot *ns;
		struct btw_node *nh;

		if (w->cap >= BTW_MAX_HELD) {
			/* Full: write the earliest events until a record is done. */
			while (w->free_head == UINT32_MAX)
				if ((rc = emit_one(w, err)))
					return rc;
		} else {
			ns = realloc(w->slot, ncap * sizeof(*ns));
			if (!ns)
				return bpt_error_set(err, -ENOMEM, "%s: out of memory", w->dir);
			w->slot = ns;
			nh = realloc(w->heap, ncap * sizeof(*nh));
			if (!nh)
				return bpt_error_set(err, -ENOMEM, "%s: out of memory", w->dir);
			w->heap = nh;
			for (uint32_t j = ncap; j-- > w->cap;) {
				w->slot[j].next_free = w->free_head;
				w->free_head = j;
			}
			w->cap = ncap;
		}
	}
	i = w->free_head;
	s = &w->slot[i];
	w->free_head = s->next_free;
	w->held++;
	memset(s, 0, sizeof(*s));
	q = rec->queue_ns && rec->queue_ns <= rec->issue_ns ? w->t0 + rec->queue_ns : issue;
	s->t[K_NOTE] = q;
	s->t[K_Q] = q;
	s->t[K_D] = issue;
	s->t[K_C] = w->t0 + (rec->complete_ns > rec->issue_ns ? rec->complete_ns : rec->issue_ns);
	s->sector = rec->sector;
	s->cgroup = rec->cgroup_id;
	s->bytes = rec->bytes;
	s->pid = rec->pid;
	s->cat = bt_op_to_cat(rec->op, rec->flags);
	s->error = (uint16_t)(int16_t)rec->error;
	s->dev = rec->dev;
	s->kind = comm && comm[0] && !seen_before(w, rec->pid, comm) ? K_NOTE : K_Q;
	s->last = K_C;
	if (rec->completion != BPT_COMPLETION_SEEN) {
		/* The note right after the D, at its time. */
		s->unseen = rec->completion;
		s->bound = w->t0 + rec->complete_ns;
		s->t[K_C] = issue;
	}
	snprintf(s->comm, sizeof(s->comm), "%s", comm ? comm : "");
	heap_push(w, i);
	if (issue > w->max_issue)
		w->max_issue = issue;
	/* Nothing later can come before max_issue - slack. */
	while (w->hn && w->heap[0].time + w->slack < w->max_issue)
		if ((rc = emit_one(w, err)))
			return rc;
	return 0;
}

int btw_close(struct btw *w, int failed, struct bpt_error *err)
{
	int rc = 0;

	if (!w)
		return 0;
	while (!failed && !rc && w->hn)
		rc = emit_one(w, err);
	if (w->spool && !failed && !rc)
		rc = spool_place(w, (const char *const *)w->inputs, err);
	for (unsigned i = 0; i < w->nf; i++) {
		int r = outfile_close(&w->f[i].o, failed || rc ? -ECANCELED : 0);

		if (r && !rc && !failed) {
			*err = w->f[i].o.err;
			rc = r;
		}
		free(w->f[i].path);
		w->f[i].path = NULL;
	}
	free_all(w, 1);
	return failed ? 0 : rc;
}

int btw_unseen_text(char *buf, size_t len, unsigned completion, uint64_t bound)
{
	int n = snprintf(buf, len, "%s%s %" PRIu64, BTW_UNSEEN_TAG,
			 completion == BPT_COMPLETION_REUSED ? "reused" : "pending", bound);

	return n < 0 || (size_t)n >= len ? (int)len - 1 : n;
}

int btw_unseen_parse(const uint8_t *pdu, size_t len, uint8_t *completion, uint64_t *bound)
{
	size_t tl = sizeof(BTW_UNSEEN_TAG) - 1, i;
	char buf[BTW_UNSEEN_MAX];
	uint64_t v = 0;

	/* The kernel's messages end in a NUL or not: either. */
	while (len && pdu[len - 1] == 0)
		len--;
	if (len <= tl || len >= sizeof(buf) || memcmp(pdu, BTW_UNSEEN_TAG, tl))
		return 0;
	memcpy(buf, pdu, len);
	buf[len] = 0;
	if (!strncmp(buf + tl, "reused ", 7))
		*completion = BPT_COMPLETION_REUSED;
	else if (!strncmp(buf + tl, "pending ", 8))
		*completion = BPT_COMPLETION_PENDING;
	else
		return 0;
	i = tl + (*completion == BPT_COMPLETION_REUSED ? 7 : 8);
	if (!buf[i])
		return 0;
	for (; buf[i]; i++) {
		if (buf[i] < '0' || buf[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(buf[i] - '0');
	}
	*bound = v;
	return 1;
}
