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
 * overflow, queues beyond the configured count, DMA into the card's own
 * registers).
 */
#include "qemu/osdep.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci-pc.h"
#include "standard-headers/linux/pci_regs.h"

#include "hw/m890/m890_regs.h"
#include "hw/m890/m890_packets.h"

#define HBM_SIZE        (16 * 1024 * 1024)
#define MIB2            (2 * 1024 * 1024ull)
#define VA_HOST         0x0ull          /* identity map of guest RAM */
#define VA_HBM          0x40000000ull   /* local HBM, 16 MiB + 2 MiB beyond */
#define VA_PEER         0x80000000ull   /* the other card's HBM */
#define VA_REGS         0xc0000000ull   /* the card's own BAR0 (host PTE) */
#define VA_NONE         0x100000000ull  /* not mapped */
#define RING_ORDER      4
#define NQ              4

typedef struct Card {
    QPCIDevice *dev;
    QPCIBar bar0, hbm;
    uint64_t hbm_bar_size;
    uint64_t ctx;               /* context table */
    uint64_t ring[NQ];
    uint64_t fence[NQ];
} Card;

static QOSState *qs;
static Card cards[2];

static uint64_t galloc(size_t size)
{
    uint64_t a = guest_alloc(&qs->alloc, size + 4096);

    return (a + 4095) & ~4095ull;
}

static uint32_t rd(Card *c, uint64_t off)
{
    return qpci_io_readl(c->dev, c->bar0, off);
}

static uint64_t rdq(Card *c, uint64_t off)
{
    return qpci_io_readq(c->dev, c->bar0, off);
}

static void wr(Card *c, uint64_t off, uint32_t v)
{
    qpci_io_writel(c->dev, c->bar0, off, v);
}

static void wrq(Card *c, uint64_t off, uint64_t v)
{
    qpci_io_writeq(c->dev, c->bar0, off, v);
}

static void wq64(uint64_t addr, uint64_t v)
{
    qtest_writeq(qs->qts, addr, v);
}

/* Build the page tables of card @i (ASID 0) in guest memory. */
static void setup_mmu(int i)
{
    Card *c = &cards[i];
    uint64_t l3 = galloc(4096), l2 = galloc(4096);
    uint64_t l1h = galloc(4096), l1b = galloc(4096), l1p = galloc(4096);
    uint64_t l1r = galloc(4096), l0r = galloc(4096);
    unsigned int e;

    qtest_memset(qs->qts, l3, 0, 4096);
    qtest_memset(qs->qts, l2, 0, 4096);
    qtest_memset(qs->qts, l1h, 0, 4096);
    qtest_memset(qs->qts, l1b, 0, 4096);
    qtest_memset(qs->qts, l1p, 0, 4096);
    qtest_memset(qs->qts, l1r, 0, 4096);
    qtest_memset(qs->qts, l0r, 0, 4096);
    wq64(l3, l2 | M890_PTE_VALID);
    wq64(l2 + 0 * 8, l1h | M890_PTE_VALID);
    wq64(l2 + 1 * 8, l1b | M890_PTE_VALID);
    wq64(l2 + 2 * 8, l1p | M890_PTE_VALID);
    wq64(l2 + 3 * 8, l1r | M890_PTE_VALID);
    for (e = 0; e < 64; e++) {     /* 128 MiB of guest RAM */
        wq64(l1h + e * 8, e * MIB2 | M890_PTE_VALID | M890_PTE_WRITE |
             M890_PTE_LARGE);
    }
    for (e = 0; e < 9; e++) {      /* entry 8 lies past the HBM */
        wq64(l1b + e * 8, e * MIB2 | M890_PTE_VALID | M890_PTE_WRITE |
             M890_PTE_LARGE | (uint64_t)M890_PTE_TARGET_HBM <<
             M890_PTE_TARGET_SHIFT);
        wq64(l1p + e * 8, e * MIB2 | M890_PTE_VALID | M890_PTE_WRITE |
             M890_PTE_LARGE | (uint64_t)M890_PTE_TARGET_PEER <<
             M890_PTE_TARGET_SHIFT | (uint64_t)(1 - i) << M890_PTE_PEER_SHIFT);
    }
    wq64(l1r, l0r | M890_PTE_VALID);
    wq64(l0r, c->bar0.addr | M890_PTE_VALID | M890_PTE_WRITE);

    c->ctx = galloc(4096);
    qtest_memset(qs->qts, c->ctx, 0, 4096);
    wq64(c->ctx, l3 | M890_CTX_VALID);
    wrq(c, M890_REG_MMU_CTX_BASE, c->ctx);
    wr(c, M890_REG_MMU_CTX_COUNT, 1);
    wr(c, M890_REG_MMU_CONTROL, M890_MMU_CONTROL_ENABLE);
}

static void queue_start(Card *c, int q)
{
    uint64_t r = M890_REG_Q(q);

    wr(c, r + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    wrq(c, r + M890_Q_RING_BASE, c->ring[q]);
    wr(c, r + M890_Q_RING_ORDER, RING_ORDER);
    wr(c, r + M890_Q_ASID, 0);
    wrq(c, r + M890_Q_FENCE_ADDR, c->fence[q]);
    wr(c, r + M890_Q_MSIX_VECTOR, M890_MSIX_VEC_QUEUE0 + q);
    wr(c, r + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
}

/* Write @p at the queue's tail and ring the doorbell; no waiting. */
static void post(Card *c, int q, const union m890_packet *p)
{
    uint32_t tail = rd(c, M890_REG_Q(q) + M890_Q_TAIL);
    uint64_t slot = c->ring[q] + (tail & ((1 << RING_ORDER) - 1)) * 64;

    qtest_memwrite(qs->qts, slot, p, sizeof(*p));
    wr(c, M890_REG_DOORBELL(q), tail + 1);
}

/* Wait until the queue idles or stops; returns Q_STATUS. */
static uint32_t settle(Card *c, int q)
{
    uint32_t st = 0;
    int i;

    for (i = 0; i < 2000; i++) {
        st = rd(c, M890_REG_Q(q) + M890_Q_STATUS);
        if ((st & (M890_Q_STATUS_IDLE | M890_Q_STATUS_ERROR)) ||
            (st & M890_Q_STATUS_WAITING)) {
            return st;
        }
        g_usleep(1000);
    }
    return st;
}

static uint32_t run(Card *c, int q, const union m890_packet *p)
{
    post(c, q, p);
    return settle(c, q);
}

static uint32_t qerr(uint32_t st)
{
    return (st & M890_Q_STATUS_ERR_MASK) >> M890_Q_STATUS_ERR_SHIFT;
}

static union m890_packet copy_pkt(uint64_t src, uint64_t dst, uint64_t n)
{
    union m890_packet p = { 0 };

    p.copy.hdr = M890_PKT_HDR(M890_PKT_COPY, 0);
    p.copy.src = src;
    p.copy.dst = dst;
    p.copy.size = n;
    return p;
}

static uint64_t sw_port(Card *c, unsigned int port, unsigned int word)
{
    wr(c, M890_REG_SW_CMD, M890_SW_OP_PORT_GET | port << 8);
    g_assert_cmpuint(rd(c, M890_REG_SW_STATUS), ==, M890_SW_OK);
    return rdq(c, M890_REG_SW_DATA(word));
}

static void hbm_set(Card *c, uint64_t off, int byte, size_t n)
{
    g_autofree uint8_t *buf = g_malloc(n);

    memset(buf, byte, n);
    qpci_memwrite(c->dev, c->hbm, off, buf, n);
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
    g_assert_cmphex(rd(c, M890_REG_ID), ==, M890_ID_MAGIC);
    g_assert_cmphex(rd(c, M890_REG_VERSION), ==, M890_SPEC_VERSION);
    g_assert_cmphex(rd(c, M890_REG_CAPS) & M890_HWCAP_MMU, ==,
                    M890_HWCAP_MMU);
    g_assert_cmpuint(rd(c, M890_REG_NUM_QUEUES), ==, NQ);
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
    g_assert_cmpuint(qpci_msix_table_size(c->dev), ==, 1 + NQ);
    wr(c, M890_REG_SW_CMD, M890_SW_OP_INFO);
    g_assert_cmpuint(rd(c, M890_REG_SW_STATUS), ==, M890_SW_OK);
    g_assert_cmpuint(rdq(c, M890_REG_SW_DATA(0)), ==, 64);
    g_assert_cmphex(rdq(c, M890_REG_SW_DATA(1)), ==, 0x00010000);
}

static void test_copy_chain(void)
{
    Card *a = &cards[0], *b = &cards[1];
    const size_t n = 3 * 4096 + 123;
    uint64_t src = galloc(n), dst = galloc(n);
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

static void expect_error(Card *c, int q, const union m890_packet *p,
                         uint32_t err)
{
    uint32_t head = rd(c, M890_REG_Q(q) + M890_Q_HEAD);
    uint32_t st = run(c, q, p);

    g_assert_cmphex(st & M890_Q_STATUS_ERROR, ==, M890_Q_STATUS_ERROR);
    g_assert_cmpuint(qerr(st), ==, err);
    g_assert_cmpuint(rd(c, M890_REG_Q(q) + M890_Q_ERR_HEAD), ==, head);
    g_assert_cmphex(rd(c, M890_REG_QERR_STATUS) & (1u << q), ==, 1u << q);
    g_assert_cmphex(rd(c, M890_REG_EVT_STATUS) & M890_EVT_QUEUE_ERROR, ==,
                    M890_EVT_QUEUE_ERROR);
    wr(c, M890_REG_EVT_STATUS, M890_EVT_QUEUE_ERROR | M890_EVT_MMU_FAULT);
    wr(c, M890_REG_QERR_STATUS, 1u << q);
    queue_start(c, q);
    g_assert_cmpuint(rd(c, M890_REG_Q(q) + M890_Q_HEAD), ==, 0);
}

static void test_errors(void)
{
    Card *a = &cards[0];
    union m890_packet p = { 0 };
    uint32_t faults;

    p.hdr = 0x0d;                                       /* reserved opcode */
    expect_error(a, 0, &p, M890_QERR_BAD_OPCODE);
    p = copy_pkt(VA_HOST, VA_HBM, 8);
    p.copy.rsvd[2] = 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = copy_pkt(VA_HOST, VA_HBM, 8);
    p.hdr |= 1 << 8;                                    /* header flag */
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
    wr(a, M890_REG_Q(NQ) + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
    g_assert_cmphex(rd(a, M890_REG_Q(NQ) + M890_Q_CONTROL), ==, 0);
    wr(a, M890_REG_DOORBELL(NQ), 5);
    wr(a, M890_REG_DOORBELL(63), 5);
    g_assert_cmphex(rd(a, M890_REG_Q(NQ) + M890_Q_TAIL), ==, 0);

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

static void card_init(int i)
{
    Card *c = &cards[i];
    int q;

    c->dev = qpci_device_find(qs->pcibus, QPCI_DEVFN(4 + i, 0));
    g_assert(c->dev);
    qpci_device_enable(c->dev);
    c->bar0 = qpci_iomap(c->dev, M890_BAR_REGS, NULL);
    c->hbm = qpci_iomap(c->dev, M890_BAR_HBM, &c->hbm_bar_size);
    qpci_msix_enable(c->dev);
    setup_mmu(i);
    for (q = 0; q < NQ; q++) {
        c->ring[q] = galloc(64 << RING_ORDER);
        c->fence[q] = galloc(8);
        queue_start(c, q);
    }
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    /* the firmware only has to load (qtest runs no guest code) */
    qs = qtest_pc_boot("-machine q35 -bios bios-microvm.bin -vga none "
                       "-nodefaults "
                       "-object icn-switch,id=sw0 "
                       "-object memory-backend-ram,id=hbm0,size=16M "
                       "-object memory-backend-ram,id=hbm1,size=16M "
                       "-device m890,memdev=hbm0,switch=sw0,port=0,"
                       "queues=%d,addr=04.0 "
                       "-device m890,memdev=hbm1,switch=sw0,port=1,"
                       "queues=%d,addr=05.0", NQ, NQ);
    card_init(0);
    card_init(1);
    qtest_add_func("/m890/ident", test_ident);
    qtest_add_func("/m890/copy-chain", test_copy_chain);
    qtest_add_func("/m890/fill", test_fill);
    qtest_add_func("/m890/signal-wait", test_signal_wait);
    qtest_add_func("/m890/timestamp-fence", test_timestamp_fence);
    qtest_add_func("/m890/errors", test_errors);
    qtest_add_func("/m890/fabric-down", test_fabric_down);
    qtest_add_func("/m890/ring-limits", test_ring_limits);
    qtest_add_func("/m890/self-dma", test_self_dma);
    qtest_add_func("/m890/reset", test_reset);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
