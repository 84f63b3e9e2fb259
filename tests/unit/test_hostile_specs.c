/*
 * Unit tests of the defects hostile input found (issue 27) in the spec
 * parsers of replay/: target specs (chunk=, missing=, repeated keys),
 * disk-model items and files (repeated keys, long comments, files that
 * are no regular file), --map offsets, and common/'s size reasons; and
 * the other key:value lists (generate --bs, measure --weights). Each
 * test failed (or hung: the timeouts) before its fix.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpt.h"
#include "cliutil.h"
#include "gen_sizemix.h"
#include "../../measure/depths.h"
#include "../../replay/disk/disk_model.h"
#include "../../replay/region.h"
#include "../../replay/target.h"

/* The spec is refused with a message holding `want`. */
static void spec_refused(const char *text, const char *want)
{
	struct target_spec ts;
	struct bpt_error e = { 0 };

	cr_assert_eq(target_spec_parse(text, &ts, &e), -EINVAL, "%s accepted", text);
	cr_assert(strstr(e.msg, want), "%s: '%s', want '%s'", text, e.msg, want);
}

/* Group 10: say what is wrong with a chunk size, a missing= list, and
 * refuse a key given twice. */
Test(hostile_specs, target_spec_reasons_and_repeated_keys)
{
	spec_refused("raid0:chunk=128s:a,b", "chunk '128s': unknown unit 's'");
	spec_refused("raid0:chunk=1e:a,b", "chunk '1e': not a number");
	spec_refused("raid0:chunk=1000:a,b", "chunk '1000' is not a multiple of 512 bytes");
	spec_refused("raid5:chunk=64k:missing=7:a,b,c", "missing=7: member 7 does not exist");
	spec_refused("raid6:chunk=64k:missing=1,1:a,b,c,d", "missing=1,1: member 1 given twice");
	spec_refused("raid0:chunk=64k:chunk=128k:a,b", "chunk= given twice");
	spec_refused("raid5:chunk=64k:layout=left-symmetric:layout=parity-last:a,b,c",
		     "layout= given twice");
	spec_refused("raid5:chunk=64k:missing=1:missing=2:a,b,c", "missing= given twice");
}

Test(hostile_specs, size_reasons)
{
	char buf[80];

	cr_assert_str_eq(parse_size_why("x1", buf, sizeof(buf)), "not a number");
	cr_assert(strstr(parse_size_why("4q", buf, sizeof(buf)), "unknown unit 'q'"));
	cr_assert_str_eq(parse_size_why("1.5", buf, sizeof(buf)), "not a whole number of bytes");
}

static void model_refused(const char *spec, const char *want)
{
	struct disk_params p;
	struct bpt_error e = { 0 };

	cr_assert_lt(disk_params_parse(spec, &p, &e), 0, "%s accepted", spec);
	cr_assert(strstr(e.msg, want), "%s: '%s', want '%s'", spec, e.msg, want);
}

Test(hostile_specs, disk_model_repeated_key)
{
	struct disk_params p;
	struct bpt_error e = { 0 };

	model_refused("7200,rpm=5400,rpm=7200", "rpm= given twice");
	cr_assert_eq(disk_params_parse("7200,wcache=off", &p, &e), 0, "%s", e.msg);
	cr_assert_eq(p.wcache, 0);
}

/* A model file of HEAD, N copies of FILL and TAIL, parsed as file=PATH
 * (the file removed after): disk_params_parse's result. */
static int parse_model_file(const char *name, const char *head, char fill, int n,
			    const char *tail, struct disk_params *p, struct bpt_error *e)
{
	char path[96], spec[128];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "/dev/shm/hostile-model-%s-%d", name, (int)getpid());
	f = fopen(path, "w");
	cr_assert(f);
	fputs(head, f);
	for (int i = 0; i < n; i++)
		fputc(fill, f);
	fputs(tail, f);
	fclose(f);
	snprintf(spec, sizeof(spec), "file=%s", path);
	rc = disk_params_parse(spec, p, e);
	unlink(path);
	return rc;
}

/* Group 6: a comment longer than the old 1100-byte line buffer had its
 * tail applied as settings. */
Test(hostile_specs, disk_model_file_long_comment_is_a_comment)
{
	struct disk_params p;
	struct bpt_error e = { 0 };
	int rc = parse_model_file("comment", "7200\n#", 'x', 1200, " wcache=off\n", &p, &e);

	cr_assert_eq(rc, 0, "%s", e.msg);
	cr_assert_eq(p.wcache, 1, "the comment's tail was applied");
}

Test(hostile_specs, disk_model_file_long_line_named)
{
	struct disk_params p;
	struct bpt_error e = { 0 };
	int rc = parse_model_file("long", "7200\nrpm=", '7', 2000, "\n", &p, &e);

	cr_assert_lt(rc, 0);
	cr_assert(strstr(e.msg, ":2: longer than 1000 bytes"), "%s", e.msg);
}

/* Group 6: file=/dev/zero read forever, a FIFO blocked forever. */
Test(hostile_specs, disk_model_file_must_be_a_regular_file, .timeout = 10)
{
	char fifo[96], spec[128];

	model_refused("file=/dev/zero", "/dev/zero: a character device, not a disk model file");
	snprintf(fifo, sizeof(fifo), "/dev/shm/hostile-fifo-%d", (int)getpid());
	unlink(fifo);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(spec, sizeof(spec), "file=%s", fifo);
	struct disk_params p;
	struct bpt_error e = { 0 };
	int rc = disk_params_parse(spec, &p, &e);

	unlink(fifo);
	cr_assert_lt(rc, 0);
	cr_assert(strstr(e.msg, "a FIFO, not a disk model file"), "%s", e.msg);
}

/* Group 8: "q.img@64zz" became a file of that name. */
Test(hostile_specs, map_offset_suffix_must_be_a_size)
{
	struct bpt_error e = { 0 };
	uint64_t at = 0;
	size_t len = 0;

	cr_assert_lt(region_parse_at("q.img@64zz", &len, &at, &e), 0);
	cr_assert(strstr(e.msg, "@64zz is not an offset"), "%s", e.msg);
	cr_assert_eq(region_parse_at("q.img@64k", &len, &at, &e), 1);
	cr_assert_eq(at, 65536);
	cr_assert_eq(len, 5);
	cr_assert_eq(region_parse_at("user@host.img", &len, &at, &e), 0, "a path holding '@'");
}

/* Group 10: a key given twice in the other key:value lists. */
Test(hostile_specs, size_mix_and_weights_refuse_a_key_twice)
{
	struct size_mix mix;
	struct depths d;
	struct bpt_error e = { 0 };

	cr_assert_eq(size_mix_parse("4k:10,4k:20", &mix, &e), -EINVAL);
	cr_assert(strstr(e.msg, "the size 4096 given twice"), "%s", e.msg);
	cr_assert_eq(size_mix_parse("512:10,4k:20", &mix, &e), 0, "%s", e.msg);
	cr_assert_eq(depths_parse("1,2", &d, &e), 0, "%s", e.msg);
	cr_assert_eq(depths_weights_parse("1:10,1:20,2:5", &d, &e), -EINVAL);
	cr_assert(strstr(e.msg, "--weights: depth 1 given twice"), "%s", e.msg);
	cr_assert_eq(depths_weights_parse("1:10,2:5", &d, &e), 0, "%s", e.msg);
}
