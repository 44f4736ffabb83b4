/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of timing model 1.2 (spec §10): engines, queues, prefetch
 *
 * Three cards on one switch: cards 0 and 1 are spec 1.1 cards (4 data
 * movers, fabric atomics), card 2 (engines=0) is a spec 1.0 card, which
 * keeps model 1.1.  Each test resets the card it times, so its clock
 * starts at 0, and compares REG_CLOCK and TIMESTAMP values with the exact
 * times the rules of spec §10 give, one rule per test:
 *
 * - several data movers, at most NUM_ENGINES phases at once;
 * - queues running concurrently on different data movers;
 * - first come, first served sharing of a memory class;
 * - the 16-packet prefetch window per queue;
 * - no fetch before the start of the queue's last drain;
 * - RELAXED packets waiting only for the last drain;
 * - a posted SIGNAL ADD against the round trip of a 1.0 card, for one and
 *   for many targets, and a COPY with its signal;
 * - the round trip of a packet that reads a peer, once per packet;
 * - WAIT checks: each one charged, a check triggered by a SIGNAL of the
 *   same card not before that SIGNAL, packets after a WAIT fetched while
 *   it blocks;
 * - model 1.1 on the 1.0 card: one data mover, drains holding the CP.
 *
 * Times are computed in the model's unit, 0.5 fs (hfs); REG_CLOCK and
 * TIMESTAMP are whole ns, rounded down.
 */
#include "qemu/osdep.h"
#include "m890-qtest.h"

#define HFS_NS          2000000ull
#define NS(n)           ((uint64_t)(n) * HFS_NS)
#define HBM_B(n)        ((uint64_t)(n) * 625)           /* 3.2 TB/s */
#define HOST_B(n)       ((uint64_t)(n) * 31250)         /* 64 GB/s */
#define PEER_B(n)       ((uint64_t)(n) * 2500)          /* 800 GB/s */
#define FETCH           NS(50)
#define TRIP            NS(1000)                        /* 2 x 500 ns */
#define NCARDS          3

static QOSState *qs;
static Card cards[NCARDS];
static uint64_t ts_buf;         /* guest RAM for TIMESTAMP values */

/* Reset card @i: its clock reads 0 again; program MMU and queues. */
static Card *fresh(int i)
{
    Card *c = &cards[i];

    wr(c, M890_REG_CONTROL, M890_CONTROL_RESET);
    card_restart(c);
    g_assert_cmpuint(rdq(c, M890_REG_CLOCK), ==, 0);
    return c;
}

static void run_ok(Card *c, int q, const union m890_packet *p)
{
    g_assert_cmphex(run(c, q, p), ==, M890T_IDLE);
}

/* REG_CLOCK must read the whole ns of @hfs. */
static void clock_is(Card *c, uint64_t hfs)
{
    g_assert_cmpuint(rdq(c, M890_REG_CLOCK), ==, hfs / HFS_NS);
}

static union m890_packet nop(void)
{
    union m890_packet p = { 0 };

    p.hdr = M890_PKT_HDR(M890_PKT_NOP, 0);
    return p;
}

static union m890_packet relaxed(union m890_packet p)
{
    p.hdr |= M890_PKT_HDR(0, M890_PKT_F_RELAXED);
    return p;
}

static union m890_packet signal_pkt(uint32_t op, uint64_t va, uint64_t v)
{
    union m890_packet p = { 0 };

    p.signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
    p.signal.op = op;
    p.signal.addr = va;
    p.signal.value = v;
    return p;
}

static union m890_packet wait_pkt(uint64_t va, uint64_t v)
{
    union m890_packet p = { 0 };

    p.wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
    p.wait.cond = M890_WAIT_GE;
    p.wait.addr = va;
    p.wait.value = v;
    return p;
}

/*
 * Run a TIMESTAMP (to host memory: a drain of 8 host bytes) on queue @q
 * of @c and return the ns it wrote.
 */
static uint64_t stamp(Card *c, int q)
{
    union m890_packet p = { 0 };

    p.timestamp.hdr = M890_PKT_HDR(M890_PKT_TIMESTAMP, 0);
    p.timestamp.addr = VA_HOST + ts_buf;
    qtest_writeq(qs->qts, ts_buf, ~0ull);
    run_ok(c, q, &p);
    return qtest_readq(qs->qts, ts_buf);
}

/* An 8-byte COPY from the peer's HBM: 1000 ns of round trip, no more. */
static union m890_packet peer_read8(void)
{
    return copy_pkt(VA_PEER + 0x100000, VA_HBM + 0x100000, 8);
}

/*
 * NUM_ENGINES data movers: five RELAXED packets that each wait for a
 * round trip run four at a time; the fifth takes the data mover free
 * first.  Without RELAXED they run one after the other.
 */
static void test_engines(void)
{
    union m890_packet p = relaxed(peer_read8());
    const uint64_t one = TRIP + PEER_B(8);
    Card *a = fresh(0);
    int i;

    g_assert_cmpuint(rd(a, M890_REG_NUM_ENGINES), ==, 4);
    for (i = 0; i < 5; i++) {
        run_ok(a, 0, &p);               /* DM i % 4, from 50 + 50 i */
    }
    /* the fifth starts when DM 0 is free, at 50 + one */
    clock_is(a, FETCH + 2 * one);
    g_assert_cmpuint(stamp(a, 0), ==, (FETCH + 2 * one) / HFS_NS);

    a = fresh(0);
    p = peer_read8();
    for (i = 0; i < 5; i++) {
        run_ok(a, 0, &p);
    }
    clock_is(a, FETCH + 5 * one);
}

/*
 * Queues are independent: packets of two queues run at once on two data
 * movers, and a TIMESTAMP waits only for its own queue.
 */
static void test_queues(void)
{
    const uint64_t n = 256000;          /* HBM to HBM, 160 ns */
    union m890_packet link = copy_pkt(VA_HBM, VA_PEER + 0x100000, 80000);
    union m890_packet hbm = copy_pkt(VA_HBM, VA_HBM + 0x400000, n);
    Card *a = fresh(0);

    run_ok(a, 0, &link);                /* fetch 0-50, link 50-150 */
    run_ok(a, 1, &hbm);                 /* fetch 50-100, HBM 100-260 */
    clock_is(a, FETCH * 2 + HBM_B(2 * n));
    /* queue 1's TIMESTAMP: fetch 100-150, after its copy */
    g_assert_cmpuint(stamp(a, 1), ==, (2 * FETCH + HBM_B(2 * n)) / HFS_NS);
    /* queue 0's: fetch 150-200, its copy ended at 150 */
    g_assert_cmpuint(stamp(a, 0), ==, 4 * FETCH / HFS_NS);
}

/*
 * A memory class carries one transfer at a time, first come, first
 * served: two queues' link bytes follow each other, while a third
 * queue's HBM copy runs alongside.
 */
static void test_fcfs(void)
{
    const uint64_t n = 80000, m = 256000;
    union m890_packet l0 = copy_pkt(VA_HBM, VA_PEER + 0x100000, n);
    union m890_packet l1 = copy_pkt(VA_HBM + 0x200000, VA_PEER + 0x200000, n);
    union m890_packet h = copy_pkt(VA_HBM + 0x300000, VA_HBM + 0x400000, m);
    Card *a = fresh(0);

    run_ok(a, 0, &l0);                  /* link 50-150, HBM 50-75 */
    run_ok(a, 1, &l1);                  /* starts 100: link 150-250 */
    run_ok(a, 2, &h);                   /* starts 150: HBM 150-310 */
    g_assert_cmpuint(stamp(a, 1), ==,
                     (FETCH + 2 * PEER_B(n)) / HFS_NS);         /* 250 */
    g_assert_cmpuint(stamp(a, 2), ==,
                     (3 * FETCH + HBM_B(2 * m)) / HFS_NS);      /* 310 */
}

/*
 * The fetch of a queue's packet n waits for the start of its packet
 * n - 16.  Eighteen packets that each wait for a round trip: packet 16
 * is fetched at once (packet 0 started at 50 ns), packet 17 only when
 * packet 1 started, at 1050.01 ns; another queue's TIMESTAMP is fetched
 * after it.
 */
static void test_prefetch(void)
{
    union m890_packet p = peer_read8();
    const uint64_t one = TRIP + PEER_B(8);
    Card *a = fresh(0);
    int i;

    for (i = 0; i < 18; i++) {
        run_ok(a, 0, &p);
    }
    clock_is(a, FETCH + 18 * one);
    g_assert_cmpuint(stamp(a, 1), ==, (FETCH + one + 2 * FETCH) / HFS_NS);
}

/*
 * No packet is fetched before the start of its queue's last drain: a
 * NOP after a TIMESTAMP that waited for a round trip is fetched from the
 * TIMESTAMP's start, and so is the next fetch of any queue.
 */
static void test_drain_fetch(void)
{
    union m890_packet p = peer_read8(), z = nop();
    const uint64_t one = TRIP + PEER_B(8);
    Card *a = fresh(0);

    run_ok(a, 0, &p);                   /* ends at 50 + one */
    g_assert_cmpuint(stamp(a, 0), ==, (FETCH + one) / HFS_NS);
    run_ok(a, 0, &z);                   /* fetched from 1050.01 */
    g_assert_cmpuint(stamp(a, 1), ==, (FETCH + one + 2 * FETCH) / HFS_NS);

    /* without the drain, the NOP and the TIMESTAMP are fetched at once */
    a = fresh(0);
    run_ok(a, 0, &p);
    run_ok(a, 0, &z);
    g_assert_cmpuint(stamp(a, 1), ==, 3 * FETCH / HFS_NS);
}

/*
 * RELAXED: a data packet waits for the queue's last drain, not for its
 * earlier packets; a packet after a drain waits for it even so.
 */
static void test_relaxed(void)
{
    const uint64_t n = 256000;
    union m890_packet link = copy_pkt(VA_HBM, VA_PEER + 0x100000, 80000);
    union m890_packet hbm = copy_pkt(VA_HBM, VA_HBM + 0x400000, n);
    union m890_packet r = relaxed(hbm);
    Card *a = fresh(0);

    run_ok(a, 0, &link);                /* link 50-150 */
    run_ok(a, 0, &hbm);                 /* ordered: HBM 150-310 */
    g_assert_cmpuint(stamp(a, 0), ==, (FETCH + PEER_B(80000) +
                                       HBM_B(2 * n)) / HFS_NS);

    a = fresh(0);
    run_ok(a, 0, &link);
    run_ok(a, 0, &r);                   /* relaxed: HBM 100-260 */
    g_assert_cmpuint(stamp(a, 0), ==, (2 * FETCH + HBM_B(2 * n)) / HFS_NS);
    /* the TIMESTAMP started at 260; the next one is fetched then */
    run_ok(a, 0, &r);                   /* fetch 260-310, HBM 310-470 */
    g_assert_cmpuint(stamp(a, 0), ==,
                     (3 * FETCH + 2 * HBM_B(2 * n)) / HFS_NS);

    /* RELAXED is refused where it means nothing, and on a 1.0 card */
    r = relaxed(nop());
    expect_error(a, 0, &r, M890_QERR_BAD_FIELD);
    r = relaxed(wait_pkt(VA_HBM, 0));
    expect_error(a, 0, &r, M890_QERR_BAD_FIELD);
    r = relaxed(hbm);
    expect_error(&cards[2], 0, &r, M890_QERR_BAD_FIELD);
}

/*
 * Posted atomics: a SIGNAL ADD on a peer semaphore costs a 1.1 card its
 * 8 bytes on the link; a 1.0 card reads (a round trip) and writes.  A
 * SIGNAL ADD to many peer semaphores costs 8 link bytes each and the read
 * of its target list; a COPY with its signal, the data and 8 bytes more.
 */
static void test_posted_atomic(void)
{
    union m890_packet p = signal_pkt(M890_SIGNAL_ADD, VA_PEER + 0x200000, 1);
    uint64_t list = galloc(&cards[0], 512), v;
    Card *a = fresh(0), *old = fresh(2), *b = &cards[1];
    int i;

    hbm_set(b, 0x200000, 0, 0x2000);
    run_ok(a, 0, &p);
    clock_is(a, FETCH + PEER_B(8));
    run_ok(old, 0, &p);
    clock_is(old, FETCH + TRIP + PEER_B(16));
    qpci_memread(b->dev, b->hbm, 0x200000, &v, 8);
    g_assert_cmpuint(v, ==, 2);

    /*
     * Many targets: 64 from a list in host memory (its 512 bytes take
     * longer than the 512 on the link), then 256 by a stride.
     */
    a = fresh(0);
    for (i = 0; i < 64; i++) {
        qtest_writeq(qs->qts, list + 8 * i, VA_PEER + 0x201000 + 8 * i);
    }
    p = signal_pkt(M890_SIGNAL_ADD, 0, 5);
    p.signal.count = 64;
    p.signal.targets = VA_HOST + list;
    run_ok(a, 0, &p);
    clock_is(a, FETCH + MAX(HOST_B(512), PEER_B(512)));     /* 58 */
    a = fresh(0);
    p = signal_pkt(M890_SIGNAL_ADD, VA_PEER + 0x201000, 5);
    p.signal.count = 256;
    p.signal.stride = 8;
    run_ok(a, 0, &p);
    clock_is(a, FETCH + PEER_B(2048));                      /* 52 */
    qpci_memread(b->dev, b->hbm, 0x201000 + 8 * 63, &v, 8);
    g_assert_cmpuint(v, ==, 10);
    qpci_memread(b->dev, b->hbm, 0x201000 + 8 * 255, &v, 8);
    g_assert_cmpuint(v, ==, 5);

    /* put with signal: the signal's 8 bytes follow the data on the link */
    a = fresh(0);
    p = copy_pkt(VA_HBM, VA_PEER + 0x100000, 80000);
    p.copy.sig_addr = VA_PEER + 0x200000;
    p.copy.sig_value = 1;
    run_ok(a, 0, &p);
    clock_is(a, FETCH + PEER_B(80000 + 8));
    qpci_memread(b->dev, b->hbm, 0x200000, &v, 8);
    g_assert_cmpuint(v, ==, 3);
}

/*
 * A packet that reads a peer waits for one round trip however much it
 * reads: a COPY of two 2 MiB pages, a SIGNAL whose target list lives on
 * the peer.  Writes to the peer are posted.
 */
static void test_peer_read(void)
{
    const uint64_t n = 2 * MIB2;
    union m890_packet p = copy_pkt(VA_PEER + 0x100000, VA_HBM + 0x400000, n);
    Card *a = fresh(0), *b = &cards[1];
    uint64_t list[2] = { VA_HBM + 0x200000, VA_HBM + 0x200010 }, v;

    run_ok(a, 0, &p);                   /* three pieces, one round trip */
    clock_is(a, FETCH + TRIP + MAX(HBM_B(n), PEER_B(n)));

    a = fresh(0);
    qpci_memwrite(b->dev, b->hbm, 0x300000, list, sizeof(list));
    p = signal_pkt(M890_SIGNAL_SET, 0, 9);
    p.signal.count = 2;
    p.signal.targets = VA_PEER + 0x300000;
    run_ok(a, 0, &p);                   /* 16 bytes read, two local SETs */
    clock_is(a, FETCH + TRIP + MAX(PEER_B(16), HBM_B(16)));
    qpci_memread(a->dev, a->hbm, 0x200010, &v, 8);
    g_assert_cmpuint(v, ==, 9);
}

/*
 * WAIT checks.  Each check reads the semaphore again and is charged: a
 * WAIT on a peer semaphore pays a round trip per check.  A WAIT blocked
 * on a semaphore that a SIGNAL of another queue of the same card sets
 * is satisfied no earlier than that SIGNAL, and the packets after the
 * WAIT, fetched while it blocked, start then.  Unrelated doorbells do
 * not check it again.
 */
static void test_wait(void)
{
    union m890_packet w = wait_pkt(VA_HBM + 0x200000, 1), z = nop(), p;
    const uint64_t one = TRIP + PEER_B(8);
    Card *a = fresh(0), *b = &cards[1];
    uint64_t sig;

    hbm_set(a, 0x200000, 0, 8);
    g_assert_cmphex(run(a, 0, &w) & M890_Q_STATUS_WAITING, ==,
                    M890_Q_STATUS_WAITING);     /* start 50, check 1 */
    run_ok(a, 2, &z);                   /* no check: an unrelated doorbell */
    p = peer_read8();
    run_ok(a, 1, &p);                   /* queue 1: fetch 100-150, data */
    sig = FETCH + 2 * FETCH + one;      /* 150 + one: its end */
    p = signal_pkt(M890_SIGNAL_SET, VA_HBM + 0x200000, 1);
    run_ok(a, 1, &p);                   /* fetch 150-200, at 1150.01 */
    sig += HBM_B(8);
    g_assert_cmphex(settle(a, 0), ==, M890T_IDLE);      /* check 2 */
    /* the WAIT ended at sig + 8 bytes; the TIMESTAMP after it */
    g_assert_cmpuint(stamp(a, 0), ==, (sig + HBM_B(8)) / HFS_NS);

    /* two checks of a peer semaphore: two round trips */
    a = fresh(0);
    hbm_set(b, 0x200000, 0, 8);
    w = wait_pkt(VA_PEER + 0x200000, 4);
    g_assert_cmphex(run(a, 0, &w) & M890_Q_STATUS_WAITING, ==,
                    M890_Q_STATUS_WAITING);
    clock_is(a, FETCH + one);
    p = signal_pkt(M890_SIGNAL_SET, VA_HBM + 0x200000, 4);
    run_ok(b, 1, &p);                   /* card b, its own HBM */
    g_assert_cmphex(settle(a, 0), ==, M890T_IDLE);
    clock_is(a, FETCH + 2 * one);
    /* the packet after the WAIT was fetched from its start on */
    run_ok(a, 0, &z);
    clock_is(a, FETCH + 2 * one);
}

/*
 * A spec 1.0 card keeps model 1.1: one data mover (a RELAXED-free
 * sequence of round trips runs one at a time, as on any card), a fetch
 * only once the packet before started, and drains that hold the command
 * processor until they end.
 */
static void test_model_1_1(void)
{
    const uint64_t n = 256000, d = HBM_B(2 * n);
    union m890_packet c = copy_pkt(VA_HBM, VA_HBM + 0x400000, n);
    union m890_packet f = { 0 }, z = nop();
    Card *old = fresh(2);

    g_assert_cmphex(rd(old, M890_REG_VERSION), ==, M890_SPEC_VERSION_1_0);
    g_assert_cmpuint(rd(old, M890_REG_NUM_ENGINES), ==, 0);
    g_assert_cmphex(rd(old, M890_REG_CAPS) &
                    (M890_HWCAP_ENGINES | M890_HWCAP_ATOMICS |
                     M890_HWCAP_ROWS), ==, 0);
    f.fence.hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
    f.fence.value = 1;
    run_ok(old, 0, &c);                 /* 50-210 */
    run_ok(old, 0, &f);                 /* 210-210.125, holds the CP */
    run_ok(old, 0, &z);                 /* fetch 210.125-260.125 */
    clock_is(old, FETCH + d + HOST_B(8) + FETCH);
    /* two queues share the one data mover */
    old = fresh(2);
    run_ok(old, 0, &c);                 /* 50-210 */
    run_ok(old, 1, &c);                 /* fetch 50-100, data 210-370 */
    clock_is(old, FETCH + 2 * d);
}

int main(int argc, char **argv)
{
    int ret, i;

    g_test_init(&argc, &argv, NULL);
    qs = m890t_boot_with_1_0();
    for (i = 0; i < NCARDS; i++) {
        /* cards 0 and 2 reach card 1 as their peer, card 1 card 0 */
        card_init_at(qs, &cards[i], QPCI_DEVFN(4 + i, 0), i == 1 ? 0 : 1);
    }
    ts_buf = galloc(&cards[0], 8);
    qtest_add_func("/m890/timing12/engines", test_engines);
    qtest_add_func("/m890/timing12/queues", test_queues);
    qtest_add_func("/m890/timing12/fcfs", test_fcfs);
    qtest_add_func("/m890/timing12/prefetch", test_prefetch);
    qtest_add_func("/m890/timing12/drain-fetch", test_drain_fetch);
    qtest_add_func("/m890/timing12/relaxed", test_relaxed);
    qtest_add_func("/m890/timing12/posted-atomic", test_posted_atomic);
    qtest_add_func("/m890/timing12/peer-read", test_peer_read);
    qtest_add_func("/m890/timing12/wait", test_wait);
    qtest_add_func("/m890/timing12/model-1.1", test_model_1_1);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
