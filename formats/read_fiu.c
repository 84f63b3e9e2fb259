/*
 * read_fiu.c — the FIU SRCMap / I/O deduplication block traces (SNIA
 * IOTTA; Verma et al., "SRCMap", EuroSys '10; Koller and Rangaswami,
 * "I/O Deduplication", FAST '10: homes, mail, web-vm), whose README
 * defines each line as, separated by spaces:
 *
 *   ts pid process lba size op major minor md5
 *
 *   ts       ns (the machine's clock)
 *   pid      the submitting process; process its name, which may hold
 *            spaces (the fields are taken from both ends)
 *   lba      512-byte blocks
 *   size     512-byte blocks
 *   op       "W" or "R"
 *   major, minor  the device: one device each, named "MAJ,MIN"
 *   md5      content digest(s), ignored
 *
 * No completion time.
 */
#include <stdio.h>
#include <string.h>

#include "foreign.h"

#define NF_MAX 64

/* Fields of a line from both ends: f[0..n); the process name is
 * f[2] .. f[n-7]. 0 or -1 when there are fewer than 9. */
static int shape(size_t n)
{
	return n >= 9 ? 0 : -1;
}

static int op_of(const struct ff_field *f)
{
	if (f->len != 1)
		return -1;
	return (f->p[0] | 0x20) == 'r' ? BPT_OP_READ : (f->p[0] | 0x20) == 'w' ? BPT_OP_WRITE : -1;
}

static int detect(const char *path, const char *head, size_t len)
{
	char line[1024];
	struct ff_field f[NF_MAX];
	uint64_t v;
	size_t n;

	(void)path;
	if (ff_head_line(head, len, 0, line, sizeof(line)) < 0)
		return 0;
	n = ff_split(line, strlen(line), ' ', f, NF_MAX);
	if (shape(n) || ff_u64(&f[0], &v) || ff_u64(&f[1], &v) || ff_u64(&f[n - 6], &v) ||
	    ff_u64(&f[n - 5], &v) || op_of(&f[n - 4]) < 0 || ff_u64(&f[n - 3], &v) ||
	    ff_u64(&f[n - 2], &v) || f[n - 1].len < 32 || ff_hex(&(struct ff_field){ f[n - 1].p, 16 }, &v))
		return 0;
	return 80;
}

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct ff_field f[NF_MAX];
	char *line, name[48];
	size_t len, n;
	int rc;

	(void)state;
	while ((rc = ff_line(cx, &line, &len)) == 1) {
		const char *field = "line", *why = "not 'ts pid process lba size op major minor md5'";
		uint64_t ts, pid, lba, size, major, minor;
		int op, d;

		if (!len || line[0] == '#')
			continue;
		n = ff_split(line, len, ' ', f, NF_MAX);
		if (shape(n))
			goto bad;
		why = "not a number";
		if (ff_u64(&f[0], &ts)) {
			field = "ts";
			goto bad;
		}
		if (ff_u64(&f[1], &pid) || pid > UINT32_MAX) {
			field = "pid";
			goto bad;
		}
		if (ff_u64(&f[n - 6], &lba)) {
			field = "lba";
			goto bad;
		}
		if (ff_u64(&f[n - 5], &size) || size > UINT32_MAX / 512) {
			field = "size";
			why = "not a number of blocks below 4 GiB";
			goto bad;
		}
		if ((op = op_of(&f[n - 4])) < 0) {
			field = "op";
			why = "not W or R";
			goto bad;
		}
		if (ff_u64(&f[n - 3], &major) || major > UINT32_MAX) {
			field = "major";
			goto bad;
		}
		if (ff_u64(&f[n - 2], &minor) || minor > UINT32_MAX) {
			field = "minor";
			goto bad;
		}
		/* the name runs from field 2 to field n-7, spaces kept */
		const char *c0 = f[2].p, *c1 = f[n - 7].p + f[n - 7].len;

		if ((rc = ff_intern(cx, c0, (size_t)(c1 - c0), &rec->comm_id)))
			return rc;
		snprintf(name, sizeof(name), "%llu,%llu", (unsigned long long)major,
			 (unsigned long long)minor);
		if ((d = ff_device(cx, name, (uint32_t)major, (uint32_t)minor)) < 0)
			return d;
		rec->dev = (uint16_t)d;
		rec->op = (uint8_t)op;
		rec->pid = (uint32_t)pid;
		rec->sector = lba;
		rec->bytes = (uint32_t)(size * 512);
		rec->issue_ns = ts;
		return 1;
bad:
		if ((rc = ff_bad(cx, field, "%s", why)))
			return rc;
	}
	return rc;
}

const struct ff_reader_ops ff_read_fiu = {
	.name = "fiu",
	.summary = "FIU SRCMap/dedup traces: ns, pid, process, 512-byte lba and size, W/R, maj min",
	.detect = detect,
	.next = next,
};
