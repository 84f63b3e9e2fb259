/*
 * bpt_blockenc.c — the open block of a writer and its encoding: records
 * are split into column values as they arrive; when the block closes,
 * choose_coding picks the cheapest coding of its times and sectors and
 * turns them into stored values, each column is coded (bpt_column.c), the
 * payload (strings, losses, columns) is compressed with zstd, one zstd
 * block per byte plane, and the block header is filled and checksummed.
 * Layout: schemas/trace-format.md, "Record blocks" and "Columns".
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "bpt_blockenc.h"
#include "bpt_file.h"

/*
 * Each byte plane of a large block starts a new zstd block (a flush), so
 * zstd builds one entropy table per plane instead of one for a mix of
 * planes with different statistics. Below this many records a plane is
 * too small to pay for its own table.
 */
#define PLANE_CUT_MIN 1024

/*
 * A reference search (ref_pick over the last BPT_REF_WINDOW records) is
 * used only where its estimate is below this share of the plain coding's
 * (the previous record as the reference): it costs encode time, and on
 * ties (queue depth 1, where it finds the previous record anyway) it
 * would buy nothing for it.
 */
#define REF_GAIN 0.97

/* Room for `alloc` records in every present column. */
static int grow(struct bpt_blockenc *e, uint32_t alloc)
{
	for (int id = 0; id < COL_KNOWN; id++) {
		if (!e->col[id])
			continue;
		uint64_t *p = realloc(e->col[id], sizeof(uint64_t) * alloc);

		if (!p)
			return -ENOMEM;
		e->col[id] = p;
	}
	uint64_t *t = realloc(e->tmp, sizeof(uint64_t) * alloc);

	if (!t)
		return -ENOMEM;
	e->tmp = t;
	e->alloc = alloc;
	return 0;
}

int bpt_blockenc_init(struct bpt_blockenc *e, uint32_t columns, uint32_t cap,
		      int level)
{
	/* Small traces (a short replay, a test) should not pay for a whole
	 * block of columns: start small and double. */
	uint32_t first = cap < 4096 ? cap : 4096;

	memset(e, 0, sizeof(*e));
	e->cap = cap;
	e->level = level;
	e->columns = columns;
	for (int id = 0; id < COL_KNOWN; id++) {
		if (bpt_col_optional(id) && !bpt_col_wanted(columns, 0, id))
			continue;
		e->col[id] = malloc(sizeof(uint64_t) * first);
		if (!e->col[id])
			return -ENOMEM;
	}
	e->tmp = malloc(sizeof(uint64_t) * first);
	if (!e->tmp)
		return -ENOMEM;
	e->alloc = first;
#if defined(__x86_64__) && defined(__GNUC__)
	e->avx2 = __builtin_cpu_supports("avx2");
#endif
	e->cctx = ZSTD_createCCtx();
	return e->cctx ? 0 : -ENOMEM;
}

void bpt_blockenc_free(struct bpt_blockenc *e)
{
	for (int id = 0; id < COL_KNOWN; id++)
		free(e->col[id]);
	free(e->tmp);
	buf_free(&e->payload);
	buf_free(&e->colbuf);
	buf_free(&e->zbuf);
	ZSTD_freeCCtx(e->cctx);
	memset(e, 0, sizeof(*e));
}

static inline uint64_t zz32(int32_t v)
{
	return (uint32_t)(((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
}

int bpt_blockenc_add(struct bpt_blockenc *e, const struct bpt_record *r)
{
	uint32_t i = e->n;

	assert(i < e->cap);
	if (i == e->alloc &&
	    grow(e, e->alloc > e->cap / 2 ? e->cap : e->alloc * 2))
		return -ENOMEM;
	if (i == 0) {
		e->prev_source = e->seed[COL_SOURCE] = r->source_index;
		e->min_issue = e->max_issue = r->issue_ns;
		e->max_complete = r->complete_ns;
	}
	e->min_issue = r->issue_ns < e->min_issue ? r->issue_ns : e->min_issue;
	e->max_issue = r->issue_ns > e->max_issue ? r->issue_ns : e->max_issue;
	e->max_complete = r->complete_ns > e->max_complete ? r->complete_ns
							   : e->max_complete;
	/* Times and sectors are kept raw; choose_coding codes them. */
	e->col[COL_ISSUE][i] = r->issue_ns;
	e->col[COL_COMPLETE][i] = r->complete_ns;
	e->col[COL_SECTOR][i] = r->sector;
	e->col[COL_QUEUE][i] = zigzag64((int64_t)(r->issue_ns - r->queue_ns));
	e->col[COL_BYTES][i] = r->bytes;
	e->col[COL_DEV][i] = r->dev;
	e->col[COL_OP][i] = r->op;
	e->col[COL_FLAGS][i] = r->flags;
	e->col[COL_PID][i] = r->pid;
	e->col[COL_COMM][i] = r->comm_id;
	e->col[COL_CGROUP][i] = r->cgroup_id;
	e->col[COL_ERROR][i] = zz32(r->error);
	if (e->col[COL_SCHED])
		e->col[COL_SCHED][i] = zigzag64((int64_t)(r->sched_ns - r->issue_ns));
	if (e->col[COL_SOURCE]) {
		e->col[COL_SOURCE][i] =
			zigzag64((int64_t)(r->source_index - e->prev_source));
		e->prev_source = r->source_index;
	}
	if (e->col[COL_MEMBER])
		e->col[COL_MEMBER][i] = r->member;
	if (e->col[COL_COMPLETION])
		e->col[COL_COMPLETION][i] = r->completion;
	if (e->col[COL_INTERNAL])
		e->col[COL_INTERNAL][i] = r->internal;
	if (e->col[COL_FILE_CLASS])
		bpt_file_encode(e, i, r);
	if (e->col[COL_CAUSE_PID])
		bpt_cause_encode(e, i, r);
	e->n++;
	return 0;
}

/*
 * The reference of record i among the BPT_REF_WINDOW records before it:
 * the k for which x is closest to v[i-1-k] + (len ? len[i-1-k] >> 9 : 0)
 * (`seed` for records before the block), the smallest k on a tie; the
 * stored difference in *z. Callers code records from the last to the
 * first, so v and len still hold raw values below i.
 */
static uint64_t ref_pick(const uint64_t *v, const uint64_t *len, uint32_t i,
			 uint64_t seed, uint64_t x, uint64_t *z)
{
	uint64_t best = UINT64_MAX, bk = 0;

	for (uint32_t k = 0; k < BPT_REF_WINDOW; k++) {
		uint64_t r = k < i ? v[i - 1 - k] + (len ? len[i - 1 - k] >> 9 : 0)
				   : seed;
		uint64_t d = zigzag64((int64_t)(x - r));

		if (d < best) {
			best = d;
			bk = k;
		}
		if (!d || k >= i)
			break; /* exact, or only the seed is left */
	}
	*z = best;
	return bk;
}

/* The better of two (difference, k) candidates: the smaller difference,
 * the smaller k on a tie. */
#define REF_BETTER(m, b, m2, b2) \
	do { \
		int better_ = (m2) < (m) || ((m2) == (m) && (b2) < (b)); \
		(m) = better_ ? (m2) : (m); \
		(b) = better_ ? (b2) : (b); \
	} while (0)

/*
 * ref_pick for a record with a whole window before it in the block
 * (i >= BPT_REF_WINDOW), over references already computed: end[j] is
 * v[j] (+ len[j] >> 9). The same answer as ref_pick, the first k of the
 * smallest difference, without its branch per step that random data
 * mispredicts: the differences first (no dependence between steps, the
 * compiler vectorizes it), then the smallest in four independent chains
 * of conditional moves (k = q mod 4 in chain q), merged smaller k first
 * on ties.
 */
static uint64_t ref_pick_full(const uint64_t *end, uint32_t i, uint64_t x,
			      uint64_t *z)
{
	const uint64_t *r = end + i - BPT_REF_WINDOW; /* r[W-1-k]: reference k */
	uint64_t d[BPT_REF_WINDOW];

	for (uint32_t k = 0; k < BPT_REF_WINDOW; k++)
		d[k] = zigzag64((int64_t)(x - r[BPT_REF_WINDOW - 1 - k]));
	if (!d[0]) {
		*z = 0;
		return 0;
	}
	uint64_t m0 = d[0], m1 = d[1], m2 = d[2], m3 = d[3];
	uint64_t b0 = 0, b1 = 1, b2 = 2, b3 = 3;

	for (uint64_t k = 4; k < BPT_REF_WINDOW; k += 4) {
		int c0 = d[k] < m0, c1 = d[k + 1] < m1;
		int c2 = d[k + 2] < m2, c3 = d[k + 3] < m3;

		m0 = c0 ? d[k] : m0;
		b0 = c0 ? k : b0;
		m1 = c1 ? d[k + 1] : m1;
		b1 = c1 ? k + 1 : b1;
		m2 = c2 ? d[k + 2] : m2;
		b2 = c2 ? k + 2 : b2;
		m3 = c3 ? d[k + 3] : m3;
		b3 = c3 ? k + 3 : b3;
	}
	REF_BETTER(m0, b0, m1, b1);
	REF_BETTER(m2, b2, m3, b3);
	REF_BETTER(m0, b0, m2, b2);
	*z = m0;
	return b0;
}

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * ref_pick_full in AVX2, four references at a time: the zigzag
 * differences, their unsigned minimum (signed compares of values with
 * the top bit flipped), then the places equal to it as a bit mask. The
 * references are taken in memory order, r[j] being reference k = W-1-j,
 * so the first k is the highest set bit. Used when the CPU has AVX2
 * (e->avx2); the same answer as ref_pick_full.
 */
__attribute__((target("avx2")))
static uint64_t ref_pick_full_avx2(const uint64_t *end, uint32_t i, uint64_t x,
				   uint64_t *z)
{
	const uint64_t *r = end + i - BPT_REF_WINDOW;
	const __m256i X = _mm256_set1_epi64x((int64_t)x);
	const __m256i zero = _mm256_setzero_si256();
	const __m256i top = _mm256_set1_epi64x(INT64_MIN);
	__m256i d[BPT_REF_WINDOW / 4], m, o, gt;
	uint32_t bits = 0;

	for (unsigned v = 0; v < BPT_REF_WINDOW / 4; v++) {
		__m256i t = _mm256_sub_epi64(X, _mm256_loadu_si256((const __m256i *)(r + 4 * v)));

		d[v] = _mm256_xor_si256(_mm256_slli_epi64(t, 1), _mm256_cmpgt_epi64(zero, t));
	}
#define UMIN(a, b) \
	(gt = _mm256_cmpgt_epi64(_mm256_xor_si256(a, top), _mm256_xor_si256(b, top)), \
	 _mm256_blendv_epi8(a, b, gt))
	m = d[0];
	for (unsigned v = 1; v < BPT_REF_WINDOW / 4; v++)
		m = UMIN(m, d[v]);
	o = _mm256_permute4x64_epi64(m, 0x4e); /* the other 128-bit half */
	m = UMIN(m, o);
	o = _mm256_shuffle_epi32(m, 0x4e);     /* the other 64 bits */
	m = UMIN(m, o);
#undef UMIN
	uint64_t best = (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(m));

	m = _mm256_set1_epi64x((int64_t)best);
	for (unsigned v = 0; v < BPT_REF_WINDOW / 4; v++)
		bits |= (uint32_t)_mm256_movemask_pd(
				_mm256_castsi256_pd(_mm256_cmpeq_epi64(d[v], m)))
			<< (4 * v);
	*z = best;
	return BPT_REF_WINDOW - 1 - (31 - (unsigned)__builtin_clz(bits));
}
#endif

/* ref_pick without len, over end[] (see ref_pick_full) */
static uint64_t ref_pick_at(const struct bpt_blockenc *e, const uint64_t *end,
			    uint32_t i, uint64_t seed, uint64_t x, uint64_t *z)
{
	if (i < BPT_REF_WINDOW)
		return ref_pick(end, NULL, i, seed, x, z);
#if defined(__x86_64__) && defined(__GNUC__)
	if (e->avx2)
		return ref_pick_full_avx2(end, i, x, z);
#else
	(void)e;
#endif
	return ref_pick_full(end, i, x, z);
}

/*
 * The time mode of the open block (see the spec, "Columns"): the
 * cheapest, by estimate, of
 *   0         issue deltas + service times   (records in issue order)
 *   COMPLETE  complete deltas + service times (in completion order)
 *   AFTER     issue after a recent record's completion + service times:
 *             the previous record's (queue depth 1, where an issue delta
 *             would hold the previous service time a second time), or
 *             the nearest of the last BPT_REF_WINDOW (a queue kept full:
 *             each I/O is issued when an earlier one completes)
 *   BOTH      issue deltas + complete deltas (service times that drift
 *             slowly, as on a busy device: each delta stays small)
 * and the raw issue and complete columns turned into what is stored.
 * The reference search is estimated on the first BPT_EST_REF records
 * only (it costs BPT_REF_WINDOW steps a record) and scaled up.
 */
static unsigned choose_time(struct bpt_blockenc *e)
{
	uint64_t *is = e->col[COL_ISSUE], *co = e->col[COL_COMPLETE];
	uint64_t *kref = e->col[COL_ISSUE_REF];
	uint64_t *a = e->est[0], *b = e->est[1], *c = e->est[2], *s = e->est[3];
	uint64_t *w = e->est[4], *wk = e->est[5];
	uint32_t n = e->n, m = n < BPT_EST_SAMPLE ? n : BPT_EST_SAMPLE;
	uint32_t mr = m < BPT_EST_REF ? m : BPT_EST_REF;

	a[0] = b[0] = c[0] = 0;
	s[0] = zigzag64((int64_t)(co[0] - is[0]));
	wk[0] = 0;
	w[0] = 0;
	for (uint32_t i = 1; i < m; i++) {
		a[i] = zigzag64((int64_t)(is[i] - is[i - 1]));
		b[i] = zigzag64((int64_t)(co[i] - co[i - 1]));
		c[i] = zigzag64((int64_t)(is[i] - co[i - 1]));
		s[i] = zigzag64((int64_t)(co[i] - is[i]));
	}
	for (uint32_t i = 1; i < mr; i++)
		wk[i] = ref_pick_at(e, co, i, is[0], is[i], &w[i]);
	double ea = bpt_col_estimate(a, m), eb = bpt_col_estimate(b, m);
	double ec = bpt_col_estimate(c, m), es = bpt_col_estimate(s, m);
	double ew = (bpt_col_estimate(w, mr) + bpt_col_estimate(wk, mr)) * m / mr;
	double cost[5] = { ea + es, eb + es, ec + es, ea + eb, ew + es };
	static const unsigned modes[5] = { 0, BPT_CODING_TIME_COMPLETE,
					   BPT_CODING_TIME_AFTER,
					   BPT_CODING_TIME_BOTH,
					   BPT_CODING_TIME_AFTER };
	unsigned best = 0;

	/* the search costs encode time: keep it for a clear gain */
	if (cost[4] > REF_GAIN * cost[2])
		cost[4] = cost[2] + 1;
	for (unsigned k = 1; k < 5; k++)
		if (cost[k] < cost[best])
			best = k;
	unsigned mode = modes[best];
	uint64_t pi = is[0], pc = co[0];

	e->seed[COL_ISSUE] = mode == BPT_CODING_TIME_COMPLETE ? 0 : pi;
	e->seed[COL_COMPLETE] = mode & BPT_CODING_TIME_COMPLETE ? pc : 0;
	e->seed[COL_ISSUE_REF] = 0;
	if (mode == BPT_CODING_TIME_AFTER) {
		/* from the last record down: the window below i stays raw;
		 * the seed stands for the completion before the block */
		for (uint32_t i = n; i-- > 0;) {
			uint64_t t = is[i], z;

			if (best == 4 && i < mr) { /* the estimate's pick */
				kref[i] = wk[i];
				z = w[i];
			} else if (best == 4) {
				kref[i] = ref_pick_at(e, co, i, pi, t, &z);
			} else {
				kref[i] = 0;
				z = zigzag64((int64_t)(t - (i ? co[i - 1] : pi)));
			}
			is[i] = z;
			co[i] = zigzag64((int64_t)(co[i] - t));
		}
		return mode;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t t = is[i], d = co[i];

		switch (mode) {
		case 0:
			is[i] = zigzag64((int64_t)(t - pi));
			co[i] = zigzag64((int64_t)(d - t));
			break;
		case BPT_CODING_TIME_COMPLETE:
			co[i] = zigzag64((int64_t)(d - pc));
			is[i] = zigzag64((int64_t)(d - t));
			break;
		default:
			is[i] = zigzag64((int64_t)(t - pi));
			co[i] = zigzag64((int64_t)(d - pc));
			break;
		}
		pi = t;
		pc = d;
	}
	return mode;
}

/*
 * The block's coding byte: the time mode (choose_time) and how sectors
 * are stored, with the raw time and sector columns turned into what is
 * stored. Sectors are coded as the distance from the end of a recent
 * request: the previous one, or, when it pays, the one of the last
 * BPT_REF_WINDOW that ends nearest (exactly where this one starts, for
 * sequential I/O written in completion order, which reorders it a
 * little). Sectors are stored as they are when that is cheaper, as it is
 * for random I/O, where the difference of two random offsets costs about
 * a bit more than one offset. "Cheaper" is estimated on the block's first
 * BPT_EST_SAMPLE records with bpt_col_estimate (the entropy of the byte
 * planes), as in choose_time.
 */
static unsigned choose_coding(struct bpt_blockenc *e)
{
	uint64_t *se = e->col[COL_SECTOR], *by = e->col[COL_BYTES];
	uint64_t *kref = e->col[COL_SECTOR_REF];
	uint64_t *a = e->est[0], *w = e->est[1], *wk = e->est[2], *ends = e->est[3];
	uint32_t n = e->n, m = n < BPT_EST_SAMPLE ? n : BPT_EST_SAMPLE;
	uint32_t mr = m < BPT_EST_REF ? m : BPT_EST_REF;
	uint64_t seed;

	if (!n)
		return 0;
	seed = se[0];
	for (uint32_t i = 0; i < m; i++)
		a[i] = zigzag64((int64_t)(se[i] - (i ? se[i - 1] + (by[i - 1] >> 9)
						      : seed)));
	for (uint32_t i = 0; i < mr; i++)
		ends[i] = se[i] + (by[i] >> 9);
	for (uint32_t i = 0; i < mr; i++)
		wk[i] = ref_pick_at(e, ends, i, seed, se[i], &w[i]);
	double eabs = bpt_col_estimate(se, m), eprev = bpt_col_estimate(a, m);
	double ewin = (bpt_col_estimate(w, mr) + bpt_col_estimate(wk, mr)) * m / mr;
	int search = ewin < REF_GAIN * eprev;

	if (eabs < (search ? ewin : eprev)) { /* random I/O */
		e->seed[COL_SECTOR] = 0;
		return BPT_CODING_SECTOR_ABS | choose_time(e);
	}
	e->seed[COL_SECTOR] = seed;
	e->seed[COL_SECTOR_REF] = 0;
	/* The end sectors, the references, in kref: kref[i] is written
	 * only once those below i have been read. */
	if (search)
		for (uint32_t i = 0; i < n; i++)
			kref[i] = se[i] + (by[i] >> 9);
	/* from the last record down, as in choose_time */
	for (uint32_t i = n; i-- > 0;) {
		uint64_t z;

		if (search && i < mr) { /* the estimate's pick, same inputs */
			kref[i] = wk[i];
			z = w[i];
		} else if (search) {
			kref[i] = ref_pick_at(e, kref, i, seed, se[i], &z);
		} else {
			kref[i] = 0;
			z = zigzag64((int64_t)(se[i] - (i ? se[i - 1] + (by[i - 1] >> 9)
							   : seed)));
		}
		se[i] = z;
	}
	return choose_time(e);
}

/* The uncompressed block payload: strings, losses, columns. */
static void build_payload(struct bpt_blockenc *e, unsigned coding,
			  const struct strtab *strs, uint32_t str_from,
			  const struct bpt_loss *loss, uint32_t nloss)
{
	struct bpt_buf *p = &e->payload;
	uint32_t ncols = 0;

	p->len = 0;
	e->ncuts = 0;
	buf_varint(p, strs->n - str_from);
	buf_varint(p, str_from);
	for (uint32_t id = str_from; id < strs->n; id++) {
		size_t len;
		const char *s = strtab_get(strs, id, &len);

		buf_str16(p, s, len);
	}
	buf_varint(p, nloss);
	for (uint32_t i = 0; i < nloss; i++) {
		buf_varint(p, loss[i].t0_ns);
		buf_varint(p, loss[i].t1_ns - loss[i].t0_ns);
		buf_varint(p, loss[i].count);
	}
	for (int id = 0; id < COL_KNOWN; id++)
		ncols += e->col[id] && bpt_col_wanted(e->columns, coding, id);
	buf_varint(p, ncols);
	for (int id = 0; id < COL_KNOWN; id++) {
		if (!e->col[id] || !bpt_col_wanted(e->columns, coding, id))
			continue;
		unsigned nplanes;
		size_t planes_at;

		e->colbuf.len = 0;
		/* the time columns hold zigzagged differences of one clock's
		 * readings, whatever the coding: the tick kind may take them */
		if (id == COL_ISSUE || id == COL_QUEUE || id == COL_COMPLETE ||
		    id == COL_SCHED)
			bpt_col_encode_time(&e->colbuf, e->col[id], e->n, e->seed[id],
					    e->tmp, &e->tick[id], &nplanes, &planes_at);
		else
			bpt_col_encode(&e->colbuf, e->col[id], e->n, e->seed[id],
				       &nplanes, &planes_at);
		if (e->colbuf.oom) {
			p->oom = 1;
			return;
		}
		buf_varint(p, (uint64_t)id);
		buf_varint(p, e->colbuf.len);
		planes_at += p->len;
		buf_put(p, e->colbuf.p, e->colbuf.len);
		for (unsigned k = 0; k < nplanes && e->n >= PLANE_CUT_MIN; k++) {
			assert(e->ncuts < sizeof(e->cuts) / sizeof(e->cuts[0]));
			e->cuts[e->ncuts++] = planes_at + (size_t)k * e->n;
		}
	}
}

/* zstd of the payload into zbuf, one zstd block per plane (see cuts). */
static size_t compress(struct bpt_blockenc *e, size_t bound)
{
	ZSTD_outBuffer out = { e->zbuf.p, bound, 0 };
	size_t from = 0, rc;

	ZSTD_CCtx_reset(e->cctx, ZSTD_reset_session_only);
	rc = ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_compressionLevel, e->level);
	if (ZSTD_isError(rc))
		return rc;
	ZSTD_CCtx_setPledgedSrcSize(e->cctx, e->payload.len);
	/* Matches shorter than 7 bytes in planes of noisy low bytes cost
	 * more than the literals they replace (1% of a capture's size). */
	rc = ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_minMatch, 7);
	if (ZSTD_isError(rc))
		return rc;
	for (unsigned i = 0; i <= e->ncuts; i++) {
		size_t to = i < e->ncuts ? e->cuts[i] : e->payload.len;
		ZSTD_inBuffer in = { e->payload.p + from, to - from, 0 };
		ZSTD_EndDirective mode = i < e->ncuts ? ZSTD_e_flush : ZSTD_e_end;

		do {
			rc = ZSTD_compressStream2(e->cctx, &out, &in, mode);
			if (ZSTD_isError(rc))
				return rc;
		} while (rc && out.pos < out.size);
		if (rc)
			return (size_t)-1; /* did not fit: store raw */
		from = to;
	}
	return out.pos;
}

int bpt_blockenc_finish(struct bpt_blockenc *e, uint32_t seq,
			const struct strtab *strs, uint32_t str_from,
			const struct bpt_loss *loss, uint32_t nloss,
			uint8_t hdr[BPT_BLOCK_HDR], const void **stored,
			size_t *stored_len)
{
	uint8_t comp = BPT_COMP_ZSTD;
	unsigned coding = choose_coding(e);

	build_payload(e, coding, strs, str_from, loss, nloss);
	if (e->payload.oom)
		return -ENOMEM;
	if (e->payload.len > BPT_BLOCK_MAX_RAW)
		return -EFBIG;
	size_t bound = ZSTD_compressBound(e->payload.len);

	if (!buf_reserve(&e->zbuf, bound))
		return -ENOMEM;
	size_t z = compress(e, bound);

	if (ZSTD_isError(z) || z >= e->payload.len) {
		comp = BPT_COMP_NONE;
		*stored = e->payload.p;
		*stored_len = e->payload.len;
	} else {
		*stored = e->zbuf.p;
		*stored_len = z;
	}
	if (!e->n)
		e->min_issue = e->max_issue = e->max_complete = 0;
	memcpy(hdr, BPT_BLOCK_MAGIC, 4);
	put_le32(hdr + BPT_BLOCK_SEQ_OFF, seq);
	put_le32(hdr + BPT_BLOCK_NRECORDS_OFF, e->n);
	put_le32(hdr + BPT_BLOCK_STORED_OFF, (uint32_t)*stored_len);
	put_le32(hdr + BPT_BLOCK_RAW_OFF, (uint32_t)e->payload.len);
	hdr[BPT_BLOCK_COMP_OFF] = comp;
	hdr[BPT_BLOCK_CODING_OFF] = (uint8_t)coding;
	hdr[22] = hdr[23] = 0; /* reserved */
	put_le64(hdr + BPT_BLOCK_MIN_ISSUE_OFF, e->min_issue);
	put_le64(hdr + BPT_BLOCK_MAX_ISSUE_OFF, e->max_issue);
	put_le64(hdr + BPT_BLOCK_MAX_COMPLETE_OFF, e->max_complete);
	struct bpt_xxh64_state hs;

	bpt_xxh64_init(&hs, 0);
	bpt_xxh64_update(&hs, hdr, BPT_BLOCK_CKSUM_OFF);
	bpt_xxh64_update(&hs, *stored, *stored_len);
	put_le64(hdr + BPT_BLOCK_CKSUM_OFF, bpt_xxh64_final(&hs));
	return 0;
}
