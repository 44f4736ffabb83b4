/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of the M890 device MMU
 *
 * The TLB caches (a leaf rewritten in memory without MMU_INVALIDATE is
 * still used), invalidation of one ASID keeps the other ASIDs' entries
 * and ALL drops every entry; 2 MiB LARGE leaves translate with the low 21
 * bits of the VA, and a misplaced or misaligned LARGE, reserved PTE bits,
 * TARGET/PEER in a table entry, TARGET 3 and reserved context-descriptor
 * bits fault with the reason of spec 5.5; every fault record carries the
 * VA, the direction, the reason, the ASID and the queue, and reaches the
 * driver as MSI-X vector 0 (masking and unmasking per spec 6.2); FENCE
 * raises the queue's vector; a faulting queue stops while the queues of
 * another ASID, and of the same ASID, keep running.
 *
 * Card 0 gets ASID 1 next to the common ASID 0 (m890-qtest.h); both use
 * the same tables.  VA_T is one 4 KiB leaf on HBM page P1 or P2.
 */
#include "qemu/osdep.h"
#include "m890-qtest.h"

#define VA_T            0x140000000ull  /* 4 KiB leaf under test */
#define VA_L            0x180000000ull  /* 2 MiB leaves under test */
#define VA_N            0x1c0000000ull  /* table entries under test */
#define HBM_P1          0x500000ull
#define HBM_P2          0x501000ull
#define HBM_OUT         0x600000ull     /* results of the probes */
#define MSG_DATA        0x4d890000u

static QOSState *qs;
static Card cards[2];
static uint64_t slot_t;         /* guest address of VA_T's leaf */
static uint64_t msg;            /* guest RAM receiving MSI-X messages */

/* Address of the entry of @va at @level, on tables that exist. */
static uint64_t pt_slot(Card *c, uint64_t va, int level)
{
    uint64_t table = c->root;
    int l;

    for (l = M890_PT_LEVELS - 1; l > level; l--) {
        table = rq64(c, table + ((va >> (12 + 9 * l)) & 511) * 8) &
                M890_PTE_ADDR_MASK;
    }
    return table + ((va >> (12 + 9 * level)) & 511) * 8;
}

static void invalidate_all(Card *c)
{
    wr(c, M890_REG_MMU_INVALIDATE, M890_MMU_INV_ALL);
}

/* Copy the byte at @va on queue @q; the byte that arrived. */
static int probe(Card *c, int q, uint64_t va)
{
    union m890_packet p = copy_pkt(va, VA_HBM + HBM_OUT, 1);
    uint8_t b;

    hbm_set(c, HBM_OUT, 0, 1);
    g_assert_cmphex(run(c, q, &p), ==, M890T_IDLE);
    qpci_memread(c->dev, c->hbm, HBM_OUT, &b, 1);
    return b;
}

/*
 * Run @p on queue @q (context @asid): it must stop with a translation
 * fault recorded as (@va, @write, @reason); then restart the queue.
 */
static void expect_fault(Card *c, int q, uint32_t asid,
                         const union m890_packet *p, uint64_t va,
                         bool write, uint32_t reason)
{
    uint32_t count = rd(c, M890_REG_MMU_FAULT_COUNT), st;

    st = run(c, q, p);
    g_assert_cmpuint(qerr(st), ==, reason == M890_FAULT_FABRIC ?
                     M890_QERR_FABRIC : M890_QERR_MMU_FAULT);
    g_assert_cmphex(rdq(c, M890_REG_MMU_FAULT_ADDR), ==, va);
    g_assert_cmphex(rd(c, M890_REG_MMU_FAULT_INFO), ==,
                    (asid & M890_FAULT_ASID_MASK) |
                    reason << M890_FAULT_REASON_SHIFT |
                    (write ? M890_FAULT_WRITE : 0) |
                    (uint32_t)q << M890_FAULT_QUEUE_SHIFT);
    g_assert_cmpuint(rd(c, M890_REG_MMU_FAULT_COUNT), ==, count + 1);
    g_assert_cmphex(rd(c, M890_REG_EVT_STATUS) & M890_EVT_MMU_FAULT, ==,
                    M890_EVT_MMU_FAULT);
    wr(c, M890_REG_EVT_STATUS, M890_EVT_QUEUE_ERROR | M890_EVT_MMU_FAULT);
    wr(c, M890_REG_QERR_STATUS, 1u << q);
    queue_start_asid(c, q, asid);
}

static void fault_read(Card *c, uint64_t va, uint32_t reason)
{
    union m890_packet p = copy_pkt(va, VA_HBM + HBM_OUT, 8);

    expect_fault(c, 0, 0, &p, va, false, reason);
}

static void msix_route(Card *c, unsigned int vec, uint32_t data)
{
    uint64_t e = c->dev->msix_table_off + vec * PCI_MSIX_ENTRY_SIZE;

    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_LOWER_ADDR, (uint32_t)msg);
    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_UPPER_ADDR, msg >> 32);
    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_DATA, data);
    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   e + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
}

static uint32_t msg_take(Card *c)
{
    uint32_t v = qtest_readl(qs->qts, msg);

    qtest_writel(qs->qts, msg, 0);
    return v;
}

static void test_tlb_caches(void)
{
    Card *a = &cards[0];

    g_assert_cmphex(probe(a, 0, VA_T), ==, 0xa1);
    /* rewritten behind the TLB: the cached leaf is still used */
    wq64(a, slot_t, HBM_P2 | PTE_HBM);
    g_assert_cmphex(probe(a, 0, VA_T), ==, 0xa1);
    g_assert_cmphex(probe(a, 0, VA_T + 0x800), ==, 0xa1);
    /* invalidating another ASID changes nothing */
    wr(a, M890_REG_MMU_INVALIDATE, 7);
    g_assert_cmphex(probe(a, 0, VA_T), ==, 0xa1);
    wr(a, M890_REG_MMU_INVALIDATE, 0);
    g_assert_cmphex(probe(a, 0, VA_T), ==, 0xb2);

    /* a leaf made invalid is used until invalidated, then faults */
    wq64(a, slot_t, 0);
    g_assert_cmphex(probe(a, 0, VA_T), ==, 0xb2);
    invalidate_all(a);
    fault_read(a, VA_T + 0x10, M890_FAULT_NOT_PRESENT);
    /* a fault is never cached: making the entry valid needs no command */
    wq64(a, slot_t, HBM_P1 | PTE_HBM);
    g_assert_cmphex(probe(a, 0, VA_T), ==, 0xa1);
}

static void test_tlb_asids(void)
{
    Card *a = &cards[0];

    wq64(a, slot_t, HBM_P1 | PTE_HBM);
    invalidate_all(a);
    g_assert_cmphex(probe(a, 0, VA_T), ==, 0xa1);   /* ASID 0 */
    g_assert_cmphex(probe(a, 1, VA_T), ==, 0xa1);   /* ASID 1 */
    wq64(a, slot_t, HBM_P2 | PTE_HBM);
    wr(a, M890_REG_MMU_INVALIDATE, 1);
    g_assert_cmphex(probe(a, 1, VA_T), ==, 0xb2);
    g_assert_cmphex(probe(a, 0, VA_T), ==, 0xa1);
    wq64(a, slot_t, HBM_P1 | PTE_HBM);
    invalidate_all(a);
    g_assert_cmphex(probe(a, 0, VA_T), ==, 0xa1);
    g_assert_cmphex(probe(a, 1, VA_T), ==, 0xa1);
    wq64(a, slot_t, HBM_P2 | PTE_HBM);
    invalidate_all(a);
    g_assert_cmphex(probe(a, 0, VA_T), ==, 0xb2);
    g_assert_cmphex(probe(a, 1, VA_T), ==, 0xb2);
    /* changing MMU_CTX_COUNT also drops everything */
    wq64(a, slot_t, HBM_P1 | PTE_HBM);
    wr(a, M890_REG_MMU_CTX_COUNT, 2);
    g_assert_cmphex(probe(a, 0, VA_T), ==, 0xa1);
}

static void test_large_pages(void)
{
    Card *a = &cards[0];
    uint64_t l1 = pt_set(a, a->root, VA_L, 1,
                         0x400000 | PTE_HBM | M890_PTE_LARGE);
    uint64_t l0 = pt_new(a), l2;
    union m890_packet p;

    hbm_set(a, 0x400000 + 0x12345, 0xc3, 64);
    hbm_set(a, 0x400000 + 0x1fffff, 0xd4, 1);
    g_assert_cmphex(probe(a, 0, VA_L + 0x12345), ==, 0xc3);
    g_assert_cmphex(probe(a, 0, VA_L + 0x1fffff), ==, 0xd4);
    /* the next 2 MiB leaf is not present: the access faults at its start */
    p = copy_pkt(VA_L + 0x1fffff, VA_HBM + HBM_OUT, 2);
    expect_fault(a, 0, 0, &p, VA_L + 0x200000, false,
                 M890_FAULT_NOT_PRESENT);

    /* a LARGE leaf whose address is not 2 MiB aligned */
    wq64(a, l1, 0x401000 | PTE_HBM | M890_PTE_LARGE);
    invalidate_all(a);
    fault_read(a, VA_L + 8, M890_FAULT_BAD_PTE);
    /* LARGE at level 0 */
    wq64(a, l0, 0x400000 | PTE_HBM | M890_PTE_LARGE);
    wq64(a, l1, l0 | M890_PTE_VALID);
    invalidate_all(a);
    fault_read(a, VA_L, M890_FAULT_BAD_PTE);
    wq64(a, l0, 0x400000 | PTE_HBM);
    invalidate_all(a);
    g_assert_cmphex(probe(a, 0, VA_L + 0x345), ==, 0);
    /* LARGE at level 2 */
    l2 = pt_slot(a, VA_L, 2);
    wq64(a, l2, rq64(a, l2) | M890_PTE_LARGE);
    invalidate_all(a);
    fault_read(a, VA_L, M890_FAULT_BAD_PTE);
    wq64(a, l2, rq64(a, l2) & ~M890_PTE_LARGE);
    invalidate_all(a);
    g_assert_cmphex(probe(a, 0, VA_L + 0x345), ==, 0);
}

static void test_reserved_bits(void)
{
    Card *a = &cards[0];
    uint64_t leaf = pt_set(a, a->root, VA_N, 0, HBM_P1 | PTE_HBM);
    uint64_t l1 = pt_slot(a, VA_N, 1), t1 = rq64(a, l1);
    uint64_t l2 = pt_slot(a, VA_N, 2), t2 = rq64(a, l2);
    uint64_t desc = rq64(a, a->ctx);
    static const uint64_t leaf_bad[] = {
        1ull << 3, 1ull << 52, 1ull << 63,
        (uint64_t)3 << M890_PTE_TARGET_SHIFT,
    };
    static const uint64_t table_bad[] = {
        1ull << 3, 1ull << 55, (uint64_t)1 << M890_PTE_TARGET_SHIFT,
        (uint64_t)5 << M890_PTE_PEER_SHIFT,
    };
    static const uint64_t desc_bad[] = { 1ull << 1, 1ull << 11, 1ull << 52 };
    union m890_packet p;
    unsigned int i;

    g_assert_cmphex(probe(a, 0, VA_N), ==, 0xa1);
    for (i = 0; i < G_N_ELEMENTS(leaf_bad); i++) {
        wq64(a, leaf, HBM_P1 | PTE_HBM | leaf_bad[i]);
        invalidate_all(a);
        fault_read(a, VA_N + 4, M890_FAULT_BAD_PTE);
    }
    wq64(a, leaf, HBM_P1 | PTE_HBM);
    for (i = 0; i < G_N_ELEMENTS(table_bad); i++) {
        wq64(a, l1, t1 | table_bad[i]);
        invalidate_all(a);
        fault_read(a, VA_N, M890_FAULT_BAD_PTE);
        wq64(a, l1, t1);
        wq64(a, l2, t2 | table_bad[i]);
        invalidate_all(a);
        fault_read(a, VA_N, M890_FAULT_BAD_PTE);
        wq64(a, l2, t2);
    }
    /* WRITE in a table entry is ignored */
    wq64(a, l2, t2 | M890_PTE_WRITE);
    invalidate_all(a);
    g_assert_cmphex(probe(a, 0, VA_N), ==, 0xa1);
    wq64(a, l2, t2);

    /* context descriptor: reserved bits of word 0, all of word 1 */
    for (i = 0; i < G_N_ELEMENTS(desc_bad); i++) {
        wq64(a, a->ctx, desc | desc_bad[i]);
        invalidate_all(a);
        fault_read(a, VA_N, M890_FAULT_CTX_INVALID);
    }
    wq64(a, a->ctx, desc);
    wq64(a, a->ctx + 8, 1);
    invalidate_all(a);
    fault_read(a, VA_N, M890_FAULT_CTX_INVALID);
    wq64(a, a->ctx + 8, 0);
    wq64(a, a->ctx, desc & ~M890_CTX_VALID);
    invalidate_all(a);
    fault_read(a, VA_N, M890_FAULT_CTX_INVALID);
    wq64(a, a->ctx, desc);
    wr(a, M890_REG_MMU_CONTROL, 0);
    fault_read(a, VA_N, M890_FAULT_CTX_INVALID);
    wr(a, M890_REG_MMU_CONTROL, M890_MMU_CONTROL_ENABLE);

    /* a write through a read-only leaf, recorded as a write */
    wq64(a, leaf, HBM_P1 | M890_PTE_VALID |
         (uint64_t)M890_PTE_TARGET_HBM << M890_PTE_TARGET_SHIFT);
    invalidate_all(a);
    p = copy_pkt(VA_HBM, VA_N + 0x20, 8);
    expect_fault(a, 0, 0, &p, VA_N + 0x20, true, M890_FAULT_WRITE_PROTECT);
    wq64(a, leaf, HBM_P1 | PTE_HBM);
    invalidate_all(a);
    g_assert_cmphex(probe(a, 0, VA_N), ==, 0xa1);
}

static void test_fault_record_msix(void)
{
    Card *a = &cards[0];
    union m890_packet p = copy_pkt(VA_HBM, VA_NONE + 0x1238, 8), f = { 0 };

    wr(a, M890_REG_EVT_STATUS, ~0u);
    msix_route(a, M890_MSIX_VEC_EVENT, MSG_DATA);
    msg_take(a);
    /* queue 2 in ASID 1, a write: every field of the record */
    queue_start_asid(a, 2, 1);
    expect_fault(a, 2, 1, &p, VA_NONE + 0x1238, true,
                 M890_FAULT_NOT_PRESENT);
    g_assert_cmphex(msg_take(a), ==, MSG_DATA);

    /* masked events send nothing; unmasking sends one message */
    wr(a, M890_REG_EVT_MASK, M890_EVT_MMU_FAULT | M890_EVT_QUEUE_ERROR);
    p = copy_pkt(VA_NONE + 8, VA_HBM, 8);
    g_assert_cmpuint(qerr(run(a, 2, &p)), ==, M890_QERR_MMU_FAULT);
    g_assert_cmphex(msg_take(a), ==, 0);
    wr(a, M890_REG_EVT_MASK, 0);
    g_assert_cmphex(msg_take(a), ==, MSG_DATA);
    /* a condition that recurs while its bit is set sends nothing new */
    queue_start_asid(a, 2, 1);
    g_assert_cmpuint(qerr(run(a, 2, &p)), ==, M890_QERR_MMU_FAULT);
    g_assert_cmphex(msg_take(a), ==, 0);
    wr(a, M890_REG_EVT_STATUS, ~0u);
    wr(a, M890_REG_QERR_STATUS, ~0u);
    queue_start_asid(a, 2, 0);

    /* FENCE with the IRQ flag raises the queue's own vector */
    msix_route(a, M890_MSIX_VEC_QUEUE0 + 3, MSG_DATA + 3);
    f.fence.hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
    f.fence.flags = M890_FENCE_F_IRQ;
    f.fence.value = 42;
    g_assert_cmphex(run(a, 3, &f), ==, M890T_IDLE);
    g_assert_cmphex(msg_take(a), ==, MSG_DATA + 3);
    f.fence.flags = 0;
    g_assert_cmphex(run(a, 3, &f), ==, M890T_IDLE);
    g_assert_cmphex(msg_take(a), ==, 0);
}

static void test_fault_isolation(void)
{
    Card *a = &cards[0];
    union m890_packet bad = copy_pkt(VA_NONE, VA_HBM, 8);
    union m890_packet big = copy_pkt(VA_HOST + 0x1000000,
                                     VA_HBM + 0x800000, 0x400000);
    union m890_packet w = { 0 }, s = { 0 };

    hbm_set(a, 0x700000, 0, 8);
    w.wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
    w.wait.addr = VA_HBM + 0x700000;
    w.wait.value = 1;
    s.signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
    s.signal.addr = VA_HBM + 0x700000;
    s.signal.value = 1;

    /* queue 1 (ASID 1) parks in a WAIT with work behind it */
    g_assert_cmphex(run(a, 1, &w) & M890_Q_STATUS_WAITING, ==,
                    M890_Q_STATUS_WAITING);
    post(a, 1, &big);
    /* ASID 0 faults on queue 0 while queue 2 (ASID 0 too) copies */
    post(a, 2, &big);
    post(a, 0, &bad);
    g_assert_cmpuint(qerr(settle(a, 0)), ==, M890_QERR_MMU_FAULT);
    g_assert_cmphex(settle(a, 2), ==, M890T_IDLE);
    /* the other context is untouched and still runs */
    g_assert_cmphex(qrd(a, 1, M890_Q_STATUS), ==,
                    M890_Q_STATUS_ENABLED | M890_Q_STATUS_WAITING);
    g_assert_cmphex(run(a, 3, &s), ==, M890T_IDLE);
    g_assert_cmphex(settle(a, 1), ==, M890T_IDLE);
    g_assert_cmpuint(qrd(a, 1, M890_Q_HEAD), ==, qrd(a, 1, M890_Q_TAIL));
    g_assert_cmphex(qerr(qrd(a, 0, M890_Q_STATUS)), ==,
                    M890_QERR_MMU_FAULT);
    g_assert_cmphex(rd(a, M890_REG_QERR_STATUS), ==, 1);
    wr(a, M890_REG_EVT_STATUS, ~0u);
    wr(a, M890_REG_QERR_STATUS, ~0u);
    queue_start(a, 0);
}

int main(int argc, char **argv)
{
    Card *a = &cards[0];
    int ret;

    g_test_init(&argc, &argv, NULL);
    qs = m890t_boot();
    card_init(qs, &cards[0], 0);
    card_init(qs, &cards[1], 1);
    /* ASID 1 shares ASID 0's tables */
    wq64(a, a->ctx + M890_CTX_DESC_SIZE, a->root | M890_CTX_VALID);
    wr(a, M890_REG_MMU_CTX_COUNT, 2);
    queue_start_asid(a, 1, 1);
    slot_t = pt_set(a, a->root, VA_T, 0, HBM_P1 | PTE_HBM);
    hbm_set(a, HBM_P1, 0xa1, 4096);
    hbm_set(a, HBM_P2, 0xb2, 4096);
    msg = galloc(a, 4096);
    qtest_writel(qs->qts, msg, 0);

    qtest_add_func("/m890/mmu/tlb-caches", test_tlb_caches);
    qtest_add_func("/m890/mmu/tlb-invalidate-asid-all", test_tlb_asids);
    qtest_add_func("/m890/mmu/large-pages", test_large_pages);
    qtest_add_func("/m890/mmu/reserved-bits", test_reserved_bits);
    qtest_add_func("/m890/mmu/fault-record-msix", test_fault_record_msix);
    qtest_add_func("/m890/mmu/fault-isolation", test_fault_isolation);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
