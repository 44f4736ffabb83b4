// SPDX-License-Identifier: MIT
/*
 * m890-moe: one mixture-of-experts layer on every card, end to end.
 *
 * Per rank (one card each, one communicator over all of them):
 *   1. router: logits = x * Wr^T on the card (m890_gemm(), bf16, one
 *      group); the top-k selection and its softmax weights are made on
 *      the host from the logits read back (there is no top-k packet);
 *   2. dispatch (m890_ep_dispatch_device(), MXFP8 rows, routing on the
 *      card);
 *   3. expert FFN in MXFP4 on the compute stream: gate/up GEMM with
 *      fused SwiGLU over the expert-major rows, then the down GEMM that
 *      adds each row, weighted, into the combine's partial rows;
 *   4. combine (m890_ep_combine_device()).
 * The tokens run as two micro-batches on two EP objects so that the
 * dispatch of the second overlaps the GEMMs of the first and the combine
 * of the first the GEMMs of the second (a communication stream and a
 * compute stream per card, ordered by events).
 *
 * Verified bit for bit on every card, end to end: the whole layer is
 * computed on the host from the inputs (the tokens, the router's and
 * the experts' weights): the router logits with m890_gemm_host(), the
 * same top-k, the dispatch's MXFP8 rows and expert lists in their
 * documented order (m890_ep.h), both expert GEMMs with m890_gemm_host()
 * and the combine's sum in ascending top-k slot; the card's logits,
 * received rows, expert lists, partial rows and output must equal it.
 * Each stage is also checked on the card's own inputs (the GEMMs on the
 * rows it received, the combine on its partial rows), which names the
 * stage that differs.  Prints the modelled (TIMESTAMP) time of dispatch,
 * GEMMs and combine of a micro-batch, the step, and the share of
 * communication hidden under compute; then the Kimi-K3 decode step
 * projected with timing model 1.2 (tests/bench/ep_dev_model.h: the
 * expert GEMMs at the matrix engines' rates, dispatch and combine by
 * ep_perf's formula); -P prints only the projection, with no card.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <m890.h>

#include "ep_dev_model.h"

#define MAXN	64
#define MB	2		/* micro-batches */

static int n, T = 16, H = 128, I = 64, E = 0, K = 4;
static m890_device_t dev[MAXN];
static m890_stream_t sc[MAXN], sg[MAXN];
static uint64_t rng = 12345;

static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33);
}

#define CHECK(call) do { m890_status_t st_ = (call); if (st_) { \
	fprintf(stderr, "m890-moe: %s: %s (%s)\n", #call, \
		m890_status_string(st_), m890_get_last_error()); exit(1); } } while (0)

/* Per card: buffers and host copies. */
struct card {
	m890_buffer_t x[MB], ids[MB], wts[MB], out[MB], wr, logits, w1, w2,
		      act[MB], host;
	uint8_t *hp;
	uint16_t *tok[MB];
	int32_t *tid[MB], *rtid[MB];	/* top-k of the card's and of the host's logits */
	float *tw[MB], *rtw[MB];
	uint8_t *w1h, *w2h;
	m890_event_t ev[MB][6];
};
static struct card cd[MAXN];
#define HOST_BYTES (1u << 20)

static uint64_t va(m890_buffer_t b)
{
	uint64_t v;

	CHECK(m890_buffer_va(b, &v));
	return v;
}

static void staging_fits(uint64_t bytes)
{
	if (bytes > HOST_BYTES) {
		fprintf(stderr, "m890-moe: %llu bytes do not fit the staging buffer; smaller shape\n",
			(unsigned long long)bytes);
		exit(1);
	}
}

static void htod(int i, m890_buffer_t b, uint64_t off, const void *src, uint64_t bytes)
{
	staging_fits(bytes);
	memcpy(cd[i].hp, src, bytes);
	CHECK(m890_memcpy_htod(sc[i], b, off, cd[i].host, 0, bytes));
	CHECK(m890_stream_synchronize(sc[i]));
}

static void dtoh(int i, m890_buffer_t b, uint64_t off, void *dst, uint64_t bytes)
{
	staging_fits(bytes);
	CHECK(m890_memcpy_dtoh(sc[i], cd[i].host, 0, b, off, bytes));
	CHECK(m890_stream_synchronize(sc[i]));
	memcpy(dst, cd[i].hp, bytes);
}

/* Rows of @rows x @k floats quantized to MXFP4 rows (elements, scales). */
static uint8_t *mxfp4_rows(int rows, int k, float amp)
{
	uint64_t rb = m890_gemm_row_bytes(M890_TYPE_MXFP4, (uint64_t)k);
	uint8_t *m = malloc((size_t)rows * rb);
	float *v = malloc((size_t)k * sizeof(float));

	if (!m || !v)
		exit(1);
	for (int r = 0; r < rows; r++) {
		for (int j = 0; j < k; j++)
			v[j] = amp * (((int)(rnd() % 2001) - 1000) / 1000.0f);
		CHECK(m890_mx_quantize_host(M890_TYPE_MXFP4, M890_TYPE_FP32, v, (uint64_t)k,
					    m + r * rb, m + r * rb + k / 2));
	}
	free(v);
	return m;
}

/*
 * Host top-k of the logits of tokens @t0 .. @t0 + @nt (the highest
 * first, the lower expert on a tie) into @tid, and the softmax weights
 * over the k chosen into @tw.
 */
static void route(const uint16_t *logits, int t0, int nt, int32_t *tid, float *tw)
{
	for (int t = 0; t < nt; t++) {
		const uint16_t *l = logits + (size_t)(t0 + t) * E;
		float mx = -INFINITY, sum = 0, w[64];

		for (int j = 0; j < K; j++) {
			int best = -1;

			for (int e = 0; e < E; e++) {
				int used = 0;

				for (int q = 0; q < j; q++)
					used |= tid[t * K + q] == e;
				if (!used && (best < 0 || m890_bf16_to_float(l[e]) >
						       m890_bf16_to_float(l[best])))
					best = e;
			}
			tid[t * K + j] = best;
			w[j] = m890_bf16_to_float(l[best]);
			mx = w[j] > mx ? w[j] : mx;
		}
		for (int j = 0; j < K; j++)
			sum += w[j] = expf(w[j] - mx);
		for (int j = 0; j < K; j++)
			tw[t * K + j] = w[j] / sum;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: m890-moe [-t tokens per rank] [-H hidden] [-I ffn width] "
		"[-E experts] [-k top-k] [-s seed] [-P]\n");
	exit(2);
}

/* Modelled ns between two events of one card. */
static int64_t dns(m890_event_t a, m890_event_t b)
{
	int64_t d;

	CHECK(m890_event_elapsed_time(a, b, NULL, &d));
	return d;
}

/*
 * The Kimi-K3 decode step on 64 cards, projected with timing model 1.2
 * (hardware spec §10) for uniform random routing drawn as ep_perf draws
 * it (seed 1): dispatch and combine by ep_perf's formula for routing on
 * the card (tests/bench/ep_dev_model.h), the dispatch with the 500 ns
 * delivery of its last write, as ep_perf prints them; the expert FFN as
 * this program enqueues it, by the same header (epm_ffn(): each GEMM
 * packet takes the longer of its HBM bytes and its multiply-adds, gate/up
 * at the MX rate, down at the bf16 rate, one after the other), on the
 * slowest card.  Each phase between two events, the step their sum.
 * Projected, not measured.
 */
static void projection(void)
{
	/* Kimi-K3 decode, 64 cards: 128 tokens per card, hidden 3584, 896
	 * experts, top-16, FFN width 2048 (assumed), MXFP4 weights, MXFP8
	 * activations */
	const uint32_t ffn = 2048;
	const struct epm_shape sh = { .t = 128, .h = 3584, .e = 896, .k = 16,
				      .row = 3584 + 3584 / 32 };	/* MXFP8 */
	const double L = 896 / 64;
	double wbytes = L * (2.0 * ffn * (sh.h / 2 + sh.h / 32) + sh.h * (ffn / 2 + ffn / 32));
	double gemm, disp, comb, step;
	struct epm_ffn f = { 0 };
	uint64_t seed = 1;
	int32_t *idx = malloc(sizeof(*idx) * 64 * sh.t * sh.k);
	float *w = malloc(sizeof(*w) * 64 * sh.t * sh.k);

	if (!idx || !w) {
		fprintf(stderr, "m890-moe: out of memory\n");
		exit(1);
	}
	epm_route(&seed, idx, w, 64, sh.t, sh.k, sh.e);
	epm_dev(&sh, 64, idx, &disp, &comb);
	gemm = epm_ffn(&sh, ffn, 64, idx, &f) / 1e3;
	disp = (disp + M12_DELIVERY_NS) / 1e3;
	comb /= 1e3;
	step = gemm + disp + comb;
	free(idx);
	free(w);
	printf("# projected Kimi-K3 EP64 decode step (128 tokens per card, hidden 3584, 896 experts, top-16, FFN 2048):\n");
	printf("#   GEMMs %.1f us on the slowest card (%.0f expert rows, %.0f MB of MXFP4 weights): "
	       "gate/up %.1f us (HBM %.1f us, matrix engines %.1f us at the MX rate), "
	       "down %.1f us (HBM %.1f us, matrix engines %.1f us at the bf16 rate)\n",
	       gemm, f.entries, wbytes / 1e6,
	       fmax(f.up_hbm / M12_HBM_BPNS, f.up_macs / M12_MACS_PER_NS_MX) / 1e3,
	       f.up_hbm / M12_HBM_BPNS / 1e3, f.up_macs / M12_MACS_PER_NS_MX / 1e3,
	       fmax(f.down_hbm / M12_HBM_BPNS, f.down_macs / M12_MACS_PER_NS_BF16) / 1e3,
	       f.down_hbm / M12_HBM_BPNS / 1e3, f.down_macs / M12_MACS_PER_NS_BF16 / 1e3);
	printf("#   dispatch %.2f us, combine %.2f us (ep_perf's formula, uniform routing, seed 1; "
	       "goals 10.0 and 19.4 us)\n", disp, comb);
	printf("#   step %.1f us serial, EP communication %.0f%% of it\n",
	       step, 100 * (disp + comb) / step);
}

/* Count a mismatch in *@bad; print the first few. */
__attribute__((format(printf, 2, 3)))
static void complain(int *bad, const char *fmt, ...)
{
	va_list ap;

	if ((*bad)++ < 12) {
		va_start(ap, fmt);
		printf("m890-moe: ");
		vprintf(fmt, ap);
		printf("\n");
		va_end(ap);
	}
}

static void *xmalloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	if (!p) {
		fprintf(stderr, "m890-moe: out of memory\n");
		exit(1);
	}
	return p;
}

/*
 * Check micro-batch @b (@tb tokens per rank, @l experts per card) bit
 * for bit; returns the number of mismatches.
 *
 * The reference is the layer computed on the host from the inputs: the
 * host's routing of the host's logits (main()), then per card d what
 * the device-routed dispatch defines (m890_ep.h): each token of rank s
 * that has an expert on d quantized to MXFP8 into row s * tb + i (the
 * i-th such token of s), expert e's list the rows of its tokens in
 * (source, token, slot) order with their weights; the gate/up and the
 * down GEMM over them with m890_gemm_host() into d's partial rows; and
 * each token's output the binary32 sum from +0.0, in ascending top-k
 * slot, of the partial rows of the cards its experts are on (each card
 * once), rounded once to bf16.  The card's received rows, expert lists,
 * partial rows and output must equal it.
 *
 * Each stage is also checked on the card's own data, which names the
 * stage that differs: both GEMMs with m890_gemm_host() on the rows and
 * lists the card received, the combine on the partial rows the cards
 * wrote and the routing they were given.
 */
static int verify(int b, int tb, int l, const struct m890_ep_info *in, m890_ep_layout_t lo)
{
	const size_t cap = in->expert_capacity, nrow = (size_t)n * tb, rb = in->row_bytes;
	const size_t pb = 2 * nrow * H;
	const uint32_t none = UINT32_MAX;
	uint8_t *rows = xmalloc(nrow * rb), *rrows = xmalloc(nrow * rb);
	uint32_t *cnt = xmalloc(4ull * l), *erow = xmalloc(4 * cap * l);
	uint32_t *rcnt = xmalloc(4ull * l), *rerow = xmalloc(4 * cap * l);
	uint32_t *rowof = xmalloc(4 * n * nrow);	/* [d][s * tb + t]: row on d, or none */
	float *ew = xmalloc(4 * cap * l), *rew = xmalloc(4 * cap * l);
	uint16_t *act = xmalloc(2 * cap * l * I), *part = xmalloc(pb);
	uint16_t *got = xmalloc((size_t)n * pb);	/* every card's partial rows */
	uint16_t *rpart = xmalloc((size_t)n * pb);	/* ... and the reference's */
	uint16_t *o = xmalloc(2ull * tb * H);
	struct m890_gemm_shape up = M890_GEMM_SHAPE_INIT, down = M890_GEMM_SHAPE_INIT;
	int bad = 0;

	if (rb != m890_gemm_row_bytes(M890_TYPE_MXFP8, (uint64_t)H)) {
		complain(&bad, "batch %d: receive rows of %zu bytes, not MXFP8 rows of %d", b, rb, H);
		goto out;
	}
	up.flags = M890_GEMM_SWIGLU;
	up.a_type = M890_TYPE_MXFP8;
	up.w_type = M890_TYPE_MXFP4;
	up.groups = (uint32_t)l;
	up.k = (uint32_t)H;
	up.n = (uint32_t)I;
	up.cap = (uint32_t)cap;
	down = up;
	down.flags = M890_GEMM_SCATTER_ADD;
	down.a_type = M890_TYPE_BF16;
	down.k = (uint32_t)I;
	down.n = (uint32_t)H;
	for (int d = 0; d < n; d++) {
		struct m890_ep_recv r;
		uint32_t *ro = rowof + (size_t)d * nrow;
		uint16_t *rp = rpart + (size_t)d * nrow * H, *gp = got + (size_t)d * nrow * H;
		uint32_t sent[MAXN] = { 0 };

		/* the reference dispatch to card d, from the tokens */
		memset(rcnt, 0, 4ull * l);
		for (int s = 0; s < n; s++)
			for (int t = 0; t < tb; t++) {
				const int32_t *id = cd[s].rtid[b] + (size_t)t * K;
				uint32_t x = none;

				for (int j = 0; j < K; j++) {
					uint32_t e = (uint32_t)(id[j] - d * l);

					if (id[j] < d * l || e >= (uint32_t)l)
						continue;
					if (x == none) {
						uint8_t *dst;

						x = (uint32_t)s * tb + sent[s]++;
						dst = rrows + x * rb;
						CHECK(m890_mx_quantize_host(M890_TYPE_MXFP8, M890_TYPE_BF16,
									    cd[s].tok[b] + (size_t)t * H,
									    (uint64_t)H, dst, dst + H));
					}
					if (rcnt[e] >= cap) {
						complain(&bad, "batch %d card %d: expert %u over capacity %zu",
							 b, d, e, cap);
						goto out;
					}
					rerow[e * cap + rcnt[e]] = x;
					rew[e * cap + rcnt[e]] = cd[s].rtw[b][(size_t)t * K + j];
					rcnt[e]++;
				}
				ro[(size_t)s * tb + t] = x;
			}
		/* ... its expert FFN, into its partial rows */
		memset(rp, 0, pb);
		CHECK(m890_gemm_host(&up, rrows, cd[d].w1h, act, rerow, rcnt, NULL));
		CHECK(m890_gemm_host(&down, act, cd[d].w2h, rp, rerow, rcnt, rew));

		/* what card d received and computed */
		CHECK(m890_ep_get_recv(lo, d, &r));
		dtoh(d, r.rows, r.rows_offset, rows, nrow * rb);
		dtoh(d, r.experts, r.expert_count_offset, cnt, 4ull * l);
		dtoh(d, r.experts, r.expert_rows_offset, erow, 4 * cap * l);
		dtoh(d, r.experts, r.expert_weight_offset, ew, 4 * cap * l);
		dtoh(d, r.partial, r.partial_offset, gp, pb);
		for (int s = 0; s < n; s++)
			for (uint32_t i = 0; i < sent[s]; i++) {
				size_t x = (size_t)s * tb + i;

				if (memcmp(rows + x * rb, rrows + x * rb, rb))
					complain(&bad, "batch %d card %d: received row %zu (rank %d's token %u) "
						 "differs from the host's MXFP8 of the token", b, d, x, s, i);
			}
		int lists_ok = 1;

		for (int e = 0; e < l; e++) {
			for (uint32_t x = 0; x < cnt[e] && lists_ok; x++)
				lists_ok = cnt[e] <= cap && erow[e * cap + x] < nrow;
			if (cnt[e] != rcnt[e]) {
				complain(&bad, "batch %d card %d expert %d: %u rows, want %u",
					 b, d, e, cnt[e], rcnt[e]);
				continue;
			}
			if (memcmp(erow + e * cap, rerow + e * cap, 4ull * cnt[e]) ||
			    memcmp(ew + e * cap, rew + e * cap, 4ull * cnt[e]))
				complain(&bad, "batch %d card %d expert %d: row list or weights differ "
					 "from the host's dispatch", b, d, e);
		}
		/* stage check: both GEMMs on what the card received */
		if (!lists_ok) {
			complain(&bad, "batch %d card %d: expert lists out of range", b, d);
		} else {
			memcpy(part, gp, pb);
			CHECK(m890_gemm_host(&up, rows, cd[d].w1h, act, erow, cnt, NULL));
			CHECK(m890_gemm_host(&down, act, cd[d].w2h, part, erow, cnt, ew));
			if (memcmp(part, gp, pb))
				complain(&bad, "batch %d card %d: expert FFN output differs from "
					 "m890_gemm_host() on the card's received rows", b, d);
		}
		/* end to end: the partial rows of every received token */
		for (size_t x = 0; x < nrow; x++) {
			int s = (int)(x / tb);

			if (x % tb < sent[s] && memcmp(gp + x * H, rp + x * H, 2ull * H)) {
				complain(&bad, "batch %d card %d: partial row %zu differs from the "
					 "host's layer", b, d, x);
				break;
			}
		}
	}
	/* the combine on every rank: on the cards' partial rows and the
	 * routing the cards were given (stage), and on the reference's
	 * (end to end) */
	for (int s = 0; s < n; s++) {
		uint32_t dsent[MAXN] = { 0 };

		dtoh(s, cd[s].out[b], 0, o, 2ull * tb * H);
		for (int t = 0; t < tb; t++) {
			const int32_t *id = cd[s].tid[b] + (size_t)t * K;
			const int32_t *rid = cd[s].rtid[b] + (size_t)t * K;
			uint32_t drow[MAXN];

			for (int d = 0; d < n; d++) {
				int goes = 0;

				for (int j = 0; j < K; j++)
					goes |= id[j] / l == d;
				drow[d] = goes ? (uint32_t)s * tb + dsent[d]++ : none;
			}
			for (int h = 0; h < H; h++) {
				float acc = 0, racc = 0;
				int seen[MAXN] = { 0 }, rseen[MAXN] = { 0 };
				uint16_t v = o[(size_t)t * H + h];

				for (int j = 0; j < K; j++) {
					int d = id[j] / l, rd = rid[j] / l;
					size_t rx = rowof[(size_t)rd * nrow + (size_t)s * tb + t];

					if (!seen[d]) {
						seen[d] = 1;
						acc = acc + m890_bf16_to_float(got[((size_t)d * nrow + drow[d]) * H + h]);
					}
					if (!rseen[rd]) {
						rseen[rd] = 1;
						racc = racc + m890_bf16_to_float(rpart[((size_t)rd * nrow + rx) * H + h]);
					}
				}
				if (v != m890_float_to_bf16(acc))
					complain(&bad, "batch %d rank %d token %d element %d: 0x%04x, "
						 "the combine of the cards' partial rows 0x%04x",
						 b, s, t, h, v, m890_float_to_bf16(acc));
				if (v != m890_float_to_bf16(racc))
					complain(&bad, "batch %d rank %d token %d element %d: 0x%04x, "
						 "the host's layer 0x%04x", b, s, t, h, v,
						 m890_float_to_bf16(racc));
			}
		}
	}
out:
	free(rows);
	free(rrows);
	free(cnt);
	free(erow);
	free(rcnt);
	free(rerow);
	free(rowof);
	free(ew);
	free(rew);
	free(act);
	free(part);
	free(got);
	free(rpart);
	free(o);
	return bad;
}

int main(int argc, char **argv)
{
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	m890_ep_t ep[MB];
	m890_ep_layout_t lo[MB];
	struct m890_ep_info in;
	m890_comm_t comm;
	int opt, l, bad = 0, tb;
	void *p;

	while ((opt = getopt(argc, argv, "t:H:I:E:k:s:P")) != -1) {
		switch (opt) {
		case 't': T = atoi(optarg); break;
		case 'H': H = atoi(optarg); break;
		case 'I': I = atoi(optarg); break;
		case 'E': E = atoi(optarg); break;
		case 'k': K = atoi(optarg); break;
		case 's': rng = strtoull(optarg, NULL, 0); break;
		case 'P': projection(); return 0;
		default: usage();
		}
	}
	CHECK(m890_device_count(&n));
	n = n > MAXN ? MAXN : n;
	if (!E)
		E = 4 * n;
	if (T < MB || T % MB || H % 32 || I % 32 || H < 32 || I < 32 || E % n || K < 1 ||
	    K > 64 || K > E || E > 4096)
		usage();
	tb = T / MB;
	l = E / n;
	for (int i = 0; i < n; i++) {
		struct m890_device_info info = M890_DEVICE_INFO_INIT;
		struct card *c = &cd[i];

		CHECK(m890_device_open(i, &dev[i]));
		CHECK(m890_device_get_info(dev[i], &info));
		if (!(info.capabilities & M890_CAP_GEMM)) {
			printf("m890-moe: %s has no matrix engines (CAPS.GEMM)\n", info.node);
			return 1;
		}
		CHECK(m890_stream_create(dev[i], &sc[i]));
		CHECK(m890_stream_create(dev[i], &sg[i]));
		CHECK(m890_buffer_alloc(dev[i], HOST_BYTES, M890_MEM_HOST, &c->host));
		CHECK(m890_buffer_map(c->host, &p));
		c->hp = p;
		CHECK(m890_buffer_alloc(dev[i], 2ull * E * H, M890_MEM_HBM, &c->wr));
		CHECK(m890_buffer_alloc(dev[i], 2ull * T * E, M890_MEM_HBM, &c->logits));
		c->w1h = mxfp4_rows(l * 2 * I, H, 0.25f);
		c->w2h = mxfp4_rows(l * H, I, 0.25f);
		CHECK(m890_buffer_alloc(dev[i], (uint64_t)l * 2 * I *
					m890_gemm_row_bytes(M890_TYPE_MXFP4, H), M890_MEM_HBM, &c->w1));
		CHECK(m890_buffer_alloc(dev[i], (uint64_t)l * H *
					m890_gemm_row_bytes(M890_TYPE_MXFP4, I), M890_MEM_HBM, &c->w2));
		htod(i, c->w1, 0, c->w1h, (uint64_t)l * 2 * I * m890_gemm_row_bytes(M890_TYPE_MXFP4, H));
		htod(i, c->w2, 0, c->w2h, (uint64_t)l * H * m890_gemm_row_bytes(M890_TYPE_MXFP4, I));
		{
			uint16_t *wr = malloc(2ull * E * H), *x = malloc(2ull * T * H);

			for (int j = 0; j < E * H; j++)
				wr[j] = m890_float_to_bf16(((int)(rnd() % 2001) - 1000) / 4000.0f);
			for (int j = 0; j < T * H; j++)
				x[j] = m890_float_to_bf16(((int)(rnd() % 2001) - 1000) / 500.0f);
			htod(i, c->wr, 0, wr, 2ull * E * H);
			for (int b = 0; b < MB; b++) {
				CHECK(m890_buffer_alloc(dev[i], 2ull * tb * H, M890_MEM_HBM, &c->x[b]));
				CHECK(m890_buffer_alloc(dev[i], 4ull * tb * K, M890_MEM_HBM, &c->ids[b]));
				CHECK(m890_buffer_alloc(dev[i], 4ull * tb * K, M890_MEM_HBM, &c->wts[b]));
				CHECK(m890_buffer_alloc(dev[i], 2ull * tb * H, M890_MEM_HBM, &c->out[b]));
				htod(i, c->x[b], 0, x + (size_t)b * tb * H, 2ull * tb * H);
				c->tok[b] = malloc(2ull * tb * H);
				memcpy(c->tok[b], x + (size_t)b * tb * H, 2ull * tb * H);
				c->tid[b] = malloc(4ull * tb * K);
				c->tw[b] = malloc(4ull * tb * K);
				c->rtid[b] = malloc(4ull * tb * K);
				c->rtw[b] = malloc(4ull * tb * K);
				if (!c->tok[b] || !c->tid[b] || !c->tw[b] || !c->rtid[b] ||
				    !c->rtw[b]) {
					fprintf(stderr, "m890-moe: out of memory\n");
					exit(1);
				}
				for (int e = 0; e < 6; e++)
					CHECK(m890_event_create(dev[i], &c->ev[b][e]));
			}
			/* 1. router logits on the card, one GEMM per micro-batch */
			for (int b = 0; b < MB; b++) {
				struct m890_gemm_shape g = M890_GEMM_SHAPE_INIT;

				g.groups = 1;
				g.k = (uint32_t)H;
				g.n = (uint32_t)E;
				g.cap = (uint32_t)tb;
				CHECK(m890_gemm(sc[i], &g, va(c->x[b]), va(c->wr),
						va(c->logits) + 2ull * b * tb * E, 0, 0, 0));
			}
			CHECK(m890_stream_synchronize(sc[i]));
			uint16_t *lg = malloc(2ull * T * E), *want = malloc(2ull * T * E);
			struct m890_gemm_shape g = M890_GEMM_SHAPE_INIT;

			g.groups = 1;
			g.k = (uint32_t)H;
			g.n = (uint32_t)E;
			g.cap = (uint32_t)T;
			dtoh(i, c->logits, 0, lg, 2ull * T * E);
			CHECK(m890_gemm_host(&g, x, wr, want, NULL, NULL, NULL));
			if (memcmp(lg, want, 2ull * T * E)) {
				printf("m890-moe: card %d: router logits differ from the host reference\n", i);
				bad = 1;
			}
			/* the card's path routes the card's logits, the
			 * reference the host's */
			for (int b = 0; b < MB; b++) {
				route(lg, b * tb, tb, c->tid[b], c->tw[b]);
				route(want, b * tb, tb, c->rtid[b], c->rtw[b]);
				htod(i, c->ids[b], 0, c->tid[b], 4ull * tb * K);
				htod(i, c->wts[b], 0, c->tw[b], 4ull * tb * K);
			}
			free(lg);
			free(want);
			free(wr);
			free(x);
		}
	}
	CHECK(m890_comm_create(dev, n, NULL, &comm));
	cfg.flags = M890_EP_F_DEVICE_ROUTING;
	cfg.max_tokens_per_rank = (uint32_t)tb;
	cfg.hidden = (uint32_t)H;
	cfg.num_experts = (uint32_t)E;
	cfg.top_k = (uint32_t)K;
	cfg.dispatch_type = M890_TYPE_MXFP8;
	for (int b = 0; b < MB; b++) {
		CHECK(m890_ep_create(comm, &cfg, &ep[b]));
		CHECK(m890_ep_layout_create(ep[b], &lo[b]));
	}
	CHECK(m890_ep_get_info(ep[0], &in));
	for (int i = 0; i < n; i++)
		for (int b = 0; b < MB; b++)
			CHECK(m890_buffer_alloc(dev[i], 2ull * l * in.expert_capacity * I,
						M890_MEM_HBM, &cd[i].act[b]));

	/* 2-4: dispatch b on sc, FFN b on sg, combine b on sc */
	uint32_t nt[MAXN];
	m890_buffer_t xs[MAXN], is[MAXN], ws[MAXN], os[MAXN];

	for (int b = 0; b < MB; b++) {
		for (int i = 0; i < n; i++) {
			nt[i] = (uint32_t)tb;
			xs[i] = cd[i].x[b];
			is[i] = cd[i].ids[b];
			ws[i] = cd[i].wts[b];
			CHECK(m890_event_record(cd[i].ev[b][0], sc[i]));
		}
		CHECK(m890_ep_dispatch_device(ep[b], lo[b], xs, nt, is, ws, sc));
		for (int i = 0; i < n; i++) {
			struct m890_ep_recv r;
			struct m890_gemm_shape g = M890_GEMM_SHAPE_INIT;
			uint64_t ex;

			CHECK(m890_event_record(cd[i].ev[b][1], sc[i]));
			CHECK(m890_stream_wait_event(sg[i], cd[i].ev[b][1]));
			CHECK(m890_event_record(cd[i].ev[b][2], sg[i]));
			CHECK(m890_ep_get_recv(lo[b], i, &r));
			ex = va(r.experts);
			g.flags = M890_GEMM_SWIGLU;
			g.a_type = M890_TYPE_MXFP8;
			g.w_type = M890_TYPE_MXFP4;
			g.groups = (uint32_t)l;
			g.k = (uint32_t)H;
			g.n = (uint32_t)I;
			g.cap = in.expert_capacity;
			CHECK(m890_gemm(sg[i], &g, va(r.rows) + r.rows_offset, va(cd[i].w1),
					va(cd[i].act[b]), ex + r.expert_rows_offset,
					ex + r.expert_count_offset, 0));
			g.flags = M890_GEMM_SCATTER_ADD;
			g.a_type = M890_TYPE_BF16;
			g.k = (uint32_t)I;
			g.n = (uint32_t)H;
			CHECK(m890_gemm(sg[i], &g, va(cd[i].act[b]), va(cd[i].w2),
					va(r.partial) + r.partial_offset, ex + r.expert_rows_offset,
					ex + r.expert_count_offset, ex + r.expert_weight_offset));
			CHECK(m890_event_record(cd[i].ev[b][3], sg[i]));
		}
	}
	for (int b = 0; b < MB; b++) {
		for (int i = 0; i < n; i++) {
			CHECK(m890_stream_wait_event(sc[i], cd[i].ev[b][3]));
			CHECK(m890_event_record(cd[i].ev[b][4], sc[i]));
			os[i] = cd[i].out[b];
		}
		CHECK(m890_ep_combine_device(ep[b], lo[b], os, sc));
		for (int i = 0; i < n; i++)
			CHECK(m890_event_record(cd[i].ev[b][5], sc[i]));
	}
	for (int i = 0; i < n; i++) {
		CHECK(m890_stream_synchronize(sc[i]));
		CHECK(m890_stream_synchronize(sg[i]));
	}

	/* verification, end to end and stage by stage */
	for (int b = 0; b < MB; b++)
		bad += verify(b, tb, l, &in, lo[b]);
	if (bad > 12)
		printf("m890-moe: %d mismatches in all\n", bad);

	/* modelled times: the slowest card */
	int64_t disp = 0, gemm = 0, comb = 0, step = 0, serial;

	for (int i = 0; i < n; i++) {
		int64_t d = 0, g = 0, c = 0, st = dns(cd[i].ev[0][0], cd[i].ev[MB - 1][5]);

		for (int b = 0; b < MB; b++) {
			d += dns(cd[i].ev[b][0], cd[i].ev[b][1]);
			g += dns(cd[i].ev[b][2], cd[i].ev[b][3]);
			c += dns(cd[i].ev[b][4], cd[i].ev[b][5]);
		}
		disp = d > disp ? d : disp;
		gemm = g > gemm ? g : gemm;
		comb = c > comb ? c : comb;
		step = st > step ? st : step;
	}
	serial = disp + gemm + comb;
	printf("m890-moe: %d cards, %d tokens per card in %d micro-batches, hidden %d, FFN %d, "
	       "%d experts, top-%d, MXFP8 dispatch, MXFP4 experts\n", n, T, MB, H, I, E, K);
	printf("modelled (us, slowest card, both micro-batches): dispatch %.3f  GEMM %.3f  combine %.3f  "
	       "step %.3f (serial sum %.3f)\n", disp / 1e3, gemm / 1e3, comb / 1e3, step / 1e3,
	       serial / 1e3);
	/* hidden: how much shorter the step is than its phases one after the
	 * other; a longer step means the streams waited for each other or
	 * for peers longer than they overlapped */
	printf("overlap: %.3f us of %.3f us of communication hidden under compute (%.0f%%)%s; "
	       "EP communication %.0f%% of the serial step\n",
	       serial > step ? (serial - step) / 1e3 : 0.0, (disp + comb) / 1e3,
	       disp + comb && serial > step ?
	       100.0 * (double)(serial - step) / (double)(disp + comb) : 0.0,
	       serial > step ? "" : " (the step waited longer than the phases overlapped)",
	       serial ? 100.0 * (double)(disp + comb) / (double)serial : 0.0);
	projection();
	printf("%s: router, dispatch, expert GEMMs and combine %s the host's layer from the inputs\n",
	       bad ? "FAIL" : "OK", bad ? "differ from" : "equal");
	for (int b = 0; b < MB; b++) {
		m890_ep_layout_destroy(lo[b]);
		m890_ep_destroy(ep[b]);
	}
	m890_comm_destroy(comm);
	return bad != 0;
}
