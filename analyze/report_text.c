/*
 * report_text.c — the report as text tables for a terminal. Every string
 * that comes from a trace (path, process names, devices, meta) is written
 * through fmt_text(): no control byte reaches the terminal.
 */
#include <inttypes.h>
#include <string.h>

#include "cliutil.h"
#include "files_filter.h"
#include "fmt.h"
#include "report.h"

/* Buffers for escaped strings: 4 bytes per byte at worst. */
#define ESC_LEN(field) (sizeof(field) * 4 + 4)

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

char *report_files_filter_text(const struct st_report *r, char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = 0;
	for (int i = 0; r->files && i < r->files->n && at < len; i++) {
		char pat[FF_MAX_PATTERN * 4 + 4];
		const char *p = fmt_text(r->files->pattern[i], pat, sizeof(pat));

		at += (size_t)snprintf(buf + at, len - at, "%s%s%s%s",
				       i ? " or " : "only the I/Os of files matching ",
				       p[0] == ':' ? "" : "'", p, p[0] == ':' ? "" : "'");
	}
	return buf;
}

static void print_summary(FILE *f, const struct st_report *r)
{
	char b1[32], b2[32], b3[32];
	char path[ESC_LEN(r->path)], kind[ESC_LEN(r->kind)], digest[ESC_LEN(r->digest)];
	char src[ESC_LEN(r->source_digest)], target[ESC_LEN(r->target)];
	char timing[ESC_LEN(r->timing)], partial[ESC_LEN(r->partial.text)];

	if (r->trace_id)
		fprintf(f, "trace %" PRId64 ": ", r->trace_id);
	else
		fprintf(f, "file "); /* read in place, not from the database */
	fprintf(f, "%s%s%s\n", fmt_text(r->path, path, sizeof(path)),
		r->partial.partial ? "  " : "",
		r->partial.partial ? fmt_text(r->partial.text, partial, sizeof(partial)) : "");
	fprintf(f, "  kind %s, digest %s\n", fmt_text(r->kind, kind, sizeof(kind)),
		fmt_text(r->digest, digest, sizeof(digest)));
	if (r->is_run) {
		fprintf(f, "  replay of %s", r->source_digest[0] ?
			fmt_text(r->source_digest, src, sizeof(src)) : "an unknown trace");
		if (r->source_id)
			fprintf(f, " (trace %" PRId64 ")", r->source_id);
		fprintf(f, " on %s, timing %s\n",
			r->target[0] ? fmt_text(r->target, target, sizeof(target)) : "?",
			r->timing[0] ? fmt_text(r->timing, timing, sizeof(timing)) : "?");
	}
	if (r->transform[0]) {
		char tx[ESC_LEN(r->transform)];

		fprintf(f, "  transformed: %s\n", fmt_text(r->transform, tx, sizeof(tx)));
	}
	if (r->lost_events)
		fprintf(f, "  WARNING: the capture lost %" PRIu64 " events in %" PRIu64
			" windows: the figures below miss those I/Os\n", r->lost_events, r->loss_windows);
	if (r->unseen_completions)
		fprintf(f, "  note: %" PRIu64 " I/Os whose completion the capture did not see are "
			"left out of the latency,\n  queue depth, busy and idle figures (counted "
			"in I/Os, bytes, mix, sizes, seeks, rates)\n", r->unseen_completions);
	if (r->truncated)
		fprintf(f, "  WARNING: %s a truncated file: its last, incomplete block is missing\n",
			r->trace_id ? "imported from" : "read from");
	if (r->files_lost)
		fprintf(f, "  note: imported before schema 8, which kept no file or cause columns:"
			" no files, By program by submitter; import the file into a new database"
			" to have them\n");
	if (r->files && r->files->recording) {
		char name[ESC_LEN(r->mix_name[0])], all[ESC_LEN(r->mix_recordings)];

		fprintf(f, "  recording '%s' of the mixed run (its recordings: %s): %" PRIu64
			" of %" PRIu64 " I/Os\n", fmt_text(r->files->recording, name, sizeof(name)),
			fmt_text(r->mix_recordings, all, sizeof(all)), r->ios, r->files_ios_of);
	} else if (r->files) {
		char what[2048];

		fprintf(f, "  %s: %" PRIu64 " of %" PRIu64 " I/Os%s\n",
			report_files_filter_text(r, what, sizeof(what)), r->ios, r->files_ios_of,
			r->is_run ? " (by the files of the trace it replayed)" : "");
		if (r->files_unknown)
			fprintf(f, "  note: the %s has no file columns in %s: every I/O is"
				" :unknown\n", r->is_run ? "trace it replayed" : "trace",
				r->trace_id ? "the database" : "its file");
	}
	fputc('\n', f);
	fprintf(f, "  I/Os        %" PRIu64 " (%" PRIu64 " with errors)\n", r->ios, r->errors);
	fprintf(f, "  duration    %s (first issue at %s, last completion at %s)\n",
		fmt_ns((double)r->duration_ns, b1, sizeof(b1)),
		fmt_ns((double)r->first_issue_ns, b2, sizeof(b2)),
		fmt_ns((double)r->last_complete_ns, b3, sizeof(b3)));
	fprintf(f, "  IOPS        %.1f\n", r->iops);
	fprintf(f, "  throughput  %.2f MB/s (%s moved)\n", r->mbps, fmt_bytes(r->bytes, b2, sizeof(b2)));
	fprintf(f, "  busy        %s (%.1f%%), idle %s (%.1f%%)\n",
		fmt_ns((double)r->busy_ns, b1, sizeof(b1)), pct(r->busy_ns, r->duration_ns),
		fmt_ns((double)r->idle_ns, b2, sizeof(b2)), pct(r->idle_ns, r->duration_ns));
	fprintf(f, "  queue depth mean %.2f outstanding, max %u%s\n\n", r->mean_depth, r->max_depth,
		r->unseen_completions ? " (I/Os whose completion was seen)" : "");
}

/* A run's timing as its own clock saw it and, with --verify, the
 * kernel's view of it: two clocks, labelled as such. */
static void print_fidelity(FILE *f, const struct st_report *r)
{
	const struct run_verify *v = &r->verify;
	char a[32], b[32], c[32], d[32], why[160];
	const struct stats_latency *l = &r->lateness;

	fprintf(f, "fidelity (a replay run)\n");
	if (l->count)
		fprintf(f, "  lateness     p50 %s p99 %s max %s   the replayer's own clock: its"
			" submission - the due time\n", fmt_ns((double)l->pct[0], a, sizeof(a)),
			fmt_ns((double)l->pct[2], b, sizeof(b)), fmt_ns((double)l->pct[5], c, sizeof(c)));
	else
		fprintf(f, "  lateness     -   (the run file has no due times)\n");
	if (!v->verified) {
		fprintf(f, "  kernel view  -   (run without replay --verify)\n\n");
		return;
	}
	fprintf(f, "  kernel view  replay --verify: %s I/Os compared, %s present, %s missing,"
		" %s misplaced; %s events lost\n", run_verify_cell(v, RV_IOS, a, sizeof(a)),
		run_verify_cell(v, RV_PRESENT, b, sizeof(b)), run_verify_cell(v, RV_MISSING, c, sizeof(c)),
		run_verify_cell(v, RV_MISPLACED, d, sizeof(d)),
		run_verify_cell(v, RV_LOST, why, sizeof(why)));
	fprintf(f, "  issue error  p50 %s p99 %s max %s   the kernel's view: its issue - the due"
		" time", run_verify_cell(v, RV_ERR_P50, a, sizeof(a)),
		run_verify_cell(v, RV_ERR_P99, b, sizeof(b)), run_verify_cell(v, RV_ERR_MAX, c, sizeof(c)));
	fprintf(f, "; drift %s\n", run_verify_cell(v, RV_DRIFT, d, sizeof(d)));
	if (run_verify_faithful(v) == 0)
		fprintf(f, "  WARNING: not a faithful replay of the trace: %s\n",
			run_verify_why(v, why, sizeof(why)));
	else if (run_verify_faithful(v) < 0)
		fprintf(f, "  note: the run's verify.* meta is incomplete (\"?\" above)\n");
	fputc('\n', f);
}

static void print_mix(FILE *f, const struct st_report *r)
{
	char b[32];

	fprintf(f, "%-14s %10s  %6s  %11s\n", "mix", "I/Os", "share", "bytes");
	for (unsigned op = 0; op < BPT_OP__COUNT; op++)
		if (r->op[op].ios)
			fprintf(f, "  %-12s %10" PRIu64 "  %5.1f%%  %11s\n", bpt_op_name(op),
				r->op[op].ios, pct(r->op[op].ios, r->ios),
				fmt_bytes(r->op[op].bytes, b, sizeof(b)));
	fprintf(f, "\n%-14s %10s %10s %10s\n", "request size", "read", "write", "other");
	for (unsigned k = 0; k < ST_SIZE_CLASSES; k++) {
		const uint64_t *h = r->size_hist[k];

		if (h[0] + h[1] + h[2])
			fprintf(f, "  %-12s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
				st_size_label(k, b, sizeof(b)), h[0], h[1], h[2]);
	}
	fputc('\n', f);
}

static void print_seeks(FILE *f, const struct st_report *r)
{
	uint64_t with_prev = 0;
	char b[32], name[ESC_LEN(r->dev[0].name)];

	for (int k = 0; k < ST_SEEK_CLASSES; k++)
		with_prev += r->seek_hist[k];
	fprintf(f, "seek distance (from the end of the previous I/O on the device, relative\n"
		   "to the span the device's I/Os used)\n");
	for (uint32_t d = 0; d < r->ndev; d++)
		if (r->dev[d].data_ios)
			fprintf(f, "  %s: span %s (sectors %" PRIu64 "-%" PRIu64 "), %" PRIu64 " data I/Os\n",
				r->dev[d].name[0] ? fmt_text(r->dev[d].name, name, sizeof(name)) : "?",
				fmt_bytes((r->dev[d].span_hi - r->dev[d].span_lo) * 512, b, sizeof(b)),
				r->dev[d].span_lo, r->dev[d].span_hi, r->dev[d].data_ios);
	fprintf(f, "  %-14s %10s  %6s\n", "distance", "I/Os", "share");
	for (int k = 0; k < ST_SEEK_CLASSES; k++)
		fprintf(f, "  %-14s %10" PRIu64 "  %5.1f%%\n", st_seek_name[k], r->seek_hist[k],
			pct(r->seek_hist[k], with_prev));
	fprintf(f, "  sequential share %.1f%%\n\n", 100 * r->sequential_share);
}

static void print_depth(FILE *f, const struct st_report *r)
{
	char b[32];

	fprintf(f, "%-14s %10s  %6s   (time-weighted; 0 is idle)\n", "queue depth", "time", "share");
	for (int k = 0; k < ST_DEPTH_CLASSES; k++) {
		char label[24];
		uint32_t lo = k ? st_depth_bound[k - 1] + 1 : 0;

		if (!r->depth_ns[k])
			continue;
		if (k == ST_DEPTH_CLASSES - 1)
			snprintf(label, sizeof(label), "%u+", lo);
		else if (lo == st_depth_bound[k])
			snprintf(label, sizeof(label), "%u", lo);
		else
			snprintf(label, sizeof(label), "%u-%u", lo, st_depth_bound[k]);
		fprintf(f, "  %-12s %10s  %5.1f%%\n", label,
			fmt_ns((double)r->depth_ns[k], b, sizeof(b)),
			pct(r->depth_ns[k], r->duration_ns));
	}
	fprintf(f, "\n%-14s %10s  %10s\n", "idle periods", "count", "time");
	for (int k = 0; k < ST_IDLE_CLASSES; k++) {
		char label[24];

		if (k == ST_IDLE_CLASSES - 1)
			snprintf(label, sizeof(label), "> %s",
				 fmt_ns((double)st_idle_bound[k - 1], b, sizeof(b)));
		else
			snprintf(label, sizeof(label), "<= %s",
				 fmt_ns((double)st_idle_bound[k], b, sizeof(b)));
		fprintf(f, "  %-12s %10" PRIu64 "  %10s\n", label, r->idle_count[k],
			fmt_ns((double)r->idle_ns_hist[k], b, sizeof(b)));
	}
	fputc('\n', f);
}

static void print_latency_row(FILE *f, const char *name, const struct stats_latency *l)
{
	char b[32];

	if (!l->count)
		return;
	fprintf(f, "  %-12s %8" PRIu64 " %10s", name, l->count, fmt_ns(l->mean_ns, b, sizeof(b)));
	for (int p = 0; p < STATS_NPCT; p++)
		fprintf(f, " %10s", fmt_ns((double)l->pct[p], b, sizeof(b)));
	fputc('\n', f);
}

static void print_latency(FILE *f, const struct st_report *r)
{
	for (int total = 0; total < 2; total++) {
		fprintf(f, "%s latency (%s)\n", total ? "total" : "service",
			total ? "queue to completion" : "issue to completion");
		fprintf(f, "  %-12s %8s %10s", "op", "I/Os", "mean");
		for (int p = 0; p < STATS_NPCT; p++)
			fprintf(f, " %10s", stats_pct_label[p]);
		fputc('\n', f);
		for (unsigned op = 0; op < BPT_OP__COUNT; op++)
			print_latency_row(f, bpt_op_name(op),
					  total ? &r->op[op].total : &r->op[op].service);
		print_latency_row(f, "all", total ? &r->all_total : &r->all_service);
		fputc('\n', f);
	}
}

static void print_top(FILE *f, const struct st_report *r)
{
	char b[32], comm[ESC_LEN(r->top_ios[0].comm)];

	for (int pass = 0; pass < 2; pass++) {
		const struct st_proc *top = pass ? r->top_bytes : r->top_ios;
		uint32_t n = pass ? r->ntop_bytes : r->ntop_ios;

		fprintf(f, "top processes by %s (of %u)\n", pass ? "bytes" : "I/Os", r->nproc_total);
		fprintf(f, "  %8s  %-16s %10s  %11s\n", "pid", "comm", "I/Os", "bytes");
		for (uint32_t i = 0; i < n; i++)
			fprintf(f, "  %8u  %-16s %10" PRIu64 "  %11s\n", top[i].pid,
				fmt_text(top[i].comm, comm, sizeof(comm)), top[i].ios,
				fmt_bytes(top[i].bytes, b, sizeof(b)));
		if (!pass)
			fputc('\n', f);
	}
}

/*
 * The longest folder ("/a/b/") that every name of the files and
 * directories tables starts with, so the tables say it once and show the
 * rest: a capture's paths share its mount point, which alone can take 50
 * columns. Its length; 0 when there is none worth saying ("/") or a name
 * is not a path ("dev 7:3 inode 12").
 */
static size_t files_common_dir(const struct st_report *r)
{
	const char *first = NULL;
	size_t len = 0;

	for (int pass = 0; pass < 2; pass++) {
		const struct st_file *top = pass ? r->top_dirs : r->top_files;
		uint32_t n = pass ? r->ntop_dirs : r->ntop_files;

		for (uint32_t i = 0; i < n; i++) {
			const char *name = top[i].name;
			size_t k = 0;

			if (name[0] != '/')
				return 0;
			if (!first) {
				first = name;
				len = strlen(name);
				continue;
			}
			while (k < len && name[k] == first[k])
				k++;
			len = k;
		}
	}
	/* back to a whole folder: the shared part may end inside a name */
	while (len && first[len - 1] != '/')
		len--;
	return len > 1 ? len : 0;
}

/* A table's name column: NAME past its first `skip` bytes ("." when
 * that is all of it), with its start cut to about `width` characters and
 * "…" put first when longer (a path's end says which file it is), cut at
 * a character's first byte; escaped for the terminal. */
static const char *file_label(const char *name, size_t skip, size_t width, char *out,
			      size_t outlen)
{
	char cut[sizeof(((struct st_file *)0)->name) + 4];
	const char *rest = name + skip;
	size_t n = strlen(rest);

	if (!*rest)
		return fmt_text(".", out, outlen);
	if (n <= width)
		return fmt_text(rest, out, outlen);
	rest += n - (width - 1);
	while ((unsigned char)*rest >= 0x80 && (unsigned char)*rest < 0xc0)
		rest++;
	snprintf(cut, sizeof(cut), "\u2026%s", rest);
	return fmt_text(cut, out, outlen);
}

/* The busiest files and directories, when the trace names files. The
 * columns before the name take 49 of the 100 a line may have. */
#define FILE_NAME_WIDTH 51
static void print_files(FILE *f, const struct st_report *r)
{
	char b[32], name[ESC_LEN(r->top_files[0].name)];
	size_t skip;

	if (!r->nfile_total)
		return;
	skip = files_common_dir(r);
	for (int pass = 0; pass < 2; pass++) {
		const struct st_file *top = pass ? r->top_dirs : r->top_files;
		uint32_t n = pass ? r->ntop_dirs : r->ntop_files;

		if (!n)
			continue;
		fputc('\n', f);
		if (pass)
			fprintf(f, "busiest directories (by share of the service time)\n");
		else
			fprintf(f, "busiest files (by share of the service time; of %u)\n",
				r->nfile_total);
		if (skip) {
			char dir[sizeof(top[0].name)];

			snprintf(dir, sizeof(dir), "%.*s", (int)skip, top[0].name);
			fprintf(f, "  paths below %s\n", fmt_text(dir, name, sizeof(name)));
		}
		fprintf(f, "  %6s %8s %11s %8s %8s  %s\n", "busy", "I/Os", "bytes", "reads",
			"writes", pass ? "directory" : "file");
		for (uint32_t i = 0; i < n; i++)
			fprintf(f, "  %5.1f%% %8" PRIu64 " %11s %8" PRIu64 " %8" PRIu64 "  %s\n",
				100.0 * top[i].busy_share, top[i].ios,
				fmt_bytes(top[i].bytes, b, sizeof(b)), top[i].reads, top[i].writes,
				file_label(top[i].name, skip, FILE_NAME_WIDTH, name, sizeof(name)));
	}
}

void report_print_text(FILE *f, const struct st_report *r)
{
	print_summary(f, r);
	if (r->is_run || r->verify.verified)
		print_fidelity(f, r);
	if (!r->ios)
		return;
	print_mix(f, r);
	print_seeks(f, r);
	print_depth(f, r);
	print_latency(f, r);
	print_top(f, r);
	print_files(f, r);
}
