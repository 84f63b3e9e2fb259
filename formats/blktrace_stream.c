/*
 * blktrace_stream.c — reading blktrace records from a byte source with a
 * bounded buffer, and merging per-CPU streams by time (a binary heap).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "blktrace_stream.h"
#include "heap.h"

/* Large enough for the largest record (64 + 65535 bytes) many times. */
#define BT_BUF_SIZE (1u << 20)

int bt_stream_init(struct bt_stream *s, const char *name, bt_read_fn read, void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->read = read;
	s->ctx = ctx;
	s->cap = BT_BUF_SIZE;
	s->buf = malloc(s->cap);
	return s->buf ? 0 : -ENOMEM;
}

void bt_stream_free(struct bt_stream *s)
{
	free(s->buf);
	s->buf = NULL;
}

/* Move the undecoded bytes to the front and read until the buffer is
 * full or the source ends. */
static int refill(struct bt_stream *s, struct bpt_error *err)
{
	size_t left = s->end - s->pos;

	if (s->pos) {
		memmove(s->buf, s->buf + s->pos, left);
		s->base += s->pos;
		s->pos = 0;
		s->end = left;
	}
	while (!s->eof && s->end < s->cap) {
		long n = s->read(s->ctx, s->buf + s->end, s->cap - s->end, err);

		if (n < 0)
			return (int)n;
		if (n == 0)
			s->eof = 1;
		s->end += (size_t)n;
	}
	return 0;
}

/* Note the byte offset an error is about; returns rc. */
static int at(struct bpt_error *err, uint64_t off, int rc)
{
	if (err)
		err->offset = off;
	return rc;
}

int bt_stream_next(struct bt_stream *s, struct bt_event *ev, struct bpt_error *err)
{
	for (;;) {
		size_t avail = s->end - s->pos;
		uint64_t off = s->base + s->pos;
		long n;
		int rc;

		if (avail >= 4 && !s->have_layout) {
			rc = bt_layout_detect(s->buf + s->pos, &s->lay);
			if (rc == -EPROTONOSUPPORT)
				return at(err, off, bpt_error_set(err, rc, "%s: offset %" PRIu64 ": blktrace "
								  "version 0x%02x, this reader knows 0x07 and 0x08",
								  s->name, off, (unsigned)s->lay.version));
			if (rc < 0)
				return at(err, off, bpt_error_set(err, -EBADMSG, "%s: offset %" PRIu64 ": no "
								  "blktrace magic (0x65617400), not a blktrace file",
								  s->name, off));
			s->have_layout = 1;
		}
		if (s->have_layout) {
			n = bt_decode(s->buf + s->pos, avail, &s->lay, ev);
			if (n > 0) {
				s->pos += (size_t)n;
				s->events++;
				if (ev->time < s->last_time)
					s->backwards++;
				s->last_time = ev->time;
				return 1;
			}
			if (n < 0) {
				uint32_t m;

				memcpy(&m, s->buf + s->pos, 4);
				return at(err, off, bpt_error_set(err, -EBADMSG, "%s: offset %" PRIu64 ": record %" PRIu64
						     ": bad magic 0x%08x (the file's records have 0x%08x): "
						     "damaged or not a blktrace file", s->name, off,
						     s->events + 1, m,
						     s->lay.big_endian ? __builtin_bswap32(BT_MAGIC | s->lay.version)
								       : (BT_MAGIC | s->lay.version)));
			}
		}
		if (s->eof) {
			if (avail == 0)
				return 0;
			return at(err, off, bpt_error_set(err, -EBADMSG, "%s: offset %" PRIu64 ": the file "
							  "ends inside a record (%zu bytes left of it): cut short",
							  s->name, off, avail));
		}
		rc = refill(s, err);
		if (rc < 0)
			return rc;
	}
}

/* ------------------------------------------------------------- merge */

/* The heap holds stream indexes; the order is their current events'
 * times, ties by index. */
static inline int earlier(const void *ctx, const unsigned *a, const unsigned *b)
{
	const struct bt_merge *m = ctx;

	if (m->cur[*a].time != m->cur[*b].time)
		return m->cur[*a].time < m->cur[*b].time;
	return *a < *b;
}

HEAP_DEFINE(streams, unsigned, earlier)

int bt_merge_init(struct bt_merge *m, struct bt_stream **s, unsigned n)
{
	memset(m, 0, sizeof(*m));
	m->s = s;
	m->n = n;
	m->last = -1;
	m->cur = calloc(n ? n : 1, sizeof(*m->cur));
	m->heap = calloc(n ? n : 1, sizeof(*m->heap));
	if (!m->cur || !m->heap) {
		bt_merge_free(m);
		return -ENOMEM;
	}
	return 0;
}

void bt_merge_free(struct bt_merge *m)
{
	free(m->cur);
	free(m->heap);
	m->cur = NULL;
	m->heap = NULL;
}

int bt_merge_next(struct bt_merge *m, struct bt_event *ev, struct bpt_error *err)
{
	int rc;

	if (!m->started) {
		m->started = 1;
		for (unsigned i = 0; i < m->n; i++) {
			rc = bt_stream_next(m->s[i], &m->cur[i], err);
			if (rc < 0)
				return rc;
			if (rc > 0)
				m->heap[m->live++] = i;
		}
		streams_build(m->heap, m->live, m);
	} else if (m->last >= 0) {
		/* Advance the stream returned last, now that its event (and the
		 * payload in its buffer) is no longer used. It is at the top. */
		rc = bt_stream_next(m->s[m->last], &m->cur[m->last], err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			streams_pop(m->heap, m->live--, m);
		else /* its next event is later: it sinks */
			streams_down(m->heap, m->live, 0, m->heap[0], m);
	}
	m->last = -1;
	if (!m->live)
		return 0;
	m->last = (int)m->heap[0];
	*ev = m->cur[m->last];
	return 1;
}
