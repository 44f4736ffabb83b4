/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of the GEMM packet (spec §7.15, CAPS.GEMM)
 *
 * Bit-exact results against a reference computed here with the spec's
 * arithmetic (binary32, round to nearest even, one multiply and one add
 * per term in ascending k, operands dequantized as MX_DEQUANT): BF16 by
 * BF16, MXFP8 by MXFP4 and the mixed forms, SwiGLU, index lists with
 * NONE entries, counts below the capacity (padded rows stay untouched),
 * groups without rows, SCATTER_ADD (first write stores, later ones add);
 * edge values (NaN and 0xff scales, infinities, overflow, subnormals,
 * signed zeros); every field check, faults, a count above the capacity;
 * a packet long enough to run in pieces over several runs, capacity
 * padding (NONE rows) at the largest K and pieces at their largest size
 * (§7.15 "Work is bounded per run"); the exact
 * modelled time of each rule of §10 for GEMM (compute-bound on the
 * matrix engines at each rate, memory-bound weights charged once per
 * group, SCATTER_ADD reads of rows written before); a spec 1.0 card
 * refuses the opcode.
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include <math.h>
#include "m890-qtest.h"

#define HFS_NS          2000000ull
#define NS(n)           ((uint64_t)(n) * HFS_NS)
#define HBM_B(n)        ((uint64_t)(n) * 625)
#define FETCH           NS(50)
#define MAC_BF16        4ull
#define MAC_MX          2ull
#define NONE            M890_INDEX_NONE
#define VA_LIMIT        (1ull << M890_VA_BITS)

static QOSState *qs;
static Card cards[3];           /* card 2: a spec 1.0 card */

/* HBM of card 0 at VA_HBM + off, written through its BAR. */
static void hw(uint64_t off, const void *p, size_t n)
{
    qpci_memwrite(cards[0].dev, cards[0].hbm, off, p, n);
}

static void hr(uint64_t off, void *p, size_t n)
{
    qpci_memread(cards[0].dev, cards[0].hbm, off, p, n);
}

static uint32_t seed = 7;

static uint32_t rnd32(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8 | (seed << 24);
}

/* ---- the spec's arithmetic in C floats (x86-64 SSE, no FMA) ---- */

static float f32(uint32_t u)
{
    float f;

    memcpy(&f, &u, 4);
    return f;
}

static uint32_t u32f(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

static uint16_t bf(float f)
{
    uint32_t u = u32f(f);

    if ((u & 0x7fffffffu) > 0x7f800000u) {
        return 0x7fc0;
    }
    return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
}

static float ref_scale(uint8_t s)
{
    return s == 0xff ? NAN : f32(s ? (uint32_t)s << 23 : 0x00400000u);
}

static float ref_e2m1(unsigned int c)
{
    static const float m[8] = { 0, 0.5f, 1, 1.5f, 2, 3, 4, 6 };

    return (c & 8) ? -m[c & 7] : m[c & 7];
}

static float ref_e4m3(unsigned int c)
{
    unsigned int e = (c >> 3) & 15, m = c & 7;
    float v;

    if ((c & 0x7f) == 0x7f) {
        return NAN;
    }
    v = e ? f32(((e + 120) << 23) | (m << 20)) : ldexpf(m, -9);
    return (c & 0x80) ? -v : v;
}

static uint64_t rowb(int dt, unsigned int k)
{
    return dt == M890_DTYPE_BF16 ? 2 * k :
           dt == M890_DTYPE_MXFP8 ? k + k / 32 : k / 2 + k / 32;
}

static void ref_decode(int dt, const uint8_t *p, unsigned int k, float *o)
{
    const uint8_t *sc = p + (dt == M890_DTYPE_MXFP4 ? k / 2 : k);
    unsigned int i;

    for (i = 0; i < k; i++) {
        if (dt == M890_DTYPE_BF16) {
            o[i] = f32((uint32_t)lduw_le_p(p + 2 * i) << 16);
        } else if (dt == M890_DTYPE_MXFP4) {
            o[i] = ref_e2m1((p[i / 2] >> ((i & 1) * 4)) & 15) *
                   ref_scale(sc[i / 32]);
        } else {
            o[i] = ref_e4m3(p[i]) * ref_scale(sc[i / 32]);
        }
    }
}

static float ref_exp(float t)
{
    static const uint32_t c[7] = {
        0x3ab60b61u, 0x3c088889u, 0x3d2aaaabu, 0x3e2aaaabu,
        0x3f000000u, 0x3f800000u, 0x3f800000u,
    };
    float n, r, p;
    int i;

    if (t > 88.0f) {
        return INFINITY;
    }
    if (t < -87.0f) {
        return 0.0f;
    }
    n = rintf(t * f32(0x3fb8aa3bu));
    r = t - n * f32(0x3f317200u);
    r = r - n * f32(0x35bfbe8eu);
    p = f32(c[0]);
    for (i = 1; i < 7; i++) {
        p = p * r + f32(c[i]);
    }
    return p * f32((uint32_t)((int)n + 127) << 23);
}

static float ref_swiglu(float g, float u)
{
    float silu;

    if (isnan(g)) {
        return NAN;
    }
    silu = g / (1.0f + ref_exp(-g));
    return silu * u;
}

static float ref_dot(const float *a, const float *w, unsigned int k)
{
    float acc = 0.0f;
    unsigned int i;

    for (i = 0; i < k; i++) {
        acc = acc + a[i] * w[i];
    }
    return acc;
}

/* A GEMM case: host copies of the operands and the packet's fields. */
typedef struct Gemm {
    int at, wt;
    unsigned int flags, groups, k, n, cap;
    uint8_t *a, *w;
    uint32_t *idx, *counts;
    float *weight;
    uint16_t *out;      /* expected; starts as the output's contents */
    size_t arows, orows;
    /* HBM offsets */
    uint64_t oa, ow, oo, oi, oc, owt;
} Gemm;

static void ref_gemm(Gemm *g)
{
    unsigned int nw = (g->flags & M890_GEMM_F_SWIGLU) ? 2 * g->n : g->n;
    bool sc = g->flags & M890_GEMM_F_SCATTER_ADD;
    g_autofree float *av = g_new(float, g->k);
    g_autofree float *wv = g_new(float, (size_t)nw * g->k);
    g_autofree uint8_t *seen = g_malloc0(1 << 17);
    unsigned int gi, p, c, j;

    for (gi = 0; gi < g->groups; gi++) {
        unsigned int rows = g->counts ? g->counts[gi] : g->cap;

        for (j = 0; j < nw; j++) {
            ref_decode(g->wt, g->w + (gi * nw + j) * rowb(g->wt, g->k),
                       g->k, wv + j * g->k);
        }
        for (p = 0; p < rows; p++) {
            uint32_t x = gi * g->cap + p, ar = x, orr = x;
            bool fresh = true;

            if (g->idx && sc) {
                orr = g->idx[x];
            } else if (g->idx) {
                ar = g->idx[x];
            }
            if (ar == NONE || orr == NONE) {
                continue;
            }
            if (sc) {
                fresh = !(seen[orr / 8] & (1 << (orr % 8)));
                seen[orr / 8] |= 1 << (orr % 8);
            }
            ref_decode(g->at, g->a + ar * rowb(g->at, g->k), g->k, av);
            for (c = 0; c < g->n; c++) {
                float v = ref_dot(av, wv + c * g->k, g->k);

                if (g->flags & M890_GEMM_F_SWIGLU) {
                    v = ref_swiglu(v, ref_dot(av, wv + (g->n + c) * g->k,
                                              g->k));
                }
                if (sc) {
                    v = g->weight[x] * v;
                    if (!fresh) {
                        v = f32((uint32_t)g->out[orr * g->n + c] << 16) + v;
                    }
                }
                g->out[orr * g->n + c] = bf(v);
            }
        }
    }
}

/* Random bf16 of moderate magnitude (exponents 2^-8 .. 2^7). */
static uint16_t rnd_bf16(void)
{
    uint32_t r = rnd32();

    return (r & 0x8000) | ((120 + r % 16) << 7) | ((r >> 8) & 0x7f);
}

/* Random operand rows: bf16 elements, or MX codes with scales near 1. */
static void rnd_rows(int dt, uint8_t *p, size_t rows, unsigned int k)
{
    size_t r, i, eb = dt == M890_DTYPE_MXFP4 ? k / 2 : k;

    for (r = 0; r < rows; r++) {
        uint8_t *q = p + r * rowb(dt, k);

        if (dt == M890_DTYPE_BF16) {
            for (i = 0; i < k; i++) {
                stw_le_p(q + 2 * i, rnd_bf16());
            }
            continue;
        }
        for (i = 0; i < eb; i++) {
            q[i] = rnd32();
            if (dt == M890_DTYPE_MXFP8 && (q[i] & 0x7f) == 0x7f) {
                q[i] ^= 1;      /* keep NaN codes for the edge test */
            }
        }
        for (i = 0; i < k / 32; i++) {
            q[eb + i] = 120 + rnd32() % 14;
        }
    }
}

static Gemm gemm_new(int at, int wt, unsigned int flags, unsigned int groups,
                     unsigned int k, unsigned int n, unsigned int cap)
{
    unsigned int nw = (flags & M890_GEMM_F_SWIGLU) ? 2 * n : n;
    Gemm g = {
        .at = at, .wt = wt, .flags = flags, .groups = groups, .k = k,
        .n = n, .cap = cap,
    };

    g.arows = (size_t)groups * cap;
    g.orows = (size_t)groups * cap;
    g.a = g_malloc(g.arows * rowb(at, k) + 1);
    g.w = g_malloc((size_t)groups * nw * rowb(wt, k) + 1);
    g.out = g_new0(uint16_t, g.orows * n + 1);
    rnd_rows(at, g.a, g.arows, k);
    rnd_rows(wt, g.w, (size_t)groups * nw, k);
    g.oa = 0x100000;
    g.ow = 0x400000;
    g.oo = 0xa00000;
    g.oi = 0xe00000;
    g.oc = 0xe80000;
    g.owt = 0xf00000;
    return g;
}

static void gemm_free(Gemm *g)
{
    g_free(g->a);
    g_free(g->w);
    g_free(g->out);
    g_free(g->idx);
    g_free(g->counts);
    g_free(g->weight);
}

static union m890_packet gemm_pkt(const Gemm *g)
{
    union m890_packet p = { 0 };

    p.gemm.hdr = M890_PKT_HDR(M890_PKT_GEMM, 0);
    p.gemm.a_dtype = g->at;
    p.gemm.w_dtype = g->wt;
    p.gemm.flags = g->flags;
    p.gemm.groups = g->groups;
    p.gemm.k_blocks = g->k / 32;
    p.gemm.n = g->n;
    p.gemm.cap = g->cap;
    p.gemm.a = VA_HBM + g->oa;
    p.gemm.w = VA_HBM + g->ow;
    p.gemm.out = VA_HBM + g->oo;
    p.gemm.idx = g->idx ? VA_HBM + g->oi : 0;
    p.gemm.counts = g->counts ? VA_HBM + g->oc : 0;
    p.gemm.weight = g->weight ? VA_HBM + g->owt : 0;
    return p;
}

/* Load the operands, fill the output with @fill, run, compare. */
static void gemm_check(Gemm *g, uint16_t fill)
{
    unsigned int nw = (g->flags & M890_GEMM_F_SWIGLU) ? 2 * g->n : g->n;
    size_t on = g->orows * g->n, i;
    g_autofree uint16_t *got = g_new(uint16_t, on);
    union m890_packet p = gemm_pkt(g);

    for (i = 0; i < on; i++) {
        g->out[i] = fill;
    }
    hw(g->oa, g->a, g->arows * rowb(g->at, g->k));
    hw(g->ow, g->w, (size_t)g->groups * nw * rowb(g->wt, g->k));
    hw(g->oo, g->out, on * 2);
    if (g->idx) {
        hw(g->oi, g->idx, (size_t)g->groups * g->cap * 4);
    }
    if (g->counts) {
        hw(g->oc, g->counts, g->groups * 4);
    }
    if (g->weight) {
        hw(g->owt, g->weight, (size_t)g->groups * g->cap * 4);
    }
    ref_gemm(g);
    g_assert_cmphex(run(&cards[0], 0, &p), ==, M890T_IDLE);
    hr(g->oo, got, on * 2);
    for (i = 0; i < on; i++) {
        if (got[i] != g->out[i]) {
            g_test_message("element %zu (row %zu col %zu): 0x%04x, want "
                           "0x%04x", i, i / g->n, i % g->n, got[i],
                           g->out[i]);
        }
        g_assert_cmphex(got[i], ==, g->out[i]);
    }
}

/* Reset card 0 (its clock restarts at 0) and program it again. */
static void fresh(void)
{
    wr(&cards[0], M890_REG_CONTROL, M890_CONTROL_RESET);
    card_restart(&cards[0]);
    g_assert_cmpuint(rdq(&cards[0], M890_REG_CLOCK), ==, 0);
}

static void clock_is(uint64_t hfs)
{
    g_assert_cmpuint(rdq(&cards[0], M890_REG_CLOCK), ==, hfs / HFS_NS);
}

/* ---- results ---- */

static void test_bf16(void)
{
    Gemm g = gemm_new(M890_DTYPE_BF16, M890_DTYPE_BF16, 0, 3, 64, 20, 5);

    gemm_check(&g, 0x1234);
    gemm_free(&g);
}

static void test_mx(void)
{
    static const int at[] = { M890_DTYPE_MXFP8, M890_DTYPE_MXFP8,
                              M890_DTYPE_BF16 };
    static const int wt[] = { M890_DTYPE_MXFP4, M890_DTYPE_BF16,
                              M890_DTYPE_MXFP4 };
    unsigned int i;

    for (i = 0; i < G_N_ELEMENTS(at); i++) {
        Gemm g = gemm_new(at[i], wt[i], 0, 2, 96, 17, 9);

        gemm_check(&g, 0);
        gemm_free(&g);
    }
}

/* Gate/up with SwiGLU; rows by an index list with NONE; counts < cap. */
static void test_swiglu_idx(void)
{
    Gemm g = gemm_new(M890_DTYPE_MXFP8, M890_DTYPE_MXFP4, M890_GEMM_F_SWIGLU,
                      3, 64, 24, 6);
    unsigned int i;

    g.idx = g_new(uint32_t, 18);
    g.counts = g_new(uint32_t, 3);
    for (i = 0; i < 18; i++) {
        g.idx[i] = (i * 7) % 18;
    }
    g.idx[4] = NONE;            /* a skipped row */
    g.idx[13] = 0xdeadbeef;     /* past the count: never read as a row */
    g.counts[0] = 6;
    g.counts[1] = 0;            /* a group without rows */
    g.counts[2] = 1;            /* padded: rows 13.. untouched */
    gemm_check(&g, 0x5555);
    gemm_free(&g);
}

/* The down GEMM into the combine's rows: first write stores, then adds. */
static void test_scatter_add(void)
{
    Gemm g = gemm_new(M890_DTYPE_BF16, M890_DTYPE_MXFP4,
                      M890_GEMM_F_SCATTER_ADD, 3, 64, 32, 4);
    unsigned int i;

    g.idx = g_new(uint32_t, 12);
    g.weight = g_new(float, 12);
    g.counts = g_new(uint32_t, 3);
    for (i = 0; i < 12; i++) {
        g.idx[i] = (i * 5) % 7;         /* rows 0..6, several twice */
        g.weight[i] = 0.125f * (1 + i % 5);
    }
    g.idx[2] = NONE;
    g.counts[0] = 4;
    g.counts[1] = 3;
    g.counts[2] = 4;
    gemm_check(&g, 0x7f80);     /* +inf: a stored row does not read it */
    gemm_free(&g);
}

/* NaN and 0xff scales, infinities, overflow, subnormals, signed zeros. */
static void test_edges(void)
{
    Gemm g = gemm_new(M890_DTYPE_MXFP8, M890_DTYPE_MXFP4, 0, 1, 64, 8, 6);
    uint64_t ar = rowb(g.at, 64), wr_ = rowb(g.wt, 64);
    unsigned int i;

    /* row 0: a NaN scale in block 1 */
    g.a[0 * ar + 64 + 1] = 0xff;
    /* row 1: an E4M3 NaN element */
    g.a[1 * ar + 5] = 0x7f;
    /* row 2: the largest scales: products overflow to infinities */
    g.a[2 * ar + 64] = 254;
    g.a[2 * ar + 65] = 254;
    /* row 3: the smallest scale: subnormal operands and products */
    g.a[3 * ar + 64] = 0;
    g.a[3 * ar + 65] = 1;
    /* row 4: all -0 elements: the sum of -0 products is +0 */
    memset(g.a + 4 * ar, 0x80, 64);
    /* row 5: zeros */
    memset(g.a + 5 * ar, 0, 64);
    /* weight row 0: a NaN scale; row 1: the largest scale */
    g.w[0 * wr_ + 32] = 0xff;
    g.w[1 * wr_ + 32] = 254;
    g.w[1 * wr_ + 33] = 254;
    /* weight row 2: the smallest scale; row 3: all -0 */
    g.w[2 * wr_ + 32] = 0;
    g.w[2 * wr_ + 33] = 0;
    memset(g.w + 3 * wr_, 0x88, 32);
    gemm_check(&g, 0);
    for (i = 0; i < 8; i++) {
        g_assert_cmphex(g.out[0 * 8 + i], ==, 0x7fc0);  /* NaN scale */
        g_assert_cmphex(g.out[1 * 8 + i], ==, 0x7fc0);  /* NaN element */
    }
    gemm_free(&g);

    /* bf16 infinities: inf * 0 is NaN, inf * finite is inf */
    g = gemm_new(M890_DTYPE_BF16, M890_DTYPE_BF16, M890_GEMM_F_SWIGLU, 1, 32,
                 4, 3);
    stw_le_p(g.a + 0, 0x7f80);
    stw_le_p(g.a + 64 + 2, 0xff80);
    memset(g.w, 0, 64);          /* gate row 0 all zero: inf * 0 */
    for (i = 0; i < 32; i++) {   /* gate row 1: huge, SwiGLU saturates */
        stw_le_p(g.w + 64 + 2 * i, 0x4f00);
    }
    gemm_check(&g, 0);
    g_assert_cmphex(g.out[0], ==, 0x7fc0);
    gemm_free(&g);
}

/* More than a run's 512 Ki multiply-adds: the packet resumes in pieces. */
static void test_pieces(void)
{
    Gemm g = gemm_new(M890_DTYPE_MXFP8, M890_DTYPE_MXFP4, M890_GEMM_F_SWIGLU,
                      2, 1024, 64, 40);

    /* 2 * 40 rows * 128 weight rows * 1024 = 10.5 Mi multiply-adds */
    gemm_check(&g, 0);
    gemm_free(&g);
}

/*
 * Capacity padding through the index list at the largest K (16384), with
 * SwiGLU: 2 groups of 16384 rows, all NONE but 3 rows of group 0, whose
 * first tile is all NONE like the whole of group 1.  Each live row is
 * 512 Ki multiply-adds, a run's arithmetic, so the packet takes at least
 * three runs; the 4093 NONE tiles compute nothing (a step each), the
 * first tile of each group still reads its weights.  Exact results and
 * exact modelled time: the weights of both groups (counts above 0) once,
 * the index list, the 3 live A and output rows.
 */
static void test_none_padding(void)
{
    const unsigned int k = M890_GEMM_MAX_KBLOCKS * 32, cap = 16384;
    Gemm g = gemm_new(M890_DTYPE_MXFP8, M890_DTYPE_MXFP4, M890_GEMM_F_SWIGLU,
                      2, k, 16, 2);
    uint64_t bytes, macs;
    unsigned int i;

    /* 4 A rows; an output of 2 * cap rows, three of them written */
    g.cap = cap;
    g.orows = 2ull * cap;
    g_free(g.out);
    g.out = g_new0(uint16_t, g.orows * g.n + 1);
    g.idx = g_new(uint32_t, 2 * cap);
    for (i = 0; i < 2 * cap; i++) {
        g.idx[i] = NONE;
    }
    g.idx[100] = 3;
    g.idx[9000] = 0;
    g.idx[cap - 1] = 2;
    fresh();
    gemm_check(&g, 0x3c00);
    macs = 3ull * 32 * k;
    bytes = 2ull * cap * 4 +                            /* idx */
            2ull * 32 * rowb(M890_DTYPE_MXFP4, k) +     /* W of both groups */
            3 * (rowb(M890_DTYPE_MXFP8, k) + 16 * 2);   /* A rows, out rows */
    g_assert_cmpuint(macs, >, 2 * 512 * 1024);  /* a run: 512 Ki (§4.3) */
    g_assert_cmpuint(HBM_B(bytes), >, MAC_MX * macs);
    clock_is(FETCH + HBM_B(bytes));
    gemm_free(&g);
}

/*
 * Pieces at their largest, 256 Ki multiply-adds, at the largest K: a tile
 * of 8 rows by one column (two weight rows) with SwiGLU; without it, 9
 * rows (a tile of 8 and one of 1) by 2 columns, n = 17 (the last piece one
 * column).  Exact results and exact modelled time, both memory-bound.
 */
static void test_max_piece(void)
{
    const unsigned int k = M890_GEMM_MAX_KBLOCKS * 32;
    Gemm g = gemm_new(M890_DTYPE_MXFP8, M890_DTYPE_MXFP4, M890_GEMM_F_SWIGLU,
                      1, k, 16, 8);
    uint64_t bytes, macs;

    fresh();
    gemm_check(&g, 0);
    macs = 8ull * 32 * k;
    bytes = 32ull * rowb(M890_DTYPE_MXFP4, k) +
            8 * (rowb(M890_DTYPE_MXFP8, k) + 16 * 2);
    g_assert_cmpuint(HBM_B(bytes), >, MAC_MX * macs);
    clock_is(FETCH + HBM_B(bytes));
    gemm_free(&g);

    g = gemm_new(M890_DTYPE_BF16, M890_DTYPE_BF16, 0, 1, k, 17, 9);
    fresh();
    gemm_check(&g, 0);
    macs = 9ull * 17 * k;
    bytes = 17ull * 2 * k + 9 * (2ull * k + 17 * 2);
    g_assert_cmpuint(HBM_B(bytes), >, MAC_BF16 * macs);
    clock_is(FETCH + HBM_B(bytes));
    gemm_free(&g);
}

/* ---- fields and faults ---- */

static void test_fields(void)
{
    Gemm g = gemm_new(M890_DTYPE_BF16, M890_DTYPE_BF16, 0, 1, 32, 4, 2);
    union m890_packet ok = gemm_pkt(&g), p;
    Card *a = &cards[0];

    p = ok;
    p.gemm.a_dtype = M890_DTYPE_FP32;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.a_dtype = M890_DTYPE_MXFP4;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.w_dtype = M890_DTYPE_MXFP8;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.flags = 4;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.k_blocks = M890_GEMM_MAX_KBLOCKS + 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.n = M890_GEMM_MAX_N + 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.cap = M890_ROWS_MAX + 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.groups = 2;
    p.gemm.cap = M890_ROWS_MAX / 2 + 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.idx = VA_HBM + 2;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.counts = VA_HBM + 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.weight = VA_HBM;              /* weight without SCATTER_ADD */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.flags = M890_GEMM_F_SCATTER_ADD;      /* no idx, no weight */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.w = VA_LIMIT - 100;      /* the weights leave the VA space */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.hdr |= 1u << 16;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    /* zero sizes are no-ops that still check the fields */
    p = ok;
    p.gemm.groups = 0;
    p.gemm.w = VA_NONE;
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);
    p.gemm.flags = 8;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = ok;
    p.gemm.n = 0;
    p.gemm.out = VA_NONE;
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);
    gemm_free(&g);
}

static void test_faults(void)
{
    Gemm g = gemm_new(M890_DTYPE_BF16, M890_DTYPE_BF16, 0, 2, 32, 4, 2);
    union m890_packet ok = gemm_pkt(&g), p;
    Card *a = &cards[0];
    uint32_t v[2] = { 1, 3 };

    p = ok;
    p.gemm.w = VA_NONE;
    expect_error(a, 0, &p, M890_QERR_MMU_FAULT);
    g_assert_cmphex(rdq(a, M890_REG_MMU_FAULT_ADDR), ==, VA_NONE);
    p = ok;
    p.gemm.a = VA_NONE;
    expect_error(a, 0, &p, M890_QERR_MMU_FAULT);
    /* a count above the capacity: group 0 done, group 1 refused */
    hw(g.oc, v, 8);
    p = ok;
    p.gemm.counts = VA_HBM + g.oc;
    expect_error(a, 0, &p, M890_QERR_CAPACITY);
    /* an index that puts a row past the VA space */
    v[0] = 0xfffffff0u;
    hw(g.oi, v, 4);
    p = ok;
    p.gemm.a = VA_LIMIT - 64 * 4;
    p.gemm.idx = VA_HBM + g.oi;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    /* SCATTER_ADD: an output row number of 2^20 */
    v[0] = M890_GEMM_MAX_OUT_ROWS;
    hw(g.oi, v, 4);
    p = ok;
    p.gemm.flags = M890_GEMM_F_SCATTER_ADD;
    p.gemm.idx = VA_HBM + g.oi;
    p.gemm.weight = VA_HBM + g.owt;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    gemm_free(&g);
}

/* ---- timing (spec §10, matrix engines) ---- */

static void test_timing(void)
{
    Gemm g = gemm_new(M890_DTYPE_BF16, M890_DTYPE_BF16, 0, 1, 256, 64, 64);
    union m890_packet p;
    uint64_t bytes, macs;
    uint32_t c[2] = { 64, 0 };

    /* BF16 by BF16, 64 rows: memory-bound, W, A and out once each */
    fresh();
    p = gemm_pkt(&g);
    g_assert_cmphex(run(&cards[0], 0, &p), ==, M890T_IDLE);
    macs = 64ull * 64 * 256;
    bytes = 64 * 512 + 64 * 512 + 64 * 128;     /* W, A, out */
    g_assert_cmpuint(MAC_BF16 * macs, <, HBM_B(bytes));
    clock_is(FETCH + HBM_B(bytes));
    g_assert_cmpuint(rdq(&cards[0], M890_REG_CLOCK), ==, 73);

    /*
     * Compute-bound: MXFP8 by MXFP4 with SwiGLU, 504 rows of K = 960 by
     * 992 weight rows, 480 Mi multiply-adds at 2 hfs (the MX rate).
     */
    gemm_free(&g);
    g = gemm_new(M890_DTYPE_MXFP8, M890_DTYPE_MXFP4, M890_GEMM_F_SWIGLU, 1,
                 960, 496, 504);
    fresh();
    p = gemm_pkt(&g);
    g_assert_cmphex(run(&cards[0], 0, &p), ==, M890T_IDLE);
    macs = 504ull * 992 * 960;
    bytes = 992ull * rowb(M890_DTYPE_MXFP4, 960) +
            504ull * (rowb(M890_DTYPE_MXFP8, 960) + 496 * 2);
    g_assert_cmpuint(MAC_MX * macs, >, HBM_B(bytes));
    clock_is(FETCH + MAC_MX * macs);

    /*
     * One row, two groups of which one is empty: weights once, per group
     * with rows; memory-bound on HBM; the count list charged.
     */
    gemm_free(&g);
    g = gemm_new(M890_DTYPE_MXFP8, M890_DTYPE_MXFP4, M890_GEMM_F_SWIGLU, 2,
                 4096, 512, 2);
    c[0] = 1;
    hw(g.oc, c, 8);
    fresh();
    p = gemm_pkt(&g);
    p.gemm.counts = VA_HBM + g.oc;
    g_assert_cmphex(run(&cards[0], 0, &p), ==, M890T_IDLE);
    bytes = 4 + 4 +                             /* counts */
            1024ull * rowb(M890_DTYPE_MXFP4, 4096) +   /* group 0's W */
            rowb(M890_DTYPE_MXFP8, 4096) + 512 * 2;    /* A row, out row */
    macs = 1024ull * 4096;
    g_assert_cmpuint(HBM_B(bytes), >, MAC_MX * macs);
    clock_is(FETCH + HBM_B(bytes));

    /* SCATTER_ADD: a row written twice reads it the second time */
    gemm_free(&g);
    g = gemm_new(M890_DTYPE_BF16, M890_DTYPE_BF16, M890_GEMM_F_SCATTER_ADD,
                 2, 2048, 1024, 1);
    g.idx = g_new0(uint32_t, 2);        /* both groups: row 0 */
    g.weight = g_new(float, 2);
    g.weight[0] = g.weight[1] = 1.0f;
    hw(g.oi, g.idx, 8);
    hw(g.owt, g.weight, 8);
    fresh();
    p = gemm_pkt(&g);
    g_assert_cmphex(run(&cards[0], 0, &p), ==, M890T_IDLE);
    bytes = 2 * 4 + 2 * 4 +                     /* idx, weight */
            2 * 1024ull * 4096 +                /* W of both groups */
            2 * 4096 +                          /* A rows */
            3 * 2048;                           /* out: 2 writes, 1 read */
    macs = 2 * 1024ull * 2048;
    g_assert_cmpuint(HBM_B(bytes), >, MAC_BF16 * macs);
    clock_is(FETCH + HBM_B(bytes));
    gemm_free(&g);
}

/* A spec 1.0 card: no CAPS.GEMM, opcode 0x0e undefined. */
static void test_spec_1_0(void)
{
    Card *old = &cards[2];
    union m890_packet p = { 0 };

    g_assert_cmphex(rd(old, M890_REG_CAPS) & M890_HWCAP_GEMM, ==, 0);
    p.gemm.hdr = M890_PKT_HDR(M890_PKT_GEMM, 0);
    expect_error(old, 0, &p, M890_QERR_BAD_OPCODE);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    qs = m890t_boot_with_1_0();
    card_init(qs, &cards[0], 0);
    card_init(qs, &cards[1], 1);
    card_init_at(qs, &cards[2], QPCI_DEVFN(6, 0), 1);
    g_assert_cmphex(rd(&cards[0], M890_REG_CAPS) & M890_HWCAP_GEMM, ==,
                    M890_HWCAP_GEMM);
    qtest_add_func("/m890/gemm/bf16", test_bf16);
    qtest_add_func("/m890/gemm/mx", test_mx);
    qtest_add_func("/m890/gemm/swiglu-idx", test_swiglu_idx);
    qtest_add_func("/m890/gemm/scatter-add", test_scatter_add);
    qtest_add_func("/m890/gemm/edges", test_edges);
    qtest_add_func("/m890/gemm/pieces", test_pieces);
    qtest_add_func("/m890/gemm/none-padding", test_none_padding);
    qtest_add_func("/m890/gemm/max-piece", test_max_piece);
    qtest_add_func("/m890/gemm/fields", test_fields);
    qtest_add_func("/m890/gemm/faults", test_faults);
    qtest_add_func("/m890/gemm/timing", test_timing);
    qtest_add_func("/m890/gemm/spec-1.0", test_spec_1_0);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
