// SPDX-License-Identifier: MIT
/*
 * DOC: global checks of all-to-all(v) and grouped send/recv
 *
 * Each rank of a collective contributes a record (its local checks'
 * outcome, its rows or operations, the sizes of its buffers) through
 * m890_comm_allgather_host(); every process then runs the checks below
 * on the same n records, so every rank fails the same way, with the same
 * message, before anything is enqueued.  The checks look at the records
 * only, never at what the calling process passed.  No device code: the
 * host unit test runs them directly.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

size_t m890_a2a_rec_bytes(int n)
{
	return sizeof(struct m890_a2a_rec) + 4 * sizeof(uint64_t) * (size_t)n;
}

struct m890_a2a_rec *m890_a2a_rec_at(const void *recs, int n, int j)
{
	return (struct m890_a2a_rec *)((const char *)recs + (size_t)j * m890_a2a_rec_bytes(n));
}

/* Rank @j's record said its local checks failed: the same for everyone. */
static m890_status_t rank_failed(const char *what, int j, int32_t status,
				 const char *rmsg, char *msg, size_t len)
{
	snprintf(msg, len, "%s: rank %d refused the call: %.*s", what, j,
		 (int)M890_COLL_MSG, rmsg);
	return status > 0 && status < M890_STATUS_COUNT ?
	       (m890_status_t)status : M890_ERROR_INVALID_ARGUMENT;
}

m890_status_t m890_a2a_check(int n, const void *recs, const char *what,
			     char *msg, size_t len)
{
	const struct m890_a2a_rec *r0 = m890_a2a_rec_at(recs, n, 0);

	for (int j = 0; j < n; j++) {
		const struct m890_a2a_rec *r = m890_a2a_rec_at(recs, n, j);

		if (r->status)
			return rank_failed(what, j, r->status, r->msg, msg, len);
	}
	for (int j = 1; j < n; j++) {
		const struct m890_a2a_rec *r = m890_a2a_rec_at(recs, n, j);

		if (r->per_peer != r0->per_peer) {
			snprintf(msg, len, "%s: rank 0 passes %" PRIu64 " bytes per peer, rank %d %" PRIu64 ": every rank must pass the same size",
				 what, r0->per_peer, j, r->per_peer);
			return M890_ERROR_INVALID_ARGUMENT;
		}
	}
	for (int i = 0; i < n; i++) {
		const struct m890_a2a_rec *ri = m890_a2a_rec_at(recs, n, i);

		for (int j = 0; j < n; j++) {
			const struct m890_a2a_rec *rj = m890_a2a_rec_at(recs, n, j);
			uint64_t s = ri->rows[j], so = ri->rows[n + j];
			uint64_t r = rj->rows[2 * n + i], ro = rj->rows[3 * n + i];

			if (s != r) {
				snprintf(msg, len, "%s: rank %d sends %" PRIu64 " bytes to rank %d, which expects %" PRIu64,
					 what, i, s, j, r);
				return M890_ERROR_INVALID_ARGUMENT;
			}
			if (so > ri->send_bytes || s > ri->send_bytes - so) {
				snprintf(msg, len, "%s: rank %d's block for rank %d (%" PRIu64 " bytes at %" PRIu64 ") is past its %" PRIu64 "-byte send buffer",
					 what, i, j, s, so, ri->send_bytes);
				return M890_ERROR_INVALID_ARGUMENT;
			}
			if (ro > rj->recv_bytes || r > rj->recv_bytes - ro) {
				snprintf(msg, len, "%s: rank %d's slot for rank %d (%" PRIu64 " bytes at %" PRIu64 ") is past its %" PRIu64 "-byte receive buffer",
					 what, j, i, r, ro, rj->recv_bytes);
				return M890_ERROR_INVALID_ARGUMENT;
			}
		}
	}
	/* Like group send/recv: no two receive blocks of a rank overlap. */
	for (int j = 0; j < n; j++) {
		const struct m890_a2a_rec *rj = m890_a2a_rec_at(recs, n, j);

		for (int a = 0; a < n; a++) {
			uint64_t ca = rj->rows[2 * n + a], oa = rj->rows[3 * n + a];

			for (int b = a + 1; b < n && ca; b++) {
				uint64_t cb = rj->rows[2 * n + b], ob = rj->rows[3 * n + b];

				/* Both in the buffer (checked above): no wrap. */
				if (!cb || oa >= ob + cb || ob >= oa + ca)
					continue;
				snprintf(msg, len, "%s: rank %d's slots for rank %d (%" PRIu64 " bytes at %" PRIu64 ") and rank %d (%" PRIu64 " bytes at %" PRIu64 ") overlap; receive blocks must be disjoint",
					 what, j, a, ca, oa, b, cb, ob);
				return M890_ERROR_INVALID_ARGUMENT;
			}
		}
	}
	if (len)
		msg[0] = 0;
	return M890_SUCCESS;
}

m890_status_t m890_group_check_heads(int n, const struct m890_group_head *heads,
				     const char *what, uint64_t *max_ops,
				     char *msg, size_t len)
{
	uint64_t max = 0;

	for (int j = 0; j < n; j++) {
		if (heads[j].status)
			return rank_failed(what, j, heads[j].status, heads[j].msg,
					   msg, len);
		if (heads[j].count > max)
			max = heads[j].count;
	}
	*max_ops = max;
	if (len)
		msg[0] = 0;
	return M890_SUCCESS;
}

/*
 * The @k-th operation of rank @j of @kind with peer @peer, from the
 * @count operations at @ops; NULL if there are not that many.
 */
static const struct m890_p2p_rec *nth_op(const struct m890_p2p_rec *ops,
					 uint64_t count, uint32_t kind,
					 int peer, uint64_t k)
{
	for (uint64_t x = 0; x < count; x++)
		if (ops[x].kind == kind && ops[x].peer == peer && !k--)
			return &ops[x];
	return NULL;
}

const struct m890_p2p_rec *m890_group_match(int n,
					    const struct m890_group_head *heads,
					    const struct m890_p2p_rec *ops,
					    uint64_t max_ops, int i, int j,
					    uint64_t k)
{
	(void)n;
	return nth_op(ops + (size_t)j * max_ops, heads[j].count, M890_P2P_RECV,
		      i, k);
}

m890_status_t m890_group_check(int n, const struct m890_group_head *heads,
			       const struct m890_p2p_rec *ops, uint64_t max_ops,
			       const char *what, char *msg, size_t len)
{
	for (int i = 0; i < n; i++) {
		const struct m890_p2p_rec *oi = ops + (size_t)i * max_ops;

		for (uint64_t x = 0; x < heads[i].count; x++)
			if ((oi[x].kind != M890_P2P_SEND && oi[x].kind != M890_P2P_RECV) ||
			    oi[x].peer < 0 || oi[x].peer >= n) {
				snprintf(msg, len, "%s: rank %d's operation %" PRIu64 " has kind %u, peer %d",
					 what, i, x, oi[x].kind, oi[x].peer);
				return M890_ERROR_INVALID_ARGUMENT;
			}
	}
	/* Pair (i, j) is "i sends to j": i's sends to j, j's receives from i. */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			const struct m890_p2p_rec *oi = ops + (size_t)i * max_ops;
			const struct m890_p2p_rec *oj = ops + (size_t)j * max_ops;
			uint64_t ns = 0, nr = 0;

			for (uint64_t x = 0; x < heads[i].count; x++)
				ns += oi[x].kind == M890_P2P_SEND && oi[x].peer == j;
			for (uint64_t x = 0; x < heads[j].count; x++)
				nr += oj[x].kind == M890_P2P_RECV && oj[x].peer == i;
			if (ns != nr) {
				snprintf(msg, len, "%s: rank %d posts %" PRIu64 " send(s) to rank %d, which posts %" PRIu64 " receive(s) from it",
					 what, i, ns, j, nr);
				return M890_ERROR_INVALID_ARGUMENT;
			}
			for (uint64_t k = 0; k < ns; k++) {
				const struct m890_p2p_rec *s = nth_op(oi, heads[i].count,
								      M890_P2P_SEND, j, k);
				const struct m890_p2p_rec *r = nth_op(oj, heads[j].count,
								      M890_P2P_RECV, i, k);

				if (s->bytes != r->bytes) {
					snprintf(msg, len, "%s: transfer %" PRIu64 " from rank %d to rank %d: %" PRIu64 " bytes sent, %" PRIu64 " expected",
						 what, k, i, j, s->bytes, r->bytes);
					return M890_ERROR_INVALID_ARGUMENT;
				}
			}
		}
	if (len)
		msg[0] = 0;
	return M890_SUCCESS;
}

/* ---- device collectives (dcoll.c) ---- */

m890_status_t m890_dcoll_check(int n, const struct m890_dcoll_rec *all,
			       bool reduction, const char *what, char *msg,
			       size_t len)
{
	const struct m890_dcoll_rec *a = &all[0];

	for (int j = 0; j < n; j++)
		if (all[j].status) {
			snprintf(msg, len, "%s: rank %d refused the call: %s",
				 what, j, all[j].msg);
			return (m890_status_t)all[j].status;
		}
	for (int j = 1; j < n; j++) {
		const struct m890_dcoll_rec *b = &all[j];

		if (b->kind != a->kind || b->count != a->count ||
		    b->type != a->type || b->op != a->op ||
		    b->root != a->root || b->algo != a->algo) {
			snprintf(msg, len,
				 "%s: rank 0 passes count %llu, type %u, op %u, root %d, algorithm %u; rank %d passes %llu, %u, %u, %d, %u",
				 what, (unsigned long long)a->count, a->type,
				 a->op, a->root, a->algo, j,
				 (unsigned long long)b->count, b->type, b->op,
				 b->root, b->algo);
			return M890_ERROR_INVALID_ARGUMENT;
		}
		if (reduction && b->scratch_index != a->scratch_index) {
			snprintf(msg, len,
				 "%s: rank 0 and rank %d registered different numbers of buffers (%u, %u) before the communicator's first reduction",
				 what, j, a->scratch_index, b->scratch_index);
			return M890_ERROR_INVALID_ARGUMENT;
		}
	}
	return M890_SUCCESS;
}

/* ---- groups (group.c) ---- */

m890_status_t m890_group_sum_check(int n, const struct m890_group_sum *all,
				   char *msg, size_t len)
{
	const struct m890_group_sum *a = &all[0];

	for (int j = 0; j < n; j++)
		if (all[j].status) {
			snprintf(msg, len, "group: rank %d refused the group: %s",
				 j, all[j].msg);
			return (m890_status_t)all[j].status;
		}
	for (int j = 1; j < n; j++) {
		const struct m890_group_sum *b = &all[j];

		if (b->ncalls != a->ncalls) {
			snprintf(msg, len,
				 "group: rank 0 makes %u calls on the communicator, rank %d makes %u",
				 a->ncalls, j, b->ncalls);
			return M890_ERROR_INVALID_ARGUMENT;
		}
		for (unsigned int k = 0; k < a->ncalls; k++)
			if (strncmp(a->call[k].what, b->call[k].what, M890_META_WHAT) ||
			    a->call[k].bytes != b->call[k].bytes) {
				snprintf(msg, len,
					 "group: call %u is %.24s (%llu-byte records) at rank 0, %.24s (%llu) at rank %d",
					 k, a->call[k].what,
					 (unsigned long long)a->call[k].bytes,
					 b->call[k].what,
					 (unsigned long long)b->call[k].bytes, j);
				return M890_ERROR_INVALID_ARGUMENT;
			}
	}
	return M890_SUCCESS;
}
