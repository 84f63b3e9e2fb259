/* bpt_testutil.c — helpers for the trace-library unit tests (see .h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpt_testutil.h"

uint64_t tu_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint64_t tu_below(uint64_t *s, uint64_t n)
{
	return n ? tu_rand(s) % n : 0;
}

void tu_header(struct bpt_header *h, unsigned ndev, uint32_t columns)
{
	bpt_header_init(h, "test");
	h->columns = columns;
	for (unsigned i = 0; i < ndev; i++) {
		struct bpt_device d = { 0 };

		snprintf(d.name, sizeof(d.name), "loop%u", i);
		d.major = 7;
		d.minor = i;
		d.size_bytes = (1ull << 30) << (i % 32);
		d.logical_block_size = 512;
		d.physical_block_size = 4096;
		d.rotational = i & 1;
		snprintf(d.model, sizeof(d.model), "Model %u", i);
		bpt_header_add_device(h, &d);
	}
	bpt_header_set_meta(h, "generator", "unit test");
}

static uint64_t pick(uint64_t *s, uint64_t normal, uint64_t extreme)
{
	return tu_below(s, 16) == 0 ? extreme : normal;
}

void tu_record(uint64_t *s, struct bpt_record *r, unsigned ndev,
	       uint32_t nstrs, uint32_t columns)
{
	static const uint64_t day = 86400ull * 1000000000ull;

	memset(r, 0, sizeof(*r));
	r->issue_ns = pick(s, tu_below(s, day), tu_below(s, 3) ? day - 1 : 0);
	r->queue_ns = pick(s, r->issue_ns - tu_below(s, 5000), 0);
	r->complete_ns = r->issue_ns + pick(s, tu_below(s, 200000), UINT64_MAX / 2);
	r->sector = pick(s, tu_below(s, 1ull << 24) * 8, (1ull << 48) - 1 - tu_below(s, 8));
	r->op = (uint8_t)tu_below(s, BPT_OP__COUNT);
	r->flags = (uint8_t)tu_below(s, BPT_F__ALL + 1);
	r->bytes = (uint32_t)pick(s, (tu_below(s, 64) + 1) * 512,
				  tu_below(s, 2) ? 0 : UINT32_MAX);
	if (r->op == BPT_OP_FLUSH && tu_below(s, 2))
		r->bytes = 0;
	r->pid = (uint32_t)pick(s, 1000 + tu_below(s, 3), tu_below(s, 2) ? 0 : UINT32_MAX);
	r->comm_id = (uint32_t)tu_below(s, nstrs);
	r->cgroup_id = pick(s, 4242, tu_rand(s));
	r->error = (int32_t)pick(s, 0, tu_below(s, 2) ? (uint64_t)(uint32_t)-5 : (uint64_t)(uint32_t)INT32_MIN);
	r->dev = (uint16_t)tu_below(s, ndev);
	if (columns & BPT_COL_SCHED)
		r->sched_ns = pick(s, r->issue_ns - 100 + tu_below(s, 200), tu_rand(s));
	if (columns & BPT_COL_SOURCE)
		r->source_index = pick(s, tu_below(s, 1000000), UINT64_MAX);
	if (columns & BPT_COL_MEMBER)
		r->member = (uint32_t)pick(s, tu_below(s, 4), UINT32_MAX);
	if (columns & BPT_COL_COMPLETION)
		r->completion = (uint8_t)pick(s, BPT_COMPLETION_SEEN,
					      tu_below(s, BPT_COMPLETION__COUNT));
	if ((columns & BPT_COL_CAUSE) && tu_below(s, 2)) {
		r->cause_pid = (uint32_t)pick(s, 1 + tu_below(s, 100), UINT32_MAX);
		r->cause_comm_id = (uint32_t)tu_below(s, nstrs);
		r->cause_cgroup = pick(s, 1, tu_rand(s));
	}
	if (columns & BPT_COL_FILE) {
		r->file_class = (uint8_t)pick(s, BPT_FILE_DATA, tu_below(s, BPT_FILE__COUNT));
		r->file_dev = (uint32_t)pick(s, 7u << 20 | 3, (uint32_t)tu_rand(s));
		if (r->file_class == BPT_FILE_DATA) {
			r->inode = pick(s, 12 + tu_below(s, 4), tu_rand(s));
			r->file_offset = pick(s, tu_below(s, 1u << 30) << 12,
					      BPT_FILE_OFFSET_UNKNOWN);
			r->file_bytes = (uint32_t)pick(s, r->bytes,
						       tu_below(s, (uint64_t)r->bytes + 1));
			if (r->file_bytes < r->bytes && tu_below(s, 2)) {
				r->file2_dev = r->file_dev;
				r->inode2 = r->inode + 1;
				r->file2_offset = tu_rand(s);
				r->file2_bytes = (uint32_t)(r->bytes - r->file_bytes);
				if ((columns & BPT_COL_CAUSE) && tu_below(s, 2)) {
					r->cause2_pid = 1 + (uint32_t)tu_below(s, 100);
					r->cause2_comm_id = (uint32_t)tu_below(s, nstrs);
					r->cause2_cgroup = tu_rand(s);
				}
			}
		}
	}
}

static char tmpnames[64][96];
static int ntmp;

const char *tu_tmpname(const char *tag)
{
	char *p = tmpnames[ntmp++ % 64];

	snprintf(p, 96, "/dev/shm/bpt-unit-%d-%s-%d.bpt", (int)getpid(), tag, ntmp);
	return p;
}

void tu_cleanup(void)
{
	for (int i = 0; i < ntmp && i < 64; i++)
		unlink(tmpnames[i]);
	ntmp = 0;
}

uint8_t *tu_load(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	uint8_t *p = NULL;

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && (p = malloc((size_t)st.st_size + 1)) &&
	    read(fd, p, (size_t)st.st_size) == st.st_size) {
		*len = (size_t)st.st_size;
	} else {
		free(p);
		p = NULL;
	}
	close(fd);
	return p;
}

int tu_store(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, data, len) == (ssize_t)len;
	close(fd);
	return ok ? 0 : -1;
}

int tu_rec_eq(const struct bpt_record *a, const struct bpt_record *b)
{
	return a->queue_ns == b->queue_ns && a->issue_ns == b->issue_ns &&
	       a->complete_ns == b->complete_ns && a->sector == b->sector &&
	       a->cgroup_id == b->cgroup_id && a->bytes == b->bytes &&
	       a->pid == b->pid && a->comm_id == b->comm_id &&
	       a->error == b->error && a->dev == b->dev && a->op == b->op &&
	       a->flags == b->flags && a->member == b->member &&
	       a->sched_ns == b->sched_ns && a->source_index == b->source_index &&
	       a->completion == b->completion && a->file_class == b->file_class &&
	       a->file_dev == b->file_dev && a->inode == b->inode &&
	       a->file_offset == b->file_offset && a->file_bytes == b->file_bytes &&
	       a->file2_dev == b->file2_dev && a->inode2 == b->inode2 &&
	       a->file2_offset == b->file2_offset && a->file2_bytes == b->file2_bytes &&
	       a->cause_pid == b->cause_pid && a->cause_comm_id == b->cause_comm_id &&
	       a->cause_cgroup == b->cause_cgroup && a->cause2_pid == b->cause2_pid &&
	       a->cause2_comm_id == b->cause2_comm_id && a->cause2_cgroup == b->cause2_cgroup;
}
