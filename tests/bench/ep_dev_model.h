/* SPDX-License-Identifier: MIT */
/*
 * The modelled time of EP with routing on the card (libm890/src/ep_dev.c)
 * under timing model 1.2 (model12.h), and the routing it is computed
 * for: the formula ep_perf prints and checks against the measurement,
 * shared with m890-moe's projection so that both give the same figures.
 */
#ifndef M890_BENCH_EP_DEV_MODEL_H
#define M890_BENCH_EP_DEV_MODEL_H

#include <stdint.h>

#include "model12.h"

#define EPM_MAX_RANKS	64
#define EPM_MAX_EXPERTS	4096	/* local experts of a rank (epm_ffn_rank) */

/* The benchmarks' generator (a 64-bit LCG), its state in @rng. */
static inline uint32_t epm_rnd(uint64_t *rng)
{
	*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*rng >> 33);
}

/*
 * Uniform random routing of @ranks ranks of @t tokens: @k distinct
 * experts of @experts each (@idx), and weights summing to 1 (@w).
 */
static inline void epm_route(uint64_t *rng, int32_t *idx, float *w, int ranks,
			     uint32_t t, uint32_t k, uint32_t experts)
{
	for (uint64_t q = 0; q < (uint64_t)ranks * t; q++) {
		float sum = 0;

		for (uint32_t j = 0; j < k; j++) {
			int32_t e;
			int dup;

			do {
				e = (int32_t)(epm_rnd(rng) % experts);
				dup = 0;
				for (uint32_t j2 = 0; j2 < j; j2++)
					dup |= idx[q * k + j2] == e;
			} while (dup);
			idx[q * k + j] = e;
			w[q * k + j] = (float)(epm_rnd(rng) % 1000 + 1);
			sum += w[q * k + j];
		}
		for (uint32_t j = 0; j < k; j++)
			w[q * k + j] /= sum;
	}
}

/* The shape of an EP object: tokens per rank, hidden, experts, top-k,
 * and the bytes of one dispatched row. */
struct epm_shape {
	uint32_t t, h, e, k, row;
};

/*
 * Modelled ns of rank @s's device-routed dispatch (@combine 0) or
 * combine, for @ranks ranks (at most EPM_MAX_RANKS) of @sh->t tokens
 * with routing @idx, as libm890 enqueues them (libm890/src/ep_dev.c)
 * between two events: each event a TIMESTAMP then the driver's FENCE,
 * the call one submission closed by a FENCE.  Bytes as hardware spec
 * §10 charges them.  Without the 500 ns delivery of the dispatch's last
 * posted write (M12_DELIVERY_NS), which no card's clock shows.
 */
static inline double epm_dev_rank(const struct epm_shape *sh, const int32_t *idx,
				  int ranks, int s, int combine)
{
	double n = ranks, tmax = sh->t, k = sh->k, h = sh->h;
	double rows_to[EPM_MAX_RANKS] = { 0 }, rem = 0, loc = 0, got = 0;
	double pulled_remote = 0, pulled_local = 0, entries = 0;
	uint32_t L = sh->e / (uint32_t)ranks;
	struct m12 m = { 0 };
	double t0;

	for (uint32_t t = 0; t < sh->t; t++) {
		uint8_t hit[EPM_MAX_RANKS] = { 0 };

		for (uint32_t j = 0; j < sh->k; j++) {
			int32_t e = idx[((uint64_t)s * sh->t + t) * sh->k + j];
			int d = e < 0 ? -1 : e / (int32_t)L;

			if (d < 0 || hit[d])
				continue;
			hit[d] = 1;
			rows_to[d]++;
			if (combine)
				*(d == s ? &pulled_local : &pulled_remote) += 2 * h;
		}
	}
	for (int d = 0; d < ranks; d++)
		*(d == s ? &loc : &rem) += rows_to[d];
	/* rows this rank receives and its expert entries */
	for (int src = 0; src < ranks; src++)
		for (uint32_t t = 0; t < sh->t; t++) {
			int to_me = 0;

			for (uint32_t j = 0; j < sh->k; j++) {
				int32_t e = idx[((uint64_t)src * sh->t + t) * sh->k + j];

				if (e >= 0 && e / (int32_t)L == s) {
					to_me = 1;
					entries++;
				}
			}
			got += to_me;
		}
	t0 = m12_drain(&m, M12_HOST, 8);		/* event: TIMESTAMP */
	m12_drain(&m, M12_HOST, 8);			/* its FENCE */
	if (!combine) {
		double lists = 8 * n * tmax, meta = 4 * k;

		/* MOE_ROUTE SEND: the ids twice, lists, counts, combine */
		m12_data(&m, 0, 8 * tmax * k + 8 * n * tmax + 8 * n +
			 4 * tmax * k, 0, 0, 0);
		m12_drain(&m, M12_HBM, 8);		/* WAIT arrival >= 0 */
		for (int w = 0; w < 2; w++)		/* ids, weights rows */
			m12_data(&m, 1, 8 * n + lists + (loc + rem) * meta +
				 loc * meta, 0, rem * meta, 0);
		/* the payload, quantized on the way for MX */
		m12_data(&m, 1, 8 * n + lists + (loc + rem) * 2 * h +
			 loc * sh->row, 0, rem * sh->row, 0);
		m12_data(&m, 0, 16 * n + 8, 0, 8 * (n - 1), 0);	/* SET counts */
		m12_data(&m, 0, 8 * n + 16, 0, 8 * (n - 1), 0);	/* ADD arrival */
		m12_drain(&m, M12_HBM, 8);		/* WAIT arrival */
		/* MOE_ROUTE RECV: counts, the received meta rows, the lists */
		m12_data(&m, 0, 8 * n + got * 8 * k + 4.0 * L + 8 * entries,
			 0, 0, 0);
	} else {
		m12_data(&m, 0, 8 * n + 16, 0, 8 * (n - 1), 0);	/* ADD ready */
		m12_drain(&m, M12_HBM, 8);		/* WAIT ready */
		/* REDUCE: table, indices, local rows, output; peer rows */
		m12_data(&m, 0, 8 * n + 4 * tmax * k + pulled_local + 2 * h * tmax,
			 0, pulled_remote, pulled_remote > 0);
	}
	m12_drain(&m, M12_HOST, 8);			/* the call's FENCE */
	return m12_drain(&m, M12_HOST, 8) - t0;		/* event: TIMESTAMP */
}

/* Slowest rank's device-routed times, ns, for routing @idx of @ranks ranks. */
static inline void epm_dev(const struct epm_shape *sh, int ranks, const int32_t *idx,
			   double *disp, double *comb)
{
	*disp = *comb = 0;
	for (int s = 0; s < ranks; s++) {
		double d = epm_dev_rank(sh, idx, ranks, s, 0);
		double c = epm_dev_rank(sh, idx, ranks, s, 1);

		*disp = d > *disp ? d : *disp;
		*comb = c > *comb ? c : *comb;
	}
}

/*
 * What one rank's expert FFN charges (hardware spec §7.15 and §10), as
 * m890-moe enqueues it on the received rows of a device-routed dispatch
 * (libm890's layout, m890_ep_get_recv()): the gate/up GEMM (MXFP8
 * activations read through expert_rows, MXFP4 weights, SWIGLU, STORE of
 * @ffn bf16 columns) then the down GEMM (bf16 activations, MXFP4
 * weights, SCATTER_ADD of @sh->h columns into the partial rows), each
 * over the rank's L local experts, one packet each.  Bytes of the
 * card's HBM and multiply-adds per packet, charged as the card charges
 * them: the count list (4 bytes a group), the index and weight lists (4
 * bytes a row), each group's weights once (only groups with rows), each
 * activation row once, each output row written once, and a SCATTER_ADD
 * row read too unless it is its first write in the packet.
 */
struct epm_ffn {
	double entries, rows, groups;	/* (token, expert) rows, tokens, experts with rows */
	double up_hbm, up_macs, down_hbm, down_macs;
};

static inline void epm_ffn_rank(const struct epm_shape *sh, uint32_t ffn, const int32_t *idx,
				int ranks, int s, struct epm_ffn *f)
{
	uint32_t L = sh->e / (uint32_t)ranks;
	double h = sh->h, i = ffn, got = 0, entries = 0, groups = 0;
	uint8_t used[EPM_MAX_EXPERTS] = { 0 };	/* local experts with rows */

	for (uint64_t q = 0; q < (uint64_t)ranks * sh->t; q++) {
		int to_me = 0;

		for (uint32_t j = 0; j < sh->k; j++) {
			int32_t e = idx[q * sh->k + j];

			if (e >= 0 && e / (int32_t)L == s) {
				used[e % (int32_t)L % EPM_MAX_EXPERTS] = 1;
				entries++;
				to_me = 1;
			}
		}
		got += to_me;
	}
	for (uint32_t e = 0; e < L && e < EPM_MAX_EXPERTS; e++)
		groups += used[e];
	f->entries = entries;
	f->rows = got;
	f->groups = groups;
	/* gate/up: counts, expert_rows, 2 * ffn MXFP4 rows of K = h per
	 * expert, the MXFP8 rows (h + h / 32 bytes) in, ffn bf16 out */
	f->up_hbm = 4.0 * L + 4 * entries + groups * 2 * i * (h / 2 + h / 32) +
		    entries * (h + h / 32) + entries * 2 * i;
	f->up_macs = entries * 2 * i * h;
	/* down: counts, expert_rows and expert_weight, h MXFP4 rows of
	 * K = ffn per expert, the bf16 rows in, the partial rows written
	 * and read back for all but each row's first write */
	f->down_hbm = 4.0 * L + 8 * entries + groups * h * (i / 2 + i / 32) +
		      entries * 2 * i + entries * 2 * h + (entries - got) * 2 * h;
	f->down_macs = entries * h * i;
}

/*
 * Modelled ns of that FFN between two events (each a TIMESTAMP then the
 * driver's FENCE), each GEMM one submission closed by a FENCE: the
 * gate/up packet at the MX rate, then the down packet at the bf16 rate
 * (its activations are bf16), in order on one queue, each taking the
 * longer of its HBM traffic and its multiply-adds.
 */
static inline double epm_ffn_ns(const struct epm_ffn *f)
{
	struct m12 m = { 0 };
	double t0;

	t0 = m12_drain(&m, M12_HOST, 8);		/* event: TIMESTAMP */
	m12_drain(&m, M12_HOST, 8);			/* its FENCE */
	m12_gemm(&m, f->up_hbm, f->up_macs, M12_MACS_PER_NS_MX);
	m12_drain(&m, M12_HOST, 8);			/* the call's FENCE */
	m12_gemm(&m, f->down_hbm, f->down_macs, M12_MACS_PER_NS_BF16);
	m12_drain(&m, M12_HOST, 8);			/* the call's FENCE */
	return m12_drain(&m, M12_HOST, 8) - t0;		/* event: TIMESTAMP */
}

/* The slowest rank's FFN (*@f its charges), ns, for routing @idx. */
static inline double epm_ffn(const struct epm_shape *sh, uint32_t ffn, int ranks,
			     const int32_t *idx, struct epm_ffn *f)
{
	double worst = -1;

	*f = (struct epm_ffn){ 0 };
	for (int s = 0; s < ranks; s++) {
		struct epm_ffn r;
		double t;

		epm_ffn_rank(sh, ffn, idx, ranks, s, &r);
		t = epm_ffn_ns(&r);
		if (t > worst) {
			worst = t;
			*f = r;
		}
	}
	return worst;
}

#endif /* M890_BENCH_EP_DEV_MODEL_H */
