/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: M890 modelled clock (timing model 1.2, spec §10)
 *
 * The card is one command processor (CP) and s->engines data movers
 * (DMs).  Every time of the model is an Int128 count of half-femtoseconds
 * (hfs, 2,000,000 per ns), so every per-byte cost is an integer and no
 * sum wraps:
 *
 *   s->t_cp          the CP is free to fetch the next packet
 *   s->t_dm[k]       DM k is free
 *   s->t_free[c]     memory class c (HBM, host, link) is free
 *   s->t_mxu         the matrix engines are free (GEMM)
 *   q->t_done        the end of queue q's latest packet so far
 *   q->t_drained     the end of q's last drain (WAIT, TIMESTAMP, FENCE)
 *   q->t_dstart      the start of q's last drain
 *   q->t_hist[n%16]  the start of q's packet n - 16 (prefetch window)
 *
 * The rules are applied in the order the card executes packets and the
 * pieces of packets:
 *
 * - m890_clock_fetch(): the packet at HEAD is fetched at
 *   f = max(t_cp, start of the packet 16 before it, t_dstart) and the
 *   fetch ends 50 ns later, which is the new t_cp;
 * - m890_clock_start(): a data packet's phase starts, at its first
 *   charge, on the DM free first (lowest number on a tie), once fetched
 *   and once t_done (t_drained with M890_PKT_F_RELAXED) has passed;
 * - m890_clock_bytes() and m890_clock_job(): each piece reserves its
 *   bytes of each class first come, first served: they start at
 *   max(start, t_free[c]) and t_free[c] moves past them.  The phase ends
 *   when its latest class is done, plus one switch round trip per
 *   non-posted peer access it waited for (m890_clock_peer_read());
 * - m890_clock_compute(): a GEMM piece reserves the matrix engines
 *   first come, first served like a memory class: its multiply-adds
 *   start at max(start, t_mxu) and take their time at the rate of the
 *   operand formats; the phase ends no earlier than they do;
 * - m890_clock_drain(): a drain starts once fetched and once t_done has
 *   passed, takes no DM and reserves no bandwidth: its bytes add their
 *   time at the class's rate to its own length;
 * - m890_clock_check(): every check of a WAIT pays its bytes (and a
 *   round trip on a peer) again; a check that a SIGNAL of this card
 *   triggered (m890_clock_signalled()) happens no earlier than the end
 *   of that SIGNAL's write, so queues of one card that wait for each
 *   other keep their order in modelled time too;
 * - m890_clock_done(): the packet completed; its start enters the
 *   prefetch window.  A packet that charged nothing (NOP, a zero-sized
 *   COPY) never took a DM: it starts and ends when its fetch ends.
 *
 * REG_CLOCK is the largest of t_cp, every t_dm[k] and every t_done,
 * which s->t_now keeps (all of them only grow), in whole ns.
 *
 * A card without CAPS.ENGINES (property engines=0, a spec 1.0 card)
 * follows model 1.1, the special case of these rules with one DM, a
 * prefetch window of one packet and drains that hold the CP until they
 * end.
 */
#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "hw/pci/pci_device.h"

#include "m890.h"

static const uint32_t m890_hfs_per_byte[M890_CLS_N] = {
    [M890_CLS_HBM] = M890_HFS_PER_BYTE_HBM,
    [M890_CLS_HOST] = M890_HFS_PER_BYTE_HOST,
    [M890_CLS_PEER] = M890_HFS_PER_BYTE_PEER,
};

static Int128 m890_mul(uint64_t a, uint64_t b)
{
    uint64_t lo, hi;

    mulu64(&lo, &hi, a, b);
    return int128_make128(lo, hi);
}

static Int128 m890_ns(uint64_t ns)
{
    return m890_mul(ns, M890_HFS_PER_NS);
}

/* Data movers of the timing model: one on a spec 1.0 card. */
static unsigned int m890_clock_engines(M890State *s)
{
    return s->engines ? s->engines : 1;
}

/* Depth of a queue's prefetch window: one packet on a spec 1.0 card. */
static unsigned int m890_clock_window(M890State *s)
{
    return s->engines ? M890_PREFETCH : 1;
}

static void m890_clock_now(M890State *s, Int128 t)
{
    s->t_now = int128_max(s->t_now, t);
}

uint64_t m890_clock_ns(M890State *s)
{
    return int128_getlo(int128_divu(s->t_now, int128_make64(M890_HFS_PER_NS)));
}

uint64_t m890_clock_drain_ns(M890Queue *q)
{
    return int128_getlo(int128_divu(q->t_start,
                                    int128_make64(M890_HFS_PER_NS)));
}

static void m890_clock_queue_init(M890Queue *q)
{
    unsigned int i;

    q->t_done = int128_zero();
    q->t_drained = int128_zero();
    q->t_dstart = int128_zero();
    for (i = 0; i < M890_PREFETCH; i++) {
        q->t_hist[i] = int128_zero();
    }
}

void m890_clock_reset(M890State *s)
{
    unsigned int i;

    s->t_cp = int128_zero();
    s->t_now = int128_zero();
    for (i = 0; i < M890_MAX_ENGINES; i++) {
        s->t_dm[i] = int128_zero();
    }
    for (i = 0; i < M890_CLS_N; i++) {
        s->t_free[i] = int128_zero();
    }
    s->t_mxu = int128_zero();
    for (i = 0; i < M890_MAX_QUEUES; i++) {
        m890_clock_queue_init(&s->queues[i]);
    }
}

void m890_clock_queue_reset(M890State *s, M890Queue *q)
{
    unsigned int i;

    /*
     * HEAD restarts at 0: the window of the abandoned packets is dropped.
     * t_done and t_drained stay: what the queue had started still ends
     * when it ends, and the clock never runs backwards.
     */
    for (i = 0; i < M890_PREFETCH; i++) {
        q->t_hist[i] = int128_zero();
    }
}

void m890_clock_fetch(M890State *s, M890Queue *q)
{
    Int128 f = int128_max(s->t_cp, q->t_dstart);

    f = int128_max(f, q->t_hist[q->head % m890_clock_window(s)]);
    s->t_cp = int128_add(f, m890_ns(M890_NS_PER_PACKET));
    m890_clock_now(s, s->t_cp);
    q->t_fetched = s->t_cp;
    q->t_started = false;
    q->t_sync = false;
    q->t_peer_read = false;
    q->t_trips = 0;
    q->t_wake = int128_zero();
}

void m890_clock_start(M890State *s, M890Queue *q)
{
    uint32_t hdr = le32_to_cpu(q->pkt.hdr);
    unsigned int k, i, n = m890_clock_engines(s);
    Int128 order;

    if (q->t_started) {
        return;
    }
    k = 0;
    for (i = 1; i < n; i++) {
        if (int128_lt(s->t_dm[i], s->t_dm[k])) {
            k = i;
        }
    }
    order = (M890_PKT_FLAGS(hdr) & M890_PKT_F_RELAXED) ? q->t_drained :
                                                          q->t_done;
    q->t_start = int128_max(int128_max(q->t_fetched, s->t_dm[k]), order);
    q->t_end = q->t_start;
    q->t_engine = k;
    q->t_started = true;
}

/* The end of @q's packet so far, with its round trips. */
static Int128 m890_clock_end(M890Queue *q)
{
    return int128_add(q->t_end, m890_mul(q->t_trips,
                      M890_NS_ROUND_TRIP * M890_HFS_PER_NS));
}

/* Move the end of @q's packet to its bytes' end plus its round trips. */
static void m890_clock_update(M890State *s, M890Queue *q)
{
    Int128 end = m890_clock_end(q);

    if (q->t_sync) {
        q->t_done = end;
        q->t_drained = end;
        if (!s->engines) {
            s->t_cp = int128_max(s->t_cp, end);     /* model 1.1 */
        }
    } else {
        s->t_dm[q->t_engine] = end;
        q->t_done = int128_max(q->t_done, end);
    }
    m890_clock_now(s, end);
}

void m890_clock_drain(M890State *s, M890Queue *q)
{
    if (q->t_started) {
        return;
    }
    q->t_start = int128_max(q->t_fetched, q->t_done);
    q->t_end = q->t_start;
    q->t_dstart = q->t_start;
    q->t_sync = true;
    q->t_started = true;
    m890_clock_update(s, q);
}

/* Reserve @n bytes of class @cls for @q's packet (or add them to a drain). */
static void m890_clock_charge(M890State *s, M890Queue *q, unsigned int cls,
                              uint64_t n)
{
    Int128 t = m890_mul(n, m890_hfs_per_byte[cls]);

    if (q->t_sync) {
        q->t_end = int128_add(q->t_end, t);
        return;
    }
    s->t_free[cls] = int128_add(int128_max(q->t_start, s->t_free[cls]), t);
    q->t_end = int128_max(q->t_end, s->t_free[cls]);
}

void m890_clock_bytes(M890State *s, M890Queue *q, unsigned int cls,
                      uint64_t n)
{
    if (!n) {
        return;
    }
    m890_clock_start(s, q);
    m890_clock_charge(s, q, cls, n);
    m890_clock_update(s, q);
}

void m890_clock_job(M890State *s, M890Queue *q, const uint64_t *bytes)
{
    unsigned int c;

    m890_clock_start(s, q);
    for (c = 0; c < M890_CLS_N; c++) {
        if (bytes[c]) {
            m890_clock_charge(s, q, c, bytes[c]);
        }
    }
    m890_clock_update(s, q);
}

void m890_clock_peer_read(M890State *s, M890Queue *q)
{
    if (q->t_peer_read) {
        return;
    }
    m890_clock_start(s, q);
    q->t_peer_read = true;
    if (q->t_sync) {
        /* a drain's accesses are serial: the trip adds to its length */
        q->t_end = int128_add(q->t_end, m890_ns(M890_NS_ROUND_TRIP));
    } else {
        q->t_trips++;
    }
    m890_clock_update(s, q);
}

void m890_clock_compute(M890State *s, M890Queue *q, uint64_t macs,
                        unsigned int hfs_per_mac)
{
    if (!macs) {
        return;
    }
    m890_clock_start(s, q);
    s->t_mxu = int128_add(int128_max(q->t_start, s->t_mxu),
                          m890_mul(macs, hfs_per_mac));
    q->t_end = int128_max(q->t_end, s->t_mxu);
    m890_clock_update(s, q);
}

void m890_clock_signalled(M890State *s, M890Queue *q, const void *sem)
{
    Int128 t = m890_clock_end(q);
    unsigned int i;

    for (i = 0; i < s->num_queues; i++) {
        M890Queue *w = &s->queues[i];

        if (w->waiting && w->wait_sem == sem) {
            w->t_wake = int128_max(w->t_wake, t);
        }
    }
}

void m890_clock_check(M890State *s, M890Queue *q)
{
    q->t_peer_read = false;
    q->t_end = int128_max(q->t_end, q->t_wake);
    q->t_wake = int128_zero();
    m890_clock_update(s, q);
}

void m890_clock_done(M890State *s, M890Queue *q)
{
    Int128 start = q->t_started ? q->t_start : q->t_fetched;

    q->t_hist[q->head % m890_clock_window(s)] = start;
}
