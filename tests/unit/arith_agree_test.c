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
 * random weights over the whole exponent range.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "m890_arith.h"

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

int main(void)
{
    printf("TAP version 13\n1..8\n");
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
    return failed ? 1 : 0;
}
