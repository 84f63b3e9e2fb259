/*
 * verify.c — the replay's side of --verify (verify.h): the capture child
 * on the members, the replay's I/Os kept as they complete, and the kernel
 * trace read back and handed to the matcher.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "verify.h"

/* How long the capture may take to load and attach its BPF programs. */
#define READY_TIMEOUT_MS 30000

/* A member as the kernel names it: the whole disk and where it starts
 * (a partition's requests are recorded on its disk, in disk sectors). */
struct kmember {
	unsigned major, minor;       /* the whole disk */
	uint64_t start, nsectors;    /* the member on it, sectors */
};

struct verify {
	struct verify_set set;
	struct kmember km[LOAD_MAX_TARGETS * LAYOUT_MAX_MEMBERS];
	char dir[64], trace[96], errlog[96];
	pid_t pid;
	struct verify_io *ios;
	uint64_t nio, cap;
	int failed; /* out of memory keeping the I/Os */
};

static uint64_t sysfs_u64(const char *dir, const char *name, int *ok)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f || !fgets(buf, sizeof(buf), f))
		*ok = 0;
	if (f)
		fclose(f);
	return strtoull(buf, NULL, 10);
}

/* The kernel's name of member `fd`: -1 (err filled) when not a block device. */
static int kernel_member(int fd, const char *spec, unsigned m, struct kmember *k,
			 struct bpt_error *err)
{
	struct stat st;
	char dir[64], buf[96] = "";
	int ok = 1;
	FILE *f;

	if (fstat(fd, &st) || !S_ISBLK(st.st_mode)) {
		bpt_error_set(err, -ENOTBLK, "--verify: %s: member %u is not a block device; "
			      "the kernel's view is recorded on block devices only", spec, m);
		return -1;
	}
	k->major = major(st.st_rdev);
	k->minor = minor(st.st_rdev);
	k->start = 0;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", k->major, k->minor);
	k->nsectors = sysfs_u64(dir, "size", &ok);
	if (!ok)
		k->nsectors = UINT64_MAX;
	snprintf(buf, sizeof(buf), "%s/partition", dir);
	if (access(buf, F_OK))
		return 0;
	k->start = sysfs_u64(dir, "start", &ok);
	snprintf(buf, sizeof(buf), "%s/../dev", dir);
	f = fopen(buf, "re");
	if (!ok || !f || fscanf(f, "%u:%u", &k->major, &k->minor) != 2) {
		if (f)
			fclose(f);
		bpt_error_set(err, -ENODEV, "--verify: %s: member %u: cannot find the disk of "
			      "partition %u:%u in sysfs", spec, m, major(st.st_rdev), minor(st.st_rdev));
		return -1;
	}
	fclose(f);
	return 0;
}

/* The capture's stderr, for a failure message: its last line. */
static void child_said(const struct verify *v, char *buf, size_t len)
{
	char line[256];
	FILE *f = fopen(v->errlog, "re");

	snprintf(buf, len, "no message");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			snprintf(buf, len, "%.190s", line);
	}
	if (f)
		fclose(f);
}

/* Wait for READY=1 on `sock` or the child's end. 0, or -1 (err filled). */
static int wait_ready(struct verify *v, int sock, struct bpt_error *err)
{
	char msg[64], said[200];
	int status;

	for (int waited = 0; waited < READY_TIMEOUT_MS; waited += 50) {
		struct pollfd p = { .fd = sock, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 50) > 0) {
			n = recv(sock, msg, sizeof(msg) - 1, MSG_DONTWAIT);
			if (n > 0) {
				msg[n] = 0;
				if (strstr(msg, "READY=1"))
					return 0;
			}
		}
		if (waitpid(v->pid, &status, WNOHANG) == v->pid) {
			v->pid = 0;
			child_said(v, said, sizeof(said));
			bpt_error_set(err, -ECHILD, "--verify: the capture of the members did not "
				      "start (needs root and BPF): %s", said);
			return -1;
		}
	}
	bpt_error_set(err, -ETIMEDOUT, "--verify: the capture of the members was not "
		      "recording after %d s", READY_TIMEOUT_MS / 1000);
	return -1;
}

/*
 * The kernel's trace lives in TMPDIR/blkpeak-verify-PID-XXXXXX (PID: the
 * replay's). A replay killed by SIGKILL cannot remove it, so each
 * --verify first removes those whose replay is gone: directories of our
 * own user whose PID is no process, holding only the names a verify puts
 * there (the trace, its temporary file and lock, the capture's log). A
 * directory holding anything else is left alone.
 */
static int verify_file_name(const char *n)
{
	return !strcmp(n, "kernel.bpt") || !strcmp(n, "capture.err") ||
	       !strcmp(n, ".kernel.bpt.lock") || !strncmp(n, "kernel.bpt.tmp.", 15);
}

static void remove_stale_dirs(const char *tmp)
{
	DIR *d = opendir(tmp);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *p = e->d_name + 15;
		char *end;
		long pid;
		struct stat st;
		int fd;

		if (strncmp(e->d_name, "blkpeak-verify-", 15) || !(*p >= '1' && *p <= '9'))
			continue;
		pid = strtol(p, &end, 10);
		if (*end != '-' || strlen(end) != 7 || pid <= 0 || pid == getpid() ||
		    !(kill((pid_t)pid, 0) && errno == ESRCH))
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		DIR *in = NULL;

		if (!fstat(fd, &st) && st.st_uid == geteuid() && (in = fdopendir(fd))) {
			struct dirent *f;

			while ((f = readdir(in)))
				if (verify_file_name(f->d_name))
					unlinkat(dirfd(in), f->d_name, 0);
			closedir(in);
			unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR); /* fails if not empty */
		} else {
			close(fd);
		}
	}
	closedir(d);
}

int verify_start(struct verify **out, const struct verify_target *t, unsigned n,
		 struct bpt_error *err)
{
	struct verify *v = calloc(1, sizeof(*v));
	char *argv[8 + 2 * LOAD_MAX_TARGETS * LAYOUT_MAX_MEMBERS];
	char devs[LOAD_MAX_TARGETS * LAYOUT_MAX_MEMBERS][24];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char notify[64];
	unsigned na = 0;
	int sock = -1;

	*out = NULL;
	if (!v) {
		bpt_error_set(err, -ENOMEM, "--verify: out of memory");
		return -1;
	}
	*out = v;
	if (geteuid() != 0) {
		bpt_error_set(err, -EPERM, "--verify: needs root (the capture of the members "
			      "loads BPF programs)");
		return -1;
	}
	const char *tmp = getenv("TMPDIR") && strlen(getenv("TMPDIR")) < 32 ? getenv("TMPDIR") : "/tmp";

	remove_stale_dirs(tmp);
	for (unsigned i = 0; i < n; i++) {
		v->set.layout[i] = t[i].layout;
		v->set.base[i] = v->set.nmembers;
		for (unsigned m = 0; m < t[i].layout->nmembers; m++) {
			struct kmember *k = &v->km[v->set.nmembers++];

			if (kernel_member(t[i].fd[m], t[i].spec, m, k, err))
				return -1;
		}
	}
	v->set.ntargets = n;
	snprintf(v->dir, sizeof(v->dir), "%s/blkpeak-verify-%d-XXXXXX", tmp, (int)getpid());
	if (!mkdtemp(v->dir)) {
		bpt_error_set(err, -errno, "--verify: %s: cannot make a directory for the "
			      "kernel's trace: %s", v->dir, strerror(errno));
		v->dir[0] = 0;
		return -1;
	}
	snprintf(v->trace, sizeof(v->trace), "%s/kernel.bpt", v->dir);
	snprintf(v->errlog, sizeof(v->errlog), "%s/capture.err", v->dir);
	/* READY=1 arrives on an abstract datagram socket only we know */
	snprintf(notify, sizeof(notify), "@blkpeak-verify-%d-%ld", (int)getpid(), (long)time(NULL));
	memcpy(sa.sun_path + 1, notify + 1, strlen(notify) - 1);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa,
			     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(notify)))) {
		bpt_error_set(err, -errno, "--verify: cannot make the readiness socket: %s",
			      strerror(errno));
		if (sock >= 0)
			close(sock);
		return -1;
	}
	argv[na++] = "blkpeak";
	argv[na++] = "capture";
	argv[na++] = "-o";
	argv[na++] = v->trace;
	argv[na++] = "--buffer-size";
	argv[na++] = "64";
	for (unsigned i = 0; i < v->set.nmembers; i++) {
		snprintf(devs[i], sizeof(devs[i]), "%u:%u", v->km[i].major, v->km[i].minor);
		argv[na++] = "-d";
		argv[na++] = devs[i];
	}
	argv[na] = NULL;
	/* its own process group (a Ctrl-C for the replay is not for it: the
	 * replay stops it after its last completion), gone with us */
	const struct child_opts co = {
		.log_path = v->errlog, .stdout_null = 1, .own_group = 1, .die_with_parent = 1,
		.env_name = "NOTIFY_SOCKET", .env_value = notify,
	};
	int rc = child_start(CHILD_SELF, argv, &co, &v->pid);

	if (rc) {
		bpt_error_set(err, rc, "--verify: cannot start the capture: %s", strerror(-rc));
		v->pid = 0;
		close(sock);
		return -1;
	}
	rc = wait_ready(v, sock, err);

	close(sock);
	return rc;
}

int verify_add(struct verify *v, const struct rp_result *r)
{
	if (v->failed)
		return -ENOMEM;
	/* done in a controller cache (cache=): no member I/O of its own to
	 * match; its bytes reach the members as destages, which the kernel
	 * sees as requests no I/O claims (extra) */
	if (!r->error && !r->member_ios && r->io->len &&
	    (r->io->op == BPT_OP_READ || r->io->op == BPT_OP_WRITE))
		return 0;
	if (v->nio == v->cap) {
		uint64_t cap = v->cap ? v->cap * 2 : 4096;
		struct verify_io *p = realloc(v->ios, cap * sizeof(*p));

		if (!p) {
			v->failed = 1;
			return -ENOMEM;
		}
		v->ios = p;
		v->cap = cap;
	}
	v->ios[v->nio++] = (struct verify_io){
		.offset = r->io->offset, .len = r->io->len, .op = r->io->op,
		.target = r->io->target, .member_mask = r->member_mask, .src = r->io->src,
		.sched_ns = r->sched_ns, .issue_ns = r->issue_ns, .complete_ns = r->complete_ns,
		.failed = r->error != 0,
	};
	return 0;
}

/* Stop the capture: SIGINT, then wait. Its exit status is not looked at:
 * a loss makes it 1, and the loss count is read from the trace. */
static void stop_child(struct verify *v)
{
	if (v->pid <= 0)
		return;
	child_stop(v->pid, SIGINT);
	v->pid = 0;
}

/* The global member of a kernel request: -1 when none of ours. */
static int member_of(const struct verify *v, const struct bpt_device *d, uint64_t sector)
{
	for (unsigned i = 0; i < v->set.nmembers; i++) {
		const struct kmember *k = &v->km[i];

		if (k->major == d->major && k->minor == d->minor && sector >= k->start &&
		    sector - k->start < k->nsectors)
			return (int)i;
	}
	return -1;
}

/* Read the kernel's trace into *ev (absolute CLOCK_MONOTONIC times). */
static int read_events(struct verify *v, struct verify_event **evp, uint64_t *nevp,
		       uint64_t *lost, struct bpt_error *err)
{
	struct bpt_reader *r = NULL;
	struct verify_event *ev = NULL;
	uint64_t nev = 0, cap = 0, start;
	struct bpt_record rec;
	struct bpt_stats st;
	char said[200];
	int rc;

	if (bpt_reader_open(&r, v->trace, err) < 0) {
		child_said(v, said, sizeof(said));
		bpt_error_set(err, -ENOENT, "--verify: the capture of the members wrote no "
			      "trace: %s", said);
		return -1;
	}
	start = bpt_reader_header(r)->start_mono_ns;
	while ((rc = bpt_reader_next(r, &rec, err)) == 1) {
		const struct bpt_device *d = &bpt_reader_header(r)->devices[rec.dev];
		int m = member_of(v, d, rec.sector);

		if (m < 0)
			continue;
		if (nev == cap) {
			struct verify_event *p;

			cap = cap ? cap * 2 : 4096;
			p = realloc(ev, cap * sizeof(*p));
			if (!p) {
				rc = -ENOMEM;
				bpt_error_set(err, rc, "--verify: out of memory");
				break;
			}
			ev = p;
		}
		ev[nev++] = (struct verify_event){
			.issue_ns = start + rec.issue_ns, .sector = rec.sector - v->km[m].start,
			.bytes = rec.bytes, .member = (uint16_t)m, .op = rec.op,
		};
	}
	bpt_reader_stats(r, &st);
	*lost = st.lost_events;
	bpt_reader_close(r);
	if (rc < 0) {
		free(ev);
		return -1;
	}
	*evp = ev;
	*nevp = nev;
	return 0;
}

int verify_finish(struct verify *v, uint64_t start_mono_ns, struct verify_result *res,
		  struct bpt_error *err)
{
	struct verify_event *ev = NULL;
	uint64_t nev = 0, lost = 0, end = start_mono_ns;
	int rc;

	stop_child(v);
	if (v->failed) {
		bpt_error_set(err, -ENOMEM, "--verify: out of memory keeping the replay's I/Os");
		return -1;
	}
	if (read_events(v, &ev, &nev, &lost, err))
		return -1;
	for (uint64_t i = 0; i < v->nio; i++) {
		struct verify_io *io = &v->ios[i];

		io->sched_ns += start_mono_ns;
		io->issue_ns += start_mono_ns;
		io->complete_ns += start_mono_ns;
		if (io->complete_ns > end)
			end = io->complete_ns;
	}
	rc = verify_match(&v->set, v->ios, v->nio, ev, nev, start_mono_ns, end, res);
	free(ev);
	if (rc < 0) {
		bpt_error_set(err, rc, "--verify: out of memory matching the kernel's trace");
		return -1;
	}
	res->lost = lost;
	res->start_mono_ns = start_mono_ns;
	return 0;
}

void verify_free(struct verify *v)
{
	if (!v)
		return;
	stop_child(v);
	if (v->trace[0])
		unlink(v->trace);
	if (v->errlog[0])
		unlink(v->errlog);
	if (v->dir[0])
		rmdir(v->dir);
	free(v->ios);
	free(v);
}
