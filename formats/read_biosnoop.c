/*
 * read_biosnoop.c — the output of bcc's biosnoop (tools/biosnoop.py and
 * libbpf-tools/biosnoop, "biosnoop_example.txt"): a header line, then one
 * line per completed I/O:
 *
 *   TIME(s)  COMM  PID  DISK  T  SECTOR  BYTES  [QUE(ms)]  LAT(ms)
 *
 *   TIME(s)  when the I/O completed, decimal seconds from the first event
 *   COMM     the process; may hold spaces, so the fields are taken from
 *            both ends of the line
 *   DISK     the disk's name: one device each
 *   T        R or W (bcc), or blkparse-style rwbs letters (libbpf-tools)
 *   SECTOR   512-byte sector on the disk; BYTES its length
 *   QUE(ms)  with -Q: time queued in the OS before issue, milliseconds
 *   LAT(ms)  issue to completion, milliseconds
 *
 * So complete = TIME, issue = TIME - LAT, queue = issue - QUE. The lines
 * before the header ("Tracing block I/O...") are skipped; -Q is read
 * from the header. Lines come in completion order: the reorder window
 * puts them in issue order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "foreign.h"

#define NF_MAX 64
/* Times on this reader's clock start here, so that issue = TIME - LAT
 * of the first I/O (TIME 0) stays positive. */
#define T_ORIGIN (1000000ull * 1000000000ull)

struct snoop {
	int header;  /* the header was seen */
	int que;     /* it has QUE(ms) */
};

static int detect(const char *path, const char *head, size_t len)
{
	char line[512];

	(void)path;
	for (unsigned i = 0; i < 4; i++) {
		if (ff_head_line(head, len, i, line, sizeof(line)) < 0)
			return 0;
		if (!strncmp(line, "TIME(s)", 7) && strstr(line, "COMM") && strstr(line, "LAT(ms)"))
			return 95;
	}
	return 0;
}

static int open_snoop(struct ff_ctx *cx, void **state)
{
	(void)cx;
	*state = calloc(1, sizeof(struct snoop));
	return *state ? 0 : -ENOMEM;
}

static int next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct snoop *s = state;
	struct ff_field f[NF_MAX];
	char *line;
	size_t len, n;
	int rc;

	while ((rc = ff_line(cx, &line, &len)) == 1) {
		const char *field = "line", *why = "not TIME COMM PID DISK T SECTOR BYTES [QUE] LAT";
		uint64_t t, pid, sector, bytes, que = 0, lat;
		size_t k;
		int d;

		if (!len)
			continue;
		if (!s->header) {
			if (!strncmp(line, "TIME(s)", 7)) {
				s->header = 1;
				s->que = strstr(line, "QUE(ms)") != NULL;
			}
			continue;
		}
		n = ff_split(line, len, ' ', f, NF_MAX);
		k = s->que ? 9 : 8;
		if (n < k || n == NF_MAX)
			goto bad;
		why = "not a number";
		if (ff_decimal_scaled(&f[n - 1], 1000000ull, &lat)) {
			field = "LAT(ms)";
			goto bad;
		}
		if (s->que && ff_decimal_scaled(&f[n - 2], 1000000ull, &que)) {
			field = "QUE(ms)";
			goto bad;
		}
		k = n - (s->que ? 2 : 1); /* BYTES is f[k - 1] */
		if (ff_u64(&f[k - 1], &bytes) || bytes > UINT32_MAX) {
			field = "BYTES";
			goto bad;
		}
		if (ff_u64(&f[k - 2], &sector)) {
			field = "SECTOR";
			goto bad;
		}
		if (ff_rwbs(&f[k - 3], bytes, &rec->op, &rec->flags)) {
			field = "T";
			why = "not R, W or rwbs letters";
			goto bad;
		}
		if (ff_u64(&f[k - 5], &pid) || pid > UINT32_MAX) {
			field = "PID";
			goto bad;
		}
		if (ff_decimal_scaled(&f[0], 1000000000ull, &t) || t > T_ORIGIN) {
			field = "TIME(s)";
			why = "not seconds";
			goto bad;
		}
		/* each bounded first: a sum near 2^64 would wrap */
		if (lat > T_ORIGIN || que > T_ORIGIN - lat) {
			field = lat > T_ORIGIN ? "LAT(ms)" : "QUE(ms)";
			why = "longer than the trace";
			goto bad;
		}
		/* COMM: from field 1 to field k - 6, spaces kept */
		const char *c0 = f[1].p, *c1 = f[k - 6].p + f[k - 6].len;

		if ((rc = ff_intern(cx, c0, (size_t)(c1 - c0), &rec->comm_id)))
			return rc;
		char name[64];
		size_t dl = f[k - 4].len < sizeof(name) ? f[k - 4].len : sizeof(name) - 1;

		memcpy(name, f[k - 4].p, dl);
		name[dl] = 0;
		if ((d = ff_device(cx, name, 0, 0)) < 0)
			return d;
		rec->dev = (uint32_t)d;
		rec->pid = (uint32_t)pid;
		rec->sector = sector;
		rec->bytes = (uint32_t)bytes;
		rec->complete_ns = T_ORIGIN + t;
		rec->issue_ns = rec->complete_ns - lat;
		rec->queue_ns = s->que ? rec->issue_ns - que : 0;
		rec->completion = BPT_COMPLETION_SEEN;
		return 1;
bad:
		if ((rc = ff_bad(cx, field, "%s", why)))
			return rc;
	}
	return rc;
}

static void close_snoop(void *state)
{
	free(state);
}

const struct ff_reader_ops ff_read_biosnoop = {
	.name = "biosnoop",
	.summary = "bcc/libbpf-tools biosnoop output (with or without -Q): s, ms, sectors",
	.detect = detect,
	.open = open_snoop,
	.next = next,
	.close = close_snoop,
};
