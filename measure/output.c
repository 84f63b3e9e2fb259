/*
 * output.c — a measurement's table for a person and its results document
 * for analyze (schemas/measure-results.schema.json: `analyze import`
 * reads it into the measurements and measurement_points tables).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cliutil.h"
#include "fmt.h"
#include "jsonout.h"
#include "measure.h"
#include "version.h"

static const char *const kind_names[] = { "qd-sweep", "zcav", "seeks", "commit" };

const char *measure_kind_name(enum measure_kind k)
{
	return kind_names[k];
}

int measure_kind_parse(const char *s, enum measure_kind *k)
{
	for (unsigned i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(s, kind_names[i])) {
			*k = (enum measure_kind)i;
			return 0;
		}
	return -1;
}

static void lat_cols(FILE *f, const struct stats_latency *l)
{
	char b[32];
	/* p50, p99, p99.9 and the maximum: the QoS view reviewers plot */
	static const unsigned which[] = { 0, 2, 3, 5 };

	for (unsigned i = 0; i < 4; i++)
		fprintf(f, " %9s", fmt_ns((double)l->pct[which[i]], b, sizeof(b)));
}

void measure_print_text(FILE *f, const struct measure_opts *o, const struct measure_result *r)
{
	char cap[32], sz[32];

	fprintf(f, "%s on ", measure_kind_name(r->kind));
	text_str(f, r->target);
	fprintf(f, " (%s): %s; ", fmt_bytes(r->capacity, cap, sizeof(cap)), r->access);
	if (o->time_ns) {
		char t[32], w[32];

		fprintf(f, "%s or %" PRIu64 " I/Os per step, ", fmt_ns((double)o->time_ns, t, sizeof(t)),
			o->ios);
		if (o->warmup_ns)
			fprintf(f, "the first %s a warm-up\n", fmt_ns((double)o->warmup_ns, w, sizeof(w)));
		else
			fprintf(f, "the first %" PRIu64 " a warm-up\n", o->warmup);
	} else {
		fprintf(f, "%" PRIu64 " I/Os per step after %" PRIu64 " warm-up\n", o->ios,
			o->warmup);
	}
	switch (r->kind) {
	case MEASURE_QD_SWEEP:
		fprintf(f, "%6s %10s %9s %9s %9s %9s %9s %7s\n", "depth", "IOPS", "MB/s", "p50",
			"p99", "p99.9", "max", "weight");
		for (unsigned i = 0; i < r->npoints; i++) {
			const struct measure_point *p = &r->points[i];

			fprintf(f, "%6u %10.1f %9.2f", p->depth, p->fig.iops, p->fig.mb_per_s);
			lat_cols(f, &p->fig.lat);
			fprintf(f, " %7.4f\n", p->weight);
		}
		fprintf(f, "score: %.1f IOPS (weights: ", r->score);
		if (o->weights_from) {
			fprintf(f, "time at each depth in ");
			text_str(f, o->weights_from);
		} else {
			fprintf(f, "%s", r->weights);
		}
		fprintf(f, ")\n");
		break;
	case MEASURE_ZCAV:
		fprintf(f, "%5s %14s %9s %9s %9s %9s %9s\n", "zone", "offset", "MB/s", "p50", "p99",
			"p99.9", "max");
		for (unsigned i = 0; i < r->npoints; i++) {
			const struct measure_point *p = &r->points[i];

			fprintf(f, "%5u %14s %9.2f", p->zone, fmt_bytes(p->offset_bytes, sz, sizeof(sz)),
				p->fig.mb_per_s);
			lat_cols(f, &p->fig.lat);
			fputc('\n', f);
		}
		break;
	case MEASURE_SEEKS:
		fprintf(f, "%7s %12s %10s %9s %9s %9s %9s\n", "span", "bytes", "seeks/s", "p50",
			"p99", "p99.9", "max");
		for (unsigned i = 0; i < r->npoints; i++) {
			const struct measure_point *p = &r->points[i];

			fprintf(f, "%6g%% %12s %10.1f", p->span_pct,
				fmt_bytes(p->span_bytes, sz, sizeof(sz)), p->fig.iops);
			lat_cols(f, &p->fig.lat);
			fputc('\n', f);
		}
		for (unsigned i = 0; i < r->npoints; i++)
			fprintf(f, "%s%.0f @ %s", i ? ", " : "seeks/s: ", r->points[i].fig.iops,
				fmt_bytes(r->points[i].span_bytes, sz, sizeof(sz)));
		fputc('\n', f);
		break;
	case MEASURE_COMMIT: {
		const struct measure_point *p = &r->points[0];

		fprintf(f, "%10s %9s %9s %9s %9s\n", "commits/s", "p50", "p99", "p99.9", "max");
		fprintf(f, "%10.1f", p->fig.iops);
		lat_cols(f, &p->fig.lat);
		fprintf(f, "\nwrite cache: %s\n", r->write_cache);
		break;
	}
	}
	for (unsigned i = 0; i < r->npoints; i++)
		if (r->points[i].fig.errors)
			fprintf(f, "ERRORS: %" PRIu64 " I/Os failed at step %u\n",
				r->points[i].fig.errors, i + 1);
}

void measure_print_json(FILE *f, const struct measure_opts *o, const struct measure_result *r)
{
	struct jw w;

	jw_init(&w, f, 2);
	jw_obj(&w);
	jw_kstr(&w, "format", "blkpeak-measure");
	jw_ku64(&w, "format_version", 1);
	jw_kstr(&w, "tool_version", BLKPEAK_VERSION);
	jw_kstr(&w, "kind", measure_kind_name(r->kind));
	jw_kstr(&w, "target", r->target);
	jw_key(&w, "label");
	jw_str_or_null(&w, o->label);
	jw_ku64(&w, "capacity_bytes", r->capacity);
	jw_ki64(&w, "started_wall_ns", r->started_wall_ns);
	jw_kstr(&w, "access", r->access);
	jw_key(&w, "engine");
	jw_str_or_null(&w, o->engine);
	jw_ku64(&w, "ios_per_step", o->ios);
	jw_ku64(&w, "warmup_ios", o->warmup);
	jw_key(&w, "warmup_ns");
	if (o->warmup_ns)
		jw_u64(&w, o->warmup_ns);
	else
		jw_null(&w);
	jw_key(&w, "time_limit_ns");
	if (o->time_ns)
		jw_u64(&w, o->time_ns);
	else
		jw_null(&w);
	jw_key(&w, "write_cache");
	jw_str_or_null(&w, r->write_cache);
	jw_key(&w, "weights");
	jw_str_or_null(&w, r->weights);
	jw_key(&w, "weights_from");
	jw_str_or_null(&w, o->weights_from);
	jw_key(&w, "score_ios_per_s");
	if (r->kind == MEASURE_QD_SWEEP)
		jw_num(&w, r->score, 3);
	else
		jw_null(&w);
	jw_key(&w, "points");
	jw_arr(&w);
	for (unsigned i = 0; i < r->npoints; i++) {
		const struct measure_point *p = &r->points[i];

		jw_obj(&w);
		jw_ku64(&w, "step", i);
		jw_ku64(&w, "depth", p->depth);
		jw_key(&w, "zone");
		if (r->kind == MEASURE_ZCAV)
			jw_u64(&w, p->zone);
		else
			jw_null(&w);
		jw_ku64(&w, "offset_bytes", p->offset_bytes);
		jw_ku64(&w, "span_bytes", p->span_bytes);
		jw_key(&w, "span_pct");
		if (r->kind == MEASURE_SEEKS)
			jw_num(&w, p->span_pct, 6);
		else
			jw_null(&w);
		jw_key(&w, "weight");
		if (r->kind == MEASURE_QD_SWEEP)
			jw_num(&w, p->weight, 6);
		else
			jw_null(&w);
		jw_ku64(&w, "ios", p->fig.units);
		jw_ku64(&w, "bytes", p->fig.bytes);
		jw_ku64(&w, "errors", p->fig.errors);
		jw_ku64(&w, "window_ns", p->fig.window_ns);
		jw_knum(&w, "ios_per_s", p->fig.iops, 3);
		jw_knum(&w, "mb_per_s", p->fig.mb_per_s, 3);
		jw_key(&w, "latency");
		stats_latency_json(&w, &p->fig.lat);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_finish(&w);
}
