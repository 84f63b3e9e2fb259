/*
 * stats_files.c — the report's file figures: I/Os, bytes, reads, writes
 * and the share of the service time per file (a trace's file columns,
 * format 1.3), counted one row at a time in an open-addressing table by
 * (file system device, inode); at the end the ten busiest files and,
 * where the trace's path table names them, the ten busiest directories
 * (a file counts for its own directory).
 *
 * A request that holds two files' data counts for both, each for its
 * bytes and for its byte share of the request's service time. The share
 * is of the service time of all I/Os (those whose completion was seen),
 * the device time the file kept busy.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_int.h"

struct file_slot {
	uint64_t ino;
	uint32_t dev, used;
	uint64_t ios, bytes, reads, writes;
	double service_ns;
};

static uint64_t file_hash(uint32_t dev, uint64_t ino)
{
	uint64_t h = (ino ^ (uint64_t)dev << 40) * 0x9E3779B97F4A7C15ull;

	return h ^ (h >> 29);
}

static struct file_slot *file_get(struct file_table *t, uint32_t dev, uint64_t ino)
{
	uint64_t i;

	if ((t->used + 1) * 2 > t->cap) {
		struct file_table g = { calloc(t->cap ? t->cap * 2 : 256, sizeof(*g.slot)),
					t->cap ? t->cap * 2 : 256, 0, t->service_ns };

		if (!g.slot)
			return NULL;
		for (uint64_t k = 0; k < t->cap; k++)
			if (t->slot[k].used)
				*file_get(&g, t->slot[k].dev, t->slot[k].ino) = t->slot[k];
		free(t->slot);
		*t = g;
	}
	for (i = file_hash(dev, ino) & (t->cap - 1); t->slot[i].used; i = (i + 1) & (t->cap - 1))
		if (t->slot[i].dev == dev && t->slot[i].ino == ino)
			return &t->slot[i];
	t->slot[i] = (struct file_slot){ .ino = ino, .dev = dev, .used = 1 };
	t->used++;
	return &t->slot[i];
}

static int add_part(struct file_table *t, const struct st_row *r, uint32_t dev, uint64_t ino,
		    uint32_t bytes, double service)
{
	struct file_slot *s = file_get(t, dev, ino);

	if (!s)
		return -ENOMEM;
	s->ios++;
	s->bytes += bytes;
	s->reads += r->op == BPT_OP_READ;
	s->writes += r->op == BPT_OP_WRITE;
	if (r->bytes)
		s->service_ns += service * bytes / r->bytes;
	return 0;
}

int stfiles_add(struct file_table *t, const struct st_row *r)
{
	double service = !r->completion && r->complete > r->issue ? (double)(r->complete - r->issue)
								   : 0;
	int rc = 0;

	t->service_ns += service;
	if (r->file_class != BPT_FILE_DATA)
		return 0;
	rc = add_part(t, r, r->file_dev, r->inode, r->file_bytes, service);
	if (!rc && r->file2_bytes)
		rc = add_part(t, r, r->file2_dev, r->inode2, r->file2_bytes, service);
	return rc;
}

void stfiles_free(struct file_table *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static int by_service(const void *a, const void *b)
{
	const struct st_file *x = a, *y = b;

	if (x->busy_share != y->busy_share)
		return x->busy_share < y->busy_share ? 1 : -1;
	if (x->ios != y->ios)
		return x->ios < y->ios ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct st_file *)a)->name, ((const struct st_file *)b)->name);
}

/* The name of a file: its path, or "dev M:m inode N" when the trace has
 * none. *has_path says which. */
static void file_name(struct st_source *src, const struct file_slot *f, char *buf, size_t len,
		      int *has_path)
{
	*has_path = src->ops->path_name && src->ops->path_name(src, f->dev, f->ino, buf, len);
	if (!*has_path)
		snprintf(buf, len, "dev %u:%u inode %" PRIu64, f->dev >> 20, f->dev & 0xfffff,
			 f->ino);
}

int stfiles_finish(struct st_source *src, struct st_report *rep, struct file_table *t,
		 struct bpt_error *err)
{
	struct st_file *all = NULL, *dirs = NULL;
	uint64_t m = 0, nd = 0;

	(void)err;
	rep->nfile_total = (uint32_t)t->used;
	rep->ntop_files = rep->ntop_dirs = 0;
	if (!t->used)
		goto out;
	all = calloc(t->used, sizeof(*all));
	dirs = calloc(t->used, sizeof(*dirs));
	if (!all || !dirs) {
		free(all);
		free(dirs);
		stfiles_free(t);
		return -ENOMEM;
	}
	for (uint64_t k = 0; k < t->cap; k++) {
		const struct file_slot *f = &t->slot[k];
		struct st_file *e = &all[m++];
		int has_path;
		char *slash;

		if (!f->used) {
			m--;
			continue;
		}
		file_name(src, f, e->name, sizeof(e->name), &has_path);
		e->ios = f->ios;
		e->bytes = f->bytes;
		e->reads = f->reads;
		e->writes = f->writes;
		e->busy_share = t->service_ns > 0 ? f->service_ns / t->service_ns : 0;
		if (has_path && (slash = strrchr(e->name, '/'))) {
			dirs[nd] = *e;
			dirs[nd].name[slash - e->name ? (size_t)(slash - e->name) : 1] = 0;
			nd++;
		}
	}
	qsort(all, m, sizeof(*all), by_service);
	for (; rep->ntop_files < ST_TOP && rep->ntop_files < m; rep->ntop_files++)
		rep->top_files[rep->ntop_files] = all[rep->ntop_files];
	/* directories: the files' figures summed by parent directory */
	qsort(dirs, nd, sizeof(*dirs), by_name);
	uint64_t w = 0;

	for (uint64_t i = 0; i < nd; i++) {
		if (w && !strcmp(dirs[w - 1].name, dirs[i].name)) {
			dirs[w - 1].ios += dirs[i].ios;
			dirs[w - 1].bytes += dirs[i].bytes;
			dirs[w - 1].reads += dirs[i].reads;
			dirs[w - 1].writes += dirs[i].writes;
			dirs[w - 1].busy_share += dirs[i].busy_share;
		} else {
			dirs[w++] = dirs[i];
		}
	}
	qsort(dirs, w, sizeof(*dirs), by_service);
	for (; rep->ntop_dirs < ST_TOP && rep->ntop_dirs < w; rep->ntop_dirs++)
		rep->top_dirs[rep->ntop_dirs] = dirs[rep->ntop_dirs];
out:
	free(all);
	free(dirs);
	stfiles_free(t);
	return 0;
}
