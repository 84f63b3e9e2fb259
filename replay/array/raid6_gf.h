/*
 * raid6_gf.h — the parity arithmetic of raid5 and raid6 arrays, as md
 * computes it (lib/raid6, crypto/async_tx):
 *
 *   P = D_0 xor D_1 xor ... xor D_{d-1}
 *   Q = g^0 D_0 + g^1 D_1 + ... + g^{d-1} D_{d-1}  over GF(2^8),
 *       polynomial x^8+x^4+x^3+x^2+1 (0x11d), generator g = 2,
 *
 * byte by byte, D_i being the data block in syndrome slot i (layout.h says
 * which member is in which slot). Buffers may have any length and
 * alignment.
 */
#ifndef BLKPEAK_RAID6_GF_H
#define BLKPEAK_RAID6_GF_H

#include <stddef.h>
#include <stdint.h>

extern const uint8_t raid6_gf_exp[510]; /* 2^i, i < 510 */
extern const uint8_t raid6_gf_log[256]; /* log_2 x, x > 0 */

/* a * b and a / b (b != 0) in GF(2^8). */
uint8_t raid6_gf_mul(uint8_t a, uint8_t b);
uint8_t raid6_gf_div(uint8_t a, uint8_t b);

/* dst ^= src */
void raid6_xor(uint8_t *dst, const uint8_t *src, size_t len);
/* dst ^= coef * src */
void raid6_mul_xor(uint8_t *dst, const uint8_t *src, size_t len, uint8_t coef);
/* buf = coef * buf */
void raid6_mul(uint8_t *buf, size_t len, uint8_t coef);

/* P (and Q when q is not NULL) of the d blocks data[0..d), data[i] in
 * syndrome slot i; NULL data[i] stands for a block of zeroes. */
void raid6_syndrome(unsigned d, const uint8_t *const *data, uint8_t *p, uint8_t *q,
		    size_t len);

#endif
