/*
 * cmd_generate.c — `blkpeak generate`: write a synthetic trace.
 *
 * Options come from gen_options.c, the I/Os from the model in
 * gen_model.c; this file only ties them to the trace writer. The trace is
 * written through common/outfile.h, all or nothing: a failed run never
 * leaves a half-written FILE nor destroys an older one, and a device, a
 * FIFO or a FILE another process is writing is refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpt.h"
#include "cliutil.h"
#include "commands.h"
#include "gen_model.h"
#include "gen_options.h"
#include "outfile.h"

#define GEN_COMM "blkpeak-gen"

/* Fill the header: kind "generate", one device, the options as meta. */
static int make_header(const struct gen_options *o, struct bpt_header *hdr)
{
	struct bpt_device dev;
	char line[224], mix[1024];
	int ret;

	bpt_header_init(hdr, "generate");
	memset(&dev, 0, sizeof(dev));
	snprintf(dev.name, sizeof(dev.name), "%s", o->device_name);
	dev.size_bytes = o->device_size;
	dev.logical_block_size = 512;
	dev.physical_block_size = 4096;
	dev.rotational = 0;
	snprintf(dev.model, sizeof(dev.model), "blkpeak generate");
	ret = bpt_header_add_device(hdr, &dev);
	if (ret < 0)
		return ret;
	gen_options_describe(o, line, sizeof(line));
	size_mix_format(&o->p.bs, mix, sizeof(mix));
	if (strlen(mix) >= sizeof(((struct bpt_meta *)0)->value))
		strcpy(mix + sizeof(((struct bpt_meta *)0)->value) - 4, "...");
	ret = bpt_header_set_meta(hdr, BPT_META_GENERATOR, line);
	if (!ret)
		ret = bpt_header_set_meta(hdr, BPT_META_GENERATOR_BS, mix);
	return ret;
}

static int write_trace(const struct gen_options *o, struct outfile *out)
{
	struct bpt_header hdr;
	struct bpt_writer *w = NULL;
	struct bpt_error err = { 0 };
	struct gen_model *m = NULL;
	struct gen_params p = o->p;
	struct bpt_record rec;
	int ret;

	ret = make_header(o, &hdr);
	if (ret) {
		pr_err("generate: cannot build the header: %s", strerror(-ret));
		return ret;
	}
	ret = outfile_dup_fd(out);
	if (ret < 0) {
		pr_err("generate: %s", out->err.msg);
		bpt_header_free(&hdr);
		return ret;
	}
	ret = bpt_writer_create_fd(&w, ret, o->output, &hdr, NULL, &err);
	bpt_header_free(&hdr); /* the writer has its copy */
	if (ret) {
		pr_err("generate: %s", err.msg);
		return ret;
	}
	ret = bpt_writer_intern(w, GEN_COMM, &p.comm_id);
	if (!ret)
		ret = gen_model_create(&m, &p);
	while (!ret && (ret = gen_model_next(m, &rec)) == 1)
		ret = bpt_writer_add(w, &rec);
	gen_model_free(m);
	if (ret) {
		pr_err("generate: %s: %s", o->output, strerror(-ret));
		bpt_writer_close(w, NULL);
		return ret;
	}
	ret = bpt_writer_close(w, &err);
	if (ret)
		pr_err("generate: %s", err.msg);
	return ret;
}

/* The summary line: what was written, how big, bytes per I/O. */
static int print_summary(const char *path)
{
	struct bpt_reader *r;
	struct bpt_error err = { 0 };
	struct bpt_stats st;
	char size[32];

	if (bpt_reader_open(&r, path, &err)) {
		pr_err("generate: %s", err.msg);
		return -EIO;
	}
	bpt_reader_stats(r, &st);
	printf("%s: %" PRIu64 " I/Os over %.3f s, %s (%.2f bytes per I/O)\n", path,
	       st.records, (double)st.last_complete_ns / 1e9,
	       fmt_bytes(st.file_bytes, size, sizeof(size)),
	       st.records ? (double)st.file_bytes / (double)st.records : 0.0);
	bpt_reader_close(r);
	return 0;
}

int cmd_generate(int argc, char **argv)
{
	struct gen_options o;
	struct outfile out;
	struct bpt_error error;
	int ret;

	ret = gen_options_parse(argc, argv, &o, &error);
	if (ret == GEN_OPT_HELP)
		return EXIT_OK;
	if (ret == GEN_OPT_BAD_OPTION)
		return EXIT_USAGE;
	if (ret < 0) {
		pr_err("generate: %s; see 'blkpeak generate --help'", error.msg);
		return EXIT_USAGE;
	}
	ret = outfile_open(&out, o.output, &(struct outfile_opts){ .what = "a trace" });
	if (ret) {
		pr_err("generate: %s", out.err.msg);
		return EXIT_FAIL;
	}
	ret = write_trace(&o, &out);
	if (outfile_close(&out, ret)) {
		if (!ret)
			pr_err("generate: %s", out.err.msg);
		return EXIT_FAIL;
	}
	if (!o.quiet && print_summary(o.output))
		return EXIT_FAIL;
	return EXIT_OK;
}
