/*
 * bpt_checksum.c — the one hash of the .bpt format: XXH64 with seed 0,
 * written here from the published algorithm description (xxHash's
 * doc/xxhash_spec.md) because libzstd keeps its copy private. Blocks,
 * the header and the footer carry XXH64 checksums; the trace digest is a
 * chain of them (bpt_digest_step).
 *
 * XXH64 was chosen over CRC32C for its 64 bits (the digest identifies a
 * trace, so collisions matter) and its speed without CPU-specific code
 * (several GB/s in portable C, far above what the codec produces).
 */
#include "bpt_internal.h"

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t xround(uint64_t acc, uint64_t lane)
{
	acc += lane * P2;
	acc = rotl64(acc, 31);
	return acc * P1;
}

static inline uint64_t xmerge(uint64_t acc, uint64_t v)
{
	acc ^= xround(0, v);
	return acc * P1 + P4;
}

/* Consume full 32-byte stripes from p; returns bytes consumed. */
static size_t stripes(uint64_t v[4], const uint8_t *p, size_t len)
{
	size_t done = 0;

	while (len - done >= 32) {
		v[0] = xround(v[0], get_le64(p + done));
		v[1] = xround(v[1], get_le64(p + done + 8));
		v[2] = xround(v[2], get_le64(p + done + 16));
		v[3] = xround(v[3], get_le64(p + done + 24));
		done += 32;
	}
	return done;
}

/* The tail of fewer than 32 bytes and the final avalanche. */
static uint64_t finish(uint64_t acc, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		acc ^= xround(0, get_le64(p));
		acc = rotl64(acc, 27) * P1 + P4;
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		acc ^= (uint64_t)get_le32(p) * P1;
		acc = rotl64(acc, 23) * P2 + P3;
		p += 4;
		len -= 4;
	}
	while (len--) {
		acc ^= *p++ * P5;
		acc = rotl64(acc, 11) * P1;
	}
	acc ^= acc >> 33;
	acc *= P2;
	acc ^= acc >> 29;
	acc *= P3;
	acc ^= acc >> 32;
	return acc;
}

static uint64_t converge(const uint64_t v[4])
{
	uint64_t acc = rotl64(v[0], 1) + rotl64(v[1], 7) + rotl64(v[2], 12) +
		       rotl64(v[3], 18);

	for (int i = 0; i < 4; i++)
		acc = xmerge(acc, v[i]);
	return acc;
}

void bpt_xxh64_init(struct bpt_xxh64_state *s, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->seed = seed;
	s->v[0] = seed + P1 + P2;
	s->v[1] = seed + P2;
	s->v[2] = seed;
	s->v[3] = seed - P1;
}

void bpt_xxh64_update(struct bpt_xxh64_state *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->total += len;
	if (s->memlen) {
		size_t take = 32 - s->memlen;

		if (take > len)
			take = len;
		memcpy(s->mem + s->memlen, p, take);
		s->memlen += (uint32_t)take;
		p += take;
		len -= take;
		if (s->memlen < 32)
			return;
		stripes(s->v, s->mem, 32);
		s->memlen = 0;
	}
	size_t done = stripes(s->v, p, len);

	memcpy(s->mem, p + done, len - done);
	s->memlen = (uint32_t)(len - done);
}

uint64_t bpt_xxh64_final(const struct bpt_xxh64_state *s)
{
	uint64_t acc = s->total >= 32 ? converge(s->v) : s->seed + P5;

	acc += s->total;
	return finish(acc, s->mem, s->memlen);
}

uint64_t bpt_xxh64(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = data;
	uint64_t acc;
	size_t done = 0;

	if (len >= 32) {
		uint64_t v[4] = { seed + P1 + P2, seed + P2, seed, seed - P1 };

		done = stripes(v, p, len);
		acc = converge(v);
	} else {
		acc = seed + P5;
	}
	acc += len;
	return finish(acc, p + done, len - done);
}

uint64_t bpt_digest_step(uint64_t d, uint64_t block_checksum)
{
	uint8_t b[16];

	put_le64(b, d);
	put_le64(b + 8, block_checksum);
	return bpt_xxh64(b, sizeof(b), 0);
}
