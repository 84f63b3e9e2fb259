/* Unit tests of target specs (replay/target.c) and of fitting a trace
 * onto a target (replay/fit.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../../replay/fit.h"
#include "../../replay/target.h"

static void parse_fails(const char *text, const char *msg_part)
{
	struct target_spec s;
	struct bpt_error why = { 0 };

	cr_expect_eq(target_spec_parse(text, &s, &why), -EINVAL, "%s", text);
	cr_expect(strstr(why.msg, msg_part) != NULL, "'%s': message '%s' lacks '%s'", text,
		  why.msg, msg_part);
}

Test(target, plain_path)
{
	struct target_spec s;
	struct bpt_error why = { 0 };

	cr_assert_eq(target_spec_parse("/dev/loop3", &s, &why), 0);
	cr_expect_eq(s.kind, LAYOUT_SINGLE);
	cr_expect_eq(s.nmembers, 1);
	cr_expect_str_eq(s.members[0], "/dev/loop3");
	target_spec_free(&s);
	cr_assert_eq(target_spec_parse("./odd:name.img", &s, &why), 0);
	cr_expect_str_eq(s.members[0], "./odd:name.img");
	target_spec_free(&s);
}

Test(target, arrays)
{
	struct target_spec s;
	struct bpt_error why = { 0 };

	cr_assert_eq(target_spec_parse("raid0:chunk=64k:/dev/a,/dev/b", &s, &why), 0);
	cr_expect_eq(s.kind, LAYOUT_RAID0);
	cr_expect_eq(s.chunk, 65536);
	cr_expect_eq(s.nmembers, 2);
	cr_expect_str_eq(s.members[1], "/dev/b");
	target_spec_free(&s);
	cr_assert_eq(target_spec_parse("raid1:a,b,c", &s, &why), 0);
	cr_expect_eq(s.kind, LAYOUT_RAID1);
	cr_expect_eq(s.nmembers, 3);
	target_spec_free(&s);
	cr_assert_eq(target_spec_parse("raid10:chunk=512:a,b,c,d", &s, &why), 0);
	cr_expect_eq(s.kind, LAYOUT_RAID10);
	cr_expect_eq(s.chunk, 512);
	cr_expect_eq(s.nmembers, 4);
	target_spec_free(&s);
	cr_assert_eq(target_spec_parse("linear:x,y", &s, &why), 0);
	cr_expect_eq(s.kind, LAYOUT_LINEAR);
	target_spec_free(&s);
	cr_assert_eq(target_spec_parse("raid6:chunk=64k:layout=right-asymmetric:missing=3,0:a,b,c,d",
					&s, &why), 0);
	cr_expect(s.kind == LAYOUT_RAID6 && s.algo == RAID_RIGHT_ASYMMETRIC && s.missing == 9 &&
		  s.nmembers == 4 && s.chunk == 65536);
	target_spec_free(&s);
	cr_assert_eq(target_spec_parse("raid5:chunk=4k:a:b,c,d", &s, &why), 0);
	cr_expect(s.algo == RAID_LEFT_SYMMETRIC && !s.missing && !strcmp(s.members[0], "a:b"));
	target_spec_free(&s);
	cr_assert_eq(target_spec_parse("raid0:chunk=4k:only", &s, &why), 0);
	cr_expect_eq(s.nmembers, 1);
	target_spec_free(&s);
}

Test(target, errors)
{
	parse_fails("", "empty target");
	parse_fails("raid7:a,b", "unknown layout 'raid7'");
	parse_fails("raid5:a,b", "raid5 needs a chunk size");
	parse_fails("raid5:chunk=64k:a,b", "raid5 needs at least 3 members, got 2");
	parse_fails("raid6:chunk=64k:a,b,c", "raid6 needs at least 4 members, got 3");
	parse_fails("raid5:chunk=96k:a,b,c", "needs a power of two");
	parse_fails("raid5:chunk=64k:missing=3:a,b,c", "member 3 does not exist");
	parse_fails("raid5:chunk=64k:missing=0,1:a,b,c", "at most 1 missing member");
	parse_fails("raid6:chunk=64k:missing=1,1:a,b,c,d", "member 1 given twice");
	parse_fails("raid6:chunk=64k:layout=diagonal:a,b,c,d", "unknown layout 'diagonal'");
	parse_fails("raid0:a,b", "needs a chunk size");
	parse_fails("raid0:chunk=1000:a,b", "not a multiple of 512");
	parse_fails("raid0:chunk=xyz:a,b", "chunk 'xyz'");
	parse_fails("raid0:chunk=64k", "expected raid0:chunk=SIZE:A,B");
	parse_fails("raid1:chunk=64k:a,b", "takes no chunk size");
	parse_fails("raid1:a", "needs at least 2 members, got 1");
	parse_fails("raid10:chunk=64k:a", "needs at least 2 members");
	parse_fails("linear:a,,b", "empty member path");
	parse_fails("linear:", "empty member path");
	parse_fails("/dev/a,/dev/b", "a plain target is one path");
}

/* hdd:MODEL:PATH members: the model (with its commas) is taken up to the
 * next ':', the path up to the next ','. */
Test(target, emulated_disks)
{
	struct target_spec s;
	struct bpt_error why = { 0 };

	cr_assert_eq(target_spec_parse("hdd:7200:/dev/loop3", &s, &why), 0, "%s", why.msg);
	cr_expect_eq(s.kind, LAYOUT_SINGLE);
	cr_expect_eq(s.nmembers, 1);
	cr_expect_str_eq(s.members[0], "/dev/loop3");
	cr_assert_not_null(s.model[0]);
	cr_expect_eq(s.model[0]->rpm, 7200);
	target_spec_free(&s);
	cr_assert_eq(target_spec_parse("raid0:chunk=64k:hdd:7200,wcache=off,queue=4:a,b,"
				       "hdd:15k:c:d",
				       &s, &why),
		     0, "%s", why.msg);
	cr_expect_eq(s.nmembers, 3);
	cr_expect_str_eq(s.members[0], "a");
	cr_expect_eq(s.model[0]->wcache, 0);
	cr_expect_eq(s.model[0]->queue, 4);
	cr_expect_str_eq(s.members[1], "b");
	cr_expect_null(s.model[1], "a member without hdd: is a real disk");
	cr_expect_str_eq(s.members[2], "c:d");
	cr_expect_eq(s.model[2]->rpm, 15000);
	target_spec_free(&s);
	cr_assert_eq(target_spec_parse("raid1:hdd:instant:x,hdd:ssd:y", &s, &why), 0);
	cr_expect_eq(s.model[0]->kind, DM_INSTANT);
	cr_expect_eq(s.model[1]->kind, DM_SSD);
	target_spec_free(&s);

	parse_fails("hdd:7300:/dev/a", "not a disk model");
	parse_fails("hdd:7200", "expected hdd:MODEL:PATH");
	parse_fails("hdd::/dev/a", "expected hdd:MODEL:PATH");
	parse_fails("hdd:7200:", "empty member path");
	parse_fails("hdd:7200:raid0:chunk=64k:a,b", "put hdd: on each member");
	parse_fails("hdd:7200:hdd:5400:a", "put hdd: on each member");
	parse_fails("hdd:7200:a,b", "emulates one disk");
	parse_fails("raid1:hdd:7200,seek_avg=9:a,b", "give a unit");
}

Test(fit, refuse_names_both_sizes)
{
	struct fit f;
	struct bpt_error why = { 0 };

	cr_assert_eq(fit_init(&f, FIT_REFUSE, 2 << 20, 4096, 1 << 20, 0, 512, "/dev/loop9",
			      &why), -ENOSPC);
	cr_expect(strstr(why.msg, "/dev/loop9") && strstr(why.msg, "2097152") && strstr(why.msg, "1048576"),
		  "%s", why.msg);
	cr_expect(strstr(why.msg, "--fit wrap|scale"), "%s", why.msg);
	cr_expect_eq(fit_init(&f, FIT_REFUSE, 1 << 20, 4096, 1 << 20, 0, 512, "t", &why), 0, "exactly fits");
	cr_expect_eq(fit_map(&f, 4096, 4096), 4096);
}

Test(fit, offset_shifts_and_counts)
{
	struct fit f;
	struct bpt_error why = { 0 };

	cr_expect_eq(fit_init(&f, FIT_REFUSE, 1 << 20, 4096, 1 << 20, 4096, 512, "t", &why), -ENOSPC, "shifted past the end");
	cr_assert_eq(fit_init(&f, FIT_REFUSE, 512 << 10, 4096, 1 << 20, 4096, 512, "t", &why), 0);
	cr_expect_eq(fit_map(&f, 0, 4096), 4096);
	cr_expect_eq(fit_map(&f, 8192, 4096), 12288);
	cr_expect_eq(fit_init(&f, FIT_WRAP, 512 << 10, 4096, 1 << 20, 1 << 20, 512, "t", &why), -ENOSPC, "offset at the end");
}

Test(fit, wrap_and_scale_stay_inside_and_aligned)
{
	struct fit w, s;
	struct bpt_error why = { 0 };
	uint64_t cap = 1000 * 4096 + 100; /* not aligned */

	cr_assert_eq(fit_init(&w, FIT_WRAP, 10 << 20, 65536, cap, 0, 4096, "t", &why), 0);
	cr_assert_eq(fit_init(&s, FIT_SCALE, 10 << 20, 65536, cap, 0, 4096, "t", &why), 0);
	cr_expect_eq(fit_map(&w, 1000 * 4096 + 8192, 4096), 8192, "modulo the space");
	cr_expect_eq(fit_map(&s, 5 << 20, 4096), (1000 * 4096 / 2) / 4096 * 4096, "middle stays middle");
	for (uint64_t off = 0; off + 65536 <= (10 << 20); off += 12288) {
		uint64_t a = fit_map(&w, off, 65536), b = fit_map(&s, off, 65536);

		cr_assert(a % 4096 == 0 && a + 65536 <= cap, "wrap %llu -> %llu",
			  (unsigned long long)off, (unsigned long long)a);
		cr_assert(b % 4096 == 0 && b + 65536 <= cap, "scale %llu -> %llu",
			  (unsigned long long)off, (unsigned long long)b);
	}
	cr_expect_eq(fit_init(&w, FIT_WRAP, 10 << 20, 8 << 20, cap, 0, 4096, "t", &why), -ENOSPC, "one I/O bigger than the target");
	enum fit_mode m;
	cr_expect_eq(fit_mode_parse("scale", &m), 0);
	cr_expect_eq(m, FIT_SCALE);
	cr_expect_eq(fit_mode_parse("squash", &m), -EINVAL);
}
