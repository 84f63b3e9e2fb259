/*
 * Unit tests of the file columns and the path table (format 1.3): the
 * writer refuses records that break the rules, the reader rejects them as
 * damage, paths round-trip sorted by inode with an inode's paths in the
 * order added, and files without the table read as having none.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpt.h"
#include "bpt_internal.h"
#include "bpt_testutil.h"

static struct bpt_record data_rec(uint64_t t, uint64_t inode, uint64_t off)
{
	return (struct bpt_record){ .issue_ns = t, .complete_ns = t + 10,
				    .queue_ns = t, .sector = 8 * t, .bytes = 4096,
				    .op = BPT_OP_WRITE, .file_class = BPT_FILE_DATA,
				    .file_dev = 7u << 20 | 1, .inode = inode,
				    .file_offset = off, .file_bytes = 4096 };
}

Test(bpt_file, names_round_trip)
{
	for (int c = 0; c < BPT_FILE__COUNT; c++)
		cr_assert_eq(bpt_file_class_parse(bpt_file_class_name(c)), c);
	cr_assert_str_eq(bpt_file_class_name(BPT_FILE__COUNT), "?");
	cr_assert_eq(bpt_file_class_parse("data "), -EINVAL);
}

Test(bpt_file, writer_refuses_bad_file_fields, .fini = tu_cleanup)
{
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_error e = { 0 };
	struct bpt_record r;

	tu_header(&h, 1, BPT_COL_FILE);
	cr_assert_eq(bpt_writer_create(&w, tu_tmpname("fw"), &h, NULL, &e), 0, "%s", e.msg);
	r = data_rec(1, 12, 0);
	r.file_bytes = 4097;
	cr_assert_eq(bpt_writer_add(w, &r), -EINVAL, "file_bytes above bytes");
	r = data_rec(1, 12, 0);
	r.file_class = BPT_FILE__COUNT;
	cr_assert_eq(bpt_writer_add(w, &r), -EINVAL, "unknown class");
	r = data_rec(1, 12, 0);
	r.file_class = BPT_FILE_META;
	cr_assert_eq(bpt_writer_add(w, &r), -EINVAL, "metadata naming an inode");
	r.inode = r.file_offset = r.file_bytes = 0;
	cr_assert_eq(bpt_writer_add(w, &r), 0, "metadata on a file system device");
	r = data_rec(1, 12, 0);
	r.file_bytes = 1024;
	r.file2_bytes = 3073;
	r.inode2 = 13;
	cr_assert_eq(bpt_writer_add(w, &r), -EINVAL, "two files longer than the I/O");
	r.file2_bytes = 0;
	cr_assert_eq(bpt_writer_add(w, &r), -EINVAL, "a second inode without bytes");
	r.file2_bytes = 3072;
	cr_assert_eq(bpt_writer_add(w, &r), 0, "two files");
	cr_assert_eq(bpt_writer_add_path(w, 1, 2, ""), -EINVAL);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
}

Test(bpt_file, paths_and_columns_round_trip, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("fp");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_reader *rd;
	struct bpt_error e = { 0 };
	struct bpt_record r, got;
	const struct bpt_path *paths;
	uint32_t d = 7u << 20 | 1;

	tu_header(&h, 1, BPT_COL_FILE);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0, "%s", e.msg);
	/* added out of inode order, one inode twice (renamed), one repeat */
	cr_assert_eq(bpt_writer_add_path(w, d, 20, "/mnt/b"), 0);
	cr_assert_eq(bpt_writer_add_path(w, d, 12, "/mnt/a.tmp"), 0);
	cr_assert_eq(bpt_writer_add_path(w, d, 12, "/mnt/a"), 0);
	cr_assert_eq(bpt_writer_add_path(w, d, 12, "/mnt/a.tmp"), 0);
	cr_assert_eq(bpt_writer_add_path(w, 8u << 20, 12, "/other"), 0);
	r = data_rec(1, 12, BPT_FILE_OFFSET_UNKNOWN);
	cr_assert_eq(bpt_writer_add(w, &r), 0);
	r = data_rec(2, 20, 1u << 20);
	r.file_bytes = 512;
	cr_assert_eq(bpt_writer_add(w, &r), 0);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);

	cr_assert_eq(bpt_reader_open(&rd, p, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_paths(rd, &paths), 4);
	cr_assert_eq(paths[0].inode, 12);
	cr_assert_str_eq(bpt_reader_string(rd, paths[0].path_id), "/mnt/a.tmp");
	cr_assert_str_eq(bpt_reader_string(rd, paths[1].path_id), "/mnt/a");
	cr_assert_eq(paths[2].inode, 20);
	cr_assert_eq(paths[3].file_dev, 8u << 20);
	cr_assert_str_eq(bpt_reader_path(rd, d, 12), "/mnt/a.tmp");
	cr_assert_str_eq(bpt_reader_path(rd, d, 20), "/mnt/b");
	cr_assert_str_eq(bpt_reader_path(rd, 8u << 20, 12), "/other");
	cr_assert_null(bpt_reader_path(rd, d, 13));
	cr_assert_eq(bpt_reader_next(rd, &got, &e), 1, "%s", e.msg);
	cr_assert_eq(got.file_class, BPT_FILE_DATA);
	cr_assert_eq(got.file_offset, BPT_FILE_OFFSET_UNKNOWN);
	cr_assert_eq(got.inode, 12);
	cr_assert_eq(got.file_dev, d);
	cr_assert_eq(bpt_reader_next(rd, &got, &e), 1, "%s", e.msg);
	cr_assert_eq(got.file_bytes, 512);
	cr_assert_eq(got.file_offset, 1u << 20);
	bpt_reader_close(rd);
}

Test(bpt_file, without_the_columns_every_io_is_unknown, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("fn");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_reader *rd;
	struct bpt_error e = { 0 };
	struct bpt_record r = data_rec(1, 12, 0), got;
	const struct bpt_path *paths;

	tu_header(&h, 1, 0);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_writer_add(w, &r), 0);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_open(&rd, p, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_reader_next(rd, &got, &e), 1, "%s", e.msg);
	cr_assert_eq(got.file_class, BPT_FILE_UNKNOWN);
	cr_assert_eq(got.inode, 0);
	cr_assert_eq(bpt_reader_paths(rd, &paths), 0);
	bpt_reader_close(rd);
}

/* A path entry naming a string the file does not have is damage. */
Test(bpt_file, bad_path_string_id_is_damage, .fini = tu_cleanup)
{
	const char *p = tu_tmpname("fd");
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_reader *rd;
	struct bpt_error e = { 0 };
	uint8_t *buf;
	size_t len, at;

	tu_header(&h, 1, BPT_COL_FILE);
	cr_assert_eq(bpt_writer_create(&w, p, &h, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_writer_add_path(w, 5, 77, "/x"), 0);
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	buf = tu_load(p, &len);
	cr_assert_not_null(buf);
	/* the one entry ends the footer: its string id is the last u32
	 * before the trailer; point it past the table, fix the checksum */
	at = len - 24 - 4;
	cr_assert_eq(buf[at], 1, "string id of \"/x\"");
	buf[at] = 99;
	uint64_t foff = get_le64(buf + len - 24);

	put_le64(buf + len - 16, bpt_xxh64(buf + foff, len - 24 - foff, 0));
	cr_assert_eq(bpt_reader_open_mem(&rd, buf, len, "t", &e), -EBADMSG);
	cr_assert(strstr(e.msg, "path 0: bad string id 99"), "%s", e.msg);
	buf[at] = 1;
	put_le64(buf + len - 16, bpt_xxh64(buf + foff, len - 24 - foff, 0));
	cr_assert_eq(bpt_reader_open_mem(&rd, buf, len, "t", &e), 0, "%s", e.msg);
	cr_assert_str_eq(bpt_reader_path(rd, 5, 77), "/x");
	bpt_reader_close(rd);
	free(buf);
}

Test(bpt_file, cause_rules_and_credit, .fini = tu_cleanup)
{
	struct bpt_header h;
	struct bpt_writer *w;
	struct bpt_error e = { 0 };
	struct bpt_record r = data_rec(1, 12, 0);
	uint32_t id, pid, comm;
	uint64_t cg;

	tu_header(&h, 1, BPT_COL_CAUSE);
	cr_assert_eq(bpt_writer_create(&w, tu_tmpname("fc"), &h, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(bpt_writer_intern(w, "convert", &id), 0);
	r.cause_comm_id = id;
	cr_assert_eq(bpt_writer_add(w, &r), -EINVAL, "a cause comm without a pid");
	r.cause_pid = 77;
	r.cause_comm_id = 99;
	cr_assert_eq(bpt_writer_add(w, &r), -EINVAL, "a cause comm not interned");
	r.cause_comm_id = id;
	r.cause_cgroup = 5;
	cr_assert_eq(bpt_writer_add(w, &r), 0);
	r.cause2_pid = 78;
	cr_assert_eq(bpt_writer_add(w, &r), -EINVAL, "a second cause without a second file");
	r.cause2_pid = 0;
	cr_assert_eq(bpt_writer_close(w, &e), 0, "%s", e.msg);
	r.pid = 12;
	r.comm_id = 0;
	bpt_record_credit(&r, BPT_COL_CAUSE, &pid, &comm, &cg);
	cr_assert(pid == 77 && comm == id && cg == 5, "the cause is credited");
	bpt_record_credit(&r, 0, &pid, &comm, &cg);
	cr_assert(pid == 12 && comm == 0, "without the columns, the submitter");
	r.cause_pid = 0;
	bpt_record_credit(&r, BPT_COL_CAUSE, &pid, &comm, &cg);
	cr_assert_eq(pid, 12, "an unknown cause: the submitter");
}
