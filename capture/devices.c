/*
 * devices.c — the disks a capture records, as sysfs describes them.
 *
 * Requests are traced per whole disk: by the time a request exists, a
 * partition's bios have been remapped to the disk's sectors. So a -d that
 * names a partition resolves to its disk (and the caller says so).
 *
 * Every function takes the sysfs root ("/sys") so the unit tests can run
 * them on a fake tree.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture.h"

/* Read the first line of SYSFS/REL into buf, trailing space trimmed. */
static int read_line(const char *sysfs, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", sysfs, rel);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static uint64_t read_u64(const char *sysfs, const char *rel, uint64_t dflt)
{
	char buf[64];
	uint64_t v;

	if (read_line(sysfs, rel, buf, sizeof(buf)) || sscanf(buf, "%lu", &v) != 1)
		return dflt;
	return v;
}

static int parse_majmin(const char *s, uint32_t *major, uint32_t *minor)
{
	unsigned int ma, mi;
	char end;

	if (sscanf(s, "%u:%u%c", &ma, &mi, &end) != 2)
		return -EINVAL;
	if (ma > CAPTURE_KDEV_MAJORMAX || mi > CAPTURE_KDEV_MINORMASK)
		return -ERANGE;
	*major = ma;
	*minor = mi;
	return 0;
}

int devices_read(const char *sysfs, const char *name, struct bpt_device *out)
{
	char rel[96], buf[128];
	int err;

	memset(out, 0, sizeof(*out));
	if (strlen(name) >= sizeof(out->name) || strchr(name, '/'))
		return -EINVAL;
	snprintf(rel, sizeof(rel), "block/%s/dev", name);
	err = read_line(sysfs, rel, buf, sizeof(buf));
	if (err)
		return err;
	err = parse_majmin(buf, &out->major, &out->minor);
	if (err)
		return err;
	strcpy(out->name, name);
	snprintf(rel, sizeof(rel), "block/%s/size", name);
	out->size_bytes = read_u64(sysfs, rel, 0) * 512; /* always 512-byte units */
	snprintf(rel, sizeof(rel), "block/%s/queue/logical_block_size", name);
	out->logical_block_size = read_u64(sysfs, rel, 512);
	snprintf(rel, sizeof(rel), "block/%s/queue/physical_block_size", name);
	out->physical_block_size = read_u64(sysfs, rel, out->logical_block_size);
	snprintf(rel, sizeof(rel), "block/%s/queue/rotational", name);
	out->rotational = read_u64(sysfs, rel, 0) ? 1 : 0;
	snprintf(rel, sizeof(rel), "block/%s/device/model", name);
	if (!read_line(sysfs, rel, buf, sizeof(buf)))
		snprintf(out->model, sizeof(out->model), "%.*s",
			 (int)sizeof(out->model) - 1, buf);
	return 0;
}

static int cmp_part_number(const void *a, const void *b)
{
	const struct bpt_partition *x = a, *y = b;

	return x->number < y->number ? -1 : x->number > y->number;
}

int devices_partitions(const char *sysfs, const char *name, struct bpt_partition *out,
		       int max)
{
	char path[PATH_MAX], rel[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (strchr(name, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/block/%s", sysfs, name);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct bpt_partition p = { 0 };
		uint64_t num;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(p.name))
			continue;
		snprintf(rel, sizeof(rel), "block/%s/%s/partition", name, de->d_name);
		num = read_u64(sysfs, rel, 0);
		if (!num || num > UINT32_MAX)
			continue; /* not a partition (queue/, holders/, ...) */
		p.number = (uint32_t)num;
		snprintf(rel, sizeof(rel), "block/%s/%s/start", name, de->d_name);
		p.start = read_u64(sysfs, rel, UINT64_MAX);
		snprintf(rel, sizeof(rel), "block/%s/%s/size", name, de->d_name);
		p.sectors = read_u64(sysfs, rel, 0);
		if (p.start == UINT64_MAX || !p.sectors)
			continue; /* an extended partition's stub has size 2; 0 is none */
		strcpy(p.name, de->d_name);
		if (n < max)
			out[n] = p;
		n++;
	}
	closedir(d);
	qsort(out, n < max ? n : max, sizeof(*out), cmp_part_number);
	return n;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

int devices_list(const char *sysfs, char (*names)[32], int max)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/block", sysfs);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= 32)
			continue;
		if (n < max)
			strcpy(names[n], de->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n < max ? n : max, sizeof(names[0]), cmp_names);
	return n;
}

/* Resolve MAJ:MIN through SYSFS/dev/block/MAJ:MIN to the whole disk. */
static int resolve_majmin(const char *sysfs, uint32_t major, uint32_t minor,
			  struct dev_spec *out)
{
	char link[PATH_MAX], real[PATH_MAX], rel[PATH_MAX + 16], *base, *slash;
	char buf[32];
	struct stat st;
	int is_part;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs, major, minor);
	if (!realpath(link, real))
		return -errno;
	base = strrchr(real, '/');
	if (!base || strlen(base + 1) >= sizeof(out->disk))
		return -EINVAL;
	snprintf(rel, sizeof(rel), "%s/partition", real);
	is_part = stat(rel, &st) == 0;
	memset(out, 0, sizeof(*out));
	if (is_part) {
		snprintf(out->part, sizeof(out->part), "%s", base + 1);
		*base = '\0'; /* the parent directory is the disk */
		slash = strrchr(real, '/');
		if (!slash || strlen(slash + 1) >= sizeof(out->disk))
			return -EINVAL;
		base = slash;
	}
	snprintf(out->disk, sizeof(out->disk), "%s", base + 1);
	snprintf(rel, sizeof(rel), "block/%s/dev", out->disk);
	if (read_line(sysfs, rel, buf, sizeof(buf)) ||
	    parse_majmin(buf, &out->major, &out->minor))
		return -ENOENT;
	return 0;
}

/* A kernel name ("loop4", "sda1", as --map and lsblk spell it) to its
 * MAJ:MIN: SYSFS/block/NAME/dev for a disk, SYSFS/block/DISK/NAME/dev for a
 * partition. -ENOENT when no block device has that name. */
static int name_majmin(const char *sysfs, const char *name, uint32_t *major, uint32_t *minor)
{
	enum { MAX_NAMES = 4096 };
	char rel[PATH_MAX], buf[32], (*names)[32];
	int n, rc = -ENOENT;

	if (!name[0] || name[0] == '.' || strchr(name, '/') || strlen(name) >= 32)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "block/%s/dev", name);
	if (!read_line(sysfs, rel, buf, sizeof(buf)))
		return parse_majmin(buf, major, minor) ? -ENOENT : 0;
	if (!(names = malloc(MAX_NAMES * sizeof(*names))))
		return -ENOMEM;
	n = devices_list(sysfs, names, MAX_NAMES);
	for (int i = 0; i < n && i < MAX_NAMES && rc; i++) {
		snprintf(rel, sizeof(rel), "block/%s/%s/dev", names[i], name);
		if (!read_line(sysfs, rel, buf, sizeof(buf)) && !parse_majmin(buf, major, minor))
			rc = 0;
	}
	free(names);
	return rc;
}

int devices_resolve(const char *sysfs, const char *spec, struct dev_spec *out,
		    struct bpt_error *error)
{
	uint32_t major, minor;
	struct stat st;
	int err;

	if (spec[0] == '/') {
		if (stat(spec, &st)) {
			err = -errno;
			bpt_error_set(error, err, "%s: %s", spec, strerror(errno));
			return err;
		}
		if (!S_ISBLK(st.st_mode)) {
			return bpt_error_set(error, -ENOTBLK, "%s: not a block device", spec);
		}
		major = major(st.st_rdev);
		minor = minor(st.st_rdev);
	} else if (!parse_majmin(spec, &major, &minor)) {
		/* MAJOR:MINOR */
	} else if (name_majmin(sysfs, spec, &major, &minor)) {
		return bpt_error_set(error, -EINVAL,
				     "'%s': not a device; give NAME, /dev/NAME or MAJOR:MINOR", spec);
	}
	err = resolve_majmin(sysfs, major, minor, out);
	if (err) {
		return bpt_error_set(error, -ENOENT, "%s: no such block device (%u:%u)",
				     spec, major, minor);
	}
	return 0;
}

int devices_of_path(const char *sysfs, const char *path, struct dev_spec *out)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (major(st.st_dev) == 0) /* tmpfs, proc, overlay... */
		return -ENODEV;
	if (resolve_majmin(sysfs, major(st.st_dev), minor(st.st_dev), out))
		return -ENODEV;
	return 0;
}

int devices_list_active(const char *sysfs, struct bpt_device *out, int max)
{
	enum { MAX_NAMES = 4096 };
	char (*names)[32] = malloc(MAX_NAMES * sizeof(*names));
	struct bpt_device d;
	int n, active = 0;

	if (!names)
		return -ENOMEM;
	n = devices_list(sysfs, names, MAX_NAMES);
	for (int i = 0; i < n && i < MAX_NAMES; i++) {
		if (devices_read(sysfs, names[i], &d) || d.size_bytes == 0)
			continue;
		if (active < max)
			out[active] = d;
		active++;
	}
	free(names);
	return n < 0 ? n : active;
}
