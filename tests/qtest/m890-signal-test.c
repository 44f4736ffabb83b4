/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of the spec 1.1 semaphore packets (spec §7.2, §7.5, §7.6)
 *
 * Semantics of COPY with a signal (put with signal: whoever sees the
 * semaphore sees the data, also after a copy done in pieces by the copy
 * worker, and with a size of 0), of SIGNAL to many targets (SET and ADD,
 * a target list with skipped entries, a stride, a value list, local, host
 * and peer semaphores), of WAIT woken by them (GE and EQ), and the checks
 * of every new field: each bad value stops the queue with the spec's
 * code and writes nothing.  Card 2 is a spec 1.0 card (engines=0), on
 * which the 1.1 fields are UNSUPPORTED and opcodes 0x0c/0x0d unknown.
 */
#include "qemu/osdep.h"
#include "m890-qtest.h"

#define NCARDS          3

static QOSState *qs;
static Card cards[NCARDS];

static uint64_t hbm_q(Card *c, uint64_t off)
{
    uint64_t v;

    qpci_memread(c->dev, c->hbm, off, &v, 8);
    return v;
}

static void hbm_wq(Card *c, uint64_t off, uint64_t v)
{
    qpci_memwrite(c->dev, c->hbm, off, &v, 8);
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

static union m890_packet wait_pkt(uint32_t cond, uint64_t va, uint64_t v)
{
    union m890_packet p = { 0 };

    p.wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
    p.wait.cond = cond;
    p.wait.addr = va;
    p.wait.value = v;
    return p;
}

static void run_ok(Card *c, int q, const union m890_packet *p)
{
    g_assert_cmphex(run(c, q, p), ==, M890T_IDLE);
}

/*
 * Wait (bounded) until queue @q idles or stops, also while it is still
 * blocked in a WAIT that another card's SIGNAL is about to release.
 */
static uint32_t settle_idle(Card *c, int q)
{
    uint32_t st = 0;
    int i;

    for (i = 0; i < 2000; i++) {
        st = qrd(c, q, M890_Q_STATUS);
        if (st & (M890_Q_STATUS_IDLE | M890_Q_STATUS_ERROR)) {
            break;
        }
        g_usleep(1000);
    }
    return st;
}

static void must_wait(Card *c, int q, const union m890_packet *p)
{
    g_assert_cmphex(run(c, q, p) & M890_Q_STATUS_WAITING, ==,
                    M890_Q_STATUS_WAITING);
}

/*
 * Put with signal to a peer: card 1 waits for the semaphore and then
 * copies the region card 0 wrote; it always copies the new data.
 */
static void test_put_signal_peer(void)
{
    Card *a = &cards[0], *b = &cards[1];
    union m890_packet w, c, p;
    int round;

    hbm_wq(b, 0x200000, 0);
    for (round = 1; round <= 3; round++) {
        hbm_set(a, 0x100000, 0x40 + round, 0x30000);
        hbm_set(b, 0x300000, 0, 0x30000);
        hbm_set(b, 0x400000, 0, 0x30000);
        w = wait_pkt(M890_WAIT_GE, VA_HBM + 0x200000, round);
        must_wait(b, 0, &w);
        c = copy_pkt(VA_HBM + 0x300000, VA_HBM + 0x400000, 0x30000);
        post(b, 0, &c);                 /* behind the WAIT */
        p = copy_pkt(VA_HBM + 0x100000, VA_PEER + 0x300000, 0x30000);
        p.copy.sig_addr = VA_PEER + 0x200000;
        p.copy.sig_value = 1;
        run_ok(a, 1, &p);
        g_assert_cmphex(settle_idle(b, 0), ==, M890T_IDLE);
        g_assert(hbm_is(b, 0x400000, 0x40 + round, 0x30000));
        g_assert_cmpuint(hbm_q(b, 0x200000), ==, round);
    }
    /* a COPY of 0 bytes still signals */
    p = copy_pkt(VA_HBM, VA_PEER, 0);
    p.copy.sig_addr = VA_PEER + 0x200000;
    p.copy.sig_value = 10;
    run_ok(a, 1, &p);
    g_assert_cmpuint(hbm_q(b, 0x200000), ==, 13);
}

/*
 * Put with signal through the copy worker: a 5 MiB copy from host memory
 * moves in two pieces off the main loop; the signal comes after both.
 */
static void test_put_signal_worker(void)
{
    const uint64_t n = 5 * 1024 * 1024;
    Card *a = &cards[0];
    uint64_t src = galloc(a, n);
    union m890_packet w, c, p;

    qtest_memset(qs->qts, src, 0x5a, n);
    hbm_set(a, 0x200000, 0, n);
    hbm_wq(a, 0x100000, 0);
    hbm_wq(a, 0x100008, 0);
    w = wait_pkt(M890_WAIT_EQ, VA_HBM + 0x100000, 7);
    must_wait(a, 2, &w);
    c = copy_pkt(VA_HBM + 0x200000 + n - 8, VA_HBM + 0x100008, 8);
    post(a, 2, &c);                     /* reads the copy's last bytes */
    p = copy_pkt(VA_HOST + src, VA_HBM + 0x200000, n);
    p.copy.sig_addr = VA_HBM + 0x100000;
    p.copy.sig_value = 7;
    run_ok(a, 0, &p);
    g_assert_cmphex(settle_idle(a, 2), ==, M890T_IDLE);
    g_assert_cmphex(hbm_q(a, 0x100008), ==, 0x5a5a5a5a5a5a5a5aull);
    g_assert(hbm_is(a, 0x200000, 0x5a, n));
}

/*
 * SIGNAL to many targets: a target list (entries of 0 skipped) with a
 * value list, SET and ADD, on local HBM, host memory and a peer; a
 * stride with one value.  Each semaphore gets exactly its operation.
 */
static void test_multi_target(void)
{
    Card *a = &cards[0], *b = &cards[1];
    uint64_t tg = galloc(a, 8 * 8), vl = galloc(a, 8 * 8);
    uint64_t host = galloc(a, 16);
    const uint64_t t[6] = {
        VA_HBM + 0x500000, 0, VA_HOST + host, VA_PEER + 0x500000,
        VA_HBM + 0x500008, VA_PEER + 0x500010,
    };
    union m890_packet p;
    int i;

    for (i = 0; i < 6; i++) {
        qtest_writeq(qs->qts, tg + 8 * i, t[i]);
        qtest_writeq(qs->qts, vl + 8 * i, 100 + i);
    }
    hbm_set(a, 0x500000, 0, 64);
    hbm_set(b, 0x500000, 0, 64);
    qtest_writeq(qs->qts, host, 1);

    p = signal_pkt(M890_SIGNAL_SET, 0, 0);
    p.signal.count = 6;
    p.signal.targets = VA_HOST + tg;
    p.signal.values = VA_HOST + vl;
    run_ok(a, 0, &p);
    g_assert_cmpuint(hbm_q(a, 0x500000), ==, 100);
    g_assert_cmpuint(qtest_readq(qs->qts, host), ==, 102);
    g_assert_cmpuint(hbm_q(b, 0x500000), ==, 103);
    g_assert_cmpuint(hbm_q(a, 0x500008), ==, 104);
    g_assert_cmpuint(hbm_q(b, 0x500010), ==, 105);
    g_assert_cmpuint(hbm_q(b, 0x500008), ==, 0);

    /* ADD with the list and one value: modulo 2^64 */
    hbm_wq(b, 0x500010, ~0ull);
    p.signal.op = M890_SIGNAL_ADD;
    p.signal.values = 0;
    p.signal.value = 2;
    run_ok(a, 0, &p);
    g_assert_cmpuint(hbm_q(a, 0x500000), ==, 102);
    g_assert_cmpuint(qtest_readq(qs->qts, host), ==, 104);
    g_assert_cmpuint(hbm_q(b, 0x500000), ==, 105);
    g_assert_cmpuint(hbm_q(b, 0x500010), ==, 1);

    /* a stride of 24 bytes over 4 peer semaphores, with a value list */
    hbm_set(b, 0x600000, 0, 128);
    p = signal_pkt(M890_SIGNAL_ADD, VA_PEER + 0x600000, 0);
    p.signal.count = 4;
    p.signal.stride = 24;
    p.signal.values = VA_HOST + vl;
    run_ok(a, 0, &p);
    run_ok(a, 0, &p);
    for (i = 0; i < 4; i++) {
        g_assert_cmpuint(hbm_q(b, 0x600000 + 24 * i), ==, 2 * (100 + i));
        g_assert_cmpuint(hbm_q(b, 0x600008 + 24 * i), ==, 0);
    }
    /* a stride of 0: the same semaphore, count times */
    p = signal_pkt(M890_SIGNAL_ADD, VA_HBM + 0x600000, 3);
    p.signal.count = 256;
    hbm_wq(a, 0x600000, 0);
    run_ok(a, 0, &p);
    g_assert_cmpuint(hbm_q(a, 0x600000), ==, 768);
}

/*
 * WAIT (GE, EQ) woken by a SIGNAL to many targets: one SIGNAL of card 0
 * releases a WAIT on each of card 1's queues.
 */
static void test_wait_multicast(void)
{
    Card *a = &cards[0], *b = &cards[1];
    union m890_packet w, p;
    int q;

    hbm_set(b, 0x700000, 0, 8 * M890T_NQ);
    for (q = 0; q < M890T_NQ; q++) {
        w = wait_pkt(q & 1 ? M890_WAIT_EQ : M890_WAIT_GE,
                     VA_HBM + 0x700000 + 8 * q, 5);
        must_wait(b, q, &w);
    }
    p = signal_pkt(M890_SIGNAL_ADD, VA_PEER + 0x700000, 4);
    p.signal.count = M890T_NQ;
    p.signal.stride = 8;
    run_ok(a, 0, &p);
    for (q = 0; q < M890T_NQ; q++) {
        g_assert_cmphex(settle(b, q) & M890_Q_STATUS_WAITING, ==,
                        M890_Q_STATUS_WAITING);
    }
    p.signal.value = 2;                 /* 6: GE holds, EQ does not */
    run_ok(a, 0, &p);
    for (q = 0; q < M890T_NQ; q += 2) {
        g_assert_cmphex(settle_idle(b, q), ==, M890T_IDLE);
    }
    for (q = 1; q < M890T_NQ; q += 2) {
        g_assert_cmphex(qrd(b, q, M890_Q_STATUS), ==,
                        M890_Q_STATUS_ENABLED | M890_Q_STATUS_WAITING);
    }
    p = signal_pkt(M890_SIGNAL_SET, VA_PEER + 0x700000, 5);
    p.signal.count = M890T_NQ;
    p.signal.stride = 8;
    run_ok(a, 0, &p);
    for (q = 0; q < M890T_NQ; q++) {
        g_assert_cmphex(settle_idle(b, q), ==, M890T_IDLE);
    }
}

/* Each bad field of SIGNAL stops the queue and writes no semaphore. */
static void test_signal_fields(void)
{
    Card *a = &cards[0], *old = &cards[2];
    uint64_t tg = galloc(a, 16);
    union m890_packet p, base = signal_pkt(M890_SIGNAL_SET, 0, 9);

    base.signal.count = 2;
    base.signal.targets = VA_HOST + tg;
    qtest_writeq(qs->qts, tg, VA_HBM + 0x500000);
    qtest_writeq(qs->qts, tg + 8, VA_HBM + 0x500008);
    hbm_set(a, 0x500000, 0, 16);

    p = base;
    p.signal.rsvd1 = 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = base;
    p.signal.rsvd2 = 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = base;
    p.signal.addr = VA_HBM;             /* addr with targets */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = base;
    p.signal.count = M890_SIGNAL_MAX_TARGETS + 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = base;
    p.signal.targets += 4;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = base;
    p.signal.values = VA_HOST + tg + 4;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = base;
    p.signal.targets = 0;
    p.signal.addr = VA_HBM + 0x500000;
    p.signal.stride = 12;               /* not a multiple of 8 */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p.signal.stride = 1ull << 48;       /* the last one leaves the VA space */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = signal_pkt(M890_SIGNAL_SET, VA_HBM + 0x500000, 9);
    p.signal.count = 1;
    p.signal.stride = 8;                /* list fields need count > 1 */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p.signal.stride = 0;
    p.signal.count = 0;
    p.signal.values = VA_HOST + tg;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = base;
    p.signal.targets = 0xfffffffffff8ull;       /* list past 2^48 */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    /* a misaligned entry: found when the list is read, before any SET */
    qtest_writeq(qs->qts, tg + 8, VA_HBM + 0x500004);
    expect_error(a, 0, &base, M890_QERR_BAD_FIELD);
    qtest_writeq(qs->qts, tg + 8, 1ull << 48);
    expect_error(a, 0, &base, M890_QERR_BAD_FIELD);
    g_assert_cmpuint(hbm_q(a, 0x500000), ==, 0);
    /* a list that is not mapped, a target that is not */
    p = base;
    p.signal.targets = VA_NONE;
    expect_error(a, 0, &p, M890_QERR_MMU_FAULT);
    qtest_writeq(qs->qts, tg + 8, VA_NONE);
    expect_error(a, 0, &base, M890_QERR_MMU_FAULT);
    g_assert_cmpuint(hbm_q(a, 0x500000), ==, 9);   /* the one before it */
    /* the list fields on a spec 1.0 card */
    expect_error(old, 0, &base, M890_QERR_UNSUPPORTED);
    p = signal_pkt(M890_SIGNAL_SET, VA_HBM + 0x500000, 9);
    p.signal.count = 1;
    run_ok(old, 0, &p);
}

/* Bad COPY signal fields, RELAXED where it is refused, unknown opcodes. */
static void test_copy_header_fields(void)
{
    Card *a = &cards[0], *old = &cards[2];
    union m890_packet p;

    hbm_set(a, 0x500000, 0, 16);
    hbm_set(a, 0x100000, 0x77, 64);
    hbm_set(a, 0x180000, 0, 64);
    p = copy_pkt(VA_HBM + 0x100000, VA_HBM + 0x180000, 64);
    p.copy.sig_addr = VA_HBM + 0x500004;
    p.copy.sig_value = 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p.copy.sig_addr = 1ull << 48;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p.copy.sig_addr = 0;                /* a value without a semaphore */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    g_assert(hbm_is(a, 0x180000, 0, 64));
    p.copy.sig_addr = VA_HBM + 0x500000;
    expect_error(old, 0, &p, M890_QERR_UNSUPPORTED);
    /* a semaphore that is not mapped: the data is written, then it fails */
    p.copy.sig_addr = VA_NONE;
    expect_error(a, 0, &p, M890_QERR_MMU_FAULT);
    g_assert(hbm_is(a, 0x180000, 0x77, 64));

    /* header: undefined flags, RELAXED on drains */
    p = copy_pkt(VA_HBM, VA_HBM + 0x1000, 8);
    p.hdr |= M890_PKT_HDR(0, 2);
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = (union m890_packet){ 0 };
    p.timestamp.hdr = M890_PKT_HDR(M890_PKT_TIMESTAMP, M890_PKT_F_RELAXED);
    p.timestamp.addr = VA_HBM;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = (union m890_packet){ 0 };
    p.fence.hdr = M890_PKT_HDR(M890_PKT_FENCE, M890_PKT_F_RELAXED);
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    /* RELAXED on data packets is accepted on a 1.1 card */
    p = signal_pkt(M890_SIGNAL_SET, VA_HBM + 0x500000, 3);
    p.hdr |= M890_PKT_HDR(0, M890_PKT_F_RELAXED);
    run_ok(a, 0, &p);
    g_assert_cmpuint(hbm_q(a, 0x500000), ==, 3);

    /* the 1.1 opcodes are unknown to a 1.0 card */
    p = (union m890_packet){ 0 };
    p.hdr = M890_PKT_HDR(M890_PKT_COPY_ROWS, 0);
    expect_error(old, 0, &p, M890_QERR_BAD_OPCODE);
    p.hdr = M890_PKT_HDR(M890_PKT_MOE_ROUTE, 0);
    expect_error(old, 0, &p, M890_QERR_BAD_OPCODE);
}

/* The identification registers of a 1.1 and a 1.0 card. */
static void test_identity(void)
{
    Card *a = &cards[0], *old = &cards[2];

    g_assert_cmphex(rd(a, M890_REG_VERSION), ==, M890_SPEC_VERSION);
    g_assert_cmphex(rd(a, M890_REG_CAPS) &
                    (M890_HWCAP_ENGINES | M890_HWCAP_ATOMICS), ==,
                    M890_HWCAP_ENGINES | M890_HWCAP_ATOMICS);
    g_assert_cmpuint(rd(a, M890_REG_NUM_ENGINES), ==, 4);
    g_assert_cmphex(rd(old, M890_REG_VERSION), ==, M890_SPEC_VERSION_1_0);
    g_assert_cmphex(rd(old, M890_REG_CAPS), ==, 0x3f);
    g_assert_cmpuint(rd(old, M890_REG_NUM_ENGINES), ==, 0);
}

int main(int argc, char **argv)
{
    int ret, i;

    g_test_init(&argc, &argv, NULL);
    qs = m890t_boot_with_1_0();
    for (i = 0; i < NCARDS; i++) {
        card_init_at(qs, &cards[i], QPCI_DEVFN(4 + i, 0), i == 1 ? 0 : 1);
    }
    qtest_add_func("/m890/signal/identity", test_identity);
    qtest_add_func("/m890/signal/put-signal-peer", test_put_signal_peer);
    qtest_add_func("/m890/signal/put-signal-worker", test_put_signal_worker);
    qtest_add_func("/m890/signal/multi-target", test_multi_target);
    qtest_add_func("/m890/signal/wait-multicast", test_wait_multicast);
    qtest_add_func("/m890/signal/signal-fields", test_signal_fields);
    qtest_add_func("/m890/signal/copy-header-fields",
                   test_copy_header_fields);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
