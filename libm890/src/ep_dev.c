// SPDX-License-Identifier: MIT
/*
 * DOC: EP with routing on the card (M890_EP_F_DEVICE_ROUTING)
 *
 * Each local rank's card holds two buffers of the EP object:
 *
 *   shared (HBM, a window on every peer)   per half h = 0, 1:
 *       rows[h]     n * T rows of row_bytes  (the peers write here)
 *       meta[h]     n * T rows of 8k bytes: ids, then weights
 *       partial[h]  n * T rows of H bf16     (the peers read here)
 *       count[h]    n uint64: tag << 32 | rows, one per source
 *     and two monotonic counters: arrival (+1 per source and dispatch)
 *     and ready (+1 per peer and combine)
 *   priv (HBM, this card only)
 *       send_src, send_dst  n * T uint32: MOE_ROUTE SEND's lists
 *       dest_count[h]       n uint64: its counts, a SIGNAL's values
 *       combine_idx[h]      T * k uint32: the REDUCE's indices
 *       experts[h]          L uint32 counts, L * C rows, L * C weights
 *       tables              segment tables and target lists (below)
 *
 * Tables, written once at creation: for destination d, the VA on this
 * card of d's rows[h], meta[h] (+4k for the weights) and partial[h]
 * segment of this rank (base + me * T rows), and of d's count[h][me],
 * arrival and ready words.  Segment d of a table is peer d, so the
 * MOE_ROUTE row numbers d * T + c address rows in every peer's window.
 *
 * Dispatch e (half h = e % 2) on rank me's stream:
 *
 *   MOE_ROUTE SEND (tag e)          send lists, dest counts, combine_idx
 *   WAIT arrival >= 0               a drain: the relaxed packets below
 *                                   start after the lists exist
 *   COPY_ROWS ids      RELAXED      topk rows -> peers' meta[h]
 *   COPY_ROWS weights  RELAXED
 *   COPY_ROWS payload  RELAXED      x rows -> peers' rows[h] (MX: quantized
 *                                   on the way)
 *   SIGNAL SET  x n                 count[h][me] = tag << 32 | rows
 *   SIGNAL ADD  x n                 arrival += 1
 *   WAIT arrival >= n * e
 *   MOE_ROUTE RECV                  experts[h] from meta[h] and count[h]
 *
 * Combine e:
 *
 *   SIGNAL ADD x n                  ready += 1: my partial[h] is written
 *   WAIT ready >= n * e
 *   REDUCE (SRC_TABLE, UNWEIGHTED)  out[t] = sum of the partial rows of
 *                                   the ranks of t's experts, pulled
 *
 * Why two halves and no handshake suffice: a peer writes my half h
 * again at dispatch e + 2, after its combine e + 1, which waited for my
 * ready of combine e + 1, which follows (in my stream) my use of the
 * results of dispatch e.  A peer reads my partial[h] in its combine e;
 * I write it again only after my dispatch e + 2, whose arrival wait
 * needs that peer's dispatch e + 2, which follows its combine e + 1.
 * Hence the rule that dispatches and combines alternate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ep_internal.h"

#define EPD_ALIGN	4096u

struct ep_dev_rank {
	struct m890_buffer *shared;
	struct m890_buffer *priv;
	bool registered;		/* shared, with a per-rank communicator */
};

/* Byte offsets, the same on every rank. */
struct ep_dev_map {
	/* shared */
	uint64_t rows[2], meta[2], partial[2], count[2], arrival, ready;
	uint64_t shared_bytes;
	/* priv */
	uint64_t send_src, send_dst, dest_count[2], combine_idx[2];
	uint64_t ex_count[2], ex_rows[2], ex_weight[2];
	uint64_t t_rows[2], t_ids[2], t_w[2], t_partial[2], t_count[2];
	uint64_t t_arrival, t_ready;
	uint64_t priv_bytes;
};

struct ep_dev {
	struct ep_dev_map map;
	struct ep_dev_rank *r;		/* [n], the local ranks' filled */
	uint64_t epoch;			/* dispatches enqueued */
	bool need_combine;		/* the last dispatch has no combine yet */
};

static uint64_t epd_up(uint64_t *at, uint64_t bytes)
{
	uint64_t v = *at;

	*at = (v + bytes + EPD_ALIGN - 1) / EPD_ALIGN * EPD_ALIGN;
	return v;
}

static void epd_layout(struct m890_ep *ep, struct ep_dev_map *m)
{
	uint64_t n = ep->info.num_ranks, t = ep->cfg.max_tokens_per_rank;
	uint64_t k = ep->cfg.top_k, h = ep->cfg.hidden;
	uint64_t l = ep->info.num_local_experts, c = ep->info.expert_capacity;
	uint64_t at = 0;

	for (int p = 0; p < 2; p++) {
		m->rows[p] = epd_up(&at, n * t * ep->info.row_bytes);
		m->meta[p] = epd_up(&at, n * t * 8 * k);
		m->partial[p] = epd_up(&at, n * t * h * 2);
		m->count[p] = epd_up(&at, n * 8);
	}
	m->arrival = epd_up(&at, 8);
	m->ready = epd_up(&at, 8);
	m->shared_bytes = at;
	at = 0;
	m->send_src = epd_up(&at, n * t * 4);
	m->send_dst = epd_up(&at, n * t * 4);
	for (int p = 0; p < 2; p++) {
		m->dest_count[p] = epd_up(&at, n * 8);
		m->combine_idx[p] = epd_up(&at, t * k * 4);
		m->ex_count[p] = epd_up(&at, l * 4);
		m->ex_rows[p] = epd_up(&at, l * c * 4);
		m->ex_weight[p] = epd_up(&at, l * c * 4);
		m->t_rows[p] = epd_up(&at, n * 8);
		m->t_ids[p] = epd_up(&at, n * 8);
		m->t_w[p] = epd_up(&at, n * 8);
		m->t_partial[p] = epd_up(&at, n * 8);
		m->t_count[p] = epd_up(&at, n * 8);
	}
	m->t_arrival = epd_up(&at, n * 8);
	m->t_ready = epd_up(&at, n * 8);
	m->priv_bytes = at;
}

/*
 * m890_ep_destroy() on a per-rank communicator: withdraw the shared
 * buffers' registrations, collectively (every rank destroys its EP
 * objects in the same order), so that the peers drop their windows on
 * them and the HBM is freed with the object, not with the communicator.
 * An aborted or failed communicator keeps them until m890_comm_destroy().
 */
m890_status_t m890_ep_dev_deregister(struct m890_ep *ep)
{
	struct ep_dev *d = ep->dev;
	m890_status_t st = M890_SUCCESS;

	if (!d || !ep->per_rank || m890_comm_usable(ep->comm))
		return M890_SUCCESS;
	for (int l = 0; l < ep->nlocal && !st; l++) {
		uint32_t i = (uint32_t)m890_comm_local_rank(ep->comm, l);

		if (!d->r[i].registered)
			continue;
		st = m890_comm_deregister(ep->comm, d->r[i].shared);
		d->r[i].registered = false;
	}
	return st;
}

void m890_ep_dev_free(struct m890_ep *ep)
{
	struct ep_dev *d = ep->dev;

	if (!d)
		return;
	m890_comm_clear_describe(ep->comm, ep);
	for (uint32_t i = 0; d->r && i < ep->info.num_ranks; i++) {
		if (d->r[i].shared)
			m890_buffer_free(d->r[i].shared);
		if (d->r[i].priv)
			m890_buffer_free(d->r[i].priv);
	}
	free(d->r);
	free(d);
	ep->dev = NULL;
}

#define EPD_CAPS (DRM_M890_CAP_ENGINES | DRM_M890_CAP_ATOMICS | DRM_M890_CAP_ROWS)

/* VA on local rank @i's card of rank @j's shared buffer. */
static m890_status_t epd_peer(struct m890_ep *ep, uint32_t i, uint32_t j,
			      unsigned int index, uint64_t *va)
{
	struct ep_dev *d = ep->dev;
	uint64_t bytes;
	m890_status_t st;

	if (i == j) {
		*va = d->r[i].shared->va;
		return M890_SUCCESS;
	}
	if (!ep->per_rank)
		return m890_comm_peer_va(ep->comm, (int)i, (int)j,
					 d->r[j].shared, va);
	st = m890_comm_reg_peer(ep->comm, (int)i, (int)j, index, va, &bytes);
	if (!st && bytes < d->map.shared_bytes)
		st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
			       "ep_create: rank %u's EP area has %llu bytes, not %llu (another config?)",
			       j, (unsigned long long)bytes,
			       (unsigned long long)d->map.shared_bytes);
	return st;
}

/*
 * The tables of local rank @i (its priv buffer), from the VAs of every
 * peer's shared buffer on its card, written through a host staging
 * buffer.
 */
static m890_status_t epd_tables(struct m890_ep *ep, uint32_t i,
				unsigned int index)
{
	struct ep_dev *d = ep->dev;
	const struct ep_dev_map *m = &d->map;
	uint64_t n = ep->info.num_ranks, t = ep->cfg.max_tokens_per_rank;
	uint64_t k = ep->cfg.top_k, h = ep->cfg.hidden, rb = ep->info.row_bytes;
	struct m890_device *dev = m890_comm_rank_device(ep->comm, (int)i);
	uint64_t lo = m->t_rows[0], bytes = m->priv_bytes - lo;
	struct m890_buffer *host = NULL;
	struct m890_stream *s = NULL;
	m890_status_t st;
	uint8_t *hp;
	void *p;

	st = m890_buffer_alloc(dev, bytes, M890_MEM_HOST, &host);
	if (!st)
		st = m890_buffer_map(host, &p);
	if (st)
		goto out;
	hp = p;
	memset(hp, 0, bytes);
	for (uint32_t j = 0; j < n && !st; j++) {
		uint64_t va;

		st = epd_peer(ep, i, j, index, &va);
		if (st)
			break;
		for (int q = 0; q < 2; q++) {
			uint64_t *rows = (uint64_t *)(hp + m->t_rows[q] - lo);
			uint64_t *ids = (uint64_t *)(hp + m->t_ids[q] - lo);
			uint64_t *w = (uint64_t *)(hp + m->t_w[q] - lo);
			uint64_t *part = (uint64_t *)(hp + m->t_partial[q] - lo);
			uint64_t *cnt = (uint64_t *)(hp + m->t_count[q] - lo);

			rows[j] = va + m->rows[q] + i * t * rb;
			ids[j] = va + m->meta[q] + i * t * 8 * k;
			w[j] = ids[j] + 4 * k;
			part[j] = va + m->partial[q] + i * t * h * 2;
			cnt[j] = va + m->count[q] + 8ull * i;
		}
		((uint64_t *)(hp + m->t_arrival - lo))[j] = va + m->arrival;
		((uint64_t *)(hp + m->t_ready - lo))[j] = va + m->ready;
	}
	if (!st)
		st = m890_stream_create(dev, &s);
	if (!st)
		st = m890_memcpy_htod(s, d->r[i].priv, lo, host, 0, bytes);
	if (!st)
		st = m890_stream_synchronize(s);
out:
	if (s)
		m890_stream_destroy(s);
	if (host)
		m890_buffer_free(host);
	return st;
}

/*
 * Local rank @i's counts and counters from 0, before any peer can know
 * the buffer: on a per-rank communicator a peer may signal into it as
 * soon as the registration round has shown it, before this rank has
 * written its tables, and a later zeroing would erase that arrival.
 */
static m890_status_t epd_zero_shared(struct m890_ep *ep, uint32_t i)
{
	const struct ep_dev_map *m = &ep->dev->map;
	struct m890_device *dev = m890_comm_rank_device(ep->comm, (int)i);
	uint64_t va = ep->dev->r[i].shared->va, n = ep->info.num_ranks;
	struct m890_stream *s = NULL;
	m890_status_t st;

	st = m890_stream_create(dev, &s);
	if (!st)
		st = m890_memset32(s, va + m->count[0], 0, n * 8);
	if (!st)
		st = m890_memset32(s, va + m->count[1], 0, n * 8);
	if (!st)
		st = m890_memset32(s, va + m->arrival, 0, 8);
	if (!st)
		st = m890_memset32(s, va + m->ready, 0, 8);
	if (!st)
		st = m890_stream_synchronize(s);
	if (s)
		m890_stream_destroy(s);
	return st;
}

/*
 * Called by m890_ep_create() once the config is agreed: the buffers of
 * every local rank, registered with the communicator (collective on a
 * per-rank communicator: every rank creates its EP objects in the same
 * order), and their tables.
 */
m890_status_t m890_ep_dev_setup(struct m890_ep *ep)
{
	uint32_t n = ep->info.num_ranks;
	unsigned int index[EP_MAX_RANKS] = { 0 };
	struct ep_dev *d;
	m890_status_t st = M890_SUCCESS;

	d = calloc(1, sizeof(*d));
	if (!d || !(d->r = calloc(n, sizeof(*d->r)))) {
		free(d);
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "ep_create: out of memory");
	}
	ep->dev = d;
	epd_layout(ep, &d->map);
	for (int l = 0; l < ep->nlocal && !st; l++) {
		uint32_t i = (uint32_t)m890_comm_local_rank(ep->comm, l);
		struct m890_device *dev = m890_comm_rank_device(ep->comm, (int)i);

		if ((dev->info.capabilities & EPD_CAPS) != EPD_CAPS) {
			st = m890_fail(M890_ERROR_NOT_SUPPORTED,
				       "ep_create: routing on the card needs a spec 1.1 card (COPY_ROWS, MOE_ROUTE, fabric atomics); %s is spec %u.%u",
				       dev->node, dev->info.spec_version >> 16,
				       dev->info.spec_version & 0xffff);
			break;
		}
		st = m890_buffer_alloc(dev, d->map.shared_bytes, M890_MEM_HBM,
				       &d->r[i].shared);
		if (!st)
			st = m890_buffer_alloc(dev, d->map.priv_bytes, M890_MEM_HBM,
					       &d->r[i].priv);
		if (!st)
			st = epd_zero_shared(ep, i);
	}
	/*
	 * Per-rank communicators: register even after a local failure?  No:
	 * registration is collective and a failed rank cannot take part;
	 * the config round before made every rank fail alike for config
	 * errors, and allocation failures leave the peers to time out in
	 * their registration, naming this rank.
	 */
	for (int l = 0; l < ep->nlocal && !st && ep->per_rank; l++) {
		uint32_t i = (uint32_t)m890_comm_local_rank(ep->comm, l);

		st = m890_comm_register(ep->comm, d->r[i].shared);
		d->r[i].registered = !st;
		if (!st)
			st = m890_comm_reg_find(ep->comm, (int)i, d->r[i].shared,
						&index[i]);
	}
	for (int l = 0; l < ep->nlocal && !st; l++) {
		uint32_t i = (uint32_t)m890_comm_local_rank(ep->comm, l);

		st = epd_tables(ep, i, index[i]);
	}
	if (st) {
		struct m890_saved_error cause;

		m890_error_save(&cause);
		m890_ep_dev_free(ep);
		return m890_error_restore(st, &cause);
	}
	ep->info.recv_bytes = (uint64_t)n * ep->cfg.max_tokens_per_rank *
			      ep->info.row_bytes;
	ep->info.expert_out_bytes = (uint64_t)n * ep->cfg.max_tokens_per_rank *
				    ep->cfg.hidden * 2;
	ep->info.scratch_bytes = d->map.shared_bytes + d->map.priv_bytes;
	return M890_SUCCESS;
}

/* ---- packets ---- */

static void pkt_route_send(union m890_packet *p, struct m890_ep *ep,
			   const struct ep_dev_map *m, uint64_t priv,
			   uint32_t me, uint64_t ids, uint32_t tokens,
			   uint32_t tag, int h)
{
	struct m890_pkt_moe_route *r = &p->moe_route;

	memset(p, 0, sizeof(*p));
	r->hdr = M890_PKT_HDR(M890_PKT_MOE_ROUTE, 0);
	r->mode = M890_ROUTE_SEND;
	r->k = (uint8_t)ep->cfg.top_k;
	r->my_rank = (uint16_t)me;
	r->ids = ids;
	r->tokens = tokens;
	r->tmax = ep->cfg.max_tokens_per_rank;
	r->ranks = (uint16_t)ep->info.num_ranks;
	r->experts_per_rank = (uint16_t)ep->info.num_local_experts;
	r->tag = tag;
	r->out0 = priv + m->send_src;
	r->out1 = priv + m->send_dst;
	r->out2 = priv + m->dest_count[h];
	r->out3 = priv + m->combine_idx[h];
}

static void pkt_route_recv(union m890_packet *p, struct m890_ep *ep,
			   const struct ep_dev_map *m, uint64_t priv,
			   uint64_t shared, uint32_t me, int h)
{
	struct m890_pkt_moe_route *r = &p->moe_route;

	memset(p, 0, sizeof(*p));
	r->hdr = M890_PKT_HDR(M890_PKT_MOE_ROUTE, 0);
	r->mode = M890_ROUTE_RECV;
	r->k = (uint8_t)ep->cfg.top_k;
	r->my_rank = (uint16_t)me;
	r->ids = shared + m->meta[h];
	r->tmax = ep->cfg.max_tokens_per_rank;
	r->ranks = (uint16_t)ep->info.num_ranks;
	r->experts_per_rank = (uint16_t)ep->info.num_local_experts;
	r->cap = ep->info.expert_capacity;
	r->out0 = priv + m->ex_count[h];
	r->out1 = priv + m->ex_rows[h];
	r->out2 = priv + m->ex_weight[h];
	r->out3 = shared + m->count[h];
}

/* Rows of @row_bytes by the send lists into the segments of @table. */
static void pkt_rows(union m890_packet *p, const struct m890_ep *ep,
		     const struct ep_dev_map *m, uint64_t priv, uint64_t src,
		     uint32_t row_bytes, uint32_t src_pitch, uint64_t table,
		     uint32_t dst_pitch, uint8_t op, uint8_t dtype,
		     uint8_t mx_dtype)
{
	struct m890_pkt_copy_rows *c = &p->copy_rows;

	memset(p, 0, sizeof(*p));
	c->hdr = M890_PKT_HDR(M890_PKT_COPY_ROWS, M890_PKT_F_RELAXED);
	c->row_bytes = row_bytes;
	c->src = src;
	c->dst = table;
	c->src_idx = priv + m->send_src;
	c->dst_idx = priv + m->send_dst;
	c->count = ep->info.num_ranks * ep->cfg.max_tokens_per_rank;
	c->seg_rows = ep->cfg.max_tokens_per_rank;
	c->src_pitch = src_pitch;
	c->dst_pitch = dst_pitch;
	c->op = op;
	c->dtype = dtype;
	c->tables = M890_ROWS_DST_TABLE;
	c->mx_dtype = mx_dtype;
}

/*
 * One semaphore operation on every rank's word of the target list @tgt
 * (@values: a list of one value per target, or 0 for @value).  A list
 * names two targets or more (spec §7.5): on one rank the operation goes
 * to @self, this rank's own word, in the single form, and a value taken
 * from memory is moved there by an 8-byte COPY.
 */
static void pkt_signal_all(union m890_packet *p, uint32_t n, uint64_t tgt,
			   uint32_t op, uint64_t value, uint64_t values,
			   uint64_t self)
{
	struct m890_pkt_signal *s = &p->signal;

	memset(p, 0, sizeof(*p));
	if (n == 1 && values) {
		p->copy.hdr = M890_PKT_HDR(M890_PKT_COPY, 0);
		p->copy.src = values;
		p->copy.dst = self;
		p->copy.size = 8;
		return;
	}
	s->hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
	s->op = op;
	s->value = value;
	if (n == 1) {
		s->addr = self;
		return;
	}
	s->count = n;
	s->targets = tgt;
	s->values = values;
}

static void pkt_wait(union m890_packet *p, uint64_t addr, uint64_t value)
{
	memset(p, 0, sizeof(*p));
	p->wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
	p->wait.cond = M890_WAIT_GE;
	p->wait.addr = addr;
	p->wait.value = value;
}

/* ---- what a failed call waits for ---- */

/*
 * Who local rank @i's dispatch is still waiting for: the sources whose
 * count word of this half does not carry this dispatch's tag (read
 * through a CPU mapping of the EP area, which works after a fault too).
 */
static void epd_describe_dispatch(void *ctx, int i, char *buf, size_t len)
{
	struct m890_ep *ep = ctx;
	struct ep_dev *d = ep->dev;
	uint64_t e = d->epoch;
	const volatile uint64_t *cnt;
	size_t off = 0;
	int missing = 0;
	void *p;

	if (m890_buffer_map(d->r[i].shared, &p) != M890_SUCCESS) {
		snprintf(buf, len, "the peers' rows (cannot read which arrived)");
		return;
	}
	cnt = (const volatile uint64_t *)((uint8_t *)p + d->map.count[e & 1]);
	for (uint32_t s = 0; s < ep->info.num_ranks && off < len; s++) {
		if ((uint32_t)(cnt[s] >> 32) == (uint32_t)e)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s rank %u",
					missing++ ? "," : "waiting for the rows of", s);
	}
	if (!missing)
		snprintf(buf, len, "every rank's rows arrived");
}

static void epd_describe_combine(void *ctx, int i, char *buf, size_t len)
{
	struct m890_ep *ep = ctx;
	const volatile uint64_t *ready;
	void *p;

	if (m890_buffer_map(ep->dev->r[i].shared, &p) != M890_SUCCESS) {
		snprintf(buf, len, "the peers' partial rows");
		return;
	}
	ready = (const volatile uint64_t *)((uint8_t *)p + ep->dev->map.ready);
	snprintf(buf, len, "waiting for the peers' partial rows (%llu of %u ranks ready)",
		 (unsigned long long)(*ready - (uint64_t)ep->info.num_ranks *
				      (ep->dev->epoch - 1)),
		 ep->info.num_ranks);
}

/* ---- calls ---- */

static uint8_t epd_mx(uint32_t type)
{
	return type == M890_TYPE_MXFP8 ? M890_DTYPE_MXFP8 : M890_DTYPE_MXFP4;
}

/* Rank @i's buffer @b: on its card, HBM, at least @bytes. */
static m890_status_t epd_buf(struct m890_ep *ep, struct m890_buffer *b,
			     uint32_t i, uint64_t bytes, const char *what)
{
	struct m890_device *d = m890_comm_rank_device(ep->comm, (int)i);
	m890_status_t st = m890_check(b, M890_OBJ_BUFFER, what);

	if (st)
		return st;
	if (b->dev != d)
		return m890_fail(M890_ERROR_DEVICE_MISMATCH,
				 "ep: rank %u's %s is on %s, not on %s", i, what,
				 b->dev->node, d->node);
	if (!(b->flags & M890_MEM_HBM) || b->bytes < bytes)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep: rank %u's %s must be HBM of at least %llu bytes (it is %s, %llu bytes)",
				 i, what, (unsigned long long)bytes,
				 b->flags & M890_MEM_HBM ? "HBM" : "host memory",
				 (unsigned long long)b->bytes);
	return M890_SUCCESS;
}

static m890_status_t epd_call_check(struct m890_ep *ep, struct m890_ep_layout *lo,
				    const m890_stream_t *streams, const char *what)
{
	m890_status_t st = m890_check(ep, M890_OBJ_EP, "EP object");

	if (!st)
		st = m890_check(lo, M890_OBJ_EP_LAYOUT, "EP layout");
	if (st)
		return st;
	if (!ep->dev)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: the EP object routes on the host (created without M890_EP_F_DEVICE_ROUTING)",
				 what);
	if (lo->ep != ep)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: the layout belongs to another EP object", what);
	if (!streams)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT, "%s: NULL streams", what);
	st = m890_comm_usable(ep->comm);
	for (int l = 0; l < ep->nlocal && !st; l++) {
		struct m890_stream *s = streams[l];
		uint32_t i = (uint32_t)m890_comm_local_rank(ep->comm, l);

		st = m890_check(s, M890_OBJ_STREAM, "stream");
		if (!st && s->dev != m890_comm_rank_device(ep->comm, (int)i))
			st = m890_fail(M890_ERROR_DEVICE_MISMATCH,
				       "%s: rank %u's stream is on %s", what, i,
				       s->dev->node);
		if (!st && s->async_error)
			st = m890_fail(s->async_error, "%s: rank %u's stream: %s",
				       what, i, s->async_msg);
	}
	return st;
}

/*
 * The checks of a device-routed dispatch: the arrays, the alternation
 * with the combine, and each local rank's token count and buffers.
 * Nothing to agree with the peers: m890_ep_create() agreed the shapes.
 */
static m890_status_t epd_dispatch_check(struct m890_ep *ep,
					struct m890_buffer *const *x,
					const uint32_t *num_tokens,
					struct m890_buffer *const *topk_idx,
					struct m890_buffer *const *topk_w)
{
	uint64_t t = ep->cfg.max_tokens_per_rank, k = ep->cfg.top_k;
	uint64_t h = ep->cfg.hidden;
	m890_status_t st = M890_SUCCESS;

	if (!x || !num_tokens || !topk_idx || !topk_w)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_dispatch_device: NULL array");
	if (ep->dev->need_combine)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_dispatch_device: the previous dispatch of this EP object has no combine yet (dispatches and combines alternate: the receive halves are reused)");
	for (int l = 0; l < ep->nlocal && !st; l++) {
		uint32_t i = (uint32_t)m890_comm_local_rank(ep->comm, l);

		if (num_tokens[l] > t)
			st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
				       "ep_dispatch_device: rank %u has %u tokens, more than max_tokens_per_rank %llu",
				       i, num_tokens[l], (unsigned long long)t);
		if (!st)
			st = epd_buf(ep, x[l], i, t * h * 2, "x");
		if (!st)
			st = epd_buf(ep, topk_idx[l], i, t * k * 4, "topk_idx");
		if (!st)
			st = epd_buf(ep, topk_w[l], i, t * k * 4, "topk_w");
	}
	return st;
}

/*
 * Rank @i's nine packets of dispatch @e (half @hf): route and count on
 * the card, copy the ids, weights and rows (quantizing MX payloads) into
 * every peer's half, signal the counts and the arrival, wait for every
 * peer's, and build the expert lists.
 */
static void epd_dispatch_packets(struct m890_ep *ep, uint32_t i, uint64_t e,
				 int hf, uint32_t tokens, uint64_t x_va,
				 uint64_t idx_va, uint64_t w_va,
				 union m890_packet p[9])
{
	const struct ep_dev_map *m = &ep->dev->map;
	uint64_t priv = ep->dev->r[i].priv->va, shared = ep->dev->r[i].shared->va;
	uint32_t k4 = 4 * ep->cfg.top_k, h2 = 2 * ep->cfg.hidden;
	uint32_t n = ep->info.num_ranks, type = ep->cfg.dispatch_type;

	pkt_route_send(&p[0], ep, m, priv, i, idx_va, tokens, (uint32_t)e, hf);
	pkt_wait(&p[1], shared + m->arrival, 0);
	pkt_rows(&p[2], ep, m, priv, idx_va, k4, k4, priv + m->t_ids[hf], 2 * k4,
		 M890_ROWS_COPY, 0, 0);
	pkt_rows(&p[3], ep, m, priv, w_va, k4, k4, priv + m->t_w[hf], 2 * k4,
		 M890_ROWS_COPY, 0, 0);
	if (type == M890_TYPE_BF16)
		pkt_rows(&p[4], ep, m, priv, x_va, h2, h2, priv + m->t_rows[hf],
			 ep->info.row_bytes, M890_ROWS_COPY, 0, 0);
	else
		pkt_rows(&p[4], ep, m, priv, x_va, h2, h2, priv + m->t_rows[hf],
			 ep->info.row_bytes, M890_ROWS_MX, M890_DTYPE_BF16,
			 epd_mx(type));
	pkt_signal_all(&p[5], n, priv + m->t_count[hf], M890_SIGNAL_SET, 0,
		       priv + m->dest_count[hf], shared + m->count[hf] + 8ull * i);
	pkt_signal_all(&p[6], n, priv + m->t_arrival, M890_SIGNAL_ADD, 1, 0,
		       shared + m->arrival);
	pkt_wait(&p[7], shared + m->arrival, (uint64_t)n * e);
	pkt_route_recv(&p[8], ep, m, priv, shared, i, hf);
}

M890_EXPORT m890_status_t m890_ep_dispatch_device(m890_ep_t ep,
						  m890_ep_layout_t lo,
						  const m890_buffer_t *x,
						  const uint32_t *num_tokens,
						  const m890_buffer_t *topk_idx,
						  const m890_buffer_t *topk_w,
						  const m890_stream_t *streams)
{
	M890_API_SCOPE;
	m890_status_t st = epd_call_check(ep, lo, streams, "ep_dispatch_device");
	struct ep_dev *d;
	uint64_t e;
	int hf;

	if (!st)
		st = epd_dispatch_check(ep, x, num_tokens, topk_idx, topk_w);
	if (st)
		return st;
	d = ep->dev;
	e = ++d->epoch;
	hf = (int)(e & 1);
	for (int l = 0; l < ep->nlocal && !st; l++) {
		uint32_t i = (uint32_t)m890_comm_local_rank(ep->comm, l);
		union m890_packet p[9];

		lo->tokens[i] = num_tokens[l];
		epd_dispatch_packets(ep, i, e, hf, num_tokens[l], x[l]->va,
				     topk_idx[l]->va, topk_w[l]->va, p);
		st = m890_stream_enqueue(streams[l], p, 9);
	}
	if (st)
		return m890_comm_set_error(ep->comm, st, m890_last_detail());
	lo->epoch = e;
	lo->combined = false;
	lo->dispatched = true;
	d->need_combine = true;
	m890_comm_set_describe(ep->comm, "EP dispatch (routing on the card)",
			       epd_describe_dispatch, ep);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_ep_get_recv(m890_ep_layout_t lo, int l,
					   struct m890_ep_recv *out)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(lo, M890_OBJ_EP_LAYOUT, "EP layout");
	struct m890_ep *ep;
	const struct ep_dev_map *m;
	uint32_t i;
	int hf;

	if (st)
		return st;
	ep = lo->ep;
	if (!out || !ep->dev || !lo->epoch || l < 0 || l >= ep->nlocal)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_get_recv: %s",
				 !out ? "NULL output" : !ep->dev ?
				 "the EP object routes on the host" :
				 !lo->epoch ? "no device-routed dispatch yet" :
				 "no such local rank");
	m = &ep->dev->map;
	i = (uint32_t)m890_comm_local_rank(ep->comm, l);
	hf = (int)(lo->epoch & 1);
	out->rows = ep->dev->r[i].shared;
	out->rows_offset = m->rows[hf];
	out->meta = ep->dev->r[i].shared;
	out->meta_offset = m->meta[hf];
	out->partial = ep->dev->r[i].shared;
	out->partial_offset = m->partial[hf];
	out->experts = ep->dev->r[i].priv;
	out->expert_count_offset = m->ex_count[hf];
	out->expert_rows_offset = m->ex_rows[hf];
	out->expert_weight_offset = m->ex_weight[hf];
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_ep_combine_device(m890_ep_t ep,
						 m890_ep_layout_t lo,
						 const m890_buffer_t *out,
						 const m890_stream_t *streams)
{
	M890_API_SCOPE;
	m890_status_t st = epd_call_check(ep, lo, streams, "ep_combine_device");
	uint64_t n, e;
	struct ep_dev *d;
	int hf;

	if (st)
		return st;
	d = ep->dev;
	n = ep->info.num_ranks;
	if (!out)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_combine_device: NULL out");
	if (!lo->epoch || lo->combined || lo->epoch != d->epoch)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "ep_combine_device: the layout holds %s",
				 !lo->epoch ? "no dispatch" : lo->combined ?
				 "a dispatch that was combined already" :
				 "an older dispatch than the EP object's last");
	for (int l = 0; l < ep->nlocal && !st; l++)
		st = epd_buf(ep, out[l], (uint32_t)m890_comm_local_rank(ep->comm, l),
			     (uint64_t)ep->cfg.max_tokens_per_rank *
			     ep->cfg.hidden * 2, "out");
	if (st)
		return st;
	e = lo->epoch;
	hf = (int)(e & 1);
	for (int l = 0; l < ep->nlocal && !st; l++) {
		uint32_t i = (uint32_t)m890_comm_local_rank(ep->comm, l);
		const struct ep_dev_map *m = &d->map;
		uint64_t priv = d->r[i].priv->va, shared = d->r[i].shared->va;
		union m890_packet p[3];
		struct m890_pkt_reduce *r = &p[2].reduce;

		pkt_signal_all(&p[0], (uint32_t)n, priv + m->t_ready,
			       M890_SIGNAL_ADD, 1, 0, shared + m->ready);
		pkt_wait(&p[1], shared + m->ready, n * e);
		memset(&p[2], 0, sizeof(p[2]));
		r->hdr = M890_PKT_HDR(M890_PKT_REDUCE, 0);
		r->dtype = M890_DTYPE_BF16;
		r->k = (uint8_t)ep->cfg.top_k;
		r->flags = M890_REDUCE_F_SRC_TABLE | M890_REDUCE_F_UNWEIGHTED;
		r->src = priv + m->t_partial[hf];
		r->dst = out[l]->va;
		r->idx = priv + m->combine_idx[hf];
		r->rows = lo->tokens[i];
		r->hidden = ep->cfg.hidden;
		r->seg_rows = ep->cfg.max_tokens_per_rank;
		st = m890_stream_enqueue(streams[l], p, 3);
	}
	if (st)
		return m890_comm_set_error(ep->comm, st, m890_last_detail());
	lo->combined = true;
	d->need_combine = false;
	m890_comm_set_describe(ep->comm, "EP combine (routing on the card)",
			       epd_describe_combine, ep);
	return M890_SUCCESS;
}

/*
 * m890_ep_layout_counts() of a device-routed layout: the local ranks'
 * experts, read back from their cards (the call does not wait for the
 * dispatch: the caller synchronizes its streams first); the other ranks'
 * experts are UINT32_MAX on a per-rank communicator (they are on cards
 * of other processes).
 */
m890_status_t m890_ep_dev_counts(struct m890_ep_layout *lo, uint32_t *counts)
{
	struct m890_ep *ep = lo->ep;
	uint32_t nl = ep->info.num_local_experts;
	int hf = (int)(lo->epoch & 1);
	m890_status_t st = M890_SUCCESS;

	for (uint32_t e = 0; e < ep->cfg.num_experts; e++)
		counts[e] = UINT32_MAX;
	for (int l = 0; l < ep->nlocal && !st; l++) {
		uint32_t i = (uint32_t)m890_comm_local_rank(ep->comm, l);
		struct m890_device *dev = m890_comm_rank_device(ep->comm, (int)i);
		struct m890_buffer *host = NULL;
		struct m890_stream *s = NULL;
		void *p = NULL;

		st = m890_buffer_alloc(dev, 4ull * nl, M890_MEM_HOST, &host);
		if (!st)
			st = m890_buffer_map(host, &p);
		if (!st)
			st = m890_stream_create(dev, &s);
		/*
		 * A new stream does not wait for the dispatch's: the caller
		 * synchronizes first (as documented), and a stream of the
		 * same card runs after work it was enqueued after only when
		 * both are one stream.  The copy is small; read it now.
		 */
		if (!st)
			st = m890_memcpy_dtoh(s, host, 0, ep->dev->r[i].priv,
					      ep->dev->map.ex_count[hf], 4ull * nl);
		if (!st)
			st = m890_stream_synchronize(s);
		if (!st)
			memcpy(counts + (uint64_t)i * nl, p, 4ull * nl);
		if (s)
			m890_stream_destroy(s);
		if (host)
			m890_buffer_free(host);
	}
	return st;
}
