/*
 * run.c — the steps of a measurement (measure.h): make each step's trace,
 * replay it in a child `blkpeak replay --timing afap`, and compute its
 * figures from the run file.
 *
 * Every file of a measurement lives in a private temporary folder
 * ($TMPDIR or /var/tmp, blkpeak-measure-XXXXXX, mode 0700) removed at the
 * end: step.bpt (the trace), step-run.bpt (the run) and child.log (the
 * child's output, shown when it fails).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpt.h"
#include "child.h"
#include "cliutil.h"
#include "measure.h"
#include "progress.h"

struct ctx {
	const struct measure_opts *o;
	struct measure_result *r;
	char dir[256];
	char trace[300], run[300], log[300];
	struct progress prog;   /* the progress line (terminal only, from 2 s on) */
	unsigned step, nsteps;  /* run_step() calls so far, and in all */
};

/* The progress line at the start of a step: which step of how many, and
 * the time left at the finished steps' mean pace. */
static void step_progress(struct ctx *c)
{
	char line[160], eta[40];
	double ran = progress_elapsed(&c->prog);

	if (c->step)
		progress_eta(ran / c->step * (c->nsteps - c->step), eta, sizeof(eta));
	else
		snprintf(eta, sizeof(eta), "ETA after the first step");
	snprintf(line, sizeof(line), "measure %s: step %u of %u, %.0f s so far, %s",
		 measure_kind_name(c->o->kind), c->step + 1, c->nsteps, ran, eta);
	progress_text(&c->prog, line);
}

static int make_dir(struct ctx *c)
{
	const char *t = getenv("TMPDIR");

	snprintf(c->dir, sizeof(c->dir), "%s/blkpeak-measure-XXXXXX", t && *t ? t : "/var/tmp");
	if (!mkdtemp(c->dir)) {
		pr_err("measure: %s: cannot make a temporary folder: %s", c->dir, strerror(errno));
		return -errno;
	}
	snprintf(c->trace, sizeof(c->trace), "%s/step.bpt", c->dir);
	snprintf(c->run, sizeof(c->run), "%s/step-run.bpt", c->dir);
	snprintf(c->log, sizeof(c->log), "%s/child.log", c->dir);
	return 0;
}

static void remove_dir(struct ctx *c)
{
	unlink(c->trace);
	unlink(c->run);
	unlink(c->log);
	rmdir(c->dir);
}

/* Run a child command; on failure show its log and say what failed. With
 * timeout_ns, a child stopped by it (exit status 1: replay's partial run)
 * is a success and *timed_out says so. */
static int run_child(struct ctx *c, char **argv, const char *what, uint64_t timeout_ns,
		     int *timed_out)
{
	int stopped = 0, rc;

	unlink(c->run); /* its appearance starts the time limit */
	rc = child_run(argv, c->log, timeout_ns, c->run, &stopped);

	if (child_interrupted()) {
		pr_err("measure: interrupted");
		return -EINTR;
	}
	if (timed_out)
		*timed_out = stopped;
	if (rc == 0 || (stopped && rc == 1))
		return 0;
	child_show_log(c->log);
	if (rc < 0)
		pr_err("measure: cannot run blkpeak %s: %s", argv[1], strerror(-rc));
	else
		pr_err("measure: %s failed (blkpeak %s exit status %d)", what, argv[1], rc);
	return -EIO;
}

/* A trace written with lib's writer: one device of `capacity` bytes. */
static int trace_open(struct ctx *c, struct bpt_writer **w, uint64_t capacity)
{
	struct bpt_header h;
	struct bpt_device d = { .name = "measure", .size_bytes = capacity,
				.logical_block_size = 512, .physical_block_size = 512 };
	struct bpt_error err = { 0 };
	int rc;

	bpt_header_init(&h, "generate");
	bpt_header_add_device(&h, &d);
	bpt_header_set_meta(&h, BPT_META_GENERATOR, "blkpeak measure");
	if ((rc = bpt_writer_create(w, c->trace, &h, NULL, &err)))
		pr_err("measure: %s", err.msg);
	bpt_header_free(&h);
	return rc;
}

static int trace_add(struct bpt_writer *w, uint64_t i, uint8_t op, uint8_t flags,
		     uint64_t offset, uint32_t bytes)
{
	struct bpt_record rec = {
		.queue_ns = i * 1000, .issue_ns = i * 1000, .complete_ns = i * 1000 + 500,
		.sector = offset >> 9, .bytes = bytes, .op = op, .flags = flags,
	};

	return bpt_writer_add(w, &rec);
}

static int trace_close(struct bpt_writer *w, int rc)
{
	struct bpt_error err = { 0 };
	int crc = bpt_writer_close(w, &err);

	if (rc) {
		pr_err("measure: cannot write a step's trace: %s", strerror(-rc));
		return rc;
	}
	if (crc)
		pr_err("measure: %s", err.msg);
	return crc;
}

/* Replay the step's trace at `depth` into the run file; with --time, for
 * that long at most (*timed_out then says whether it was cut). */
static int replay_step(struct ctx *c, unsigned depth, int *timed_out)
{
	const struct measure_opts *o = c->o;
	char qd[16], lat[32];
	char *argv[24];
	int n = 0;

	snprintf(qd, sizeof(qd), "%u", depth);
	snprintf(lat, sizeof(lat), "%" PRIu64 "ns", o->null_latency_ns);
	argv[n++] = "blkpeak";
	argv[n++] = "replay";
	argv[n++] = c->trace;
	argv[n++] = "--target";
	argv[n++] = (char *)o->target;
	argv[n++] = "--timing";
	argv[n++] = "afap";
	argv[n++] = "--queue-depth";
	argv[n++] = qd;
	argv[n++] = "-o";
	argv[n++] = c->run;
	if (o->output) { /* a target member must not be our results file */
		argv[n++] = "--protect";
		argv[n++] = (char *)o->output;
	}
	if (o->allow_write)
		argv[n++] = "--allow-write";
	if (o->engine) {
		argv[n++] = "--engine";
		argv[n++] = (char *)o->engine;
	}
	if (o->null_latency_ns) {
		argv[n++] = "--null-latency";
		argv[n++] = lat;
	}
	argv[n] = NULL;
	return run_child(c, argv, "a step's replay", timed_out ? o->time_ns : 0, timed_out);
}

/*
 * Read the run file into units: record source_index / per is its unit;
 * array-internal records (raid5/raid6 parity and old-data I/O) are left out.
 * *done is the number of complete units (all `per` records there) in
 * front. Every one of the `n` units must be there unless the step was
 * cut by --time (`timed`): replay issues in trace order, so the units done
 * then are the first ones, and a unit cut in its middle (a write whose
 * flush was not issued) is left out.
 */
static int load_units(struct ctx *c, unsigned per, uint64_t n, int timed, struct unit *u,
		      uint64_t *done)
{
	struct bpt_reader *rd;
	struct bpt_record rec;
	struct bpt_error err = { 0 };
	uint64_t seen = 0;
	uint32_t *cnt = calloc(n, sizeof(*cnt));
	int rc;

	if (!cnt) {
		pr_err("measure: out of memory for %" PRIu64 " I/Os", n);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++)
		u[i] = (struct unit){ .issue_ns = UINT64_MAX };
	if ((rc = bpt_reader_open(&rd, c->run, &err))) {
		pr_err("measure: %s", err.msg);
		free(cnt);
		return rc;
	}
	if (!(bpt_reader_header(rd)->columns & BPT_COL_SOURCE)) {
		pr_err("measure: %s: a run file without source indexes", c->run);
		bpt_reader_close(rd);
		free(cnt);
		return -EINVAL;
	}
	while ((rc = bpt_reader_next(rd, &rec, &err)) == 1) {
		struct unit *x;

		/* a raid5/raid6 target's own reads and writes (old data,
		 * parity) serve a request but are none of the step's I/Os
		 * (schemas/trace-format.md, column internal) */
		if (rec.internal)
			continue;
		if (rec.source_index / per >= n) {
			rc = -EINVAL;
			pr_err("measure: %s: source index %" PRIu64 " past the trace's end", c->run,
			       rec.source_index);
			break;
		}
		x = &u[rec.source_index / per];
		cnt[rec.source_index / per]++;
		if (rec.issue_ns < x->issue_ns)
			x->issue_ns = rec.issue_ns;
		if (rec.complete_ns > x->complete_ns)
			x->complete_ns = rec.complete_ns;
		if (rec.op != BPT_OP_FLUSH)
			x->bytes += rec.bytes;
		if (rec.error && !x->error)
			x->error = rec.error;
		seen++;
	}
	if (rc < 0 && err.msg[0])
		pr_err("measure: %s", err.msg);
	bpt_reader_close(rd);
	for (*done = 0; *done < n && cnt[*done] == per; (*done)++)
		;
	free(cnt);
	if (rc < 0)
		return rc;
	if (!timed && seen != n * per) {
		pr_err("measure: the replay did %" PRIu64 " of %" PRIu64 " I/Os", seen, n * per);
		return -EIO;
	}
	return 0;
}

/* Replay the step's trace of n units (per records each) at depth and
 * compute p's figures. */
static int run_step(struct ctx *c, unsigned depth, unsigned per, uint64_t n,
		    struct measure_point *p)
{
	struct unit *u = malloc(n * sizeof(*u));
	uint64_t done = 0, warmup = c->o->warmup;
	int rc, timed = 0;

	if (!u) {
		pr_err("measure: out of memory for %" PRIu64 " I/Os", n);
		return -ENOMEM;
	}
	step_progress(c);
	rc = replay_step(c, depth, &timed);
	c->step++;
	if (!rc)
		rc = load_units(c, per, n, timed, u, &done);
	if (!rc && c->o->warmup_ns) {
		/* a warm-up in time: the units issued in its first warmup_ns */
		uint64_t w = 0;

		while (w < done && u[w].issue_ns < u[0].issue_ns + c->o->warmup_ns)
			w++;
		warmup = w;
	}
	if (!rc && warmup >= done) {
		pr_err("measure: the step did %" PRIu64 " I/Os, all within the warm-up", done);
		rc = -EIO;
	}
	if (!rc && (rc = figures_compute(u, done, warmup, &p->fig)))
		pr_err("measure: a step's run has a completion before its issue");
	if (!rc && p->fig.errors)
		pr_err("warning: %" PRIu64 " I/O errors at step %u", p->fig.errors,
		       c->r->npoints + 1);
	free(u);
	p->depth = depth;
	return rc;
}

int measure_run_capacity(const char *run, uint64_t *capacity, struct bpt_error *err)
{
	struct bpt_reader *rd;
	int rc;

	if ((rc = bpt_reader_open(&rd, run, err)))
		return rc;
	*capacity = bpt_reader_header(rd)->ndevices ? bpt_reader_header(rd)->devices[0].size_bytes : 0;
	*capacity -= *capacity % 4096;
	bpt_reader_close(rd);
	return 0;
}

/*
 * The target's usable size: replay a one-read trace (4 KiB at 0) and read
 * the size replay gives the target in its run file's device table. This
 * also runs replay's safety checks on the target before any step.
 */
static int probe_capacity(struct ctx *c)
{
	struct bpt_writer *w;
	struct bpt_error err = { 0 };
	int rc;

	if ((rc = trace_open(c, &w, 4096)))
		return rc;
	rc = trace_close(w, trace_add(w, 0, BPT_OP_READ, 0, 0, 4096));
	if (rc || (rc = replay_step(c, 1, NULL)))
		return rc;
	if ((rc = measure_run_capacity(c->run, &c->r->capacity, &err))) {
		pr_err("measure: %s", err.msg);
		return rc;
	}
	if (!c->r->capacity) {
		pr_err("measure: %s: holds less than 4 KiB", c->o->target);
		return -ENOSPC;
	}
	return 0;
}

static int too_small(struct ctx *c, const char *what, uint64_t need)
{
	char a[32], b[32];

	pr_err("measure: %s: holds %s, too small for %s (%s)", c->o->target,
	       fmt_bytes(c->r->capacity, a, sizeof(a)), what, fmt_bytes(need, b, sizeof(b)));
	return -ENOSPC;
}

/* `blkpeak generate` of n random I/Os of the access spec over the first
 * span bytes into the step's trace. */
static int generate(struct ctx *c, uint64_t span, uint64_t n, const char *bs)
{
	const struct measure_opts *o = c->o;
	char cnt[24], sp[24], seed[24], rp[32], xp[32];
	char *argv[24];
	int a = 0;

	snprintf(cnt, sizeof(cnt), "%" PRIu64, n);
	snprintf(sp, sizeof(sp), "%" PRIu64, span);
	snprintf(seed, sizeof(seed), "%" PRIu64, o->seed);
	snprintf(rp, sizeof(rp), "%.6g", c->r->read_pct);
	snprintf(xp, sizeof(xp), "%.6g", c->r->random_pct);
	argv[a++] = "blkpeak";
	argv[a++] = "generate";
	argv[a++] = "-q";
	argv[a++] = "-o";
	argv[a++] = c->trace;
	argv[a++] = "--span";
	argv[a++] = sp;
	argv[a++] = "--device-size";
	argv[a++] = sp;
	argv[a++] = "--count";
	argv[a++] = cnt;
	argv[a++] = "--seed";
	argv[a++] = seed;
	if (o->kind == MEASURE_QD_SWEEP && !o->like) {
		argv[a++] = "--pattern";
		argv[a++] = (char *)(o->pattern ? o->pattern : "random");
	} else {
		argv[a++] = "--read-pct";
		argv[a++] = rp;
		argv[a++] = "--random-pct";
		argv[a++] = xp;
		argv[a++] = "--bs";
		argv[a++] = (char *)bs;
	}
	argv[a] = NULL;
	return run_child(c, argv, "making a step's trace", 0, NULL);
}

static int qd_sweep(struct ctx *c)
{
	const struct measure_opts *o = c->o;
	struct measure_result *r = c->r;
	int rc;

	if (r->capacity < r->max_bs || r->capacity < (1u << 20))
		return too_small(c, "the access spec (1 MiB at least, and its largest I/O)",
				 r->max_bs > (1u << 20) ? r->max_bs : 1u << 20);
	for (unsigned i = 0; i < o->depths.n; i++) {
		struct measure_point *p = &r->points[r->npoints];

		if ((rc = generate(c, r->capacity, o->warmup + o->ios, r->bs)) ||
		    (rc = run_step(c, o->depths.depth[i], 1, o->warmup + o->ios, p)))
			return rc;
		p->weight = o->depths.weight[i];
		r->score += p->weight * p->fig.iops;
		r->npoints++;
	}
	return 0;
}

static int seeks(struct ctx *c)
{
	const struct measure_opts *o = c->o;
	struct measure_result *r = c->r;
	int rc;

	for (unsigned i = 0; i < o->nspans; i++) {
		struct measure_point *p = &r->points[r->npoints];
		uint64_t span = (uint64_t)((double)r->capacity * o->span_pct[i] / 100.0);

		span -= span % 4096;
		if (span < o->bs)
			return too_small(c, "a span of that share holding one I/O", o->bs * 100);
		if ((rc = generate(c, span, o->warmup + o->ios, r->bs)) ||
		    (rc = run_step(c, 1, 1, o->warmup + o->ios, p)))
			return rc;
		p->span_bytes = span;
		p->span_pct = o->span_pct[i];
		r->npoints++;
	}
	return 0;
}

/* Zone i's first byte: the zones are spread evenly from the target's
 * start to its end, the first at 0 and the last ending at the end. */
static uint64_t zone_first(uint64_t capacity, uint64_t zone_bytes, unsigned i, unsigned n)
{
	uint64_t off;

	if (n < 2)
		return 0;
	off = (uint64_t)((unsigned __int128)(capacity - zone_bytes) * i / (n - 1));
	return off - off % 4096;
}

static int zcav(struct ctx *c)
{
	const struct measure_opts *o = c->o;
	struct measure_result *r = c->r;
	uint64_t n = o->warmup + o->ios, zone_bytes = n * o->bs;
	int rc;

	if (zone_bytes > r->capacity)
		return too_small(c, "one zone (--ios + --warmup times --bs)", zone_bytes);
	for (unsigned z = 0; z < o->zones; z++) {
		struct measure_point *p = &r->points[r->npoints];
		uint64_t first = zone_first(r->capacity, zone_bytes, z, o->zones);
		struct bpt_writer *w;

		if ((rc = trace_open(c, &w, r->capacity)))
			return rc;
		for (uint64_t i = 0; i < n && !rc; i++)
			rc = trace_add(w, i, BPT_OP_READ, 0, first + i * o->bs, (uint32_t)o->bs);
		if ((rc = trace_close(w, rc)) || (rc = run_step(c, o->depth, 1, n, p)))
			return rc;
		p->zone = z;
		p->offset_bytes = first;
		p->span_bytes = zone_bytes;
		r->npoints++;
	}
	return 0;
}

static int commit(struct ctx *c)
{
	const struct measure_opts *o = c->o;
	struct measure_result *r = c->r;
	uint64_t n = o->warmup + o->ios, slots = o->region / o->bs, rec = 0;
	struct measure_point *p = &r->points[0];
	struct bpt_writer *w;
	int rc;

	if (o->region > r->capacity)
		return too_small(c, "--region", o->region);
	measure_write_cache(o->target, r->write_cache, sizeof(r->write_cache));
	if ((rc = trace_open(c, &w, r->capacity)))
		return rc;
	for (uint64_t i = 0; i < n && !rc; i++) {
		uint64_t off = i % slots * o->bs;

		rc = trace_add(w, rec++, BPT_OP_WRITE, BPT_F_SYNC | (o->fua ? BPT_F_FUA : 0), off,
			       (uint32_t)o->bs);
		if (!rc && !o->fua)
			rc = trace_add(w, rec++, BPT_OP_FLUSH, BPT_F_SYNC, 0, 0);
	}
	if ((rc = trace_close(w, rc)) || (rc = run_step(c, 1, o->fua ? 1 : 2, n, p)))
		return rc;
	p->span_bytes = o->region;
	r->npoints = 1;
	return 0;
}

int measure_run(const struct measure_opts *o, struct measure_result *r)
{
	struct ctx c = { .o = o, .r = r };
	int rc;

	r->started_wall_ns = now_wall_ns();
	child_catch_signals();
	if ((rc = make_dir(&c)))
		return EXIT_FAIL;
	c.nsteps = o->kind == MEASURE_QD_SWEEP ? o->depths.n : o->kind == MEASURE_SEEKS ? o->nspans
		 : o->kind == MEASURE_ZCAV ? o->zones : 1;
	progress_init(&c.prog, "measure", "steps", !o->json);
	c.prog.delay_ns = PROGRESS_DELAY_NS;
	c.prog.period_ns = 1; /* a line per step: steps are far apart */
	rc = probe_capacity(&c);
	if (!rc) {
		switch (o->kind) {
		case MEASURE_QD_SWEEP: rc = qd_sweep(&c); break;
		case MEASURE_ZCAV: rc = zcav(&c); break;
		case MEASURE_SEEKS: rc = seeks(&c); break;
		case MEASURE_COMMIT: rc = commit(&c); break;
		}
	}
	progress_end(&c.prog);
	remove_dir(&c);
	if (rc)
		return EXIT_FAIL;
	for (unsigned i = 0; i < r->npoints; i++)
		if (r->points[i].fig.errors)
			return EXIT_FAIL;
	return EXIT_OK;
}
