/* SPDX-License-Identifier: GPL-2.0 */
/*
 * files.bpf.h — which file a request's data belong to, read from its bios
 * (included by capture.bpf.c only).
 *
 * A request carries bios; a bio carries pages (bvecs); a page of the page
 * cache belongs to a folio whose `mapping` is its file's address_space
 * and whose `index` is its place in the file. So the first page of the
 * first bio gives the file system device, the inode and the offset in the
 * file of the request's first byte, at no cost to the kernel beyond a few
 * loads. Other pages are not the page cache's: the block device's own
 * cache (buffer heads: metadata, raw use), a folio in the swap cache,
 * memory a file system manages itself (no mapping), user memory of a
 * direct I/O. Direct I/O through iomap (ext4, xfs) is recognised by its
 * bi_end_io, and its file and offset read from the struct iomap_dio in
 * bi_private; the xfs log by its bi_end_io too. The loader sets the three
 * end_io addresses from /proc/kallsyms (0: not recognised).
 *
 * The following bios are followed (at most FILE_BIOS) to count how many
 * bytes from the start belong to the same file contiguously, and which
 * file the next ones belong to: a request that merged two files'
 * writeback is credited to each for its part (file_bytes, file2_bytes);
 * bytes after a third file starts are not credited.
 *
 * Every read is a probe read (BPF_CORE_READ): the pointers come from
 * plain memory, and a stale one yields zeros, never a fault.
 */
#ifndef BLKPEAK_FILES_BPF_H
#define BLKPEAK_FILES_BPF_H

#define FILE_BIOS 8
#define S_IFMT_ 00170000
#define S_IFREG_ 0100000
#define S_IFBLK_ 0060000
#define PAGE_MAPPING_ANON_ 0x1ul
#define PAGE_MAPPING_FLAGS_ 0x3ul

/* 1: read the file of each request (0 with capture --no-files, or a
 * kernel without struct folio: the loader checks its BTF) */
const volatile __u8 files_on = 1;
const volatile __u32 page_shift = 12;
/* bi_end_io of iomap direct I/O, of the xfs log, of a split's front part */
const volatile __u64 dio_end_io = 0;
const volatile __u64 xlog_end_io = 0;
const volatile __u64 chain_end_io = 0;
/* bi_end_io of a direct I/O on the block device itself (block/fops.c),
 * and the bi_flags bit of pages pinned from a user iterator
 * (BIO_PAGE_PINNED); 0: not known. Both together: user memory, without
 * reading the page (a probe read walk: bench/RESULTS.md, "capcost"). */
const volatile __u64 bdev_dio_end_io = 0;
const volatile __u64 bdev_dio_end_io_async = 0;
const volatile __u32 bio_pinned_mask = 0;
/* bit of PG_swapcache (PG_owner_priv_1) and PG_swapbacked in folio flags */
const volatile __u32 pg_swapcache_bit = 10;
const volatile __u32 pg_swapbacked_bit = 17;
/* page_type >> 24 of a slab page (PGTY_slab, Linux 6.10+); 0: not known */
const volatile __u32 pgty_slab = 0;

/* a field of a BTF pointer (tp_btf) or of a plain number (raw_tp) */
#define BTF_LD(btf, p, field) ((btf) ? (p)->field : BPF_CORE_READ(p, field))

struct file_of {
	__u64 inode, off;
	__u64 findex;  /* DATA: the folio's index (the dirtier table's key) */
	__u32 dev;
	__u8 kind;
};

/* A direct I/O on the block device itself from user memory (its pages
 * pinned from the caller's iterator): CAPTURE_FILE_USER, whatever maps
 * the buffer (an anonymous page, or a shared memory file's). */
static __always_inline int bdev_user_dio(__u64 end_io, __u32 bi_flags)
{
	return bio_pinned_mask && (bi_flags & bio_pinned_mask) &&
	       ((bdev_dio_end_io && end_io == bdev_dio_end_io) ||
		(bdev_dio_end_io_async && end_io == bdev_dio_end_io_async));
}

static __always_inline void file_user(struct file_of *f)
{
	f->kind = CAPTURE_FILE_USER;
	f->inode = 0;
	f->dev = 0;
	f->off = CAPTURE_FILE_OFF_UNKNOWN;
}

/* ------------------------------------------------ who dirtied a folio */

/* The task that dirtied a page-cache folio (writeback_dirty_folio, in
 * the dirtier's context: a buffered write or an mmap store), by file and
 * folio index, so its writeback, done later by a flusher kworker or a
 * sync, is credited to it. A folio dirtied again after its writeback
 * starts is recorded again; one dirtied before the capture is not known. */
struct dirty_key {
	__u64 inode, index;
	__u32 dev, pad;
};

struct task_id {
	__u64 cgroup;
	__u32 pid;
	__u32 pad;    /* 1: the task passed the -p/-c/--cgroup filters */
	__u8 comm[CAPTURE_COMM_LEN];
};

/*
 * The dirtier table: 262,144 entries of one cache line in sets of
 * DIRTY_WAYS, the set picked by a hash of the folio. An array map, read
 * and written with plain loads and stores: an LRU hash map's update took
 * its locks and a new element for every dirtied folio (some 450 ns of the
 * 620 a dirtied folio cost: bench/RESULTS.md, "Capture at the cost
 * limit"). A full set gives up a random entry. Entries are written without
 * a lock, so each carries a check of its contents (never 0; 0: free),
 * written last; an entry torn by two CPUs writing it at once, or read
 * while written, fails its check and counts as not known
 * (dirtier_missed): never the wrong task.
 */
#define DIRTY_WAYS 4
#define DIRTY_ENTRIES 262144 /* a power of two */

struct dirty_entry {
	__u64 inode, index;
	__u32 dev, check;
	struct task_id t;
	__u64 pad;
};
_Static_assert(sizeof(struct dirty_entry) == 64, "dirty_entry: one cache line");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DIRTY_ENTRIES);
	__type(key, __u32);
	__type(value, struct dirty_entry);
} dirtiers SEC(".maps");

static __always_inline __u64 dirty_hash(const struct dirty_key *k)
{
	return (k->inode * 0x9e3779b97f4a7c15ull ^ k->index * 0xc2b2ae3d27d4eb4full ^ k->dev) *
	       0xff51afd7ed558ccdull;
}

/* The check of an entry: all of it but the check itself; never 0. */
static __always_inline __u32 dirty_check(const struct dirty_entry *e)
{
	__u64 h = (e->inode * 0x9e3779b97f4a7c15ull) ^ (e->index * 0xc2b2ae3d27d4eb4full) ^
		  ((__u64)e->dev << 32 | e->t.pid) ^ (e->t.cgroup * 0x165667b19e3779f9ull) ^
		  (((const __u64 *)e->t.comm)[0] * 0x27d4eb2f165667c5ull) ^
		  (((const __u64 *)e->t.comm)[1] * 0x94d049bb133111ebull) ^ e->t.pad;

	h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
	return (__u32)(h >> 32) | 1;
}

static __always_inline struct dirty_entry *dirty_way(__u32 set, __u32 w)
{
	__u32 idx = (set * DIRTY_WAYS + w) & (DIRTY_ENTRIES - 1);

	return bpf_map_lookup_elem(&dirtiers, &idx);
}

/* The dirtier of folio `k` into `out`: 1, or 0 when not known. */
static __always_inline int dirtier_find(const struct dirty_key *k, struct task_id *out)
{
	__u32 set = dirty_hash(k) >> 32;

	for (int w = 0; w < DIRTY_WAYS; w++) {
		struct dirty_entry *p = dirty_way(set, w), e;

		if (!p || p->inode != k->inode || p->index != k->index || p->dev != k->dev)
			continue;
		/* one copy, checked: what is used is what was checked */
		__builtin_memcpy(&e, p, sizeof(e));
		if (e.check != dirty_check(&e) || e.inode != k->inode ||
		    e.index != k->index || e.dev != k->dev)
			return 0;
		*out = e.t;
		return 1;
	}
	return 0;
}

/* Folio `k` was dirtied by `id`: written unless its entry says so already. */
static __always_inline void dirtier_set(const struct dirty_key *k, const struct task_id *id)
{
	__u32 set = dirty_hash(k) >> 32, victim = DIRTY_WAYS;
	struct dirty_entry *p;

	for (int w = 0; w < DIRTY_WAYS; w++) {
		p = dirty_way(set, w);
		if (!p)
			return;
		if (p->inode == k->inode && p->index == k->index && p->dev == k->dev) {
			if (p->t.pid == id->pid && p->t.cgroup == id->cgroup &&
			    p->t.pad == id->pad &&
			    ((const __u64 *)p->t.comm)[0] == ((const __u64 *)id->comm)[0] &&
			    ((const __u64 *)p->t.comm)[1] == ((const __u64 *)id->comm)[1] &&
			    p->check == dirty_check(p))
				return; /* the same dirtier: nothing to write */
			victim = w;
			break;
		}
		if (victim == DIRTY_WAYS && !p->check)
			victim = w; /* the first free one, unless the folio has one */
	}
	if (victim == DIRTY_WAYS)
		victim = bpf_get_prandom_u32() % DIRTY_WAYS;
	p = dirty_way(set, victim);
	if (!p)
		return;
	p->check = 0; /* invalid while written */
	asm volatile("" ::: "memory");
	p->inode = k->inode;
	p->index = k->index;
	p->dev = k->dev;
	p->t = *id;
	asm volatile("" ::: "memory");
	p->check = dirty_check(p);
}

/* Tasks in fsync (ext4_sync_file_enter .. _exit) per whole disk: a
 * journal or metadata write a kernel thread (jbd2) submits while exactly
 * one task is in fsync on that disk is that task's commit. */
struct fsync_state {
	struct task_id t;
	__s64 count;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct fsync_state);
} fsyncs SEC(".maps");

static __always_inline void task_id_current(struct task_id *id)
{
	struct task_struct *t = bpf_get_current_task_btf();

	id->pid = t->tgid;
	id->cgroup = task_cgroup_id_btf(t);
	/* two 8-byte loads, as comm_copy_btf (capture.bpf.c) */
	((__u64 *)id->comm)[0] = ((const __u64 *)t->comm)[0];
	((__u64 *)id->comm)[1] = ((const __u64 *)t->comm)[1];
}

/*
 * Field `field` of the `type` at `src` into `out`, from `buf`, which holds
 * the first `n` bytes of it (one probe read for several fields, not one
 * each): its offset is a constant once the object is loaded (CO-RE); a
 * field past `n` is read on its own. `buf` is a per-CPU map value
 * (head_bufs): the stack has no room for it in every inlined copy.
 */
#define HEAD_GET(buf, n, type, field, src, out)					\
	do {									\
		__u32 o_ = bpf_core_field_offset(type, field);			\
										\
		if (o_ + sizeof(out) <= (n))					\
			__builtin_memcpy(&(out), (const __u8 *)(buf) + o_, sizeof(out)); \
		else								\
			BPF_CORE_READ_INTO(&(out), (type *)(src), field);	\
	} while (0)

struct head_buf {
	__u64 b[10];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct head_buf);
} head_bufs SEC(".maps");

static const __u32 head_zero = 0;

/* Direct I/O through iomap: bi_private is the struct iomap_dio, whose
 * size counts the bytes of the bios submitted so far, this one's
 * included (iomap_dio_bio_iter adds it before submitting), from the
 * file position iocb->ki_pos (moved only at completion). Valid while the
 * submitter is in submit_bio (at request creation); `at_issue` says the
 * value is read later, and the offset is then unknown. `before`: bytes of
 * a split's front part that precede this bio. `btf`: `bio` is a BTF
 * pointer (plain loads). The iomap_dio, kiocb and inode are not: each is
 * read in one piece (HEAD_GET), five probe reads in all. */
static __always_inline void dio_file(struct bio *bio, __u32 before, int at_issue,
				     const int btf, struct file_of *f)
{
	struct iomap_dio *dio = BTF_LD(btf, bio, bi_private);
	struct head_buf *h = bpf_map_lookup_elem(&head_bufs, &head_zero);
	__u64 size = 0, pos = 0;
	struct kiocb *iocb = NULL;
	struct file *filp = NULL;
	struct inode *host = NULL;
	struct super_block *sb = NULL;
	unsigned long ino = 0;

	f->kind = CAPTURE_FILE_DIRECT;
	f->inode = 0;
	f->dev = 0;
	f->off = CAPTURE_FILE_OFF_UNKNOWN;
	if (!h || bpf_probe_read_kernel(h->b, 32, dio))
		return;
	HEAD_GET(h->b, 32, struct iomap_dio, iocb, dio, iocb);
	HEAD_GET(h->b, 32, struct iomap_dio, size, dio, size);
	if (bpf_probe_read_kernel(h->b, 16, iocb))
		return;
	HEAD_GET(h->b, 16, struct kiocb, ki_filp, iocb, filp);
	HEAD_GET(h->b, 16, struct kiocb, ki_pos, iocb, pos);
	host = BPF_CORE_READ(filp, f_inode);
	if (bpf_probe_read_kernel(h->b, sizeof(h->b), host))
		return;
	HEAD_GET(h->b, sizeof(h->b), struct inode, i_ino, host, ino);
	HEAD_GET(h->b, sizeof(h->b), struct inode, i_sb, host, sb);
	f->inode = ino;
	f->dev = BPF_CORE_READ(sb, s_dev);
	if (!at_issue) {
		__u64 end = pos + size;
		__u64 sz = (__u64)BTF_LD(btf, bio, bi_iter.bi_size) + before;

		if (end >= sz)
			f->off = end - sz;
	}
}

/*
 * The page cache of a regular file, or the block device's own: what the
 * address_space `host` inode says, for a byte `in` bytes into the page
 * `pages` after the start of the folio at `findex`. One copy for both
 * ways of reading (plain loads in bio_file_btf, probe reads in
 * bio_file): `LD` and `LD2` are the way.
 */
#define FILE_OF_HOST(LD, LD2, host, findex_expr, pages, in, f)			\
	do {									\
		__u32 mode_ = LD(host, i_mode) & S_IFMT_;			\
										\
		if (mode_ == S_IFBLK_) {					\
			(f)->kind = CAPTURE_FILE_BDEV;				\
			(f)->dev = LD(host, i_rdev);				\
			break;							\
		}								\
		if (mode_ != S_IFREG_) {					\
			(f)->kind = CAPTURE_FILE_INODE_META;			\
			(f)->dev = LD2(host, i_sb, s_dev);			\
			break;							\
		}								\
		(f)->kind = CAPTURE_FILE_DATA;					\
		(f)->inode = LD(host, i_ino);					\
		(f)->dev = LD2(host, i_sb, s_dev);				\
		(f)->findex = (findex_expr);					\
		(f)->off = (((f)->findex + (pages)) << page_shift) + (in);	\
	} while (0)

#define LD_BTF_(p, field) ((p)->field)
#define LD2_BTF_(p, a, b) ((p)->a->b)
#define LD_PROBE_(p, field) BPF_CORE_READ(p, field)
#define LD2_PROBE_(p, a, b) BPF_CORE_READ(p, a, b)

/*
 * tp_btf programs: bio_file() with plain loads for the common shape of a
 * bio (not a direct I/O's, nor the xfs log's; its data start in its first
 * bvec's first page, which is a folio of its own, not part of a large
 * one). The bio comes from the request, a BTF pointer, and so does every
 * pointer reached from it here, so the verifier lets each field be a
 * plain load (made safe by an exception table entry, a few ns) instead
 * of a bpf_probe_read_kernel() call (some 25 ns; a request's walk made
 * about a dozen: bench/RESULTS.md, "Capture at the cost limit").
 * Returns 0 for any other shape, which bio_file() reads with probe reads
 * (pointer arithmetic on a BTF pointer is refused by the verifier, and
 * bpf_rdonly_cast() needs Linux 6.2).
 */
/* The low bits of pointer `p`, a BTF pointer or not: the verifier refuses
 * bitwise operations on a pointer, but its distance from an 8-byte aligned
 * variable is a number with the same low three bits (as in rq_key()). */
static __always_inline __u64 low_bits(const void *p)
{
	const char *base = (const char *)&counters;

	/* hidden from the compiler, which knows the alignment and would
	 * take the bits of `p` itself */
	asm volatile("" : "+r"(base));
	return (__u64)((const char *)p - base);
}

static __always_inline int bio_file_btf(struct bio *bio, struct file_of *f)
{
	unsigned long end_io = (unsigned long)bio->bi_end_io, flags;
	struct address_space *mapping;
	struct bio_vec *bv;
	struct page *page;
	struct inode *host;
	__u64 mbits;
	__u32 in;

	if (bdev_user_dio(end_io, bio->bi_flags)) {
		file_user(f);
		return 1;
	}
	if ((chain_end_io && end_io == chain_end_io) || (dio_end_io && end_io == dio_end_io) ||
	    (xlog_end_io && end_io == xlog_end_io) || bio->bi_iter.bi_idx)
		return 0;
	f->kind = CAPTURE_FILE_NONE;
	f->inode = 0;
	f->dev = 0;
	f->off = CAPTURE_FILE_OFF_UNKNOWN;
	if (!bio->bi_iter.bi_size)
		return 1;
	bv = bio->bi_io_vec;
	if (!bv)
		return 1;
	page = bv->bv_page;
	if (!page)
		return 1;
	in = bio->bi_iter.bi_bvec_done + bv->bv_offset;
	/* compound_head shares its place with lru.next, which the verifier
	 * takes it for: a pointer, whose low bit is read as below */
	if ((in >> page_shift) || (low_bits((void *)page->compound_head) & 1))
		return 0; /* a later page, or a large folio's tail page */
	if (pgty_slab && page->page_type >> 24 == pgty_slab) {
		f->kind = CAPTURE_FILE_NOMAP;
		return 1;
	}
	flags = *(unsigned long *)page; /* as in bio_file() */
	if ((flags >> pg_swapcache_bit & 1) && (flags >> pg_swapbacked_bit & 1)) {
		f->kind = CAPTURE_FILE_SWAP;
		return 1;
	}
	mapping = ((struct folio *)page)->mapping;
	if (!mapping)
		return (f->kind = CAPTURE_FILE_NOMAP), 1;
	mbits = low_bits(mapping);
	if (mbits & PAGE_MAPPING_FLAGS_) {
		f->kind = mbits & PAGE_MAPPING_ANON_ ? CAPTURE_FILE_USER : CAPTURE_FILE_NOMAP;
		return 1;
	}
	host = mapping->host;
	FILE_OF_HOST(LD_BTF_, LD2_BTF_, host, ((struct folio *)page)->index, 0, in, f);
	return 1;
}

/* The file of one bio's first byte. */
static __always_inline void bio_file(struct bio *bio, int at_issue, const int btf,
				     struct file_of *f)
{
	__u32 idx, in, before = 0;
	struct bio_vec *bv;
	unsigned long page, head, folio, mapping, flags;
	struct inode *host;
	__u64 end_io;

	/* before any probe read: bio_file_btf() reads the common shapes
	 * with plain loads, and a probe read here cost every request its
	 * ~25 ns (bench/RESULTS.md, "capcost") */
	if (btf && bio_file_btf(bio, f))
		return;
	end_io = (__u64)(unsigned long)BPF_CORE_READ(bio, bi_end_io);
	if (!btf && bdev_user_dio(end_io, BPF_CORE_READ(bio, bi_flags))) {
		file_user(f);
		return;
	}
	f->kind = CAPTURE_FILE_NONE;
	f->inode = 0;
	f->dev = 0;
	f->off = CAPTURE_FILE_OFF_UNKNOWN;
	if (chain_end_io && end_io == chain_end_io) {
		/* the front part of a split bio: its parent follows it */
		struct bio *parent = BPF_CORE_READ(bio, bi_private);

		if (dio_end_io && (__u64)(unsigned long)BPF_CORE_READ(parent, bi_end_io) ==
				  dio_end_io) {
			before = BPF_CORE_READ(bio, bi_iter.bi_size);
			dio_file(parent, before, at_issue, 0, f);
			return;
		}
	} else if (dio_end_io && end_io == dio_end_io) {
		dio_file(bio, 0, at_issue, btf, f);
		return;
	} else if (xlog_end_io && end_io == xlog_end_io) {
		f->kind = CAPTURE_FILE_XLOG;
		return;
	}
	if (!BPF_CORE_READ(bio, bi_iter.bi_size))
		return;
	idx = BPF_CORE_READ(bio, bi_iter.bi_idx);
	in = BPF_CORE_READ(bio, bi_iter.bi_bvec_done);
	bv = BPF_CORE_READ(bio, bi_io_vec);
	if (!bv)
		return;
	bv += idx & 0xffff;
	page = (unsigned long)BPF_CORE_READ(bv, bv_page);
	in += BPF_CORE_READ(bv, bv_offset);
	if (!page)
		return;
	page += (unsigned long)(in >> page_shift) * bpf_core_type_size(struct page);
	in &= (1u << page_shift) - 1;
	head = BPF_CORE_READ((struct page *)page, compound_head);
	folio = head & 1 ? head - 1 : page;
	/* slab memory (kmalloc'd buffers: small xfs metadata buffers) reuses
	 * the mapping field for its own */
	if (pgty_slab &&
	    BPF_CORE_READ((struct page *)folio, page_type) >> 24 == pgty_slab) {
		f->kind = CAPTURE_FILE_NOMAP;
		return;
	}
	/* the flags are the first word of struct page and folio in every
	 * kernel (a memdesc_flags_t since 6.18, an unsigned long before) */
	if (bpf_probe_read_kernel(&flags, sizeof(flags), (void *)folio))
		return;
	if ((flags >> pg_swapcache_bit & 1) && (flags >> pg_swapbacked_bit & 1)) {
		f->kind = CAPTURE_FILE_SWAP;
		return;
	}
	mapping = (unsigned long)BPF_CORE_READ((struct folio *)folio, mapping);
	if (!mapping || (mapping & PAGE_MAPPING_FLAGS_) != 0) {
		f->kind = mapping & PAGE_MAPPING_ANON_ ? CAPTURE_FILE_USER : CAPTURE_FILE_NOMAP;
		return;
	}
	host = BPF_CORE_READ((struct address_space *)mapping, host);
	FILE_OF_HOST(LD_PROBE_, LD2_PROBE_, host, BPF_CORE_READ((struct folio *)folio, index),
		     (page - folio) / bpf_core_type_size(struct page), in, f);
}

/* At a request's creation: the offset of a direct I/O, which only its
 * submitter's state gives (take_file, at issue, reads the rest). */
static __always_inline void take_dio_offset(struct request *rq, struct capture_inflight *s,
					    const int btf)
{
	struct bio *bio = BTF_LD(btf, rq, bio);
	struct file_of f;
	__u64 end_io;

	s->file_kind = CAPTURE_FILE_NONE;
	s->file_off = CAPTURE_FILE_OFF_UNKNOWN;
	if (!files_on || !bio || !dio_end_io)
		return;
	/* only a direct I/O (or a split's front part) needs reading now */
	end_io = (__u64)(unsigned long)BTF_LD(btf, bio, bi_end_io);
	if (end_io != dio_end_io && end_io != chain_end_io)
		return;
	bio_file(bio, 0, btf, &f);
	if (f.kind == CAPTURE_FILE_DIRECT) {
		s->file_kind = f.kind;
		s->file_off = f.off;
		s->inode = f.inode;
		s->file_dev = f.dev;
	}
}

/* Does bio file `g` go on where file `f`'s first `bytes` end? (The
 * offset of a direct I/O bio is known only at its creation: for those
 * the same file is taken as enough.) */
static __always_inline int continues(const struct file_of *f, const struct file_of *g,
				     __u32 bytes)
{
	if (g->kind != f->kind || g->inode != f->inode || g->dev != f->dev)
		return 0;
	return f->kind != CAPTURE_FILE_DATA || g->off == f->off + bytes;
}

/* The file of request `rq` into the in-flight entry `s`: its first bio's,
 * the bytes of the following bios that continue it, and the same for a
 * second file after it (page cache data only: the flusher's plug merges
 * the end of one file's writeback with the start of the next). */
static __always_inline void take_file(struct request *rq, struct capture_inflight *s,
				      int at_issue, const int btf)
{
	struct bio *bio = BTF_LD(btf, rq, bio);
	struct file_of f, g, f2 = {};
	__u32 bytes, bytes2 = 0;
	int second = 0;
	/* a direct I/O's file taken at creation (take_dio_offset), valid
	 * while the request's first bio is the same (at_issue == 2) */
	int dio_known = s->file_kind == CAPTURE_FILE_DIRECT && at_issue == 2;

	if (dio_known) {
		f.kind = CAPTURE_FILE_DIRECT;
		f.inode = s->inode;
		f.dev = s->file_dev;
		f.off = s->file_off;
		f.findex = 0;
	}
	s->file_kind = CAPTURE_FILE_NONE;
	s->inode = 0;
	s->file_dev = 0;
	s->file_off = CAPTURE_FILE_OFF_UNKNOWN;
	s->file_bytes = 0;
	s->inode2 = 0;
	s->file2_off = 0;
	s->file2_dev = 0;
	s->file2_bytes = 0;
	if (!files_on || !bio)
		return;
	if (!dio_known)
		bio_file(bio, at_issue, btf, &f);
	s->file_kind = f.kind;
	s->inode = f.inode;
	s->file_dev = f.dev;
	s->file_off = f.off;
	if (f.kind != CAPTURE_FILE_DATA && f.kind != CAPTURE_FILE_DIRECT)
		return;
	bytes = BTF_LD(btf, bio, bi_iter.bi_size);
	for (int i = 1; i < FILE_BIOS; i++) {
		bio = BTF_LD(btf, bio, bi_next);
		if (!bio)
			break;
		bio_file(bio, 1, btf, &g);
		if (!second) {
			if (continues(&f, &g, bytes)) {
				bytes += BTF_LD(btf, bio, bi_iter.bi_size);
				continue;
			}
			if (g.kind != CAPTURE_FILE_DATA || f.kind != CAPTURE_FILE_DATA)
				break;
			second = 1;
			f2 = g;
			bytes2 = BTF_LD(btf, bio, bi_iter.bi_size);
			continue;
		}
		if (!continues(&f2, &g, bytes2))
			break;
		bytes2 += BTF_LD(btf, bio, bi_iter.bi_size);
	}
	/* a page cache write: credited to the task that dirtied it */
	if (f.kind == CAPTURE_FILE_DATA && (s->cmd_flags & 0xff) == 1 /* REQ_OP_WRITE */) {
		struct dirty_key k = { .inode = f.inode, .index = f.findex, .dev = f.dev };
		struct task_id d;

		if (dirtier_find(&k, &d)) {
			s->cause_kind = CAPTURE_CAUSE_DIRTIER;
			s->cause_passes = d.pad;
			s->cause_pid = d.pid;
			s->cause_cgroup = d.cgroup;
			__builtin_memcpy(s->cause_comm, d.comm, sizeof(s->cause_comm));
		} else {
			__sync_fetch_and_add(&counters.dirtier_missed, 1);
		}
	}
	s->file_bytes = bytes;
	s->cause2_pid = 0;
	s->cause2_cgroup = 0;
	if (second) {
		s->inode2 = f2.inode;
		s->file2_off = f2.off;
		s->file2_dev = f2.dev;
		s->file2_bytes = bytes2;
		if ((s->cmd_flags & 0xff) == 1 /* REQ_OP_WRITE */) {
			struct dirty_key k = { .inode = f2.inode, .index = f2.findex,
					       .dev = f2.dev };
			struct task_id d;

			if (dirtier_find(&k, &d)) {
				s->cause2_passes = d.pad;
				s->cause2_pid = d.pid;
				s->cause2_cgroup = d.cgroup;
				__builtin_memcpy(s->cause2_comm, d.comm, sizeof(s->cause2_comm));
			}
		}
	}
}

#endif
