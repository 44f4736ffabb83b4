/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of the M890 device model
 *
 * Boots a q35 machine (no firmware runs under qtest) with two M890 cards
 * on one icn-switch (ports 0 and 1), builds device page tables in guest
 * memory and drives the cards through their registers and queues: data
 * movement host -> HBM -> peer HBM -> host, FILL, SIGNAL/WAIT across
 * queues, TIMESTAMP, FENCE, and the error paths a guest can provoke (bad
 * opcode, reserved fields, MMU faults, HBM range, fabric link down, ring
 * overflow, queues beyond the configured count, ring registers locked
 * while a queue is enabled, DMA into the card's own registers).  The
 * hazard classes and the MMU have their own qtests.
 */
#include "qemu/osdep.h"
#include "m890-qtest.h"

static QOSState *qs;
static Card cards[2];

static uint64_t sw_port(Card *c, unsigned int port, unsigned int word)
{
    wr(c, M890_REG_SW_CMD, M890_SW_OP_PORT_GET | port << 8);
    g_assert_cmpuint(rd(c, M890_REG_SW_STATUS), ==, M890_SW_OK);
    return rdq(c, M890_REG_SW_DATA(word));
}

static void test_ident(void)
{
    Card *c = &cards[0];

    g_assert_cmphex(qpci_config_readw(c->dev, PCI_VENDOR_ID), ==,
                    M890_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(c->dev, PCI_DEVICE_ID), ==,
                    M890_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readw(c->dev, PCI_CLASS_DEVICE), ==,
                    M890_PCI_CLASS);
    g_assert_cmphex(qpci_config_readw(c->dev, PCI_SUBSYSTEM_VENDOR_ID), ==,
                    M890_PCI_SUBSYS_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(c->dev, PCI_SUBSYSTEM_ID), ==,
                    M890_PCI_SUBSYS_ID);
    g_assert_cmphex(rd(c, M890_REG_ID), ==, M890_ID_MAGIC);
    g_assert_cmphex(rd(c, M890_REG_VERSION), ==, M890_SPEC_VERSION);
    g_assert_cmphex(rd(c, M890_REG_CAPS) & M890_HWCAP_MMU, ==,
                    M890_HWCAP_MMU);
    g_assert_cmpuint(rd(c, M890_REG_NUM_QUEUES), ==, M890T_NQ);
    g_assert_cmpuint(rdq(c, M890_REG_HBM_SIZE), ==, HBM_SIZE);
    g_assert_cmphex(rd(&cards[1], M890_REG_FABRIC), ==,
                    1 | 1 << M890_FABRIC_PORT_SHIFT | M890_FABRIC_LINK_UP);
    g_assert_cmphex(rd(c, M890_REG_STATUS) & M890_STATUS_READY, ==,
                    M890_STATUS_READY);
    wr(c, M890_REG_SCRATCH, 0x12345678);
    g_assert_cmphex(rd(c, M890_REG_SCRATCH), ==, 0x12345678);
    g_assert_cmphex(rd(c, 0x6000), ==, 0);      /* unknown register */
    wr(c, 0x6000, 1);
    g_assert_cmpuint(c->hbm_bar_size, ==, HBM_SIZE);
    g_assert_cmpuint(qpci_msix_table_size(c->dev), ==, 1 + M890T_NQ);
    wr(c, M890_REG_SW_CMD, M890_SW_OP_INFO);
    g_assert_cmpuint(rd(c, M890_REG_SW_STATUS), ==, M890_SW_OK);
    g_assert_cmpuint(rdq(c, M890_REG_SW_DATA(0)), ==, 64);
    g_assert_cmphex(rdq(c, M890_REG_SW_DATA(1)), ==, 0x00010000);
}

static void test_copy_chain(void)
{
    Card *a = &cards[0], *b = &cards[1];
    const size_t n = 3 * 4096 + 123;
    uint64_t src = galloc(a, n), dst = galloc(a, n);
    g_autofree uint8_t *in = g_malloc(n), *out = g_malloc0(n);
    union m890_packet p;
    uint64_t tx0, rx1;
    size_t i;

    wr(a, M890_REG_SW_CMD, M890_SW_OP_PORT_CLEAR | 0 << 8);
    wr(a, M890_REG_SW_CMD, M890_SW_OP_PORT_CLEAR | 1 << 8);
    for (i = 0; i < n; i++) {
        in[i] = i * 7 + 3;
    }
    qtest_memwrite(qs->qts, src, in, n);
    qtest_memset(qs->qts, dst, 0, n);
    p = copy_pkt(VA_HOST + src, VA_HBM + 0x1000, n);           /* host->HBM */
    g_assert_cmphex(run(a, 0, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    qpci_memread(a->dev, a->hbm, 0x1000, out, n);
    g_assert(memcmp(in, out, n) == 0);
    p = copy_pkt(VA_HBM + 0x1000, VA_PEER + 0x20001, n);       /* ->peer */
    g_assert_cmphex(run(a, 0, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    p = copy_pkt(VA_HBM + 0x20001, VA_HOST + dst, n);          /* ->host */
    g_assert_cmphex(run(b, 0, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    memset(out, 0, n);
    qtest_memread(qs->qts, dst, out, n);
    g_assert(memcmp(in, out, n) == 0);

    tx0 = sw_port(a, 0, M890_SW_PORT_TX_BYTES);
    rx1 = sw_port(a, 1, M890_SW_PORT_RX_BYTES);
    g_assert_cmpuint(tx0, ==, n);
    g_assert_cmpuint(rx1, ==, n);
    g_assert_cmpuint(sw_port(a, 0, M890_SW_PORT_TX_PKTS), >=, 4);
    g_assert_cmpuint(sw_port(b, 1, M890_SW_PORT_RX_PKTS), ==,
                     sw_port(b, 0, M890_SW_PORT_TX_PKTS));
    g_assert_cmphex(sw_port(a, 1, M890_SW_PORT_STATE), ==,
                    M890_LINK_UP | M890_LINK_UP << 8 | 1 << 16);

    /* zero-size copy is a no-op, even from unmapped addresses */
    p = copy_pkt(VA_NONE, VA_NONE, 0);
    g_assert_cmphex(run(a, 0, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);

    /* overlapping copy inside HBM behaves like memmove */
    p = copy_pkt(VA_HBM + 0x1000, VA_HBM + 0x1000 + 100, n);
    g_assert_cmphex(run(a, 0, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    qpci_memread(a->dev, a->hbm, 0x1000 + 100, out, n);
    g_assert(memcmp(in, out, n) == 0);
}

/*
 * Copies of 256 KiB and more between RAM-backed memory move their bytes on
 * the card's copy worker in pieces of up to 4 MiB: host -> HBM -> host and
 * host -> host, unaligned, across 2 MiB pages, checked byte for byte.
 */
static void test_copy_large(void)
{
    Card *a = &cards[0];
    const size_t n = 5 * 1024 * 1024 + 123;
    uint64_t src = galloc(a, n + 8), dst = galloc(a, n + 8);
    g_autofree uint8_t *in = g_malloc(n), *out = g_malloc(n);
    union m890_packet p;
    size_t i;

    /* from a clock of 0: the time checked below is exact */
    wr(a, M890_REG_CONTROL, M890_CONTROL_RESET);
    card_restart(a);
    for (i = 0; i < n; i++) {
        in[i] = i * 13 + (i >> 12);
    }
    qtest_memwrite(qs->qts, src + 3, in, n);
    p = copy_pkt(VA_HOST + src + 3, VA_HBM + 0x1ff001, n);
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);
    qpci_memread(a->dev, a->hbm, 0x1ff001, out, n);
    g_assert(memcmp(in, out, n) == 0);
    p = copy_pkt(VA_HBM + 0x1ff001, VA_HOST + dst + 5, n);
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);
    memset(out, 0, n);
    qtest_memread(qs->qts, dst + 5, out, n);
    g_assert(memcmp(in, out, n) == 0);
    qtest_memset(qs->qts, dst, 0, n + 8);
    p = copy_pkt(VA_HOST + src + 3, VA_HOST + dst, n);
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);
    memset(out, 0, n);
    qtest_memread(qs->qts, dst, out, n);
    g_assert(memcmp(in, out, n) == 0);
    /*
     * Spec §10: the first fetch (50 ns), then the data phases; each costs
     * its slowest class, here host memory at 15.625 ps a byte (HBM runs
     * concurrently): n, n, and 2n host bytes for host -> host.  The later
     * fetches hide behind the earlier data phases.
     */
    g_assert_cmpuint(rdq(a, M890_REG_CLOCK), ==,
                     50 + (uint64_t)n * 4 * 15625 / 1000000);
}

static void test_fill(void)
{
    Card *a = &cards[0];
    union m890_packet p = { 0 };
    uint32_t buf[64];
    int i;

    p.fill.hdr = M890_PKT_HDR(M890_PKT_FILL, 0);
    p.fill.pattern = 0xdeadbeef;
    p.fill.dst = VA_HBM + 0x100000;
    p.fill.size = 200;
    g_assert_cmphex(run(a, 1, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    qpci_memread(a->dev, a->hbm, 0x100000, buf, sizeof(buf));
    for (i = 0; i < 50; i++) {
        g_assert_cmphex(buf[i], ==, 0xdeadbeef);
    }
    g_assert_cmphex(buf[50], ==, 0);
    p.fill.size = 6;                    /* not a multiple of 4 */
    g_assert_cmpuint(qerr(run(a, 1, &p)), ==, M890_QERR_BAD_FIELD);
    queue_start(a, 1);
}

static void test_signal_wait(void)
{
    Card *a = &cards[0], *b = &cards[1];
    union m890_packet w = { 0 }, s = { 0 }, n = { 0 };
    uint64_t sem;

    hbm_set(a, 0x200000, 0, 8);
    w.wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
    w.wait.cond = M890_WAIT_GE;
    w.wait.addr = VA_HBM + 0x200000;
    w.wait.value = 2;
    g_assert_cmphex(run(a, 2, &w) & M890_Q_STATUS_WAITING, ==,
                    M890_Q_STATUS_WAITING);
    n.hdr = M890_PKT_HDR(M890_PKT_NOP, 0);
    post(a, 2, &n);                     /* queued behind the WAIT */

    s.signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
    s.signal.op = M890_SIGNAL_ADD;
    s.signal.addr = VA_HBM + 0x200000;
    s.signal.value = 1;
    g_assert_cmphex(run(a, 3, &s), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    g_assert_cmphex(settle(a, 2) & M890_Q_STATUS_WAITING, ==,
                    M890_Q_STATUS_WAITING);
    /* the second increment comes from the peer card, over the fabric */
    s.signal.addr = VA_PEER + 0x200000;
    g_assert_cmphex(run(b, 3, &s), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    g_assert_cmphex(settle(a, 2), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    qpci_memread(a->dev, a->hbm, 0x200000, &sem, 8);
    g_assert_cmpuint(sem, ==, 2);
    g_assert_cmpuint(rd(a, M890_REG_Q(2) + M890_Q_HEAD), ==,
                     rd(a, M890_REG_Q(2) + M890_Q_TAIL));
}

static void test_timestamp_fence(void)
{
    Card *a = &cards[0];
    union m890_packet t = { 0 }, f = { 0 };
    uint64_t t0, t1, fv;

    t.timestamp.hdr = M890_PKT_HDR(M890_PKT_TIMESTAMP, 0);
    t.timestamp.addr = VA_HBM + 0x300000;
    run(a, 0, &t);
    t.timestamp.addr = VA_HBM + 0x300008;
    run(a, 0, &t);
    qpci_memread(a->dev, a->hbm, 0x300000, &t0, 8);
    qpci_memread(a->dev, a->hbm, 0x300008, &t1, 8);
    g_assert_cmpuint(t0, >, 0);
    g_assert_cmpuint(t1, >, t0);
    g_assert_cmpuint(rdq(a, M890_REG_CLOCK), >=, t1);

    f.fence.hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
    f.fence.flags = M890_FENCE_F_IRQ;
    f.fence.value = 0x1122334455667788ull;
    g_assert(!qpci_msix_pending(a->dev, M890_MSIX_VEC_QUEUE0 + 0));
    g_assert_cmphex(run(a, 0, &f), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    g_assert_cmphex(rdq(a, M890_REG_Q(0) + M890_Q_FENCE_VALUE), ==,
                    0x1122334455667788ull);
    fv = qtest_readq(qs->qts, a->fence[0]);
    g_assert_cmphex(fv, ==, 0x1122334455667788ull);
}

static void test_errors(void)
{
    Card *a = &cards[0];
    union m890_packet p = { 0 };
    uint32_t faults;

    p.hdr = 0x10;                                       /* reserved opcode */
    expect_error(a, 0, &p, M890_QERR_BAD_OPCODE);
    p = copy_pkt(VA_HOST, VA_HBM, 8);
    p.copy.rsvd[0] = 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = copy_pkt(VA_HOST, VA_HBM, 8);
    p.hdr |= 1 << 9;                                    /* header flag */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = copy_pkt(VA_HOST, VA_HBM, 1ull << 41);          /* too big */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = copy_pkt(0xfffffffffffff000ull, VA_HBM, 0x2000);   /* wraps */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);

    faults = rd(a, M890_REG_MMU_FAULT_COUNT);
    p = copy_pkt(VA_NONE + 0x10, VA_HBM, 8);
    expect_error(a, 0, &p, M890_QERR_MMU_FAULT);
    g_assert_cmphex(rdq(a, M890_REG_MMU_FAULT_ADDR), ==, VA_NONE + 0x10);
    g_assert_cmphex(rd(a, M890_REG_MMU_FAULT_INFO), ==,
                    M890_FAULT_NOT_PRESENT << M890_FAULT_REASON_SHIFT);
    g_assert_cmpuint(rd(a, M890_REG_MMU_FAULT_COUNT), ==, faults + 1);

    p = copy_pkt(VA_HOST, VA_HBM + HBM_SIZE + 8, 8);    /* past the HBM */
    expect_error(a, 0, &p, M890_QERR_MMU_FAULT);
    g_assert_cmphex(rd(a, M890_REG_MMU_FAULT_INFO), ==,
                    M890_FAULT_OUT_OF_RANGE << M890_FAULT_REASON_SHIFT |
                    M890_FAULT_WRITE);
}

static void test_fabric_down(void)
{
    Card *a = &cards[0], *b = &cards[1];
    union m890_packet p = copy_pkt(VA_HBM, VA_PEER, 64);
    uint32_t seq = rd(b, M890_REG_SW_EVENT_SEQ);

    wr(a, M890_REG_SW_CMD, M890_SW_OP_PORT_CLEAR | 1 << 8);
    wrq(a, M890_REG_SW_ARG0, 0);
    wr(a, M890_REG_SW_CMD, M890_SW_OP_PORT_SET_ADMIN | 1 << 8);
    g_assert_cmpuint(rd(a, M890_REG_SW_STATUS), ==, M890_SW_OK);
    g_assert_cmphex(rd(b, M890_REG_EVT_STATUS) & M890_EVT_FABRIC, ==,
                    M890_EVT_FABRIC);
    g_assert_cmpuint(rd(b, M890_REG_SW_EVENT_SEQ), ==, seq + 1);
    g_assert_cmphex(rd(b, M890_REG_SW_EVENT), ==, 1 | M890_LINK_DOWN << 8);
    g_assert_cmphex(rd(b, M890_REG_FABRIC) & M890_FABRIC_LINK_UP, ==, 0);
    expect_error(a, 0, &p, M890_QERR_FABRIC);
    g_assert_cmpuint(sw_port(a, 1, M890_SW_PORT_LINK_DOWN), ==, 1);
    wrq(a, M890_REG_SW_ARG0, 1);
    wr(a, M890_REG_SW_CMD, M890_SW_OP_PORT_SET_ADMIN | 1 << 8);
    g_assert_cmphex(rd(b, M890_REG_FABRIC) & M890_FABRIC_LINK_UP, ==,
                    M890_FABRIC_LINK_UP);
    g_assert_cmphex(run(a, 0, &p), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    wr(a, M890_REG_SW_CMD, M890_SW_OP_PORT_GET | 64 << 8);
    g_assert_cmpuint(rd(a, M890_REG_SW_STATUS), ==, M890_SW_ERANGE);
    wr(a, M890_REG_SW_CMD, 0x77);
    g_assert_cmpuint(rd(a, M890_REG_SW_STATUS), ==, M890_SW_EINVAL);
}

static void test_ring_limits(void)
{
    Card *a = &cards[0];
    union m890_packet n = { 0 };

    /* a queue beyond "queues": registers read 0, doorbell ignored */
    wr(a, M890_REG_Q(M890T_NQ) + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
    g_assert_cmphex(rd(a, M890_REG_Q(M890T_NQ) + M890_Q_CONTROL), ==, 0);
    wr(a, M890_REG_DOORBELL(M890T_NQ), 5);
    wr(a, M890_REG_DOORBELL(63), 5);
    g_assert_cmphex(rd(a, M890_REG_Q(M890T_NQ) + M890_Q_TAIL), ==, 0);

    /* TAIL - HEAD > entries */
    wr(a, M890_REG_DOORBELL(1), (1 << RING_ORDER) + 1);
    g_assert_cmpuint(qerr(settle(a, 1)), ==, M890_QERR_BAD_RING);
    queue_start(a, 1);

    /* a ring base that is not 4 KiB aligned */
    wr(a, M890_REG_Q(1) + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    wrq(a, M890_REG_Q(1) + M890_Q_RING_BASE, a->ring[1] + 64);
    wr(a, M890_REG_Q(1) + M890_Q_RING_ORDER, RING_ORDER);
    wr(a, M890_REG_Q(1) + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
    g_assert_cmpuint(qerr(rd(a, M890_REG_Q(1) + M890_Q_STATUS)), ==,
                     M890_QERR_BAD_RING);
    queue_start(a, 1);

    /* wrap the ring several times */
    n.hdr = M890_PKT_HDR(M890_PKT_NOP, 0);
    for (int i = 0; i < 40; i++) {
        post(a, 1, &n);
    }
    g_assert_cmphex(settle(a, 1), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE);
    g_assert_cmpuint(rd(a, M890_REG_Q(1) + M890_Q_HEAD), ==, 40);
}

/* RING_BASE, RING_ORDER and ASID are read-only while ENABLE is set. */
static void test_ring_regs_locked(void)
{
    Card *a = &cards[0];
    uint64_t r = M890_REG_Q(2);
    union m890_packet n = { 0 };

    wrq(a, r + M890_Q_RING_BASE, 0x123456000ull);
    wr(a, r + M890_Q_RING_BASE + 4, 7);
    wr(a, r + M890_Q_RING_ORDER, 9);
    wr(a, r + M890_Q_ASID, 5);
    g_assert_cmphex(rdq(a, r + M890_Q_RING_BASE), ==, a->ring[2]);
    g_assert_cmpuint(rd(a, r + M890_Q_RING_ORDER), ==, RING_ORDER);
    g_assert_cmpuint(rd(a, r + M890_Q_ASID), ==, 0);
    n.hdr = M890_PKT_HDR(M890_PKT_NOP, 0);
    g_assert_cmphex(run(a, 2, &n), ==, M890T_IDLE);

    /* still locked while stopped in error with ENABLE set */
    n.hdr = 0x10;
    g_assert_cmpuint(qerr(run(a, 2, &n)), ==, M890_QERR_BAD_OPCODE);
    wr(a, r + M890_Q_ASID, 5);
    g_assert_cmpuint(rd(a, r + M890_Q_ASID), ==, 0);

    /* writable again once disabled; kept by a queue reset */
    wr(a, r + M890_Q_CONTROL, 0);
    wr(a, r + M890_Q_ASID, 5);
    wr(a, r + M890_Q_RING_ORDER, 9);
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    g_assert_cmpuint(rd(a, r + M890_Q_ASID), ==, 5);
    g_assert_cmpuint(rd(a, r + M890_Q_RING_ORDER), ==, 9);
    wr(a, M890_REG_EVT_STATUS, ~0u);
    wr(a, M890_REG_QERR_STATUS, ~0u);
    queue_start(a, 2);
    g_assert_cmpuint(rd(a, r + M890_Q_ASID), ==, 0);
}

static void test_self_dma(void)
{
    Card *a = &cards[0];
    union m890_packet p = copy_pkt(VA_HBM, VA_REGS + M890_REG_CONTROL, 4);
    uint32_t st;

    /* DMA into the card's own BAR0 must neither crash nor reset it */
    hbm_set(a, 0, 0xff, 8);
    wr(a, M890_REG_SCRATCH, 0x55);
    st = run(a, 0, &p);
    g_assert_cmphex(st & M890_Q_STATUS_ERROR, ==, M890_Q_STATUS_ERROR);
    g_assert_cmpuint(rd(a, M890_REG_SCRATCH), ==, 0x55);
    queue_start(a, 0);
    p = copy_pkt(VA_REGS + M890_REG_ID, VA_HBM, 4);
    st = run(a, 0, &p);
    g_assert_cmpuint(rd(a, M890_REG_ID), ==, M890_ID_MAGIC);
    queue_start(a, 0);
}

static void test_reset(void)
{
    Card *a = &cards[0];

    wr(a, M890_REG_SCRATCH, 0x99);
    wr(a, M890_REG_CONTROL, M890_CONTROL_RESET);
    g_assert_cmpuint(rd(a, M890_REG_SCRATCH), ==, 0);
    g_assert_cmpuint(rd(a, M890_REG_Q(0) + M890_Q_STATUS), ==,
                     M890_Q_STATUS_IDLE);
    g_assert_cmpuint(rd(a, M890_REG_MMU_CONTROL), ==, 0);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    /* the firmware only has to load (qtest runs no guest code) */
    qs = m890t_boot();
    card_init(qs, &cards[0], 0);
    card_init(qs, &cards[1], 1);
    qtest_add_func("/m890/ident", test_ident);
    qtest_add_func("/m890/copy-chain", test_copy_chain);
    qtest_add_func("/m890/copy-large", test_copy_large);
    qtest_add_func("/m890/fill", test_fill);
    qtest_add_func("/m890/signal-wait", test_signal_wait);
    qtest_add_func("/m890/timestamp-fence", test_timestamp_fence);
    qtest_add_func("/m890/errors", test_errors);
    qtest_add_func("/m890/fabric-down", test_fabric_down);
    qtest_add_func("/m890/ring-limits", test_ring_limits);
    qtest_add_func("/m890/ring-regs-locked", test_ring_regs_locked);
    qtest_add_func("/m890/self-dma", test_self_dma);
    qtest_add_func("/m890/reset", test_reset);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
