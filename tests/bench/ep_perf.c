// SPDX-License-Identifier: MIT
/*
 * DOC: ep_perf - MoE dispatch and combine times, DeepEP style
 *
 * ep_perf [-t TOKENS] [-H HIDDEN] [-E EXPERTS] [-k TOPK] [-d bf16|mxfp8|mxfp4]
 *         [-n ITERS] [-w WARMUP] [-g CARDS] [-P RANKS] [-s SEED] [-A PCT]
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
 * 64) from the rules of timing model 1.1 (hardware spec §10: pipelined
 * fetch and data phases, posted peer writes, round trips for peer reads,
 * drains), plus one switch latency (500 ns) for the delivery of the last
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

#include "size_arg.h"

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
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33);
}

/* Routing of @ranks ranks of @t tokens: @k distinct experts each. */
static void route(int32_t *idx, float *w, int ranks, uint32_t t, uint32_t k,
		  uint32_t experts)
{
	for (uint64_t q = 0; q < (uint64_t)ranks * t; q++) {
		float sum = 0;

		for (uint32_t j = 0; j < k; j++) {
			int32_t e;
			int dup;

			do {
				e = (int32_t)(rnd() % experts);
				dup = 0;
				for (uint32_t j2 = 0; j2 < j; j2++)
					dup |= idx[q * k + j2] == e;
			} while (dup);
			idx[q * k + j] = e;
			w[q * k + j] = (float)(rnd() % 1000 + 1);
			sum += w[q * k + j];
		}
		for (uint32_t j = 0; j < k; j++)
			w[q * k + j] /= sum;
	}
}

/* Timing model 1.1 of hardware spec §10, in ns. */
#define HBM_BPNS 3200.0
#define HOST_BPNS 64.0
#define PEER_BPNS 800.0
#define PKT_NS 50.0		/* fetch */
#define TRIP_NS 1000.0		/* switch round trip of a peer read */
#define DELIVERY_NS 500.0	/* one way through the switch */

/* The card's command processor and data mover: when each is free. */
struct clk {
	double cp, dm;
};

static double max3(double a, double b, double c)
{
	return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

/*
 * One packet moving @hbm, @host and @peer bytes, waiting for @trips
 * round trips: its fetch, then its data phase (the slowest class plus
 * the round trips) once the data mover is free; @drain for WAIT,
 * TIMESTAMP and FENCE, which the command processor runs itself.
 * Returns the phase's start (what a TIMESTAMP writes).
 */
static double pkt(struct clk *c, int drain, double hbm, double host,
		  double peer, int trips)
{
	double start;

	c->cp += PKT_NS;
	start = c->cp > c->dm ? c->cp : c->dm;
	c->dm = start + max3(hbm / HBM_BPNS, host / HOST_BPNS,
			     peer / PEER_BPNS) + trips * TRIP_NS;
	c->cp = drain ? c->dm : start;
	return start;
}

/* Data packets, and the drains: local WAIT, FENCE and TIMESTAMP. */
#define DATA(c, hbm, host, peer, trips) pkt(c, 0, hbm, host, peer, trips)
#define WAIT(c) pkt(c, 1, 8, 0, 0, 0)
#define FENCE(c) pkt(c, 1, 0, 8, 0, 0)

struct shape {
	uint32_t t, h, e, k, type;
	uint32_t row, eb, sc;	/* row bytes, element bytes, scale bytes */
};

/*
 * Modelled ns of rank @s's dispatch (@combine = 0) or combine, for @ranks
 * ranks with routing @idx, as libm890 enqueues them and as ep_perf
 * measures them: from the TIMESTAMP of the event before to that of the
 * event after, each event its own submission closed by the driver's
 * FENCE.  Every WAIT is counted with one check, and the packets are
 * assumed to fit one submission each (fewer than the driver's
 * max_submit_packets, 1023: true up to 64 ranks).
 */
static double model_rank(const struct shape *sh, const int32_t *idx,
			 int ranks, int s, int combine)
{
	uint32_t L = sh->e / (uint32_t)ranks, m = 0, used = 0;
	uint64_t *md = calloc((size_t)ranks, sizeof(*md));
	double rb = combine ? 2.0 * sh->h : sh->row;
	struct clk c = { 0, 0 };

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
	/* the first event's TIMESTAMP started at 0: its write, its FENCE */
	c.cp = c.dm = 8 / HOST_BPNS;
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
	for (int k = 1; k < ranks; k++)				/* ready */
		DATA(&c, 0, 0, 8, 0);
	for (int k = 0; k < ranks; k++) {			/* rotated */
		int d = (s + k) % ranks;

		if (d == s) {
			if (md[d])	/* local SCATTER or GATHER */
				DATA(&c, 2.0 * md[d] * rb, 4.0 * md[d], 0, 0);
			continue;
		}
		WAIT(&c);					/* ready? */
		DATA(&c, 0, 8, 0, 0);				/* progress */
		if (md[d])	/* SCATTER writes, GATHER reads the peer */
			DATA(&c, md[d] * rb, 4.0 * md[d], md[d] * rb, combine);
		DATA(&c, 0, 0, 8, 0);				/* done */
	}
	for (int k = 1; k < ranks; k++) {			/* wait all */
		WAIT(&c);
		DATA(&c, 0, 8, 0, 0);
	}
	FENCE(&c);
	if (combine && sh->t) {
		/* REDUCE: k indices and weights per row, read once */
		DATA(&c, (double)used * 2 * sh->h + 2.0 * sh->t * sh->h,
		     8.0 * sh->t * sh->k, 0, 0);
		FENCE(&c);
	}
	free(md);
	return pkt(&c, 1, 0, 8, 0, 0);	/* the next event's TIMESTAMP */
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

int main(int argc, char **argv)
{
	struct shape sh = { .t = 128, .h = 3584, .e = 896, .k = 16,
			    .type = M890_TYPE_MXFP8 };
	int iters = 5, warm = 1, want = -1, proj = 64, n, opt, wrong = 0;
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

	while ((opt = getopt(argc, argv, "t:H:E:k:d:n:w:g:P:s:A:")) != -1) {
		switch (opt) {
		case 't': sh.t = (uint32_t)atoi(optarg); break;
		case 'H': sh.h = (uint32_t)atoi(optarg); break;
		case 'E': sh.e = (uint32_t)atoi(optarg); break;
		case 'k': sh.k = (uint32_t)atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'g': want = atoi(optarg); break;
		case 'P': proj = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
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
	fprintf(stderr,
		"usage: ep_perf [-t TOKENS] [-H HIDDEN] [-E EXPERTS] [-k TOPK] [-d bf16|mxfp8|mxfp4]\n"
		"               [-n ITERS] [-w WARMUP] [-g CARDS] [-P RANKS] [-s SEED] [-A PCT]\n"
		"  HIDDEN a multiple of 32, TOPK 1..64, EXPERTS a multiple of the cards and of RANKS\n"
		"  -A PCT  fail when the measured modelled times and the formula differ by more\n"
		"          than PCT percent\n");
	return 2;
}
