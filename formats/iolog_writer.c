/*
 * iolog_writer.c — .bpt records to a fio iolog v3 (iolog_writer.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolog_writer.h"
#include "outfile.h"

struct fiow {
	struct outfile o;
	char (*file)[64 + 8];  /* per device: the FILE field */
	unsigned nf;
	uint64_t last_us;
	int failed_write;
};

/* A name fio reads as one field: blanks and control bytes become '_'. */
static void file_field(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", strchr(name, '/') ? "" : "/dev/", name[0] ? name : "dev");
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			*p = '_';
}

static int check(struct fiow *w, struct bpt_error *err)
{
	if (!ferror(w->o.f))
		return 0;
	return bpt_error_set(err, -EIO, "%s: write failed", w->o.path ? w->o.path : "-");
}

int fiow_open(struct fiow **out, const char *path, const struct bpt_header *hdr,
	      const char *const *inputs, struct bpt_error *err)
{
	struct outfile_opts oo = { .what = "a fio iolog", .inputs = inputs, .allow_stdout = 1 };
	struct fiow *w = calloc(1, sizeof(*w));
	unsigned n = hdr->ndevices ? hdr->ndevices : 1;
	int rc;

	*out = NULL;
	if (!w || !(w->file = calloc(n, sizeof(*w->file)))) {
		free(w);
		return bpt_error_set(err, -ENOMEM, "%s: out of memory", path);
	}
	w->nf = n;
	for (unsigned i = 0; i < n; i++)
		file_field(hdr->ndevices ? hdr->devices[i].name : "", w->file[i], sizeof(w->file[i]));
	if ((rc = outfile_open(&w->o, path, &oo))) {
		*err = w->o.err;
		free(w->file);
		free(w);
		return rc;
	}
	fputs("fio version 3 iolog\n", w->o.f);
	for (unsigned i = 0; i < n; i++)
		fprintf(w->o.f, "0 %s add\n", w->file[i]);
	for (unsigned i = 0; i < n; i++)
		fprintf(w->o.f, "0 %s open\n", w->file[i]);
	*out = w;
	return check(w, err);
}

int fiow_add(struct fiow *w, const struct bpt_record *rec, const char *comm,
	     struct bpt_error *err)
{
	static const char *const action[BPT_OP__COUNT] = {
		[BPT_OP_READ] = "read", [BPT_OP_WRITE] = "write", [BPT_OP_FLUSH] = "sync",
		[BPT_OP_DISCARD] = "trim", [BPT_OP_WRITE_ZEROES] = "write",
	};
	uint64_t us = rec->issue_ns / 1000;

	(void)comm;
	if (rec->dev >= w->nf || rec->op >= BPT_OP__COUNT)
		return bpt_error_set(err, -EINVAL, "%s: record of device %u or operation %u unknown",
				     w->o.path ? w->o.path : "-", rec->dev, rec->op);
	if (rec->op == BPT_OP_FLUSH)
		fprintf(w->o.f, "%" PRIu64 " %s sync 0 0\n", us, w->file[rec->dev]);
	else
		fprintf(w->o.f, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu32 "\n", us,
			w->file[rec->dev], action[rec->op], rec->sector * 512, rec->bytes);
	if (us > w->last_us)
		w->last_us = us;
	return check(w, err);
}

int fiow_close(struct fiow *w, int failed, struct bpt_error *err)
{
	int rc = 0;

	if (!w)
		return 0;
	if (!failed) {
		for (unsigned i = 0; i < w->nf; i++)
			fprintf(w->o.f, "%" PRIu64 " %s close\n", w->last_us, w->file[i]);
		rc = check(w, err);
	}
	int r = outfile_close(&w->o, failed || rc ? -ECANCELED : 0);

	if (r && !rc && !failed) {
		*err = w->o.err;
		rc = r;
	}
	free(w->file);
	free(w);
	return failed ? 0 : rc;
}
