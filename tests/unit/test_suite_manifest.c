/*
 * test_suite_manifest.c — suite/manifest.h: a suite's manifest parsed
 * into its sections with their defaults, and every kind of bad input
 * refused with "FILE:LINE: reason" naming the right line.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

static struct manifest *parse_ok(const char *text)
{
	struct manifest *m;
	char err[MANIFEST_ERR_MAX];
	int rc = manifest_parse(text, strlen(text), "suite.ini", &m, err, sizeof(err));

	cr_assert_eq(rc, 0, "%s", err);
	return m;
}

/* The error of a manifest that must be refused. */
static void parse_bad(const char *text, const char *want)
{
	struct manifest *m = (struct manifest *)1;
	char err[MANIFEST_ERR_MAX];
	int rc = manifest_parse(text, strlen(text), "suite.ini", &m, err, sizeof(err));

	cr_assert_eq(rc, -EINVAL, "accepted: %s", text);
	cr_assert_null(m);
	cr_assert(strstr(err, want), "error '%s' lacks '%s'", err, want);
}

Test(suite_manifest, sections_keys_and_defaults)
{
	struct manifest *m = parse_ok(
		"# a comment\r\n"
		"[suite]\n"
		"name = desktop\n"
		"\n"
		"[recording photo-edit]\n"
		"file = rec/photo-edit.bpt\n"
		"timing = causal, original\n"
		"repeat = 5\n"
		"no-idle = yes\n"
		"[recording backup]\n"
		"  file=backup.bpt  \n"
		"; another comment\n"
		"[measure fs]\n"
		"pattern = fileserver\n"
		"depths = 1,2,4\n"
		"weights = 1:0.5, 4:0.5\n"
		"[measure ws]\n"
		"kind = qd-sweep\n"
		"pattern = webserver\n"
		"weights-from = photo-edit\n"
		"ios = 500\n"
		"[mix photo-while-backup]\n"
		"recordings = photo-edit, backup\n"
		"offsets = backup:2s\n"
		"time = photo-edit\n");
	const struct manifest_entry *e = m->e;

	cr_assert_str_eq(m->name, "desktop");
	cr_assert_eq(m->n, 5);
	cr_assert_eq(e[0].kind, MANIFEST_RECORDING);
	cr_assert_str_eq(e[0].file, "rec/photo-edit.bpt");
	cr_assert_eq(e[0].timings, MANIFEST_CAUSAL | MANIFEST_ORIGINAL);
	cr_assert_eq(e[0].repeat, 5);
	cr_assert(e[0].no_idle);
	cr_assert_eq(e[0].line, 5);
	cr_assert_str_eq(e[1].file, "backup.bpt");
	cr_assert_eq(e[1].repeat, 3);
	cr_assert_eq(e[1].timings, MANIFEST_CAUSAL);
	cr_assert_eq(e[2].kind, MANIFEST_MEASURE);
	cr_assert_eq(e[2].ndepths, 3);
	cr_assert_eq(e[2].depths[2], 4);
	cr_assert_str_eq(e[2].weights, "1:0.5,4:0.5"); /* as measure --weights takes it */
	cr_assert_eq(e[2].repeat, 1);
	cr_assert_str_eq(e[3].weights_from, "photo-edit");
	cr_assert_eq(e[3].ios, 500);
	cr_assert_eq(e[4].kind, MANIFEST_MIX);
	cr_assert_eq(e[4].nmembers, 2);
	cr_assert_str_eq(e[4].members[1], "backup");
	cr_assert_eq(e[4].offset_ns[0], 0);
	cr_assert_eq(e[4].offset_ns[1], 2000000000ull);
	cr_assert_str_eq(e[4].time_of, "photo-edit");
	cr_assert_null(e[1].time_of);
	cr_assert_eq(manifest_find(m, "backup"), &e[1]);
	cr_assert_null(manifest_find(m, "fs"));
	manifest_free(m);
	manifest_free(NULL);
}

Test(suite_manifest, forward_references)
{
	struct manifest *m = parse_ok("[mix both]\nrecordings = a,b\n[measure s]\npattern = random\n"
				      "weights-from = b\n[recording a]\nfile = a.bpt\n"
				      "[recording b]\nfile = b.csv\n");

	cr_assert_eq(m->n, 4);
	cr_assert_null(m->name);
	manifest_free(m);
}

Test(suite_manifest, refusals_name_the_line)
{
	parse_bad("", "suite.ini:0: no workload");
	parse_bad("[suite]\nname = x\n", "suite.ini:2: no workload");
	parse_bad("file = a.bpt\n", "suite.ini:1: a key before the first section");
	parse_bad("[recording a]\nfile = a.bpt\nfile = b.bpt\n", "suite.ini:3: 'file' set twice");
	parse_bad("[recording a]\n", "suite.ini:1: [recording a]: no 'file ='");
	parse_bad("[recording a]\nfile = /etc/passwd\n", "suite.ini:2: file: '/etc/passwd': absolute");
	parse_bad("[recording a]\nfile = x/../../b\n", "suite.ini:2: file: 'x/../../b': reaches outside");
	parse_bad("[recording a]\nfile = ..\n", "reaches outside");
	parse_bad("[recording a]\nfile = a\ntiming = causal,fast\n", ":3: timing: 'fast'");
	parse_bad("[recording a]\nfile = a\ntiming = causal,causal\n", ":3: timing: 'causal' named twice");
	parse_bad("[recording a]\nfile = a\ntiming = causal,\n", ":3: timing: an empty mode");
	parse_bad("[recording a]\nfile = a\nrepeat = 0\n", ":3: repeat: '0'");
	parse_bad("[recording a]\nfile = a\nrepeat = 101\n", ":3: repeat: '101'");
	parse_bad("[recording a]\nfile = a\nrepeat = 99999999999999999999999\n", ":3: repeat:");
	parse_bad("[recording a]\nfile = a\nspeed = nan\n", ":3: speed: 'nan'");
	parse_bad("[recording a]\nfile = a\nspeed = 0\n", ":3: speed: '0'");
	parse_bad("[recording a]\nfile = a\npattern = random\n", ":3: 'pattern': not a key of [recording]");
	parse_bad("[recording a]\nfile = a\n[recording a]\nfile = b\n", ":3: 'a': the name of the section on line 1");
	parse_bad("[recording a b]\n", ":1: [recording a b]: a name is");
	parse_bad("[recording]\n", ":1: [recording]: not [suite]");
	parse_bad("[disk a]\n", ":1: [disk ...]: not a section");
	parse_bad("[recording a\n", ":1: a section header must end with ']'");
	parse_bad("[recording a]\nfile = a\n[suite]\n", ":3: [suite] must come before");
	parse_bad("[suite]\n[suite]\n", ":2: [suite] twice");
	parse_bad("[suite]\nname = a b\n", ":2: name: 'a b'");
	parse_bad("[recording a]\nfile = a\njust words\n", ":3: not 'key = value'");
	parse_bad("[recording a]\nfile =\n", ":2: 'file': no value");
	parse_bad("[measure m]\n", ":1: [measure m]: no 'pattern ='");
	parse_bad("[measure m]\npattern = fast\n", ":2: pattern: 'fast'");
	parse_bad("[measure m]\nkind = zcav\n", ":2: kind: 'zcav'");
	parse_bad("[measure m]\npattern = random\ndepths = 4,2\n", ":3: depths: 2 after 4");
	parse_bad("[measure m]\npattern = random\ndepths = 0\n", ":3: depths: '0'");
	parse_bad("[measure m]\npattern = random\nweights = 1:-1\n", ":3: weights: '-1'");
	parse_bad("[measure m]\npattern = random\nweights = 1:0\n", ":3: weights: every weight is 0");
	parse_bad("[measure m]\npattern = random\nweights = 1:1, 1:2\n", ":3: weights: depth 1 given twice");
	parse_bad("[measure m]\npattern = random\nweights = 1:2e12\n", ":3: weights: '2e12'");
	parse_bad("[measure m]\npattern = random\nweights = 4\n", ":3: weights: '4': not DEPTH:WEIGHT");
	parse_bad("[measure m]\npattern = random\ndepths = 1,2\nweights = 4:1\n", ":1: [measure m]: weights: depth 4");
	parse_bad("[measure m]\npattern = random\nweights-from = x\n", ":3: weights-from: 'x': no [recording x]");
	parse_bad("[recording x]\nfile = x\n[measure m]\npattern = random\nweights = 1:1\nweights-from = x\n",
		  ":6: [measure m]: 'weights' and 'weights-from' both set");
	parse_bad("[mix m]\n", ":1: [mix m]: no 'recordings ='");
	parse_bad("[recording a]\nfile = a\n[mix m]\nrecordings = a\n", ":4: recordings: a mix needs two");
	parse_bad("[recording a]\nfile = a\n[mix m]\nrecordings = a,a\n", ":4: recordings: 'a' named twice");
	parse_bad("[recording a]\nfile = a\n[mix m]\nrecordings = a,b\n", ":4: recordings: 'b': no [recording b]");
	parse_bad("[recording a]\nfile = a\n[recording b]\nfile = b\n[mix m]\nrecordings = a,b\noffsets = c:1s\n",
		  ":7: offsets: 'c' is not one of the mix's recordings");
	parse_bad("[recording a]\nfile = a\n[recording b]\nfile = b\n[mix m]\nrecordings = a,b\noffsets = b:2d\n",
		  ":7: offsets: '2d'");
	parse_bad("[recording a]\nfile = a\n[recording b]\nfile = b\n[mix m]\nrecordings = a,b\noffsets = b\n",
		  ":7: offsets: 'b': not RECORDING:TIME");
	parse_bad("[recording a]\nfile = a\n[recording b]\nfile = b\n[mix m]\ntime = c\nrecordings = a,b\n",
		  ":6: time: 'c' is not one of the mix's recordings");
	parse_bad("[recording a]\nfile = a\n[recording b]\nfile = b\n[mix m]\nrecordings = a,b\ntime = a\n"
		  "time = b\n", ":8: 'time' set twice in one section");
	parse_bad("[recording a]\nfile = a\n[mix m]\nrecordings = a,b\n[recording b]\nfile = b\ntime = a\n",
		  ":7: 'time': not a key of [recording]");
	parse_bad("[recording a]\nfile = a\n[recording b]\nfile = b\n[mix m]\nrecordings = a,b\ntime = a/b\n",
		  ":7: time: 'a/b': not a recording's name");
}

Test(suite_manifest, nul_bytes_and_long_lines)
{
	static const char nul[] = "[recording a]\nfile = a\0b\n";
	char err[MANIFEST_ERR_MAX], *big;
	struct manifest *m;

	cr_assert_eq(manifest_parse(nul, sizeof(nul) - 1, "s", &m, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "s:2: a NUL byte"), "%s", err);
	big = malloc(MANIFEST_LINE_MAX + 64);
	cr_assert_not_null(big);
	strcpy(big, "[recording a]\nfile = ");
	memset(big + strlen(big), 'x', MANIFEST_LINE_MAX);
	big[strlen("[recording a]\nfile = ") + MANIFEST_LINE_MAX] = '\0';
	cr_assert_eq(manifest_parse(big, strlen(big), "s", &m, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "s:2: line longer than"), "%s", err);
	free(big);
	/* a small error buffer is cut, never overrun */
	cr_assert_eq(manifest_parse("[x y]\n", 6, "a-long-file-name", &m, err, 8), -EINVAL);
	cr_assert_eq(strlen(err), 7);
}

Test(suite_manifest, load_refuses_what_is_not_a_file)
{
	struct manifest *m;
	char err[MANIFEST_ERR_MAX];

	cr_assert_eq(manifest_load("/nonexistent/suite.ini", &m, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "cannot open '/nonexistent/suite.ini'"), "%s", err);
	cr_assert_eq(manifest_load("/tmp", &m, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "not a regular file"), "%s", err);
}

/* A sweep named NAME.TIMING would share the items (state keys, result
 * files) of replay NAME in that timing: refused, as either order. */
Test(suite_manifest, refuses_a_sweep_named_as_a_replays_items)
{
	struct manifest *m;

	parse_bad("[recording a]\nfile = a.bpt\n[measure a.causal]\npattern = random\n",
		  "suite.ini:3: [measure a.causal]: its results would be named as those of"
		  " [recording a] (line 1) in causal timing");
	parse_bad("[measure a.afap]\npattern = random\n[recording a]\nfile = a.bpt\n",
		  "suite.ini:1: [measure a.afap]");
	m = parse_ok("[recording a]\nfile = a.bpt\n[measure a.fast]\npattern = random\n"
		     "[measure b.causal]\npattern = random\n");
	manifest_free(m);
}
