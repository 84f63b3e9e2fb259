/*
 * io_kind.c — the kinds of a trace's I/Os (io_kind.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io_kind.h"

void io_kind_key_of(struct io_kind_key *k, const struct bpt_record *rec, uint32_t cols)
{
	memset(k, 0, sizeof(*k)); /* padding too: keys are compared with memcmp */
	k->cgroup_id = rec->cgroup_id;
	k->bytes = rec->bytes;
	k->pid = rec->pid;
	k->comm_id = rec->comm_id;
	k->error = rec->error;
	k->dev = rec->dev;
	k->op = rec->op;
	k->flags = rec->flags;
	k->completion = rec->completion;
	if (cols & BPT_COL_FILE) {
		k->file_class = rec->file_class;
		k->file_dev = rec->file_dev;
		k->file_bytes = rec->file_class == BPT_FILE_DATA ? rec->file_bytes : 0;
	}
	if ((cols & BPT_COL_CAUSE) && rec->cause_pid) {
		k->cause_pid = rec->cause_pid;
		k->cause_comm_id = rec->cause_comm_id;
		k->cause_cgroup = rec->cause_cgroup;
	}
}

void io_kind_values(const struct io_kind_key *k, uint32_t cols, int64_t v[IO_KIND_N],
		    unsigned char null[IO_KIND_N])
{
	int files = !!(cols & BPT_COL_FILE), cause = !!k->cause_pid;
	const int64_t val[IO_KIND_N] = {
		k->dev, k->bytes, k->op, k->flags, k->pid, k->comm_id, (int64_t)k->cgroup_id,
		k->error, k->completion, k->file_class, k->file_dev, k->file_bytes, k->cause_pid,
		k->cause_comm_id, (int64_t)k->cause_cgroup,
	};
	const unsigned char unknown[IO_KIND_N] = {
		[9] = !files, [10] = !(files && k->file_dev),
		[11] = !(files && k->file_class == BPT_FILE_DATA),
		[12] = !cause, [13] = !cause, [14] = !cause,
	};

	memcpy(v, val, sizeof(val));
	memcpy(null, unknown, sizeof(unknown));
}

/* Eight bytes at a time (the key is padded to a multiple of 8 and
 * zeroed, io_kind_key_of): a multiply and a shift per word. */
static size_t kind_hash(const struct io_kind_key *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint64_t h = 0x9e3779b97f4a7c15ULL, w;

	_Static_assert(sizeof(*k) % 8 == 0, "the key is whole words");
	for (size_t i = 0; i < sizeof(*k); i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return (size_t)h;
}

static int grow(struct io_kind_map *m)
{
	size_t cap = m->cap ? 2 * m->cap : 256;
	struct io_kind_key *keys = malloc(cap * sizeof(*keys));
	uint32_t *ids = malloc(cap * sizeof(*ids));

	if (!keys || !ids) {
		free(keys);
		free(ids);
		return -ENOMEM;
	}
	memset(ids, 0xff, cap * sizeof(*ids));
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (m->ids[i] == UINT32_MAX)
			continue;
		for (j = kind_hash(&m->keys[i]) & (cap - 1); ids[j] != UINT32_MAX; j = (j + 1) & (cap - 1))
			;
		keys[j] = m->keys[i];
		ids[j] = m->ids[i];
	}
	free(m->keys);
	free(m->ids);
	m->keys = keys;
	m->ids = ids;
	m->cap = cap;
	return 0;
}

int64_t io_kind_map_find(struct io_kind_map *m, const struct io_kind_key *k, int *is_new)
{
	size_t j;

	*is_new = 0;
	if (m->last_id != UINT32_MAX && !memcmp(k, &m->last, sizeof(*k)))
		return m->last_id;
	if (2 * (m->n + 1) > m->cap && grow(m))
		return -ENOMEM;
	for (j = kind_hash(k) & (m->cap - 1); m->ids[j] != UINT32_MAX; j = (j + 1) & (m->cap - 1))
		if (!memcmp(&m->keys[j], k, sizeof(*k)))
			goto found;
	m->keys[j] = *k;
	m->ids[j] = (uint32_t)m->n++;
	*is_new = 1;
found:
	m->last = *k;
	m->last_id = m->ids[j];
	return m->ids[j];
}

void io_kind_map_free(struct io_kind_map *m)
{
	free(m->keys);
	free(m->ids);
	m->keys = NULL;
	m->ids = NULL;
	m->cap = m->n = 0;
}
