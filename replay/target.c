/* target.c — parsing target specs (see target.h for the grammar). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliutil.h"
#include "target.h"
#include "array/wcache.h"

void target_spec_free(struct target_spec *spec)
{
	for (unsigned i = 0; i < spec->nmembers; i++) {
		free(spec->members[i]);
		free(spec->model[i]);
	}
	memset(spec, 0, sizeof(*spec));
}

static const struct {
	const char *name;
	enum layout_kind kind;
	int needs_chunk;
	unsigned min_members;
} kinds[] = {
	{ "raid0", LAYOUT_RAID0, 1, 1 },
	{ "raid1", LAYOUT_RAID1, 0, 2 },
	{ "raid10", LAYOUT_RAID10, 1, 2 },
	{ "linear", LAYOUT_LINEAR, 0, 2 },
	{ "raid5", LAYOUT_RAID5, 1, 3 },
	{ "raid6", LAYOUT_RAID6, 1, 4 },
};
typedef __typeof__(kinds[0]) kind_info;

/* 1 when `p` starts with a layout's word and ':' (or "hdd:"). */
static int starts_with_layout(const char *p)
{
	static const char *const words[] = { "raid0:", "raid1:", "raid10:", "linear:",
					     "raid5:", "raid6:", "hdd:" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strncmp(p, words[i], strlen(words[i])))
			return 1;
	return 0;
}

/* "hdd:MODEL:PATH..." at p: parse MODEL into *model (allocated) and
 * return where PATH starts, or NULL with the reason in why. */
static const char *parse_hdd_prefix(const char *p, struct disk_params **model, struct bpt_error *error)
{
	const char *mend = strchr(p + 4, ':');
	struct bpt_error inner;
	char text[512];

	if (!mend || mend == p + 4) {
		bpt_error_set(error, -EINVAL, "'%s': expected hdd:MODEL:PATH (MODEL: a preset such as "
				   "7200, or key=value items)", p);
		return NULL;
	}
	if ((size_t)(mend - p - 4) >= sizeof(text)) {
		bpt_error_set(error, -EINVAL, "'%.40s...': disk model too long", p);
		return NULL;
	}
	memcpy(text, p + 4, (size_t)(mend - p - 4));
	text[mend - p - 4] = 0;
	*model = malloc(sizeof(**model));
	if (!*model) {
		bpt_error_set(error, -ENOMEM, "out of memory");
		return NULL;
	}
	if (disk_params_parse(text, *model, &inner)) {
		bpt_error_set(error, -EINVAL, "hdd:%s: %s", text, inner.msg);
		free(*model);
		*model = NULL;
		return NULL;
	}
	if (starts_with_layout(mend + 1)) {
		bpt_error_set(error, -EINVAL, "'%s': hdd: emulates one disk (a device or file); to emulate "
				   "an array's disks put hdd: on each member: "
				   "raid0:chunk=64k:hdd:7200:A,hdd:7200:B", p);
		free(*model);
		*model = NULL;
		return NULL;
	}
	return mend + 1;
}

/* Split "A,B,C" into spec->members (each may be hdd:MODEL:PATH, whose
 * MODEL may hold commas); -EINVAL on an empty member. */
static int split_members(const char *list, struct target_spec *spec,
			 struct bpt_error *error)
{
	const char *p = list;

	for (;;) {
		struct disk_params *model = NULL;
		const char *comma;
		size_t n;

		if (!strncmp(p, "hdd:", 4)) {
			p = parse_hdd_prefix(p, &model, error);
			if (!p)
				return -EINVAL;
		}
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		if (!n) {
			bpt_error_set(error, -EINVAL, "'%s': empty member path", list);
			free(model);
			return -EINVAL;
		}
		if (spec->nmembers == LAYOUT_MAX_MEMBERS) {
			bpt_error_set(error, -EINVAL, "'%s': more than %d members", list,
				 LAYOUT_MAX_MEMBERS);
			free(model);
			return -EINVAL;
		}
		spec->members[spec->nmembers] = strndup(p, n);
		if (!spec->members[spec->nmembers]) {
			free(model);
			return -ENOMEM;
		}
		spec->model[spec->nmembers] = model;
		spec->nmembers++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* The value of "key=VALUE:" at *p into buf; *p moves past the ':'. */
static int option_value(const char *text, const char *kind, const char *key, const char **p,
			char *buf, size_t size, struct bpt_error *error)
{
	const char *v = *p + strlen(key), *end = strchr(v, ':');

	if (!end || (size_t)(end - v) >= size || end == v) {
		bpt_error_set(error, -EINVAL, "'%s': expected %s:%s%s:A,B", text, kind, key,
			 !strcmp(key, "chunk=") ? "SIZE" : "VALUE");
		return -EINVAL;
	}
	memcpy(buf, v, (size_t)(end - v));
	buf[end - v] = 0;
	*p = end + 1;
	return 0;
}

/* missing=N[,M]: member indexes from 0, at most `most` of them. */
static int parse_missing(const char *text, const char *list, unsigned most,
			 uint32_t *mask, struct bpt_error *error)
{
	const char *p = list;

	*mask = 0;
	for (;;) {
		char *end;
		unsigned long m = strtoul(p, &end, 10);

		if (end == p || !isdigit((unsigned char)*p) || m >= LAYOUT_MAX_MEMBERS ||
		    (*end && *end != ',')) {
			bpt_error_set(error, -EINVAL, "'%s': missing='%s': expected member "
					   "indexes from 0, separated by ','", text, list);
			return -EINVAL;
		}
		if (*mask & (1u << m)) {
			bpt_error_set(error, -EINVAL, "'%s': missing=%s: member %lu given twice",
				      text, list, m);
			return -EINVAL;
		}
		*mask |= 1u << m;
		if (!*end)
			break;
		p = end + 1;
	}
	if ((unsigned)__builtin_popcount(*mask) > most) {
		bpt_error_set(error, -EINVAL, "'%s': missing=%s: at most %u missing member%s",
			 text, list, most, most > 1 ? "s" : "");
		return -EINVAL;
	}
	return 0;
}

/* cache=SIZE: the controller's write-back cache, WCACHE_MIN..WCACHE_MAX,
 * a multiple of 4 KiB. */
static int parse_cache(const char *text, const char *val, uint64_t *size, struct bpt_error *error)
{
	char why[80];

	if (parse_size(val, size) < 0) {
		bpt_error_set(error, -EINVAL, "'%s': cache '%s': %s", text, val,
			      parse_size_why(val, why, sizeof(why)));
		return -EINVAL;
	}
	if (*size < WCACHE_MIN || *size > WCACHE_MAX || *size % WCACHE_PAGE) {
		bpt_error_set(error, -EINVAL, "'%s': cache '%s': the controller's cache takes 1m to "
				   "16g, a multiple of 4k", text, val);
		return -EINVAL;
	}
	return 0;
}

/* destage=PCT[%]: partial rows are destaged while more than PCT % of
 * the cache is dirty (0 to 100). */
static int parse_destage(const char *text, const char *val, unsigned *pct, struct bpt_error *error)
{
	char *end;
	unsigned long v = strtoul(val, &end, 10);

	if (end == val || !isdigit((unsigned char)*val) || (*end && strcmp(end, "%")) || v > 100) {
		bpt_error_set(error, -EINVAL, "'%s': destage='%s': expected a percentage of the "
				   "cache from 0 to 100 (destage=50%%)", text, val);
		return -EINVAL;
	}
	*pct = (unsigned)v;
	return 0;
}

/* The "key=value:" items after the layout's word: chunk= (raid0, raid10,
 * raid5, raid6), layout= and missing= (raid5, raid6). */
static int parse_options(const char *text, const kind_info *k, const char **rest,
			 struct target_spec *spec, struct bpt_error *error)
{
	int is_raid = k->kind == LAYOUT_RAID5 || k->kind == LAYOUT_RAID6;
	int have_chunk = 0, have_layout = 0, have_missing = 0, have_destage = 0, rc;
	char val[64];

	spec->algo = RAID_LEFT_SYMMETRIC;
	spec->destage_pct = WCACHE_DESTAGE_DEFAULT;
	for (;;) {
		const char *p = *rest;

		if (!strncmp(p, "chunk=", 6)) {
			if (!k->needs_chunk) {
				bpt_error_set(error, -EINVAL, "'%s': %s takes no chunk size", text,
					 k->name);
				return -EINVAL;
			}
			if ((rc = option_value(text, k->name, "chunk=", rest, val, sizeof(val), error)))
				return rc;
			if (have_chunk) {
				bpt_error_set(error, -EINVAL, "'%s': chunk= given twice", text);
				return -EINVAL;
			}
			if (parse_size(val, &spec->chunk) < 0) {
				char why[80];

				bpt_error_set(error, -EINVAL, "'%s': chunk '%s': %s", text, val,
					      parse_size_why(val, why, sizeof(why)));
				return -EINVAL;
			}
			if (!spec->chunk || spec->chunk % 512) {
				bpt_error_set(error, -EINVAL, "'%s': chunk '%s' is not a multiple of 512 bytes",
					 text, val);
				return -EINVAL;
			}
			if (is_raid && (spec->chunk < 4096 || (spec->chunk & (spec->chunk - 1)))) {
				bpt_error_set(error, -EINVAL, "'%s': chunk '%s': %s needs a power of two "
						   "of at least 4k, as md does", text, val, k->name);
				return -EINVAL;
			}
			have_chunk = 1;
		} else if (is_raid && !strncmp(p, "layout=", 7)) {
			if (have_layout++) {
				bpt_error_set(error, -EINVAL, "'%s': layout= given twice", text);
				return -EINVAL;
			}
			if ((rc = option_value(text, k->name, "layout=", rest, val, sizeof(val), error)))
				return rc;
			if (raid_algo_parse(val, &spec->algo)) {
				bpt_error_set(error, -EINVAL, "'%s': unknown layout '%s' (left-symmetric, "
						   "left-asymmetric, right-symmetric, right-asymmetric, "
						   "parity-first, parity-last)", text, val);
				return -EINVAL;
			}
		} else if (is_raid && !strncmp(p, "missing=", 8)) {
			if (have_missing++) {
				bpt_error_set(error, -EINVAL, "'%s': missing= given twice", text);
				return -EINVAL;
			}
			if ((rc = option_value(text, k->name, "missing=", rest, val, sizeof(val), error)))
				return rc;
			if ((rc = parse_missing(text, val, k->kind == LAYOUT_RAID6 ? 2 : 1,
						&spec->missing, error)))
				return rc;
		} else if (!strncmp(p, "cache=", 6)) {
			if (spec->cache) {
				bpt_error_set(error, -EINVAL, "'%s': cache= given twice", text);
				return -EINVAL;
			}
			if ((rc = option_value(text, k->name, "cache=", rest, val, sizeof(val), error)) ||
			    (rc = parse_cache(text, val, &spec->cache, error)))
				return rc;
		} else if (!strncmp(p, "destage=", 8)) {
			if (have_destage++) {
				bpt_error_set(error, -EINVAL, "'%s': destage= given twice", text);
				return -EINVAL;
			}
			if ((rc = option_value(text, k->name, "destage=", rest, val, sizeof(val), error)) ||
			    (rc = parse_destage(text, val, &spec->destage_pct, error)))
				return rc;
		} else {
			break;
		}
	}
	if (have_destage && !spec->cache) {
		bpt_error_set(error, -EINVAL, "'%s': destage= without cache=SIZE (the controller's "
				   "cache it is about)", text);
		return -EINVAL;
	}
	if (k->needs_chunk && !have_chunk) {
		bpt_error_set(error, -EINVAL, "'%s': %s needs a chunk size: %s:chunk=64k:A,B",
			 text, k->name, k->name);
		return -EINVAL;
	}
	return 0;
}

int target_spec_parse(const char *text, struct target_spec *spec, struct bpt_error *error)
{
	const char *colon = strchr(text, ':'), *rest;
	size_t wlen = colon ? (size_t)(colon - text) : 0;
	int rc;

	memset(spec, 0, sizeof(*spec));
	if (!*text) {
		bpt_error_set(error, -EINVAL, "empty target");
		return -EINVAL;
	}
	/* a word (letters and digits, starting with a letter) then ':' */
	int is_word = wlen > 0 && isalpha((unsigned char)text[0]);
	for (size_t i = 0; is_word && i < wlen; i++)
		is_word = isalnum((unsigned char)text[i]);
	if (is_word && wlen == 3 && !strncmp(text, "hdd", 3)) {
		spec->kind = LAYOUT_SINGLE;
		rc = split_members(text, spec, error);
		if (!rc && spec->nmembers != 1) {
			bpt_error_set(error, rc, "'%s': hdd:MODEL:PATH emulates one disk; for several "
					   "use raid0:, raid1:, raid10:, linear:, raid5: or raid6: with hdd: members",
				 text);
			rc = -EINVAL;
		}
		if (rc)
			target_spec_free(spec);
		return rc;
	}
	if (!is_word) {
		spec->kind = LAYOUT_SINGLE;
		if (strchr(text, ',')) {
			bpt_error_set(error, -EINVAL, "'%s': a plain target is one path; use raid0:, "
					   "raid1:, raid10:, linear:, raid5: or raid6: for several", text);
			return -EINVAL;
		}
		rc = split_members(text, spec, error);
		if (rc)
			target_spec_free(spec);
		return rc;
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (strlen(kinds[k].name) != wlen || strncmp(text, kinds[k].name, wlen))
			continue;
		spec->kind = kinds[k].kind;
		rest = colon + 1;
		rc = parse_options(text, &kinds[k], &rest, spec, error);
		if (rc)
			return rc;
		rc = split_members(rest, spec, error);
		if (rc < 0) {
			target_spec_free(spec);
			return rc;
		}
		if (spec->nmembers < 32 && (spec->missing >> spec->nmembers)) {
			unsigned bad = 31 - (unsigned)__builtin_clz(spec->missing);

			bpt_error_set(error, -EINVAL, "'%s': missing=%u: member %u does not exist "
					   "(members count from 0; there are %u)", text,
				 bad, bad, spec->nmembers);
			target_spec_free(spec);
			return -EINVAL;
		}
		if (spec->nmembers < kinds[k].min_members) {
			bpt_error_set(error, -EINVAL, "'%s': %s needs at least %u members, got %u",
				 text, kinds[k].name, kinds[k].min_members, spec->nmembers);
			target_spec_free(spec);
			return -EINVAL;
		}
		return 0;
	}
	bpt_error_set(error, -EINVAL, "'%s': unknown layout '%.*s' (raid0, raid1, raid10, "
				   "linear, raid5, raid6, hdd)",
		 text, (int)wlen, text);
	return -EINVAL;
}
