/*
 * bpt_file.c — which file an I/O touched (format 1.3): the five file
 * columns (class, file system device, inode, offset in the file, bytes
 * of the file) and the path table of the footer.
 *
 * A request that merged the writeback of two files carries the second
 * too (file2_*): the flusher writes file after file under one plug, so
 * the end of one file and the start of the next often share a request.
 *
 * The columns are stored as they are (raw): an I/O stream touches few
 * files, so the byte planes of inode and device are runs zstd removes,
 * and a file's offsets rise like sectors do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpt_blockenc.h"
#include "bpt_file.h"
#include "bpt_reader_int.h"

static const char *const class_names[BPT_FILE__COUNT] = {
	[BPT_FILE_UNKNOWN] = "unknown", [BPT_FILE_DATA] = "data",
	[BPT_FILE_META] = "metadata",   [BPT_FILE_JOURNAL] = "journal",
	[BPT_FILE_SWAP] = "swap",       [BPT_FILE_RAW] = "raw",
};

const char *bpt_file_class_name(unsigned cls)
{
	return cls < BPT_FILE__COUNT ? class_names[cls] : "?";
}

int bpt_file_class_parse(const char *name)
{
	for (int i = 0; i < BPT_FILE__COUNT; i++)
		if (!strcmp(name, class_names[i]))
			return i;
	return -EINVAL;
}

/* The rules (schemas/trace-format.md, "Files and paths"): a known class;
 * only DATA names a file (inode, offset and file_bytes 0 otherwise;
 * file_dev may name the file system of metadata and journal I/O);
 * file_bytes never exceeds the I/O. */
static int file_bad(uint64_t cls, uint64_t inode, uint64_t off, uint64_t fbytes,
		    uint64_t bytes, uint64_t dev2, uint64_t inode2, uint64_t off2,
		    uint64_t fbytes2)
{
	if (cls >= BPT_FILE__COUNT || dev2 > UINT32_MAX || fbytes2 > UINT32_MAX)
		return 1;
	if (!fbytes2 && (dev2 || inode2 || off2))
		return 1;
	if (cls != BPT_FILE_DATA)
		return inode || off || fbytes || fbytes2;
	return fbytes > bytes || fbytes2 > bytes - fbytes;
}

int bpt_file_record_bad(const struct bpt_record *r)
{
	return file_bad(r->file_class, r->inode, r->file_offset, r->file_bytes, r->bytes,
			r->file2_dev, r->inode2, r->file2_offset, r->file2_bytes);
}

void bpt_file_encode(struct bpt_blockenc *e, uint32_t i, const struct bpt_record *r)
{
	e->col[COL_FILE_CLASS][i] = r->file_class;
	e->col[COL_FILE_DEV][i] = r->file_dev;
	e->col[COL_INODE][i] = r->inode;
	e->col[COL_FILE_OFF][i] = r->file_offset;
	e->col[COL_FILE_BYTES][i] = r->file_bytes;
	e->col[COL_FILE2_DEV][i] = r->file2_dev;
	e->col[COL_INODE2][i] = r->inode2;
	e->col[COL_FILE2_OFF][i] = r->file2_offset;
	e->col[COL_FILE2_BYTES][i] = r->file2_bytes;
}

int bpt_file_bad(const struct bpt_bcur *c, uint32_t j)
{
	return c->vals[COL_FILE_DEV][j] > UINT32_MAX ||
	       file_bad(c->vals[COL_FILE_CLASS][j], c->vals[COL_INODE][j],
			c->vals[COL_FILE_OFF][j], c->vals[COL_FILE_BYTES][j],
			c->vals[COL_BYTES][j], c->vals[COL_FILE2_DEV][j],
			c->vals[COL_INODE2][j], c->vals[COL_FILE2_OFF][j],
			c->vals[COL_FILE2_BYTES][j]);
}

/* file_bad and bpt_file_bad for every record of a chunk, without
 * branches (the same rules: a value out of range in any term is bad). */
int bpt_file_chunk_bad(const struct bpt_bcur *c, uint32_t m)
{
	const uint64_t *cls = c->vals[COL_FILE_CLASS], *dev = c->vals[COL_FILE_DEV];
	const uint64_t *ino = c->vals[COL_INODE], *off = c->vals[COL_FILE_OFF];
	const uint64_t *fb = c->vals[COL_FILE_BYTES], *bytes = c->vals[COL_BYTES];
	const uint64_t *dev2 = c->vals[COL_FILE2_DEV], *ino2 = c->vals[COL_INODE2];
	const uint64_t *off2 = c->vals[COL_FILE2_OFF], *fb2 = c->vals[COL_FILE2_BYTES];
	int bad = 0;

	for (uint32_t j = 0; j < m; j++) {
		int data = cls[j] == BPT_FILE_DATA;

		bad |= ((dev[j] | dev2[j] | fb2[j]) >> 32 != 0) | (cls[j] >= BPT_FILE__COUNT) |
		       ((fb2[j] == 0) & ((dev2[j] | ino2[j] | off2[j]) != 0)) |
		       (!data & ((ino[j] | off[j] | fb[j] | fb2[j]) != 0)) |
		       (data & ((fb[j] > bytes[j]) | (fb2[j] > bytes[j] - fb[j])));
	}
	return bad;
}

void bpt_file_decode(const struct bpt_bcur *c, uint32_t j, struct bpt_record *rec)
{
	rec->file_class = (uint8_t)c->vals[COL_FILE_CLASS][j];
	rec->file_dev = (uint32_t)c->vals[COL_FILE_DEV][j];
	rec->inode = c->vals[COL_INODE][j];
	rec->file_offset = c->vals[COL_FILE_OFF][j];
	rec->file_bytes = (uint32_t)c->vals[COL_FILE_BYTES][j];
	rec->file2_dev = (uint32_t)c->vals[COL_FILE2_DEV][j];
	rec->inode2 = c->vals[COL_INODE2][j];
	rec->file2_offset = c->vals[COL_FILE2_OFF][j];
	rec->file2_bytes = (uint32_t)c->vals[COL_FILE2_BYTES][j];
}

/* ------------------------------------------------------------ cause */

void bpt_cause_encode(struct bpt_blockenc *e, uint32_t i, const struct bpt_record *r)
{
	e->col[COL_CAUSE_PID][i] = r->cause_pid;
	e->col[COL_CAUSE_COMM][i] = r->cause_comm_id;
	e->col[COL_CAUSE_CGROUP][i] = r->cause_cgroup;
	e->col[COL_CAUSE2_PID][i] = r->cause2_pid;
	e->col[COL_CAUSE2_COMM][i] = r->cause2_comm_id;
	e->col[COL_CAUSE2_CGROUP][i] = r->cause2_cgroup;
}

/* A cause without a pid names nothing: comm and cgroup 0 then; a second
 * cause only with a second file. */
static int cause_bad(uint64_t pid, uint64_t comm, uint64_t cgroup, uint32_t nstrs)
{
	return pid > UINT32_MAX || comm >= nstrs || (!pid && (comm || cgroup));
}

int bpt_cause_bad(const struct bpt_bcur *c, uint32_t j, uint32_t nstrs)
{
	return cause_bad(c->vals[COL_CAUSE_PID][j], c->vals[COL_CAUSE_COMM][j],
			 c->vals[COL_CAUSE_CGROUP][j], nstrs) ||
	       cause_bad(c->vals[COL_CAUSE2_PID][j], c->vals[COL_CAUSE2_COMM][j],
			 c->vals[COL_CAUSE2_CGROUP][j], nstrs) ||
	       (c->vals[COL_CAUSE2_PID][j] && !c->vals[COL_FILE2_BYTES][j]);
}

/* bpt_cause_bad for every record of a chunk, without branches. */
int bpt_cause_chunk_bad(const struct bpt_bcur *c, uint32_t m, uint32_t nstrs)
{
	const uint64_t *pid = c->vals[COL_CAUSE_PID], *comm = c->vals[COL_CAUSE_COMM];
	const uint64_t *cg = c->vals[COL_CAUSE_CGROUP], *pid2 = c->vals[COL_CAUSE2_PID];
	const uint64_t *comm2 = c->vals[COL_CAUSE2_COMM], *cg2 = c->vals[COL_CAUSE2_CGROUP];
	const uint64_t *fb2 = c->vals[COL_FILE2_BYTES];
	int bad = 0;

	for (uint32_t j = 0; j < m; j++)
		bad |= ((pid[j] | pid2[j]) >> 32 != 0) | (comm[j] >= nstrs) | (comm2[j] >= nstrs) |
		       ((pid[j] == 0) & ((comm[j] | cg[j]) != 0)) |
		       ((pid2[j] == 0) & ((comm2[j] | cg2[j]) != 0)) |
		       ((pid2[j] != 0) & (fb2[j] == 0));
	return bad;
}

int bpt_cause_record_bad(const struct bpt_record *r, uint32_t nstrs)
{
	return cause_bad(r->cause_pid, r->cause_comm_id, r->cause_cgroup, nstrs) ||
	       cause_bad(r->cause2_pid, r->cause2_comm_id, r->cause2_cgroup, nstrs) ||
	       (r->cause2_pid && !r->file2_bytes);
}

void bpt_cause_decode(const struct bpt_bcur *c, uint32_t j, struct bpt_record *rec)
{
	rec->cause_pid = (uint32_t)c->vals[COL_CAUSE_PID][j];
	rec->cause_comm_id = (uint32_t)c->vals[COL_CAUSE_COMM][j];
	rec->cause_cgroup = c->vals[COL_CAUSE_CGROUP][j];
	rec->cause2_pid = (uint32_t)c->vals[COL_CAUSE2_PID][j];
	rec->cause2_comm_id = (uint32_t)c->vals[COL_CAUSE2_COMM][j];
	rec->cause2_cgroup = c->vals[COL_CAUSE2_CGROUP][j];
}

void bpt_record_credit(const struct bpt_record *r, uint32_t columns, uint32_t *pid,
		       uint32_t *comm_id, uint64_t *cgroup)
{
	if ((columns & BPT_COL_CAUSE) && r->cause_pid) {
		*pid = r->cause_pid;
		*comm_id = r->cause_comm_id;
		*cgroup = r->cause_cgroup;
	} else {
		*pid = r->pid;
		*comm_id = r->comm_id;
		*cgroup = r->cgroup_id;
	}
}

/* ------------------------------------------------------------ path table */

static uint32_t path_hash(uint32_t dev, uint64_t inode, uint32_t id)
{
	uint64_t h = (inode ^ ((uint64_t)dev << 32 | id)) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32);
}

static int rehash(struct bpt_pathtab *t, uint32_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++) {
		const struct bpt_path *p = &t->e[i];
		uint32_t h = path_hash(p->file_dev, p->inode, p->path_id) & (nslots - 1);

		while (s[h])
			h = (h + 1) & (nslots - 1);
		s[h] = i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = nslots;
	return 0;
}

int bpt_pathtab_add(struct bpt_pathtab *t, uint32_t dev, uint64_t inode, uint32_t id)
{
	uint32_t h;
	int rc;

	if (t->nslots < 2 * (t->n + 1) &&
	    (rc = rehash(t, t->nslots ? t->nslots * 2 : 64)))
		return rc;
	h = path_hash(dev, inode, id) & (t->nslots - 1);
	for (; t->slots[h]; h = (h + 1) & (t->nslots - 1)) {
		const struct bpt_path *p = &t->e[t->slots[h] - 1];

		if (p->file_dev == dev && p->inode == inode && p->path_id == id)
			return 0;
	}
	if (t->n >= BPT_MAX_PATHS)
		return -E2BIG;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		struct bpt_path *e = realloc(t->e, sizeof(*e) * cap);

		if (!e)
			return -ENOMEM;
		t->e = e;
		t->cap = cap;
	}
	t->e[t->n] = (struct bpt_path){ .file_dev = dev, .path_id = id, .inode = inode };
	t->slots[h] = ++t->n;
	return 0;
}

void bpt_pathtab_encode(struct bpt_buf *b, const struct bpt_pathtab *t)
{
	buf_u32(b, t->n);
	for (uint32_t i = 0; i < t->n; i++) {
		buf_u32(b, t->e[i].file_dev);
		buf_u64(b, t->e[i].inode);
		buf_u32(b, t->e[i].path_id);
	}
}

static int path_cmp(const void *a, const void *b)
{
	const struct bpt_path *x = a, *y = b;

	if (x->file_dev != y->file_dev)
		return x->file_dev < y->file_dev ? -1 : 1;
	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return 0;
}

/* qsort is not stable: an entry's position breaks ties, so an inode's
 * paths keep the order they were added in. */
struct path_pos {
	struct bpt_path p;
	uint32_t pos;
};

static int pos_cmp(const void *a, const void *b)
{
	const struct path_pos *x = a, *y = b;
	int c = path_cmp(&x->p, &y->p);

	return c ? c : (x->pos < y->pos ? -1 : x->pos > y->pos);
}

void bpt_pathtab_sort(struct bpt_pathtab *t)
{
	struct path_pos *tmp = malloc(sizeof(*tmp) * (t->n ? t->n : 1));

	if (!tmp) {
		qsort(t->e, t->n, sizeof(*t->e), path_cmp); /* order within an inode lost */
		return;
	}
	for (uint32_t i = 0; i < t->n; i++)
		tmp[i] = (struct path_pos){ t->e[i], i };
	qsort(tmp, t->n, sizeof(*tmp), pos_cmp);
	for (uint32_t i = 0; i < t->n; i++)
		t->e[i] = tmp[i].p;
	free(tmp);
}

void bpt_pathtab_free(struct bpt_pathtab *t)
{
	free(t->e);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

size_t bpt_reader_paths(const struct bpt_reader *r, const struct bpt_path **paths)
{
	*paths = r->paths.e;
	return r->paths.n;
}

const char *bpt_reader_path(const struct bpt_reader *r, uint32_t file_dev,
			    uint64_t inode)
{
	const struct bpt_path key = { .file_dev = file_dev, .inode = inode };
	size_t lo = 0, hi = r->paths.n;

	/* the first entry of the inode: lower bound */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (path_cmp(&r->paths.e[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->paths.n || path_cmp(&r->paths.e[lo], &key))
		return NULL;
	return bpt_reader_string(r, r->paths.e[lo].path_id);
}
