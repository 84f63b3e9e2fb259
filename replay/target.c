/* target.c — parsing target specs (see target.h for the grammar). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliutil.h"
#include "target.h"

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
};

/* 1 when `p` starts with a layout's word and ':' (or "hdd:"). */
static int starts_with_layout(const char *p)
{
	static const char *const words[] = { "raid0:", "raid1:", "raid10:", "linear:", "hdd:" };

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
					   "use raid0:, raid1:, raid10: or linear: with hdd: members",
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
					   "raid1:, raid10: or linear: for several", text);
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
		if (!strncmp(rest, "chunk=", 6)) {
			const char *end = strchr(rest, ':');
			char num[32];

			if (!kinds[k].needs_chunk) {
				bpt_error_set(error, -EINVAL, "'%s': %s takes no chunk size", text,
					 kinds[k].name);
				return -EINVAL;
			}
			if (!end || (size_t)(end - rest - 6) >= sizeof(num)) {
				bpt_error_set(error, -EINVAL, "'%s': expected %s:chunk=SIZE:A,B", text,
					 kinds[k].name);
				return -EINVAL;
			}
			memcpy(num, rest + 6, (size_t)(end - rest - 6));
			num[end - rest - 6] = 0;
			if (parse_size(num, &spec->chunk) < 0 || !spec->chunk ||
			    spec->chunk % 512) {
				bpt_error_set(error, -EINVAL, "'%s': chunk '%s' is not a multiple of 512 bytes",
					 text, num);
				return -EINVAL;
			}
			rest = end + 1;
		} else if (kinds[k].needs_chunk) {
			bpt_error_set(error, -EINVAL, "'%s': %s needs a chunk size: %s:chunk=64k:A,B",
				 text, kinds[k].name, kinds[k].name);
			return -EINVAL;
		}
		rc = split_members(rest, spec, error);
		if (rc < 0) {
			target_spec_free(spec);
			return rc;
		}
		if (spec->nmembers < kinds[k].min_members) {
			bpt_error_set(error, -EINVAL, "'%s': %s needs at least %u members, got %u",
				 text, kinds[k].name, kinds[k].min_members, spec->nmembers);
			target_spec_free(spec);
			return -EINVAL;
		}
		return 0;
	}
	bpt_error_set(error, -EINVAL, "'%s': unknown layout '%.*s' (raid0, raid1, raid10, linear, hdd)",
		 text, (int)wlen, text);
	return -EINVAL;
}
