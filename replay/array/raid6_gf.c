/* raid6_gf.c — GF(2^8) parity arithmetic (raid6_gf.h). */
#include <string.h>

#include "raid6_gf.h"

uint8_t raid6_gf_mul(uint8_t a, uint8_t b)
{
	if (!a || !b)
		return 0;
	return raid6_gf_exp[raid6_gf_log[a] + raid6_gf_log[b]];
}

uint8_t raid6_gf_div(uint8_t a, uint8_t b)
{
	if (!a || !b)
		return 0;
	return raid6_gf_exp[raid6_gf_log[a] + 255 - raid6_gf_log[b]];
}

void raid6_xor(uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t a, b;

		memcpy(&a, dst + i, 8);
		memcpy(&b, src + i, 8);
		a ^= b;
		memcpy(dst + i, &a, 8);
	}
	for (; i < len; i++)
		dst[i] ^= src[i];
}

/* 2 * each byte of v, eight at once (md's int.uc: shift, and reduce the
 * bytes whose top bit fell out). */
static inline uint64_t mul2_x8(uint64_t v)
{
	uint64_t top = v & 0x8080808080808080ull;

	top = (top << 1) - (top >> 7);
	return ((v << 1) & 0xfefefefefefefefeull) ^ (top & 0x1d1d1d1d1d1d1d1dull);
}

void raid6_mul_xor(uint8_t *dst, const uint8_t *src, size_t len, uint8_t coef)
{
	uint8_t row[256];

	if (!coef)
		return;
	if (coef == 1) {
		raid6_xor(dst, src, len);
		return;
	}
	for (unsigned v = 0; v < 256; v++)
		row[v] = raid6_gf_mul((uint8_t)v, coef);
	for (size_t i = 0; i < len; i++)
		dst[i] ^= row[src[i]];
}

void raid6_mul(uint8_t *buf, size_t len, uint8_t coef)
{
	uint8_t row[256];

	for (unsigned v = 0; v < 256; v++)
		row[v] = raid6_gf_mul((uint8_t)v, coef);
	for (size_t i = 0; i < len; i++)
		buf[i] = row[buf[i]];
}

void raid6_syndrome(unsigned d, const uint8_t *const *data, uint8_t *p, uint8_t *q,
		    size_t len)
{
	size_t i = 0;

	/* Horner from the highest slot down: q = 2 q + D_z */
	for (; i + 8 <= len; i += 8) {
		uint64_t wp = 0, wq = 0;

		for (unsigned z = d; z-- > 0;) {
			uint64_t v = 0;

			if (data[z])
				memcpy(&v, data[z] + i, 8);
			wp ^= v;
			wq = mul2_x8(wq) ^ v;
		}
		memcpy(p + i, &wp, 8);
		if (q)
			memcpy(q + i, &wq, 8);
	}
	for (; i < len; i++) {
		uint8_t wp = 0, wq = 0;

		for (unsigned z = d; z-- > 0;) {
			uint8_t v = data[z] ? data[z][i] : 0;

			wp ^= v;
			wq = (uint8_t)((wq << 1) ^ (wq & 0x80 ? 0x1d : 0)) ^ v;
		}
		p[i] = wp;
		if (q)
			q[i] = wq;
	}
}
