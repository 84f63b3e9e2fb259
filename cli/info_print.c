/*
 * info_print.c — text and JSON forms of the `blkpeak info` report (see
 * info_print.h). Both show the same facts; the JSON keys are listed in
 * docs/trace-tools.md and blkpeak-info(1).
 */
#include "info_print.h"

#include <inttypes.h>
#include <string.h>

#include "cliutil.h"
#include "fmt.h"
#include "jsonout.h"

/* A buffer for an escaped string field (fmt_text): 4 bytes per byte at worst. */
#define ESC_LEN(field) (sizeof(field) * 4 + 4)

static const char *const col_names[] = { "sched", "source", "member", "completion",
					 "internal", "file", "cause" };
#define NCOL_NAMES (sizeof(col_names) / sizeof(col_names[0]))

static uint64_t span_ns(const struct bpt_stats *st)
{
	if (!st->records || st->last_complete_ns < st->first_issue_ns)
		return 0;
	return st->last_complete_ns - st->first_issue_ns;
}

static double per_io(const struct bpt_stats *st)
{
	return st->records ? (double)st->file_bytes / (double)st->records : 0;
}

/* Bytes after the good data of an incomplete file; 0 when complete. */
uint64_t cut_bytes(const struct bpt_stats *st)
{
	if (st->complete || st->valid_bytes >= st->file_bytes)
		return 0;
	return st->file_bytes - st->valid_bytes;
}

/* Device i's stored partition table, when there is one. */
static void text_partitions(FILE *f, const struct bpt_header *h, unsigned i)
{
	struct bpt_partition p[BPT_MAX_PARTITIONS];
	char name[ESC_LEN(p[0].name)], size[32];
	int n = bpt_partitions_get(h, i, p, BPT_MAX_PARTITIONS);

	if (n < 0)
		fprintf(f, "partitions of device %u: (malformed meta, not shown)\n", i);
	if (n <= 0)
		return;
	fputs("partitions of ", f);
	text_str(f, h->devices[i].name);
	fprintf(f, " (512-byte sectors of the whole disk):\n  %3s %-14s %14s %14s %10s\n",
		"#", "name", "start", "sectors", "size");
	for (int k = 0; k < n; k++)
		fprintf(f, "  %3" PRIu32 " %-14s %14" PRIu64 " %14" PRIu64 " %10s\n", p[k].number,
			fmt_text(p[k].name, name, sizeof(name)), p[k].start, p[k].sectors,
			fmt_bytes(p[k].sectors * 512, size, sizeof(size)));
}

static void text_devices(FILE *f, const struct info_data *d)
{
	const struct bpt_header *h = d->hdr;
	char size[32];

	fprintf(f, "devices:      %u\n", h->ndevices);
	if (!h->ndevices)
		return;
	fprintf(f, "  %3s %-12s %-9s %10s %9s %4s %10s  %s\n", "#", "name", "maj:min",
		"size", "lbs/pbs", "rot", "I/Os", "model");
	for (uint32_t i = 0; i < h->ndevices; i++) {
		const struct bpt_device *v = &h->devices[i];
		char mm[24], bs[24], name[ESC_LEN(v->name)], model[ESC_LEN(v->model)];

		snprintf(mm, sizeof(mm), "%u:%u", v->major, v->minor);
		snprintf(bs, sizeof(bs), "%u/%u", v->logical_block_size, v->physical_block_size);
		fprintf(f, "  %3u %-12s %-9s %10s %9s %4u %10" PRIu64 "  %s\n", i,
			fmt_text(v->name, name, sizeof(name)), mm,
			fmt_bytes(v->size_bytes, size, sizeof(size)), bs, v->rotational,
			trace_summary_dev(&d->sum, i), v->model[0] ? fmt_text(v->model, model, sizeof(model)) : "-");
	}
	if (trace_summary_beyond(&d->sum, h->ndevices))
		fprintf(f, "  (%" PRIu64 " I/Os name a device not in the table)\n",
			trace_summary_beyond(&d->sum, h->ndevices));
	for (uint32_t i = 0; i < h->ndevices; i++)
		text_partitions(f, h, i);
}

static void text_mix(FILE *f, const struct info_data *d)
{
	const struct trace_summary *s = &d->sum;
	char b[32], avg[32];
	int any = 0;

	fprintf(f, "I/O mix:\n  %-13s %12s %7s %12s %10s\n", "op", "I/Os", "share",
		"bytes", "avg size");
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		if (!s->count[op])
			continue;
		any = 1;
		fprintf(f, "  %-13s %12" PRIu64 " %6.1f%% %12s %10s\n", bpt_op_name(op),
			s->count[op], 100.0 * (double)s->count[op] / (double)s->records,
			fmt_bytes(s->bytes[op], b, sizeof(b)),
			fmt_bytes(s->bytes[op] / s->count[op], avg, sizeof(avg)));
	}
	if (!any)
		fprintf(f, "  (no I/Os)\n");
}

void info_print_text(FILE *f, const struct info_data *d)
{
	const struct bpt_header *h = d->hdr;
	const struct bpt_stats *st = &d->st;
	char when[64], size[32], valid[32];
	int first;

	fputs("file:         ", f);
	text_str(f, d->path);
	fputs("\nkind:         ", f);
	text_str(f, h->kind);
	fprintf(f, " (format %u.%u, written by blkpeak ", h->version_major, h->version_minor);
	text_str(f, h->tool_version[0] ? h->tool_version : "?");
	fputs(")\nhost:         ", f);
	text_str(f, h->host[0] ? h->host : "?");
	fputs(", kernel ", f);
	text_str(f, h->kernel[0] ? h->kernel : "?");
	fputc('\n', f);
	fprintf(f, "started:      %s (monotonic %.6f s)\n",
		fmt_wall(h->start_wall_ns, when, sizeof(when)), (double)h->start_mono_ns / 1e9);
	fprintf(f, "columns:      ");
	first = 1;
	for (unsigned i = 0; i < NCOL_NAMES; i++)
		if (h->columns & (1u << i)) {
			fprintf(f, "%s%s", first ? "" : ", ", col_names[i]);
			first = 0;
		}
	fprintf(f, "%s\n", first ? "(only the standard ones)" : "");
	for (uint32_t i = 0; i < h->nmeta && i < BPT_MAX_META; i++) {
		fputs("meta:         ", f);
		text_str(f, h->meta[i].key);
		fputc('=', f);
		text_str(f, h->meta[i].value);
		fputc('\n', f);
	}
	text_devices(f, d);
	fprintf(f, "records:      %" PRIu64 " in %" PRIu64 " blocks\n", st->records, st->blocks);
	if (st->records)
		fprintf(f, "time span:    %.6f s (issues %.6f .. %.6f s, last completion %.6f s)\n",
			(double)span_ns(st) / 1e9, (double)st->first_issue_ns / 1e9,
			(double)st->last_issue_ns / 1e9, (double)st->last_complete_ns / 1e9);
	text_mix(f, d);
	fprintf(f, "flags seen:  ");
	first = 1;
	for (unsigned i = 0; i < SUMMARY_NFLAGS; i++)
		if (d->sum.flag[i]) {
			fprintf(f, "%s %s %" PRIu64, first ? "" : ",", summary_flag_name(i),
				d->sum.flag[i]);
			first = 0;
		}
	fprintf(f, "%s\n", first ? " none" : "");
	fprintf(f, "errors:       %" PRIu64 " I/Os failed\n", d->sum.errors);
	if (h->columns & BPT_COL_COMPLETION)
		fprintf(f, "completions:  %" PRIu64 " not seen (%" PRIu64 " bounded by the "
			"request's reuse, %" PRIu64 " pending at the end)\n",
			d->sum.unseen[BPT_COMPLETION_REUSED] + d->sum.unseen[BPT_COMPLETION_PENDING],
			d->sum.unseen[BPT_COMPLETION_REUSED], d->sum.unseen[BPT_COMPLETION_PENDING]);
	fprintf(f, "lost events:  %" PRIu64 " in %" PRIu64 " windows\n", st->lost_events,
		st->loss_windows);
	fprintf(f, "on disk:      %s (%" PRIu64 " bytes), %.2f bytes per I/O\n",
		fmt_bytes(st->file_bytes, size, sizeof(size)), st->file_bytes, per_io(st));
	if (d->have_digest)
		fprintf(f, "digest:       %016" PRIx64 "\n", d->digest);
	if (st->complete)
		fprintf(f, "status:       complete\n");
	else
		fprintf(f, "status:       TRUNCATED: good data ends at offset %" PRIu64
			" (%s), %" PRIu64 " bytes cut off\n", st->valid_bytes,
			fmt_bytes(st->valid_bytes, valid, sizeof(valid)), cut_bytes(st));
	if (d->verified == 1)
		fprintf(f, "verified:     every block checksum and the footer are sound\n");
	else if (d->verified == 0)
		fprintf(f, "verified:     FAILED (see the error)\n");
}

/* "partitions": [...] of device i, when one was stored. */
static void json_partitions(struct jw *w, const struct bpt_header *h, unsigned i)
{
	struct bpt_partition p[BPT_MAX_PARTITIONS];
	int n = bpt_partitions_get(h, i, p, BPT_MAX_PARTITIONS);

	if (n <= 0)
		return;
	jw_key(w, "partitions");
	jw_arr(w);
	for (int k = 0; k < n; k++) {
		jw_obj(w);
		jw_ku64(w, "number", p[k].number);
		jw_kstr(w, "name", p[k].name);
		jw_ku64(w, "start_sector", p[k].start);
		jw_ku64(w, "sectors", p[k].sectors);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

void info_print_json(FILE *f, const struct info_data *d)
{
	const struct bpt_header *h = d->hdr;
	const struct bpt_stats *st = &d->st;
	const struct trace_summary *s = &d->sum;
	char buf[64];
	struct jw w;

	jw_init(&w, f, 2);
	jw_obj(&w);
	jw_kstr(&w, "path", d->path);
	jw_kstr(&w, "kind", h->kind);
	snprintf(buf, sizeof(buf), "%u.%u", h->version_major, h->version_minor);
	jw_kstr(&w, "format", buf);
	jw_kstr(&w, "tool_version", h->tool_version);
	jw_kstr(&w, "host", h->host);
	jw_kstr(&w, "kernel", h->kernel);
	jw_ki64(&w, "start_wall_ns", h->start_wall_ns);
	jw_kstr(&w, "start", fmt_wall(h->start_wall_ns, buf, sizeof(buf)));
	jw_ku64(&w, "start_mono_ns", h->start_mono_ns);
	jw_key(&w, "columns");
	jw_arr(&w);
	for (unsigned i = 0; i < NCOL_NAMES; i++)
		if (h->columns & (1u << i))
			jw_str(&w, col_names[i]);
	jw_arr_end(&w);
	jw_key(&w, "meta");
	jw_obj(&w);
	for (uint32_t i = 0; i < h->nmeta && i < BPT_MAX_META; i++)
		jw_kstr(&w, h->meta[i].key, h->meta[i].value);
	jw_obj_end(&w);
	jw_key(&w, "devices");
	jw_arr(&w);
	for (uint32_t i = 0; i < h->ndevices; i++) {
		const struct bpt_device *v = &h->devices[i];

		jw_obj(&w);
		jw_ku64(&w, "index", i);
		jw_kstr(&w, "name", v->name);
		jw_ku64(&w, "major", v->major);
		jw_ku64(&w, "minor", v->minor);
		jw_ku64(&w, "size_bytes", v->size_bytes);
		jw_ku64(&w, "logical_block_bytes", v->logical_block_size);
		jw_ku64(&w, "physical_block_bytes", v->physical_block_size);
		jw_ku64(&w, "rotational", v->rotational);
		jw_kstr(&w, "model", v->model);
		jw_ku64(&w, "ios", trace_summary_dev(s, i));
		json_partitions(&w, h, i);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_ku64(&w, "ios", st->records);
	jw_ku64(&w, "blocks", st->blocks);
	jw_ku64(&w, "first_issue_ns", st->first_issue_ns);
	jw_ku64(&w, "last_issue_ns", st->last_issue_ns);
	jw_ku64(&w, "last_complete_ns", st->last_complete_ns);
	jw_ku64(&w, "span_ns", span_ns(st));
	jw_key(&w, "mix");
	jw_obj(&w);
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		jw_key(&w, bpt_op_name(op));
		jw_obj(&w);
		jw_ku64(&w, "ios", s->count[op]);
		jw_ku64(&w, "bytes", s->bytes[op]);
		jw_obj_end(&w);
	}
	jw_obj_end(&w);
	jw_key(&w, "flags");
	jw_obj(&w);
	for (unsigned i = 0; i < SUMMARY_NFLAGS; i++)
		jw_ku64(&w, summary_flag_name(i), s->flag[i]);
	jw_obj_end(&w);
	jw_ku64(&w, "completion_not_seen",
		s->unseen[BPT_COMPLETION_REUSED] + s->unseen[BPT_COMPLETION_PENDING]);
	jw_key(&w, "completion_not_seen_by_bound");
	jw_obj(&w);
	jw_ku64(&w, "reused", s->unseen[BPT_COMPLETION_REUSED]);
	jw_ku64(&w, "pending", s->unseen[BPT_COMPLETION_PENDING]);
	jw_obj_end(&w);
	jw_ku64(&w, "errors", s->errors);
	jw_ku64(&w, "lost_events", st->lost_events);
	jw_ku64(&w, "loss_windows", st->loss_windows);
	jw_ku64(&w, "file_bytes", st->file_bytes);
	jw_knum(&w, "bytes_per_io", per_io(st), 3);
	jw_kbool(&w, "complete", st->complete);
	jw_kbool(&w, "truncated", st->truncated);
	jw_ku64(&w, "valid_bytes", st->valid_bytes);
	jw_ku64(&w, "cut_bytes", cut_bytes(st));
	if (d->have_digest) {
		snprintf(buf, sizeof(buf), "%016" PRIx64, d->digest);
		jw_kstr(&w, "digest", buf);
	}
	jw_key(&w, "verified");
	if (d->verified < 0)
		jw_null(&w);
	else
		jw_bool(&w, d->verified);
	jw_obj_end(&w);
	jw_finish(&w);
}
