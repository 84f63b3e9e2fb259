/*
 * bpt_partitions.c — a recorded disk's partition table in the header's
 * meta (schemas/trace-format.md, "Partition tables").
 *
 * Device D's table is the value of "partitions.D": entries separated by
 * one space, each NUMBER:START:SECTORS, or NUMBER:START:SECTORS:NAME when
 * the partition's device name is not the kernel's usual one for its disk
 * and number (bpt_partition_name). A value holds at most 223 bytes, so a
 * long table continues in "partitions.D.1", "partitions.D.2", ... (whole
 * entries per value). Meta, not a new header field: old readers show it
 * as meta, and old traces, which have none, read as "no table".
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpt_internal.h"

#define PART_VALUE_MAX (sizeof(((struct bpt_meta *)0)->value) - 1)

void bpt_partition_name(const char *disk, unsigned number, char *buf, size_t len)
{
	size_t n = strlen(disk);

	snprintf(buf, len, "%s%s%u", disk, n && isdigit((unsigned char)disk[n - 1]) ? "p" : "",
		 number);
}

static void part_key(unsigned dev, unsigned k, char *buf, size_t len)
{
	if (k)
		snprintf(buf, len, "%s.%u.%u", BPT_META_PARTITIONS, dev, k);
	else
		snprintf(buf, len, "%s.%u", BPT_META_PARTITIONS, dev);
}

/* The entries as values of "partitions.DEV", "partitions.DEV.1", ... */
static int set_entries(struct bpt_header *hdr, unsigned dev,
		       const struct bpt_partition *p, unsigned n)
{
	char value[PART_VALUE_MAX + 1] = "", entry[128], key[32], dflt[32];
	unsigned k = 0;
	size_t used = 0;
	int rc;

	for (unsigned i = 0; i < n; i++) {
		const char *name = p[i].name;

		if (!name[0] || strpbrk(name, " :=") || !memchr(name, 0, sizeof(p[i].name)) ||
		    !p[i].sectors)
			return -EINVAL;
		bpt_partition_name(hdr->devices[dev].name, p[i].number, dflt, sizeof(dflt));
		if (!strcmp(name, dflt))
			snprintf(entry, sizeof(entry), "%" PRIu32 ":%" PRIu64 ":%" PRIu64,
				 p[i].number, p[i].start, p[i].sectors);
		else
			snprintf(entry, sizeof(entry), "%" PRIu32 ":%" PRIu64 ":%" PRIu64 ":%s",
				 p[i].number, p[i].start, p[i].sectors, name);
		if (used && used + 1 + strlen(entry) > PART_VALUE_MAX) {
			part_key(dev, k++, key, sizeof(key));
			if ((rc = bpt_header_set_meta(hdr, key, value)))
				return rc;
			used = 0;
		}
		used += (size_t)snprintf(value + used, sizeof(value) - used, "%s%s",
					 used ? " " : "", entry);
	}
	if (!n)
		return 0;
	part_key(dev, k, key, sizeof(key));
	return bpt_header_set_meta(hdr, key, value);
}

int bpt_partitions_set(struct bpt_header *hdr, unsigned dev,
		       const struct bpt_partition *p, unsigned n)
{
	uint32_t nmeta = hdr->nmeta;
	int rc;

	if (dev >= hdr->ndevices || dev >= BPT_MAX_DEVICES)
		return -EINVAL;
	rc = set_entries(hdr, dev, p, n);
	if (rc)
		hdr->nmeta = nmeta; /* all or nothing: drop the values added */
	return rc;
}

/* One entry "N:START:SECTORS[:NAME]" of `len` bytes at s into *p. */
static int parse_entry(const char *s, size_t len, const char *disk, struct bpt_partition *p)
{
	char buf[128], *end, *q;
	unsigned long long v[3];

	if (!len || len >= sizeof(buf))
		return -EBADMSG;
	memcpy(buf, s, len);
	buf[len] = 0;
	q = buf;
	for (int i = 0; i < 3; i++) {
		if (!isdigit((unsigned char)*q))
			return -EBADMSG;
		errno = 0;
		v[i] = strtoull(q, &end, 10);
		if (errno || (*end && *end != ':') || (i < 2 && *end != ':'))
			return -EBADMSG;
		q = *end ? end + 1 : end;
	}
	if (v[0] > UINT32_MAX || !v[2] || v[1] + v[2] < v[1])
		return -EBADMSG;
	memset(p, 0, sizeof(*p));
	p->number = (uint32_t)v[0];
	p->start = v[1];
	p->sectors = v[2];
	if (end[0] == ':') {
		if (!q[0] || strlen(q) >= sizeof(p->name))
			return -EBADMSG;
		strcpy(p->name, q);
	} else {
		bpt_partition_name(disk, p->number, p->name, sizeof(p->name));
	}
	return 0;
}

int bpt_partitions_get(const struct bpt_header *hdr, unsigned dev,
		       struct bpt_partition *p, unsigned max)
{
	unsigned n = 0;

	if (dev >= hdr->ndevices || dev >= BPT_MAX_DEVICES)
		return 0;
	for (unsigned k = 0;; k++) {
		char key[32];
		const char *v, *s;

		part_key(dev, k, key, sizeof(key));
		v = bpt_header_get_meta(hdr, key);
		if (!v)
			return k ? (int)n : 0;
		for (s = v; *s;) {
			size_t len = strcspn(s, " ");

			if (n == max)
				return -EBADMSG;
			if (parse_entry(s, len, hdr->devices[dev].name, &p[n]))
				return -EBADMSG;
			n++;
			s += len;
			if (*s == ' ' && !*++s)
				return -EBADMSG;
		}
		if (!n)
			return -EBADMSG;
	}
}
