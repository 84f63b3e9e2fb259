/* Unit tests of the safe output files (common/outfile.c): all or
 * nothing, no device/FIFO/input as an output, one writer at a time. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "outfile.h"

static char dir[] = "/tmp/blkpeak-outfile-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(outfile, .init = setup, .fini = teardown);

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Files in the test folder; a temporary file left behind would show. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

Test(outfile, success_replaces_the_target)
{
	char path[256];
	struct outfile o;

	snprintf(path, sizeof(path), "%s/chart.svg", dir);
	cr_assert_eq(outfile_open(&o, path, NULL), 0);
	fputs("new", o.f);
	cr_assert_null(slurp(path), "nothing at the target before close");
	cr_assert_eq(outfile_close(&o, 0), 0);
	cr_assert_str_eq(slurp(path), "new");
	cr_assert_eq(entries(), 1);
	cr_assert_eq(access(path, R_OK), 0);
}

Test(outfile, failure_keeps_the_old_file)
{
	char path[256];
	struct outfile o;
	FILE *f;

	snprintf(path, sizeof(path), "%s/report.html", dir);
	f = fopen(path, "w");
	fputs("old", f);
	fclose(f);
	cr_assert_eq(outfile_open(&o, path, NULL), 0);
	fputs("half", o.f);
	cr_assert_eq(outfile_close(&o, -ENODATA), -ENODATA, "the caller's error comes back");
	cr_assert_str_eq(slurp(path), "old");
	cr_assert_eq(entries(), 1, "the temporary file is removed");
}

Test(outfile, missing_folder_and_stdout)
{
	char path[256];
	struct outfile o;

	snprintf(path, sizeof(path), "%s/no/such/x.svg", dir);
	cr_assert_eq(outfile_open(&o, path, NULL), -ENOENT);
	cr_assert_eq(outfile_open(&o, "-", &(struct outfile_opts){ .allow_stdout = 1 }), 0);
	cr_assert_eq(o.f, stdout);
	cr_assert_eq(outfile_close(&o, 0), 0);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

Test(outfile, refuses_devices_fifos_sockets_directories)
{
	char fifo[256], sock[100], sub[256];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct outfile o;
	struct stat st;
	int s;

	cr_assert_eq(outfile_open(&o, "/dev/null", &(struct outfile_opts){ .what = "a trace" }),
		     -EINVAL);
	cr_assert_str_eq(o.err.msg, "/dev/null: a character device, refusing to write a trace there");
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_assert(S_ISCHR(st.st_mode), "/dev/null is still a device");
	cr_assert_neq(access("/dev/.null.lock", F_OK), 0, "no lock file made in /dev");

	snprintf(fifo, sizeof(fifo), "%s/pipe", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(outfile_open(&o, fifo, &(struct outfile_opts){ .what = "a chart" }), -EINVAL);
	cr_assert(strstr(o.err.msg, "pipe: a FIFO, refusing to write a chart there"), "%s", o.err.msg);

	snprintf(sock, sizeof(sock), "%s/sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(outfile_open(&o, sock, NULL), -EINVAL);
	cr_assert(strstr(o.err.msg, "sock: a socket, refusing"), "%s", o.err.msg);
	close(s);

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_eq(outfile_open(&o, sub, NULL), -EISDIR);
	cr_assert(strstr(o.err.msg, "sub: a directory, refusing"), "%s", o.err.msg);
	cr_assert_eq(entries(), 3, "pipe, sock, sub: nothing else was made");
}

Test(outfile, refuses_a_link_to_a_device)
{
	char link[256];
	struct outfile o;

	snprintf(link, sizeof(link), "%s/out.csv", dir);
	cr_assert_eq(symlink("/dev/null", link), 0);
	cr_assert_eq(outfile_open(&o, link, NULL), -EINVAL);
	cr_assert(strstr(o.err.msg, "out.csv: a character device"), "%s", o.err.msg);
}

Test(outfile, refuses_an_input_through_links)
{
	char db[256], hard[256], soft[256];
	const char *inputs[] = { "/nonexistent", db, NULL };
	struct outfile o;

	snprintf(db, sizeof(db), "%s/blkpeak.db", dir);
	snprintf(hard, sizeof(hard), "%s/hard", dir);
	snprintf(soft, sizeof(soft), "%s/soft", dir);
	put(db, "database");
	cr_assert_eq(link(db, hard), 0);
	cr_assert_eq(symlink(db, soft), 0);
	cr_assert_eq(outfile_open(&o, db, &(struct outfile_opts){ .what = "a CSV export",
								   .inputs = inputs }), -EEXIST);
	cr_assert(strstr(o.err.msg, "blkpeak.db: an input of this command, refusing to write a CSV "
				"export there"), "%s", o.err.msg);
	cr_assert_eq(outfile_open(&o, hard, &(struct outfile_opts){ .inputs = inputs }), -EEXIST);
	cr_assert(strstr(o.err.msg, "hard: the same file as the input"), "%s", o.err.msg);
	cr_assert_eq(outfile_open(&o, soft, &(struct outfile_opts){ .inputs = inputs }), -EEXIST);
	cr_assert_str_eq(slurp(db), "database");
}

Test(outfile, replaces_a_symlink_not_its_target)
{
	char target[256], link[256];
	struct outfile o;

	snprintf(target, sizeof(target), "%s/precious", dir);
	snprintf(link, sizeof(link), "%s/out.svg", dir);
	put(target, "precious");
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(outfile_open(&o, link, NULL), 0);
	fputs("chart", o.f);
	cr_assert_eq(outfile_close(&o, 0), 0);
	cr_assert_str_eq(slurp(target), "precious");
	cr_assert_str_eq(slurp(link), "chart");
}

Test(outfile, second_writer_is_refused_with_the_pid)
{
	char path[256], want[320];
	struct outfile a, b;

	snprintf(path, sizeof(path), "%s/x.bpt", dir);
	cr_assert_eq(outfile_open(&a, path, NULL), 0);
	cr_assert_eq(outfile_open(&b, path, NULL), -EBUSY);
	snprintf(want, sizeof(want), "%s: in use by PID %d", path, (int)getpid());
	cr_assert_str_eq(b.err.msg, want);
	fputs("first", a.f);
	cr_assert_eq(outfile_close(&a, 0), 0);
	cr_assert_eq(outfile_open(&b, path, NULL), 0, "free again after close: %s", b.err.msg);
	cr_assert_eq(outfile_close(&b, -EIO), -EIO);
	cr_assert_str_eq(slurp(path), "first");
}

Test(outfile, a_lock_file_left_by_a_killed_writer_blocks_nobody)
{
	char path[256], lock[256];
	struct outfile o;

	snprintf(path, sizeof(path), "%s/x.bpt", dir);
	snprintf(lock, sizeof(lock), "%s/.x.bpt.lock", dir);
	put(lock, "999999\n"); /* what a SIGKILLed writer leaves */
	cr_assert_eq(outfile_open(&o, path, NULL), 0, "%s", o.err.msg);
	cr_assert_eq(outfile_close(&o, 0), 0);
	cr_assert_neq(access(lock, F_OK), 0, "a clean close removes the lock file");
}

Test(outfile, stream_is_in_place_while_written_and_kept_on_failure)
{
	char path[256];
	struct outfile o;
	int fd;

	snprintf(path, sizeof(path), "%s/run.bpt", dir);
	put(path, "old");
	cr_assert_eq(outfile_open(&o, path, NULL), 0);
	fd = outfile_dup_fd(&o);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "head", 4), 4);
	cr_assert_str_eq(slurp(path), "old", "not placed yet");
	cr_assert_eq(outfile_place(&o), 0);
	cr_assert_str_eq(slurp(path), "head", "placed: the data are at the path");
	cr_assert_eq(write(fd, "+block", 6), 6);
	cr_assert_str_eq(slurp(path), "head+block");
	close(fd);
	cr_assert_eq(outfile_close(&o, -EINTR), -EINTR);
	cr_assert_str_eq(slurp(path), "head+block", "a placed stream stays");
	cr_assert_eq(entries(), 1);
}

Test(outfile, stream_not_placed_is_removed)
{
	char path[256];
	struct outfile o;

	snprintf(path, sizeof(path), "%s/cap.bpt", dir);
	put(path, "old");
	cr_assert_eq(outfile_open(&o, path, NULL), 0);
	cr_assert_eq(outfile_close(&o, -ECANCELED), -ECANCELED);
	cr_assert_str_eq(slurp(path), "old");
	cr_assert_eq(entries(), 1);
}
