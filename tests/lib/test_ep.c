// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 EP dispatch/combine tests (guest)
 *
 * One communicator over every card.  For each payload type (bf16, MXFP8,
 * MXFP4): random routing with unused slots and a rank without tokens is
 * dispatched, the receive buffers and counts are compared byte for byte
 * with a host reference written here from the definition (expert-major,
 * rows ordered by source rank, token, slot; MX rows quantized with
 * m890_mx_quantize_host(), by ep_ref.h, shared with the per-rank tests), rows past the counts must keep their poison;
 * the "experts" (a per-expert scaling done on the host) produce outputs
 * and the combine must equal m890_reduce_host() over the reference rows.
 * The whole round runs twice and must give identical bits.  Then skewed
 * routing (every token to expert 0) within capacity, the same with a small
 * capacity (M890_ERROR_CAPACITY, nothing written, the communicator still
 * usable), routing with no expert at all, and the refused calls.  Last,
 * m890_ep_destroy() racing m890_ep_layout_create() of another thread.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "ep_ref.h"

#define MAXN 64
#define T 24
#define H EPR_H
#define K 4
#define POISON 0xa5

static int n;
static m890_device_t dev[MAXN];
static m890_stream_t str[MAXN];
static m890_comm_t comm;

/* Per-rank device buffers and host staging of one EP setup. */
struct setup {
	m890_ep_t ep;
	m890_ep_layout_t lo;
	struct m890_ep_info info;
	int type, experts, cap;
	m890_buffer_t x[MAXN], recv[MAXN], cnt[MAXN], eo[MAXN], out[MAXN];
	m890_buffer_t host[MAXN];
	uint8_t *hp[MAXN];
	uint64_t host_bytes;
};

static uint16_t xs[MAXN][T * H];
static int32_t idx[MAXN][T * K];
static float wt[MAXN][T * K];
static uint32_t nt[MAXN];

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

static void make_tokens(void)
{
	for (int i = 0; i < n; i++)
		for (int q = 0; q < T * H; q++) {
			float v = ((int)(rnd() % 2001) - 1000) / 125.0f;

			if (q / H % 7 == 3)
				v = 0.0f;	/* an all-zero token */
			if (q % 97 == 5)
				v *= 1000.0f;	/* block with a large amax */
			xs[i][q] = m890_float_to_bf16(v);
		}
}

/* Random routing: distinct experts per token, some slots unused. */
static void make_routing(int experts)
{
	for (int i = 0; i < n; i++) {
		nt[i] = i == 1 % n && n > 1 ? 0 : T - (uint32_t)i % 3;
		for (int t = 0; t < T; t++)
			for (int j = 0; j < K; j++) {
				int32_t e;
				int dup;

				do {
					e = (int32_t)(rnd() % (uint32_t)experts);
					dup = 0;
					for (int j2 = 0; j2 < j; j2++)
						dup |= idx[i][t * K + j2] == e;
				} while (dup);
				idx[i][t * K + j] = (rnd() % 5 == 0) ? -1 : e;
				wt[i][t * K + j] = (float)(rnd() % 1000) / 997.0f;
			}
	}
}

static void setup_create(struct setup *su, int type, int experts, int cap)
{
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;

	memset(su, 0, sizeof(*su));
	su->type = type;
	su->experts = experts;
	cfg.max_tokens_per_rank = T;
	cfg.hidden = H;
	cfg.num_experts = (uint32_t)experts;
	cfg.top_k = K;
	cfg.dispatch_type = (uint32_t)type;
	cfg.expert_capacity = (uint32_t)cap;
	TAP_REQUIRE(m890_ep_create(comm, &cfg, &su->ep));
	TAP_REQUIRE(m890_ep_get_info(su->ep, &su->info));
	TAP_REQUIRE(m890_ep_layout_create(su->ep, &su->lo));
	su->cap = (int)su->info.expert_capacity;
	su->host_bytes = su->info.expert_out_bytes;
	if (su->info.recv_bytes > su->host_bytes)
		su->host_bytes = su->info.recv_bytes;
	if (su->info.x_bytes > su->host_bytes)
		su->host_bytes = su->info.x_bytes;
	for (int i = 0; i < n; i++) {
		void *p;

		TAP_REQUIRE(m890_buffer_alloc(dev[i], su->info.x_bytes, M890_MEM_HBM, &su->x[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], su->info.recv_bytes, M890_MEM_HBM, &su->recv[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], su->info.counts_bytes, M890_MEM_HBM, &su->cnt[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], su->info.expert_out_bytes, M890_MEM_HBM, &su->eo[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], su->info.out_bytes, M890_MEM_HBM, &su->out[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], su->host_bytes, M890_MEM_HOST, &su->host[i]));
		TAP_REQUIRE(m890_buffer_map(su->host[i], &p));
		su->hp[i] = p;
	}
}

static void setup_destroy(struct setup *su)
{
	TAP_REQUIRE(m890_ep_layout_destroy(su->lo));
	TAP_REQUIRE(m890_ep_destroy(su->ep));
	for (int i = 0; i < n; i++) {
		m890_buffer_free(su->x[i]);
		m890_buffer_free(su->recv[i]);
		m890_buffer_free(su->cnt[i]);
		m890_buffer_free(su->eo[i]);
		m890_buffer_free(su->out[i]);
		m890_buffer_free(su->host[i]);
	}
}

/* Host <-> device through the mapped host buffer of rank i. */
static void put(struct setup *su, int i, m890_buffer_t b, const void *src,
		uint64_t bytes)
{
	memcpy(su->hp[i], src, bytes);
	TAP_REQUIRE(m890_memcpy_htod(str[i], b, 0, su->host[i], 0, bytes));
	TAP_REQUIRE(m890_stream_synchronize(str[i]));
}

static void get(struct setup *su, int i, m890_buffer_t b, void *dst,
		uint64_t bytes)
{
	TAP_REQUIRE(m890_memcpy_dtoh(str[i], su->host[i], 0, b, 0, bytes));
	TAP_REQUIRE(m890_stream_synchronize(str[i]));
	memcpy(dst, su->hp[i], bytes);
}

static void poison(struct setup *su)
{
	for (int i = 0; i < n; i++) {
		uint64_t va;

		m890_buffer_va(su->recv[i], &va);
		TAP_REQUIRE(m890_memset32(str[i], va, 0xa5a5a5a5u,
					  (su->info.recv_bytes + 3) & ~3ull));
		m890_buffer_va(su->cnt[i], &va);
		TAP_REQUIRE(m890_memset32(str[i], va, 0xa5a5a5a5u,
					  su->info.counts_bytes));
		m890_buffer_va(su->out[i], &va);
		TAP_REQUIRE(m890_memset32(str[i], va, 0xa5a5a5a5u,
					  su->info.out_bytes));
		TAP_REQUIRE(m890_stream_synchronize(str[i]));
	}
}

/* The reference row of rank s's token t, as a receive buffer holds it. */
static void ref_row(struct setup *su, int s, int t, uint8_t *row)
{
	epr_token_row(su->type, &su->info, &xs[s][t * H], row);
}

/* Expert e's output for a received row (ep_ref.h). */
static void expert(struct setup *su, int e, const uint8_t *row, uint16_t *y)
{
	epr_expert(su->type, &su->info, e, row, y);
}

struct result {
	uint8_t *recv[MAXN];
	uint32_t *cnt[MAXN];
	uint16_t *out[MAXN];
};

static void result_free(struct result *r)
{
	for (int i = 0; i < n; i++) {
		free(r->recv[i]);
		free(r->cnt[i]);
		free(r->out[i]);
	}
}

/*
 * One dispatch, expert step and combine; the device's results in @res.
 * Returns the dispatch status (nothing else runs if it failed).
 */
static m890_status_t round_trip(struct setup *su, struct result *res)
{
	const int32_t *ip[MAXN];
	const float *wp[MAXN];
	int L = su->experts / n;
	m890_status_t st;

	for (int i = 0; i < n; i++) {
		ip[i] = idx[i];
		wp[i] = wt[i];
		put(su, i, su->x[i], xs[i], sizeof(xs[i]));
	}
	poison(su);
	st = m890_ep_dispatch(su->ep, su->lo, su->x, nt, ip, wp, su->recv,
			      su->cnt, str);
	if (st)
		return st;
	TAP_REQUIRE(m890_comm_synchronize(comm, str));
	for (int i = 0; i < n; i++) {
		res->recv[i] = malloc(su->info.recv_bytes);
		res->cnt[i] = malloc(su->info.counts_bytes);
		res->out[i] = malloc(su->info.out_bytes);
		if (!res->recv[i] || !res->cnt[i] || !res->out[i])
			exit(1);
		get(su, i, su->recv[i], res->recv[i], su->info.recv_bytes);
		get(su, i, su->cnt[i], res->cnt[i], su->info.counts_bytes);
	}
	/* The experts, on the host: every slot of the outputs is written. */
	for (int i = 0; i < n; i++) {
		uint16_t *y = (uint16_t *)su->hp[i];

		for (int l = 0; l < L; l++)
			for (int p = 0; p < su->cap; p++) {
				uint64_t row = (uint64_t)l * su->cap + p;

				if ((uint32_t)p < res->cnt[i][l] && res->cnt[i][l] <= (uint32_t)su->cap)
					expert(su, i * L + l,
					       res->recv[i] + row * su->info.row_bytes,
					       y + row * H);
				else
					memset(y + row * H, 0x7f, 2 * H);
			}
		TAP_REQUIRE(m890_memcpy_htod(str[i], su->eo[i], 0, su->host[i], 0,
					     su->info.expert_out_bytes));
	}
	TAP_REQUIRE(m890_ep_combine(su->ep, su->lo, su->eo, su->out, str));
	TAP_REQUIRE(m890_comm_synchronize(comm, str));
	for (int i = 0; i < n; i++)
		get(su, i, su->out[i], res->out[i], su->info.out_bytes);
	return M890_SUCCESS;
}

/* Compare @res with the reference built from xs/idx/wt/nt. */
static int check_result(struct setup *su, const struct result *res,
			const char *what)
{
	int L = su->experts / n, good = 1;
	uint32_t rb = su->info.row_bytes;
	uint32_t *cnt = calloc((size_t)su->experts, sizeof(*cnt));
	uint8_t *row = malloc(rb);
	uint16_t *table = malloc(sizeof(uint16_t) * T * K * H);
	uint32_t *ridx = malloc(sizeof(uint32_t) * T * K);
	uint16_t *want = malloc(sizeof(uint16_t) * T * H);

	if (!cnt || !row || !table || !ridx || !want)
		exit(1);
	/* Dispatch: expert e's rows in (rank, token, slot) order. */
	for (int s = 0; s < n && good; s++)
		for (int t = 0; t < (int)nt[s] && good; t++)
			for (int j = 0; j < K && good; j++) {
				int e = idx[s][t * K + j], d, p;

				if (e < 0)
					continue;
				d = e / L;
				p = (int)cnt[e]++;
				ref_row(su, s, t, row);
				if (memcmp(res->recv[d] + ((uint64_t)(e % L) * su->cap + p) * rb,
					   row, rb)) {
					printf("# %s: rank %d token %d slot %d: row %d of expert %d differs\n",
					       what, s, t, j, p, e);
					good = 0;
				}
			}
	for (int e = 0; e < su->experts && good; e++) {
		int d = e / L, l = e % L;
		const uint8_t *tail = res->recv[d] + ((uint64_t)l * su->cap + cnt[e]) * rb;

		if (res->cnt[d][l] != cnt[e]) {
			printf("# %s: expert %d count %u, want %u\n", what, e,
			       res->cnt[d][l], cnt[e]);
			good = 0;
		}
		for (uint64_t b = 0; b < (su->cap - cnt[e]) * (uint64_t)rb && good; b++)
			if (tail[b] != POISON) {
				printf("# %s: expert %d: byte %llu past its rows changed\n",
				       what, e, (unsigned long long)b);
				good = 0;
			}
	}
	tap_ok(good, "%s: receive buffers and counts equal the reference", what);
	/* Combine: reduce over the expert outputs of each (token, slot). */
	for (int s = 0; s < n; s++) {
		for (int t = 0; t < (int)nt[s]; t++)
			for (int j = 0; j < K; j++) {
				int e = idx[s][t * K + j];

				ridx[t * K + j] = M890_ROW_NONE;
				if (e < 0)
					continue;
				ref_row(su, s, t, row);
				expert(su, e, row, table + (t * K + j) * H);
				ridx[t * K + j] = (uint32_t)(t * K + j);
			}
		m890_reduce_host(M890_TYPE_BF16, table, want, ridx, wt[s], nt[s], H, K);
		if (memcmp(want, res->out[s], 2ull * nt[s] * H)) {
			printf("# %s: rank %d combine output differs\n", what, s);
			good = -1;
		}
	}
	tap_ok(good == 1, "%s: combine equals m890_reduce_host() bit for bit", what);
	free(cnt);
	free(row);
	free(table);
	free(ridx);
	free(want);
	return good == 1;
}

static int same_result(struct setup *su, const struct result *a,
		       const struct result *b)
{
	int L = su->experts / n;

	for (int i = 0; i < n; i++) {
		if (memcmp(a->cnt[i], b->cnt[i], su->info.counts_bytes) ||
		    memcmp(a->out[i], b->out[i], 2ull * nt[i] * H))
			return 0;
		for (int l = 0; l < L; l++)
			if (memcmp(a->recv[i] + (uint64_t)l * su->cap * su->info.row_bytes,
				   b->recv[i] + (uint64_t)l * su->cap * su->info.row_bytes,
				   (uint64_t)a->cnt[i][l] * su->info.row_bytes))
				return 0;
	}
	return 1;
}

static void test_type(int type, const char *name)
{
	struct setup su;
	struct result r1, r2;
	char what[64];

	setup_create(&su, type, 4 * n, 0);
	make_routing(4 * n);
	snprintf(what, sizeof(what), "%s random routing", name);
	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	if (!tap_ok(round_trip(&su, &r1) == M890_SUCCESS, "%s: dispatch", what))
		return;
	check_result(&su, &r1, what);
	TAP_REQUIRE(round_trip(&su, &r2));
	tap_ok(same_result(&su, &r1, &r2), "%s: a second run gives identical bits", what);
	result_free(&r1);
	result_free(&r2);
	setup_destroy(&su);
}

static void test_skew(void)
{
	struct setup su;
	struct result r;
	const int32_t *ip[MAXN];
	const float *wp[MAXN];
	uint32_t host_cnt[4 * MAXN];
	uint8_t *before;
	int same = 1;
	m890_status_t st;

	/* Every token to expert 0 (other slots unused), default capacity. */
	setup_create(&su, M890_TYPE_MXFP8, 2 * n, 0);
	for (int i = 0; i < n; i++) {
		nt[i] = T;
		for (int q = 0; q < T * K; q++) {
			idx[i][q] = q % K == 0 ? 0 : -1;
			wt[i][q] = 0.5f;
		}
	}
	memset(&r, 0, sizeof(r));
	TAP_REQUIRE(round_trip(&su, &r));
	check_result(&su, &r, "skewed routing (all to expert 0)");
	TAP_REQUIRE(m890_ep_layout_counts(su.lo, host_cnt));
	tap_ok(host_cnt[0] == (uint32_t)(n * T) && host_cnt[1] == 0,
	       "layout counts: expert 0 got %u rows (want %d)", host_cnt[0], n * T);
	result_free(&r);
	setup_destroy(&su);

	/* The same with capacity 5: refused, nothing written. */
	setup_create(&su, M890_TYPE_MXFP8, 2 * n, 5);
	before = malloc(su.info.recv_bytes);
	for (int i = 0; i < n; i++) {
		ip[i] = idx[i];
		wp[i] = wt[i];
		put(&su, i, su.x[i], xs[i], sizeof(xs[i]));
	}
	poison(&su);
	st = m890_ep_dispatch(su.ep, su.lo, su.x, nt, ip, wp, su.recv, su.cnt, str);
	tap_ok(st == M890_ERROR_CAPACITY, "capacity 5, %d rows to expert 0: %s",
	       n * T, m890_status_string(st));
	tap_ok(strstr(m890_get_last_error(), "expert 0") != NULL,
	       "the error names the expert: %s", m890_get_last_error());
	TAP_REQUIRE(m890_comm_synchronize(comm, str));
	for (int i = 0; i < n && before; i++) {
		get(&su, i, su.recv[i], before, su.info.recv_bytes);
		for (uint64_t b = 0; b < (su.info.recv_bytes & ~3ull); b++)
			same &= before[b] == POISON;
	}
	tap_ok(same, "no receive buffer was written");
	free(before);
	TAP_STATUS(m890_ep_combine(su.ep, su.lo, su.eo, su.out, str),
		   M890_ERROR_INVALID_ARGUMENT);
	/* Balanced routing within capacity then works on the same objects. */
	for (int i = 0; i < n; i++)
		for (int t = 0; t < T; t++)
			for (int j = 0; j < K; j++)
				idx[i][t * K + j] = j == 0 ? (i * T + t) % (2 * n) : -1;
	for (int i = 0; i < n; i++)
		nt[i] = 4;	/* 4n tokens over 2n experts: 2 rows each */
	memset(&r, 0, sizeof(r));
	TAP_REQUIRE(round_trip(&su, &r));
	check_result(&su, &r, "after the refused dispatch, balanced routing");
	result_free(&r);

	/* No expert at all: zero counts, zero outputs. */
	for (int i = 0; i < n; i++)
		for (int q = 0; q < T * K; q++)
			idx[i][q] = -1;
	memset(&r, 0, sizeof(r));
	TAP_REQUIRE(round_trip(&su, &r));
	check_result(&su, &r, "routing to no expert");
	result_free(&r);
	setup_destroy(&su);
}

static void test_refused(void)
{
	struct setup su, other;
	const int32_t *ip[MAXN];
	const float *wp[MAXN];
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	const int ex = 2 * n < K ? K : 2 * n;
	m890_ep_t ep;

	cfg.max_tokens_per_rank = T;
	cfg.hidden = 48;
	cfg.num_experts = (uint32_t)n;
	cfg.top_k = 2;
	TAP_STATUS(m890_ep_create(comm, &cfg, &ep), M890_ERROR_INVALID_ARGUMENT);
	cfg.hidden = H;
	cfg.num_experts = (uint32_t)n + (n > 1);
	if (n > 1)
		TAP_STATUS(m890_ep_create(comm, &cfg, &ep), M890_ERROR_INVALID_ARGUMENT);
	cfg.num_experts = (uint32_t)n;
	cfg.dispatch_type = M890_TYPE_FP32;
	TAP_STATUS(m890_ep_create(comm, &cfg, &ep), M890_ERROR_INVALID_ARGUMENT);

	/* Two experts per rank, and at least K for K distinct per token. */
	setup_create(&su, M890_TYPE_BF16, ex, 0);
	setup_create(&other, M890_TYPE_BF16, ex, 0);
	make_routing(ex);
	for (int i = 0; i < n; i++) {
		ip[i] = idx[i];
		wp[i] = wt[i];
	}
	TAP_STATUS(m890_ep_combine(su.ep, su.lo, su.eo, su.out, str),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_ep_dispatch(su.ep, other.lo, su.x, nt, ip, wp, su.recv, su.cnt, str),
		   M890_ERROR_INVALID_ARGUMENT);
	idx[0][1] = ex;
	TAP_STATUS(m890_ep_dispatch(su.ep, su.lo, su.x, nt, ip, wp, su.recv, su.cnt, str),
		   M890_ERROR_INVALID_ARGUMENT);
	idx[0][1] = idx[0][0] >= 0 ? idx[0][0] : 0;
	idx[0][0] = idx[0][1];
	TAP_STATUS(m890_ep_dispatch(su.ep, su.lo, su.x, nt, ip, wp, su.recv, su.cnt, str),
		   M890_ERROR_INVALID_ARGUMENT);
	tap_ok(strstr(m890_get_last_error(), "twice") != NULL,
	       "a repeated expert is named: %s", m890_get_last_error());
	make_routing(ex);
	nt[0] = T + 1;
	TAP_STATUS(m890_ep_dispatch(su.ep, su.lo, su.x, nt, ip, wp, su.recv, su.cnt, str),
		   M890_ERROR_INVALID_ARGUMENT);
	nt[0] = T;
	TAP_STATUS(m890_ep_dispatch(su.ep, su.lo, su.x, nt, ip, wp, su.x, su.cnt, str),
		   M890_ERROR_INVALID_ARGUMENT);
	if (n > 1) {
		m890_buffer_t t = su.recv[0];

		su.recv[0] = su.recv[1];
		TAP_STATUS(m890_ep_dispatch(su.ep, su.lo, su.x, nt, ip, wp, su.recv, su.cnt, str),
			   M890_ERROR_DEVICE_MISMATCH);
		su.recv[0] = t;
	}
	TAP_STATUS(m890_ep_destroy(su.ep), M890_ERROR_INVALID_ARGUMENT);
	setup_destroy(&other);
	setup_destroy(&su);
}

/*
 * m890_ep_destroy() against m890_ep_layout_create() of another thread.
 * In each of RACE_ROUNDS rounds on a new EP object, the creator makes a
 * layout, holds it for RACE_HOLD_NS, checks that the EP object was not
 * destroyed meanwhile and destroys the layout, RACE_ITERS times; the
 * main thread calls m890_ep_destroy() until it succeeds, from the moment
 * the creator enters its first create.  So destroys land inside creates
 * (the first one, and later ones after the count fell to zero): a
 * destroy that read "no layout" before the create added its own must
 * not free the object under it (it re-checks after taking the object
 * out of the registry).
 */
#define RACE_ROUNDS	12
#define RACE_ITERS	20
#define RACE_HOLD_NS	300000

struct race {
	m890_ep_t ep;
	atomic_int armed;	/* the creator is in its first create */
	atomic_int made;	/* layouts created */
	atomic_int destroyed;	/* m890_ep_destroy() succeeded */
	int orphaned;		/* layouts alive at a successful destroy */
	int failed;		/* calls with an unexpected status */
	m890_status_t last;
};

static void *race_creator(void *arg)
{
	const struct timespec hold = { 0, RACE_HOLD_NS };
	struct race *r = arg;

	for (int it = 0; it < RACE_ITERS; it++) {
		m890_ep_layout_t lo;
		m890_status_t st;

		atomic_store(&r->armed, 1);
		st = m890_ep_layout_create(r->ep, &lo);
		/* Out of the registry: gone, or a destroy about to fail. */
		if (st == M890_ERROR_INVALID_HANDLE) {
			if (atomic_load(&r->destroyed))
				break;
			continue;
		}
		if (st) {
			r->failed++;
			r->last = st;
			break;
		}
		atomic_fetch_add(&r->made, 1);
		nanosleep(&hold, NULL);
		if (atomic_load(&r->destroyed)) {
			/* Freed under the layout: do not touch it again. */
			r->orphaned++;
			break;
		}
		st = m890_ep_layout_destroy(lo);
		if (st) {
			r->failed++;
			r->last = st;
			break;
		}
	}
	return NULL;
}

/* One round; adds to the totals. */
static void race_round(int *made, int *orphaned, int *failed,
		       m890_status_t *last, unsigned long *refused)
{
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	struct race r = { 0 };
	m890_status_t st;
	pthread_t t;

	cfg.max_tokens_per_rank = T;
	cfg.hidden = H;
	cfg.num_experts = (uint32_t)n;
	cfg.top_k = 1;
	TAP_REQUIRE(m890_ep_create(comm, &cfg, &r.ep));
	if (pthread_create(&t, NULL, race_creator, &r)) {
		(*failed)++;
		m890_ep_destroy(r.ep);
		return;
	}
	while (!atomic_load(&r.armed))
		;
	for (;;) {
		st = m890_ep_destroy(r.ep);
		if (st != M890_ERROR_INVALID_ARGUMENT)
			break;
		(*refused)++;
	}
	if (!st)
		atomic_store(&r.destroyed, 1);
	pthread_join(t, NULL);
	if (st) {
		r.failed++;
		r.last = st;
		m890_ep_destroy(r.ep);
	}
	*made += atomic_load(&r.made);
	*orphaned += r.orphaned;
	*failed += r.failed;
	if (r.failed)
		*last = r.last;
}

static void test_destroy_race(void)
{
	m890_status_t last = M890_SUCCESS;
	int made = 0, orphaned = 0, failed = 0;
	unsigned long refused = 0;

	for (int k = 0; k < RACE_ROUNDS; k++)
		race_round(&made, &orphaned, &failed, &last, &refused);
	tap_ok(!orphaned,
	       "EP destroy racing layout creates: no layout outlives a successful destroy (%d rounds, %d layouts, %lu destroys refused)",
	       RACE_ROUNDS, made, refused);
	tap_ok(!failed, "EP destroy race: every call succeeds, is refused or finds the object gone (%s)",
	       failed ? m890_status_string(last) : "ok");
}

int main(void)
{
	m890_status_t st = m890_device_count(&n);

	if (st || n < 1) {
		tap_skip("no M890 card", "EP tests");
		return tap_done();
	}
	if (n > MAXN)
		n = MAXN;
	for (int i = 0; i < n; i++) {
		TAP_REQUIRE(m890_device_open(i, &dev[i]));
		TAP_REQUIRE(m890_stream_create(dev[i], &str[i]));
	}
	TAP_REQUIRE(m890_comm_create(dev, n, NULL, &comm));
	make_tokens();
	test_type(M890_TYPE_BF16, "bf16");
	test_type(M890_TYPE_MXFP8, "MXFP8");
	test_type(M890_TYPE_MXFP4, "MXFP4");
	test_skew();
	test_refused();
	test_destroy_race();
	TAP_REQUIRE(m890_comm_destroy(comm));
	for (int i = 0; i < n; i++) {
		m890_stream_destroy(str[i]);
		m890_device_close(dev[i]);
	}
	return tap_done();
}
