// SPDX-License-Identifier: MIT
/*
 * DOC: host unit test of libm890's numeric reference (mx.c)
 *
 * Every E2M1 and E4M3 code decoded and re-encoded, every rounding tie and
 * its neighbours, saturation, zero, NaN and infinity blocks, the E8M0
 * scale choice and clamping, dequantization overflow, bfloat16 rounding
 * and the REDUCE accumulation order, against values written out from the
 * hardware spec (§7.10, §7.11).  Prints TAP.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int n, failed;

static void ok(int cond, const char *fmt, ...) M890_PRINTF(2, 3);

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	n++;
	printf("%sok %d - ", cond ? "" : "not ", n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		failed++;
}

static uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* The E2M1 table of the hardware spec, codes 0..7. */
static const double e2m1_values[8] = { 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0 };

/* E4M3 value written from the spec's definition with integer arithmetic. */
static double e4m3_ref(unsigned int c)
{
	unsigned int e = (c >> 3) & 0xf, m = c & 7;
	double v;

	if ((c & 0x7f) == 0x7f)
		return NAN;
	v = e ? (8 + m) * pow(2, (int)e - 10) : m * pow(2, -9);
	return (c & 0x80) ? -v : v;
}

static int same_double(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return a == b && signbit(a) == signbit(b);
}

static void test_decode(void)
{
	int good = 1;

	for (unsigned int c = 0; c < 16; c++) {
		double want = e2m1_values[c & 7];

		good &= same_double(m890_mx_decode_elem(M890_TYPE_MXFP4, c),
				    (c & 8) ? -want : want);
	}
	ok(good, "all 16 E2M1 codes decode as the spec table (code 8 is -0)");
	good = 1;
	for (unsigned int c = 0; c < 256; c++)
		good &= same_double(m890_mx_decode_elem(M890_TYPE_MXFP8, c),
				    e4m3_ref(c));
	ok(good, "all 256 E4M3 codes decode as the spec formula");
	ok(m890_mx_decode_elem(M890_TYPE_MXFP8, 0x7e) == 448.0 &&
	   m890_mx_decode_elem(M890_TYPE_MXFP8, 0xfe) == -448.0 &&
	   m890_mx_decode_elem(M890_TYPE_MXFP8, 0x01) == ldexp(1, -9) &&
	   m890_mx_decode_elem(M890_TYPE_MXFP8, 0x08) == ldexp(1, -6) &&
	   m890_mx_decode_elem(M890_TYPE_MXFP8, 0x38) == 1.0 &&
	   isnan(m890_mx_decode_elem(M890_TYPE_MXFP8, 0x7f)) &&
	   isnan(m890_mx_decode_elem(M890_TYPE_MXFP8, 0xff)),
	   "E4M3 landmarks: 448, 2^-9, 2^-6, 1.0, NaN codes 0x7f/0xff");
}

static void test_encode_codes(void)
{
	int good = 1;

	for (unsigned int c = 0; c < 16; c++)
		good &= m890_mx_encode_elem(M890_TYPE_MXFP4,
				m890_mx_decode_elem(M890_TYPE_MXFP4, c)) == c;
	ok(good, "every E2M1 code encodes back to itself");
	good = 1;
	for (unsigned int c = 0; c < 256; c++) {
		if ((c & 0x7f) == 0x7f)
			continue;
		good &= m890_mx_encode_elem(M890_TYPE_MXFP8,
				m890_mx_decode_elem(M890_TYPE_MXFP8, c)) == c;
	}
	ok(good, "every finite E4M3 code encodes back to itself");
}

/* Midpoints round to the even code; one ulp either side to the nearer. */
static void test_ties(enum m890_data_type t, unsigned int maxcode,
		      const char *name)
{
	int ties = 1, near = 1;

	for (unsigned int c = 0; c < maxcode; c++) {
		double lo = m890_mx_decode_elem(t, c);
		double hi = m890_mx_decode_elem(t, c + 1);
		double mid = (lo + hi) / 2;
		unsigned int even = (c & 1) ? c + 1 : c;
		unsigned int sign = t == M890_TYPE_MXFP4 ? 8 : 0x80;

		ties &= m890_mx_encode_elem(t, mid) == even;
		ties &= m890_mx_encode_elem(t, -mid) == (even | sign);
		near &= m890_mx_encode_elem(t, nextafter(mid, 0)) == c;
		near &= m890_mx_encode_elem(t, nextafter(mid, INFINITY)) == c + 1;
	}
	ok(ties, "%s: every midpoint rounds to the even code, both signs", name);
	ok(near, "%s: just below/above every midpoint rounds down/up", name);
}

static void test_spec_examples(void)
{
	static const struct { double v; double want; } ex[] = {
		{ 0.25, 0.0 }, { 0.75, 1.0 }, { 1.25, 1.0 }, { 1.75, 2.0 },
		{ 2.5, 2.0 }, { 3.5, 4.0 }, { 5.0, 4.0 }, { 7.0, 6.0 },
		{ 1e30, 6.0 }, { 0.1, 0.0 }, { 0.26, 0.5 }, { 5.01, 6.0 },
	};
	int good = 1;

	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		good &= m890_mx_decode_elem(M890_TYPE_MXFP4,
			m890_mx_encode_elem(M890_TYPE_MXFP4, ex[i].v)) == ex[i].want;
		good &= m890_mx_decode_elem(M890_TYPE_MXFP4,
			m890_mx_encode_elem(M890_TYPE_MXFP4, -ex[i].v)) == -ex[i].want;
	}
	ok(good, "E2M1 rounding examples of the spec, both signs");
	ok(m890_mx_encode_elem(M890_TYPE_MXFP8, 464.0) == 0x7e &&
	   m890_mx_encode_elem(M890_TYPE_MXFP8, 480.0) == 0x7e &&
	   m890_mx_encode_elem(M890_TYPE_MXFP8, 1e30) == 0x7e &&
	   m890_mx_encode_elem(M890_TYPE_MXFP8, -1e30) == 0xfe,
	   "E4M3 saturates to +-448, never to the NaN code");
	ok(m890_mx_encode_elem(M890_TYPE_MXFP8, ldexp(1, -10)) == 0x00 &&
	   m890_mx_encode_elem(M890_TYPE_MXFP8, ldexp(3, -11)) == 0x01 &&
	   m890_mx_encode_elem(M890_TYPE_MXFP8, -0.0) == 0x80 &&
	   m890_mx_encode_elem(M890_TYPE_MXFP4, -0.0) == 0x8 &&
	   m890_mx_encode_elem(M890_TYPE_MXFP4, -0.2) == 0x8,
	   "E4M3 subnormal ties, signed zeros kept");
}

static void fill_block(float *b, float v)
{
	for (int i = 0; i < 32; i++)
		b[i] = v;
}

static void test_blocks(void)
{
	float in[64], out[64];
	uint8_t el[64], sc[2];
	int good;

	/* amax 6: shared exponent 0 (scale 127); 7 saturates to 6. */
	fill_block(in, 0.0f);
	fill_block(in + 32, 0.0f);
	in[0] = 6.0f, in[1] = -0.75f, in[2] = 1.25f, in[3] = 0.25f;
	in[32] = 7.0f, in[33] = -3.5f, in[34] = -0.0f;
	m890_mx_quantize_host(M890_TYPE_MXFP4, M890_TYPE_FP32, in, 64, el, sc);
	ok(sc[0] == 127 && sc[1] == 127, "MXFP4 amax 6 and 7: scale byte 127");
	ok(el[0] == (0x7 | 0xa << 4) && el[1] == (0x2 | 0x0 << 4) &&
	   el[16] == (0x7 | 0xe << 4) && el[17] == 0x8,
	   "MXFP4 codes packed even-low: 6,-1,1,0 / 6(sat),-4,-0");
	m890_mx_dequantize_host(M890_TYPE_MXFP4, M890_TYPE_FP32, el, sc, 64, out);
	ok(out[0] == 6.0f && out[1] == -1.0f && out[2] == 1.0f &&
	   out[3] == 0.0f && out[32] == 6.0f && out[33] == -4.0f &&
	   out[34] == 0.0f && signbit(out[34]) && !signbit(out[35]),
	   "MXFP4 dequantized values, -0 kept");

	/* Zero block: exponent -127, scale byte 0; then NaN and infinity. */
	fill_block(in, 0.0f);
	in[5] = -0.0f;
	fill_block(in + 32, 1.0f);
	in[40] = INFINITY;
	m890_mx_quantize_host(M890_TYPE_MXFP8, M890_TYPE_FP32, in, 64, el, sc);
	good = sc[0] == 0 && sc[1] == M890_MX_SCALE_NAN && el[5] == 0x80;
	for (int i = 32; i < 64; i++)
		good &= el[i] == 0x7f;
	ok(good, "MXFP8: zero block scale 0, inf block scale 0xff codes 0x7f (NaN)");
	m890_mx_dequantize_host(M890_TYPE_MXFP8, M890_TYPE_FP32, el, sc, 64, out);
	good = out[0] == 0.0f && signbit(out[5]);
	for (int i = 32; i < 64; i++)
		good &= f2u(out[i]) == 0x7fc00000;
	ok(good, "MXFP8 dequant: zeros, NaN scale gives 0x7fc00000");
	in[40] = u2f(0xffc00001);	/* a negative NaN */
	m890_mx_quantize_host(M890_TYPE_MXFP4, M890_TYPE_FP32, in, 64, el, sc);
	good = sc[1] == M890_MX_SCALE_NAN;
	for (int i = 16; i < 32; i++)
		good &= el[i] == 0;
	ok(good, "MXFP4: NaN block scale 0xff codes 0");

	/* Scale choice: floor(log2(amax)) - emax, clamped. */
	fill_block(in, 1.0f);
	in[7] = 1000.0f;		/* log2 = 9.97 */
	fill_block(in + 32, u2f(0x00000001));	/* 2^-149 */
	m890_mx_quantize_host(M890_TYPE_MXFP8, M890_TYPE_FP32, in, 64, el, sc);
	ok(sc[0] == 127 + 9 - 8 && el[7] == m890_mx_encode_elem(M890_TYPE_MXFP8, 500.0) &&
	   el[0] == m890_mx_encode_elem(M890_TYPE_MXFP8, 0.5) && sc[1] == 0 &&
	   el[32] == 0,
	   "MXFP8 scale 2^1 for amax 1000; 2^-149 clamps to scale 0, code 0");
	fill_block(in, 3.0e38f);
	m890_mx_quantize_host(M890_TYPE_MXFP4, M890_TYPE_FP32, in, 32, el, sc);
	m890_mx_dequantize_host(M890_TYPE_MXFP4, M890_TYPE_FP32, el, sc, 32, out);
	ok(sc[0] == 127 + 127 - 2 && el[0] == 0x77 &&
	   out[0] == ldexpf(1.5f, 127),
	   "MXFP4 of 3e38: scale 2^125, 7.06 saturates to 6.0");

	/* Dequantization overflow to infinity, E4M3 NaN element. */
	sc[0] = 254;
	memset(el, 0, 32);
	el[0] = 0x7e, el[1] = 0xfe, el[2] = 0x38, el[3] = 0x7f, el[4] = 0xff;
	m890_mx_dequantize_host(M890_TYPE_MXFP8, M890_TYPE_FP32, el, sc, 32, out);
	ok(out[0] == INFINITY && out[1] == -INFINITY &&
	   out[2] == ldexpf(1.0f, 127) && f2u(out[3]) == 0x7fc00000 &&
	   f2u(out[4]) == 0x7fc00000,
	   "MXFP8 dequant: 448*2^127 overflows to +-inf; NaN codes give qNaN");
	{
		uint16_t h[32];

		m890_mx_dequantize_host(M890_TYPE_MXFP8, M890_TYPE_BF16, el, sc,
					32, h);
		ok(h[0] == 0x7f80 && h[1] == 0xff80 && h[2] == 0x7f00 &&
		   h[3] == 0x7fc0 && h[4] == 0x7fc0,
		   "MXFP8 dequant to BF16: inf, 2^127, qNaN 0x7fc0");
	}
}

/* q(dq(q(x))) == q(x): dequantized values are representable exactly. */
static void test_idempotent(void)
{
	enum { N = 32 * 64 };
	static float in[N], mid[N];
	static uint16_t hin[N];
	static uint8_t el[N], el2[N], sc[N / 32], sc2[N / 32];
	int good = 1;

	srand(7);
	for (int t = M890_TYPE_MXFP4; t <= M890_TYPE_MXFP8; t++) {
		for (int i = 0; i < N; i++) {
			int e = rand() % 40 - 20 + (i / 32) % 7 * 10 - 30;

			in[i] = ldexpf((float)rand() / RAND_MAX - 0.5f, e);
			hin[i] = m890_float_to_bf16(in[i]);
		}
		m890_mx_quantize_host(t, M890_TYPE_FP32, in, N, el, sc);
		m890_mx_dequantize_host(t, M890_TYPE_FP32, el, sc, N, mid);
		m890_mx_quantize_host(t, M890_TYPE_FP32, mid, N, el2, sc2);
		good &= !memcmp(el, el2, t == M890_TYPE_MXFP4 ? N / 2 : N) &&
			!memcmp(sc, sc2, N / 32);
		m890_mx_quantize_host(t, M890_TYPE_BF16, hin, N, el, sc);
		m890_mx_dequantize_host(t, M890_TYPE_BF16, el, sc, N, hin);
		m890_mx_quantize_host(t, M890_TYPE_BF16, hin, N, el2, sc2);
		good &= !memcmp(el, el2, t == M890_TYPE_MXFP4 ? N / 2 : N) &&
			!memcmp(sc, sc2, N / 32);
	}
	ok(good, "quantize(dequantize(q)) == q for random FP32 and BF16 data");
}

static void test_args(void)
{
	float in[32] = { 0 };
	uint8_t el[32], sc[1];

	ok(m890_mx_quantize_host(M890_TYPE_FP32, M890_TYPE_FP32, in, 32, el, sc) ==
	   M890_ERROR_INVALID_ARGUMENT &&
	   m890_mx_quantize_host(M890_TYPE_MXFP4, M890_TYPE_MXFP8, in, 32, el, sc) ==
	   M890_ERROR_INVALID_ARGUMENT &&
	   m890_mx_quantize_host(M890_TYPE_MXFP4, M890_TYPE_FP32, in, 31, el, sc) ==
	   M890_ERROR_INVALID_ARGUMENT &&
	   m890_mx_dequantize_host(M890_TYPE_MXFP8, M890_TYPE_FP32, el, NULL, 32, in) ==
	   M890_ERROR_INVALID_ARGUMENT &&
	   m890_mx_quantize_host(M890_TYPE_MXFP4, M890_TYPE_FP32, NULL, 0, NULL, NULL) ==
	   M890_SUCCESS,
	   "MX argument checks: types, count, NULL; count 0 is a no-op");
}

static void test_bf16(void)
{
	ok(m890_float_to_bf16(u2f(0x3f808000)) == 0x3f80 &&
	   m890_float_to_bf16(u2f(0x3f818000)) == 0x3f82 &&
	   m890_float_to_bf16(u2f(0x3f808001)) == 0x3f81 &&
	   m890_float_to_bf16(u2f(0x3f807fff)) == 0x3f80,
	   "bf16: ties to even, above and below a tie");
	ok(m890_float_to_bf16(u2f(0x7f7fffff)) == 0x7f80 &&
	   m890_float_to_bf16(u2f(0xff7fffff)) == 0xff80 &&
	   m890_float_to_bf16(INFINITY) == 0x7f80 &&
	   m890_float_to_bf16(u2f(0xffc00001)) == 0x7fc0 &&
	   m890_float_to_bf16(u2f(0x7f800001)) == 0x7fc0 &&
	   m890_float_to_bf16(-0.0f) == 0x8000 &&
	   m890_float_to_bf16(u2f(0x00018000)) == 0x0002,
	   "bf16: overflow to inf, NaN to 0x7fc0, -0, subnormal tie");
	ok(f2u(m890_bf16_to_float(0xc0a0)) == 0xc0a00000,
	   "bf16 to float is exact");
}

static void test_reduce(void)
{
	/* Row 0 needs ascending j: (1e8 + 1) + -1e8 is 0 in binary32. */
	const float src[4][2] = { { 1e8f, 2.0f }, { 1.0f, 3.0f },
				  { -1e8f, 5.0f }, { 0.5f, 0.25f } };
	const uint32_t idx[3 * 3] = { 0, 1, 2, M890_ROW_NONE, 3, M890_ROW_NONE,
				      M890_ROW_NONE, M890_ROW_NONE, M890_ROW_NONE };
	const float w[3 * 3] = { 1, 1, 1, 9, -2, 9, 1, 1, 1 };
	float dst[3][2];
	uint16_t hsrc[2] = { 0x3f80, 0x3b80 }, hdst[1];	/* 1.0, 2^-8 */
	const uint32_t hidx[2] = { 0, 1 };
	const float hw[2] = { 1.0f, 1.0f };

	memset(dst, 0x55, sizeof(dst));
	ok(m890_reduce_host(M890_TYPE_FP32, src, dst, idx, w, 3, 2, 3) ==
	   M890_SUCCESS && dst[0][0] == 0.0f && dst[0][1] == 10.0f &&
	   dst[1][0] == -1.0f && dst[1][1] == -0.5f &&
	   f2u(dst[2][0]) == 0 && f2u(dst[2][1]) == 0,
	   "reduce fp32: ascending j, NONE skipped, all-NONE row is +0");
	/* Row of BF16 one element: index 0 and 1 over a 1-element table. */
	ok(m890_reduce_host(M890_TYPE_BF16, hsrc, hdst, hidx, hw, 1, 1, 2) ==
	   M890_SUCCESS && hdst[0] == 0x3f80,
	   "reduce bf16: 1 + 2^-8 rounds to even (1.0)");
	ok(m890_reduce_host(M890_TYPE_FP32, src, dst, idx, w, 1, 2, 0) ==
	   M890_ERROR_INVALID_ARGUMENT &&
	   m890_reduce_host(M890_TYPE_FP32, src, dst, idx, w, 1, 2, 65) ==
	   M890_ERROR_INVALID_ARGUMENT &&
	   m890_reduce_host(M890_TYPE_MXFP8, src, dst, idx, w, 1, 2, 1) ==
	   M890_ERROR_INVALID_ARGUMENT &&
	   m890_reduce_host(M890_TYPE_FP32, NULL, NULL, NULL, NULL, 0, 2, 1) ==
	   M890_SUCCESS,
	   "reduce argument checks: k 0 and 65, type; 0 rows is a no-op");
}

int main(void)
{
	test_decode();
	test_encode_codes();
	test_ties(M890_TYPE_MXFP4, 7, "E2M1");
	test_ties(M890_TYPE_MXFP8, 0x7e, "E4M3");
	test_spec_examples();
	test_blocks();
	test_idempotent();
	test_args();
	test_bf16();
	test_reduce();
	printf("1..%d\n", n);
	printf("%d passed, %d failed\n", n - failed, failed);
	return failed ? 1 : 0;
}
