/*
 * blktrace_source.c — streams merged, notes read, events paired
 * (blktrace_source.h). The process names come from PROCESS notes, which
 * the kernel writes the first time a task appears in a trace: a small
 * table pid -> name, bounded (names of pids past it are counted, and
 * their I/Os keep their pid without a name).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "blktrace_source.h"
#include "blktrace_writer.h"

#define COMM_LEN 16          /* TASK_COMM_LEN */
#define COMM_SLOTS (1u << 16) /* a power of two */
#define COMM_MAX (COMM_SLOTS / 2)

struct comm_slot {
	uint32_t pid;
	uint8_t used;
	char comm[COMM_LEN + 1];
};

struct bt_source {
	struct bt_stream *streams;
	struct bt_stream **sp;
	unsigned n;
	struct bt_merge merge;
	struct bt_pair *pair;
	int finished;
	struct comm_slot *comm; /* allocated at the first PROCESS note */
	uint32_t ncomm;
	struct bt_source_info info;
};

int bt_source_open(struct bt_source **out, const struct bt_source_input *in, unsigned n,
		   struct bpt_error *err)
{
	struct bt_source *s = calloc(1, sizeof(*s));
	int rc = -ENOMEM;

	*out = NULL;
	if (!s)
		goto nomem;
	s->streams = calloc(n ? n : 1, sizeof(*s->streams));
	s->sp = calloc(n ? n : 1, sizeof(*s->sp));
	if (!s->streams || !s->sp)
		goto nomem;
	for (unsigned i = 0; i < n; i++) {
		if ((rc = bt_stream_init(&s->streams[i], in[i].name, in[i].read, in[i].ctx)))
			goto nomem;
		s->sp[i] = &s->streams[i];
		s->n = i + 1;
	}
	if ((rc = bt_merge_init(&s->merge, s->sp, n)) || (rc = bt_pair_create(&s->pair, 0)))
		goto nomem;
	*out = s;
	return 0;
nomem:
	bt_source_close(s);
	return bpt_error_set(err, rc ? rc : -ENOMEM, "%s: out of memory", n ? in[0].name : "blktrace");
}

void bt_source_close(struct bt_source *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->n; i++)
		bt_stream_free(&s->streams[i]);
	free(s->streams);
	free(s->sp);
	bt_merge_free(&s->merge);
	bt_pair_free(s->pair);
	free(s->comm);
	free(s);
}

static struct comm_slot *comm_slot(struct bt_source *s, uint32_t pid)
{
	uint32_t i = (pid * 2654435761u) & (COMM_SLOTS - 1);

	while (s->comm[i].used && s->comm[i].pid != pid)
		i = (i + 1) & (COMM_SLOTS - 1);
	return &s->comm[i];
}

static int on_note(struct bt_source *s, const struct bt_event *ev)
{
	uint8_t completion;
	uint64_t bound;

	s->info.notes++;
	if (ev->act == BT_TN_MESSAGE && btw_unseen_parse(ev->pdu, ev->pdu_len, &completion, &bound))
		return bt_pair_unseen(s->pair, ev, completion, bound);
	if (ev->act == BT_TN_PROCESS && ev->pdu_len) {
		struct comm_slot *c;
		size_t len = ev->pdu_len < COMM_LEN ? ev->pdu_len : COMM_LEN;

		if (!s->comm && !(s->comm = calloc(COMM_SLOTS, sizeof(*s->comm))))
			return -ENOMEM;
		c = comm_slot(s, ev->pid);
		if (!c->used) {
			if (s->ncomm == COMM_MAX) {
				s->info.names_dropped++;
				return 0;
			}
			c->used = 1;
			c->pid = ev->pid;
			s->ncomm++;
		}
		memcpy(c->comm, ev->pdu, len);
		c->comm[len] = 0;
	} else if (ev->act == BT_TN_TIMESTAMP && ev->pdu_len >= 8 && !s->info.has_wall) {
		uint32_t sec, nsec;

		/* Two u32 in the file's byte order: the wall clock at ev->time. */
		memcpy(&sec, ev->pdu, 4);
		memcpy(&nsec, ev->pdu + 4, 4);
		if (s->info.big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)) {
			sec = __builtin_bswap32(sec);
			nsec = __builtin_bswap32(nsec);
		}
		if (ev->time > (uint64_t)INT64_MAX)
			return -ERANGE; /* no wall clock to subtract it from */
		s->info.has_wall = 1;
		s->info.wall_minus_time = (int64_t)sec * 1000000000 + nsec - (int64_t)ev->time;
	}
	return 0;
}

static const char *comm_of(struct bt_source *s, uint32_t pid)
{
	struct comm_slot *c;

	if (!s->comm)
		return "";
	c = comm_slot(s, pid);
	return c->used ? c->comm : "";
}

int bt_source_next(struct bt_source *s, struct bt_io *io, const char **comm,
		   struct bpt_error *err)
{
	struct bt_event ev;
	int rc;

	for (;;) {
		rc = bt_pair_take(s->pair, io);
		if (rc < 0)
			return bpt_error_set(err, rc, "%s: out of memory", s->n ? s->streams[0].name : "");
		if (rc > 0) {
			*comm = comm_of(s, io->pid);
			return 1;
		}
		if (s->finished)
			return 0;
		rc = bt_merge_next(&s->merge, &ev, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			for (unsigned i = 0; i < s->n; i++)
				s->info.backwards += s->streams[i].backwards;
			s->finished = 1;
			if (bt_pair_finish(s->pair) < 0)
				return bpt_error_set(err, -ENOMEM, "%s: out of memory", s->streams[0].name);
			continue;
		}
		if (s->streams[0].have_layout && !s->info.version) {
			s->info.version = s->streams[0].lay.version;
			s->info.big_endian = s->streams[0].lay.big_endian;
		}
		/* Notes first, by category: their action codes overlap the
		 * I/O actions'. */
		if (ev.cat & BT_TC_NOTIFY) {
			if ((rc = on_note(s, &ev)) == -ERANGE)
				return bpt_error_set(err, -EBADMSG, "%s: a TIMESTAMP note at time %" PRIu64
						     " ns: 2^63 ns or more, not a time this reader can place",
						     s->streams[0].name, ev.time);
			if (rc)
				return bpt_error_set(err, rc, "%s: out of memory", s->streams[0].name);
			continue;
		}
		rc = bt_pair_feed(s->pair, &ev);
		if (rc == -ENOSPC)
			return bpt_error_set(err, rc, "%s: more than %u requests in flight at once "
					     "(at %" PRIu64 " ns): not a trace this reader can pair",
					     s->streams[0].name, BT_PAIR_MAX_INFLIGHT, ev.time);
		if (rc < 0)
			return bpt_error_set(err, rc, "%s: out of memory", s->streams[0].name);
	}
}

const struct bt_pair_stats *bt_source_pair_stats(const struct bt_source *s)
{
	return bt_pair_stats(s->pair);
}

void bt_source_info(const struct bt_source *s, struct bt_source_info *info)
{
	*info = s->info;
}
