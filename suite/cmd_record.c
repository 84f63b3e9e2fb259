/*
 * cmd_record.c — `blkpeak suite record DIR RECIPE...`: record workload
 * recipes (workloads/, docs/workloads.md) into a suite folder, each as
 * DIR/NAME.bpt, the way `make demo` records one: the recipe's set-up
 * makes its loop-device file systems and names them ("device /dev/loopN"),
 * `blkpeak capture -d DEV... -- RECIPE --phase run` records the load, and
 * the recipe's teardown removes what it made, also after a failure or
 * Ctrl-C.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "cliutil.h"
#include "suite.h"
#include "suite_commands.h"

#define MAX_DEVS 8

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak suite record DIR RECIPE... [--scale F] [--force] [--workloads DIR]\n\n"
		"Record each workload recipe (workloads/: photo-edit, backup, database, install,\n"
		"cold-start, boot; or a recipe's path) with 'blkpeak capture' into DIR/NAME.bpt\n"
		"(DIR is made if missing). A recipe builds its own loop-device file systems,\n"
		"runs its load under the capture and removes everything it made. Needs root\n"
		"(loop devices, mounts, BPF). Then: blkpeak suite init DIR.\n\n"
		"  --scale F          the recipes' --scale (their size; default theirs)\n"
		"  --force            replace a recording that exists\n"
		"  --workloads DIR    where the recipes are (default $BLKPEAK_WORKLOADS, else\n"
		"                     the tree's or the installed workloads/ next to blkpeak)\n"
		"  -h, --help         this text\n");
}

/* The folder of the recipes: given, $BLKPEAK_WORKLOADS, then next to the
 * binary (build/blkpeak -> workloads/; bin/blkpeak -> share/blkpeak/workloads). */
static int find_workloads(const char *given, char *out, size_t len)
{
	static const char *const rel[] = { "../workloads", "../share/blkpeak/workloads" };
	char exe[PATH_MAX - 64];
	ssize_t n;
	struct stat sb;

	if (!given)
		given = getenv("BLKPEAK_WORKLOADS");
	if (given && *given) {
		snprintf(out, len, "%s", given);
		return stat(out, &sb) == 0 && S_ISDIR(sb.st_mode) ? 0 : -1;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	for (unsigned i = 0; i < 2; i++) {
		snprintf(out, len, "%s/%s/common.sh", exe, rel[i]);
		if (!stat(out, &sb)) {
			snprintf(out, len, "%s/%s", exe, rel[i]);
			return 0;
		}
	}
	return -1;
}

static int recipe_path(const char *wdir, const char *r, char *out, size_t len, char *name,
		       size_t nlen)
{
	struct stat sb;
	const char *base = strrchr(r, '/') ? strrchr(r, '/') + 1 : r;

	if (strchr(r, '/'))
		snprintf(out, len, "%s", r);
	else if (!*r || strspn(r, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(r) || r[0] == '-' ||
		 !strcmp(r, "common.sh"))
		return -EINVAL;
	else
		snprintf(out, len, "%s/%s", wdir, r);
	suite_label_dir(base, name, nlen);
	if (!name[0] || stat(out, &sb) || !S_ISREG(sb.st_mode) || access(out, X_OK))
		return -ENOENT;
	return 0;
}

/* The devices the set-up's log names ("device /dev/loopN"). */
static int read_devices(const char *log, char devs[][64], int max)
{
	FILE *f = fopen(log, "r");
	char line[512];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < max) {
		char d[64];

		if (sscanf(line, "device %63s", d) == 1 && !strncmp(d, "/dev/", 5))
			snprintf(devs[n++], 64, "%s", d);
	}
	fclose(f);
	return n;
}

/* The recipe's words for one phase into v (at least 10 slots); returns
 * how many (v[n] is NULL). */
static int recipe_args(char **v, const char *recipe, char *work, const char *phase,
		       const char *scale)
{
	int n = 0;

	v[n++] = (char *)recipe;
	v[n++] = "--workdir";
	v[n++] = work;
	v[n++] = "--phase";
	v[n++] = (char *)phase;
	v[n++] = "--quiet";
	if (scale) {
		v[n++] = "--scale";
		v[n++] = (char *)scale;
	}
	v[n] = NULL;
	return n;
}

/* One recipe: set-up, capture, teardown. 0, 1 (failed, said why), 2 (interrupted). */
static int record_one(const char *dir, const char *recipe, const char *name, const char *scale,
		      int force)
{
	char work[] = "/dev/shm/blkpeak-suite-record.XXXXXX", *out = NULL, *log = NULL;
	char devs[MAX_DEVS][64], *argv[2 * MAX_DEVS + 20];
	int n, ndev, rc, ret = 1;
	struct stat sb, old;
	int had_old;
	uint64_t t0 = now_mono_ns();

	if (asprintf(&out, "%s/%s.bpt", dir, name) < 0 || asprintf(&log, "%s/.%s.record.log", dir, name) < 0)
		goto free;
	had_old = !lstat(out, &old);
	if (!force && had_old) {
		pr_err("suite record: '%s' exists: --force to record it again", out);
		goto free;
	}
	if (!mkdtemp(work)) {
		pr_err("suite record: cannot make a folder in /dev/shm: %s", strerror(errno));
		goto free;
	}
	printf("recording %s (%s) into %s ... ", name, recipe, out);
	fflush(stdout);
	recipe_args(argv, recipe, work, "setup", scale);
	rc = child_run_prog(recipe, argv, log, 0, NULL, NULL);
	ndev = rc ? 0 : read_devices(log, devs, MAX_DEVS);
	if (child_interrupted()) {
		ret = 2;
	} else if (rc || !ndev) {
		printf("failed\n");
		fflush(stdout);
		child_show_log(log);
		pr_err("suite record: %s: its set-up %s (log %s)", recipe,
		       rc ? "failed" : "named no device", log);
	} else {
		n = 0;
		argv[n++] = "blkpeak";
		argv[n++] = "capture";
		argv[n++] = "-o";
		argv[n++] = out;
		for (int i = 0; i < ndev; i++) {
			argv[n++] = "-d";
			argv[n++] = devs[i];
		}
		argv[n++] = "--";
		recipe_args(argv + n, recipe, work, "run", scale);
		rc = child_run(argv, log, 0, NULL, NULL);
		if (child_interrupted()) {
			ret = 2;
		} else if (rc) {
			printf("failed\n");
			fflush(stdout);
			child_show_log(log);
			pr_err("suite record: %s: the capture failed (exit %d; log %s)", recipe, rc, log);
		} else {
			ret = 0;
		}
	}
	recipe_args(argv, recipe, work, "teardown", scale);
	if (child_run_prog(recipe, argv, log, 0, NULL, NULL)) {
		child_show_log(log);
		pr_err("suite record: %s: its teardown failed (log %s; %s may hold its images)", recipe,
		       log, work);
		ret = ret == 2 ? 2 : 1;
	} else {
		rmdir(work);
	}
	if (ret == 0) {
		printf("%.1f s\n", (now_mono_ns() - t0) / 1e9);
		unlink(log);
	} else if (ret == 2) {
		printf("interrupted\n");
		/* the cut capture's file, never the recording --force was to replace
		 * (still there when the set-up or the capture's start was cut) */
		if (!lstat(out, &sb) &&
		    !(had_old && sb.st_dev == old.st_dev && sb.st_ino == old.st_ino))
			unlink(out);
	}
free:
	free(out);
	free(log);
	return ret;
}

int suite_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "scale", required_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'f' },
		{ "workloads", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opt_loop ol = { .cmd = "suite record", .usage = usage };
	const char *scale = NULL, *wgiven = NULL, *dir;
	char wdir[PATH_MAX], path[PATH_MAX + 64], name[MANIFEST_NAME_MAX + 1];
	double d;
	int force = 0, c;

	while ((c = opt_next(&ol, argc, argv, ":h", longopts)) != -1)
		switch (c) {
		case 's':
			if (parse_double(optarg, &d) || !(d > 0) || d > 1000) {
				pr_err("suite record: --scale: '%s': not a number above 0, up to 1000", optarg);
				return EXIT_USAGE;
			}
			scale = optarg;
			break;
		case 'f': force = 1; break;
		case 'W': wgiven = optarg; break;
		}
	if (ol.ret >= 0)
		return ol.ret;
	if (argc - optind < 2) {
		pr_err("suite record: %s; see 'blkpeak suite record --help'",
		       optind >= argc ? "no suite folder given" : "no recipe given");
		return EXIT_USAGE;
	}
	dir = argv[optind];
	if (find_workloads(wgiven, wdir, sizeof(wdir))) {
		pr_err("suite record: no workloads folder found%s%s (--workloads DIR)",
		       wgiven ? ": " : "", wgiven ? wgiven : "");
		return EXIT_FAIL;
	}
	for (int i = optind + 1; i < argc; i++) {
		int rc = recipe_path(wdir, argv[i], path, sizeof(path), name, sizeof(name));

		if (rc) {
			pr_err("suite record: '%s': %s", argv[i], rc == -EINVAL ?
			       "not a recipe name (a-z 0-9 -) or a path" : "no such executable recipe");
			return rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
		}
	}
	if (geteuid() != 0) {
		pr_err("suite record: needs root (the recipes' loop devices and mounts, the BPF capture)");
		return EXIT_FAIL;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		pr_err("suite record: cannot make '%s': %s", dir, strerror(errno));
		return EXIT_FAIL;
	}
	child_catch_signals();
	for (int i = optind + 1; i < argc; i++) {
		recipe_path(wdir, argv[i], path, sizeof(path), name, sizeof(name));
		c = record_one(dir, path, name, scale, force);
		if (c == 2) {
			pr_err("suite record: interrupted at '%s'; what was recorded before stays", argv[i]);
			return EXIT_FAIL;
		}
		if (c)
			return EXIT_FAIL;
	}
	return EXIT_OK;
}
