/*
 * causal.h — causal timing's bookkeeping (sched.h has the rule): an I/O
 * recorded at issue time t may go once every I/O whose recorded
 * completion came before t has completed in the replay; it then waits
 * its think time after the latest of those replay completions.
 *
 * Fed the I/Os in issue order as they are issued. Every I/O whose
 * recorded completion is before t was issued before the I/O at t (it was
 * issued before it completed), so a min-heap of the recorded completions
 * of the I/Os issued so far, popped up to t, yields exactly those
 * dependencies, whatever their distance in the trace (an I/O outstanding
 * for an hour is one heap entry for that hour). Entries leave the heap
 * once passed and completed, so memory follows the number of I/Os in
 * flight in the recording or the replay, not the trace's length.
 */
#ifndef BLKPEAK_CAUSAL_H
#define BLKPEAK_CAUSAL_H

#include <stdint.h>

#include "minheap.h"

struct causal_slot {
	uint64_t done_at;   /* replay completion, relative to time 0 */
	uint8_t completed;  /* in the replay */
	uint8_t passed;     /* its recorded completion is a dependency now */
};

struct causal {
	struct minheap recorded;   /* (recorded completion, slot) */
	struct causal_slot *slot;
	uint32_t *free_slots;
	uint64_t nslots, nfree;
	uint64_t waiting;          /* passed, not completed in the replay */
	uint64_t deps_done;        /* latest replay completion of a passed I/O */
	uint64_t since;            /* latest recorded completion passed */
};

/* I/O issued, recorded completion done_ns; *slot is for causal_done.
 * 0 or -ENOMEM. */
int causal_issued(struct causal *c, uint64_t done_ns, uint32_t *slot);
/* That I/O completed in the replay at rel_ns (from time 0). */
void causal_done(struct causal *c, uint32_t slot, uint64_t rel_ns);
/*
 * May the next I/O, recorded at issue time t_ns, go? 1 with *deps_done
 * (latest replay completion of its dependencies, 0 when none) and *since
 * (latest recorded completion among them, 0 when none); 0 while one of
 * them is still in flight. t_ns must not decrease from call to call.
 */
int causal_ready(struct causal *c, uint64_t t_ns, uint64_t *deps_done, uint64_t *since);
void causal_free(struct causal *c);

#endif
