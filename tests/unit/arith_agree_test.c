// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: the device's arithmetic against libm890's host reference
 *
 * The card computes REDUCE, MX_QUANT, MX_DEQUANT and BF16 rounding in
 * exact integer code (qemu-device/m890_arith.c, spec §7.10, §7.11,
 * §7.13); libm890's host reference (libm890/src/mx.c) computes them with
 * the host's floating point.  unit.mk builds this test twice, with the
 * host reference compiled with -ffp-contract=fast (and -mfma where the
 * CPU has FMA, so that contraction really fuses) and with
 * -ffp-contract=off; both builds must agree with the device bit for bit:
 * every BF16 value, every element code with every scale, MX blocks with
 * ties, subnormals, saturation and non-finite inputs, REDUCE rows with
 * random weights over the whole exponent range.
 *
 * GEMM (spec §7.15): libm890/src/gemm.c, the host reference of the
 * device's GEMM (qemu-device/m890_gemm.c, QEMU softfloat, which this
 * host test cannot link), is built with the same flags as mx.c and once
 * more with -ffp-contract=off under other names (arith_gemm_off_*):
 * both must give the same bf16 bits for every operand type pair, with
 * SWIGLU, a gathered input and SCATTER_ADD; without SWIGLU both must
 * also equal the spec's order redone here with the device's integer
 * binary32 primitives.  A canary built with the reference's flags shows
 * that the fast build really fuses a * b + c when -mfma is given, so
 * that the comparison can fail.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "m890_arith.h"

/* gemm.c built with -ffp-contract=off, its exported names prefixed. */
m890_status_t arith_gemm_off_host(const struct m890_gemm_shape *g,
                                  const void *a, const void *w, void *out,
                                  const uint32_t *idx, const uint32_t *counts,
                                  const float *weight);
/* arith_contract.c, built with the reference's flags: a * b + c. */
float arith_contract_canary(float a, float b, float c);

/* gemm.c's m890_gemm() enqueues; this test calls only m890_gemm_host(). */
m890_status_t m890_stream_enqueue(struct m890_stream *s,
                                  const union m890_packet *pkts, uint32_t n)
{
    (void)s;
    (void)pkts;
    (void)n;
    abort();
}

static int n, failed;

static void ok(int cond, const char *what, unsigned long bad)
{
    n++;
    printf("%sok %d - %s", cond ? "" : "not ", n, what);
    if (!cond) {
        printf(" (%lu mismatches)", bad);
        failed++;
    }
    printf("\n");
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A binary32 pattern: any, subnormal, near 1, or of a chosen exponent. */
static uint32_t rnd_f32(unsigned int emin, unsigned int espan)
{
    uint64_t r = next();
    uint32_t u = (uint32_t)(r >> 32);

    switch (r & 7) {
    case 0:
        return u;
    case 1:
        return u & 0x807fffffu;
    case 2:
        return (u & 0x80ffffffu) | 0x3f000000u;
    default:
        return (u & 0x807fffffu) |
               (uint32_t)(emin + (r >> 8) % espan) << 23;
    }
}

static float u2f(uint32_t u)
{
    float f;

    memcpy(&f, &u, 4);
    return f;
}

static void test_bf16(void)
{
    unsigned long bad = 0;
    uint32_t i;

    for (i = 0; i < 0x10000; i++) {
        float f = m890_bf16_to_float((uint16_t)i);
        uint32_t u;

        memcpy(&u, &f, 4);
        bad += u != m890_bf16_to_f32((uint16_t)i);
    }
    ok(!bad, "bf16 -> fp32: all 65536 values", bad);
    bad = 0;
    for (i = 0; i < 4000000; i++) {
        uint32_t u = i < 0x10000 ? i << 16 | 0x8000 : rnd_f32(0, 256);

        bad += m890_float_to_bf16(u2f(u)) != m890_f32_to_bf16(u);
    }
    ok(!bad, "fp32 -> bf16: ties of every value, 4M random", bad);
}

static void test_dequant(enum m890_data_type t, const M890MxFmt *f,
                         const char *what)
{
    unsigned int codes = f == &m890_fp4 ? 16 : 256, c, s, j;
    uint8_t el[M890_MX_BLOCK], sc;
    uint32_t ref32[M890_MX_BLOCK];
    uint16_t ref16[M890_MX_BLOCK];
    unsigned long bad = 0;

    for (s = 0; s < 256; s++) {
        for (c = 0; c < codes; c++) {
            memset(el, 0, sizeof(el));
            for (j = 0; j < M890_MX_BLOCK; j++) {
                unsigned int code = (c + j) % codes;

                if (f == &m890_fp4) {
                    el[j / 2] |= code << ((j & 1) * 4);
                } else {
                    el[j] = code;
                }
            }
            sc = s;
            if (m890_mx_dequantize_host(t, M890_TYPE_FP32, el, &sc,
                                        M890_MX_BLOCK, ref32) ||
                m890_mx_dequantize_host(t, M890_TYPE_BF16, el, &sc,
                                        M890_MX_BLOCK, ref16)) {
                bad++;
                continue;
            }
            for (j = 0; j < M890_MX_BLOCK; j++) {
                uint32_t d = m890_mx_dequant(f, (c + j) % codes, s);

                bad += ref32[j] != d;
                bad += ref16[j] != m890_f32_to_bf16(d);
            }
        }
    }
    ok(!bad, what, bad);
}

/* A block: random values around a random magnitude, some ties. */
static void rnd_block(uint32_t *v)
{
    unsigned int e = next() % 254, j;

    for (j = 0; j < M890_MX_BLOCK; j++) {
        uint64_t r = next();

        v[j] = rnd_f32(e > 20 ? e - 20 : 0, 24);
        if (!(r & 0x3f00)) {
            v[j] = (uint32_t)(r >> 32) | 0x7f800000u;     /* inf or NaN */
        } else if ((r & 0x30000) == 0) {
            v[j] &= 0xfff00000u;        /* short mantissa: ties */
        } else if ((r & 0x3c0000) == 0) {
            v[j] &= 0x80000000u;        /* +-0 */
        }
    }
}

static void test_quant(enum m890_data_type t, const M890MxFmt *f,
                       const char *what)
{
    uint32_t v[M890_MX_BLOCK];
    uint16_t h[M890_MX_BLOCK];
    uint8_t el[M890_MX_BLOCK], code[M890_MX_BLOCK], sc, dsc;
    unsigned long bad = 0;
    unsigned int i, j, wide;

    for (i = 0; i < 200000; i++) {
        rnd_block(v);
        for (wide = 0; wide < 2; wide++) {
            if (wide) {
                for (j = 0; j < M890_MX_BLOCK; j++) {
                    h[j] = m890_f32_to_bf16(v[j]);
                    v[j] = m890_bf16_to_f32(h[j]);
                }
            }
            if (m890_mx_quantize_host(t, wide ? M890_TYPE_BF16 :
                                      M890_TYPE_FP32, wide ? (void *)h :
                                      (void *)v, M890_MX_BLOCK, el, &sc)) {
                bad++;
                continue;
            }
            dsc = m890_mx_quant_block(f, v, code);
            bad += sc != dsc;
            for (j = 0; j < M890_MX_BLOCK; j++) {
                unsigned int r = f == &m890_fp4 ?
                                 (el[j / 2] >> ((j & 1) * 4)) & 0xf : el[j];

                bad += r != code[j];
            }
        }
    }
    ok(!bad, what, bad);
}

/* REDUCE rows of k inputs: host reference against the device's sums. */
static void test_reduce(enum m890_data_type t, const char *what)
{
    enum { K = 8, H = 16 };
    uint32_t src[K * H], w[K], idx[K], ref[H], d, x;
    uint16_t src16[K * H], ref16[H];
    unsigned long bad = 0;
    unsigned int i, j, c, e;

    for (i = 0; i < 100000; i++) {
        e = next() % 230;
        for (j = 0; j < K; j++) {
            idx[j] = next() % 5 ? K - 1 - j : M890_ROW_NONE;
            w[j] = rnd_f32(e > 10 ? e - 10 : 0, 30);
            for (c = 0; c < H; c++) {
                src[j * H + c] = rnd_f32(e > 10 ? e - 10 : 0, 30);
                src16[j * H + c] = m890_f32_to_bf16(src[j * H + c]);
            }
        }
        if (t == M890_TYPE_BF16 ?
            m890_reduce_host(t, src16, ref16, idx, (const float *)w, 1, H,
                             K) :
            m890_reduce_host(t, src, ref, idx, (const float *)w, 1, H, K)) {
            bad++;
            continue;
        }
        for (c = 0; c < H; c++) {
            d = 0;
            for (j = 0; j < K; j++) {
                if (idx[j] == M890_ROW_NONE) {
                    continue;
                }
                x = t == M890_TYPE_BF16 ?
                    m890_bf16_to_f32(src16[idx[j] * H + c]) :
                    src[idx[j] * H + c];
                d = m890_f32_add(d, m890_f32_mul(w[j], x));
            }
            bad += t == M890_TYPE_BF16 ? ref16[c] != m890_f32_to_bf16(d) :
                                         ref[c] != d;
        }
    }
    ok(!bad, what, bad);
}

/* The GEMM problems: groups, capacity, k, n, rows of a and of out. */
enum { GEMM_G = 2, GEMM_CAP = 4, GEMM_K = 64, GEMM_N = 6,
       GEMM_ROWS = GEMM_G * GEMM_CAP };

/*
 * An element of a GEMM problem: a binary32 near 1 (exponents 120..134), now and then
 * any pattern (subnormal, huge, infinite, NaN).
 */
static uint32_t gemm_rnd_f32(void)
{
    uint64_t r = next();

    if (!(r & 0x3f)) {
        return (uint32_t)(r >> 32);
    }
    return ((uint32_t)(r >> 32) & 0x807fffffu) |
           (uint32_t)(120 + (r >> 8) % 15) << 23;
}

/* @rows operand rows of @k elements of @t (BF16, MXFP8 or MXFP4). */
static void gemm_rnd_rows(enum m890_data_type t, uint8_t *p,
                          unsigned int rows, unsigned int k)
{
    uint64_t rb = m890_gemm_row_bytes(t, k), i;
    unsigned int j, el = t == M890_TYPE_MXFP4 ? k / 2 : k;

    for (i = 0; i < rows; i++) {
        uint8_t *q = p + i * rb;

        for (j = 0; j < k && t == M890_TYPE_BF16; j++) {
            uint16_t h = m890_f32_to_bf16(gemm_rnd_f32());

            q[2 * j] = (uint8_t)h;
            q[2 * j + 1] = (uint8_t)(h >> 8);
        }
        if (t == M890_TYPE_BF16) {
            continue;
        }
        for (j = 0; j < el; j++) {
            q[j] = (uint8_t)next();
        }
        for (j = 0; j < k / M890_MX_BLOCK; j++) {
            uint64_t r = next();

            q[el + j] = (r & 0x1f) ? 112 + (r >> 8) % 24 : (uint8_t)(r >> 16);
        }
    }
}

/* Element @i of operand row @p of type @t, as MX_DEQUANT gives it. */
static uint32_t gemm_elem(enum m890_data_type t, const uint8_t *p,
                          unsigned int k, unsigned int i)
{
    unsigned int el = t == M890_TYPE_MXFP4 ? k / 2 : k;
    uint8_t sc = p[el + i / M890_MX_BLOCK];

    switch (t) {
    case M890_TYPE_BF16:
        return m890_bf16_to_f32((uint16_t)(p[2 * i] | p[2 * i + 1] << 8));
    case M890_TYPE_MXFP8:
        return m890_mx_dequant(&m890_fp8, p[i], sc);
    default:
        return m890_mx_dequant(&m890_fp4, (p[i / 2] >> ((i & 1) * 4)) & 0xf,
                               sc);
    }
}

/*
 * Output element (row @x, column @c) of a problem without SWIGLU in the
 * spec's order with the device's primitives: the sum from +0.0 in
 * ascending k, every product and sum rounded; with SCATTER_ADD times
 * @weight[x], plus the row's bf16 value @prev unless @fresh.
 */
static uint16_t gemm_expect(const struct m890_gemm_shape *g,
                            const uint8_t *arow, const uint8_t *wrow,
                            const float *weight, uint64_t x, bool fresh,
                            uint16_t prev)
{
    uint32_t acc = 0, wx;
    unsigned int i;

    for (i = 0; i < g->k; i++) {
        acc = m890_f32_add(acc, m890_f32_mul(gemm_elem(g->a_type, arow,
                                                       g->k, i),
                                             gemm_elem(g->w_type, wrow,
                                                       g->k, i)));
    }
    if (g->flags & M890_GEMM_SCATTER_ADD) {
        memcpy(&wx, &weight[x], 4);
        acc = m890_f32_mul(wx, acc);
        if (!fresh) {
            acc = m890_f32_add(m890_bf16_to_f32(prev), acc);
        }
    }
    return m890_f32_to_bf16(acc);
}

/* The integer expectation of every output row a problem writes. */
static unsigned long gemm_check(const struct m890_gemm_shape *g,
                                const uint8_t *a, const uint8_t *w,
                                const uint8_t *out, const uint32_t *idx,
                                const uint32_t *counts, const float *weight,
                                uint16_t *want)
{
    uint64_t arb = m890_gemm_row_bytes(g->a_type, g->k);
    uint64_t wrb = m890_gemm_row_bytes(g->w_type, g->k), x, ar, orw;
    bool scatter = g->flags & M890_GEMM_SCATTER_ADD;
    uint8_t seen[GEMM_ROWS] = { 0 };
    unsigned long bad = 0;
    uint32_t gi, pos, c;

    for (gi = 0; gi < g->groups; gi++) {
        for (pos = 0; pos < counts[gi]; pos++) {
            x = (uint64_t)gi * g->cap + pos;
            ar = idx && !scatter ? idx[x] : x;
            orw = scatter ? idx[x] : x;
            if (ar == M890_ROW_NONE || orw == M890_ROW_NONE) {
                continue;
            }
            for (c = 0; c < g->n; c++) {
                want[orw * g->n + c] =
                    gemm_expect(g, a + ar * arb,
                                w + ((uint64_t)gi * g->n + c) * wrb, weight,
                                x, !seen[orw], want[orw * g->n + c]);
            }
            seen[orw] = 1;
        }
    }
    for (x = 0; x < (uint64_t)GEMM_ROWS * g->n; x++) {
        bad += want[x] != (uint16_t)(out[2 * x] | out[2 * x + 1] << 8);
    }
    return bad;
}

/*
 * GEMM problems with @flags (and, if @gather, a gathered input) for every
 * operand type pair: this build's reference against the
 * -ffp-contract=off one and, without SWIGLU, against gemm_check().
 */
static void test_gemm(uint32_t flags, bool gather, const char *what)
{
    enum { G = GEMM_G, CAP = GEMM_CAP, K = GEMM_K, N = GEMM_N,
           ROWS = GEMM_ROWS, ITER = 1500 };
    static const enum m890_data_type at[] = { M890_TYPE_BF16,
                                              M890_TYPE_MXFP8 };
    static const enum m890_data_type wt[] = { M890_TYPE_BF16,
                                              M890_TYPE_MXFP4 };
    static uint8_t a[ROWS * 2 * K], w[G * 2 * N * 2 * K];
    static uint8_t out[ROWS * N * 2], out_off[ROWS * N * 2];
    uint32_t idx[G * CAP], counts[G];
    uint16_t want[ROWS * N];
    float weight[G * CAP];
    struct m890_gemm_shape g = M890_GEMM_SHAPE_INIT;
    unsigned long bad = 0;
    unsigned int i, j, t;
    bool scatter = flags & M890_GEMM_SCATTER_ADD;

    for (t = 0; t < 4; t++) {
        g.flags = flags;
        g.a_type = at[t & 1];
        g.w_type = wt[t >> 1];
        g.groups = G;
        g.k = K;
        g.n = N;
        g.cap = CAP;
        for (i = 0; i < ITER; i++) {
            gemm_rnd_rows(g.a_type, a, ROWS, K);
            gemm_rnd_rows(g.w_type, w, G * N * (flags & M890_GEMM_SWIGLU ?
                                                2 : 1), K);
            for (j = 0; j < G; j++) {
                counts[j] = next() % (CAP + 1);
            }
            for (j = 0; j < G * CAP; j++) {
                uint32_t u = gemm_rnd_f32();

                idx[j] = next() % 8 ? next() % ROWS : M890_ROW_NONE;
                memcpy(&weight[j], &u, 4);
            }
            for (j = 0; j < ROWS * N * 2; j++) {
                out[j] = out_off[j] = (uint8_t)next();
            }
            for (j = 0; j < ROWS * N; j++) {
                want[j] = (uint16_t)(out[2 * j] | out[2 * j + 1] << 8);
            }
            if (m890_gemm_host(&g, a, w, out, gather || scatter ? idx : NULL,
                               counts, scatter ? weight : NULL) ||
                arith_gemm_off_host(&g, a, w, out_off,
                                    gather || scatter ? idx : NULL, counts,
                                    scatter ? weight : NULL)) {
                bad++;
                continue;
            }
            bad += memcmp(out, out_off, sizeof(out)) != 0;
            if (!(flags & M890_GEMM_SWIGLU)) {
                bad += gemm_check(&g, a, w, out, gather || scatter ? idx :
                                  NULL, counts, weight, want) != 0;
            }
        }
    }
    ok(!bad, what, bad);
}

/*
 * The canary: 1 + 2^-23 squared is 1 + 2^-22 + 2^-46; minus (1 + 2^-22)
 * that is 2^-46 fused and 0 rounded first.  With -mfma the fast build
 * must fuse; the off build must not; without -mfma nothing can fuse.
 */
static void test_canary(void)
{
    float e = 1.0f + 0x1p-23f, r = arith_contract_canary(e, e,
                                                         -(1.0f + 0x1p-22f));
    bool fast = strstr(ARITH_CONTRACT, "=fast") != NULL;

    if (fast && !strstr(ARITH_CONTRACT, "-mfma")) {
        n++;
        printf("ok %d - contraction canary # SKIP no -mfma: nothing fuses\n",
               n);
        return;
    }
    ok(fast ? r == 0x1p-46f : r == 0.0f, fast ?
       "contraction canary: the fast build fuses a * b + c" :
       "contraction canary: the off build does not fuse a * b + c", 1);
}

int main(void)
{
    printf("TAP version 13\n1..12\n");
    printf("# host reference built with %s\n", ARITH_CONTRACT);
    test_bf16();
    test_dequant(M890_TYPE_MXFP4, &m890_fp4,
                 "MX_DEQUANT MXFP4: every code, every scale, FP32 and BF16");
    test_dequant(M890_TYPE_MXFP8, &m890_fp8,
                 "MX_DEQUANT MXFP8: every code, every scale, FP32 and BF16");
    test_quant(M890_TYPE_MXFP4, &m890_fp4,
               "MX_QUANT MXFP4: 200k blocks from FP32 and BF16");
    test_quant(M890_TYPE_MXFP8, &m890_fp8,
               "MX_QUANT MXFP8: 200k blocks from FP32 and BF16");
    test_reduce(M890_TYPE_FP32, "REDUCE FP32: 100k rows of k = 8");
    test_reduce(M890_TYPE_BF16, "REDUCE BF16: 100k rows of k = 8");
    test_gemm(0, true, "GEMM: 6k problems of the four operand type pairs, "
              "gathered rows");
    test_gemm(M890_GEMM_SWIGLU, false, "GEMM SWIGLU: 6k problems of the "
              "four operand type pairs");
    test_gemm(M890_GEMM_SCATTER_ADD, false, "GEMM SCATTER_ADD: 6k problems "
              "of the four operand type pairs");
    test_canary();
    return failed ? 1 : 0;
}
