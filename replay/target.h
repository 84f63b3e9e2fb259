/*
 * target.h — what `--target SPEC` names and how it is opened.
 *
 * A spec is a path (block device or regular file) or a virtual array:
 *   raid0:chunk=64k:A,B[,...]   raid1:A,B[,...]
 *   raid10:chunk=64k:A,B,C,D    linear:A,B[,...]
 *   raid5:chunk=64k[:layout=L][:missing=N]:A,B,C[,...]
 *   raid6:chunk=64k[:layout=L][:missing=N[,M]]:A,B,C,D[,...]
 * Every array kind also takes cache=SIZE[:destage=PCT] before its
 * members: a controller's write-back cache (array/wcache.h).
 * Member paths may not contain ',' (they may contain ':'). A spec starting
 * with a word and ':' that is not a known layout is an error, not a path,
 * so that "raid5:a,b" is not taken for a file called "raid5:a,b".
 *
 * Any member, or the whole target when it is one path, may be an emulated
 * disk: hdd:MODEL:PATH (target_hdd.h), MODEL being a preset and/or
 * key=value items separated by ',' up to the next ':' (disk_model.h):
 *   hdd:7200:/dev/loop3
 *   raid0:chunk=64k:hdd:7200:A,hdd:7200,wcache=off:B
 * hdd: wraps one path, not an array: put it on each member instead.
 */
#ifndef BLKPEAK_TARGET_H
#define BLKPEAK_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "disk/disk_model.h"
#include "array/layout.h"

struct target_spec {
	enum layout_kind kind;
	uint64_t chunk;                         /* raid0, raid10, raid5, raid6 */
	enum raid_algo algo;                    /* raid5, raid6: layout= */
	uint32_t missing;                       /* raid5, raid6: missing= */
	uint64_t cache;                         /* arrays: cache=, bytes; 0: none */
	unsigned destage_pct;                   /* arrays: destage= (% dirty) */
	unsigned nmembers;
	char *members[LAYOUT_MAX_MEMBERS];      /* owned */
	struct disk_params *model[LAYOUT_MAX_MEMBERS]; /* owned; NULL: real disk */
};

/*
 * Parse `text` into *spec. On failure returns -EINVAL and writes the
 * reason (lowercase, names the part at fault) to why[len].
 */
int target_spec_parse(const char *text, struct target_spec *spec, struct bpt_error *error);
void target_spec_free(struct target_spec *spec);

/* How the target may be touched (from the command line). */
struct target_policy {
	int allow_write;       /* --allow-write */
	int writes_replayed;   /* the trace has writes that will be sent */
	uint64_t nwrites;      /* how many (for the message) */
	uint64_t create_size;  /* --create SIZE, 0 when not given */
};

/* An opened target: the members' descriptors and the layout over them. */
struct target {
	struct target_spec spec;
	struct layout layout;
	int fd[LAYOUT_MAX_MEMBERS];
	int is_blkdev[LAYOUT_MAX_MEMBERS];
	unsigned lbs[LAYOUT_MAX_MEMBERS];  /* logical block size */
	unsigned align;                    /* largest lbs of the members */
	char text[256];                    /* the spec as typed */
	/* --create: what this open made, for target_discard() to undo */
	int created[LAYOUT_MAX_MEMBERS];   /* the file did not exist */
	int64_t old_size[LAYOUT_MAX_MEMBERS]; /* extended from this size, else -1 */
	struct wcache *wc;                 /* spec.cache: the controller's cache */
};

/*
 * Parse `text`, run the safety checks on every member (safety.h) and open
 * them O_DIRECT (block devices also O_EXCL), then build the layout.
 * On failure returns a negative errno with the reason in why[len]
 * ("/dev/loop3: mounted at /mnt, refusing to use it") and leaves nothing
 * open, and no file it created or extended (target_discard).
 */
int target_open(struct target *t, const char *text,
		const struct target_policy *pol, struct bpt_error *error);
void target_close(struct target *t);
/*
 * Close t after a refusal, before any I/O: first undo what its --create
 * did in this run (remove a member file it created, cut one it extended
 * back to its old size); a file that existed is never removed.
 */
void target_discard(struct target *t);

#endif
