// SPDX-License-Identifier: MIT
/*
 * DOC: device collectives: allreduce, allgather, reduce-scatter, broadcast
 * and barrier on every kind of communicator
 *
 * Every call runs in the three steps of coll.c: local checks into one
 * record per local rank, the records through m890_comm_allgather_host()
 * and the same global checks in every process (so a mismatch fails at
 * every rank alike, with nothing enqueued), then the transfers through
 * m890_comm_exchange(): ready signals, direct writes into the peers'
 * memory through windows, done signals.  The arithmetic is one REDUCE
 * packet per rank and piece, never the host.
 *
 * Reductions gather the operands in a scratch area of
 * M890_COMM_SCRATCH_BYTES of HBM per rank, allocated by the first
 * reduction of the communicator (collectively: on a per-rank
 * communicator it is registered like a caller's receive buffer, under
 * the registration number every rank's record must agree on).  Slot j
 * of rank i's scratch holds rank j's operand rows; REDUCE sums them
 * with k = n, rows = 1, an index list 0 .. n-1 and weights 1.0, so each
 * element is ((+0 + x_0) + x_1) + ... + x_{n-1} in binary32, in rank
 * order, rounded once to the output type: the result is bit-exact and
 * the same for every algorithm and piece size.
 *
 * Algorithms (Documentation/architecture.rst, "Device collectives"):
 * allreduce is one-shot (every rank writes its whole operand into every
 * peer's scratch, every rank reduces all of it: one exchange) up to
 * M890_ALLREDUCE_ONE_SHOT_MAX_BYTES, and always on two ranks; above it
 * two-shot (reduce-scatter of n blocks, each rank reduces its block,
 * then an allgather of the reduced blocks: two exchanges, 2(n-1)/n of
 * the operand on the links instead of n-1 times it).  Operands larger
 * than the scratch run in pieces, one after the other on the stream.
 * The scratch of the next piece or collective is written only after its
 * owner signalled ready, which its stream does after the REDUCE that read
 * it: no extra synchronisation is needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum dkind {
	DK_ALLREDUCE = 1,
	DK_ALLGATHER = 2,
	DK_REDUCE_SCATTER = 3,
	DK_BROADCAST = 4,
	DK_BARRIER = 5,
};

/* One rank's scratch: operand slots, and the REDUCE's index list. */
struct dcoll_rank {
	struct m890_buffer *scratch;	/* HBM, M890_COMM_SCRATCH_BYTES */
	struct m890_buffer *tab;	/* host, mapped: n u32 0..n-1, n f32 1.0 */
	unsigned int index;		/* registration (per-rank comms) */
};

struct m890_dcoll {
	int n;
	struct dcoll_rank r[];		/* [n], local ranks only */
};

/* A call: its arguments, with the per-local-rank arrays. */
struct dcall {
	struct m890_comm *c;
	const char *what;
	enum dkind kind;
	uint64_t count;			/* elements or bytes */
	enum m890_data_type type;
	int root;
	uint32_t algo;
	struct m890_buffer *const *sb;
	struct m890_buffer *const *rb;
	const m890_stream_t *streams;
	const struct m890_coll_opts *opts;
	unsigned int esz;		/* element size; 1 for byte counts */
	/* Resolved VAs by pair (i, j), rows of the local ranks: */
	uint64_t *rva;			/* j's receive buffer, on i's card */
	uint64_t *sva;			/* j's scratch, on i's card */
	struct m890_dcoll_rec *all;		/* [n] records */
};

/* What a phase of the exchange moves. */
enum dphase {
	PH_NONE,
	PH_ALLGATHER,
	PH_BCAST,
	PH_RS_PUSH,		/* reduce-scatter piece: block j to j's slot i */
	PH_AR1_PUSH,		/* one-shot piece: all to j's slot i */
	PH_AR2_PUSH,		/* two-shot piece: block j to j's slot i */
	PH_AR2_GATHER,		/* two-shot piece: own reduced block to j */
};

struct dxfer {
	struct dcall *k;
	enum dphase ph;
	uint64_t po, len;	/* piece: first element, elements */
	uint64_t blk;		/* two-shot: elements per block */
};

static bool is_reduction(enum dkind kind)
{
	return kind == DK_ALLREDUCE || kind == DK_REDUCE_SCATTER;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

void m890_dcoll_free(struct m890_dcoll *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->n; i++) {
		if (d->r[i].scratch)
			m890_buffer_free(d->r[i].scratch);
		if (d->r[i].tab)
			m890_buffer_free(d->r[i].tab);
	}
	free(d);
}

/* Local rank @i's in-place flag: one buffer for both roles. */
static bool in_place(const struct dcall *k, int l)
{
	return k->sb[l] == k->rb[l];
}

/* Bytes a rank's send and receive buffers need. */
static void need_bytes(const struct dcall *k, int n, bool inplace,
		       uint64_t *send, uint64_t *recv)
{
	uint64_t b = k->count * k->esz;

	switch (k->kind) {
	case DK_ALLREDUCE:
	case DK_BROADCAST:
		*send = *recv = b;
		break;
	case DK_ALLGATHER:
		*recv = b * (uint64_t)n;
		*send = inplace ? *recv : b;
		break;
	case DK_REDUCE_SCATTER:
		*send = b * (uint64_t)n;
		*recv = inplace ? *send : b;
		break;
	default:
		*send = *recv = 0;
		break;
	}
}

/* Peers write this rank's receive buffer. */
static bool peers_write_recv(const struct dcall *k)
{
	return k->kind == DK_ALLREDUCE || k->kind == DK_ALLGATHER ||
	       k->kind == DK_BROADCAST;
}

/* Local rank @l's checks, into @r. */
static m890_status_t local_checks(struct dcall *k, int l, struct m890_dcoll_rec *r)
{
	struct m890_comm *c = k->c;
	int n = m890_comm_ranks(c), i = m890_comm_local_rank(c, l);
	const char *what = k->what;
	uint64_t need_s, need_r;
	bool root_only_send = k->kind == DK_BROADCAST && i != k->root;
	m890_status_t st;

	st = m890_coll_check_stream(c, i, k->streams[l], what);
	if (st)
		return st;
	if (k->opts && k->opts->events && k->opts->events[l]) {
		struct m890_event *ev = k->opts->events[l];

		st = m890_check(ev, M890_OBJ_EVENT, "event");
		if (st)
			return st;
		if (ev->dev != m890_comm_rank_device(c, i))
			return m890_fail(M890_ERROR_DEVICE_MISMATCH,
					 "%s: rank %d's event is of %s, not of %s",
					 what, i, ev->dev->node,
					 m890_comm_rank_device(c, i)->node);
	}
	if (k->kind == DK_BARRIER)
		return M890_SUCCESS;
	if (!root_only_send) {
		st = m890_coll_check_buf(c, i, k->sb[l], what, "send buffer");
		if (st)
			return st;
	}
	st = m890_coll_check_buf(c, i, k->rb[l], what, "receive buffer");
	if (st)
		return st;
	need_bytes(k, n, !root_only_send && in_place(k, l), &need_s, &need_r);
	if (!root_only_send && k->sb[l]->bytes < need_s)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: rank %d's send buffer has %llu bytes, the call needs %llu",
				 what, i, (unsigned long long)k->sb[l]->bytes,
				 (unsigned long long)need_s);
	if (k->rb[l]->bytes < need_r)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: rank %d's receive buffer has %llu bytes, the call needs %llu",
				 what, i, (unsigned long long)k->rb[l]->bytes,
				 (unsigned long long)need_r);
	if (n > 1 && peers_write_recv(k) && !(k->rb[l]->flags & M890_MEM_HBM))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: rank %d's receive buffer is host memory; peers write it through the fabric, it must be HBM",
				 what, i);
	if (n > 1 && peers_write_recv(k) && m890_comm_is_per_rank(c)) {
		unsigned int index;

		st = m890_comm_reg_find(c, i, k->rb[l], &index);
		if (st)
			return st;
		r->recv_index = index;
	}
	return M890_SUCCESS;
}

/* Registration number local rank @i's scratch has or will get. */
static unsigned int scratch_index(struct m890_comm *c, int i)
{
	struct m890_dcoll *d = *m890_comm_dcoll(c);

	if (d && d->r[i].scratch)
		return d->r[i].index;
	return m890_comm_nreg(c, i);
}

/* The scratch of every local rank, allocated (and registered) once. */
static m890_status_t scratch_setup(struct m890_comm *c, const char *what)
{
	struct m890_dcoll **dp = m890_comm_dcoll(c), *d = *dp;
	int n = m890_comm_ranks(c);
	m890_status_t st = M890_SUCCESS;

	if (d)
		return M890_SUCCESS;
	d = calloc(1, sizeof(*d) + (size_t)n * sizeof(d->r[0]));
	if (!d)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "%s: out of memory", what);
	d->n = n;
	for (int l = 0; l < m890_comm_nlocal(c) && !st; l++) {
		int i = m890_comm_local_rank(c, l);
		struct dcoll_rank *r = &d->r[i];
		struct m890_device *dev = m890_comm_rank_device(c, i);
		void *p;

		st = m890_buffer_alloc(dev, M890_COMM_SCRATCH_BYTES, M890_MEM_HBM,
				       &r->scratch);
		if (!st)
			st = m890_buffer_alloc(dev, 8ull * (uint64_t)n, M890_MEM_HOST,
					       &r->tab);
		if (!st)
			st = m890_buffer_map(r->tab, &p);
		if (!st) {
			uint32_t *idx = p;
			float *w = (float *)(idx + n);

			for (int j = 0; j < n; j++) {
				idx[j] = (uint32_t)j;
				w[j] = 1.0f;
			}
		}
	}
	/* Registered in the same order by every process (all got here). */
	for (int l = 0; l < m890_comm_nlocal(c) && !st && m890_comm_is_per_rank(c); l++) {
		int i = m890_comm_local_rank(c, l);

		d->r[i].index = m890_comm_nreg(c, i);
		st = m890_comm_register(c, d->r[i].scratch);
	}
	if (st) {
		struct m890_saved_error why;

		m890_error_save(&why);
		m890_dcoll_free(d);
		m890_fail_wrap(st, &why, "%s: scratch of the reductions", what);
		/* A registration may have taken place at some ranks only. */
		return m890_comm_set_error(c, st, m890_last_detail());
	}
	*dp = d;
	return M890_SUCCESS;
}

/* Windows of every pair the call writes through, before anything runs. */
static m890_status_t resolve(struct dcall *k)
{
	struct m890_comm *c = k->c;
	struct m890_dcoll *d = *m890_comm_dcoll(c);
	int n = m890_comm_ranks(c);
	m890_status_t st = M890_SUCCESS;

	for (int l = 0; l < m890_comm_nlocal(c) && !st; l++) {
		int i = m890_comm_local_rank(c, l);

		for (int j = 0; j < n && !st; j++) {
			size_t p = (size_t)i * n + j;
			int lj = m890_comm_local_index(c, j);

			if (peers_write_recv(k) &&
			    (k->kind != DK_BROADCAST || i == k->root))
				st = m890_coll_recv_va(c, i, j, lj >= 0 ? k->rb[lj] : NULL,
						       k->all[j].recv_index, &k->rva[p]);
			if (!st && is_reduction(k->kind)) {
				uint64_t bytes = UINT64_MAX;

				if (!m890_comm_is_per_rank(c))
					st = m890_comm_peer_va(c, i, j, d->r[j].scratch,
							       &k->sva[p]);
				else if (j == i)
					k->sva[p] = d->r[i].scratch->va;
				else
					st = m890_comm_reg_peer(c, i, j, d->r[i].index,
								&k->sva[p], &bytes);
				if (!st && m890_comm_is_per_rank(c) && j != i &&
				    bytes < M890_COMM_SCRATCH_BYTES)
					st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
						       "%s: rank %d's registration #%u is not its scratch (%llu bytes)",
						       k->what, j, d->r[i].index,
						       (unsigned long long)bytes);
			}
		}
	}
	return st;
}

/* Rows of block @b of a two-shot piece of @len elements in blocks of @blk. */
static uint64_t blk_len(uint64_t len, uint64_t blk, int b)
{
	uint64_t first = blk * (uint64_t)b;

	return first >= len ? 0 : min64(blk, len - first);
}

static m890_status_t dxfer_fn(void *ctx, int i, int j, struct m890_stream *s)
{
	struct dxfer *x = ctx;
	struct dcall *k = x->k;
	struct m890_comm *c = k->c;
	int n = m890_comm_ranks(c), l = m890_comm_local_index(c, i);
	size_t p = (size_t)i * n + j;
	uint64_t e = k->esz, b, len;

	switch (x->ph) {
	case PH_ALLGATHER:
		b = k->count;
		if (j == i && in_place(k, l))
			return M890_SUCCESS;
		return m890_comm_copy(c, s, k->rva[p] + (uint64_t)i * b,
				      k->sb[l]->va + (in_place(k, l) ? (uint64_t)i * b : 0), b);
	case PH_BCAST:
		if (i != k->root || (j == i && in_place(k, l)))
			return M890_SUCCESS;
		return m890_comm_copy(c, s, k->rva[p], k->sb[l]->va, k->count);
	case PH_RS_PUSH:
		return m890_comm_copy(c, s, k->sva[p] + (uint64_t)i * x->len * e,
				      k->sb[l]->va + ((uint64_t)j * k->count + x->po) * e,
				      x->len * e);
	case PH_AR1_PUSH:
		return m890_comm_copy(c, s, k->sva[p] + (uint64_t)i * x->len * e,
				      k->sb[l]->va + x->po * e, x->len * e);
	case PH_AR2_PUSH:
		len = blk_len(x->len, x->blk, j);
		return m890_comm_copy(c, s, k->sva[p] + (uint64_t)i * len * e,
				      k->sb[l]->va + (x->po + x->blk * (uint64_t)j) * e,
				      len * e);
	case PH_AR2_GATHER:
		if (j == i)
			return M890_SUCCESS;
		len = blk_len(x->len, x->blk, i);
		b = (x->po + x->blk * (uint64_t)i) * e;
		return m890_comm_copy(c, s, k->rva[p] + b, k->rb[l]->va + b, len * e);
	default:
		return M890_SUCCESS;
	}
}

/* One exchange of phase @ph over the local ranks' streams. */
static m890_status_t run_phase(struct dcall *k, struct dxfer *x, enum dphase ph)
{
	struct m890_stream *gs[M890_COMM_MAX_RANKS] = { 0 };
	struct m890_comm *c = k->c;

	x->ph = ph;
	for (int l = 0; l < m890_comm_nlocal(c); l++)
		gs[m890_comm_local_rank(c, l)] = k->streams[l];
	return m890_comm_exchange(c, gs, k->what, dxfer_fn, x);
}

/* Rank @i's REDUCE of its scratch slots (@len elements each) to @dst. */
static m890_status_t reduce_slots(struct dcall *k, int i, uint64_t dst,
				  uint64_t len)
{
	struct m890_dcoll *d = *m890_comm_dcoll(k->c);
	int n = m890_comm_ranks(k->c), l = m890_comm_local_index(k->c, i);
	union m890_packet p;
	m890_status_t st;

	if (!len)
		return M890_SUCCESS;
	memset(&p, 0, sizeof(p));
	p.reduce.hdr = M890_PKT_HDR(M890_PKT_REDUCE, 0);
	p.reduce.dtype = (uint8_t)k->type;
	p.reduce.k = (uint8_t)n;
	p.reduce.src = d->r[i].scratch->va;
	p.reduce.dst = dst;
	p.reduce.idx = d->r[i].tab->va;
	p.reduce.weight = d->r[i].tab->va + 4ull * (uint64_t)n;
	p.reduce.rows = 1;
	p.reduce.hidden = (uint32_t)len;
	st = m890_stream_enqueue(k->streams[l], &p, 1);
	if (st) {
		m890_fail_wrap(st, NULL, "%s: REDUCE of rank %d not enqueued",
			       k->what, i);
		return m890_comm_set_error(k->c, st, m890_last_detail());
	}
	return M890_SUCCESS;
}

/* Elements per scratch slot. */
static uint64_t slot_elems(const struct dcall *k, int n)
{
	return M890_COMM_SCRATCH_BYTES / ((uint64_t)n * k->esz);
}

static m890_status_t run_reduce_scatter(struct dcall *k, struct dxfer *x)
{
	struct m890_comm *c = k->c;
	int n = m890_comm_ranks(c);
	uint64_t slot = slot_elems(k, n);
	m890_status_t st = M890_SUCCESS;

	for (uint64_t po = 0; po < k->count && !st; po += slot) {
		x->po = po;
		x->len = min64(slot, k->count - po);
		st = run_phase(k, x, PH_RS_PUSH);
		for (int l = 0; l < m890_comm_nlocal(c) && !st; l++) {
			int i = m890_comm_local_rank(c, l);
			uint64_t dst = k->rb[l]->va + po * k->esz;

			if (in_place(k, l))
				dst += (uint64_t)i * k->count * k->esz;
			st = reduce_slots(k, i, dst, x->len);
		}
	}
	return st;
}

static m890_status_t run_allreduce(struct dcall *k, struct dxfer *x)
{
	struct m890_comm *c = k->c;
	int n = m890_comm_ranks(c);
	uint64_t slot = slot_elems(k, n);
	uint64_t piece = k->algo == M890_ALGO_ONE_SHOT ? slot : slot * (uint64_t)n;
	m890_status_t st = M890_SUCCESS;

	for (uint64_t po = 0; po < k->count && !st; po += piece) {
		x->po = po;
		x->len = min64(piece, k->count - po);
		if (k->algo == M890_ALGO_ONE_SHOT) {
			st = run_phase(k, x, PH_AR1_PUSH);
			for (int l = 0; l < m890_comm_nlocal(c) && !st; l++)
				st = reduce_slots(k, m890_comm_local_rank(c, l),
						  k->rb[l]->va + po * k->esz, x->len);
			continue;
		}
		x->blk = (x->len + (uint64_t)n - 1) / (uint64_t)n;
		st = run_phase(k, x, PH_AR2_PUSH);
		for (int l = 0; l < m890_comm_nlocal(c) && !st; l++) {
			int i = m890_comm_local_rank(c, l);

			st = reduce_slots(k, i, k->rb[l]->va +
					  (po + x->blk * (uint64_t)i) * k->esz,
					  blk_len(x->len, x->blk, i));
		}
		if (!st)
			st = run_phase(k, x, PH_AR2_GATHER);
	}
	return st;
}

static m890_status_t check_opts(const struct m890_coll_opts *o, const char *what)
{
	if (!o)
		return M890_SUCCESS;
	if (o->size < sizeof(*o) || o->magic != M890_COLL_OPTS_MAGIC ||
	    o->version != M890_COLL_OPTS_VERSION || o->flags || o->reserved ||
	    o->algorithm > M890_ALGO_TWO_SHOT)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: options not initialized with M890_COLL_OPTS_INIT, unknown flags or algorithm",
				 what);
	return M890_SUCCESS;
}

/* The algorithm of an allreduce of @bytes per rank over @n ranks. */
static uint32_t pick_algo(uint32_t asked, uint64_t bytes, int n)
{
	if (asked != M890_ALGO_AUTO)
		return asked;
	if (n <= 2 || bytes <= min64(M890_ALLREDUCE_ONE_SHOT_MAX_BYTES,
				     M890_COMM_SCRATCH_BYTES / (uint64_t)n))
		return M890_ALGO_ONE_SHOT;
	return M890_ALGO_TWO_SHOT;
}

/*
 * The local checks of @k: the arguments every rank shares (a refusal of
 * them is the process's), then each local rank's buffers and stream,
 * into its record @own[l] with the call's arguments.
 */
static void dcoll_validate(struct dcall *k, int32_t op, struct m890_dcoll_rec *own)
{
	struct m890_comm *c = k->c;
	int n = m890_comm_ranks(c), m = m890_comm_nlocal(c);
	m890_status_t st, bad = check_opts(k->opts, k->what);

	k->esz = !is_reduction(k->kind) ? 1 : k->type == M890_TYPE_BF16 ? 2 : 4;
	if (!bad && (!k->streams || (k->kind != DK_BARRIER && (!k->sb || !k->rb))))
		bad = m890_fail(M890_ERROR_INVALID_ARGUMENT, "%s: NULL array", k->what);
	if (!bad && is_reduction(k->kind) &&
	    ((k->type != M890_TYPE_FP32 && k->type != M890_TYPE_BF16) ||
	     op != M890_OP_SUM))
		bad = m890_fail(M890_ERROR_INVALID_ARGUMENT,
				"%s: type %d or operation %d not supported (FP32 or BF16, SUM)",
				k->what, (int)k->type, (int)op);
	if (!bad && k->kind == DK_BROADCAST && (k->root < 0 || k->root >= n))
		bad = m890_fail(M890_ERROR_INVALID_ARGUMENT, "%s: root %d is not a rank of %d",
				k->what, k->root, n);
	if (!bad && k->count > (1ull << 40))
		bad = m890_fail(M890_ERROR_INVALID_ARGUMENT,
				"%s: count %llu above 2^40", k->what,
				(unsigned long long)k->count);
	k->algo = k->kind == DK_ALLREDUCE ?
		  pick_algo(k->opts ? k->opts->algorithm : 0, k->count * k->esz, n) : 0;
	for (int l = 0; l < m; l++) {
		struct m890_dcoll_rec *r = &own[l];

		r->kind = k->kind;
		r->count = k->count;
		r->type = (uint32_t)k->type;
		r->op = (uint32_t)op;
		r->root = k->root;
		r->algo = k->algo;
		r->scratch_index = scratch_index(c, m890_comm_local_rank(c, l));
		st = bad ? bad : local_checks(k, l, r);
		if (st)
			m890_coll_refuse(st, k->what, &r->status, r->msg);
	}
}

/* The agreement: every rank's record in every process, the same checks. */
static m890_status_t dcoll_agree(struct dcall *k, const struct m890_dcoll_rec *own)
{
	const void *mine[M890_COMM_MAX_RANKS];
	int n = m890_comm_ranks(k->c);
	m890_status_t st;
	char msg[400];

	for (int l = 0; l < m890_comm_nlocal(k->c); l++)
		mine[l] = &own[l];
	st = m890_comm_allgather_host(k->c, k->what, mine, sizeof(own[0]), k->all);
	if (st)
		return st;
	st = m890_dcoll_check(n, k->all, is_reduction(k->kind), k->what, msg,
			      sizeof(msg));
	return st ? m890_fail(st, "%s", msg) : M890_SUCCESS;
}

/* The enqueue: scratch and VAs, the call's phases, then the events. */
static m890_status_t dcoll_enqueue(struct dcall *k)
{
	struct dxfer x = { .k = k };
	m890_status_t st = M890_SUCCESS;

	if (k->kind != DK_BARRIER && !k->count)
		goto events;
	if (is_reduction(k->kind)) {
		st = scratch_setup(k->c, k->what);
		if (st)
			return st;
	}
	st = resolve(k);
	if (st)
		return st;
	switch (k->kind) {
	case DK_ALLREDUCE:
		st = run_allreduce(k, &x);
		break;
	case DK_REDUCE_SCATTER:
		st = run_reduce_scatter(k, &x);
		break;
	case DK_ALLGATHER:
		st = run_phase(k, &x, PH_ALLGATHER);
		break;
	case DK_BROADCAST:
		st = run_phase(k, &x, PH_BCAST);
		break;
	default:
		st = run_phase(k, &x, PH_NONE);
		break;
	}
	if (st)
		return st;
events:
	for (int l = 0; l < m890_comm_nlocal(k->c) && !st && k->opts && k->opts->events; l++)
		if (k->opts->events[l])
			st = m890_event_record(k->opts->events[l], k->streams[l]);
	return st;
}

/*
 * Every device collective: validate, agree, enqueue.  The records live
 * on the heap (n of them are 13 KiB at 64 ranks).
 */
static m890_status_t dcoll_run(struct dcall *k, int32_t op)
{
	struct m890_comm *c = k->c;
	m890_status_t st = m890_comm_usable(c);
	struct m890_dcoll_rec *own;
	int n;

	if (st)
		return st;
	n = m890_comm_ranks(c);
	own = calloc((size_t)m890_comm_nlocal(c), sizeof(*own));
	k->all = calloc((size_t)n, sizeof(*k->all));
	k->rva = calloc((size_t)n * n, sizeof(*k->rva));
	k->sva = calloc((size_t)n * n, sizeof(*k->sva));
	if (!own || !k->all || !k->rva || !k->sva) {
		st = m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "%s: out of memory", k->what);
		goto out;
	}
	dcoll_validate(k, op, own);
	st = dcoll_agree(k, own);
	if (!st && !m890_comm_group_dry(c))
		st = dcoll_enqueue(k);
out:
	free(own);
	free(k->all);
	free(k->rva);
	free(k->sva);
	return st;
}

M890_EXPORT m890_status_t m890_allreduce(m890_comm_t comm,
					 const m890_buffer_t *sendbufs,
					 const m890_buffer_t *recvbufs,
					 uint64_t count, enum m890_data_type type,
					 enum m890_red_op op,
					 const m890_stream_t *streams,
					 const struct m890_coll_opts *opts)
{
	M890_API_SCOPE;
	struct dcall k = { .c = comm, .what = "allreduce", .kind = DK_ALLREDUCE,
			   .count = count, .type = type, .sb = sendbufs,
			   .rb = recvbufs, .streams = streams, .opts = opts };

	if (m890_group_active()) {
		struct m890_gcall g = { .kind = M890_G_ALLREDUCE, .c = comm, .sb = sendbufs, .rb = recvbufs,
					 .count = count, .type = (int)type, .op = (int)op,
					 .streams = streams, .opts = opts };

		return m890_group_add(&g);
	}
	return dcoll_run(&k, (int32_t)op);
}

M890_EXPORT m890_status_t m890_reduce_scatter(m890_comm_t comm,
					      const m890_buffer_t *sendbufs,
					      const m890_buffer_t *recvbufs,
					      uint64_t recvcount,
					      enum m890_data_type type,
					      enum m890_red_op op,
					      const m890_stream_t *streams,
					      const struct m890_coll_opts *opts)
{
	M890_API_SCOPE;
	struct dcall k = { .c = comm, .what = "reduce_scatter",
			   .kind = DK_REDUCE_SCATTER, .count = recvcount,
			   .type = type, .sb = sendbufs, .rb = recvbufs,
			   .streams = streams, .opts = opts };

	if (m890_group_active()) {
		struct m890_gcall g = { .kind = M890_G_REDUCE_SCATTER, .c = comm, .sb = sendbufs, .rb = recvbufs,
					 .count = recvcount, .type = (int)type, .op = (int)op,
					 .streams = streams, .opts = opts };

		return m890_group_add(&g);
	}
	return dcoll_run(&k, (int32_t)op);
}

M890_EXPORT m890_status_t m890_allgather(m890_comm_t comm,
					 const m890_buffer_t *sendbufs,
					 const m890_buffer_t *recvbufs,
					 uint64_t bytes_per_rank,
					 const m890_stream_t *streams,
					 const struct m890_coll_opts *opts)
{
	M890_API_SCOPE;
	struct dcall k = { .c = comm, .what = "allgather", .kind = DK_ALLGATHER,
			   .count = bytes_per_rank, .sb = sendbufs,
			   .rb = recvbufs, .streams = streams, .opts = opts };

	if (m890_group_active()) {
		struct m890_gcall g = { .kind = M890_G_ALLGATHER, .c = comm, .sb = sendbufs, .rb = recvbufs,
					 .count = bytes_per_rank, .streams = streams,
					 .opts = opts };

		return m890_group_add(&g);
	}
	return dcoll_run(&k, M890_OP_SUM);
}

M890_EXPORT m890_status_t m890_broadcast(m890_comm_t comm,
					 const m890_buffer_t *sendbufs,
					 const m890_buffer_t *recvbufs,
					 uint64_t bytes, int root,
					 const m890_stream_t *streams,
					 const struct m890_coll_opts *opts)
{
	M890_API_SCOPE;
	struct dcall k = { .c = comm, .what = "broadcast", .kind = DK_BROADCAST,
			   .count = bytes, .root = root, .sb = sendbufs,
			   .rb = recvbufs, .streams = streams, .opts = opts };

	if (m890_group_active()) {
		struct m890_gcall g = { .kind = M890_G_BROADCAST, .c = comm, .sb = sendbufs, .rb = recvbufs,
					 .count = bytes, .root = root, .streams = streams,
					 .opts = opts };

		return m890_group_add(&g);
	}
	return dcoll_run(&k, M890_OP_SUM);
}

M890_EXPORT m890_status_t m890_barrier(m890_comm_t comm,
				       const m890_stream_t *streams,
				       const struct m890_coll_opts *opts)
{
	M890_API_SCOPE;
	struct dcall k = { .c = comm, .what = "barrier", .kind = DK_BARRIER,
			   .streams = streams, .opts = opts };

	if (m890_group_active()) {
		struct m890_gcall g = { .kind = M890_G_BARRIER, .c = comm, .streams = streams, .opts = opts };

		return m890_group_add(&g);
	}
	return dcoll_run(&k, M890_OP_SUM);
}
