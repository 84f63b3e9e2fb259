/*
 * convert.c — one ring buffer event (struct capture_event) into one trace
 * record (struct bpt_record).
 *
 * This runs once per I/O at up to a few hundred thousand I/Os per second,
 * so it does no string work in the common case: the device index comes
 * from a tiny table (the last hit tried first), and the comm's string id
 * from a direct-mapped cache keyed by (pid, comm bytes); only a miss calls
 * the interner.
 */
#include <errno.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "capture.h"

void convert_init(struct convert *c, uint64_t start_ns, const struct req_bits *bits,
		  convert_intern_fn intern, void *intern_ctx)
{
	memset(c, 0, sizeof(*c));
	c->start_ns = start_ns;
	c->bits = *bits;
	c->intern = intern;
	c->intern_ctx = intern_ctx;
}

int convert_add_dev(struct convert *c, uint32_t kdev)
{
	if (c->ndev >= CAPTURE_MAX_DEVICES)
		return -E2BIG;
	c->kdev[c->ndev++] = kdev;
	return 0;
}

static int dev_index(struct convert *c, uint32_t kdev)
{
	if (c->last_dev < c->ndev && c->kdev[c->last_dev] == kdev)
		return c->last_dev;
	for (unsigned i = 0; i < c->ndev; i++) {
		if (c->kdev[i] == kdev) {
			c->last_dev = i;
			return i;
		}
	}
	return -ENODEV;
}

/* The string id of `comm` as submitted by `pid`, interned on a miss. */
static int comm_id(struct convert *c, uint32_t pid,
		   const uint8_t comm[CAPTURE_COMM_LEN], uint32_t *id)
{
	struct convert_comm *slot;
	uint64_t c0, c1, h;
	char s[CAPTURE_COMM_LEN + 1];
	int err;

	memcpy(&c0, comm, 8);
	memcpy(&c1, comm + 8, 8);
	h = (c0 ^ (c1 * 0x9e3779b97f4a7c15ull) ^ pid) * 0xff51afd7ed558ccdull;
	slot = &c->comms[(h >> 56) % CONVERT_COMM_SLOTS];
	if (slot->used && slot->pid == pid && slot->c0 == c0 && slot->c1 == c1) {
		*id = slot->id;
		return 0;
	}
	memcpy(s, comm, CAPTURE_COMM_LEN);
	s[CAPTURE_COMM_LEN] = '\0';
	err = c->intern(c->intern_ctx, s, id);
	if (err)
		return err;
	*slot = (struct convert_comm){ .c0 = c0, .c1 = c1, .pid = pid,
				       .id = *id, .used = 1 };
	return 0;
}

/*
 * The task that caused the I/O (docs/capture.md, "Who caused an I/O"):
 * the one the kernel side found (the dirtier of a written-back folio, the
 * one task in fsync for a journal commit); else the submitter, unless it
 * is a kernel thread or the I/O writes page cache data (a sync or a
 * flusher writing what someone else dirtied before the capture): then
 * nobody (cause_pid 0), never a guess.
 */
static int take_cause(struct convert *c, const struct capture_event *e,
		      struct bpt_record *rec)
{
	if (rec->file2_bytes && e->cause2_pid) {
		int err = comm_id(c, e->cause2_pid, e->cause2_comm, &rec->cause2_comm_id);

		if (err)
			return err;
		rec->cause2_pid = e->cause2_pid;
		rec->cause2_cgroup = e->cause2_cgroup;
	}
	if (e->cause_kind != CAPTURE_CAUSE_NONE && e->cause_pid) {
		rec->cause_pid = e->cause_pid;
		rec->cause_cgroup = e->cause_cgroup;
		return comm_id(c, e->cause_pid, e->cause_comm, &rec->cause_comm_id);
	}
	if (e->kthread || (e->file_kind == CAPTURE_FILE_DATA && rec->op == BPT_OP_WRITE))
		return 0;
	rec->cause_pid = rec->pid;
	rec->cause_comm_id = rec->comm_id;
	rec->cause_cgroup = rec->cgroup_id;
	return 0;
}

static uint64_t since_start(const struct convert *c, uint64_t t)
{
	return t > c->start_ns ? t - c->start_ns : 0;
}

/*
 * Zero the record. memset() of its 176 bytes compiles to `rep stos`,
 * whose start-up cost was a third of convert_event's time at the highest
 * rate (perf; bench/RESULTS.md, "Capture's cost and the codec, session
 * 10"): 16-byte stores instead, with an empty asm between them so that
 * the compiler does not turn the loop back into a memset.
 */
static inline void record_zero(struct bpt_record *rec)
{
#if defined(__SSE2__)
	_Static_assert(sizeof(*rec) % 8 == 0, "the record is whole 8-byte words");
	char *p = (char *)rec;
	size_t o = 0;

	for (; o + 16 <= sizeof(*rec); o += 16) {
		_mm_storeu_si128((__m128i *)(p + o), _mm_setzero_si128());
		__asm__ volatile("" ::: "memory");
	}
	if (o < sizeof(*rec))
		memset(p + o, 0, sizeof(*rec) - o);
#else
	memset(rec, 0, sizeof(*rec));
#endif
}

int convert_event(struct convert *c, const struct capture_event *e,
		  struct bpt_record *rec)
{
	int dev, err;

	record_zero(rec);
	dev = dev_index(c, e->dev);
	if (dev < 0)
		return dev;
	err = req_map(&c->bits, e->cmd_flags, &rec->op, &rec->flags);
	if (err)
		return err;
	err = comm_id(c, e->pid, e->comm, &rec->comm_id);
	if (err)
		return err;
	rec->dev = dev;
	rec->queue_ns = since_start(c, e->queue_ns);
	rec->issue_ns = since_start(c, e->issue_ns);
	rec->complete_ns = since_start(c, e->complete_ns);
	rec->sector = e->sector;
	rec->bytes = e->bytes;
	rec->pid = e->pid;
	rec->cgroup_id = e->cgroup_id;
	rec->error = req_status_errno(e->status);
	/* the values are the trace's enum bpt_completion (capture_events.h) */
	rec->completion = e->completion < BPT_COMPLETION__COUNT ? e->completion
								: BPT_COMPLETION_PENDING;
	if (c->files) {
		files_classify(c->files, e, rec);
		err = take_cause(c, e, rec);
		if (err)
			return err;
	}
	return 0;
}
