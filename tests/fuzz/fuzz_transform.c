/*
 * fuzz_transform.c — libFuzzer target for the what-if transform options
 * of `replay` and `convert` (transform/xform.h): each input line is one
 * argument ("--loop", "3", "--select=comm:dd*"), taken through
 * xform_option as the commands' option loops do, then xform_check. The
 * options that parse are bound to a small trace (two devices, task
 * names, a path table) written once at start, measured, and its records
 * put through xform_record and xform_time for every pass.
 *
 * What must hold: no crash, leak or undefined behaviour; a refusal says
 * why; a kept record stays below byte 2^62 with a valid operation; the
 * transformed times never go backwards within a pass or from one pass
 * to the next; the recorded description is a string of the size given.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "xform.h"

#define MAX_ARGS 24

static const struct option opts[] = { XFORM_LONG_OPTIONS, { 0 } };
static struct bpt_reader *reader;

/* The trace: 64 records on sda and sdb by "dd" and "kworker/0:1",
 * reading and writing two files. */
static void make_trace(void)
{
	char path[256];
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_error e;
	uint32_t dd, kw;

	snprintf(path, sizeof(path), "%s/t.bpt", fuzz_tmpdir());
	bpt_header_init(&h, "capture");
	for (unsigned d = 0; d < 2; d++) {
		struct bpt_device dev = { .major = 8, .minor = 16 * d, .size_bytes = 1ull << 40,
					  .logical_block_size = 512, .physical_block_size = 4096 };

		snprintf(dev.name, sizeof(dev.name), "sd%c", 'a' + d);
		if (bpt_header_add_device(&h, &dev) < 0)
			abort();
	}
	h.columns = BPT_COL_FILE | BPT_COL_CAUSE;
	if (bpt_writer_create(&w, path, &h, NULL, &e) || bpt_writer_intern(w, "dd", &dd) ||
	    bpt_writer_intern(w, "kworker/0:1", &kw) ||
	    bpt_writer_add_path(w, 1, 10, "/mnt/a.dat") || bpt_writer_add_path(w, 1, 11, "/mnt/b.log"))
		abort();
	for (unsigned i = 0; i < 64; i++) {
		struct bpt_record r = {
			.issue_ns = 1000000ull * i + (i % 3) * 7, .bytes = 4096u << (i % 4),
			.sector = (uint64_t)i * 977 * 8, .op = (uint8_t)(i % 5), .dev = i & 1,
			.pid = 100 + i % 2, .comm_id = i % 2 ? kw : dd,
			.file_class = BPT_FILE_DATA, .file_dev = 1, .inode = 10 + i % 2,
			.file_offset = 4096ull * i, .file_bytes = 4096,
			.cause_pid = 100, .cause_comm_id = dd,
		};

		r.complete_ns = r.issue_ns + 50000 + 997 * (i % 7);
		if (r.op == BPT_OP_FLUSH)
			r.bytes = 0, r.sector = 0, r.file_class = 0, r.file_dev = 0, r.inode = 0,
			r.file_offset = 0, r.file_bytes = 0;
		if (bpt_writer_add(w, &r))
			abort();
	}
	if (bpt_writer_close(w, &e) || bpt_reader_open(&reader, path, &e))
		abort();
	bpt_header_free(&h);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	make_trace();
	return 0;
}

/* Every record through the transforms, for every pass. */
static void apply_all(struct xform *x, uint32_t align)
{
	struct bpt_error e;
	struct bpt_record rec;
	int rc;

	char why[256];

	if (xform_measure(x, reader, 1, &e))
		abort();
	if (xform_check_span(x, why, sizeof(why)))
		return; /* refused, as replay and convert do */
	for (unsigned pass = 0; pass < xform_passes(x) && pass < 4; pass++) {
		if (bpt_reader_rewind(reader, &e))
			abort();
		while ((rc = bpt_reader_next(reader, &rec, &e)) == 1) {
			int k = xform_record(x, &rec);
			uint64_t t0, t1;

			if ((k < 0 && k != -ERANGE) || k > 1)
				abort();
			if (k != 1)
				continue;
			if (rec.op >= BPT_OP__COUNT ||
			    (rec.op != BPT_OP_FLUSH && rec.sector * 512 >= XF_MAX_OFFSET))
				abort();
			if ((x->spread > 0 || x->shift) && rec.op != BPT_OP_FLUSH &&
			    rec.sector * 512 % align)
				abort();
			if (rec.issue_ns < x->kept_first_ns)
				continue;
			t0 = xform_time(x, rec.issue_ns - x->kept_first_ns, pass);
			t1 = xform_time(x, rec.issue_ns - x->kept_first_ns, pass + 1);
			if (t1 < t0)
				abort();
		}
		if (rc < 0)
			abort();
	}
	/* the time map is monotonic over the whole schedule */
	uint64_t prev = 0, total = xform_total_ns(x);

	for (uint64_t t = 0; t <= x->span_ns; t += x->span_ns / 16 + 1) {
		uint64_t v = xform_time(x, t, 0);

		if (v < prev)
			abort();
		prev = v;
	}
	if (x->span_ns && total < prev && x->ramp_from > 0 && x->loops < 2)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS], why[256];
	struct xform x = { 0 };
	int argc = fuzz_argv(data, size, "transform", argv, MAX_ARGS, &buf), ok = 1;

	for (int a = 1; a < argc && ok; a++) {
		const char *arg = argv[a], *val = NULL, *eq;
		size_t n;
		int opt = -1, has;

		if (strncmp(arg, "--", 2))
			continue;
		arg += 2;
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg) : strlen(arg);
		for (const struct option *o = opts; o->name; o++)
			if (strlen(o->name) == n && !strncmp(o->name, arg, n)) {
				opt = o->val;
				has = o->has_arg;
			}
		if (opt < 0)
			continue;
		if (has == required_argument) {
			val = eq ? eq + 1 : a + 1 < argc ? argv[++a] : NULL;
			if (!val)
				break;
		}
		why[0] = 0;
		int rc = xform_option(&x, opt, val, why, sizeof(why));

		if (rc > 0 || (rc && !why[0]))
			abort();
		ok = !rc;
	}
	if (strlen(xform_describe(&x)) >= sizeof(x.text))
		abort();
	if (ok && !xform_check(&x, why, sizeof(why))) {
		uint32_t align = size && (data[0] & 1) ? 4096 : 512;

		if (!xform_bind(&x, reader, align, why, sizeof(why)))
			apply_all(&x, align);
		else if (!why[0])
			abort();
	}
	xform_free(&x);
	free(buf);
	return 0;
}
