/*
 * report_json.c — the report as one JSON object (blkpeak analyze report
 * --json). Times are integer nanoseconds, sizes bytes, rates per second;
 * the layout is described in docs/analyze.md and
 * schemas/analyze-report.schema.json.
 */
#include <inttypes.h>

#include "jsonout.h"
#include "partial.h"
#include "report.h"

/* A string, or null when empty. */
static void json_opt_str(FILE *f, const char *s)
{
	if (*s)
		json_str(f, s);
	else
		fputs("null", f);
}

static void latencies_json(FILE *f, const struct st_report *r, int total)
{
	fprintf(f, "{\"all\":");
	stats_latency_json(f, total ? &r->all_total : &r->all_service);
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		const struct stats_latency *l = total ? &r->op[op].total : &r->op[op].service;

		if (!l->count)
			continue;
		fprintf(f, ",\"%s\":", bpt_op_name(op));
		stats_latency_json(f, l);
	}
	putc('}', f);
}

static void mix_json(FILE *f, const struct st_report *r)
{
	char b[32];
	int first = 1;

	fprintf(f, ",\"mix\":{");
	for (unsigned op = 0; op < BPT_OP__COUNT; op++)
		fprintf(f, "%s\"%s\":{\"ios\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", op ? "," : "",
			bpt_op_name(op), r->op[op].ios, r->op[op].bytes);
	fprintf(f, "},\"sizes\":[");
	for (unsigned k = 0; k < ST_SIZE_CLASSES; k++) {
		const uint64_t *h = r->size_hist[k];

		if (!(h[0] + h[1] + h[2]))
			continue;
		fprintf(f, "%s{\"class\":", first ? "" : ",");
		json_str(f, st_size_label(k, b, sizeof(b)));
		if (k > 0 && k < ST_SIZE_CLASSES - 1)
			fprintf(f, ",\"max_bytes\":%llu", 1ull << (k - 1));
		fprintf(f, ",\"read\":%" PRIu64 ",\"write\":%" PRIu64 ",\"other\":%" PRIu64 "}",
			h[0], h[1], h[2]);
		first = 0;
	}
	putc(']', f);
}

static void seek_json(FILE *f, const struct st_report *r)
{
	int first = 1;

	fprintf(f, ",\"seek\":{\"devices\":[");
	for (uint32_t d = 0; d < r->ndev; d++) {
		if (!r->dev[d].data_ios)
			continue;
		fprintf(f, "%s{\"dev\":%u,\"name\":", first ? "" : ",", d);
		json_str(f, r->dev[d].name);
		fprintf(f, ",\"data_ios\":%" PRIu64 ",\"span_first_sector\":%" PRIu64
			",\"span_end_sector\":%" PRIu64 ",\"span_bytes\":%" PRIu64 "}",
			r->dev[d].data_ios, r->dev[d].span_lo, r->dev[d].span_hi,
			(r->dev[d].span_hi - r->dev[d].span_lo) * 512);
		first = 0;
	}
	fprintf(f, "],\"classes\":[");
	for (int k = 0; k < ST_SEEK_CLASSES; k++) {
		fprintf(f, "%s{\"class\":", k ? "," : "");
		json_str(f, st_seek_name[k]);
		fprintf(f, ",\"max_fraction\":");
		json_num(f, k ? (double)st_seek_bound[k - 1][0] / st_seek_bound[k - 1][1] : 0, 4);
		fprintf(f, ",\"count\":%" PRIu64 "}", r->seek_hist[k]);
	}
	fprintf(f, "],\"data_ios\":%" PRIu64 ",\"sequential\":%" PRIu64 ",\"sequential_share\":",
		r->data_ios, r->sequential);
	json_num(f, r->sequential_share, 6);
	putc('}', f);
}

static void depth_json(FILE *f, const struct st_report *r)
{
	fprintf(f, ",\"queue_depth\":{\"mean\":");
	json_num(f, r->mean_depth, 4);
	fprintf(f, ",\"max\":%u,\"classes\":[", r->max_depth);
	for (int k = 0; k < ST_DEPTH_CLASSES; k++) {
		fprintf(f, "%s{\"min\":%u,\"max\":", k ? "," : "", k ? st_depth_bound[k - 1] + 1 : 0);
		if (k == ST_DEPTH_CLASSES - 1)
			fputs("null", f);
		else
			fprintf(f, "%u", st_depth_bound[k]);
		fprintf(f, ",\"ns\":%" PRIu64 "}", r->depth_ns[k]);
	}
	fprintf(f, "]},\"busy_ns\":%" PRIu64 ",\"idle_ns\":%" PRIu64 ",\"idle_periods\":[",
		r->busy_ns, r->idle_ns);
	for (int k = 0; k < ST_IDLE_CLASSES; k++) {
		fprintf(f, "%s{\"max_ns\":", k ? "," : "");
		if (k == ST_IDLE_CLASSES - 1)
			fputs("null", f);
		else
			fprintf(f, "%" PRIu64, st_idle_bound[k]);
		fprintf(f, ",\"count\":%" PRIu64 ",\"ns\":%" PRIu64 "}", r->idle_count[k],
			r->idle_ns_hist[k]);
	}
	putc(']', f);
}

static void top_json(FILE *f, const struct st_report *r)
{
	fprintf(f, ",\"processes\":%u,\"top_processes\":{", r->nproc_total);
	for (int pass = 0; pass < 2; pass++) {
		const struct st_proc *top = pass ? r->top_bytes : r->top_ios;
		uint32_t n = pass ? r->ntop_bytes : r->ntop_ios;

		fprintf(f, "%s\"by_%s\":[", pass ? "," : "", pass ? "bytes" : "ios");
		for (uint32_t i = 0; i < n; i++) {
			fprintf(f, "%s{\"pid\":%u,\"comm\":", i ? "," : "", top[i].pid);
			json_str(f, top[i].comm);
			fprintf(f, ",\"lost_events\":%" PRIu64 ",\"loss_windows\":%" PRIu64 ",\"truncated\":%s",
		r->lost_events, r->loss_windows, r->truncated ? "true" : "false");
	fprintf(f, ",\"ios\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", top[i].ios, top[i].bytes);
		}
		putc(']', f);
	}
	putc('}', f);
}

static void series_json(FILE *f, const struct st_report *r)
{
	fprintf(f, ",\"per_second\":{\"first_second\":%" PRIu64 ",\"iops\":[", r->first_second);
	for (uint64_t s = 0; s < r->nseconds; s++)
		fprintf(f, "%s%" PRIu64, s ? "," : "", r->series[s].ios);
	fprintf(f, "],\"mbps\":[");
	for (uint64_t s = 0; s < r->nseconds; s++) {
		if (s)
			putc(',', f);
		json_num(f, (double)r->series[s].bytes / 1e6, 6);
	}
	fprintf(f, "]}");
}

void report_print_json(FILE *f, const struct st_report *r)
{
	fprintf(f, "{\"trace\":{\"id\":%" PRId64 ",\"path\":", r->trace_id);
	json_str(f, r->path);
	fprintf(f, ",\"kind\":");
	json_str(f, r->kind);
	fprintf(f, ",\"digest\":");
	json_str(f, r->digest); /* from the database, which anyone may have written */
	fprintf(f, "},\"run\":");
	if (r->is_run) {
		fprintf(f, "{\"source_digest\":");
		json_opt_str(f, r->source_digest);
		fprintf(f, ",\"source_trace_id\":");
		if (r->source_id)
			fprintf(f, "%" PRId64, r->source_id);
		else
			fputs("null", f);
		fprintf(f, ",\"target\":");
		json_opt_str(f, r->target);
		fprintf(f, ",\"timing\":");
		json_opt_str(f, r->timing);
		fprintf(f, ",\"partial\":");
		if (r->partial.partial)
			partial_json(f, r->partial.done, r->partial.total, r->partial.reason);
		else
			fputs("null", f);
		putc('}', f);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\"lost_events\":%" PRIu64 ",\"loss_windows\":%" PRIu64 ",\"truncated\":%s",
		r->lost_events, r->loss_windows, r->truncated ? "true" : "false");
	fprintf(f, ",\"completion_not_seen\":%" PRIu64, r->unseen_completions);
	fprintf(f, ",\"ios\":%" PRIu64 ",\"bytes\":%" PRIu64
		",\"errors\":%" PRIu64 ",\"first_issue_ns\":%" PRIu64 ",\"last_complete_ns\":%" PRIu64
		",\"duration_ns\":%" PRIu64 ",\"iops\":",
		r->ios, r->bytes, r->errors, r->first_issue_ns, r->last_complete_ns,
		r->duration_ns);
	json_num(f, r->iops, 3);
	fprintf(f, ",\"mbps\":");
	json_num(f, r->mbps, 6);
	mix_json(f, r);
	seek_json(f, r);
	depth_json(f, r);
	fprintf(f, ",\"latency\":{\"service\":");
	latencies_json(f, r, 0);
	fprintf(f, ",\"total\":");
	latencies_json(f, r, 1);
	putc('}', f);
	top_json(f, r);
	series_json(f, r);
	fprintf(f, "}\n");
}
