/*
 * cmd_init.c — `blkpeak suite init DIR [--force]`: write DIR/suite.ini
 * for the recordings already in DIR, with defaults a person then edits
 * (schemas/suite-manifest.md).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bpt.h"
#include "cliutil.h"
#include "manifest.h"
#include "outfile.h"
#include "suite.h"
#include "suite_commands.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak suite init DIR [--force] [--name NAME]\n\n"
		"Write DIR/suite.ini for the recordings in DIR (every file blkpeak reads as\n"
		"a trace: .bpt, blktrace, fio iologs, MSR CSV, ...): each replayed with causal\n"
		"timing, 3 times, and the IOMeter file-server and web-server qd-sweeps,\n"
		"weighted by the first recording. Edit it before the first 'suite run'.\n\n"
		"  --force      replace an existing suite.ini\n"
		"  --name NAME  the suite's name (default: the folder's)\n"
		"  -h, --help   this text\n");
}

struct found {
	char name[MANIFEST_NAME_MAX + 1];
	char *file;
};

/* A section name from a file name: extensions off, other bytes '_'. */
static void name_of(const char *file, struct found *all, size_t n, char *out)
{
	char base[MANIFEST_NAME_MAX + 1], *dot;
	int k = 2;

	snprintf(base, sizeof(base) - 4, "%.59s", file);
	while ((dot = strrchr(base, '.')) && dot != base)
		*dot = '\0';
	suite_label_dir(base, out, MANIFEST_NAME_MAX - 3);
	if (!out[0])
		snprintf(out, MANIFEST_NAME_MAX, "recording");
	snprintf(base, sizeof(base), "%s", out);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i].name, out)) {
			snprintf(out, MANIFEST_NAME_MAX + 1, "%.50s-%d", base, k++ % 100000);
			i = (size_t)-1;
		}
}

static int is_recording(const char *dir, const char *file)
{
	char *p;
	struct stat sb;
	struct bpt_reader *r;
	struct bpt_error err = { 0 };
	int ok;

	if (file[0] == '.' || !strcmp(file, SUITE_MANIFEST) || strchr(file, '\n') ||
	    strlen(file) > 1024 || asprintf(&p, "%s/%s", dir, file) < 0)
		return 0;
	ok = !stat(p, &sb) && S_ISREG(sb.st_mode) && !bpt_reader_open(&r, p, &err);
	if (ok)
		bpt_reader_close(r);
	free(p);
	return ok;
}

static void write_manifest(FILE *f, const char *dir, const char *name, struct found *rec,
			   size_t n)
{
	fprintf(f, "# blkpeak suite manifest (schemas/suite-manifest.md), written by\n"
		   "# 'blkpeak suite init' for the recordings in %s: edit it to taste.\n"
		   "# A changed manifest is a new version of the suite; results of two\n"
		   "# versions are never ranked together.\n\n[suite]\nname = %s\n", dir, name);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "\n[recording %s]\nfile = %s\ntiming = causal\nrepeat = 3\n", rec[i].name,
			rec[i].file);
	fprintf(f, "\n# IOMeter's file-server and web-server patterns at several queue depths;\n"
		   "# the weighted IOPS weights each depth by the share of time the\n"
		   "# recording below spent at it (or: weights = 1:0.5,4:0.5).\n");
	for (int k = 0; k < 2; k++) {
		fprintf(f, "\n[measure %s]\nkind = qd-sweep\npattern = %s\ndepths = 1,4,16,64\nios = 1000\n",
			k ? "webserver" : "fileserver", k ? "webserver" : "fileserver");
		if (n)
			fprintf(f, "weights-from = %s\n", rec[0].name);
	}
}

int suite_init(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opt_loop ol = { .cmd = "suite init", .usage = usage };
	const char *dir, *name = NULL;
	char dname[MANIFEST_NAME_MAX + 1], *mpath = NULL, err[MANIFEST_ERR_MAX];
	struct dirent **ents = NULL;
	struct found *rec = NULL;
	struct outfile o;
	struct outfile_opts oo = { .what = "a suite manifest" };
	struct manifest *m;
	struct stat sb;
	int force = 0, c, n = 0, ret = EXIT_FAIL;
	size_t nrec = 0;

	while ((c = opt_next(&ol, argc, argv, ":fh", longopts)) != -1)
		switch (c) {
		case 'f': force = 1; break;
		case 'n': name = optarg; break;
		}
	if (ol.ret >= 0)
		return ol.ret;
	if (argc - optind != 1) {
		pr_err("suite init: %s; see 'blkpeak suite init --help'",
		       optind >= argc ? "no folder given" : "one folder only");
		return EXIT_USAGE;
	}
	dir = argv[optind];
	if (name) {
		struct manifest *t;
		char probe[128];

		snprintf(probe, sizeof(probe), "[suite]\nname = %.80s\n[measure x]\npattern = random\n", name);
		if (strlen(name) > MANIFEST_NAME_MAX || manifest_parse(probe, strlen(probe), "--name", &t,
								      err, sizeof(err))) {
			pr_err("suite init: --name: '%s': 1 to 63 of A-Z a-z 0-9 . _ -", name);
			return EXIT_USAGE;
		}
		manifest_free(t);
	}
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
		pr_err("suite init: '%s': %s", dir, errno == ENOENT ? "no such folder" : "not a folder");
		return EXIT_FAIL;
	}
	if (asprintf(&mpath, "%s/%s", dir, SUITE_MANIFEST) < 0)
		return EXIT_FAIL;
	if (!force && !lstat(mpath, &sb)) {
		pr_err("suite init: '%s' exists: edit it, or --force to write a new one", mpath);
		goto out;
	}
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		pr_err("suite init: cannot read '%s': %s", dir, strerror(errno));
		goto out;
	}
	rec = calloc((size_t)n + 1, sizeof(*rec));
	for (int i = 0; rec && i < n; i++) {
		if (nrec < MANIFEST_SECTIONS_MAX - 2 && is_recording(dir, ents[i]->d_name)) {
			name_of(ents[i]->d_name, rec, nrec, rec[nrec].name);
			rec[nrec++].file = ents[i]->d_name;
		}
	}
	if (!rec)
		goto out;
	if (!nrec) {
		pr_err("suite init: '%s': no recording in it (a file blkpeak reads as a trace):"
		       " record some with 'blkpeak capture -o %s/NAME.bpt', or copy them there", dir, dir);
		goto out;
	}
	if (!name) {
		const char *b = strrchr(dir, '/');
		char tmp[MANIFEST_NAME_MAX + 1];

		snprintf(tmp, sizeof(tmp), "%s", b && b[1] ? b + 1 : dir);
		suite_label_dir(tmp, dname, sizeof(dname));
		name = dname[0] && strcmp(dname, "_") ? dname : "suite";
	}
	if (outfile_open(&o, mpath, &oo)) {
		pr_err("suite init: %s", o.err.msg);
		goto out;
	}
	write_manifest(o.f, dir, name, rec, nrec);
	if (outfile_close(&o, 0)) {
		pr_err("suite init: %s", o.err.msg);
		goto out;
	}
	/* what init writes, suite run must read */
	if (manifest_load(mpath, &m, err, sizeof(err))) {
		pr_err("suite init: wrote a manifest it cannot read back: %s", err);
		goto out;
	}
	manifest_free(m);
	printf("%s: %zu recording%s, 2 qd-sweeps; edit it, then: blkpeak suite run %s --target SPEC"
	       " --label NAME\n", mpath, nrec, nrec == 1 ? "" : "s", dir);
	ret = EXIT_OK;
out:
	for (int i = 0; ents && i < n; i++)
		free(ents[i]);
	free(ents);
	free(rec);
	free(mpath);
	return ret;
}
