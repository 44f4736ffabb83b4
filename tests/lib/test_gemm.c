// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 grouped GEMM (guest)
 *
 * m890_gemm() on the card against m890_gemm_host() bit for bit: bf16 by
 * bf16, MXFP8 by MXFP4 with SwiGLU through an index list with NONE
 * entries and counts below the capacity (padded rows untouched), a
 * SCATTER_ADD down projection, NaN scales and infinities, more than 255
 * groups (several packets); then the refused calls (shape, flags, a
 * weight list without SCATTER_ADD) and a count above the capacity
 * (M890_ERROR_CAPACITY from the card).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define HOST_BYTES	(4u << 20)

static m890_device_t dev;
static m890_stream_t str;
static m890_buffer_t hbm, host;
static uint8_t *hp;
static uint64_t rng = 99;

static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33);
}

static void rnd_rows(enum m890_data_type t, uint8_t *p, uint32_t rows, uint32_t k)
{
	uint64_t rb = m890_gemm_row_bytes(t, k), eb = t == M890_TYPE_MXFP4 ? k / 2 : k;

	for (uint32_t r = 0; r < rows; r++) {
		uint8_t *q = p + r * rb;

		if (t == M890_TYPE_BF16) {
			for (uint32_t i = 0; i < k; i++) {
				uint16_t v = (uint16_t)((rnd() & 0x8000) | ((120 + rnd() % 14) << 7) |
							(rnd() & 0x7f));

				memcpy(q + 2 * i, &v, 2);
			}
			continue;
		}
		for (uint64_t i = 0; i < eb; i++)
			q[i] = (uint8_t)rnd();
		for (uint32_t i = 0; i < k / 32; i++)
			q[eb + i] = (uint8_t)(118 + rnd() % 16);
	}
}

/* Offsets in the HBM buffer. */
#define OA	0x000000u
#define OW	0x100000u
#define OO	0x280000u
#define OI	0x3c0000u
#define OC	0x3e0000u
#define OWT	0x3f0000u

struct gcase {
	struct m890_gemm_shape g;
	uint8_t *a, *w;
	uint32_t *idx, *counts;
	float *weight;
	uint16_t *out;
	uint64_t ab, wb, ob;
};

static void put(uint64_t off, const void *p, uint64_t n)
{
	memcpy(hp, p, n);
	TAP_REQUIRE(m890_memcpy_htod(str, hbm, off, host, 0, n));
	TAP_REQUIRE(m890_stream_synchronize(str));
}

static int run_case(struct gcase *c, const char *what)
{
	uint64_t base;
	uint32_t rows = c->g.groups * c->g.cap;
	uint16_t *got;
	int good;

	TAP_REQUIRE(m890_buffer_va(hbm, &base));
	put(OA, c->a, c->ab);
	put(OW, c->w, c->wb);
	for (uint64_t i = 0; i < c->ob / 2; i++)
		c->out[i] = 0x3f80;
	put(OO, c->out, c->ob);
	if (c->idx)
		put(OI, c->idx, 4ull * rows);
	if (c->counts)
		put(OC, c->counts, 4ull * c->g.groups);
	if (c->weight)
		put(OWT, c->weight, 4ull * rows);
	TAP_STATUS(m890_gemm(str, &c->g, base + OA, base + OW, base + OO,
			     c->idx ? base + OI : 0, c->counts ? base + OC : 0,
			     c->weight ? base + OWT : 0), M890_SUCCESS);
	TAP_REQUIRE(m890_stream_synchronize(str));
	TAP_STATUS(m890_gemm_host(&c->g, c->a, c->w, c->out, c->idx, c->counts,
				  c->weight), M890_SUCCESS);
	TAP_REQUIRE(m890_memcpy_dtoh(str, host, 0, hbm, OO, c->ob));
	TAP_REQUIRE(m890_stream_synchronize(str));
	got = (uint16_t *)hp;
	good = !memcmp(got, c->out, c->ob);
	for (uint64_t i = 0; !good && i < c->ob / 2; i++)
		if (got[i] != c->out[i]) {
			printf("# %s: element %llu: 0x%04x, want 0x%04x\n", what,
			       (unsigned long long)i, got[i], c->out[i]);
			break;
		}
	tap_ok(good, "%s: the card's result equals m890_gemm_host() bit for bit", what);
	return good;
}

static void new_case(struct gcase *c, uint32_t flags, enum m890_data_type at,
		     enum m890_data_type wt, uint32_t groups, uint32_t k, uint32_t n,
		     uint32_t cap)
{
	uint32_t nw = flags & M890_GEMM_SWIGLU ? 2 * n : n;

	memset(c, 0, sizeof(*c));
	c->g = (struct m890_gemm_shape)M890_GEMM_SHAPE_INIT;
	c->g.flags = flags;
	c->g.a_type = at;
	c->g.w_type = wt;
	c->g.groups = groups;
	c->g.k = k;
	c->g.n = n;
	c->g.cap = cap;
	c->ab = m890_gemm_row_bytes(at, k) * groups * cap;
	c->wb = m890_gemm_row_bytes(wt, k) * groups * nw;
	c->ob = 2ull * n * groups * cap;
	c->a = malloc(c->ab);
	c->w = malloc(c->wb);
	c->out = malloc(c->ob);
	if (!c->a || !c->w || !c->out)
		exit(1);
	rnd_rows(at, c->a, groups * cap, k);
	rnd_rows(wt, c->w, groups * nw, k);
}

static void free_case(struct gcase *c)
{
	free(c->a);
	free(c->w);
	free(c->out);
	free(c->idx);
	free(c->counts);
	free(c->weight);
}

int main(void)
{
	struct m890_device_info info = M890_DEVICE_INFO_INIT;
	struct gcase c;
	void *p;
	uint64_t base;

	TAP_REQUIRE(m890_device_open(0, &dev));
	TAP_REQUIRE(m890_device_get_info(dev, &info));
	if (!(info.capabilities & M890_CAP_GEMM)) {
		printf("1..0 # SKIP the card has no matrix engines (CAPS.GEMM)\n");
		return 0;
	}
	TAP_REQUIRE(m890_stream_create(dev, &str));
	TAP_REQUIRE(m890_buffer_alloc(dev, HOST_BYTES, M890_MEM_HBM, &hbm));
	TAP_REQUIRE(m890_buffer_alloc(dev, HOST_BYTES, M890_MEM_HOST, &host));
	TAP_REQUIRE(m890_buffer_map(host, &p));
	TAP_REQUIRE(m890_buffer_va(hbm, &base));
	hp = p;

	new_case(&c, 0, M890_TYPE_BF16, M890_TYPE_BF16, 3, 64, 24, 5);
	run_case(&c, "bf16 by bf16, 3 groups");
	free_case(&c);

	new_case(&c, M890_GEMM_SWIGLU, M890_TYPE_MXFP8, M890_TYPE_MXFP4, 4, 96, 32, 6);
	c.idx = malloc(4 * 24);
	c.counts = malloc(4 * 4);
	for (uint32_t i = 0; i < 24; i++)
		c.idx[i] = (i * 7) % 24;
	c.idx[3] = M890_ROW_NONE;
	c.counts[0] = 6;
	c.counts[1] = 0;
	c.counts[2] = 2;
	c.counts[3] = 5;
	run_case(&c, "MXFP8 by MXFP4 gate/up with SwiGLU, index list, padded groups");
	free_case(&c);

	new_case(&c, M890_GEMM_SCATTER_ADD, M890_TYPE_BF16, M890_TYPE_MXFP4, 3, 64, 64, 4);
	c.idx = malloc(4 * 12);
	c.weight = malloc(4 * 12);
	for (uint32_t i = 0; i < 12; i++) {
		c.idx[i] = (i * 5) % 7;
		c.weight[i] = 0.25f * (float)(1 + i % 3);
	}
	run_case(&c, "SCATTER_ADD down projection (rows named twice add)");
	free_case(&c);

	new_case(&c, 0, M890_TYPE_MXFP8, M890_TYPE_MXFP4, 1, 64, 16, 4);
	c.a[64 + 1] = 0xff;				/* row 0: a NaN scale */
	c.w[m890_gemm_row_bytes(M890_TYPE_MXFP4, 64) + 32] = 254;	/* huge weights */
	c.w[m890_gemm_row_bytes(M890_TYPE_MXFP4, 64) + 33] = 254;
	c.a[m890_gemm_row_bytes(M890_TYPE_MXFP8, 64) + 64] = 254;	/* row 1: huge */
	run_case(&c, "NaN scales, overflow to infinities");
	free_case(&c);

	new_case(&c, 0, M890_TYPE_BF16, M890_TYPE_BF16, 300, 32, 8, 1);
	run_case(&c, "300 groups: two packets");
	free_case(&c);

	/* refusals */
	new_case(&c, 0, M890_TYPE_BF16, M890_TYPE_BF16, 1, 32, 8, 2);
	c.g.k = 33;
	TAP_STATUS(m890_gemm(str, &c.g, base, base, base, 0, 0, 0), M890_ERROR_INVALID_ARGUMENT);
	c.g.k = 32;
	c.g.flags = 4;
	TAP_STATUS(m890_gemm(str, &c.g, base, base, base, 0, 0, 0), M890_ERROR_INVALID_ARGUMENT);
	c.g.flags = 0;
	c.g.a_type = M890_TYPE_MXFP4;
	TAP_STATUS(m890_gemm(str, &c.g, base, base, base, 0, 0, 0), M890_ERROR_INVALID_ARGUMENT);
	c.g.a_type = M890_TYPE_BF16;
	TAP_STATUS(m890_gemm(str, &c.g, base, base, base, 0, 0, base + OWT),
		   M890_ERROR_INVALID_ARGUMENT);
	c.g.size = 4;
	TAP_STATUS(m890_gemm(str, &c.g, base, base, base, 0, 0, 0), M890_ERROR_INVALID_ARGUMENT);
	c.g.size = sizeof(c.g);
	/* a count above the capacity: the card's CAPACITY, sticky */
	{
		uint32_t cnt = 3;

		put(OC, &cnt, 4);
		TAP_STATUS(m890_gemm(str, &c.g, base + OA, base + OW, base + OO, 0, base + OC, 0),
			   M890_SUCCESS);
		TAP_STATUS(m890_stream_synchronize(str), M890_ERROR_CAPACITY);
		TAP_STATUS(m890_gemm_host(&c.g, c.a, c.w, c.out, NULL, &cnt, NULL),
			   M890_ERROR_CAPACITY);
	}
	free_case(&c);
	m890_stream_destroy(str);
	m890_buffer_free(hbm);
	m890_buffer_free(host);
	m890_device_close(dev);
	return tap_done();
}
