/*
 * read_iotracer.c — the block-device CSV of cacheMon's io-tracer (the
 * eBPF tracer github.com/cacheMon/io-tracer: `ds/ds_*.csv[.gz]`), as its
 * docs/TRACE_FORMAT.md ("Block Device Traces") and
 * docs/traces/BLOCK_IO_EVENTS.md define it. Two layouts, told apart by
 * the number of fields (an optional header line is skipped):
 *
 *   11 fields: timestamp,pid,command,sector,operation,size,latency_ms,
 *              tid,nr_sectors,cpu_id,ppid
 *   13 fields: Timestamp,PID,Command,Sector,Operation,Size,Latency,TID,
 *              CPU ID,PPID,Device,Queue Latency,Command Flags
 *
 *   timestamp  when the tracer's user space received the completion:
 *              local time "YYYY-MM-DD HH:MM:SS[.ffffff]" (Python's
 *              str(datetime), no zone): read as if it were UTC, so times
 *              are exact relative to each other and the trace carries no
 *              wall-clock start
 *   sector     first 512-byte sector;  size: bytes
 *   operation  read, write, flush, discard, secure_erase (a discard),
 *              none (no data: not an I/O, counted into the meta
 *              note.iotracer_none), or the kernel's rwbs letters
 *   latency    ms, a decimal (Python float: "1.234", "5e-05"), issue to
 *              completion: issue = timestamp - latency, completion =
 *              timestamp
 *   Device     "MAJ:MIN", one device each, named "MAJ,MIN"; the 11-field
 *              layout has none: one device "iotracer"
 *   Queue Latency  ms from insert to issue (empty when unknown): queue =
 *              issue - it
 *   Command Flags  REQ_SYNC|REQ_META|REQ_FUA|REQ_PREFLUSH|REQ_RAHEAD...
 *   pid (TGID) and command (at most 63 bytes: the kernel's task names
 *              are 15, UTF-8 replacement may triple them) are kept; tid,
 *              cpu_id, ppid, nr_sectors not.
 *
 * A command name holding a comma (quoted by the CSV writer) makes a line
 * of another field count: bad.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "foreign.h"

enum { F_TS, F_PID, F_COMM, F_SECTOR, F_OP, F_SIZE, F_LAT };
enum { V1_N = 11, V2_N = 13, V2_DEV = 10, V2_QLAT = 11, V2_FLAGS = 12 };

#define DEV_CACHE 8

struct it_state {
	uint64_t none;
	int plain_dev; /* ff_device of "iotracer", -1 until first needed */
	/* the MAJ:MIN fields seen last and their devices (a trace of a few
	 * disks pays no formatting per record) */
	struct {
		char text[24];
		uint8_t len;
		int idx;
	} dev[DEV_CACHE];
	unsigned ndev, dev_next;
	/* the last Command Flags field and its flags */
	char last_req[64];
	size_t last_req_len;
	uint8_t last_req_flags;
	/* the last command and its id */
	char last_comm[64];
	size_t last_comm_len;
	uint32_t last_comm_id;
	int have_comm;
	/* the last minute ("YYYY-MM-DD HH:MM") and its ns at :00 */
	uint64_t last_min[2];
	uint64_t min_ns;
	int have_min;
};

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + (int64_t)doe - 719468;
}

static int digits(const char *p, size_t n, unsigned *v)
{
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		*v = *v * 10 + (unsigned)(p[i] - '0');
	}
	return 0;
}

/* "YYYY-MM-DD HH:MM:SS[.f...]" as ns since 1970 (as UTC); 0 or -1. */
static int parse_time(struct it_state *s, const struct ff_field *f, uint64_t *ns)
{
	const char *p = f->p;
	unsigned y, mo, d, h, mi, sec;

	if (f->len < 19 || p[16] != ':')
		return -1;
	uint64_t min[2];

	memcpy(min, p, 16); /* two loads, not a memcmp call per line */
	if (!s->have_min || min[0] != s->last_min[0] || min[1] != s->last_min[1]) {
		if (p[4] != '-' || p[7] != '-' || p[10] != ' ' || p[13] != ':' ||
		    digits(p, 4, &y) || digits(p + 5, 2, &mo) || digits(p + 8, 2, &d) || y < 1970 ||
		    mo < 1 || mo > 12 || d < 1 || d > 31 || digits(p + 11, 2, &h) ||
		    digits(p + 14, 2, &mi) || h > 23 || mi > 59)
			return -1;
		s->min_ns = ((uint64_t)days_from_civil(y, mo, d) * 86400ull + h * 3600ull + mi * 60ull) *
			    1000000000ull;
		memcpy(s->last_min, min, 16);
		s->have_min = 1;
	}
	if (digits(p + 17, 2, &sec) || sec > 60)
		return -1;
	uint64_t frac = 0;

	if (f->len > 19) {
		struct ff_field fr = { p + 19, f->len - 19 };

		/* ".123456": ff_decimal_scaled of "0.123456" */
		if (p[19] != '.' || f->len == 20 || ff_decimal_scaled(&fr, 1000000000ull, &frac))
			return -1;
	}
	*ns = s->min_ns + (uint64_t)sec * 1000000000ull + frac;
	return 0;
}

/* Milliseconds as Python writes a float ("1.5", "0.0", "5e-05") to ns. */
static int parse_ms(const struct ff_field *f, uint64_t *ns)
{
	char buf[48], *end;
	double v;

	if (!ff_decimal_scaled(f, 1000000ull, ns))
		return 0;
	if (!f->len || f->len >= sizeof(buf))
		return -1;
	memcpy(buf, f->p, f->len);
	buf[f->len] = 0;
	v = strtod(buf, &end);
	if (*end || !isfinite(v) || v < 0 || v > 1e12)
		return -1;
	*ns = (uint64_t)llround(v * 1e6);
	return 0;
}

static int is_header(const struct ff_field *f)
{
	return ff_field_is(&f[F_TS], "timestamp");
}

static int detect(const char *path, const char *head, size_t len)
{
	char line[1024];
	struct ff_field f[V2_N + 1];
	struct it_state s = { 0 };
	uint64_t v;
	int n;
	size_t k;

	(void)path;
	if ((n = ff_head_line(head, len, 0, line, sizeof(line))) < 0)
		return 0;
	k = ff_split(line, (size_t)n, ',', f, V2_N + 1);
	if (k != V1_N && k != V2_N)
		return 0;
	if (is_header(f))
		return ff_field_is(&f[F_SECTOR], "sector") && ff_field_is(&f[F_OP], "operation") ? 90 : 0;
	if (parse_time(&s, &f[F_TS], &v) || ff_u64(&f[F_PID], &v) || ff_u64(&f[F_SECTOR], &v) ||
	    ff_u64(&f[F_SIZE], &v) || parse_ms(&f[F_LAT], &v))
		return 0;
	return 80;
}

static int it_open(struct ff_ctx *cx, void **state)
{
	struct it_state *s = calloc(1, sizeof(*s));

	if (!s)
		return ff_fail(cx, -ENOMEM, "out of memory");
	s->plain_dev = -1;
	*state = s;
	return 0;
}

/* The operation: io-tracer's words, else rwbs letters. 0, 1 (not an
 * I/O: "none"), or -1. */
static int op_of(const struct ff_field *f, uint64_t bytes, uint8_t *op, uint8_t *flags)
{
#define IS(word) (f->len == sizeof(word) - 1 && !memcmp(f->p, word, sizeof(word) - 1))
	if (IS("read"))
		*op = BPT_OP_READ;
	else if (IS("write"))
		*op = BPT_OP_WRITE;
	else if (IS("flush"))
		*op = BPT_OP_FLUSH;
	else if (IS("discard") || IS("secure_erase"))
		*op = BPT_OP_DISCARD;
	else if (IS("write_zeroes"))
		*op = BPT_OP_WRITE_ZEROES;
	else if (IS("none"))
		return 1;
	else
		return ff_rwbs(f, bytes, op, flags) ? -1 : 0;
	return 0;
#undef IS
}

/* "REQ_SYNC|REQ_FUA|..." to bpt flags; unknown names are kept out. */
static uint8_t req_flags(const struct ff_field *f)
{
#define N(s, fl) { s, sizeof(s) - 1, fl }
	static const struct {
		const char *name;
		size_t len;
		uint8_t flag;
	} names[] = {
		N("REQ_SYNC", BPT_F_SYNC),         N("REQ_FUA", BPT_F_FUA),
		N("REQ_PREFLUSH", BPT_F_PREFLUSH), N("REQ_META", BPT_F_META),
		N("REQ_RAHEAD", BPT_F_READAHEAD),
	};
#undef N
	uint8_t out = 0;
	const char *p = f->p, *end = f->p + f->len;

	while (p < end) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		size_t n = (size_t)((bar ? bar : end) - p);

		if (n > 4 && !memcmp(p, "REQ_", 4))
			for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				if (n == names[i].len && !memcmp(p, names[i].name, n))
					out |= names[i].flag;
		p += n + 1;
	}
	return out;
}

static int device(struct it_state *s, struct ff_ctx *cx, const struct ff_field *f)
{
	char name[24];
	unsigned maj, min;
	const char *colon;

	for (unsigned i = 0; i < s->ndev; i++)
		if (s->dev[i].len == f->len && !memcmp(s->dev[i].text, f->p, f->len))
			return s->dev[i].idx;
	colon = memchr(f->p, ':', f->len);
	if (!colon || colon == f->p || f->len >= sizeof(name) ||
	    digits(f->p, (size_t)(colon - f->p), &maj) || colon + 1 == f->p + f->len ||
	    digits(colon + 1, (size_t)(f->p + f->len - colon - 1), &min) || maj > 4095 ||
	    min > 1048575) {
		int rc = ff_bad(cx, "Device", "not MAJ:MIN");

		return rc ? rc : -EAGAIN;
	}
	snprintf(name, sizeof(name), "%u,%u", maj, min);
	int d = ff_device(cx, name, maj, min);

	if (d >= 0) {
		unsigned i = s->ndev < DEV_CACHE ? s->ndev++ : s->dev_next++ % DEV_CACHE;

		memcpy(s->dev[i].text, f->p, f->len);
		s->dev[i].len = (uint8_t)f->len;
		s->dev[i].idx = d;
	}
	return d;
}

static int it_next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	struct it_state *s = state;
	struct ff_field f[V2_N + 1];
	char *line;
	size_t len, n;
	int rc;

	while ((rc = ff_line(cx, &line, &len)) == 1) {
		uint64_t ts, pid, sector, size, lat, qlat = 0;
		uint8_t op = 0, flags = 0;
		int d, r;

		if (!len)
			continue;
		n = ff_split(line, len, ',', f, V2_N + 1);
		if (n != V1_N && n != V2_N) {
			if ((rc = ff_bad(cx, "line", "not the 11 or 13 fields of io-tracer's block CSV")))
				return rc;
			continue;
		}
		if (is_header(f))
			continue;
#define BAD(field, why)                                  \
	{                                                \
		if ((rc = ff_bad(cx, field, "%s", why))) \
			return rc;                       \
		continue;                                \
	}
		if (parse_time(s, &f[F_TS], &ts))
			BAD("timestamp", "not YYYY-MM-DD HH:MM:SS.ffffff");
		if (ff_u64(&f[F_PID], &pid) || pid > UINT32_MAX)
			BAD("pid", "not a process id");
		if (f[F_COMM].len >= sizeof(s->last_comm))
			BAD("command", "longer than 63 bytes (the kernel's task names are 15)");
		if (ff_u64(&f[F_SECTOR], &sector))
			BAD("sector", "not a sector number");
		if (ff_u64(&f[F_SIZE], &size) || size > UINT32_MAX || !BPT_SECTOR_END_OK(sector, size))
			BAD("size", "not a number of bytes below 4 GiB ending before 2^64");
		if (parse_ms(&f[F_LAT], &lat) || lat > ts)
			BAD("latency_ms", "not milliseconds before the timestamp");
		if ((r = op_of(&f[F_OP], size, &op, &flags)) < 0)
			BAD("operation", "not read, write, flush, discard, secure_erase, none or rwbs letters");
		if (n == V2_N) {
			if (f[V2_QLAT].len && (parse_ms(&f[V2_QLAT], &qlat) || qlat >= ts - lat))
				BAD("Queue Latency", "not milliseconds before the issue");
			const struct ff_field *rf = &f[V2_FLAGS];

			if (rf->len != s->last_req_len || memcmp(rf->p, s->last_req, rf->len)) {
				s->last_req_flags = req_flags(rf);
				/* a field too long to keep is parsed every time */
				s->last_req_len = rf->len < sizeof(s->last_req) ? rf->len : SIZE_MAX;
				if (rf->len < sizeof(s->last_req))
					memcpy(s->last_req, rf->p, rf->len);
			}
			flags |= s->last_req_flags;
		}
#undef BAD
		if (r == 1) {
			s->none++;
			continue;
		}
		if (n == V2_N) {
			if ((d = device(s, cx, &f[V2_DEV])) == -EAGAIN)
				continue;
		} else {
			if (s->plain_dev < 0)
				s->plain_dev = ff_device(cx, "iotracer", 0, 0);
			d = s->plain_dev;
		}
		if (d < 0)
			return d;
		if (!s->have_comm || f[F_COMM].len != s->last_comm_len ||
		    memcmp(f[F_COMM].p, s->last_comm, f[F_COMM].len)) {
			if ((rc = ff_intern(cx, f[F_COMM].p, f[F_COMM].len, &s->last_comm_id)))
				return rc;
			memcpy(s->last_comm, f[F_COMM].p, f[F_COMM].len);
			s->last_comm_len = f[F_COMM].len;
			s->have_comm = 1;
		}
		rec->comm_id = s->last_comm_id;
		rec->dev = (uint16_t)d;
		rec->op = op;
		rec->flags = flags;
		rec->pid = (uint32_t)pid;
		rec->sector = op == BPT_OP_FLUSH && !size ? 0 : sector;
		rec->bytes = (uint32_t)size;
		rec->complete_ns = ts;
		rec->issue_ns = ts - lat;
		rec->completion = BPT_COMPLETION_SEEN;
		rec->queue_ns = qlat ? rec->issue_ns - qlat : 0;
		return 1;
	}
	if (rc)
		return rc;
	return ff_note(cx, "iotracer_none", s->none);
}

static void it_close(void *state)
{
	free(state);
}

const struct ff_reader_ops ff_read_iotracer = {
	.name = "iotracer",
	.summary = "cacheMon io-tracer block CSV (ds_*.csv): local date, sector, bytes, latency ms",
	.detect = detect,
	.open = it_open,
	.next = it_next,
	.close = it_close,
};
