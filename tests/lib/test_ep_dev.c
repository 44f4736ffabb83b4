// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 EP with routing on the card (guest)
 *
 * One communicator over every card, an EP object created with
 * M890_EP_F_DEVICE_ROUTING.  For bf16, MXFP8 and MXFP4 dispatch: random
 * routing (unused slots, a rank without tokens, tokens without an
 * expert) in HBM, a dispatch, then every card's receive rows, meta rows,
 * per-source counts and expert lists against a host reference built from
 * the definition in m890.h; partial rows the test writes for every
 * received row; the combine against the host sum in the documented
 * order.  Each type runs twice (the two receive halves) with the same
 * bytes.  Then skewed routing (every token to expert 0) past a small
 * capacity (M890_ERROR_CAPACITY from the card, counts still right), the
 * refused calls (a dispatch without a combine before, a combine without
 * a dispatch, the host-routing calls on this object, host buffers), and
 * a card without spec 1.1 refused at creation.
 */
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

		TAP_REQUIRE(m890_ep_get_recv(lo, d, &r));
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

static void run_type(m890_comm_t comm, int type, const char *name)
{
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	struct m890_ep_info in;
	static uint16_t got[2][MAXN][T * H];
	m890_ep_layout_t lo;
	m890_ep_t ep;
	char what[64];

	cfg.flags = M890_EP_F_DEVICE_ROUTING;
	cfg.max_tokens_per_rank = T;
	cfg.hidden = H;
	cfg.num_experts = 4 * (uint32_t)n;
	cfg.top_k = K;
	cfg.dispatch_type = (uint32_t)type;
	TAP_STATUS(m890_ep_create(comm, &cfg, &ep), M890_SUCCESS);
	TAP_REQUIRE(m890_ep_get_info(ep, &in));
	TAP_REQUIRE(m890_ep_layout_create(ep, &lo));
	make_routing((int)cfg.num_experts, 0);
	upload();
	for (int round = 0; round < 2; round++) {
		snprintf(what, sizeof(what), "%s dispatch, half %d", name, round);
		TAP_STATUS(m890_ep_dispatch_device(ep, lo, x, nt, ids, wts, str), M890_SUCCESS);
		TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
		tap_ok(check_dispatch(lo, &in, type, round, what),
		       "%s: rows, meta, counts and expert lists equal the reference", what);
		TAP_STATUS(m890_ep_combine_device(ep, lo, out, str), M890_SUCCESS);
		TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
		snprintf(what, sizeof(what), "%s combine, half %d", name, round);
		tap_ok(check_combine(&in, got[round], what),
		       "%s: every token's sum equals the reference", what);
	}
	tap_ok(!memcmp(got[0], got[1], sizeof(got[0])),
	       "%s: both halves give identical bytes", name);
	TAP_STATUS(m890_ep_layout_destroy(lo), M890_SUCCESS);
	TAP_STATUS(m890_ep_destroy(ep), M890_SUCCESS);
}

static void refusals(m890_comm_t comm)
{
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	m890_ep_layout_t lo, lo2;
	m890_ep_t ep;
	uint32_t counts[4 * MAXN];
	const int32_t *hidx[MAXN];
	const float *hw[MAXN];
	m890_buffer_t hosts[MAXN];
	m890_status_t st;

	cfg.flags = M890_EP_F_DEVICE_ROUTING;
	cfg.max_tokens_per_rank = T;
	cfg.hidden = H;
	cfg.num_experts = 4 * (uint32_t)n;
	cfg.top_k = K;
	cfg.expert_capacity = 2;
	TAP_REQUIRE(m890_ep_create(comm, &cfg, &ep));
	TAP_REQUIRE(m890_ep_layout_create(ep, &lo));
	TAP_REQUIRE(m890_ep_layout_create(ep, &lo2));
	TAP_STATUS(m890_ep_combine_device(ep, lo, out, str), M890_ERROR_INVALID_ARGUMENT);
	for (int i = 0; i < n; i++) {
		hidx[i] = tid[i];
		hw[i] = tw[i];
		hosts[i] = host[i];
	}
	TAP_STATUS(m890_ep_dispatch(ep, lo, x, nt, hidx, hw, x, x, str),
		   M890_ERROR_INVALID_ARGUMENT);
	tap_ok(strstr(m890_get_last_error(), "m890_ep_dispatch_device") != NULL,
	       "the host-routing dispatch is refused on it: %s", m890_get_last_error());
	TAP_STATUS(m890_ep_dispatch_device(ep, lo, x, nt, hosts, wts, str),
		   M890_ERROR_INVALID_ARGUMENT);
	/* Skewed: every token to expert 0, capacity 2. */
	make_routing((int)cfg.num_experts, 1);
	upload();
	TAP_STATUS(m890_ep_dispatch_device(ep, lo, x, nt, ids, wts, str), M890_SUCCESS);
	TAP_STATUS(m890_ep_dispatch_device(ep, lo2, x, nt, ids, wts, str),
		   M890_ERROR_INVALID_ARGUMENT);
	st = m890_comm_synchronize(comm, str);
	tap_ok(st == M890_ERROR_CAPACITY, "capacity 2 with every token to expert 0: %s (%s)",
	       m890_status_string(st), m890_get_last_error());
	tap_ok(strstr(m890_get_last_error(), "rank 0") != NULL,
	       "... naming the rank of the expert: %s", m890_get_last_error());
	st = m890_ep_layout_counts(lo, counts);
	if (st == M890_SUCCESS) {
		uint32_t want = 0;

		for (int s = 0; s < n; s++)
			want += nt[s];
		tap_ok(counts[0] == want, "the count of expert 0 is still right (%u, want %u)",
		       counts[0], want);
	} else {
		tap_ok(0, "m890_ep_layout_counts: %s", m890_get_last_error());
	}
	m890_ep_layout_destroy(lo2);
	m890_ep_layout_destroy(lo);
	m890_ep_destroy(ep);
}

int main(void)
{
	m890_comm_t comm;
	void *p;

	TAP_REQUIRE(m890_device_count(&n));
	if (n > MAXN)
		n = MAXN;
	{
		struct m890_device_info info = M890_DEVICE_INFO_INIT;
		const uint64_t need = M890_CAP_ENGINES | M890_CAP_ATOMICS |
				      M890_CAP_ROWS;

		TAP_REQUIRE(m890_device_open(0, &dev[0]));
		TAP_REQUIRE(m890_device_get_info(dev[0], &info));
		if ((info.capabilities & need) != need) {
			printf("1..0 # SKIP the cards are spec %u.%u, routing on the card needs 1.1\n",
			       info.spec_version >> 16, info.spec_version & 0xffff);
			return 0;
		}
		m890_device_close(dev[0]);
	}
	for (int i = 0; i < n; i++) {
		TAP_REQUIRE(m890_device_open(i, &dev[i]));
		TAP_REQUIRE(m890_stream_create(dev[i], &str[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], 2ull * T * H, M890_MEM_HBM, &x[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], 4ull * T * K, M890_MEM_HBM, &ids[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], 4ull * T * K, M890_MEM_HBM, &wts[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], 2ull * T * H, M890_MEM_HBM, &out[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], HOST_BYTES, M890_MEM_HOST, &host[i]));
		TAP_REQUIRE(m890_buffer_map(host[i], &p));
		hp[i] = p;
	}
	TAP_REQUIRE(m890_comm_create(dev, n, NULL, &comm));
	run_type(comm, M890_TYPE_BF16, "bf16");
	run_type(comm, M890_TYPE_MXFP8, "MXFP8");
	run_type(comm, M890_TYPE_MXFP4, "MXFP4");
	refusals(comm);
	m890_comm_destroy(comm);
	for (int i = 0; i < n; i++) {
		m890_buffer_free(x[i]);
		m890_buffer_free(ids[i]);
		m890_buffer_free(wts[i]);
		m890_buffer_free(out[i]);
		m890_buffer_free(host[i]);
		m890_stream_destroy(str[i]);
		m890_device_close(dev[i]);
	}
	return tap_done();
}
