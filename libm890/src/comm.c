// SPDX-License-Identifier: MIT
/*
 * Communicators and the exchange their collectives share: all-to-all(v)
 * and grouped send/recv (coll.c), the EP collectives of ep.c, on
 * communicators whose ranks are in one process or in several.
 *
 * Each rank owns an HBM semaphore area that starts with 2n 64-bit slots,
 * imported by every peer: slot j ("ready") is set by rank j when its
 * stream reaches a collective, slot n + j ("data") when rank j's transfer
 * with this rank is done.  Each rank also has a mapped host area (5n
 * slots) whose first 2n its own stream sets once it saw peer j ready
 * (slot j) and peer j's data (slot n + j), so the CPU can tell which peer
 * a stuck rank is waiting for; the metadata exchange below uses the rest.  Collective number e (the epoch, counting from 1) sets slots to e
 * and waits for >= e, so nothing needs resetting between collectives.
 * With one rank per process (m890_comm_create_rank), the semaphore areas
 * and registered buffers reach the peers as dma-bufs through
 * bootstrap.c, and each process enqueues only its own rank's part.
 *
 * A communicator over cards of several VMs (m890_comm_create_fabric) has
 * no socket to meet at: each local rank exports its semaphore area and
 * each registered buffer to the switch under a key derived from the
 * communicator id, its rank and the area (0 for the semaphores, k for its
 * k-th registered buffer), and opens windows on its peers' areas by
 * fabric id and the peers' keys, polling until the peer has exported or
 * the config's timeout passed.  Semaphore windows are opened at creation,
 * buffer windows before the first collective that writes the buffer (so
 * that several local ranks can register one after the other).  Local and
 * remote peers go through the same path.  The collectives then run the
 * exchange below unchanged, for the ranks this process holds.
 *
 * Per-rank communicators also agree on each collective's arguments
 * before enqueuing it: m890_comm_allgather_host() moves each rank's host
 * record through the cards.  Their semaphore area is then 24n bytes of
 * slots -- ready[n], data[n], meta[n] -- and the two counters of the
 * exchange on spec 1.1 cards (comm_exchange_fast()), then, 64-byte
 * aligned, a
 * metadata region of 2 parities x n records of M890_META_SLOT bytes
 * (sem_meta_slot()).  Round r: each local rank's control stream copies
 * its record (header of comm_meta.c + up to M890_META_PAYLOAD bytes,
 * staged in a mapped host BO) into slot (r & 1, me) of every rank's
 * region, SIGNALs meta[me] = r on every peer, WAITs for every peer's
 * meta signal (noted in progress slot 2n + j; slot 4n + j notes the post
 * to j, slots 3n.. take meta[] read back after a failure, to name the
 * missing peers) and copies its region's n
 * records of parity r & 1 into a mapped host BO, which the host reads
 * once the control stream is done, waiting up to the timeout.  A rank
 * can only start round r + 2 after every peer posted round r + 1, which
 * each does after copying round r out: two parities never overwrite a
 * record still to be read.  Documentation/architecture.rst ("Collective
 * metadata exchange") has the layout table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define COMM_MAX_RANKS M890_COMM_MAX_RANKS

struct comm_win {
	struct comm_win *next;
	struct m890_buffer *buf;	/* a peer's receive buffer */
	uint64_t serial;		/* its serial, against reuse */
	struct m890_window *win;
};

struct comm_rank {
	struct m890_device *dev;
	unsigned int nreg;		/* buffers registered */
	struct m890_buffer *sem;	/* HBM, see sem_bytes() */
	struct m890_buffer *progress;	/* host, 5n slots, mapped */
	volatile uint64_t *prog;
	/* Per-rank communicators: the metadata exchange. */
	struct m890_stream *ctl;	/* control stream, deferred */
	struct m890_buffer *stage;	/* host, one record, mapped */
	void *stage_map;
	struct m890_buffer *gather;	/* host, n records, mapped */
	const void *gather_map;
	struct m890_window **sem_win;	/* [n], on rank j's sem; NULL self */
	struct comm_win **wins;		/* [n], cached windows on rank j */
	/* comm_exchange_fast(): host, mapped: the SIGNALs' target lists */
	struct m890_buffer *tgt;
	uint64_t *tgt_map;
};

/*
 * A buffer registered by every rank of a multi-process or multi-VM
 * communicator: the @index-th registration of local rank @rank, paired
 * with the @index-th registration of every peer.
 */
struct comm_reg {
	struct comm_reg *next;
	int rank;
	unsigned int index;
	struct m890_buffer *buf;	/* this rank's */
	uint64_t serial;		/* buf's, against reuse */
	uint64_t *peer_bytes;		/* [n] */
	struct m890_window **win;	/* [n] on the peers' buffers */
};

struct m890_comm {
	struct m890_obj obj;
	int n;
	int me;			/* the one local rank, -1 if several */
	int nlocal;		/* ranks in this process */
	int *lidx;		/* [n]: index of rank i among the local ranks, or -1 */
	int *lrank;		/* [nlocal]: rank of each local index */
	struct m890_boot *boot;	/* multi-process only */
	uint64_t comm_id;	/* multi-VM only: */
	uint32_t *fids;		/* [n] fabric id of each rank, else NULL */
	struct comm_reg *regs;
	uint64_t timeout_ns;
	uint64_t chunk_bytes;	/* largest COPY of a block */
	uint64_t epoch;
	const char *what;	/* collective of the current epoch */
	uint64_t meta_round;	/* metadata exchange rounds done */
	int fast;		/* -1 not known yet, else comm_exchange_fast() */
	/* The last collective, when it was not the exchange (ep_dev.c). */
	m890_comm_describe_fn describe;
	void *describe_ctx;
	m890_status_t error;
	char msg[400];
	struct comm_rank *r;
	struct m890_dcoll *dcoll;	/* dcoll.c's scratch, or NULL */
	struct m890_group_state *grp;	/* group.c, while m890_group_end() runs */
};

/* Rank @i runs in this process. */
static bool comm_local(const struct m890_comm *c, int i)
{
	return c->lidx[i] >= 0;
}

/* Buffers reach the peers by registration, not as objects. */
static bool comm_per_rank(const struct m890_comm *c)
{
	return c->boot || c->fids;
}

/*
 * Layout of a rank's HBM semaphore area (byte offsets) for @n ranks; the
 * head comment and Documentation/architecture.rst describe it.
 */
static uint64_t sem_meta_sig(int n, int j)
{
	return 8ull * (2 * (uint64_t)n + (uint64_t)j);
}

/* The counters of the exchange on spec 1.1 cards (comm_exchange_fast()). */
static uint64_t sem_ready_ctr(int n)
{
	return 24ull * (uint64_t)n;
}

static uint64_t sem_done_ctr(int n)
{
	return 24ull * (uint64_t)n + 8;
}

static uint64_t sem_meta_region(int n)
{
	return (24ull * (uint64_t)n + 16 + 63) & ~63ull;
}

static uint64_t sem_meta_slot(int n, unsigned int parity, int j)
{
	return sem_meta_region(n) +
	       ((uint64_t)parity * (uint64_t)n + (uint64_t)j) * M890_META_SLOT;
}

/* The signal slots; per-rank communicators also have the metadata region. */
static uint64_t sem_bytes(int n, bool meta)
{
	return meta ? sem_meta_slot(n, 2, 0) : 24ull * (uint64_t)n + 16;
}

/* Calls that take every rank's objects need every rank in this process. */
m890_status_t m890_comm_need_all_local(struct m890_comm *c, const char *what)
{
	if (!comm_per_rank(c))
		return M890_SUCCESS;
	return m890_fail(M890_ERROR_INVALID_ARGUMENT,
			 "%s: this communicator has %d of its %d ranks in this process; the call needs every rank in this process (m890_comm_create)",
			 what, c->nlocal, c->n);
}

m890_status_t m890_comm_usable(struct m890_comm *c)
{
	m890_status_t st = m890_check(c, M890_OBJ_COMM, "communicator");

	if (st)
		return st;
	if (c->error)
		return m890_fail(c->error, "%s", c->msg);
	return M890_SUCCESS;
}

m890_status_t m890_comm_set_error(struct m890_comm *c, m890_status_t st,
				  const char *msg)
{
	if (!c->error) {
		c->error = st;
		snprintf(c->msg, sizeof(c->msg), "%s", msg);
	}
	return m890_fail(c->error, "%s", c->msg);
}

static void reg_free(struct m890_comm *c, struct comm_reg *g);

static void comm_free(struct m890_comm *c)
{
	while (c->regs) {
		struct comm_reg *g = c->regs;

		c->regs = g->next;
		/* The caller's buffer outlives the communicator: unexport it,
		 * so that another communicator can register it. */
		if (c->fids && m890_obj_valid(g->buf, M890_OBJ_BUFFER) &&
		    g->buf->serial == g->serial)
			m890_buffer_revoke_fabric(g->buf);
		reg_free(c, g);
	}
	/* The scratch of dcoll.c, withdrawn from the switch above. */
	m890_dcoll_free(c->dcoll);
	m890_boot_close(c->boot);
	for (int i = 0; c->r && i < c->n; i++) {
		struct comm_rank *r = &c->r[i];

		for (int j = 0; r->wins && j < c->n; j++) {
			while (r->wins[j]) {
				struct comm_win *w = r->wins[j];

				r->wins[j] = w->next;
				m890_window_free(w->win);
				free(w);
			}
		}
		for (int j = 0; r->sem_win && j < c->n; j++)
			if (r->sem_win[j])
				m890_window_free(r->sem_win[j]);
		free(r->sem_win);
		free(r->wins);
		if (r->ctl) {
			/* Blocked in an exchange that failed: cancel, do not wait. */
			if (c->error)
				r->ctl->timeout_ns = 0;
			m890_stream_destroy(r->ctl);
		}
		if (r->stage)
			m890_buffer_free(r->stage);
		if (r->gather)
			m890_buffer_free(r->gather);
		if (r->sem)
			m890_buffer_free(r->sem);
		if (r->progress)
			m890_buffer_free(r->progress);
		if (r->tgt)
			m890_buffer_free(r->tgt);
	}
	free(c->r);
	free(c->lidx);
	free(c->lrank);
	free(c->fids);
	free(c);
}

/*
 * Free the half-built @c and fail with @st as "@fn: <cause>", the cause
 * being the last error (status name included) before the cleanup calls,
 * which may set their own.
 */
static m890_status_t comm_create_fail(struct m890_comm *c, m890_status_t st,
				      const char *fn)
{
	struct m890_saved_error cause;

	m890_error_save(&cause);
	comm_free(c);
	return m890_fail_wrap(st, &cause, "%s", fn);
}

/* Zero the semaphore and progress areas of every rank and wait. */
static m890_status_t comm_zero(struct m890_comm *c)
{
	for (int i = 0; i < c->n; i++) {
		struct comm_rank *r = &c->r[i];
		m890_stream_t s;
		m890_status_t st, st2;

		if (!r->dev)
			continue;
		st = m890_stream_create(r->dev, &s);
		if (st)
			return st;
		/* The signal slots; metadata records carry their own round. */
		st = m890_memset32(s, r->sem->va, 0,
				   r->ctl ? 24ull * c->n : 16ull * c->n);
		if (!st)
			st = m890_memset32(s, r->progress->va, 0,
					   24ull * c->n);
		if (!st)
			st = m890_stream_synchronize(s);
		st2 = m890_stream_destroy(s);
		if (st || st2)
			return st ? st : st2;
	}
	return M890_SUCCESS;
}

/*
 * A communicator object of @n ranks (@me: the one local rank, -1 for all)
 * from a checked @config; NULL config means the defaults.
 */
static m890_status_t comm_alloc(int n, int me,
				const struct m890_comm_config *config,
				const char *what, struct m890_comm **out)
{
	struct m890_comm_config def = M890_COMM_CONFIG_INIT;
	struct m890_comm *c;

	if (!config)
		config = &def;
	if (config->size < sizeof(*config) ||
	    config->magic != M890_COMM_CONFIG_MAGIC ||
	    config->version != M890_COMM_CONFIG_VERSION || config->flags)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: config not initialized with M890_COMM_CONFIG_INIT, or unknown flags",
				 what);
	c = calloc(1, sizeof(*c));
	if (!c || !(c->r = calloc(n, sizeof(*c->r))) ||
	    !(c->lidx = calloc(n, sizeof(*c->lidx))) ||
	    !(c->lrank = calloc(n, sizeof(*c->lrank)))) {
		if (c) {
			free(c->r);
			free(c->lidx);
		}
		free(c);
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "%s: out of memory", what);
	}
	c->obj.type = M890_OBJ_COMM;
	c->fast = -1;
	c->n = n;
	c->me = me;
	/* Every rank local, or only @me; m890_comm_create_fabric() redoes it. */
	for (int i = 0; i < n; i++) {
		c->lidx[i] = me < 0 ? i : (i == me ? 0 : -1);
		if (me < 0)
			c->lrank[i] = i;
	}
	c->nlocal = me < 0 ? n : 1;
	if (me >= 0)
		c->lrank[0] = me;
	c->timeout_ns = config->timeout_ns;
	c->chunk_bytes = config->chunk_bytes ? config->chunk_bytes :
			 M890_COMM_DEFAULT_CHUNK_BYTES;
	*out = c;
	return M890_SUCCESS;
}

/* A rank's control stream: deferred (one submission per round). */
static m890_status_t comm_ctl_create(struct m890_comm *c, struct comm_rank *r)
{
	struct m890_stream_config scfg = M890_STREAM_CONFIG_INIT;

	scfg.flags = M890_STREAM_DEFERRED;
	scfg.timeout_ns = c->timeout_ns;
	return m890_stream_create_config(r->dev, &scfg, &r->ctl);
}

/*
 * Rank @i's own areas on @dev: window tables, semaphores, progress, and
 * with @meta (per-rank communicators) the metadata exchange's control
 * stream and host records.
 */
static m890_status_t comm_rank_init(struct m890_comm *c, int i,
				    struct m890_device *dev, bool meta)
{
	struct comm_rank *r = &c->r[i];
	m890_status_t st;
	void *p;

	r->dev = dev;
	r->sem_win = calloc(c->n, sizeof(*r->sem_win));
	r->wins = calloc(c->n, sizeof(*r->wins));
	if (!r->sem_win || !r->wins)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
	st = m890_buffer_alloc(dev, sem_bytes(c->n, meta), M890_MEM_HBM, &r->sem);
	if (!st)
		st = m890_buffer_alloc(dev, 40ull * c->n, M890_MEM_HOST,
				       &r->progress);
	if (!st)
		st = m890_buffer_map(r->progress, &p);
	if (st)
		return st;
	r->prog = p;
	if (!meta)
		return M890_SUCCESS;
	st = comm_ctl_create(c, r);
	if (!st)
		st = m890_buffer_alloc(dev, M890_META_SLOT, M890_MEM_HOST, &r->stage);
	if (!st)
		st = m890_buffer_map(r->stage, &r->stage_map);
	if (!st)
		st = m890_buffer_alloc(dev, (uint64_t)c->n * M890_META_SLOT,
				       M890_MEM_HOST, &r->gather);
	if (!st)
		st = m890_buffer_map(r->gather, &p);
	if (!st)
		r->gather_map = p;
	return st;
}

M890_EXPORT m890_status_t m890_comm_create(const m890_device_t *devices,
					   int n,
					   const struct m890_comm_config *config,
					   m890_comm_t *comm)
{
	M890_API_SCOPE;
	struct m890_comm *c;
	m890_status_t st;

	if (!devices || !comm || n < 1 || n > COMM_MAX_RANKS)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "comm_create: need 1..%d devices and an output",
				 COMM_MAX_RANKS);
	for (int i = 0; i < n; i++) {
		st = m890_check(devices[i], M890_OBJ_DEVICE, "device");
		if (st)
			return st;
		for (int j = 0; j < i; j++)
			if (devices[j] == devices[i])
				return m890_fail(M890_ERROR_INVALID_ARGUMENT,
						 "comm_create: ranks %d and %d are the same device %s",
						 j, i, devices[i]->node);
	}
	st = comm_alloc(n, -1, config, "comm_create", &c);
	if (st)
		return st;
	for (int i = 0; i < n; i++) {
		st = comm_rank_init(c, i, devices[i], false);
		if (st)
			goto fail;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			if (i == j)
				continue;
			st = m890_buffer_import_peer(c->r[i].dev, c->r[j].sem,
						     &c->r[i].sem_win[j]);
			if (st)
				goto fail;
		}
	st = comm_zero(c);
	if (st)
		goto fail;
	st = m890_obj_register(c);
	if (st)
		goto fail;
	*comm = c;
	return M890_SUCCESS;
fail:
	return comm_create_fail(c, st, "comm_create");
}

M890_EXPORT m890_status_t m890_comm_destroy(m890_comm_t c)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(c, M890_OBJ_COMM, "communicator");

	if (st)
		return st;
	st = m890_obj_unregister(c);
	if (st)
		return st;
	c->obj.type = 0;
	comm_free(c);
	return M890_SUCCESS;
}

/* ---- ranks in several VMs, met through the switch ---- */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * The export key of rank @rank's area @area (0: semaphores, k: k-th
 * registered buffer): the same in every VM, distinct per rank and area.
 */
static uint64_t comm_key(const struct m890_comm *c, int rank, unsigned int area)
{
	uint64_t key = mix64(c->comm_id ^ mix64(((uint64_t)area << 8) | (uint64_t)rank));

	return key ? key : 1;
}

/*
 * Sleep a little before the next poll; false once @deadline passed.  A
 * bare sleep on purpose: what the setup waits for happens in another
 * process or VM -- a peer exporting its area (here, and the meeting card
 * opening the meeting in unique_id.c), a rank's SIGNAL landing in the
 * meeting area (unique_id.c) -- and raises no event on this card or in
 * this kernel: DRM_M890_FABRIC_IMPORT is a one-shot lookup through the
 * switch and the meeting area is plain HBM, so there is no fence, syncobj
 * or eventfd to block on.  2 ms keeps the switch traffic of a slow peer
 * low and costs little against the seconds-long setup timeout.
 */
bool m890_peer_poll_again(int64_t deadline)
{
	struct timespec ts = { 0, M890_PEER_POLL_NS };

	if (m890_monotonic_ns() > deadline)
		return false;
	nanosleep(&ts, NULL);
	return true;
}

/*
 * Open local rank @i's window on rank @j's area @area, polling until @j
 * has exported it or @deadline (CLOCK_MONOTONIC ns) passed.
 */
static m890_status_t comm_fabric_window(struct m890_comm *c, int i, int j,
					unsigned int area, int64_t deadline,
					struct m890_window **win)
{
	char what[48];
	int err;

	if (area)
		snprintf(what, sizeof(what), "registered buffer #%u", area);
	else
		snprintf(what, sizeof(what), "semaphore area");
	for (;;) {
		err = m890_window_import_fabric(c->r[i].dev, c->fids[j],
						comm_key(c, j, area), win);
		if (!err)
			return M890_SUCCESS;
		if (err == EPERM)
			return m890_fail(M890_ERROR_NOT_SUPPORTED,
					 "rank %d (%s) cannot reach rank %d (fabric id %u): the cards are in different partitions",
					 i, c->r[i].dev->node, j, c->fids[j]);
		if (err != ENOENT && err != ENOLINK)
			return m890_fail_wrap(m890_errno_status(err) ? m890_errno_status(err) :
					      M890_ERROR_SYSTEM, NULL,
					      "rank %d: window on rank %d (fabric id %u)'s %s",
					      i, j, c->fids[j], what);
		if (!m890_peer_poll_again(deadline))
			return m890_fail(M890_ERROR_TIMEOUT,
					 "rank %d (%s): rank %d (fabric id %u) did not export its %s in time (%s)",
					 i, c->r[i].dev->node, j, c->fids[j], what,
					 err == ENOLINK ? "a port on the path is not up" :
					 "no export with its key yet");
	}
}

/*
 * Wait until @s is idle or @deadline (CLOCK_MONOTONIC ns) passed.  The
 * wait blocks in the kernel on the stream's last timeline point, which
 * the card's FENCE interrupt signals: with one process per card, n
 * processes polling at a fixed period would keep every CPU busy waking
 * up and leave none for the ranks that still have work to do.
 */
static m890_status_t comm_stream_wait(struct m890_stream *s, int64_t deadline)
{
	m890_status_t st = m890_stream_flush(s);
	int64_t left;

	if (st)
		return st;
	if (deadline == INT64_MAX)
		return m890_stream_wait_point(s, s->last_seqno, M890_TIMEOUT_INFINITE);
	left = deadline - m890_monotonic_ns();
	st = m890_stream_wait_point(s, s->last_seqno, left > 0 ? (uint64_t)left : 0);
	return st == M890_NOT_READY ? M890_ERROR_TIMEOUT : st;
}

static int64_t comm_deadline(const struct m890_comm *c)
{
	return c->timeout_ns == M890_TIMEOUT_INFINITE ? INT64_MAX :
	       m890_monotonic_ns() + (int64_t)c->timeout_ns;
}

/* Windows of registration @g on the peers' buffers of the same index. */
static m890_status_t comm_reg_windows(struct m890_comm *c, struct comm_reg *g)
{
	int64_t deadline = comm_deadline(c);
	m890_status_t st;

	for (int j = 0; j < c->n; j++) {
		if (j == g->rank || g->win[j])
			continue;
		st = comm_fabric_window(c, g->rank, j, g->index + 1, deadline,
					&g->win[j]);
		if (st)
			return st;
		g->peer_bytes[j] = g->win[j]->bytes;
	}
	return M890_SUCCESS;
}

/* A registration of @buf by rank @i, its next one; not linked yet. */
static m890_status_t reg_new(struct m890_comm *c, struct m890_buffer *buf, int i,
			     struct comm_reg **out)
{
	struct comm_reg *g = calloc(1, sizeof(*g));

	if (!g || !(g->win = calloc(c->n, sizeof(*g->win))) ||
	    !(g->peer_bytes = calloc(c->n, sizeof(*g->peer_bytes)))) {
		if (g)
			free(g->win);
		free(g);
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "comm_register: out of memory");
	}
	g->buf = buf;
	g->serial = buf->serial;
	g->rank = i;
	g->index = c->r[i].nreg;
	g->peer_bytes[i] = buf->bytes;
	*out = g;
	return M890_SUCCESS;
}

/* Registrations are collective: the same order on every rank. */
static void reg_link(struct m890_comm *c, struct comm_reg *g)
{
	struct comm_reg **pp = &c->regs;

	while (*pp)
		pp = &(*pp)->next;
	*pp = g;
	c->r[g->rank].nreg++;
}

/* m890_comm_register() on a fabric communicator: export only. */
static m890_status_t comm_register_fabric(struct m890_comm *c,
					  struct m890_buffer *buf)
{
	m890_status_t st = m890_check(buf, M890_OBJ_BUFFER, "buffer");
	struct comm_reg *g;
	int i = -1;

	if (st)
		return st;
	for (int l = 0; l < c->nlocal; l++)
		if (c->r[c->lrank[l]].dev == buf->dev)
			i = c->lrank[l];
	if (i < 0)
		return m890_fail(M890_ERROR_DEVICE_MISMATCH,
				 "comm_register: the buffer is on %s, which holds no rank of this communicator",
				 buf->dev->node);
	st = reg_new(c, buf, i, &g);
	if (st)
		return st;
	st = m890_buffer_export_fabric(buf, comm_key(c, i, g->index + 1));
	if (st) {
		reg_free(c, g);
		return st;
	}
	reg_link(c, g);
	return M890_SUCCESS;
}

/* The checks of a fabric config that need no device. */
static m890_status_t fabric_config_check(const struct m890_comm_fabric_config *fabric)
{
	int n;

	if (!fabric || fabric->size < sizeof(*fabric) ||
	    fabric->magic != M890_COMM_FABRIC_CONFIG_MAGIC ||
	    fabric->version != M890_COMM_FABRIC_CONFIG_VERSION || fabric->flags)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "comm_create_fabric: NULL output, or fabric config not initialized with M890_COMM_FABRIC_CONFIG_INIT, or unknown flags");
	n = fabric->nranks;
	if (!fabric->comm_id || n < 1 || n > COMM_MAX_RANKS || !fabric->fabric_ids ||
	    fabric->ndevices < 1 || fabric->ndevices > n || !fabric->devices)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "comm_create_fabric: need a non-zero comm_id, 1..%d ranks with their fabric ids, and 1..nranks devices",
				 COMM_MAX_RANKS);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			if (fabric->fabric_ids[i] == fabric->fabric_ids[j])
				return m890_fail(M890_ERROR_INVALID_ARGUMENT,
						 "comm_create_fabric: ranks %d and %d have the same fabric id %u",
						 j, i, fabric->fabric_ids[i]);
	return M890_SUCCESS;
}

/* The ranks of this process: each local device's rank by its fabric id. */
static m890_status_t fabric_local_ranks(struct m890_comm *c,
					const struct m890_comm_fabric_config *fabric)
{
	int n = c->n;

	c->comm_id = fabric->comm_id;
	c->fids = malloc(sizeof(*c->fids) * (size_t)n);
	if (!c->fids)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "comm_create_fabric: out of memory");
	memcpy(c->fids, fabric->fabric_ids, sizeof(*c->fids) * (size_t)n);
	for (int i = 0; i < n; i++)
		c->lidx[i] = -1;
	c->nlocal = fabric->ndevices;
	for (int l = 0; l < c->nlocal; l++) {
		struct m890_device *d = fabric->devices[l];
		m890_status_t st = m890_check(d, M890_OBJ_DEVICE, "device");
		int i;

		if (st)
			return st;
		for (i = 0; i < n && c->fids[i] != d->info.fabric_id; i++)
			;
		if (i == n || c->lidx[i] >= 0)
			return m890_fail(M890_ERROR_INVALID_ARGUMENT,
					 "comm_create_fabric: %s (fabric id %u) is %s",
					 d->node, d->info.fabric_id,
					 i == n ? "not among the ranks' fabric ids" :
					 "given twice");
		c->lidx[i] = l;
		c->lrank[l] = i;
	}
	c->me = c->nlocal == 1 ? c->lrank[0] : -1;
	return M890_SUCCESS;
}

/*
 * The meeting through the switch: each local rank's semaphore area,
 * zeroed, is exported under its key, then every local rank opens a
 * window on every peer's, waiting until the peer exported it.
 */
static m890_status_t fabric_meet(struct m890_comm *c)
{
	m890_status_t st = comm_zero(c);
	int64_t deadline;

	for (int l = 0; l < c->nlocal && !st; l++) {
		int i = c->lrank[l];

		st = m890_buffer_export_fabric(c->r[i].sem, comm_key(c, i, 0));
	}
	deadline = comm_deadline(c);
	for (int l = 0; l < c->nlocal && !st; l++) {
		int i = c->lrank[l];

		for (int j = 0; j < c->n && !st; j++)
			if (j != i)
				st = comm_fabric_window(c, i, j, 0, deadline,
							&c->r[i].sem_win[j]);
	}
	return st;
}

M890_EXPORT m890_status_t
m890_comm_create_fabric(const struct m890_comm_fabric_config *fabric,
			const struct m890_comm_config *config, m890_comm_t *comm)
{
	M890_API_SCOPE;
	struct m890_comm *c;
	m890_status_t st = fabric_config_check(fabric);

	if (!st && !comm)
		st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
			       "comm_create_fabric: NULL output");
	if (!st)
		st = comm_alloc(fabric->nranks, -1, config, "comm_create_fabric", &c);
	if (st)
		return st;
	st = fabric_local_ranks(c, fabric);
	if (st) {
		comm_free(c);
		return st;
	}
	for (int l = 0; l < c->nlocal && !st; l++)
		st = comm_rank_init(c, c->lrank[l], fabric->devices[l], true);
	if (!st)
		st = fabric_meet(c);
	if (!st)
		st = m890_obj_register(c);
	if (st)
		return comm_create_fail(c, st, "comm_create_fabric");
	*comm = c;
	return M890_SUCCESS;
}

/* ---- one rank per process ---- */

static m890_status_t buf_check(struct m890_comm *c, struct m890_buffer *b,
			       int rank, const char *what);

M890_EXPORT m890_status_t
m890_comm_create_rank(m890_device_t dev, int rank, int n,
		      const char *bootstrap_path,
		      const struct m890_comm_config *config, m890_comm_t *comm)
{
	M890_API_SCOPE;
	uint64_t vals[COMM_MAX_RANKS];
	int fds[COMM_MAX_RANKS], fd = -1;
	struct m890_comm *c;
	struct comm_rank *r;
	m890_status_t st;

	st = m890_check(dev, M890_OBJ_DEVICE, "device");
	if (st)
		return st;
	if (!comm || n < 1 || n > COMM_MAX_RANKS || rank < 0 || rank >= n)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "comm_create_rank: rank %d of %d ranks (1..%d) or NULL output",
				 rank, n, COMM_MAX_RANKS);
	st = comm_alloc(n, rank, config, "comm_create_rank", &c);
	if (st)
		return st;
	r = &c->r[rank];
	st = comm_rank_init(c, rank, dev, true);
	if (st)
		goto fail;
	/* Zeroed before any peer can see it: peers signal only after the
	 * exchange below. */
	st = comm_zero(c);
	if (!st)
		st = m890_boot_open(bootstrap_path, rank, n, c->timeout_ns,
				    &c->boot);
	if (!st)
		st = m890_buffer_export_dmabuf(r->sem, &fd);
	if (!st)
		st = m890_boot_allgather(c->boot, r->sem->bytes, fd, vals, fds);
	if (fd >= 0)
		close(fd);
	if (st)
		goto fail;
	for (int j = 0; j < n; j++) {
		char name[32];

		if (j == rank)
			continue;
		snprintf(name, sizeof(name), "rank %d", j);
		if (!st)
			st = m890_window_from_dmabuf(dev, fds[j], vals[j], name,
						     &r->sem_win[j]);
		close(fds[j]);
	}
	if (!st)
		st = m890_obj_register(c);
	if (st)
		goto fail;
	*comm = c;
	return M890_SUCCESS;
fail:
	return comm_create_fail(c, st, "comm_create_rank");
}

M890_EXPORT m890_status_t m890_comm_rank(m890_comm_t c, int *rank)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(c, M890_OBJ_COMM, "communicator",
					  rank, "comm_rank");

	if (st)
		return st;
	*rank = c->me;
	return M890_SUCCESS;
}

/*
 * m890_comm_register() on a m890_comm_create_rank() communicator: the
 * ranks trade their buffers' dma-bufs through the bootstrap socket, and
 * each opens a window on every peer's.  A rank takes part in the trade
 * even after a local failure (with no descriptor), so that the peers are
 * not left waiting; they then fail naming it.
 */
static m890_status_t comm_register_socket(struct m890_comm *c,
					  struct m890_buffer *buf)
{
	uint64_t vals[COMM_MAX_RANKS];
	int fds[COMM_MAX_RANKS], fd = -1;
	struct comm_reg *g;
	m890_status_t st, gst;

	st = buf_check(c, buf, c->me, "buffer");
	if (!st)
		st = reg_new(c, buf, c->me, &g);
	if (st)
		return st;
	st = m890_buffer_export_dmabuf(buf, &fd);
	gst = m890_boot_allgather(c->boot, st ? UINT64_MAX : buf->bytes, fd, vals, fds);
	if (gst)
		st = gst;
	if (fd >= 0)
		close(fd);
	for (int j = 0; j < c->n; j++) {
		char name[32];

		if (j == c->me)
			continue;
		if (!st && (vals[j] == UINT64_MAX || fds[j] < 0))
			st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
				       "comm_register: rank %d could not register its buffer",
				       j);
		snprintf(name, sizeof(name), "rank %d", j);
		if (!st)
			st = m890_window_from_dmabuf(c->r[c->me].dev, fds[j],
						     vals[j], name, &g->win[j]);
		g->peer_bytes[j] = vals[j];
		if (fds[j] >= 0)
			close(fds[j]);
	}
	if (st) {
		reg_free(c, g);
		return st;
	}
	reg_link(c, g);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_comm_register(m890_comm_t c,
					     m890_buffer_t buf)
{
	M890_API_SCOPE;
	m890_status_t st = m890_comm_usable(c);

	if (st)
		return st;
	if (!comm_per_rank(c))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "comm_register: every rank is in this process; buffers need no registration");
	if (c->fids)
		return comm_register_fabric(c, buf);
	return comm_register_socket(c, buf);
}

/* Free registration @g (already unlinked): its windows on the peers'. */
static void reg_free(struct m890_comm *c, struct comm_reg *g)
{
	for (int j = 0; g->win && j < c->n; j++)
		if (g->win[j])
			m890_window_free(g->win[j]);
	free(g->win);
	free(g->peer_bytes);
	free(g);
}

/* Every rank local: drop the windows every rank cached on @buf. */
static unsigned int comm_drop_windows(struct m890_comm *c,
				      const struct m890_buffer *buf)
{
	unsigned int dropped = 0;

	for (int i = 0; i < c->n; i++)
		for (int j = 0; c->r[i].wins && j < c->n; j++) {
			struct comm_win **pp = &c->r[i].wins[j];

			while (*pp) {
				struct comm_win *w = *pp;

				if (w->buf != buf) {
					pp = &w->next;
					continue;
				}
				*pp = w->next;
				m890_window_free(w->win);
				free(w);
				dropped++;
			}
		}
	return dropped;
}

M890_EXPORT m890_status_t m890_comm_deregister(m890_comm_t c,
					       m890_buffer_t buf)
{
	M890_API_SCOPE;
	static const char what[] = "comm_deregister";
	m890_status_t st = m890_comm_usable(c);
	struct comm_reg *g = NULL, **pp;
	uint64_t vals[COMM_MAX_RANKS];
	int fds[COMM_MAX_RANKS];
	int i = -1;

	if (st)
		return st;
	st = m890_check(buf, M890_OBJ_BUFFER, "buffer");
	if (st)
		return st;
	if (!comm_per_rank(c)) {
		comm_drop_windows(c, buf);
		return M890_SUCCESS;
	}
	for (int l = 0; l < c->nlocal; l++)
		if (c->r[c->lrank[l]].dev == buf->dev)
			i = c->lrank[l];
	for (pp = &c->regs; i >= 0 && *pp; pp = &(*pp)->next)
		if ((*pp)->rank == i && (*pp)->buf == buf &&
		    (*pp)->serial == buf->serial) {
			g = *pp;
			break;
		}
	if (i < 0)
		st = m890_fail(M890_ERROR_DEVICE_MISMATCH,
			       "%s: the buffer is on %s, which holds no rank of this communicator",
			       what, buf->dev->node);
	else if (!g)
		st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
			       "%s: rank %d did not register this buffer (or deregistered it)",
			       what, i);
	if (c->boot) {
		/* Collective, as m890_comm_register(): every rank the same number. */
		m890_status_t gst = m890_boot_allgather(c->boot,
							 g && !st ? g->index : UINT64_MAX,
							 -1, vals, fds);

		for (int j = 0; j < c->n; j++)
			if (j != c->me && fds[j] >= 0)
				close(fds[j]);
		if (gst)
			return gst;
		for (int j = 0; j < c->n && !st; j++)
			if (vals[j] == UINT64_MAX)
				st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
					       "%s: rank %d could not deregister its buffer",
					       what, j);
			else if (vals[j] != vals[0])
				st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
					       "%s: rank 0 deregisters its registration #%llu, rank %d its #%llu",
					       what, (unsigned long long)vals[0], j,
					       (unsigned long long)vals[j]);
	}
	if (st)
		return st;
	*pp = g->next;
	/* Peers' windows on it are gone: a late use faults, never lands. */
	if (c->fids)
		m890_buffer_revoke_fabric(buf);
	reg_free(c, g);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_comm_count(m890_comm_t c, int *n)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(c, M890_OBJ_COMM, "communicator",
					  n, "comm_count");

	if (st)
		return st;
	*n = c->n;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_comm_get_async_error(m890_comm_t c,
						    m890_status_t *error)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(c, M890_OBJ_COMM, "communicator",
					  error, "comm_get_async_error");

	if (st)
		return st;
	*error = c->error;
	if (c->error)
		m890_fail(c->error, "%s", c->msg);
	return M890_SUCCESS;
}

/*
 * Mark in @absent the peers that local rank @i is stuck on: in the data
 * exchange of the current epoch the first peer, in the order its stream
 * waits, that did not join or whose transfer did not arrive (the ones
 * after it are only not checked yet); in the last metadata exchange
 * every peer whose record it did not see (it already posted its own to
 * all).  Such a peer may be gone: its windows may fault.
 */
static void comm_stuck_on(struct m890_comm *c, int i, bool *absent)
{
	int n = c->n;

	for (int phase = 0; phase < 2 && c->epoch; phase++)
		for (int k = 1; k < n; k++) {
			int j = phase ? (i + n - k) % n : (i + k) % n;

			if (c->r[i].prog[phase * n + j] < c->epoch) {
				absent[j] = true;
				break;
			}
		}
	for (int j = 0; j < n && c->meta_round; j++)
		if (j != i && c->r[i].prog[2 * n + j] < c->meta_round)
			absent[j] = true;
}

M890_EXPORT m890_status_t m890_comm_abort(m890_comm_t c)
{
	M890_API_SCOPE;
	bool absent[COMM_MAX_RANKS] = { false };
	m890_status_t st = m890_check(c, M890_OBJ_COMM, "communicator"), ret;

	if (st)
		return st;
	m890_comm_set_error(c, M890_ERROR_CANCELED,
		       "communicator aborted; data of its collectives is undefined");
	ret = M890_SUCCESS;
	/*
	 * Every wait is "slot >= epoch": the largest value releases all.
	 * A rank in another process is released through this rank's slots
	 * in its semaphore area, unless a local rank is stuck waiting for it:
	 * such a peer is likely gone, and a write into a window its exit
	 * revoked would fault this process's context.  The local slots go
	 * first, synchronized, so that they are released whatever happens.
	 */
	for (int i = 0; i < c->n; i++)
		if (comm_local(c, i))
			comm_stuck_on(c, i, absent);
	for (int i = 0; i < c->n; i++) {
		m890_stream_t s;

		if (!comm_local(c, i))
			continue;
		st = m890_stream_create(c->r[i].dev, &s);
		if (!st) {
			/* Ready, data and (per-rank) metadata slots. */
			for (int k = 0; k < (comm_per_rank(c) ? 3 : 2) * c->n && !st; k++)
				st = m890_signal(s, c->r[i].sem->va + 8ull * k,
						 UINT64_MAX, M890_SEM_SET);
			/* The counters the exchange of spec 1.1 cards waits on. */
			if (!st)
				st = m890_signal(s, c->r[i].sem->va + sem_ready_ctr(c->n),
						 UINT64_MAX, M890_SEM_SET);
			if (!st)
				st = m890_signal(s, c->r[i].sem->va + sem_done_ctr(c->n),
						 UINT64_MAX, M890_SEM_SET);
			if (!st)
				st = m890_stream_synchronize(s);
			for (int j = 0; j < c->n && !st; j++)
				if (!comm_local(c, j) && !absent[j]) {
					st = m890_signal(s, c->r[i].sem_win[j]->va + 8ull * i,
							 UINT64_MAX, M890_SEM_SET);
					if (!st)
						st = m890_signal(s, c->r[i].sem_win[j]->va +
								 8ull * (c->n + i),
								 UINT64_MAX, M890_SEM_SET);
					if (!st)
						st = m890_signal(s, c->r[i].sem_win[j]->va +
								 sem_meta_sig(c->n, i),
								 UINT64_MAX, M890_SEM_SET);
					if (!st)
						st = m890_signal(s, c->r[i].sem_win[j]->va +
								 sem_ready_ctr(c->n),
								 UINT64_MAX, M890_SEM_SET);
					if (!st)
						st = m890_signal(s, c->r[i].sem_win[j]->va +
								 sem_done_ctr(c->n),
								 UINT64_MAX, M890_SEM_SET);
				}
			if (!st)
				st = m890_stream_synchronize(s);
			m890_stream_destroy(s);
		}
		if (st && !ret)
			ret = st;
	}
	return ret ? m890_fail(ret, "comm_abort: cannot release every rank") :
		     M890_SUCCESS;
}

/* Cached window on rank @peer's buffer @buf, imported by @r. */
static m890_status_t comm_window(struct comm_rank *r, int peer,
				 struct m890_buffer *buf, uint64_t *va)
{
	struct comm_win *w;
	m890_status_t st;

	for (w = r->wins[peer]; w; w = w->next)
		if (w->buf == buf && w->serial == buf->serial) {
			*va = w->win->va;
			return M890_SUCCESS;
		}
	w = calloc(1, sizeof(*w));
	if (!w)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
				 "alltoall: out of memory");
	st = m890_buffer_import_peer(r->dev, buf, &w->win);
	if (st) {
		free(w);
		return st;
	}
	w->buf = buf;
	w->serial = buf->serial;
	w->next = r->wins[peer];
	r->wins[peer] = w;
	*va = w->win->va;
	return M890_SUCCESS;
}

m890_status_t m890_comm_peer_va(struct m890_comm *c, int i, int j,
				struct m890_buffer *buf, uint64_t *va)
{
	if (i == j) {
		*va = buf->va;
		return M890_SUCCESS;
	}
	return comm_window(&c->r[i], j, buf, va);
}

struct m890_dcoll **m890_comm_dcoll(struct m890_comm *c)
{
	return &c->dcoll;
}

unsigned int m890_comm_nreg(struct m890_comm *c, int i)
{
	return c->r[i].nreg;
}

int m890_comm_ranks(struct m890_comm *c)
{
	return c->n;
}

struct m890_device *m890_comm_rank_device(struct m890_comm *c, int i)
{
	return c->r[i].dev;
}

static m890_status_t buf_check(struct m890_comm *c, struct m890_buffer *b,
			       int rank, const char *what)
{
	m890_status_t st = m890_check(b, M890_OBJ_BUFFER, what);

	if (st)
		return st;
	if (b->dev != c->r[rank].dev)
		return m890_fail(M890_ERROR_DEVICE_MISMATCH,
				 "alltoall: rank %d's %s is on %s, not on %s",
				 rank, what, b->dev->node, c->r[rank].dev->node);
	return M890_SUCCESS;
}

/*
 * Spec 1.1 cards (fabric atomics, several data movers) run the exchange
 * in a constant number of packets per rank besides the transfers:
 *
 *   SIGNAL ADD to 2(n - 1) targets   every peer's slot [i] and ready
 *                                    counter: "rank i reached it"
 *   WAIT ready counter >= (n - 1) e  every peer reached it
 *   per peer j (rotated): its transfer, then SIGNAL ADD to 2 targets:
 *                                    j's slot [n + i] and done counter
 *   its own transfer, RELAXED        on another data mover, alongside
 *   WAIT done counter >= (n - 1) e   every peer's transfer arrived
 *
 * The slots hold the epoch as the 1.0 exchange's SET leaves them (one add
 * per collective), so the two mix on one communicator, and
 * missing_peers() reads them to name who is missing.  Every card of a
 * communicator must be of one spec.
 */
static bool comm_fast(struct m890_comm *c)
{
	const uint64_t need = DRM_M890_CAP_ENGINES | DRM_M890_CAP_ATOMICS;

	if (c->fast < 0) {
		c->fast = 1;
		for (int l = 0; l < c->nlocal; l++)
			if ((c->r[c->lrank[l]].dev->info.capabilities & need) != need)
				c->fast = 0;
	}
	return c->fast == 1;
}

/* Rank @i's target lists: [2(n - 1)] ready, then [n][2] done per peer. */
static m890_status_t comm_targets(struct m890_comm *c, int i)
{
	struct comm_rank *r = &c->r[i];
	int n = c->n, q = 0;
	m890_status_t st;
	void *p;

	if (r->tgt)
		return M890_SUCCESS;
	st = m890_buffer_alloc(r->dev, 8ull * 4 * (uint64_t)n, M890_MEM_HOST, &r->tgt);
	if (!st)
		st = m890_buffer_map(r->tgt, &p);
	if (st) {
		if (r->tgt)
			m890_buffer_free(r->tgt);
		r->tgt = NULL;
		return st;
	}
	r->tgt_map = p;
	for (int j = 0; j < n; j++) {
		uint64_t base;

		if (j == i)
			continue;
		base = r->sem_win[j]->va;
		r->tgt_map[q++] = base + 8ull * (uint64_t)i;
		r->tgt_map[q++] = base + sem_ready_ctr(n);
		r->tgt_map[2 * n + 2 * j] = base + 8ull * (uint64_t)(n + i);
		r->tgt_map[2 * n + 2 * j + 1] = base + sem_done_ctr(n);
	}
	return M890_SUCCESS;
}

static void pkt_add_list(union m890_packet *p, uint64_t targets, uint32_t count)
{
	memset(p, 0, sizeof(*p));
	p->signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
	p->signal.op = M890_SIGNAL_ADD;
	p->signal.value = 1;
	p->signal.count = count;
	p->signal.targets = targets;
}

static m890_status_t comm_exchange_fast(struct m890_comm *c,
					struct m890_stream *const *streams,
					m890_comm_xfer_fn fn, void *ctx,
					uint64_t e)
{
	m890_status_t st = M890_SUCCESS;
	int n = c->n;

	for (int i = 0; i < n && !st; i++)
		if (comm_local(c, i))
			st = comm_targets(c, i);
	/*
	 * Every local rank's "reached it" SIGNAL is submitted before any
	 * rank's transfers: a rank whose transfers need more ring slots than
	 * are free waits for its queue to move, which needs the peers'
	 * signals, so they must not be staged behind that rank's transfers.
	 */
	for (int i = 0; i < n && !st && n > 1; i++) {
		union m890_packet p;

		if (!comm_local(c, i))
			continue;
		pkt_add_list(&p, c->r[i].tgt->va, 2u * (uint32_t)(n - 1));
		st = m890_stream_enqueue(streams[i], &p, 1);
		if (!st)
			st = m890_stream_flush(streams[i]);
	}
	for (int i = 0; i < n && !st; i++) {
		struct comm_rank *r = &c->r[i];
		union m890_packet p;

		if (!comm_local(c, i))
			continue;
		m890_stream_batch(streams[i], true);
		if (n > 1)
			st = m890_wait(streams[i], r->sem->va + sem_ready_ctr(n),
				       (uint64_t)(n - 1) * e, M890_SEM_GE);
		for (int k = 1; k < n && !st; k++) {
			int j = (i + k) % n;

			st = fn(ctx, i, j, streams[i]);
			if (!st) {
				pkt_add_list(&p, r->tgt->va + 8ull * (2 * n + 2 * j), 2);
				st = m890_stream_enqueue(streams[i], &p, 1);
			}
		}
		if (!st) {
			streams[i]->relaxed = true;
			st = fn(ctx, i, i, streams[i]);
			streams[i]->relaxed = false;
		}
		if (!st && n > 1)
			st = m890_wait(streams[i], r->sem->va + sem_done_ctr(n),
				       (uint64_t)(n - 1) * e, M890_SEM_GE);
		{
			m890_status_t st2 = m890_stream_batch(streams[i], false);

			if (!st)
				st = st2;
		}
	}
	return st;
}

/* Exchange phase 1: tell every peer that each local rank reached epoch @e. */
static m890_status_t exchange_ready(struct m890_comm *c,
				    struct m890_stream *const *streams, uint64_t e)
{
	m890_status_t st = M890_SUCCESS;
	int n = c->n;

	for (int i = 0; i < n; i++) {
		for (int k = 1; k < n && !st && comm_local(c, i); k++) {
			int j = (i + k) % n;

			st = m890_signal(streams[i],
					 c->r[i].sem_win[j]->va + 8ull * i, e,
					 M890_SEM_SET);
		}
	}
	for (int i = 0; i < n && !st; i++)
		if (comm_local(c, i))
			st = m890_stream_flush(streams[i]);
	return st;
}

/*
 * Exchange phase 2: the transfers of each local rank, rotated; each waits
 * until the peer reached the epoch and is followed by a signal to it.
 */
static m890_status_t exchange_transfers(struct m890_comm *c,
					struct m890_stream *const *streams,
					m890_comm_xfer_fn fn, void *ctx, uint64_t e)
{
	m890_status_t st = M890_SUCCESS;
	int n = c->n;

	for (int i = 0; i < n && !st; i++) {
		struct comm_rank *r = &c->r[i];

		if (!comm_local(c, i))
			continue;
		for (int k = 0; k < n && !st; k++) {
			int j = (i + k) % n;

			if (j == i) {
				st = fn(ctx, i, i, streams[i]);
				continue;
			}
			st = m890_wait(streams[i], r->sem->va + 8ull * j, e,
				       M890_SEM_GE);
			if (!st)
				st = m890_signal(streams[i],
						 r->progress->va + 8ull * j, e,
						 M890_SEM_SET);
			if (!st)
				st = fn(ctx, i, j, streams[i]);
			if (!st)
				st = m890_signal(streams[i],
						 r->sem_win[j]->va + 8ull * (n + i),
						 e, M890_SEM_SET);
		}
		if (!st)
			st = m890_stream_flush(streams[i]);
	}
	return st;
}

/* Exchange phase 3: wait for every peer's transfer; record it for the CPU. */
static m890_status_t exchange_arrivals(struct m890_comm *c,
				       struct m890_stream *const *streams,
				       uint64_t e)
{
	m890_status_t st = M890_SUCCESS;
	int n = c->n;

	for (int i = 0; i < n && !st; i++) {
		struct comm_rank *r = &c->r[i];

		if (!comm_local(c, i))
			continue;
		for (int k = 1; k < n && !st; k++) {
			int j = (i + n - k) % n;

			st = m890_wait(streams[i], r->sem->va + 8ull * (n + j),
				       e, M890_SEM_GE);
			if (!st)
				st = m890_signal(streams[i],
						 r->progress->va + 8ull * (n + j),
						 e, M890_SEM_SET);
		}
	}
	return st;
}

/*
 * The exchange every collective of the communicator runs: rank i's stream
 * signals every peer that it reached the collective, then for each peer j
 * in rotated order (j = i, i + 1, ...) waits until j reached it, lets
 * @fn enqueue the transfer between i and j, and signals j that it is done;
 * finally it waits until every peer has signalled it.  Window imports
 * must be done before (a failure then enqueues nothing).
 */
m890_status_t m890_comm_exchange(struct m890_comm *c,
				 struct m890_stream *const *streams,
				 const char *what, m890_comm_xfer_fn fn,
				 void *ctx)
{
	m890_status_t st;
	uint64_t e;

	e = ++c->epoch;
	c->what = what;
	c->describe = NULL;
	if (comm_fast(c)) {
		st = comm_exchange_fast(c, streams, fn, ctx, e);
	} else {
		/*
		 * Each stream submits its packets phase by phase (phases 2
		 * and 3 of a stream wait only for what earlier phases of
		 * every stream sent), not packet by packet: see
		 * m890_stream_batch().
		 */
		for (int i = 0; i < c->n; i++)
			if (comm_local(c, i))
				m890_stream_batch(streams[i], true);
		st = exchange_ready(c, streams, e);
		if (!st)
			st = exchange_transfers(c, streams, fn, ctx, e);
		if (!st)
			st = exchange_arrivals(c, streams, e);
		/* Submits what phase 3 staged, and after a failure what came before. */
		for (int i = 0; i < c->n; i++) {
			if (comm_local(c, i)) {
				m890_status_t st2 = m890_stream_batch(streams[i], false);

				if (!st)
					st = st2;
			}
		}
	}
	if (st) {
		m890_fail_wrap(st, NULL, "%s #%llu only partly enqueued", what,
			       (unsigned long long)e);
		return m890_comm_set_error(c, st, m890_last_detail());
	}
	return M890_SUCCESS;
}

m890_status_t m890_comm_copy(struct m890_comm *c, struct m890_stream *s,
			     uint64_t dst, uint64_t src, uint64_t bytes)
{
	m890_status_t st = M890_SUCCESS;

	for (uint64_t off = 0; off < bytes && !st; off += c->chunk_bytes) {
		uint64_t left = bytes - off;

		st = m890_memcpy(s, dst + off, src + off,
				 left < c->chunk_bytes ? left : c->chunk_bytes);
	}
	return st;
}

/*
 * Read n slots of local rank @i's HBM semaphore area, from byte @off, into
 * @val: through a CPU mapping of the area if the driver offers one (it
 * works after a fault of the context too), else copied by a fresh stream
 * into progress slots 3n.. and read there; false if neither is possible.
 * These are what the peers really signalled, unlike the progress marks,
 * which only say how far the rank's own stream got.
 */
static bool comm_read_slots(struct m890_comm *c, int i, uint64_t off, uint64_t *val)
{
	struct m890_stream_config scfg = M890_STREAM_CONFIG_INIT;
	struct comm_rank *r = &c->r[i];
	m890_status_t st;
	m890_stream_t s;
	int n = c->n;
	void *p;

	if (m890_buffer_map(r->sem, &p) == M890_SUCCESS) {
		const volatile uint64_t *slot = (const volatile uint64_t *)
			((unsigned char *)p + off);

		for (int j = 0; j < n; j++)
			val[j] = slot[j];
		return true;
	}
	scfg.timeout_ns = 1000000000ull;
	if (m890_stream_create_config(r->dev, &scfg, &s))
		return false;
	st = m890_memcpy(s, r->progress->va + 24ull * n, r->sem->va + off, 8ull * n);
	if (!st)
		st = m890_stream_synchronize(s);
	m890_stream_destroy(s);
	if (st)
		return false;
	for (int j = 0; j < n; j++)
		val[j] = r->prog[3 * n + j];
	return true;
}

/*
 * Every rank signals, posts or transfers to its peers in rotated order
 * (j to j + 1, j + 2, ...), and its stream stops at a peer it cannot
 * reach (a fault on a dead peer's window) or waits at one that has not
 * come (an exchange on spec 1.0 cards waits for each peer before its
 * transfer).  A missing rank j is explained when another missing rank m
 * lies between j and the receiver @i in j's order: j stopped at m (or
 * behind it) before it came to @i.  Keep in @miss only the ranks nothing
 * explains, the likely culprits; returns how many ranks are held up
 * behind them.
 */
static int comm_culprits(struct m890_comm *c, int i, bool *miss)
{
	bool culprit[COMM_MAX_RANKS];
	int n = c->n, held = 0;

	for (int j = 0; j < n; j++) {
		culprit[j] = miss[j];
		for (int m = 0; miss[j] && m < n; m++)
			if (m != j && miss[m] && (m - j + n) % n < (i - j + n) % n) {
				culprit[j] = false;
				held++;
				break;
			}
	}
	for (int j = 0; j < n; j++)
		miss[j] = culprit[j];
	return held;
}

/*
 * "waiting for rank 3 (fabric id 7), rank 5 @what" of @miss (@what may be
 * NULL), then how many (@held) are held up behind them.
 */
static void comm_name_missing(struct m890_comm *c, const bool *miss, int held,
			      const char *what, char *buf, size_t len)
{
	size_t off = 0;
	int count = 0;

	buf[0] = 0;
	for (int j = 0; j < c->n && off < len; j++) {
		if (!miss[j])
			continue;
		if (count == 8) {
			int more = 0;

			for (int j2 = j; j2 < c->n; j2++)
				more += miss[j2];
			off += (size_t)snprintf(buf + off, len - off, " and %d more", more);
			break;
		}
		if (c->fids)
			off += (size_t)snprintf(buf + off, len - off, "%s rank %d (fabric id %u)",
						count ? "," : "waiting for", j, c->fids[j]);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s rank %d",
						count ? "," : "waiting for", j);
		count++;
	}
	if (what && off < len)
		off += (size_t)snprintf(buf + off, len - off, " %s", what);
	if (held && off < len)
		snprintf(buf + off, len - off, " (%d more not seen, held up behind %s)",
			 held, count > 1 ? "them" : "it");
}

/*
 * Describe whom local rank @i's stream is blocked on in the current
 * epoch, from what its peers really signalled it (the ready, then the
 * data slots of its semaphore area, comm_read_slots()): the peers that
 * have not joined the collective, else those whose transfer has not
 * arrived; of these only the culprits are named (comm_culprits()), and
 * the live ranks held up behind them are counted.  The ready signals of
 * spec 1.1 cards (comm_exchange_fast()) are one SIGNAL to every peer,
 * done all or none: no order explains a missing one.  When the slots
 * cannot be read, the stream's progress marks (spec 1.0 cards) name the
 * one peer it waits for; the peers after it are only not checked yet.
 */
static void missing_peers(struct m890_comm *c, int i, char *buf, size_t len)
{
	static const char *const what[2] = { "to join", "to finish its transfer" };
	uint64_t val[COMM_MAX_RANKS];
	bool unread = false;
	int n = c->n;

	for (int phase = 0; phase < 2 && !unread; phase++) {
		bool miss[COMM_MAX_RANKS] = { false };
		bool any = false;
		int held = 0;

		if (!comm_read_slots(c, i, 8ull * (uint64_t)(phase * n), val)) {
			/* The fast exchange leaves no progress marks. */
			unread = comm_fast(c);
			/* Phase 2 waits in the order i+1, i+2, ...; phase 3 in
			 * the order i-1, i-2, ... */
			for (int k = 1; k < n && !any && !unread; k++) {
				int j = phase ? (i + n - k) % n : (i + k) % n;

				any = miss[j] = c->r[i].prog[phase * n + j] < c->epoch;
			}
		} else {
			for (int j = 0; j < n; j++) {
				miss[j] = j != i && val[j] < c->epoch;
				any |= miss[j];
			}
			if (any && (phase || !comm_fast(c)))
				held = comm_culprits(c, i, miss);
		}
		if (any) {
			comm_name_missing(c, miss, held, what[phase], buf, len);
			return;
		}
	}
	if (unread)
		snprintf(buf, len, "its semaphore area could not be read back");
	else
		snprintf(buf, len, "every peer's transfer arrived");
}

M890_EXPORT m890_status_t m890_comm_synchronize(m890_comm_t c,
						const m890_stream_t *streams)
{
	M890_API_SCOPE;
	m890_status_t st = m890_comm_usable(c);
	int64_t deadline;
	char peers[160], msg[256];

	if (st)
		return st;
	if (!streams)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "comm_synchronize: NULL streams");
	deadline = c->timeout_ns == M890_TIMEOUT_INFINITE ? INT64_MAX :
		   m890_monotonic_ns() + (int64_t)c->timeout_ns;
	for (int i = 0; i < c->n; i++) {
		struct m890_stream *si;

		if (!comm_local(c, i))
			continue;
		si = streams[c->lidx[i]];

		st = m890_check(si, M890_OBJ_STREAM, "stream");
		if (st)
			return st;
		st = comm_stream_wait(si, deadline);
		if (st == M890_SUCCESS)
			continue;
		if (c->describe) {
			c->describe(c->describe_ctx, i, peers, sizeof(peers));
			snprintf(msg, sizeof(msg), "rank %d (%s): %s in %s; %s",
				 i, c->r[i].dev->node,
				 st == M890_ERROR_TIMEOUT ? "timed out" :
				 m890_status_string(st),
				 c->what ? c->what : "collective", peers);
			return m890_comm_set_error(c, st, msg);
		}
		missing_peers(c, i, peers, sizeof(peers));
		snprintf(msg, sizeof(msg),
			 "rank %d (%s): %s in %s #%llu; %s",
			 i, c->r[i].dev->node,
			 st == M890_ERROR_TIMEOUT ? "timed out" : m890_status_string(st),
			 c->what ? c->what : "collective",
			 (unsigned long long)c->epoch, peers);
		return m890_comm_set_error(c, st, msg);
	}
	return M890_SUCCESS;
}

/* ---- the collective metadata exchange ---- */

void m890_comm_set_describe(struct m890_comm *c, const char *what,
			     m890_comm_describe_fn fn, void *ctx)
{
	c->what = what;
	c->describe = fn;
	c->describe_ctx = ctx;
}

void m890_comm_clear_describe(struct m890_comm *c, void *ctx)
{
	if (c->describe_ctx == ctx) {
		c->describe = NULL;
		c->describe_ctx = NULL;
	}
}

bool m890_comm_is_per_rank(struct m890_comm *c)
{
	return comm_per_rank(c);
}

int m890_comm_nlocal(struct m890_comm *c)
{
	return c->nlocal;
}

int m890_comm_local_rank(struct m890_comm *c, int l)
{
	return c->lrank[l];
}

int m890_comm_local_index(struct m890_comm *c, int i)
{
	return i >= 0 && i < c->n ? c->lidx[i] : -1;
}

/*
 * The second half of round @round on local rank @i's control stream: the
 * waits for every peer's signal (each noted in the progress area for the
 * CPU), the copy of the n records of @rec bytes of its own region into
 * its gather area, and the submission.
 */
static m890_status_t meta_gather(struct m890_comm *c, int i, uint64_t round,
				 uint64_t rec)
{
	struct comm_rank *r = &c->r[i];
	m890_status_t st = M890_SUCCESS;
	int n = c->n;

	for (int k = 1; k < n && !st; k++) {
		int j = (i + n - k) % n;

		st = m890_wait(r->ctl, r->sem->va + sem_meta_sig(n, j), round,
			       M890_SEM_GE);
		if (!st)
			st = m890_signal(r->ctl, r->progress->va + 8ull * (2 * n + j),
					 round, M890_SEM_SET);
	}
	if (!st)
		st = m890_memcpy_2d(r->ctl, r->gather->va, M890_META_SLOT,
				    r->sem->va + sem_meta_slot(n, round & 1, 0),
				    M890_META_SLOT, rec, (uint64_t)n);
	if (!st)
		st = m890_stream_flush(r->ctl);
	return st;
}

/*
 * Enqueue round @round of local rank @i on its control stream: its
 * record of @rec bytes (staged) into slot (@round & 1, i) of every rank's
 * metadata region, a signal of each peer's metadata slot i (each post
 * noted in the progress area), then meta_gather().
 */
static m890_status_t meta_post(struct m890_comm *c, int i, uint64_t round,
			       uint64_t rec)
{
	struct comm_rank *r = &c->r[i];
	unsigned int par = round & 1;
	m890_status_t st = M890_SUCCESS;
	int n = c->n;

	for (int k = 0; k < n && !st; k++) {
		int j = (i + k) % n;
		uint64_t base = j == i ? r->sem->va : r->sem_win[j]->va;

		st = m890_memcpy(r->ctl, base + sem_meta_slot(n, par, i),
				 r->stage->va, rec);
		if (!st && j != i)
			st = m890_signal(r->ctl, base + sem_meta_sig(n, i), round,
					 M890_SEM_SET);
		/* Posted to j: a fault on a dead peer's window stops here. */
		if (!st && j != i)
			st = m890_signal(r->ctl, r->progress->va + 8ull * (4 * n + j),
					 round, M890_SEM_SET);
	}
	return st ? st : meta_gather(c, i, round, rec);
}

/*
 * The driver resets a queue whose work makes no progress for its job
 * timeout (a few seconds), such as a control stream waiting for a rank
 * that is late but within the communicator's timeout.  If local rank @i's
 * control stream was reset that way after posting its record to every
 * peer, give it a new queue that only waits and gathers again: true if
 * that was done.
 */
static bool meta_rearm(struct m890_comm *c, int i, uint64_t round, uint64_t rec)
{
	struct comm_rank *r = &c->r[i];
	int n = c->n;

	if (r->ctl->async_error != M890_ERROR_TIMEOUT)
		return false;
	for (int j = 0; j < n; j++)
		if (j != i && r->prog[4 * n + j] < round)
			return false;
	m890_stream_destroy(r->ctl);
	r->ctl = NULL;
	if (comm_ctl_create(c, r))
		return false;
	return meta_gather(c, i, round, rec) == M890_SUCCESS;
}

/*
 * Which peers' round @round records local rank @i has: its meta[] slots
 * (comm_read_slots()); false if they cannot be read back.
 */
static bool meta_arrivals(struct m890_comm *c, int i, uint64_t round, bool *miss)
{
	uint64_t meta[COMM_MAX_RANKS];
	int n = c->n;

	if (!comm_read_slots(c, i, sem_meta_sig(n, 0), meta))
		return false;
	for (int j = 0; j < n; j++)
		if (j != i && meta[j] < round)
			miss[j] = true;
	return true;
}

/* The first peer local rank @i did not post round @round to, or -1. */
static int meta_first_unposted(struct m890_comm *c, int i, uint64_t round)
{
	for (int k = 1; k < c->n; k++) {
		int j = (i + k) % c->n;

		if (c->r[i].prog[4 * c->n + j] < round)
			return j;
	}
	return -1;
}

/*
 * The peers each local rank misses in round @round, into @miss: the
 * records the semaphores read back say did not arrive or, when they
 * cannot be read back, the peer its control stream stopped at (the
 * first it did not post to, else the first it did not see, in the order
 * it waits).
 */
static void meta_missing_records(struct m890_comm *c, uint64_t round, bool *miss)
{
	int n = c->n;

	for (int l = 0; l < c->nlocal; l++) {
		int i = c->lrank[l], j;

		if (meta_arrivals(c, i, round, miss))
			continue;
		/* Stopped while posting (a fault): at the peer it wrote to. */
		j = meta_first_unposted(c, i, round);
		if (j >= 0) {
			miss[j] = true;
			continue;
		}
		for (int k = 1; k < n; k++) {
			j = (i + n - k) % n;
			if (c->r[i].prog[2 * n + j] < round) {
				miss[j] = true;
				break;
			}
		}
	}
}

/*
 * After a failed round: "waiting for rank 3 (fabric id 7), rank 5 ..."
 * for the peers whose record some local rank has not received, or "" if
 * every record arrived.  A stream that failed (@fault, not a timeout)
 * stopped where it failed: a write into a dead peer's revoked area stops
 * it at that peer, and the records it never posted or waited for after
 * that say nothing of their ranks, so only the peer it stopped at is
 * named.  Otherwise the records read back decide (meta_missing_records()),
 * and of those only the culprits are named (comm_culprits()).
 */
static void meta_missing(struct m890_comm *c, uint64_t round, bool fault,
			 char *buf, size_t len)
{
	bool miss[COMM_MAX_RANKS] = { false };
	bool stopped = false;
	int held = 0;

	for (int l = 0; fault && l < c->nlocal; l++) {
		int j = meta_first_unposted(c, c->lrank[l], round);

		if (j >= 0) {
			miss[j] = true;
			stopped = true;
		}
	}
	if (!stopped) {
		meta_missing_records(c, round, miss);
		held = comm_culprits(c, c->lrank[0], miss);
	}
	comm_name_missing(c, miss, held, NULL, buf, len);
}

/*
 * Wait up to the deadline for every local control stream of round
 * @round (records of @rec bytes), re-arming those the job timeout reset.
 */
static m890_status_t meta_wait(struct m890_comm *c, uint64_t round,
			       uint64_t rec, int64_t deadline, int *failed)
{
	for (int l = 0; l < c->nlocal; l++) {
		int i = c->lrank[l];
		m890_status_t st;

		do
			st = comm_stream_wait(c->r[i].ctl, deadline);
		while (st == M890_ERROR_TIMEOUT && m890_monotonic_ns() <= deadline &&
		       meta_rearm(c, i, round, rec));
		if (st) {
			*failed = c->lrank[l];
			return st;
		}
	}
	return M890_SUCCESS;
}

/* One round: piece [@off, @off + @len) of every rank's @bytes. */
static m890_status_t meta_round(struct m890_comm *c, const char *what,
				const void *const *mine, size_t bytes,
				size_t off, uint32_t len, void *all)
{
	uint64_t round = ++c->meta_round;
	uint64_t rec = sizeof(struct m890_meta_hdr) + len;
	const unsigned char *recs;
	m890_status_t st = M890_SUCCESS;
	struct m890_saved_error cause;
	char msg[400], peers[240];
	int failed = -1;

	for (int l = 0; l < c->nlocal && !st; l++) {
		int i = c->lrank[l];
		struct m890_meta_hdr *h = c->r[i].stage_map;

		m890_meta_hdr_init(h, round, what, i, bytes, off, len);
		if (len)
			memcpy(h + 1, (const unsigned char *)mine[l] + off, len);
		st = meta_post(c, i, round, rec);
		if (st)
			failed = i;
	}
	if (!st)
		st = meta_wait(c, round, rec, comm_deadline(c), &failed);
	if (st) {
		/*
		 * Partly done: the exchanges are out of step from here on, so
		 * the error is sticky.  Name the peers not seen; a stream error
		 * (a fault on a dead peer's window, the driver's job timeout)
		 * comes with its own text.
		 */
		m890_error_save(&cause);
		meta_missing(c, round, st != M890_ERROR_TIMEOUT, peers, sizeof(peers));
		if (st == M890_ERROR_TIMEOUT && peers[0])
			snprintf(msg, sizeof(msg), "%s: metadata exchange #%llu timed out at rank %d, %s",
				 what, (unsigned long long)round, failed, peers);
		else
			snprintf(msg, sizeof(msg), "%s: metadata exchange #%llu failed at rank %d%s%.200s: %.150s",
				 what, (unsigned long long)round, failed,
				 peers[0] ? ", " : "", peers, cause.detail);
		return m890_comm_set_error(c, st, msg);
	}
	recs = c->r[c->lrank[0]].gather_map;
	st = m890_meta_check(c->n, recs, M890_META_SLOT, round, what, off, len,
			     c->fids, msg, sizeof(msg));
	if (st == M890_ERROR_INVALID_ARGUMENT)
		return m890_fail(st, "%s", msg);
	if (st)
		return m890_comm_set_error(c, st, msg);
	for (int j = 0; j < c->n && len; j++)
		memcpy((unsigned char *)all + (size_t)j * bytes + off,
		       recs + (size_t)j * M890_META_SLOT + sizeof(struct m890_meta_hdr),
		       len);
	return M890_SUCCESS;
}

struct m890_group_state **m890_comm_group(struct m890_comm *c)
{
	return &c->grp;
}

bool m890_comm_group_dry(struct m890_comm *c)
{
	return m890_group_dry(c->grp);
}

m890_status_t m890_comm_allgather_host(struct m890_comm *c, const char *what,
				       const void *const *mine, size_t bytes,
				       void *all)
{
	m890_status_t st = m890_comm_usable(c);

	if (st)
		return st;
	if (c->grp)
		return m890_group_gather(c->grp, c, what, mine, bytes, all);
	return m890_comm_allgather_now(c, what, mine, bytes, all);
}

m890_status_t m890_comm_allgather_now(struct m890_comm *c, const char *what,
				      const void *const *mine, size_t bytes,
				      void *all)
{
	m890_status_t st = m890_comm_usable(c);
	size_t off = 0;

	if (st)
		return st;
	if (!comm_per_rank(c)) {
		for (int l = 0; l < c->nlocal && bytes; l++)
			memcpy((unsigned char *)all + (size_t)c->lrank[l] * bytes,
			       mine[l], bytes);
		return M890_SUCCESS;
	}
	/* Every rank runs at least one round, so a size mismatch is seen. */
	do {
		size_t left = bytes - off;
		uint32_t len = left < M890_META_PAYLOAD ? (uint32_t)left :
			       (uint32_t)M890_META_PAYLOAD;

		st = meta_round(c, what, mine, bytes, off, len, all);
		off += len;
	} while (!st && off < bytes);
	return st;
}

/* Local rank @i's registration number @index, or NULL. */
static struct comm_reg *reg_by_index(struct m890_comm *c, int i,
				     unsigned int index)
{
	struct comm_reg *g;

	for (g = c->regs; g && (g->rank != i || g->index != index); g = g->next)
		;
	return g;
}

m890_status_t m890_comm_reg_find(struct m890_comm *c, int i,
				 struct m890_buffer *buf, unsigned int *index)
{
	struct comm_reg *g;

	for (g = c->regs; g && (g->rank != i || g->buf != buf ||
				g->serial != buf->serial); g = g->next)
		;
	if (!g)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "rank %d's buffer was not registered with m890_comm_register()",
				 i);
	*index = g->index;
	return M890_SUCCESS;
}

m890_status_t m890_comm_reg_peer(struct m890_comm *c, int i, int j,
				 unsigned int index, uint64_t *va,
				 uint64_t *bytes)
{
	struct comm_reg *g = reg_by_index(c, i, index);
	m890_status_t st;

	if (!g)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "rank %d has no registered buffer #%u (it registered %u)",
				 i, index, c->r[i].nreg);
	if (j == i) {
		*va = g->buf->va;
		*bytes = g->buf->bytes;
		return M890_SUCCESS;
	}
	if (!g->win[j]) {
		st = comm_reg_windows(c, g);
		if (st)
			return st;
	}
	*va = g->win[j]->va;
	*bytes = g->peer_bytes[j];
	return M890_SUCCESS;
}
