/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: M890 data movers on host threads
 *
 * Long linear COPYs move their bytes on QEMU's thread pool
 * (thread_pool_submit_aio() in the main loop's AioContext), off the BQL
 * and in parallel: every queue of every card may have pieces in flight,
 * up to one per host core per card (s->max_pieces), so that the cards
 * together use every core of the host.  Device state stays under the BQL:
 * the bottom half checks the packet, translates every page through the
 * MMU (raising faults there), checks the fabric (route, partition,
 * window, bounds, drops) and pins what the piece touches, charges the
 * run's budget and submits a piece of at most M890_ASYNC_PIECE bytes.  A
 * pool thread only memmove()s between the host pointers of the piece.
 *
 * What a piece may touch, and how it is pinned until it is released:
 *
 * - guest RAM: address_space_map(), kept only when the mapping is
 *   direct (no bounce buffer, never MMIO);
 * - this card's HBM and the HBM of a peer in this process (a RAM block
 *   of its memory backend): a reference on the backend's memory region,
 *   so that unplugging either card cannot free memory a thread copies;
 * - a peer in the same trust domain only: an access that needs a window
 *   (spec §8.7) and a peer of another VM (memory icn-switchd shares)
 *   stay on the synchronous path, so that a revoked window or a FENCE of
 *   icn-switchd is never overtaken by a piece checked before it.
 *
 * Completion: the pool calls m890_piece_cb() in the main loop (BQL
 * held), which marks the piece and schedules the card's guarded
 * completion bottom half.  That one retires each queue's pieces in the
 * order they were submitted: it charges the modelled clock and the
 * switch counters exactly as the synchronous path would have charged the
 * same bytes, advances the packet, unpins (marking written RAM dirty)
 * and lets the queue run again.  HEAD moves only once every piece of the
 * packet is retired, so a completed packet's writes are visible (spec
 * §4.3).  A copy whose source and destination ranges overlap has at most
 * one piece in flight, so its pieces run in order.
 *
 * Cancellation never waits: a queue reset, device reset, FLR or unplug
 * cancels what has not started (bdrv_aio_cancel_async()) and orphans the
 * pieces of the abandoned work; they are released when the pool is done
 * with them, without charging anything.  Until then Q_STATUS.ENABLED
 * stays set (queue reset, pause) and STATUS.READY stays clear (device
 * reset, FLR): the card makes no further access for abandoned work once
 * software sees them change (spec §4.4, §9.1).  At most one piece per
 * core per card is in flight, 4 MiB each: a few milliseconds.  An
 * unplugged card's pieces keep their pins and finish on their own.
 *
 * A spec 1.0 card (no CAPS.ENGINES) resets synchronously (spec §9.1):
 * it copies everything in the bottom half.
 */
#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "block/aio.h"
#include "block/block-io.h"
#include "block/thread-pool.h"
#include "exec/address-spaces.h"
#include "exec/memory.h"
#include "hw/pci/pci_device.h"

#include "m890.h"
#include "m890_exec.h"
#include "trace.h"

/* One side of a segment: a host pointer and what pins it. */
typedef struct M890PieceEnd {
    uint8_t *ptr;
    MemoryRegion *mr;           /* HBM: referenced region, or NULL */
    ram_addr_t mr_off;          /* offset of ptr in mr */
    void *map;                  /* guest RAM: address_space_map(), or NULL */
    uint64_t map_len;
} M890PieceEnd;

typedef struct M890PieceSeg {
    M890PieceEnd src, dst;
    uint64_t len;
    int peer;                   /* egress port of a peer side, or -1 */
    bool peer_write;            /* the peer side is the destination */
} M890PieceSeg;

struct M890Piece {
    M890State *card;            /* NULL once the card is unrealized */
    uint32_t qid;
    bool orphan;                /* abandoned: release, charge nothing */
    bool done;                  /* the pool finished (or cancelled) it */
    int ret;                    /* 0: copied; -ECANCELED: never started */
    BlockAIOCB *acb;            /* until the pool's callback */
    /* in its queue, oldest first; an orphan in its card's orphans */
    QTAILQ_ENTRY(M890Piece) next;
    unsigned int nseg;
    uint64_t bytes;
    uint64_t cls_bytes[M890_CLS_N];     /* bytes per memory class */
    M890PieceSeg seg[M890_ASYNC_SEGS];
};

static AddressSpace *m890_piece_as(M890Piece *p)
{
    /*
     * Only direct mappings are kept (m890_pin_dma()), whose unmap never
     * uses the address space; without the card, any will do.
     */
    return p->card ? pci_get_address_space(PCI_DEVICE(p->card)) :
                     &address_space_memory;
}

static void m890_end_release(M890Piece *p, M890PieceEnd *e, bool write,
                             uint64_t written)
{
    if (e->map) {
        address_space_unmap(m890_piece_as(p), e->map, e->map_len, write,
                            written);
    }
    if (e->mr) {
        if (write && written) {
            memory_region_set_dirty(e->mr, e->mr_off, written);
        }
        memory_region_unref(e->mr);
    }
    e->map = NULL;
    e->mr = NULL;
}

/* Unpin the piece's memory; @written: its bytes were copied. */
static void m890_piece_release(M890Piece *p, bool written)
{
    unsigned int i;

    for (i = 0; i < p->nseg; i++) {
        M890PieceSeg *g = &p->seg[i];

        m890_end_release(p, &g->src, false, 0);
        m890_end_release(p, &g->dst, true, written ? g->len : 0);
    }
    p->nseg = 0;
}

void m890_piece_free(M890Piece *p)
{
    m890_piece_release(p, false);
    g_free(p);
}

M890Piece *m890_piece_new(M890State *s, M890Queue *q)
{
    M890Piece *p = g_new0(M890Piece, 1);

    p->card = s;
    p->qid = q->index;
    return p;
}

/* Pin guest RAM at @dma for up to *@n bytes; false if not plain RAM. */
static bool m890_pin_dma(M890State *s, uint64_t dma, uint64_t *n,
                         bool write, M890PieceEnd *e)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    MemTxAttrs attrs = MEMTXATTRS_UNSPECIFIED;
    hwaddr xlat, l = *n, plen;
    MemoryRegion *mr;
    ram_addr_t off;
    void *ptr;

    WITH_RCU_READ_LOCK_GUARD() {
        mr = address_space_translate(as, dma, &xlat, &l, write, attrs);
        if (!memory_access_is_direct(mr, write, attrs)) {
            return false;
        }
    }
    plen = MIN(l, *n);
    ptr = address_space_map(as, dma, &plen, write, attrs);
    if (!ptr) {
        return false;
    }
    if (!memory_region_from_host(ptr, &off)) {
        /* a bounce buffer after all: the topology changed meanwhile */
        address_space_unmap(as, ptr, plen, write, 0);
        return false;
    }
    e->ptr = ptr;
    e->map = ptr;
    e->map_len = plen;
    *n = MIN(*n, plen);
    return true;
}

/* Pin HBM (this card's or an in-process peer's) at @ptr. */
static bool m890_pin_hbm(uint8_t *ptr, M890PieceEnd *e)
{
    ram_addr_t off;
    MemoryRegion *mr = memory_region_from_host(ptr, &off);

    if (!mr) {
        return false;           /* a peer of another VM: icn-switchd's */
    }
    memory_region_ref(mr);
    e->ptr = ptr;
    e->mr = mr;
    e->mr_off = off;
    return true;
}

/* True if the peer behind @egress is in this card's trust domain. */
static bool m890_same_domain(M890State *s, int egress)
{
    uint32_t a, b;

    return !icn_switch_domain(s->sw->core, s->port, &a) &&
           !icn_switch_domain(s->sw->core, egress, &b) && a == b;
}

static bool m890_pin(M890State *s, const M890Seg *g, uint64_t *n,
                     bool write, M890PieceEnd *e)
{
    memset(e, 0, sizeof(*e));
    if (!g->ptr) {
        return m890_pin_dma(s, g->dma, n, write, e);
    }
    if (g->peer >= 0 && !m890_same_domain(s, g->peer)) {
        return false;
    }
    return m890_pin_hbm(g->ptr, e);
}

bool m890_piece_add(M890State *s, M890Piece *p, const M890Seg *sg,
                    const M890Seg *dg, uint64_t *n)
{
    M890PieceSeg *g = &p->seg[p->nseg];

    if (p->nseg == M890_ASYNC_SEGS) {
        return false;
    }
    *n = MIN(*n, MIN(sg->len, dg->len));
    if (!m890_pin(s, sg, n, false, &g->src)) {
        return false;
    }
    if (!m890_pin(s, dg, n, true, &g->dst)) {
        m890_end_release(p, &g->src, false, 0);
        return false;
    }
    g->len = *n;
    g->peer = dg->peer >= 0 ? dg->peer : sg->peer;
    g->peer_write = dg->peer >= 0;
    p->nseg++;
    p->bytes += *n;
    p->cls_bytes[sg->cls] += *n;
    p->cls_bytes[dg->cls] += *n;
    return true;
}

uint64_t m890_piece_bytes(const M890Piece *p)
{
    return p->bytes;
}

/* On a pool thread: the piece's bytes, and nothing else. */
static int m890_piece_run(void *opaque)
{
    M890Piece *p = opaque;
    unsigned int i;

    for (i = 0; i < p->nseg; i++) {
        memmove(p->seg[i].dst.ptr, p->seg[i].src.ptr, p->seg[i].len);
    }
    return 0;
}

/* An orphan is done: release it and let its queue (or card) go on. */
static void m890_orphan_done(M890Piece *p)
{
    M890State *s = p->card;

    trace_m890_async_cancel(p->qid, p->bytes);
    m890_piece_release(p, p->ret == 0);
    if (s) {
        M890Queue *q = &s->queues[p->qid];

        QTAILQ_REMOVE(&s->orphan_list, p, next);
        q->orphans--;
        s->orphans--;
        if (!q->orphans) {
            qemu_bh_schedule(s->bh);        /* it may be enabled again */
        }
    }
    g_free(p);
}

/* The pool's completion, in the main loop under the BQL. */
static void m890_piece_cb(void *opaque, int ret)
{
    M890Piece *p = opaque;

    p->acb = NULL;
    p->done = true;
    p->ret = ret;
    if (p->orphan) {
        m890_orphan_done(p);
        return;
    }
    qemu_bh_schedule(p->card->job_bh);
}

/* Charge a copied piece as the synchronous path charges its bytes. */
static void m890_piece_charge(M890State *s, M890Queue *q, M890Piece *p)
{
    unsigned int i;

    m890_clock_job(s, q, p->cls_bytes);
    for (i = 0; i < p->nseg && s->attached; i++) {
        M890PieceSeg *g = &p->seg[i];

        if (g->peer < 0) {
            continue;
        }
        if (g->peer_write) {
            icn_switch_account(s->sw->core, s->port, g->peer, g->len);
        } else {
            icn_switch_account(s->sw->core, g->peer, s->port, g->len);
        }
    }
}

/* Retire @q's finished pieces, oldest first, until one is still busy. */
static void m890_queue_retire(M890State *s, M890Queue *q)
{
    M890Piece *p;

    while ((p = QTAILQ_FIRST(&q->pieces)) && p->done) {
        QTAILQ_REMOVE(&q->pieces, p, next);
        q->npieces--;
        s->npieces--;
        q->piece_bytes -= p->bytes;
        trace_m890_async_done(p->qid, p->bytes);
        m890_piece_charge(s, q, p);
        q->progress += p->bytes;
        m890_piece_release(p, true);
        g_free(p);
    }
}

/* Completion bottom half: retire, then let every queue run again. */
static void m890_job_done_bh(void *opaque)
{
    M890State *s = opaque;
    unsigned int i;

    for (i = 0; i < s->num_queues; i++) {
        M890Queue *q = &s->queues[i];

        m890_queue_retire(s, q);
        q->piece_wait = false;
    }
    qemu_bh_schedule(s->bh);
}

bool m890_async_slot(M890State *s, M890Queue *q)
{
    return s->engines && s->npieces < s->max_pieces &&
           q->npieces < M890_ASYNC_QUEUE_PIECES;
}

void m890_piece_submit(M890State *s, M890Queue *q, M890Piece *p)
{
    trace_m890_async_queue(q->index, p->bytes);
    m890_clock_start(s, q);     /* the data mover takes the packet */
    QTAILQ_INSERT_TAIL(&q->pieces, p, next);
    q->npieces++;
    s->npieces++;
    q->piece_bytes += p->bytes;
    p->acb = thread_pool_submit_aio(m890_piece_run, p, m890_piece_cb, p);
}

/* Abandon @p: it is released when the pool is done with it. */
static void m890_piece_orphan(M890State *s, M890Queue *q, M890Piece *p)
{
    QTAILQ_REMOVE(&q->pieces, p, next);
    q->npieces--;
    s->npieces--;
    q->piece_bytes -= p->bytes;
    p->orphan = true;
    q->orphans++;
    s->orphans++;
    QTAILQ_INSERT_TAIL(&s->orphan_list, p, next);
    if (p->done) {
        m890_orphan_done(p);    /* copied, not yet retired */
    } else {
        bdrv_aio_cancel_async(p->acb);  /* may complete it at once */
    }
}

/* Drop the pieces of @q's packet (of every queue if @q is NULL). */
void m890_async_cancel(M890State *s, M890Queue *q)
{
    unsigned int i;

    for (i = 0; i < s->num_queues; i++) {
        M890Queue *w = &s->queues[i];
        M890Piece *p, *tmp;

        if (q && w != q) {
            continue;
        }
        QTAILQ_FOREACH_SAFE(p, &w->pieces, next, tmp) {
            m890_piece_orphan(s, w, p);
        }
        w->piece_wait = false;
    }
}

bool m890_async_quiet(M890State *s)
{
    return !s->orphans;
}

void m890_async_init(M890State *s)
{
    unsigned int i;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    s->max_pieces = MIN(MAX(cores, 1), M890_ASYNC_MAX_PIECES);
    s->npieces = 0;
    s->orphans = 0;
    QTAILQ_INIT(&s->orphan_list);
    for (i = 0; i < M890_MAX_QUEUES; i++) {
        QTAILQ_INIT(&s->queues[i].pieces);
        s->queues[i].npieces = 0;
        s->queues[i].piece_bytes = 0;
        s->queues[i].orphans = 0;
        s->queues[i].piece_wait = false;
    }
    s->job_bh = qemu_bh_new_guarded(m890_job_done_bh, s,
                                    &DEVICE(s)->mem_reentrancy_guard);
}

/*
 * Unrealize: orphan everything and forget the card; the pieces still on
 * a pool thread keep their pins and are freed when they finish.
 */
void m890_async_fini(M890State *s)
{
    M890Piece *p, *tmp;

    m890_async_cancel(s, NULL);
    QTAILQ_FOREACH_SAFE(p, &s->orphan_list, next, tmp) {
        QTAILQ_REMOVE(&s->orphan_list, p, next);
        p->card = NULL;
    }
    s->orphans = 0;
    qemu_bh_delete(s->job_bh);
    s->job_bh = NULL;
}
