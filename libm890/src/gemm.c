// SPDX-License-Identifier: MIT
/*
 * DOC: grouped GEMM (hardware spec §7.15)
 *
 * m890_gemm() enqueues the card's GEMM packet: the expert FFN over the
 * expert-major layout a device-routed dispatch leaves (groups = local
 * experts, their counts, their row lists).  m890_gemm_host() computes the
 * same on the CPU, bit for bit: the spec defines every rounding, and this
 * file does the same binary32 operations in the same order.  No multiply
 * is fused with an add whatever the build's -ffp-contract: every product
 * that feeds a sum is m890_f32_mul_rounded()
 * (tests/unit/arith_agree_test.c builds this file with contraction on and
 * off and compares).  It relies on IEEE binary32 arithmetic with
 * subnormals (x86-64 SSE, no flush to zero), as C11's float is on every
 * platform the stack runs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define GEMM_MAX_GROUPS		M890_GEMM_MAX_GROUPS

/* Binary32 constants of §7.15's exponential, as bit patterns. */
#define F32_LOG2E		0x3fb8aa3bu
#define F32_LN2_HI		0x3f317200u
#define F32_LN2_LO		0x35bfbe8eu
#define F32_EXP_MAX		0x42b00000u	/* 88.0 */
#define F32_EXP_MIN		0xc2ae0000u	/* -87.0 */

static const uint32_t exp_poly[7] = {
	0x3ab60b61u, 0x3c088889u, 0x3d2aaaabu, 0x3e2aaaabu,
	0x3f000000u, 0x3f800000u, 0x3f800000u,
};

static float f32_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static uint32_t bits_f32(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static uint16_t gemm_bf16(float f)
{
	uint32_t u = bits_f32(f);

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return 0x7fc0;
	u += 0x7fffu + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static float gemm_scale(uint8_t s)
{
	if (s == 0xff)
		return NAN;
	return f32_bits(s ? (uint32_t)s << 23 : 0x00400000u);
}

static float gemm_e2m1(unsigned int code)
{
	static const float mag[8] = { 0.0f, 0.5f, 1.0f, 1.5f,
				      2.0f, 3.0f, 4.0f, 6.0f };

	return (code & 8) ? -mag[code & 7] : mag[code & 7];
}

static float gemm_e4m3(unsigned int code)
{
	unsigned int e = (code >> 3) & 0xf, m = code & 7;
	float v;

	if ((code & 0x7f) == 0x7f)
		return NAN;
	if (e == 0)
		v = ldexpf((float)m, -9);
	else
		v = f32_bits(((e - 7 + 127) << 23) | (m << 20));
	return (code & 0x80) ? -v : v;
}

/* One operand row of @k elements of @type into @out (as MX_DEQUANT). */
static void gemm_decode(enum m890_data_type type, const uint8_t *p,
			unsigned int k, float *out)
{
	const uint8_t *sc = p + (type == M890_TYPE_MXFP4 ? k / 2 : k);
	float s = 0.0f, x;

	for (unsigned int i = 0; i < k; i++) {
		if (type == M890_TYPE_BF16) {
			out[i] = f32_bits((uint32_t)(p[2 * i] | p[2 * i + 1] << 8) << 16);
			continue;
		}
		if (i % M890_MX_BLOCK == 0)
			s = gemm_scale(sc[i / M890_MX_BLOCK]);
		if (type == M890_TYPE_MXFP4)
			x = gemm_e2m1((p[i / 2] >> ((i & 1) * 4)) & 0xf);
		else
			x = gemm_e4m3(p[i]);
		out[i] = x * s;
	}
}

static float gemm_exp(float t)
{
	float n, r, p;
	int ni;

	if (t > f32_bits(F32_EXP_MAX))
		return INFINITY;
	if (t < f32_bits(F32_EXP_MIN))
		return 0.0f;
	n = rintf(t * f32_bits(F32_LOG2E));
	ni = (int)n;
	r = t - m890_f32_mul_rounded(n, f32_bits(F32_LN2_HI));
	r = r - m890_f32_mul_rounded(n, f32_bits(F32_LN2_LO));
	p = f32_bits(exp_poly[0]);
	for (unsigned int i = 1; i < sizeof(exp_poly) / sizeof(exp_poly[0]); i++)
		p = m890_f32_mul_rounded(p, r) + f32_bits(exp_poly[i]);
	/* gemm_swiglu() adds 1 to it */
	return m890_f32_mul_rounded(p, f32_bits((uint32_t)(ni + 127) << 23));
}

static float gemm_swiglu(float g, float u)
{
	float silu;

	if (isnan(g))
		return NAN;
	silu = g / (1.0f + gemm_exp(-g));
	return silu * u;
}

static float gemm_dot(const float *a, const float *w, unsigned int k)
{
	float acc = 0.0f;

	for (unsigned int i = 0; i < k; i++)
		acc = acc + m890_f32_mul_rounded(a[i], w[i]);
	return acc;
}

M890_EXPORT uint64_t m890_gemm_row_bytes(enum m890_data_type type, uint64_t k)
{
	switch (type) {
	case M890_TYPE_BF16:
		return 2 * k;
	case M890_TYPE_MXFP8:
		return k + k / M890_MX_BLOCK;
	case M890_TYPE_MXFP4:
		return k / 2 + k / M890_MX_BLOCK;
	default:
		return 0;
	}
}

/* The limits of the packet (and of the host reference, which mirrors it). */
static m890_status_t gemm_check_shape(const char *what,
				      const struct m890_gemm_shape *g)
{
	if (!g || g->size != sizeof(*g))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: shape is NULL or of another size", what);
	if (g->a_type != M890_TYPE_BF16 && g->a_type != M890_TYPE_MXFP8)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: activation type %d is not BF16 or MXFP8",
				 what, (int)g->a_type);
	if (g->w_type != M890_TYPE_BF16 && g->w_type != M890_TYPE_MXFP4)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: weight type %d is not BF16 or MXFP4",
				 what, (int)g->w_type);
	if (g->flags & ~(uint32_t)(M890_GEMM_SWIGLU | M890_GEMM_SCATTER_ADD))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: unknown flags 0x%x", what, g->flags);
	if (g->k % M890_MX_BLOCK || g->k > M890_GEMM_MAX_KBLOCKS * M890_MX_BLOCK)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: k %u is not a multiple of 32 up to %u",
				 what, g->k, M890_GEMM_MAX_KBLOCKS * M890_MX_BLOCK);
	if (g->n > M890_GEMM_MAX_N)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: n %u is above %u", what, g->n, M890_GEMM_MAX_N);
	if (g->cap > M890_ROWS_MAX ||
	    (uint64_t)g->groups * g->cap > M890_ROWS_MAX)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: %u groups of %u rows, at most 2^24 rows",
				 what, g->groups, g->cap);
	if ((g->flags & M890_GEMM_SCATTER_ADD) && g->groups > GEMM_MAX_GROUPS)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: SCATTER_ADD over %u groups, at most %u (one packet)",
				 what, g->groups, GEMM_MAX_GROUPS);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_gemm(m890_stream_t s,
				    const struct m890_gemm_shape *g,
				    uint64_t a_va, uint64_t w_va, uint64_t out_va,
				    uint64_t idx_va, uint64_t counts_va,
				    uint64_t weight_va)
{
	M890_API_SCOPE;
	bool scatter;
	uint64_t arow, wgroup, orow;
	union m890_packet p[8];
	unsigned int np = 0;
	m890_status_t st = m890_check(s, M890_OBJ_STREAM, "stream");

	if (st)
		return st;
	if (s->async_error)
		return m890_fail(s->async_error, "%s", s->async_msg);
	st = gemm_check_shape("gemm", g);
	if (st)
		return st;
	if (!(s->dev->info.capabilities & DRM_M890_CAP_GEMM))
		return m890_fail(M890_ERROR_NOT_SUPPORTED,
				 "gemm: %s has no matrix engines (CAPS.GEMM)",
				 s->dev->node);
	scatter = g->flags & M890_GEMM_SCATTER_ADD;
	if (scatter ? !idx_va || !weight_va : weight_va != 0)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "gemm: SCATTER_ADD needs idx and weight, and weight only it");
	if ((idx_va | counts_va | weight_va) & 3)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "gemm: index, count or weight list not 4-byte aligned");
	if (!g->groups || !g->cap || !g->k || !g->n)
		return M890_SUCCESS;
	arow = m890_gemm_row_bytes(g->a_type, g->k);
	orow = 2ull * g->n;
	wgroup = m890_gemm_row_bytes(g->w_type, g->k) *
		 ((g->flags & M890_GEMM_SWIGLU) ? 2ull * g->n : g->n);
	/* STORE packets of up to 255 groups each (SCATTER_ADD: one packet) */
	for (uint32_t g0 = 0; g0 < g->groups; g0 += GEMM_MAX_GROUPS) {
		uint32_t ng = g->groups - g0 < GEMM_MAX_GROUPS ?
			      g->groups - g0 : GEMM_MAX_GROUPS;
		uint64_t x0 = (uint64_t)g0 * g->cap;
		struct m890_pkt_gemm *q = &p[np++].gemm;

		memset(q, 0, sizeof(p[0]));
		q->hdr = M890_PKT_HDR(M890_PKT_GEMM, 0);
		q->a_dtype = (uint8_t)g->a_type;
		q->w_dtype = (uint8_t)g->w_type;
		q->flags = (uint8_t)g->flags;
		q->groups = (uint8_t)ng;
		q->k_blocks = (uint16_t)(g->k / M890_MX_BLOCK);
		q->n = (uint16_t)g->n;
		q->cap = g->cap;
		q->a = (idx_va && !scatter) ? a_va : a_va + x0 * arow;
		q->w = w_va + g0 * wgroup;
		q->out = scatter ? out_va : out_va + x0 * orow;
		q->idx = idx_va ? idx_va + x0 * 4 : 0;
		q->counts = counts_va ? counts_va + g0 * 4ull : 0;
		q->weight = weight_va;
		if (np == sizeof(p) / sizeof(p[0]) || g0 + ng >= g->groups) {
			st = m890_stream_enqueue(s, p, np);
			if (st)
				return st;
			np = 0;
		}
	}
	return M890_SUCCESS;
}

/* Rows of group @gi: its count, checked against the capacity. */
static m890_status_t gemm_host_count(const struct m890_gemm_shape *g,
				     const uint32_t *counts, uint32_t gi,
				     uint32_t *rows)
{
	*rows = counts ? counts[gi] : g->cap;
	if (*rows > g->cap)
		return m890_fail(M890_ERROR_CAPACITY,
				 "gemm_host: group %u has %u rows, capacity %u",
				 gi, *rows, g->cap);
	return M890_SUCCESS;
}

/* m890_gemm_host()'s operands, row sizes and scratch, for its stages. */
struct gemm_host {
	const struct m890_gemm_shape *g;
	const uint8_t *a, *w;
	uint8_t *out;
	const uint32_t *idx;
	const float *weight;
	bool scatter;
	uint64_t arow, wrow, orow, nw;	/* nw: weight rows of a group */
	float *av, *wv;			/* one activation row, a group's weights */
	uint8_t *seen;			/* SCATTER_ADD: output rows written */
};

/*
 * Row @x (group row @x of the packet's list): its activation row by the
 * group's weights into its output row, n bf16 values; with SCATTER_ADD
 * scaled by its weight and added to the row unless this is its first
 * write.  A NONE index skips it.
 */
static m890_status_t gemm_host_row(struct gemm_host *h, uint64_t x)
{
	const struct m890_gemm_shape *g = h->g;
	uint64_t ar = x, orw = x;
	bool fresh = true;

	if (h->idx && h->scatter)
		orw = h->idx[x];
	else if (h->idx)
		ar = h->idx[x];
	if (ar == M890_ROW_NONE || orw == M890_ROW_NONE)
		return M890_SUCCESS;
	if (h->scatter) {
		if (orw >= M890_GEMM_MAX_OUT_ROWS)
			return m890_fail(M890_ERROR_INVALID_ARGUMENT,
					 "gemm_host: output row %llu past 2^20",
					 (unsigned long long)orw);
		fresh = !(h->seen[orw / 8] & (1u << (orw % 8)));
		h->seen[orw / 8] |= (uint8_t)(1u << (orw % 8));
	}
	gemm_decode(g->a_type, h->a + ar * h->arow, g->k, h->av);
	for (uint32_t c = 0; c < g->n; c++) {
		uint8_t *o = h->out + orw * h->orow + 2ull * c;
		float v = gemm_dot(h->av, h->wv + (uint64_t)c * g->k, g->k);

		if (g->flags & M890_GEMM_SWIGLU)
			v = gemm_swiglu(v, gemm_dot(h->av, h->wv + ((uint64_t)g->n + c) *
						    g->k, g->k));
		if (h->scatter) {
			v = m890_f32_mul_rounded(h->weight[x], v);
			if (!fresh)
				v = f32_bits((uint32_t)(o[0] | o[1] << 8) << 16) + v;
		}
		uint16_t hb = gemm_bf16(v);

		o[0] = (uint8_t)hb;
		o[1] = (uint8_t)(hb >> 8);
	}
	return M890_SUCCESS;
}

/* Group @gi of @rows rows: its weights decoded once, then each row. */
static m890_status_t gemm_host_group(struct gemm_host *h, uint32_t gi,
				     uint32_t rows)
{
	const struct m890_gemm_shape *g = h->g;
	m890_status_t st;

	for (uint64_t j = 0; j < h->nw; j++)
		gemm_decode(g->w_type, h->w + (gi * h->nw + j) * h->wrow, g->k,
			    h->wv + j * g->k);
	for (uint32_t pos = 0; pos < rows; pos++) {
		st = gemm_host_row(h, (uint64_t)gi * g->cap + pos);
		if (st)
			return st;
	}
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_gemm_host(const struct m890_gemm_shape *g,
					 const void *a, const void *w,
					 void *out, const uint32_t *idx,
					 const uint32_t *counts,
					 const float *weight)
{
	M890_API_SCOPE;
	struct gemm_host h = {
		.g = g, .a = a, .w = w, .out = out, .idx = idx, .weight = weight,
	};
	m890_status_t st = gemm_check_shape("gemm_host", g);

	if (st)
		return st;
	h.scatter = g->flags & M890_GEMM_SCATTER_ADD;
	if (!a || !w || !out || (h.scatter && (!idx || !weight)))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "gemm_host: NULL operand");
	if (!g->groups || !g->cap || !g->k || !g->n)
		return M890_SUCCESS;
	h.arow = m890_gemm_row_bytes(g->a_type, g->k);
	h.wrow = m890_gemm_row_bytes(g->w_type, g->k);
	h.orow = 2ull * g->n;
	h.nw = (g->flags & M890_GEMM_SWIGLU) ? 2ull * g->n : g->n;
	h.av = malloc((size_t)g->k * sizeof(float));
	h.wv = malloc((size_t)h.nw * g->k * sizeof(float));
	if (h.scatter)
		h.seen = calloc(M890_GEMM_MAX_OUT_ROWS / 8, 1);
	if (!h.av || !h.wv || (h.scatter && !h.seen)) {
		st = m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "gemm_host: out of memory");
		goto out_free;
	}
	for (uint32_t gi = 0; gi < g->groups && !st; gi++) {
		uint32_t rows;

		st = gemm_host_count(g, counts, gi, &rows);
		if (!st && rows)
			st = gemm_host_group(&h, gi, rows);
	}
out_free:
	free(h.seen);
	free(h.wv);
	free(h.av);
	return st;
}
