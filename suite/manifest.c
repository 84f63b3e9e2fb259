/*
 * manifest.c — parse a suite's manifest (manifest.h,
 * schemas/suite-manifest.md).
 *
 * One pass over the lines: a "[kind NAME]" header opens a section, a
 * "key = value" line sets one of its keys (each at most once), '#' or ';'
 * at the start of a line makes a comment. References between sections
 * (weights-from, a mix's recordings) may point forward and are checked
 * after the last line.
 */
#include "manifest.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cliutil.h"

#define MANIFEST_FILE_MAX (1u << 20)
#define MANIFEST_PATH_MAX 1024

struct parser {
	const char *file;
	unsigned line;
	char *err;
	size_t errlen;
	struct manifest *m;
	int in_suite;          /* the current section is [suite] */
	int seen_suite;
	unsigned seen;         /* keys set in the current section (bits of key_bit) */
};

static int fail(struct parser *p, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->err, p->errlen, "%s:%u: ", p->file, line);

	if (n < 0 || (size_t)n >= p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const char *manifest_timing_name(unsigned bit)
{
	switch (bit) {
	case MANIFEST_ORIGINAL: return "original";
	case MANIFEST_AFAP: return "afap";
	case MANIFEST_CAUSAL: return "causal";
	}
	return "?";
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > MANIFEST_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
			return 0;
	return 1;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* Split a comma-separated list in place: up to max items, each trimmed and
 * non-empty. Returns the count, or -1 (empty item), -2 (too many). */
static int split_list(char *s, char **items, int max)
{
	int n = 0;

	for (;;) {
		char *c = strchr(s, ',');

		if (c)
			*c = '\0';
		s = trim(s);
		if (!*s)
			return -1;
		if (n == max)
			return -2;
		items[n++] = s;
		if (!c)
			return n;
		s = c + 1;
	}
}

static int path_ok(const char *s, const char **why)
{
	size_t n = strlen(s);

	if (!n)
		return *why = "empty", 0;
	if (n > MANIFEST_PATH_MAX)
		return *why = "longer than 1024 bytes", 0;
	if (s[0] == '/')
		return *why = "absolute (a recording is named relative to the suite folder)", 0;
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return *why = "holds a control character", 0;
	for (const char *c = s; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL)
		if (c[0] == '.' && c[1] == '.' && (c[2] == '/' || !c[2]))
			return *why = "reaches outside the suite folder ('..')", 0;
	return 1;
}

static int set_str(struct parser *p, char **dst, const char *v)
{
	(void)p;
	*dst = strdup(v);
	return *dst ? 0 : -ENOMEM;
}

static int parse_timings(struct parser *p, char *v, unsigned *out)
{
	char *items[4];
	int n = split_list(v, items, 3);

	if (n < 0)
		return fail(p, p->line, "timing: %s", n == -1 ? "an empty mode in the list"
							 : "more than 3 modes");
	*out = 0;
	for (int i = 0; i < n; i++) {
		unsigned bit = !strcmp(items[i], "original") ? MANIFEST_ORIGINAL :
			       !strcmp(items[i], "afap") ? MANIFEST_AFAP :
			       !strcmp(items[i], "causal") ? MANIFEST_CAUSAL : 0;

		if (!bit)
			return fail(p, p->line, "timing: '%s': not original, afap or causal", items[i]);
		if (*out & bit)
			return fail(p, p->line, "timing: '%s' named twice", items[i]);
		*out |= bit;
	}
	return 0;
}

static int parse_count(struct parser *p, const char *key, const char *v, uint64_t lo,
		       uint64_t hi, uint64_t *out)
{
	if (parse_u64(v, out) || *out < lo || *out > hi)
		return fail(p, p->line, "%s: '%s': not a whole number from %llu to %llu", key, v,
			    (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

static int parse_depths(struct parser *p, char *v, struct manifest_entry *e)
{
	char *items[MANIFEST_DEPTHS_MAX + 1];
	int n = split_list(v, items, MANIFEST_DEPTHS_MAX);

	if (n < 0)
		return fail(p, p->line, "depths: %s", n == -1 ? "an empty depth in the list"
							: "more than 32 depths");
	for (int i = 0; i < n; i++) {
		uint64_t d;
		int rc = parse_count(p, "depths", items[i], 1, 65536, &d);

		if (rc)
			return rc;
		if (i && d <= e->depths[i - 1])
			return fail(p, p->line, "depths: %llu after %u: depths must increase",
				    (unsigned long long)d, e->depths[i - 1]);
		e->depths[i] = (unsigned)d;
	}
	e->ndepths = (unsigned)n;
	return 0;
}

/* DEPTH:WEIGHT,... ; the depths are checked against `depths` at the end.
 * *out: the list without blanks, as measure's --weights takes it (it
 * refuses ' 4:0.5'), with measure's bounds (a weight up to 1e12, each
 * depth once). */
static int check_weights(struct parser *p, const char *v, char **out)
{
	char *copy = strdup(v), *items[MANIFEST_DEPTHS_MAX + 1];
	uint64_t seen[MANIFEST_DEPTHS_MAX];
	size_t at = 0, cap = strlen(v) + 1;
	int n, rc = 0;
	double sum = 0;

	*out = malloc(cap);
	if (!copy || !*out) {
		free(copy);
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	n = split_list(copy, items, MANIFEST_DEPTHS_MAX);
	if (n < 0)
		rc = fail(p, p->line, "weights: %s", n == -1 ? "an empty item in the list"
							 : "more than 32 weights");
	for (int i = 0; !rc && i < n; i++) {
		char *colon = strchr(items[i], ':');
		uint64_t d;
		double w;

		if (!colon) {
			rc = fail(p, p->line, "weights: '%s': not DEPTH:WEIGHT", items[i]);
			break;
		}
		*colon = '\0';
		if ((rc = parse_count(p, "weights", trim(items[i]), 1, 65536, &d)))
			break;
		if (parse_double(trim(colon + 1), &w) || !isfinite(w) || w < 0 || w > 1e12) {
			rc = fail(p, p->line, "weights: '%s': not a weight (a number from 0 to 1e12)",
				  trim(colon + 1));
			break;
		}
		for (int j = 0; j < i; j++)
			if (seen[j] == d)
				rc = fail(p, p->line, "weights: depth %llu given twice",
					  (unsigned long long)d);
		seen[i] = d;
		sum += w;
		at += (size_t)snprintf(*out + at, cap - at, "%s%s:%s", i ? "," : "", trim(items[i]),
				       trim(colon + 1));
	}
	if (!rc && !(sum > 0))
		rc = fail(p, p->line, "weights: every weight is 0");
	free(copy);
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* NAME:DURATION,... : the names are the mix's members, checked at the end. */
static int parse_offsets(struct parser *p, char *v, struct manifest_entry *e,
			 char names[][MANIFEST_NAME_MAX + 1], unsigned *n)
{
	char *items[MANIFEST_MIX_MAX + 1];
	int k = split_list(v, items, MANIFEST_MIX_MAX);

	if (k < 0)
		return fail(p, p->line, "offsets: %s", k == -1 ? "an empty item in the list"
							: "more than 8 offsets");
	for (int i = 0; i < k; i++) {
		char *colon = strchr(items[i], ':');
		uint64_t ns;

		if (!colon)
			return fail(p, p->line, "offsets: '%s': not RECORDING:TIME (backup:2s)", items[i]);
		*colon = '\0';
		if (!name_ok(trim(items[i])))
			return fail(p, p->line, "offsets: '%s': not a recording's name", trim(items[i]));
		if (parse_duration_ns(trim(colon + 1), &ns) || ns > (uint64_t)86400 * 1000000000)
			return fail(p, p->line, "offsets: '%s': not a time up to 24h (2s, 500ms)",
				    trim(colon + 1));
		for (int j = 0; j < i; j++)
			if (!strcmp(names[j], trim(items[i])))
				return fail(p, p->line, "offsets: '%s' named twice", names[j]);
		snprintf(names[i], MANIFEST_NAME_MAX + 1, "%s", trim(items[i]));
		e->offset_ns[i] = ns;  /* moved to its member's place at the end */
	}
	*n = (unsigned)k;
	return 0;
}

/* The keys each section takes, as bits, for "set twice" and "missing". */
enum key_bit {
	K_NAME = 1 << 0, K_FILE = 1 << 1, K_TIMING = 1 << 2, K_REPEAT = 1 << 3,
	K_SPEED = 1 << 4, K_NOIDLE = 1 << 5, K_KIND = 1 << 6, K_PATTERN = 1 << 7,
	K_DEPTHS = 1 << 8, K_WEIGHTS = 1 << 9, K_WFROM = 1 << 10, K_IOS = 1 << 11,
	K_RECS = 1 << 12, K_OFFSETS = 1 << 13, K_TIME = 1 << 14,
};

static const struct {
	const char *key;
	unsigned bit;
	unsigned sections;  /* 1 << enum manifest_kind, 8: [suite] */
} keys[] = {
	{ "name", K_NAME, 8 },
	{ "file", K_FILE, 1 << MANIFEST_RECORDING },
	{ "timing", K_TIMING, 1 << MANIFEST_RECORDING | 1 << MANIFEST_MIX },
	{ "repeat", K_REPEAT, 7 },
	{ "speed", K_SPEED, 1 << MANIFEST_RECORDING | 1 << MANIFEST_MIX },
	{ "no-idle", K_NOIDLE, 1 << MANIFEST_RECORDING | 1 << MANIFEST_MIX },
	{ "kind", K_KIND, 1 << MANIFEST_MEASURE },
	{ "pattern", K_PATTERN, 1 << MANIFEST_MEASURE },
	{ "depths", K_DEPTHS, 1 << MANIFEST_MEASURE },
	{ "weights", K_WEIGHTS, 1 << MANIFEST_MEASURE },
	{ "weights-from", K_WFROM, 1 << MANIFEST_MEASURE },
	{ "ios", K_IOS, 1 << MANIFEST_MEASURE },
	{ "recordings", K_RECS, 1 << MANIFEST_MIX },
	{ "offsets", K_OFFSETS, 1 << MANIFEST_MIX },
	{ "time", K_TIME, 1 << MANIFEST_MIX },
};

static const char *const section_word[] = { "recording", "measure", "mix" };

/* Offsets as parsed, per mix, until the members are known. */
struct pending_offsets {
	char names[MANIFEST_MIX_MAX][MANIFEST_NAME_MAX + 1];
	unsigned n, line;
	unsigned time_line;     /* of time = */
};

static int set_key(struct parser *p, char *key, char *v, struct pending_offsets *po)
{
	struct manifest_entry *e = p->in_suite ? NULL : &p->m->e[p->m->n - 1];
	unsigned sect = p->in_suite ? 8 : 1u << e->kind, i;
	uint64_t u;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].key, key))
			break;
	if (i == sizeof(keys) / sizeof(keys[0]) || !(keys[i].sections & sect))
		return fail(p, p->line, "'%s': not a key of [%s]", key,
			    p->in_suite ? "suite" : section_word[e->kind]);
	if (p->seen & keys[i].bit)
		return fail(p, p->line, "'%s' set twice in one section", key);
	p->seen |= keys[i].bit;
	if (!*v)
		return fail(p, p->line, "'%s': no value", key);
	switch (keys[i].bit) {
	case K_NAME:
		if (!name_ok(v))
			return fail(p, p->line, "name: '%s': 1 to 63 of A-Z a-z 0-9 . _ -", v);
		return set_str(p, &p->m->name, v);
	case K_FILE: {
		const char *why;

		if (!path_ok(v, &why))
			return fail(p, p->line, "file: '%s': %s", v, why);
		return set_str(p, &e->file, v);
	}
	case K_TIMING:
		return parse_timings(p, v, &e->timings);
	case K_REPEAT:
		if (parse_count(p, "repeat", v, 1, MANIFEST_REPEAT_MAX, &u))
			return -EINVAL;
		e->repeat = (unsigned)u;
		return 0;
	case K_SPEED:
		if (parse_double(v, &e->speed) || !(e->speed > 0) || !(e->speed < 1e6))
			return fail(p, p->line, "speed: '%s': not a number above 0, below 1e6", v);
		return 0;
	case K_NOIDLE:
		if (!strcmp(v, "yes") || !strcmp(v, "true"))
			e->no_idle = 1;
		else if (!strcmp(v, "no") || !strcmp(v, "false"))
			e->no_idle = 0;
		else
			return fail(p, p->line, "no-idle: '%s': not yes or no", v);
		return 0;
	case K_KIND:
		if (strcmp(v, "qd-sweep"))
			return fail(p, p->line, "kind: '%s': a suite measures qd-sweep only", v);
		return 0;
	case K_PATTERN: {
		static const char *const pats[] = { "fileserver", "webserver", "workstation",
						    "database", "random", "sequential" };

		for (unsigned j = 0; j < 6; j++)
			if (!strcmp(v, pats[j]))
				return set_str(p, &e->pattern, v);
		return fail(p, p->line, "pattern: '%s': not fileserver, webserver, workstation,"
			    " database, random or sequential", v);
	}
	case K_DEPTHS:
		return parse_depths(p, v, e);
	case K_WEIGHTS:
		return check_weights(p, v, &e->weights);
	case K_WFROM:
		if (!name_ok(v))
			return fail(p, p->line, "weights-from: '%s': not a recording's name", v);
		e->ref_line = p->line;
		return set_str(p, &e->weights_from, v);
	case K_IOS:
		if (parse_count(p, "ios", v, 1, 100000000, &u))
			return -EINVAL;
		e->ios = u;
		return 0;
	case K_RECS: {
		char *items[MANIFEST_MIX_MAX + 1];
		int n = split_list(v, items, MANIFEST_MIX_MAX);

		if (n < 0)
			return fail(p, p->line, "recordings: %s", n == -1 ? "an empty name in the list"
								  : "more than 8 recordings");
		if (n < 2)
			return fail(p, p->line, "recordings: a mix needs two or more");
		for (int j = 0; j < n; j++) {
			if (!name_ok(items[j]))
				return fail(p, p->line, "recordings: '%s': not a recording's name", items[j]);
			for (int k = 0; k < j; k++)
				if (!strcmp(items[k], items[j]))
					return fail(p, p->line, "recordings: '%s' named twice", items[j]);
			if (set_str(p, &e->members[j], items[j]))
				return -ENOMEM;
			e->nmembers = (unsigned)j + 1;
		}
		e->ref_line = p->line;
		return 0;
	}
	case K_OFFSETS:
		po->line = p->line;
		return parse_offsets(p, v, e, po->names, &po->n);
	case K_TIME:
		if (!name_ok(v))
			return fail(p, p->line, "time: '%s': not a recording's name", v);
		po->time_line = p->line;
		return set_str(p, &e->time_of, v);
	}
	return fail(p, p->line, "'%s': not a key", key);
}

/* "[suite]" or "[KIND NAME]" (inner already without brackets). */
static int open_section(struct parser *p, char *inner)
{
	char *sp, *name;
	struct manifest_entry *e;
	int kind = -1;

	inner = trim(inner);
	p->seen = 0;
	if (!strcmp(inner, "suite")) {
		if (p->seen_suite)
			return fail(p, p->line, "[suite] twice");
		if (p->m->n)
			return fail(p, p->line, "[suite] must come before the workloads");
		p->in_suite = p->seen_suite = 1;
		return 0;
	}
	sp = strpbrk(inner, " \t");
	if (!sp)
		return fail(p, p->line, "[%s]: not [suite], [recording NAME], [measure NAME] or [mix NAME]",
			    inner);
	*sp = '\0';
	name = trim(sp + 1);
	for (int k = 0; k < 3; k++)
		if (!strcmp(inner, section_word[k]))
			kind = k;
	if (kind < 0)
		return fail(p, p->line, "[%s ...]: not a section (recording, measure or mix)", inner);
	if (!name_ok(name))
		return fail(p, p->line, "[%s %s]: a name is 1 to 63 of A-Z a-z 0-9 . _ -", inner, name);
	for (size_t i = 0; i < p->m->n; i++)
		if (!strcmp(p->m->e[i].name, name))
			return fail(p, p->line, "'%s': the name of the section on line %u too", name,
				    p->m->e[i].line);
	if (p->m->n == MANIFEST_SECTIONS_MAX)
		return fail(p, p->line, "more than %d sections", MANIFEST_SECTIONS_MAX);
	e = &p->m->e[p->m->n++];
	memset(e, 0, sizeof(*e));
	e->kind = (enum manifest_kind)kind;
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->line = p->line;
	e->repeat = kind == MANIFEST_MEASURE ? 1 : 3;
	e->timings = MANIFEST_CAUSAL;
	e->speed = 1;
	p->in_suite = 0;
	return 0;
}

const struct manifest_entry *manifest_find(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->e[i].kind == MANIFEST_RECORDING && !strcmp(m->e[i].name, name))
			return &m->e[i];
	return NULL;
}

/* What a section must hold, checked when it ends. */
static int close_section(struct parser *p, struct pending_offsets *po)
{
	struct manifest_entry *e;

	if (p->in_suite || !p->m->n)
		return 0;
	e = &p->m->e[p->m->n - 1];
	if (e->kind == MANIFEST_RECORDING && !e->file)
		return fail(p, e->line, "[recording %s]: no 'file ='", e->name);
	if (e->kind == MANIFEST_MEASURE) {
		if (!e->pattern)
			return fail(p, e->line, "[measure %s]: no 'pattern ='", e->name);
		if (e->weights && e->weights_from)
			return fail(p, e->ref_line, "[measure %s]: 'weights' and 'weights-from' both set",
				    e->name);
	}
	if (e->kind == MANIFEST_MIX) {
		uint64_t off[MANIFEST_MIX_MAX] = { 0 };

		if (!e->nmembers)
			return fail(p, e->line, "[mix %s]: no 'recordings ='", e->name);
		for (unsigned i = 0; i < po->n; i++) {
			unsigned j;

			for (j = 0; j < e->nmembers; j++)
				if (!strcmp(e->members[j], po->names[i]))
					break;
			if (j == e->nmembers)
				return fail(p, po->line, "offsets: '%s' is not one of the mix's recordings",
					    po->names[i]);
			off[j] = e->offset_ns[i];
		}
		memcpy(e->offset_ns, off, sizeof(off));
		for (unsigned j = 0; e->time_of && j <= e->nmembers; j++) {
			if (j == e->nmembers)
				return fail(p, po->time_line, "time: '%s' is not one of the mix's "
					    "recordings", e->time_of);
			if (!strcmp(e->members[j], e->time_of))
				break;
		}
	}
	memset(po, 0, sizeof(*po));
	return 0;
}

/* A sweep's items are "NAME.N", a replay's "NAME.TIMING.N" (the state's
 * keys and the result files' names): a sweep named after a replay and a
 * timing would share its items, and run only once for both. */
static int check_item_names(struct parser *p, const struct manifest_entry *e)
{
	const char *dot = strrchr(e->name, '.');

	if (e->kind != MANIFEST_MEASURE || !dot)
		return 0;
	for (unsigned b = MANIFEST_ORIGINAL; b <= MANIFEST_CAUSAL; b <<= 1) {
		if (strcmp(dot + 1, manifest_timing_name(b)))
			continue;
		for (size_t i = 0; i < p->m->n; i++) {
			const struct manifest_entry *o = &p->m->e[i];

			if (o->kind != MANIFEST_MEASURE && strlen(o->name) == (size_t)(dot - e->name) &&
			    !strncmp(o->name, e->name, (size_t)(dot - e->name)))
				return fail(p, e->line, "[measure %s]: its results would be named as those"
					    " of [%s %s] (line %u) in %s timing: rename one", e->name,
					    section_word[o->kind], o->name, o->line, dot + 1);
		}
	}
	return 0;
}

/* References to recordings, once every section is known. */
static int check_refs(struct parser *p)
{
	for (size_t i = 0; i < p->m->n; i++) {
		struct manifest_entry *e = &p->m->e[i];
		int rc = check_item_names(p, e);

		if (rc)
			return rc;

		if (e->weights_from && !manifest_find(p->m, e->weights_from))
			return fail(p, e->ref_line, "weights-from: '%s': no [recording %s] in the suite",
				    e->weights_from, e->weights_from);
		for (unsigned j = 0; j < e->nmembers; j++)
			if (!manifest_find(p->m, e->members[j]))
				return fail(p, e->ref_line, "recordings: '%s': no [recording %s] in the suite",
					    e->members[j], e->members[j]);
		if (e->weights && e->ndepths) {
			/* every weighted depth is one of the swept depths */
			const char *s = e->weights;

			while (s && *s) {
				unsigned long d = strtoul(s + strspn(s, " \t"), NULL, 10);
				unsigned k;

				for (k = 0; k < e->ndepths; k++)
					if (e->depths[k] == d)
						break;
				if (k == e->ndepths)
					return fail(p, e->line, "[measure %s]: weights: depth %lu is not in"
						    " 'depths'", e->name, d);
				s = strchr(s, ',');
				s = s ? s + 1 : NULL;
			}
		}
	}
	if (!p->m->n)
		return fail(p, p->line, "no workload: add a [recording NAME], [measure NAME] or [mix NAME]");
	return 0;
}

static int parse_line(struct parser *p, char *s, struct pending_offsets *po)
{
	char *eq;

	s = trim(s);
	if (!*s || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		size_t n = strlen(s);
		int rc;

		if (s[n - 1] != ']')
			return fail(p, p->line, "a section header must end with ']'");
		s[n - 1] = '\0';
		if ((rc = close_section(p, po)))
			return rc;
		return open_section(p, s + 1);
	}
	if (!p->in_suite && !p->m->n)
		return fail(p, p->line, "a key before the first section ([suite] or [recording NAME])");
	eq = strchr(s, '=');
	if (!eq)
		return fail(p, p->line, "not 'key = value', a [section] or a comment");
	*eq = '\0';
	return set_key(p, trim(s), trim(eq + 1), po);
}

int manifest_parse(const char *text, size_t len, const char *file, struct manifest **out,
		   char *err, size_t errlen)
{
	struct parser p = { .file = file, .err = err, .errlen = errlen };
	struct pending_offsets po;
	char line[MANIFEST_LINE_MAX + 1];
	size_t i = 0;
	int rc = 0;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	memset(&po, 0, sizeof(po));
	p.m = calloc(1, sizeof(*p.m));
	if (p.m)
		p.m->e = calloc(MANIFEST_SECTIONS_MAX, sizeof(*p.m->e));
	if (!p.m || !p.m->e) {
		manifest_free(p.m);
		snprintf(err, errlen, "%s: out of memory", file);
		return -ENOMEM;
	}
	while (!rc && i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len, n = end - i;

		p.line++;
		if (n && text[i + n - 1] == '\r')
			n--;
		if (n > MANIFEST_LINE_MAX)
			rc = fail(&p, p.line, "line longer than %d bytes", MANIFEST_LINE_MAX);
		else if (memchr(text + i, '\0', n))
			rc = fail(&p, p.line, "a NUL byte (not a text file)");
		else {
			memcpy(line, text + i, n);
			line[n] = '\0';
			rc = parse_line(&p, line, &po);
		}
		i = end + 1;
	}
	if (!rc)
		rc = close_section(&p, &po);
	if (!rc)
		rc = check_refs(&p);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "%s: out of memory", file);
		manifest_free(p.m);
		return rc;
	}
	*out = p.m;
	return 0;
}

int manifest_load(const char *path, struct manifest **out, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc;
	struct stat st;
	char *buf;
	ssize_t n;
	size_t got = 0;

	*out = NULL;
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "'%s': not a regular file", path);
		return -EINVAL;
	}
	if (st.st_size > MANIFEST_FILE_MAX) {
		close(fd);
		snprintf(err, errlen, "'%s': larger than 1 MiB: not a manifest", path);
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size && (n = read(fd, buf + got, st.st_size - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			snprintf(err, errlen, "cannot read '%s': %s", path, strerror(-rc));
			free(buf);
			close(fd);
			return rc;
		}
		got += (size_t)n;
	}
	close(fd);
	rc = manifest_parse(buf, got, path, out, err, errlen);
	free(buf);
	return rc;
}

void manifest_free(struct manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->e && i < m->n; i++) {
		struct manifest_entry *e = &m->e[i];

		free(e->file);
		free(e->time_of);
		free(e->pattern);
		free(e->weights);
		free(e->weights_from);
		for (unsigned j = 0; j < MANIFEST_MIX_MAX; j++)
			free(e->members[j]);
	}
	free(m->e);
	free(m->name);
	free(m);
}
