/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: M890 modelled clock (timing model 1.1, spec §10)
 *
 * The card is modelled as two units that work in a pipeline: the command
 * processor (CP) fetches packets in order, 50 ns each, and hands each
 * packet's data phase to the data mover (DM), which runs one data phase
 * at a time; the CP fetches the next packet while the DM moves the
 * previous packet's data.  s->t_cp is the modelled time at which the CP
 * is free to fetch, s->t_dm the time at which the DM is free, both in
 * half-femtoseconds (hfs) as Int128 so that no sum ever wraps.
 *
 * A packet's data phase starts when its fetch has ended and the DM is
 * free: start = max(t_cp, t_dm), after which the CP is free again.  Its
 * length is the largest of its memory classes' times (the classes stream
 * concurrently) plus one switch round trip for every non-posted access
 * to a peer that the packet waits for.  The packet's bytes arrive in
 * pieces, possibly over several bottom-half runs or from the copy worker,
 * so the queue keeps the packet's byte count per class and the length
 * already charged; every charge recomputes the length and moves t_dm by
 * the difference.  REG_CLOCK therefore advances while a long packet runs.
 *
 * WAIT, TIMESTAMP and FENCE are executed by the CP itself after the DM
 * has drained (m890_clock_drain()): the CP waits for t_dm and is busy for
 * their own accesses.  A packet that never charges anything (NOP, a
 * zero-sized COPY) costs only its fetch.
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

uint64_t m890_clock_ns(M890State *s)
{
    Int128 t = int128_max(s->t_cp, s->t_dm);

    return int128_getlo(int128_divu(t, int128_make64(M890_HFS_PER_NS)));
}

void m890_clock_reset(M890State *s)
{
    s->t_cp = int128_zero();
    s->t_dm = int128_zero();
}

void m890_clock_fetch(M890State *s, M890Queue *q)
{
    unsigned int c;

    int128_addto(&s->t_cp, m890_mul(M890_NS_PER_PACKET, M890_HFS_PER_NS));
    q->t_started = false;
    q->t_sync = false;
    q->t_peer_read = false;
    for (c = 0; c < M890_CLS_N; c++) {
        q->t_bytes[c] = 0;
    }
    q->t_trips = 0;
    q->t_len = int128_zero();
}

void m890_clock_start(M890State *s, M890Queue *q)
{
    Int128 start;

    if (q->t_started) {
        return;
    }
    start = int128_max(s->t_cp, s->t_dm);
    s->t_cp = start;
    s->t_dm = start;
    q->t_started = true;
}

void m890_clock_drain(M890State *s, M890Queue *q)
{
    q->t_sync = true;
    m890_clock_start(s, q);
}

/* Recompute the data phase of @q's packet and move the clock. */
static void m890_clock_update(M890State *s, M890Queue *q)
{
    Int128 len = int128_zero();
    unsigned int c;

    m890_clock_start(s, q);
    for (c = 0; c < M890_CLS_N; c++) {
        len = int128_max(len, m890_mul(q->t_bytes[c], m890_hfs_per_byte[c]));
    }
    int128_addto(&len, m890_mul(q->t_trips,
                                M890_NS_ROUND_TRIP * M890_HFS_PER_NS));
    /* the length only grows: every count above only grows */
    int128_addto(&s->t_dm, int128_sub(len, q->t_len));
    q->t_len = len;
    if (q->t_sync) {
        s->t_cp = s->t_dm;
    }
}

void m890_clock_bytes(M890State *s, M890Queue *q, unsigned int cls,
                      uint64_t n)
{
    q->t_bytes[cls] += n;
    m890_clock_update(s, q);
}

void m890_clock_job(M890State *s, M890Queue *q, const uint64_t *bytes)
{
    unsigned int c;

    for (c = 0; c < M890_CLS_N; c++) {
        q->t_bytes[c] += bytes[c];
    }
    m890_clock_update(s, q);
}

void m890_clock_peer_read(M890State *s, M890Queue *q)
{
    if (q->t_peer_read) {
        return;
    }
    q->t_peer_read = true;
    q->t_trips++;
    m890_clock_update(s, q);
}
