// SPDX-License-Identifier: MIT
/*
 * DOC: all-to-all(v) and grouped send/recv on every kind of communicator
 *
 * One code path for the three kinds of communicator.  The arrays a
 * caller passes have one entry (or row) per rank of this process, in
 * local order: every rank for m890_comm_create(), one for
 * m890_comm_create_rank(), the fabric config's devices for
 * m890_comm_create_fabric().  Each call runs in three steps:
 *
 * 1. Local checks of each local rank's handles, buffers, streams and
 *    operations.  A failure does not return: it goes into the rank's
 *    record, so that the peers learn of it and fail the same way.
 * 2. The records (rows of counts and displacements, buffer sizes, the
 *    receive buffer's registration number, or the operations of a
 *    grouped batch) go to every process through
 *    m890_comm_allgather_host() (a plain copy when every rank is local,
 *    through the cards otherwise), and every process runs the global
 *    checks of coll_check.c on the same records: every rank fails with
 *    the same status and message, naming the ranks, and nothing is
 *    enqueued anywhere.
 * 3. Each local rank resolves where its blocks go -- a window on the
 *    peer's buffer object (one process) or on the peer's registered
 *    buffer of the number its record gave (per-rank communicators) -- and
 *    m890_comm_exchange() enqueues the transfers with the peers'
 *    displacements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One transfer of a local rank: @bytes from @src to @dst, VAs on its card. */
struct xfer {
	uint64_t dst, src, bytes;
};

/* Transfers by pair (i, j): x[first[i * n + j] .. first[i * n + j + 1]). */
struct xfer_list {
	struct m890_comm *c;
	int n;
	size_t *first;
	struct xfer *x;
};

static m890_status_t list_xfer(void *ctx, int i, int j, struct m890_stream *s)
{
	struct xfer_list *xl = ctx;
	size_t p = (size_t)i * xl->n + j;
	m890_status_t st = M890_SUCCESS;

	for (size_t k = xl->first[p]; k < xl->first[p + 1] && !st; k++)
		if (xl->x[k].bytes)
			st = m890_comm_copy(xl->c, s, xl->x[k].dst, xl->x[k].src,
					    xl->x[k].bytes);
	return st;
}

/*
 * Record the failure of a local check (the last error, without its
 * "@what: " prefix, which the peers' message repeats) in @status/@msg.
 */
void m890_coll_refuse(m890_status_t st, const char *what, int32_t *status, char *msg)
{
	const char *d = m890_last_detail();
	size_t w = strlen(what);

	if (*status)
		return;
	if (!strncmp(d, what, w) && d[w] == ':' && d[w + 1] == ' ')
		d += w + 2;
	*status = st;
	snprintf(msg, M890_COLL_MSG, "%s", d);
}

m890_status_t m890_coll_check_stream(struct m890_comm *c, int i,
				  struct m890_stream *s, const char *what)
{
	struct m890_device *dev = m890_comm_rank_device(c, i);
	m890_status_t st = m890_check(s, M890_OBJ_STREAM, "stream");

	if (st)
		return st;
	if (s->dev != dev)
		return m890_fail(M890_ERROR_DEVICE_MISMATCH,
				 "%s: rank %d's stream is on %s, not on %s",
				 what, i, s->dev->node, dev->node);
	if (s->async_error)
		return m890_fail(s->async_error, "%s: rank %d's stream failed: %s",
				 what, i, s->async_msg);
	return M890_SUCCESS;
}

m890_status_t m890_coll_check_buf(struct m890_comm *c, int i, struct m890_buffer *b,
			       const char *what, const char *name)
{
	struct m890_device *dev = m890_comm_rank_device(c, i);
	m890_status_t st = m890_check(b, M890_OBJ_BUFFER, name);

	if (st)
		return st;
	if (b->dev != dev)
		return m890_fail(M890_ERROR_DEVICE_MISMATCH,
				 "%s: rank %d's %s is on %s, not on %s",
				 what, i, name, b->dev->node, dev->node);
	return M890_SUCCESS;
}

/* The exchange of @xl on the local ranks' @streams (local order). */
static m890_status_t run_list(struct m890_comm *c, const m890_stream_t *streams,
			      const char *label, struct xfer_list *xl)
{
	struct m890_stream *gs[M890_COMM_MAX_RANKS] = { 0 };

	for (int l = 0; l < m890_comm_nlocal(c); l++)
		gs[m890_comm_local_rank(c, l)] = streams[l];
	return m890_comm_exchange(c, gs, label, list_xfer, xl);
}

/*
 * Where local rank @i writes into rank @j's receive buffer: @rb_j (a
 * buffer of this process, or NULL) or, on a per-rank communicator, the
 * registration @index.
 */
m890_status_t m890_coll_recv_va(struct m890_comm *c, int i, int j,
			     struct m890_buffer *rb_j, unsigned int index,
			     uint64_t *va)
{
	uint64_t bytes;

	if (!m890_comm_is_per_rank(c))
		return m890_comm_peer_va(c, i, j, rb_j, va);
	if (j == i && rb_j) {
		*va = rb_j->va;
		return M890_SUCCESS;
	}
	return m890_comm_reg_peer(c, i, j, index, va, &bytes);
}

/* ---- all-to-all(v) ---- */

/* Local rank @l's (rank @i's) checks; its record filled. */
static void a2a_local(struct m890_comm *c, int l, const char *what,
		      struct m890_buffer *const *sb,
		      const uint64_t *sc, const uint64_t *sd,
		      struct m890_buffer *const *rb,
		      const uint64_t *rc, const uint64_t *rd,
		      const m890_stream_t *streams, struct m890_a2a_rec *r)
{
	int n = m890_comm_ranks(c), i = m890_comm_local_rank(c, l);
	m890_status_t st;
	unsigned int index = 0;

	if (!sb || !sc || !sd || !rb || !rc || !rd || !streams) {
		m890_coll_refuse(m890_fail(M890_ERROR_INVALID_ARGUMENT, "%s: NULL array", what),
		       what, &r->status, r->msg);
		return;
	}
	memcpy(r->rows, sc + (size_t)l * n, sizeof(uint64_t) * n);
	memcpy(r->rows + n, sd + (size_t)l * n, sizeof(uint64_t) * n);
	memcpy(r->rows + 2 * n, rc + (size_t)l * n, sizeof(uint64_t) * n);
	memcpy(r->rows + 3 * n, rd + (size_t)l * n, sizeof(uint64_t) * n);
	st = m890_coll_check_stream(c, i, streams[l], what);
	if (!st)
		st = m890_coll_check_buf(c, i, sb[l], what, "send buffer");
	if (!st)
		st = m890_coll_check_buf(c, i, rb[l], what, "receive buffer");
	if (!st && sb[l] == rb[l])
		st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
			       "%s: rank %d sends from its receive buffer; in-place all-to-all is not supported",
			       what, i);
	if (!st && n > 1 && !(rb[l]->flags & M890_MEM_HBM))
		st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
			       "%s: rank %d's receive buffer is host memory; peers write it through the fabric, it must be HBM",
			       what, i);
	if (!st && m890_comm_is_per_rank(c))
		st = m890_comm_reg_find(c, i, rb[l], &index);
	if (st) {
		m890_coll_refuse(st, what, &r->status, r->msg);
		return;
	}
	r->recv_index = index;
	r->send_bytes = sb[l]->bytes;
	r->recv_bytes = rb[l]->bytes;
}

/*
 * The all-to-all(v) of every kind: @per_peer is m890_alltoall()'s size
 * (UINT64_MAX for alltoallv), @refusal a local refusal found before the
 * rows (NULL: none), which every local record then carries.
 */
static m890_status_t a2a_run(struct m890_comm *c, const char *what,
			     uint64_t per_peer, const char *refusal,
			     struct m890_buffer *const *sb,
			     const uint64_t *sc, const uint64_t *sd,
			     struct m890_buffer *const *rb,
			     const uint64_t *rc, const uint64_t *rd,
			     const m890_stream_t *streams)
{
	int n = m890_comm_ranks(c), m = m890_comm_nlocal(c);
	size_t rb_bytes = m890_a2a_rec_bytes(n), pairs = (size_t)n * n;
	struct xfer_list xl = { .c = c, .n = n };
	const void *mine[M890_COMM_MAX_RANKS];
	unsigned char *own, *all;
	m890_status_t st;
	char msg[400];

	own = calloc((size_t)m, rb_bytes);
	all = calloc((size_t)n, rb_bytes);
	xl.first = calloc(pairs + 1, sizeof(*xl.first));
	xl.x = calloc(pairs, sizeof(*xl.x));
	if (!own || !all || !xl.first || !xl.x) {
		st = m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "%s: out of memory", what);
		goto out;
	}
	for (int l = 0; l < m; l++) {
		struct m890_a2a_rec *r = m890_a2a_rec_at(own, n, l);

		r->per_peer = per_peer;
		if (refusal) {
			r->status = M890_ERROR_INVALID_ARGUMENT;
			snprintf(r->msg, sizeof(r->msg), "%s", refusal);
		} else {
			a2a_local(c, l, what, sb, sc, sd, rb, rc, rd, streams, r);
		}
		mine[l] = r;
	}
	st = m890_comm_allgather_host(c, what, mine, rb_bytes, all);
	if (st)
		goto out;
	st = m890_a2a_check(n, all, what, msg, sizeof(msg));
	if (st) {
		st = m890_fail(st, "%s", msg);
		goto out;
	}
	if (m890_comm_group_dry(c))
		goto out;
	/* Where each block goes; windows opened now, so a failure enqueues nothing. */
	for (size_t p = 0; p <= pairs; p++)
		xl.first[p] = p;
	for (int l = 0; l < m && !st; l++) {
		int i = m890_comm_local_rank(c, l);
		const struct m890_a2a_rec *ri = m890_a2a_rec_at(all, n, i);

		for (int j = 0; j < n && !st; j++) {
			const struct m890_a2a_rec *rj = m890_a2a_rec_at(all, n, j);
			struct xfer *x = &xl.x[(size_t)i * n + j];
			int lj = m890_comm_local_index(c, j);
			uint64_t va;

			x->bytes = ri->rows[j];
			if (!x->bytes)
				continue;
			st = m890_coll_recv_va(c, i, j, lj >= 0 ? rb[lj] : NULL, rj->recv_index, &va);
			x->dst = va + rj->rows[3 * n + i];
			x->src = sb[l]->va + ri->rows[n + j];
		}
	}
	if (!st)
		st = run_list(c, streams, "all-to-all", &xl);
out:
	free(own);
	free(all);
	free(xl.first);
	free(xl.x);
	return st;
}

M890_EXPORT m890_status_t m890_alltoallv(m890_comm_t c,
					 const m890_buffer_t *sb,
					 const uint64_t *sc, const uint64_t *sd,
					 const m890_buffer_t *rb,
					 const uint64_t *rc, const uint64_t *rd,
					 const m890_stream_t *streams)
{
	M890_API_SCOPE;
	m890_status_t st;

	if (m890_group_active()) {
		struct m890_gcall g = { .kind = M890_G_ALLTOALLV, .c = c, .sb = sb,
					.sc = sc, .sd = sd, .rb = rb, .rc = rc,
					.rd = rd, .streams = streams };

		return m890_group_add(&g);
	}
	st = m890_comm_usable(c);
	if (st)
		return st;
	return a2a_run(c, "alltoallv", UINT64_MAX, NULL, sb, sc, sd, rb, rc, rd,
		       streams);
}

M890_EXPORT m890_status_t m890_alltoall(m890_comm_t c,
					const m890_buffer_t *sendbufs,
					const m890_buffer_t *recvbufs,
					uint64_t bytes_per_peer,
					const m890_stream_t *streams)
{
	M890_API_SCOPE;
	m890_status_t st;
	char refusal[M890_COLL_MSG] = "";
	uint64_t *v;
	size_t rows;
	int n, m;

	if (m890_group_active()) {
		struct m890_gcall g = { .kind = M890_G_ALLTOALL, .c = c,
					.sb = sendbufs, .rb = recvbufs,
					.count = bytes_per_peer, .streams = streams };

		return m890_group_add(&g);
	}
	st = m890_comm_usable(c);
	if (st)
		return st;
	n = m890_comm_ranks(c);
	m = m890_comm_nlocal(c);
	rows = (size_t)m * (size_t)n;
	v = calloc(2 * rows + 1, sizeof(*v));
	if (!v)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "alltoall: out of memory");
	if (bytes_per_peer && (uint64_t)n > UINT64_MAX / bytes_per_peer)
		snprintf(refusal, sizeof(refusal),
			 "alltoall: %llu bytes per peer times %d ranks overflow",
			 (unsigned long long)bytes_per_peer, n);
	else
		for (int l = 0; l < m; l++)
			for (int j = 0; j < n; j++) {
				v[(size_t)l * n + j] = bytes_per_peer;
				v[rows + (size_t)l * n + j] = (uint64_t)j * bytes_per_peer;
			}
	/* Sends and receives share the rows: block j at j * size, both ways. */
	st = a2a_run(c, "alltoall", bytes_per_peer, refusal[0] ? refusal : NULL,
		     sendbufs, v, v + rows, recvbufs, v, v + rows, streams);
	free(v);
	return st;
}

M890_EXPORT m890_status_t m890_alltoall_local(m890_comm_t c,
					      const m890_buffer_t *sendbufs,
					      const m890_buffer_t *recvbufs,
					      uint64_t bytes_per_peer,
					      const m890_stream_t *streams)
{
	M890_API_SCOPE;
	m890_status_t st = m890_comm_usable(c);

	if (st)
		return st;
	if (!m890_comm_is_per_rank(c))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "alltoall_local: every rank is in this process; use m890_alltoall");
	return m890_alltoall(c, sendbufs, recvbufs, bytes_per_peer, streams);
}

M890_EXPORT m890_status_t m890_alltoall_rank(m890_comm_t c,
					     m890_buffer_t sendbuf,
					     m890_buffer_t recvbuf,
					     uint64_t bytes_per_peer,
					     m890_stream_t stream)
{
	M890_API_SCOPE;
	m890_status_t st = m890_comm_usable(c);

	if (st)
		return st;
	if (!m890_comm_is_per_rank(c) || m890_comm_nlocal(c) != 1)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "alltoall_rank: this process has %d of the communicator's %d ranks; use m890_alltoall",
				 m890_comm_nlocal(c), m890_comm_ranks(c));
	return m890_alltoall(c, &sendbuf, &recvbuf, bytes_per_peer, &stream);
}

/* ---- grouped send/recv ---- */

struct p2p_range {
	const struct m890_buffer *buf;
	uint64_t off, end;
	bool recv;
	int rank;
};

static int range_cmp(const void *a, const void *b)
{
	const struct p2p_range *x = a, *y = b;

	if (x->buf != y->buf)
		return (uintptr_t)x->buf < (uintptr_t)y->buf ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/* No receive range may overlap another receive's or a send's. */
static m890_status_t group_overlap(const struct m890_p2p *ops, size_t count)
{
	struct p2p_range *v = calloc(count ? count : 1, sizeof(*v));
	uint64_t any_end = 0, recv_end = 0;
	const struct m890_buffer *cur = NULL;
	m890_status_t st = M890_SUCCESS;
	size_t m = 0;

	if (!v)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "group_sendrecv: out of memory");
	for (size_t k = 0; k < count; k++)
		if (ops[k].bytes)
			v[m++] = (struct p2p_range){ ops[k].buffer, ops[k].offset,
						     ops[k].offset + ops[k].bytes,
						     ops[k].kind == M890_P2P_RECV,
						     ops[k].rank };
	qsort(v, m, sizeof(*v), range_cmp);
	for (size_t k = 0; k < m && !st; k++) {
		if (v[k].buf != cur) {
			cur = v[k].buf;
			any_end = recv_end = 0;
		}
		if (v[k].off < (v[k].recv ? any_end : recv_end))
			st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
				       "group_sendrecv: rank %d's receive range overlaps another transfer's range at offset %llu of the same buffer (in place is not supported)",
				       v[k].rank, (unsigned long long)v[k].off);
		if (v[k].end > any_end)
			any_end = v[k].end;
		if (v[k].recv && v[k].end > recv_end)
			recv_end = v[k].end;
	}
	free(v);
	return st;
}

/* Operation @k alone; its record filled (registration of a receive). */
static m890_status_t group_check_op(struct m890_comm *c,
				    const struct m890_p2p *op, size_t k,
				    struct m890_p2p_rec *rec)
{
	const char *what = op->kind == M890_P2P_RECV ? "receive" : "send";
	int n = m890_comm_ranks(c);
	unsigned int index = 0;
	m890_status_t st;

	if ((op->kind != M890_P2P_SEND && op->kind != M890_P2P_RECV) ||
	    op->reserved || op->rank < 0 || op->rank >= n || op->peer < 0 ||
	    op->peer >= n)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "group_sendrecv: operation %zu: kind %u, rank %d, peer %d or reserved field invalid",
				 k, op->kind, op->rank, op->peer);
	if (m890_comm_local_index(c, op->rank) < 0)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "group_sendrecv: operation %zu is rank %d's, which is not in this process",
				 k, op->rank);
	st = m890_coll_check_buf(c, op->rank, op->buffer, "group_sendrecv",
		       op->kind == M890_P2P_RECV ? "receive buffer" : "send buffer");
	if (st)
		return st;
	if (op->offset > op->buffer->bytes ||
	    op->bytes > op->buffer->bytes - op->offset)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "group_sendrecv: rank %d's %s of %llu bytes at %llu is past its %llu-byte buffer",
				 op->rank, what, (unsigned long long)op->bytes,
				 (unsigned long long)op->offset,
				 (unsigned long long)op->buffer->bytes);
	if (op->kind == M890_P2P_RECV && op->peer != op->rank &&
	    !(op->buffer->flags & M890_MEM_HBM))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "group_sendrecv: rank %d receives from rank %d into host memory; peers write through the fabric, it must be HBM",
				 op->rank, op->peer);
	if (op->kind == M890_P2P_RECV && op->peer != op->rank &&
	    m890_comm_is_per_rank(c)) {
		st = m890_comm_reg_find(c, op->rank, op->buffer, &index);
		if (st)
			return st;
	}
	rec->kind = op->kind;
	rec->peer = op->peer;
	rec->recv_index = index;
	rec->offset = op->offset;
	rec->bytes = op->bytes;
	return M890_SUCCESS;
}

/* The @k-th local operation of rank @i of @kind with @peer, or NULL. */
static const struct m890_p2p *local_op(const struct m890_p2p *ops, size_t count,
				       int i, uint32_t kind, int peer, uint64_t k)
{
	for (size_t x = 0; x < count; x++)
		if (ops[x].rank == i && ops[x].kind == kind && ops[x].peer == peer &&
		    !k--)
			return &ops[x];
	return NULL;
}

/* Transfers of the local senders, matched; windows opened. */
static m890_status_t group_xfers(struct m890_comm *c, const struct m890_p2p *ops,
				 size_t count, const struct m890_group_head *heads,
				 const struct m890_p2p_rec *all, uint64_t max_ops,
				 struct xfer_list *xl)
{
	int n = m890_comm_ranks(c);
	size_t p, total = 0;

	for (size_t k = 0; k < count; k++)
		if (ops[k].kind == M890_P2P_SEND)
			total++;
	xl->x = calloc(total ? total : 1, sizeof(*xl->x));
	if (!xl->x)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "group_sendrecv: out of memory");
	total = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			p = (size_t)i * n + j;
			xl->first[p] = total;
			if (m890_comm_local_index(c, i) < 0)
				continue;
			for (uint64_t k = 0;; k++) {
				const struct m890_p2p *snd = local_op(ops, count, i,
								      M890_P2P_SEND, j, k);
				const struct m890_p2p *rcv = NULL;
				const struct m890_p2p_rec *rr;
				struct xfer *x;
				m890_status_t st;
				uint64_t va;

				if (!snd)
					break;
				rr = m890_group_match(n, heads, all, max_ops, i, j, k);
				x = &xl->x[total++];
				x->bytes = snd->bytes;
				x->src = snd->buffer->va + snd->offset;
				if (!x->bytes)
					continue;
				if (m890_comm_local_index(c, j) >= 0)
					rcv = local_op(ops, count, j, M890_P2P_RECV, i, k);
				st = m890_coll_recv_va(c, i, j, rcv ? rcv->buffer : NULL,
					     rr->recv_index, &va);
				if (st)
					return st;
				x->dst = va + rr->offset;
			}
		}
	xl->first[(size_t)n * n] = total;
	return M890_SUCCESS;
}

/*
 * One grouped send/recv in its three stages (validate, agree, enqueue).
 * The records live on the heap: n heads and the operations of every
 * rank are tens of KiB at 64 ranks.
 */
struct gsr {
	struct m890_comm *c;
	const struct m890_p2p *ops;
	size_t count;
	const m890_stream_t *streams;
	int n, m;
	struct m890_group_head *mine;	/* [m]: the local ranks' heads */
	struct m890_group_head *heads;	/* [n]: every rank's */
	struct m890_p2p_rec *own;	/* [count]: this process's operations */
	struct m890_p2p_rec *all;	/* [n][max_ops]: every rank's, padded */
	uint64_t max_ops;
};

static void gsr_free(struct gsr *g)
{
	free(g->mine);
	free(g->heads);
	free(g->own);
	free(g->all);
}

/*
 * The local checks: this process's streams and operations.  A refusal
 * is the process's: every local rank's head carries it to the peers.
 */
static void gsr_validate(struct gsr *g)
{
	static const char what[] = "group_sendrecv";
	m890_status_t bad = M890_SUCCESS;

	if ((g->count && !g->ops) || !g->streams)
		bad = m890_fail(M890_ERROR_INVALID_ARGUMENT,
				"group_sendrecv: NULL operations or streams");
	for (int l = 0; l < g->m && !bad; l++)
		bad = m890_coll_check_stream(g->c, m890_comm_local_rank(g->c, l),
					     g->streams[l], what);
	if (!bad)
		g->own = calloc(g->count ? g->count : 1, sizeof(*g->own));
	if (!bad && !g->own)
		bad = m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "group_sendrecv: out of memory");
	for (size_t k = 0; k < g->count && !bad; k++)
		bad = group_check_op(g->c, &g->ops[k], k, &g->own[k]);
	if (!bad)
		bad = group_overlap(g->ops, g->count);
	for (int l = 0; l < g->m; l++) {
		int i = m890_comm_local_rank(g->c, l);

		if (bad) {
			m890_coll_refuse(bad, what, &g->mine[l].status, g->mine[l].msg);
			continue;
		}
		for (size_t k = 0; k < g->count; k++)
			g->mine[l].count += g->ops[k].rank == i;
	}
}

/* Second round: each rank's operations in its order, padded to max_ops. */
static m890_status_t gsr_agree_ops(struct gsr *g)
{
	size_t rec = (size_t)g->max_ops * sizeof(*g->own);
	const void *mine[M890_COMM_MAX_RANKS];
	struct m890_p2p_rec *packed;
	m890_status_t st;
	char msg[400];

	packed = calloc((size_t)g->m, rec);
	g->all = calloc((size_t)g->n, rec);
	if (!packed || !g->all) {
		free(packed);
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "group_sendrecv: out of memory");
	}
	for (int l = 0; l < g->m; l++) {
		int i = m890_comm_local_rank(g->c, l);
		size_t x = 0;

		for (size_t k = 0; k < g->count; k++)
			if (g->ops[k].rank == i)
				packed[(size_t)l * g->max_ops + x++] = g->own[k];
		mine[l] = packed + (size_t)l * g->max_ops;
	}
	st = m890_comm_allgather_host(g->c, "group_sendrecv ops", mine, rec, g->all);
	free(packed);
	if (st)
		return st;
	st = m890_group_check(g->n, g->heads, g->all, g->max_ops, "group_sendrecv",
			      msg, sizeof(msg));
	return st ? m890_fail(st, "%s", msg) : M890_SUCCESS;
}

/*
 * The agreement: every rank's head (its refusal, its number of
 * operations), then, if any rank has operations, every rank's operations;
 * the same checks run on the same records in every process.
 */
static m890_status_t gsr_agree(struct gsr *g)
{
	const void *mine[M890_COMM_MAX_RANKS];
	m890_status_t st;
	char msg[400];

	for (int l = 0; l < g->m; l++)
		mine[l] = &g->mine[l];
	st = m890_comm_allgather_host(g->c, "group_sendrecv", mine,
				      sizeof(g->heads[0]), g->heads);
	if (st)
		return st;
	st = m890_group_check_heads(g->n, g->heads, "group_sendrecv", &g->max_ops,
				    msg, sizeof(msg));
	if (st)
		return m890_fail(st, "%s", msg);
	return g->max_ops ? gsr_agree_ops(g) : M890_SUCCESS;
}

/* The matched transfers of the local senders, enqueued. */
static m890_status_t gsr_enqueue(struct gsr *g)
{
	struct xfer_list xl = { .c = g->c, .n = g->n };
	m890_status_t st;

	xl.first = calloc((size_t)g->n * g->n + 1, sizeof(*xl.first));
	if (!xl.first)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "group_sendrecv: out of memory");
	st = group_xfers(g->c, g->ops, g->count, g->heads, g->all, g->max_ops, &xl);
	if (!st)
		st = run_list(g->c, g->streams, "grouped send/recv", &xl);
	free(xl.first);
	free(xl.x);
	return st;
}

M890_EXPORT m890_status_t m890_group_sendrecv(m890_comm_t c,
					      const struct m890_p2p *ops,
					      size_t count,
					      const m890_stream_t *streams)
{
	M890_API_SCOPE;
	struct gsr g = { .c = c, .ops = ops, .count = count, .streams = streams };
	m890_status_t st;

	if (m890_group_active()) {
		struct m890_gcall gc = { .kind = M890_G_SENDRECV, .c = c, .ops = ops,
					 .nops = count, .streams = streams };

		return m890_group_add(&gc);
	}
	st = m890_comm_usable(c);
	if (st)
		return st;
	g.n = m890_comm_ranks(c);
	g.m = m890_comm_nlocal(c);
	g.mine = calloc((size_t)g.m, sizeof(*g.mine));
	g.heads = calloc((size_t)g.n, sizeof(*g.heads));
	if (!g.mine || !g.heads) {
		gsr_free(&g);
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "group_sendrecv: out of memory");
	}
	gsr_validate(&g);
	st = gsr_agree(&g);
	if (!st && !m890_comm_group_dry(c))
		st = gsr_enqueue(&g);
	gsr_free(&g);
	return st;
}
