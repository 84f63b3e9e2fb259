/*
 * ringread.c — the events ring buffer read in place, with the consumer
 * position published once per batch of records.
 *
 * libbpf's ring_buffer__consume() stores the consumer position after
 * every record. bpf_ringbuf_reserve() reads that position on every event
 * the BPF side sends, on the CPUs the I/O runs on, so each of those stores
 * took the cache line away from them while the capture drained its ring.
 * Here the position is stored every EVRING_BATCH records and at the end
 * of a drain: the space of a batch (some 12 KiB of an 8 MiB buffer) is
 * given back a little later, nothing else changes.
 *
 * The layout is the kernel's (kernel/bpf/ringbuf.c), as libbpf maps it:
 * a writable page holding the consumer position at offset 0 of the map's
 * fd, then a read-only page holding the producer position, then the data
 * pages, mapped twice in a row so a record that wraps reads as one. Each
 * record starts with an 8-byte header whose first word is its length,
 * with BUSY (not committed yet) and DISCARD flags in the top bits.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture.h"

#define RB_BUSY_BIT (1u << 31)
#define RB_DISCARD_BIT (1u << 30)
#define RB_HDR_SZ 8u
#define EVRING_BATCH 64

int evring_open(struct evring *r, int map_fd, uint64_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	r->cons = MAP_FAILED;
	r->prod = MAP_FAILED;
	if (page <= 0 || !size || (size & (size - 1)))
		return -EINVAL;
	r->page = (size_t)page;
	r->size = size;
	p = mmap(NULL, r->page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->cons = p;
	p = mmap(NULL, r->page + 2 * size, PROT_READ, MAP_SHARED, map_fd, (off_t)r->page);
	if (p == MAP_FAILED) {
		int err = -errno;

		evring_close(r);
		return err;
	}
	r->prod = p;
	r->data = (const uint8_t *)p + r->page;
	return 0;
}

void evring_close(struct evring *r)
{
	if (r->cons != MAP_FAILED)
		munmap(r->cons, r->page);
	if (r->prod != MAP_FAILED)
		munmap(r->prod, r->page + 2 * r->size);
	r->cons = r->prod = MAP_FAILED;
}

int evring_consume(struct evring *r, evring_fn fn, void *ctx)
{
	uint64_t *consumer = r->cons;
	const uint64_t *producer = r->prod;
	uint64_t cons = __atomic_load_n(consumer, __ATOMIC_RELAXED), prod;
	unsigned batch = 0;
	int n = 0, err = 0, more;

	do {
		more = 0;
		prod = __atomic_load_n(producer, __ATOMIC_ACQUIRE);
		while (cons < prod) {
			const uint32_t *hdr = (const void *)(r->data + (cons & (r->size - 1)));
			uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

			if (len & RB_BUSY_BIT)
				goto out; /* reserved, not committed yet */
			more = 1;
			cons += ((len & ~RB_DISCARD_BIT) + RB_HDR_SZ + 7) & ~7u;
			if (!(len & RB_DISCARD_BIT)) {
				err = fn(ctx, (void *)((const uint8_t *)hdr + RB_HDR_SZ),
					 len & ~RB_DISCARD_BIT);
				if (err)
					goto out;
				n++;
			}
			if (++batch == EVRING_BATCH) {
				__atomic_store_n(consumer, cons, __ATOMIC_RELEASE);
				batch = 0;
			}
		}
	} while (more);
out:
	__atomic_store_n(consumer, cons, __ATOMIC_RELEASE);
	return err ? err : n;
}
