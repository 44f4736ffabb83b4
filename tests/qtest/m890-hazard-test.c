/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of the M890 command processor against device-model hazards
 *
 * One test per class of device-model failure seen in emulated devices,
 * each named after the class: DMA aimed at the card's own registers, doorbells,
 * MSI-X table and at a peer card's registers (the re-entrancy guard);
 * work that never ends (aliased page tables, self-linked tables) stays
 * bounded per run and stops on queue reset, device reset and FLR; zero
 * lengths (also COPY_ROWS and MOE_ROUTE with no rows); DMA errors raised
 * once, never retried; every guest-controlled index out of range;
 * guest-sized lengths; divisions by a zero stride or element size; every
 * access width on every region; a packet and its index/weight lists,
 * COPY_ROWS's index lists and segment tables and MOE_ROUTE's counts and
 * ids rewritten while the packet runs (read once, or as the spec says);
 * a COPY_ROWS fault that stops its queue alone while another context's
 * long packet runs on; and no stale or uninitialised data in fresh HBM
 * or read-only registers.
 *
 * Besides the common map of m890-qtest.h, card 0's ASID 0 has:
 *
 * ===========  ======================================================
 * VA_ALIAS     1 GiB, every 2 MiB page on HBM [4 MiB, 6 MiB)
 * VA_BIG       1 TiB, the same (two level-3 entries on one level-2
 *              table whose 512 entries point at one level-1 table)
 * VA_BIG2      1 TiB likewise on HBM [10 MiB, 12 MiB)
 * VA_ROWS      512 GiB: [0, 2 GiB) on HBM [6, 8) MiB, the rest on
 *              HBM [8, 10) MiB
 * VA_LOOP      level-3 entry pointing at the root table itself
 * VA_BAD       4 KiB host pages on an unassigned DMA address, the
 *              MSI-X table, a doorbell page and the peer's BAR0
 * ===========  ======================================================
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "m890-qtest.h"

#define VA_ALIAS        0x140000000ull
#define VA_BAD          0x180000000ull
#define VA_BIG          (1ull << 39)
#define VA_BIG2         (3ull << 39)
#define VA_ROWS         (5ull << 39)
#define VA_LOOP         (6ull << 39)
#define TIB             (1ull << 40)
#define HBM_ALIAS       (4 * 1024 * 1024ull)
#define HBM_ROW0        (6 * 1024 * 1024ull)
#define HBM_ROW1        (8 * 1024 * 1024ull)
#define HBM_ALIAS2      (10 * 1024 * 1024ull)
#define DMA_NOWHERE     (1ull << 46)    /* nothing decodes here */
#define BAD_NOWHERE     (VA_BAD + 0x0000)
#define BAD_MSIX        (VA_BAD + 0x1000)
#define BAD_DOORBELL    (VA_BAD + 0x2000)
#define BAD_PEER_REGS   (VA_BAD + 0x3000)
#define BAD_TABLE       (VA_BAD + 0x200000)     /* level-0 table unreadable */

static QOSState *qs;
static Card cards[2];
static uint64_t scratch;        /* 4 KiB of guest RAM for index lists */

static bool alive(Card *c)
{
    return rd(c, M890_REG_ID) == M890_ID_MAGIC;
}

static void build_hazard_map(void)
{
    Card *c = &cards[0], *peer = &cards[1];
    uint64_t l1 = pt_new(c), l2 = pt_new(c), rows = pt_new(c);
    uint64_t l1a = pt_new(c), l1b = pt_new(c), l1c = pt_new(c);
    uint64_t l2c = pt_new(c);
    unsigned int e;

    for (e = 0; e < 512; e++) {
        wq64(c, l1 + e * 8, HBM_ALIAS | PTE_HBM | M890_PTE_LARGE);
        wq64(c, l1a + e * 8, HBM_ROW0 | PTE_HBM | M890_PTE_LARGE);
        wq64(c, l1b + e * 8, HBM_ROW1 | PTE_HBM | M890_PTE_LARGE);
        wq64(c, l1c + e * 8, HBM_ALIAS2 | PTE_HBM | M890_PTE_LARGE);
        wq64(c, l2 + e * 8, l1 | M890_PTE_VALID);
        wq64(c, l2c + e * 8, l1c | M890_PTE_VALID);
        wq64(c, rows + e * 8, (e < 2 ? l1a : l1b) | M890_PTE_VALID);
    }
    pt_set(c, c->root, VA_ALIAS, 2, l1 | M890_PTE_VALID);
    pt_set(c, c->root, VA_BIG, 3, l2 | M890_PTE_VALID);
    pt_set(c, c->root, VA_BIG + TIB / 2, 3, l2 | M890_PTE_VALID);
    pt_set(c, c->root, VA_BIG2, 3, l2c | M890_PTE_VALID);
    pt_set(c, c->root, VA_BIG2 + TIB / 2, 3, l2c | M890_PTE_VALID);
    pt_set(c, c->root, VA_ROWS, 3, rows | M890_PTE_VALID);
    pt_set(c, c->root, VA_LOOP, 3, c->root | M890_PTE_VALID);
    pt_set(c, c->root, BAD_NOWHERE, 0, DMA_NOWHERE | PTE_HOST);
    pt_set(c, c->root, BAD_MSIX, 0, c->bar_addr[2] | PTE_HOST);
    pt_set(c, c->root, BAD_DOORBELL, 0,
           (c->bar_addr[0] + M890_REG_DOORBELL(0)) | PTE_HOST);
    pt_set(c, c->root, BAD_PEER_REGS, 0, peer->bar_addr[0] | PTE_HOST);
    pt_set(c, c->root, BAD_TABLE, 1, DMA_NOWHERE | M890_PTE_VALID);
    scratch = galloc(c, 4096);
}

/*
 * @q runs a packet that does not end soon: the vCPU keeps control (every
 * register read returns), the modelled clock keeps moving (the packet
 * makes progress; waits up to 5 s per step, as the copy worker shares a
 * busy host) and HEAD stays on the packet.
 */
static void assert_progressing(Card *c, int q)
{
    uint32_t head = qrd(c, q, M890_Q_HEAD);
    uint64_t t0;
    int i, j;

    for (i = 0; i < 3; i++) {
        t0 = rdq(c, M890_REG_CLOCK);
        for (j = 0; j < 5000 && rdq(c, M890_REG_CLOCK) == t0; j++) {
            g_assert(alive(c));
            g_usleep(1000);
        }
        g_assert_cmpuint(rdq(c, M890_REG_CLOCK), >, t0);
        g_assert_cmpuint(qrd(c, q, M890_Q_HEAD), ==, head);
        g_assert_cmphex(qrd(c, q, M890_Q_STATUS) & (M890_Q_STATUS_IDLE |
                        M890_Q_STATUS_ERROR), ==, 0);
    }
}

/* Nothing runs on the card: its clock stands still. */
static void assert_quiet(Card *c)
{
    uint64_t t0 = rdq(c, M890_REG_CLOCK);

    g_usleep(30000);
    g_assert_cmpuint(rdq(c, M890_REG_CLOCK), ==, t0);
}

/*
 * After a pause: the piece in flight (with the copy worker, up to 4 MiB)
 * completes, then nothing moves.  Waits up to ~1 s for the clock to stop.
 */
static void assert_settles(Card *c)
{
    uint64_t t0 = rdq(c, M890_REG_CLOCK), t1;
    int i;

    for (i = 0; i < 100; i++) {
        g_usleep(10000);
        t1 = rdq(c, M890_REG_CLOCK);
        if (t1 == t0) {
            break;
        }
        t0 = t1;
    }
    assert_quiet(c);
}

/* Poll until the card's clock passed @t (the packet started), ~5 s max. */
static void wait_clock(Card *c, uint64_t t)
{
    int i;

    for (i = 0; i < 50000 && rdq(c, M890_REG_CLOCK) < t; i++) {
        g_usleep(100);
    }
    g_assert_cmpuint(rdq(c, M890_REG_CLOCK), >=, t);
}

/* A COPY of 1 TiB between two HBM pages: 16384 runs of 64 MiB. */
static union m890_packet endless_copy(void)
{
    return copy_pkt(VA_BIG, VA_BIG2, TIB);
}

static void test_dma_self(void)
{
    Card *a = &cards[0], *b = &cards[1];
    union m890_packet p;
    uint64_t r = M890_REG_Q(1);

    hbm_set(a, 0, 0xff, 8);
    wr(a, M890_REG_SCRATCH, 0x55);

    /* packet data aimed at BAR0: blocked, the card is not reset */
    p = copy_pkt(VA_HBM, VA_REGS + M890_REG_CONTROL, 4);
    expect_error(a, 0, &p, M890_QERR_DMA);
    p = copy_pkt(VA_REGS + M890_REG_ID, VA_HBM, 4);
    expect_error(a, 0, &p, M890_QERR_DMA);
    g_assert_cmpuint(rd(a, M890_REG_SCRATCH), ==, 0x55);

    /* at its own doorbell page and its MSI-X table */
    p = copy_pkt(VA_HBM, BAD_DOORBELL, 4);
    expect_error(a, 0, &p, M890_QERR_DMA);
    g_assert_cmpuint(qrd(a, 0, M890_Q_TAIL), ==, 0);
    p = copy_pkt(VA_HBM, BAD_MSIX, 16);
    expect_error(a, 0, &p, M890_QERR_DMA);

    /* the ring itself in BAR0: the fetch fails, nothing is executed */
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    wrq(a, r + M890_Q_RING_BASE, a->bar_addr[0]);
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
    wr(a, M890_REG_DOORBELL(1), 1);
    g_assert_cmpuint(qerr(settle(a, 1)), ==, M890_QERR_DMA);
    recover(a, 1);

    /* a fence address on its own CONTROL register (value: RESET) */
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    wrq(a, r + M890_Q_FENCE_ADDR, a->bar_addr[0] + M890_REG_CONTROL);
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
    p = (union m890_packet){ 0 };
    p.fence.hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
    p.fence.value = M890_CONTROL_RESET;
    g_assert_cmpuint(qerr(run(a, 1, &p)), ==, M890_QERR_DMA);
    g_assert_cmpuint(rd(a, M890_REG_SCRATCH), ==, 0x55);
    recover(a, 1);

    /*
     * A peer card's registers are another function's BAR: a P2P write the
     * platform routes.  It reaches the peer like a CPU write would, and
     * both cards keep working.
     */
    hbm_set(a, 0, 0x77, 4);
    wr(b, M890_REG_SCRATCH, 0);
    p = copy_pkt(VA_HBM, BAD_PEER_REGS + M890_REG_SCRATCH, 4);
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);
    g_assert_cmphex(rd(b, M890_REG_SCRATCH), ==, 0x77777777);
    g_assert(alive(a) && alive(b));
    p = copy_pkt(VA_HBM, VA_HBM + 0x1000, 64);
    g_assert_cmphex(run(b, 0, &p), ==, M890T_IDLE);
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);
}

static void test_endless_work(void)
{
    Card *a = &cards[0];
    union m890_packet p = endless_copy();
    uint32_t faults = rd(a, M890_REG_MMU_FAULT_COUNT);
    uint8_t cap;

    /* queue reset between pieces */
    post(a, 0, &p);
    assert_progressing(a, 0);
    wr(a, M890_REG_Q(0) + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    g_assert_cmphex(qrd(a, 0, M890_Q_STATUS), ==, M890_Q_STATUS_IDLE);
    assert_quiet(a);
    queue_start(a, 0);

    /* pausing (ENABLE cleared) holds the packet, enabling resumes it */
    post(a, 0, &p);
    assert_progressing(a, 0);
    wr(a, M890_REG_Q(0) + M890_Q_CONTROL, 0);
    assert_settles(a);
    wr(a, M890_REG_Q(0) + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
    assert_progressing(a, 0);

    /* device reset while it runs */
    wr(a, M890_REG_CONTROL, M890_CONTROL_RESET);
    g_assert_cmphex(qrd(a, 0, M890_Q_STATUS), ==, M890_Q_STATUS_IDLE);
    assert_quiet(a);
    card_restart(a);

    /* function level reset while it runs */
    post(a, 0, &p);
    assert_progressing(a, 0);
    cap = qpci_find_capability(a->dev, PCI_CAP_ID_EXP, 0);
    g_assert_cmpuint(cap, !=, 0);
    qpci_config_writew(a->dev, cap + PCI_EXP_DEVCTL,
                       qpci_config_readw(a->dev, cap + PCI_EXP_DEVCTL) |
                       PCI_EXP_DEVCTL_BCR_FLR);
    card_enable(a);
    g_assert(alive(a));
    g_assert_cmphex(qrd(a, 0, M890_Q_STATUS), ==, M890_Q_STATUS_IDLE);
    g_assert_cmpuint(rd(a, M890_REG_MMU_CONTROL), ==, 0);
    assert_quiet(a);
    card_restart(a);

    /* the ring: a full ring of NOPs, then one packet more than fits */
    p = (union m890_packet){ 0 };
    p.hdr = M890_PKT_HDR(M890_PKT_NOP, 0);
    for (int i = 0; i < 1 << RING_ORDER; i++) {
        post(a, 0, &p);
    }
    g_assert_cmphex(settle(a, 0), ==, M890T_IDLE);
    wr(a, M890_REG_DOORBELL(0), qrd(a, 0, M890_Q_HEAD) - 1);  /* wraps */
    g_assert_cmpuint(qerr(settle(a, 0)), ==, M890_QERR_BAD_RING);
    recover(a, 0);

    /* a root entry that links to the root: the walk still ends */
    p = copy_pkt(VA_LOOP, VA_HBM, 8);
    expect_error(a, 0, &p, M890_QERR_MMU_FAULT);
    g_assert_cmpuint(rd(a, M890_REG_MMU_FAULT_COUNT), ==, faults + 1);
    g_assert_cmpuint((rd(a, M890_REG_MMU_FAULT_INFO) &
                      M890_FAULT_REASON_MASK) >> M890_FAULT_REASON_SHIFT, ==,
                     M890_FAULT_BAD_PTE);
}

/*
 * COPY_ROWS and MOE_ROUTE with nothing to move (spec 7.13, 7.14): a count
 * of 0, rows with a NONE index, a segment whose table entry is 0, SEND of
 * 0 tokens and RECV of 0 received rows touch none of the unmapped memory
 * their fields name, and write exactly the outputs the spec gives them.
 */
static void zero_rows(Card *a)
{
    uint64_t list = scratch + 2048, cnt = scratch + 2560;
    union m890_packet p = { 0 };
    int i;

    /* count 0: tables and index lists unmapped */
    p.copy_rows.hdr = M890_PKT_HDR(M890_PKT_COPY_ROWS, 0);
    p.copy_rows.row_bytes = 64;
    p.copy_rows.src = VA_NONE;
    p.copy_rows.dst = VA_NONE;
    p.copy_rows.src_idx = VA_NONE;
    p.copy_rows.dst_idx = VA_NONE;
    p.copy_rows.seg_rows = 1;
    p.copy_rows.tables = M890_ROWS_SRC_TABLE | M890_ROWS_DST_TABLE;
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);

    /* three rows whose source index is NONE: no row is touched */
    qtest_memset(qs->qts, list, 0xff, 12);
    for (i = 0; i < 3; i++) {
        qtest_writel(qs->qts, list + 16 + 4 * i, i);
    }
    p.copy_rows.src_idx = VA_HOST + list;
    p.copy_rows.dst_idx = VA_HOST + list + 16;
    p.copy_rows.count = 3;
    p.copy_rows.seg_rows = 0;
    p.copy_rows.tables = 0;
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);

    /* three rows in a destination segment whose table entry is 0 */
    wq64(a, list, 0);
    p.copy_rows.src_idx = 0;
    p.copy_rows.dst_idx = 0;
    p.copy_rows.dst = VA_HOST + list;
    p.copy_rows.seg_rows = 4;
    p.copy_rows.tables = M890_ROWS_DST_TABLE;
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);

    /* SEND of 0 tokens: ids and combine_idx unread; lists NONE, counts */
    qtest_memset(qs->qts, list, 0, 32);
    qtest_memset(qs->qts, cnt, 0, 16);
    p = (union m890_packet){ 0 };
    p.moe_route.hdr = M890_PKT_HDR(M890_PKT_MOE_ROUTE, 0);
    p.moe_route.mode = M890_ROUTE_SEND;
    p.moe_route.k = 4;
    p.moe_route.my_rank = 1;
    p.moe_route.ids = VA_NONE;
    p.moe_route.tmax = 2;
    p.moe_route.ranks = 2;
    p.moe_route.experts_per_rank = 8;
    p.moe_route.tag = 0x1234;
    p.moe_route.out0 = VA_HOST + list;
    p.moe_route.out1 = VA_HOST + list + 16;
    p.moe_route.out2 = VA_HOST + cnt;
    p.moe_route.out3 = VA_NONE;
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);
    for (i = 0; i < 8; i++) {
        g_assert_cmphex(qtest_readl(qs->qts, list + 4 * i), ==,
                        M890_INDEX_NONE);
    }
    g_assert_cmphex(qtest_readq(qs->qts, cnt), ==, 0x1234ull << 32);
    g_assert_cmphex(qtest_readq(qs->qts, cnt + 8), ==, 0x1234ull << 32);

    /*
     * RECV of 0 rows from each source (high halves ignored): the meta
     * table and the expert lists unmapped; expert_count reads 0.
     */
    qtest_memset(qs->qts, list, 0xee, 12);
    qtest_writeq(qs->qts, cnt, 0xabcd00000000ull);
    qtest_writeq(qs->qts, cnt + 8, 1ull << 32);
    p.moe_route.mode = M890_ROUTE_RECV;
    p.moe_route.experts_per_rank = 2;
    p.moe_route.cap = 2;
    p.moe_route.out0 = VA_HOST + list;
    p.moe_route.out1 = VA_NONE;
    p.moe_route.out2 = VA_NONE;
    p.moe_route.out3 = VA_HOST + cnt;
    g_assert_cmphex(run(a, 0, &p), ==, M890T_IDLE);
    g_assert_cmphex(qtest_readl(qs->qts, list), ==, 0);
    g_assert_cmphex(qtest_readl(qs->qts, list + 4), ==, 0);
    g_assert_cmphex(qtest_readl(qs->qts, list + 8), ==, 0xeeeeeeee);
    queue_start(a, 0);
}

static void test_zero_lengths(void)
{
    Card *a = &cards[0];
    union m890_packet p[6] = { { 0 } };
    int i;

    p[0] = copy_pkt(VA_NONE, VA_NONE, 0);
    p[1].copy_2d.hdr = M890_PKT_HDR(M890_PKT_COPY_2D, 0);
    p[1].copy_2d.src = VA_NONE;
    p[1].copy_2d.dst = VA_NONE;
    p[1].copy_2d.height = 0xffffffff;           /* width 0, pitches 0 */
    p[2].fill.hdr = M890_PKT_HDR(M890_PKT_FILL, 0);
    p[2].fill.dst = VA_NONE;
    p[3].gather.hdr = M890_PKT_HDR(M890_PKT_SCATTER, 0);
    p[3].gather.row_bytes = 1;
    p[3].gather.src = VA_NONE;
    p[3].gather.idx = VA_NONE;
    p[4].reduce.hdr = M890_PKT_HDR(M890_PKT_REDUCE, 0);
    p[4].reduce.k = 64;
    p[4].reduce.rows = 0xffffffff;              /* hidden 0 */
    p[4].reduce.src = VA_NONE;
    p[5].mx.hdr = M890_PKT_HDR(M890_PKT_MX_QUANT, 0);
    p[5].mx.mx_dtype = M890_DTYPE_MXFP8;
    p[5].mx.src = VA_NONE;
    for (i = 0; i < 6; i++) {
        g_assert_cmphex(run(a, 0, &p[i]), ==, M890T_IDLE);
    }
    g_assert_cmpuint(qrd(a, 0, M890_Q_HEAD), ==, 6);
    queue_start(a, 0);
    zero_rows(a);
}

static void test_dma_errors(void)
{
    Card *a = &cards[0];
    union m890_packet p = copy_pkt(BAD_NOWHERE, VA_HBM, 64);
    uint32_t faults = rd(a, M890_REG_MMU_FAULT_COUNT), evt;
    uint64_t r = M890_REG_Q(1);

    /* a host page that nothing decodes: DMA error, raised once */
    post(a, 0, &p);
    g_assert_cmpuint(qerr(settle(a, 0)), ==, M890_QERR_DMA);
    wr(a, M890_REG_EVT_STATUS, M890_EVT_QUEUE_ERROR);
    assert_quiet(a);
    evt = rd(a, M890_REG_EVT_STATUS);
    g_assert_cmphex(evt & M890_EVT_QUEUE_ERROR, ==, 0);    /* not retried */
    g_assert_cmpuint(qrd(a, 0, M890_Q_HEAD), ==, 0);
    g_assert_cmpuint(rd(a, M890_REG_MMU_FAULT_COUNT), ==, faults);
    recover(a, 0);
    p = copy_pkt(VA_HBM, BAD_NOWHERE, 64);
    expect_error(a, 0, &p, M890_QERR_DMA);

    /* a ring that cannot be read */
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    wrq(a, r + M890_Q_RING_BASE, DMA_NOWHERE);
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
    wr(a, M890_REG_DOORBELL(1), 3);
    g_assert_cmpuint(qerr(settle(a, 1)), ==, M890_QERR_DMA);
    g_assert_cmpuint(qrd(a, 1, M890_Q_HEAD), ==, 0);
    recover(a, 1);

    /* a fence address that cannot be written */
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    wrq(a, r + M890_Q_FENCE_ADDR, DMA_NOWHERE);
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
    p = (union m890_packet){ 0 };
    p.fence.hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
    p.fence.value = 1;
    g_assert_cmpuint(qerr(run(a, 1, &p)), ==, M890_QERR_DMA);
    g_assert_cmpuint(rdq(a, r + M890_Q_FENCE_VALUE), ==, 0);
    recover(a, 1);

    /* a page table that cannot be read is a fault, not a DMA error */
    p = copy_pkt(BAD_TABLE, VA_HBM, 8);
    expect_error(a, 0, &p, M890_QERR_MMU_FAULT);
    g_assert_cmphex(rd(a, M890_REG_MMU_FAULT_INFO), ==,
                    M890_FAULT_TABLE_DMA << M890_FAULT_REASON_SHIFT);
    g_assert_cmpuint(rd(a, M890_REG_MMU_FAULT_COUNT), ==, faults + 1);
}

static void test_index_bounds(void)
{
    Card *a = &cards[0];
    union m890_packet p = { 0 };
    static const uint32_t ops[] = { 0x10, 0x11, 0x7f, 0xff };
    uint64_t r;
    unsigned int i;

    /* queue ids: beyond NUM_QUEUES, beyond 64, doorbell pages and offsets */
    for (r = M890_REG_Q(M890T_NQ); r < M890_REG_SW_CMD; r += 4) {
        wr(a, r, 0xffffffff);
        g_assert_cmphex(rd(a, r), ==, 0);
    }
    for (i = M890T_NQ; i < 128; i++) {      /* up to the end of BAR0 */
        wr(a, M890_REG_DOORBELL_BASE + i * M890_REG_DOORBELL_STRIDE, 1);
    }
    wr(a, M890_REG_DOORBELL(0) + 4, 1);
    wr(a, M890_REG_DOORBELL(0) + 0xffc, 1);
    g_assert_cmpuint(qrd(a, 0, M890_Q_TAIL), ==, 0);
    g_assert(alive(a));

    /* switch ports >= 64 */
    for (i = 64; i < 256; i += 63) {
        wr(a, M890_REG_SW_CMD, M890_SW_OP_PORT_GET | i << 8);
        g_assert_cmpuint(rd(a, M890_REG_SW_STATUS), ==, M890_SW_ERANGE);
        wr(a, M890_REG_SW_CMD, M890_SW_OP_PORT_SET_ADMIN | i << 8);
        g_assert_cmpuint(rd(a, M890_REG_SW_STATUS), ==, M890_SW_ERANGE);
        wr(a, M890_REG_SW_CMD, M890_SW_OP_PORT_CLEAR | i << 8);
        g_assert_cmpuint(rd(a, M890_REG_SW_STATUS), ==, M890_SW_ERANGE);
    }

    /* MSI-X vectors past the table */
    p.fence.hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
    p.fence.flags = M890_FENCE_F_IRQ;
    for (i = 0; i < 3; i++) {
        static const uint32_t vec[] = { 1 + M890T_NQ, 65, 0xffffffff };

        wr(a, M890_REG_Q(2) + M890_Q_CONTROL, 0);
        wr(a, M890_REG_Q(2) + M890_Q_MSIX_VECTOR, vec[i]);
        wr(a, M890_REG_Q(2) + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
        p.fence.value = i + 1;
        g_assert_cmphex(run(a, 2, &p), ==, M890T_IDLE);
    }
    queue_start(a, 2);

    /* opcodes (the engine selector) and enum fields */
    for (i = 0; i < G_N_ELEMENTS(ops); i++) {
        p = (union m890_packet){ 0 };
        p.hdr = ops[i];
        expect_error(a, 0, &p, M890_QERR_BAD_OPCODE);
    }
    p = (union m890_packet){ 0 };
    p.signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
    p.signal.op = 2;
    p.signal.addr = VA_HBM;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = (union m890_packet){ 0 };
    p.wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
    p.wait.cond = 0xffffffff;
    p.wait.addr = VA_HBM;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = (union m890_packet){ 0 };
    p.reduce.hdr = M890_PKT_HDR(M890_PKT_REDUCE, 0);
    p.reduce.dtype = 0xff;
    p.reduce.k = 1;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p.reduce.dtype = M890_DTYPE_FP32;
    p.reduce.k = 65;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = (union m890_packet){ 0 };
    p.mx.hdr = M890_PKT_HDR(M890_PKT_MX_DEQUANT, 0);
    p.mx.mx_dtype = M890_DTYPE_FP32;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);

    /* ASIDs: above 65535, at or above MMU_CTX_COUNT; MMU_CTX_COUNT clamped */
    p = copy_pkt(VA_HBM, VA_HBM + 64, 8);
    queue_start_asid(a, 3, 0x10000);
    g_assert_cmpuint(qerr(run(a, 3, &p)), ==, M890_QERR_MMU_FAULT);
    g_assert_cmphex(rd(a, M890_REG_MMU_FAULT_INFO) & M890_FAULT_REASON_MASK,
                    ==, M890_FAULT_CTX_INVALID << M890_FAULT_REASON_SHIFT);
    queue_start_asid(a, 3, 1);
    g_assert_cmpuint(qerr(run(a, 3, &p)), ==, M890_QERR_MMU_FAULT);
    g_assert_cmphex(rd(a, M890_REG_MMU_FAULT_INFO), ==,
                    1 | M890_FAULT_CTX_INVALID << M890_FAULT_REASON_SHIFT |
                    3 << M890_FAULT_QUEUE_SHIFT);
    wr(a, M890_REG_MMU_CTX_COUNT, 0xffffffff);
    g_assert_cmpuint(rd(a, M890_REG_MMU_CTX_COUNT), ==,
                     rd(a, M890_REG_NUM_CTX));
    wr(a, M890_REG_MMU_CTX_COUNT, 1);
    wr(a, M890_REG_EVT_STATUS, M890_EVT_QUEUE_ERROR | M890_EVT_MMU_FAULT);
    wr(a, M890_REG_QERR_STATUS, 1u << 3);
    queue_start(a, 3);

    /* a peer PTE naming fabric id 63, where no card is cabled */
    pt_set(a, a->root, VA_BAD + 0x4000, 0, PTE_PEER(63));
    p = copy_pkt(VA_HBM, VA_BAD + 0x4000, 8);
    expect_error(a, 0, &p, M890_QERR_FABRIC);
}

static void test_guest_sizes(void)
{
    Card *a = &cards[0];
    union m890_packet p = { 0 };
    uint64_t r = M890_REG_Q(1), big_ring = galloc(a, 64 << 16);

    /* the largest ring (65536 slots) works; nothing is sized by it */
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    wrq(a, r + M890_Q_RING_BASE, big_ring);
    wr(a, r + M890_Q_RING_ORDER, 16);
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
    qtest_memset(qs->qts, big_ring, 0, 64 << 16);       /* NOPs */
    wr(a, M890_REG_DOORBELL(1), 65536);
    g_assert(alive(a));
    g_assert_cmphex(settle(a, 1), ==, M890T_IDLE);
    g_assert_cmpuint(qrd(a, 1, M890_Q_HEAD), ==, 65536);
    wr(a, r + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    queue_start(a, 1);

    /* a 16 GiB REDUCE row (hidden = 2^32 - 1, k = 64) runs in pieces */
    for (int j = 0; j < 64; j++) {
        qtest_writel(qs->qts, scratch + 4 * j, j & 1 ? M890_INDEX_NONE : 0);
        qtest_writel(qs->qts, scratch + 256 + 4 * j, 0x3f800000);
    }
    p.reduce.hdr = M890_PKT_HDR(M890_PKT_REDUCE, 0);
    p.reduce.dtype = M890_DTYPE_FP32;
    p.reduce.k = 64;
    p.reduce.src = VA_BIG;
    p.reduce.dst = VA_BIG2;
    p.reduce.idx = VA_HOST + scratch;
    p.reduce.weight = VA_HOST + scratch + 256;
    p.reduce.rows = 1;
    p.reduce.hidden = 0xffffffff;
    post(a, 0, &p);
    assert_progressing(a, 0);
    wr(a, M890_REG_Q(0) + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    assert_quiet(a);
    queue_start(a, 0);

    /* MX over 2^40 elements, the longest length a packet may have */
    p = (union m890_packet){ 0 };
    p.mx.hdr = M890_PKT_HDR(M890_PKT_MX_QUANT, 0);
    p.mx.mx_dtype = M890_DTYPE_MXFP4;
    p.mx.src_dtype = M890_DTYPE_BF16;
    p.mx.src = VA_BIG;
    p.mx.dst = VA_BIG;
    p.mx.scale = VA_BIG;
    p.mx.count = 1ull << 40;
    post(a, 0, &p);
    g_assert(alive(a));
    wr(a, M890_REG_Q(0) + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    assert_quiet(a);
    queue_start(a, 0);
}

static void test_div_zero(void)
{
    Card *a = &cards[0];
    union m890_packet p = { 0 };

    p.gather.hdr = M890_PKT_HDR(M890_PKT_GATHER, 0);
    p.gather.count = 5;                         /* row_bytes 0 */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = (union m890_packet){ 0 };
    p.copy_2d.hdr = M890_PKT_HDR(M890_PKT_COPY_2D, 0);
    p.copy_2d.width = 5;                        /* pitches 0 */
    p.copy_2d.height = 3;
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);
    p = (union m890_packet){ 0 };
    p.mx.hdr = M890_PKT_HDR(M890_PKT_MX_QUANT, 0);
    p.mx.mx_dtype = M890_DTYPE_MXFP4;
    p.mx.count = 31;                            /* not whole blocks */
    expect_error(a, 0, &p, M890_QERR_BAD_FIELD);

    /* ring orders 0 and 31: no slot size of zero or shifts past 32 bits */
    for (int o = 0; o < 32; o += 31) {
        wr(a, M890_REG_Q(1) + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
        wr(a, M890_REG_Q(1) + M890_Q_RING_ORDER, o);
        wr(a, M890_REG_Q(1) + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
        g_assert_cmpuint(qerr(qrd(a, 1, M890_Q_STATUS)), ==,
                         M890_QERR_BAD_RING);
        recover(a, 1);
    }
}

static void test_widths(void)
{
    Card *a = &cards[0];
    static const uint64_t regs[] = {
        M890_REG_ID, M890_REG_SCRATCH, M890_REG_CLOCK, M890_REG_MMU_CTX_BASE,
        M890_REG_Q(0) + M890_Q_STATUS, M890_REG_Q(M890T_NQ),
        M890_REG_SW_DATA(0), M890_REG_DOORBELL(0), 0x6000, 0xffff0,
    };
    QPCIBar msix = a->dev->msix_table_bar;
    unsigned int i, off;
    uint64_t v;

    wr(a, M890_REG_SCRATCH, 0x11223344);
    for (i = 0; i < G_N_ELEMENTS(regs); i++) {
        for (off = 0; off < 8; off++) {
            /* 1- and 2-byte and misaligned accesses: ignored, read 0 */
            g_assert_cmphex(qpci_io_readb(a->dev, a->bar0, regs[i] + off),
                            ==, 0);
            g_assert_cmphex(qpci_io_readw(a->dev, a->bar0, regs[i] + off),
                            ==, 0);
            qpci_io_writeb(a->dev, a->bar0, regs[i] + off, 0xa5);
            qpci_io_writew(a->dev, a->bar0, regs[i] + off, 0xa5a5);
            if (off & 3) {
                g_assert_cmphex(qpci_io_readl(a->dev, a->bar0,
                                              regs[i] + off), ==, 0);
                qpci_io_writel(a->dev, a->bar0, regs[i] + off, 0xa5a5a5a5);
            }
        }
    }
    g_assert_cmphex(rd(a, M890_REG_SCRATCH), ==, 0x11223344);
    g_assert_cmphex(qrd(a, 0, M890_Q_TAIL), ==, 0);
    /* 8 bytes are two 4-byte accesses: SCRATCH, then CLOCK (read-only) */
    v = rdq(a, M890_REG_SCRATCH);
    g_assert_cmphex((uint32_t)v, ==, 0x11223344);
    wrq(a, M890_REG_SCRATCH, 0xffffffff99887766ull);
    g_assert_cmphex(rd(a, M890_REG_SCRATCH), ==, 0x99887766);
    g_assert_cmphex(rdq(a, M890_REG_ID), ==,
                    (uint64_t)M890_SPEC_VERSION << 32 | M890_ID_MAGIC);
    g_assert_cmphex(rdq(a, M890_REG_DOORBELL(0)), ==, 0);

    /* HBM: any width at any alignment */
    for (off = 0; off < 8; off++) {
        qpci_io_writeb(a->dev, a->hbm, 0x3000 + off, 0x5a);
        g_assert_cmphex(qpci_io_readb(a->dev, a->hbm, 0x3000 + off), ==,
                        0x5a);
        qpci_io_writew(a->dev, a->hbm, 0x3100 + off, 0x1234);
        g_assert_cmphex(qpci_io_readw(a->dev, a->hbm, 0x3100 + off), ==,
                        0x1234);
        qpci_io_writel(a->dev, a->hbm, 0x3200 + off, 0x12345678);
        g_assert_cmphex(qpci_io_readl(a->dev, a->hbm, 0x3200 + off), ==,
                        0x12345678);
        qpci_io_writeq(a->dev, a->hbm, 0x3300 + off, 0x1122334455667788ull);
        g_assert_cmphex(qpci_io_readq(a->dev, a->hbm, 0x3300 + off), ==,
                        0x1122334455667788ull);
    }

    /* the MSI-X table and PBA: every width, the card stays sane */
    for (off = 0; off < 16; off++) {
        uint64_t t = a->dev->msix_table_off + 16 + off;

        qpci_io_readb(a->dev, msix, t);
        qpci_io_readw(a->dev, msix, t);
        qpci_io_readl(a->dev, msix, t);
        qpci_io_readq(a->dev, msix, t);
        qpci_io_readq(a->dev, a->dev->msix_pba_bar,
                      a->dev->msix_pba_off + off);
    }
    qpci_io_writeb(a->dev, msix, a->dev->msix_table_off + 16 * 63, 1);
    qpci_io_writew(a->dev, msix, a->dev->msix_table_off + 16 * 63 + 2, 1);
    qpci_io_writeq(a->dev, a->dev->msix_pba_bar, a->dev->msix_pba_off, ~0ull);
    g_assert(alive(a));
}

static void test_read_twice(void)
{
    Card *a = &cards[0];
    union m890_packet p = endless_copy(), bad = { 0 };
    uint32_t head;
    uint64_t slot = a->ring[0], t0;

    /* the slot is read once: rewriting it while the packet runs is moot */
    post(a, 0, &p);
    assert_progressing(a, 0);
    bad.hdr = 0xff;
    qtest_memwrite(qs->qts, slot, &bad, sizeof(bad));
    assert_progressing(a, 0);
    wr(a, M890_REG_Q(0) + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    queue_start(a, 0);

    /*
     * GATHER of one 2 GiB row: rows 0 and 1 of VA_ROWS read 0x11 and
     * 0x22.  The index changes from 0 to 1 after the first run; every
     * piece of the row still comes from row 0.
     */
    hbm_set(a, HBM_ROW0, 0x11, MIB2);
    hbm_set(a, HBM_ROW1, 0x22, MIB2);
    hbm_set(a, HBM_ALIAS, 0, MIB2);
    qtest_writel(qs->qts, scratch, 0);
    p = (union m890_packet){ 0 };
    p.gather.hdr = M890_PKT_HDR(M890_PKT_GATHER, 0);
    p.gather.row_bytes = 0x80000000u;
    p.gather.src = VA_ROWS;
    p.gather.dst = VA_BIG;
    p.gather.idx = VA_HOST + scratch;
    p.gather.count = 1;
    t0 = rdq(a, M890_REG_CLOCK);
    post(a, 0, &p);
    wait_clock(a, t0 + 1000);
    qtest_writel(qs->qts, scratch, 1);
    head = qrd(a, 0, M890_Q_HEAD);
    g_assert_cmphex(settle(a, 0), ==, M890T_IDLE);
    if (head) {
        g_test_message("GATHER ended before its index changed");
    }
    g_assert(hbm_is(a, HBM_ALIAS, 0x11, MIB2));

    /*
     * REDUCE of one 512 MiB fp32 row, weight 1.0 changed to 2.0 after the
     * first run: all pieces use 1.0, so the output equals the input.
     */
    hbm_set(a, HBM_ALIAS, 0, MIB2);
    qtest_writel(qs->qts, scratch, 0);
    qtest_writel(qs->qts, scratch + 4, 0x3f800000);
    p = (union m890_packet){ 0 };
    p.reduce.hdr = M890_PKT_HDR(M890_PKT_REDUCE, 0);
    p.reduce.dtype = M890_DTYPE_FP32;
    p.reduce.k = 1;
    p.reduce.src = VA_ROWS;
    p.reduce.dst = VA_BIG;
    p.reduce.idx = VA_HOST + scratch;
    p.reduce.weight = VA_HOST + scratch + 4;
    p.reduce.rows = 1;
    p.reduce.hidden = 1u << 27;
    t0 = rdq(a, M890_REG_CLOCK);
    post(a, 0, &p);
    wait_clock(a, t0 + 1000);
    qtest_writel(qs->qts, scratch + 4, 0x40000000);
    head = qrd(a, 0, M890_Q_HEAD);
    g_assert_cmphex(settle(a, 0), ==, M890T_IDLE);
    if (head == 2) {
        g_test_message("REDUCE ended before its weight changed");
    }
    g_assert(hbm_is(a, HBM_ALIAS, 0x11, MIB2));
    queue_start(a, 0);
}

#define BF16_1          0x3f80
#define BF16_2          0x4000
#define BF16_8          0x4100
#define BF16_16         0x4180
#define BF16_128        0x4300

/* Fill @n HBM bytes at @off with the 16-bit value @v. */
static void hbm_fill16(Card *c, uint64_t off, uint16_t v, size_t n)
{
    g_autofree uint16_t *buf = g_malloc(n);
    size_t i;

    for (i = 0; i < n / 2; i++) {
        buf[i] = cpu_to_le16(v);
    }
    qpci_memwrite(c->dev, c->hbm, off, buf, n);
}

/* True if the @n HBM bytes at @off are all the 16-bit value @v. */
static bool hbm_is16(Card *c, uint64_t off, uint16_t v, size_t n)
{
    g_autofree uint16_t *buf = g_malloc(n);
    size_t i;

    qpci_memread(c->dev, c->hbm, off, buf, n);
    for (i = 0; i < n / 2; i++) {
        if (le16_to_cpu(buf[i]) != v) {
            g_test_message("HBM 0x%" PRIx64 ": 0x%04x, want 0x%04x",
                           (uint64_t)(off + 2 * i), le16_to_cpu(buf[i]), v);
            return false;
        }
    }
    return true;
}

/*
 * A COPY_ROWS ADD of @count BF16 rows of 16 MiB, the longest row: 8 Mi
 * elements, so 16 runs per row (§4.3: 512 Ki elements per run).
 */
static union m890_packet add_rows(uint64_t src, uint64_t dst, uint32_t count)
{
    union m890_packet p = { 0 };

    p.copy_rows.hdr = M890_PKT_HDR(M890_PKT_COPY_ROWS, 0);
    p.copy_rows.row_bytes = M890_ROWS_MAX;
    p.copy_rows.src = src;
    p.copy_rows.dst = dst;
    p.copy_rows.count = count;
    p.copy_rows.op = M890_ROWS_ADD;
    p.copy_rows.dtype = M890_DTYPE_BF16;
    return p;
}

/* A COPY_ROWS COPY of 4 rows of 64 bytes, no lists. */
static union m890_packet small_rows(uint64_t src, uint64_t dst)
{
    union m890_packet p = { 0 };

    p.copy_rows.hdr = M890_PKT_HDR(M890_PKT_COPY_ROWS, 0);
    p.copy_rows.row_bytes = 64;
    p.copy_rows.src = src;
    p.copy_rows.dst = dst;
    p.copy_rows.count = 4;
    return p;
}

/* Poll (up to ~5 s) until the guest RAM word at @addr is no longer @was. */
static void wait_changed(uint64_t addr, uint64_t was, bool quad)
{
    int i;

    for (i = 0; i < 50000; i++) {
        if ((quad ? qtest_readq(qs->qts, addr) :
             qtest_readl(qs->qts, addr)) != was) {
            return;
        }
        g_usleep(100);
    }
    g_assert_not_reached();
}

/*
 * COPY_ROWS reads each index once, when its row starts, and each table
 * entry once per packet (§7.13): rows 0 and 128 of VA_ROWS hold BF16 1.0
 * and 2.0; a row of VA_BIG adds onto HBM_ALIAS eight times over, one at
 * VA_BIG2 onto HBM_ALIAS2.  MOE_ROUTE RECV reads its receive counts once,
 * when it starts; SEND reads its ids twice, and ids changed between the
 * passes leave every entry inside its list and every row number below
 * ranks * tmax (§7.14).
 */
#define RECV_ROWS       (1u << 18)      /* 16 runs of 16384 rows */
#define SEND_TOKENS     (1u << 17)      /* 8 runs per pass */
#define HBM_WEIGHTS     (12 * 1024 * 1024ull)
#define GUARD           4096

static void test_rows_read_once(void)
{
    Card *a = &cards[0];
    uint64_t lists = 2ull * SEND_TOKENS, t0, v;
    uint64_t rows = galloc(a, RECV_ROWS * 4);
    uint64_t ids = galloc(a, SEND_TOKENS * 4);
    uint64_t out = galloc(a, 3 * GUARD + 2 * lists * 4);
    uint64_t comb = galloc(a, SEND_TOKENS * 4 + GUARD);
    uint64_t cnt = scratch + 256, ecount = scratch + 272;
    g_autofree uint32_t *buf = g_malloc(RECV_ROWS * 8);
    g_autofree uint8_t *guard = g_malloc(GUARD);
    g_autofree uint8_t *got = g_malloc(GUARD);
    union m890_packet p;
    uint32_t idx[2], head, e, src, dst;
    float w;
    uint64_t i;

    /* the index lists: row 0 -> row 0, rewritten to 128 -> 65536 */
    hbm_fill16(a, HBM_ROW0, BF16_1, MIB2);
    hbm_fill16(a, HBM_ROW1, BF16_2, MIB2);
    hbm_set(a, HBM_ALIAS, 0, MIB2);
    hbm_set(a, HBM_ALIAS2, 0, MIB2);
    idx[0] = idx[1] = 0;
    qtest_memwrite(qs->qts, scratch, idx, sizeof(idx));
    p = add_rows(VA_ROWS, VA_BIG, 1);
    p.copy_rows.src_idx = VA_HOST + scratch;
    p.copy_rows.dst_idx = VA_HOST + scratch + 4;
    head = qrd(a, 0, M890_Q_HEAD);
    t0 = rdq(a, M890_REG_CLOCK);
    post(a, 0, &p);
    wait_clock(a, t0 + 500);
    idx[0] = cpu_to_le32(2 * GIB / M890_ROWS_MAX);
    idx[1] = cpu_to_le32((VA_BIG2 - VA_BIG) / M890_ROWS_MAX);
    qtest_memwrite(qs->qts, scratch, idx, sizeof(idx));
    if (qrd(a, 0, M890_Q_HEAD) != head) {
        g_test_message("COPY_ROWS ended before its indices changed");
    }
    g_assert_cmphex(settle(a, 0), ==, M890T_IDLE);
    g_assert(hbm_is16(a, HBM_ALIAS, BF16_8, MIB2));
    g_assert(hbm_is(a, HBM_ALIAS2, 0, MIB2));

    /* both tables, two rows of segment 0: entries changed during row 0 */
    hbm_set(a, HBM_ALIAS, 0, MIB2);
    wq64(a, scratch + 64, VA_ROWS);
    wq64(a, scratch + 128, VA_BIG);
    p = add_rows(VA_HOST + scratch + 64, VA_HOST + scratch + 128, 2);
    p.copy_rows.seg_rows = 2;
    p.copy_rows.tables = M890_ROWS_SRC_TABLE | M890_ROWS_DST_TABLE;
    head = qrd(a, 0, M890_Q_HEAD);
    t0 = rdq(a, M890_REG_CLOCK);
    post(a, 0, &p);
    wait_clock(a, t0 + 500);
    wq64(a, scratch + 64, VA_ROWS + 2 * GIB);
    wq64(a, scratch + 128, VA_BIG2);
    if (qrd(a, 0, M890_Q_HEAD) != head) {
        g_test_message("COPY_ROWS ended before its tables changed");
    }
    g_assert_cmphex(settle(a, 0), ==, M890T_IDLE);
    g_assert(hbm_is16(a, HBM_ALIAS, BF16_16, MIB2));
    g_assert(hbm_is(a, HBM_ALIAS2, 0, MIB2));

    /*
     * RECV of RECV_ROWS rows of one source, all for expert 0, row r of
     * weight r: the count changes to 1 once row 0 is in the list.
     */
    for (i = 0; i < RECV_ROWS; i++) {
        w = i;
        buf[2 * i] = 0;
        memcpy(&buf[2 * i + 1], &w, 4);
    }
    qpci_memwrite(a->dev, a->hbm, HBM_ALIAS, buf, RECV_ROWS * 8);
    qtest_memset(qs->qts, rows, 0xee, RECV_ROWS * 4);
    hbm_set(a, HBM_WEIGHTS, 0xee, RECV_ROWS * 4);
    qtest_writel(qs->qts, ecount, 0xeeeeeeee);
    qtest_writeq(qs->qts, cnt, 0xfeed00000000ull | RECV_ROWS);
    p = (union m890_packet){ 0 };
    p.moe_route.hdr = M890_PKT_HDR(M890_PKT_MOE_ROUTE, 0);
    p.moe_route.mode = M890_ROUTE_RECV;
    p.moe_route.k = 1;
    p.moe_route.ids = VA_HBM + HBM_ALIAS;
    p.moe_route.tmax = RECV_ROWS;
    p.moe_route.ranks = 1;
    p.moe_route.experts_per_rank = 1;
    p.moe_route.cap = RECV_ROWS;
    p.moe_route.out0 = VA_HOST + ecount;
    p.moe_route.out1 = VA_HOST + rows;
    p.moe_route.out2 = VA_HBM + HBM_WEIGHTS;
    p.moe_route.out3 = VA_HOST + cnt;
    head = qrd(a, 0, M890_Q_HEAD);
    post(a, 0, &p);
    wait_changed(rows, 0xeeeeeeee, false);
    qtest_writeq(qs->qts, cnt, 1);
    if (qrd(a, 0, M890_Q_HEAD) != head) {
        g_test_message("RECV ended before its counts changed");
    }
    g_assert_cmphex(settle(a, 0), ==, M890T_IDLE);
    g_assert_cmpuint(qtest_readl(qs->qts, ecount), ==, RECV_ROWS);
    qtest_memread(qs->qts, rows, buf, RECV_ROWS * 4);
    for (i = 0; i < RECV_ROWS; i++) {
        g_assert_cmpuint(le32_to_cpu(buf[i]), ==, i);
    }
    qpci_memread(a->dev, a->hbm, HBM_WEIGHTS, buf, RECV_ROWS * 4);
    for (i = 0; i < RECV_ROWS; i++) {
        w = i;
        memcpy(&e, &w, 4);
        g_assert_cmphex(le32_to_cpu(buf[i]), ==, e);
    }

    /*
     * SEND of SEND_TOKENS tokens, each to expert 1 on rank 1 of 2; once
     * pass 1 wrote dest_count, every id becomes expert 0 (rank 0, whose
     * block pass 1 made empty).  The lists start as NONE between guards.
     */
    for (i = 0; i < SEND_TOKENS; i++) {
        buf[i] = cpu_to_le32(1);
    }
    qtest_memwrite(qs->qts, ids, buf, SEND_TOKENS * 4);
    qtest_memset(qs->qts, out, 0xa5, 3 * GUARD + 2 * lists * 4);
    qtest_memset(qs->qts, out + GUARD, 0xff, lists * 4);
    qtest_memset(qs->qts, out + 2 * GUARD + lists * 4, 0xff, lists * 4);
    qtest_memset(qs->qts, comb, 0xa5, SEND_TOKENS * 4 + GUARD);
    qtest_writeq(qs->qts, cnt, ~0ull);
    qtest_writeq(qs->qts, cnt + 8, ~0ull);
    p = (union m890_packet){ 0 };
    p.moe_route.hdr = M890_PKT_HDR(M890_PKT_MOE_ROUTE, 0);
    p.moe_route.mode = M890_ROUTE_SEND;
    p.moe_route.k = 1;
    p.moe_route.ids = VA_HOST + ids;
    p.moe_route.tokens = SEND_TOKENS;
    p.moe_route.tmax = SEND_TOKENS;
    p.moe_route.ranks = 2;
    p.moe_route.experts_per_rank = 1;
    p.moe_route.tag = 7;
    p.moe_route.out0 = VA_HOST + out + GUARD;
    p.moe_route.out1 = VA_HOST + out + 2 * GUARD + lists * 4;
    p.moe_route.out2 = VA_HOST + cnt;
    p.moe_route.out3 = VA_HOST + comb;
    head = qrd(a, 0, M890_Q_HEAD);
    post(a, 0, &p);
    wait_changed(cnt + 8, ~0ull, true);
    qtest_memset(qs->qts, ids, 0, SEND_TOKENS * 4);
    if (qrd(a, 0, M890_Q_HEAD) != head) {
        g_test_message("SEND ended before its ids changed");
    }
    g_assert_cmphex(settle(a, 0), ==, M890T_IDLE);

    /* pass 1 saw the old ids: its counts and the NONE tail are exact */
    g_assert_cmphex(qtest_readq(qs->qts, cnt), ==, 7ull << 32);
    g_assert_cmphex(qtest_readq(qs->qts, cnt + 8), ==,
                    7ull << 32 | SEND_TOKENS);
    memset(guard, 0xa5, GUARD);
    for (i = 0; i < 4; i++) {
        qtest_memread(qs->qts, i < 3 ? out + i * (GUARD + lists * 4) :
                      comb + SEND_TOKENS * 4, got, GUARD);
        g_assert(!memcmp(got, guard, GUARD));
    }
    /* pass 2: every entry NONE or a token and a row inside the lists */
    qtest_memread(qs->qts, out + GUARD, buf, lists * 4);
    qtest_memread(qs->qts, out + 2 * GUARD + lists * 4, buf + lists,
                  lists * 4);
    for (i = 0; i < lists; i++) {
        src = le32_to_cpu(buf[i]);
        dst = le32_to_cpu(buf[lists + i]);
        if (i >= SEND_TOKENS) {
            g_assert_cmphex(src, ==, M890_INDEX_NONE);
            g_assert_cmphex(dst, ==, M890_INDEX_NONE);
        } else if (src != M890_INDEX_NONE) {
            g_assert_cmpuint(src, <, SEND_TOKENS);
            g_assert_cmpuint(dst, <, lists);
        }
    }
    qtest_memread(qs->qts, comb, buf, SEND_TOKENS * 4);
    for (i = 0; i < SEND_TOKENS; i++) {
        v = le32_to_cpu(buf[i]);
        if (v != M890_INDEX_NONE) {
            g_assert_cmpuint(v, <, lists);
        }
    }
    queue_start(a, 0);
}

#define VA1_SRC         VA_ALIAS                /* ASID 1: on HBM_ROW0 */
#define VA1_DST         (VA_ALIAS + GIB)        /* ASID 1: on HBM_ALIAS2 */
#define HBM_SRC         0x40000ull      /* 4 rows of 64 bytes, 0xc0 + i */
#define HBM_DST0        0x50000ull      /* queue 0 (ASID 0) */
#define HBM_DST1        0x60000ull      /* queue 1 (ASID 1) */
#define HBM_DST2        0x70000ull      /* queue 2 (ASID 0) */
#define HBM_LIST1       0x78000ull      /* queue 1's index list */

/*
 * ASID 1: local HBM at VA_HBM, 1 GiB of HBM_ROW0 at VA1_SRC and 1 GiB of
 * HBM_ALIAS2 at VA1_DST; nothing else.
 */
static void build_asid1(Card *c)
{
    uint64_t root = pt_new(c), ls = pt_new(c), ld = pt_new(c);
    unsigned int e;

    for (e = 0; e < 512; e++) {
        wq64(c, ls + e * 8, HBM_ROW0 | PTE_HBM | M890_PTE_LARGE);
        wq64(c, ld + e * 8, HBM_ALIAS2 | PTE_HBM | M890_PTE_LARGE);
    }
    for (e = 0; e < 8; e++) {
        pt_set(c, root, VA_HBM + e * MIB2, 1,
               e * MIB2 | PTE_HBM | M890_PTE_LARGE);
    }
    pt_set(c, root, VA1_SRC, 2, ls | M890_PTE_VALID);
    pt_set(c, root, VA1_DST, 2, ld | M890_PTE_VALID);
    wq64(c, c->ctx + M890_CTX_DESC_SIZE, root | M890_CTX_VALID);
    wr(c, M890_REG_MMU_CTX_COUNT, 2);
}

/* The 64-byte rows 0 .. 3 at HBM @off are all @r0 .. @r3 (0: untouched). */
static void rows_are(Card *c, uint64_t off, int r0, int r1, int r2, int r3)
{
    const int want[4] = { r0, r1, r2, r3 };
    int i;

    for (i = 0; i < 4; i++) {
        g_assert(hbm_is(c, off + 64 * i, want[i], 64));
    }
}

/*
 * Run the failing @p on queue 0 (ASID 0): it stops with @err at its
 * packet, and only it: queue 1 (ASID 1) is not in error.
 */
static void rows_fault(Card *a, const union m890_packet *p, uint32_t err)
{
    uint32_t head = qrd(a, 0, M890_Q_HEAD), st = run(a, 0, p);

    g_assert_cmphex(st & M890_Q_STATUS_ERROR, ==, M890_Q_STATUS_ERROR);
    g_assert_cmpuint(qerr(st), ==, err);
    g_assert_cmpuint(qrd(a, 0, M890_Q_HEAD), ==, head);
    g_assert_cmpuint(qrd(a, 0, M890_Q_ERR_HEAD), ==, head);
    g_assert_cmphex(rd(a, M890_REG_QERR_STATUS), ==, 1);
    g_assert_cmphex(qrd(a, 1, M890_Q_STATUS) & M890_Q_STATUS_ERROR, ==, 0);
}

/*
 * A COPY_ROWS that faults stops its queue and nothing else (§4.4, §7.13:
 * the rows before the failing access are done, none after it): queue 1,
 * in another context, runs a 256 MiB ADD over 256 runs meanwhile and then
 * its next packets; queue 2, in the faulting queue's own context, runs a
 * COPY_ROWS between the faults.
 */
static void test_rows_fault_isolation(void)
{
    Card *a = &cards[0];
    uint64_t list = scratch + 1024, tab = scratch + 1536;
    static const uint32_t perm[4] = { 1, 0, 3, 2 };
    uint32_t faults = rd(a, M890_REG_MMU_FAULT_COUNT), head1, x[4];
    union m890_packet p[3], f;
    int i;

    build_asid1(a);
    queue_start_asid(a, 1, 1);
    hbm_fill16(a, HBM_ROW0, BF16_1, MIB2);
    hbm_set(a, HBM_ALIAS2, 0, MIB2);
    for (i = 0; i < 4; i++) {
        hbm_set(a, HBM_SRC + 64 * i, 0xc0 + i, 64);
    }
    hbm_set(a, HBM_DST1, 0, 256);
    hbm_set(a, HBM_DST2, 0, 256);
    qpci_memwrite(a->dev, a->hbm, HBM_LIST1, perm, sizeof(perm));
    qtest_writeq(qs->qts, a->fence[1], 0);

    /* queue 1: 16 rows of 16 MiB added 128 times onto HBM_ALIAS2, ... */
    p[0] = add_rows(VA1_SRC, VA1_DST, 16);
    p[1] = small_rows(VA_HBM + HBM_SRC, VA_HBM + HBM_DST1);
    p[1].copy_rows.dst_idx = VA_HBM + HBM_LIST1;
    p[2] = (union m890_packet){ 0 };
    p[2].fence.hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
    p[2].fence.value = 0x51;
    for (i = 0; i < 3; i++) {
        post(a, 1, &p[i]);
    }
    /* its DM may run behind REG_CLOCK (§10): wait for its first sums */
    for (i = 0; i < 50000 && !qpci_io_readw(a->dev, a->hbm, HBM_ALIAS2); i++) {
        g_usleep(100);
    }
    g_assert_cmphex(qpci_io_readw(a->dev, a->hbm, HBM_ALIAS2), !=, 0);

    /* an index that puts a destination row on unmapped VA: MMU fault */
    hbm_set(a, HBM_DST0, 0, 256);
    x[0] = 3;
    x[1] = 2;
    x[2] = (VA_NONE - VA_HBM - HBM_DST0) / 64;
    x[3] = 0;
    qtest_memwrite(qs->qts, list, x, sizeof(x));
    f = small_rows(VA_HBM + HBM_SRC, VA_HBM + HBM_DST0);
    f.copy_rows.dst_idx = VA_HOST + list;
    rows_fault(a, &f, M890_QERR_MMU_FAULT);
    g_assert_cmphex(rdq(a, M890_REG_MMU_FAULT_ADDR), ==, VA_NONE);
    g_assert_cmphex(rd(a, M890_REG_MMU_FAULT_INFO), ==,
                    M890_FAULT_NOT_PRESENT << M890_FAULT_REASON_SHIFT |
                    M890_FAULT_WRITE);
    g_assert_cmpuint(rd(a, M890_REG_MMU_FAULT_COUNT), ==, faults + 1);
    rows_are(a, HBM_DST0, 0, 0, 0xc1, 0xc0);
    recover(a, 0);

    /* an index past its destination table: BAD_FIELD */
    hbm_set(a, HBM_DST0, 0, 256);
    for (i = 0; i < 3; i++) {
        wq64(a, tab + 8 * i, VA_HBM + HBM_DST0 + 64 * i);
    }
    x[0] = 1;
    x[1] = 0;
    x[2] = M890_TABLE_MAX_SEGMENTS;
    x[3] = 2;
    qtest_memwrite(qs->qts, list, x, sizeof(x));
    f = small_rows(VA_HBM + HBM_SRC, VA_HOST + tab);
    f.copy_rows.dst_idx = VA_HOST + list;
    f.copy_rows.seg_rows = 1;
    f.copy_rows.tables = M890_ROWS_DST_TABLE;
    rows_fault(a, &f, M890_QERR_BAD_FIELD);
    rows_are(a, HBM_DST0, 0xc1, 0xc0, 0, 0);
    recover(a, 0);

    /* the faulting queue's own context keeps running on queue 2 */
    qtest_memwrite(qs->qts, list, perm, sizeof(perm));
    f = small_rows(VA_HBM + HBM_SRC, VA_HBM + HBM_DST2);
    f.copy_rows.dst_idx = VA_HOST + list;
    g_assert_cmphex(run(a, 2, &f), ==, M890T_IDLE);
    rows_are(a, HBM_DST2, 0xc1, 0xc0, 0xc3, 0xc2);

    /* a source index onto a host page nothing decodes: DMA */
    hbm_set(a, HBM_DST0, 0, 256);
    x[0] = 0;
    x[1] = 1;
    x[2] = (BAD_NOWHERE - VA_HBM - HBM_SRC) / 64;
    x[3] = 3;
    qtest_memwrite(qs->qts, list, x, sizeof(x));
    f = small_rows(VA_HBM + HBM_SRC, VA_HBM + HBM_DST0);
    f.copy_rows.src_idx = VA_HOST + list;
    rows_fault(a, &f, M890_QERR_DMA);
    g_assert_cmpuint(rd(a, M890_REG_MMU_FAULT_COUNT), ==, faults + 1);
    rows_are(a, HBM_DST0, 0xc0, 0xc1, 0, 0);
    recover(a, 0);

    /* an index whose row leaves the VA space (pitch 2 GiB): BAD_FIELD */
    hbm_set(a, HBM_DST0, 0, 256);
    x[0] = 0;
    x[1] = 1u << 17;
    qtest_memwrite(qs->qts, list, x, 8);
    f = small_rows(VA_HBM + HBM_SRC, VA_HBM + HBM_DST0);
    f.copy_rows.src_idx = VA_HOST + list;
    f.copy_rows.src_pitch = 1u << 31;
    f.copy_rows.count = 2;
    rows_fault(a, &f, M890_QERR_BAD_FIELD);
    rows_are(a, HBM_DST0, 0xc0, 0, 0, 0);
    recover(a, 0);

    /* queue 1 was not stopped: its ADD, its COPY_ROWS and its FENCE */
    head1 = qrd(a, 1, M890_Q_HEAD);
    if (head1) {
        g_test_message("queue 1's ADD ended before the last fault");
    }
    g_assert_cmphex(settle(a, 1), ==, M890T_IDLE);
    g_assert_cmpuint(qrd(a, 1, M890_Q_HEAD), ==, 3);
    g_assert_cmphex(qtest_readq(qs->qts, a->fence[1]), ==, 0x51);
    g_assert(hbm_is16(a, HBM_ALIAS2, BF16_128, MIB2));
    rows_are(a, HBM_DST1, 0xc1, 0xc0, 0xc3, 0xc2);
    g_assert_cmphex(rd(a, M890_REG_QERR_STATUS), ==, 0);

    wq64(a, a->ctx + M890_CTX_DESC_SIZE, 0);
    wr(a, M890_REG_MMU_CTX_COUNT, 1);
    wr(a, M890_REG_EVT_STATUS, M890_EVT_QUEUE_ERROR | M890_EVT_MMU_FAULT);
    for (i = 0; i < 3; i++) {
        queue_start(a, i);
    }
}

static void test_uninit(void)
{
    Card *b = &cards[1];
    static const struct { uint32_t reg, val; } known[] = {
        { M890_REG_ID, M890_ID_MAGIC },
        { M890_REG_VERSION, M890_SPEC_VERSION },
        { M890_REG_NUM_QUEUES, M890T_NQ },
        { M890_REG_HBM_SIZE, HBM_SIZE },
        { M890_REG_FABRIC, 1 | 1 << M890_FABRIC_PORT_SHIFT |
                           M890_FABRIC_LINK_UP },
        { M890_REG_STATUS, M890_STATUS_READY },
        { M890_REG_NUM_CTX, 1024 },
        { M890_REG_NUM_ENGINES, 4 },
    };
    g_autofree uint8_t *buf = g_malloc(1 << 20);
    uint32_t reg, want, caps = 0;
    unsigned int i, q;

    /* HBM no test wrote reads as zeros */
    qpci_memread(b->dev, b->hbm, HBM_SIZE - (1 << 20), buf, 1 << 20);
    for (i = 0; i < 1 << 20; i++) {
        g_assert_cmphex(buf[i], ==, 0);
    }

    /* after a device reset every register reads its reset value */
    wr(b, M890_REG_CONTROL, M890_CONTROL_RESET);
    for (reg = 0; reg < M890_REG_SW_CMD + 0x100; reg += 4) {
        want = 0;
        for (i = 0; i < G_N_ELEMENTS(known); i++) {
            if (known[i].reg == reg) {
                want = known[i].val;
            }
        }
        q = (reg - M890_REG_Q_BASE) / M890_REG_Q_STRIDE;
        if (reg >= M890_REG_Q_BASE && q < M890T_NQ &&
            reg - M890_REG_Q(q) == M890_Q_STATUS) {
            want = M890_Q_STATUS_IDLE;
        }
        if (reg == M890_REG_CAPS) {
            caps = rd(b, reg);
            continue;
        }
        g_assert_cmphex(rd(b, reg), ==, want);
    }
    g_assert_cmphex(caps & M890_HWCAP_MMU, ==, M890_HWCAP_MMU);
    card_restart(b);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    qs = m890t_boot();
    card_init(qs, &cards[0], 0);
    card_init(qs, &cards[1], 1);
    build_hazard_map();
    qtest_add_func("/m890/hazard/dma-self-and-peer", test_dma_self);
    qtest_add_func("/m890/hazard/endless-work", test_endless_work);
    qtest_add_func("/m890/hazard/zero-lengths", test_zero_lengths);
    qtest_add_func("/m890/hazard/dma-errors", test_dma_errors);
    qtest_add_func("/m890/hazard/index-bounds", test_index_bounds);
    qtest_add_func("/m890/hazard/guest-sizes", test_guest_sizes);
    qtest_add_func("/m890/hazard/div-zero", test_div_zero);
    qtest_add_func("/m890/hazard/widths", test_widths);
    qtest_add_func("/m890/hazard/read-twice", test_read_twice);
    qtest_add_func("/m890/hazard/rows-read-once", test_rows_read_once);
    qtest_add_func("/m890/hazard/rows-fault-isolation",
                   test_rows_fault_isolation);
    qtest_add_func("/m890/hazard/uninit", test_uninit);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
