/* Unit tests of file and task maps (replay/filemap.c): the path:/comm:
 * keys and glob lists, the plan's refusals, and the cutting of records
 * into pieces (a merged writeback of two files, regions of what stays,
 * the packed layout), checked against a byte-by-byte model. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "../../replay/filemap.h"

#define DEV ((8u << 20) | 1) /* the file system's device, 8:1 */

/* The test trace's strings: 0 "", 1 "convert", 2 "kworker/u8:1", then
 * paths from 10 on. */
static const char *strs[] = {
	"", "convert", "kworker/u8:1", "sync", "", "", "", "", "", "",
	"/mnt/scratch/magick-1", "/mnt/pictures/a.jpg", "/mnt/history/a-1.mpc",
	"/mnt/history/a-1.cache", "/mnt/scratch/sub/x",
};

static const char *str(void *ctx, uint32_t id)
{
	(void)ctx;
	return id < sizeof(strs) / sizeof(strs[0]) ? strs[id] : NULL;
}

/* inode i has path 10 + (i - 100), sorted by (dev, inode) */
static const struct bpt_path paths[] = {
	{ DEV, 10, 100 }, { DEV, 11, 101 }, { DEV, 12, 102 }, { DEV, 13, 103 }, { DEV, 14, 104 },
};
static const char *devnames[] = { "sda", "sdb" };

static struct filemap_trace trace(uint32_t columns)
{
	return (struct filemap_trace){ .name = "t.bpt", .columns = columns, .paths = paths,
				       .npaths = 5, .string = str, .ndevices = 2,
				       .dev_names = devnames };
}

/* A write of `bytes` at sector, all of inode `ino` from file offset fo,
 * caused by comm id `comm`, submitted by the kworker. */
static struct bpt_record data_rec(uint64_t sector, uint32_t bytes, uint64_t ino, uint64_t fo,
				  uint32_t comm)
{
	return (struct bpt_record){ .issue_ns = sector, .sector = sector, .bytes = bytes,
				    .op = BPT_OP_WRITE, .comm_id = 2, .pid = 9,
				    .file_class = BPT_FILE_DATA, .file_dev = DEV, .inode = ino,
				    .file_offset = fo, .file_bytes = bytes,
				    .cause_pid = comm ? 7 : 0, .cause_comm_id = comm };
}

#define ALL (BPT_COL_FILE | BPT_COL_CAUSE)

Test(filemap, keys)
{
	struct bpt_error e;
	enum filemap_kind k;
	const char *g;
	char big[FILEMAP_GLOB_MAX + 16];

	cr_assert_eq(filemap_parse_key("path:/tmp/*", &k, &g, &e), 1);
	cr_assert_eq(k, FILEMAP_PATH);
	cr_assert_str_eq(g, "/tmp/*");
	cr_assert_eq(filemap_parse_key("comm:convert", &k, &g, &e), 1);
	cr_assert_eq(k, FILEMAP_COMM);
	cr_assert_eq(filemap_parse_key("sda", &k, &g, &e), 0);
	cr_assert_eq(filemap_parse_key("sda:0-1G", &k, &g, &e), 0);
	cr_assert_eq(filemap_parse_key("paths:/x", &k, &g, &e), 0);
	cr_assert_eq(filemap_parse_key("path:", &k, &g, &e), -EINVAL);
	cr_assert(strstr(e.msg, "no path glob"), "%s", e.msg);
	cr_assert_eq(filemap_parse_key("path:a||b", &k, &g, &e), -EINVAL);
	cr_assert(strstr(e.msg, "empty alternative"), "%s", e.msg);
	cr_assert_eq(filemap_parse_key("path:a|", &k, &g, &e), -EINVAL);
	cr_assert_eq(filemap_parse_key("comm:|a", &k, &g, &e), -EINVAL);
	cr_assert_eq(filemap_parse_key("path:[|]", &k, &g, &e), 1); /* '|' in brackets */
	memcpy(big, "path:", 5);
	memset(big + 5, '*', FILEMAP_GLOB_MAX + 1);
	big[5 + FILEMAP_GLOB_MAX + 1] = 0;
	cr_assert_eq(filemap_parse_key(big, &k, &g, &e), -EINVAL);
	cr_assert(strstr(e.msg, "at most 4095"), "%s", e.msg);
	big[5 + FILEMAP_GLOB_MAX] = 0;
	cr_assert_eq(filemap_parse_key(big, &k, &g, &e), 1);
}

Test(filemap, globs)
{
	/* fnmatch without flags: '*' crosses '/', matches a leading '.' */
	cr_assert(filemap_glob_match("/tmp/*", "/tmp/a/b/c"));
	cr_assert(filemap_glob_match("/tmp/*", "/tmp/.hidden"));
	cr_assert(!filemap_glob_match("/tmp/*", "/var/tmp/a"));
	cr_assert(filemap_glob_match("*.mpc", "/mnt/history/a-1.mpc"));
	cr_assert(filemap_glob_match("*/scratch/*|*.mpc", "/x/scratch/y"));
	cr_assert(filemap_glob_match("*/scratch/*|*.mpc", "/x/y.mpc"));
	cr_assert(!filemap_glob_match("*/scratch/*|*.mpc", "/x/y.cache"));
	cr_assert(filemap_glob_match("/a[|]b", "/a|b"));
	cr_assert(!filemap_glob_match("/a[|]b", "/a"));
	cr_assert(filemap_glob_match("/a\\|b|x", "/a|b"));
	cr_assert(filemap_glob_match("/a\\|b|x", "x"));
	cr_assert(filemap_glob_match("[!a]*", "b"));
	cr_assert(filemap_glob_match("[]]", "]"));
	cr_assert(filemap_glob_match("[", "["));   /* unclosed: a character */
	cr_assert(filemap_glob_match("kworker/*", "kworker/u8:1"));
}

/* Pieces of rec after a plan of fm over recs[0..n). */
static struct filemap *planned(const char *const *keys, const unsigned *tgt, const int *packed,
			       const uint64_t *at, unsigned nk, const struct filemap_trace *t,
			       const struct bpt_record *recs, unsigned n, int want_rc,
			       struct bpt_error *e)
{
	struct filemap *fm = filemap_new();
	int rc;

	cr_assert(fm);
	for (unsigned i = 0; i < nk; i++)
		cr_assert_eq(filemap_add(fm, keys[i], tgt[i], packed[i], at[i], e), 0, "%s", e->msg);
	rc = filemap_plan_begin(fm, t, e);
	for (unsigned i = 0; !rc && i < n; i++)
		rc = filemap_plan_record(fm, &recs[i], i, e);
	if (!rc)
		rc = filemap_plan_end(fm, e);
	cr_assert_eq(rc, want_rc, "plan: %d (%s)", rc, rc ? e->msg : "");
	if (rc) {
		filemap_free(fm);
		return NULL;
	}
	return fm;
}

Test(filemap, same_offsets_and_merged_writeback)
{
	struct filemap_trace t = trace(ALL);
	const char *keys[] = { "path:*/scratch/*" };
	unsigned tgt[] = { 1 };
	int packed[] = { 0 };
	uint64_t at[] = { 0 }, miss;
	struct bpt_error e;
	struct bpt_record r[3];
	struct region_piece p[FILEMAP_MAX_PIECES];
	struct filemap *fm;
	int np;

	r[0] = data_rec(1000, 8192, 100, 0, 1);     /* scratch: all to 1 */
	r[1] = data_rec(2000, 16384, 101, 4096, 1); /* a picture: stays */
	/* merged writeback: 4 KiB of the picture, 8 KiB of scratch/magick-1,
	 * 4 KiB of a third file */
	r[2] = data_rec(3000, 16384, 101, 8192, 1);
	r[2].file_bytes = 4096;
	r[2].file2_dev = DEV;
	r[2].inode2 = 100;
	r[2].file2_offset = 8192;
	r[2].file2_bytes = 8192;
	fm = planned(keys, tgt, packed, at, 1, &t, r, 3, 0, &e);
	np = filemap_split(fm, &r[0], 8192, NULL, 0, 0, p, &miss);
	cr_assert_eq(np, 1);
	cr_assert_eq(p[0].target, 1);
	cr_assert_eq(p[0].offset, 1000 * 512);
	cr_assert_eq(p[0].placement, 1);
	np = filemap_split(fm, &r[1], 16384, NULL, 0, 0, p, &miss);
	cr_assert_eq(np, 1);
	cr_assert_eq(p[0].target, 0);
	cr_assert_eq(p[0].placement, 0);
	np = filemap_split(fm, &r[2], 16384, NULL, 0, 0, p, &miss);
	cr_assert_eq(np, 3);
	cr_assert(p[0].target == 0 && p[0].len == 4096 && p[0].src_off == 0 &&
		  p[0].offset == 3000 * 512);
	cr_assert(p[1].target == 1 && p[1].len == 8192 && p[1].src_off == 4096 &&
		  p[1].offset == 3000 * 512 + 4096 && p[1].placement == 1);
	cr_assert(p[2].target == 0 && p[2].len == 4096 && p[2].src_off == 12288);
	/* a flush of the device goes to both targets; no rest target: -ENODEV */
	struct bpt_record fl = { .op = BPT_OP_FLUSH, .dev = 0 };
	np = filemap_split(fm, &fl, 0, NULL, 0, 0, p, &miss);
	cr_assert_eq(np, 2);
	cr_assert(p[0].target == 0 && p[1].target == 1);
	np = filemap_split(fm, &r[1], 16384, NULL, 0, REGION_NO_TARGET, p, &miss);
	cr_assert_eq(np, -ENODEV);
	cr_assert_eq(miss, 2000 * 512);
	/* a record the plan did not see (a comm never resolved is not
	 * needed for path maps, so change the inode instead: it just stays) */
	r[0].inode = 999;
	np = filemap_split(fm, &r[0], 8192, NULL, 0, 0, p, &miss);
	cr_assert_eq(np, 1);
	cr_assert_eq(p[0].target, 0);
	filemap_free(fm);
}

Test(filemap, what_stays_is_cut_at_regions)
{
	struct filemap_trace t = trace(ALL);
	const char *keys[] = { "path:*.mpc" };
	unsigned tgt[] = { 2 };
	int packed[] = { 0 };
	uint64_t at[] = { 0 }, miss;
	struct bpt_error e;
	struct bpt_record r = data_rec(0, 65536, 102, 0, 1);
	struct region reg[] = { { .start = 8192, .end = 16384, .at = 0, .dev = 0, .target = 3 } };
	struct region_piece p[FILEMAP_MAX_PIECES];
	struct filemap *fm;
	int np;

	r.file_bytes = 32768; /* the rest (a third file's) stays */
	fm = planned(keys, tgt, packed, at, 1, &t, &r, 1, 0, &e);
	/* its first 32 KiB are the .mpc's (to 2); of the rest nothing meets
	 * the region: one piece to the rest's target */
	np = filemap_split(fm, &r, 65536, reg, 1, 0, p, &miss);
	cr_assert_eq(np, 2);
	cr_assert(p[0].target == 2 && p[0].len == 32768);
	cr_assert(p[1].target == 0 && p[1].len == 32768 && p[1].src_off == 32768);
	/* the .mpc's bytes 8-16 KiB do not go to the region's target */
	r.file_bytes = 4096;
	filemap_free(fm);
	fm = planned(keys, tgt, packed, at, 1, &t, &r, 1, 0, &e);
	np = filemap_split(fm, &r, 65536, reg, 1, 0, p, &miss);
	cr_assert_eq(np, 4);
	cr_assert(p[0].target == 2 && p[0].len == 4096);
	cr_assert(p[1].target == 0 && p[1].len == 4096 && p[1].offset == 4096);
	cr_assert(p[2].target == 3 && p[2].len == 8192 && p[2].offset == 0);
	cr_assert(p[3].target == 0 && p[3].offset == 16384 && p[3].len == 65536 - 16384);
	filemap_free(fm);
}

Test(filemap, packed_layout)
{
	struct filemap_trace t = trace(ALL);
	const char *keys[] = { "path:*/history/*" };
	unsigned tgt[] = { 1 };
	int packed[] = { 1 };
	uint64_t at[] = { 1 << 20 }, miss;
	struct bpt_error e;
	struct bpt_record r[4];
	struct region_piece p[FILEMAP_MAX_PIECES];
	struct filemap_rule_info fi;
	struct filemap *fm;

	/* a-1.cache (103) first touched at t=10, a-1.mpc (102) at t=20; the
	 * .cache's bytes reach 10000 (rounded up: 12288) */
	r[0] = data_rec(5000, 4096, 102, 0, 1);
	r[0].issue_ns = 20;
	r[1] = data_rec(9000, 8192, 103, 1808, 1);
	r[1].issue_ns = 10;
	r[2] = data_rec(7000, 4096, 102, 40960, 1);
	r[2].issue_ns = 30;
	/* a direct I/O whose file offset is unknown: the device's "file" */
	r[3] = data_rec(100, 4096, 103, BPT_FILE_OFFSET_UNKNOWN, 1);
	r[3].issue_ns = 40;
	fm = planned(keys, tgt, packed, at, 1, &t, r, 4, 0, &e);
	filemap_rule_info(fm, 0, &fi);
	cr_assert_eq(fi.files, 3);
	cr_assert_eq(fi.at, 1 << 20);
	/* .cache at 1M (12288 bytes), .mpc at 1M + 12288 (45056 bytes),
	 * the device unit at 1M + 12288 + 45056 (bytes 0-55296: 57344 rounded) */
	cr_assert_eq(fi.end, (1 << 20) + 12288 + 45056 + 57344);
	cr_assert_eq(filemap_split(fm, &r[1], 8192, NULL, 0, 0, p, &miss), 1);
	cr_assert_eq(p[0].offset, (1 << 20) + 1808);
	cr_assert_eq(filemap_split(fm, &r[0], 4096, NULL, 0, 0, p, &miss), 1);
	cr_assert_eq(p[0].offset, (1 << 20) + 12288);
	cr_assert_eq(filemap_split(fm, &r[2], 4096, NULL, 0, 0, p, &miss), 1);
	cr_assert_eq(p[0].offset, (1 << 20) + 12288 + 40960);
	cr_assert_eq(filemap_split(fm, &r[3], 4096, NULL, 0, 0, p, &miss), 1);
	cr_assert_eq(p[0].offset, (1 << 20) + 12288 + 45056 + 100 * 512);
	filemap_free(fm);
}

Test(filemap, comm_maps)
{
	struct filemap_trace t = trace(ALL);
	const char *keys[] = { "comm:conv*" };
	unsigned tgt[] = { 1 };
	int packed[] = { 0 };
	uint64_t at[] = { 0 }, miss;
	struct bpt_error e;
	struct bpt_record r[4];
	struct region_piece p[FILEMAP_MAX_PIECES];
	struct filemap *fm;

	r[0] = data_rec(100, 4096, 101, 0, 1);  /* caused by convert */
	r[1] = data_rec(200, 4096, 101, 0, 0);  /* cause unknown: the kworker */
	r[2] = data_rec(300, 4096, 101, 0, 1);  /* convert's journal: stays */
	r[2].file_class = BPT_FILE_JOURNAL;
	r[2].inode = r[2].file_offset = r[2].file_bytes = 0;
	r[3] = data_rec(400, 8192, 101, 0, 3); /* sync's part, then convert's */
	r[3].file_bytes = 4096;
	r[3].file2_dev = DEV;
	r[3].inode2 = 100;
	r[3].file2_bytes = 4096;
	r[3].cause2_pid = 7;
	r[3].cause2_comm_id = 1;
	fm = planned(keys, tgt, packed, at, 1, &t, r, 4, 0, &e);
	cr_assert_eq(filemap_split(fm, &r[0], 4096, NULL, 0, 0, p, &miss), 1);
	cr_assert_eq(p[0].target, 1);
	cr_assert_eq(filemap_split(fm, &r[1], 4096, NULL, 0, 0, p, &miss), 1);
	cr_assert_eq(p[0].target, 0);
	cr_assert_eq(filemap_split(fm, &r[2], 4096, NULL, 0, 0, p, &miss), 1);
	cr_assert_eq(p[0].target, 0);
	cr_assert_eq(filemap_split(fm, &r[3], 8192, NULL, 0, 0, p, &miss), 2);
	cr_assert(p[0].target == 0 && p[1].target == 1 && p[1].src_off == 4096);
	/* a comm id the plan never saw: the file changed */
	r[0].cause_comm_id = 60;
	cr_assert_eq(filemap_split(fm, &r[0], 4096, NULL, 0, 0, p, &miss), -EBADMSG);
	filemap_free(fm);
	/* without cause columns the submitter counts: the kworker */
	t = trace(BPT_COL_FILE);
	keys[0] = "comm:kworker/*";
	fm = planned(keys, tgt, packed, at, 1, &t, r, 2, 0, &e);
	cr_assert_eq(filemap_split(fm, &r[1], 4096, NULL, 0, 0, p, &miss), 1);
	cr_assert_eq(p[0].target, 1);
	filemap_free(fm);
}

Test(filemap, refusals)
{
	struct filemap_trace t = trace(ALL);
	const char *keys[2] = { "path:*/scratch/*", "path:*/sub/*" };
	unsigned tgt[] = { 1, 2 };
	int packed[] = { 0, 0 };
	uint64_t at[] = { 0, 0 };
	struct bpt_error e;
	struct bpt_record r[2] = { data_rec(1, 4096, 104, 0, 1), data_rec(2, 4096, 100, 0, 1) };

	/* /mnt/scratch/sub/x matches both */
	cr_assert_null(planned(keys, tgt, packed, at, 2, &t, r, 2, -EINVAL, &e));
	cr_assert(strstr(e.msg, "ambiguous") && strstr(e.msg, "/mnt/scratch/sub/x"), "%s", e.msg);
	/* a path and a comm map taking one I/O */
	keys[1] = "comm:convert";
	cr_assert_null(planned(keys, tgt, packed, at, 2, &t, r, 2, -EINVAL, &e));
	cr_assert(strstr(e.msg, "taken by --map path:*/scratch/* and by --map comm:convert"),
		  "%s", e.msg);
	/* a glob no path matches */
	keys[0] = "path:/nowhere/*";
	cr_assert_null(planned(keys, tgt, packed, at, 1, &t, r, 2, -EINVAL, &e));
	cr_assert(strstr(e.msg, "no path of the trace's 5 matches"), "%s", e.msg);
	/* a path that matches, but no I/O of it is replayed */
	keys[0] = "path:*.jpg";
	cr_assert_null(planned(keys, tgt, packed, at, 1, &t, r, 2, -EINVAL, &e));
	cr_assert(strstr(e.msg, "no I/O to replay holds their data"), "%s", e.msg);
	/* a task nothing is credited to */
	keys[0] = "comm:photoshop";
	cr_assert_null(planned(keys, tgt, packed, at, 1, &t, r, 2, -EINVAL, &e));
	cr_assert(strstr(e.msg, "tasks: convert"), "%s", e.msg);
	/* a trace without file columns or without paths */
	keys[0] = "path:*";
	t = trace(BPT_COL_CAUSE);
	cr_assert_null(planned(keys, tgt, packed, at, 1, &t, r, 2, -EINVAL, &e));
	cr_assert(strstr(e.msg, "t.bpt: --map path:*: the trace has no file columns"), "%s", e.msg);
	t = trace(ALL);
	t.npaths = 0;
	cr_assert_null(planned(keys, tgt, packed, at, 1, &t, r, 2, -EINVAL, &e));
	cr_assert(strstr(e.msg, "no path table"), "%s", e.msg);
	/* at recorded offsets, over two recorded devices */
	t = trace(ALL);
	r[1].dev = 1;
	cr_assert_null(planned(keys, tgt, packed, at, 1, &t, r, 2, -EINVAL, &e));
	cr_assert(strstr(e.msg, "recorded devices sda and sdb"), "%s", e.msg);
	packed[0] = 1; /* packed they may */
	filemap_free(planned(keys, tgt, packed, at, 1, &t, r, 2, 0, &e));
	/* two packed areas overlapping on one target */
	keys[0] = "path:*/scratch/*";
	keys[1] = "path:*/sub/x";
	keys[0] = "path:*/magick-1";
	tgt[1] = 1;
	packed[1] = 1;
	at[1] = 2048;
	cr_assert_null(planned(keys, tgt, packed, at, 2, &t, r, 2, -EINVAL, &e));
	cr_assert(strstr(e.msg, "overlap"), "%s", e.msg);
	at[1] = 4096; /* right after the first's 4 KiB */
	filemap_free(planned(keys, tgt, packed, at, 2, &t, r, 2, 0, &e));
}

/* An @OFFSET past the packed limit (2^62) is refused: near 2^64 the
 * layout's end wrapped to a small offset (the files' writes landed at the
 * start of the target, and the overlap check saw an empty area). */
Test(filemap, packed_offset_past_the_limit)
{
	struct filemap_trace t = trace(ALL);
	const char *keys[] = { "path:*/history/*" };
	unsigned tgt[] = { 1 };
	int packed[] = { 1 };
	uint64_t at[] = { UINT64_MAX - 4095 };
	struct bpt_error e;
	struct bpt_record r[1] = { data_rec(5000, 8192, 102, 0, 1) };

	cr_assert_null(planned(keys, tgt, packed, at, 1, &t, r, 1, -EINVAL, &e));
	cr_assert(strstr(e.msg, "--map path:*/history/*: @18446744073709547520 is past 2^62"),
		  "%s", e.msg);
	at[0] = (1ull << 62) - 4096; /* room for 4 KiB, not for the file's 8 */
	cr_assert_null(planned(keys, tgt, packed, at, 1, &t, r, 1, -EINVAL, &e));
	cr_assert(strstr(e.msg, "more than 2^62 bytes packed"), "%s", e.msg);
}
