/*
 * xform_opts.c — the transform options as a user types them (xform.h):
 * one parser for `replay` and `convert`, every number through
 * common/cliutil.c (sizes, durations, counts; overflow refused), every
 * refusal naming the option and the reason. The text of the options is
 * kept for the metadata ("transform" key), in the order given.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cliutil.h"
#include "xform.h"

const char xform_usage[] =
"what-if transforms (blkpeak-replay(1): TRANSFORMS):\n"
"  --select RANGE|KIND:VALUE\n"
"                         keep a time range from the trace's first issue\n"
"                         (10s-70s, 500ms-, -2m), or the I/Os of dev:NAME,\n"
"                         pid:N, comm:GLOB, path:GLOB or op:read,write,...;\n"
"                         repeatable: kinds AND, values of one kind OR\n"
"  --loop N               play the trace N times, each pass a span later\n"
"  --loop-offset BYTES    ... and BYTES further on the disk per pass\n"
"  --spread FACTOR        multiply every offset by FACTOR (0.5 packs, 2\n"
"                         spreads), rounded down to the logical block size\n"
"  --shift BYTES          add BYTES to every offset\n"
"  --writes-as-reads      writes become reads of the same range (discards\n"
"                         and write-zeroes are left out)\n"
"  --reads-as-writes      reads become writes of the same range\n"
"  --ramp FROM:TO         speed factor rising linearly from FROM to TO\n"
"                         across the run (on top of the speed factor)\n"
"  --fill zero|random|PCT the data written: zeros, random, or PCT% of each\n"
"                         4 KiB zero and the rest random\n";

/* Append " key=value" to x->text; -E2BIG when it does not fit. */
static int note(struct xform *x, const char *key, const char *value, char *why, size_t len)
{
	size_t used = strlen(x->text);
	int n = snprintf(x->text + used, sizeof(x->text) - used, "%s%s%s%s", used ? " " : "",
			 key, value ? "=" : "", value ? value : "");

	if (n < 0 || (size_t)n >= sizeof(x->text) - used) {
		x->text[used] = 0;
		snprintf(why, len, "--%s: the transforms given are too long to record "
			 "(%zu bytes at most)", key, sizeof(x->text) - 1);
		return -E2BIG;
	}
	return 0;
}

static int bad(char *why, size_t len, int rc, const char *fmt, const char *opt, const char *arg,
	       const char *reason)
{
	snprintf(why, len, fmt, opt, arg, reason);
	return rc;
}

/* "10s-70s", "10s-", "-70s": [from, to) in ns. */
static int parse_range(const char *s, uint64_t *from, uint64_t *to)
{
	const char *dash = strchr(s, '-');
	char a[64];
	size_t n;
	int rc;

	if (!dash || strchr(dash + 1, '-'))
		return -EINVAL;
	n = (size_t)(dash - s);
	if (n >= sizeof(a))
		return -EINVAL;
	memcpy(a, s, n);
	a[n] = 0;
	*from = 0;
	*to = UINT64_MAX;
	if (n && (rc = parse_duration_ns(a, from)))
		return rc;
	if (dash[1] && (rc = parse_duration_ns(dash + 1, to)))
		return rc;
	if (!n && !dash[1])
		return -EINVAL;
	return *from < *to ? 0 : -EDOM;
}

static int parse_ops(const char *s, uint32_t *mask)
{
	char buf[128], *save = NULL;

	if (strlen(s) >= sizeof(buf) || !*s)
		return -EINVAL;
	strcpy(buf, s);
	for (char *t = strtok_r(buf, ",|", &save); t; t = strtok_r(NULL, ",|", &save)) {
		int op = bpt_op_parse(t);

		if (op < 0)
			return -EINVAL;
		*mask |= 1u << op;
	}
	return *mask ? 0 : -EINVAL;
}

static int add_ptr(const char **v, unsigned *n, const char *s)
{
	if (*n >= XF_MAX_SEL)
		return -E2BIG;
	v[(*n)++] = s;
	return 0;
}

static int select_opt(struct xform *x, const char *arg, char *why, size_t len)
{
	static const char fmt[] = "--select: '%.64s': %s";
	const char *colon = strchr(arg, ':');
	const char *v = colon ? colon + 1 : arg;
	uint64_t n;
	int rc;

	if (!colon || !strncmp(arg, "time:", 5)) {
		uint64_t from, to;

		if (x->has_time) {
			snprintf(why, len, "--select: one time range at most ('%.64s' is a second)", arg);
			return -EINVAL;
		}
		rc = parse_range(v, &from, &to);
		if (rc == -EDOM)
			return bad(why, len, -EINVAL, "%s: '%.64s': %s", "--select", arg,
				   "the range ends before it starts");
		if (rc)
			return bad(why, len, rc == -ERANGE ? -ERANGE : -EINVAL, "%s: '%.64s': %s",
				   "--select", arg, "not a time range (10s-70s, 500ms-, -2m) "
				   "nor KIND:VALUE (dev:, pid:, comm:, path:, op:)");
		x->has_time = 1;
		x->t_from_ns = from;
		x->t_to_ns = to;
		return 0;
	}
	if (!*v) {
		snprintf(why, len, fmt, arg, "no value after the ':'");
		return -EINVAL;
	}
	if (!strncmp(arg, "dev:", 4))
		rc = add_ptr(x->dev, &x->ndev, v);
	else if (!strncmp(arg, "comm:", 5))
		rc = add_ptr(x->comm, &x->ncomm, v);
	else if (!strncmp(arg, "path:", 5))
		rc = add_ptr(x->path, &x->npath, v);
	else if (!strncmp(arg, "op:", 3)) {
		if (parse_ops(v, &x->op_mask)) {
			snprintf(why, len, fmt, arg, "not a list of operations (read, write, flush, "
				 "discard, write-zeroes)");
			return -EINVAL;
		}
		return 0;
	} else if (!strncmp(arg, "pid:", 4)) {
		if ((rc = parse_u64(v, &n)) || n > UINT32_MAX || !n) {
			snprintf(why, len, fmt, arg, "not a process id from 1 to 4294967295");
			return rc == -ERANGE ? -ERANGE : -EINVAL;
		}
		if (x->npid >= XF_MAX_SEL)
			rc = -E2BIG;
		else
			x->pid[x->npid++] = (uint32_t)n;
	} else {
		snprintf(why, len, fmt, arg, "unknown kind (dev:, pid:, comm:, path:, op:, or a "
			 "time range)");
		return -EINVAL;
	}
	if (rc == -E2BIG) {
		snprintf(why, len, "--select: '%.64s': more than %d values of one kind", arg,
			 XF_MAX_SEL);
		return -EINVAL;
	}
	return 0;
}

/* A factor from above 0 to XF_MAX_SPREAD. */
static int factor(const char *s, double *v)
{
	int rc = parse_double(s, v);

	if (rc)
		return rc;
	return *v > 0 && *v <= XF_MAX_SPREAD ? 0 : -ERANGE;
}

static int bytes_opt(const char *opt, const char *arg, uint64_t *out, char *why, size_t len)
{
	char buf[96];
	int rc = parse_size(arg, out);

	if (rc)
		return bad(why, len, rc, "%s: '%.64s': %s", opt, arg, parse_size_why(arg, buf,
										   sizeof(buf)));
	if (*out >= XF_MAX_OFFSET)
		return bad(why, len, -ERANGE, "%s: '%.64s': %s", opt, arg,
			   "too large (2^62 bytes at most)");
	return 0;
}

int xform_fill_parse(struct xform *x, const char *s)
{
	uint64_t pct;

	if (!strcmp(s, "zero")) {
		x->fill = XF_FILL_ZERO;
	} else if (!strcmp(s, "random")) {
		x->fill = XF_FILL_RANDOM;
	} else {
		size_t n = strlen(s);
		char buf[8];

		if (n && n < sizeof(buf) && s[n - 1] == '%') { /* "70%" */
			memcpy(buf, s, n - 1);
			buf[n - 1] = 0;
			s = buf;
		}
		if (parse_u64(s, &pct) || pct > 100 || strchr(s, 'x') || strchr(s, 'X'))
			return -EINVAL;
		x->fill = XF_FILL_PCT;
		x->fill_pct = (unsigned)pct;
	}
	return 0;
}

int xform_option(struct xform *x, int opt, const char *arg, char *why, size_t len)
{
	uint64_t n;
	int rc = 0;

	switch (opt) {
	case XF_OPT_SELECT:
		rc = select_opt(x, arg, why, len);
		return rc ? rc : note(x, "select", arg, why, len);
	case XF_OPT_LOOP:
		if ((rc = parse_u64(arg, &n)) || !n || n > XF_MAX_LOOPS)
			return bad(why, len, rc == -ERANGE ? -ERANGE : -EINVAL, "%s: '%.64s': %s",
				   "--loop", arg, "not a count of passes from 1 to 1000000");
		if (x->loops)
			return bad(why, len, -EINVAL, "%s: '%.64s': %s", "--loop", arg,
				   "given twice");
		x->loops = (unsigned)n;
		return note(x, "loop", arg, why, len);
	case XF_OPT_LOOP_OFFSET:
		if ((rc = bytes_opt("--loop-offset", arg, &x->loop_offset, why, len)))
			return rc;
		return note(x, "loop-offset", arg, why, len);
	case XF_OPT_SPREAD:
		if ((rc = factor(arg, &x->spread)))
			return bad(why, len, rc, "%s: '%.64s': %s", "--spread", arg,
				   "not a factor above 0 and up to 1000000");
		return note(x, "spread", arg, why, len);
	case XF_OPT_SHIFT:
		if ((rc = bytes_opt("--shift", arg, &x->shift, why, len)))
			return rc;
		return note(x, "shift", arg, why, len);
	case XF_OPT_W2R:
		x->ops |= XF_WRITES_AS_READS;
		return note(x, "writes-as-reads", NULL, why, len);
	case XF_OPT_R2W:
		x->ops |= XF_READS_AS_WRITES;
		return note(x, "reads-as-writes", NULL, why, len);
	case XF_OPT_RAMP: {
		const char *colon = strchr(arg, ':');
		char a[64];

		if (!colon || (size_t)(colon - arg) >= sizeof(a))
			return bad(why, len, -EINVAL, "%s: '%.64s': %s", "--ramp", arg,
				   "not FROM:TO (two speed factors, 1:4)");
		memcpy(a, arg, (size_t)(colon - arg));
		a[colon - arg] = 0;
		if ((rc = factor(a, &x->ramp_from)) || (rc = factor(colon + 1, &x->ramp_to))) {
			x->ramp_from = x->ramp_to = 0;
			return bad(why, len, rc, "%s: '%.64s': %s", "--ramp", arg,
				   "each factor must be above 0 and up to 1000000");
		}
		return note(x, "ramp", arg, why, len);
	}
	case XF_OPT_FILL:
		if (xform_fill_parse(x, arg))
			return bad(why, len, -EINVAL, "%s: '%.64s': %s", "--fill", arg,
				   "not zero, random or a compressible share from 0 to 100");
		return note(x, "fill", arg, why, len);
	}
	snprintf(why, len, "option %d: not a transform", opt);
	return -EINVAL;
}

int xform_cli_option(struct xform *x, const char *cmd, int opt, const char *arg)
{
	char why[256];

	if (!xform_option(x, opt, arg, why, sizeof(why)))
		return 0;
	pr_err("%s: %s", cmd, why);
	return EXIT_USAGE;
}

int xform_cli_check(const struct xform *x, const char *cmd)
{
	char why[256];

	if (!xform_check(x, why, sizeof(why)))
		return 0;
	pr_err("%s: %s", cmd, why);
	return EXIT_USAGE;
}

int xform_check(const struct xform *x, char *why, size_t len)
{
	if (x->loop_offset && x->loops < 2) {
		snprintf(why, len, "--loop-offset: needs --loop N with N of 2 or more");
		return -EINVAL;
	}
	return 0;
}
