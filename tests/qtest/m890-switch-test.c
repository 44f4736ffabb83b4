/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of the ICN switch management opcodes
 *
 * Three M890 cards on one icn-switch (ports 0, 1 and 2; card 2 has no
 * management permission) exercise the switch window of
 * Documentation/hardware-spec.rst §8.3 beyond PORT_GET/SET_ADMIN:
 * PORT_SET_PARTITION, ROUTE_GET/ROUTE_SET and PORT_INJECT, the events of
 * §8.4 they send, the order of the status checks, and what §8.1 makes of
 * peer accesses under partitions, routes and injected errors (FABRIC
 * queue errors, counted on the issuing card's port), and the export and
 * window opcodes of §8.7 with each of their statuses (all cards of one
 * VM share a trust domain, so their peer accesses need no window).
 */
#include "qemu/osdep.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci-pc.h"

#include "hw/m890/m890_regs.h"
#include "hw/m890/m890_packets.h"

#define NCARDS          3
#define HBM_SIZE        (16 * 1024 * 1024)
#define MIB2            (2 * 1024 * 1024ull)
#define GIB             (1024 * 1024 * 1024ull)
#define VA_HOST         0x0ull          /* identity map of guest RAM */
#define VA_HBM          GIB             /* local HBM */
#define VA_PEER(f)      ((2 + (f)) * GIB)   /* HBM of fabric id f */
#define RING_ORDER      4
#define NQ              2
#define Q_OK            (M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE)
#define ROUTE_DEFAULT(f) ((uint64_t)(f) | M890_SW_ROUTE_ENABLED)

typedef struct Card {
    QPCIDevice *dev;
    QPCIBar bar0, hbm;
    uint64_t ring[NQ];
    uint64_t fence[NQ];
} Card;

static QOSState *qs;
static Card cards[NCARDS];

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

static uint64_t table(void)
{
    uint64_t t = galloc(4096);

    qtest_memset(qs->qts, t, 0, 4096);
    return t;
}

/* A level-1 table of 2 MiB pages: @n pages of @target from 0. */
static uint64_t l1_large(unsigned int n, uint64_t target, unsigned int peer)
{
    uint64_t l1 = table();
    unsigned int e;

    for (e = 0; e < n; e++) {
        qtest_writeq(qs->qts, l1 + e * 8, e * MIB2 | M890_PTE_VALID |
                     M890_PTE_WRITE | M890_PTE_LARGE |
                     target << M890_PTE_TARGET_SHIFT |
                     (uint64_t)peer << M890_PTE_PEER_SHIFT);
    }
    return l1;
}

/*
 * Page tables of one card (ASID 0): guest RAM at VA_HOST, its HBM at
 * VA_HBM, and the HBM of fabric id f at VA_PEER(f) for every card's id.
 */
static void setup_mmu(Card *c)
{
    uint64_t l3 = table(), l2 = table(), ctx = table();
    unsigned int f;

    qtest_writeq(qs->qts, l3, l2 | M890_PTE_VALID);
    qtest_writeq(qs->qts, l2, l1_large(64, M890_PTE_TARGET_HOST, 0) |
                 M890_PTE_VALID);
    qtest_writeq(qs->qts, l2 + 8, l1_large(8, M890_PTE_TARGET_HBM, 0) |
                 M890_PTE_VALID);
    for (f = 0; f < NCARDS; f++) {
        qtest_writeq(qs->qts, l2 + (2 + f) * 8,
                     l1_large(8, M890_PTE_TARGET_PEER, f) | M890_PTE_VALID);
    }
    qtest_writeq(qs->qts, ctx, l3 | M890_CTX_VALID);
    wrq(c, M890_REG_MMU_CTX_BASE, ctx);
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

/* Post one packet on queue 0 and wait until it idles or stops. */
static uint32_t run(Card *c, const union m890_packet *p)
{
    uint32_t tail = rd(c, M890_REG_Q(0) + M890_Q_TAIL), st = 0;
    uint64_t slot = c->ring[0] + (tail & ((1 << RING_ORDER) - 1)) * 64;
    int i;

    qtest_memwrite(qs->qts, slot, p, sizeof(*p));
    wr(c, M890_REG_DOORBELL(0), tail + 1);
    for (i = 0; i < 2000; i++) {
        st = rd(c, M890_REG_Q(0) + M890_Q_STATUS);
        if (st & (M890_Q_STATUS_IDLE | M890_Q_STATUS_ERROR)) {
            break;
        }
        g_usleep(1000);
    }
    return st;
}

/* Copy @n bytes from @c's HBM at 0 to VA @dst; returns Q_STATUS. */
static uint32_t copy_out(Card *c, uint64_t dst, uint64_t n)
{
    union m890_packet p = { 0 };

    p.copy.hdr = M890_PKT_HDR(M890_PKT_COPY, 0);
    p.copy.src = VA_HBM;
    p.copy.dst = dst;
    p.copy.size = n;
    return run(c, &p);
}

/* A peer access that must fail with FABRIC; restarts the queue. */
static void expect_fabric_error(Card *c, uint64_t dst)
{
    uint32_t st = copy_out(c, dst, 64);

    g_assert_cmphex(st & M890_Q_STATUS_ERROR, ==, M890_Q_STATUS_ERROR);
    g_assert_cmpuint((st & M890_Q_STATUS_ERR_MASK) >> M890_Q_STATUS_ERR_SHIFT,
                     ==, M890_QERR_FABRIC);
    g_assert_cmpuint((rd(c, M890_REG_MMU_FAULT_INFO) & M890_FAULT_REASON_MASK)
                     >> M890_FAULT_REASON_SHIFT, ==, M890_FAULT_FABRIC);
    wr(c, M890_REG_EVT_STATUS, M890_EVT_QUEUE_ERROR | M890_EVT_MMU_FAULT);
    wr(c, M890_REG_QERR_STATUS, 1);
    queue_start(c, 0);
}

/* Issue a switch command from card @c; returns SW_STATUS. */
static uint32_t sw_cmd(Card *c, uint32_t op, uint32_t arg, uint64_t arg0,
                       uint64_t arg1)
{
    wrq(c, M890_REG_SW_ARG0, arg0);
    wrq(c, M890_REG_SW_ARG1, arg1);
    wr(c, M890_REG_SW_CMD, op | arg << M890_SW_CMD_ARG_SHIFT);
    return rd(c, M890_REG_SW_STATUS);
}

static uint64_t sw_port(unsigned int port, unsigned int word)
{
    g_assert_cmpuint(sw_cmd(&cards[0], M890_SW_OP_PORT_GET, port, 0, 0), ==,
                     M890_SW_OK);
    return rdq(&cards[0], M890_REG_SW_DATA(word));
}

static uint64_t route_get(Card *c, unsigned int fid)
{
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_ROUTE_GET, fid, 0, 0), ==,
                     M890_SW_OK);
    return rdq(c, M890_REG_SW_DATA(0));
}

/*
 * Assert that every card received exactly one event since @seq and that it
 * is @word; clears EVT_STATUS.FABRIC.
 */
static void expect_event(const uint32_t *seq, uint32_t word)
{
    int i;

    for (i = 0; i < NCARDS; i++) {
        Card *c = &cards[i];

        g_assert_cmpuint(rd(c, M890_REG_SW_EVENT_SEQ), ==, seq[i] + 1);
        g_assert_cmphex(rd(c, M890_REG_SW_EVENT), ==, word);
        g_assert_cmphex(rd(c, M890_REG_EVT_STATUS) & M890_EVT_FABRIC, ==,
                        M890_EVT_FABRIC);
        wr(c, M890_REG_EVT_STATUS, M890_EVT_FABRIC);
    }
}

static void event_seqs(uint32_t *seq)
{
    int i;

    for (i = 0; i < NCARDS; i++) {
        seq[i] = rd(&cards[i], M890_REG_SW_EVENT_SEQ);
    }
}

static uint64_t hbm_read64(Card *c, uint64_t off)
{
    uint64_t v;

    qpci_memread(c->dev, c->hbm, off, &v, sizeof(v));
    return v;
}

static void test_partition(void)
{
    Card *a = &cards[0];
    uint32_t seq[NCARDS];
    uint64_t err0;

    g_assert_cmpuint(sw_port(1, M890_SW_PORT_PARTITION), ==, 0);
    g_assert_cmphex(copy_out(a, VA_PEER(1), 64), ==, Q_OK);

    event_seqs(seq);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 1, 3, 0), ==,
                     M890_SW_OK);
    expect_event(seq, 1 | 3 << M890_SW_EVENT_VALUE_SHIFT |
                 M890_SW_EVENT_PARTITION << M890_SW_EVENT_TYPE_SHIFT);
    g_assert_cmpuint(sw_port(1, M890_SW_PORT_PARTITION), ==, 3);
    /* the same partition again: no event */
    event_seqs(seq);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 1, 3, 0), ==,
                     M890_SW_OK);
    g_assert_cmpuint(rd(a, M890_REG_SW_EVENT_SEQ), ==, seq[0]);

    /* 0 -> 1 now crosses partitions, in both directions */
    err0 = sw_port(0, M890_SW_PORT_ERRORS);
    expect_fabric_error(a, VA_PEER(1));
    g_assert_cmpuint(sw_port(0, M890_SW_PORT_ERRORS), ==, err0 + 1);
    expect_fabric_error(&cards[1], VA_PEER(0));
    /* 0 and 2 still share partition 0 */
    g_assert_cmphex(copy_out(a, VA_PEER(2), 64), ==, Q_OK);

    /* moving card 0 into partition 3 lets it reach card 1 again */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 0, 3, 0), ==,
                     M890_SW_OK);
    g_assert_cmphex(copy_out(a, VA_PEER(1), 64), ==, Q_OK);
    expect_fabric_error(a, VA_PEER(2));

    /* bad arguments change nothing */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 1, 64, 0), ==,
                     M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 64, 1, 0), ==,
                     M890_SW_ERANGE);
    g_assert_cmpuint(sw_port(1, M890_SW_PORT_PARTITION), ==, 3);

    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 0, 0, 0), ==,
                     M890_SW_OK);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 1, 0, 0), ==,
                     M890_SW_OK);
    g_assert_cmphex(copy_out(a, VA_PEER(1), 64), ==, Q_OK);
}

static void test_route(void)
{
    Card *a = &cards[0], *c = &cards[2];
    uint32_t seq[NCARDS];
    uint64_t marker = 0x5a5aa5a5c3c33c3cull, zero = 0;

    for (int f = 0; f < 64; f++) {
        g_assert_cmphex(route_get(c, f), ==, ROUTE_DEFAULT(f));
    }
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_ROUTE_GET, 64, 0, 0), ==,
                     M890_SW_ERANGE);

    /* fabric id 1 now reaches the card on port 2 */
    event_seqs(seq);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_ROUTE_SET, 1,
                            ROUTE_DEFAULT(2), 0), ==, M890_SW_OK);
    expect_event(seq, 1 | 2 << M890_SW_EVENT_VALUE_SHIFT |
                 M890_SW_EVENT_ROUTE << M890_SW_EVENT_TYPE_SHIFT);
    g_assert_cmphex(route_get(a, 1), ==, ROUTE_DEFAULT(2));
    qpci_memwrite(a->dev, a->hbm, 0, &marker, sizeof(marker));
    qpci_memwrite(c->dev, c->hbm, 0x3000, &zero, sizeof(zero));
    qpci_memwrite(cards[1].dev, cards[1].hbm, 0x3000, &zero, sizeof(zero));
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_CLEAR, 1, 0, 0), ==,
                     M890_SW_OK);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_CLEAR, 2, 0, 0), ==,
                     M890_SW_OK);
    g_assert_cmphex(copy_out(a, VA_PEER(1) + 0x3000, 8), ==, Q_OK);
    g_assert_cmphex(hbm_read64(c, 0x3000), ==, marker);
    g_assert_cmphex(hbm_read64(&cards[1], 0x3000), ==, 0);
    g_assert_cmpuint(sw_port(2, M890_SW_PORT_RX_BYTES), ==, 8);
    g_assert_cmpuint(sw_port(1, M890_SW_PORT_RX_BYTES), ==, 0);

    /* the partition check uses the egress port */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 2, 7, 0), ==,
                     M890_SW_OK);
    expect_fabric_error(a, VA_PEER(1));
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 2, 0, 0), ==,
                     M890_SW_OK);

    /* disabled: the event names egress 0xff, accesses fail */
    event_seqs(seq);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_ROUTE_SET, 1, 2, 0), ==,
                     M890_SW_OK);
    expect_event(seq, 1 | M890_SW_EVENT_ROUTE_DISABLED <<
                 M890_SW_EVENT_VALUE_SHIFT |
                 M890_SW_EVENT_ROUTE << M890_SW_EVENT_TYPE_SHIFT);
    expect_fabric_error(a, VA_PEER(1));

    /* bad entries: ERANGE for the egress, EINVAL for other bits */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_ROUTE_SET, 1,
                            64 | M890_SW_ROUTE_ENABLED, 0), ==,
                     M890_SW_ERANGE);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_ROUTE_SET, 1, 1 | 1u << 9, 0), ==,
                     M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_ROUTE_SET, 64, 1, 0), ==,
                     M890_SW_ERANGE);
    g_assert_cmphex(route_get(a, 1), ==, 2);

    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_ROUTE_SET, 1, ROUTE_DEFAULT(1), 0),
                     ==, M890_SW_OK);
    g_assert_cmphex(copy_out(a, VA_PEER(1), 64), ==, Q_OK);
}

static void test_inject(void)
{
    Card *a = &cards[0];
    uint32_t seq[NCARDS];
    uint64_t err0, ld1;

    /* drops: the next two transfers through port 1 fail, then it works */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_INJECT, 1,
                            M890_SW_INJECT_DROP, 2), ==, M890_SW_OK);
    g_assert_cmpuint(sw_port(1, M890_SW_PORT_INJECT_DROPS), ==, 2);
    err0 = sw_port(0, M890_SW_PORT_ERRORS);
    expect_fabric_error(a, VA_PEER(1));
    expect_fabric_error(&cards[2], VA_PEER(1));
    g_assert_cmpuint(sw_port(0, M890_SW_PORT_ERRORS), ==, err0 + 1);
    g_assert_cmpuint(sw_port(1, M890_SW_PORT_INJECT_DROPS), ==, 0);
    g_assert_cmphex(copy_out(a, VA_PEER(1), 64), ==, Q_OK);

    /* kind 0 cancels pending drops */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_INJECT, 1,
                            M890_SW_INJECT_DROP, 100), ==, M890_SW_OK);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_INJECT, 1,
                            M890_SW_INJECT_CLEAR, 0), ==, M890_SW_OK);
    g_assert_cmphex(copy_out(a, VA_PEER(1), 64), ==, Q_OK);

    /* bad kinds and counts */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_INJECT, 1, 3, 0), ==,
                     M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_INJECT, 1, 1ull << 32, 0), ==,
                     M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_INJECT, 1,
                            M890_SW_INJECT_DROP, 0), ==, M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_INJECT, 1,
                            M890_SW_INJECT_DROP,
                            M890_SW_INJECT_DROP_MAX + 1), ==, M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_INJECT, 64,
                            M890_SW_INJECT_CLEAR, 0), ==, M890_SW_ERANGE);

    /* link error: ERROR, an event, link-down + 1; admin up retrains */
    ld1 = sw_port(1, M890_SW_PORT_LINK_DOWN);
    event_seqs(seq);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_INJECT, 1,
                            M890_SW_INJECT_LINK_ERROR, 0), ==, M890_SW_OK);
    expect_event(seq, 1 | M890_LINK_ERROR << M890_SW_EVENT_VALUE_SHIFT);
    g_assert_cmphex(sw_port(1, M890_SW_PORT_STATE), ==,
                    M890_LINK_UP | M890_LINK_ERROR << 8 | 1 << 16);
    g_assert_cmpuint(sw_port(1, M890_SW_PORT_LINK_DOWN), ==, ld1 + 1);
    g_assert_cmphex(rd(&cards[1], M890_REG_FABRIC) & M890_FABRIC_LINK_UP, ==,
                    0);
    expect_fabric_error(a, VA_PEER(1));
    event_seqs(seq);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_ADMIN, 1, 1, 0), ==,
                     M890_SW_OK);
    expect_event(seq, 1 | M890_LINK_UP << M890_SW_EVENT_VALUE_SHIFT);
    g_assert_cmphex(copy_out(a, VA_PEER(1), 64), ==, Q_OK);
}

static void test_status_order(void)
{
    Card *a = &cards[0], *c = &cards[2];

    /* card 2 has no management permission: reads work, changes do not */
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_PORT_GET, 1, 0, 0), ==, M890_SW_OK);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_ROUTE_GET, 1, 0, 0), ==,
                     M890_SW_OK);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_PORT_SET_PARTITION, 1, 2, 0), ==,
                     M890_SW_EPERM);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_ROUTE_SET, 1, 2, 0), ==,
                     M890_SW_EPERM);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_PORT_INJECT, 1,
                            M890_SW_INJECT_LINK_ERROR, 0), ==, M890_SW_EPERM);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_PORT_SET_ADMIN, 1, 0, 0), ==,
                     M890_SW_EPERM);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_PORT_CLEAR, 1, 0, 0), ==,
                     M890_SW_EPERM);
    g_assert_cmphex(route_get(a, 1), ==, ROUTE_DEFAULT(1));
    g_assert_cmpuint(sw_port(1, M890_SW_PORT_PARTITION), ==, 0);
    g_assert_cmpuint(sw_port(1, M890_SW_PORT_STATE) >> 8 & 0xff, ==,
                     M890_LINK_UP);

    /* order: EINVAL (opcode, reserved) < ERANGE < EPERM < EINVAL (values) */
    g_assert_cmpuint(sw_cmd(c, 13, 64, 0, 0), ==, M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_ROUTE_SET | 1 << 16, 64, 0, 0), ==,
                     M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_PORT_SET_PARTITION, 64, 99, 0), ==,
                     M890_SW_ERANGE);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_ROUTE_SET, 1,
                            70 | M890_SW_ROUTE_ENABLED, 0), ==,
                     M890_SW_ERANGE);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_PORT_SET_PARTITION, 1, 99, 0), ==,
                     M890_SW_EPERM);

    /* every command writes all 16 DATA words; a failed one writes zeros */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_GET, 0, 0, 0), ==, M890_SW_OK);
    g_assert_cmphex(rdq(a, M890_REG_SW_DATA(M890_SW_PORT_SPEED)), ==,
                    6400000);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_ROUTE_GET, 3, 0, 0), ==, M890_SW_OK);
    g_assert_cmphex(rdq(a, M890_REG_SW_DATA(0)), ==, ROUTE_DEFAULT(3));
    for (int w = 1; w < M890_SW_DATA_WORDS; w++) {
        g_assert_cmphex(rdq(a, M890_REG_SW_DATA(w)), ==, 0);
    }
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_ROUTE_GET, 99, 0, 0), ==,
                     M890_SW_ERANGE);
    g_assert_cmphex(rdq(a, M890_REG_SW_DATA(0)), ==, 0);
}

#define RANGE(first, pages) ((uint64_t)(first) | \
                             (uint64_t)(pages) << M890_SW_RANGE_PAGES_SHIFT)
#define HBM_PAGES       (HBM_SIZE >> M890_SW_RANGE_PAGE_SHIFT)

/* Opcodes 9..12 (spec §8.7): every status, DATA words, no permission. */
static void test_exports(void)
{
    Card *a = &cards[0], *b = &cards[1], *c = &cards[2];
    uint64_t key = 0x1234567890abcdefull;

    /* EXPORT_ADD: slot range, bad values, then the order EINVAL < EBUSY */
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_ADD, M890_SW_EXPORTS, key,
                            RANGE(0, 1)), ==, M890_SW_ERANGE);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_ADD, 0, 0, RANGE(0, 1)), ==,
                     M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_ADD, 0, key, RANGE(0, 0)),
                     ==, M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_ADD, 0, key,
                            RANGE(HBM_PAGES, 1)), ==, M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_ADD, 0, key,
                            RANGE(1, HBM_PAGES)), ==, M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_ADD, 0, key,
                            RANGE(0xffffffffu, 2)), ==, M890_SW_EINVAL);
    /* the whole HBM is a valid range; reserved command bits are not */
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_ADD | 1 << 16, 0, key,
                            RANGE(0, HBM_PAGES)), ==, M890_SW_EINVAL);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_ADD, 0, key,
                            RANGE(0, HBM_PAGES)), ==, M890_SW_OK);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_DEL, 0, 0, 0), ==,
                     M890_SW_OK);
    /* card 2 has no management permission: exports need none */
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_EXPORT_ADD, 5, key, RANGE(16, 4)),
                     ==, M890_SW_OK);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_EXPORT_ADD, 5, key + 1,
                            RANGE(0, 1)), ==, M890_SW_EBUSY);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_EXPORT_ADD, 6, key, RANGE(0, 1)),
                     ==, M890_SW_EBUSY);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_EXPORT_ADD, 6, key, RANGE(0, 0)),
                     ==, M890_SW_EINVAL);
    /* keys are per card: card 1 may use the same one */
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_ADD, 5, key, RANGE(0, 1)),
                     ==, M890_SW_OK);

    /* WINDOW_OPEN: DATA0 range, DATA1 slot; ENOENT for a wrong key */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_OPEN, 64, key, 0), ==,
                     M890_SW_ERANGE);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_OPEN, 2, key ^ 1, 0), ==,
                     M890_SW_ENOENT);
    g_assert_cmphex(rdq(a, M890_REG_SW_DATA(0)), ==, 0);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_OPEN, 2, 0, 0), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_OPEN, 9, key, 0), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_OPEN, 2, key, 0), ==,
                     M890_SW_OK);
    g_assert_cmphex(rdq(a, M890_REG_SW_DATA(0)), ==, RANGE(16, 4));
    g_assert_cmphex(rdq(a, M890_REG_SW_DATA(1)), ==, 5);
    for (int w = 2; w < M890_SW_DATA_WORDS; w++) {
        g_assert_cmphex(rdq(a, M890_REG_SW_DATA(w)), ==, 0);
    }
    /* opening twice keeps one window: one close removes it */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_OPEN, 2, key, 0), ==,
                     M890_SW_OK);
    /* EPERM: partitions differ; ENOLINK: the owner's link is down */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 2, 4, 0), ==,
                     M890_SW_OK);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_WINDOW_OPEN, 2, key, 0), ==,
                     M890_SW_EPERM);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_PARTITION, 2, 0, 0), ==,
                     M890_SW_OK);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_ADMIN, 2, 0, 0), ==,
                     M890_SW_OK);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_WINDOW_OPEN, 2, key, 0), ==,
                     M890_SW_ENOLINK);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_PORT_SET_ADMIN, 2, 1, 0), ==,
                     M890_SW_OK);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_WINDOW_OPEN, 2, key, 0), ==,
                     M890_SW_OK);

    /* one VM is one trust domain: peer access needs no window */
    g_assert_cmphex(copy_out(a, VA_PEER(1), 64), ==, Q_OK);

    /* WINDOW_CLOSE: ERANGE (fabric id, slot), ENOENT (no such window) */
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_CLOSE, 64, 5, 0), ==,
                     M890_SW_ERANGE);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_CLOSE, 2, M890_SW_EXPORTS,
                            0), ==, M890_SW_ERANGE);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_CLOSE, 2, 6, 0), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_CLOSE, 1, 5, 0), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_CLOSE, 2, 5, 0), ==,
                     M890_SW_OK);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_CLOSE, 2, 5, 0), ==,
                     M890_SW_ENOENT);

    /* EXPORT_DEL: ERANGE, revokes card 1's window, then ENOENT */
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_EXPORT_DEL, M890_SW_EXPORTS, 0, 0),
                     ==, M890_SW_ERANGE);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_EXPORT_DEL, 5, 0, 0), ==,
                     M890_SW_OK);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_WINDOW_CLOSE, 2, 5, 0), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(sw_cmd(c, M890_SW_OP_EXPORT_DEL, 5, 0, 0), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(sw_cmd(a, M890_SW_OP_WINDOW_OPEN, 2, key, 0), ==,
                     M890_SW_ENOENT);
    g_assert_cmpuint(sw_cmd(b, M890_SW_OP_EXPORT_DEL, 5, 0, 0), ==,
                     M890_SW_OK);
}

static void card_init(int i)
{
    Card *c = &cards[i];
    int q;

    c->dev = qpci_device_find(qs->pcibus, QPCI_DEVFN(4 + i, 0));
    g_assert(c->dev);
    qpci_device_enable(c->dev);
    c->bar0 = qpci_iomap(c->dev, M890_BAR_REGS, NULL);
    c->hbm = qpci_iomap(c->dev, M890_BAR_HBM, NULL);
    qpci_msix_enable(c->dev);
    setup_mmu(c);
    for (q = 0; q < NQ; q++) {
        c->ring[q] = galloc(64 << RING_ORDER);
        c->fence[q] = galloc(8);
        queue_start(c, q);
    }
}

int main(int argc, char **argv)
{
    int i, ret;

    g_test_init(&argc, &argv, NULL);
    qs = qtest_pc_boot("-machine q35 -bios bios-microvm.bin -vga none "
                       "-nodefaults "
                       "-object icn-switch,id=sw0 "
                       "-object memory-backend-ram,id=hbm0,size=16M "
                       "-object memory-backend-ram,id=hbm1,size=16M "
                       "-object memory-backend-ram,id=hbm2,size=16M "
                       "-device m890,memdev=hbm0,switch=sw0,port=0,"
                       "queues=%d,addr=04.0 "
                       "-device m890,memdev=hbm1,switch=sw0,port=1,"
                       "queues=%d,addr=05.0 "
                       "-device m890,memdev=hbm2,switch=sw0,port=2,"
                       "switch-mgmt=off,queues=%d,addr=06.0",
                       NQ, NQ, NQ);
    for (i = 0; i < NCARDS; i++) {
        card_init(i);
    }
    qtest_add_func("/m890-switch/partition", test_partition);
    qtest_add_func("/m890-switch/route", test_route);
    qtest_add_func("/m890-switch/inject", test_inject);
    qtest_add_func("/m890-switch/status-order", test_status_order);
    qtest_add_func("/m890-switch/exports", test_exports);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
