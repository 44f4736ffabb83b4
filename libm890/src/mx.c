// SPDX-License-Identifier: MIT
/*
 * Host reference of the device's numeric packets: bfloat16 conversions,
 * OCP MX v1.0 MXFP4/MXFP8 quantization (hardware spec §7.11) and the
 * REDUCE weighted sum (§7.10).  The results are those of the device, bit
 * for bit, so programs can check device output or compute on the CPU.
 *
 * Nothing here depends on the compiler's contraction of floating-point
 * expressions: REDUCE rounds each product with m890_f32_mul_rounded()
 * (tests/unit/arith_agree_test.c builds it with FMA contraction on and
 * off and compares it with the device's integer code).
 * Element rounding does not use the floating-point rounding mode: an
 * element is found by searching the sorted table of the format's
 * magnitudes and comparing with the exact midpoint of its two neighbours.
 */
#include <math.h>
#include <string.h>

#include "internal.h"

struct mx_format {
	unsigned int mbits;	/* mantissa bits */
	int bias;		/* exponent bias */
	int emax;		/* exponent of the largest normal */
	unsigned int maxcode;	/* largest finite magnitude (saturation) */
	unsigned int signbit;
	unsigned int nancode;	/* magnitude code of NaN, 0 if none */
};

static const struct mx_format mx_e2m1 = { 1, 1, 2, 0x7, 0x8, 0 };
static const struct mx_format mx_e4m3 = { 3, 7, 8, 0x7e, 0x80, 0x7f };

static const struct mx_format *mx_format_of(enum m890_data_type t)
{
	if (t == M890_TYPE_MXFP4)
		return &mx_e2m1;
	if (t == M890_TYPE_MXFP8)
		return &mx_e4m3;
	return NULL;
}

/* Magnitude of code @mag (sign bit clear, not NaN). */
static double mx_magnitude(const struct mx_format *f, unsigned int mag)
{
	unsigned int e = mag >> f->mbits, m = mag & ((1u << f->mbits) - 1);

	if (!e)
		return ldexp(m, 1 - f->bias - (int)f->mbits);
	return ldexp((1u << f->mbits) | m, (int)e - f->bias - (int)f->mbits);
}

double m890_mx_decode_elem(enum m890_data_type mx_type, unsigned int code)
{
	const struct mx_format *f = mx_format_of(mx_type);
	unsigned int mag;
	double v;

	if (!f)
		return NAN;
	mag = code & (f->signbit - 1);
	if (f->nancode && mag == f->nancode)
		return NAN;
	v = mx_magnitude(f, mag);
	return (code & f->signbit) ? -v : v;
}

unsigned int m890_mx_encode_elem(enum m890_data_type mx_type, double v)
{
	const struct mx_format *f = mx_format_of(mx_type);
	unsigned int sign, lo, hi, c;
	double a, mid;

	if (!f || isnan(v))
		return 0;
	sign = signbit(v) ? f->signbit : 0;
	a = fabs(v);
	if (a >= mx_magnitude(f, f->maxcode))
		return sign | f->maxcode;
	/* Largest code whose magnitude is <= a; it is below maxcode. */
	lo = 0;
	hi = f->maxcode;
	while (lo < hi) {
		unsigned int m = (lo + hi + 1) / 2;

		if (mx_magnitude(f, m) <= a)
			lo = m;
		else
			hi = m - 1;
	}
	c = lo;
	if (a == mx_magnitude(f, c))
		return sign | c;
	/* Neighbouring magnitudes have few bits: their midpoint is exact. */
	mid = (mx_magnitude(f, c) + mx_magnitude(f, c + 1)) / 2;
	if (a > mid || (a == mid && (c & 1)))
		c++;
	return sign | c;
}

M890_EXPORT float m890_bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

M890_EXPORT uint16_t m890_float_to_bf16(float f)
{
	uint32_t u, lsb;

	if (isnan(f))
		return 0x7fc0;
	memcpy(&u, &f, sizeof(u));
	lsb = (u >> 16) & 1;
	/* Round to nearest even; a carry into the exponent is correct,
	 * up to infinity. */
	return (uint16_t)((u + 0x7fff + lsb) >> 16);
}

static float wide_load(enum m890_data_type t, const void *base, uint64_t i)
{
	if (t == M890_TYPE_BF16) {
		uint16_t h;

		memcpy(&h, (const uint8_t *)base + i * 2, sizeof(h));
		return m890_bf16_to_float(h);
	} else {
		float f;

		memcpy(&f, (const uint8_t *)base + i * 4, sizeof(f));
		return f;
	}
}

/* Every NaN result is stored as the default quiet NaN (spec 7.10). */
static void wide_store(enum m890_data_type t, void *base, uint64_t i, float f)
{
	if (t == M890_TYPE_BF16) {
		uint16_t h = m890_float_to_bf16(f);

		memcpy((uint8_t *)base + i * 2, &h, sizeof(h));
	} else {
		uint32_t u = 0x7fc00000;

		if (!isnan(f))
			memcpy(&u, &f, sizeof(u));
		memcpy((uint8_t *)base + i * 4, &u, sizeof(u));
	}
}

static void wide_store_qnan(enum m890_data_type t, void *base, uint64_t i)
{
	if (t == M890_TYPE_BF16) {
		uint16_t h = 0x7fc0;

		memcpy((uint8_t *)base + i * 2, &h, sizeof(h));
	} else {
		uint32_t u = 0x7fc00000;

		memcpy((uint8_t *)base + i * 4, &u, sizeof(u));
	}
}

static void mx_store(const struct mx_format *f, uint8_t *elems, uint64_t i,
		     unsigned int code)
{
	if (f == &mx_e2m1) {
		uint8_t *b = &elems[i / 2];

		if (i & 1)
			*b = (uint8_t)((*b & 0x0f) | (code << 4));
		else
			*b = (uint8_t)((*b & 0xf0) | code);
	} else {
		elems[i] = (uint8_t)code;
	}
}

static unsigned int mx_load(const struct mx_format *f, const uint8_t *elems,
			    uint64_t i)
{
	if (f == &mx_e2m1)
		return (elems[i / 2] >> ((i & 1) * 4)) & 0xf;
	return elems[i];
}

static m890_status_t mx_check(const char *what, enum m890_data_type mx_type,
			      enum m890_data_type wide_type, uint64_t count,
			      const void *a, const void *b, const void *c)
{
	if (!mx_format_of(mx_type))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: MX type %d is not MXFP4 or MXFP8",
				 what, (int)mx_type);
	if (wide_type != M890_TYPE_FP32 && wide_type != M890_TYPE_BF16)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: wide type %d is not FP32 or BF16",
				 what, (int)wide_type);
	if (count % M890_MX_BLOCK)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: count %llu is not a multiple of %u",
				 what, (unsigned long long)count, M890_MX_BLOCK);
	if (count && (!a || !b || !c))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: NULL buffer", what);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_mx_quantize_host(enum m890_data_type mx_type,
						enum m890_data_type wide_type,
						const void *src, uint64_t count,
						void *elems, uint8_t *scales)
{
	const struct mx_format *f = mx_format_of(mx_type);
	m890_status_t st = mx_check("mx_quantize_host", mx_type, wide_type,
				    count, src, elems, scales);

	if (st)
		return st;
	for (uint64_t b = 0; b < count / M890_MX_BLOCK; b++) {
		uint64_t first = b * M890_MX_BLOCK;
		float amax = 0.0f;
		bool finite = true;
		int x;

		for (unsigned int j = 0; j < M890_MX_BLOCK; j++) {
			float v = fabsf(wide_load(wide_type, src, first + j));

			if (!isfinite(v))
				finite = false;
			else if (v > amax)
				amax = v;
		}
		if (!finite) {
			scales[b] = M890_MX_SCALE_NAN;
			for (unsigned int j = 0; j < M890_MX_BLOCK; j++)
				mx_store(f, elems, first + j, 0);
			continue;
		}
		x = amax == 0.0f ? -127 : ilogbf(amax) - f->emax;
		if (x < -127)
			x = -127;
		if (x > 127)
			x = 127;
		scales[b] = (uint8_t)(x + 127);
		for (unsigned int j = 0; j < M890_MX_BLOCK; j++) {
			/* Exact: a float times a power of two fits a double. */
			double q = ldexp(wide_load(wide_type, src, first + j), -x);

			mx_store(f, elems, first + j,
				 m890_mx_encode_elem(mx_type, q));
		}
	}
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t
m890_mx_dequantize_host(enum m890_data_type mx_type,
			enum m890_data_type wide_type, const void *elems,
			const uint8_t *scales, uint64_t count, void *dst)
{
	const struct mx_format *f = mx_format_of(mx_type);
	m890_status_t st = mx_check("mx_dequantize_host", mx_type, wide_type,
				    count, elems, scales, dst);

	if (st)
		return st;
	for (uint64_t i = 0; i < count; i++) {
		unsigned int code = mx_load(f, elems, i);
		unsigned int s = scales[i / M890_MX_BLOCK];
		double e = m890_mx_decode_elem(mx_type, code);

		if (s == M890_MX_SCALE_NAN || isnan(e)) {
			wide_store_qnan(wide_type, dst, i);
			continue;
		}
		/* The element is exact in binary32; scaling rounds only on
		 * overflow, to infinity. */
		wide_store(wide_type, dst, i, ldexpf((float)e, (int)s - 127));
	}
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_reduce_host(enum m890_data_type type,
					   const void *src, void *dst,
					   const uint32_t *idx,
					   const float *weight, uint32_t rows,
					   uint32_t hidden, unsigned int k)
{
	if (type != M890_TYPE_FP32 && type != M890_TYPE_BF16)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "reduce_host: type %d is not FP32 or BF16",
				 (int)type);
	if (k < 1 || k > 64)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "reduce_host: k %u is not 1..64", k);
	if (!rows || !hidden)
		return M890_SUCCESS;
	if (!src || !dst || !idx || !weight)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "reduce_host: NULL buffer");
	for (uint64_t r = 0; r < rows; r++) {
		for (uint64_t h = 0; h < hidden; h++) {
			float acc = 0.0f;

			for (unsigned int j = 0; j < k; j++) {
				uint32_t i = idx[r * k + j];
				float x;

				if (i == M890_ROW_NONE)
					continue;
				x = wide_load(type, src, (uint64_t)i * hidden + h);
				acc = acc + m890_f32_mul_rounded(weight[r * k + j], x);
			}
			wide_store(type, dst, r * hidden + h, acc);
		}
	}
	return M890_SUCCESS;
}
