/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: M890 card arithmetic in exact integer code
 *
 * A binary32 value v is taken apart into sign, an integer significand
 * sig < 2^24 and the exponent of its last bit, v = sig * 2^exp.  A
 * product is exact in 48 bits, a sum of two values is exact once the
 * smaller one is aligned to 38 bits below the larger one's top with its
 * lost bits folded into a sticky bit (two guard bits are all that round
 * to nearest even needs).  m890_round() then rounds any sig * 2^exp once
 * to binary32 (subnormals kept, overflow to infinity), which also serves
 * MX dequantization; MX quantization rounds sig * 2^exp to an element's
 * quantum the same way.  No host floating point is used anywhere.
 */
#include "m890_arith.h"

#define F32_EXP_BIAS    127
#define F32_MBITS       23
#define F32_LSB_MIN     (-149)          /* exponent of the subnormal LSB */
#define F32_SIGN        0x80000000u
#define F32_INF         0x7f800000u
#define F32_ABS         0x7fffffffu

const M890MxFmt m890_fp4 = { 1, 1, 2, 0x7, 0x8, 0 };
const M890MxFmt m890_fp8 = { 3, 7, 8, 0x7e, 0x80, 0x7f };

static bool f32_nan(uint32_t a)
{
    return (a & F32_ABS) > F32_INF;
}

static bool f32_inf(uint32_t a)
{
    return (a & F32_ABS) == F32_INF;
}

/* Significand and exponent of finite @a: |a| = *sig * 2^return. */
static int f32_unpack(uint32_t a, uint64_t *sig)
{
    uint32_t e = (a >> F32_MBITS) & 0xff, m = a & 0x7fffffu;

    if (!e) {
        *sig = m;
        return F32_LSB_MIN;
    }
    *sig = m | 1u << F32_MBITS;
    return (int)e - F32_EXP_BIAS - F32_MBITS;
}

static int msb64(uint64_t v)
{
    return 63 - __builtin_clzll(v);
}

/* @v >> @n rounded to nearest, ties to even; any @n >= 0. */
static uint64_t shift_rne(uint64_t v, int n)
{
    uint64_t q, rem, half;

    if (n <= 0) {
        return v;
    }
    if (n > 64) {
        return 0;                       /* v < 2^64 <= half */
    }
    q = n == 64 ? 0 : v >> n;
    rem = n == 64 ? v : v & ((1ull << n) - 1);
    half = 1ull << (n - 1);
    if (rem > half || (rem == half && (q & 1))) {
        q++;
    }
    return q;
}

/* Round @sign * @sig * 2^@exp to binary32, nearest even. */
static uint32_t m890_round(uint32_t sign, uint64_t sig, int exp)
{
    int top, lsb;
    uint64_t q;

    if (!sig) {
        return sign;
    }
    top = msb64(sig) + exp;             /* exponent of the leading bit */
    lsb = top - F32_MBITS;              /* of the last kept bit */
    if (lsb < F32_LSB_MIN) {
        lsb = F32_LSB_MIN;              /* subnormal */
    }
    if (lsb >= exp) {
        q = shift_rne(sig, lsb - exp);
    } else {
        q = sig << (exp - lsb);         /* exact: fewer than 24 bits */
    }
    if (q >> (F32_MBITS + 1)) {         /* the rounding carried */
        q >>= 1;
        lsb++;
    }
    if (q < 1u << F32_MBITS) {
        return sign | (uint32_t)q;      /* subnormal (lsb is the minimum) */
    }
    if (lsb + F32_MBITS + F32_EXP_BIAS >= 0xff) {
        return sign | F32_INF;
    }
    return sign | (uint32_t)(lsb + F32_MBITS + F32_EXP_BIAS) << F32_MBITS |
           ((uint32_t)q & 0x7fffffu);
}

uint32_t m890_f32_mul(uint32_t a, uint32_t b)
{
    uint32_t sign = (a ^ b) & F32_SIGN;
    uint64_t sa, sb;
    int ea, eb;

    if (f32_nan(a) || f32_nan(b)) {
        return M890_F32_QNAN;
    }
    if (f32_inf(a) || f32_inf(b)) {
        if (!(a & F32_ABS) || !(b & F32_ABS)) {
            return M890_F32_QNAN;       /* infinity times zero */
        }
        return sign | F32_INF;
    }
    ea = f32_unpack(a, &sa);
    eb = f32_unpack(b, &sb);
    return m890_round(sign, sa * sb, ea + eb);
}

uint32_t m890_f32_add(uint32_t a, uint32_t b)
{
    uint64_t sa, sb, s;
    int ea, eb, d;
    uint32_t t;

    if (f32_nan(a) || f32_nan(b)) {
        return M890_F32_QNAN;
    }
    if (f32_inf(a) || f32_inf(b)) {
        if (f32_inf(a) && f32_inf(b) && (a ^ b) & F32_SIGN) {
            return M890_F32_QNAN;       /* inf - inf */
        }
        return f32_inf(a) ? a : b;
    }
    if ((a & F32_ABS) < (b & F32_ABS)) {
        t = a;                          /* a: the larger magnitude */
        a = b;
        b = t;
    }
    if (!(b & F32_ABS)) {
        /* x + 0: x; +0 + -0 = +0 (nearest even) */
        return (a & F32_ABS) ? a : (a & b & F32_SIGN);
    }
    ea = f32_unpack(a, &sa);
    eb = f32_unpack(b, &sb);
    /* the larger at bit 61 down, the smaller aligned with a sticky bit */
    sa <<= 38;
    ea -= 38;
    d = ea - eb;
    if (d <= 0) {
        sb <<= -d;
    } else if (d >= 64) {
        sb = 1;                         /* below every guard bit */
    } else {
        sb = sb >> d | !!(sb & ((1ull << d) - 1));
    }
    if ((a ^ b) & F32_SIGN) {
        s = sa - sb;                    /* |a| >= |b| */
        if (!s) {
            return 0;                   /* exact cancellation: +0 */
        }
    } else {
        s = sa + sb;
    }
    return m890_round(a & F32_SIGN, s, ea);
}

uint32_t m890_bf16_to_f32(uint16_t h)
{
    return (uint32_t)h << 16;
}

uint16_t m890_f32_to_bf16(uint32_t u)
{
    if (f32_nan(u)) {
        return M890_BF16_QNAN;
    }
    /* round to nearest even; a carry into the exponent is right */
    return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/* floor(log2(|a|)) of finite non-zero @a. */
static int f32_ilog2(uint32_t a)
{
    uint64_t sig;
    int e = f32_unpack(a, &sig);

    return msb64(sig) + e;
}

/* Element code of |v| / 2^@x (v finite) with @sign, spec 7.11 step 5. */
static unsigned int m890_mx_encode(const M890MxFmt *f, uint32_t v, int x)
{
    unsigned int sign = (v & F32_SIGN) ? f->signbit : 0, code;
    int e, emin = 1 - f->bias;
    uint64_t sig, q;
    int exp;

    if (!(v & F32_ABS)) {
        return sign;
    }
    exp = f32_unpack(v, &sig) - x;      /* |v| / 2^x = sig * 2^exp */
    e = msb64(sig) + exp;
    if (e > f->emax) {
        return sign | f->maxcode;
    }
    if (e < emin) {
        e = emin;                       /* subnormal spacing */
    }
    /* quantum 2^(e - mbits): q = sig * 2^(exp - e + mbits), rounded */
    if (exp - e + f->mbits >= 0) {
        q = sig << (exp - e + f->mbits);
    } else {
        q = shift_rne(sig, e - f->mbits - exp);
    }
    code = (unsigned int)((e + f->bias) << f->mbits) + (unsigned int)q -
           (1u << f->mbits);
    return sign | (code < f->maxcode ? code : f->maxcode);
}

uint8_t m890_mx_quant_block(const M890MxFmt *f, const uint32_t *v,
                            uint8_t *code)
{
    uint32_t amax = 0;
    unsigned int j;
    int x;

    for (j = 0; j < M890_MX_BLOCK; j++) {
        if ((v[j] & F32_ABS) >= F32_INF) {
            /* spec 7.11: a non-finite block holds code 0, scale NaN */
            for (j = 0; j < M890_MX_BLOCK; j++) {
                code[j] = 0;
            }
            return M890_MX_SCALE_NAN;
        }
        if ((v[j] & F32_ABS) > amax) {
            amax = v[j] & F32_ABS;
        }
    }
    x = amax ? f32_ilog2(amax) - f->emax : -127;
    x = x < -127 ? -127 : x > 127 ? 127 : x;
    for (j = 0; j < M890_MX_BLOCK; j++) {
        code[j] = m890_mx_encode(f, v[j], x);
    }
    return (uint8_t)(x + 127);
}

uint32_t m890_mx_dequant(const M890MxFmt *f, unsigned int code,
                         uint8_t scale)
{
    unsigned int mag = code & (f->signbit - 1);
    unsigned int exp = mag >> f->mbits, man = mag & ((1u << f->mbits) - 1);
    uint32_t sign = (code & f->signbit) ? F32_SIGN : 0;
    int lsb = (exp ? (int)exp : 1) - f->bias - f->mbits;

    if (scale == M890_MX_SCALE_NAN || (f->nancode && mag == f->nancode)) {
        return M890_F32_QNAN;
    }
    if (exp) {
        man |= 1u << f->mbits;
    }
    return m890_round(sign, man, lsb + (int)scale - 127);
}
