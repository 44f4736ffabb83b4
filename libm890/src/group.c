// SPDX-License-Identifier: MIT
/*
 * DOC: groups of collectives (m890_group_start() .. m890_group_end())
 *
 * Between m890_group_start() and m890_group_end() the collectives of
 * every communicator -- allreduce, reduce-scatter, allgather, broadcast,
 * barrier, all-to-all(v), grouped send/recv -- are not run: each call
 * checks its communicator handle, copies its arguments (the arrays of
 * buffers, streams, events, rows and operations) into a list of this
 * thread and returns.  m890_group_end() runs the list, one communicator
 * after the other in the order of their first call, each communicator's
 * calls in the order they were made, in four steps:
 *
 * 1. Collect: each call runs up to its first agreement
 *    (m890_comm_allgather_host()), which keeps the local ranks' records
 *    instead of sending them and stops the call (M890_NOT_READY below).
 * 2. Agree: one metadata round sends a summary of the group (how many
 *    calls, which collective each is, how long its records are, a local
 *    refusal) and a second round all the calls' records at once, instead
 *    of one round (or two) per call.  Every process checks the same
 *    summaries: ranks whose groups differ fail alike, naming the call
 *    and the ranks.
 * 3. Check: every call runs again, dry, from the records of step 2 (a
 *    grouped send/recv's second agreement, the operations, runs live and
 *    is kept), through its global checks and stops before it enqueues or
 *    allocates anything.  A refusal fails the whole group at every rank
 *    alike, with nothing of it enqueued anywhere.
 * 4. Run: every call runs once more from the kept records and enqueues
 *    its work, as it would outside a group.
 *
 * The records are a pure function of the arguments and of the
 * communicator's state at m890_group_end(), so steps 1, 3 and 4 see the
 * same records.  The transfers of each call keep their own exchange on
 * the streams: a group saves the agreement rounds (2 instead of 1 to 2
 * per call on per-rank communicators) and makes the group one unit for
 * errors, it does not merge transfers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A call stopped after collecting its records (step 1). */
#define GROUP_COLLECTED	M890_NOT_READY

enum grp_mode {
	GRP_COLLECT,
	GRP_REPLAY,
};

/* One agreement of a call: @n records of @bytes, from step 2 or live. */
struct grp_entry {
	char what[M890_META_WHAT];
	size_t bytes;
	unsigned char *all;		/* [n][bytes] */
};

struct grp_call_state {
	struct grp_entry *e;
	unsigned int ne, cursor;
	/* Step 1: the local ranks' records of the first agreement. */
	unsigned char *mine;		/* [nlocal][e[0].bytes] */
};

/* A communicator's group while m890_group_end() runs it. */
struct m890_group_state {
	enum grp_mode mode;
	bool dry;
	unsigned int cur;		/* the call running */
	unsigned int ncalls;
	struct grp_call_state *calls;	/* [ncalls] */
};

/* A recorded call, with copies of its arrays. */
struct grp_call {
	struct grp_call *next;
	struct m890_gcall g;
	struct m890_coll_opts opts;
	void *mem[8];			/* the copies, freed with the call */
};

/* An m890_event_record() made inside the group, run after its calls. */
struct grp_record {
	struct grp_record *next;
	m890_event_t ev;
	m890_stream_t s;
};

static _Thread_local int grp_depth;
static _Thread_local struct grp_call *grp_head, **grp_tail;
static _Thread_local struct grp_record *rec_head, **rec_tail;

bool m890_group_active(void)
{
	return grp_depth > 0;
}

M890_EXPORT m890_status_t m890_group_start(void)
{
	M890_API_SCOPE;
	if (grp_depth == 0) {
		grp_head = NULL;
		grp_tail = &grp_head;
		rec_head = NULL;
		rec_tail = &rec_head;
	}
	grp_depth++;
	return M890_SUCCESS;
}

/* A copy of @count elements of @size at @src (NULL stays NULL). */
static const void *dup_array(struct grp_call *k, unsigned int slot,
			     const void *src, size_t count, size_t size,
			     bool *oom)
{
	void *p;

	if (!src)
		return NULL;
	p = malloc(count ? count * size : 1);
	if (!p) {
		*oom = true;
		return NULL;
	}
	memcpy(p, src, count * size);
	k->mem[slot] = p;
	return p;
}

m890_status_t m890_group_add(const struct m890_gcall *g)
{
	m890_status_t st = m890_check(g->c, M890_OBJ_COMM, "communicator");
	struct grp_call *k;
	size_t m, n;
	bool oom = false;

	if (st)
		return st;
	m = (size_t)m890_comm_nlocal(g->c);
	n = (size_t)m890_comm_ranks(g->c);
	k = calloc(1, sizeof(*k));
	if (!k)
		goto oom;
	k->g = *g;
	k->g.sb = dup_array(k, 0, g->sb, m, sizeof(*g->sb), &oom);
	k->g.rb = dup_array(k, 1, g->rb, m, sizeof(*g->rb), &oom);
	k->g.streams = dup_array(k, 2, g->streams, m, sizeof(*g->streams), &oom);
	if (g->kind == M890_G_ALLTOALLV) {
		k->g.sc = dup_array(k, 3, g->sc, m * n, sizeof(uint64_t), &oom);
		k->g.sd = dup_array(k, 4, g->sd, m * n, sizeof(uint64_t), &oom);
		k->g.rc = dup_array(k, 5, g->rc, m * n, sizeof(uint64_t), &oom);
		k->g.rd = dup_array(k, 6, g->rd, m * n, sizeof(uint64_t), &oom);
	}
	if (g->kind == M890_G_SENDRECV)
		k->g.ops = dup_array(k, 3, g->ops, g->nops, sizeof(*g->ops), &oom);
	if (g->opts) {
		/* A struct too small keeps only its size: the call refuses it. */
		if (g->opts->size >= sizeof(k->opts))
			k->opts = *g->opts;
		else
			k->opts.size = g->opts->size;
		k->opts.events = dup_array(k, 7, g->opts->events, m,
					   sizeof(*g->opts->events), &oom);
		k->g.opts = &k->opts;
	}
	if (oom) {
		for (unsigned int x = 0; x < 8; x++)
			free(k->mem[x]);
		free(k);
		goto oom;
	}
	*grp_tail = k;
	grp_tail = &k->next;
	return M890_SUCCESS;
oom:
	/* The peers' groups have the call: the summaries will differ. */
	return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
			 "group: cannot record the call: out of memory");
}

/*
 * A record inside the group would otherwise mark the stream's position
 * before the group's calls, which are enqueued only at m890_group_end():
 * it is kept and made after them, in the order the records were made.
 */
m890_status_t m890_group_record(m890_event_t ev, m890_stream_t s)
{
	struct grp_record *r = calloc(1, sizeof(*r));

	if (!r)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "group: cannot keep the event record: out of memory");
	r->ev = ev;
	r->s = s;
	*rec_tail = r;
	rec_tail = &r->next;
	return M890_SUCCESS;
}

bool m890_group_records(m890_event_t ev)
{
	for (struct grp_record *r = rec_head; r; r = r->next)
		if (r->ev == ev)
			return true;
	return false;
}

/* The kept records, made now (grp_depth is 0); the first failure. */
static m890_status_t grp_run_records(struct grp_record *list,
				     struct m890_saved_error *cause)
{
	m890_status_t first = M890_SUCCESS;

	while (list) {
		struct grp_record *r = list;
		m890_status_t st = m890_event_record(r->ev, r->s);

		if (st && !first) {
			first = st;
			m890_error_save(cause);
		}
		list = r->next;
		free(r);
	}
	return first;
}

/* Run @g outside the list (grp_depth is 0 while the group runs). */
static m890_status_t grp_invoke(const struct m890_gcall *g)
{
	switch (g->kind) {
	case M890_G_ALLREDUCE:
		return m890_allreduce(g->c, g->sb, g->rb, g->count,
				      (enum m890_data_type)g->type,
				      (enum m890_red_op)g->op, g->streams, g->opts);
	case M890_G_REDUCE_SCATTER:
		return m890_reduce_scatter(g->c, g->sb, g->rb, g->count,
					   (enum m890_data_type)g->type,
					   (enum m890_red_op)g->op, g->streams,
					   g->opts);
	case M890_G_ALLGATHER:
		return m890_allgather(g->c, g->sb, g->rb, g->count, g->streams,
				      g->opts);
	case M890_G_BROADCAST:
		return m890_broadcast(g->c, g->sb, g->rb, g->count, g->root,
				      g->streams, g->opts);
	case M890_G_BARRIER:
		return m890_barrier(g->c, g->streams, g->opts);
	case M890_G_ALLTOALL:
		return m890_alltoall(g->c, g->sb, g->rb, g->count, g->streams);
	case M890_G_ALLTOALLV:
		return m890_alltoallv(g->c, g->sb, g->sc, g->sd, g->rb, g->rc,
				      g->rd, g->streams);
	case M890_G_SENDRECV:
		return m890_group_sendrecv(g->c, g->ops, g->nops, g->streams);
	}
	return m890_fail(M890_ERROR_SYSTEM, "group: unknown call kind %d",
			 (int)g->kind);
}

m890_status_t m890_group_gather(struct m890_group_state *gs,
				struct m890_comm *c, const char *what,
				const void *const *mine, size_t bytes, void *all)
{
	struct grp_call_state *k = &gs->calls[gs->cur];
	int n = m890_comm_ranks(c), m = m890_comm_nlocal(c);
	struct grp_entry *e;
	m890_status_t st;

	if (gs->mode == GRP_COLLECT) {
		k->e = calloc(1, sizeof(*k->e));
		k->mine = malloc(bytes * (size_t)m + 1);
		if (!k->e || !k->mine)
			return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
					 "%s: out of memory", what);
		k->ne = 1;
		snprintf(k->e->what, sizeof(k->e->what), "%s", what);
		k->e->bytes = bytes;
		for (int l = 0; l < m; l++)
			memcpy(k->mine + (size_t)l * bytes, mine[l], bytes);
		return GROUP_COLLECTED;
	}
	if (k->cursor < k->ne) {
		e = &k->e[k->cursor];
		if (e->bytes != bytes || strncmp(e->what, what, sizeof(e->what) - 1))
			return m890_fail(M890_ERROR_SYSTEM,
					 "group: call %u out of step (%s of %zu bytes, kept %s of %zu)",
					 gs->cur, what, bytes, e->what, e->bytes);
		memcpy(all, e->all, bytes * (size_t)n);
		k->cursor++;
		return M890_SUCCESS;
	}
	/* A later agreement of the call (the dry run's): live, then kept. */
	st = m890_comm_allgather_now(c, what, mine, bytes, all);
	if (st)
		return st;
	e = realloc(k->e, sizeof(*k->e) * (k->ne + 1));
	if (!e)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "%s: out of memory", what);
	k->e = e;
	e = &k->e[k->ne];
	memset(e, 0, sizeof(*e));
	e->all = malloc(bytes * (size_t)n + 1);
	if (!e->all)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "%s: out of memory", what);
	snprintf(e->what, sizeof(e->what), "%s", what);
	e->bytes = bytes;
	memcpy(e->all, all, bytes * (size_t)n);
	k->ne++;
	k->cursor++;
	return M890_SUCCESS;
}

bool m890_group_dry(const struct m890_group_state *gs)
{
	return gs && gs->mode == GRP_REPLAY && gs->dry;
}

/*
 * Step 2, first round: each rank's summary of its group on @c (its local
 * refusal @local, @local_msg, and the kind and record size of each
 * call), checked against rank 0's in every process.  The bytes of all
 * the calls' records in @total.
 */
static m890_status_t grp_agree_sums(struct m890_comm *c, struct m890_group_state *gs,
				    unsigned int nc, m890_status_t local,
				    const char *local_msg, size_t *total)
{
	int n = m890_comm_ranks(c), m = m890_comm_nlocal(c);
	const void *mine[M890_COMM_MAX_RANKS];
	struct m890_group_sum *own, *sums;
	m890_status_t st;
	char msg[400];

	*total = 0;
	own = calloc(1, sizeof(*own));
	sums = calloc((size_t)n, sizeof(*sums));
	if (!own || !sums) {
		st = m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "group: out of memory");
		goto out;
	}
	own->status = local;
	snprintf(own->msg, sizeof(own->msg), "%s", local_msg);
	own->ncalls = nc;
	for (unsigned int k = 0; k < nc && k < M890_GROUP_MAX_CALLS; k++) {
		const struct grp_entry *e = gs->calls[k].e;

		if (!e)
			continue;
		memcpy(own->call[k].what, e->what, sizeof(own->call[k].what));
		own->call[k].bytes = e->bytes;
		*total += e->bytes;
	}
	for (int l = 0; l < m; l++)
		mine[l] = own;
	st = m890_comm_allgather_now(c, "group", mine, sizeof(*own), sums);
	if (!st) {
		st = m890_group_sum_check(n, sums, msg, sizeof(msg));
		if (st)
			st = m890_fail(st, "%s", msg);
	}
out:
	free(own);
	free(sums);
	return st;
}

/*
 * Step 2, second round: every call's records in one exchange of @total
 * bytes per rank, then each call's share of every rank's into its
 * entry's @all.  The ranks agreed already: a failure is sticky.
 */
static m890_status_t grp_agree_records(struct m890_comm *c, struct m890_group_state *gs,
				       unsigned int nc, size_t total)
{
	int n = m890_comm_ranks(c), m = m890_comm_nlocal(c);
	const void *mine[M890_COMM_MAX_RANKS];
	unsigned char *blob, *allb;
	m890_status_t st;
	size_t off = 0;

	blob = malloc(total * (size_t)m + 1);
	allb = malloc(total * (size_t)n + 1);
	if (!blob || !allb) {
		st = m890_comm_set_error(c, M890_ERROR_OUT_OF_HOST_MEMORY,
					 "group: out of memory between the agreement rounds");
		goto out;
	}
	for (unsigned int k = 0; k < nc; k++) {
		size_t b = gs->calls[k].e->bytes;

		for (int l = 0; l < m; l++)
			memcpy(blob + (size_t)l * total + off,
			       gs->calls[k].mine + (size_t)l * b, b);
		off += b;
	}
	for (int l = 0; l < m; l++)
		mine[l] = blob + (size_t)l * total;
	st = m890_comm_allgather_now(c, "group records", mine, total, allb);
	off = 0;
	for (unsigned int k = 0; k < nc && !st; k++) {
		struct grp_entry *e = gs->calls[k].e;

		e->all = malloc(e->bytes * (size_t)n + 1);
		if (!e->all) {
			st = m890_comm_set_error(c, M890_ERROR_OUT_OF_HOST_MEMORY,
						 "group: out of memory between the agreement rounds");
			break;
		}
		for (int j = 0; j < n; j++)
			memcpy(e->all + (size_t)j * e->bytes,
			       allb + (size_t)j * total + off, e->bytes);
		off += e->bytes;
	}
out:
	free(blob);
	free(allb);
	return st;
}

/* Steps 2 to 4 for @c, whose @nc calls (@calls) collected in @gs. */
static m890_status_t grp_agree(struct m890_comm *c, struct m890_group_state *gs,
			       struct grp_call **calls, unsigned int nc,
			       m890_status_t local, const char *local_msg)
{
	size_t total;
	m890_status_t st = grp_agree_sums(c, gs, nc, local, local_msg, &total);

	if (!st)
		st = grp_agree_records(c, gs, nc, total);
	/* Step 3, dry (every call's global checks); step 4, for real. */
	if (!st)
		gs->mode = GRP_REPLAY;
	for (int pass = 0; pass < 2 && !st; pass++) {
		gs->dry = pass == 0;
		for (unsigned int k = 0; k < nc && !st; k++) {
			gs->cur = k;
			gs->calls[k].cursor = 0;
			st = grp_invoke(&calls[k]->g);
			if (st && pass == 0)
				st = m890_fail_wrap(st, NULL, "group call %u", k);
		}
	}
	return st;
}

/* The calls of the list on @c, taken out of it (grp_depth is 0). */
static m890_status_t grp_run_comm(struct m890_comm *c, struct grp_call **calls,
				  unsigned int nc)
{
	struct m890_group_state gs = { .mode = GRP_COLLECT, .ncalls = nc };
	m890_status_t st = m890_comm_usable(c), local = M890_SUCCESS;
	struct m890_saved_error refusal = { "" };

	if (st)
		return st;
	gs.calls = calloc(nc, sizeof(*gs.calls));
	if (!gs.calls)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "group: out of memory");
	if (nc > M890_GROUP_MAX_CALLS) {
		local = m890_fail(M890_ERROR_INVALID_ARGUMENT,
				  "%u calls on one communicator, more than %d",
				  nc, M890_GROUP_MAX_CALLS);
		m890_error_save(&refusal);
	}
	*m890_comm_group(c) = &gs;
	for (unsigned int k = 0; k < nc && !local; k++) {
		gs.cur = k;
		st = grp_invoke(&calls[k]->g);
		if (st == GROUP_COLLECTED)
			continue;
		/* Stopped before its agreement: a local refusal of the group. */
		local = st ? m890_fail_wrap(st, NULL, "call %u", k) :
			m890_fail(M890_ERROR_SYSTEM, "call %u: no agreement", k);
		m890_error_save(&refusal);
	}
	st = m890_comm_usable(c);
	if (!st)
		st = grp_agree(c, &gs, calls, local ? 0 : nc, local, refusal.detail);
	*m890_comm_group(c) = NULL;
	for (unsigned int k = 0; k < nc; k++) {
		for (unsigned int x = 0; x < gs.calls[k].ne; x++)
			free(gs.calls[k].e[x].all);
		free(gs.calls[k].e);
		free(gs.calls[k].mine);
	}
	free(gs.calls);
	return st;
}

M890_EXPORT m890_status_t m890_group_end(void)
{
	M890_API_SCOPE;
	struct grp_call *list, *k, **calls;
	struct grp_record *records;
	struct m890_saved_error cause, rcause;
	m890_status_t first = M890_SUCCESS, rst;
	unsigned int total = 0;

	if (grp_depth <= 0)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "group_end: no m890_group_start() on this thread");
	if (--grp_depth)
		return M890_SUCCESS;
	list = grp_head;
	grp_head = NULL;
	grp_tail = &grp_head;
	records = rec_head;
	rec_head = NULL;
	rec_tail = &rec_head;
	for (k = list; k; k = k->next)
		total++;
	calls = calloc(total + 1, sizeof(*calls));
	if (!calls) {
		first = m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "group_end: out of memory");
		m890_error_save(&cause);
		goto out;
	}
	/* Communicators in the order of their first call. */
	for (k = list; k; k = k->next) {
		struct m890_comm *c = k->g.c;
		unsigned int nc = 0;
		struct grp_call *x;
		m890_status_t st;

		if (!c)
			continue;
		for (x = k; x; x = x->next)
			if (x->g.c == c)
				calls[nc++] = x;
		st = m890_check(c, M890_OBJ_COMM, "communicator");
		if (!st)
			st = grp_run_comm(c, calls, nc);
		if (st && !first) {
			first = st;
			m890_error_save(&cause);
		}
		for (unsigned int y = 0; y < nc; y++)
			calls[y]->g.c = NULL;	/* done */
	}
out:
	while (list) {
		k = list;
		list = k->next;
		for (unsigned int x = 0; x < 8; x++)
			free(k->mem[x]);
		free(k);
	}
	free(calls);
	/* Made even when a call failed: they mark what was enqueued. */
	rst = grp_run_records(records, &rcause);
	if (first)
		return m890_error_restore(first, &cause);
	if (rst)
		return m890_error_restore(rst, &rcause);
	return M890_SUCCESS;
}
