/*
 * filters.c — what a capture records: which disks, which process, which
 * comm, which cgroup. Parsed and checked here; bpf_loader.c writes them
 * into the BPF programs' read-only data before load, where the verifier
 * treats them as constants (a filter that is off costs nothing).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "capture.h"
#include "cliutil.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define PID_MAX_LIMIT (1u << 22) /* include/linux/threads.h, 64-bit */

void filters_init(struct capture_filters *f)
{
	memset(f, 0, sizeof(*f));
	f->cgroup_fd = -1;
}

int filters_add_dev(struct capture_filters *f, uint32_t major, uint32_t minor)
{
	uint32_t kdev = capture_kdev(major, minor);

	for (unsigned i = 0; i < f->ndevs; i++)
		if (f->devs[i] == kdev)
			return 0;
	if (f->ndevs >= CAPTURE_MAX_DEVS)
		return -E2BIG;
	f->devs[f->ndevs++] = kdev;
	return 0;
}

int filters_parse_pid(const char *s, uint32_t *tgid)
{
	uint64_t v;
	int err = parse_u64(s, &v);

	if (err)
		return err;
	if (v == 0 || v > PID_MAX_LIMIT)
		return -ERANGE;
	*tgid = v;
	return 0;
}

int filters_parse_comm(const char *s, char comm[CAPTURE_COMM_LEN])
{
	size_t n = strlen(s);

	if (n == 0)
		return -EINVAL;
	if (n >= CAPTURE_COMM_LEN)
		return -ENAMETOOLONG;
	memset(comm, 0, CAPTURE_COMM_LEN);
	memcpy(comm, s, n);
	return 0;
}

int filters_open_cgroup(struct capture_filters *f, const char *path)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	struct statfs sfs;
	struct stat st;
	int mount_id, fd;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
		close(fd);
		return -ENOTDIR;
	}
	if (fstatfs(fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		close(fd);
		return -EMEDIUMTYPE;
	}
	/* a cgroup v2 id is its kernfs node id, which the file handle holds */
	if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) == 0)
		memcpy(&f->cgroup_id, h.fh.f_handle, sizeof(f->cgroup_id));
	f->cgroup_fd = fd;
	f->cgroup_path = path;
	return 0;
}

void filters_close(struct capture_filters *f)
{
	if (f->cgroup_fd >= 0)
		close(f->cgroup_fd);
	f->cgroup_fd = -1;
}
