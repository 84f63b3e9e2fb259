/*
 * report_json.c — the report as one JSON object (blkpeak analyze report
 * --json). Times are integer nanoseconds, sizes bytes, rates per second;
 * the layout is described in docs/analyze.md and
 * schemas/analyze-report.schema.json.
 */
#include <inttypes.h>

#include "jsonout.h"
#include "partial.h"
#include "files_filter.h"
#include "report.h"

static void latencies_json(struct jw *w, const struct st_report *r, int total)
{
	jw_obj(w);
	jw_key(w, "all");
	stats_latency_json(w, total ? &r->all_total : &r->all_service);
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		const struct stats_latency *l = total ? &r->op[op].total : &r->op[op].service;

		if (!l->count)
			continue;
		jw_key(w, bpt_op_name(op));
		stats_latency_json(w, l);
	}
	jw_obj_end(w);
}

static void mix_json(struct jw *w, const struct st_report *r)
{
	char b[32];

	jw_key(w, "mix");
	jw_obj(w);
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		jw_key(w, bpt_op_name(op));
		jw_obj(w);
		jw_ku64(w, "ios", r->op[op].ios);
		jw_ku64(w, "bytes", r->op[op].bytes);
		jw_obj_end(w);
	}
	jw_obj_end(w);
	jw_key(w, "sizes");
	jw_arr(w);
	for (unsigned k = 0; k < ST_SIZE_CLASSES; k++) {
		const uint64_t *h = r->size_hist[k];

		if (!(h[0] + h[1] + h[2]))
			continue;
		jw_obj(w);
		jw_kstr(w, "class", st_size_label(k, b, sizeof(b)));
		if (k > 0 && k < ST_SIZE_CLASSES - 1)
			jw_ku64(w, "max_bytes", 1ull << (k - 1));
		jw_ku64(w, "read", h[0]);
		jw_ku64(w, "write", h[1]);
		jw_ku64(w, "other", h[2]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void seek_json(struct jw *w, const struct st_report *r)
{
	jw_key(w, "seek");
	jw_obj(w);
	jw_key(w, "devices");
	jw_arr(w);
	for (uint32_t d = 0; d < r->ndev; d++) {
		if (!r->dev[d].data_ios)
			continue;
		jw_obj(w);
		jw_ku64(w, "dev", d);
		jw_kstr(w, "name", r->dev[d].name);
		jw_ku64(w, "data_ios", r->dev[d].data_ios);
		jw_ku64(w, "span_first_sector", r->dev[d].span_lo);
		jw_ku64(w, "span_end_sector", r->dev[d].span_hi);
		jw_ku64(w, "span_bytes", (r->dev[d].span_hi - r->dev[d].span_lo) * 512);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_key(w, "classes");
	jw_arr(w);
	for (int k = 0; k < ST_SEEK_CLASSES; k++) {
		jw_obj(w);
		jw_kstr(w, "class", st_seek_name[k]);
		jw_knum(w, "max_fraction",
			k ? (double)st_seek_bound[k - 1][0] / st_seek_bound[k - 1][1] : 0, 4);
		jw_ku64(w, "count", r->seek_hist[k]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_ku64(w, "data_ios", r->data_ios);
	jw_ku64(w, "sequential", r->sequential);
	jw_knum(w, "sequential_share", r->sequential_share, 6);
	jw_obj_end(w);
}

static void depth_json(struct jw *w, const struct st_report *r)
{
	jw_key(w, "queue_depth");
	jw_obj(w);
	jw_knum(w, "mean", r->mean_depth, 4);
	jw_ku64(w, "max", r->max_depth);
	jw_key(w, "classes");
	jw_arr(w);
	for (int k = 0; k < ST_DEPTH_CLASSES; k++) {
		jw_obj(w);
		jw_ku64(w, "min", k ? st_depth_bound[k - 1] + 1 : 0);
		jw_key(w, "max");
		if (k == ST_DEPTH_CLASSES - 1)
			jw_null(w);
		else
			jw_u64(w, st_depth_bound[k]);
		jw_ku64(w, "ns", r->depth_ns[k]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
	jw_ku64(w, "busy_ns", r->busy_ns);
	jw_ku64(w, "idle_ns", r->idle_ns);
	jw_key(w, "idle_periods");
	jw_arr(w);
	for (int k = 0; k < ST_IDLE_CLASSES; k++) {
		jw_obj(w);
		jw_key(w, "max_ns");
		if (k == ST_IDLE_CLASSES - 1)
			jw_null(w);
		else
			jw_u64(w, st_idle_bound[k]);
		jw_ku64(w, "count", r->idle_count[k]);
		jw_ku64(w, "ns", r->idle_ns_hist[k]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void files_json(struct jw *w, const struct st_report *r)
{
	jw_ku64(w, "files", r->nfile_total);
	jw_key(w, "top_files");
	jw_obj(w);
	for (int pass = 0; pass < 2; pass++) {
		const struct st_file *top = pass ? r->top_dirs : r->top_files;
		uint32_t n = pass ? r->ntop_dirs : r->ntop_files;

		jw_key(w, pass ? "directories" : "files");
		jw_arr(w);
		for (uint32_t i = 0; i < n; i++) {
			jw_obj(w);
			jw_kstr(w, "name", top[i].name);
			jw_ku64(w, "ios", top[i].ios);
			jw_ku64(w, "bytes", top[i].bytes);
			jw_ku64(w, "reads", top[i].reads);
			jw_ku64(w, "writes", top[i].writes);
			jw_knum(w, "busy_share", top[i].busy_share, 6);
			jw_obj_end(w);
		}
		jw_arr_end(w);
	}
	jw_obj_end(w);
}

static void top_json(struct jw *w, const struct st_report *r)
{
	jw_ku64(w, "processes", r->nproc_total);
	jw_key(w, "top_processes");
	jw_obj(w);
	for (int pass = 0; pass < 2; pass++) {
		const struct st_proc *top = pass ? r->top_bytes : r->top_ios;
		uint32_t n = pass ? r->ntop_bytes : r->ntop_ios;

		jw_key(w, pass ? "by_bytes" : "by_ios");
		jw_arr(w);
		for (uint32_t i = 0; i < n; i++) {
			jw_obj(w);
			jw_ku64(w, "pid", top[i].pid);
			jw_kstr(w, "comm", top[i].comm);
			jw_ku64(w, "ios", top[i].ios);
			jw_ku64(w, "bytes", top[i].bytes);
			jw_obj_end(w);
		}
		jw_arr_end(w);
	}
	jw_obj_end(w);
}

static void series_json(struct jw *w, const struct st_report *r)
{
	jw_key(w, "per_second");
	jw_obj(w);
	jw_ku64(w, "first_second", r->first_second);
	jw_key(w, "ios_per_s");
	jw_arr(w);
	for (uint64_t s = 0; s < r->nseconds; s++)
		jw_u64(w, r->series[s].ios);
	jw_arr_end(w);
	jw_key(w, "mb_per_s");
	jw_arr(w);
	for (uint64_t s = 0; s < r->nseconds; s++)
		jw_num(w, (double)r->series[s].bytes / 1e6, 6);
	jw_arr_end(w);
	jw_obj_end(w);
}

static void run_json(struct jw *w, const struct st_report *r)
{
	jw_key(w, "run");
	if (!r->is_run) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_key(w, "source_digest");
	jw_str_or_null(w, r->source_digest);
	jw_key(w, "source_trace_id");
	if (r->source_id)
		jw_i64(w, r->source_id);
	else
		jw_null(w);
	jw_key(w, "target");
	jw_str_or_null(w, r->target);
	jw_key(w, "timing");
	jw_str_or_null(w, r->timing);
	jw_key(w, "partial");
	if (r->partial.partial)
		partial_json(w, r->partial.done, r->partial.total, r->partial.reason);
	else
		jw_null(w);
	/* the replayer's own clock (issue - sched), then the kernel's view */
	jw_key(w, "lateness");
	if (r->lateness.count)
		stats_latency_json(w, &r->lateness);
	else
		jw_null(w);
	jw_key(w, "fidelity");
	run_verify_json(w, &r->verify);
	jw_obj_end(w);
}

void report_files_filter_json(struct jw *w, const struct st_report *r, int count)
{
	jw_key(w, "files_filter");
	if (!r->files || r->files->recording) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_key(w, "patterns");
	jw_arr(w);
	for (int i = 0; i < r->files->n; i++)
		jw_str(w, r->files->pattern[i]);
	jw_arr_end(w);
	if (count)
		jw_ku64(w, "ios_of_trace", r->files_ios_of);
	jw_obj_end(w);
}

void report_print_json(FILE *f, const struct st_report *r)
{
	struct jw w;

	jw_init(&w, f, 0);
	jw_obj(&w);
	jw_key(&w, "trace");
	jw_obj(&w);
	jw_key(&w, "id");
	if (r->trace_id)
		jw_i64(&w, r->trace_id);
	else
		jw_null(&w); /* a file read in place */
	jw_kstr(&w, "path", r->path);
	jw_kstr(&w, "kind", r->kind);
	jw_kstr(&w, "digest", r->digest); /* from the database, which anyone may have written */
	jw_key(&w, "transform");
	jw_str_or_null(&w, r->transform[0] ? r->transform : NULL);
	jw_obj_end(&w);
	run_json(&w, r);
	report_files_filter_json(&w, r, 1);
	if (r->files && r->files->recording) {
		jw_key(&w, "recording");
		jw_obj(&w);
		jw_kstr(&w, "name", r->files->recording);
		jw_key(&w, "recordings");
		jw_arr(&w);
		for (unsigned k = 0; k < r->nmix; k++)
			jw_str(&w, r->mix_name[k]);
		jw_arr_end(&w);
		jw_ku64(&w, "ios_of_run", r->files_ios_of);
		jw_obj_end(&w);
	}
	jw_ku64(&w, "lost_events", r->lost_events);
	jw_ku64(&w, "loss_windows", r->loss_windows);
	jw_kbool(&w, "truncated", r->truncated);
	jw_ku64(&w, "completion_not_seen", r->unseen_completions);
	jw_ku64(&w, "ios", r->ios);
	jw_ku64(&w, "bytes", r->bytes);
	jw_ku64(&w, "errors", r->errors);
	jw_ku64(&w, "first_issue_ns", r->first_issue_ns);
	jw_ku64(&w, "last_complete_ns", r->last_complete_ns);
	jw_ku64(&w, "duration_ns", r->duration_ns);
	jw_knum(&w, "ios_per_s", r->iops, 3);
	jw_knum(&w, "mb_per_s", r->mbps, 6);
	mix_json(&w, r);
	seek_json(&w, r);
	depth_json(&w, r);
	jw_key(&w, "latency");
	jw_obj(&w);
	jw_key(&w, "service");
	latencies_json(&w, r, 0);
	jw_key(&w, "total");
	latencies_json(&w, r, 1);
	jw_obj_end(&w);
	top_json(&w, r);
	files_json(&w, r);
	series_json(&w, r);
	jw_obj_end(&w);
	jw_finish(&w);
}
