// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 compute packet tests (guest)
 *
 * MX_QUANT and MX_DEQUANT (MXFP4 and MXFP8 from and to FP32 and BF16),
 * GATHER, SCATTER and REDUCE (FP32 and BF16, k = 1..16) run on the card
 * and compared bit for bit with libm890's host reference and with
 * expectations computed here: random data over a wide exponent range,
 * zero, signed-zero, NaN, infinity, tie, saturation and clamped blocks,
 * every element code under several scales, skewed and NONE indices.
 * Argument errors are refused at the call.
 */
#include <math.h>
#include <string.h>

#include "tap.h"

#define NBLK 48
#define NEL (NBLK * M890_MX_BLOCK)
#define MB (1u << 20)

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static float u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

struct ctx {
	m890_device_t dev;
	m890_stream_t s;
	m890_buffer_t buf[6];
	uint8_t *p[6];
	uint64_t va[6];
};

/* Wide input with special blocks; block b's flavour is b % 12. */
static void make_input(float *in)
{
	for (unsigned int b = 0; b < NBLK; b++) {
		float *v = in + b * M890_MX_BLOCK;
		int e0 = (int)(rnd() % 60) - 30;

		for (unsigned int j = 0; j < M890_MX_BLOCK; j++)
			v[j] = ldexpf((float)(rnd() % 2000001) / 1e6f - 1.0f,
				      e0 + (int)(rnd() % 6));
		switch (b % 12) {
		case 1:		/* zero, with a -0 */
			memset(v, 0, M890_MX_BLOCK * 4);
			v[3] = -0.0f;
			break;
		case 2:
			v[b % 32] = NAN;
			break;
		case 3:
			v[7] = (b & 1) ? -INFINITY : INFINITY;
			break;
		case 4:		/* E2M1 and E4M3 ties at scale 1 */
			for (unsigned int j = 0; j < M890_MX_BLOCK; j++)
				v[j] = (j & 1 ? -1.0f : 1.0f) *
				       (0.25f + 0.5f * (float)(j % 12));
			v[31] = 6.0f;
			break;
		case 5:		/* saturation: amax just below the next power */
			v[0] = 7.9f;
			v[1] = 500.0f;
			v[2] = -511.0f;
			break;
		case 6:		/* exponent clamped at -127 */
			for (unsigned int j = 0; j < M890_MX_BLOCK; j++)
				v[j] = u2f(rnd() % 0x40000) * (j & 1 ? -1.0f : 1.0f);
			break;
		case 7:		/* near the binary32 maximum */
			for (unsigned int j = 0; j < M890_MX_BLOCK; j++)
				v[j] = ldexpf((float)(rnd() % 1000) / 1000.0f, 128);
			break;
		case 8:		/* E4M3 subnormal ties: scale 2^-8, k*2^-10 */
			for (unsigned int j = 0; j < M890_MX_BLOCK; j++)
				v[j] = ldexpf((float)j, -18);
			v[31] = ldexpf(1.0f, -1);
			break;
		default:
			break;
		}
	}
}

static int mx_case(struct ctx *c, enum m890_data_type mx,
		   enum m890_data_type wide)
{
	const char *mn = mx == M890_TYPE_MXFP4 ? "MXFP4" : "MXFP8";
	const char *wn = wide == M890_TYPE_FP32 ? "FP32" : "BF16";
	unsigned int esz = wide == M890_TYPE_FP32 ? 4 : 2;
	uint64_t ebytes = mx == M890_TYPE_MXFP4 ? NEL / 2 : NEL;
	static float in[NEL];
	static uint8_t ref_el[NEL], ref_sc[NBLK], ref_out[NEL * 4];
	uint8_t *src = c->p[0], *el = c->p[1], *sc = c->p[2], *out = c->p[3];
	int good, ret = 1;

	make_input(in);
	if (wide == M890_TYPE_FP32) {
		memcpy(src, in, sizeof(in));
	} else {
		for (unsigned int i = 0; i < NEL; i++) {
			uint16_t h = m890_float_to_bf16(in[i]);

			memcpy(src + 2 * i, &h, 2);
		}
	}
	memset(el, 0xcc, NEL);
	memset(sc, 0xcc, NBLK);
	m890_mx_quantize_host(mx, wide, src, NEL, ref_el, ref_sc);
	TAP_STATUS(m890_mx_quantize(c->s, mx, wide, c->va[0], c->va[1],
				    c->va[2], NEL), M890_SUCCESS);
	ret &= TAP_STATUS(m890_stream_synchronize(c->s), M890_SUCCESS);
	ret &= tap_ok(!memcmp(sc, ref_sc, NBLK),
		      "MX_QUANT %s from %s: %u scale bytes match the host", mn,
		      wn, NBLK);
	good = !memcmp(el, ref_el, ebytes);
	for (unsigned int i = 0; !good && i < ebytes; i++)
		if (el[i] != ref_el[i]) {
			printf("# element byte %u: device 0x%02x host 0x%02x\n",
			       i, el[i], ref_el[i]);
			break;
		}
	ret &= tap_ok(good, "MX_QUANT %s from %s: %llu element bytes match the host (NaN blocks code 0)",
		      mn, wn, (unsigned long long)ebytes);

	/* DEQUANT of every code pattern under scales 0..254 and NaN. */
	for (unsigned int i = 0; i < ebytes; i++)
		el[i] = (uint8_t)(i * 37 + (i >> 8));
	for (unsigned int b = 0; b < NBLK; b++)
		sc[b] = b == 0 ? 0 : b == 1 ? 254 : b == 2 ? 0xff :
			(uint8_t)(rnd() % 255);
	memset(out, 0xcc, NEL * esz);
	m890_mx_dequantize_host(mx, wide, el, sc, NEL, ref_out);
	TAP_STATUS(m890_mx_dequantize(c->s, mx, wide, c->va[1], c->va[2],
				      c->va[3], NEL), M890_SUCCESS);
	ret &= TAP_STATUS(m890_stream_synchronize(c->s), M890_SUCCESS);
	ret &= tap_ok(!memcmp(out, ref_out, NEL * esz),
		      "MX_DEQUANT %s to %s: every code, scales 0/254/NaN/random match",
		      mn, wn);
	return ret;
}

static void gather_scatter(struct ctx *c)
{
	enum { ROWS = 40, RB = 13, CNT = 64 };
	uint8_t *tab = c->p[0], *idxb = c->p[1], *dst = c->p[3];
	static uint8_t want[CNT * RB];
	uint32_t idx[CNT];

	for (unsigned int i = 0; i < ROWS * RB; i++)
		tab[i] = (uint8_t)(rnd());
	for (unsigned int i = 0; i < CNT; i++)	/* skewed: mostly row 0..2 */
		idx[i] = i % 9 == 4 ? M890_ROW_NONE :
			 i % 3 ? (i * i) % 3 : (i * 7) % ROWS;
	memcpy(idxb, idx, sizeof(idx));
	memset(dst, 0x5a, CNT * RB);
	memset(want, 0x5a, CNT * RB);
	for (unsigned int i = 0; i < CNT; i++)
		if (idx[i] != M890_ROW_NONE)
			memcpy(want + i * RB, tab + idx[i] * RB, RB);
	TAP_STATUS(m890_gather(c->s, c->va[3], c->va[0], c->va[1], RB, CNT),
		   M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(c->s), M890_SUCCESS);
	tap_ok(!memcmp(dst, want, CNT * RB),
	       "GATHER of 64 rows of 13 bytes, skewed and NONE indices");

	/* SCATTER back: duplicates, the larger i wins. */
	for (unsigned int i = 0; i < CNT * RB; i++)
		dst[i] = (uint8_t)(i * 11);
	memset(tab, 0x33, ROWS * RB);
	memset(want, 0x33, ROWS * RB);
	for (unsigned int i = 0; i < CNT; i++)
		if (idx[i] != M890_ROW_NONE)
			memcpy(want + idx[i] * RB, dst + i * RB, RB);
	TAP_STATUS(m890_scatter(c->s, c->va[0], c->va[3], c->va[1], RB, CNT),
		   M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(c->s), M890_SUCCESS);
	tap_ok(!memcmp(tab, want, ROWS * RB),
	       "SCATTER with duplicate indices: the larger i wins, NONE skipped");
	TAP_STATUS(m890_gather(c->s, c->va[3], c->va[0], c->va[1], RB, 0),
		   M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(c->s), M890_SUCCESS);
}

static void reduce_case(struct ctx *c, enum m890_data_type t)
{
	enum { ROWS = 9, HIDDEN = 37, TROWS = 20 };
	unsigned int esz = t == M890_TYPE_FP32 ? 4 : 2;
	uint8_t *src = c->p[0], *dst = c->p[3];
	uint32_t *idx = (uint32_t *)c->p[1];
	float *w = (float *)c->p[2];
	static uint8_t want[ROWS * HIDDEN * 4];
	int good = 1;

	for (unsigned int i = 0; i < TROWS * HIDDEN; i++) {
		float v = ldexpf((float)(rnd() % 2001) / 1000.0f - 1.0f,
				 (int)(rnd() % 40) - 20);

		if (t == M890_TYPE_FP32) {
			memcpy(src + 4 * i, &v, 4);
		} else {
			uint16_t h = m890_float_to_bf16(v);

			memcpy(src + 2 * i, &h, 2);
		}
	}
	for (unsigned int k = 1; k <= 16; k++) {
		for (unsigned int i = 0; i < ROWS * k; i++) {
			/* Skewed toward row 0; row 3 all NONE; some NONE. */
			idx[i] = i / k == 3 || i % 5 == 2 ? M890_ROW_NONE :
				 rnd() % 4 ? rnd() % 3 : rnd() % TROWS;
			w[i] = ldexpf((float)(rnd() % 1001) / 500.0f - 1.0f,
				      (int)(rnd() % 9) - 4);
		}
		memset(dst, 0xcc, ROWS * HIDDEN * esz);
		m890_reduce_host(t, src, want, idx, w, ROWS, HIDDEN, k);
		if (m890_reduce(c->s, t, c->va[3], c->va[0], c->va[1], c->va[2],
				ROWS, HIDDEN, k) ||
		    m890_stream_synchronize(c->s)) {
			good = 0;
			printf("# k=%u: %s\n", k, m890_get_last_error());
			break;
		}
		if (memcmp(dst, want, ROWS * HIDDEN * esz)) {
			good = 0;
			printf("# k=%u: device result differs from the host\n", k);
			break;
		}
	}
	tap_ok(good, "REDUCE %s, k = 1..16, skewed and NONE indices: bit-exact",
	       t == M890_TYPE_FP32 ? "FP32" : "BF16");
}

/*
 * A NaN result of a BF16 REDUCE is stored as the default NaN 0x7fc0,
 * whatever the sign and payload of the NaN that made it (spec 7.10).
 * Row 0 sums a negative-NaN weight; row 1 meets a negative signalling NaN
 * element (element 3) with weight 1.
 */
static void reduce_nan(struct ctx *c)
{
	enum { HIDDEN = 8 };
	uint16_t *src = (uint16_t *)c->p[0], *dst = (uint16_t *)c->p[3];
	uint32_t *idx = (uint32_t *)c->p[1];
	const uint32_t wbits[4] = { 0xffc00001u, 0x3f800000u, 0x3f800000u, 0 };
	int good = 1;

	for (unsigned int i = 0; i < HIDDEN; i++)
		src[i] = i == 3 ? 0xff81 : m890_float_to_bf16((float)i + 1.0f);
	idx[0] = 0;
	idx[1] = 0;
	idx[2] = 0;
	idx[3] = M890_ROW_NONE;
	memcpy(c->p[2], wbits, sizeof(wbits));
	memset(dst, 0xcc, 2 * 2 * HIDDEN);
	TAP_STATUS(m890_reduce(c->s, M890_TYPE_BF16, c->va[3], c->va[0],
			       c->va[1], c->va[2], 2, HIDDEN, 2), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(c->s), M890_SUCCESS);
	for (unsigned int i = 0; i < 2 * HIDDEN; i++) {
		unsigned int h = i % HIDDEN;
		uint16_t want = i < HIDDEN || h == 3 ? 0x7fc0 :
				m890_float_to_bf16((float)h + 1.0f);

		if (dst[i] != want) {
			printf("# element %u: 0x%04x, want 0x%04x\n", i, dst[i], want);
			good = 0;
		}
	}
	tap_ok(good, "REDUCE BF16: NaN weights and NaN elements give 0x7fc0");
}

static void arg_errors(struct ctx *c)
{
	TAP_STATUS(m890_mx_quantize(c->s, M890_TYPE_MXFP4, M890_TYPE_FP32,
				    c->va[0], c->va[1], c->va[2], 48),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_mx_dequantize(c->s, M890_TYPE_FP32, M890_TYPE_FP32,
				      c->va[1], c->va[2], c->va[3], 32),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_mx_quantize(c->s, M890_TYPE_MXFP8, M890_TYPE_FP32,
				    c->va[0] + 2, c->va[1], c->va[2], 32),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_gather(c->s, c->va[3], c->va[0], c->va[1], 0, 1),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_scatter(c->s, c->va[3], c->va[0], c->va[1] + 2, 4, 1),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_reduce(c->s, M890_TYPE_FP32, c->va[3], c->va[0],
			       c->va[1], c->va[2], 1, 1, 0),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_reduce(c->s, M890_TYPE_MXFP4, c->va[3], c->va[0],
			       c->va[1], c->va[2], 1, 1, 1),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_stream_synchronize(c->s), M890_SUCCESS);
}

int main(void)
{
	struct ctx c;
	void *p;

	TAP_REQUIRE(m890_device_open(0, &c.dev));
	TAP_REQUIRE(m890_stream_create(c.dev, &c.s));
	for (int i = 0; i < 6; i++) {
		TAP_REQUIRE(m890_buffer_alloc(c.dev, MB, M890_MEM_HOST, &c.buf[i]));
		TAP_REQUIRE(m890_buffer_map(c.buf[i], &p));
		c.p[i] = p;
		TAP_REQUIRE(m890_buffer_va(c.buf[i], &c.va[i]));
	}
	mx_case(&c, M890_TYPE_MXFP4, M890_TYPE_FP32);
	mx_case(&c, M890_TYPE_MXFP4, M890_TYPE_BF16);
	mx_case(&c, M890_TYPE_MXFP8, M890_TYPE_FP32);
	mx_case(&c, M890_TYPE_MXFP8, M890_TYPE_BF16);
	gather_scatter(&c);
	reduce_case(&c, M890_TYPE_FP32);
	reduce_case(&c, M890_TYPE_BF16);
	reduce_nan(&c);
	arg_errors(&c);

	TAP_STATUS(m890_stream_destroy(c.s), M890_SUCCESS);
	for (int i = 0; i < 6; i++)
		TAP_STATUS(m890_buffer_free(c.buf[i]), M890_SUCCESS);
	TAP_STATUS(m890_device_close(c.dev), M890_SUCCESS);
	return tap_done();
}
