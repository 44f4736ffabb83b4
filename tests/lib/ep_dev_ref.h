/* SPDX-License-Identifier: MIT */
/*
 * EP with routing on the card: inputs and host reference shared by
 * test_ep_dev.c (every rank in one process) and test_ep_dev_mproc.c (one
 * process per card).  Every process builds the inputs of every rank with
 * the same generator in the same order (make_routing()), so each can
 * check the ranks it holds: epd_mine(d) says which.  Arrays are indexed
 * by rank; the library calls take them from the first rank held
 * (epd_first), which is why a process holds consecutive ranks.
 */
#ifndef M890_TEST_EP_DEV_REF_H
#define M890_TEST_EP_DEV_REF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "ep_ref.h"

#define MAXN 64
#define T 24
#define H EPR_H
#define K 4

static int n;
static m890_device_t dev[MAXN];
static m890_stream_t str[MAXN];
static m890_buffer_t x[MAXN], ids[MAXN], wts[MAXN], out[MAXN], host[MAXN];
static uint8_t *hp[MAXN];
static uint32_t nt[MAXN];
static int32_t tid[MAXN][T * K];
static float tw[MAXN][T * K];
static uint16_t tok[MAXN][T * H];
#define HOST_BYTES (4u << 20)

/* The ranks this process holds: every rank, or only epd_me. */
static int epd_me = -1;
#define epd_first (epd_me < 0 ? 0 : epd_me)

static inline int epd_mine(int d)
{
	return epd_me < 0 || d == epd_me;
}

static uint64_t rng = 7;

static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33);
}

/* Routing: rank 1 has no token; slot 3 is often empty; distinct ids. */
static void make_routing(int experts, int skew)
{
	for (int s = 0; s < n; s++) {
		nt[s] = s == 1 && n > 2 ? 0 : T - (uint32_t)(s % 3);
		for (uint32_t t = 0; t < T; t++) {
			for (int j = 0; j < K; j++) {
				int32_t e;
				int dup;

				if (skew) {
					tid[s][t * K + j] = j ? -1 : 0;
					tw[s][t * K + j] = 1.0f;
					continue;
				}
				do {
					e = (int32_t)(rnd() % (uint32_t)experts);
					dup = 0;
					for (int j2 = 0; j2 < j; j2++)
						dup |= tid[s][t * K + j2] == e;
				} while (dup);
				if (j == 3 && rnd() % 2)
					e = -1;
				if (t == 5)
					e = -1;		/* a token with no expert */
				tid[s][t * K + j] = e;
				tw[s][t * K + j] = (float)(rnd() % 97 + 1) / 64.0f;
			}
			for (int h = 0; h < H; h++)
				tok[s][t * H + h] = m890_float_to_bf16(
					((int)(rnd() % 2001) - 1000) / 128.0f);
		}
	}
}

static void upload(void)
{
	for (int i = 0; i < n; i++) {
		if (!epd_mine(i))
			continue;
		memcpy(hp[i], tok[i], sizeof(tok[i]));
		TAP_REQUIRE(m890_memcpy_htod(str[i], x[i], 0, host[i], 0, sizeof(tok[i])));
		TAP_REQUIRE(m890_stream_synchronize(str[i]));
		memcpy(hp[i], tid[i], sizeof(tid[i]));
		TAP_REQUIRE(m890_memcpy_htod(str[i], ids[i], 0, host[i], 0, sizeof(tid[i])));
		TAP_REQUIRE(m890_stream_synchronize(str[i]));
		memcpy(hp[i], tw[i], sizeof(tw[i]));
		TAP_REQUIRE(m890_memcpy_htod(str[i], wts[i], 0, host[i], 0, sizeof(tw[i])));
		TAP_REQUIRE(m890_stream_synchronize(str[i]));
	}
}

static void download(int i, m890_buffer_t b, uint64_t off, uint64_t bytes, void *to)
{
	if (bytes > HOST_BYTES) {
		printf("Bail out! %llu bytes do not fit the host staging buffer\n",
		       (unsigned long long)bytes);
		exit(1);
	}
	TAP_REQUIRE(m890_memcpy_dtoh(str[i], host[i], 0, b, off, bytes));
	TAP_REQUIRE(m890_stream_synchronize(str[i]));
	memcpy(to, hp[i], bytes);
}

/* Rank of expert @e with @l local experts. */
static int rank_of(int32_t e, int l)
{
	return e / l;
}

/* Does token t of rank s go to rank d? */
static int goes_to(int s, uint32_t t, int d, int l)
{
	for (int j = 0; j < K; j++)
		if (tid[s][t * K + j] >= 0 && rank_of(tid[s][t * K + j], l) == d)
			return 1;
	return 0;
}

/* The partial row the "experts" of rank @d give token @t of rank @s. */
static void partial_row(int s, uint32_t t, int d, int l, uint16_t *row)
{
	for (int h = 0; h < H; h++) {
		float acc = 0;

		for (int j = 0; j < K; j++) {
			int32_t e = tid[s][t * K + j];

			if (e >= 0 && rank_of(e, l) == d)
				acc += tw[s][t * K + j] *
				       m890_bf16_to_float(tok[s][t * H + h]) *
				       (1.0f + (float)(e % 8) / 8.0f);
		}
		row[h] = m890_float_to_bf16(acc);
	}
}

/*
 * Check what the dispatch left on every card, then write the partial
 * rows; returns 1 when every byte is right.
 */
static int check_dispatch(m890_ep_layout_t lo, const struct m890_ep_info *in,
			  int type, int round, const char *what)
{
	int l = (int)in->num_local_experts, good = 1;
	uint32_t c = in->expert_capacity;
	static uint8_t rows[MAXN * T * 2 * H], want[2 * H];
	static uint8_t meta[MAXN * T * 8 * K];
	static uint32_t ecount[1024], erows[1024 * 64];
	static float ew[1024 * 64];
	static uint16_t part[MAXN * T * H];

	for (int d = 0; d < n; d++) {
		struct m890_ep_recv r;
		uint32_t pos[1024] = { 0 };

		if (!epd_mine(d))
			continue;
		TAP_REQUIRE(m890_ep_get_recv(lo, d - epd_first, &r));
		download(d, r.rows, r.rows_offset, (uint64_t)n * T * in->row_bytes, rows);
		download(d, r.meta, r.meta_offset, (uint64_t)n * T * 8 * K, meta);
		download(d, r.experts, r.expert_count_offset, 4ull * l, ecount);
		download(d, r.experts, r.expert_rows_offset, 4ull * l * c, erows);
		download(d, r.experts, r.expert_weight_offset, 4ull * l * c, ew);
		for (int s = 0; s < n && good; s++) {
			uint32_t i = 0;

			for (uint32_t t = 0; t < nt[s] && good; t++) {
				uint64_t x_row = (uint64_t)s * T + i;

				if (!goes_to(s, t, d, l))
					continue;
				epr_token_row(type, in, &tok[s][t * H], want);
				if (memcmp(rows + x_row * in->row_bytes, want, in->row_bytes)) {
					printf("# %s round %d: rank %d row %u from rank %d (token %u) differs\n",
					       what, round, d, i, s, t);
					good = 0;
				}
				if (memcmp(meta + x_row * 8 * K, &tid[s][t * K], 4 * K) ||
				    memcmp(meta + x_row * 8 * K + 4 * K, &tw[s][t * K], 4 * K)) {
					printf("# %s round %d: rank %d meta row %llu differs\n",
					       what, round, d, (unsigned long long)x_row);
					good = 0;
				}
				for (int j = 0; j < K; j++) {
					int32_t e = tid[s][t * K + j];
					uint32_t le, p;

					if (e < 0 || rank_of(e, l) != d)
						continue;
					le = (uint32_t)(e % l);
					p = pos[le]++;
					if (p < c && (erows[le * c + p] != x_row ||
						      memcmp(&ew[le * c + p], &tw[s][t * K + j], 4))) {
						printf("# %s round %d: rank %d expert %u entry %u: row %u weight %g, want %llu %g\n",
						       what, round, d, le, p, erows[le * c + p],
						       ew[le * c + p], (unsigned long long)x_row,
						       tw[s][t * K + j]);
						good = 0;
					}
				}
				partial_row(s, t, d, l, &part[x_row * H]);
				i++;
			}
		}
		for (int e = 0; e < l && good; e++)
			if (ecount[e] != pos[e]) {
				printf("# %s round %d: rank %d expert %d count %u, want %u\n",
				       what, round, d, e, ecount[e], pos[e]);
				good = 0;
			}
		/* The partial rows, the combine's input. */
		memcpy(hp[d], part, (size_t)n * T * H * 2);
		TAP_REQUIRE(m890_memcpy_htod(str[d], r.partial, r.partial_offset, host[d], 0,
					     (uint64_t)n * T * H * 2));
		TAP_REQUIRE(m890_stream_synchronize(str[d]));
	}
	return good;
}

/* out of every rank against the sum of the partial rows, in slot order. */
static int check_combine(const struct m890_ep_info *in, uint16_t got[][T * H],
			 const char *what)
{
	int l = (int)in->num_local_experts, good = 1;

	for (int s = 0; s < n; s++) {
		uint32_t sent[MAXN] = { 0 };
		uint16_t row[H];

		if (!epd_mine(s))
			continue;
		download(s, out[s], 0, 2ull * T * H, got[s]);
		for (uint32_t t = 0; t < nt[s]; t++) {
			float acc[H] = { 0 };
			int seen[MAXN] = { 0 };

			for (int j = 0; j < K; j++) {
				int32_t e = tid[s][t * K + j];
				int d;

				if (e < 0 || seen[d = rank_of(e, l)])
					continue;
				seen[d] = 1;
				partial_row(s, t, d, l, row);
				for (int h = 0; h < H; h++)
					acc[h] = acc[h] + m890_bf16_to_float(row[h]);
			}
			for (int d = 0; d < n; d++)
				sent[d] += goes_to(s, t, d, l);
			for (int h = 0; h < H && good; h++)
				if (got[s][t * H + h] != m890_float_to_bf16(acc[h])) {
					printf("# %s: rank %d token %u element %d: 0x%04x, want 0x%04x\n",
					       what, s, t, h, got[s][t * H + h],
					       m890_float_to_bf16(acc[h]));
					good = 0;
				}
		}
	}
	return good;
}

#endif /* M890_TEST_EP_DEV_REF_H */
