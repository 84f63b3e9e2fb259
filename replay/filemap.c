/*
 * filemap.c — placement by file or task: the rules, the plan (which
 * parts each rule takes, the packed layout) and cutting a record into
 * pieces (filemap.h).
 *
 * The plan keeps, per rule, the "units" it took: a file (file_dev,
 * inode) or, for parts without a file or a known offset in it, the
 * recorded device; per unit the first I/O that touched it and the end of
 * the last byte touched, and after the layout where it starts. Units sit
 * in an open-addressed hash table keyed by (rule, kind, dev, inode), so
 * memory follows the number of files the rules take, not the trace's
 * length. Which rule takes a file is decided once from the path table
 * (a sorted array of the matched inodes), which rule takes a task once
 * per comm id (a memo by id).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filemap.h"
#include "fmt.h"

#define NO_RULE 0xff
#define MEMO_NONE 0xff     /* comm memo: 0 not resolved, k + 1 rule k */
#define MAX_SPAN (1ull << 62) /* a packed layout stays below this */

struct rule {
	const char *key, *glob;
	enum filemap_kind kind;
	uint8_t target;
	int packed;
	uint64_t at, end;
	uint64_t files, parts, paths;
	int has_dev;              /* unpacked: the recorded device of its parts */
	uint32_t dev;
};

struct unit {
	uint64_t inode;           /* a file's inode; 0 for a device unit */
	uint64_t first_t, first_src;
	uint64_t span;            /* end of the last byte touched in the unit */
	uint64_t base;            /* packed: where its byte 0 lands */
	uint32_t dev;             /* file_dev, or the recorded device index */
	uint8_t used, is_dev, rule, first_part;
};

struct mfile {                    /* an inode a path rule took */
	uint64_t inode;
	uint32_t dev;
	uint8_t rule;
};

struct filemap {
	struct rule rule[FILEMAP_MAX];
	unsigned n, npath, ncomm;
	const struct filemap_trace *t;
	struct mfile *mf;
	size_t nmf;
	uint8_t *memo;            /* per comm id */
	size_t nmemo;
	struct unit *u;
	size_t ucap, nu;
	uint16_t *devmask;        /* per recorded device: targets of rules taking its parts */
	int planned;
	struct filemap_trace tcopy; /* filemap_plan's trace, kept */
	const char **names;         /* ... and its device names */
};

/* One part of a record (filemap.h): bytes [off, off + len), its file
 * (file_off BPT_FILE_OFFSET_UNKNOWN: not known) and its task's comm. */
struct part {
	uint64_t off, len;
	uint64_t inode, file_off;
	uint32_t file_dev, comm_id;
	int has_file, cls;
};

/* ------------------------------------------------------------ rules */

struct filemap *filemap_new(void)
{
	return calloc(1, sizeof(struct filemap));
}

void filemap_free(struct filemap *fm)
{
	if (!fm)
		return;
	free(fm->mf);
	free(fm->memo);
	free(fm->u);
	free(fm->devmask);
	free(fm->names);
	free(fm);
}

int filemap_add(struct filemap *fm, const char *key, unsigned target, int packed,
		uint64_t at, struct bpt_error *error)
{
	enum filemap_kind kind;
	const char *glob;
	int rc = filemap_parse_key(key, &kind, &glob, error);

	if (rc <= 0)
		return rc < 0 ? rc : bpt_error_set(error, -EINVAL, "'%s': not path:GLOB or "
						   "comm:NAME", key);
	if (fm->n == FILEMAP_MAX)
		return bpt_error_set(error, -E2BIG, "'%s': more than %d file and task maps", key,
				     FILEMAP_MAX);
	fm->rule[fm->n++] = (struct rule){ .key = key, .glob = glob, .kind = kind,
					   .target = (uint8_t)target, .packed = packed, .at = at };
	if (kind == FILEMAP_PATH)
		fm->npath++;
	else
		fm->ncomm++;
	return 0;
}

unsigned filemap_count(const struct filemap *fm)
{
	return fm ? fm->n : 0;
}

void filemap_rule_info(const struct filemap *fm, unsigned k, struct filemap_rule_info *info)
{
	const struct rule *r = &fm->rule[k];

	*info = (struct filemap_rule_info){ .key = r->key, .target = r->target,
					    .packed = r->packed, .at = r->at, .end = r->end,
					    .files = r->files };
}

/* ------------------------------------------------------------ the plan */

static const char *string_of(const struct filemap *fm, uint32_t id)
{
	return fm->t->string ? fm->t->string(fm->t->ctx, id) : NULL;
}

/* The first path of (dev, inode), escaped into buf; "inode N" without. */
static const char *path_text(const struct filemap *fm, uint32_t dev, uint64_t inode,
			     char *buf, size_t len)
{
	const struct bpt_path *p = fm->t->paths;
	size_t lo = 0, hi = fm->t->npaths;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p[mid].file_dev < dev || (p[mid].file_dev == dev && p[mid].inode < inode))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < fm->t->npaths && p[lo].file_dev == dev && p[lo].inode == inode &&
	    string_of(fm, p[lo].path_id))
		return fmt_text(string_of(fm, p[lo].path_id), buf, len);
	snprintf(buf, len, "inode %" PRIu64 " on %u:%u", inode, dev >> 20, dev & 0xfffff);
	return buf;
}

int filemap_plan_begin(struct filemap *fm, const struct filemap_trace *t,
		       struct bpt_error *error)
{
	char a[256];

	fm->t = t;
	free(fm->devmask);
	fm->devmask = calloc(t->ndevices ? t->ndevices : 1, sizeof(*fm->devmask));
	if (!fm->devmask)
		return bpt_error_set(error, -ENOMEM, "out of memory");
	for (unsigned k = 0; k < fm->n; k++) {
		if (fm->rule[k].kind != FILEMAP_PATH)
			continue;
		if (!(t->columns & BPT_COL_FILE))
			return bpt_error_set(error, -EINVAL, "%s: --map %s: the trace has no file "
					     "columns (captured with --no-files or before trace "
					     "format 1.3, or converted from another format), so it "
					     "cannot say which I/O belongs to which file", t->name,
					     fm->rule[k].key);
		if (!t->npaths)
			return bpt_error_set(error, -EINVAL, "%s: --map %s: the trace has no path "
					     "table (a capture cut before its footer, or one that "
					     "saw no file's data), so no file has a path to match",
					     t->name, fm->rule[k].key);
	}
	if (!fm->npath)
		return 0;
	fm->mf = malloc((t->npaths ? t->npaths : 1) * sizeof(*fm->mf));
	if (!fm->mf)
		return bpt_error_set(error, -ENOMEM, "out of memory");
	for (size_t i = 0; i < t->npaths; i++) {
		const struct bpt_path *p = &t->paths[i];
		const char *s = string_of(fm, p->path_id);

		if (!s)
			continue;
		for (unsigned k = 0; k < fm->n; k++) {
			struct mfile *last = fm->nmf ? &fm->mf[fm->nmf - 1] : NULL;

			if (fm->rule[k].kind != FILEMAP_PATH || !filemap_glob_match(fm->rule[k].glob, s))
				continue;
			fm->rule[k].paths++;
			if (last && last->dev == p->file_dev && last->inode == p->inode) {
				if (last->rule != k)
					return bpt_error_set(error, -EINVAL, "%s: file %s matches --map %s "
							     "and --map %s: ambiguous; give each file "
							     "one --map", t->name,
							     fmt_text(s, a, sizeof(a)),
							     fm->rule[last->rule].key, fm->rule[k].key);
				continue;
			}
			fm->mf[fm->nmf++] = (struct mfile){ .dev = p->file_dev, .inode = p->inode,
							    .rule = (uint8_t)k };
		}
	}
	for (unsigned k = 0; k < fm->n; k++)
		if (fm->rule[k].kind == FILEMAP_PATH && !fm->rule[k].paths)
			return bpt_error_set(error, -EINVAL, "%s: --map %s: no path of the trace's "
					     "%zu matches (paths are absolute, e.g. %s; '*' matches "
					     "'/' too)", t->name, fm->rule[k].key, t->npaths,
					     string_of(fm, t->paths[0].path_id) ?
						fmt_text(string_of(fm, t->paths[0].path_id), a, sizeof(a)) : "?");
	return 0;
}

/* The parts of rec, whose bytes as replayed are len (> 0): their count. */
static int parts_of(const struct filemap *fm, const struct bpt_record *rec, uint64_t len,
		    struct part p[3])
{
	uint32_t cols = fm->t->columns, pid, comm;
	uint64_t cg, fb1, fb2;
	int n = 0;

	bpt_record_credit(rec, cols, &pid, &comm, &cg);
	if (!(cols & BPT_COL_FILE) || rec->file_class != BPT_FILE_DATA) {
		p[0] = (struct part){ .len = len, .comm_id = comm,
				      .cls = cols & BPT_COL_FILE ? rec->file_class : BPT_FILE_UNKNOWN };
		return 1;
	}
	fb1 = rec->file_bytes < len ? rec->file_bytes : len;
	fb2 = rec->file2_bytes < len - fb1 ? rec->file2_bytes : len - fb1;
	if (fb1)
		p[n++] = (struct part){ .off = 0, .len = fb1, .has_file = 1, .file_dev = rec->file_dev,
					.inode = rec->inode, .file_off = rec->file_offset,
					.comm_id = comm, .cls = BPT_FILE_DATA };
	if (fb2)
		p[n++] = (struct part){ .off = fb1, .len = fb2, .has_file = 1,
					.file_dev = rec->file2_dev, .inode = rec->inode2,
					.file_off = rec->file2_offset,
					.comm_id = (cols & BPT_COL_CAUSE) && rec->cause2_pid ?
						rec->cause2_comm_id : rec->comm_id,
					.cls = BPT_FILE_DATA };
	if (fb1 + fb2 < len)
		p[n++] = (struct part){ .off = fb1 + fb2, .len = len - fb1 - fb2,
					.comm_id = rec->comm_id, .cls = BPT_FILE_DATA };
	return n;
}

/* The path rule that took (dev, inode), or NO_RULE. */
static unsigned path_rule(const struct filemap *fm, uint32_t dev, uint64_t inode)
{
	size_t lo = 0, hi = fm->nmf;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mfile *m = &fm->mf[mid];

		if (m->dev < dev || (m->dev == dev && m->inode < inode))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fm->nmf && fm->mf[lo].dev == dev && fm->mf[lo].inode == inode ?
		fm->mf[lo].rule : NO_RULE;
}

/* Resolve comm id `id` into the memo (plan only). */
static int resolve_comm(struct filemap *fm, uint32_t id, struct bpt_error *error)
{
	const char *s;
	unsigned hit = NO_RULE;
	char a[80];

	if (id >= fm->nmemo) {
		size_t n = fm->nmemo ? fm->nmemo : 64;
		uint8_t *m;

		while (n <= id)
			n *= 2;
		m = realloc(fm->memo, n);
		if (!m)
			return bpt_error_set(error, -ENOMEM, "out of memory");
		memset(m + fm->nmemo, 0, n - fm->nmemo);
		fm->memo = m;
		fm->nmemo = n;
	}
	if (fm->memo[id])
		return 0;
	s = string_of(fm, id);
	for (unsigned k = 0; s && k < fm->n; k++) {
		if (fm->rule[k].kind != FILEMAP_COMM || !filemap_glob_match(fm->rule[k].glob, s))
			continue;
		if (hit != NO_RULE)
			return bpt_error_set(error, -EINVAL, "%s: task '%s' matches --map %s and "
					     "--map %s: ambiguous; give each task one --map",
					     fm->t->name, fmt_text(s, a, sizeof(a)),
					     fm->rule[hit].key, fm->rule[k].key);
		hit = k;
	}
	fm->memo[id] = hit == NO_RULE ? MEMO_NONE : (uint8_t)(hit + 1);
	return 0;
}

/*
 * The rule that takes part p of record idx, or NO_RULE; -EBADMSG when a
 * comm is not resolved and `error` is NULL (after the plan), -EINVAL
 * when two rules take it (the plan).
 */
static int select_rule(struct filemap *fm, const struct part *p, uint64_t idx,
		       struct bpt_error *error)
{
	unsigned by_path = NO_RULE, by_comm = NO_RULE;

	if (fm->npath && p->has_file)
		by_path = path_rule(fm, p->file_dev, p->inode);
	if (fm->ncomm && p->cls != BPT_FILE_META && p->cls != BPT_FILE_JOURNAL) {
		if (p->comm_id >= fm->nmemo || !fm->memo[p->comm_id]) {
			int rc;

			if (!error)
				return -EBADMSG;
			if ((rc = resolve_comm(fm, p->comm_id, error)))
				return rc;
		}
		if (fm->memo[p->comm_id] != MEMO_NONE)
			by_comm = fm->memo[p->comm_id] - 1u;
	}
	if (by_path != NO_RULE && by_comm != NO_RULE) {
		char a[256], c[80];
		const char *s = string_of(fm, p->comm_id);

		if (!error)
			return -EBADMSG;
		return bpt_error_set(error, -EINVAL, "%s: I/O %" PRIu64 " (file %s, task '%s') is "
				     "taken by --map %s and by --map %s: ambiguous; give each "
				     "I/O one placement", fm->t->name, idx,
				     path_text(fm, p->file_dev, p->inode, a, sizeof(a)),
				     s ? fmt_text(s, c, sizeof(c)) : "?", fm->rule[by_path].key,
				     fm->rule[by_comm].key);
	}
	return (int)(by_path != NO_RULE ? by_path : by_comm);
}

static uint64_t unit_hash(unsigned rule, int is_dev, uint32_t dev, uint64_t inode)
{
	uint64_t h = (inode ^ ((uint64_t)dev << 24) ^ ((uint64_t)rule << 56) ^
		      ((uint64_t)is_dev << 62)) * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 29);
}

/* The unit of rule k a part goes to: (is_dev, dev, inode) and the
 * part's offset in it. */
static void unit_key(const struct part *p, uint32_t rec_dev, uint64_t dev_off, int *is_dev,
		     uint32_t *dev, uint64_t *inode, uint64_t *off)
{
	if (p->has_file && p->file_off != BPT_FILE_OFFSET_UNKNOWN &&
	    p->file_off < MAX_SPAN - p->len) {
		*is_dev = 0;
		*dev = p->file_dev;
		*inode = p->inode;
		*off = p->file_off;
	} else {
		*is_dev = 1;
		*dev = rec_dev;
		*inode = 0;
		*off = dev_off;
	}
}

static struct unit *unit_find(const struct filemap *fm, unsigned rule, int is_dev, uint32_t dev,
			      uint64_t inode)
{
	if (!fm->ucap)
		return NULL;
	for (size_t i = unit_hash(rule, is_dev, dev, inode) & (fm->ucap - 1);;
	     i = (i + 1) & (fm->ucap - 1)) {
		struct unit *u = &fm->u[i];

		if (!u->used)
			return NULL;
		if (u->rule == rule && u->is_dev == is_dev && u->dev == dev && u->inode == inode)
			return u;
	}
}

static int unit_grow(struct filemap *fm)
{
	size_t ncap = fm->ucap ? fm->ucap * 2 : 1024;
	struct unit *nu = calloc(ncap, sizeof(*nu)), *old = fm->u;

	if (!nu)
		return -ENOMEM;
	for (size_t i = 0; i < fm->ucap; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		for (j = unit_hash(old[i].rule, old[i].is_dev, old[i].dev, old[i].inode) & (ncap - 1);
		     nu[j].used; j = (j + 1) & (ncap - 1))
			;
		nu[j] = old[i];
	}
	free(old);
	fm->u = nu;
	fm->ucap = ncap;
	return 0;
}

/* Find or add the unit; NULL when out of memory. */
static struct unit *unit_get(struct filemap *fm, unsigned rule, int is_dev, uint32_t dev,
			     uint64_t inode, int *added)
{
	struct unit *u = unit_find(fm, rule, is_dev, dev, inode);
	size_t i;

	*added = 0;
	if (u)
		return u;
	if ((fm->nu + 1) * 2 > fm->ucap && unit_grow(fm))
		return NULL;
	for (i = unit_hash(rule, is_dev, dev, inode) & (fm->ucap - 1); fm->u[i].used;
	     i = (i + 1) & (fm->ucap - 1))
		;
	fm->u[i] = (struct unit){ .used = 1, .rule = (uint8_t)rule, .is_dev = (uint8_t)is_dev,
				  .dev = dev, .inode = inode, .first_t = UINT64_MAX,
				  .first_src = UINT64_MAX };
	fm->nu++;
	*added = 1;
	return &fm->u[i];
}

int filemap_plan_record(struct filemap *fm, const struct bpt_record *rec, uint64_t idx,
			struct bpt_error *error)
{
	struct part p[3];
	int np;

	if (rec->op == BPT_OP_FLUSH || !rec->bytes)
		return 0;
	np = parts_of(fm, rec, rec->bytes, p);
	for (int i = 0; i < np; i++) {
		uint64_t dev_off = rec->sector * 512 + p[i].off, inode, off;
		int k = select_rule(fm, &p[i], idx, error), is_dev, added;
		struct rule *r;
		struct unit *u;
		uint32_t dev;

		if (k < 0)
			return k;
		if (k == NO_RULE)
			continue;
		r = &fm->rule[k];
		if (!r->packed && r->has_dev && r->dev != rec->dev) {
			const char *const *n = fm->t->dev_names;
			char a[80], b[80];

			return bpt_error_set(error, -EINVAL, "%s: --map %s takes I/O of recorded "
					     "devices %s and %s: at their recorded offsets they would "
					     "overlap on one target; pack them with @OFFSET",
					     fm->t->name, r->key,
					     n ? fmt_text(n[r->dev], a, sizeof(a)) : "?",
					     n ? fmt_text(n[rec->dev], b, sizeof(b)) : "?");
		}
		r->has_dev = 1;
		r->dev = rec->dev;
		r->parts++;
		if (rec->dev < fm->t->ndevices)
			fm->devmask[rec->dev] |= (uint16_t)(1u << r->target);
		unit_key(&p[i], rec->dev, dev_off, &is_dev, &dev, &inode, &off);
		u = unit_get(fm, (unsigned)k, is_dev, dev, inode, &added);
		if (!u)
			return bpt_error_set(error, -ENOMEM, "out of memory");
		r->files += (uint64_t)added;
		if (rec->issue_ns < u->first_t ||
		    (rec->issue_ns == u->first_t && (idx < u->first_src ||
						     (idx == u->first_src && i < u->first_part)))) {
			u->first_t = rec->issue_ns;
			u->first_src = idx;
			u->first_part = (uint8_t)i;
		}
		if (off + p[i].len > u->span)
			u->span = off + p[i].len;
	}
	return 0;
}

static int by_first(const void *a, const void *b)
{
	const struct unit *x = *(const struct unit *const *)a, *y = *(const struct unit *const *)b;

	if (x->first_t != y->first_t)
		return x->first_t < y->first_t ? -1 : 1;
	if (x->first_src != y->first_src)
		return x->first_src < y->first_src ? -1 : 1;
	return (x->first_part > y->first_part) - (x->first_part < y->first_part);
}

/* Tasks the trace credits I/O to, for "matches nothing": up to 8. */
static void task_list(const struct filemap *fm, char *buf, size_t len)
{
	char a[80];
	unsigned n = 0;

	buf[0] = 0;
	for (size_t id = 0; id < fm->nmemo && n < 8; id++) {
		const char *s = fm->memo[id] ? string_of(fm, (uint32_t)id) : NULL;

		if (!s || strlen(buf) + 90 > len)
			continue;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", n++ ? ", " : "",
			 fmt_text(s, a, sizeof(a)));
	}
	if (!n)
		snprintf(buf, len, "none named");
}

/* Lay out the units of packed rule k from its @OFFSET. */
static int layout(struct filemap *fm, unsigned k, struct bpt_error *error)
{
	struct rule *r = &fm->rule[k];
	struct unit **v = malloc((r->files ? r->files : 1) * sizeof(*v));
	uint64_t pos = r->at, n = 0;

	if (!v)
		return bpt_error_set(error, -ENOMEM, "out of memory");
	if (pos > MAX_SPAN) { /* else the end wraps past 2^64 to the target's start */
		free(v);
		return bpt_error_set(error, -EINVAL, "--map %s: @%" PRIu64 " is past 2^62 bytes, "
				     "where a packed layout must end", r->key, pos);
	}
	for (size_t i = 0; i < fm->ucap; i++)
		if (fm->u[i].used && fm->u[i].rule == k)
			v[n++] = &fm->u[i];
	qsort(v, n, sizeof(*v), by_first);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t span = (v[i]->span + FILEMAP_ALIGN - 1) / FILEMAP_ALIGN * FILEMAP_ALIGN;

		if (span > MAX_SPAN - pos) {
			free(v);
			return bpt_error_set(error, -EINVAL, "%s: --map %s: its files take more "
					     "than 2^62 bytes packed", fm->t->name, r->key);
		}
		v[i]->base = pos;
		pos += span;
	}
	r->end = pos;
	free(v);
	return 0;
}

int filemap_plan_end(struct filemap *fm, struct bpt_error *error)
{
	char tasks[400];
	int rc;

	for (unsigned k = 0; k < fm->n; k++) {
		struct rule *r = &fm->rule[k];

		if (r->parts)
			continue;
		if (r->kind == FILEMAP_PATH)
			return bpt_error_set(error, -EINVAL, "%s: --map %s: %" PRIu64 " path(s) "
					     "match, but no I/O to replay holds their data",
					     fm->t->name, r->key, r->paths);
		task_list(fm, tasks, sizeof(tasks));
		return bpt_error_set(error, -EINVAL, "%s: --map %s: no I/O to replay (other than "
				     "metadata and journal) is credited to a task matching '%s' "
				     "(tasks: %s)", fm->t->name, r->key, r->glob, tasks);
	}
	for (unsigned k = 0; k < fm->n; k++)
		if (fm->rule[k].packed && (rc = layout(fm, k, error)))
			return rc;
	for (unsigned k = 0; k < fm->n; k++)
		for (unsigned j = k + 1; j < fm->n; j++) {
			const struct rule *a = &fm->rule[k], *b = &fm->rule[j];

			if (a->packed && b->packed && a->target == b->target &&
			    a->at < b->end && b->at < a->end)
				return bpt_error_set(error, -EINVAL, "--map %s and --map %s: their "
						     "packed areas (bytes %" PRIu64 "-%" PRIu64 " and %"
						     PRIu64 "-%" PRIu64 ") overlap on one target; give "
						     "one an @OFFSET past the other's end", a->key,
						     b->key, a->at, a->end, b->at, b->end);
		}
	fm->planned = 1;
	return 0;
}

/* ------------------------------------------------------------ cutting */

/* Append piece c to out[0..*np), joining it to the last when they meet. */
static int put(struct region_piece *out, int *np, const struct region_piece *c)
{
	struct region_piece *l = *np ? &out[*np - 1] : NULL;

	if (l && l->target == c->target && l->placement == c->placement &&
	    l->offset + l->len == c->offset && l->src_off + l->len == c->src_off) {
		l->len += c->len;
		return 0;
	}
	if (*np == FILEMAP_MAX_PIECES)
		return -EBADMSG;
	out[(*np)++] = *c;
	return 0;
}

/* A flush: the device's own targets, then each rule's taking its parts. */
static int split_flush(const struct filemap *fm, uint32_t dev, const struct region *r,
		       unsigned nr, unsigned rest, struct region_piece *out, uint64_t *miss)
{
	int np = region_split(r, nr, dev, rest, 0, 0, out, miss);
	uint16_t mask = dev < fm->t->ndevices ? fm->devmask[dev] : 0;

	for (unsigned k = 0; np >= 0 && k < fm->n; k++) {
		int seen = 0;

		if (!(mask & (1u << fm->rule[k].target)))
			continue;
		for (int i = 0; i < np; i++)
			seen |= out[i].target == fm->rule[k].target;
		if (!seen && np < FILEMAP_MAX_PIECES)
			out[np++] = (struct region_piece){ .target = fm->rule[k].target,
							   .placement = (uint8_t)(k + 1) };
	}
	return np;
}

int filemap_split(const struct filemap *fm, const struct bpt_record *rec, uint64_t len,
		  const struct region *r, unsigned nr, unsigned rest,
		  struct region_piece *out, uint64_t *miss)
{
	struct part p[3];
	int np = 0, nparts;

	if (!fm->planned)
		return -EBADMSG;
	if (!len)
		return split_flush(fm, rec->dev, r, nr, rest, out, miss);
	nparts = parts_of(fm, rec, len, p);
	for (int i = 0; i < nparts; i++) {
		uint64_t dev_off = rec->sector * 512 + p[i].off;
		int k = select_rule((struct filemap *)fm, &p[i], 0, NULL);

		if (k < 0)
			return k;
		if (k == NO_RULE) { /* stays: the device's regions and rest */
			struct region_piece rp[REGION_MAX_PIECES];
			int n = region_split(r, nr, rec->dev, rest, dev_off, p[i].len, rp, miss);

			if (n < 0)
				return n;
			for (int j = 0; j < n; j++) {
				rp[j].src_off += p[i].off;
				rp[j].placement = 0;
				if (put(out, &np, &rp[j]))
					return -EBADMSG;
			}
		} else {
			const struct rule *ru = &fm->rule[k];
			struct region_piece c = { .target = ru->target, .offset = dev_off,
						  .len = p[i].len, .src_off = p[i].off,
						  .placement = (uint8_t)(k + 1) };

			if (ru->packed) {
				uint64_t inode, off;
				uint32_t dev;
				int is_dev;
				const struct unit *u;

				unit_key(&p[i], rec->dev, dev_off, &is_dev, &dev, &inode, &off);
				u = unit_find(fm, (unsigned)k, is_dev, dev, inode);
				if (!u || off + p[i].len > u->span)
					return -EBADMSG;
				c.offset = u->base + off;
			}
			if (put(out, &np, &c))
				return -EBADMSG;
		}
	}
	return np;
}

/* ------------------------------------------------------------ from a reader */

static const char *reader_string(void *ctx, uint32_t id)
{
	return bpt_reader_string(ctx, id);
}

int filemap_plan(struct filemap *fm, struct bpt_reader *r, const char *name,
		 int (*keep)(const struct bpt_record *rec, void *ctx), void *keep_ctx,
		 struct bpt_error *error)
{
	const struct bpt_header *h = bpt_reader_header(r);
	const char **names = calloc(h->ndevices ? h->ndevices : 1, sizeof(*names));
	struct filemap_trace t = { .name = name, .columns = h->columns, .string = reader_string,
				   .ctx = r, .ndevices = h->ndevices, .dev_names = names };
	struct bpt_record rec;
	uint64_t idx = 0;
	int rc;

	if (!names)
		return bpt_error_set(error, -ENOMEM, "out of memory");
	for (unsigned d = 0; d < h->ndevices; d++)
		names[d] = h->devices[d].name;
	t.npaths = bpt_reader_paths(r, &t.paths);
	rc = filemap_plan_begin(fm, &t, error);
	if (!rc)
		rc = bpt_reader_rewind(r, error);
	while (!rc && (rc = bpt_reader_next(r, &rec, error)) == 1) {
		rc = keep(&rec, keep_ctx) ? filemap_plan_record(fm, &rec, idx, error) : 0;
		idx++;
	}
	if (!rc)
		rc = filemap_plan_end(fm, error);
	/* the plan keeps `t` for messages and string look-ups: a copy that
	 * outlives this call */
	if (!rc) {
		fm->tcopy = t;
		fm->t = &fm->tcopy;
		fm->names = names;
	} else {
		free(names);
		fm->t = NULL;
	}
	return rc;
}
