/*
 * libbpt_copy.c — a program of libbpt's users, built by
 * tests/e2e/08-libbpt.sh against the installed library with nothing but
 * `pkg-config --cflags --libs libbpt`: it reads a trace (a .bpt file or a
 * foreign one) with the read loop of bpt.h and prints what it counted,
 * one `key value` a line; given OUT, it also writes the records into a new
 * .bpt file with the write loop (the header, the devices and the process
 * names carried over), which blkpeak reads back.
 */
#include <stdio.h>
#include <string.h>

#include <bpt.h>

int main(int argc, char **argv)
{
	struct bpt_reader *r;
	struct bpt_writer *w = NULL;
	struct bpt_record rec;
	struct bpt_error err;
	unsigned long long n = 0, ops[BPT_OP__COUNT] = { 0 }, bytes = 0, named = 0;
	int rc;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: libbpt_copy TRACE [OUT.bpt]\n");
		return 2;
	}
	if (bpt_reader_open(&r, argv[1], &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	const struct bpt_header *h = bpt_reader_header(r);
	if (argc == 3) {
		struct bpt_header out;
		if (bpt_header_copy(&out, h) < 0)
			return 1;
		rc = bpt_writer_create(&w, argv[2], &out, NULL, &err);
		bpt_header_free(&out);
		if (rc < 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
	}
	while ((rc = bpt_reader_next(r, &rec, &err)) == 1) {
		const char *comm = bpt_reader_string(r, rec.comm_id);
		n++;
		ops[rec.op < BPT_OP__COUNT ? rec.op : 0]++;
		bytes += rec.bytes;
		if (comm && *comm)
			named++;
		if (w) {
			/* string ids are the file's own: carried over by name */
			uint32_t *ids[] = { &rec.comm_id, &rec.cause_comm_id, &rec.cause2_comm_id };
			for (int i = 0; i < 3; i++) {
				const char *s = bpt_reader_string(r, *ids[i]);
				if (bpt_writer_intern(w, s ? s : "", ids[i]) < 0)
					return 1;
			}
			if ((rc = bpt_writer_add(w, &rec)) < 0) {
				fprintf(stderr, "record %llu: %s\n", n, strerror(-rc));
				return 1;
			}
		}
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	printf("kind %s\n", h->kind);
	printf("devices %u\n", h->ndevices);
	printf("records %llu\n", n);
	for (unsigned op = 0; op < BPT_OP__COUNT; op++)
		printf("%s %llu\n", bpt_op_name(op), ops[op]);
	printf("bytes %llu\n", bytes);
	printf("named %llu\n", named);
	if (w) { /* the paths of the files the I/Os touched */
		const struct bpt_path *paths;
		size_t np = bpt_reader_paths(r, &paths);
		for (size_t i = 0; i < np; i++)
			if (bpt_writer_add_path(w, paths[i].file_dev, paths[i].inode,
						bpt_reader_string(r, paths[i].path_id)) < 0)
				return 1;
	}
	bpt_reader_close(r);
	if (w && bpt_writer_close(w, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	return 0;
}
