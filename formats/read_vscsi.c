/*
 * read_vscsi.c — VMware vscsiStats / CloudPhysics vSCSI traces (the
 * binary records of VMware's vscsiStats trace mode, as CloudPhysics
 * published them and libCacheSim's vscsi reader reads them:
 * github.com/1a1a11a/libCacheSim, traceReader/customizedReader/vscsi.h).
 * Fixed-size little-endian records, no file header:
 *
 *   version 1, 32 bytes          version 2, 40 bytes
 *    0 u32 sn   serial number     0 u16 cmd  SCSI operation code
 *    4 u32 len  bytes             2 u16 ver  0x02xx
 *    8 u32 nSG  s/g elements      4 u32 sn
 *   12 u16 cmd  SCSI opcode       8 u32 len  bytes
 *   14 u16 ver  0x01xx           12 u32 nSG
 *   16 u64 lbn  512-byte block   16 u64 lbn  512-byte block
 *   24 u64 ts   µs                24 u64 ts   µs
 *                                32 u64 rt   response time, µs
 *
 * The version is the upper byte of `ver`; it is checked in every record
 * (a record of another version is bad). ts is the issue time in µs on
 * the tracing host's clock (any origin); v2's rt gives the completion,
 * v1 has none. lbn counts the virtual disk's 512-byte logical blocks.
 *
 * cmd is a SCSI operation code (SBC-3): READ(6/10/12/16) 08 28 a8 88,
 * WRITE(6/10/12/16) 0a 2a aa 8a, WRITE AND VERIFY 2e ae 8e: writes;
 * SYNCHRONIZE CACHE(10/16) 35 91: flushes; UNMAP 42: discard; WRITE
 * SAME(10/16) 41 93: write-zeroes. Any other command (INQUIRY, TEST UNIT
 * READY, ...) moves no data of the disk: counted into the meta
 * (note.vscsi_other_commands), not an I/O. A cmd above 0xff is bad.
 *
 * One trace is one virtual disk: the device "vscsi". Nothing in a record
 * is a count or a length to allocate by; a file whose size is not a
 * whole number of records ends in a partial record, which is an error
 * naming its offset.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foreign.h"

#define V1_SIZE 32
#define V2_SIZE 40
#define BUF_RECORDS 4096

struct vs_state {
	unsigned ver;      /* 1 or 2 */
	size_t size;       /* bytes a record */
	int dev;           /* ff_device of "vscsi", -1 until the first I/O */
	uint64_t index;    /* records handed out (for messages) */
	uint64_t other;    /* non-I/O commands skipped */
	uint8_t *buf;
	size_t pos, end;
	int eof;
};

static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The version whose records head[0..len) starts with: the first records
 * (up to 4, at least 1 whole one) all carry it. 0 when neither. */
static unsigned version_of(const uint8_t *head, size_t len)
{
	for (unsigned v = 2; v >= 1; v--) {
		size_t size = v == 2 ? V2_SIZE : V1_SIZE, off = v == 2 ? 2 : 14, n = 0;

		for (size_t at = 0; at + size <= len && n < 4; at += size, n++)
			if (le16(head + at + off) >> 8 != v)
				break;
		if (n && (n == 4 || (len / size) == n))
			return v;
	}
	return 0;
}

static int detect(const char *path, const char *head, size_t len)
{
	(void)path;
	/* a binary version byte in every record: sure only with several */
	if (!head || len < V2_SIZE)
		return 0;
	unsigned v = version_of((const uint8_t *)head, len);

	if (!v)
		return 0;
	return len >= 4 * (v == 2 ? V2_SIZE : V1_SIZE) ? 70 : 30;
}

static int vs_open(struct ff_ctx *cx, void **state)
{
	struct vs_state *s = calloc(1, sizeof(*s));
	const char *head;
	size_t len;
	struct bpt_error e = { 0 };
	int rc;

	if (!s || !(s->buf = malloc(BUF_RECORDS * V2_SIZE))) {
		free(s);
		return ff_fail(cx, -ENOMEM, "out of memory");
	}
	*state = s;
	s->dev = -1;
	if ((rc = ff_input_peek(ff_ctx_input(cx), 4 * V2_SIZE, &head, &len, &e)))
		return ff_fail(cx, rc, "%s", e.msg);
	if (!(s->ver = version_of((const uint8_t *)head, len)))
		return ff_fail(cx, -EBADMSG, "not a vscsi trace: the first record's version byte is "
				"neither 1 (32-byte records) nor 2 (40-byte records)");
	s->size = s->ver == 2 ? V2_SIZE : V1_SIZE;
	return 0;
}

/* The next record's bytes, or NULL at the end (*rc 0) or on error (*rc < 0). */
static const uint8_t *record(struct vs_state *s, struct ff_ctx *cx, int *rc)
{
	*rc = 0;
	if (s->end - s->pos < s->size) {
		struct bpt_error e = { 0 };
		size_t keep = s->end - s->pos;
		ssize_t n;

		if (s->eof) {
			if (keep)
				*rc = ff_fail(cx, -EBADMSG, "record %llu at byte %llu: %zu bytes, a %zu-byte "
					      "record cut short (file truncated?)",
					      (unsigned long long)s->index + 1,
					      (unsigned long long)s->index * s->size, keep, s->size);
			return NULL;
		}
		memmove(s->buf, s->buf + s->pos, keep);
		s->pos = 0;
		s->end = keep;
		while (s->end < BUF_RECORDS * s->size) {
			n = ff_input_read(ff_ctx_input(cx), s->buf + s->end, BUF_RECORDS * s->size - s->end, &e);
			if (n < 0) {
				*rc = ff_fail(cx, (int)n, "%s", e.msg);
				return NULL;
			}
			if (!n) {
				s->eof = 1;
				break;
			}
			s->end += (size_t)n;
		}
		return record(s, cx, rc);
	}
	const uint8_t *p = s->buf + s->pos;

	s->pos += s->size;
	s->index++;
	return p;
}

/* The operation of SCSI opcode op, or -1 when it moves no data. */
static int op_of(unsigned op)
{
	switch (op) {
	case 0x08: case 0x28: case 0xa8: case 0x88:
		return BPT_OP_READ;
	case 0x0a: case 0x2a: case 0xaa: case 0x8a:
	case 0x2e: case 0xae: case 0x8e:
		return BPT_OP_WRITE;
	case 0x35: case 0x91:
		return BPT_OP_FLUSH;
	case 0x42:
		return BPT_OP_DISCARD;
	case 0x41: case 0x93:
		return BPT_OP_WRITE_ZEROES;
	default:
		return -1;
	}
}

static int vs_next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct vs_state *s = state;
	const uint8_t *p;
	int rc;

	while ((p = record(s, cx, &rc))) {
		unsigned ver, cmd;
		uint32_t len;
		uint64_t lbn, ts, rt = 0;
		int op;

		if (s->ver == 2) {
			cmd = le16(p);
			ver = le16(p + 2) >> 8;
			len = le32(p + 8);
			lbn = le64(p + 16);
			ts = le64(p + 24);
			rt = le64(p + 32);
		} else {
			len = le32(p + 4);
			cmd = le16(p + 12);
			ver = le16(p + 14) >> 8;
			lbn = le64(p + 16);
			ts = le64(p + 24);
		}
#define BAD(field, ...)                                                                        \
	do {                                                                                   \
		char at_[64];                                                                  \
		snprintf(at_, sizeof(at_), "record %llu at byte %llu",                          \
			 (unsigned long long)s->index, (unsigned long long)(s->index - 1) * s->size); \
		if ((rc = ff_bad(cx, field, "%s: " __VA_ARGS__)))                              \
			return rc;                                                             \
	} while (0)
		if (ver != s->ver) {
			BAD("ver", "version %u in a version %u trace", at_, ver, s->ver);
			continue;
		}
		if (cmd > 0xff) {
			BAD("cmd", "0x%x is no SCSI operation code", at_, cmd);
			continue;
		}
		if ((op = op_of(cmd)) < 0) {
			s->other++;
			continue;
		}
		if (op == BPT_OP_FLUSH)
			len = 0, lbn = 0;
		if (!BPT_SECTOR_END_OK(lbn, len)) {
			BAD("lbn", "block %llu + %u bytes is past 2^64 bytes", at_,
			    (unsigned long long)lbn, len);
			continue;
		}
		if (ts > UINT64_MAX / 1000 || rt > UINT64_MAX / 1000 - ts) {
			BAD(rt > UINT64_MAX / 1000 - ts ? "rt" : "ts", "%llu µs is out of range", at_,
			    (unsigned long long)(ts > UINT64_MAX / 1000 ? ts : rt));
			continue;
		}
#undef BAD
		if (s->dev < 0 && (s->dev = ff_device(cx, "vscsi", 0, 0)) < 0)
			return s->dev;
		rec->dev = (uint16_t)s->dev;
		rec->op = (uint8_t)op;
		rec->sector = lbn;
		rec->bytes = len;
		rec->issue_ns = ts * 1000;
		if (s->ver == 2) {
			rec->complete_ns = rec->issue_ns + rt * 1000;
			rec->completion = BPT_COMPLETION_SEEN;
		}
		return 1;
	}
	if (rc)
		return rc;
	return ff_note(cx, "vscsi_other_commands", s->other);
}

static void vs_close(void *state)
{
	struct vs_state *s = state;

	if (!s)
		return;
	free(s->buf);
	free(s);
}

const struct ff_reader_ops ff_read_vscsi = {
	.name = "vscsi",
	.summary = "VMware/CloudPhysics vSCSI binary (v1 32-byte, v2 40-byte): µs, 512-byte blocks, SCSI opcodes",
	.flags = FF_BINARY,
	.detect = detect,
	.open = vs_open,
	.next = vs_next,
	.close = vs_close,
};
