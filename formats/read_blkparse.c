/*
 * read_blkparse.c — the default text output of blkparse(1) (blktrace's
 * "blkparse -i DEV", format "%D %2c %8s %5T.%9t %5p %2a %3d " then the
 * action's fields; blkparse(1), "DEFAULT OUTPUT"):
 *
 *   8,0    3     11   0.009507758   697  Q  WS 3417048 + 8 [kworker/3:1H]
 *   DEV   CPU   SEQ   SECONDS       PID  ACT RWBS SECTOR + SECTORS [COMM]
 *
 *   SECONDS  from the start of the trace, with ns
 *   SECTOR   512-byte sectors, whole-disk as recorded; SECTORS the length
 *   RWBS     the kernel's letters (ff_rwbs)
 *   C lines end in [ERROR] instead of [COMM]
 *
 * One I/O per request: Q gives its queue time, pid and process, D its
 * issue time, C its completion and error; they are paired by device and
 * sector. A front merge (F) moves the request to the merged bio's sector;
 * a back merge (M) ends the bio's own entry. A C without D (the trace
 * began while it was in flight) gets issue = queue = completion. Other
 * actions (G, I, P, U, A, X, m messages...), '#' lines and the per-CPU
 * and total summaries that end the output are skipped. Requests complete
 * out of order: the reorder window sorts them by issue time.
 *
 * Bounded memory (schemas/foreign-formats.md): the requests held wait in
 * an age queue, in the order of their latest Q, D or F event. A request
 * leaves the table once `limit` requests (the reorder window) were
 * issued after its event, or when the queue holds 2 * limit events: a
 * request issued (D) but not completed is then emitted as pending
 * (completion unknown). Fewer than `limit` records issued after it can
 * have been emitted before it (each is a request issued after it), so
 * the window still puts it in order. It stays as a tombstone for another
 * `limit` issues, so that its late C is counted
 * (note.blkparse_late_completions), not emitted twice; a request queued
 * but never issued is forgotten. At the end the requests still issued
 * are emitted as pending in the order of their D (time order).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foreign.h"

#define NF_MAX 16
#define T_ORIGIN 1000000000ull /* this reader's clock: 1 s + blkparse's time */
#define NO_SECTOR UINT64_MAX /* Q/D/C of a request without data (a flush) */

struct inflight {
	uint64_t sector;
	uint32_t gen;   /* of its latest age-queue entry */
	uint32_t dev;
	uint8_t used;   /* 0 empty, 1 in use, 2 deleted */
	/* from here on cleared by a new Q */
	uint64_t queue_ns, issue_ns;
	uint32_t pid, comm_id;
	uint8_t have_q, have_d, op, flags;
	uint8_t emitted; /* given out as pending: a tombstone for its late C */
	uint32_t bytes;
};

/* An age-queue entry: which request, and the event that put it there
 * (a stale one, whose request had a later event or left, is skipped). */
struct aged {
	uint64_t sector;
	uint64_t issued;   /* requests issued (D) when it was pushed */
	uint32_t gen;
	uint32_t dev;
};

struct blkparse {
	struct inflight *tab;
	size_t cap, used, dead;
	int summary;       /* the summaries began: the rest is skipped */
	uint64_t last_ns;  /* latest time seen (pending requests end there) */
	int draining;
	struct aged *age;  /* ring of age_cap (a power of two), grown up to
			    * more than 2 * limit */
	size_t age_cap, age_head, age_len;
	uint32_t gen;      /* events pushed so far */
	uint64_t issued;   /* D events so far */
	uint32_t limit;    /* later issues a request may wait: the window */
	uint64_t late;     /* C of requests emitted as pending */
};

static size_t slot_of(const struct blkparse *b, uint32_t dev, uint64_t sector)
{
	uint64_t h = (sector ^ ((uint64_t)dev << 48)) * 0x9e3779b97f4a7c15ull;

	/* the product's top bits: the low ones of sector * odd repeat the
	 * sectors' own pattern (sequential I/O, 8-sector steps) */
	return (size_t)(h >> (64 - __builtin_ctzll(b->cap)));
}

static struct inflight *find(struct blkparse *b, uint32_t dev, uint64_t sector)
{
	if (!b->cap)
		return NULL;
	for (size_t i = slot_of(b, dev, sector);; i = (i + 1) & (b->cap - 1)) {
		struct inflight *e = &b->tab[i];

		if (!e->used)
			return NULL;
		if (e->used == 1 && e->dev == dev && e->sector == sector)
			return e;
	}
}

static int grow(struct blkparse *b)
{
	size_t cap = b->cap ? (b->used * 4 > b->cap ? b->cap * 2 : b->cap) : 1024;
	struct inflight *old = b->tab, *t = calloc(cap, sizeof(*t));
	size_t ocap = b->cap;

	if (!t)
		return -ENOMEM;
	b->tab = t;
	b->cap = cap;
	b->used = b->dead = 0;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].used == 1) {
			size_t j = slot_of(b, old[i].dev, old[i].sector);

			while (t[j].used)
				j = (j + 1) & (cap - 1);
			t[j] = old[i];
			b->used++;
		}
	free(old);
	return 0;
}

/* The entry of (dev, sector), made empty when new. */
static struct inflight *get(struct blkparse *b, uint32_t dev, uint64_t sector)
{
	struct inflight *e = find(b, dev, sector);

	if (e)
		return e;
	if ((b->used + b->dead + 1) * 2 > b->cap && grow(b))
		return NULL;
	size_t i = slot_of(b, dev, sector);

	while (b->tab[i].used == 1)
		i = (i + 1) & (b->cap - 1);
	if (b->tab[i].used == 2)
		b->dead--;
	e = &b->tab[i];
	memset(e, 0, sizeof(*e));
	e->used = 1;
	e->dev = dev;
	e->sector = sector;
	b->used++;
	return e;
}

static void drop(struct blkparse *b, struct inflight *e)
{
	e->used = 2;
	b->used--;
	b->dead++;
}

/* "8,0 cpu seq secs pid act": the leading fields of an event line. */
static int event_shape(const struct ff_field *f, size_t n)
{
	const char *comma;
	uint64_t v;

	if (n < 6)
		return 0;
	comma = memchr(f[0].p, ',', f[0].len);
	if (!comma)
		return 0;
	struct ff_field maj = { f[0].p, (size_t)(comma - f[0].p) };
	struct ff_field min = { comma + 1, f[0].len - maj.len - 1 };

	return !ff_u64(&maj, &v) && !ff_u64(&min, &v) && !ff_u64(&f[1], &v) &&
	       !ff_u64(&f[2], &v) && memchr(f[3].p, '.', f[3].len) &&
	       !ff_decimal_scaled(&f[3], 1000000000ull, &v) && !ff_u64(&f[4], &v) &&
	       f[5].len >= 1 && f[5].len <= 2;
}

static int detect(const char *path, const char *head, size_t len)
{
	char line[512];
	struct ff_field f[NF_MAX];

	(void)path;
	if (ff_head_line(head, len, 0, line, sizeof(line)) < 0)
		return 0;
	return event_shape(f, ff_split(line, strlen(line), ' ', f, NF_MAX)) ? 85 : 0;
}

static int open_bp(struct ff_ctx *cx, void **state)
{
	struct blkparse *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->limit = ff_ctx_window(cx);
	b->age_cap = 1024;
	if (!(b->age = malloc(b->age_cap * sizeof(*b->age)))) {
		free(b);
		return -ENOMEM;
	}
	*state = b;
	return 0;
}

static void close_bp(void *state)
{
	struct blkparse *b = state;

	if (b) {
		free(b->tab);
		free(b->age);
	}
	free(b);
}

/* e had an event: it goes to the back of the age queue (age_out() leaves
 * at most 2 * limit entries, and a line pushes one). 0 or -ENOMEM. */
static int age_push(struct blkparse *b, struct inflight *e)
{
	if (b->age_len == b->age_cap) { /* double, the ring unrolled */
		struct aged *p = malloc(2 * b->age_cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		for (size_t i = 0; i < b->age_len; i++)
			p[i] = b->age[(b->age_head + i) & (b->age_cap - 1)];
		free(b->age);
		b->age = p;
		b->age_head = 0;
		b->age_cap *= 2;
	}
	struct aged *a = &b->age[(b->age_head + b->age_len) & (b->age_cap - 1)];

	e->gen = ++b->gen;
	*a = (struct aged){ .sector = e->sector, .issued = b->issued, .gen = e->gen, .dev = e->dev };
	b->age_len++;
	return 0;
}

/* The request of the front entry, or NULL when the entry is stale; the
 * entry is taken off either way. */
static struct inflight *age_pop(struct blkparse *b)
{
	struct aged a = b->age[b->age_head];
	struct inflight *e;

	b->age_head = (b->age_head + 1) & (b->age_cap - 1);
	b->age_len--;
	e = find(b, a.dev, a.sector);
	return e && e->gen == a.gen ? e : NULL;
}

/* The issued request e as a pending record (completion unknown). */
static void pending_record(const struct blkparse *b, const struct inflight *e,
			   struct bpt_record *rec)
{
	rec->dev = e->dev;
	rec->sector = e->sector == NO_SECTOR ? 0 : e->sector;
	rec->bytes = e->bytes;
	rec->op = e->op;
	rec->flags = e->flags;
	rec->pid = e->pid;
	rec->comm_id = e->comm_id;
	rec->queue_ns = e->have_q ? e->queue_ns : 0;
	rec->issue_ns = e->issue_ns;
	rec->complete_ns = b->last_ns > e->issue_ns ? b->last_ns : e->issue_ns;
	rec->completion = BPT_COMPLETION_PENDING;
}

/*
 * Take off the front entries with `limit` issues after them, or beyond
 * 2 * limit entries (all of them when `all`): 1 with a record when one
 * was an issued request, else 0.
 */
static int age_out(struct blkparse *b, int all, struct bpt_record *rec)
{
	while (b->age_len && (all || b->issued - b->age[b->age_head].issued >= b->limit ||
			      b->age_len >= 2 * (size_t)b->limit)) {
		struct inflight *e = age_pop(b);

		if (!e)
			continue;
		if (e->have_d && !e->emitted) {
			pending_record(b, e, rec);
			if (all) {
				drop(b, e);
			} else {
				e->emitted = 1;
				if (age_push(b, e)) /* a tombstone for another `limit` */
					drop(b, e); /* no room: its late C reads as unpaired */
			}
			return 1;
		}
		drop(b, e); /* never issued, or a tombstone's time is up */
	}
	return 0;
}

/* The summaries: "CPU0 (8,0):", "Total (8,0):" and what follows. */
static int summary_start(const char *line)
{
	return (!strncmp(line, "CPU", 3) && line[3] >= '0' && line[3] <= '9') ||
	       !strncmp(line, "Total (", 7);
}

/* At the end: the requests issued but never completed, as pending, in
 * the order of their last event (time order). */
static int drain(struct ff_ctx *cx, struct blkparse *b, struct bpt_record *rec)
{
	if (age_out(b, 1, rec))
		return 1;
	if (b->late) {
		int rc = ff_note(cx, "blkparse_late_completions", b->late);

		b->late = 0;
		if (rc)
			return rc;
	}
	return 0;
}

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct blkparse *b = state;
	struct ff_field f[NF_MAX];
	char *line;
	size_t len, n;
	int rc;

	if (b->draining)
		return drain(cx, b, rec);
	for (;;) {
		if (age_out(b, 0, rec))
			return 1;
		if ((rc = ff_line(cx, &line, &len)) != 1)
			break;
		const char *field = "line", *why = "not a blkparse event line";
		uint64_t t, pid, sector = NO_SECTOR, nsect = 0, maj, min;
		uint8_t op, flags;
		size_t k;
		char act;
		int d;

		while (len && (*line == ' ' || *line == '\t'))
			line++, len--;
		if (!len || line[0] == '#' || b->summary)
			continue;
		if (summary_start(line)) {
			b->summary = 1;
			continue;
		}
		n = ff_split(line, len, ' ', f, NF_MAX);
		if (!event_shape(f, n))
			goto bad;
		sscanf(f[0].p, "%llu,%llu", (unsigned long long *)&maj, (unsigned long long *)&min);
		ff_decimal_scaled(&f[3], 1000000000ull, &t);
		t += T_ORIGIN; /* so that a queue time of 0 s is not "none" */
		ff_u64(&f[4], &pid);
		if (t > b->last_ns)
			b->last_ns = t;
		act = f[5].len == 1 ? f[5].p[0] : 0;
		if (act != 'Q' && act != 'D' && act != 'C' && act != 'M' && act != 'F')
			continue; /* G I P U A X S T m B R...: not needed for an I/O */
		if (n < 7)
			goto bad;
		/* RWBS SECTOR + SECTORS [COMM] | RWBS SECTOR [x] | RWBS [COMM] */
		k = 7;
		if (k < n && f[k].p[0] != '[' && f[k].p[0] != '(') {
			if (ff_u64(&f[k], &sector)) {
				field = "sector";
				why = "not a number";
				goto bad;
			}
			k++;
			if (!(k + 1 < n && f[k].len == 1 && f[k].p[0] == '+'))
				sector = NO_SECTOR; /* "C FWS 0 [0]": a request without data */
			else {
				if (ff_u64(&f[k + 1], &nsect) || nsect > UINT32_MAX / 512) {
					field = "sectors";
					why = "not a number of sectors below 4 GiB";
					goto bad;
				}
				k += 2;
			}
		}
		if (ff_rwbs(&f[6], nsect * 512, &op, &flags)) {
			field = "rwbs";
			why = "not the kernel's rwbs letters";
			goto bad;
		}
		char name[32];

		snprintf(name, sizeof(name), "%llu,%llu", (unsigned long long)maj,
			 (unsigned long long)min);
		if ((d = ff_device(cx, name, (uint32_t)maj, (uint32_t)min)) < 0)
			return d;
		if (d == FF_DEV_DROPPED) {
			if (act != 'C')
				continue;
			rec->dev = FF_DEV_DROPPED; /* counted by the source */
			return 1;
		}
		/* the bracketed rest: [COMM] (may hold spaces) or [ERROR], after
		 * any "(...)" fields (blkparse -t: elapsed times) */
		const char *br0 = NULL, *br1 = NULL;

		while (k < n && f[k].p[0] == '(') { /* "(  4100)" may be two fields */
			while (k < n && f[k].p[f[k].len - 1] != ')')
				k++;
			k++;
		}

		if (k < n && f[k].p[0] == '[') {
			br0 = f[k].p + 1;
			br1 = f[n - 1].p + f[n - 1].len;
			if (br1 > br0 && br1[-1] == ']')
				br1--;
		}
		struct inflight *e;

		switch (act) {
		case 'Q':
			if (!(e = get(b, (uint32_t)d, sector)))
				return ff_fail(cx, -ENOMEM, "out of memory");
			if (e->have_q && e->queue_ns <= t && !e->have_d)
				break; /* a second bio on the sector before issue */
			memset(&e->queue_ns, 0, sizeof(*e) - offsetof(struct inflight, queue_ns));
			if (age_push(b, e))
				return ff_fail(cx, -ENOMEM, "out of memory");
			e->have_q = 1;
			e->queue_ns = t;
			e->pid = (uint32_t)pid;
			if (br0 && (rc = ff_intern(cx, br0, (size_t)(br1 - br0), &e->comm_id)))
				return rc;
			break;
		case 'M': /* back merge: the bio joins a request elsewhere */
			if ((e = find(b, (uint32_t)d, sector)) && !e->have_d)
				drop(b, e);
			break;
		case 'F': { /* front merge: the request now starts at sector */
			struct inflight *req = find(b, (uint32_t)d, sector + nsect), *bio, keep;

			if (!req || req->have_d)
				break;
			keep = *req;
			drop(b, req);
			if (!(bio = get(b, (uint32_t)d, sector)))
				return ff_fail(cx, -ENOMEM, "out of memory");
			keep.sector = sector;
			*bio = keep;
			if (age_push(b, bio))
				return ff_fail(cx, -ENOMEM, "out of memory");
			break;
		}
		case 'D':
			if (!(e = get(b, (uint32_t)d, sector)))
				return ff_fail(cx, -ENOMEM, "out of memory");
			if (e->emitted) /* a new request on a tombstone's sector */
				memset(&e->queue_ns, 0, sizeof(*e) - offsetof(struct inflight, queue_ns));
			b->issued++;
			if (age_push(b, e))
				return ff_fail(cx, -ENOMEM, "out of memory");
			e->have_d = 1;
			e->issue_ns = t;
			e->op = op;
			e->flags = flags;
			e->bytes = (uint32_t)(nsect * 512);
			if (!e->have_q) {
				e->pid = (uint32_t)pid;
				if (br0 && (rc = ff_intern(cx, br0, (size_t)(br1 - br0), &e->comm_id)))
					return rc;
			}
			break;
		case 'C': {
			int64_t error = 0;

			if (br0) {
				struct ff_field ef = { br0, (size_t)(br1 - br0) };

				if (ff_i64(&ef, &error) || error > 0 || error < -4095) {
					field = "error";
					why = "not 0 or a negative errno";
					goto bad;
				}
			}
			e = find(b, (uint32_t)d, sector);
			if (e && e->emitted) { /* given out as pending already */
				drop(b, e);
				b->late++;
				continue;
			}
			rec->dev = (uint32_t)d;
			rec->sector = sector == NO_SECTOR ? 0 : sector;
			rec->bytes = (uint32_t)(nsect * 512);
			rec->op = op;
			rec->flags = flags;
			rec->error = (int32_t)error;
			rec->complete_ns = t;
			rec->completion = BPT_COMPLETION_SEEN;
			if (e) {
				rec->pid = e->pid;
				rec->comm_id = e->comm_id;
				rec->queue_ns = e->have_q ? e->queue_ns : 0;
				rec->issue_ns = e->have_d ? e->issue_ns : e->have_q ? e->queue_ns : t;
				if (rec->queue_ns > rec->issue_ns)
					rec->queue_ns = rec->issue_ns;
				if (rec->issue_ns > t)
					rec->issue_ns = t;
				drop(b, e);
			} else {
				rec->issue_ns = t;
			}
			return 1;
		}
		}
		continue;
bad:
		if ((rc = ff_bad(cx, field, "%s", why)))
			return rc;
	}
	if (rc < 0)
		return rc;
	b->draining = 1;
	return drain(cx, b, rec);
}

const struct ff_reader_ops ff_read_blkparse = {
	.name = "blkparse",
	.summary = "blkparse default text output: Q/D/C paired per request, s.ns, sectors",
	.detect = detect,
	.open = open_bp,
	.next = next,
	.close = close_bp,
};
