// SPDX-License-Identifier: MIT
/*
 * DOC: ep_perf - MoE dispatch and combine times, DeepEP style
 *
 * ep_perf [-t TOKENS] [-H HIDDEN] [-E EXPERTS] [-k TOPK] [-d bf16|mxfp8|mxfp4]
 *         [-n ITERS] [-w WARMUP] [-g CARDS] [-P RANKS] [-s SEED] [-A PCT]
 *         [-m host|dev]
 *
 * -m dev (the default on spec 1.1 cards): the EP object routes on the
 * card (M890_EP_F_DEVICE_ROUTING): top-k ids and weights in HBM, the
 * partial rows the combine pulls all 1.0 (written between the phases,
 * outside the timing), so each output is the number of ranks its
 * token's experts are on; the table adds the time over the floor.
 * -m host: the EP object of m890_ep_dispatch(), routing on the host.
 *
 * One communicator over the cards (or -g CARDS), an EP object of the
 * given shape (default: the Kimi-K3 decode step, 128 tokens per rank,
 * hidden 3584, 896 experts, top-16, MXFP8 dispatch, bf16 combine), uniform
 * random routing (-s SEED; distinct experts per token).  Measured, per
 * iteration: the wall time of the dispatch and of the combine (enqueue to
 * completion on every card, host clock) and their modelled time (TIMESTAMP
 * events around each on every card; the slowest card counts), and the
 * bandwidth as DeepEP reports it: the bytes a rank sends through the
 * fabric (rows to other ranks; the slowest rank's) over the time.  Every
 * received row is compared with the host reference (the token through
 * m890_mx_quantize_host()), and the per-expert counts and the combine
 * output are checked (#wrong).
 *
 * Projected: the modelled time of the same packets for -P RANKS (default
 * 64) from the rules of timing model 1.2 (hardware spec §10, model12.h:
 * prefetching fetch, several data movers, shared bandwidth, posted peer
 * writes and atomics, round trips for peer reads, per-queue drains), plus
 * one switch latency (500 ns) for the delivery of the last posted
 * write, which no card's clock shows; routing drawn
 * the same way for RANKS ranks of TOKENS tokens each; the same formula at
 * the measured card count is printed next to the measurement, so the two
 * can be compared (their difference is printed; with -A PCT a difference
 * above PCT percent fails the run).  The floor is the time to move, at 800 GB/s, the bytes
 * DeepEP's normal mode moves: each token once to every other rank that
 * holds one of its experts (dispatch: a payload row; combine: a bf16 row).
 *
 * Exit status: 0 when nothing was wrong, 1 otherwise, 2 on a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <m890.h>

#include "bench_pat.h"
#include "ep_dev_model.h"
#include "model12.h"
#include "perf_args.h"

#define MAXN 64

#define CHECK(call) do { \
	m890_status_t st_ = (call); \
	if (st_) { \
		fprintf(stderr, "ep_perf: %s: %s\n", #call, \
			m890_get_last_error()); \
		exit(1); \
	} \
} while (0)

static uint64_t rng = 1;

static uint32_t rnd(void)
{
	return epm_rnd(&rng);
}

/* Routing of @ranks ranks of @t tokens: @k distinct experts each. */
static void route(int32_t *idx, float *w, int ranks, uint32_t t, uint32_t k,
		  uint32_t experts)
{
	epm_route(&rng, idx, w, ranks, t, k, experts);
}

/* The host-routed packets in timing model 1.2 (model12.h). */
#define DATA(c, hbm, host, peer, trips) m12_data(c, 0, hbm, host, peer, trips)
#define WAIT(c) m12_drain(c, M12_HBM, 8)
#define FENCE(c) m12_drain(c, M12_HOST, 8)
#define DELIVERY_NS M12_DELIVERY_NS

/* Cards with ENGINES and ATOMICS run the 1.1 exchange (comm_exchange_fast()). */
static int fast_exchange;
#define PEER_BPNS M12_LINK_BPNS

struct shape {
	uint32_t t, h, e, k, type;
	uint32_t row, eb, sc;	/* row bytes, element bytes, scale bytes */
};

/*
 * The exchange of spec 1.0 cards (m890_comm_exchange()): per peer a WAIT
 * for its ready slot, a progress mark in host memory, the transfer and a
 * SIGNAL; then a WAIT and a mark per peer.  @md: rows per rank, @rb: row
 * bytes.
 */
static void model_exchange(struct m12 *c, const uint64_t *md, double rb,
			   int ranks, int s, int combine)
{
	for (int k = 1; k < ranks; k++)				/* ready */
		DATA(c, 0, 0, 8, 0);
	FENCE(c);		/* the exchange submits phase by phase */
	for (int k = 0; k < ranks; k++) {			/* rotated */
		int d = (s + k) % ranks;

		if (d == s) {
			if (md[d])	/* local SCATTER or GATHER */
				DATA(c, 2.0 * md[d] * rb, 4.0 * md[d], 0, 0);
			continue;
		}
		WAIT(c);					/* ready? */
		DATA(c, 0, 8, 0, 0);				/* progress */
		if (md[d])	/* SCATTER writes, GATHER reads the peer */
			DATA(c, md[d] * rb, 4.0 * md[d], md[d] * rb, combine);
		DATA(c, 0, 0, 8, 0);				/* done */
	}
	FENCE(c);
	for (int k = 1; k < ranks; k++) {			/* wait all */
		WAIT(c);
		DATA(c, 0, 8, 0, 0);
	}
	FENCE(c);
}

/*
 * The exchange of spec 1.1 cards (comm_exchange_fast()): one SIGNAL ADD
 * to 2 (n - 1) peer semaphores (target list in host memory, posted adds)
 * in a submission of its own, a WAIT for every peer, per peer the
 * transfer and a SIGNAL ADD to 2 of its semaphores, the own block
 * RELAXED, a WAIT for every peer's transfer; one submission.
 */
static void model_exchange_fast(struct m12 *c, const uint64_t *md, double rb,
				int ranks, int s, int combine)
{
	if (ranks > 1) {
		DATA(c, 0, 16.0 * (ranks - 1), 16.0 * (ranks - 1), 0);
		FENCE(c);
		WAIT(c);					/* all ready */
	}
	for (int k = 1; k < ranks; k++) {			/* rotated */
		int d = (s + k) % ranks;

		if (md[d])	/* SCATTER writes, GATHER reads the peer */
			DATA(c, md[d] * rb, 4.0 * md[d], md[d] * rb, combine);
		DATA(c, 0, 16, 16, 0);				/* done */
	}
	if (md[s])		/* local SCATTER or GATHER, on another DM */
		m12_data(c, 1, 2.0 * md[s] * rb, 4.0 * md[s], 0, 0);
	if (ranks > 1)
		WAIT(c);					/* all done */
	FENCE(c);
}

/*
 * Modelled ns of rank @s's dispatch (@combine = 0) or combine, for @ranks
 * ranks with routing @idx, as libm890 enqueues them and as ep_perf
 * measures them: from the TIMESTAMP of the event before to that of the
 * event after, each event its own submission closed by the driver's
 * FENCE.  Every WAIT is counted with one check; the exchange (that of
 * spec 1.0 or of 1.1 cards, model_exchange() and model_exchange_fast())
 * is counted in the submissions it makes, each closed by the driver's
 * FENCE (m890_stream_batch()), assumed to fit the driver's
 * max_submit_packets (1023: true up to 64 ranks).
 */
static double model_rank(const struct shape *sh, const int32_t *idx,
			 int ranks, int s, int combine)
{
	uint32_t L = sh->e / (uint32_t)ranks, m = 0, used = 0;
	uint64_t *md = calloc((size_t)ranks, sizeof(*md));
	double rb = combine ? 2.0 * sh->h : sh->row;
	struct m12 c = { 0 };
	double t0;

	if (!md)
		exit(1);
	for (uint32_t q = 0; q < sh->t * sh->k; q++) {
		int32_t e = idx[(uint64_t)s * sh->t * sh->k + q];

		if (e >= 0) {
			md[(uint32_t)e / L]++;
			m++;
			used++;
		}
	}
	t0 = m12_drain(&c, M12_HOST, 8);	/* the first event's TIMESTAMP */
	FENCE(&c);
	if (!combine) {
		if (sh->sc && sh->t) {
			DATA(&c, 2.0 * sh->t * sh->h + (double)sh->t * sh->row, 0, 0, 0);
			DATA(&c, 2.0 * sh->t * sh->eb, 0, 0, 0);	/* pack */
			DATA(&c, 2.0 * sh->t * sh->sc, 0, 0, 0);
		}
		if (m)
			DATA(&c, 2.0 * m * sh->row, 4.0 * m, 0, 0);	/* GATHER */
		DATA(&c, 4.0 * L, 4.0 * L, 0, 0);			/* counts */
	}
	if (fast_exchange)
		model_exchange_fast(&c, md, rb, ranks, s, combine);
	else
		model_exchange(&c, md, rb, ranks, s, combine);
	if (combine && sh->t) {
		/* REDUCE: k indices and weights per row, read once */
		DATA(&c, (double)used * 2 * sh->h + 2.0 * sh->t * sh->h,
		     8.0 * sh->t * sh->k, 0, 0);
		FENCE(&c);
	}
	free(md);
	return m12_drain(&c, M12_HOST, 8) - t0;	/* the next event's TIMESTAMP */
}

/*
 * Slowest rank's modelled ns, the DeepEP floor and the largest dispatch
 * bytes a rank sends through the fabric, for routing @idx of @ranks ranks
 * (drawn here when NULL).
 */
static void model(const struct shape *sh, int ranks, const int32_t *given,
		  double *disp, double *comb, double *floor_d,
		  double *floor_c, double *bytes_d)
{
	uint64_t q = (uint64_t)ranks * sh->t * sh->k;
	int32_t *gen = given ? NULL : malloc(q * sizeof(*gen));
	float *w = given ? NULL : malloc(q * sizeof(*w));
	const int32_t *idx = given ? given : gen;
	uint32_t L = sh->e / (uint32_t)ranks;
	double sum_remote_ranks = 0, max_rows = 0;

	if (!given) {
		if (!gen || !w)
			exit(1);
		route(gen, w, ranks, sh->t, sh->k, sh->e);
	}
	*disp = *comb = 0;
	for (int s = 0; s < ranks; s++) {
		double d = model_rank(sh, idx, ranks, s, 0);
		double c = model_rank(sh, idx, ranks, s, 1);
		double rows = 0;

		*disp = d > *disp ? d : *disp;
		*comb = c > *comb ? c : *comb;
		for (uint32_t t = 0; t < sh->t; t++) {
			uint8_t hit[MAXN * 16] = { 0 };

			for (uint32_t j = 0; j < sh->k; j++) {
				int32_t e = idx[((uint64_t)s * sh->t + t) * sh->k + j];
				int r = e / (int32_t)L;

				if (r != s && !hit[r]) {
					hit[r] = 1;
					sum_remote_ranks++;
				}
				rows += r != s;
			}
		}
		max_rows = rows > max_rows ? rows : max_rows;
	}
	/* Per rank on average: tokens times distinct remote ranks. */
	*floor_d = sum_remote_ranks / ranks * sh->row / PEER_BPNS;
	*floor_c = sum_remote_ranks / ranks * 2.0 * sh->h / PEER_BPNS;
	*bytes_d = max_rows * sh->row;
	free(gen);
	free(w);
}

/*
 * Every received row against the host reference: rank d's local expert l
 * holds the rows of its tokens in (rank, token, slot) order, each the
 * token quantized by m890_mx_quantize_host() (or the bf16 token).  Returns
 * the number of wrong rows.
 */
static int check_recv(const struct shape *sh, int n, const int32_t *idx,
		      const uint16_t *xh, m890_buffer_t *recv,
		      m890_stream_t *str, m890_buffer_t *hb, void **hp,
		      const struct m890_ep_info *info)
{
	uint32_t L = sh->e / (uint32_t)n, *pos = calloc(sh->e, sizeof(*pos));
	uint8_t *rv = malloc((size_t)info->recv_bytes * n), *row = malloc(sh->row);
	uint64_t chunk = info->x_bytes;
	int bad = 0;

	if (!pos || !rv || !row)
		exit(1);
	for (int d = 0; d < n; d++)
		for (uint64_t off = 0; off < info->recv_bytes; off += chunk) {
			uint64_t k = info->recv_bytes - off < chunk ?
				     info->recv_bytes - off : chunk;

			CHECK(m890_memcpy_dtoh(str[d], hb[d], 0, recv[d], off, k));
			CHECK(m890_stream_synchronize(str[d]));
			memcpy(rv + (uint64_t)d * info->recv_bytes + off, hp[d], k);
		}
	for (int s = 0; s < n; s++)
		for (uint32_t t = 0; t < sh->t; t++) {
			const uint16_t *tok = xh + ((uint64_t)s * sh->t + t) * sh->h;

			if (sh->sc)
				m890_mx_quantize_host(sh->type, M890_TYPE_BF16, tok,
						      sh->h, row, row + sh->eb);
			else
				memcpy(row, tok, 2ull * sh->h);
			for (uint32_t j = 0; j < sh->k; j++) {
				int32_t e = idx[((uint64_t)s * sh->t + t) * sh->k + j];
				uint64_t at;

				if (e < 0)
					continue;
				at = (uint64_t)(e / L) * info->recv_bytes +
				     ((uint64_t)(e % L) * info->expert_capacity +
				      pos[e]++) * sh->row;
				bad += memcmp(rv + at, row, sh->row) != 0;
			}
		}
	free(pos);
	free(rv);
	free(row);
	return bad;
}

/* ---- routing on the card (M890_EP_F_DEVICE_ROUTING), timing model 1.2 ---- */

/* Slowest rank's device-routed times for routing @idx of @ranks ranks
 * (ep_dev_model.h: the formula m890-moe's projection uses too). */
static void model_dev(const struct shape *sh, int ranks, const int32_t *idx,
		      double *disp, double *comb)
{
	const struct epm_shape m = { sh->t, sh->h, sh->e, sh->k, sh->row };

	epm_dev(&m, ranks, idx, disp, comb);
}

/*
 * The measurement with routing on the card.  Partial rows are all 1.0,
 * so each token's output is the number of ranks its experts are on.
 * Returns the number of wrong rows, counts and outputs.
 */
static int run_dev(const struct shape *sh, int n, int iters, int warm,
		   const int32_t *idx, const float *w, const uint16_t *xh,
		   m890_device_t *dev, m890_stream_t *str, m890_event_t (*ev)[4],
		   double *res)
{
	static m890_buffer_t x[MAXN], ids[MAXN], wts[MAXN], out[MAXN], hb[MAXN];
	static void *hp[MAXN];
	static uint32_t nt[MAXN];
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	struct m890_ep_info info;
	uint64_t tk = (uint64_t)sh->t * sh->k, hostb;
	uint32_t L = sh->e / (uint32_t)n;
	m890_ep_layout_t lo;
	m890_comm_t comm;
	m890_ep_t ep;
	int wrong = 0;

	CHECK(m890_comm_create(dev, n, NULL, &comm));
	cfg.flags = M890_EP_F_DEVICE_ROUTING;
	cfg.max_tokens_per_rank = sh->t;
	cfg.hidden = sh->h;
	cfg.num_experts = sh->e;
	cfg.top_k = sh->k;
	cfg.dispatch_type = sh->type;
	CHECK(m890_ep_create(comm, &cfg, &ep));
	CHECK(m890_ep_get_info(ep, &info));
	CHECK(m890_ep_layout_create(ep, &lo));
	hostb = info.recv_bytes > 2ull * sh->t * sh->h ? info.recv_bytes :
		2ull * sh->t * sh->h;
	for (int i = 0; i < n; i++) {
		nt[i] = sh->t;
		CHECK(m890_buffer_alloc(dev[i], 2ull * sh->t * sh->h, M890_MEM_HBM, &x[i]));
		CHECK(m890_buffer_alloc(dev[i], 4 * tk, M890_MEM_HBM, &ids[i]));
		CHECK(m890_buffer_alloc(dev[i], 4 * tk, M890_MEM_HBM, &wts[i]));
		CHECK(m890_buffer_alloc(dev[i], 2ull * sh->t * sh->h, M890_MEM_HBM, &out[i]));
		CHECK(m890_buffer_alloc(dev[i], hostb, M890_MEM_HOST, &hb[i]));
		CHECK(m890_buffer_map(hb[i], &hp[i]));
		memcpy(hp[i], xh + (uint64_t)i * sh->t * sh->h, 2ull * sh->t * sh->h);
		CHECK(m890_memcpy_htod(str[i], x[i], 0, hb[i], 0, 2ull * sh->t * sh->h));
		CHECK(m890_stream_synchronize(str[i]));
		memcpy(hp[i], idx + (uint64_t)i * tk, 4 * tk);
		CHECK(m890_memcpy_htod(str[i], ids[i], 0, hb[i], 0, 4 * tk));
		CHECK(m890_stream_synchronize(str[i]));
		memcpy(hp[i], w + (uint64_t)i * tk, 4 * tk);
		CHECK(m890_memcpy_htod(str[i], wts[i], 0, hb[i], 0, 4 * tk));
		CHECK(m890_stream_synchronize(str[i]));
	}
	printf("# ep_perf: routing on the card; %d cards, %u tokens/rank, hidden %u, %u experts, top-%u, %s dispatch, bf16 combine\n",
	       n, sh->t, sh->h, sh->e, sh->k,
	       sh->type == M890_TYPE_BF16 ? "bf16" : sh->type == M890_TYPE_MXFP8 ?
	       "mxfp8" : "mxfp4");
	printf("# EP object: %llu B of HBM per card (two halves of rows, meta and partial rows)\n",
	       (unsigned long long)info.scratch_bytes);
	for (int it = 0; it < warm + iters; it++) {
		int64_t t0, t1, t2;
		double dmax = 0, cmax = 0;

		t0 = cli_now_ns();
		for (int i = 0; i < n; i++)
			CHECK(m890_event_record(ev[i][0], str[i]));
		CHECK(m890_ep_dispatch_device(ep, lo, x, nt, ids, wts, str));
		for (int i = 0; i < n; i++)
			CHECK(m890_event_record(ev[i][1], str[i]));
		CHECK(m890_comm_synchronize(comm, str));
		t1 = cli_now_ns();
		/* the experts: every partial row 1.0 (outside the timing) */
		for (int i = 0; i < n; i++) {
			struct m890_ep_recv r;
			uint64_t va;

			CHECK(m890_ep_get_recv(lo, i, &r));
			CHECK(m890_buffer_va(r.partial, &va));
			CHECK(m890_memset32(str[i], va + r.partial_offset, 0x3f803f80u,
					    2ull * n * sh->t * sh->h));
			CHECK(m890_stream_synchronize(str[i]));
		}
		{
			int64_t t1b = cli_now_ns();

			for (int i = 0; i < n; i++)
				CHECK(m890_event_record(ev[i][2], str[i]));
			CHECK(m890_ep_combine_device(ep, lo, out, str));
			for (int i = 0; i < n; i++)
				CHECK(m890_event_record(ev[i][3], str[i]));
			CHECK(m890_comm_synchronize(comm, str));
			t2 = cli_now_ns();
			for (int i = 0; i < n; i++) {
				int64_t a, b;

				CHECK(m890_event_elapsed_time(ev[i][0], ev[i][1], NULL, &a));
				CHECK(m890_event_elapsed_time(ev[i][2], ev[i][3], NULL, &b));
				dmax = a > dmax ? a : dmax;
				cmax = b > cmax ? b : cmax;
			}
			if (it < warm)
				continue;
			res[0] += (t1 - t0) / 1e3 / iters;
			res[1] += (t2 - t1b) / 1e3 / iters;
			res[2] += dmax / 1e3 / iters;
			res[3] += cmax / 1e3 / iters;
		}
	}
	/* Check: rows against the host reference, expert counts, outputs. */
	{
		uint8_t *row = malloc(sh->row), *rv = malloc(info.recv_bytes);
		uint32_t *cnt = calloc(L, sizeof(*cnt)), *want = calloc(L, sizeof(*want));
		uint16_t *o = malloc(2ull * sh->t * sh->h);

		if (!row || !rv || !cnt || !want || !o)
			exit(1);
		for (int d = 0; d < n; d++) {
			struct m890_ep_recv r;

			CHECK(m890_ep_get_recv(lo, d, &r));
			CHECK(m890_memcpy_dtoh(str[d], hb[d], 0, r.rows, r.rows_offset,
					       info.recv_bytes));
			CHECK(m890_stream_synchronize(str[d]));
			memcpy(rv, hp[d], info.recv_bytes);
			CHECK(m890_memcpy_dtoh(str[d], hb[d], 0, r.experts,
					       r.expert_count_offset, 4ull * L));
			CHECK(m890_stream_synchronize(str[d]));
			memcpy(cnt, hp[d], 4ull * L);
			memset(want, 0, 4ull * L);
			for (int src = 0; src < n; src++) {
				uint32_t c = 0;

				for (uint32_t t = 0; t < sh->t; t++) {
					const int32_t *ti = idx + ((uint64_t)src * sh->t + t) * sh->k;
					int to_me = 0;

					for (uint32_t j = 0; j < sh->k; j++)
						if (ti[j] >= 0 && ti[j] / (int32_t)L == d) {
							to_me = 1;
							want[ti[j] % L]++;
						}
					if (!to_me)
						continue;
					if (sh->sc)
						m890_mx_quantize_host(sh->type, M890_TYPE_BF16,
								      xh + ((uint64_t)src * sh->t + t) * sh->h,
								      sh->h, row, row + sh->eb);
					else
						memcpy(row, xh + ((uint64_t)src * sh->t + t) * sh->h,
						       2ull * sh->h);
					wrong += memcmp(rv + ((uint64_t)src * sh->t + c) * sh->row,
							row, sh->row) != 0;
					c++;
				}
			}
			for (uint32_t e = 0; e < L; e++)
				wrong += cnt[e] != want[e];
			CHECK(m890_memcpy_dtoh(str[d], hb[d], 0, out[d], 0, 2ull * sh->t * sh->h));
			CHECK(m890_stream_synchronize(str[d]));
			memcpy(o, hp[d], 2ull * sh->t * sh->h);
			for (uint32_t t = 0; t < sh->t; t++) {
				const int32_t *ti = idx + ((uint64_t)d * sh->t + t) * sh->k;
				uint8_t hit[MAXN] = { 0 };
				float ranks = 0;

				for (uint32_t j = 0; j < sh->k; j++)
					if (ti[j] >= 0 && !hit[ti[j] / (int32_t)L]) {
						hit[ti[j] / (int32_t)L] = 1;
						ranks += 1.0f;
					}
				for (uint32_t e = 0; e < sh->h; e++)
					if (o[(uint64_t)t * sh->h + e] != m890_float_to_bf16(ranks)) {
						wrong++;
						break;
					}
			}
		}
		free(row);
		free(rv);
		free(cnt);
		free(want);
		free(o);
	}
	CHECK(m890_ep_layout_destroy(lo));
	CHECK(m890_ep_destroy(ep));
	CHECK(m890_comm_destroy(comm));
	for (int i = 0; i < n; i++) {
		m890_buffer_free(x[i]);
		m890_buffer_free(ids[i]);
		m890_buffer_free(wts[i]);
		m890_buffer_free(out[i]);
		m890_buffer_free(hb[i]);
	}
	return wrong;
}

/* Measure, check and print the device-routed table; the exit status. */
static int dev_report(const struct shape *sh, int n, int iters, int warm,
		      int proj, double agree, const int32_t *idx, const float *w,
		      const uint16_t *xh, m890_device_t *dev, m890_stream_t *str,
		      m890_event_t (*ev)[4])
{
	double res[4] = { 0 }, xd, xc, fd, fc, bd, pd, pc, pfd, pfc, pbd, dummy;
	int32_t *pidx = malloc(sizeof(*pidx) * proj * sh->t * sh->k);
	float *pw = malloc(sizeof(*pw) * proj * sh->t * sh->k);
	int wrong;

	if (!pidx || !pw)
		return 1;
	wrong = run_dev(sh, n, iters, warm, idx, w, xh, dev, str, ev, res);
	model_dev(sh, n, idx, &xd, &xc);
	model(sh, n, idx, &dummy, &dummy, &fd, &fc, &bd);
	route(pidx, pw, proj, sh->t, sh->k, sh->e);
	model_dev(sh, proj, pidx, &pd, &pc);
	model(sh, proj, pidx, &dummy, &dummy, &pfd, &pfc, &pbd);
	/* dispatch: the last posted write still has to land; a pulling
	 * combine ends with its reads back on the card */
	printf("# %-10s %6s %10s %10s %10s %10s %8s %10s\n", "phase", "ranks",
	       "wall(us)", "model(us)", "formula", "floor(us)", "x floor", "GB/s(mod)");
	printf("  %-10s %6d %10.1f %10.2f %10.2f %10.2f %8.2f %10.1f\n", "dispatch", n,
	       res[0], res[2] + M12_DELIVERY_NS / 1e3, (xd + M12_DELIVERY_NS) / 1e3,
	       fd / 1e3, fd > 0 ? (res[2] * 1e3 + M12_DELIVERY_NS) / fd : 0,
	       res[2] > 0 ? fd * M12_LINK_BPNS / (res[2] * 1e3 + M12_DELIVERY_NS) : 0);
	printf("  %-10s %6d %10.1f %10.2f %10.2f %10.2f %8.2f %10.1f\n", "combine", n,
	       res[1], res[3], xc / 1e3, fc / 1e3, fc > 0 ? res[3] * 1e3 / fc : 0,
	       res[3] > 0 ? fc * M12_LINK_BPNS / (res[3] * 1e3) : 0);
	printf("  %-10s %6d %10s %10s %10.2f %10.2f %8.2f %10.1f\n", "dispatch", proj,
	       "-", "-", (pd + M12_DELIVERY_NS) / 1e3, pfd / 1e3,
	       (pd + M12_DELIVERY_NS) / pfd, pfd * M12_LINK_BPNS / (pd + M12_DELIVERY_NS));
	printf("  %-10s %6d %10s %10s %10.2f %10.2f %8.2f %10.1f\n", "combine", proj,
	       "-", "-", pc / 1e3, pfc / 1e3, pc / pfc, pfc * M12_LINK_BPNS / pc);
	{
		double ed = xd > 0 ? (res[2] * 1e3 - xd) / xd * 100 : 0;
		double ec = xc > 0 ? (res[3] * 1e3 - xc) / xc * 100 : 0;

		printf("# model(us) and formula: measured TIMESTAMPs and timing model 1.2; dispatch adds %.1f us for the last posted write to land\n",
		       M12_DELIVERY_NS / 1e3);
		printf("# GB/s(mod): the floor's bytes (each token once per remote rank of its experts) over the modelled time\n");
		printf("# measured vs formula on %d cards: dispatch %+.2f%%, combine %+.2f%%\n",
		       n, ed, ec);
		if (agree >= 0 && (ed > agree || ed < -agree || ec > agree || ec < -agree)) {
			printf("# FAILED: measured and formula differ by more than %.2f%%\n",
			       agree);
			wrong++;
		}
	}
	printf("# #wrong %d\n", wrong);
	free(pidx);
	free(pw);
	return wrong ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ep_perf [-t TOKENS] [-H HIDDEN] [-E EXPERTS] [-k TOPK] [-d bf16|mxfp8|mxfp4]\n"
		"               [-n ITERS] [-w WARMUP] [-g CARDS] [-P RANKS] [-s SEED] [-A PCT]\n"
		"               [-m host|dev]\n"
		"  -m dev   routing on the card (M890_EP_F_DEVICE_ROUTING; the default on\n"
		"           spec 1.1 cards), -m host   routing on the host\n"
		"  HIDDEN a multiple of 32, TOPK 1..64, EXPERTS a multiple of the cards and of RANKS\n"
		"  -A PCT  fail when the measured modelled times and the formula differ by more\n"
		"          than PCT percent\n"
		"  long options: --tokens --hidden --experts --topk --datatype --iters\n"
		"  --warmup_iters --ngpus --ranks --seed --agree --routing --help;\n"
		"  --version prints the version of ep_perf and of libm890\n");
}

int main(int argc, char **argv)
{
	struct shape sh = { .t = 128, .h = 3584, .e = 896, .k = 16,
			    .type = M890_TYPE_MXFP8 };
	int iters = 5, warm = 1, want = -1, proj = 64, n, opt, wrong = 0, mode = -1;
	static m890_device_t dev[MAXN];
	static m890_stream_t str[MAXN];
	static m890_event_t ev[MAXN][4];
	static m890_buffer_t x[MAXN], recv[MAXN], cnt[MAXN], eo[MAXN], out[MAXN], hb[MAXN];
	static void *hp[MAXN];
	static const int32_t *ip[MAXN];
	static const float *wp[MAXN];
	static uint32_t nt[MAXN];
	const char *tname = "mxfp8";
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	struct m890_ep_info info;
	m890_comm_t comm;
	m890_ep_t ep;
	m890_ep_layout_t lo;
	int32_t *idx;
	float *w;
	uint32_t *counts, cap = 0;
	uint16_t *xh;
	uint64_t seed = 1;
	double wd = 0, wc = 0, md = 0, mc = 0, agree = -1;

	static const struct option longopts[] = {
		{ "tokens", required_argument, NULL, 't' },
		{ "hidden", required_argument, NULL, 'H' },
		{ "experts", required_argument, NULL, 'E' },
		{ "topk", required_argument, NULL, 'k' },
		{ "datatype", required_argument, NULL, 'd' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup_iters", required_argument, NULL, 'w' },
		{ "ngpus", required_argument, NULL, 'g' },
		{ "ranks", required_argument, NULL, 'P' },
		{ "seed", required_argument, NULL, 's' },
		{ "agree", required_argument, NULL, 'A' },
		{ "routing", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, PERF_OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};

	while ((opt = getopt_long(argc, argv, "t:H:E:k:d:n:w:g:P:s:A:m:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case PERF_OPT_VERSION:
			perf_print_version("ep_perf");
			return 0;
		case 't': sh.t = (uint32_t)atoi(optarg); break;
		case 'H': sh.h = (uint32_t)atoi(optarg); break;
		case 'E': sh.e = (uint32_t)atoi(optarg); break;
		case 'k': sh.k = (uint32_t)atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'g': want = atoi(optarg); break;
		case 'P': proj = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'm':
			if (!strcmp(optarg, "host"))
				mode = 0;
			else if (!strcmp(optarg, "dev"))
				mode = 1;
			else
				goto usage;
			break;
		case 'A':
			agree = atof(optarg);
			if (agree < 0)
				goto usage;
			break;
		case 'd':
			tname = optarg;
			if (!strcmp(optarg, "bf16"))
				sh.type = M890_TYPE_BF16;
			else if (!strcmp(optarg, "mxfp8"))
				sh.type = M890_TYPE_MXFP8;
			else if (!strcmp(optarg, "mxfp4"))
				sh.type = M890_TYPE_MXFP4;
			else
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc || iters < 1 || warm < 0 || !sh.t || !sh.k ||
	    sh.k > 64 || !sh.h || sh.h % 32 || proj < 1 || proj > MAXN ||
	    !sh.e || sh.e % (uint32_t)proj || sh.e < sh.k)
		goto usage;
	sh.sc = sh.type == M890_TYPE_BF16 ? 0 : sh.h / 32;
	sh.eb = sh.type == M890_TYPE_BF16 ? 2 * sh.h :
		sh.type == M890_TYPE_MXFP8 ? sh.h : sh.h / 2;
	sh.row = sh.eb + sh.sc;
	CHECK(m890_device_count(&n));
	if (want > 0 && want < n)
		n = want;
	if (n > MAXN)
		n = MAXN;
	if (sh.e % (uint32_t)n) {
		fprintf(stderr, "ep_perf: %u experts do not split over %d cards\n",
			sh.e, n);
		return 2;
	}
	/* Routing of the measured ranks; capacity = the largest count. */
	rng = seed;
	idx = malloc(sizeof(*idx) * n * sh.t * sh.k);
	w = malloc(sizeof(*w) * n * sh.t * sh.k);
	counts = calloc(sh.e, sizeof(*counts));
	xh = malloc(2ull * n * sh.t * sh.h);
	if (!idx || !w || !counts || !xh)
		return 1;
	route(idx, w, n, sh.t, sh.k, sh.e);
	for (uint64_t q = 0; q < (uint64_t)n * sh.t * sh.k; q++)
		if (++counts[idx[q]] > cap)
			cap = counts[idx[q]];
	for (int i = 0; i < n; i++) {
		struct m890_stream_config sc = M890_STREAM_CONFIG_INIT;

		sc.flags = M890_STREAM_DEFERRED;
		CHECK(m890_device_open(i, &dev[i]));
		CHECK(m890_stream_create_config(dev[i], &sc, &str[i]));
		for (int k = 0; k < 4; k++)
			CHECK(m890_event_create(dev[i], &ev[i][k]));
		ip[i] = idx + (uint64_t)i * sh.t * sh.k;
		wp[i] = w + (uint64_t)i * sh.t * sh.k;
		nt[i] = sh.t;
	}
	{
		struct m890_device_info di = M890_DEVICE_INFO_INIT;
		const uint64_t need = M890_CAP_ENGINES | M890_CAP_ATOMICS | M890_CAP_ROWS;

		CHECK(m890_device_get_info(dev[0], &di));
		/* spec 1.0 cards run timing model 1.1 */
		if ((di.spec_version & 0xffff) == 0)
			m12_model_1_1();
		fast_exchange = (di.capabilities & (M890_CAP_ENGINES | M890_CAP_ATOMICS)) ==
				(M890_CAP_ENGINES | M890_CAP_ATOMICS);
		if (mode < 0)
			mode = (di.capabilities & need) == need;
	}
	if (mode == 1)
		return dev_report(&sh, n, iters, warm, proj, agree, idx, w, xh, dev,
				  str, ev);
	CHECK(m890_comm_create(dev, n, NULL, &comm));
	cfg.max_tokens_per_rank = sh.t;
	cfg.hidden = sh.h;
	cfg.num_experts = sh.e;
	cfg.top_k = sh.k;
	cfg.dispatch_type = sh.type;
	cfg.expert_capacity = cap;
	CHECK(m890_ep_create(comm, &cfg, &ep));
	CHECK(m890_ep_get_info(ep, &info));
	CHECK(m890_ep_layout_create(ep, &lo));
	for (int i = 0; i < n; i++) {
		uint64_t va;
		uint16_t *p;

		CHECK(m890_buffer_alloc(dev[i], info.x_bytes, M890_MEM_HBM, &x[i]));
		CHECK(m890_buffer_alloc(dev[i], info.recv_bytes, M890_MEM_HBM, &recv[i]));
		CHECK(m890_buffer_alloc(dev[i], info.counts_bytes, M890_MEM_HBM, &cnt[i]));
		CHECK(m890_buffer_alloc(dev[i], info.expert_out_bytes, M890_MEM_HBM, &eo[i]));
		CHECK(m890_buffer_alloc(dev[i], info.out_bytes, M890_MEM_HBM, &out[i]));
		CHECK(m890_buffer_alloc(dev[i], info.x_bytes, M890_MEM_HOST, &hb[i]));
		CHECK(m890_buffer_map(hb[i], &hp[i]));
		p = hp[i];
		for (uint64_t q = 0; q < (uint64_t)sh.t * sh.h; q++) {
			p[q] = m890_float_to_bf16(((int)(rnd() % 2001) - 1000) / 250.0f);
			xh[(uint64_t)i * sh.t * sh.h + q] = p[q];
		}
		CHECK(m890_memcpy_htod(str[i], x[i], 0, hb[i], 0, info.x_bytes));
		/* Expert outputs: every row 1.0 (bf16 0x3f80). */
		CHECK(m890_buffer_va(eo[i], &va));
		CHECK(m890_memset32(str[i], va, 0x3f803f80u, info.expert_out_bytes & ~3ull));
		CHECK(m890_stream_synchronize(str[i]));
	}
	printf("# ep_perf: %d cards, %u tokens/rank, hidden %u, %u experts, top-%u, %s dispatch, bf16 combine\n",
	       n, sh.t, sh.h, sh.e, sh.k, tname);
	printf("# capacity %u rows per expert; recv %llu B, expert outputs %llu B, scratch %llu B per card\n",
	       cap, (unsigned long long)info.recv_bytes,
	       (unsigned long long)info.expert_out_bytes,
	       (unsigned long long)info.scratch_bytes);
	for (int it = 0; it < warm + iters; it++) {
		int64_t t0, t1, t2;
		double dmax = 0, cmax = 0;

		t0 = cli_now_ns();
		for (int i = 0; i < n; i++)
			CHECK(m890_event_record(ev[i][0], str[i]));
		CHECK(m890_ep_dispatch(ep, lo, x, nt, ip, wp, recv, cnt, str));
		for (int i = 0; i < n; i++)
			CHECK(m890_event_record(ev[i][1], str[i]));
		CHECK(m890_comm_synchronize(comm, str));
		t1 = cli_now_ns();
		for (int i = 0; i < n; i++)
			CHECK(m890_event_record(ev[i][2], str[i]));
		CHECK(m890_ep_combine(ep, lo, eo, out, str));
		for (int i = 0; i < n; i++)
			CHECK(m890_event_record(ev[i][3], str[i]));
		CHECK(m890_comm_synchronize(comm, str));
		t2 = cli_now_ns();
		for (int i = 0; i < n; i++) {
			int64_t a, b;

			CHECK(m890_event_synchronize(ev[i][3]));
			CHECK(m890_event_elapsed_time(ev[i][0], ev[i][1], NULL, &a));
			CHECK(m890_event_elapsed_time(ev[i][2], ev[i][3], NULL, &b));
			dmax = a > dmax ? a : dmax;
			cmax = b > cmax ? b : cmax;
		}
		if (it < warm)
			continue;
		wd += (t1 - t0) / 1e3 / iters;
		wc += (t2 - t1) / 1e3 / iters;
		md += dmax / 1e3 / iters;
		mc += cmax / 1e3 / iters;
	}
	/* Check: counts, and out = sum of the weights (all rows are 1.0). */
	{
		uint32_t *all = malloc(sizeof(*all) * sh.e);
		uint16_t *ones = malloc(2ull * sh.t * sh.k * sh.h);
		uint16_t *want_out = malloc(2ull * sh.t * sh.h);
		uint32_t *ri = malloc(4ull * sh.t * sh.k);

		if (!all || !ones || !want_out || !ri)
			return 1;
		CHECK(m890_ep_layout_counts(lo, all));
		for (uint32_t e = 0; e < sh.e; e++)
			wrong += all[e] != counts[e];
		for (uint64_t q = 0; q < (uint64_t)sh.t * sh.k * sh.h; q++)
			ones[q] = 0x3f80;
		for (int i = 0; i < n; i++) {
			for (uint32_t q = 0; q < sh.t * sh.k; q++)
				ri[q] = q;
			m890_reduce_host(M890_TYPE_BF16, ones, want_out, ri, wp[i],
					 sh.t, sh.h, sh.k);
			CHECK(m890_memcpy_dtoh(str[i], hb[i], 0, out[i], 0, info.out_bytes));
			CHECK(m890_stream_synchronize(str[i]));
			wrong += memcmp(hp[i], want_out, info.out_bytes) != 0;
			CHECK(m890_memcpy_dtoh(str[i], hb[i], 0, cnt[i], 0, info.counts_bytes));
			CHECK(m890_stream_synchronize(str[i]));
			wrong += memcmp(hp[i], counts + (uint64_t)i * info.num_local_experts,
					info.counts_bytes) != 0;
		}
		free(all);
		free(ones);
		free(want_out);
		free(ri);
		wrong += check_recv(&sh, n, idx, xh, recv, str, hb, hp, &info);
	}
	{
		double pd, pc, fd, fc, bd, xd, xc, xfd, xfc, xbd;

		model(&sh, n, idx, &xd, &xc, &xfd, &xfc, &xbd);
		model(&sh, proj, NULL, &pd, &pc, &fd, &fc, &bd);
		/* a projection: the last write still has to reach its peer */
		pd += DELIVERY_NS;
		pc += DELIVERY_NS;
		printf("# %-10s %6s %10s %10s %10s %10s %10s %10s\n", "phase", "ranks",
		       "wall(us)", "model(us)", "formula", "floor(us)",
		       "fabric-MB", "GB/s(mod)");
		printf("  %-10s %6d %10.1f %10.2f %10.2f %10.2f %10.3f %10.1f\n",
		       "dispatch", n, wd, md, xd / 1e3, xfd / 1e3, xbd / 1e6,
		       md > 0 ? xbd / (md * 1e3) : 0.0);
		printf("  %-10s %6d %10.1f %10.2f %10.2f %10.2f %10.3f %10.1f\n",
		       "combine", n, wc, mc, xc / 1e3, xfc / 1e3,
		       xbd / sh.row * 2 * sh.h / 1e6,
		       mc > 0 ? xbd / sh.row * 2 * sh.h / (mc * 1e3) : 0.0);
		printf("  %-10s %6d %10s %10s %10.2f %10.2f %10.3f %10.1f\n",
		       "dispatch", proj, "-", "-", pd / 1e3, fd / 1e3, bd / 1e6,
		       bd / pd);
		printf("  %-10s %6d %10s %10s %10.2f %10.2f %10.3f %10.1f\n",
		       "combine", proj, "-", "-", pc / 1e3, fc / 1e3,
		       bd / sh.row * 2 * sh.h / 1e6, bd / sh.row * 2 * sh.h / pc);
		{
			double ed = xd > 0 ? (md * 1e3 - xd) / xd * 100 : 0;
			double ec = xc > 0 ? (mc * 1e3 - xc) / xc * 100 : 0;

			printf("# measured vs formula on %d cards: dispatch %+.2f%%, combine %+.2f%%\n",
			       n, ed, ec);
			if (agree >= 0 && (ed > agree || ed < -agree ||
					   ec > agree || ec < -agree)) {
				printf("# FAILED: measured and formula differ by more than %.2f%%\n",
				       agree);
				wrong++;
			}
		}
		printf("# projected %d ranks (formula + %.1f us for the last write to land): dispatch %.2fx, combine %.2fx the 800 GB/s floor (goal: within 1.2x)\n",
		       proj, DELIVERY_NS / 1e3, pd / fd, pc / fc);
		printf("# #wrong %d\n", wrong);
	}
	CHECK(m890_ep_layout_destroy(lo));
	CHECK(m890_ep_destroy(ep));
	CHECK(m890_comm_destroy(comm));
	for (int i = 0; i < n; i++) {
		m890_buffer_free(x[i]);
		m890_buffer_free(recv[i]);
		m890_buffer_free(cnt[i]);
		m890_buffer_free(eo[i]);
		m890_buffer_free(out[i]);
		m890_buffer_free(hb[i]);
		for (int k = 0; k < 4; k++)
			m890_event_destroy(ev[i][k]);
		m890_stream_destroy(str[i]);
		m890_device_close(dev[i]);
	}
	free(idx);
	free(w);
	free(counts);
	free(xh);
	return wrong ? 1 : 0;
usage:
	usage(stderr);
	return 2;
}
