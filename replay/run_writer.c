/* run_writer.c — writing a replay's results as a .bpt run file (run_writer.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_writer.h"

struct run_writer {
	struct bpt_writer *w;
	uint32_t comm_id;
	uint32_t pid;
	uint32_t rec_comm[SCHED_MAX_RECS]; /* a mix: each recording's name */
	unsigned nrec;
};

int run_writer_set_recordings(struct run_writer *w, const char *const *names, unsigned n)
{
	if (n > SCHED_MAX_RECS)
		return -EINVAL;
	for (unsigned k = 0; k < n; k++) {
		int rc = bpt_writer_intern(w->w, names[k], &w->rec_comm[k]);

		if (rc < 0)
			return rc;
	}
	w->nrec = n;
	return 0;
}

int run_writer_open(struct run_writer **out, int fd, const char *path,
		    const struct run_device *devs, unsigned ndev,
		    const char *const *meta, unsigned nmeta, struct bpt_error *err)
{
	struct bpt_header *hdr = calloc(1, sizeof(*hdr));
	struct run_writer *rw = calloc(1, sizeof(*rw));
	int rc = -ENOMEM;

	if (!hdr || !rw) {
		close(fd);
		goto fail;
	}
	bpt_header_init(hdr, "replay");
	hdr->columns = BPT_COL_SCHED | BPT_COL_SOURCE | BPT_COL_MEMBER;
	for (unsigned i = 0; i < ndev; i++)
		if (devs[i].internal_ios)
			hdr->columns |= BPT_COL_INTERNAL;
	for (unsigned i = 0; i < ndev; i++) {
		struct bpt_device d = {
			.major = devs[i].major, .minor = devs[i].minor,
			.size_bytes = devs[i].size_bytes,
			.logical_block_size = devs[i].lbs, .physical_block_size = devs[i].lbs,
		};

		snprintf(d.name, sizeof(d.name), "%s", devs[i].name);
		rc = bpt_header_add_device(hdr, &d);
		if (rc < 0) {
			close(fd);
			goto fail;
		}
	}
	for (unsigned i = 0; i < nmeta; i++) {
		rc = bpt_header_set_meta(hdr, meta[2 * i], meta[2 * i + 1]);
		if (rc < 0) {
			close(fd);
			goto fail;
		}
	}
	rc = bpt_writer_create_fd(&rw->w, fd, path, hdr, NULL, err);
	if (rc < 0)
		goto fail;
	rc = bpt_writer_intern(rw->w, "blkpeak", &rw->comm_id);
	if (rc < 0) {
		bpt_writer_close(rw->w, NULL);
		goto fail;
	}
	rw->pid = (uint32_t)getpid();
	bpt_header_free(hdr);
	free(hdr);
	*out = rw;
	return 0;
fail:
	if (err && !err->code) {
		err->code = rc;
		snprintf(err->msg, sizeof(err->msg), "%s: cannot write the header: %s", path,
			 strerror(-rc));
	}
	bpt_header_free(hdr);
	free(hdr);
	free(rw);
	return rc;
}

int run_writer_add(struct run_writer *w, const struct rp_result *r)
{
	struct bpt_record rec = {
		.queue_ns = r->issue_ns,
		.issue_ns = r->issue_ns,
		.complete_ns = r->complete_ns,
		.sector = r->io->offset / 512,
		.bytes = r->io->len,
		.pid = w->pid,
		.comm_id = r->io->rec < w->nrec ? w->rec_comm[r->io->rec] : w->comm_id,
		.error = r->error,
		.dev = r->io->target,
		.op = r->io->op,
		.flags = r->io->flags,
		.member = r->member_mask,
		.sched_ns = r->sched_ns,
		.source_index = r->io->src,
	};
	int rc = bpt_writer_add(w->w, &rec);

	for (unsigned i = 0; !rc && i < r->ninternal; i++) {
		const struct rp_internal *p = &r->internal[i];

		rec.issue_ns = rec.queue_ns = rec.sched_ns = p->issue_ns;
		rec.complete_ns = p->complete_ns;
		rec.sector = p->offset / 512;
		rec.bytes = p->len;
		rec.op = p->op;
		rec.flags = 0;
		rec.member = 1u << p->member;
		rec.error = 0;
		rec.internal = 1;
		rc = bpt_writer_add(w->w, &rec);
	}
	return rc;
}

int run_writer_set_outcome(struct run_writer *w, const struct run_outcome *o)
{
	char done[24], errors[24];
	int rc;

	snprintf(done, sizeof(done), "%llu", (unsigned long long)o->done);
	snprintf(errors, sizeof(errors), "%llu", (unsigned long long)o->errors);
	rc = bpt_writer_set_end_meta(w->w, BPT_META_RUN_STATUS,
				     o->stopped ? BPT_RUN_PARTIAL : BPT_RUN_COMPLETE);
	if (!rc)
		rc = bpt_writer_set_end_meta(w->w, BPT_META_RUN_DONE, done);
	if (!rc)
		rc = bpt_writer_set_end_meta(w->w, BPT_META_RUN_ERRORS, errors);
	if (!rc && o->stopped)
		rc = bpt_writer_set_end_meta(w->w, BPT_META_RUN_STOPPED, o->stopped);
	return rc;
}

int run_writer_set_meta(struct run_writer *w, const char *key, const char *value)
{
	return bpt_writer_set_end_meta(w->w, key, value);
}

int run_writer_close(struct run_writer *w, struct bpt_error *err)
{
	int rc;

	if (!w)
		return 0;
	rc = bpt_writer_close(w->w, err);
	free(w);
	return rc;
}

int run_path_tagged(const char *out, const char *tag, char *buf, size_t len)
{
	const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
	int n;

	if (!dot || (slash && dot < slash) || dot == out || dot[-1] == '/')
		n = snprintf(buf, len, "%s.%s", out, tag);
	else
		n = snprintf(buf, len, "%.*s.%s%s", (int)(dot - out), out, tag, dot);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}
