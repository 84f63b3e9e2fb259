/*
 * write_csvzst.c — the `csv-zst` writer of convert (foreign.h): the
 * trace as one CSV table compressed with zstd, which pandas
 * (`pd.read_csv("t.csv.zst")`, with the zstandard module) and DuckDB
 * (`SELECT * FROM 't.csv.zst'`) read as they are. Selected by --to
 * csv-zst or an output name ending in .csv.zst.
 *
 * RFC 4180: a header line, then one line per I/O in issue order, "\n"
 * line ends, fields quoted only when they must be (csv_str: the process
 * name; control bytes in it escaped, so every row is one line). Columns,
 * each with its unit in its name and no empty field but comm:
 *
 *   queue_ns,issue_ns,complete_ns  integers, ns from the trace's start
 *                   (queue_ns = issue_ns when the trace has no queue time)
 *   dev             the device's name
 *   sector          first 512-byte sector;  bytes: length
 *   op              read, write, flush, discard, write-zeroes
 *   flags           letters S sync, F FUA, P preflush, M meta, A readahead;
 *                   "-" for none
 *   pid, comm       the submitter (0 and "" when unknown)
 *   cgroup          cgroup v2 id (0 unknown)
 *   error           0 or a negative errno
 *   completion      seen, pending (latency unknown) or reused
 *
 * The compressed stream is one zstd frame (level 3) with its content
 * checksum; the whole file is written to a new file renamed into place.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "fmt.h"
#include "foreign.h"
#include "outfile.h"

#define OUT_BUF (256u << 10)

static const char *const suffixes[] = { ".csv.zst", NULL };

struct czw {
	struct outfile o;
	ZSTD_CCtx *z;
	FILE *csv;         /* the text, through write_cb into z */
	uint8_t *out;      /* compressed bytes before they go to o.f */
	const struct bpt_header *hdr;
	char (*dev)[sizeof(((struct bpt_device *)0)->name) + 8];
	unsigned ndev;
	int failed;        /* compressing or writing failed */
};

static int drain(struct czw *w, ZSTD_inBuffer *in, ZSTD_EndDirective mode)
{
	for (;;) {
		ZSTD_outBuffer ob = { w->out, OUT_BUF, 0 };
		size_t left = ZSTD_compressStream2(w->z, &ob, in, mode);

		if (ZSTD_isError(left))
			return -1;
		if (ob.pos && fwrite(w->out, 1, ob.pos, w->o.f) != ob.pos)
			return -1;
		if (mode == ZSTD_e_end ? !left : in->pos == in->size)
			return 0;
	}
}

static ssize_t write_cb(void *cookie, const char *buf, size_t len)
{
	struct czw *w = cookie;
	ZSTD_inBuffer in = { buf, len, 0 };

	if (w->failed || drain(w, &in, ZSTD_e_continue)) {
		w->failed = 1;
		errno = EIO;
		return 0; /* fopencookie(3): 0, never negative, on error */
	}
	return (ssize_t)len;
}

static void czw_free(struct czw *w)
{
	ZSTD_freeCCtx(w->z);
	free(w->out);
	free(w->dev);
	free(w);
}

static int wopen(void **state, const char *out, const struct bpt_header *hdr,
		 const char *const *inputs, struct bpt_error *err)
{
	struct outfile_opts oo = { .what = "a CSV table", .inputs = inputs, .allow_stdout = 1 };
	cookie_io_functions_t io = { .write = write_cb };
	struct czw *w = calloc(1, sizeof(*w));
	unsigned n = hdr->ndevices ? hdr->ndevices : 1;
	int rc;

	*state = NULL;
	if (!w || !(w->z = ZSTD_createCCtx()) || !(w->out = malloc(OUT_BUF)) ||
	    !(w->dev = calloc(n, sizeof(*w->dev)))) {
		if (w)
			czw_free(w);
		return bpt_error_set(err, -ENOMEM, "%s: out of memory", out);
	}
	w->ndev = n;
	for (unsigned i = 0; i < n; i++)
		if (i < hdr->ndevices && hdr->devices[i].name[0])
			snprintf(w->dev[i], sizeof(w->dev[i]), "%s", hdr->devices[i].name);
		else
			snprintf(w->dev[i], sizeof(w->dev[i]), "dev%u", i);
	ZSTD_CCtx_setParameter(w->z, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(w->z, ZSTD_c_checksumFlag, 1);
	if ((rc = outfile_open(&w->o, out, &oo))) {
		*err = w->o.err;
		czw_free(w);
		return rc;
	}
	if (!(w->csv = fopencookie(w, "w", io))) {
		outfile_close(&w->o, -ECANCELED);
		czw_free(w);
		return bpt_error_set(err, -ENOMEM, "%s: out of memory", out);
	}
	setvbuf(w->csv, NULL, _IOFBF, 256u << 10);
	fputs("queue_ns,issue_ns,complete_ns,dev,sector,bytes,op,flags,pid,comm,cgroup,error,"
	      "completion\n", w->csv);
	*state = w;
	return 0;
}

/* v in decimal at p; returns the end. */
static char *u64_dec(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* A name that needs no quoting: no comma, quote, control byte or DEL. */
static int plain(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == ',' || *s == '"' || *s == 0x7f)
			return 0;
	return 1;
}

static int wadd(void *state, const struct bpt_record *rec, const char *comm,
		struct bpt_error *err)
{
	struct czw *w = state;
	char line[256], *p = line, flags[8];
	const char *op = bpt_op_name(rec->op);

	if (rec->dev >= w->ndev)
		return bpt_error_set(err, -EINVAL, "%s: record of device %u unknown",
				     w->o.path ? w->o.path : "-", rec->dev);
	p = u64_dec(p, rec->queue_ns ? rec->queue_ns : rec->issue_ns);
	*p++ = ',';
	p = u64_dec(p, rec->issue_ns);
	*p++ = ',';
	p = u64_dec(p, rec->complete_ns);
	*p = 0;
	fputs(line, w->csv);
	fputc(',', w->csv);
	if (plain(w->dev[rec->dev]))
		fputs(w->dev[rec->dev], w->csv);
	else
		csv_str(w->csv, w->dev[rec->dev]);
	p = line;
	*p++ = ',';
	p = u64_dec(p, rec->sector);
	*p++ = ',';
	p = u64_dec(p, rec->bytes);
	*p++ = ',';
	memcpy(p, op, strlen(op));
	p += strlen(op);
	*p++ = ',';
	bpt_flags_str(rec->flags, flags);
	if (!flags[0])
		*p++ = '-';
	memcpy(p, flags, strlen(flags));
	p += strlen(flags);
	*p++ = ',';
	p = u64_dec(p, rec->pid);
	*p++ = ',';
	*p = 0;
	fputs(line, w->csv);
	if (plain(comm))
		fputs(comm, w->csv);
	else
		csv_str(w->csv, comm);
	p = line;
	*p++ = ',';
	p = u64_dec(p, rec->cgroup_id);
	*p++ = ',';
	if (rec->error < 0) {
		*p++ = '-';
		p = u64_dec(p, (uint64_t)-(int64_t)rec->error);
	} else {
		p = u64_dec(p, (uint64_t)rec->error);
	}
	*p++ = ',';
	const char *c = bpt_completion_name(rec->completion);

	memcpy(p, c, strlen(c));
	p += strlen(c);
	*p++ = '\n';
	*p = 0;
	fputs(line, w->csv);
	if (w->failed || ferror(w->csv))
		return bpt_error_set(err, -EIO, "%s: write failed", w->o.path ? w->o.path : "-");
	return 0;
}

static int wclose(void *state, int failed, struct bpt_error *err)
{
	struct czw *w = state;
	ZSTD_inBuffer none = { NULL, 0, 0 };
	int rc = 0;

	if (!w)
		return 0;
	if (fclose(w->csv) || w->failed || (!failed && drain(w, &none, ZSTD_e_end)))
		rc = bpt_error_set(err, -EIO, "%s: write failed", w->o.path ? w->o.path : "-");
	int r = outfile_close(&w->o, failed || rc ? -ECANCELED : 0);

	if (r && !rc && !failed) {
		*err = w->o.err;
		rc = r;
	}
	czw_free(w);
	return failed ? 0 : rc;
}

const struct ff_writer_ops ff_write_csvzst = {
	.name = "csv-zst",
	.summary = "CSV table, zstd-compressed (.csv.zst): pandas and DuckDB read it as it is",
	.suffixes = suffixes,
	.open = wopen,
	.add = wadd,
	.close = wclose,
};
