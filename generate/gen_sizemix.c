/*
 * gen_sizemix.c — parsing, sampling and printing of I/O size mixes
 * (see gen_sizemix.h for the contracts).
 */
#include "gen_sizemix.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cliutil.h"

/* Parse one "SIZE" or "SIZE:WEIGHT" item of length len. */
static int parse_item(const char *s, size_t len, uint32_t *size,
		      uint32_t *weight, struct bpt_error *error)
{
	char item[64], *colon;
	uint64_t v, w = 1;

	if (len == 0 || len >= sizeof(item)) {
		return bpt_error_set(error, -EINVAL, "%s", len ? "item too long" : "empty item");
	}
	memcpy(item, s, len);
	item[len] = '\0';
	colon = strchr(item, ':');
	if (colon) {
		*colon = '\0';
		if (parse_u64(colon + 1, &w) || w == 0 || w > 1000000) {
			return bpt_error_set(error, -EINVAL, "weight must be a whole number from 1 to 1000000");
		}
	}
	if (parse_size(item, &v)) {
		return bpt_error_set(error, -EINVAL, "not a size");
	}
	if (v == 0 || v % 512) {
		return bpt_error_set(error, -EINVAL, "size must be a non-zero multiple of 512");
	}
	if (v > GEN_MAX_BS) {
		return bpt_error_set(error, -EINVAL, "size larger than 64 MiB");
	}
	*size = (uint32_t)v;
	*weight = (uint32_t)w;
	return 0;
}

int size_mix_parse(const char *s, struct size_mix *mix, struct bpt_error *error)
{
	memset(mix, 0, sizeof(*mix));
	if (!s || !*s) {
		return bpt_error_set(error, -EINVAL, "empty");
	}
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		int ret;

		if (mix->n == GEN_MIX_MAX) {
			return bpt_error_set(error, -EINVAL, "more than 32 sizes");
		}
		ret = parse_item(s, len, &mix->size[mix->n], &mix->weight[mix->n], error);
		if (ret)
			return ret;
		for (unsigned i = 0; i < mix->n; i++) /* a size twice: which weight? */
			if (mix->size[i] == mix->size[mix->n])
				return bpt_error_set(error, -EINVAL, "'%.*s': the size %u given twice",
						     (int)len, s, mix->size[mix->n]);
		mix->total += mix->weight[mix->n];
		mix->n++;
		if (!comma)
			break;
		s = comma + 1;
	}
	return 0;
}

uint32_t size_mix_pick(const struct size_mix *mix, double r)
{
	double x = r * (double)mix->total;
	uint64_t acc = 0;

	for (unsigned i = 0; i < mix->n; i++) {
		acc += mix->weight[i];
		if (x < (double)acc)
			return mix->size[i];
	}
	return mix->size[mix->n - 1];
}

uint32_t size_mix_max(const struct size_mix *mix)
{
	uint32_t m = 0;

	for (unsigned i = 0; i < mix->n; i++)
		if (mix->size[i] > m)
			m = mix->size[i];
	return m;
}

double size_mix_mean(const struct size_mix *mix)
{
	double sum = 0;

	for (unsigned i = 0; i < mix->n; i++)
		sum += (double)mix->size[i] * mix->weight[i];
	return mix->total ? sum / (double)mix->total : 0;
}

char *size_short(uint64_t bytes, char *buf, int len)
{
	if (bytes && bytes % (1024ull * 1024 * 1024) == 0)
		snprintf(buf, len, "%llug", (unsigned long long)(bytes >> 30));
	else if (bytes && bytes % (1024 * 1024) == 0)
		snprintf(buf, len, "%llum", (unsigned long long)(bytes >> 20));
	else if (bytes && bytes % 1024 == 0)
		snprintf(buf, len, "%lluk", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	return buf;
}

char *size_mix_format(const struct size_mix *mix, char *buf, int len)
{
	int off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < mix->n && off < len; i++) {
		char sz[24];

		size_short(mix->size[i], sz, sizeof(sz));
		if (mix->n == 1)
			off += snprintf(buf + off, len - off, "%s", sz);
		else
			off += snprintf(buf + off, len - off, "%s%s:%u",
					i ? "," : "", sz, mix->weight[i]);
	}
	return buf;
}
