/* Unit tests of the --bs size mix parser and sampler (generate/gen_sizemix.c)
 * and of the IOMeter preset table (generate/gen_presets.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "gen_presets.h"
#include "gen_sizemix.h"

Test(gen_sizemix, one_size)
{
	struct size_mix m;
	char buf[128];

	cr_assert_eq(size_mix_parse("8k", &m, NULL), 0);
	cr_assert_eq(m.n, 1);
	cr_assert_eq(m.size[0], 8192);
	cr_assert_eq(m.total, 1);
	cr_assert_eq(size_mix_pick(&m, 0.999), 8192);
	cr_assert_str_eq(size_mix_format(&m, buf, sizeof(buf)), "8k");
}

Test(gen_sizemix, weighted)
{
	struct size_mix m, back;
	char buf[128];

	cr_assert_eq(size_mix_parse("512:10,4k:60,64k:30", &m, NULL), 0);
	cr_assert_eq(m.n, 3);
	cr_assert_eq(m.total, 100);
	cr_assert_eq(size_mix_max(&m), 65536);
	cr_assert_float_eq(size_mix_mean(&m), 0.1 * 512 + 0.6 * 4096 + 0.3 * 65536, 1e-9);
	/* the cumulative boundaries fall where the weights say */
	cr_assert_eq(size_mix_pick(&m, 0.0), 512);
	cr_assert_eq(size_mix_pick(&m, 0.0999), 512);
	cr_assert_eq(size_mix_pick(&m, 0.1), 4096);
	cr_assert_eq(size_mix_pick(&m, 0.6999), 4096);
	cr_assert_eq(size_mix_pick(&m, 0.7), 65536);
	cr_assert_eq(size_mix_pick(&m, 0.9999999), 65536);
	cr_assert_str_eq(size_mix_format(&m, buf, sizeof(buf)), "512:10,4k:60,64k:30");
	cr_assert_eq(size_mix_parse(buf, &back, NULL), 0);
	cr_assert_eq(memcmp(&m, &back, sizeof(m)), 0, "format and parse round trip");
}

Test(gen_sizemix, bad)
{
	struct size_mix m;
	struct bpt_error why = { 0 };

	cr_assert_eq(size_mix_parse("", &m, &why), -EINVAL);
	cr_assert_eq(size_mix_parse("4q", &m, &why), -EINVAL);
	cr_assert_str_eq(why.msg, "not a size");
	cr_assert_eq(size_mix_parse("1000", &m, &why), -EINVAL);
	cr_assert_str_eq(why.msg, "size must be a non-zero multiple of 512");
	cr_assert_eq(size_mix_parse("0", &m, &why), -EINVAL);
	cr_assert_eq(size_mix_parse("4k:0", &m, &why), -EINVAL);
	cr_assert_eq(size_mix_parse("4k:x", &m, &why), -EINVAL);
	cr_assert_eq(size_mix_parse("4k,,8k", &m, &why), -EINVAL);
	cr_assert_str_eq(why.msg, "empty item");
	cr_assert_eq(size_mix_parse("4k,", &m, &why), -EINVAL);
	cr_assert_eq(size_mix_parse("128m", &m, &why), -EINVAL);
	cr_assert_str_eq(why.msg, "size larger than 64 MiB");
}

Test(gen_presets, published_numbers)
{
	size_t n;
	const struct gen_preset *t = gen_presets(&n);
	const struct gen_preset *fs = gen_preset_find("fileserver");
	const struct gen_preset *ws = gen_preset_find("webserver");
	const struct gen_preset *wk = gen_preset_find("workstation");
	const struct gen_preset *db = gen_preset_find("database");
	struct size_mix m;

	cr_assert_eq(n, 4);
	cr_assert_null(gen_preset_find("random"));
	cr_assert(fs && ws && wk && db);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(size_mix_parse(t[i].bs, &m, NULL), 0, "%s", t[i].name);
		cr_assert_eq(m.total, m.n == 1 ? 1 : 100, "%s weights sum to 100", t[i].name);
	}
	size_mix_parse(fs->bs, &m, NULL);
	cr_assert_eq(m.size[0], 512); cr_assert_eq(size_mix_max(&m), 65536);
	cr_assert_eq(fs->read_pct, 80); cr_assert_eq(fs->random_pct, 100);
	size_mix_parse(ws->bs, &m, NULL);
	cr_assert_eq(m.size[0], 512); cr_assert_eq(size_mix_max(&m), 512 * 1024);
	cr_assert_eq(ws->read_pct, 100); cr_assert_eq(ws->random_pct, 100);
	cr_assert_str_eq(wk->bs, "8k");
	cr_assert_eq(wk->read_pct, 80); cr_assert_eq(wk->random_pct, 80);
	cr_assert_str_eq(db->bs, "8k");
	cr_assert_eq(db->read_pct, 67); cr_assert_eq(db->random_pct, 100);
}
