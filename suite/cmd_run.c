/*
 * cmd_run.c — `blkpeak suite run DIR --target SPEC --label NAME`: every
 * workload of a suite on one configuration, one child command per item
 * (replay or measure, then analyze import with the suite's tags), with
 * progress and an estimate; resumable (state.h); a changed suite is a new
 * version whose results never mix with the old ones (docs/suite.md).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "cliutil.h"
#include "dbpath.h"
#include "recname.h"
#include "state.h"
#include "suite.h"
#include "suite_commands.h"

#define LABEL_MAX 63
#define ARGS_MAX 48

static void usage(FILE *f)
{
	fprintf(f,
		"usage: blkpeak suite run DIR --target SPEC --label NAME [options]\n\n"
		"Run every workload of the suite in DIR (DIR/suite.ini) on one configuration:\n"
		"each recording and mix replayed in its timing modes and repeats, each qd-sweep\n"
		"measured, every result stored in the database labelled NAME, with this\n"
		"host and the suite's digest (its manifest and recordings). A run that\n"
		"stops (Ctrl-C, a failure) resumes where it stopped when run again with the\n"
		"same DIR, target and label. Then: blkpeak analyze leaderboard DIR.\n\n"
		"  -t, --target SPEC  what to run on, as for blkpeak replay: a device, a file,\n"
		"                     a virtual array, an emulated disk (hdd:7200:FILE)\n"
		"  --label NAME       the configuration's name in the leaderboard (1-63 bytes)\n"
		"  --map SPEC         passed to every replay (replay --map: a device, a glob or\n"
		"                     a byte range of one to a target of its own, e.g. IPEAK's\n"
		"                     \"dual\": --map '*:1G-=hdd:7200:B'); repeatable, up to 8;\n"
		"                     the qd-sweeps run on --target\n"
		"  --db PATH          the database (default $BLKPEAK_DB, else ./blkpeak.db)\n"
		"  --allow-write      let the recordings' and sweeps' writes reach a block device\n"
		"  --new-version      run although this label has results of another version\n"
		"                     of the suite (its manifest or a recording changed); the\n"
		"                     old results stay, under their own version\n"
		"  --dry-run          print what would run and the estimate; run nothing\n"
		"  -h, --help         this text\n\n"
		"Results and the run's state go to DIR/results/DIGEST/LABEL/.\n");
}

#define MAPS_MAX 8

struct run_opts {
	const char *target, *label, *db;
	const char *map[MAPS_MAX];  /* replay --map, for every replay and mix */
	int nmap;
	int allow_write, new_version, dry_run;
};

struct argv_b {
	char *v[ARGS_MAX + 1];
	char buf[ARGS_MAX][32];
	char offset[MANIFEST_MIX_MAX][4200]; /* a mix's --mix-offset PATH=NS */
	char stored[4200];          /* the run file imported (import_argv) */
	int n;
};

static void arg(struct argv_b *a, const char *s)
{
	if (a->n < ARGS_MAX)
		a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

static void argf(struct argv_b *a, const char *fmt, double x)
{
	if (a->n < ARGS_MAX) {
		snprintf(a->buf[a->n], sizeof(a->buf[0]), fmt, x);
		arg(a, a->buf[a->n]);
	}
}

/* The depths of a sweep as measure's --depths list. */
static void depths_list(const struct manifest_entry *e, char *out, size_t len)
{
	size_t k = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < e->ndepths && k < len; i++)
		k += (size_t)snprintf(out + k, len - k, "%s%u", i ? "," : "", e->depths[i]);
}

/* The child command that makes an item's result file `out`. */
static void item_argv(const struct suite *s, const struct suite_item *it, const struct run_opts *o,
		      const char *out, struct argv_b *a, char *depths, size_t dlen)
{
	const struct manifest_entry *e = it->e;

	a->n = 0;
	arg(a, "blkpeak");
	if (e->kind == MANIFEST_MEASURE) {
		arg(a, "measure");
		arg(a, "qd-sweep");
		arg(a, "--target");
		arg(a, o->target);
		arg(a, "--pattern");
		arg(a, e->pattern);
		if (e->ndepths) {
			depths_list(e, depths, dlen);
			arg(a, "--depths");
			arg(a, depths);
		}
		if (e->weights) {
			arg(a, "--weights");
			arg(a, e->weights);
		}
		if (e->weights_from) {
			arg(a, "--weights-from");
			arg(a, suite_rec_of(s, e->weights_from)->path);
		}
		if (e->ios) {
			arg(a, "--ios");
			argf(a, "%.0f", (double)e->ios);
		}
		arg(a, "--seed");
		argf(a, "%.0f", it->repeat);
		arg(a, "--no-store");
	} else {
		arg(a, "replay");
		if (e->kind == MANIFEST_MIX) {
			/* replay A B ... --mix-offset PATH=NS: a recording named
			 * by its path (the I/Os are tagged with its file name) */
			for (unsigned i = 0; i < e->nmembers; i++)
				arg(a, suite_rec_of(s, e->members[i])->path);
			for (unsigned i = 0; i < e->nmembers; i++)
				if (e->offset_ns[i]) {
					arg(a, "--mix-offset");
					snprintf(a->offset[i], sizeof(a->offset[i]), "%s=%" PRIu64 "ns",
						 suite_rec_of(s, e->members[i])->path, e->offset_ns[i]);
					arg(a, a->offset[i]);
				}
		} else {
			arg(a, suite_rec_of(s, e->name)->path);
		}
		arg(a, "--target");
		arg(a, o->target);
		arg(a, "--timing");
		arg(a, manifest_timing_name(it->timing));
		if (e->speed != 1 && it->timing != MANIFEST_AFAP) {
			arg(a, "--speed");
			argf(a, "%.17g", e->speed);
		}
		if (e->no_idle && it->timing == MANIFEST_CAUSAL)
			arg(a, "--no-idle");
		for (int i = 0; i < o->nmap; i++) {
			arg(a, "--map");
			arg(a, o->map[i]);
		}
	}
	if (o->allow_write)
		arg(a, "--allow-write");
	arg(a, "--label");
	arg(a, o->label);
	arg(a, "-o");
	arg(a, out);
}

/* The result of item `it` whose command wrote `out` (DIR/KEY.bpt): out
 * itself, or for a mix with `time = NAME` that recording's own run file,
 * which the replay writes beside it (DIR/KEY.RECNAME.bpt, RECNAME the
 * name the replay gives the recording: its file's, common/recname.h). */
static const char *stored_file(const struct suite *s, const struct suite_item *it,
			       const char *out, char *buf, size_t len)
{
	const char *dot = strrchr(out, '.');
	char name[RECNAME_MAX + 1];

	if (it->e->kind != MANIFEST_MIX || !it->e->time_of || !dot)
		return out;
	recording_name(suite_rec_of(s, it->e->time_of)->path, name);
	snprintf(buf, len, "%.*s.%s%s", (int)(dot - out), out, name, dot);
	return buf;
}

static void import_argv(const struct suite *s, const struct suite_item *it,
			const struct run_opts *o, const char *out, struct argv_b *a)
{
	a->n = 0;
	arg(a, "blkpeak");
	arg(a, "analyze");
	arg(a, "import");
	arg(a, stored_file(s, it, out, a->stored, sizeof(a->stored)));
	if (o->db) {
		arg(a, "--db");
		arg(a, o->db);
	}
	arg(a, "-q");
	arg(a, "--suite");
	arg(a, s->digest);
	arg(a, "--suite-name");
	arg(a, s->name);
	arg(a, "--workload");
	arg(a, it->workload);
	arg(a, "--workload-kind");
	arg(a, it->kind);
	arg(a, "--repeat-no");
	argf(a, "%.0f", it->repeat);
	if (o->new_version)
		arg(a, "--new-version");
	if (it->e->kind == MANIFEST_MIX && it->e->time_of) {
		/* the recording's own run is labelled "LABEL in mix" */
		arg(a, "--suite-label");
		arg(a, o->label);
	}
}

/* A command line as a person reads it; the --db value without its
 * password. */
static void print_argv(const struct argv_b *a)
{
	char safe[4096];

	for (int i = 0; i < a->n; i++) {
		const char *s = a->v[i];

		if (i && !strcmp(a->v[i - 1], "--db"))
			s = db_redact(s, safe, sizeof(safe));
		int plain = *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789-_./:=,+@%") == strlen(s);

		printf(plain ? "%s%s" : "%s'%s'", i ? " " : "  ", s);
	}
	putchar('\n');
}

/* Seconds the items from i on may still take: a workload's own earlier
 * repeats when some finished, else its first estimate scaled by how the
 * finished items compared with theirs, or else its time on the other
 * configurations. *unknown counts sweeps without any. */
static double remaining(const struct suite_item *items, size_t n, size_t from,
			const struct suite_state *st, unsigned *unknown)
{
	double done_est = 0, done_real = 0, left = 0, ratio;

	*unknown = 0;
	for (size_t i = 0; i < n; i++) {
		double secs;

		if (items[i].est_s > 0 && state_is_done(st, items[i].key, &secs)) {
			done_est += items[i].est_s;
			done_real += secs;
		}
	}
	ratio = done_est > 0 ? done_real / done_est : 1;
	for (size_t i = from; i < n; i++) {
		double sum = 0, secs;
		unsigned k = 0;

		if (state_is_done(st, items[i].key, NULL))
			continue;
		for (size_t j = 0; j < n; j++)
			if (items[j].e == items[i].e && items[j].timing == items[i].timing &&
			    state_is_done(st, items[j].key, &secs)) {
				sum += secs;
				k++;
			}
		if (k)
			left += sum / k;
		else if (items[i].prior_s > 0)
			left += items[i].prior_s;
		else if (items[i].est_s > 0)
			left += items[i].est_s * ratio;
		else
			(*unknown)++;
	}
	return left;
}

static const char *fmt_secs(double s, char *buf, size_t len)
{
	long t;

	if (!(s < 1e12)) { /* (long) of more is undefined */
		snprintf(buf, len, "more than 30000 years");
		return buf;
	}
	t = s < 1 ? 1 : (long)(s + 0.5);
	if (t < 60)
		snprintf(buf, len, "%ld s", t);
	else if (t < 3600)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t % 3600 / 60);
	return buf;
}

/* Each item's mean time on the other configurations of this version
 * (the "done KEY SECONDS" lines of DIR/results/DIGEST/OTHER/state). */
static void load_priors(const struct suite *s, const char *ldir, struct suite_item *items,
			size_t n)
{
	char *path;
	DIR *d;
	struct dirent *de;
	unsigned *cnt = calloc(n ? n : 1, sizeof(*cnt));

	if (!cnt || asprintf(&path, "%s/%s/%s", s->dir, SUITE_RESULTS, s->digest) < 0) {
		free(cnt);
		return;
	}
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char *st, line[512], key[128];
		double secs;
		FILE *f;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, ldir) ||
		    asprintf(&st, "%s/%s/state", path, de->d_name) < 0)
			continue;
		f = fopen(st, "r");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "done %127s %lf", key, &secs) == 2 && secs >= 0)
				for (size_t i = 0; i < n; i++)
					if (!strcmp(items[i].key, key)) {
						items[i].prior_s += secs;
						cnt[i]++;
					}
		if (f)
			fclose(f);
		free(st);
	}
	if (d)
		closedir(d);
	for (size_t i = 0; i < n; i++)
		if (cnt[i])
			items[i].prior_s /= cnt[i];
	free(cnt);
	free(path);
}

/* Refuse (unless --new-version) when this label has results of another
 * version of the suite in DIR/results. */
static int other_versions(const struct suite *s, const char *ldir, int new_version)
{
	char *path;
	DIR *d;
	struct dirent *de;
	int bad = 0;

	if (asprintf(&path, "%s/%s", s->dir, SUITE_RESULTS) < 0)
		return -1;
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char *st;
		struct stat sb;

		if (strlen(de->d_name) != 16 || !strcmp(de->d_name, s->digest))
			continue;
		if (asprintf(&st, "%s/%s/%s/state", path, de->d_name, ldir) < 0)
			continue;
		if (!stat(st, &sb) && !new_version) {
			pr_err("suite run: '%s': the label has results of another version of the suite"
			       " (%s, in %s/%s); this is version %s (its manifest or a recording changed):"
			       " --new-version runs it as a new version, the old results stay under theirs",
			       s->dir, de->d_name, path, de->d_name, s->digest);
			bad = 1;
		}
		free(st);
	}
	if (d)
		closedir(d);
	free(path);
	return bad;
}

static int mkdirs(const char *p)
{
	char *c = strdup(p);
	int rc = 0;

	if (!c)
		return -ENOMEM;
	for (char *q = c + 1; *q && !rc; q++)
		if (*q == '/') {
			*q = '\0';
			if (mkdir(c, 0755) && errno != EEXIST)
				rc = -errno;
			*q = '/';
		}
	if (!rc && mkdir(c, 0755) && errno != EEXIST)
		rc = -errno;
	free(c);
	return rc;
}

/* One child command of an item: 0, 1 (failed: its log shown, `what`
 * named), 2 (interrupted). */
static int child_step(const struct argv_b *a, const char *log, const struct suite_item *it,
		      const char *what)
{
	int rc = child_run(a->v, log, 0, NULL, NULL);

	if (child_interrupted())
		return 2;
	if (!rc)
		return 0;
	printf("failed\n");
	fflush(stdout);
	child_show_log(log);
	pr_err("suite run: %s (repeat %u): %s failed (exit %d; log %s)", it->workload, it->repeat,
	       what, rc, log);
	return 1;
}

/* Run one item: its command, then its import. 0, 1 (failed, said why),
 * 2 (interrupted). */
static int run_item(const struct suite *s, const struct suite_item *it, const struct run_opts *o,
		    const char *rdir)
{
	char *out = NULL, *log = NULL, depths[256];
	struct argv_b a;
	int ret = 1;

	if (asprintf(&out, "%s/%s.%s", rdir, it->key, it->e->kind == MANIFEST_MEASURE ? "json" : "bpt") < 0 ||
	    asprintf(&log, "%s/%s.log", rdir, it->key) < 0)
		goto done;
	item_argv(s, it, o, out, &a, depths, sizeof(depths));
	ret = child_step(&a, log, it, it->e->kind == MANIFEST_MEASURE ? "measure qd-sweep" : "replay");
	if (ret == 2)
		unlink(out); /* a replay cut short: its run is not a result */
	if (ret)
		goto done;
	import_argv(s, it, o, out, &a);
	if ((ret = child_step(&a, log, it, "storing the result (analyze import)")))
		goto done;
	unlink(log);
done:
	free(out);
	free(log);
	return ret;
}

int suite_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "target", required_argument, NULL, 't' },
		{ "label", required_argument, NULL, 'l' },
		{ "db", required_argument, NULL, 'd' },
		{ "map", required_argument, NULL, 'm' },
		{ "allow-write", no_argument, NULL, 'w' },
		{ "new-version", no_argument, NULL, 'V' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opt_loop ol = { .cmd = "suite run", .usage = usage };
	struct run_opts o = { 0 };
	struct suite *s = NULL;
	struct suite_item *items = NULL;
	struct suite_state *st = NULL;
	char err[SUITE_ERR_MAX], ldir[LABEL_MAX + 1], *rdir = NULL, *spath = NULL, b1[32], b2[32];
	char config[8192] = "";
	size_t n = 0, ndone = 0;
	unsigned unknown;
	int c, ret = EXIT_FAIL;

	while ((c = opt_next(&ol, argc, argv, ":t:h", longopts)) != -1)
		switch (c) {
		case 't': o.target = optarg; break;
		case 'l': o.label = optarg; break;
		case 'd': o.db = optarg; break;
		case 'm':
			if (o.nmap == MAPS_MAX) {
				pr_err("suite run: --map: at most %d", MAPS_MAX);
				return EXIT_USAGE;
			}
			o.map[o.nmap++] = optarg;
			break;
		case 'w': o.allow_write = 1; break;
		case 'V': o.new_version = 1; break;
		case 'n': o.dry_run = 1; break;
		}
	if (ol.ret >= 0)
		return ol.ret;
	if (argc - optind != 1) {
		pr_err("suite run: %s; see 'blkpeak suite run --help'",
		       optind >= argc ? "no suite folder given" : "one suite folder only");
		return EXIT_USAGE;
	}
	if (!o.target || !*o.target) {
		pr_err("suite run: --target SPEC is needed (what to run the suite on)");
		return EXIT_USAGE;
	}
	if (strchr(o.target, '\n')) {
		pr_err("suite run: --target: a spec of one line is needed");
		return EXIT_USAGE;
	}
	for (int i = 0; i < o.nmap; i++)
		if (strchr(o.map[i], '\n') || strlen(config) + strlen(o.map[i]) + 8 >= sizeof(config)) {
			pr_err("suite run: --map: '%s': not one line, or the maps are too long", o.map[i]);
			return EXIT_USAGE;
		}
	snprintf(config, sizeof(config), "%s", o.target);
	for (int i = 0; i < o.nmap; i++)
		snprintf(config + strlen(config), sizeof(config) - strlen(config), " --map %s", o.map[i]);
	if (!o.label || !*o.label || strlen(o.label) > LABEL_MAX || strchr(o.label, '\n')) {
		pr_err("suite run: --label: a name of 1 to %d bytes (one line) is needed: the"
		       " configuration's name in the leaderboard", LABEL_MAX);
		return EXIT_USAGE;
	}
	if (suite_open(argv[optind], &s, err, sizeof(err))) {
		pr_err("suite run: %s", err);
		return EXIT_FAIL;
	}
	if (suite_plan(s, &items, &n, err, sizeof(err))) {
		pr_err("suite run: %s", err);
		goto out;
	}
	suite_label_dir(o.label, ldir, sizeof(ldir));
	if (asprintf(&rdir, "%s/%s/%s/%s", s->dir, SUITE_RESULTS, s->digest, ldir) < 0 ||
	    asprintf(&spath, "%s/state", rdir) < 0)
		goto out;
	if (other_versions(s, ldir, o.new_version))
		goto out;
	load_priors(s, ldir, items, n);
	printf("suite %s, version %s (%s and %zu recording%s): %zu item%s on '%s' (%s)\n", s->name,
	       s->digest, SUITE_MANIFEST, s->nrecs, s->nrecs == 1 ? "" : "s", n, n == 1 ? "" : "s",
	       o.label, config);
	if (o.dry_run) {
		char depths[256];
		struct argv_b a;
		double est = 0;

		for (size_t i = 0; i < n; i++) {
			char *out;

			if (asprintf(&out, "%s/%s.%s", rdir, items[i].key,
				     items[i].e->kind == MANIFEST_MEASURE ? "json" : "bpt") < 0)
				goto out;
			printf("[%zu/%zu] %s, repeat %u/%u%s\n", i + 1, n, items[i].workload,
			       items[i].repeat, items[i].e->repeat,
			       items[i].est_s > 0 ? "" : " (time not estimated)");
			item_argv(s, &items[i], &o, out, &a, depths, sizeof(depths));
			print_argv(&a);
			import_argv(s, &items[i], &o, out, &a);
			print_argv(&a);
			est += items[i].est_s;
			free(out);
		}
		printf("estimate: about %s (the recordings' own durations; qd-sweeps not counted);"
		       " nothing was run\n", fmt_secs(est, b1, sizeof(b1)));
		ret = EXIT_OK;
		goto out;
	}
	if ((c = mkdirs(rdir))) {
		pr_err("suite run: cannot make '%s': %s", rdir, strerror(-c));
		goto out;
	}
	if (state_open(spath, s->digest, o.label, config, &st, err, sizeof(err))) {
		pr_err("suite run: %s", err);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		ndone += state_is_done(st, items[i].key, NULL);
	{
		double left = remaining(items, n, 0, st, &unknown);

		if (ndone == n)
			printf("every item finished before: nothing to run\n");
		else
			printf("%s%zu to run; about %s%s\n", ndone ? "resuming: " : "", n - ndone,
			       fmt_secs(left, b1, sizeof(b1)),
			       unknown ? " plus the qd-sweeps (not estimated before one ran)" : "");
	}
	child_catch_signals();
	for (size_t i = 0; i < n; i++) {
		uint64_t t0;
		double secs, left;
		int rc;

		if (state_is_done(st, items[i].key, NULL))
			continue;
		printf("[%zu/%zu] %s, repeat %u/%u ... ", i + 1, n, items[i].workload, items[i].repeat,
		       items[i].e->repeat);
		fflush(stdout);
		t0 = now_mono_ns();
		rc = run_item(s, &items[i], &o, rdir);
		secs = (now_mono_ns() - t0) / 1e9;
		if (rc == 2) {
			printf("interrupted\n");
			pr_err("suite run: interrupted: %zu of %zu done; the same command resumes at"
			       " '%s', repeat %u", ndone, n, items[i].workload, items[i].repeat);
			goto out;
		}
		if (rc)
			goto out;
		if (state_done(st, items[i].key, secs, err, sizeof(err))) {
			pr_err("suite run: %s", err);
			goto out;
		}
		ndone++;
		left = remaining(items, n, i + 1, st, &unknown);
		printf("%.2f s; %zu/%zu done", secs, ndone, n);
		if (ndone < n)
			printf(", about %s left%s", fmt_secs(left, b2, sizeof(b2)),
			       unknown ? " and the qd-sweeps not yet timed" : "");
		putchar('\n');
		fflush(stdout);
	}
	printf("done: %zu results of suite %s (version %s) stored as '%s'; rank them with:"
	       " blkpeak analyze leaderboard %s\n", n, s->name, s->digest, o.label, s->dir);
	ret = EXIT_OK;
out:
	state_close(st);
	free(items);
	free(rdir);
	free(spath);
	suite_close(s);
	return ret;
}
