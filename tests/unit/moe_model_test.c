// SPDX-License-Identifier: MIT
/*
 * The modelled expert FFN of m890-moe's projection (tests/bench/
 * ep_dev_model.h, model12.h) against hand arithmetic of timing model 1.2
 * (hardware spec §10): a GEMM packet takes the longer of its HBM bytes
 * at 3.2 TB/s and its multiply-adds at the matrix engines' rate (1e6 per
 * ns at the MX rate, 5e5 with a bf16 operand); the FFN's two packets run
 * one after the other; the bytes of each packet are those the card
 * charges for a hand-made routing; and the Kimi-K3 figures that
 * Documentation/performance.rst quotes.  Prints TAP.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ep_dev_model.h"

static int n, failed;

static void ok(int cond, const char *what, double got, double want)
{
	n++;
	printf("%sok %d - %s", cond ? "" : "not ", n, what);
	if (!cond) {
		printf(" (got %.6f, want %.6f)", got, want);
		failed++;
	}
	printf("\n");
}

static void eq(double got, double want, const char *what)
{
	ok(fabs(got - want) <= 1e-9 * fmax(1, fabs(want)), what, got, want);
}

/* One GEMM packet alone on a queue: its length. */
static double one_gemm(double hbm, double macs, double rate)
{
	struct m12 m = { 0 };
	double start = m12_gemm(&m, hbm, macs, rate);

	return m.done - start;
}

int main(void)
{
	struct epm_ffn f = { 0 }, g;
	/* 2 ranks, 2 tokens each, top-2 of 4 experts (2 per rank) */
	const int32_t idx[] = { 0, 1, 1, 2,	/* rank 0: {0, 1}, {1, 2} */
				1, 0, 2, 0 };	/* rank 1: {1, 0}, {2, 0} */
	const struct epm_shape sh = { .t = 2, .h = 64, .e = 4, .k = 2, .row = 64 + 2 };
	const struct epm_shape k3 = { .t = 128, .h = 3584, .e = 896, .k = 16,
				      .row = 3584 + 3584 / 32 };
	double t, t1, t2, disp, comb;
	uint64_t seed = 1;
	int32_t *kidx = malloc(sizeof(*kidx) * 64 * k3.t * k3.k);
	float *kw = malloc(sizeof(*kw) * 64 * k3.t * k3.k);

	if (!kidx || !kw)
		return 1;

	/* the rates: 1 MB of HBM is 312.5 ns; 1 G multiply-adds 1 us at the
	 * MX rate, 2 us with a bf16 operand */
	eq(one_gemm(1e6, 0, M12_MACS_PER_NS_MX), 312.5, "HBM bytes at 3.2 TB/s");
	eq(one_gemm(32, 1e9, M12_MACS_PER_NS_MX), 1000, "MX rate: 2 PFLOP/s, 1e6 multiply-adds per ns");
	eq(one_gemm(32, 1e9, M12_MACS_PER_NS_BF16), 2000, "bf16 rate: 1 PFLOP/s, 5e5 multiply-adds per ns");
	/* a packet takes the longer of the two, not their sum */
	eq(one_gemm(3.2e6, 4e8, M12_MACS_PER_NS_MX), 1000, "memory-bound packet: its HBM time");
	eq(one_gemm(3.2e6, 4e9, M12_MACS_PER_NS_MX), 4000, "compute-bound packet: its multiply-adds");

	/* the bytes the card charges, by hand: rank 0 gets 6 (token,
	 * expert) rows of 4 tokens for both experts, rank 1 2 rows of 2
	 * tokens for expert 2 only (expert 3 has none: no weights read) */
	epm_ffn_rank(&sh, 32, idx, 2, 0, &f);
	eq(f.entries, 6, "rank 0: 6 expert rows");
	eq(f.rows, 4, "rank 0: 4 received tokens");
	eq(f.groups, 2, "rank 0: 2 experts with rows");
	/* counts 8, expert_rows 24, weights 2 x 64 x (32 + 2), rows 6 x 66, out 6 x 64 */
	eq(f.up_hbm, 8 + 24 + 4352 + 396 + 384, "rank 0: gate/up HBM bytes");
	eq(f.up_macs, 6 * 64 * 64, "rank 0: gate/up multiply-adds (2 x 32 weight rows of 64)");
	/* counts 8, expert_rows and weights 48, weights 2 x 64 x (16 + 1),
	 * rows in 6 x 64, partial rows written 6 x 128 and read back for
	 * the 2 tokens' second expert 2 x 128 */
	eq(f.down_hbm, 8 + 48 + 2176 + 384 + 768 + 256, "rank 0: down HBM bytes");
	eq(f.down_macs, 6 * 64 * 32, "rank 0: down multiply-adds");
	epm_ffn_rank(&sh, 32, idx, 2, 1, &f);
	eq(f.groups, 1, "rank 1: 1 expert with rows");
	eq(f.up_hbm, 8 + 8 + 2176 + 132 + 128, "rank 1: gate/up HBM bytes, one expert's weights");
	eq(f.down_hbm, 8 + 16 + 1088 + 128 + 256, "rank 1: down HBM bytes, no partial row read back");
	eq(f.down_macs, 2 * 64 * 32, "rank 1: down multiply-adds");

	/* the two packets one after the other, between two events: each
	 * the longer of its two terms, plus 200 ns of the events' and
	 * FENCEs' fetches */
	f = (struct epm_ffn){ .up_hbm = 3.2e6, .up_macs = 5e8,		/* HBM: 1000 ns */
			      .down_hbm = 3.2e5, .down_macs = 4e8 };	/* engines: 800 ns */
	eq(epm_ffn_ns(&f), 200 + 1000 + 800, "FFN: per packet max, packets serial");
	ok(fabs(epm_ffn_ns(&f) - (200 + fmax((3.2e6 + 3.2e5) / 3200, 5e8 / 1e6 + 4e8 / 5e5))) > 1,
	   "FFN: not one max over both packets' sums", epm_ffn_ns(&f), 0);
	f.down_macs = 4e8 / 2;	/* the same down packet at the MX rate would take 200 ns */
	eq(epm_ffn_ns(&f), 200 + 1000 + 400, "FFN: the down packet at the bf16 rate");

	/* the Kimi-K3 projection m890-moe prints (performance.rst) */
	epm_route(&seed, kidx, kw, 64, k3.t, k3.k, k3.e);
	epm_dev(&k3, 64, kidx, &disp, &comb);
	t = epm_ffn(&k3, 2048, 64, kidx, &g);
	t1 = fmax(g.up_hbm / 3200, g.up_macs / 1e6);
	t2 = fmax(g.down_hbm / 3200, g.down_macs / 5e5);
	eq(t, 200 + t1 + t2, "K3: the slowest rank's FFN is its two packets' maxima");
	eq(g.entries, 2165, "K3: the slowest rank has 2165 expert rows");
	eq(g.groups, 14, "K3: every local expert has rows");
	eq(round(t / 100) / 10, 71.4, "K3: expert GEMMs 71.4 us");
	eq(round(t1 / 100) / 10, 39.4, "K3: gate/up 39.4 us, bound by HBM");
	eq(round(g.up_macs / 1e6 / 100) / 10, 31.8, "K3: gate/up's engines 31.8 us at the MX rate");
	eq(round(t2 / 100) / 10, 31.8, "K3: down 31.8 us, bound by the engines at the bf16 rate");
	eq(round(g.down_hbm / 3200 / 100) / 10, 25.3, "K3: down's HBM 25.3 us");
	disp = (disp + M12_DELIVERY_NS) / 1e3;
	comb /= 1e3;
	eq(round((t / 1e3 + disp + comb) * 10) / 10, 98.7, "K3: serial step 98.7 us");
	eq(round(100 * (disp + comb) / (t / 1e3 + disp + comb)), 28, "K3: EP communication 28 %");
	free(kidx);
	free(kw);
	printf("1..%d\n", n);
	return failed != 0;
}
