/* summary.c — accounting and printing the end-of-replay summary (summary.h). */
#include <stdlib.h>
#include <string.h>

#include "cliutil.h"
#include "fmt.h"
#include "sort_u64.h"
#include "partial.h"
#include "summary.h"

static void vec_push(struct summary *s, struct ns_vec *v, uint64_t x)
{
	if (v->n == v->cap) {
		uint64_t ncap = v->cap ? v->cap * 2 : 4096;
		uint64_t *p = realloc(v->v, ncap * sizeof(*p));

		if (!p) {
			s->oom = 1;
			return;
		}
		v->v = p;
		v->cap = ncap;
	}
	v->v[v->n++] = x;
	v->sorted = 0;
}

void summary_add(struct summary *s, const struct rp_result *r)
{
	unsigned op = r->io->op < BPT_OP__COUNT ? r->io->op : BPT_OP_READ;

	s->ios++;
	s->op_ios[op]++;
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
		return;
	}
	s->bytes += r->io->len;
	s->op_bytes[op] += r->io->len;
	vec_push(s, &s->lat[op], r->complete_ns - r->issue_ns);
	vec_push(s, &s->late, r->issue_ns - r->sched_ns);
}

void summary_free(struct summary *s)
{
	for (unsigned i = 0; i < BPT_OP__COUNT; i++)
		free(s->lat[i].v);
	free(s->late.v);
	memset(s, 0, sizeof(*s));
}

uint64_t ns_vec_percentile(struct ns_vec *v, double p)
{
	uint64_t i;

	if (!v->n)
		return 0;
	if (!v->sorted) {
		sort_u64(v->v, v->n);
		v->sorted = 1;
	}
	i = (uint64_t)(p / 100.0 * (double)(v->n - 1) + 0.5);
	return v->v[i < v->n ? i : v->n - 1];
}

static double mean(const struct ns_vec *v)
{
	double sum = 0;

	for (uint64_t i = 0; i < v->n; i++)
		sum += (double)v->v[i];
	return v->n ? sum / (double)v->n : 0;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

void summary_print_text(struct summary *s, const struct summary_ctx *c, FILE *f)
{
	char a[32], b[32], d[32], e[32];
	double el = secs(c->elapsed_ns);

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
	fprintf(f, "  duration    %.3f s", el);
	if (c->recorded_ns)
		fprintf(f, " (recorded %.3f s, %+.2f%%)", secs(c->recorded_ns),
			100.0 * ((double)c->elapsed_ns - (double)c->recorded_ns) /
				(double)c->recorded_ns);
	fprintf(f, "\n  rate        %.0f IOPS, %.1f MB/s\n", el > 0 ? (double)s->ios / el : 0,
		el > 0 ? (double)s->bytes / el / 1e6 : 0);
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		struct ns_vec *v = &s->lat[op];

		if (!v->n)
			continue;
		fprintf(f, "  %-12s n=%llu mean %s p50 %s p99 %s p99.9 %s\n",
			bpt_op_name(op), (unsigned long long)v->n,
			fmt_ns(mean(v), a, sizeof(a)),
			fmt_ns((double)ns_vec_percentile(v, 50), b, sizeof(b)),
			fmt_ns((double)ns_vec_percentile(v, 99), d, sizeof(d)),
			fmt_ns((double)ns_vec_percentile(v, 99.9), e, sizeof(e)));
	}
	if (s->late.n)
		fprintf(f, "  lateness    p50 %s p99 %s max %s\n",
			fmt_ns((double)ns_vec_percentile(&s->late, 50), a, sizeof(a)),
			fmt_ns((double)ns_vec_percentile(&s->late, 99), b, sizeof(b)),
			fmt_ns((double)ns_vec_percentile(&s->late, 100), d, sizeof(d)));
	for (unsigned i = 0; i < s->nerrnos; i++)
		fprintf(f, "  errors      %llu x %s%s\n", (unsigned long long)s->errnos[i].count,
			strerror(-s->errnos[i].code),
			s->short_ios && s->errnos[i].code == -5 ? " (short I/Os included)" : "");
	if (s->oom)
		fprintf(f, "  (out of memory: percentiles cover only part of the run)\n");
	if (c->run_file)
		fprintf(f, "  run file    %s\n", c->run_file);
}

void summary_print_json(struct summary *s, const struct summary_ctx *c, FILE *f)
{
	double el = secs(c->elapsed_ns);
	int first = 1;

	fprintf(f, "{\"source\":");
	json_str(f, c->source);
	fprintf(f, ",\"target\":");
	json_str(f, c->target);
	fprintf(f, ",\"timing\":\"%s\",\"speed\":%g,\"queue_depth\":%u,", c->timing, c->speed,
		c->depth);
	fprintf(f, "\"ios\":%llu,\"total_ios\":%llu,\"skipped\":%llu,\"errors\":%llu,"
		   "\"short_ios\":%llu,\"stopped_early\":%s,",
		(unsigned long long)s->ios, (unsigned long long)c->total_ios,
		(unsigned long long)c->skipped, (unsigned long long)s->errors,
		(unsigned long long)s->short_ios, c->interrupted ? "true" : "false");
	fprintf(f, "\"partial\":");
	if (c->stopped)
		partial_json(f, c->done_ios, c->total_ios, c->stopped);
	else
		fprintf(f, "null");
	fprintf(f, ",\"duration_ns\":%llu,\"recorded_ns\":%llu,\"iops\":%.1f,\"mb_per_s\":%.3f,",
		(unsigned long long)c->elapsed_ns, (unsigned long long)c->recorded_ns,
		el > 0 ? (double)s->ios / el : 0, el > 0 ? (double)s->bytes / el / 1e6 : 0);
	fprintf(f, "\"latency_ns\":{");
	for (unsigned op = 0; op < BPT_OP__COUNT; op++) {
		struct ns_vec *v = &s->lat[op];

		if (!v->n)
			continue;
		fprintf(f, "%s\"%s\":{\"n\":%llu,\"mean\":%.0f,\"p50\":%llu,\"p99\":%llu,\"p99_9\":%llu}",
			first ? "" : ",", bpt_op_name(op), (unsigned long long)v->n, mean(v),
			(unsigned long long)ns_vec_percentile(v, 50),
			(unsigned long long)ns_vec_percentile(v, 99),
			(unsigned long long)ns_vec_percentile(v, 99.9));
		first = 0;
	}
	fprintf(f, "},\"lateness_ns\":{\"p50\":%llu,\"p99\":%llu,\"max\":%llu},\"errnos\":{",
		(unsigned long long)ns_vec_percentile(&s->late, 50),
		(unsigned long long)ns_vec_percentile(&s->late, 99),
		(unsigned long long)ns_vec_percentile(&s->late, 100));
	for (unsigned i = 0; i < s->nerrnos; i++)
		fprintf(f, "%s\"%d\":%llu", i ? "," : "", s->errnos[i].code,
			(unsigned long long)s->errnos[i].count);
	fprintf(f, "}");
	if (c->run_file) {
		fprintf(f, ",\"run_file\":");
		json_str(f, c->run_file);
	}
	fprintf(f, "}\n");
}
