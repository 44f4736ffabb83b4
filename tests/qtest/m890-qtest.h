/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: helpers shared by the M890 qtests
 *
 * Every M890 qtest boots the same machine: q35 (no firmware runs under
 * qtest) with two M890 cards of 16 MiB HBM and M890T_NQ queues on one
 * icn-switch (ports 0 and 1, fabric ids 0 and 1), and gives each card an
 * ASID 0 address space built in guest memory:
 *
 * ===============  ==================================================
 * VA               maps to
 * ===============  ==================================================
 * VA_HOST          guest RAM, identity, 128 MiB of 2 MiB host pages
 * VA_HBM           local HBM, 2 MiB pages; the 9th page lies past it
 * VA_PEER          the other card's HBM through the fabric, likewise
 * VA_REGS          one 4 KiB host page on the card's own BAR0
 * VA_NONE          nothing (level-2 entry not present)
 * ===============  ==================================================
 *
 * The helpers program queues through the register names of m890_regs.h,
 * post packets of m890_packets.h and wait (bounded) for a queue to idle,
 * wait or stop.  They are static inline so that each test binary takes
 * only what it uses.
 */
#ifndef M890_QTEST_H
#define M890_QTEST_H

#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci-pc.h"
#include "standard-headers/linux/pci_regs.h"

#include "hw/m890/m890_regs.h"
#include "hw/m890/m890_packets.h"

#define HBM_SIZE        (16 * 1024 * 1024)
#define MIB2            (2 * 1024 * 1024ull)
#define GIB             (1024 * 1024 * 1024ull)
#define VA_HOST         0x0ull          /* identity map of guest RAM */
#define VA_HBM          0x40000000ull   /* local HBM, 16 MiB + 2 MiB beyond */
#define VA_PEER         0x80000000ull   /* the other card's HBM */
#define VA_REGS         0xc0000000ull   /* the card's own BAR0 (host PTE) */
#define VA_NONE         0x100000000ull  /* not mapped */
#define RING_ORDER      4
#define M890T_NQ        4
#define M890T_IDLE      (M890_Q_STATUS_ENABLED | M890_Q_STATUS_IDLE)

#define PTE_HOST        (M890_PTE_VALID | M890_PTE_WRITE)
#define PTE_HBM         (M890_PTE_VALID | M890_PTE_WRITE | \
                         (uint64_t)M890_PTE_TARGET_HBM << M890_PTE_TARGET_SHIFT)
#define PTE_PEER(id)    (M890_PTE_VALID | M890_PTE_WRITE | \
                         (uint64_t)M890_PTE_TARGET_PEER << \
                         M890_PTE_TARGET_SHIFT | \
                         (uint64_t)(id) << M890_PTE_PEER_SHIFT)

typedef struct Card {
    QOSState *qs;
    QPCIDevice *dev;
    QPCIBar bar0, hbm;
    uint64_t bar_addr[3];       /* BAR0, BAR2, BAR4 bus addresses */
    uint64_t hbm_bar_size;
    uint64_t ctx;               /* context table, 16 descriptors */
    uint64_t root;              /* ASID 0 level-3 table */
    uint64_t ring[M890T_NQ];
    uint64_t fence[M890T_NQ];
} Card;

static inline QOSState *m890t_boot(void)
{
    return qtest_pc_boot("-machine q35 -bios bios-microvm.bin -vga none "
                         "-nodefaults "
                         "-object icn-switch,id=sw0 "
                         "-object memory-backend-ram,id=hbm0,size=16M "
                         "-object memory-backend-ram,id=hbm1,size=16M "
                         "-device m890,memdev=hbm0,switch=sw0,port=0,"
                         "queues=%d,addr=04.0,id=card0 "
                         "-device m890,memdev=hbm1,switch=sw0,port=1,"
                         "queues=%d,addr=05.0,id=card1",
                         M890T_NQ, M890T_NQ);
}

/*
 * The machine of m890t_boot() plus a third card on port 2 with
 * engines=0: a spec 1.0 card (no ENGINES, ATOMICS, timing model 1.1).
 * Its peer is card 1 (card_init_at(qs, c, QPCI_DEVFN(6, 0), 1)).
 */
static inline QOSState *m890t_boot_with_1_0(void)
{
    return qtest_pc_boot("-machine q35 -bios bios-microvm.bin -vga none "
                         "-nodefaults "
                         "-object icn-switch,id=sw0 "
                         "-object memory-backend-ram,id=hbm0,size=16M "
                         "-object memory-backend-ram,id=hbm1,size=16M "
                         "-object memory-backend-ram,id=hbm2,size=16M "
                         "-device m890,memdev=hbm0,switch=sw0,port=0,"
                         "queues=%d,addr=04.0,id=card0 "
                         "-device m890,memdev=hbm1,switch=sw0,port=1,"
                         "queues=%d,addr=05.0,id=card1 "
                         "-device m890,memdev=hbm2,switch=sw0,port=2,"
                         "queues=%d,engines=0,addr=06.0,id=card2",
                         M890T_NQ, M890T_NQ, M890T_NQ);
}

/* A 4 KiB aligned guest buffer of @size bytes (never freed). */
static inline uint64_t galloc(Card *c, size_t size)
{
    uint64_t a = guest_alloc(&c->qs->alloc, size + 4096);

    return (a + 4095) & ~4095ull;
}

static inline uint32_t rd(Card *c, uint64_t off)
{
    return qpci_io_readl(c->dev, c->bar0, off);
}

static inline uint64_t rdq(Card *c, uint64_t off)
{
    return qpci_io_readq(c->dev, c->bar0, off);
}

static inline void wr(Card *c, uint64_t off, uint32_t v)
{
    qpci_io_writel(c->dev, c->bar0, off, v);
}

static inline void wrq(Card *c, uint64_t off, uint64_t v)
{
    qpci_io_writeq(c->dev, c->bar0, off, v);
}

static inline uint32_t qrd(Card *c, int q, uint32_t reg)
{
    return rd(c, M890_REG_Q(q) + reg);
}

static inline void wq64(Card *c, uint64_t addr, uint64_t v)
{
    qtest_writeq(c->qs->qts, addr, v);
}

static inline uint64_t rq64(Card *c, uint64_t addr)
{
    return qtest_readq(c->qs->qts, addr);
}

/* A zeroed 4 KiB page table in guest memory. */
static inline uint64_t pt_new(Card *c)
{
    uint64_t t = galloc(c, 4096);

    qtest_memset(c->qs->qts, t, 0, 4096);
    return t;
}

/*
 * Store @e as the entry for @va at @level (3 = root .. 0) of the tables
 * under @root, creating the tables above it.  Returns the entry's guest
 * address, so tests can rewrite it behind the TLB's back.
 */
static inline uint64_t pt_set(Card *c, uint64_t root, uint64_t va, int level,
                              uint64_t e)
{
    uint64_t table = root, slot, cur;
    int l;

    for (l = M890_PT_LEVELS - 1; ; l--) {
        slot = table + ((va >> (M890_PAGE_SHIFT + 9 * l)) & 511) * 8;
        if (l == level) {
            wq64(c, slot, e);
            return slot;
        }
        cur = rq64(c, slot);
        if (!(cur & M890_PTE_VALID)) {
            cur = pt_new(c) | M890_PTE_VALID;
            wq64(c, slot, cur);
        }
        table = cur & M890_PTE_ADDR_MASK;
    }
}

/* Build card @c's ASID 0 space (see the DOC block); @peer: other card. */
static inline void setup_mmu(Card *c, unsigned int peer)
{
    unsigned int e;

    c->root = pt_new(c);
    for (e = 0; e < 64; e++) {     /* 128 MiB of guest RAM */
        pt_set(c, c->root, VA_HOST + e * MIB2, 1,
               e * MIB2 | PTE_HOST | M890_PTE_LARGE);
    }
    for (e = 0; e < 9; e++) {      /* entry 8 lies past the HBM */
        pt_set(c, c->root, VA_HBM + e * MIB2, 1,
               e * MIB2 | PTE_HBM | M890_PTE_LARGE);
        pt_set(c, c->root, VA_PEER + e * MIB2, 1,
               e * MIB2 | PTE_PEER(peer) | M890_PTE_LARGE);
    }
    pt_set(c, c->root, VA_REGS, 0, c->bar_addr[0] | PTE_HOST);

    c->ctx = pt_new(c);
    wq64(c, c->ctx, c->root | M890_CTX_VALID);
    wrq(c, M890_REG_MMU_CTX_BASE, c->ctx);
    wr(c, M890_REG_MMU_CTX_COUNT, 1);
    wr(c, M890_REG_MMU_CONTROL, M890_MMU_CONTROL_ENABLE);
}

/* Reset queue @q and start it on its ring with ASID @asid. */
static inline void queue_start_asid(Card *c, int q, uint32_t asid)
{
    uint64_t r = M890_REG_Q(q);

    wr(c, r + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    wrq(c, r + M890_Q_RING_BASE, c->ring[q]);
    wr(c, r + M890_Q_RING_ORDER, RING_ORDER);
    wr(c, r + M890_Q_ASID, asid);
    wrq(c, r + M890_Q_FENCE_ADDR, c->fence[q]);
    wr(c, r + M890_Q_MSIX_VECTOR, M890_MSIX_VEC_QUEUE0 + q);
    wr(c, r + M890_Q_CONTROL, M890_Q_CONTROL_ENABLE);
}

static inline void queue_start(Card *c, int q)
{
    queue_start_asid(c, q, 0);
}

/* Write @p at the queue's tail and ring the doorbell; no waiting. */
static inline void post(Card *c, int q, const union m890_packet *p)
{
    uint32_t tail = qrd(c, q, M890_Q_TAIL);
    uint64_t slot = c->ring[q] + (tail & ((1 << RING_ORDER) - 1)) * 64;

    qtest_memwrite(c->qs->qts, slot, p, sizeof(*p));
    wr(c, M890_REG_DOORBELL(q), tail + 1);
}

/* Wait (at most ~10 s) until the queue idles, waits or stops; Q_STATUS. */
static inline uint32_t settle(Card *c, int q)
{
    uint32_t st = 0;
    int i;

    for (i = 0; i < 10000; i++) {
        st = qrd(c, q, M890_Q_STATUS);
        if (st & (M890_Q_STATUS_IDLE | M890_Q_STATUS_ERROR |
                  M890_Q_STATUS_WAITING)) {
            return st;
        }
        g_usleep(1000);
    }
    return st;
}

static inline uint32_t run(Card *c, int q, const union m890_packet *p)
{
    post(c, q, p);
    return settle(c, q);
}

static inline uint32_t qerr(uint32_t st)
{
    return (st & M890_Q_STATUS_ERR_MASK) >> M890_Q_STATUS_ERR_SHIFT;
}

static inline union m890_packet copy_pkt(uint64_t src, uint64_t dst,
                                         uint64_t n)
{
    union m890_packet p = { 0 };

    p.copy.hdr = M890_PKT_HDR(M890_PKT_COPY, 0);
    p.copy.src = src;
    p.copy.dst = dst;
    p.copy.size = n;
    return p;
}

static inline void hbm_set(Card *c, uint64_t off, int byte, size_t n)
{
    g_autofree uint8_t *buf = g_malloc(n);

    memset(buf, byte, n);
    qpci_memwrite(c->dev, c->hbm, off, buf, n);
}

/* True if the @n HBM bytes at @off all equal @byte. */
static inline bool hbm_is(Card *c, uint64_t off, int byte, size_t n)
{
    g_autofree uint8_t *buf = g_malloc(n);
    size_t i;

    qpci_memread(c->dev, c->hbm, off, buf, n);
    for (i = 0; i < n; i++) {
        if (buf[i] != (uint8_t)byte) {
            g_test_message("HBM 0x%" PRIx64 ": 0x%02x, want 0x%02x",
                           (uint64_t)(off + i), buf[i], (uint8_t)byte);
            return false;
        }
    }
    return true;
}

/* Clear the error state of queue @q and start it again. */
static inline void recover(Card *c, int q)
{
    wr(c, M890_REG_EVT_STATUS, M890_EVT_QUEUE_ERROR | M890_EVT_MMU_FAULT);
    wr(c, M890_REG_QERR_STATUS, 1u << q);
    queue_start(c, q);
}

/* Run @p on @q, expect error @err at the packet's HEAD, then recover. */
static inline void expect_error(Card *c, int q, const union m890_packet *p,
                                uint32_t err)
{
    uint32_t head = qrd(c, q, M890_Q_HEAD);
    uint32_t st = run(c, q, p);

    g_assert_cmphex(st & M890_Q_STATUS_ERROR, ==, M890_Q_STATUS_ERROR);
    g_assert_cmpuint(qerr(st), ==, err);
    g_assert_cmpuint(qrd(c, q, M890_Q_ERR_HEAD), ==, head);
    g_assert_cmphex(rd(c, M890_REG_QERR_STATUS) & (1u << q), ==, 1u << q);
    g_assert_cmphex(rd(c, M890_REG_EVT_STATUS) & M890_EVT_QUEUE_ERROR, ==,
                    M890_EVT_QUEUE_ERROR);
    recover(c, q);
    g_assert_cmpuint(qrd(c, q, M890_Q_HEAD), ==, 0);
}

/* Enable the function's BARs (at the saved addresses) and MSI-X. */
static inline void card_enable(Card *c)
{
    uint8_t cap;

    qpci_device_enable(c->dev);
    if (c->bar_addr[0]) {
        /* after a function reset: the BARs were cleared */
        qpci_config_writel(c->dev, PCI_BASE_ADDRESS_0, c->bar_addr[0]);
        qpci_config_writel(c->dev, PCI_BASE_ADDRESS_1, c->bar_addr[0] >> 32);
        qpci_config_writel(c->dev, PCI_BASE_ADDRESS_2, c->bar_addr[1]);
        qpci_config_writel(c->dev, PCI_BASE_ADDRESS_3, c->bar_addr[1] >> 32);
        qpci_config_writel(c->dev, PCI_BASE_ADDRESS_4, c->bar_addr[2]);
        cap = qpci_find_capability(c->dev, PCI_CAP_ID_MSIX, 0);
        qpci_config_writew(c->dev, cap + PCI_MSIX_FLAGS,
                           qpci_config_readw(c->dev, cap + PCI_MSIX_FLAGS) |
                           PCI_MSIX_FLAGS_ENABLE);
        return;
    }
    c->bar0 = qpci_iomap(c->dev, M890_BAR_REGS, NULL);
    c->hbm = qpci_iomap(c->dev, M890_BAR_HBM, &c->hbm_bar_size);
    qpci_msix_enable(c->dev);
    c->bar_addr[0] = c->bar0.addr;
    c->bar_addr[1] = c->hbm.addr;
    c->bar_addr[2] = c->dev->msix_table_bar.addr;
}

/*
 * Find the card at @devfn (bus number in bits 15:8), map it, build its MMU
 * with peer PTEs to fabric id @peer and start its queues.
 */
static inline void card_setup(Card *c, unsigned int peer);

static inline void card_init_at(QOSState *qs, Card *c, int devfn,
                                unsigned int peer)
{
    c->qs = qs;
    c->dev = qpci_device_find(qs->pcibus, devfn);
    g_assert(c->dev);
    card_enable(c);
    card_setup(c, peer);
}

/* Build the MMU of an enabled card and start its queues. */
static inline void card_setup(Card *c, unsigned int peer)
{
    int q;

    setup_mmu(c, peer);
    for (q = 0; q < M890T_NQ; q++) {
        c->ring[q] = galloc(c, 64 << RING_ORDER);
        c->fence[q] = galloc(c, 8);
        queue_start(c, q);
    }
}

/* Card @i of m890t_boot() (slot 4 + i), peer of the other one. */
static inline void card_init(QOSState *qs, Card *c, int i)
{
    card_init_at(qs, c, QPCI_DEVFN(4 + i, 0), 1 - i);
}

/* After a device reset or FLR: program the MMU and queues again. */
static inline void card_restart(Card *c)
{
    int q;

    wrq(c, M890_REG_MMU_CTX_BASE, c->ctx);
    wr(c, M890_REG_MMU_CTX_COUNT, 1);
    wr(c, M890_REG_MMU_CONTROL, M890_MMU_CONTROL_ENABLE);
    for (q = 0; q < M890T_NQ; q++) {
        queue_start(c, q);
    }
}

#endif /* M890_QTEST_H */
