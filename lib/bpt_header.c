/*
 * bpt_header.c — the trace header: filling it (bpt_header_init, meta,
 * devices), naming ops and flags, and its byte layout (encode for the
 * writer, check + decode for the reader). Layout: schemas/trace-format.md,
 * "Header".
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bpt_internal.h"
#include "version.h"

static void copy_str(char *dst, size_t dstsz, const char *src)
{
	size_t n = strlen(src);

	if (n > dstsz - 1)
		n = dstsz - 1;

	memcpy(dst, src, n);
	dst[n] = 0;
}

void bpt_header_init(struct bpt_header *hdr, const char *kind)
{
	struct utsname u;
	struct timespec ts;

	memset(hdr, 0, sizeof(*hdr));
	hdr->version_major = BPT_FORMAT_MAJOR;
	hdr->version_minor = BPT_FORMAT_MINOR;
	copy_str(hdr->kind, sizeof(hdr->kind), kind ? kind : "");
	copy_str(hdr->tool_version, sizeof(hdr->tool_version), BLKPEAK_VERSION);
	if (uname(&u) == 0) {
		copy_str(hdr->host, sizeof(hdr->host), u.nodename);
		copy_str(hdr->kernel, sizeof(hdr->kernel), u.release);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	hdr->start_wall_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	hdr->start_mono_ns = (uint64_t)ts.tv_sec * 1000000000u +
			     (uint64_t)ts.tv_nsec;
}

int bpt_header_set_meta(struct bpt_header *hdr, const char *key,
			const char *value)
{
	size_t kl = strlen(key), vl = strlen(value);
	uint32_t i;

	if (!kl)
		return -EINVAL;
	if (kl >= sizeof(hdr->meta[0].key) || vl >= sizeof(hdr->meta[0].value))
		return -E2BIG;
	if (hdr->nmeta > BPT_MAX_META)
		return -EINVAL; /* not a header this library filled */
	for (i = 0; i < hdr->nmeta; i++)
		if (!strcmp(hdr->meta[i].key, key))
			break;
	if (i == hdr->nmeta) {
		if (hdr->nmeta >= BPT_MAX_META)
			return -E2BIG;
		hdr->nmeta++;
	}
	memcpy(hdr->meta[i].key, key, kl + 1);
	memcpy(hdr->meta[i].value, value, vl + 1);
	return 0;
}

const char *bpt_header_get_meta(const struct bpt_header *hdr, const char *key)
{
	for (uint32_t i = 0; i < hdr->nmeta && i < BPT_MAX_META; i++)
		if (!strcmp(hdr->meta[i].key, key))
			return hdr->meta[i].value;
	return NULL;
}

void bpt_header_free(struct bpt_header *hdr)
{
	if (!hdr)
		return;
	free(hdr->devices);
	hdr->devices = NULL;
	hdr->ndevices = hdr->devices_cap = 0;
}

int bpt_header_copy(struct bpt_header *dst, const struct bpt_header *src)
{
	*dst = *src;
	dst->devices = NULL;
	dst->devices_cap = 0;
	if (!src->ndevices)
		return 0;
	if (!(dst->devices = malloc(src->ndevices * sizeof(*dst->devices)))) {
		dst->ndevices = 0;
		return -ENOMEM;
	}
	memcpy(dst->devices, src->devices, src->ndevices * sizeof(*dst->devices));
	dst->devices_cap = src->ndevices;
	return 0;
}

int bpt_header_add_device(struct bpt_header *hdr, const struct bpt_device *dev)
{
	if (hdr->ndevices >= BPT_MAX_DEVICES)
		return -E2BIG;
	if (hdr->ndevices == hdr->devices_cap) {
		uint32_t cap = hdr->devices_cap ? hdr->devices_cap * 2 : 8;
		struct bpt_device *d;

		if (cap > BPT_MAX_DEVICES)
			cap = BPT_MAX_DEVICES;
		if (!(d = realloc(hdr->devices, cap * sizeof(*d))))
			return -ENOMEM;
		hdr->devices = d;
		hdr->devices_cap = cap;
	}
	hdr->devices[hdr->ndevices] = *dev;
	/* Guarantee termination whatever the caller left in the arrays. */
	hdr->devices[hdr->ndevices].name[sizeof(dev->name) - 1] = 0;
	hdr->devices[hdr->ndevices].model[sizeof(dev->model) - 1] = 0;
	return (int)hdr->ndevices++;
}

static const char *const op_names[BPT_OP__COUNT] = {
	[BPT_OP_READ] = "read",
	[BPT_OP_WRITE] = "write",
	[BPT_OP_FLUSH] = "flush",
	[BPT_OP_DISCARD] = "discard",
	[BPT_OP_WRITE_ZEROES] = "write-zeroes",
};

const char *bpt_op_name(unsigned op)
{
	return op < BPT_OP__COUNT ? op_names[op] : "?";
}

const char *bpt_completion_name(unsigned completion)
{
	static const char *const names[BPT_COMPLETION__COUNT] = {
		[BPT_COMPLETION_SEEN] = "seen",
		[BPT_COMPLETION_REUSED] = "reused",
		[BPT_COMPLETION_PENDING] = "pending",
	};

	return completion < BPT_COMPLETION__COUNT ? names[completion] : "?";
}

int bpt_op_parse(const char *name)
{
	for (int i = 0; i < BPT_OP__COUNT; i++)
		if (!strcmp(name, op_names[i]))
			return i;
	return -EINVAL;
}

char *bpt_flags_str(unsigned flags, char buf[8])
{
	static const char letters[] = "SFPMA"; /* bit order of enum bpt_flag */
	int n = 0;

	for (int i = 0; i < 5; i++)
		if (flags & (1u << i))
			buf[n++] = letters[i];
	buf[n] = 0;
	return buf;
}

/* A fixed-size char field is valid when NUL-terminated inside the array. */
/* The smallest device entry: two empty strings and the fixed fields. */
#define DEV_ENTRY_MIN (2 + 4 + 4 + 8 + 4 + 4 + 1 + 2)
#define FIELD_OK(f) (strnlen((f), sizeof(f)) < sizeof(f))

int bpt_header_encode(const struct bpt_header *hdr, struct bpt_buf *out,
		      const char *name, struct bpt_error *err)
{
	size_t start = out->len;

	if (!FIELD_OK(hdr->kind) || !FIELD_OK(hdr->tool_version) ||
	    !FIELD_OK(hdr->host) || !FIELD_OK(hdr->kernel))
		return bpt_err(err, -EINVAL, name, 0, 0, "header string not terminated");
	if (hdr->ndevices > BPT_MAX_DEVICES || hdr->nmeta > BPT_MAX_META)
		return bpt_err(err, -EINVAL, name, 0, 0,
			       "header: %u devices, %u meta entries: too many",
			       hdr->ndevices, hdr->nmeta);
	if (hdr->columns & ~(uint32_t)BPT_COL__KNOWN)
		return bpt_err(err, -EINVAL, name, 0, 0,
			       "header: unknown column bits 0x%x", hdr->columns);
	buf_put(out, BPT_MAGIC, BPT_MAGIC_LEN);
	buf_u16(out, BPT_FORMAT_MAJOR);
	buf_u16(out, BPT_FORMAT_MINOR);
	buf_u32(out, 0); /* header_size, patched below */
	buf_str16(out, hdr->kind, strlen(hdr->kind));
	buf_str16(out, hdr->tool_version, strlen(hdr->tool_version));
	buf_str16(out, hdr->host, strlen(hdr->host));
	buf_str16(out, hdr->kernel, strlen(hdr->kernel));
	buf_u64(out, (uint64_t)hdr->start_wall_ns);
	buf_u64(out, hdr->start_mono_ns);
	buf_u32(out, hdr->columns);
	if (hdr->ndevices > BPT_DEVICES_V12) {
		/* 1.3: 1.2 readers refuse the escape (more than their 64) */
		buf_u16(out, BPT_NDEV_EXT);
		buf_u32(out, hdr->ndevices);
	} else {
		buf_u16(out, (uint16_t)hdr->ndevices);
	}
	for (uint32_t i = 0; i < hdr->ndevices; i++) {
		const struct bpt_device *d = &hdr->devices[i];

		if (!FIELD_OK(d->name) || !FIELD_OK(d->model))
			return bpt_err(err, -EINVAL, name, 0, 0,
				       "header: device %u: name or model not terminated", i);
		buf_str16(out, d->name, strlen(d->name));
		buf_u32(out, d->major);
		buf_u32(out, d->minor);
		buf_u64(out, d->size_bytes);
		buf_u32(out, d->logical_block_size);
		buf_u32(out, d->physical_block_size);
		buf_u8(out, d->rotational);
		buf_str16(out, d->model, strlen(d->model));
	}
	buf_u16(out, (uint16_t)hdr->nmeta);
	for (uint32_t i = 0; i < hdr->nmeta; i++) {
		const struct bpt_meta *m = &hdr->meta[i];

		if (!FIELD_OK(m->key) || !FIELD_OK(m->value))
			return bpt_err(err, -EINVAL, name, 0, 0,
				       "header: meta %u not terminated", i);
		buf_str16(out, m->key, strlen(m->key));
		buf_str16(out, m->value, strlen(m->value));
	}
	if (out->oom)
		return bpt_err(err, -ENOMEM, name, 0, 0, "header: out of memory");
	size_t size = out->len - start + 8;

	put_le32(out->p + start + 12, (uint32_t)size);
	buf_u64(out, bpt_xxh64(out->p + start, size - 8, 0));
	if (out->oom)
		return bpt_err(err, -ENOMEM, name, 0, 0, "header: out of memory");
	return 0;
}

int bpt_header_check_fixed(const uint8_t *p, size_t avail, uint64_t file_size,
			   uint32_t *hdr_size, const char *name,
			   struct bpt_error *err)
{
	if (!avail)
		return bpt_err(err, -EBADMSG, name, 1, 0, "empty file, not a .bpt trace");
	if (avail < BPT_MAGIC_LEN || memcmp(p, BPT_MAGIC, BPT_MAGIC_LEN)) {
		if (avail < BPT_MAGIC_LEN &&
		    !memcmp(p, BPT_MAGIC, avail))
			return bpt_err(err, -EBADMSG, name, 1, avail,
				       "file ends inside the header (%zu bytes)", avail);
		return bpt_err(err, -EBADMSG, name, 1, 0, "not a .bpt trace (bad magic)");
	}
	if (avail < BPT_HDR_FIXED)
		return bpt_err(err, -EBADMSG, name, 1, avail,
			       "file ends inside the header (%zu bytes)", avail);
	uint16_t major = get_le16(p + 8), minor = get_le16(p + 10);

	if (major != BPT_FORMAT_MAJOR)
		return bpt_err(err, -EPROTONOSUPPORT, name, 1, 8,
			       "format version %u.%u, this reader knows %u.x",
			       major, minor, BPT_FORMAT_MAJOR);
	uint32_t size = get_le32(p + 12);

	if (size < BPT_HDR_FIXED + 8 || size > BPT_HDR_MAX)
		return bpt_err(err, -EBADMSG, name, 1, 12,
			       "header size %u out of range", size);
	if (size > file_size)
		return bpt_err(err, -EBADMSG, name, 1, file_size,
			       "file ends inside the header (%llu of %u bytes)",
			       (unsigned long long)file_size, size);
	*hdr_size = size;
	return 0;
}

int bpt_header_decode(const uint8_t *p, uint32_t hdr_size,
		      struct bpt_header *hdr, uint64_t *hdr_checksum,
		      const char *name, struct bpt_error *err)
{
	struct bpt_cur c = { .p = p, .len = hdr_size - 8, .pos = BPT_HDR_FIXED };
	uint64_t want = get_le64(p + hdr_size - 8);
	uint16_t ndev16, nmeta;
	uint32_t ndev;
	uint64_t wall;

	if (!BPT_CKSUM_OK(bpt_xxh64(p, hdr_size - 8, 0), want))
		return bpt_err(err, -EBADMSG, name, 1, hdr_size - 8,
			       "header checksum mismatch");
	memset(hdr, 0, sizeof(*hdr)); /* hdr holds no devices yet */
	hdr->version_major = get_le16(p + 8);
	hdr->version_minor = get_le16(p + 10);
	if (cur_str16(&c, hdr->kind, sizeof(hdr->kind)) ||
	    cur_str16(&c, hdr->tool_version, sizeof(hdr->tool_version)) ||
	    cur_str16(&c, hdr->host, sizeof(hdr->host)) ||
	    cur_str16(&c, hdr->kernel, sizeof(hdr->kernel)) ||
	    cur_u64(&c, &wall) || cur_u64(&c, &hdr->start_mono_ns) ||
	    cur_u32(&c, &hdr->columns) || cur_u16(&c, &ndev16))
		goto bad;
	ndev = ndev16;
	if (ndev16 == BPT_NDEV_EXT && hdr->version_minor >= 3) {
		if (cur_u32(&c, &ndev))
			goto bad;
		if (ndev <= BPT_DEVICES_V12)
			return bpt_err(err, -EBADMSG, name, 1, c.pos - 4,
				       "header: %u devices in the 1.3 table, which holds more than %d",
				       ndev, BPT_DEVICES_V12);
	}
	hdr->start_wall_ns = (int64_t)wall;
	/* Bits of columns a newer minor added: their data is skipped. */
	hdr->columns &= BPT_COL__KNOWN;
	if (ndev > BPT_MAX_DEVICES || (hdr->version_minor < 3 && ndev > BPT_DEVICES_V12))
		return bpt_err(err, -EBADMSG, name, 1, c.pos - 2,
			       "header: %u devices, at most %u", ndev,
			       hdr->version_minor < 3 ? BPT_DEVICES_V12 : BPT_MAX_DEVICES);
	/* Each entry takes at least DEV_ENTRY_MIN bytes: a count the header
	 * cannot hold is refused before anything is allocated. */
	if ((uint64_t)ndev * DEV_ENTRY_MIN > c.len - c.pos)
		return bpt_err(err, -EBADMSG, name, 1, c.pos,
			       "header: %u devices do not fit its %zu bytes left", ndev,
			       (size_t)(c.len - c.pos));
	/* zeroed: the names' tails and the padding are defined bytes for a
	 * caller that compares or hashes the entries */
	if (ndev && !(hdr->devices = calloc(ndev, sizeof(*hdr->devices))))
		return bpt_err(err, -ENOMEM, name, 0, 0, "header: out of memory");
	hdr->devices_cap = ndev;
	for (uint32_t i = 0; i < ndev; i++) {
		struct bpt_device *d = &hdr->devices[i];

		if (cur_str16(&c, d->name, sizeof(d->name)) ||
		    cur_u32(&c, &d->major) || cur_u32(&c, &d->minor) ||
		    cur_u64(&c, &d->size_bytes) ||
		    cur_u32(&c, &d->logical_block_size) ||
		    cur_u32(&c, &d->physical_block_size) ||
		    cur_u8(&c, &d->rotational) ||
		    cur_str16(&c, d->model, sizeof(d->model)))
			goto bad;
	}
	hdr->ndevices = ndev;
	if (cur_u16(&c, &nmeta))
		goto bad;
	if (nmeta > BPT_MAX_META)
		return bpt_err(err, -EBADMSG, name, 1, c.pos - 2,
			       "header: %u meta entries, at most %d", nmeta, BPT_MAX_META);
	for (uint16_t i = 0; i < nmeta; i++)
		if (cur_str16(&c, hdr->meta[i].key, sizeof(hdr->meta[i].key)) ||
		    cur_str16(&c, hdr->meta[i].value, sizeof(hdr->meta[i].value)))
			goto bad;
	hdr->nmeta = nmeta;
	/* Bytes left before the checksum belong to newer minors: skipped. */
	*hdr_checksum = want;
	return 0;
bad:
	bpt_header_free(hdr);
	return bpt_err(err, -EBADMSG, name, 1, c.pos,
		       "header: field malformed or too long");
}
