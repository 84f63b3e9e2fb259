/*
 * files.c — the user side of "which file": the BPF side's view of a
 * request's pages (capture_event.file_kind) turned into the trace's file
 * class, and the path table.
 *
 * What only user space knows decides the class: whether a device holds a
 * mounted file system (/proc/self/mountinfo; the block device's own cache
 * on a mounted device is metadata, on an unmounted one raw use), and who
 * submitted (jbd2's thread writes ext4's journal). Paths come from the
 * BPF side's open events (the first path an inode was opened under) and,
 * for files written but not opened during the capture, from a bounded
 * walk of their file system at the end. Only files some record names go
 * into the trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "capture.h"
#include "capture.skel.h"

#define FILES_MAX (1u << 20)    /* inodes remembered */
#define WALK_MAX_ENTRIES 2000000 /* directory entries the end walk looks at */
#define WALK_MAX_NS (10ull * 1000000000ull)

/* ------------------------------------------------ BPF side's settings */

/* The address of kernel function `name` from /proc/kallsyms, 0 if none. */
static uint64_t kallsym(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256], sym[128], type;
	unsigned long long addr;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name)) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

static int btf_enum_value(const struct btf *btf, const char *enumerator, int dflt)
{
	int n = (int)btf__type_cnt(btf);

	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (int i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(btf, e[i].name_off), enumerator))
				return (int)e[i].val;
	}
	return dflt;
}

void files_set_rodata(struct capture_bpf *skel, const struct btf *btf, int on)
{
	long page = sysconf(_SC_PAGESIZE);
	int shift = 0, pinned;

	/* struct folio (Linux 5.16) is where the BPF side reads a page's
	 * file: without it, no file is read */
	if (btf__find_by_name_kind(btf, "folio", BTF_KIND_STRUCT) <= 0)
		on = 0;
	skel->rodata->files_on = (__u8)on;
	if (!on)
		return;
	while ((1l << shift) < page)
		shift++;
	skel->rodata->page_shift = (__u32)shift;
	skel->rodata->pg_swapcache_bit = (__u32)btf_enum_value(btf, "PG_swapcache",
							       btf_enum_value(btf, "PG_owner_priv_1", 10));
	skel->rodata->pg_swapbacked_bit = (__u32)btf_enum_value(btf, "PG_swapbacked", 19);
	skel->rodata->pgty_slab = (__u32)btf_enum_value(btf, "PGTY_slab", 0);
	if (btf__find_by_name_kind(btf, "iomap_dio", BTF_KIND_STRUCT) > 0)
		skel->rodata->dio_end_io = kallsym("iomap_dio_bio_end_io");
	skel->rodata->xlog_end_io = kallsym("xlog_bio_end_io");
	skel->rodata->chain_end_io = kallsym("bio_chain_endio");
	skel->rodata->bdev_dio_end_io = kallsym("blkdev_bio_end_io");
	skel->rodata->bdev_dio_end_io_async = kallsym("blkdev_bio_end_io_async");
	pinned = btf_enum_value(btf, "BIO_PAGE_PINNED", -1);
	skel->rodata->bio_pinned_mask = pinned >= 0 && pinned < 32 ? 1u << pinned : 0;
}

/* ------------------------------------------------ mounted devices */

/* The loop's turn (files_tick), or the clock before the loop runs. */
static uint64_t turn_ns(const struct files *fs)
{
	return fs->now_ns ? fs->now_ns : files_now_ns();
}

/* Re-read the devices that hold a mounted file system, and their disks. */
static void read_mounts(struct files *fs)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];

	fs->nmounted = 0;
	fs->read_ns = turn_ns(fs);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && fs->nmounted < FILES_MOUNTS) {
		unsigned ma, mi;
		char path[128], buf[32];
		uint32_t disk;

		if (sscanf(line, "%*u %*u %u:%u", &ma, &mi) != 2 || !ma)
			continue;
		disk = capture_kdev(ma, mi);
		/* a partition's disk: the parent directory in sysfs */
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", ma, mi);
		snprintf(buf, sizeof(buf), "/sys/dev/block/%u:%u/partition", ma, mi);
		if (access(buf, F_OK) == 0) {
			FILE *d = fopen(path, "re");
			unsigned pma, pmi;

			if (d && fscanf(d, "%u:%u", &pma, &pmi) == 2)
				disk = capture_kdev(pma, pmi);
			if (d)
				fclose(d);
		}
		fs->mounted[fs->nmounted] = capture_kdev(ma, mi);
		fs->mdisk[fs->nmounted++] = disk;
	}
	fclose(f);
}

uint64_t files_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void files_tick(struct files *fs, uint64_t now_ns)
{
	fs->now_ns = now_ns;
}

/* Is `kdev` (whole == 0) a mounted file system's device, or (whole == 1)
 * a disk holding one? Looked up again (at most once a second) on a miss:
 * a file system mounted during the capture. */
static int is_mounted(struct files *fs, uint32_t kdev, int whole)
{
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < fs->nmounted; i++)
			if ((whole ? fs->mdisk[i] : fs->mounted[i]) == kdev)
				return 1;
		if (pass || turn_ns(fs) - fs->read_ns < 1000000000ull)
			break;
		read_mounts(fs);
	}
	return 0;
}

/* ------------------------------------------------ inodes and paths */

static uint64_t slot_of(uint32_t dev, uint64_t ino)
{
	return (ino ^ (uint64_t)dev << 40) * 0x9e3779b97f4a7c15ull;
}

/* The entry of (dev, ino), added when absent; NULL when full. */
static struct files_inode *inode_get(struct files *fs, uint32_t dev, uint64_t ino)
{
	if (fs->n * 2 >= fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 1024;
		struct files_inode *t;

		if (fs->n >= FILES_MAX || !(t = calloc(cap, sizeof(*t))))
			return NULL;
		for (size_t i = 0; i < fs->cap; i++) {
			size_t h;

			if (!fs->tab[i].used)
				continue;
			h = slot_of(fs->tab[i].dev, fs->tab[i].ino) >> 32 & (cap - 1);
			while (t[h].used)
				h = (h + 1) & (cap - 1);
			t[h] = fs->tab[i];
		}
		free(fs->tab);
		fs->tab = t;
		fs->cap = cap;
	}
	size_t h = slot_of(dev, ino) >> 32 & (fs->cap - 1);

	for (; fs->tab[h].used; h = (h + 1) & (fs->cap - 1))
		if (fs->tab[h].dev == dev && fs->tab[h].ino == ino)
			return &fs->tab[h];
	fs->tab[h] = (struct files_inode){ .dev = dev, .ino = ino, .used = 1 };
	fs->n++;
	return &fs->tab[h];
}

static void mark_used(struct files *fs, uint32_t dev, uint64_t ino)
{
	struct files_inode *n = inode_get(fs, dev, ino);

	if (n)
		n->used_by_io = 1;
}

void files_init(struct files *fs)
{
	memset(fs, 0, sizeof(*fs));
	read_mounts(fs);
}

void files_free(struct files *fs)
{
	for (size_t i = 0; i < fs->cap; i++)
		free(fs->tab[i].path);
	free(fs->tab);
	memset(fs, 0, sizeof(*fs));
}

int files_on_path(void *ctx, void *data, size_t size)
{
	struct files *fs = ctx;
	const struct capture_path_event *ev = data;
	struct files_inode *e;
	size_t len;

	if (size < sizeof(*ev))
		return 0;
	len = ev->len;
	if (!len || len > sizeof(ev->path) || ev->path[len - 1])
		return 0;
	e = inode_get(fs, ev->file_dev, ev->inode);
	if (!e) {
		fs->paths_dropped++;
		return 0;
	}
	if (e->path) /* the first path seen is kept */
		return 0;
	/* "c\0b\0a\0" -> "a/b/c" */
	e->path = malloc(len);
	if (!e->path)
		return 0;
	size_t at = 0, end = len;

	while (end) {
		size_t start = end - 1;

		while (start && ev->path[start - 1])
			start--;
		if (at)
			e->path[at++] = '/';
		memcpy(e->path + at, ev->path + start, end - 1 - start);
		at += end - 1 - start;
		end = start;
	}
	e->path[at] = 0;
	e->rel = 1;
	return 0;
}

void files_classify(struct files *fs, const struct capture_event *e, struct bpt_record *rec)
{
	int jbd2 = !memcmp(e->comm, "jbd2/", 5); /* comm: 16 bytes, NUL padded */

	rec->file_class = BPT_FILE_UNKNOWN;
	rec->file_dev = rec->file_bytes = rec->file2_dev = rec->file2_bytes = 0;
	rec->inode = rec->file_offset = rec->inode2 = rec->file2_offset = 0;
	switch (e->file_kind) {
	case CAPTURE_FILE_DATA:
	case CAPTURE_FILE_DIRECT:
		if (!e->inode || !e->file_dev)
			return; /* a stale page: zeros read */
		rec->file_class = BPT_FILE_DATA;
		rec->file_dev = e->file_dev;
		rec->inode = e->inode;
		rec->file_offset = e->file_off;
		rec->file_bytes = e->file_bytes < e->bytes ? e->file_bytes : e->bytes;
		if (!rec->file_bytes)
			rec->file_bytes = e->bytes;
		mark_used(fs, e->file_dev, e->inode);
		if (e->file2_bytes && e->inode2 && e->file2_dev &&
		    e->file2_bytes <= e->bytes - rec->file_bytes) {
			rec->file2_dev = e->file2_dev;
			rec->inode2 = e->inode2;
			rec->file2_offset = e->file2_off;
			rec->file2_bytes = e->file2_bytes;
			mark_used(fs, e->file2_dev, e->inode2);
		}
		return;
	case CAPTURE_FILE_BDEV:
		if (jbd2) {
			rec->file_class = BPT_FILE_JOURNAL;
		} else if (is_mounted(fs, e->file_dev, 0)) {
			rec->file_class = BPT_FILE_META;
		} else {
			rec->file_class = BPT_FILE_RAW;
			return;
		}
		rec->file_dev = e->file_dev;
		return;
	case CAPTURE_FILE_INODE_META:
		rec->file_class = BPT_FILE_META;
		rec->file_dev = e->file_dev;
		return;
	case CAPTURE_FILE_SWAP:
		rec->file_class = BPT_FILE_SWAP;
		return;
	case CAPTURE_FILE_NOMAP:
		if (jbd2)
			rec->file_class = BPT_FILE_JOURNAL;
		else if (is_mounted(fs, e->dev, 1))
			rec->file_class = BPT_FILE_META;
		return;
	case CAPTURE_FILE_XLOG:
		rec->file_class = BPT_FILE_JOURNAL;
		return;
	case CAPTURE_FILE_USER:
		if (!is_mounted(fs, e->dev, 1))
			rec->file_class = BPT_FILE_RAW;
		return;
	default:
		return;
	}
}

/* ------------------------------------------------ the end: paths */

/* The walk's state (nftw has no context argument). */
static struct walk {
	struct files *fs;
	uint32_t dev;
	size_t left;      /* unresolved inodes of dev */
	size_t entries;
	uint64_t deadline;
} walk;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct files_inode *e;

	(void)ftw;
	if (++walk.entries > WALK_MAX_ENTRIES ||
	    ((walk.entries & 1023) == 0 && files_now_ns() > walk.deadline))
		return 1;
	if (type != FTW_F || !S_ISREG(st->st_mode) ||
	    capture_kdev(major(st->st_dev), minor(st->st_dev)) != walk.dev)
		return 0;
	e = inode_get(walk.fs, walk.dev, st->st_ino);
	if (e && e->used_by_io && !e->path) {
		e->path = strdup(path);
		if (e->path && --walk.left == 0)
			return 1;
	}
	return 0;
}

/* Where file system `dev` is mounted (its root), or "" when it is not. */
static void mount_point(uint32_t dev, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned ma, mi;
		char root[PATH_MAX], mp[PATH_MAX];

		if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &ma, &mi, root, mp) == 4 &&
		    capture_kdev(ma, mi) == dev && !strcmp(root, "/") && strlen(mp) < len) {
			/* mountinfo escapes spaces as \040: such paths are not walked */
			if (!strchr(mp, '\\'))
				snprintf(out, len, "%s", mp);
			break;
		}
	}
	fclose(f);
}

int files_finish(struct files *fs, struct bpt_writer *w)
{
	int err = 0;

	/* files written but never opened while recording: walk their file
	 * systems, one per device, until each is found or the bound is hit */
	for (size_t i = 0; i < fs->cap; i++) {
		struct files_inode *e = &fs->tab[i];
		char mp[PATH_MAX];

		if (!e->used || !e->used_by_io || e->path || e->walked)
			continue;
		walk = (struct walk){ .fs = fs, .dev = e->dev,
				      .deadline = files_now_ns() + WALK_MAX_NS };
		for (size_t j = 0; j < fs->cap; j++)
			if (fs->tab[j].used && fs->tab[j].used_by_io && !fs->tab[j].path &&
			    fs->tab[j].dev == e->dev) {
				fs->tab[j].walked = 1;
				walk.left++;
			}
		mount_point(e->dev, mp, sizeof(mp));
		if (mp[0])
			nftw(mp, walk_one, 32, FTW_PHYS | FTW_MOUNT);
		fs->walked_entries += walk.entries;
	}
	for (size_t i = 0; i < fs->cap && !err; i++) {
		const struct files_inode *e = &fs->tab[i];
		char mp[PATH_MAX], full[PATH_MAX * 2];

		if (!e->used || !e->used_by_io)
			continue;
		fs->files++;
		if (!e->path) {
			fs->unresolved++;
			continue;
		}
		if (e->rel) {
			/* relative to the file system's root: where it is mounted
			 * now (unmounted: the path from its root, "//a/b") */
			mount_point(e->dev, mp, sizeof(mp));
			snprintf(full, sizeof(full), "%s/%s", strcmp(mp, "/") ? mp : "", e->path);
			if (!mp[0])
				snprintf(full, sizeof(full), "//%s", e->path);
			err = bpt_writer_add_path(w, e->dev, e->ino, full);
		} else {
			err = bpt_writer_add_path(w, e->dev, e->ino, e->path);
		}
	}
	return err;
}
