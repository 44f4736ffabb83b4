/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of the M890 timing model on one queue (spec §10, model 1.2)
 *
 * Each test resets card 0 (its modelled clock restarts at 0), runs a few
 * packets on queue 0 and compares REG_CLOCK and TIMESTAMP values with the
 * exact times the rules of spec §10 give, one rule per test: the 50 ns
 * fetch; the fetch of the next packet overlapping the data phase; a data
 * phase costing the largest of its memory classes' times; posted writes
 * to a peer paying no switch latency; reads of a peer paying a round
 * trip (COPY source, every WAIT check) and a posted SIGNAL ADD paying
 * none; WAIT, TIMESTAMP and FENCE waiting for the queue's earlier packets
 * while the packets after them are fetched from their start on; the copy
 * worker's path; and a SCATTER whose index list, source and destination
 * are three classes.  The rules of several data movers, queues, RELAXED
 * and the prefetch window are in m890-timing12-test.c.
 * Expected times are computed in the model's unit, 0.5 fs (hfs), and
 * REG_CLOCK is their whole ns, rounded down.
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

static QOSState *qs;
static Card cards[2];

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
    return MAX(a, MAX(b, c));
}

/* Reset card 0: its clock reads 0 again; program MMU and queues. */
static Card *fresh(void)
{
    Card *a = &cards[0];

    wr(a, M890_REG_CONTROL, M890_CONTROL_RESET);
    card_restart(a);
    g_assert_cmpuint(rdq(a, M890_REG_CLOCK), ==, 0);
    return a;
}

static void run_ok(Card *c, const union m890_packet *p)
{
    g_assert_cmphex(run(c, 0, p), ==, M890T_IDLE);
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

static union m890_packet timestamp(uint64_t va)
{
    union m890_packet p = { 0 };

    p.timestamp.hdr = M890_PKT_HDR(M890_PKT_TIMESTAMP, 0);
    p.timestamp.addr = va;
    return p;
}

static union m890_packet fence(void)
{
    union m890_packet p = { 0 };

    p.fence.hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
    p.fence.value = 1;
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

/* Every packet costs its 50 ns fetch; a NOP or an empty COPY nothing else. */
static void test_fetch(void)
{
    Card *a = fresh();
    union m890_packet p = nop();

    run_ok(a, &p);
    clock_is(a, FETCH);
    run_ok(a, &p);
    clock_is(a, 2 * FETCH);
    p = copy_pkt(VA_HBM, VA_PEER, 0);
    run_ok(a, &p);
    clock_is(a, 3 * FETCH);
}

/*
 * The command processor fetches the next packet while the data mover
 * runs the previous one's data phase: fetches hide behind long phases,
 * and a short phase hides behind the next fetch.
 */
static void test_fetch_overlap(void)
{
    const uint64_t n = 256000;          /* inline copy (< 256 KiB) */
    const uint64_t d = HBM_B(2 * n);    /* read + write: 160 ns */
    union m890_packet c = copy_pkt(VA_HBM, VA_HBM + 0x400000, n);
    union m890_packet z = nop(), f = { 0 };
    Card *a = fresh();

    run_ok(a, &c);                      /* fetch 0-50, data 50-210 */
    clock_is(a, FETCH + d);
    run_ok(a, &z);                      /* fetch 50-100 */
    run_ok(a, &z);                      /* fetch 100-150 */
    clock_is(a, FETCH + d);
    run_ok(a, &c);                      /* fetch 150-200, data 210-370 */
    clock_is(a, FETCH + 2 * d);

    a = fresh();
    f.fill.hdr = M890_PKT_HDR(M890_PKT_FILL, 0);
    f.fill.dst = VA_HBM;
    f.fill.size = 64;
    run_ok(a, &f);                      /* data 50-50.02 */
    clock_is(a, FETCH + HBM_B(64));
    run_ok(a, &z);                      /* its fetch ends last: 100 */
    clock_is(a, 2 * FETCH);
}

/* A data phase costs the largest of its classes' times, not their sum. */
static void test_class_max(void)
{
    const uint64_t n = 64000;
    uint64_t src = galloc(&cards[0], n);
    union m890_packet p;
    Card *a = fresh();

    p = copy_pkt(VA_HOST + src, VA_HBM, n);     /* host read, HBM write */
    run_ok(a, &p);
    clock_is(a, FETCH + MAX(HOST_B(n), HBM_B(n)));      /* 1050 */
    g_assert_cmpuint(rdq(a, M890_REG_CLOCK), ==, 1050);

    a = fresh();
    p = copy_pkt(VA_HBM, VA_HBM + 0x100000, n); /* one class: a sum */
    run_ok(a, &p);
    clock_is(a, FETCH + HBM_B(2 * n));
    g_assert_cmpuint(rdq(a, M890_REG_CLOCK), ==, 90);
}

/* Writes to a peer are posted: no switch latency on the issuing card. */
static void test_posted_write(void)
{
    const uint64_t n = 80000;
    union m890_packet p = copy_pkt(VA_HBM, VA_PEER + 0x100000, n);
    Card *a = fresh(), *b = &cards[1];
    uint64_t t, sem;

    run_ok(a, &p);                      /* link 100 ns, HBM read 25 ns */
    t = FETCH + max3(HBM_B(n), 0, PEER_B(n));
    clock_is(a, t);
    g_assert_cmpuint(rdq(a, M890_REG_CLOCK), ==, 150);

    p = signal_pkt(M890_SIGNAL_SET, VA_PEER + 0x200000, 7);
    run_ok(a, &p);                      /* fetch 100-150, data 150 on */
    clock_is(a, t + PEER_B(8));
    qpci_memread(b->dev, b->hbm, 0x200000, &sem, 8);
    g_assert_cmpuint(sem, ==, 7);
    p = fence();                        /* fetched 100-150, 8 bytes to host */
    run_ok(a, &p);
    clock_is(a, t + PEER_B(8) + HOST_B(8));
}

/*
 * A packet that reads a peer waits for one switch round trip: a COPY
 * from a peer (once, however many bytes) and every check of a WAIT on a
 * peer semaphore.  A SIGNAL ADD on a peer semaphore is a posted atomic
 * (CAPS.ATOMICS): 8 bytes on the link, no round trip.
 */
static void test_peer_read(void)
{
    const uint64_t n = 80000;
    union m890_packet p = copy_pkt(VA_PEER + 0x100000, VA_HBM + 0x100000, n);
    Card *a = fresh(), *b = &cards[1];
    uint64_t t, sem;

    run_ok(a, &p);
    t = FETCH + TRIP + max3(HBM_B(n), 0, PEER_B(n));
    clock_is(a, t);
    g_assert_cmpuint(rdq(a, M890_REG_CLOCK), ==, 1150);

    hbm_set(b, 0x200000, 0, 8);
    p = signal_pkt(M890_SIGNAL_ADD, VA_PEER + 0x200000, 3);
    run_ok(a, &p);                      /* fetch hidden; 8 bytes, posted */
    t += PEER_B(8);
    clock_is(a, t);
    qpci_memread(b->dev, b->hbm, 0x200000, &sem, 8);
    g_assert_cmpuint(sem, ==, 3);

    p = wait_pkt(VA_PEER + 0x200000, 3);        /* satisfied at once */
    run_ok(a, &p);
    t += TRIP + PEER_B(8);
    clock_is(a, t);

    /* a WAIT checked twice pays the round trip twice */
    a = fresh();
    p = wait_pkt(VA_PEER + 0x200000, 4);
    g_assert_cmphex(run(a, 0, &p) & M890_Q_STATUS_WAITING, ==,
                    M890_Q_STATUS_WAITING);
    clock_is(a, FETCH + TRIP + PEER_B(8));
    p = signal_pkt(M890_SIGNAL_SET, VA_HBM + 0x200000, 4);
    g_assert_cmphex(run(b, 1, &p), ==, M890T_IDLE);     /* card b, local */
    g_assert_cmphex(settle(a, 0), ==, M890T_IDLE);
    clock_is(a, FETCH + 2 * (TRIP + PEER_B(8)));
}

/*
 * WAIT, TIMESTAMP and FENCE wait for the queue's earlier packets: a
 * TIMESTAMP reads the time the preceding work finished.  The packet
 * after a drain is fetched from the drain's start on, not earlier, and
 * hides its fetch behind the drain's own accesses.
 */
static void test_drain(void)
{
    const uint64_t n = 256000;
    const uint64_t d = HBM_B(2 * n);    /* 160 ns */
    union m890_packet c = copy_pkt(VA_HBM, VA_HBM + 0x400000, n);
    union m890_packet z = nop(), p;
    uint64_t ts = galloc(&cards[0], 16), t;
    Card *a = fresh();

    p = timestamp(VA_HOST + ts);
    run_ok(a, &z);
    run_ok(a, &z);
    run_ok(a, &p);                      /* after its own fetch: 150 */
    g_assert_cmpuint(qtest_readq(qs->qts, ts), ==, 150);
    run_ok(a, &c);                      /* fetch 150-200, data 200-360 */
    t = 4 * FETCH + d;
    run_ok(a, &p);                      /* fetch 200-250; the copy's end */
    g_assert_cmpuint(qtest_readq(qs->qts, ts), ==, t / HFS_NS);
    run_ok(a, &z);                      /* fetched from the drain's start */
    t += FETCH;
    clock_is(a, t);

    a = fresh();
    run_ok(a, &c);
    p = fence();
    run_ok(a, &p);                      /* waits for the copy: 210.125 */
    run_ok(a, &z);                      /* fetched 210-260 */
    clock_is(a, FETCH + d + FETCH);

    a = fresh();
    hbm_set(a, 0x200000, 0, 8);
    run_ok(a, &c);
    p = wait_pkt(VA_HBM + 0x200000, 0);
    run_ok(a, &p);                      /* checked at 210, 8 HBM bytes */
    run_ok(a, &z);                      /* fetched 210-260 */
    clock_is(a, FETCH + d + FETCH);
}

/* Copies on the copy worker are charged by the same rules, exactly. */
static void test_worker(void)
{
    const uint64_t n = 5 * 1024 * 1024 + 4096;  /* two worker pieces */
    uint64_t src = galloc(&cards[0], n);
    union m890_packet p;
    Card *a = fresh();
    uint64_t t;

    p = copy_pkt(VA_HOST + src, VA_HBM, n);
    run_ok(a, &p);
    t = FETCH + HOST_B(n);
    clock_is(a, t);
    p = copy_pkt(VA_HBM, VA_HBM + 0x800000, n);
    run_ok(a, &p);                      /* fetch hidden behind the first */
    t += HBM_B(2 * n);
    clock_is(a, t);
}

/*
 * A SCATTER from local HBM rows to a peer with its index list in host
 * memory: the list (host), the rows read (HBM) and written (peer) stream
 * concurrently, and the link's time is the phase's.
 */
static void test_scatter_classes(void)
{
    const uint32_t rows = 16, rb = 4000;
    uint64_t idx = galloc(&cards[0], 4 * rows);
    union m890_packet p = { 0 };
    Card *a = fresh();
    uint32_t i;

    for (i = 0; i < rows; i++) {
        qtest_writel(qs->qts, idx + 4 * i, rows - 1 - i);
    }
    p.gather.hdr = M890_PKT_HDR(M890_PKT_SCATTER, 0);
    p.gather.row_bytes = rb;
    p.gather.src = VA_HBM;
    p.gather.dst = VA_PEER + 0x100000;
    p.gather.idx = VA_HOST + idx;
    p.gather.count = rows;
    run_ok(a, &p);
    clock_is(a, FETCH + max3(HBM_B(rows * rb), HOST_B(4 * rows),
                             PEER_B(rows * rb)));
    g_assert_cmpuint(rdq(a, M890_REG_CLOCK), ==, 130);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    qs = m890t_boot();
    card_init(qs, &cards[0], 0);
    card_init(qs, &cards[1], 1);
    qtest_add_func("/m890/timing/fetch", test_fetch);
    qtest_add_func("/m890/timing/fetch-overlap", test_fetch_overlap);
    qtest_add_func("/m890/timing/class-max", test_class_max);
    qtest_add_func("/m890/timing/posted-write", test_posted_write);
    qtest_add_func("/m890/timing/peer-read", test_peer_read);
    qtest_add_func("/m890/timing/drain", test_drain);
    qtest_add_func("/m890/timing/worker", test_worker);
    qtest_add_func("/m890/timing/scatter-classes", test_scatter_classes);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
