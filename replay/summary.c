/* summary.c — accounting and printing the end-of-replay summary (summary.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cliutil.h"
#include "fmt.h"
#include "jsonout.h"
#include "partial.h"
#include "summary.h"
#include "verify/verify.h"

#define OP_BITS 3 /* a spilled latency is ns << OP_BITS | op */
_Static_assert(BPT_OP__COUNT <= (1u << OP_BITS), "an op fits in OP_BITS");

static const uint32_t late_ppm[SUMMARY_NLATE] = { 500000, 990000, STATS_PPM };

#define SPILL_PAIRS 8192 /* 128 KiB of buffer */

struct summary_spill {
	int fd;
	char dir[128];
	unsigned nbuf;
	uint64_t pairs;               /* written so far */
	uint64_t buf[2 * SPILL_PAIRS]; /* latency key, lateness */
};

static void fail(struct summary *s, const char *why, int err)
{
	if (!s->failed[0])
		snprintf(s->failed, sizeof(s->failed), "%s%s%s", why, err ? ": " : "",
			 err ? strerror(err) : "");
}

/* An unlinked file in $TMPDIR or /var/tmp: nothing is left behind, even
 * when the replay is killed. */
static struct summary_spill *spill_open(struct summary *s)
{
	struct summary_spill *sp = malloc(sizeof(*sp));
	const char *dir = getenv("TMPDIR");

	if (!sp) {
		fail(s, "out of memory", 0);
		return NULL;
	}
	snprintf(sp->dir, sizeof(sp->dir), "%s", dir && *dir ? dir : "/var/tmp");
	sp->nbuf = 0;
	sp->pairs = 0;
	sp->fd = open(sp->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (sp->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		char path[sizeof(sp->dir) + 32];

		snprintf(path, sizeof(path), "%s/blkpeak-summary-XXXXXX", sp->dir);
		sp->fd = mkostemp(path, O_CLOEXEC);
		if (sp->fd >= 0)
			unlink(path);
	}
	if (sp->fd < 0) {
		char why[200];

		snprintf(why, sizeof(why), "cannot make a temporary file in %s", sp->dir);
		fail(s, why, errno);
		free(sp);
		return NULL;
	}
	return sp;
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t w = write(fd, c, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -ENOSPC;
		c += w;
		len -= (size_t)w;
	}
	return 0;
}

static int spill_flush(struct summary *s)
{
	struct summary_spill *sp = s->spill;
	int rc = write_all(sp->fd, sp->buf, sp->nbuf * 2 * sizeof(uint64_t));

	sp->nbuf = 0;
	if (rc) {
		char why[200];

		snprintf(why, sizeof(why), "cannot write a temporary file in %s", sp->dir);
		fail(s, why, -rc);
	}
	return rc;
}

static void spill_close(struct summary *s)
{
	if (s->spill) {
		close(s->spill->fd);
		free(s->spill);
		s->spill = NULL;
	}
}

/* The streams and the temporary file, at the first result. */
static void start(struct summary *s)
{
	for (unsigned op = 0; op < BPT_OP__COUNT; op++)
		if (!(s->lat[op] = stats_exact_new(stats_pct_ppm, STATS_NPCT)))
			break;
	s->lat_all = stats_exact_new(stats_pct_ppm, STATS_NPCT);
	s->late = stats_exact_new(late_ppm, SUMMARY_NLATE);
	if (!s->lat[BPT_OP__COUNT - 1] || !s->lat_all || !s->late) {
		fail(s, "out of memory", 0);
		return;
	}
	s->spill = spill_open(s);
}

void summary_add(struct summary *s, const struct rp_result *r)
{
	unsigned op = r->io->op < BPT_OP__COUNT ? r->io->op : BPT_OP_READ;
	uint64_t lat = r->complete_ns > r->issue_ns ? r->complete_ns - r->issue_ns : 0;
	uint64_t late = r->issue_ns > r->sched_ns ? r->issue_ns - r->sched_ns : 0;

	if (!s->ios && !s->failed[0])
		start(s);
	s->ios++;
	s->op_ios[op]++;
	if (r->io->placement < SUMMARY_MAX_PLACEMENTS) {
		s->place_ios[r->io->placement]++;
		s->place_bytes[r->io->placement] += r->io->len;
	}
	s->member_ios += r->member_ios;
	for (unsigned i = 0; i < r->ninternal; i++)
		s->internal_ios[r->internal[i].op == BPT_OP_READ ? 0 : 1]++;
	if (r->error) {
		unsigned i;

		s->errors++;
		s->short_ios += r->short_io;
		for (i = 0; i < s->nerrnos && s->errnos[i].code != r->error; i++)
			;
		if (i == s->nerrnos && i < SUMMARY_MAX_ERRNOS) {
			s->errnos[i].code = r->error;
			s->nerrnos++;
		}
		if (i < s->nerrnos)
			s->errnos[i].count++;
	} else {
		s->bytes += r->io->len;
		s->op_bytes[op] += r->io->len;
	}
	if (s->failed[0])
		return;
	lat = lat < (UINT64_MAX >> OP_BITS) ? lat : UINT64_MAX >> OP_BITS;
	stats_exact_add(s->lat[op], lat);
	stats_exact_add(s->lat_all, lat);
	stats_exact_add(s->late, late);
	s->spill->buf[2 * s->spill->nbuf] = lat << OP_BITS | op;
	s->spill->buf[2 * s->spill->nbuf + 1] = late;
	s->spill->pairs++;
	if (++s->spill->nbuf == SPILL_PAIRS)
		spill_flush(s);
}

/* End a pass of every stream: 1 when another is needed, 0 done, <0 failed. */
static int end_pass(struct summary *s)
{
	int more = 0;

	for (unsigned k = 0; k < BPT_OP__COUNT + 2; k++) {
		struct stats_exact *e = k < BPT_OP__COUNT ? s->lat[k] : k == BPT_OP__COUNT ? s->lat_all : s->late;
		int rc = stats_exact_end_pass(e);

		if (rc < 0)
			return rc;
		more |= rc;
	}
	return more;
}

/* One more pass over the temporary file. */
static int read_pass(struct summary *s)
{
	struct summary_spill *sp = s->spill;
	uint64_t seen = 0;
	ssize_t got;

	if (lseek(sp->fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((got = read(sp->fd, sp->buf, sizeof(sp->buf))) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got % (2 * sizeof(uint64_t)))
			return -EIO; /* a regular file returns whole buffers but the last */
		for (uint64_t i = 0; i < (uint64_t)got / (2 * sizeof(uint64_t)); i++) {
			uint64_t key = sp->buf[2 * i];

			stats_exact_add(s->lat[key & ((1u << OP_BITS) - 1)], key >> OP_BITS);
			stats_exact_add(s->lat_all, key >> OP_BITS);
			stats_exact_add(s->late, sp->buf[2 * i + 1]);
			seen++;
		}
	}
	return seen == sp->pairs ? 0 : -EIO;
}

void summary_finish(struct summary *s)
{
	int rc;

	if (s->finished)
		return;
	s->finished = 1;
	if (s->failed[0] || !s->ios)
		goto out;
	if (s->spill->nbuf && spill_flush(s))
		goto out;
	for (rc = end_pass(s); rc == 1; rc = end_pass(s)) {
		int err = read_pass(s);

		if (err) {
			char why[200];

			snprintf(why, sizeof(why), "cannot read back a temporary file in %s",
				 s->spill->dir);
			fail(s, why, -err);
			goto out;
		}
	}
	if (rc < 0) {
		fail(s, rc == -ENOMEM ? "out of memory" : "the temporary file changed", 0);
		goto out;
	}
	for (unsigned op = 0; op < BPT_OP__COUNT; op++)
		stats_latency_from(&s->op_lat[op], s->lat[op]);
	stats_latency_from(&s->all_lat, s->lat_all);
	for (unsigned i = 0; i < SUMMARY_NLATE; i++)
		s->late_pct[i] = stats_exact_value(s->late, i);
out:
	spill_close(s);
}

void summary_free(struct summary *s)
{
	spill_close(s);
	for (unsigned i = 0; i < BPT_OP__COUNT; i++)
		stats_exact_free(s->lat[i]);
	stats_exact_free(s->lat_all);
	stats_exact_free(s->late);
	memset(s, 0, sizeof(*s));
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void latency_line(FILE *f, const char *name, const struct stats_latency *l)
{
	char b[32];

	fprintf(f, "  %-12s n=%llu mean %s", name, (unsigned long long)l->count,
		fmt_ns(l->mean_ns, b, sizeof(b)));
	for (unsigned i = 0; i < STATS_NPCT; i++)
		fprintf(f, " %s %s", stats_pct_label[i], fmt_ns((double)l->pct[i], b, sizeof(b)));
	fputc('\n', f);
}

/* One line per file or task map, and one for what stays. */
static void place_text(const struct summary *s, const struct summary_ctx *c, FILE *f)
{
	for (unsigned k = 1; k <= c->nplaces && k < SUMMARY_MAX_PLACEMENTS; k++) {
		const struct summary_place *p = &c->place[k - 1];

		fprintf(f, "  placed      ");
		text_str(f, p->map);
		fprintf(f, " -> %s ", p->target);
		if (p->packed)
			fprintf(f, "(%llu file%s packed at bytes %llu-%llu)",
				(unsigned long long)p->files, p->files == 1 ? "" : "s",
				(unsigned long long)p->at, (unsigned long long)p->end);
		else
			fprintf(f, "(%llu file%s at recorded offsets)", (unsigned long long)p->files,
				p->files == 1 ? "" : "s");
		fprintf(f, ": %llu I/Os, %.1f MB\n", (unsigned long long)s->place_ios[k],
			(double)s->place_bytes[k] / 1e6);
	}
	if (c->nplaces)
		fprintf(f, "  placed      the rest, where the device maps put it: %llu I/Os, %.1f MB\n",
			(unsigned long long)s->place_ios[0], (double)s->place_bytes[0] / 1e6);
}

/* "placements": one object per file or task map, then the rest. */
static void place_json(struct jw *w, const struct summary *s, const struct summary_ctx *c)
{
	jw_key(w, "placements");
	jw_arr(w);
	for (unsigned k = 1; k <= c->nplaces + 1; k++) {
		unsigned i = k <= c->nplaces ? k : 0;
		const struct summary_place *p = i ? &c->place[i - 1] : NULL;

		if (i >= SUMMARY_MAX_PLACEMENTS)
			continue;
		jw_obj(w);
		jw_key(w, "map");
		if (p)
			jw_str(w, p->map);
		else
			jw_null(w);
		jw_key(w, "target");
		if (p)
			jw_str(w, p->target);
		else
			jw_null(w);
		jw_kbool(w, "packed", p && p->packed);
		jw_ku64_or_null(w, "at_bytes", p && p->packed, p && p->packed ? p->at : 0);
		jw_ku64_or_null(w, "end_bytes", p && p->packed, p && p->packed ? p->end : 0);
		jw_ku64(w, "files", p ? p->files : 0);
		jw_ku64(w, "ios", s->place_ios[i]);
		jw_ku64(w, "bytes", s->place_bytes[i]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

/* A mix: each recording's share (its offset, I/Os, first issue, last
 * completion, span and mean latency, from the replay's start). */
static void recs_text(const struct summary_ctx *c, FILE *f)
{
	fprintf(f, "recordings of the mix (from the start of the replay):\n");
	fprintf(f, "  %-20s %10s %10s %12s %12s %12s %7s\n", "recording", "offset s", "I/Os",
		"first s", "last done s", "span s", "mean ms");
	for (unsigned k = 0; k < c->nrecs; k++) {
		const struct summary_rec *r = &c->recs[k];
		char name[256];

		fmt_text(r->name, name, sizeof(name));
		fprintf(f, "  %-20s %10.3f %10llu %12.3f %12.3f %12.3f %7.3f\n", name,
			secs(r->offset_ns), (unsigned long long)r->ios, secs(r->first_issue_ns),
			secs(r->last_done_ns),
			r->ios ? secs(r->last_done_ns - r->first_issue_ns) : 0.0,
			r->ios ? (double)r->lat_sum_ns / (double)r->ios / 1e6 : 0.0);
	}
	for (unsigned k = 0; k < c->nrecs; k++)
		if (c->recs[k].run_file)
			fprintf(f, "  run of %s alone: %s\n", c->recs[k].name, c->recs[k].run_file);
}

static void recs_json(struct jw *w, const struct summary_ctx *c)
{
	jw_key(w, "recordings");
	jw_arr(w);
	for (unsigned k = 0; k < c->nrecs; k++) {
		const struct summary_rec *r = &c->recs[k];

		jw_obj(w);
		jw_kstr(w, "name", r->name);
		jw_kstr(w, "source", r->source);
		jw_ku64(w, "offset_ns", r->offset_ns);
		jw_ku64(w, "ios", r->ios);
		jw_ku64(w, "errors", r->errors);
		jw_ku64_or_null(w, "first_issue_ns", r->ios != 0, r->first_issue_ns);
		jw_ku64_or_null(w, "last_complete_ns", r->ios != 0, r->last_done_ns);
		jw_ku64_or_null(w, "mean_latency_ns", r->ios != 0, r->ios ? r->lat_sum_ns / r->ios : 0);
		jw_key(w, "run_file");
		if (r->run_file)
			jw_str(w, r->run_file);
		else
			jw_null(w);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

/* The controller caches' line: what they absorbed and destaged. */
static void cache_text(const struct summary_cache *k, FILE *f)
{
	fprintf(f, "  cache       %llu writes done in the controller cache (%llu waited for room), "
		   "%llu reads served from it; %llu destages (%llu full rows), %.1f MB, "
		   "the last done at %.3f s\n",
		(unsigned long long)k->writes, (unsigned long long)k->waits,
		(unsigned long long)k->read_hits, (unsigned long long)k->destages,
		(unsigned long long)k->full_rows, (double)k->destaged_bytes / 1e6,
		secs(k->drained_ns));
	if (k->unwritten)
		fprintf(f, "  cache       %llu bytes NOT written to the members: a destage failed: %s\n",
			(unsigned long long)k->unwritten, strerror(-k->error));
}

void summary_print_text(struct summary *s, const struct summary_ctx *c, FILE *f)
{
	char a[32], b[32], d[32];
	double el = secs(c->elapsed_ns);

	summary_finish(s);
	fprintf(f, "replay: %s -> %s (%s, speed %g, queue depth %u)%s\n", c->source,
		c->target, c->timing, c->speed, c->depth,
		c->interrupted ? ", stopped early" : "");
	if (c->stopped) {
		char pt[320];

		fprintf(f, "  %s\n", partial_text(c->done_ios, c->total_ios, c->stopped, pt,
						  sizeof(pt)));
	}
	fprintf(f, "  I/Os        %llu of %llu", (unsigned long long)s->ios,
		(unsigned long long)c->total_ios);
	if (c->skipped)
		fprintf(f, " (%llu writes left out)", (unsigned long long)c->skipped);
	fprintf(f, ", %llu error%s\n", (unsigned long long)s->errors, s->errors == 1 ? "" : "s");
	if (c->transform && c->transform[0]) {
		char tx[512 * 4 + 4];

		fprintf(f, "  transform   %s", fmt_text(c->transform, tx, sizeof(tx)));
		if (c->deselected)
			fprintf(f, " (%llu I/Os left out)", (unsigned long long)c->deselected);
		fputc('\n', f);
	}
	if (c->conflicts || (c->conflicts_rule && strcmp(c->conflicts_rule, "keep")))
		fprintf(f, "  conflicts   %llu I/O%s overlapping an earlier one in flight (%s)\n",
			(unsigned long long)c->conflicts, c->conflicts == 1 ? "" : "s",
			c->conflicts_rule ? c->conflicts_rule : "keep");
	fprintf(f, "  duration    %.3f s", el);
	if (c->recorded_ns)
		fprintf(f, " (recorded %.3f s, %+.2f%%)", secs(c->recorded_ns),
			100.0 * ((double)c->elapsed_ns - (double)c->recorded_ns) /
				(double)c->recorded_ns);
	fputc('\n', f);
	if (s->internal_ios[0] || s->internal_ios[1])
		fprintf(f, "  members     %llu I/Os on the members, %.2f per I/O; "
			   "array-internal: %llu reads, %llu writes\n",
			(unsigned long long)s->member_ios,
			s->ios ? (double)s->member_ios / (double)s->ios : 0.0,
			(unsigned long long)s->internal_ios[0],
			(unsigned long long)s->internal_ios[1]);
	if (c->cache)
		cache_text(c->cache, f);
	place_text(s, c, f);
	fprintf(f, "  rate        %.0f IOPS, %.1f MB/s\n", el > 0 ? (double)s->ios / el : 0,
		el > 0 ? (double)s->bytes / el / 1e6 : 0);
	if (s->failed[0]) {
		fprintf(f, "  latency     not computed: %s\n", s->failed);
	} else if (s->ios) {
		for (unsigned op = 0; op < BPT_OP__COUNT; op++)
			if (s->op_lat[op].count)
				latency_line(f, bpt_op_name(op), &s->op_lat[op]);
		latency_line(f, "all", &s->all_lat);
		fprintf(f, "  lateness    p50 %s p99 %s max %s\n",
			fmt_ns((double)s->late_pct[0], a, sizeof(a)),
			fmt_ns((double)s->late_pct[1], b, sizeof(b)),
			fmt_ns((double)s->late_pct[2], d, sizeof(d)));
	}
	for (unsigned i = 0; i < s->nerrnos; i++)
		fprintf(f, "  errors      %llu x %s%s\n", (unsigned long long)s->errnos[i].count,
			strerror(-s->errnos[i].code),
			s->short_ios && s->errnos[i].code == -5 ? " (short I/Os included)" : "");
	if (c->run_file)
		fprintf(f, "  run file    %s\n", c->run_file);
	if (c->nrecs > 1)
		recs_text(c, f);
}

/* {"all":{...},"read":{...},...}: the shape of analyze report's. */
static void latencies_json(struct jw *w, const struct summary *s)
{
	jw_obj(w);
	jw_key(w, "all");
	stats_latency_json(w, &s->all_lat);
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		if (!s->op_lat[op].count)
			continue;
		jw_key(w, bpt_op_name(op));
		stats_latency_json(w, &s->op_lat[op]);
	}
	jw_obj_end(w);
}

void summary_print_json(struct summary *s, const struct summary_ctx *c, FILE *f)
{
	double el = secs(c->elapsed_ns);
	char code[16];
	struct jw w;

	summary_finish(s);
	jw_init(&w, f, 0);
	jw_obj(&w);
	jw_kstr(&w, "source", c->source);
	jw_kstr(&w, "target", c->target);
	jw_kstr(&w, "timing", c->timing);
	jw_knum(&w, "speed", c->speed, 6);
	jw_ku64(&w, "queue_depth", c->depth);
	jw_ku64(&w, "ios", s->ios);
	jw_ku64(&w, "total_ios", c->total_ios);
	jw_ku64(&w, "skipped", c->skipped);
	jw_key(&w, "transform");
	if (c->transform && c->transform[0])
		jw_str(&w, c->transform);
	else
		jw_null(&w);
	jw_ku64(&w, "deselected", c->deselected);
	jw_ku64(&w, "conflicts", c->conflicts);
	jw_kstr(&w, "conflicts_rule", c->conflicts_rule ? c->conflicts_rule : "keep");
	jw_ku64(&w, "errors", s->errors);
	jw_ku64(&w, "short_ios", s->short_ios);
	jw_ku64(&w, "member_ios", s->member_ios);
	jw_ku64(&w, "internal_reads", s->internal_ios[0]);
	jw_ku64(&w, "internal_writes", s->internal_ios[1]);
	jw_kbool(&w, "stopped_early", c->interrupted);
	jw_key(&w, "partial");
	if (c->stopped)
		partial_json(&w, c->done_ios, c->total_ios, c->stopped);
	else
		jw_null(&w);
	jw_ku64(&w, "bytes", s->bytes);
	jw_ku64(&w, "duration_ns", c->elapsed_ns);
	jw_ku64(&w, "recorded_ns", c->recorded_ns);
	jw_knum(&w, "ios_per_s", el > 0 ? (double)s->ios / el : 0, 1);
	jw_knum(&w, "mb_per_s", el > 0 ? (double)s->bytes / el / 1e6 : 0, 3);
	/* A replay knows no queue time (queue = issue): total is service. */
	if (s->failed[0]) {
		jw_key(&w, "latency");
		jw_null(&w);
		jw_key(&w, "lateness");
		jw_null(&w);
		jw_kstr(&w, "latency_error", s->failed);
	} else {
		jw_key(&w, "latency");
		jw_obj(&w);
		jw_key(&w, "service");
		latencies_json(&w, s);
		jw_key(&w, "total");
		latencies_json(&w, s);
		jw_obj_end(&w);
		jw_key(&w, "lateness");
		jw_obj(&w);
		jw_ku64(&w, "p50_ns", s->late_pct[0]);
		jw_ku64(&w, "p99_ns", s->late_pct[1]);
		jw_ku64(&w, "max_ns", s->late_pct[2]);
		jw_obj_end(&w);
	}
	jw_key(&w, "errnos");
	jw_obj(&w);
	for (unsigned i = 0; i < s->nerrnos; i++) {
		snprintf(code, sizeof(code), "%d", s->errnos[i].code);
		jw_ku64(&w, code, s->errnos[i].count);
	}
	jw_obj_end(&w);
	if (c->nplaces)
		place_json(&w, s, c);
	if (c->nrecs > 1)
		recs_json(&w, c);
	if (c->run_file)
		jw_kstr(&w, "run_file", c->run_file);
	if (c->cache) {
		const struct summary_cache *k = c->cache;

		jw_key(&w, "controller_cache");
		jw_obj(&w);
		jw_ku64(&w, "writes", k->writes);
		jw_ku64(&w, "writes_waited", k->waits);
		jw_ku64(&w, "read_hits", k->read_hits);
		jw_ku64(&w, "destages", k->destages);
		jw_ku64(&w, "destaged_bytes", k->destaged_bytes);
		jw_ku64(&w, "full_rows", k->full_rows);
		jw_ku64(&w, "drained_ns", k->drained_ns);
		jw_ku64(&w, "unwritten_bytes", k->unwritten);
		jw_ki64(&w, "error", k->error);
		jw_obj_end(&w);
	}
	if (c->verify) {
		jw_key(&w, "verify");
		verify_json(&w, c->verify);
	}
	jw_obj_end(&w);
	jw_finish(&w);
}
