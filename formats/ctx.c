/*
 * ctx.c — what a reader sees of its input (foreign.h, "what a reader
 * calls on cx"): lines, the bad-line policy, devices and names; and how
 * an input's reader is chosen, opened and rewound.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source_int.h"

const char *ff_ctx_path(const struct ff_ctx *cx)
{
	return cx->path;
}

struct ff_input *ff_ctx_input(struct ff_ctx *cx)
{
	return cx->in;
}

/*
 * A text line holding a NUL byte is bad (a binary file, or a hostile
 * one): the readers' C strings would stop there, and a device or process
 * name cut at the NUL would be wrongly merged with another.
 */
int ff_line(struct ff_ctx *cx, char **line, size_t *len)
{
	for (;;) {
		int rc = ff_input_line(cx->in, line, len, &cx->err);
		const char *nul;

		if (rc != 1) {
			cx->line = NULL;
			return rc;
		}
		cx->line_no++;
		cx->line = *line;
		cx->line_len = *len;
		if (!(nul = memchr(*line, 0, *len)))
			return 1;
		if ((rc = ff_bad(cx, "line", "a NUL byte at column %zu: not text",
				 (size_t)(nul - *line) + 1)))
			return rc;
	}
}

size_t ff_ctx_index(const struct ff_ctx *cx)
{
	return (size_t)(cx - cx->src->cx);
}

uint32_t ff_ctx_window(const struct ff_ctx *cx)
{
	return cx->src->win.cap;
}

const char *ff_ctx_input_path(const struct ff_ctx *cx, size_t i)
{
	return i < cx->src->n ? cx->src->cx[i].path : NULL;
}

int ff_note(struct ff_ctx *cx, const char *what, uint64_t n)
{
	struct ff_source *s = cx->src;
	const char *old;
	char key[sizeof(((struct bpt_meta *)0)->key)], val[24];
	int rc;

	if (!n || s->scanned)
		return 0;
	if ((size_t)snprintf(key, sizeof(key), "note.%s", what) >= sizeof(key))
		return ff_fail(cx, -E2BIG, "note '%s': name too long", what);
	if ((old = bpt_header_get_meta(&s->hdr, key)))
		n += strtoull(old, NULL, 10);
	snprintf(val, sizeof(val), "%llu", (unsigned long long)n);
	if ((rc = bpt_header_set_meta(&s->hdr, key, val)))
		return ff_fail(cx, rc, "note '%s': the trace's meta is full", what);
	return 0;
}

uint64_t ff_line_no(const struct ff_ctx *cx)
{
	return cx->line_no;
}

int ff_bad(struct ff_ctx *cx, const char *field, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	if (cx->src->opts.skip_bad) {
		cx->bad++;
		return 0;
	}
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (cx->line)
		return bpt_error_set(&cx->err, -EBADMSG, "%s:%llu: %s: %s ('%.*s'); --skip-bad skips such lines",
				     cx->path, (unsigned long long)cx->line_no, field, why,
				     cx->line_len > 120 ? 120 : (int)cx->line_len, cx->line);
	return bpt_error_set(&cx->err, -EBADMSG, "%s: %s: %s", cx->path, field, why);
}

int ff_fail(struct ff_ctx *cx, int code, const char *fmt, ...)
{
	char why[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return bpt_error_set(&cx->err, code, "%s: %s", cx->path, why);
}

static int kept_by_filter(const struct ff_source *s, const char *name)
{
	if (!s->keep)
		return 1;
	for (const char *const *k = s->keep; *k; k++)
		if (!strcmp(*k, name))
			return 1;
	return 0;
}

int ff_device(struct ff_ctx *cx, const char *name, uint32_t major, uint32_t minor)
{
	struct ff_source *s = cx->src;
	struct ff_devmap *m = &s->devs;
	size_t len = strlen(name);
	uint32_t id;
	int rc;

	if (cx->last_dev_idx >= 0 && len < sizeof(cx->last_dev) && !strcmp(cx->last_dev, name))
		return cx->last_dev_idx;
	if ((rc = strtab_intern(&m->names, name, len, &id)) == -E2BIG)
		return ff_fail(cx, rc, "line %llu: more than %u device names, or %u MiB of them: "
			       "more than this reader holds", (unsigned long long)cx->line_no,
			       FF_NAMES_MAX, FF_NAMES_BYTES_MAX >> 20);
	if (rc)
		return ff_fail(cx, rc, "out of memory");
	/* first sight: m->idx covers the ids asked so far, and an id not
	 * yet asked (the table's own "", id 0) holds FF_DEV_UNSEEN */
	if (id >= m->nidx || m->idx[id] == FF_DEV_UNSEEN) {
		if (id >= m->cap) {
			uint32_t cap = m->cap ? m->cap * 2 : 64;
			int *p;

			while (cap <= id)
				cap *= 2;
			if (!(p = realloc(m->idx, sizeof(*p) * cap)))
				return ff_fail(cx, -ENOMEM, "out of memory");
			m->idx = p;
			m->cap = cap;
		}
		while (m->nidx <= id)
			m->idx[m->nidx++] = FF_DEV_UNSEEN;
		if (!kept_by_filter(s, name)) {
			m->idx[id] = FF_DEV_DROPPED;
		} else {
			struct bpt_device d = { .major = major, .minor = minor };

			if (s->hdr.ndevices == BPT_MAX_DEVICES)
				return ff_fail(cx, -E2BIG,
					       "more than %u devices (volumes, disks): '%s' at line %llu is one more; "
					       "keep at most %u with --device NAME (blkpeak convert --device, repeatable)",
					       BPT_MAX_DEVICES, name, (unsigned long long)cx->line_no,
					       BPT_MAX_DEVICES);
			snprintf(d.name, sizeof(d.name), "%s", name);
			rc = bpt_header_add_device(&s->hdr, &d);
			if (rc < 0)
				return ff_fail(cx, rc, "cannot add device '%s'", name);
			m->idx[id] = rc;
		}
	}
	if (len < sizeof(cx->last_dev)) {
		memcpy(cx->last_dev, name, len + 1);
		cx->last_dev_idx = m->idx[id];
	}
	return m->idx[id];
}

int ff_device_num(struct ff_ctx *cx, const char *prefix, uint64_t num)
{
	char name[64];

	struct ff_numdev *c = &cx->numdev[num % FF_NUMDEV_CACHE];

	if (c->prefix == prefix && c->num == num)
		return c->idx;
	size_t pl = strlen(prefix);

	ff_name_num(name, sizeof(name), prefix, pl < 40 ? pl : 40, num);
	int d = ff_device(cx, name, 0, 0);

	if (d >= 0)
		*c = (struct ff_numdev){ .prefix = prefix, .num = num, .idx = d };
	return d;
}

int ff_intern(struct ff_ctx *cx, const char *str, size_t len, uint32_t *id)
{
	int rc = strtab_intern(&cx->src->names, str, len, id);

	if (rc == -E2BIG)
		return ff_fail(cx, rc, "line %llu: more than %u process names, or %u MiB of them: "
			       "more than this reader holds", (unsigned long long)cx->line_no,
			       FF_NAMES_MAX, FF_NAMES_BYTES_MAX >> 20);
	return rc ? ff_fail(cx, rc, "out of memory") : 0;
}

/* The reader for cx's input: forced, or the best detect() score. */
static int choose(struct ff_ctx *cx, const struct ff_reader_ops *forced,
		  const struct ff_reader_ops **pick, struct bpt_error *err)
{
	const char *head = NULL;
	size_t len = 0;
	int rc, best = 0;

	if (cx->in && (rc = ff_input_peek(cx->in, FF_DETECT_BYTES, &head, &len, err)))
		return rc;
	if (forced) {
		*pick = forced;
		return 0;
	}
	*pick = NULL;
	for (size_t i = 0; i < ff_nreaders; i++) {
		const struct ff_reader_ops *o = ff_readers[i];
		int sc;

		if (!cx->in && !(o->flags & FF_OWN_FILES))
			continue;
		sc = o->detect(cx->path, head, len);
		if (sc > best) {
			best = sc;
			*pick = o;
		}
	}
	if (*pick)
		return 0;
	if (cx->in && !len)
		return bpt_error_set(err, -ENOMSG, "empty: no format to detect");
	char tried[400];
	size_t off = 0;

	tried[0] = 0;
	for (size_t i = 0; i < ff_nreaders && off < sizeof(tried); i++)
		off += (size_t)snprintf(tried + off, sizeof(tried) - off, "%s%s",
					i ? ", " : "", ff_readers[i]->name);
	return bpt_error_set(err, -ENOMSG, "tried %s; --from FORMAT names one", tried);
}

int ff_ctx_open(struct ff_source *s, struct ff_ctx *cx, const char *path,
		const struct ff_reader_ops *forced, struct bpt_error *err)
{
	const struct ff_reader_ops *ops;
	struct bpt_error ie = { 0 };
	int rc;

	memset(cx, 0, sizeof(*cx));
	cx->src = s;
	cx->last_dev_idx = -1;
	if (!(cx->path = strdup(path)))
		return bpt_error_set(err, -ENOMEM, "%s: out of memory", path);
	rc = ff_input_open(&cx->in, path, &ie);
	if (rc && !(rc == -ENOENT && (!forced || (forced->flags & FF_OWN_FILES)))) {
		*err = ie;
		return rc;
	}
	if ((rc = choose(cx, forced, &ops, err))) {
		if (rc == -ENOMSG && !cx->in) /* no file and no prefix reader took it */
			*err = ie, rc = ie.code;
		return rc;
	}
	if (ops->flags & FF_OWN_FILES) {
		ff_input_close(cx->in);
		cx->in = NULL;
	} else if (!cx->in) {
		*err = ie;
		return ie.code;
	}
	cx->ops = ops;
	cx->state = NULL;
	if (ops->open && (rc = ops->open(cx, &cx->state))) {
		*err = cx->err;
		if (!err->msg[0])
			bpt_error_set(err, rc, "%s: cannot read as %s: %s", path, ops->name, strerror(-rc));
		return rc;
	}
	return 0;
}

void ff_ctx_close(struct ff_ctx *cx)
{
	if (cx->ops && cx->ops->close && cx->state)
		cx->ops->close(cx->state);
	cx->state = NULL;
	ff_input_close(cx->in);
	cx->in = NULL;
	free(cx->path);
	cx->path = NULL;
}

int ff_ctx_rewind(struct ff_ctx *cx, struct bpt_error *err)
{
	int rc;

	if (cx->ops->close)
		cx->ops->close(cx->state);
	cx->state = NULL;
	if (cx->in && (rc = ff_input_rewind(cx->in, err)))
		return rc;
	cx->line_no = 0;
	cx->line = NULL;
	cx->bad = 0;
	cx->done = 0;
	cx->last_issue = 0;
	cx->last_dev_idx = -1;
	memset(cx->numdev, 0, sizeof(cx->numdev));
	memset(&cx->err, 0, sizeof(cx->err));
	if (cx->ops->open && (rc = cx->ops->open(cx, &cx->state))) {
		*err = cx->err;
		return rc;
	}
	return 0;
}

int ff_ctx_next(struct ff_ctx *cx, struct bpt_record *rec, struct bpt_error *err)
{
	int rc;

	memset(rec, 0, sizeof(*rec));
	rec->completion = FF_NO_COMPLETION;
	rc = cx->ops->next(cx->state, cx, rec);
	if (rc < 0) {
		*err = cx->err;
		if (!err->msg[0])
			bpt_error_set(err, rc, "%s: read failed: %s", cx->path, strerror(-rc));
		err->code = rc;
		return rc;
	}
	if (rc == 0)
		cx->done = 1;
	return rc;
}
