// SPDX-License-Identifier: MIT
/*
 * DOC: expert-parallel dispatch and combine
 *
 * The routing layout is computed on the host from the top-k expert ids
 * the caller passes: expert e's rows are numbered in the order (source
 * rank, token, top-k slot), so row p of expert e lands at row
 * (e % L) * C + p of rank e / L's receive buffer.  For each rank the
 * layout's host BO holds:
 *
 *   gidx[T*k]       token of each send row, grouped by destination rank
 *                   and ordered by (token, slot) inside a group
 *   sidx[T*k]       the row's slot in the destination's receive buffer
 *                   (and in its expert outputs)
 *   ridx[T*k]       REDUCE indices: for (token t, slot j) the number of
 *                   its send row, or NONE for an unused slot
 *   w[T*k]          the weights
 *   counts[L]       rows received per local expert
 *
 * Dispatch on rank s's stream: MX_QUANT of the tokens into a scratch
 * (MX payloads), two COPY_2D that pack elements and scales into rows,
 * one GATHER of the rows in destination order into the send scratch, a
 * COPY of the counts, then the communicator's exchange in which the
 * transfer to rank d is one SCATTER into d's receive buffer through the
 * fabric.  Combine: the exchange's transfer from rank d is one GATHER
 * from d's expert outputs (a window) with the same slot list, into this
 * rank's fetch scratch in send-row order; then one REDUCE gives the
 * output.  Every index list is as long as the rows it moves.  The exchange's signals
 * order everything: a rank writes a peer's receive buffer only after the
 * peer reached the dispatch, and reads a peer's expert outputs only after
 * the peer reached the combine; a rank finishes a collective only when
 * every peer is done with its buffers.
 *
 * Communicators whose ranks are in other processes or VMs
 * (m890_comm_create_rank, m890_comm_create_fabric) hold only some ranks
 * here; the calls take one entry per local rank.  The layout is split so
 * that a rank's part needs only its own routing and every rank's row
 * count per expert (see layout_count() and below), and the counts come
 * from one metadata round, m890_comm_allgather_host() (ep_agree()):
 * each rank's record holds its status (did its own checks pass), the
 * registration number of the buffer the peers write or read, and for a
 * dispatch its token count and count row.  Every process then has the
 * same count matrix, so capacity, counts and refusals come out alike at
 * every rank before anything is enqueued.  The peers' receive buffers
 * and expert outputs are reached through the windows of their
 * registrations (m890_comm_reg_peer()).  After the round the processes
 * are committed: a local failure from then on is made sticky, and the
 * peers' waits for this rank time out naming it.  With every rank in
 * this process (m890_comm_create) the round is a plain copy and a local
 * failure returns at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ep_internal.h"

/*
 * One rank's record in the metadata round of a call on a communicator
 * (uint32 words; every record of a round has the same size).
 */
enum {
	META_STATUS,	/* M890_SUCCESS, or the status the rank fails with */
	META_INDEX,	/* registration number of its recv / expert_out */
	META_TOKENS,	/* dispatch: its num_tokens */
	META_RESERVED,
	META_DATA,	/* dispatch: rows per expert; create: the config */
};

/* The configuration words of an ep_create record. */
#define META_CFG_WORDS	7

static uint64_t mx_elem_bytes(uint32_t type, uint32_t h)
{
	switch (type) {
	case M890_TYPE_MXFP8:
		return h;
	case M890_TYPE_MXFP4:
		return h / 2;
	default:
		return 2ull * h;
	}
}

/* Global rank of local index @l. */
static uint32_t ep_lrank(const struct m890_ep *ep, int l)
{
	return (uint32_t)m890_comm_local_rank(ep->comm, l);
}

static void ep_free(struct m890_ep *ep)
{
	int n = ep->info.num_ranks;

	for (int i = 0; ep->r && i < n; i++) {
		struct m890_buffer *b[] = { ep->r[i].qe, ep->r[i].qs,
					     ep->r[i].packed, ep->r[i].send,
					     ep->r[i].fetch };

		for (size_t k = 0; k < sizeof(b) / sizeof(b[0]); k++)
			if (b[k])
				m890_buffer_free(b[k]);
	}
	m890_ep_dev_free(ep);
	free(ep->r);
	free(ep);
}

static m890_status_t ep_config_check(const struct m890_ep_config *c, int n)
{
	if (c->size < sizeof(*c) || c->magic != M890_EP_CONFIG_MAGIC ||
	    c->version != M890_EP_CONFIG_VERSION ||
	    (c->flags & ~M890_EP_F_DEVICE_ROUTING) || c->reserved)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_create: config not initialized with M890_EP_CONFIG_INIT, or unknown flags");
	if (!c->max_tokens_per_rank || c->max_tokens_per_rank > EP_MAX_TOKENS)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_create: max_tokens_per_rank %u is not 1..%u",
				 c->max_tokens_per_rank, EP_MAX_TOKENS);
	if (!c->hidden || c->hidden % M890_MX_BLOCK || c->hidden > EP_MAX_HIDDEN)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_create: hidden %u is not a multiple of %u up to %u",
				 c->hidden, M890_MX_BLOCK, EP_MAX_HIDDEN);
	if (!c->num_experts || c->num_experts > EP_MAX_EXPERTS ||
	    c->num_experts % (uint32_t)n)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_create: %u experts cannot be split evenly over %d ranks (at most %u)",
				 c->num_experts, n, EP_MAX_EXPERTS);
	if (!c->top_k || c->top_k > EP_MAX_TOPK)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_create: top_k %u is not 1..%u", c->top_k,
				 EP_MAX_TOPK);
	if (c->dispatch_type != M890_TYPE_BF16 &&
	    c->dispatch_type != M890_TYPE_MXFP8 &&
	    c->dispatch_type != M890_TYPE_MXFP4)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_create: dispatch type %u is not BF16, MXFP8 or MXFP4",
				 c->dispatch_type);
	return M890_SUCCESS;
}

/*
 * The metadata round of the call @what: the records of the local ranks
 * (@recs, @words uint32 each, local order) are gathered into @all (n
 * records in rank order), identical in every process; word META_STATUS
 * of each is set to @local_st.  When a rank's own checks failed, the
 * call fails in every process and nothing is enqueued: in that rank's
 * process with its own error (@local_msg), in the others with
 * M890_ERROR_INVALID_ARGUMENT naming it.  With every rank in this
 * process there is nobody to tell: a local failure returns at once.
 */
static m890_status_t ep_agree(struct m890_ep *ep, const char *what,
			      m890_status_t local_st, const char *local_msg,
			      uint32_t *recs, size_t words, uint32_t *all)
{
	const void *mine[EP_MAX_RANKS];
	m890_status_t st;

	if (local_st && !ep->per_rank)
		return m890_fail(local_st, "%s", local_msg);
	for (int l = 0; l < ep->nlocal; l++) {
		recs[l * words + META_STATUS] = (uint32_t)local_st;
		mine[l] = recs + l * words;
	}
	st = m890_comm_allgather_host(ep->comm, what, mine, 4 * words, all);
	if (st)
		return st;
	if (local_st)
		return m890_fail(local_st, "%s", local_msg);
	for (uint32_t j = 0; j < ep->info.num_ranks; j++) {
		m890_status_t other = (m890_status_t)all[j * words + META_STATUS];

		if (other)
			return m890_fail(M890_ERROR_INVALID_ARGUMENT,
					 "%s: rank %u refused the call (%s); nothing was enqueued",
					 what, j, m890_status_string(other));
	}
	return M890_SUCCESS;
}

/* Derived sizes of @ep from its checked config (info.num_ranks set). */
static void ep_shape(struct m890_ep *ep)
{
	const struct m890_ep_config *config = &ep->cfg;
	struct m890_ep_info *in = &ep->info;
	uint64_t t = config->max_tokens_per_rank, h = config->hidden, eb;
	uint32_t n = in->num_ranks;

	in->num_local_experts = config->num_experts / n;
	in->expert_capacity = config->expert_capacity ? config->expert_capacity :
			      (uint32_t)(t * (uint64_t)n);
	eb = mx_elem_bytes(config->dispatch_type, config->hidden);
	ep->scale_bytes = config->dispatch_type == M890_TYPE_BF16 ? 0 :
			  config->hidden / M890_MX_BLOCK;
	in->elem_bytes = (uint32_t)eb;
	in->row_bytes = (uint32_t)(eb + ep->scale_bytes);
	in->x_bytes = t * h * 2;
	in->out_bytes = t * h * 2;
	in->recv_bytes = (uint64_t)in->num_local_experts * in->expert_capacity *
			 in->row_bytes;
	in->expert_out_bytes = (uint64_t)in->num_local_experts *
			       in->expert_capacity * h * 2;
	in->counts_bytes = 4ull * in->num_local_experts;
	ep->slots = (uint32_t)(t * config->top_k);
	in->scratch_bytes = (uint64_t)ep->slots * (in->row_bytes + h * 2);
	if (ep->scale_bytes)
		in->scratch_bytes += t * (eb + ep->scale_bytes + in->row_bytes);
}

/* The HBM scratch of every local rank. */
static m890_status_t ep_scratch(struct m890_ep *ep)
{
	const struct m890_ep_info *in = &ep->info;
	uint64_t t = ep->cfg.max_tokens_per_rank, h = ep->cfg.hidden;
	uint64_t eb = in->elem_bytes;
	m890_status_t st = M890_SUCCESS;

	for (int l = 0; l < ep->nlocal && !st; l++) {
		uint32_t i = ep_lrank(ep, l);
		struct m890_device *d = m890_comm_rank_device(ep->comm, (int)i);
		struct ep_rank *r = &ep->r[i];

		st = m890_buffer_alloc(d, (uint64_t)ep->slots * in->row_bytes,
				       M890_MEM_HBM, &r->send);
		if (!st)
			st = m890_buffer_alloc(d, (uint64_t)ep->slots * h * 2,
					       M890_MEM_HBM, &r->fetch);
		if (!st && ep->scale_bytes)
			st = m890_buffer_alloc(d, t * eb, M890_MEM_HBM, &r->qe);
		if (!st && ep->scale_bytes)
			st = m890_buffer_alloc(d, t * ep->scale_bytes,
					       M890_MEM_HBM, &r->qs);
		if (!st && ep->scale_bytes)
			st = m890_buffer_alloc(d, t * in->row_bytes,
					       M890_MEM_HBM, &r->packed);
	}
	if (st)
		return m890_fail_wrap(st, NULL, "ep_create");
	return M890_SUCCESS;
}

/*
 * Per-rank communicators: every rank must have passed the same shape,
 * or the rows and slots of the ranks would not match.
 */
static m890_status_t ep_same_config(struct m890_ep *ep, const uint32_t *all)
{
	const size_t words = META_DATA + META_CFG_WORDS;
	const uint32_t *mine = all + ep_lrank(ep, 0) * words + META_DATA;

	for (uint32_t j = 0; j < ep->info.num_ranks; j++)
		if (memcmp(all + j * words + META_DATA, mine,
			   4 * META_CFG_WORDS))
			return m890_fail(M890_ERROR_INVALID_ARGUMENT,
					 "ep_create: rank %u's config (max_tokens_per_rank, hidden, num_experts, top_k, dispatch_type, expert_capacity, flags) differs from rank %u's",
					 j, ep_lrank(ep, 0));
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_ep_create(m890_comm_t comm,
					 const struct m890_ep_config *config,
					 m890_ep_t *out)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(comm, M890_OBJ_COMM, "communicator");
	const size_t words = META_DATA + META_CFG_WORDS;
	uint32_t recs[EP_MAX_RANKS * (META_DATA + META_CFG_WORDS)] = { 0 };
	uint32_t all[EP_MAX_RANKS * (META_DATA + META_CFG_WORDS)];
	struct m890_saved_error refusal = { "" };
	struct m890_ep *ep;
	int n;

	if (st)
		return st;
	st = m890_comm_usable(comm);
	if (st)
		return st;
	if (!config || !out)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_create: NULL config or output");
	n = m890_comm_ranks(comm);
	ep = calloc(1, sizeof(*ep));
	if (!ep || !(ep->r = calloc((size_t)n, sizeof(*ep->r)))) {
		free(ep);
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "ep_create: out of memory");
	}
	ep->obj.type = M890_OBJ_EP;
	ep->comm = comm;
	ep->cfg = *config;
	ep->info.num_ranks = (uint32_t)n;
	ep->per_rank = m890_comm_is_per_rank(comm);
	ep->nlocal = m890_comm_nlocal(comm);
	st = ep_config_check(config, n);
	if (!st) {
		ep_shape(ep);
		if (!(config->flags & M890_EP_F_DEVICE_ROUTING))
			st = ep_scratch(ep);
	}
	if (st)
		m890_error_save(&refusal);
	for (int l = 0; l < ep->nlocal; l++) {
		uint32_t *c = recs + l * words + META_DATA;

		c[0] = config->max_tokens_per_rank;
		c[1] = config->hidden;
		c[2] = config->num_experts;
		c[3] = config->top_k;
		c[4] = config->dispatch_type;
		c[5] = config->expert_capacity;
		c[6] = config->flags;
	}
	st = ep_agree(ep, "ep_create", st, refusal.detail, recs, words, all);
	if (!st)
		st = ep_same_config(ep, all);
	if (!st && (config->flags & M890_EP_F_DEVICE_ROUTING))
		st = m890_ep_dev_setup(ep);
	if (!st)
		st = m890_obj_register(ep);
	if (st) {
		struct m890_saved_error cause;

		m890_error_save(&cause);
		ep_free(ep);
		return m890_error_restore(st, &cause);
	}
	*out = ep;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_ep_destroy(m890_ep_t ep)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(ep, M890_OBJ_EP, "EP object");

	struct m890_saved_error why;
	unsigned int layouts;

	if (st)
		return st;
	layouts = atomic_load(&ep->layouts);
	if (layouts)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_destroy: %u layout(s) of this EP object still exist",
				 layouts);
	st = m890_obj_unregister(ep);
	if (st)
		return st;
	/*
	 * A m890_ep_layout_create() of another thread that found the object
	 * before it left the registry has returned now (the unregister
	 * waited for it), and may have added a layout after the check
	 * above: keep the object then, as m890_device_close() does.
	 */
	layouts = atomic_load(&ep->layouts);
	if (layouts) {
		ep->obj.type = M890_OBJ_EP;	/* the unregister cleared it */
		st = m890_obj_register(ep);
		return st ? st : m890_fail(M890_ERROR_INVALID_ARGUMENT,
					   "ep_destroy: a layout of this EP object was created meanwhile; destroy it first");
	}
	ep->obj.type = 0;
	st = m890_ep_dev_deregister(ep);
	if (st)
		m890_error_save(&why);
	ep_free(ep);
	if (st)
		return m890_fail_wrap(st, &why, "ep_destroy: freed, but its buffers stay mapped at the peers until m890_comm_destroy(); withdrawing them failed");
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_ep_get_info(m890_ep_t ep,
					   struct m890_ep_info *info)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(ep, M890_OBJ_EP, "EP object",
					  info, "ep_get_info");

	if (st)
		return st;
	*info = ep->info;
	return M890_SUCCESS;
}

static void layout_free(struct m890_ep_layout *lo)
{
	for (uint32_t i = 0; lo->r && i < lo->ep->info.num_ranks; i++) {
		if (lo->r[i].host)
			m890_buffer_free(lo->r[i].host);
		free(lo->r[i].off);
	}
	free(lo->r);
	free(lo->counts);
	free(lo);
}

M890_EXPORT m890_status_t m890_ep_layout_create(m890_ep_t ep,
						m890_ep_layout_t *out)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(ep, M890_OBJ_EP, "EP object");
	struct m890_ep_layout *lo;
	uint32_t n, s, l;
	uint64_t bytes;

	if (st)
		return st;
	if (!out)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_layout_create: NULL output");
	n = ep->info.num_ranks;
	s = ep->slots;
	l = ep->info.num_local_experts;
	lo = calloc(1, sizeof(*lo));
	if (!lo || !(lo->r = calloc(n, sizeof(*lo->r))) ||
	    !(lo->counts = calloc(ep->cfg.num_experts, sizeof(*lo->counts)))) {
		if (lo)
			free(lo->r);
		free(lo);
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "ep_layout_create: out of memory");
	}
	lo->obj.type = M890_OBJ_EP_LAYOUT;
	lo->ep = ep;
	/* gidx, sidx, ridx, w: s each; counts: l. */
	bytes = 4ull * (4ull * s + l);
	for (int q = 0; q < ep->nlocal; q++) {
		uint32_t i = ep_lrank(ep, q);
		struct ep_layout_rank *r = &lo->r[i];
		void *p;

		r->off = calloc(n + 1, sizeof(*r->off));
		if (!r->off) {
			st = m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				       "ep_layout_create: out of memory");
			goto fail;
		}
		st = m890_buffer_alloc(m890_comm_rank_device(ep->comm, (int)i),
				       bytes, M890_MEM_HOST, &r->host);
		if (!st)
			st = m890_buffer_map(r->host, &p);
		if (st)
			goto fail;
		r->gidx = p;
		r->sidx = r->gidx + s;
		r->ridx = r->sidx + s;
		r->w = (float *)(r->ridx + s);
		r->counts = (uint32_t *)(r->w + s);
	}
	st = m890_obj_register(lo);
	if (st)
		goto fail;
	atomic_fetch_add(&ep->layouts, 1);
	*out = lo;
	return M890_SUCCESS;
fail:
	lo->ep = ep;
	layout_free(lo);
	return st;
}

M890_EXPORT m890_status_t m890_ep_layout_destroy(m890_ep_layout_t lo)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(lo, M890_OBJ_EP_LAYOUT, "EP layout");

	if (st)
		return st;
	st = m890_obj_unregister(lo);
	if (st)
		return st;
	lo->obj.type = 0;
	atomic_fetch_sub(&lo->ep->layouts, 1);
	layout_free(lo);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_ep_layout_counts(m890_ep_layout_t lo,
						uint32_t *counts)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(lo, M890_OBJ_EP_LAYOUT, "EP layout");

	if (st)
		return st;
	if (!counts || !lo->dispatched)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_layout_counts: %s",
				 counts ? "no dispatch yet" : "NULL output");
	if (lo->ep->dev)
		return m890_ep_dev_counts(lo, counts);
	memcpy(counts, lo->counts, sizeof(*counts) * lo->ep->cfg.num_experts);
	return M890_SUCCESS;
}

/* Check rank @i's buffer @b: on the rank's card, @bytes long, HBM if @hbm. */
static m890_status_t ep_buf(struct m890_ep *ep, struct m890_buffer *b, int i,
			    uint64_t bytes, bool hbm, const char *what)
{
	struct m890_device *d = m890_comm_rank_device(ep->comm, i);
	m890_status_t st = m890_check(b, M890_OBJ_BUFFER, what);

	if (st)
		return st;
	if (b->dev != d)
		return m890_fail(M890_ERROR_DEVICE_MISMATCH,
				 "ep: rank %d's %s is on %s, not on %s", i, what,
				 b->dev->node, d->node);
	if (b->bytes < bytes)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep: rank %d's %s has %llu bytes, needs %llu",
				 i, what, (unsigned long long)b->bytes,
				 (unsigned long long)bytes);
	if (hbm && !(b->flags & M890_MEM_HBM))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep: rank %d's %s must be HBM", i, what);
	return M890_SUCCESS;
}

/*
 * Per-rank communicators: local rank @i's @what, which the peers reach,
 * must be registered; its registration number in @rec[META_INDEX].
 */
static m890_status_t ep_reg(struct m890_ep *ep, int i, struct m890_buffer *b,
			    const char *what, uint32_t *rec)
{
	unsigned int index = 0;

	if (!ep->per_rank)
		return M890_SUCCESS;
	if (m890_comm_reg_find(ep->comm, i, b, &index))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep: rank %d's %s was not registered with m890_comm_register() (the peers reach it through its registration)",
				 i, what);
	rec[META_INDEX] = index;
	return M890_SUCCESS;
}

static m890_status_t ep_streams(struct m890_ep *ep,
				struct m890_stream *const *streams)
{
	m890_status_t st;

	if (!streams)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT, "ep: NULL streams");
	for (int l = 0; l < ep->nlocal; l++) {
		uint32_t i = ep_lrank(ep, l);
		struct m890_device *d = m890_comm_rank_device(ep->comm, (int)i);

		st = m890_check(streams[l], M890_OBJ_STREAM, "stream");
		if (st)
			return st;
		if (streams[l]->dev != d)
			return m890_fail(M890_ERROR_DEVICE_MISMATCH,
					 "ep: rank %u's stream is on %s, not on %s",
					 i, streams[l]->dev->node, d->node);
		if (streams[l]->async_error)
			return m890_fail(streams[l]->async_error,
					 "ep: rank %u's stream failed: %s", i,
					 streams[l]->async_msg);
	}
	return M890_SUCCESS;
}

/* Wait until the work that last read @lo's lists has executed. */
static m890_status_t layout_idle(struct m890_ep_layout *lo)
{
	for (uint32_t i = 0; i < lo->ep->info.num_ranks; i++) {
		struct ep_layout_rank *r = &lo->r[i];
		m890_status_t st;

		if (!r->last_stream ||
		    !m890_obj_valid(r->last_stream, M890_OBJ_STREAM))
			continue;
		st = m890_stream_wait_point(r->last_stream, r->last_seqno,
					    r->last_stream->timeout_ns);
		if (st)
			return st;
		r->last_stream = NULL;
	}
	return M890_SUCCESS;
}

static void layout_used(struct m890_ep_layout *lo,
			struct m890_stream *const *streams)
{
	struct m890_ep *ep = lo->ep;

	for (int l = 0; l < ep->nlocal; l++) {
		struct ep_layout_rank *r = &lo->r[ep_lrank(ep, l)];

		r->last_stream = streams[l];
		r->last_seqno = streams[l]->last_seqno;
	}
}

/*
 * The layout is computed in two steps, so that each rank's part needs
 * only its own routing and the per-expert counts of every rank (an n x
 * num_experts matrix, row s: the rows rank s sends to each expert):
 *
 * 1. layout_count(): check rank s's routing, count its rows per expert.
 * 2. layout_totals(): sum the matrix into the per-expert counts, check
 *    the capacity (the same verdict wherever the matrix is the same).
 * 3. layout_rank(): rank s's index lists.  Expert e's rows are numbered
 *    in (source rank, token, slot) order, so rank s's first row to e
 *    follows the rows of ranks < s: @next[e] holds that column sum.
 */

/* Check rank @i's routing (@nt tokens) and count its rows per expert. */
static m890_status_t layout_count(struct m890_ep *ep, uint32_t i, uint32_t nt,
				  const int32_t *idx, const float *w,
				  uint32_t *row)
{
	uint32_t k = ep->cfg.top_k, ne = ep->cfg.num_experts;

	memset(row, 0, sizeof(*row) * ne);
	if (nt > ep->cfg.max_tokens_per_rank)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_dispatch: rank %u has %u tokens, at most %u",
				 i, nt, ep->cfg.max_tokens_per_rank);
	if (nt && (!idx || !w))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_dispatch: rank %u has %u tokens but no top-k ids or weights",
				 i, nt);
	for (uint32_t t = 0; t < nt; t++)
		for (uint32_t j = 0; j < k; j++) {
			int32_t e = idx[t * k + j];

			if (e < -1 || e >= (int64_t)ne)
				return m890_fail(M890_ERROR_INVALID_ARGUMENT,
						 "ep_dispatch: rank %u token %u slot %u: expert id %d is not -1..%u",
						 i, t, j, e, ne - 1);
			if (e < 0)
				continue;
			for (uint32_t j2 = 0; j2 < j; j2++)
				if (idx[t * k + j2] == e)
					return m890_fail(M890_ERROR_INVALID_ARGUMENT,
							 "ep_dispatch: rank %u token %u names expert %d twice",
							 i, t, e);
			row[e]++;
		}
	return M890_SUCCESS;
}

/*
 * The per-expert counts of the n rows of @cm (row s at s * @pitch
 * uint32), into lo->counts; M890_ERROR_CAPACITY if an expert overflows.
 */
static m890_status_t layout_totals(struct m890_ep_layout *lo,
				   const uint32_t *cm, size_t pitch)
{
	struct m890_ep *ep = lo->ep;
	uint32_t n = ep->info.num_ranks, ne = ep->cfg.num_experts;
	uint32_t L = ep->info.num_local_experts, cap = ep->info.expert_capacity;
	uint64_t *sum = calloc(ne, sizeof(*sum));

	if (!sum)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "ep_dispatch: out of memory");
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t e = 0; e < ne; e++)
			sum[e] += cm[s * pitch + e];
	for (uint32_t e = 0; e < ne; e++)
		if (sum[e] > cap) {
			m890_status_t st =
				m890_fail(M890_ERROR_CAPACITY,
					  "ep_dispatch: expert %u (rank %u) would receive %llu rows, capacity %u; nothing was sent",
					  e, e / L, (unsigned long long)sum[e], cap);

			free(sum);
			return st;
		}
	for (uint32_t e = 0; e < ne; e++)
		lo->counts[e] = (uint32_t)sum[e];
	free(sum);
	return M890_SUCCESS;
}

/*
 * Rank @i's index lists from its checked routing; @next[e] is expert e's
 * first free row (the rows of ranks < @i), advanced past rank @i's.
 */
static void layout_rank(struct m890_ep_layout *lo, uint32_t i, uint32_t nt,
			const int32_t *idx, const float *w, uint32_t *next)
{
	struct m890_ep *ep = lo->ep;
	struct ep_layout_rank *r = &lo->r[i];
	uint32_t n = ep->info.num_ranks, k = ep->cfg.top_k;
	uint32_t L = ep->info.num_local_experts;
	uint32_t cap = ep->info.expert_capacity, m = 0;

	r->tokens = nt;
	for (uint32_t q = 0; q < ep->slots; q++)
		r->ridx[q] = M890_ROW_NONE;
	if (nt)
		memcpy(r->w, w, 4ull * nt * k);
	/* Send rows grouped by destination, (token, slot) inside. */
	for (uint32_t d = 0; d < n; d++) {
		r->off[d] = m;
		for (uint32_t t = 0; t < nt; t++)
			for (uint32_t j = 0; j < k; j++) {
				int32_t e = idx[t * k + j];

				if (e < 0 || (uint32_t)e / L != d)
					continue;
				r->gidx[m] = t;
				r->sidx[m] = ((uint32_t)e % L) * cap + next[e]++;
				r->ridx[t * k + j] = m++;
			}
	}
	r->off[n] = m;
	memcpy(r->counts, lo->counts + (uint64_t)i * L, 4ull * L);
}

struct ep_ctx {
	struct m890_ep *ep;
	struct m890_ep_layout *lo;
	uint64_t *va;	/* [nlocal * n]: rank j's recv or expert_out */
};

/* The VA on (local) rank @i's card of rank @j's buffer, from @c->va. */
static uint64_t ctx_va(struct ep_ctx *c, int i, int j)
{
	int l = m890_comm_local_index(c->ep->comm, i);

	return c->va[(size_t)l * c->ep->info.num_ranks + (size_t)j];
}

static m890_status_t dispatch_xfer(void *ctx, int i, int j,
				   struct m890_stream *s)
{
	struct ep_ctx *c = ctx;
	struct ep_layout_rank *r = &c->lo->r[i];
	uint64_t rb = c->ep->info.row_bytes;
	uint32_t first = r->off[j], rows = r->off[j + 1] - first;

	if (!rows)
		return M890_SUCCESS;
	return m890_scatter(s, ctx_va(c, i, j),
			    c->ep->r[i].send->va + first * rb,
			    r->host->va + 4ull * (r->sidx - r->gidx + first),
			    rb, rows);
}

static m890_status_t combine_xfer(void *ctx, int i, int j,
				  struct m890_stream *s)
{
	struct ep_ctx *c = ctx;
	struct ep_layout_rank *r = &c->lo->r[i];
	uint64_t row = 2ull * c->ep->cfg.hidden;
	uint32_t first = r->off[j], rows = r->off[j + 1] - first;

	if (!rows)
		return M890_SUCCESS;
	return m890_gather(s, c->ep->r[i].fetch->va + first * row,
			   ctx_va(c, i, j),
			   r->host->va + 4ull * (r->sidx - r->gidx + first),
			   row, rows);
}

/*
 * Fill @va[l * n + j] with the VA on local rank l's card of rank j's
 * buffer that l sends rows to (or fetches rows from): @bufs[j] itself
 * with every rank in this process, else rank j's registration number
 * all[j * @words + META_INDEX], whose size is checked against @need.
 * Imports the windows, so that a failure enqueues nothing.
 */
static m890_status_t ep_peer_vas(struct m890_ep *ep, struct m890_ep_layout *lo,
				 struct m890_buffer *const *bufs,
				 const uint32_t *all, size_t words,
				 uint64_t need, const char *what, uint64_t *va)
{
	uint32_t n = ep->info.num_ranks;
	m890_status_t st;

	for (int l = 0; l < ep->nlocal; l++) {
		uint32_t i = ep_lrank(ep, l);
		struct ep_layout_rank *r = &lo->r[i];

		for (uint32_t j = 0; j < n; j++) {
			uint64_t *v = &va[(size_t)l * n + j], bytes;

			if (j != i && r->off[j + 1] == r->off[j])
				continue;
			if (!ep->per_rank) {
				st = m890_comm_peer_va(ep->comm, (int)i, (int)j,
						       bufs[j], v);
			} else if (j == i) {
				*v = bufs[l]->va;
				st = M890_SUCCESS;
			} else {
				st = m890_comm_reg_peer(ep->comm, (int)i, (int)j,
							all[j * words + META_INDEX],
							v, &bytes);
				if (!st && bytes < need)
					st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
						       "ep: rank %u's registered %s has %llu bytes, needs %llu",
						       j, what, (unsigned long long)bytes,
						       (unsigned long long)need);
			}
			if (st)
				return st;
		}
	}
	return M890_SUCCESS;
}

/* m890_comm_exchange() with the local ranks' streams. */
static m890_status_t ep_exchange(struct m890_ep *ep,
				 struct m890_stream *const *streams,
				 const char *what, m890_comm_xfer_fn fn,
				 struct ep_ctx *c)
{
	struct m890_stream *gs[EP_MAX_RANKS] = { 0 };

	for (int l = 0; l < ep->nlocal; l++)
		gs[ep_lrank(ep, l)] = streams[l];
	return m890_comm_exchange(ep->comm, gs, what, fn, c);
}

/*
 * After the metadata round every process goes on, so a local failure
 * from here leaves the peers waiting (until their waits for this rank
 * time out naming it): make it the communicator's sticky error.
 */
static m890_status_t ep_sticky(struct m890_ep *ep, m890_status_t st,
			       const char *what)
{
	m890_fail_wrap(st, NULL, "%s only partly enqueued", what);
	return m890_comm_set_error(ep->comm, st, m890_last_detail());
}

/* Rank i's local steps before the exchange: quantize, pack, gather. */
static m890_status_t dispatch_local(struct m890_ep *ep,
				    struct ep_layout_rank *r,
				    struct ep_rank *er, struct m890_stream *s,
				    struct m890_buffer *x,
				    struct m890_buffer *counts)
{
	uint64_t rb = ep->info.row_bytes, eb = ep->info.elem_bytes;
	uint64_t src = x->va, sc = ep->scale_bytes;
	uint32_t t = r->tokens;
	m890_status_t st = M890_SUCCESS;

	if (t && sc) {
		st = m890_mx_quantize(s, ep->cfg.dispatch_type, M890_TYPE_BF16,
				      x->va, er->qe->va, er->qs->va,
				      (uint64_t)t * ep->cfg.hidden);
		if (!st)
			st = m890_memcpy_2d(s, er->packed->va, rb, er->qe->va,
					    eb, eb, t);
		if (!st)
			st = m890_memcpy_2d(s, er->packed->va + eb, rb,
					    er->qs->va, sc, sc, t);
		src = er->packed->va;
	}
	if (!st && r->off[ep->info.num_ranks])
		st = m890_gather(s, er->send->va, src, r->host->va, rb,
				 r->off[ep->info.num_ranks]);
	if (!st)
		st = m890_memcpy(s, counts->va,
				 r->host->va + 4ull * (uint64_t)(r->counts - r->gidx),
				 ep->info.counts_bytes);
	return st;
}

/*
 * The checks m890_ep_dispatch() and m890_ep_combine() open with: @ep and
 * @lo are live handles, @lo is @ep's (and holds a dispatch when
 * @need_dispatch), else M890_ERROR_INVALID_ARGUMENT with @bad_layout as
 * the message; then @ep's communicator is usable.
 */
static m890_status_t ep_call_check(m890_ep_t ep, m890_ep_layout_t lo,
				   bool need_dispatch, const char *bad_layout)
{
	m890_status_t st = m890_check(ep, M890_OBJ_EP, "EP object");

	if (!st)
		st = m890_check(lo, M890_OBJ_EP_LAYOUT, "EP layout");
	if (st)
		return st;
	if (ep->dev)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep: the EP object routes on the card (M890_EP_F_DEVICE_ROUTING): use m890_ep_dispatch_device() and m890_ep_combine_device()");
	if (lo->ep != ep || (need_dispatch && !lo->dispatched))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT, "%s", bad_layout);
	return m890_comm_usable(ep->comm);
}

/*
 * This process's part of a dispatch, checked without enqueueing: the
 * buffers and streams of each local rank, then its routing, counted into
 * its record (@recs, @words uint32 per local rank).
 */
static m890_status_t dispatch_check(struct m890_ep *ep, struct m890_ep_layout *lo,
				    struct m890_buffer *const *x,
				    const uint32_t *nt,
				    const int32_t *const *idx,
				    const float *const *w,
				    struct m890_buffer *const *recv,
				    struct m890_buffer *const *counts,
				    struct m890_stream *const *streams,
				    uint32_t *recs, size_t words)
{
	uint32_t n = ep->info.num_ranks;
	m890_status_t st = ep_streams(ep, streams);

	if (st)
		return st;
	for (int l = 0; l < ep->nlocal; l++) {
		int i = (int)ep_lrank(ep, l);
		uint32_t t = nt[l] < ep->cfg.max_tokens_per_rank ? nt[l] :
			     ep->cfg.max_tokens_per_rank;

		st = ep_buf(ep, x[l], i, 2ull * t * ep->cfg.hidden,
			    false, "token buffer");
		if (!st)
			st = ep_buf(ep, recv[l], i, ep->info.recv_bytes,
				    n > 1, "receive buffer");
		if (!st)
			st = ep_buf(ep, counts[l], i,
				    ep->info.counts_bytes, true, "count buffer");
		if (!st)
			st = ep_reg(ep, i, recv[l], "receive buffer",
				    recs + l * words);
		if (st)
			return st;
		for (int m = 0; m < l; m++)
			if (recv[m] == recv[l] || x[l] == recv[m] ||
			    x[m] == recv[l])
				return m890_fail(M890_ERROR_INVALID_ARGUMENT,
						 "ep_dispatch: ranks %u and %d share a buffer",
						 ep_lrank(ep, m), i);
		if (x[l] == recv[l] || counts[l] == recv[l] ||
		    counts[l] == x[l])
			return m890_fail(M890_ERROR_INVALID_ARGUMENT,
					 "ep_dispatch: rank %d's token, receive and count buffers must differ",
					 i);
	}
	st = layout_idle(lo);
	for (int l = 0; l < ep->nlocal && !st; l++) {
		recs[l * words + META_TOKENS] = nt[l];
		st = layout_count(ep, ep_lrank(ep, l), nt[l], idx[l], w[l],
				  recs + l * words + META_DATA);
	}
	return st;
}

/* The host arrays of one m890_ep_dispatch(). */
struct dispatch_call {
	size_t words;		/* of a record */
	uint32_t *recs;		/* [nlocal][words]: the local ranks' records */
	uint32_t *all;		/* [n][words]: every rank's, after the round */
	uint32_t *next;		/* [num_experts]: rows of each expert so far */
	uint64_t *va;		/* [nlocal][n]: the peers' receive buffers */
};

static m890_status_t dispatch_alloc(struct m890_ep *ep, struct dispatch_call *d)
{
	uint32_t n = ep->info.num_ranks, ne = ep->cfg.num_experts;

	d->words = META_DATA + (size_t)ne;
	d->recs = calloc((size_t)ep->nlocal * d->words, sizeof(*d->recs));
	d->all = calloc((size_t)n * d->words, sizeof(*d->all));
	d->next = calloc(ne, sizeof(*d->next));
	d->va = calloc((size_t)ep->nlocal * n, sizeof(*d->va));
	if (!d->recs || !d->all || !d->next || !d->va)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "ep_dispatch: out of memory");
	return M890_SUCCESS;
}

static void dispatch_free(struct dispatch_call *d)
{
	free(d->recs);
	free(d->all);
	free(d->next);
	free(d->va);
}

/*
 * The agreement (the notify step): every rank's record, with its local
 * refusal @local_st (@refusal), in every process; then the totals and
 * the capacity check, the same at every rank.
 */
static m890_status_t dispatch_agree(struct m890_ep *ep, struct m890_ep_layout *lo,
				    struct dispatch_call *d, m890_status_t local_st,
				    const struct m890_saved_error *refusal)
{
	m890_status_t st;

	lo->dispatched = false;
	st = ep_agree(ep, "EP dispatch", local_st, refusal->detail, d->recs,
		      d->words, d->all);
	if (!st)
		st = layout_totals(lo, d->all + META_DATA, d->words);
	return st;
}

/*
 * The enqueue: each local rank's index lists (next[e] counts the rows
 * of expert e given out so far, in rank order), the peers' receive
 * buffers, then the local steps and the exchange.  A failure from here
 * on is sticky on a per-rank communicator: the peers are committed.
 */
static m890_status_t dispatch_enqueue(struct m890_ep *ep, struct m890_ep_layout *lo,
				      struct dispatch_call *d,
				      struct m890_buffer *const *x,
				      const uint32_t *nt,
				      const int32_t *const *idx,
				      const float *const *w,
				      struct m890_buffer *const *recv,
				      struct m890_buffer *const *counts,
				      const m890_stream_t *streams)
{
	uint32_t n = ep->info.num_ranks, ne = ep->cfg.num_experts;
	struct ep_ctx c = { .ep = ep, .lo = lo, .va = d->va };
	m890_status_t st;

	for (uint32_t i = 0; i < n; i++) {
		int l = m890_comm_local_index(ep->comm, (int)i);

		if (l >= 0) {
			layout_rank(lo, i, nt[l], idx[l], w[l], d->next);
			continue;
		}
		for (uint32_t e = 0; e < ne; e++)
			d->next[e] += d->all[i * d->words + META_DATA + e];
	}
	st = ep_peer_vas(ep, lo, recv, d->all, d->words, ep->info.recv_bytes,
			 "receive buffer", d->va);
	if (st)
		return ep->per_rank ? ep_sticky(ep, st, "EP dispatch") : st;
	for (int l = 0; l < ep->nlocal && !st; l++) {
		uint32_t i = ep_lrank(ep, l);

		st = dispatch_local(ep, &lo->r[i], &ep->r[i], streams[l], x[l],
				    counts[l]);
	}
	if (st)
		return ep_sticky(ep, st, "EP dispatch");
	st = ep_exchange(ep, streams, "EP dispatch", dispatch_xfer, &c);
	layout_used(lo, streams);
	if (!st)
		lo->dispatched = true;
	return st;
}

M890_EXPORT m890_status_t m890_ep_dispatch(m890_ep_t ep, m890_ep_layout_t lo,
					   const m890_buffer_t *x,
					   const uint32_t *nt,
					   const int32_t *const *idx,
					   const float *const *w,
					   const m890_buffer_t *recv,
					   const m890_buffer_t *counts,
					   const m890_stream_t *streams)
{
	M890_API_SCOPE;
	m890_status_t st = ep_call_check(ep, lo, false,
					 "ep_dispatch: the layout belongs to another EP object");
	struct m890_saved_error refusal = { "" };
	struct dispatch_call d = { 0 };

	if (st)
		return st;
	if (!x || !nt || !idx || !w || !recv || !counts)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_dispatch: NULL array");
	st = dispatch_alloc(ep, &d);
	if (st)
		goto out;
	st = dispatch_check(ep, lo, x, nt, idx, w, recv, counts, streams,
			    d.recs, d.words);
	if (st)
		m890_error_save(&refusal);
	st = dispatch_agree(ep, lo, &d, st, &refusal);
	if (!st)
		st = dispatch_enqueue(ep, lo, &d, x, nt, idx, w, recv, counts,
				      streams);
out:
	dispatch_free(&d);
	return st;
}

/* This process's part of a combine, checked without enqueueing. */
static m890_status_t combine_check(struct m890_ep *ep, struct m890_ep_layout *lo,
				   struct m890_buffer *const *eo,
				   struct m890_buffer *const *out,
				   struct m890_stream *const *streams,
				   uint32_t *recs, size_t words)
{
	uint32_t n = ep->info.num_ranks;
	m890_status_t st = ep_streams(ep, streams);

	if (st)
		return st;
	for (int l = 0; l < ep->nlocal; l++) {
		int i = (int)ep_lrank(ep, l);

		st = ep_buf(ep, eo[l], i, ep->info.expert_out_bytes,
			    n > 1, "expert output buffer");
		if (!st)
			st = ep_buf(ep, out[l], i,
				    2ull * lo->r[i].tokens * ep->cfg.hidden,
				    false, "output buffer");
		if (!st)
			st = ep_reg(ep, i, eo[l], "expert output buffer",
				    recs + l * words);
		if (st)
			return st;
		for (int m = 0; m < ep->nlocal; m++)
			if (out[l] == eo[m])
				return m890_fail(M890_ERROR_INVALID_ARGUMENT,
						 "ep_combine: rank %d's output is rank %u's expert output buffer",
						 i, ep_lrank(ep, m));
	}
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_ep_combine(m890_ep_t ep, m890_ep_layout_t lo,
					  const m890_buffer_t *eo,
					  const m890_buffer_t *out,
					  const m890_stream_t *streams)
{
	M890_API_SCOPE;
	m890_status_t st = ep_call_check(ep, lo, true,
					 "ep_combine: the layout holds no dispatch of this EP object");
	const size_t words = META_DATA;
	uint32_t recs[EP_MAX_RANKS * META_DATA] = { 0 };
	uint32_t all[EP_MAX_RANKS * META_DATA];
	struct m890_saved_error refusal = { "" };
	uint64_t *va;
	struct ep_ctx c;
	uint32_t n;

	if (st)
		return st;
	if (!eo || !out)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_combine: NULL array");
	n = ep->info.num_ranks;
	va = calloc((size_t)ep->nlocal * n, sizeof(*va));
	if (!va)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "ep_combine: out of memory");
	st = combine_check(ep, lo, eo, out, streams, recs, words);
	if (st)
		m890_error_save(&refusal);
	/* Per-rank: where each rank's expert outputs are registered. */
	st = ep_agree(ep, "EP combine", st, refusal.detail, recs, words, all);
	if (st)
		goto out;
	/* Rank i fetches from rank j what it sent to rank j. */
	st = ep_peer_vas(ep, lo, eo, all, words, ep->info.expert_out_bytes,
			 "expert output buffer", va);
	if (st) {
		if (ep->per_rank)
			st = ep_sticky(ep, st, "EP combine");
		goto out;
	}
	c.ep = ep;
	c.lo = lo;
	c.va = va;
	st = ep_exchange(ep, streams, "EP combine", combine_xfer, &c);
	if (st)
		goto out;	/* the exchange made it sticky */
	for (int l = 0; l < ep->nlocal && !st; l++) {
		uint32_t i = ep_lrank(ep, l);
		struct ep_layout_rank *r = &lo->r[i];
		uint64_t base = r->host->va;

		if (!r->tokens)
			continue;
		st = m890_reduce(streams[l], M890_TYPE_BF16, out[l]->va,
				 ep->r[i].fetch->va,
				 base + 4ull * (uint64_t)(r->ridx - r->gidx),
				 base + 4ull * (uint64_t)((uint32_t *)r->w - r->gidx),
				 r->tokens, ep->cfg.hidden, ep->cfg.top_k);
		if (!st)
			st = m890_stream_flush(streams[l]);
	}
	if (st)
		ep_sticky(ep, st, "EP combine");
	layout_used(lo, streams);
out:
	free(va);
	return st;
}
