/*
 * read_csv.c — blkpeak's own CSV table, as the csv-zst writer writes it
 * (write_csvzst.c; schemas/foreign-formats.md, "Writers"), compressed or
 * not, so that what blkpeak wrote converts back:
 *
 *   queue_ns,issue_ns,complete_ns,dev,sector,bytes,op,flags,pid,comm,
 *   cgroup,error,completion
 *
 * Times in ns (a queue time equal to the issue time is "none"), sectors
 * of 512 bytes, bytes; op read, write, flush, discard, write-zeroes;
 * flags the letters S F P M A or "-"; completion seen, pending or reused
 * (a pending or reused I/O keeps its complete_ns, the bound the capture
 * knew). dev and comm may be quoted (RFC 4180, "" for a quote); a name
 * the writer escaped (it held control bytes) comes back escaped. The
 * header line is required (it is how the format is found) and skipped.
 * What the table does not hold: the device table's details (major,
 * minor, sizes, models), the trace's meta and the optional replay
 * columns other than completion.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foreign.h"

#define HEADER "queue_ns,issue_ns,complete_ns,dev,sector,bytes,op,flags,pid,comm,cgroup,error,completion"

enum { F_Q, F_I, F_C, F_DEV, F_SECTOR, F_BYTES, F_OP, F_FLAGS, F_PID, F_COMM, F_CGROUP, F_ERR,
       F_COMPL, F_N };

#define DEV_CACHE 8

struct csv_state {
	/* the dev names seen last and their indexes (a trace of a few
	 * devices in turn pays no lookup per line) */
	struct {
		char name[64];
		size_t len;
		int idx;
	} dev[DEV_CACHE];
	unsigned ndev, dev_next;
	char last_comm[64];
	size_t last_comm_len;
	uint32_t last_comm_id;
	int have_comm;
	char buf[2][4096]; /* the unquoted dev and comm */
};

static int detect(const char *path, const char *head, size_t len)
{
	(void)path;
	return len >= sizeof(HEADER) - 1 && !memcmp(head, HEADER, sizeof(HEADER) - 1) &&
			       (len == sizeof(HEADER) - 1 || head[sizeof(HEADER) - 1] == '\n' ||
				head[sizeof(HEADER) - 1] == '\r')
		       ? 95
		       : 0;
}

/*
 * Split line into f[0..F_N) at commas outside quotes; a quoted field is
 * unquoted into buf (at most 2 of them: dev, comm). Returns the count
 * (more than F_N: F_N + 1), or -1 for a quote that does not close.
 */
static int split(char *line, size_t len, struct ff_field *f, char (*buf)[4096])
{
	size_t i = 0, n = 0, nb = 0;

	for (;;) {
		if (n == F_N)
			return F_N + 1;
		if (i < len && line[i] == '"') {
			char *out = nb < 2 ? buf[nb++] : NULL;
			size_t o = 0;

			if (!out)
				return -1;
			for (i++;; i++) {
				if (i >= len)
					return -1;
				if (line[i] == '"') {
					if (i + 1 < len && line[i + 1] == '"')
						i++;
					else
						break;
				}
				if (o == 4095)
					return -1;
				out[o++] = line[i];
			}
			i++; /* past the closing quote */
			f[n++] = (struct ff_field){ out, o };
			if (i < len && line[i] != ',')
				return -1;
		} else {
			char *c = memchr(line + i, ',', len - i);
			size_t e = c ? (size_t)(c - line) : len;

			f[n++] = (struct ff_field){ line + i, e - i };
			i = e;
		}
		if (i >= len)
			return (int)n;
		i++; /* the comma */
	}
}

/* The index of f among words[0..nw), or -1. By length first: a field
 * holding a NUL is no word, and no byte past a word's end is read. */
static int word(const struct ff_field *f, const char *const *words, const uint8_t *lens, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		if (lens[i] == f->len && f->len && words[i][0] == f->p[0] &&
		    !memcmp(f->p, words[i], f->len))
			return (int)i;
	return -1;
}

static int csv_open(struct ff_ctx *cx, void **state)
{
	struct csv_state *s = calloc(1, sizeof(*s));

	if (!s)
		return ff_fail(cx, -ENOMEM, "out of memory");
	*state = s;
	return 0;
}

static int csv_next(void *state, struct ff_ctx *cx, struct bpt_record *rec)
{
	static const char *const ops[] = { [BPT_OP_READ] = "read", [BPT_OP_WRITE] = "write",
					   [BPT_OP_FLUSH] = "flush", [BPT_OP_DISCARD] = "discard",
					   [BPT_OP_WRITE_ZEROES] = "write-zeroes" };
	static const uint8_t op_lens[] = { [BPT_OP_READ] = 4, [BPT_OP_WRITE] = 5,
					   [BPT_OP_FLUSH] = 5, [BPT_OP_DISCARD] = 7,
					   [BPT_OP_WRITE_ZEROES] = 12 };
	static const char *const compl[] = { [BPT_COMPLETION_SEEN] = "seen",
					     [BPT_COMPLETION_REUSED] = "reused",
					     [BPT_COMPLETION_PENDING] = "pending" };
	static const uint8_t compl_lens[] = { [BPT_COMPLETION_SEEN] = 4,
					      [BPT_COMPLETION_REUSED] = 6,
					      [BPT_COMPLETION_PENDING] = 7 };
	_Static_assert(sizeof(ops) / sizeof(ops[0]) == BPT_OP__COUNT &&
		       sizeof(op_lens) == BPT_OP__COUNT &&
		       sizeof(compl) / sizeof(compl[0]) == BPT_COMPLETION__COUNT &&
		       sizeof(compl_lens) == BPT_COMPLETION__COUNT, "a word for every value");
	struct csv_state *s = state;
	struct ff_field f[F_N + 1];
	char *line;
	size_t len;
	int rc;

	while ((rc = ff_line(cx, &line, &len)) == 1) {
		uint64_t q, iss, c, sector, bytes, pid, cg, err;
		uint8_t flags = 0;
		int n, op, cp;

		if (!len)
			continue;
		if (ff_line_no(cx) == 1 && len == sizeof(HEADER) - 1 && !memcmp(line, HEADER, len))
			continue;
		/* most lines quote nothing: the shared splitter */
		n = memchr(line, '"', len) ? split(line, len, f, s->buf)
					   : (int)ff_split(line, len, ',', f, F_N + 1);
#define BAD(field, why)                                  \
	{                                                \
		if ((rc = ff_bad(cx, field, "%s", why))) \
			return rc;                       \
		continue;                                \
	}
		if (n != F_N)
			BAD("line", n < 0 ? "a quoted field that does not close, or over 4095 bytes"
					  : "not the 13 columns " HEADER);
		if (ff_u64(&f[F_Q], &q))
			BAD("queue_ns", "not a number");
		if (ff_u64(&f[F_I], &iss) || q > iss)
			BAD("issue_ns", "not a number from queue_ns on");
		if (ff_u64(&f[F_C], &c) || c == UINT64_MAX)
			BAD("complete_ns", "not a number");
		if (!f[F_DEV].len || f[F_DEV].len >= sizeof(s->dev[0].name))
			BAD("dev", "empty or longer than 63 bytes");
		if (ff_u64(&f[F_SECTOR], &sector))
			BAD("sector", "not a number");
		if (ff_u64(&f[F_BYTES], &bytes) || bytes > UINT32_MAX || !BPT_SECTOR_END_OK(sector, bytes))
			BAD("bytes", "not a number below 4 GiB ending before 2^64");
		if ((op = word(&f[F_OP], ops, op_lens, BPT_OP__COUNT)) < 0)
			BAD("op", "not read, write, flush, discard or write-zeroes");
		if (!(f[F_FLAGS].len == 1 && f[F_FLAGS].p[0] == '-')) {
			size_t k;

			for (k = 0; k < f[F_FLAGS].len; k++) {
				const char *at = memchr("SFPMA", f[F_FLAGS].p[k], 5);

				if (!at)
					break;
				flags |= (uint8_t)(1u << (at - "SFPMA"));
			}
			if (k < f[F_FLAGS].len || !k)
				BAD("flags", "not '-' or the letters SFPMA");
		}
		if (ff_u64(&f[F_PID], &pid) || pid > UINT32_MAX)
			BAD("pid", "not a process id");
		if (f[F_COMM].len >= sizeof(s->last_comm))
			BAD("comm", "longer than 63 bytes");
		if (ff_u64(&f[F_CGROUP], &cg))
			BAD("cgroup", "not a number");
		if (!f[F_ERR].len || (f[F_ERR].p[0] == '-' ? (f[F_ERR].len < 2 ||
			ff_u64(&(struct ff_field){ f[F_ERR].p + 1, f[F_ERR].len - 1 }, &err) || err > 4095)
			: (ff_u64(&f[F_ERR], &err) || err)))
			BAD("error", "not 0 or a negative errno");
		if ((cp = word(&f[F_COMPL], compl, compl_lens, BPT_COMPLETION__COUNT)) < 0)
			BAD("completion", "not seen, pending or reused");
		if (c < iss)
			BAD("complete_ns", "before issue_ns");
#undef BAD
		int di = -1;

		for (unsigned k = 0; k < s->ndev && di < 0; k++)
			if (s->dev[k].len == f[F_DEV].len && !memcmp(s->dev[k].name, f[F_DEV].p, f[F_DEV].len))
				di = s->dev[k].idx;
		if (di < 0) {
			unsigned k = s->ndev < DEV_CACHE ? s->ndev++ : s->dev_next++ % DEV_CACHE;

			memcpy(s->dev[k].name, f[F_DEV].p, f[F_DEV].len);
			s->dev[k].name[f[F_DEV].len] = 0;
			if ((rc = ff_device(cx, s->dev[k].name, 0, 0)) < 0) {
				s->dev[k].len = SIZE_MAX; /* matches no field */
				return rc;
			}
			s->dev[k].len = f[F_DEV].len;
			di = s->dev[k].idx = rc;
		}
		if (!s->have_comm || s->last_comm_len != f[F_COMM].len ||
		    memcmp(s->last_comm, f[F_COMM].p, f[F_COMM].len)) {
			if ((rc = ff_intern(cx, f[F_COMM].p, f[F_COMM].len, &s->last_comm_id)))
				return rc;
			memcpy(s->last_comm, f[F_COMM].p, f[F_COMM].len);
			s->last_comm_len = f[F_COMM].len;
			s->have_comm = 1;
		}
		rec->dev = (uint32_t)di;
		rec->comm_id = s->last_comm_id;
		/* +1 ns: a queue time of 0 is a real one here, and 0 means none */
		rec->queue_ns = q == iss ? 0 : q + 1;
		rec->issue_ns = iss + 1;
		rec->complete_ns = c + 1;
		rec->completion = (uint8_t)cp;
		rec->sector = sector;
		rec->bytes = (uint32_t)bytes;
		rec->op = (uint8_t)op;
		rec->flags = flags;
		rec->pid = (uint32_t)pid;
		rec->cgroup_id = cg;
		rec->error = f[F_ERR].p[0] == '-' ? -(int32_t)err : 0;
		return 1;
	}
	return rc;
}

static void csv_close(void *state)
{
	free(state);
}

const struct ff_reader_ops ff_read_csv = {
	.name = "csv",
	.summary = "blkpeak's CSV table (the csv-zst writer's, compressed or not): ns, sectors, names",
	.detect = detect,
	.open = csv_open,
	.next = csv_next,
	.close = csv_close,
};
