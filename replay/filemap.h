/*
 * filemap.h — "dual" placement by file or by task: the I/O of the files
 * whose recorded path matches a glob (`--map path:GLOB=SPEC[@OFFSET]`),
 * or that a task caused (`--map comm:NAME=SPEC[@OFFSET]`), replayed on a
 * target of its own, as IPEAK's "Dual" set-up kept the pagefile, the
 * scratch disk and the temporary directories on a second disk.
 *
 * What is matched. A record is read as up to three parts, in the order
 * of its bytes (trace format 1.3, schemas/trace-format.md "Files and
 * paths"):
 *   - a DATA record: [0, file_bytes) of its file, [file_bytes,
 *     file_bytes + file2_bytes) of its second file (a merged writeback),
 *     and the rest (a third file's, not credited);
 *   - any other record (metadata, journal, swap, raw, unknown, or a trace
 *     without file columns): one part, the whole I/O.
 * Each part has a task: the cause (cause_* for the first file's part and
 * other records, cause2_* for the second file's), the submitter where the
 * cause is not known (bpt_record_credit's rule, as analyze report's "By
 * program"); the rest of a DATA record has the submitter's.
 * A path rule takes the file parts whose file has a path (any of its
 * entries in the trace's path table) matching one of its globs. A comm
 * rule takes the parts whose task's comm matches, except metadata and
 * journal parts: they belong to the recorded disk's file system and stay
 * with it, as do every part no rule takes. Globs are fnmatch(3) without
 * flags: '*' and '?' match '/' and a leading '.' too, so "/tmp/" then
 * '*' is everything below /tmp at any depth and "*.mpc" every .mpc file;
 * '|' separates alternatives ("*.mpc|*.cache"), a '|' inside [...] is a
 * character.
 *
 * Where it goes. Without @OFFSET a rule's parts go to its target at the
 * byte offsets they had on the recorded disk (so a rule may take parts of
 * one recorded device only). With @OFFSET they are packed: each file is
 * laid out whole from OFFSET on, one after the other in the order of its
 * first I/O (issue time, then record index, then part), byte o of the
 * file at its start + o, its area from 0 to the end of the last byte the
 * trace touched rounded up to 4 KiB; a part with no file or no known
 * offset in its file (raw, swap, unknown, a direct I/O after a front
 * merge) counts as a "file" of its recorded device, at its offset there.
 * The layout is a pure function of the trace and the maps; an I/O whose
 * bytes were contiguous in its file stays one contiguous request.
 *
 * Cutting. A record whose parts get different places is cut at the part
 * bounds (and the parts that stay are cut at region bounds, region.h);
 * pieces that meet on one target in one placement are joined again. A
 * flush of a recorded device goes to the targets it had and to the
 * target of every rule that takes parts of that device, each once.
 *
 * Refused: a part two rules take (ambiguous: give each file or task one
 * --map); a path rule on a trace without file columns or path table; a
 * rule that takes nothing; a rule without @OFFSET whose parts lie on two
 * recorded devices; packed areas of two rules that overlap on one target.
 */
#ifndef BLKPEAK_FILEMAP_H
#define BLKPEAK_FILEMAP_H

#include <stdint.h>

#include "bpt.h"
#include "error.h"
#include "region.h"

/* Rules at most (each is a --map: no more than replay's targets). */
#define FILEMAP_MAX 16
/* Pieces one I/O can become: the region pieces of the whole I/O, plus a
 * cut at each of the two inner part bounds. */
#define FILEMAP_MAX_PIECES (REGION_MAX_PIECES + 2)
/* A packed file's area is rounded up to this. */
#define FILEMAP_ALIGN 4096u
/* Longest glob list after "path:" or "comm:". */
#define FILEMAP_GLOB_MAX 4095u

enum filemap_kind { FILEMAP_PATH, FILEMAP_COMM };

/*
 * The key of a --map (what precedes '='): 1 when it is "path:GLOB" or
 * "comm:GLOB" (*kind set, *glob pointing into key), 0 when it is neither
 * (a device, a region, a partition), -EINVAL with the reason for an
 * empty glob or alternative, or one longer than FILEMAP_GLOB_MAX.
 */
int filemap_parse_key(const char *key, enum filemap_kind *kind, const char **glob,
		      struct bpt_error *error);

/* Does `name` match the '|'-separated glob list? */
int filemap_glob_match(const char *list, const char *name);

struct filemap;

/* An empty map set, or NULL (out of memory). filemap_free takes NULL. */
struct filemap *filemap_new(void);
void filemap_free(struct filemap *fm);

/*
 * Add a rule: `key` as filemap_parse_key takes it (kept, not copied),
 * its target index, and packed (1, from byte `at`) or at the recorded
 * offsets (0). -EINVAL (error filled) for a bad key, -E2BIG past
 * FILEMAP_MAX rules.
 */
int filemap_add(struct filemap *fm, const char *key, unsigned target, int packed,
		uint64_t at, struct bpt_error *error);
unsigned filemap_count(const struct filemap *fm);

/* What the plan needs of the trace besides its records. */
struct filemap_trace {
	const char *name;              /* for messages: the trace's path */
	uint32_t columns;              /* its header's optional columns */
	const struct bpt_path *paths;  /* its path table */
	size_t npaths;
	/* a string (comm, path) by id, NULL when unknown */
	const char *(*string)(void *ctx, uint32_t id);
	void *ctx;
	unsigned ndevices;
	const char *const *dev_names;  /* recorded device names, for messages */
};

/*
 * The plan: filemap_plan_begin matches the path table (refusing path
 * rules on a trace without file columns or path table, an inode two
 * rules take, a path rule no path matches); filemap_plan_record is fed
 * every record that will be replayed, in any order, with its record
 * index (it resolves comms and refuses a part two rules take);
 * filemap_plan_end lays the packed rules out and refuses what the
 * header says is refused. Each returns 0 or -EINVAL / -ENOMEM with
 * error filled. `t` must stay valid until filemap_plan_end.
 */
int filemap_plan_begin(struct filemap *fm, const struct filemap_trace *t,
		       struct bpt_error *error);
int filemap_plan_record(struct filemap *fm, const struct bpt_record *rec, uint64_t idx,
			struct bpt_error *error);
int filemap_plan_end(struct filemap *fm, struct bpt_error *error);

/*
 * The whole plan over reader `r` (named `name` in messages): begin, every
 * record keep() says will be replayed (the --writes policy), end. The
 * reader must outlive fm (its strings and paths are used). Leaves the
 * reader's position anywhere.
 */
struct bpt_reader;
int filemap_plan(struct filemap *fm, struct bpt_reader *r, const char *name,
		 int (*keep)(const struct bpt_record *rec, void *ctx), void *keep_ctx,
		 struct bpt_error *error);

/*
 * Cut record `rec` after the plan: `len` its bytes as replayed (0 for a
 * flush), `rest` the target of its device's bytes outside every region
 * and rule (REGION_NO_TARGET: none), regions r[0..nr) sorted as
 * region_check leaves them. Fills out[0..FILEMAP_MAX_PIECES) (placement
 * 0 for what stays, k for rule k-1) and returns the count; -ENODEV when a
 * byte that stays has no target (*miss: that byte on the recorded
 * device); -EBADMSG when the record is not one the plan saw (the file
 * changed).
 */
int filemap_split(const struct filemap *fm, const struct bpt_record *rec, uint64_t len,
		  const struct region *r, unsigned nr, unsigned rest,
		  struct region_piece *out, uint64_t *miss);

/* Rule k (0-based) for the summary: its key as given, whether packed,
 * where its area starts and ends (packed), and the files (units) it
 * took. */
struct filemap_rule_info {
	const char *key;
	unsigned target;
	int packed;
	uint64_t at, end;
	uint64_t files;
};
void filemap_rule_info(const struct filemap *fm, unsigned k, struct filemap_rule_info *info);

#endif
