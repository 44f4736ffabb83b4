/* SPDX-License-Identifier: MIT */
/*
 * Collective checks shared by the per-rank communicator tests
 * (test_mproc.c: one process per card through a socket; test_fabric_comm.c:
 * through the switch, in one VM or across VMs; test_rankstress.c).  A process holds m of the
 * n ranks (struct cc_rank each, in local order) and calls the same
 * functions as every other process at the same time:
 *
 * - cc_a2a_rank(): one rank's all-to-all, every received byte checked;
 * - cc_alltoallv(): uneven counts, zero counts, gaps between blocks, every
 *   received byte and every byte between blocks checked against a host
 *   reference;
 * - cc_group(): a grouped send/recv batch (two transfers to the next
 *   rank, one to itself, a zero-byte one to the previous), checked the
 *   same way;
 * - cc_refusals(): mismatches that every rank must refuse with the same
 *   message (another bytes_per_peer at rank 0, a count rank 1 does not
 *   expect, a send rank 1 does not receive, a 2^32 + 64 displacement,
 *   and, when another process holds rank n - 1, another collective
 *   there), then an all-to-all that must work, in step.
 *
 * Each returns a bit per check; messages of failures go to stdout as TAP
 * comments.
 */
#ifndef M890_COLL_CHECKS_H
#define M890_COLL_CHECKS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <m890.h>

#define CC_MAXN 64
#define CC_POISON 0xee

/* One local rank: its card, stream, buffers of cc.bytes (hb twice that). */
struct cc_rank {
	int rank;
	m890_device_t dev;
	m890_stream_t str;
	m890_buffer_t sb, rb, hb;
	uint8_t *hp;
};

struct cc {
	m890_comm_t comm;
	int n, m;
	uint64_t bytes;
	struct cc_rank *r;	/* [m] */
};

static inline uint8_t cc_pat(int from, int to, uint64_t off, int round)
{
	return (uint8_t)(from * 37 + to * 11 + off * 3 + (off >> 10) + round * 71 + 5);
}

/*
 * One rank's all-to-all of @b bytes per peer on @comm (one local rank):
 * cc_pat() blocks from @r's send buffer into @rb, through @r's host
 * buffer (n * @b bytes of each), every received byte checked.  Returns 1
 * if right; a failure's message goes to stdout as a TAP comment.
 */
static inline int cc_a2a_rank(const struct cc_rank *r, m890_comm_t comm, int n,
			      m890_buffer_t rb, uint64_t b, int round)
{
	m890_stream_t str = r->str;
	uint64_t wrong = 0;

	for (int j = 0; j < n; j++)
		for (uint64_t o = 0; o < b; o++)
			r->hp[j * b + o] = cc_pat(r->rank, j, o, round);
	if (m890_memcpy_htod(str, r->sb, 0, r->hb, 0, b * n) ||
	    m890_alltoall_rank(comm, r->sb, rb, b, str) ||
	    m890_comm_synchronize(comm, &str) ||
	    m890_memcpy_dtoh(str, r->hb, 0, rb, 0, b * n) ||
	    m890_stream_synchronize(str)) {
		printf("# rank %d round %d: %s\n", r->rank, round, m890_get_last_error());
		return 0;
	}
	for (int i = 0; i < n; i++)
		for (uint64_t o = 0; o < b; o++)
			wrong += r->hp[i * b + o] != cc_pat(i, r->rank, o, round);
	if (wrong)
		printf("# rank %d round %d: %llu wrong bytes\n", r->rank, round,
		       (unsigned long long)wrong);
	return !wrong;
}

/* alltoallv: bytes from i to j (0 for a third of the pairs). */
static inline uint64_t cc_cnt(int i, int j)
{
	return (i + j) % 3 == 0 ? 0 : 1 + (uint64_t)((i * 131 + j * 37) % 4000);
}

/* Offset of i's block for j in i's send buffer (8-byte gaps). */
static inline uint64_t cc_sd(int i, int j)
{
	uint64_t o = 8;

	for (int k = 0; k < j; k++)
		o += cc_cnt(i, k) + 8;
	return o;
}

/* Offset of i's block in j's receive buffer (24-byte gaps, reverse). */
static inline uint64_t cc_rd(int j, int i, int n)
{
	uint64_t o = 24;

	for (int k = n - 1; k > i; k--)
		o += cc_cnt(k, j) + 24;
	return o;
}

/* Send buffers from hp[0, bytes), receive buffers poisoned from the rest. */
static inline int cc_stage(struct cc *c)
{
	for (int l = 0; l < c->m; l++) {
		struct cc_rank *r = &c->r[l];

		memset(r->hp + c->bytes, CC_POISON, c->bytes);
		if (m890_memcpy_htod(r->str, r->sb, 0, r->hb, 0, c->bytes) ||
		    m890_memcpy_htod(r->str, r->rb, 0, r->hb, c->bytes, c->bytes))
			return 0;
	}
	return 1;
}

/* Received buffers back into hp[bytes, 2 bytes). */
static inline int cc_fetch(struct cc *c)
{
	m890_stream_t ss[CC_MAXN];

	for (int l = 0; l < c->m; l++)
		ss[l] = c->r[l].str;
	if (m890_comm_synchronize(c->comm, ss))
		return 0;
	for (int l = 0; l < c->m; l++) {
		struct cc_rank *r = &c->r[l];

		if (m890_memcpy_dtoh(r->str, r->hb, c->bytes, r->rb, 0, c->bytes) ||
		    m890_stream_synchronize(r->str))
			return 0;
	}
	return 1;
}

static inline void cc_arrays(struct cc *c, m890_buffer_t *sb, m890_buffer_t *rb,
			     m890_stream_t *ss)
{
	for (int l = 0; l < c->m; l++) {
		sb[l] = c->r[l].sb;
		rb[l] = c->r[l].rb;
		ss[l] = c->r[l].str;
	}
}

static inline int cc_alltoallv(struct cc *c, int round)
{
	static uint64_t v[4][CC_MAXN * CC_MAXN];
	m890_buffer_t sb[CC_MAXN], rb[CC_MAXN];
	m890_stream_t ss[CC_MAXN];
	uint64_t wrong = 0;
	int n = c->n;

	for (int l = 0; l < c->m; l++) {
		int i = c->r[l].rank;

		for (uint64_t o = 0; o < c->bytes; o++)
			c->r[l].hp[o] = CC_POISON;
		for (int j = 0; j < n; j++) {
			v[0][l * n + j] = cc_cnt(i, j);
			v[1][l * n + j] = cc_sd(i, j);
			v[2][l * n + j] = cc_cnt(j, i);
			v[3][l * n + j] = cc_rd(i, j, n);
			for (uint64_t o = 0; o < cc_cnt(i, j); o++)
				c->r[l].hp[cc_sd(i, j) + o] = cc_pat(i, j, o, round);
		}
	}
	cc_arrays(c, sb, rb, ss);
	if (!cc_stage(c) ||
	    m890_alltoallv(c->comm, sb, v[0], v[1], rb, v[2], v[3], ss) ||
	    !cc_fetch(c)) {
		printf("# alltoallv round %d: %s\n", round, m890_get_last_error());
		return 0;
	}
	for (int l = 0; l < c->m; l++) {
		int me = c->r[l].rank;
		const uint8_t *got = c->r[l].hp + c->bytes;
		/* The reference: each peer's block in its slot, poison around. */
		uint8_t *ref = c->r[l].hp;

		memset(ref, CC_POISON, c->bytes);
		for (int i = 0; i < n; i++)
			for (uint64_t o = 0; o < cc_cnt(i, me); o++)
				ref[cc_rd(me, i, n) + o] = cc_pat(i, me, o, round);
		for (uint64_t o = 0; o < c->bytes; o++)
			wrong += got[o] != ref[o];
	}
	if (wrong)
		printf("# alltoallv round %d: %llu wrong bytes\n", round,
		       (unsigned long long)wrong);
	return !wrong;
}

/* The operations of rank i (appended at @ops[*k]). */
static inline void cc_group_ops(int i, int n, m890_buffer_t sb, m890_buffer_t rb,
				struct m890_p2p *ops, size_t *k)
{
	int next = (i + 1) % n, prev = (i + n - 1) % n;
	const struct m890_p2p o[] = {
		{ M890_P2P_SEND, i, next, 0, sb, 0, 1000 + 10 * (uint64_t)i },
		{ M890_P2P_SEND, i, next, 0, sb, 5000, 33 },
		{ M890_P2P_RECV, i, prev, 0, rb, 100, 1000 + 10 * (uint64_t)prev },
		{ M890_P2P_RECV, i, prev, 0, rb, 3000, 33 },
		{ M890_P2P_SEND, i, i, 0, sb, 8000, 100 },
		{ M890_P2P_RECV, i, i, 0, rb, 6000, 100 },
		{ M890_P2P_SEND, i, prev, 0, sb, 0, 0 },
		{ M890_P2P_RECV, i, next, 0, rb, 0, 0 },
	};

	for (size_t x = 0; x < sizeof(o) / sizeof(o[0]); x++)
		ops[(*k)++] = o[x];
}

static inline int cc_group(struct cc *c, int round)
{
	static struct m890_p2p ops[8 * CC_MAXN];
	m890_stream_t ss[CC_MAXN];
	m890_buffer_t sb[CC_MAXN], rb[CC_MAXN];
	uint64_t wrong = 0;
	size_t k = 0;
	int n = c->n;

	cc_arrays(c, sb, rb, ss);
	for (int l = 0; l < c->m; l++) {
		for (uint64_t o = 0; o < c->bytes; o++)
			c->r[l].hp[o] = cc_pat(c->r[l].rank, 0xff, o, round);
		cc_group_ops(c->r[l].rank, n, sb[l], rb[l], ops, &k);
	}
	if (!cc_stage(c) || m890_group_sendrecv(c->comm, ops, k, ss) || !cc_fetch(c)) {
		printf("# group round %d: %s\n", round, m890_get_last_error());
		return 0;
	}
	for (int l = 0; l < c->m; l++) {
		int i = c->r[l].rank, prev = (i + n - 1) % n;
		const uint8_t *got = c->r[l].hp + c->bytes;

		for (uint64_t o = 0; o < c->bytes; o++) {
			uint8_t want = CC_POISON;

			if (o >= 100 && o < 100 + 1000 + 10 * (uint64_t)prev)
				want = cc_pat(prev, 0xff, o - 100, round);
			else if (o >= 3000 && o < 3033)
				want = cc_pat(prev, 0xff, 5000 + o - 3000, round);
			else if (o >= 6000 && o < 6100)
				want = cc_pat(i, 0xff, 8000 + o - 6000, round);
			wrong += got[o] != want;
		}
	}
	if (wrong)
		printf("# group round %d: %llu wrong bytes\n", round,
		       (unsigned long long)wrong);
	return !wrong;
}

/* @st must be @want with @text in the message. */
static inline int cc_expect(m890_status_t st, m890_status_t want, const char *text,
			    const char *what)
{
	int good = st == want && strstr(m890_get_last_error(), text);

	if (!good)
		printf("# %s: %s: %s (wanted \"%s\")\n", what, m890_status_string(st),
		       m890_get_last_error(), text);
	return good;
}

/* Uniform all-to-all rows of @b bytes per peer, for the local ranks. */
static inline void cc_uniform(struct cc *c, uint64_t (*v)[CC_MAXN * CC_MAXN], uint64_t b)
{
	for (int l = 0; l < c->m; l++)
		for (int j = 0; j < c->n; j++) {
			v[0][l * c->n + j] = v[2][l * c->n + j] = b;
			v[1][l * c->n + j] = v[3][l * c->n + j] = (uint64_t)j * b;
		}
}

/*
 * The refused calls, bits: 0 another bytes_per_peer at rank 0, 1 a count
 * not expected, 2 an unmatched send, 3 a 2^32 + 64 displacement, 4
 * another collective at rank n - 1, 5 an all-to-all after them, checked.
 * Checks 0 and 4 need another process to disagree with: when this
 * process holds every rank they are skipped (counted as passed).  The
 * messages depend only on what every rank passed, so every rank looks
 * for the same text.
 */
static inline unsigned int cc_refusals(struct cc *c, int round)
{
	static uint64_t v[4][CC_MAXN * CC_MAXN];
	static struct m890_p2p ops[8 * CC_MAXN + 1];
	m890_buffer_t sb[CC_MAXN], rb[CC_MAXN];
	m890_stream_t ss[CC_MAXN];
	unsigned int ok = 0;
	int n = c->n, l0 = -1, l1 = -1, last = 0;
	size_t k = 0;

	cc_arrays(c, sb, rb, ss);
	for (int l = 0; l < c->m; l++) {
		l0 = c->r[l].rank == 0 ? l : l0;
		l1 = c->r[l].rank == 1 ? l : l1;
		last |= c->r[l].rank == n - 1;
	}
	/* Rank 0's process passes 64 bytes per peer, the others 128. */
	if (c->m == n)
		ok |= 1u << 0;
	else
		ok |= (unsigned int)cc_expect(m890_alltoall(c->comm, sb, rb,
							    l0 >= 0 ? 64 : 128, ss),
					      M890_ERROR_INVALID_ARGUMENT,
					      "rank 0 passes 64 bytes per peer, rank",
					      "another bytes_per_peer") << 0;
	/* Rank 1 expects 65 bytes from rank 0. */
	cc_uniform(c, v, 64);
	if (l1 >= 0)
		v[2][l1 * n + 0] = 65;
	ok |= (unsigned int)cc_expect(m890_alltoallv(c->comm, sb, v[0], v[1], rb, v[2], v[3], ss),
				      M890_ERROR_INVALID_ARGUMENT,
				      "rank 0 sends 64 bytes to rank 1, which expects 65",
				      "count mismatch") << 1;
	/* Rank 0 sends rank 1 one more transfer than rank 1 receives. */
	for (int l = 0; l < c->m; l++)
		cc_group_ops(c->r[l].rank, n, sb[l], rb[l], ops, &k);
	if (l0 >= 0)
		ops[k++] = (struct m890_p2p){ M890_P2P_SEND, 0, 1, 0, sb[l0], 9000, 8 };
	ok |= (unsigned int)cc_expect(m890_group_sendrecv(c->comm, ops, k, ss),
				      M890_ERROR_INVALID_ARGUMENT,
				      n == 2 ? "rank 0 posts 4 send(s) to rank 1, which posts 3 receive(s)" :
				      "rank 0 posts 3 send(s) to rank 1, which posts 2 receive(s)",
				      "unmatched send") << 2;
	/* A 64-bit displacement past rank 0's send buffer. */
	cc_uniform(c, v, 64);
	if (l0 >= 0)
		v[1][l0 * n + 1] = (1ull << 32) + 64;
	ok |= (unsigned int)cc_expect(m890_alltoallv(c->comm, sb, v[0], v[1], rb, v[2], v[3], ss),
				      M890_ERROR_INVALID_ARGUMENT,
				      "rank 0's block for rank 1 (64 bytes at 4294967360) is past its",
				      "displacement 2^32 + 64") << 3;
	/* The process of rank n - 1 calls another collective. */
	if (c->m == n) {
		ok |= 1u << 4;
	} else {
		m890_status_t st = last ? m890_group_sendrecv(c->comm, NULL, 0, ss) :
				   m890_alltoall(c->comm, sb, rb, 64, ss);

		ok |= (unsigned int)cc_expect(st, M890_ERROR_INVALID_ARGUMENT,
					      "called different collectives",
					      "another collective") << 4;
	}
	/* Still in step: a uniform all-to-all, checked. */
	cc_uniform(c, v, 64);
	for (int l = 0; l < c->m; l++)
		for (int j = 0; j < n; j++)
			for (uint64_t o = 0; o < 64; o++)
				c->r[l].hp[j * 64 + o] = cc_pat(c->r[l].rank, j, o, round);
	if (cc_stage(c) && !m890_alltoall(c->comm, sb, rb, 64, ss) && cc_fetch(c)) {
		uint64_t wrong = 0;

		for (int l = 0; l < c->m; l++)
			for (int i = 0; i < n; i++)
				for (uint64_t o = 0; o < 64; o++)
					wrong += c->r[l].hp[c->bytes + i * 64 + o] !=
						 cc_pat(i, c->r[l].rank, o, round);
		ok |= (unsigned int)!wrong << 5;
	} else {
		printf("# all-to-all after the refusals: %s\n", m890_get_last_error());
	}
	return ok;
}

#endif /* M890_COLL_CHECKS_H */
