/*
 * verify_report.c — what `replay --verify` found, as text, as JSON and as
 * the run file's end meta (verify.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "cliutil.h"
#include "verify.h"

void verify_print_text(const struct verify_result *r, FILE *f)
{
	char a[32], b[32], c[32], d[32], e[32], g[32];

	fprintf(f, "verify (the kernel's view of the members):\n");
	fprintf(f, "  I/Os        %" PRIu64 " compared: %" PRIu64 " present, %" PRIu64
		" missing, %" PRIu64 " misplaced\n", r->ios, r->present, r->missing, r->misplaced);
	fprintf(f, "  requests    %" PRIu64 " on the members: %" PRIu64 " parts, %" PRIu64
		" split by the device, %" PRIu64 " merged; %" PRIu64 " not the replay's (%"
		PRIu64 " bytes)\n", r->events, r->parts, r->split_parts, r->merged, r->extra,
		r->extra_bytes);
	fprintf(f, "  issue error p50 %s p99 %s max %s (kernel issue - due); drift %.3g%%\n",
		fmt_ns((double)r->err_p50, a, sizeof(a)), fmt_ns((double)r->err_p99, b, sizeof(b)),
		fmt_ns((double)r->err_max, c, sizeof(c)), r->drift * 100);
	fprintf(f, "  submission to kernel issue p50 %s p99 %s max %s\n",
		fmt_ns((double)r->sub_p50, d, sizeof(d)), fmt_ns((double)r->sub_p99, e, sizeof(e)),
		fmt_ns((double)r->sub_max, g, sizeof(g)));
	if (r->have_missing)
		fprintf(f, "  first I/O not seen as asked: source record %" PRIu32 "\n",
			r->first_missing_src);
	if (r->lost)
		fprintf(f, "  warning: the capture lost %" PRIu64 " events; the view is "
			"incomplete\n", r->lost);
}

void verify_json(struct jw *w, const struct verify_result *r)
{
	jw_obj(w);
	jw_ku64(w, "ios", r->ios);
	jw_ku64(w, "present", r->present);
	jw_ku64(w, "missing", r->missing);
	jw_ku64(w, "misplaced", r->misplaced);
	jw_ku64_or_null(w, "first_missing_index", r->have_missing, r->first_missing_src);
	jw_ku64(w, "parts", r->parts);
	jw_ku64(w, "split_parts", r->split_parts);
	jw_ku64(w, "requests", r->events);
	jw_ku64(w, "merged_requests", r->merged);
	jw_ku64(w, "extra_requests", r->extra);
	jw_ku64(w, "extra_bytes", r->extra_bytes);
	jw_ku64(w, "lost_events", r->lost);
	jw_key(w, "issue_error");
	jw_obj(w);
	jw_ku64(w, "p50_ns", r->err_p50);
	jw_ku64(w, "p99_ns", r->err_p99);
	jw_ku64(w, "max_ns", r->err_max);
	jw_obj_end(w);
	jw_key(w, "submit_to_issue");
	jw_obj(w);
	jw_ku64(w, "p50_ns", r->sub_p50);
	jw_ku64(w, "p99_ns", r->sub_p99);
	jw_ku64(w, "max_ns", r->sub_max);
	jw_obj_end(w);
	jw_knum(w, "drift", r->drift, 9);
	jw_ku64(w, "start_mono_ns", r->start_mono_ns);
	jw_obj_end(w);
}

unsigned verify_meta(const struct verify_result *r, const char **kv, char (*buf)[32])
{
	static const char *const keys[VERIFY_NMETA] = {
		BPT_META_VERIFY_IOS, BPT_META_VERIFY_PRESENT, BPT_META_VERIFY_MISSING,
		BPT_META_VERIFY_MISPLACED, BPT_META_VERIFY_EXTRA, BPT_META_VERIFY_LOST,
		BPT_META_VERIFY_ERR_P50, BPT_META_VERIFY_ERR_P99, BPT_META_VERIFY_ERR_MAX,
		BPT_META_VERIFY_DRIFT,
	};
	const uint64_t v[VERIFY_NMETA - 1] = {
		r->ios, r->present, r->missing, r->misplaced, r->extra, r->lost,
		r->err_p50, r->err_p99, r->err_max,
	};

	for (unsigned i = 0; i < VERIFY_NMETA; i++) {
		if (i < VERIFY_NMETA - 1)
			snprintf(buf[i], 32, "%" PRIu64, v[i]);
		else
			snprintf(buf[i], 32, "%.9g", r->drift);
		kv[2 * i] = keys[i];
		kv[2 * i + 1] = buf[i];
	}
	return VERIFY_NMETA;
}
