/*
 * replay_run.c — the steps of one replay (replay_run.h). The only
 * process-wide state is `stop_flag`, set by the SIGINT/SIGTERM/SIGHUP handler and
 * read by the scheduler, so Ctrl-C stops issuing, waits for what is in
 * flight and still writes the run file and summary, both marked partial
 * with how many I/Os were done and why the replay stopped.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cliutil.h"
#include "fifo_guard.h"
#include "filemap.h"
#include "replay_run.h"
#include "fmt.h"
#include "outfile.h"
#include "result_order.h"
#include "result_thread.h"
#include "run_writer.h"
#include "summary.h"
#include "target.h"
#include "disk/target_hdd.h"
#include "verify/verify.h"
#include "xf_stream.h"

static volatile sig_atomic_t stop_flag;

_Static_assert(FILEMAP_MAX + 1 <= SUMMARY_MAX_PLACEMENTS, "the summary counts every placement");

/* Default --queue-depth of original and causal timing. */
#define DEFAULT_TIMED_DEPTH 1024u

/* The signal's number, so the run file can say which one stopped it. */
static void on_signal(int sig)
{
	stop_flag = sig;
}

/* One recording of the replay (a mixed replay has several: mix.h). */
struct rec {
	const char *path;
	char name[MIX_NAME_MAX + 1];
	uint64_t offset_ns;                      /* it starts this late */
	struct bpt_reader *reader;
	struct loaded_trace lt;
	struct xf_stream *stream;                /* its I/Os in issue order, transformed */
	uint64_t digest;
	/* its results so far (results' thread), for the summary */
	uint64_t ndone, nerr, first_issue_ns, last_done_ns, lat_sum_ns;
	/* a mix with -o RUN.bpt: its own run file, RUN.NAME.bpt */
	char *run_path;
	struct outfile out;
	struct run_writer *rw;
	int write_failed;
};

/* The recordings' sums: what the targets and the scheduler get. */
struct totals {
	uint64_t n, skipped, split, deselected;
	uint64_t recorded_ns;      /* the latest recording's end, from time 0 */
	unsigned max_outstanding;  /* the recordings' own, summed */
	struct load_target_stats tgt[LOAD_MAX_TARGETS];
};

/* Everything one replay holds; freed by replay_free. */
struct replay {
	const struct replay_opts *o;
	struct rec rec[MIX_MAX];
	unsigned nrec;                           /* 1, or a mix's recordings */
	struct totals tot;
	char source[4096];                       /* the recordings' paths, for the summary */
	struct filemap *fm;                      /* --map path:/comm: rules, or NULL */
	const char *spec[LOAD_MAX_TARGETS];     /* distinct target specs */
	unsigned ntargets;
	int raid;                                /* a target is raid5/raid6 */
	struct target tgt[LOAD_MAX_TARGETS];
	int opened[LOAD_MAX_TARGETS];
	int ran;                   /* the schedule started: I/O was done */
	struct sched_target st[LOAD_MAX_TARGETS];
	struct fit fit[LOAD_MAX_TARGETS];
	struct hdd_set *hdd;                     /* emulated disks (hdd: members) */
	void *rbuf, *wbuf;
	size_t buf_len;             /* bytes in each */
	int stamp_writes;           /* random or PCT fill: distinct data per write */
	char fill[16];              /* --fill (or the trace's "fill" meta) used, "" none */
	uint64_t conflicts, conflicts_dropped; /* overlapping I/Os in flight together */
	struct cpu_pin pin;         /* the issuer's CPU (timed modes) */
	int fifo;                   /* the issuer runs SCHED_FIFO */
	struct outfile out;                      /* -o: the run file */
	struct bpt_error stream_err;
	struct result_order order;               /* results back in issue order */
	struct result_thread *rthread;           /* ... on a thread of their own */
	struct run_writer *rw;
	struct summary sum;
	int write_failed;
	struct bpt_error werr;
	int progress;                            /* stderr is a terminal */
	uint64_t digest;                         /* the recording's, or the mix's */
	uint64_t ndone;                          /* I/Os with a result */
	uint64_t ndone_err;                      /* of those, failed */
	uint32_t first_err_src;                  /* source index of the first failure */
	int first_err;                           /* its negative errno, 0: none yet */
	struct verify *verify;                   /* --verify: the kernel's view */
	struct verify_result vres;
	int verified;                            /* vres holds the comparison */
};

static int target_index(struct replay *rp, const char *spec)
{
	for (unsigned i = 0; i < rp->ntargets; i++)
		if (!strcmp(rp->spec[i], spec))
			return (int)i;
	if (rp->ntargets == LOAD_MAX_TARGETS)
		return -1;
	rp->spec[rp->ntargets] = spec;
	return (int)rp->ntargets++;
}

static int dev_matches_one(const struct bpt_device *d, const char *key)
{
	char buf[64];

	if (!strcmp(key, d->name))
		return 1;
	snprintf(buf, sizeof(buf), "/dev/%s", d->name);
	if (!strcmp(key, buf))
		return 1;
	snprintf(buf, sizeof(buf), "%u:%u", d->major, d->minor);
	if (!strcmp(key, buf))
		return 1;
	/* a glob (vol1*, sd[ab]) over the name, as the shell matches */
	return strpbrk(key, "*?[") && fnmatch(key, d->name, 0) == 0;
}

/*
 * Does --map key name device d? KEY is a name (NAME, /dev/NAME,
 * MAJOR:MINOR), a glob over names, or a list of them joined by '|'
 * (vol1|vol7|hm_*): a multi-volume trace (thousands of volumes) maps a
 * set of them to one target.
 */
static int dev_matches(const struct bpt_device *d, const char *key)
{
	const char *bar = strchr(key, '|');
	char one[256];

	if (!bar)
		return dev_matches_one(d, key);
	for (const char *p = key;; p = bar + 1, bar = strchr(p, '|')) {
		size_t n = bar ? (size_t)(bar - p) : strlen(p);

		if (n && n < sizeof(one)) {
			memcpy(one, p, n);
			one[n] = 0;
			if (dev_matches_one(d, one))
				return 1;
		}
		if (!bar)
			return 0;
	}
}

/* "sda (8:0), sdb (8:16)" and their stored partitions, for errors. */
static void device_list(const struct bpt_header *h, char *names, size_t len)
{
	char name[sizeof(h->devices[0].name) * 4 + 4];
	struct bpt_partition parts[BPT_MAX_PARTITIONS];

	names[0] = 0;
	for (unsigned d = 0; d < h->ndevices && strlen(names) < len - 56; d++) {
		int np = bpt_partitions_get(h, d, parts, BPT_MAX_PARTITIONS);

		snprintf(names + strlen(names), len - strlen(names), "%s%s (%u:%u)", d ? ", " : "",
			 fmt_text(h->devices[d].name, name, sizeof(name)), h->devices[d].major,
			 h->devices[d].minor);
		for (int k = 0; k < np && strlen(names) < len - 56; k++)
			snprintf(names + strlen(names), len - strlen(names), "%s%s", k ? " " : " [",
				 fmt_text(parts[k].name, name, sizeof(name)));
		if (np > 0)
			snprintf(names + strlen(names), len - strlen(names), "]");
	}
	if (!names[0])
		snprintf(names, len, "none");
}

/* The device a --map key names, or -1. */
static int find_device(const struct bpt_header *h, const char *key)
{
	for (unsigned d = 0; d < h->ndevices; d++)
		if (dev_matches(&h->devices[d], key))
			return (int)d;
	return -1;
}

/* The partition named `key` (NAME or /dev/NAME) of a recorded disk:
 * its device index (*p filled), or -1. */
static int find_partition(const struct bpt_header *h, const char *key, struct bpt_partition *p)
{
	struct bpt_partition parts[BPT_MAX_PARTITIONS];
	const char *name = strncmp(key, "/dev/", 5) ? key : key + 5;

	for (unsigned d = 0; d < h->ndevices; d++) {
		int np = bpt_partitions_get(h, d, parts, BPT_MAX_PARTITIONS);

		for (int k = 0; k < np; k++)
			if (!strcmp(parts[k].name, name)) {
				*p = parts[k];
				return (int)d;
			}
	}
	return -1;
}

/* --map m as a region (DEV:START-END or a partition's name) into
 * lo->region; prints and returns -1 when it names nothing of the trace
 * or a region past the device's end. In a mix (rp->nrec > 1) a key
 * naming no device of this recording returns 1, without a word: it may
 * name one of another recording (map_devices checks that one does). */
static int map_region(struct replay *rp, const struct bpt_header *h, const struct replay_map *m,
		      struct load_opts *lo)
{
	char names[512], devname[sizeof(h->devices[0].name) * 4 + 4];
	struct bpt_partition part;
	struct bpt_error error;
	uint64_t start, end, size;
	size_t dl;
	int to_end, d, t, rc = region_parse_key(m->dev, &dl, &start, &end, &to_end, &error);

	if (rc < 0) {
		pr_err("replay: --map: %s", error.msg);
		return -1;
	}
	if (rc == 1) {
		char *dev = strndup(m->dev, dl);

		if (!dev)
			return -1;
		d = find_device(h, dev);
		if (d < 0 && rp->nrec > 1) {
			free(dev);
			return 1;
		}
		if (d < 0) {
			device_list(h, names, sizeof(names));
			pr_err("replay: --map %s: the trace has no device '%s' (it has: %s)",
			       m->dev, dev, names);
			free(dev);
			return -1;
		}
		free(dev);
	} else {
		d = find_partition(h, m->dev, &part);
		if (d < 0 && rp->nrec > 1)
			return 1;
		if (d < 0) {
			int tables = 0;

			for (unsigned k = 0; k < h->ndevices; k++)
				tables |= bpt_partitions_get(h, k, &part, 1) != 0;
			device_list(h, names, sizeof(names));
			if (tables)
				pr_err("replay: --map %s: the trace has no device or partition '%s' "
				       "(it has: %s)", m->dev, m->dev, names);
			else
				pr_err("replay: --map %s: the trace has no device '%s' (it has: %s); "
				       "it stores no partition table", m->dev, m->dev, names);
			return -1;
		}
		start = part.start * 512;
		end = (part.start + part.sectors) * 512;
		to_end = 0;
	}
	fmt_text(h->devices[d].name, devname, sizeof(devname));
	size = h->devices[d].size_bytes;
	if (to_end && !size) {
		pr_err("replay: --map %s: the size of %s was not recorded; give the region's end",
		       m->dev, devname);
		return -1;
	}
	if (to_end)
		end = size;
	if (size && end > size) {
		pr_err("replay: --map %s: the region ends at byte %" PRIu64 ", past the end of %s "
		       "(%" PRIu64 " bytes)", m->dev, end, devname, size);
		return -1;
	}
	if (end <= start) {
		pr_err("replay: --map %s: empty region (it starts at or after the end of %s)",
		       m->dev, devname);
		return -1;
	}
	if (lo->nregion == REGION_MAX) {
		pr_err("replay: --map %s: more than %d regions", m->dev, REGION_MAX);
		return -1;
	}
	t = target_index(rp, m->spec);
	if (t < 0) {
		pr_err("replay: more than %d targets", LOAD_MAX_TARGETS);
		return -1;
	}
	lo->region[lo->nregion++] = (struct region){ .start = start, .end = end, .at = m->at,
						     .dev = (uint32_t)d, .target = (uint8_t)t };
	lo->has_region[d] = 1;
	return 0;
}

/* --map path:GLOB=SPEC or comm:NAME=SPEC as a rule of rp->fm; prints and
 * returns -1 when it cannot be added. */
static int map_file(struct replay *rp, const struct replay_map *m)
{
	struct bpt_error error;
	int t = target_index(rp, m->spec);

	if (t < 0) {
		pr_err("replay: more than %d targets", LOAD_MAX_TARGETS);
		return -1;
	}
	if (!rp->fm && !(rp->fm = filemap_new())) {
		pr_err("replay: out of memory");
		return -1;
	}
	if (filemap_add(rp->fm, m->dev, (unsigned)t, m->at_text != NULL, m->at, &error)) {
		pr_err("replay: --map: %s", error.msg);
		return -1;
	}
	return 0;
}

/* Fill lo->dev_target and lo->region from --map and --target; prints and
 * returns -1 on a --map naming nothing of the trace or a bad region. Each
 * recording of a mix is mapped by its own device table (its device 0 is
 * not another's device 0); hit[m] is set when --map m named a device of
 * this one. */
static int map_devices(struct replay *rp, const struct bpt_header *h, struct load_opts *lo,
		       unsigned char *hit_any)
{
	const struct replay_opts *o = rp->o;
	const char **dev_names = calloc(h->ndevices ? h->ndevices : 1, sizeof(*dev_names));
	uint32_t *by_map = calloc(h->ndevices ? h->ndevices : 1, sizeof(*by_map));
	struct bpt_error error;
	int rc = -1;

	if (!dev_names || !by_map) {
		pr_err("replay: out of memory");
		goto out;
	}
	if (load_opts_init(lo, h->ndevices)) {
		pr_err("replay: out of memory");
		goto out;
	}
	for (unsigned m = 0; m < o->nmap; m++) {
		int hit = 0;

		if (filemap_parse_key(o->map[m].dev, &(enum filemap_kind){ 0 }, &(const char *){ NULL },
				      NULL) == 1) {
			if (rp->nrec > 1) {
				pr_err("replay: --map %s: file and task maps take one recording, not a "
				       "mix", o->map[m].dev);
				goto out;
			}
			if (map_file(rp, &o->map[m]))
				goto out;
			hit_any[m] = 1;
			continue;
		}
		for (unsigned d = 0; d < h->ndevices; d++) {
			if (!dev_matches(&h->devices[d], o->map[m].dev))
				continue;
			/* two --map keys on one device: which one is meant? */
			if (by_map[d] && strcmp(o->map[by_map[d] - 1].dev, o->map[m].dev)) {
				char name[sizeof(h->devices[0].name) * 4 + 4];

				fmt_text(h->devices[d].name, name, sizeof(name));
				pr_err("replay: --map %s and --map %s both name recorded device %s: "
				       "ambiguous; give each device one --map", o->map[by_map[d] - 1].dev,
				       o->map[m].dev, name);
				goto out;
			}
			by_map[d] = m + 1;
			if (o->map[m].at_text) {
				pr_err("replay: --map %s=%s@%s: @OFFSET places a region or a "
				       "partition; for a whole device use --offset",
				       o->map[m].dev, o->map[m].spec, o->map[m].at_text);
				goto out;
			}
			int t = target_index(rp, o->map[m].spec);
			if (t < 0) {
				pr_err("replay: more than %d targets", LOAD_MAX_TARGETS);
				goto out;
			}
			lo->dev_target[d] = (uint8_t)t;
			hit = 1;
		}
		if (!hit) {
			int r = map_region(rp, h, &o->map[m], lo);

			if (r < 0)
				goto out;
			hit = r == 0; /* 1: not a device of this recording */
		}
		hit_any[m] |= (unsigned char)hit;
	}
	if (o->target) {
		int t = -1;

		for (unsigned d = 0; d < h->ndevices; d++)
			if (lo->dev_target[d] == LOAD_UNMAPPED) {
				t = t < 0 ? target_index(rp, o->target) : t;
				if (t < 0)
					goto out;
				lo->dev_target[d] = (uint8_t)t;
			}
	}
	for (unsigned d = 0; d < h->ndevices; d++)
		dev_names[d] = h->devices[d].name;
	if (region_check(lo->region, lo->nregion, dev_names, &error)) {
		pr_err("replay: --map: %s", error.msg);
		goto out;
	}
	rc = 0;
out:
	free(dev_names);
	free(by_map);
	return rc;
}

/* Will the --writes policy of load options `ctx` replay rec? */
static int replayed(const struct bpt_record *rec, void *ctx)
{
	const struct load_opts *lo = ctx;
	int w = rec->op == BPT_OP_WRITE || rec->op == BPT_OP_DISCARD ||
		rec->op == BPT_OP_WRITE_ZEROES;

	return !w || lo->writes == WRITES_REPLAY ||
	       (lo->writes == WRITES_AS_READS && rec->op == BPT_OP_WRITE);
}

/* The transforms bound to the trace, with the targets' logical block
 * size for --spread's rounding; lo->xf set when they change records. -1
 * after saying why. */
static int bind_transforms(struct replay *rp, struct rec *r, struct load_opts *lo)
{
	struct xform *x = rp->o->xf;
	struct bpt_error err = { 0 };
	uint32_t align = 512;
	char why[256];

	if (!x || !xform_active(x))
		return 0;
	if (rp->nrec > 1 && (xform_changes_records(x) || x->loops > 1 || x->ramp_from > 0)) {
		pr_err("replay: the transforms (--select, --loop, ...) apply to one trace, not a mix "
		       "of %u: transform each with blkpeak convert first, then mix the results",
		       rp->nrec);
		return -1;
	}
	if (x->ramp_from > 0 && rp->o->timing == TIMING_AFAP) {
		pr_err("replay: --ramp: needs --timing original or causal (afap has no schedule "
		       "to speed up)");
		return -1;
	}
	for (unsigned t = 0; t < rp->ntargets; t++) {
		uint32_t a = xf_target_align(rp->spec[t]);

		if (a > align)
			align = a;
	}
	if (rp->nrec > 1) /* --fill alone: nothing to bind */
		return 0;
	if (xform_bind(x, r->reader, align, why, sizeof(why))) {
		pr_err("replay: %s", why);
		return -1;
	}
	if (x->has_time && xform_measure(x, r->reader, 0, &err)) {
		pr_err("replay: %s", err.msg);
		return -1;
	}
	if (xform_changes_records(x))
		lo->xf = x;
	return 0;
}

/* Read recording k: map its devices, scan it. 0, or -1 after saying why. */
static int load_rec(struct replay *rp, unsigned k, unsigned char *hit)
{
	const struct replay_opts *o = rp->o;
	struct rec *rc_ = &rp->rec[k];
	const char *trace = rc_->path;
	struct bpt_error err = { 0 };
	struct load_opts lo = { .writes = o->writes };
	const struct bpt_header *h;
	struct bpt_stats bs;
	int rc;

	rc = bpt_reader_open(&rc_->reader, trace, &err);
	if (rc < 0) {
		pr_err("replay: %s", err.msg);
		return -1;
	}
	h = bpt_reader_header(rc_->reader);
	if (map_devices(rp, h, &lo, hit)) {
		load_opts_free(&lo);
		return -1;
	}
	if (filemap_count(rp->fm)) { /* one pass to place the files and tasks */
		if (filemap_plan(rp->fm, rc_->reader, trace, replayed, &lo, &err)) {
			load_opts_free(&lo);
			pr_err("replay: %s", err.msg);
			return -1;
		}
		lo.fmap = rp->fm;
	}
	rc = bpt_reader_digest(rc_->reader, &rc_->digest, &err);
	if (rc < 0) {
		load_opts_free(&lo);
		pr_err("replay: %s", err.msg);
		return -1;
	}
	if (bind_transforms(rp, rc_, &lo)) {
		load_opts_free(&lo);
		return -1;
	}
	rc = load_scan(rc_->reader, &lo, &rc_->lt, &err);
	load_opts_free(&lo);
	if (rc == -ERANGE) {
		pr_err("replay: %s: record %" PRIu64 ": --spread/--shift would move it to byte 2^62 "
		       "or beyond", trace, rc_->lt.xf_bad_src);
		return -1;
	}
	if (rc == -ENODEV && (uint32_t)rc_->lt.unmapped_dev >= h->ndevices) {
		pr_err("replay: %s: an I/O names device %u, not in the trace's table of %u",
		       trace, (unsigned)rc_->lt.unmapped_dev, h->ndevices);
		return -1;
	}
	if (rc == -ENODEV) {
		const struct bpt_device *d = &h->devices[rc_->lt.unmapped_dev];
		char name[sizeof(d->name) * 4 + 4];

		fmt_text(d->name, name, sizeof(name)); /* recorded: escaped */
		if (rc_->lt.unmapped_region)
			pr_err("replay: %s: recorded device %s (%u:%u) has an I/O at byte %" PRIu64
			       ", outside its --map regions, and no target for the rest of the "
			       "disk; give --target SPEC or --map %s=SPEC", trace, name,
			       d->major, d->minor, rc_->lt.unmapped_byte, name);
		else
			pr_err("replay: %s: recorded device %s (%u:%u) has no target; give "
			       "--target SPEC or --map %s=SPEC", trace, name, d->major,
			       d->minor, name);
		return -1;
	}
	if (rc_->lt.split)
		fprintf(stderr, "replay: %s%s%" PRIu64 " I/Os cross a --map region's bound and are "
			"cut there (one request and one run-file record per piece)\n",
			rp->nrec > 1 ? trace : "", rp->nrec > 1 ? ": " : "", rc_->lt.split);
	if (rc < 0) {
		pr_err("replay: %s%s%s", rp->nrec > 1 ? trace : "", rp->nrec > 1 ? ": " : "",
		       rc == -ENOMEM ? "out of memory reading the trace"
		       : rc == -EFBIG ? "more than 4294967296 records in the trace"
		       : err.msg);
		return -1;
	}
	if (o->xf && xform_active(o->xf)) {
		char why[200];

		if (xf_totals(&rc_->lt, o->xf, why, sizeof(why))) {
			pr_err("replay: %s", why);
			return -1;
		}
	}
	bpt_reader_stats(rc_->reader, &bs);
	if (bs.truncated)
		pr_warn("replay: %s: truncated after byte %llu; replaying the %llu complete records",
			trace, (unsigned long long)bs.valid_bytes,
			(unsigned long long)rc_->lt.source_records);
	return 0;
}

/* The recordings' sums into rp->tot (the concurrency: once counted). */
static void sum_up(struct replay *rp)
{
	struct totals *t = &rp->tot;

	memset(t, 0, sizeof(*t));
	for (unsigned k = 0; k < rp->nrec; k++) {
		const struct rec *r = &rp->rec[k];
		uint64_t end = r->offset_ns + r->lt.recorded_ns;

		t->n += r->lt.n;
		t->skipped += r->lt.skipped;
		t->deselected += r->lt.deselected;
		t->split += r->lt.split;
		t->max_outstanding += r->lt.max_outstanding;
		if (end > t->recorded_ns)
			t->recorded_ns = end;
		for (unsigned i = 0; i < LOAD_MAX_TARGETS; i++) {
			const struct load_target_stats *a = &r->lt.tgt[i];
			struct load_target_stats *b = &t->tgt[i];

			b->ios += a->ios;
			b->writes += a->writes;
			b->extent = a->extent > b->extent ? a->extent : b->extent;
			b->max_len = a->max_len > b->max_len ? a->max_len : b->max_len;
			b->max_rw_len = a->max_rw_len > b->max_rw_len ? a->max_rw_len : b->max_rw_len;
		}
	}
}

/* The recordings, their names and offsets (a mix's are checked here:
 * distinct names, each --mix-offset naming one); -1 after saying why. */
static int name_recordings(struct replay *rp)
{
	const struct replay_opts *o = rp->o;
	unsigned given = 0;

	rp->nrec = o->ntraces > 1 ? o->ntraces : 1;
	for (unsigned k = 0; k < rp->nrec; k++) {
		struct rec *r = &rp->rec[k];

		r->path = o->ntraces > 1 ? o->traces[k] : o->trace;
		recording_name(r->path, r->name);
		for (unsigned j = 0; j < k && rp->nrec > 1; j++)
			if (!strcmp(rp->rec[j].name, r->name)) {
				pr_err("replay: %s and %s: two recordings named '%s' in one mix (the run "
				       "file tags each I/O with its recording's name); give one of them "
				       "another file name", rp->rec[j].path, r->path, r->name);
				return -1;
			}
	}
	for (unsigned i = 0; i < o->nmix_offset; i++) {
		unsigned k;

		for (k = 0; k < rp->nrec; k++)
			if (!strcmp(o->mix_offset[i].name, rp->rec[k].name) ||
			    !strcmp(o->mix_offset[i].name, rp->rec[k].path))
				break;
		if (rp->nrec < 2 || k == rp->nrec) {
			char names[512] = "";

			for (unsigned j = 0; j < rp->nrec; j++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					 j ? ", " : "", rp->rec[j].name);
			pr_err("replay: --mix-offset %s: %s", o->mix_offset[i].name,
			       rp->nrec < 2 ? "a mix's option: give two or more recordings"
					    : "not one of the mix's recordings");
			if (rp->nrec > 1)
				fprintf(stderr, "  the recordings: %s\n", names);
			return -1;
		}
		if (given & (1u << k)) {
			pr_err("replay: --mix-offset %s: recording '%s' is given an offset twice",
			       o->mix_offset[i].name, rp->rec[k].name);
			return -1;
		}
		given |= 1u << k;
		rp->rec[k].offset_ns = o->mix_offset[i].ns;
	}
	return 0;
}

static int load(struct replay *rp)
{
	const struct replay_opts *o = rp->o;
	unsigned char hit[LOAD_MAX_TARGETS] = { 0 };

	for (unsigned k = 0; k < rp->nrec; k++)
		if (load_rec(rp, k, hit))
			return -1;
	for (unsigned m = 0; m < o->nmap && rp->nrec > 1; m++)
		if (!hit[m]) {
			pr_err("replay: --map %s: no recording of the mix has that device or "
			       "partition", o->map[m].dev);
			return -1;
		}
	sum_up(rp);
	if (rp->nrec > 1) {
		uint64_t dg[MIX_MAX], off[MIX_MAX];

		for (unsigned k = 0; k < rp->nrec; k++) {
			dg[k] = rp->rec[k].digest;
			off[k] = rp->rec[k].offset_ns;
			snprintf(rp->source + strlen(rp->source),
				 sizeof(rp->source) - strlen(rp->source), "%s%s", k ? " + " : "",
				 rp->rec[k].path);
		}
		rp->digest = mix_digest(dg, off, rp->nrec);
	} else {
		rp->digest = rp->rec[0].digest;
		snprintf(rp->source, sizeof(rp->source), "%s", rp->rec[0].path);
	}
	return 0;
}

/* 1 when descriptor `fd` is the file `st` describes. */
static int same_file(int fd, const struct stat *st)
{
	struct stat f;

	return !fstat(fd, &f) && f.st_dev == st->st_dev && f.st_ino == st->st_ino;
}

/* Open every target and fit the trace's offsets onto it. */
static int open_targets(struct replay *rp)
{
	const struct replay_opts *o = rp->o;
	struct bpt_error error;

	for (unsigned t = 0; t < rp->ntargets; t++) {
		struct load_target_stats *ts = &rp->tot.tgt[t];
		struct target_policy pol = {
			.allow_write = o->allow_write,
			.writes_replayed = ts->writes > 0,
			.nwrites = ts->writes,
			.create_size = o->create_size,
		};
		struct fit fit;
		struct stat tst;

		if (target_open(&rp->tgt[t], rp->spec[t], &pol, &error)) {
			pr_err("replay: %s", error.msg);
			return -1;
		}
		rp->opened[t] = 1;
		if (rp->tgt[t].spec.kind == LAYOUT_RAID5 || rp->tgt[t].spec.kind == LAYOUT_RAID6)
			rp->raid = 1;
		for (unsigned k = 0; k < rp->nrec; k++)
			if (!stat(rp->rec[k].path, &tst))
				for (unsigned m = 0; m < rp->tgt[t].spec.nmembers; m++)
					if (same_file(rp->tgt[t].fd[m], &tst)) {
						pr_err("replay: %s: the trace is also a member of the target, "
						       "refusing to replay onto it", rp->rec[k].path);
						return -1;
					}
		if (fit_init(&fit, o->fit, ts->extent, ts->max_len, rp->tgt[t].layout.capacity,
			     o->offset, rp->tgt[t].align, rp->spec[t], &error)) {
			pr_err("replay: %s", error.msg);
			return -1;
		}
		rp->fit[t] = fit; /* applied as the trace streams */
		if (o->xf && o->xf->align && (o->xf->spread > 0 || o->xf->shift || o->xf->loop_offset) &&
		    rp->tgt[t].align > o->xf->align) {
			pr_err("replay: %s: logical block size %u, larger than the %u bytes --spread, "
			       "--shift and --loop-offset were aligned to", rp->spec[t],
			       rp->tgt[t].align, o->xf->align);
			return -1;
		}
		rp->st[t] = (struct sched_target){
			.layout = &rp->tgt[t].layout,
			.fd = rp->tgt[t].fd,
			.is_blkdev = rp->tgt[t].is_blkdev,
			.wc = rp->tgt[t].wc,
		};
	}
	return 0;
}

/* -1 (after saying why) when a region's bound or @OFFSET is not a
 * multiple of the logical block size of a target it cuts I/Os for: the
 * pieces cut there could not be done with O_DIRECT. */
static int check_region_alignment(const struct replay *rp, const struct bpt_header *h,
				  const struct load_opts *lo)
{
	for (unsigned i = 0; i < lo->nregion; i++) {
		const struct region *g = &lo->region[i];
		unsigned rest = lo->dev_target[g->dev];
		unsigned a = rp->tgt[g->target].align;
		uint64_t size = h->devices[g->dev].size_bytes;

		if (rest != LOAD_UNMAPPED && rp->tgt[rest].align > a)
			a = rp->tgt[rest].align;
		if (g->start % a || g->at % a || (g->end % a && g->end != size)) {
			pr_err("replay: --map region %" PRIu64 "-%" PRIu64 " (bytes) of %s: its bounds "
			       "and @OFFSET must be multiples of %u bytes, the logical block size of "
			       "its targets (%s%s%s)", g->start, g->end, h->devices[g->dev].name, a,
			       rp->spec[g->target], rest != LOAD_UNMAPPED ? ", " : "",
			       rest != LOAD_UNMAPPED ? rp->spec[rest] : "");
			return -1;
		}
	}
	for (unsigned k = 0; k < filemap_count(lo->fmap); k++) {
		struct filemap_rule_info fi;

		filemap_rule_info(lo->fmap, k, &fi);
		if (fi.packed && fi.at % rp->tgt[fi.target].align) {
			pr_err("replay: --map %s: @%" PRIu64 " must be a multiple of %u bytes, the "
			       "logical block size of %s", fi.key, fi.at, rp->tgt[fi.target].align,
			       rp->spec[fi.target]);
			return -1;
		}
	}
	return 0;
}

static int alloc_buffers(struct replay *rp)
{
	uint64_t len = 4096;

	for (unsigned t = 0; t < rp->ntargets; t++)
		if (rp->tot.tgt[t].max_rw_len > len)
			len = rp->tot.tgt[t].max_rw_len;
	len = (len + 4095) / 4096 * 4096;
	if (posix_memalign(&rp->rbuf, 4096, len) || posix_memalign(&rp->wbuf, 4096, len)) {
		pr_err("replay: cannot allocate %llu-byte I/O buffers", (unsigned long long)len);
		return -1;
	}
	rp->buf_len = len;
	memset(rp->rbuf, 0, len);
	for (uint64_t i = 0; i < len; i++)
		((unsigned char *)rp->wbuf)[i] = (unsigned char)(i * 131 + 7);
	/* --fill, or the fill a converted trace names (convert --fill) */
	struct xform fx = { 0 };
	const char *tf = bpt_header_get_meta(bpt_reader_header(rp->rec[0].reader), BPT_META_FILL);

	if (rp->o->xf && rp->o->xf->fill != XF_FILL_PATTERN) {
		fx.fill = rp->o->xf->fill;
		fx.fill_pct = rp->o->xf->fill_pct;
	} else if (tf && xform_fill_parse(&fx, tf)) {
		pr_warn("replay: %s: fill '%.16s' in its meta is not zero, random or 0-100; "
			"writing the default pattern", rp->o->trace, tf);
	}
	xform_fill_buffer(&fx, rp->wbuf, len);
	rp->stamp_writes = fx.fill == XF_FILL_RANDOM || fx.fill == XF_FILL_PCT;
	char fb[16];
	const char *fn = xform_fill_name(&fx, fb, sizeof(fb));

	snprintf(rp->fill, sizeof(rp->fill), "%s", fn ? fn : "");
	return 0;
}

/* "loop3" for /dev/loop3, "raid0:loop1,loop2" for an array. */
static void short_name(const struct target *t, char *buf, size_t len)
{
	size_t o = 0;

	if (t->spec.kind != LAYOUT_SINGLE)
		o = (size_t)snprintf(buf, len, "%s:", layout_kind_name(t->spec.kind));
	for (unsigned i = 0; i < t->spec.nmembers && o < len; i++) {
		const char *slash = strrchr(t->spec.members[i], '/');

		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "",
				      slash ? slash + 1 : t->spec.members[i]);
	}
}

/* -o: check and lock the run file's path before anything is loaded
 * (common/outfile.h: no device, FIFO or input; one writer at a time). */
static int open_output(struct replay *rp)
{
	const char *inputs[MIX_MAX + 1] = { NULL };

	for (unsigned k = 0; k < rp->nrec; k++)
		inputs[k] = rp->rec[k].path;

	if (outfile_open(&rp->out, rp->o->output,
			 &(struct outfile_opts){ .what = "a run file", .inputs = inputs })) {
		pr_err("replay: %s", rp->out.err.msg);
		return -1;
	}
	for (unsigned k = 0; k < rp->nrec && rp->nrec > 1; k++) {
		struct rec *r = &rp->rec[k];

		if (!(r->run_path = malloc(PATH_MAX))) {
			pr_err("replay: out of memory");
			return -1;
		}
		if (run_path_tagged(rp->o->output, r->name, r->run_path, PATH_MAX)) {
			pr_err("replay: -o %s: name too long for the run file of recording '%s'",
			       rp->o->output, r->name);
			return -1;
		}
		if (outfile_open(&r->out, r->run_path,
				 &(struct outfile_opts){ .what = "a run file", .inputs = inputs })) {
			pr_err("replay: %s", r->out.err.msg);
			return -1;
		}
	}
	return 0;
}

/* -1 (after saying why) when -o or a --protect path names a target
 * member, which writing the run file (or the parent command's output)
 * would destroy (the trace is checked by open_output). */
static int check_output(const struct replay *rp)
{
	unsigned nrun = rp->nrec > 1 && rp->o->output ? rp->nrec : 0;

	for (unsigned i = 0; i <= rp->o->nprotect + nrun; i++) {
		const char *out = i < rp->o->nprotect ? rp->o->protect[i]
				  : i == rp->o->nprotect ? rp->o->output
				  : rp->rec[i - rp->o->nprotect - 1].run_path;
		struct stat o;

		if (!out || stat(out, &o))
			continue; /* no run file, or a new one */
		for (unsigned t = 0; t < rp->ntargets; t++)
			for (unsigned m = 0; m < rp->tgt[t].spec.nmembers; m++) {
				if (!same_file(rp->tgt[t].fd[m], &o))
					continue;
				if (i < rp->o->nprotect)
					pr_err("replay: %s: a member of the target, and --protect (the "
					       "output of the calling command, such as measure -o), "
					       "refusing to run", out);
				else
					pr_err("replay: -o %s%s: that is a member of the target, refusing "
					       "to overwrite it", i > rp->o->nprotect ? "(a recording's run) " : "",
					       out);
				return -1;
			}
	}
	return 0;
}

/* The run file (k < 0), or in a mix recording k's own run file: its
 * I/Os alone, as a run of that recording (its source and digest, its
 * I/O count, the label "LABEL in mix", or "in mix" after the target's
 * short name), with the mix's meta and mix.this = K. */
static int open_one_run(struct replay *rp, int k)
{
	const struct replay_opts *o = rp->o;
	struct run_device devs[LOAD_MAX_TARGETS];
	char names[LOAD_MAX_TARGETS][32], target[224] = "", digest[24], speed[32], depth[16];
	char offset[32], create[32], nios[24], repeat[32], label[REPLAY_LABEL_MAX + 1], this[16];
	const char *meta[2 * (21 + 4 * MIX_MAX)];
	char mixkey[MIX_MAX][4][32], mixval[MIX_MAX][2][24], nmix[16];
	unsigned nm = 0;
	struct bpt_error err = { 0 };
	struct outfile *out = k < 0 ? &rp->out : &rp->rec[k].out;
	struct run_writer **rw = k < 0 ? &rp->rw : &rp->rec[k].rw;
	const char *path = k < 0 ? o->output : rp->rec[k].run_path;

	for (unsigned t = 0; t < rp->ntargets; t++) {
		struct stat st;
		const struct target *tg = &rp->tgt[t];

		short_name(tg, names[t], sizeof(names[t]));
		devs[t] = (struct run_device){ .name = names[t], .size_bytes = tg->layout.capacity,
					       .lbs = tg->align,
					       .internal_ios = tg->spec.kind == LAYOUT_RAID5 ||
							       tg->spec.kind == LAYOUT_RAID6 };
		if (tg->spec.kind == LAYOUT_SINGLE && !fstat(tg->fd[0], &st) && S_ISBLK(st.st_mode)) {
			devs[t].major = major(st.st_rdev);
			devs[t].minor = minor(st.st_rdev);
		}
	}
	if (rp->ntargets == 1 && !o->nmap) {
		snprintf(target, sizeof(target), "%s", rp->spec[0]);
	} else {
		/* recorded=spec pairs, ';' separated */
		for (unsigned t = 0; t < rp->ntargets; t++)
			for (unsigned m = 0; m < o->nmap; m++)
				if (!strcmp(o->map[m].spec, rp->spec[t]))
					snprintf(target + strlen(target), sizeof(target) - strlen(target),
						 "%s%s=%s%s%s", target[0] ? ";" : "", o->map[m].dev,
						 rp->spec[t], o->map[m].at_text ? "@" : "",
						 o->map[m].at_text ? o->map[m].at_text : "");
		if (o->target)
			snprintf(target + strlen(target), sizeof(target) - strlen(target),
				 "%s*=%s", target[0] ? ";" : "", o->target);
	}
	snprintf(digest, sizeof(digest), "%016" PRIx64, k < 0 ? rp->digest : rp->rec[k].digest);
	snprintf(speed, sizeof(speed), "%g", o->speed);
	snprintf(depth, sizeof(depth), "%u", o->depth);
	snprintf(nios, sizeof(nios), "%llu",
		 (unsigned long long)(k < 0 ? rp->tot.n : rp->rec[k].lt.n));
	meta[nm * 2] = BPT_META_SOURCE, meta[nm++ * 2 + 1] = k < 0 ? rp->source : rp->rec[k].path;
	meta[nm * 2] = BPT_META_SOURCE_DIGEST, meta[nm++ * 2 + 1] = digest;
	meta[nm * 2] = BPT_META_TARGET, meta[nm++ * 2 + 1] = target;
	meta[nm * 2] = BPT_META_TIMING, meta[nm++ * 2 + 1] = timing_name(o->timing);
	meta[nm * 2] = BPT_META_SPEED, meta[nm++ * 2 + 1] = speed;
	meta[nm * 2] = BPT_META_QUEUE_DEPTH, meta[nm++ * 2 + 1] = depth;
	meta[nm * 2] = BPT_META_ENGINE, meta[nm++ * 2 + 1] = o->engine;
	meta[nm * 2] = BPT_META_RUN_IOS, meta[nm++ * 2 + 1] = nios;
	if (o->writes != WRITES_REPLAY)
		meta[nm * 2] = BPT_META_WRITES,
		meta[nm++ * 2 + 1] = o->writes == WRITES_SKIP ? "skip" : "as-reads";
	if (o->fit != FIT_REFUSE)
		meta[nm * 2] = BPT_META_FIT, meta[nm++ * 2 + 1] = o->fit == FIT_WRAP ? "wrap" : "scale";
	if (o->offset) {
		snprintf(offset, sizeof(offset), "%llu", (unsigned long long)o->offset);
		meta[nm * 2] = BPT_META_OFFSET, meta[nm++ * 2 + 1] = offset;
	}
	if (o->create_size) {
		snprintf(create, sizeof(create), "%llu", (unsigned long long)o->create_size);
		meta[nm * 2] = BPT_META_CREATE, meta[nm++ * 2 + 1] = create;
	}
	if (o->no_idle)
		meta[nm * 2] = BPT_META_NO_IDLE, meta[nm++ * 2 + 1] = "1";
	if (k >= 0) { /* not a repeat of the recording replayed alone */
		snprintf(label, sizeof(label), "%.*s in mix", REPLAY_LABEL_MAX - 7,
			 o->label ? o->label : names[0]);
		meta[nm * 2] = BPT_META_LABEL, meta[nm++ * 2 + 1] = label;
		snprintf(this, sizeof(this), "%d", k + 1);
		meta[nm * 2] = "mix.this", meta[nm++ * 2 + 1] = this;
	} else if (o->label) {
		meta[nm * 2] = BPT_META_LABEL, meta[nm++ * 2 + 1] = o->label;
	}
	if (o->repeats) {
		snprintf(repeat, sizeof(repeat), "%u/%u", o->repeat, o->repeats);
		meta[nm * 2] = BPT_META_REPEAT, meta[nm++ * 2 + 1] = repeat;
	}
	if (rp->nrec > 1) {
		snprintf(nmix, sizeof(nmix), "%u", rp->nrec);
		meta[nm * 2] = "mix", meta[nm++ * 2 + 1] = nmix;
	}
	for (unsigned k = 0; k < rp->nrec && rp->nrec > 1; k++) {
		const char *key[4] = { "name", "source", "digest", "offset_ns" };
		const char *val[4] = { rp->rec[k].name, rp->rec[k].path, mixval[k][0], mixval[k][1] };

		snprintf(mixval[k][0], sizeof(mixval[k][0]), "%016" PRIx64, rp->rec[k].digest);
		snprintf(mixval[k][1], sizeof(mixval[k][1]), "%" PRIu64, rp->rec[k].offset_ns);
		for (unsigned i = 0; i < 4; i++) {
			snprintf(mixkey[k][i], sizeof(mixkey[k][i]), "mix.%u.%s", k + 1, key[i]);
			meta[nm * 2] = mixkey[k][i], meta[nm++ * 2 + 1] = val[i];
		}
	}
	if (o->xf && xform_describe(o->xf)[0])
		meta[nm * 2] = BPT_META_TRANSFORM, meta[nm++ * 2 + 1] = xform_describe(o->xf);
	if (rp->fill[0])
		meta[nm * 2] = BPT_META_FILL, meta[nm++ * 2 + 1] = rp->fill;
	if (o->conflicts != CONFLICT_KEEP)
		meta[nm * 2] = BPT_META_CONFLICTS, meta[nm++ * 2 + 1] = conflicts_name(o->conflicts);
	int fd = outfile_dup_fd(out);

	if (fd < 0) {
		pr_err("replay: %s", out->err.msg);
		return -1;
	}
	if (run_writer_open(rw, fd, path, devs, rp->ntargets, meta, nm, &err) < 0) {
		pr_err("replay: %s", err.msg);
		return -1;
	}
	if (rp->nrec > 1) {
		const char *names[MIX_MAX];

		for (unsigned k = 0; k < rp->nrec; k++)
			names[k] = rp->rec[k].name;
		if (run_writer_set_recordings(*rw, names, rp->nrec) < 0) {
			pr_err("replay: %s: out of memory", path);
			return -1;
		}
	}
	/* streaming: the run file is at its path from here on (outfile.h) */
	if (outfile_place(out)) {
		pr_err("replay: %s", out->err.msg);
		return -1;
	}
	return 0;
}

/* -o: the run file, and in a mix each recording's beside it. */
static int open_run_file(struct replay *rp)
{
	if (open_one_run(rp, -1))
		return -1;
	for (unsigned k = 0; k < rp->nrec && rp->nrec > 1; k++)
		if (open_one_run(rp, (int)k))
			return -1;
	return 0;
}

/* Sum up and write one result, in trace (issue) order. */
static void emit_result(void *ctx, const struct rp_result *r)
{
	struct replay *rp = ctx;
	struct rec *rc = &rp->rec[r->io->rec < rp->nrec ? r->io->rec : 0];

	if (!rc->ndone || r->issue_ns < rc->first_issue_ns)
		rc->first_issue_ns = r->issue_ns;
	if (r->complete_ns > rc->last_done_ns)
		rc->last_done_ns = r->complete_ns;
	rc->lat_sum_ns += r->complete_ns - r->issue_ns;
	rc->ndone++;
	rc->nerr += r->error != 0;
	summary_add(&rp->sum, r);
	if (rp->verify)
		verify_add(rp->verify, r);
	if (rp->rw && !rp->write_failed && run_writer_add(rp->rw, r) < 0)
		rp->write_failed = 1;
	if (rc->rw && !rc->write_failed && run_writer_add(rc->rw, r) < 0)
		rc->write_failed = 1;
	free(r->internal);
}

/* On the results' thread: put them back in issue order. */
static void order_result(void *ctx, const struct rp_result *r)
{
	struct replay *rp = ctx;

	result_order_add(&rp->order, r);
}

/* On the issuing thread: count the result and hand it over; summing up
 * and writing (zstd, write(2)) happen on the results' thread so they
 * never delay an issue. */
static int on_result(void *ctx, const struct rp_result *r)
{
	struct replay *rp = ctx;

	rp->ndone++;
	if (r->error) {
		rp->ndone_err++;
		if (!rp->first_err) {
			rp->first_err = r->error;
			rp->first_err_src = r->io->src;
		}
	}
	if (r->nparts && rp->raid) {
		struct rp_result c = *r;

		/* the parts are the scheduler's: a copy goes to the thread */
		if (sched_internal_copy(&c) < 0) {
			pr_err("replay: out of memory");
			return 1;
		}
		c.parts = NULL;
		c.part_done_ns = NULL;
		c.nparts = 0;
		result_thread_push(rp->rthread, &c);
		return 0;
	}
	result_thread_push(rp->rthread, r);
	return 0;
}

static int next_io(void *ctx, struct rp_io *io)
{
	struct replay *rp = ctx;

	return xf_stream_next(rp->rec[0].stream, io, &rp->stream_err);
}

/* A mix: recording k's next I/O, moved by its offset and tagged. */
static int next_rec_io(void *ctx, unsigned k, struct rp_io *io)
{
	struct replay *rp = ctx;
	const struct rec *r = &rp->rec[k];
	int rc = xf_stream_next(r->stream, io, &rp->stream_err);

	if (rc == 1) {
		io->t_ns += r->offset_ns;
		io->done_ns += r->offset_ns;
		io->rec = (uint8_t)k;
	} else if (rc < 0 && rp->stream_err.code) {
		char msg[sizeof(rp->stream_err.msg)];

		snprintf(msg, sizeof(msg), "%s", rp->stream_err.msg);
		snprintf(rp->stream_err.msg, sizeof(rp->stream_err.msg), "%.200s: %.300s", r->path,
			 msg);
	}
	return rc;
}

/* The recording's concurrency, when the scan could not count it (a trace
 * not in issue order): one more pass, in issue order. */
static int count_outstanding(struct replay *rp)
{
	struct bpt_error err = { 0 };
	int rc;

	for (unsigned k = 0; k < rp->nrec; k++) {
		if (rp->rec[k].lt.have_max_outstanding)
			continue;
		rc = load_count_outstanding(rp->rec[k].reader, &rp->rec[k].lt, 0, &err);
		if (rc < 0) {
			pr_err("replay: %s", rc == -ENOMEM ? "out of memory reading the trace" : err.msg);
			return -1;
		}
	}
	sum_up(rp);
	return 0;
}

/*
 * Why the replay stopped before its last I/O, into why[len]; NULL when it
 * did them all. A signal comes first (it is what the user did), then the
 * engine, then --stop-on-error.
 */
static const char *stop_reason(const struct replay *rp, int sched_rc,
			       const struct sched_stats *st, char *why, size_t len)
{
	const char *name;

	if (stop_flag) {
		name = sigabbrev_np(stop_flag);
		snprintf(why, len, "interrupted by SIG%s", name ? name : "?");
	} else if (rp->stream_err.code) {
		snprintf(why, len, "the trace could not be read: %.160s", rp->stream_err.msg);
	} else if (sched_rc < 0) {
		snprintf(why, len, "%s engine failed: %s", rp->o->engine, strerror(-sched_rc));
	} else if (rp->first_err && rp->o->stop_on_error && st->stopped) {
		name = strerrorname_np(-rp->first_err);
		snprintf(why, len, "stopped on error at I/O %u: %s (--stop-on-error)",
			 rp->first_err_src, name ? name : strerror(-rp->first_err));
	} else if (st->stopped || rp->ndone < rp->tot.n) {
		snprintf(why, len, "stopped after %llu of %llu I/Os",
			 (unsigned long long)rp->ndone, (unsigned long long)rp->tot.n);
	} else {
		return NULL;
	}
	return why;
}

/* --realtime: the issuing thread SCHED_FIFO, so other tasks do not delay
 * issues by a time slice, and memory locked; warns about what it could
 * not do. Not the default: a FIFO issuer must sleep before each I/O (the
 * kernel stops a busy one for up to 50 ms a second, fifo_guard.h), and
 * from a sleep an idle VM wakes it later than a SCHED_OTHER issuer
 * spinning on its own CPU is held up (bench/RESULTS.md). Returns whether
 * it is FIFO. */
static int go_realtime(const struct replay_opts *o)
{
	struct sched_param sp = { .sched_priority = 1 };
	int fifo = 1;

	if (!o->realtime)
		return 0;
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fifo = 0;
		pr_warn("replay: --realtime: cannot use SCHED_FIFO: %s; timing may suffer",
			strerror(errno));
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		pr_warn("replay: --realtime: cannot lock memory: %s", strerror(errno));
	return fifo;
}

static void on_progress(void *ctx, uint64_t done, uint64_t total, uint64_t elapsed_ns)
{
	struct replay *rp = ctx;
	double s = (double)elapsed_ns / 1e9, rate = s > 0 ? (double)done / s : 0;

	if (!rp->progress)
		return;
	fprintf(stderr, "\r\033[Kreplay: %llu/%llu I/Os (%.0f%%), %.0f IOPS, ",
		(unsigned long long)done, (unsigned long long)total,
		total ? 100.0 * (double)done / (double)total : 100.0, rate);
	if (rate > 0)
		fprintf(stderr, "ETA %.0f s", (double)(total - done) / rate);
	else
		fprintf(stderr, "ETA ?");
}

static void replay_free(struct replay *rp)
{
	/* a replay refused before its first I/O leaves no file its --create
	 * made (target_discard); one that ran keeps them */
	for (unsigned t = 0; t < rp->ntargets; t++)
		if (rp->opened[t] && rp->ran)
			target_close(&rp->tgt[t]);
		else if (rp->opened[t])
			target_discard(&rp->tgt[t]);
	result_thread_stop(rp->rthread);
	for (unsigned k = 0; k < rp->nrec; k++) {
		xf_stream_close(rp->rec[k].stream); /* its thread reads the reader */
		bpt_reader_close(rp->rec[k].reader);
		loaded_trace_free(&rp->rec[k].lt);
		if (rp->rec[k].rw)
			run_writer_close(rp->rec[k].rw, NULL);
		if (rp->rec[k].run_path) /* opened: not placed, removed */
			outfile_close(&rp->rec[k].out, -ECANCELED);
		free(rp->rec[k].run_path);
	}
	hdd_set_free(rp->hdd);
	verify_free(rp->verify);
	filemap_free(rp->fm);
	summary_free(&rp->sum);
	free(rp->rbuf);
	free(rp->wbuf);
	result_order_free(&rp->order);
	/* a run file not yet placed is removed; a placed one stays */
	outfile_close(&rp->out, -ECANCELED);
}

/* Read the trace, open the targets and the outputs, size the queue depth
 * and start the result thread. 0, or the exit status to end with (after
 * saying why). */
static int prepare(struct replay *rp, struct replay_opts *o)
{
	if (name_recordings(rp) || (o->output && open_output(rp)) || load(rp))
		return EXIT_FAIL;
	if (o->timing != TIMING_AFAP && !sched_span_fits(rp->tot.recorded_ns, o->speed)) {
		pr_err("replay: --speed %g: the %s's %.3f s would last %.3g s; the longest "
		       "schedule is 2^62 ns (about 146 years)", o->speed, rp->nrec > 1 ? "mix" : "trace",
		       (double)rp->tot.recorded_ns / 1e9, (double)rp->tot.recorded_ns / 1e9 / o->speed);
		return EXIT_USAGE;
	}
	if (open_targets(rp) || alloc_buffers(rp))
		return EXIT_FAIL;
	for (unsigned k = 0; k < rp->nrec; k++)
		if (check_region_alignment(rp, bpt_reader_header(rp->rec[k].reader),
					   &rp->rec[k].lt.opts))
			return EXIT_FAIL;
	if (!o->depth) {
		if (count_outstanding(rp))
			return EXIT_FAIL;
		/* afap keeps the recording's concurrency; the timed modes only
		 * need a bound high enough never to hold an I/O back */
		o->depth = rp->tot.max_outstanding ? rp->tot.max_outstanding : 1;
		if (o->timing != TIMING_AFAP && o->depth < DEFAULT_TIMED_DEPTH)
			o->depth = DEFAULT_TIMED_DEPTH;
	}
	/* the issuer's CPU, kept free of the threads started from here on */
	if (o->timing != TIMING_AFAP)
		cpu_pin_plan(&rp->pin);
	/* room for every request in flight several times over, so only a
	 * request outstanding for that many later ones comes out of order */
	if (result_order_init(&rp->order, o->depth * 4u > 65536 ? o->depth * 4u : 65536,
			      emit_result, rp) ||
	    result_thread_start(&rp->rthread, 16384, order_result, rp)) {
		pr_err("replay: out of memory");
		return EXIT_FAIL;
	}
	/* a mix's streams share the memory of one */
	for (unsigned k = 0; k < rp->nrec; k++)
		if (xf_stream_open(&rp->rec[k].stream, rp->rec[k].reader, &rp->rec[k].lt, rp->fit,
				   LOAD_WINDOW_DEFAULT / rp->nrec, rp->nrec == 1 ? o->xf : NULL,
				   o->conflicts)) {
			pr_err("replay: out of memory");
			return EXIT_FAIL;
		}
	if (check_output(rp) || (o->output && open_run_file(rp)))
		return EXIT_FAIL;
	return 0;
}

/* The scheduler's configuration, with the emulated disks of hdd: targets
 * in front of the engine. -1 (after saying why) when one cannot be. */
static int configure(struct replay *rp, const struct engine_ops *ops, struct sched_config *cfg)
{
	const struct replay_opts *o = rp->o;

	rp->fifo = go_realtime(o);
	rp->progress = isatty(STDERR_FILENO);
	prctl(PR_SET_TIMERSLACK, 1UL); /* timed waits wake when asked */
	*cfg = (struct sched_config){
		.timing = o->timing, .speed = o->speed, .depth = o->depth, .no_idle = o->no_idle,
		.warmup = !o->no_warmup, .poll = o->poll, .defer_results = 1,
		.stop_on_error = o->stop_on_error, .stop = &stop_flag, .ops = ops,
		/* a FIFO issuer sleeps until shortly before each I/O; the
		 * default one spins, until a stall shows a loaded machine,
		 * where a thread that sleeps is woken sooner than one that
		 * spins is given its CPU back */
		.spin_ns = rp->fifo ? SPIN_NS_SHORT : SPIN_NS_DEFAULT,
		.spin_after_stall_ns = SPIN_NS_SHORT,
		.fifo_guard = rp->fifo,
		.pin = o->timing != TIMING_AFAP ? &rp->pin : NULL,
		.eopts = { .null_latency_ns = o->null_latency_ns },
		.targets = rp->st, .ntargets = rp->ntargets,
		.read_buf = rp->rbuf, .write_buf = rp->wbuf, .buf_len = rp->buf_len,
		.stamp_writes = rp->stamp_writes,
		.on_result = on_result, .on_progress = on_progress, .ctx = rp,
	};
	for (unsigned t = 0; t < rp->ntargets; t++) {
		struct bpt_error error;

		if (hdd_set_add_target(&rp->hdd, &rp->tgt[t], !o->json, &error)) {
			pr_err("replay: %s", error.msg);
			return -1;
		}
	}
	if (hdd_set_count(rp->hdd)) { /* hold completions until the disks' times */
		cfg->eopts.inner = ops;
		cfg->eopts.hdd = rp->hdd;
		cfg->ops = &engine_hdd_ops;
	}
	return 0;
}

/* Run the schedule with SIGINT, SIGTERM and SIGHUP asking it to stop;
 * say why the engine failed, if it did. Returns sched_run_source's code. */
static int run_schedule(struct replay *rp, const struct sched_config *cfg,
			struct sched_stats *stats)
{
	const struct replay_opts *o = rp->o;
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term, old_hup;
	struct sched_source src = { .next = next_io, .ctx = rp, .total = rp->tot.n,
				    .next_rec = next_rec_io, .nrec = rp->nrec };
	int rc;

	stop_flag = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup); /* the terminal went away */
	for (unsigned t = 0; t < rp->ntargets; t++)
		if (rp->tot.tgt[t].max_rw_len > src.max_rw_len)
			src.max_rw_len = rp->tot.tgt[t].max_rw_len;
	rc = sched_run_source(cfg, &src, stats);
	if (stats->fifo_left_ns)
		pr_warn("replay: --realtime: the issuer was busy for over %.0f%% of a second, so it "
			"left SCHED_FIFO %.3f s into the replay (the kernel stops a busier real-time "
			"task for up to 50 ms a second)", 100.0 * (double)FIFO_GUARD_BUDGET_NS / 1e9,
			(double)stats->fifo_left_ns / 1e9);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (rp->progress)
		fprintf(stderr, "\r\033[K");
	if (rp->stream_err.code)
		pr_err("replay: %s", rp->stream_err.msg);
	else if (rc == -EAGAIN)
		pr_err("replay: %s engine: the system's AIO limit (/proc/sys/fs/aio-max-nr) "
		       "is used up; try a smaller --queue-depth", o->engine);
	else if (rc < 0)
		pr_err("replay: %s engine: %s", o->engine, strerror(-rc));
	if (rp->fifo) {
		struct sched_param sp = { 0 };

		sched_setscheduler(0, SCHED_OTHER, &sp);
	}
	if (o->realtime)
		munlockall();
	return rc;
}

/* Record the outcome in the run file and close it; say so when the run
 * file or the run is incomplete. */
static void finish_run_file(struct replay *rp, const char *stopped)
{
	if (rp->rw) {
		struct bpt_error err = { 0 };
		struct run_outcome oc = { .done = rp->ndone, .total = rp->tot.n,
					  .errors = rp->ndone_err, .stopped = stopped };

		if (run_writer_set_outcome(rp->rw, &oc) < 0 && !rp->write_failed) {
			pr_err("replay: %s: cannot record the outcome in the run file", rp->o->output);
			rp->write_failed = 1;
		}
		if (run_writer_close(rp->rw, &err) < 0 && !rp->write_failed) {
			pr_err("replay: %s", err.msg);
			rp->write_failed = 1;
		}
		rp->rw = NULL;
	}
	for (unsigned k = 0; k < rp->nrec; k++) {
		struct rec *r = &rp->rec[k];
		struct bpt_error err = { 0 };
		struct run_outcome oc = { .done = r->ndone, .total = r->lt.n, .errors = r->nerr,
					  .stopped = r->ndone < r->lt.n ? stopped : NULL };

		if (!r->rw)
			continue;
		if ((run_writer_set_outcome(r->rw, &oc) < 0 || run_writer_close(r->rw, &err) < 0) &&
		    !r->write_failed) {
			pr_err("replay: %s: cannot write the outcome or the end of the run file%s%s",
			       r->run_path, err.code ? ": " : "", err.code ? err.msg : "");
			r->write_failed = 1;
		}
		r->rw = NULL;
		if (r->write_failed) {
			pr_err("replay: %s: cannot write the run file of recording '%s'", r->run_path,
			       r->name);
			rp->write_failed = 1;
		}
	}
	if (rp->write_failed)
		pr_err("replay: %s: cannot write the run file; replay stopped", rp->o->output);
	if (stopped)
		pr_err("replay: %s; the run is partial: %llu of %llu I/Os, exit status 1",
		       stopped, (unsigned long long)rp->ndone, (unsigned long long)rp->tot.n);
}

/* The summary on stdout, text or --json. */
static void print_summary(struct replay *rp, const struct sched_stats *stats,
			  const char *stopped)
{
	const struct replay_opts *o = rp->o;
	struct summary_ctx sc = {
		.source = rp->source, .target = o->target ? o->target : "(--map)",
		.timing = timing_name(o->timing), .speed = o->speed, .depth = o->depth,
		.total_ios = rp->tot.n, .skipped = rp->tot.skipped, .elapsed_ns = stats->elapsed_ns,
		.transform = o->xf ? xform_describe(o->xf) : NULL, .deselected = rp->tot.deselected,
		.conflicts = rp->conflicts, .conflicts_rule = conflicts_name(o->conflicts),
		.recorded_ns = rp->tot.recorded_ns, .interrupted = stats->stopped,
		.done_ios = rp->ndone, .stopped = stopped,
		.run_file = rp->write_failed ? NULL : o->output,
		.verify = rp->verified ? &rp->vres : NULL,
	};
	struct summary_cache cache = {
		.writes = stats->wc_writes, .waits = stats->wc_waits,
		.read_hits = stats->wc_read_hits, .destages = stats->wc_destages,
		.destaged_bytes = stats->wc_destaged_bytes, .full_rows = stats->wc_full_rows,
		.drained_ns = stats->wc_drained_ns, .unwritten = stats->wc_unwritten,
		.error = stats->wc_error,
	};

	for (unsigned t = 0; t < rp->ntargets; t++)
		if (rp->tgt[t].wc)
			sc.cache = &cache;

	struct summary_place place[FILEMAP_MAX];

	sc.nplaces = filemap_count(rp->fm);
	sc.place = place;
	for (unsigned k = 0; k < sc.nplaces; k++) {
		struct filemap_rule_info fi;

		filemap_rule_info(rp->fm, k, &fi);
		place[k] = (struct summary_place){ .map = fi.key, .target = rp->spec[fi.target],
						   .packed = fi.packed, .at = fi.at, .end = fi.end,
						   .files = fi.files };
	}
	struct summary_rec recs[MIX_MAX];

	for (unsigned k = 0; k < rp->nrec && rp->nrec > 1; k++) {
		const struct rec *r = &rp->rec[k];

		recs[k] = (struct summary_rec){
			.name = r->name, .source = r->path, .offset_ns = r->offset_ns,
			.run_file = r->run_path && !r->write_failed ? r->run_path : NULL,
			.ios = r->ndone, .errors = r->nerr, .first_issue_ns = r->first_issue_ns,
			.last_done_ns = r->last_done_ns, .lat_sum_ns = r->lat_sum_ns,
		};
	}
	sc.recs = recs;
	sc.nrecs = rp->nrec > 1 ? rp->nrec : 0;
	if (rp->ntargets == 1)
		sc.target = rp->spec[0];
	if (o->json)
		summary_print_json(&rp->sum, &sc, stdout);
	else
		summary_print_text(&rp->sum, &sc, stdout);
	if (!o->json && rp->verified)
		verify_print_text(&rp->vres, stdout);
}

/* --verify: start recording the members before the first I/O. */
static int start_verify(struct replay *rp)
{
	struct verify_target vt[LOAD_MAX_TARGETS];
	struct bpt_error err = { 0 };
	const struct engine_ops *ops = engine_find(rp->o->engine);

	if (ops && (ops->flags & ENGINE_F_NO_IO)) {
		pr_err("replay: --verify: the %s engine does no I/O; there is nothing to verify",
		       ops->name);
		return -1;
	}
	for (unsigned t = 0; t < rp->ntargets; t++)
		vt[t] = (struct verify_target){ .layout = &rp->tgt[t].layout, .fd = rp->tgt[t].fd,
						.spec = rp->spec[t] };
	if (verify_start(&rp->verify, vt, rp->ntargets, &err)) {
		pr_err("replay: %s", err.msg);
		return -1;
	}
	return 0;
}

/* --verify: compare, and store the findings with the run file's end meta.
 * -1 (after saying why) when the comparison failed or found I/Os the
 * kernel did not see as asked. */
static int finish_verify(struct replay *rp, uint64_t start_mono_ns)
{
	struct bpt_error err = { 0 };
	const char *kv[2 * VERIFY_NMETA];
	char buf[VERIFY_NMETA][32];
	unsigned n;

	if (verify_finish(rp->verify, start_mono_ns, &rp->vres, &err)) {
		pr_err("replay: %s", err.msg);
		return -1;
	}
	rp->verified = 1;
	n = verify_meta(&rp->vres, kv, buf);
	for (unsigned i = 0; rp->rw && !rp->write_failed && i < n; i++)
		if (run_writer_set_meta(rp->rw, kv[2 * i], kv[2 * i + 1]) < 0) {
			pr_err("replay: %s: cannot record --verify's results in the run file",
			       rp->o->output);
			rp->write_failed = 1;
		}
	if (rp->vres.missing || rp->vres.misplaced) {
		pr_err("replay: --verify: %llu of %llu I/Os not seen by the kernel as asked "
		       "(%llu missing, %llu misplaced)",
		       (unsigned long long)(rp->vres.missing + rp->vres.misplaced),
		       (unsigned long long)rp->vres.ios, (unsigned long long)rp->vres.missing,
		       (unsigned long long)rp->vres.misplaced);
		return -1;
	}
	return 0;
}

int replay_run(const struct replay_opts *opts)
{
	struct replay rp = { .o = opts };
	struct replay_opts o = *opts;
	const struct engine_ops *ops;
	struct sched_stats stats;
	struct sched_config cfg;
	char why[200];
	const char *stopped;
	int rc, ret;

	if (o.engine) {
		ops = engine_find(o.engine);
		if (!ops) {
			engine_names(why, sizeof(why));
			pr_err("replay: --engine %s: unknown engine (%s)", o.engine, why);
			return EXIT_USAGE;
		}
		if (ops->usable && !ops->usable(why, sizeof(why))) {
			pr_err("replay: --engine %s: %s; try --engine %s", ops->name, why,
			       engine_default(NULL, 0)->name);
			return EXIT_FAIL;
		}
	} else {
		ops = engine_default(why, sizeof(why));
		if (why[0])
			pr_warn("replay: using the %s engine: %s", ops->name, why);
		o.engine = ops->name; /* the run file names the engine used */
	}
	rp.o = &o;
	rp.pin.cpu = -1;
	ret = prepare(&rp, &o);
	if (ret)
		goto out;
	ret = EXIT_FAIL;
	if (configure(&rp, ops, &cfg) || (o.verify && start_verify(&rp)))
		goto out;
	rp.ran = 1;
	rc = run_schedule(&rp, &cfg, &stats);
	result_thread_stop(rp.rthread);
	rp.rthread = NULL;
	result_order_flush(&rp.order);
	for (unsigned k = 0; k < rp.nrec; k++) { /* conflicts: each recording's own */
		uint64_t n, dropped;

		xf_stream_conflicts(rp.rec[k].stream, &n, &dropped);
		rp.conflicts += n;
		rp.conflicts_dropped += dropped;
		rp.rec[k].lt.n -= dropped; /* --conflicts drop: not to be done */
	}
	rp.tot.n -= rp.conflicts_dropped;
	stopped = stop_reason(&rp, rc, &stats, why, sizeof(why));
	int vfail = o.verify && finish_verify(&rp, stats.start_mono_ns);

	finish_run_file(&rp, stopped);
	print_summary(&rp, &stats, stopped);
	ret = rc < 0 || stopped || stats.errors || stats.wc_unwritten || rp.write_failed || vfail ?
		      EXIT_FAIL : EXIT_OK;
out:
	if (rp.rw)
		run_writer_close(rp.rw, NULL);
	replay_free(&rp);
	return ret;
}
