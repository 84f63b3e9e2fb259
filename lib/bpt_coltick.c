/*
 * bpt_coltick.c — column kind 2, "tick": time differences from a clock
 * that advances in steps of more than a nanosecond (spec "Column
 * coding", kind 2).
 *
 * Many clocks do: this VM's CLOCK_MONOTONIC advances by 10.015 ns, an
 * ARM generic timer at 24-54 MHz by 18-42 ns, Hyper-V's reference clock
 * by 100 ns. A difference of two readings of such a clock is then
 * floor(k * T) or one more, for a whole number of ticks k, so a
 * nanosecond value spends log2(T) bits on digits that hold about one
 * bit. The tick kind stores k and the small remainder r instead (value
 * 4 * zigzag(k) + r, r < 3, r's low bit relative to a guess from the
 * fraction of k * T), and a value that does not fit (a remainder
 * outside 0..2, a value past 2^30 ns) as itself with r = 3 (an escape),
 * so every column of values below 2^61 can be coded; the writer uses the
 * kind only when the tick is found and the estimate says it is smaller.
 *
 * The tick T and offset C are fixed point with 32 fractional bits, and
 * the decoder uses integers only: value = ((k * Tq + Cq) >> 32) + r.
 * The kind is used where its estimate is 1% smaller than the planes'.
 */
#include <math.h>
#include <stdlib.h>

#include "bpt_internal.h"

#define FRAC 32
#define TICK_SAMPLE 4096      /* values the tick is looked for in */
#define TICK_QUICK 1024       /* ... at first */
#define TICK_MAX_GAP 300      /* ns: the coarsest tick looked for is 256 */
#define TICK_LIM (1ll << 30)  /* |value| below this is coded by its ticks */
#define ESC 3
#define FLOOR_BIAS 1099511627776.0 /* 2^40: floor as a truncation, no libm */

/* floor(x), without a call for |x| < 2^40 (the encoder's hot loops; a
 * tick count one off near a half is still a valid code). */
static inline double fast_floor(double x)
{
	return x > -FLOOR_BIAS && x < FLOOR_BIAS ? (double)(int64_t)(x + FLOOR_BIAS) - FLOOR_BIAS
						 : floor(x);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The tick of the sorted distinct values s[0..n): they gather in runs of
 * one or two neighbouring integers (floor(kT) and floor(kT) + 1), whose
 * starts are whole multiples of about T apart. The most frequent start
 * gap (with its neighbours, as the floors make it wobble by one), halved
 * while half of it is frequent too (sparse values skip ticks). 0 when the
 * values are not like that (runs of three or more: a nanosecond clock),
 * -1 when there are too few of them to tell.
 */
static double tick_guess(const int64_t *s, uint32_t n)
{
	uint32_t hist[TICK_MAX_GAP + 2] = { 0 };
	uint32_t runs = 0, long_runs = 0, gaps = 0;
	int64_t start = s[0], prev = s[0];

	for (uint32_t i = 1; i <= n; i++) {
		if (i < n && s[i] == prev + 1) {
			prev = s[i];
			continue;
		}
		runs++;
		long_runs += prev - start >= 2;
		if (i < n) {
			int64_t g = s[i] - start;

			if (g >= 2 && g <= TICK_MAX_GAP) {
				hist[g]++;
				gaps++;
			}
			start = prev = s[i];
		}
	}
	if (long_runs * 10 > runs)
		return 0;
	if (gaps < 12)
		return -1;
	uint32_t best = 0, bc = 0;

	for (uint32_t g = 3; g < TICK_MAX_GAP; g++) {
		uint32_t c = hist[g - 1] + hist[g] + hist[g + 1];

		if (c > bc) {
			bc = c;
			best = g;
		}
	}
	while (best >= 8 && hist[best / 2 - 1] + hist[best / 2] + hist[best / 2 + 1] >= bc / 4)
		best /= 2, bc = hist[best - 1] + hist[best] + hist[best + 1];
	/* the mean gap around the mode */
	double sum = 0;
	uint32_t cnt = 0;

	for (uint32_t g = best - 1; g <= best + 1; g++) {
		sum += (double)g * hist[g];
		cnt += hist[g];
	}
	return cnt ? sum / cnt : 0;
}

/* Least squares d - x0 = k T + c over the values less than lim ticks from
 * x0 and within 1.5 of the lattice, k the nearest tick count under the
 * current (T, c). 0 on success. */
static int tick_refine(const int64_t *d, uint32_t n, double x0, double lim, double *T,
		       double *c)
{
	double sk = 0, sd = 0, skk = 0, skd = 0, inv = 1 / *T;
	uint32_t m = 0;

	for (uint32_t i = 0; i < n; i++) {
		double x = (double)d[i] - x0;

		if (fabs(x) >= lim * *T)
			continue;
		double k = fast_floor((x - *c) * inv + 0.5);

		if (fabs(x - k * *T - *c) > 1.5)
			continue; /* off the lattice (or T still off): no say */
		sk += k;
		sd += x;
		skk += k * k;
		skd += k * x;
		m++;
	}
	double den = m * skk - sk * sk;

	if (m < 16)
		return -1;
	if (den > 0)
		*T = (m * skd - sk * sd) / den;
	*c = (sd - *T * sk) / m;
	return *T >= 3.5 && *T < 256 ? 0 : -1;
}

/* The phase of the values on the tick T: where in [0, T) the values'
 * remainders gather (a peak one or two nanoseconds wide). */
static double tick_phase(const int64_t *d, uint32_t n, double T)
{
	uint32_t hist[64] = { 0 }, best = 0;
	double w = T / 64, sum = 0, inv = 1 / T;
	uint32_t cnt = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (d[i] <= -TICK_LIM || d[i] >= TICK_LIM)
			continue; /* escapes; and the casts stay defined */
		double p = (double)d[i] - T * fast_floor((double)d[i] * inv);

		/* p in [0, T], give or take rounding */
		hist[p <= 0 ? 0 : p >= T ? 63 : (unsigned)(p / w) & 63]++;
	}
	for (unsigned b = 1; b < 64; b++)
		best = hist[b] > hist[best] ? b : best;
	double pk = (best + 0.5) * w;

	/* the mean remainder around the peak, taken across the wrap */
	for (uint32_t i = 0; i < n; i++) {
		if (d[i] <= -TICK_LIM || d[i] >= TICK_LIM)
			continue;
		double p = (double)d[i] - T * fast_floor((double)d[i] * inv) - pk;

		p -= T * fast_floor(p * inv + 0.5); /* into [-T/2, T/2) */
		if (fabs(p) < 2) {
			sum += p;
			cnt++;
		}
	}
	return pk + (cnt ? sum / cnt : 0);
}

/*
 * The stored remainder code of d for tick count k: the lattice point is
 * L = floor((k Tq + Cq) / 2^32) and r = d - L; a difference of two
 * readings is L + 1 about as often as the fraction of k T + C, so r is
 * stored relative to that guess (bit 31 of k Tq + Cq, the fraction's
 * half): r XOR guess for r < 2, 2 for 2. -1 when r is not in 0..2.
 */
static inline int tick_rc(int64_t d, int64_t k, int64_t tq, int64_t cq)
{
	uint64_t x = (uint64_t)k * (uint64_t)tq + (uint64_t)cq;
	int64_t r = d - ((int64_t)x >> FRAC);

	if (r < 0 || r > 2)
		return -1;
	return r == 2 ? 2 : (int)(r ^ (int64_t)((x >> (FRAC - 1)) & 1));
}

/* s[i] for value d: 4 zigzag(k) + the remainder code, or 4 zigzag(d) + 3
 * (an escape); *bad set for a value too large for either. */
static inline uint64_t tick_store(int64_t d, int64_t tq, int64_t cq, double inv, double c,
				  int *bad)
{
	if (d > -TICK_LIM && d < TICK_LIM) {
		int64_t k = (int64_t)fast_floor(((double)d - c) * inv + 0.5);
		int rc = tick_rc(d, k, tq, cq);

		if (rc >= 0)
			return zigzag64(k) << 2 | (uint64_t)rc;
	}
	uint64_t z = zigzag64(d);

	*bad |= z >> 62 != 0;
	return z << 2 | ESC;
}

/* tick_guess of the values d[0..n) below TICK_LIM, sorted and made
 * distinct in s[0..n); *x0 their median. */
static double tick_sorted(const int64_t *d, uint32_t n, int64_t *s, double *x0)
{
	uint32_t m = 0, u = 0;

	for (uint32_t i = 0; i < n; i++)
		if (d[i] > -TICK_LIM && d[i] < TICK_LIM)
			s[m++] = d[i];
	qsort(s, m, sizeof(int64_t), cmp_i64);
	*x0 = m ? (double)s[m / 2] : 0;
	for (uint32_t i = 0; i < m; i++)
		if (!u || s[i] != s[u - 1])
			s[u++] = s[i];
	return u >= 24 ? tick_guess(s, u) : -1;
}

/* Of the first TICK_QUICK values of d[0..n), how many tick (tq, cq)
 * codes without an escape; *right: how many of them with remainder
 * code 0. */
static uint32_t tick_fit(const int64_t *d, uint32_t n, int64_t tq, int64_t cq,
			 uint32_t *right)
{
	double inv = (double)(1ll << FRAC) / (double)tq;
	double c = (double)cq / (double)(1ll << FRAC);
	uint32_t fit = 0;
	int bad = 0;

	*right = 0;
	for (uint32_t i = 0; i < n && i < TICK_QUICK; i++) {
		uint64_t rc = tick_store(d[i], tq, cq, inv, c, &bad) & 3;

		fit += rc != ESC;
		*right += rc == 0;
	}
	return fit;
}

/*
 * The tick of the values' sample d[0..n) (s: room for n values) and the offset that puts most
 * remainders in 0..2: 0 with *tq, *cq set, or -1 when there is none.
 */
static int tick_find(const int64_t *d, uint32_t n, int64_t *s, int64_t *tq, int64_t *cq)
{
	double T, c = 0, x0;

	/* a look at the first TICK_QUICK values turns most columns of a
	 * nanosecond clock away at a quarter of the cost */
	T = tick_sorted(d, n < TICK_QUICK ? n : TICK_QUICK, s, &x0);
	if (T >= 0 && T < 3.5)
		return -1;
	if (T < 0 && n > TICK_QUICK) /* too few distinct values: all of them */
		T = tick_sorted(d, n, s, &x0);
	if (T < 3.5)
		return -1;
	/* refine over tick counts from x0 of growing range: a small error
	 * in T moves far counts by a whole tick */
	static const double lims[] = { 64, 512, 4096, 32768, 262144, 1 << 30 };

	for (unsigned j = 0; j < sizeof(lims) / sizeof(lims[0]); j++)
		if (tick_refine(d, n, x0, lims[j], &T, &c) && j == 0)
			return -1;
	if (T < 3.5 || T >= 256)
		return -1;
	c = tick_phase(d, n, T);
	/* the tick once more over all values, counted from 0 this time,
	 * and the phase with it */
	if (tick_refine(d, n, 0, 1 << 30, &T, &c))
		return -1;
	c = tick_phase(d, n, T);
	/* the offset that keeps the most remainders in 0..2, and of them the
	 * most guessed right */
	int64_t t = (int64_t)llround(T * (double)(1ll << FRAC));
	uint32_t best = 0, best_fit = 0, right;

	*cq = 0;
	for (int j = 0; j < 4; j++) {
		int64_t cc = (int64_t)llround((c - 0.5 * j) * (double)(1ll << FRAC));
		uint32_t fit = tick_fit(d, n, t, cc, &right);

		if (2 * fit + right > best) {
			best = 2 * fit + right;
			best_fit = fit;
			*cq = cc;
		}
	}
	*tq = t;
	/* half fit; the estimate decides */
	return best_fit * 2 >= (n < TICK_QUICK ? n : TICK_QUICK) ? 0 : -1;
}

int bpt_col_encode_tick(struct bpt_buf *b, const uint64_t *v, uint32_t n, uint64_t seed,
			uint64_t *s, struct bpt_tick_hint *hint, unsigned *nplanes,
			size_t *planes_at)
{
	uint32_t m = n < TICK_SAMPLE ? n : TICK_SAMPLE;
	int64_t d[TICK_SAMPLE], tq, cq;
	uint64_t min;
	unsigned shift, width;
	int bad = 0;

	*nplanes = 0;
	*planes_at = 0;
	if (n < 64)
		return 0;
	for (uint32_t i = 0; i < m; i++)
		d[i] = unzigzag64(v[i]);
	/* The last block's tick when it still codes nearly every value (the
	 * search asks half: a hint that fits worse is searched again). */
	uint32_t quick = m < TICK_QUICK ? m : TICK_QUICK, right;

	if (hint->tq && tick_fit(d, m, hint->tq, hint->cq, &right) * 16 >= quick * 15) {
		tq = hint->tq;
		cq = hint->cq;
	} else if (tick_find(d, m, (int64_t *)s, &tq, &cq)) {
		hint->tq = 0;
		return 0;
	}
	double inv = (double)(1ll << FRAC) / (double)tq, c = (double)cq / (double)(1ll << FRAC);

	/* the sample first: smaller than the planes of the values
	 * themselves, by estimate, before the rest is coded */
	for (uint32_t i = 0; i < m; i++)
		s[i] = tick_store(unzigzag64(v[i]), tq, cq, inv, c, &bad);
	if (bad || bpt_col_estimate(s, m) >= 0.99 * bpt_col_estimate(v, m) ||
	    bpt_col_tick_check((uint64_t)tq, zigzag64(cq)))
		return 0;
	for (uint32_t i = m; i < n; i++)
		s[i] = tick_store(unzigzag64(v[i]), tq, cq, inv, c, &bad);
	if (bad)
		return 0;
	hint->tq = tq;
	hint->cq = cq;
	bpt_col_frame(s, n, &min, &shift, &width);
	buf_u8(b, BPT_COL_TICK);
	buf_varint(b, seed);
	buf_varint(b, (uint64_t)tq);
	buf_varint(b, zigzag64(cq));
	bpt_col_put_planes(b, s, n, min, width, shift, nplanes, planes_at);
	return 1;
}

int bpt_col_tick_check(uint64_t tq, uint64_t zcq)
{
	int64_t cq = unzigzag64(zcq);

	return tq >= 2ull << FRAC && tq < 256ull << FRAC &&
	       cq > -(256ll << FRAC) && cq < (256ll << FRAC) ? 0 : -1;
}

void bpt_col_tick_apply(const struct bpt_colview *cv, uint64_t *out, uint32_t m)
{
	uint64_t tq = cv->tick, cq = (uint64_t)cv->tick_off;

	for (uint32_t j = 0; j < m; j++) {
		uint64_t s = out[j], z = s >> 2, rc = s & 3;
		uint64_t x = (uint64_t)unzigzag64(z) * tq + cq;
		uint64_t r = rc < 2 ? rc ^ ((x >> (FRAC - 1)) & 1) : rc;

		out[j] = rc == ESC ? z : zigzag64((int64_t)((int64_t)x >> FRAC) + (int64_t)r);
	}
}
