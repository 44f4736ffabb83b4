/* SPDX-License-Identifier: MIT */
/*
 * EP dispatch/combine on a per-rank communicator (one process per card,
 * or cards in several VMs), shared by test_ep_mproc.c and
 * test_ep_fabric.c.  The process holding local ranks rank[0..m) of an
 * n-rank communicator runs epr_run(); every process of the communicator
 * runs it at the same time.
 *
 * Every process builds the same inputs of every rank from a seed (tokens,
 * routing with unused slots, a rank without tokens, token counts that
 * differ per rank), so each can check its own ranks against a host
 * reference written here from the definition: expert e's rows in the
 * order (source rank, token, top-k slot), MX rows quantized with
 * m890_mx_quantize_host(), rows past the counts untouched, and the
 * combine equal to m890_reduce_host() over the reference rows.  The
 * steps (epr_check bits): bf16, MXFP8 and MXFP4 round trips, each run
 * twice with identical bits; m890_ep_layout_counts() giving every
 * rank's experts; 512 experts per rank, whose count rows need several
 * metadata rounds; a capacity overflow failing with the same message at
 * every rank with no receive buffer written; m890_ep_create() with
 * another config at rank 0 (if some rank is in another process) and one
 * rank's refused argument failing the call at every rank, after which
 * the communicator still works; routing to no expert at all; optionally
 * the last rank's process killed before a dispatch, which the others'
 * dispatch must report as a timeout naming that rank (or, on a fabric
 * communicator, as the failed write to its revoked area:
 * M890_ERROR_DEVICE_FAULT, or M890_ERROR_DEVICE_ERROR across VMs, the
 * message naming it too).  epr_fork() runs one process per card and
 * prints the TAP lines.
 */
#ifndef M890_TEST_EP_RANKS_H
#define M890_TEST_EP_RANKS_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "ep_ref.h"

#define EPR_MAXN 64
#define EPR_T 24
#define EPR_K 4
#define EPR_POISON 0xa5
/* Many experts: each rank's count row takes several metadata rounds. */
#define EPR_MANY_L 512		/* local experts */
#define EPR_MANY_CAP 8

enum epr_check {
	EPR_BF16,		/* dispatch and combine equal the reference */
	EPR_BF16_AGAIN,		/* a second run gives the same bytes */
	EPR_MXFP8,
	EPR_MXFP8_AGAIN,
	EPR_MXFP4,
	EPR_MXFP4_AGAIN,
	EPR_COUNTS,		/* m890_ep_layout_counts(): every expert */
	EPR_MANY,		/* 512 experts per rank */
	EPR_MANY_AGAIN,
	EPR_CAPACITY,		/* the same M890_ERROR_CAPACITY everywhere */
	EPR_UNTOUCHED,		/* ... and no receive buffer written */
	EPR_CONFIG,		/* another config at rank 0: refused everywhere */
	EPR_REFUSED,		/* one rank's bad argument fails every rank */
	EPR_AFTER,		/* then a dispatch and combine work */
	EPR_NONE,		/* routing to no expert at all */
	EPR_KILLED,		/* a killed peer: timeout naming it */
	EPR_TEARDOWN,		/* abort (if needed) and destroy */
	EPR_NCHECK
};

static const char *const epr_check_name[EPR_NCHECK] = {
	"bf16 dispatch and combine equal the host reference",
	"bf16 again: identical bytes",
	"MXFP8 dispatch and combine equal the host reference",
	"MXFP8 again: identical bytes",
	"MXFP4 dispatch and combine equal the host reference",
	"MXFP4 again: identical bytes",
	"m890_ep_layout_counts() gives every rank's experts",
	"512 experts per rank (count rows over several metadata rounds): equal the host reference",
	"512 experts per rank again: identical bytes",
	"capacity overflow: the same M890_ERROR_CAPACITY at every rank",
	"capacity overflow: no receive buffer written",
	"ep_create with another top_k at rank 0 fails at every rank",
	"one rank's unregistered buffer fails the call at every rank",
	"after the refused calls, dispatch and combine work",
	"routing to no expert: zero counts, nothing written, zero outputs",
	"a killed peer: the dispatch fails (timeout or fault) naming it",
	"tears down cleanly",
};

/* Inputs of every rank, the same in every process. */
struct epr_world {
	int n, experts;
	uint16_t x[EPR_MAXN][EPR_T * EPR_H];
	int32_t idx[EPR_MAXN][EPR_T * EPR_K];
	float w[EPR_MAXN][EPR_T * EPR_K];
	uint32_t nt[EPR_MAXN];
};

static uint32_t epr_rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

enum epr_routing { EPR_RANDOM, EPR_ALL_TO_0, EPR_BALANCED, EPR_NO_EXPERT };

static void epr_world_make(struct epr_world *wd, int n, int experts,
			   uint32_t seed, enum epr_routing how)
{
	uint32_t s = seed;

	wd->n = n;
	wd->experts = experts;
	for (int i = 0; i < n; i++) {
		for (int q = 0; q < EPR_T * EPR_H; q++) {
			float v = ((int)(epr_rnd(&s) % 2001) - 1000) / 125.0f;

			if (q / EPR_H % 7 == 3)
				v = 0.0f;	/* an all-zero token */
			if (q % 97 == 5)
				v *= 1000.0f;	/* a block with a large amax */
			wd->x[i][q] = m890_float_to_bf16(v);
		}
		wd->nt[i] = how == EPR_BALANCED ? 4 :
			    how == EPR_ALL_TO_0 ? EPR_T :
			    i == 1 % n && n > 1 ? 0 : EPR_T - (uint32_t)i % 3;
		for (int t = 0; t < EPR_T; t++)
			for (int j = 0; j < EPR_K; j++) {
				int32_t e;
				int dup;

				do {
					e = (int32_t)(epr_rnd(&s) % (uint32_t)experts);
					dup = 0;
					for (int j2 = 0; j2 < j; j2++)
						dup |= wd->idx[i][t * EPR_K + j2] == e;
				} while (dup);
				if (how == EPR_ALL_TO_0)
					e = j == 0 ? 0 : -1;
				else if (how == EPR_BALANCED)
					e = j == 0 ? (i * EPR_T + t) % experts : -1;
				else if (how == EPR_NO_EXPERT)
					e = -1;
				else if (epr_rnd(&s) % 5 == 0)
					e = -1;
				wd->idx[i][t * EPR_K + j] = e;
				wd->w[i][t * EPR_K + j] =
					(float)(epr_rnd(&s) % 1000) / 997.0f;
			}
	}
}

/* Rows expert e receives, from every rank. */
static uint32_t epr_count(const struct epr_world *wd, int e)
{
	uint32_t c = 0;

	for (int s = 0; s < wd->n; s++)
		for (uint32_t q = 0; q < wd->nt[s] * EPR_K; q++)
			c += wd->idx[s][q] == e;
	return c;
}

/* The reference row of rank s's token t, as a receive buffer holds it. */
static void epr_ref_row(const struct epr_world *wd, int type,
			const struct m890_ep_info *in, int s, int t,
			uint8_t *row)
{
	epr_token_row(type, in, &wd->x[s][t * EPR_H], row);
}

/*
 * Rank d's receive buffer @recv and counts @cnt against the reference;
 * rows past the counts must hold the poison.  Prints the first
 * difference.
 */
static int epr_check_recv(const struct epr_world *wd, int type,
			  const struct m890_ep_info *in, int d,
			  const uint8_t *recv, const uint32_t *cnt)
{
	uint32_t L = in->num_local_experts, cap = in->expert_capacity;
	uint32_t rb = in->row_bytes;
	uint8_t row[2 * EPR_H + EPR_H / 32];

	for (uint32_t l = 0; l < L; l++) {
		int e = (int)(d * L + l);
		uint32_t p = 0;

		for (int s = 0; s < wd->n; s++)
			for (int t = 0; t < (int)wd->nt[s]; t++)
				for (int j = 0; j < EPR_K; j++) {
					if (wd->idx[s][t * EPR_K + j] != e)
						continue;
					epr_ref_row(wd, type, in, s, t, row);
					if (p >= cap || memcmp(recv + ((uint64_t)l * cap + p) * rb,
							       row, rb)) {
						printf("# rank %d: row %u of expert %d (rank %d token %d slot %d) differs\n",
						       d, p, e, s, t, j);
						return 0;
					}
					p++;
				}
		if (cnt[l] != p) {
			printf("# rank %d: expert %d count %u, want %u\n", d, e,
			       cnt[l], p);
			return 0;
		}
		for (uint64_t b = (uint64_t)p * rb; b < (uint64_t)cap * rb; b++)
			if (recv[(uint64_t)l * cap * rb + b] != EPR_POISON) {
				printf("# rank %d: expert %d: byte %llu past its rows changed\n",
				       d, e, (unsigned long long)b);
				return 0;
			}
	}
	return 1;
}

/* Rank d's expert outputs (L * C rows of H bf16) from what it received. */
static void epr_experts(int type, const struct m890_ep_info *in, int d,
			const uint8_t *recv, const uint32_t *cnt, uint16_t *y)
{
	uint32_t L = in->num_local_experts, cap = in->expert_capacity;

	for (uint32_t l = 0; l < L; l++)
		for (uint32_t p = 0; p < cap; p++) {
			uint64_t row = (uint64_t)l * cap + p;

			if (p < cnt[l])
				epr_expert(type, in, (int)(d * L + l),
					   recv + row * in->row_bytes,
					   y + row * EPR_H);
			else
				memset(y + row * EPR_H, 0x7f, 2 * EPR_H);
		}
}

/* Rank s's combine output against m890_reduce_host() of the reference. */
static int epr_check_out(const struct epr_world *wd, int type,
			 const struct m890_ep_info *in, int s,
			 const uint16_t *out)
{
	static uint16_t table[EPR_T * EPR_K * EPR_H], want[EPR_T * EPR_H];
	uint32_t ridx[EPR_T * EPR_K];
	uint8_t row[2 * EPR_H + EPR_H / 32];

	for (int t = 0; t < (int)wd->nt[s]; t++)
		for (int j = 0; j < EPR_K; j++) {
			int e = wd->idx[s][t * EPR_K + j];

			ridx[t * EPR_K + j] = M890_ROW_NONE;
			if (e < 0)
				continue;
			epr_ref_row(wd, type, in, s, t, row);
			epr_expert(type, in, e, row, table + (t * EPR_K + j) * EPR_H);
			ridx[t * EPR_K + j] = (uint32_t)(t * EPR_K + j);
		}
	m890_reduce_host(M890_TYPE_BF16, table, want, ridx, wd->w[s], wd->nt[s],
			 EPR_H, EPR_K);
	if (memcmp(want, out, 2ull * wd->nt[s] * EPR_H)) {
		printf("# rank %d: combine output differs\n", s);
		return 0;
	}
	return 1;
}

/* The local ranks of one process and their objects. */
struct epr_proc {
	m890_comm_t comm;
	int n, m;			/* ranks in all, here */
	int rank[EPR_MAXN];		/* global rank of local index l */
	m890_device_t dev[EPR_MAXN];
	m890_stream_t str[EPR_MAXN];
	m890_buffer_t x[EPR_MAXN], recv[EPR_MAXN], cnt[EPR_MAXN];
	m890_buffer_t eo[EPR_MAXN], out[EPR_MAXN], other[EPR_MAXN];
	m890_buffer_t host[EPR_MAXN];
	uint8_t *hp[EPR_MAXN];
	uint64_t recv_bytes, eo_bytes, host_bytes;
	uint64_t timeout_ns;		/* the communicator's */
	/* The last round's results, per local rank. */
	uint8_t *got_recv[EPR_MAXN];
	uint16_t *got_out[EPR_MAXN];
};

static struct epr_world epr_wd;

/*
 * Buffers of every local rank, sized for 4n experts, capacity n * T and
 * bf16 rows (the largest); recv and the expert outputs registered in
 * that order by every rank.  The streams and devices are the caller's.
 */
static m890_status_t epr_setup(struct epr_proc *p)
{
	uint64_t cap = (uint64_t)p->n * EPR_T, xb = 2ull * EPR_T * EPR_H;
	m890_status_t st = M890_SUCCESS;

	p->recv_bytes = 4 * cap * 2 * EPR_H;
	if (p->recv_bytes < EPR_MANY_L * EPR_MANY_CAP * 2 * EPR_H)
		p->recv_bytes = EPR_MANY_L * EPR_MANY_CAP * 2 * EPR_H;
	p->eo_bytes = p->recv_bytes;
	p->host_bytes = p->recv_bytes;
	for (int l = 0; l < p->m && !st; l++) {
		void *hp = NULL;

		st = m890_buffer_alloc(p->dev[l], xb, M890_MEM_HBM, &p->x[l]);
		if (!st)
			st = m890_buffer_alloc(p->dev[l], p->recv_bytes, M890_MEM_HBM, &p->recv[l]);
		if (!st)
			st = m890_buffer_alloc(p->dev[l], p->recv_bytes, M890_MEM_HBM, &p->other[l]);
		if (!st)
			st = m890_buffer_alloc(p->dev[l], 4 * EPR_MANY_L, M890_MEM_HBM,
					       &p->cnt[l]);
		if (!st)
			st = m890_buffer_alloc(p->dev[l], p->eo_bytes, M890_MEM_HBM, &p->eo[l]);
		if (!st)
			st = m890_buffer_alloc(p->dev[l], xb, M890_MEM_HBM, &p->out[l]);
		if (!st)
			st = m890_buffer_alloc(p->dev[l], p->host_bytes, M890_MEM_HOST, &p->host[l]);
		if (!st)
			st = m890_buffer_map(p->host[l], &hp);
		p->hp[l] = hp;
		p->got_recv[l] = malloc(p->recv_bytes);
		p->got_out[l] = malloc(xb);
		if (!st && (!p->got_recv[l] || !p->got_out[l]))
			st = M890_ERROR_OUT_OF_HOST_MEMORY;
	}
	for (int l = 0; l < p->m && !st; l++)
		st = m890_comm_register(p->comm, p->recv[l]);
	for (int l = 0; l < p->m && !st; l++)
		st = m890_comm_register(p->comm, p->eo[l]);
	return st;
}

static void epr_teardown_buffers(struct epr_proc *p)
{
	for (int l = 0; l < p->m; l++) {
		m890_buffer_t b[] = { p->x[l], p->recv[l], p->other[l], p->cnt[l],
				      p->eo[l], p->out[l], p->host[l] };

		for (size_t k = 0; k < sizeof(b) / sizeof(b[0]); k++)
			if (b[k])
				m890_buffer_free(b[k]);
		free(p->got_recv[l]);
		free(p->got_out[l]);
	}
}

/* Host <-> device through local rank l's mapped host buffer. */
static m890_status_t epr_put(struct epr_proc *p, int l, m890_buffer_t b,
			     const void *src, uint64_t bytes)
{
	m890_status_t st;

	memcpy(p->hp[l], src, bytes);
	st = m890_memcpy_htod(p->str[l], b, 0, p->host[l], 0, bytes);
	return st ? st : m890_stream_synchronize(p->str[l]);
}

static m890_status_t epr_get(struct epr_proc *p, int l, m890_buffer_t b,
			     void *dst, uint64_t bytes)
{
	m890_status_t st = m890_memcpy_dtoh(p->str[l], p->host[l], 0, b, 0, bytes);

	if (!st)
		st = m890_stream_synchronize(p->str[l]);
	if (!st)
		memcpy(dst, p->hp[l], bytes);
	return st;
}

/* Tokens in, receive buffers, counts and outputs poisoned. */
static m890_status_t epr_prepare(struct epr_proc *p)
{
	m890_status_t st = M890_SUCCESS;

	for (int l = 0; l < p->m && !st; l++) {
		uint64_t va;

		st = epr_put(p, l, p->x[l], epr_wd.x[p->rank[l]],
			     sizeof(epr_wd.x[0]));
		m890_buffer_va(p->recv[l], &va);
		if (!st)
			st = m890_memset32(p->str[l], va, 0xa5a5a5a5u, p->recv_bytes);
		m890_buffer_va(p->cnt[l], &va);
		if (!st)
			st = m890_memset32(p->str[l], va, 0xa5a5a5a5u, 4 * EPR_MANY_L);
		m890_buffer_va(p->out[l], &va);
		if (!st)
			st = m890_memset32(p->str[l], va, 0xa5a5a5a5u,
					   2ull * EPR_T * EPR_H);
		if (!st)
			st = m890_stream_synchronize(p->str[l]);
	}
	return st;
}

/* The dispatch of epr_wd's routing by the local ranks into @recv. */
static m890_status_t epr_dispatch(struct epr_proc *p, m890_ep_t ep,
				  m890_ep_layout_t lo, const m890_buffer_t *recv)
{
	const int32_t *ip[EPR_MAXN];
	const float *wp[EPR_MAXN];
	uint32_t nt[EPR_MAXN];

	for (int l = 0; l < p->m; l++) {
		ip[l] = epr_wd.idx[p->rank[l]];
		wp[l] = epr_wd.w[p->rank[l]];
		nt[l] = epr_wd.nt[p->rank[l]];
	}
	return m890_ep_dispatch(ep, lo, p->x, nt, ip, wp, recv, p->cnt, p->str);
}

/*
 * One dispatch, expert step and combine of @type on epr_wd; each local
 * rank's results are checked and kept in got_recv / got_out.  1 when
 * everything matched the reference.
 */
static int epr_round(struct epr_proc *p, m890_ep_t ep, m890_ep_layout_t lo,
		     int type)
{
	struct m890_ep_info in;
	static uint32_t cnt[EPR_MANY_L];
	int good = 1;

	if (m890_ep_get_info(ep, &in) || epr_prepare(p) ||
	    epr_dispatch(p, ep, lo, p->recv) ||
	    m890_comm_synchronize(p->comm, p->str)) {
		printf("# dispatch: %s\n", m890_get_last_error());
		return 0;
	}
	for (int l = 0; l < p->m; l++) {
		int d = p->rank[l];

		if (epr_get(p, l, p->recv[l], p->got_recv[l], in.recv_bytes) ||
		    epr_get(p, l, p->cnt[l], cnt, in.counts_bytes))
			return 0;
		good &= epr_check_recv(&epr_wd, type, &in, d, p->got_recv[l], cnt);
		epr_experts(type, &in, d, p->got_recv[l], cnt, (uint16_t *)p->hp[l]);
		if (m890_memcpy_htod(p->str[l], p->eo[l], 0, p->host[l], 0,
				     in.expert_out_bytes) ||
		    m890_stream_synchronize(p->str[l]))
			return 0;
	}
	if (m890_ep_combine(ep, lo, p->eo, p->out, p->str) ||
	    m890_comm_synchronize(p->comm, p->str)) {
		printf("# combine: %s\n", m890_get_last_error());
		return 0;
	}
	for (int l = 0; l < p->m; l++) {
		if (epr_get(p, l, p->out[l], p->got_out[l], 2ull * EPR_T * EPR_H))
			return 0;
		good &= epr_check_out(&epr_wd, type, &in, p->rank[l], p->got_out[l]);
	}
	return good;
}

static m890_status_t epr_ep(struct epr_proc *p, int type, int experts,
			    int cap, m890_ep_t *ep, m890_ep_layout_t *lo)
{
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	m890_status_t st;

	cfg.max_tokens_per_rank = EPR_T;
	cfg.hidden = EPR_H;
	cfg.num_experts = (uint32_t)experts;
	cfg.top_k = EPR_K;
	cfg.dispatch_type = (uint32_t)type;
	cfg.expert_capacity = (uint32_t)cap;
	st = m890_ep_create(p->comm, &cfg, ep);
	if (!st)
		st = m890_ep_layout_create(*ep, lo);
	return st;
}

static void epr_ep_free(m890_ep_t ep, m890_ep_layout_t lo)
{
	m890_ep_layout_destroy(lo);
	m890_ep_destroy(ep);
}

/*
 * One payload type over @experts experts of capacity @cap (0: n * T):
 * two rounds with identical results, checks @bit and @bit + 1.
 */
static unsigned int epr_type(struct epr_proc *p, int type, int experts,
			     int cap, uint32_t seed, int bit)
{
	size_t xb = 2ull * EPR_T * EPR_H;
	unsigned int ok = 0;
	m890_ep_layout_t lo;
	m890_ep_t ep;
	uint8_t *r1[EPR_MAXN];
	uint8_t *o1[EPR_MAXN];
	int same = 1;

	if (epr_ep(p, type, experts, cap, &ep, &lo)) {
		printf("# type %d: %s\n", type, m890_get_last_error());
		return 0;
	}
	epr_world_make(&epr_wd, p->n, experts, seed, EPR_RANDOM);
	ok |= (unsigned int)epr_round(p, ep, lo, type) << bit;
	for (int l = 0; l < p->m; l++) {
		r1[l] = malloc(p->recv_bytes);
		o1[l] = malloc(xb);
		if (!r1[l] || !o1[l])
			exit(3);
		memcpy(r1[l], p->got_recv[l], p->recv_bytes);
		memcpy(o1[l], p->got_out[l], xb);
	}
	if (epr_round(p, ep, lo, type))
		for (int l = 0; l < p->m; l++)
			same &= !memcmp(r1[l], p->got_recv[l], p->recv_bytes) &&
				!memcmp(o1[l], p->got_out[l], xb);
	else
		same = 0;
	ok |= (unsigned int)same << (bit + 1);
	if (type == M890_TYPE_MXFP4) {
		uint32_t *c = calloc((size_t)experts, sizeof(*c));
		int good = c && !m890_ep_layout_counts(lo, c);

		for (int e = 0; good && e < experts; e++)
			good &= c[e] == epr_count(&epr_wd, e);
		free(c);
		ok |= (unsigned int)good << EPR_COUNTS;
	}
	for (int l = 0; l < p->m; l++) {
		free(r1[l]);
		free(o1[l]);
	}
	epr_ep_free(ep, lo);
	return ok;
}

/*
 * The process of rank 0 asks for top_k 2, the others for EPR_K: every
 * process must refuse the EP object.  1 when it did (or when one
 * process holds every rank, so no rank can differ).
 */
static int epr_other_config(struct epr_proc *p)
{
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	m890_status_t st;
	m890_ep_t ep = NULL;
	int rank0 = 0;

	if (p->m == p->n)
		return 1;
	for (int l = 0; l < p->m; l++)
		rank0 |= p->rank[l] == 0;
	cfg.max_tokens_per_rank = EPR_T;
	cfg.hidden = EPR_H;
	cfg.num_experts = 4u * (uint32_t)p->n;
	cfg.top_k = rank0 ? 2 : EPR_K;
	st = m890_ep_create(p->comm, &cfg, &ep);
	if (st == M890_ERROR_INVALID_ARGUMENT && !ep &&
	    strstr(m890_get_last_error(), "differs from rank"))
		return 1;
	printf("# other config: %s: %s\n", m890_status_string(st),
	       m890_get_last_error());
	if (ep)
		m890_ep_destroy(ep);
	return 0;
}

/* Capacity overflow, refused arguments, then a working round. */
static unsigned int epr_refusals(struct epr_proc *p)
{
	m890_buffer_t recv[EPR_MAXN];
	unsigned int ok = 0;
	m890_ep_layout_t lo;
	m890_ep_t ep;
	m890_status_t st;
	char want[160];
	int good = 1, untouched = 1, rank0 = -1;

	ok |= (unsigned int)epr_other_config(p) << EPR_CONFIG;
	if (epr_ep(p, M890_TYPE_MXFP8, 4 * p->n, 5, &ep, &lo)) {
		printf("# capacity: %s\n", m890_get_last_error());
		return 0;
	}
	epr_world_make(&epr_wd, p->n, 4 * p->n, 77, EPR_ALL_TO_0);
	st = epr_prepare(p);
	if (!st)
		st = epr_dispatch(p, ep, lo, p->recv);
	snprintf(want, sizeof(want),
		 "ep_dispatch: expert 0 (rank 0) would receive %d rows, capacity 5; nothing was sent",
		 p->n * EPR_T);
	if (st != M890_ERROR_CAPACITY || !strstr(m890_get_last_error(), want)) {
		printf("# capacity: %s: %s\n", m890_status_string(st),
		       m890_get_last_error());
		good = 0;
	}
	ok |= (unsigned int)good << EPR_CAPACITY;
	for (int l = 0; l < p->m; l++) {
		if (epr_get(p, l, p->recv[l], p->got_recv[l], p->recv_bytes)) {
			untouched = 0;
			break;
		}
		for (uint64_t b = 0; b < p->recv_bytes; b++)
			untouched &= p->got_recv[l][b] == EPR_POISON;
	}
	ok |= (unsigned int)untouched << EPR_UNTOUCHED;

	/* Rank 0 passes a buffer it did not register. */
	epr_world_make(&epr_wd, p->n, 4 * p->n, 78, EPR_BALANCED);
	for (int l = 0; l < p->m; l++) {
		recv[l] = p->recv[l];
		if (p->rank[l] == 0) {
			recv[l] = p->other[l];
			rank0 = l;
		}
	}
	st = epr_dispatch(p, ep, lo, recv);
	good = st == M890_ERROR_INVALID_ARGUMENT &&
	       strstr(m890_get_last_error(),
		      rank0 >= 0 ? "not registered" : "rank 0 refused the call");
	if (!good)
		printf("# refused: %s: %s\n", m890_status_string(st),
		       m890_get_last_error());
	good &= m890_ep_combine(ep, lo, p->eo, p->out, p->str) ==
		M890_ERROR_INVALID_ARGUMENT;
	ok |= (unsigned int)good << EPR_REFUSED;
	ok |= (unsigned int)epr_round(p, ep, lo, M890_TYPE_MXFP8) << EPR_AFTER;
	epr_world_make(&epr_wd, p->n, 4 * p->n, 80, EPR_NO_EXPERT);
	ok |= (unsigned int)epr_round(p, ep, lo, M890_TYPE_MXFP8) << EPR_NONE;
	epr_ep_free(ep, lo);
	return ok;
}

/*
 * The checks of the local ranks: a bit mask of epr_check.  With @kill,
 * the process holding rank n - 1 (which must hold only that rank)
 * writes its mask to @fd and kills itself before a last dispatch, which
 * the others must see time out naming it; then they abort.
 */
static unsigned int epr_run(struct epr_proc *p, int kill, int fd)
{
	unsigned int ok = 0;
	m890_ep_layout_t lo;
	m890_ep_t ep;

	ok |= epr_type(p, M890_TYPE_BF16, 4 * p->n, 0, 11, EPR_BF16);
	ok |= epr_type(p, M890_TYPE_MXFP8, 4 * p->n, 0, 12, EPR_MXFP8);
	ok |= epr_type(p, M890_TYPE_MXFP4, 4 * p->n, 0, 13, EPR_MXFP4);
	ok |= epr_type(p, M890_TYPE_BF16, EPR_MANY_L * p->n, EPR_MANY_CAP, 14,
		       EPR_MANY);
	ok |= epr_refusals(p);
	if (kill) {
		m890_status_t st = epr_ep(p, M890_TYPE_BF16, 4 * p->n, 0, &ep, &lo);
		char want[32];

		if (p->rank[0] == p->n - 1) {
			ok |= 1u << EPR_KILLED | 1u << EPR_TEARDOWN;
			if (write(fd, &ok, sizeof(ok)) != sizeof(ok))
				printf("# rank %d: cannot report\n", p->rank[0]);
			fflush(stdout);
			raise(SIGKILL);
		}
		epr_world_make(&epr_wd, p->n, 4 * p->n, 79, EPR_RANDOM);
		if (!st)
			st = epr_prepare(p);
		if (!st)
			st = epr_dispatch(p, ep, lo, p->recv);
		if (!st)
			st = m890_comm_synchronize(p->comm, p->str);
		snprintf(want, sizeof(want), "rank %d", p->n - 1);
		/* Through the switch, the dead peer's exports are revoked:
		 * a write to it may fail (a fault, or an unreachable peer
		 * across VMs) before the wait times out. */
		if ((st == M890_ERROR_TIMEOUT || st == M890_ERROR_DEVICE_FAULT ||
		     st == M890_ERROR_DEVICE_ERROR) &&
		    strstr(m890_get_last_error(), want))
			ok |= 1u << EPR_KILLED;
		printf("# rank %d, peer killed: %s: %s\n", p->rank[0],
		       m890_status_string(st), m890_get_last_error());
		m890_comm_abort(p->comm);
		/*
		 * Keep this rank's exports until every survivor has failed: a
		 * survivor that tore down at once would fault the slower ones'
		 * writes into its areas, and they would name it instead of the
		 * killed rank.  The survivors entered the dispatch at about the
		 * same time, so one communicator timeout after this rank's own
		 * failure outlasts them all.
		 */
		if (p->timeout_ns) {
			struct timespec ts = {
				.tv_sec = (time_t)(p->timeout_ns / 1000000000ull),
				.tv_nsec = (long)(p->timeout_ns % 1000000000ull),
			};

			nanosleep(&ts, NULL);
		}
		for (int l = 0; l < p->m; l++)
			m890_stream_synchronize(p->str[l]);
		epr_ep_free(ep, lo);
	}
	if (m890_comm_destroy(p->comm) == M890_SUCCESS)
		ok |= 1u << EPR_TEARDOWN;
	else
		printf("# teardown: %s\n", m890_get_last_error());
	epr_teardown_buffers(p);
	return ok;
}

/* What the child of card @l runs in epr_fork(): its epr_check mask. */
typedef unsigned int (*epr_child_fn)(int l, int fd, void *arg);

/*
 * Fork a process for each card 0 .. @m - 1 of this machine, holding rank
 * @rank[l] of @n, running @fn (which calls epr_run() with a kill), and
 * print one TAP line per check and rank, named after @where.  The
 * process of rank n - 1 must die of SIGKILL, the others exit 0.
 */
static void epr_fork(int m, int n, const int *rank, const char *where,
		     epr_child_fn fn, void *arg)
{
	pid_t pid[EPR_MAXN];
	int fdp[EPR_MAXN][2];

	fflush(stdout);
	for (int l = 0; l < m; l++) {
		if (pipe(fdp[l]))
			exit(1);
		pid[l] = fork();
		if (pid[l] == 0) {
			unsigned int ok;

			close(fdp[l][0]);
			alarm(600);	/* never hang the suite */
			ok = fn(l, fdp[l][1], arg);
			if (write(fdp[l][1], &ok, sizeof(ok)) != sizeof(ok))
				_exit(2);
			fflush(stdout);
			_exit(0);
		}
		close(fdp[l][1]);
	}
	for (int l = 0; l < m; l++) {
		unsigned int ok = 0;
		int status = 0, killed = rank[l] == n - 1;
		ssize_t got = read(fdp[l][0], &ok, sizeof(ok));

		waitpid(pid[l], &status, 0);
		close(fdp[l][0]);
		if (got != sizeof(ok))
			ok = 0;
		if (killed ? !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL :
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ok &= ~(1u << EPR_TEARDOWN);
		for (int k = 0; k < EPR_NCHECK; k++)
			tap_ok(ok >> k & 1, "%s, rank %d of %d in its own process: %s%s",
			       where, rank[l], n, epr_check_name[k],
			       killed && k == EPR_KILLED ? " (this rank was killed)" : "");
	}
}

#endif /* M890_TEST_EP_RANKS_H */
