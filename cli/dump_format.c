/*
 * dump_format.c — formatting records for `blkpeak dump` (columns and
 * their meaning in dump_format.h).
 */
#include "dump_format.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "fmt.h"
#include "jsonout.h"

/* An escaped comm: a string-table entry holds at most 4095 bytes
 * (schemas/trace-format.md), 4 bytes each at worst. */
#define COMM_ESC_LEN (4095 * 4 + 4)

int dump_format_parse(const char *s, enum dump_format *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = DUMP_TEXT;
	else if (!strcmp(s, "csv"))
		*fmt = DUMP_CSV;
	else if (!strcmp(s, "json"))
		*fmt = DUMP_JSON;
	else
		return -EINVAL;
	return 0;
}

/* The column names, in order; the optional ones last. */
static const char *const base_cols[] = {
	"queue_us", "issue_us", "complete_us", "dev", "sector", "bytes", "op",
	"flags", "pid", "comm", "cgroup", "wait_us", "service_us", "error",
};
static const struct {
	uint32_t bit;
	const char *name;
} opt_cols[] = {
	{ BPT_COL_SCHED, "sched_us" },
	{ BPT_COL_SOURCE, "source" },
	{ BPT_COL_MEMBER, "member" },
	{ BPT_COL_COMPLETION, "completion" },
	{ BPT_COL_INTERNAL, "internal" },
};
/* The file columns (BPT_COL_FILE), then the path from the path table. */
static const char *const file_cols[] = {
	"file", "file_dev", "inode", "file_offset", "file_bytes", "file2_dev", "inode2",
	"file2_offset", "file2_bytes", "path", "path2",
};
#define NBASE (sizeof(base_cols) / sizeof(base_cols[0]))
#define NOPT0 (sizeof(opt_cols) / sizeof(opt_cols[0]))
#define NFILE 9 /* file_cols before "path" */
#define NOPT (NOPT0 + NFILE)

void dump_begin(struct dump_out *o)
{
	uint32_t cols = o->hdr->columns;

	o->lines = 0;
	switch (o->fmt) {
	case DUMP_JSON:
		fputs("[\n", o->f);
		return;
	case DUMP_TEXT:
		fprintf(o->f, "# %10s %12s %12s %-8s %12s %8s %-6s %-5s %7s %-16s %10s %10s %10s %5s",
			"queue_us", "issue_us", "complete_us", "dev", "sector", "bytes",
			"op", "flags", "pid", "comm", "cgroup", "wait_us", "service_us",
			"error");
		for (size_t i = 0; i < NOPT0; i++)
			if (cols & opt_cols[i].bit)
				fprintf(o->f, " %12s", opt_cols[i].name);
		if (cols & BPT_COL_FILE)
			fprintf(o->f, " %-8s %9s %10s %12s %10s %9s %10s %12s %11s %s %s",
				file_cols[0], file_cols[1], file_cols[2], file_cols[3],
				file_cols[4], file_cols[5], file_cols[6], file_cols[7],
				file_cols[8], file_cols[9], file_cols[10]);
		if (cols & BPT_COL_CAUSE)
			fprintf(o->f, " %9s %-16s %12s %10s %-16s %13s", "cause_pid", "cause_comm",
				"cause_cgroup", "cause2_pid", "cause2_comm", "cause2_cgroup");
		fputc('\n', o->f);
		return;
	case DUMP_CSV:
		for (size_t i = 0; i < NBASE; i++)
			fprintf(o->f, "%s%s", i ? "," : "", base_cols[i]);
		for (size_t i = 0; i < NOPT0; i++)
			if (cols & opt_cols[i].bit)
				fprintf(o->f, ",%s", opt_cols[i].name);
		for (size_t i = 0; (cols & BPT_COL_FILE) && i <= NFILE + 1; i++)
			fprintf(o->f, ",%s", file_cols[i]);
		if (cols & BPT_COL_CAUSE)
			fputs(",cause_pid,cause_comm,cause_cgroup,cause2_pid,cause2_comm,"
			      "cause2_cgroup", o->f);
		fputc('\n', o->f);
		return;
	}
}

void dump_end(struct dump_out *o)
{
	if (o->fmt == DUMP_JSON)
		fputs(o->lines ? "\n]\n" : "]\n", o->f);
}

/* The record's fields as strings, in column order. */
struct fields {
	char queue[32], issue[32], complete[32], wait[32], service[32];
	char devbuf[16], flags[8];
	const char *dev, *op, *comm;
};

static void fill(const struct dump_out *o, const struct bpt_record *r,
		 const char *comm, struct fields *x)
{
	uint64_t q = r->queue_ns ? r->queue_ns : r->issue_ns;

	fmt_us(q, x->queue);
	fmt_us(r->issue_ns, x->issue);
	fmt_us(r->complete_ns, x->complete);
	fmt_us_signed((int64_t)(r->issue_ns - q), x->wait);
	fmt_us_signed((int64_t)(r->complete_ns - r->issue_ns), x->service);
	if (r->dev < o->hdr->ndevices && r->dev < BPT_MAX_DEVICES &&
	    o->hdr->devices[r->dev].name[0]) {
		x->dev = o->hdr->devices[r->dev].name;
	} else {
		snprintf(x->devbuf, sizeof(x->devbuf), "dev%u", r->dev);
		x->dev = x->devbuf;
	}
	x->op = bpt_op_name(r->op);
	bpt_flags_str(r->flags, x->flags);
	x->comm = comm ? comm : "";
}

/* The values of the optional columns the trace carries, in column order,
 * with their names; returns how many. */
static unsigned optional_values(uint32_t cols, const struct bpt_record *r,
				const char *name[NOPT], char val[NOPT][32])
{
	unsigned n = 0;

	for (size_t i = 0; i < NOPT0; i++) {
		if (!(cols & opt_cols[i].bit))
			continue;
		name[n] = opt_cols[i].name;
		if (opt_cols[i].bit == BPT_COL_SCHED)
			fmt_us(r->sched_ns, val[n]);
		else if (opt_cols[i].bit == BPT_COL_SOURCE)
			snprintf(val[n], 32, "%" PRIu64, r->source_index);
		else if (opt_cols[i].bit == BPT_COL_COMPLETION)
			snprintf(val[n], 32, "%s", bpt_completion_name(r->completion));
		else if (opt_cols[i].bit == BPT_COL_INTERNAL)
			snprintf(val[n], 32, "%u", r->internal);
		else
			snprintf(val[n], 32, "%u", r->member);
		n++;
	}
	if (cols & BPT_COL_FILE) {
		int data = r->file_class == BPT_FILE_DATA;

		for (int i = 0; i < NFILE; i++)
			name[n + i] = file_cols[i];
		snprintf(val[n++], 32, "%s", bpt_file_class_name(r->file_class));
		if (r->file_dev)
			snprintf(val[n++], 32, "%u:%u", r->file_dev >> 20, r->file_dev & 0xfffff);
		else
			snprintf(val[n++], 32, "-");
		snprintf(val[n++], 32, data ? "%" PRIu64 : "-", r->inode);
		if (data && r->file_offset != BPT_FILE_OFFSET_UNKNOWN)
			snprintf(val[n++], 32, "%" PRIu64, r->file_offset);
		else
			snprintf(val[n++], 32, "-");
		snprintf(val[n++], 32, data ? "%u" : "-", r->file_bytes);
		data = data && r->file2_bytes;
		if (data)
			snprintf(val[n++], 32, "%u:%u", r->file2_dev >> 20, r->file2_dev & 0xfffff);
		else
			snprintf(val[n++], 32, "-");
		snprintf(val[n++], 32, data ? "%" PRIu64 : "-", r->inode2);
		if (data && r->file2_offset != BPT_FILE_OFFSET_UNKNOWN)
			snprintf(val[n++], 32, "%" PRIu64, r->file2_offset);
		else
			snprintf(val[n++], 32, "-");
		snprintf(val[n++], 32, data ? "%u" : "-", r->file2_bytes);
	}
	return n;
}

/* The path of the record's first (second: which = 1) file, or NULL. */
static const char *path_of(const struct dump_out *o, const struct bpt_record *r, int which)
{
	if (!(o->hdr->columns & BPT_COL_FILE) || r->file_class != BPT_FILE_DATA || !o->path)
		return NULL;
	if (which)
		return r->file2_bytes ? o->path(o->path_ctx, r->file2_dev, r->inode2) : NULL;
	return o->path(o->path_ctx, r->file_dev, r->inode);
}

void dump_record(struct dump_out *o, const struct bpt_record *r, const char *comm)
{
	const char *opt_name[NOPT];
	char opt[NOPT][32];
	unsigned nopt = optional_values(o->hdr->columns, r, opt_name, opt);
	int files = !!(o->hdr->columns & BPT_COL_FILE);
	const char *path = path_of(o, r, 0), *path2 = path_of(o, r, 1);
	int cause = !!(o->hdr->columns & BPT_COL_CAUSE), known = cause && r->cause_pid;
	const char *ccomm = known && o->string ? o->string(o->path_ctx, r->cause_comm_id) : NULL;
	int known2 = cause && r->cause2_pid;
	const char *ccomm2 = known2 && o->string ? o->string(o->path_ctx, r->cause2_comm_id)
						 : NULL;
	struct fields x;
	FILE *f = o->f;

	fill(o, r, comm, &x);
	switch (o->fmt) {
	case DUMP_TEXT: {
		/* recorded strings, escaped: no control byte reaches a terminal */
		char dev[sizeof(o->hdr->devices[0].name) * 4 + 4], comm[COMM_ESC_LEN];

		fprintf(f, "%12s %12s %12s %-8s %12" PRIu64 " %8u %-6s %-5s %7u %-16s %10" PRIu64
			" %10s %10s %5d",
			x.queue, x.issue, x.complete, fmt_text(x.dev, dev, sizeof(dev)), r->sector,
			r->bytes, x.op, x.flags[0] ? x.flags : "-", r->pid,
			x.comm[0] ? fmt_text(x.comm, comm, sizeof(comm)) : "-",
			r->cgroup_id, x.wait, x.service, r->error);
		for (unsigned i = 0; i < nopt - (files ? NFILE : 0); i++)
			fprintf(f, " %12s", opt[i]);
		if (files) {
			static char esc[COMM_ESC_LEN], esc2[COMM_ESC_LEN];
			unsigned b = nopt - NFILE;

			fprintf(f, " %-8s %9s %10s %12s %10s %9s %10s %12s %11s %s %s", opt[b],
				opt[b + 1], opt[b + 2], opt[b + 3], opt[b + 4], opt[b + 5],
				opt[b + 6], opt[b + 7], opt[b + 8],
				path ? fmt_text(path, esc, sizeof(esc)) : "-",
				path2 ? fmt_text(path2, esc2, sizeof(esc2)) : "-");
		}
		if (cause) {
			char esc3[COMM_ESC_LEN];

			if (known)
				fprintf(f, " %9u %-16s %12" PRIu64, r->cause_pid,
					ccomm && ccomm[0] ? fmt_text(ccomm, esc3, sizeof(esc3)) : "-",
					r->cause_cgroup);
			else
				fprintf(f, " %9s %-16s %12s", "-", "-", "-");
			if (known2)
				fprintf(f, " %10u %-16s %13" PRIu64, r->cause2_pid,
					ccomm2 && ccomm2[0] ? fmt_text(ccomm2, esc3, sizeof(esc3))
							    : "-", r->cause2_cgroup);
			else
				fprintf(f, " %10s %-16s %13s", "-", "-", "-");
		}
		fputc('\n', f);
		break;
	}
	case DUMP_CSV:
		fprintf(f, "%s,%s,%s,", x.queue, x.issue, x.complete);
		csv_str(f, x.dev);
		fprintf(f, ",%" PRIu64 ",%u,%s,%s,%u,", r->sector, r->bytes, x.op,
			x.flags, r->pid);
		csv_str(f, x.comm);
		fprintf(f, ",%" PRIu64 ",%s,%s,%d", r->cgroup_id, x.wait, x.service, r->error);
		for (unsigned i = 0; i < nopt; i++)
			fprintf(f, ",%s", strcmp(opt[i], "-") ? opt[i] : "");
		if (files) {
			fputc(',', f);
			if (path)
				csv_str(f, path);
			fputc(',', f);
			if (path2)
				csv_str(f, path2);
		}
		if (cause && known) {
			fprintf(f, ",%u,", r->cause_pid);
			csv_str(f, ccomm ? ccomm : "");
			fprintf(f, ",%" PRIu64, r->cause_cgroup);
		} else if (cause) {
			fputs(",,,", f);
		}
		if (cause && known2) {
			fprintf(f, ",%u,", r->cause2_pid);
			csv_str(f, ccomm2 ? ccomm2 : "");
			fprintf(f, ",%" PRIu64, r->cause2_cgroup);
		} else if (cause) {
			fputs(",,,", f);
		}
		fputc('\n', f);
		break;
	case DUMP_JSON: {
		/* One record a line inside the array dump_begin opened. */
		struct jw w;

		if (o->lines)
			fputs(",\n", f);
		jw_init(&w, f, 0);
		jw_obj(&w);
		jw_kraw(&w, "queue_us", x.queue);
		jw_kraw(&w, "issue_us", x.issue);
		jw_kraw(&w, "complete_us", x.complete);
		jw_kstr(&w, "dev", x.dev);
		jw_ku64(&w, "sector", r->sector);
		jw_ku64(&w, "bytes", r->bytes);
		jw_kstr(&w, "op", x.op);
		jw_kstr(&w, "flags", x.flags);
		jw_ku64(&w, "pid", r->pid);
		jw_kstr(&w, "comm", x.comm);
		jw_ku64(&w, "cgroup", r->cgroup_id);
		jw_kraw(&w, "wait_us", x.wait);
		jw_kraw(&w, "service_us", x.service);
		jw_ki64(&w, "error", r->error);
		for (unsigned i = 0; i < nopt; i++) {
			if (!strcmp(opt[i], "-"))
				jw_kraw(&w, opt_name[i], "null");
			else if (strcmp(opt_name[i], "completion") && strcmp(opt_name[i], "file") &&
				 strcmp(opt_name[i], "file_dev") && strcmp(opt_name[i], "file2_dev"))
				jw_kraw(&w, opt_name[i], opt[i]);
			else
				jw_kstr(&w, opt_name[i], opt[i]);
		}
		if (files) {
			if (path)
				jw_kstr(&w, "path", path);
			else
				jw_kraw(&w, "path", "null");
			if (path2)
				jw_kstr(&w, "path2", path2);
			else
				jw_kraw(&w, "path2", "null");
		}
		if (cause && known) {
			jw_ku64(&w, "cause_pid", r->cause_pid);
			jw_kstr(&w, "cause_comm", ccomm ? ccomm : "");
			jw_ku64(&w, "cause_cgroup", r->cause_cgroup);
		} else if (cause) {
			jw_kraw(&w, "cause_pid", "null");
			jw_kraw(&w, "cause_comm", "null");
			jw_kraw(&w, "cause_cgroup", "null");
		}
		if (cause && known2) {
			jw_ku64(&w, "cause2_pid", r->cause2_pid);
			jw_kstr(&w, "cause2_comm", ccomm2 ? ccomm2 : "");
			jw_ku64(&w, "cause2_cgroup", r->cause2_cgroup);
		} else if (cause) {
			jw_kraw(&w, "cause2_pid", "null");
			jw_kraw(&w, "cause2_comm", "null");
			jw_kraw(&w, "cause2_cgroup", "null");
		}
		jw_obj_end(&w);
		break;
	}
	}
	o->lines++;
}
