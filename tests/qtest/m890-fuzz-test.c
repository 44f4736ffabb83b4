/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: seeded MMIO/DMA fuzz of the M890 device model
 *
 * A deterministic random driver of two cards: with a fixed seed it runs a
 * fixed number of operations, each one of
 *
 * - a packet of any opcode with plausible or edge-case fields (VAs in
 *   guest RAM, HBM, a peer's HBM, the card's own BAR0, aliased and
 *   unmapped ranges; sizes around 0, pages, 2 MiB and 2^40; the RELAXED
 *   flag, COPY's signal, SIGNAL's count, target and value lists and
 *   stride), often with a flipped bit or random bytes, posted and rung;
 * - a register read or write of width 1, 2, 4 or 8 anywhere in BAR0,
 *   biased towards the real registers and the queues' doorbells;
 * - a page-table entry or context descriptor rewritten (with or without
 *   MMU_INVALIDATE), a queue (re)started with sane or random ring
 *   registers, HBM bytes, MSI-X table writes, switch commands, virtual
 *   time moving on (WAIT re-checks), and now and then a device reset or
 *   a function level reset.
 *
 * After every batch of operations both cards must answer a read of
 * M890_REG_ID within a watchdog's time (no crash, assert or hang), and at
 * the end both cards are reset and must execute a COPY correctly.  The
 * defaults (seed 0x4d383930, 3000 operations) run in a few seconds; set
 * M890_FUZZ_SEED and M890_FUZZ_OPS for longer runs, and M890_FUZZ_SEEDS
 * to run several consecutive seeds.
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "m890-qtest.h"

#define DEFAULT_SEED    0x4d383930ull
#define DEFAULT_OPS     3000
#define BATCH           50
#define WATCHDOG_S      60
#define VA_ALIAS        0x140000000ull  /* 1 GiB on one HBM page */
#define DATA_SIZE       (1 << 20)

static QOSState *qs;
static Card cards[2];
static uint64_t rng;
static uint64_t data[2];        /* 1 MiB of guest RAM per card */
static uint64_t tables[2][8];   /* page tables to rewrite */
static unsigned int ntables[2];

static uint64_t rnd(void)
{
    /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545f4914f6cdd1dull;
}

static uint64_t below(uint64_t n)
{
    return n ? rnd() % n : 0;
}

static bool chance(unsigned int percent)
{
    return below(100) < percent;
}

static uint64_t pick(const uint64_t *v, size_t n)
{
    return v[below(n)];
}

static void watchdog(int sig)
{
    static const char msg[] =
        "Bail out! m890-fuzz: a batch did not finish (device hang?)\n";

    if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0) {
        /* nothing more can be done in a signal handler */
    }
    abort();            /* libqtest's abort hook kills QEMU */
}

static uint64_t fuzz_va(Card *c, int i)
{
    switch (below(10)) {
    case 0:
    case 1:
    case 2:
        return VA_HOST + data[i] + below(DATA_SIZE + 64);
    case 3:
    case 4:
        return VA_HBM + below(HBM_SIZE + MIB2 + 64);
    case 5:
        return VA_PEER + below(HBM_SIZE + MIB2);
    case 6:
        return VA_REGS + below(4096);
    case 7:
        return VA_ALIAS + below(GIB);
    case 8:
        return VA_NONE + below(1 << 20);
    default: {
        static const uint64_t edge[] = {
            0, 7, 0xfffffffffff8ull, 1ull << 48, (1ull << 48) - 4096,
            ~0ull, ~0ull - 63, 0x8000000000000000ull,
        };

        return chance(50) ? pick(edge, G_N_ELEMENTS(edge)) : rnd();
    }
    }
}

static uint64_t fuzz_size(void)
{
    static const uint64_t edge[] = {
        0, 1, 2, 3, 4, 7, 8, 63, 64, 65, 4095, 4096, 4097, 65536,
        MIB2 - 1, MIB2, MIB2 + 1, 1ull << 40, (1ull << 40) + 1, ~0ull,
    };

    if (chance(70)) {
        return below(8192);
    }
    return chance(80) ? pick(edge, G_N_ELEMENTS(edge)) : rnd();
}

static uint32_t fuzz_u32(void)
{
    static const uint64_t edge[] = {
        0, 1, 2, 31, 32, 33, 64, 65, 1024, 4096, 0x10000, 0x7fffffff,
        0xffffffff,
    };

    if (chance(60)) {
        return below(300);
    }
    return chance(70) ? pick(edge, G_N_ELEMENTS(edge)) : (uint32_t)rnd();
}

/*
 * SIGNAL to many targets (1.1): a count around its limits, a target list
 * (the one prepare() filled in guest RAM, or anything), a stride or a
 * value list, each now and then at a bad alignment.
 */
static void fuzz_signal_list(Card *c, int i, union m890_packet *p)
{
    static const uint64_t counts[] = { 0, 1, 2, 3, 64, 255, 256, 257,
                                       0xffffffff };

    p->signal.count = chance(90) ? pick(counts, G_N_ELEMENTS(counts)) :
                                   (uint32_t)rnd();
    switch (below(3)) {
    case 0:
        p->signal.addr = 0;
        p->signal.targets = chance(70) ? VA_HOST + data[i] + below(64) * 8 :
                                         fuzz_va(c, i);
        break;
    case 1:
        p->signal.stride = chance(80) ? below(64) * 8 : fuzz_size();
        break;
    default:
        break;                          /* one address, count times */
    }
    if (chance(40)) {
        p->signal.values = chance(70) ? VA_HOST + data[i] + below(256) * 8 :
                                        fuzz_va(c, i);
    }
}

static union m890_packet fuzz_packet(Card *c, int i)
{
    union m890_packet p = { 0 };
    uint32_t op = chance(95) ? below(M890_PKT_OPCODE_COUNT) : rnd() & 0xff;
    unsigned int b;

    p.hdr = M890_PKT_HDR(op, chance(20) ? M890_PKT_F_RELAXED : 0);
    switch (op) {
    case M890_PKT_COPY:
        p.copy.src = fuzz_va(c, i);
        p.copy.dst = fuzz_va(c, i);
        p.copy.size = fuzz_size();
        if (chance(30)) {               /* put with signal (1.1) */
            p.copy.sig_addr = chance(80) ? fuzz_va(c, i) & ~7ull :
                                           fuzz_va(c, i);
            p.copy.sig_value = chance(80) ? below(4) : rnd();
        }
        break;
    case M890_PKT_COPY_2D:
        p.copy_2d.src = fuzz_va(c, i);
        p.copy_2d.dst = fuzz_va(c, i);
        p.copy_2d.width = fuzz_u32();
        p.copy_2d.height = fuzz_u32();
        p.copy_2d.src_pitch = chance(50) ? p.copy_2d.width : fuzz_size();
        p.copy_2d.dst_pitch = chance(50) ? p.copy_2d.width : fuzz_size();
        break;
    case M890_PKT_FILL:
        p.fill.dst = fuzz_va(c, i) & ~3ull;
        p.fill.size = fuzz_size() & ~3ull;
        p.fill.pattern = rnd();
        break;
    case M890_PKT_SIGNAL:
    case M890_PKT_WAIT:
        p.signal.op = below(3);
        p.signal.addr = fuzz_va(c, i) & ~7ull;
        p.signal.value = below(4);
        if (op == M890_PKT_SIGNAL && chance(40)) {
            fuzz_signal_list(c, i, &p);
        }
        break;
    case M890_PKT_TIMESTAMP:
        p.timestamp.addr = fuzz_va(c, i) & ~7ull;
        break;
    case M890_PKT_GATHER:
    case M890_PKT_SCATTER:
        p.gather.src = fuzz_va(c, i);
        p.gather.dst = fuzz_va(c, i);
        p.gather.idx = fuzz_va(c, i) & ~3ull;
        p.gather.row_bytes = fuzz_u32();
        p.gather.count = fuzz_u32();
        break;
    case M890_PKT_REDUCE:
        p.reduce.dtype = below(3);
        p.reduce.k = below(66);
        p.reduce.src = fuzz_va(c, i);
        p.reduce.dst = fuzz_va(c, i);
        p.reduce.idx = fuzz_va(c, i) & ~3ull;
        p.reduce.weight = fuzz_va(c, i) & ~3ull;
        p.reduce.rows = fuzz_u32();
        p.reduce.hidden = fuzz_u32();
        if (chance(40)) {
            /* spec 1.1: a segment table, unweighted sums */
            p.reduce.flags = below(5);
            p.reduce.src &= chance(90) ? ~7ull : ~0ull;
            p.reduce.seg_rows = fuzz_u32();
            if (p.reduce.flags & M890_REDUCE_F_UNWEIGHTED && chance(80)) {
                p.reduce.weight = 0;
            }
        }
        break;
    case M890_PKT_COPY_ROWS:
        p.copy_rows.row_bytes = chance(70) ? 1 + below(4096) : fuzz_u32();
        p.copy_rows.src = fuzz_va(c, i);
        p.copy_rows.dst = fuzz_va(c, i);
        p.copy_rows.src_idx = chance(30) ? 0 : fuzz_va(c, i) & ~3ull;
        p.copy_rows.dst_idx = chance(30) ? 0 : fuzz_va(c, i) & ~3ull;
        p.copy_rows.count = chance(70) ? below(600) : fuzz_u32();
        p.copy_rows.op = below(4);
        p.copy_rows.dtype = p.copy_rows.op ? below(3) : 0;
        p.copy_rows.tables = below(chance(90) ? 4 : 256);
        if (p.copy_rows.tables & M890_ROWS_SRC_TABLE) {
            p.copy_rows.src &= ~7ull;
        }
        if (p.copy_rows.tables & M890_ROWS_DST_TABLE) {
            p.copy_rows.dst &= ~7ull;
        }
        p.copy_rows.seg_rows = p.copy_rows.tables ? fuzz_u32() : 0;
        p.copy_rows.src_pitch = chance(50) ? 0 : fuzz_u32();
        p.copy_rows.dst_pitch = chance(50) ? 0 : fuzz_u32();
        p.copy_rows.mx_dtype = p.copy_rows.op == M890_ROWS_MX ? 2 + below(3) :
                               0;
        if (p.copy_rows.op == M890_ROWS_MX && chance(70)) {
            p.copy_rows.row_bytes = 64 * (1 + below(64));
        }
        break;
    case M890_PKT_MOE_ROUTE:
        p.moe_route.mode = below(3);
        p.moe_route.k = below(66);
        p.moe_route.ranks = chance(80) ? 1 + below(16) : fuzz_u32();
        p.moe_route.my_rank = below(p.moe_route.ranks + 1);
        p.moe_route.ids = fuzz_va(c, i) & ~3ull;
        p.moe_route.tmax = chance(80) ? 1 + below(300) : fuzz_u32();
        p.moe_route.tokens = p.moe_route.mode ? (chance(90) ? 0 : 1) :
                             below(p.moe_route.tmax + 2);
        p.moe_route.experts_per_rank = chance(80) ? 1 + below(64) :
                                       fuzz_u32();
        p.moe_route.cap = chance(80) ? 1 + below(100) : fuzz_u32();
        p.moe_route.out0 = fuzz_va(c, i) & ~3ull;
        p.moe_route.out1 = fuzz_va(c, i) & ~3ull;
        p.moe_route.out2 = fuzz_va(c, i) & ~7ull;
        p.moe_route.out3 = fuzz_va(c, i) & ~7ull;
        break;
    case M890_PKT_GEMM:
        /* mostly small shapes: a fuzz batch must stay quick */
        p.gemm.a_dtype = chance(80) ? (chance(50) ? 1 : 3) : below(5);
        p.gemm.w_dtype = chance(80) ? 1 + below(2) : below(5);
        p.gemm.flags = chance(90) ? below(4) : rnd() & 0xff;
        p.gemm.groups = chance(80) ? below(4) : rnd() & 0xff;
        p.gemm.k_blocks = chance(90) ? below(3) : fuzz_u32();
        p.gemm.n = chance(90) ? below(40) : fuzz_u32();
        p.gemm.cap = chance(80) ? below(20) : fuzz_u32();
        p.gemm.a = fuzz_va(c, i);
        p.gemm.w = fuzz_va(c, i);
        p.gemm.out = fuzz_va(c, i);
        p.gemm.idx = chance(50) ? 0 : fuzz_va(c, i) & ~3ull;
        p.gemm.counts = chance(50) ? 0 : fuzz_va(c, i) & ~3ull;
        p.gemm.weight = (p.gemm.flags & M890_GEMM_F_SCATTER_ADD) ||
                        chance(10) ? fuzz_va(c, i) & ~3ull : 0;
        break;
    case M890_PKT_MX_QUANT:
    case M890_PKT_MX_DEQUANT:
        p.mx.mx_dtype = below(5);
        p.mx.src_dtype = below(3);
        p.mx.src = fuzz_va(c, i);
        p.mx.dst = fuzz_va(c, i);
        p.mx.scale = fuzz_va(c, i);
        p.mx.count = chance(80) ? fuzz_size() & ~31ull : fuzz_size();
        break;
    case M890_PKT_FENCE:
        p.fence.flags = below(3);
        p.fence.value = rnd();
        break;
    }
    if (chance(20)) {
        b = below(512);
        p.dw[b / 32] ^= 1u << (b % 32);
    }
    if (chance(3)) {
        for (b = 0; b < 16; b++) {
            p.dw[b] = rnd();
        }
    }
    return p;
}

static uint64_t fuzz_reg(void)
{
    static const uint64_t regs[] = {
        M890_REG_ID, M890_REG_CONTROL, M890_REG_SCRATCH, M890_REG_CLOCK,
        M890_REG_EVT_STATUS, M890_REG_EVT_MASK, M890_REG_QERR_STATUS,
        M890_REG_QERR_STATUS_HI, M890_REG_MMU_CTX_BASE,
        M890_REG_MMU_CTX_COUNT, M890_REG_MMU_CONTROL,
        M890_REG_MMU_INVALIDATE, M890_REG_MMU_FAULT_ADDR,
        M890_REG_SW_CMD, M890_REG_SW_ARG0, M890_REG_SW_ARG1,
        M890_REG_SW_DATA(0), M890_REG_SW_EVENT,
    };

    switch (below(6)) {
    case 0:
    case 1:
        return pick(regs, G_N_ELEMENTS(regs));
    case 2:
    case 3:
        return M890_REG_Q(below(M890_MAX_QUEUES + 2)) +
               below(M890_REG_Q_STRIDE / 4) * 4;
    case 4:
        return M890_REG_DOORBELL(below(128)) + (chance(80) ? 0 : below(4096));
    default:
        return below(M890_REGS_SIZE - 8);
    }
}

static void fuzz_mmio(Card *c)
{
    uint64_t off = fuzz_reg(), v = chance(50) ? below(64) : rnd();
    unsigned int width = 1u << below(4);
    bool write = chance(60);

    if (off == M890_REG_CONTROL && chance(80)) {
        return;         /* device resets have their own, rarer op */
    }
    switch (width) {
    case 1:
        write ? qpci_io_writeb(c->dev, c->bar0, off, v) :
                (void)qpci_io_readb(c->dev, c->bar0, off);
        break;
    case 2:
        write ? qpci_io_writew(c->dev, c->bar0, off, v) :
                (void)qpci_io_readw(c->dev, c->bar0, off);
        break;
    case 4:
        write ? qpci_io_writel(c->dev, c->bar0, off, v) :
                (void)qpci_io_readl(c->dev, c->bar0, off);
        break;
    default:
        write ? qpci_io_writeq(c->dev, c->bar0, off, v) :
                (void)qpci_io_readq(c->dev, c->bar0, off);
        break;
    }
}

static void fuzz_queue_start(Card *c)
{
    int q = below(M890T_NQ);
    uint64_t r = M890_REG_Q(q);

    if (chance(80)) {
        queue_start_asid(c, q, chance(90) ? 0 : below(3));
        return;
    }
    wr(c, r + M890_Q_CONTROL, M890_Q_CONTROL_RESET);
    wrq(c, r + M890_Q_RING_BASE, chance(50) ? c->ring[q] + below(2) * 64 :
        rnd());
    wr(c, r + M890_Q_RING_ORDER, below(20));
    wr(c, r + M890_Q_ASID, chance(50) ? 0 : rnd());
    wrq(c, r + M890_Q_FENCE_ADDR, chance(50) ? c->fence[q] : rnd());
    wr(c, r + M890_Q_MSIX_VECTOR, chance(50) ? below(8) : rnd());
    wr(c, r + M890_Q_CONTROL, below(4));
}

static void fuzz_pte(Card *c, int i)
{
    uint64_t slot = tables[i][below(ntables[i])] + below(512) * 8, e;

    switch (below(4)) {
    case 0:
        e = rnd();
        break;
    case 1:
        e = rq64(c, slot) ^ (1ull << below(64));
        break;
    case 2:         /* plausible leaf */
        e = (below(HBM_SIZE * 2) & ~0xfffull) | M890_PTE_VALID |
            (below(2) ? M890_PTE_WRITE : 0) | (below(4) ? 0 : M890_PTE_LARGE) |
            below(4) << M890_PTE_TARGET_SHIFT | below(3) << M890_PTE_PEER_SHIFT;
        break;
    default:        /* a table pointing at one of the tables */
        e = tables[i][below(ntables[i])] | M890_PTE_VALID;
        break;
    }
    if (chance(10)) {
        slot = c->ctx + below(2) * 8;       /* the context descriptor */
    }
    wq64(c, slot, e);
    if (chance(50)) {
        wr(c, M890_REG_MMU_INVALIDATE, chance(50) ? M890_MMU_INV_ALL :
           below(3));
    }
}

static void fuzz_flr(Card *c)
{
    uint8_t cap = qpci_find_capability(c->dev, PCI_CAP_ID_EXP, 0);

    qpci_config_writew(c->dev, cap + PCI_EXP_DEVCTL,
                       qpci_config_readw(c->dev, cap + PCI_EXP_DEVCTL) |
                       PCI_EXP_DEVCTL_BCR_FLR);
    card_enable(c);
    card_restart(c);
}

static void fuzz_op(void)
{
    int i = below(2);
    Card *c = &cards[i];
    unsigned int k = below(1000);

    if (k < 350) {
        union m890_packet p = fuzz_packet(c, i);
        int q = below(M890T_NQ);

        post(c, q, &p);
    } else if (k < 600) {
        fuzz_mmio(c);
    } else if (k < 680) {
        fuzz_queue_start(c);
    } else if (k < 750) {
        fuzz_pte(c, i);
    } else if (k < 800) {
        uint8_t buf[64];

        for (unsigned int b = 0; b < sizeof(buf); b++) {
            buf[b] = rnd();
        }
        qpci_memwrite(c->dev, c->hbm, below(HBM_SIZE - 64), buf,
                      below(sizeof(buf)) + 1);
    } else if (k < 830) {
        qtest_memset(qs->qts, data[i] + below(DATA_SIZE - 256), rnd(),
                     below(256));
    } else if (k < 870) {
        wr(c, M890_REG_SW_CMD, below(8) | below(80) << M890_SW_CMD_ARG_SHIFT);
        if (chance(30)) {
            wrq(c, M890_REG_SW_ARG0, below(3));
        }
    } else if (k < 900) {
        uint64_t e = c->dev->msix_table_off + below(8) * PCI_MSIX_ENTRY_SIZE +
                     below(4) * 4;

        qpci_io_writel(c->dev, c->dev->msix_table_bar, e,
                       chance(50) ? 0 : rnd());
    } else if (k < 960) {
        /* qtest refuses a step of 0 ns ("could not advance time"). */
        qtest_clock_step(qs->qts, 1 + below(100000));
    } else if (k < 990) {
        recover(c, below(M890T_NQ));
    } else if (k < 997) {
        wr(c, M890_REG_CONTROL, M890_CONTROL_RESET);
        card_restart(c);
    } else {
        fuzz_flr(c);
    }
}

/* Both cards answer and still execute a COPY correctly. */
static void check_cards_work(void)
{
    /* stop both first: either card's DMA may reach the other's buffers */
    wr(&cards[0], M890_REG_CONTROL, M890_CONTROL_RESET);
    wr(&cards[1], M890_REG_CONTROL, M890_CONTROL_RESET);
    for (int i = 0; i < 2; i++) {
        Card *c = &cards[i];
        union m890_packet p;
        uint8_t buf[256], out[256];

        setup_mmu(c, 1 - i);
        card_restart(c);
        for (unsigned int b = 0; b < sizeof(buf); b++) {
            buf[b] = b ^ 0x5a;
        }
        qtest_memwrite(qs->qts, data[i], buf, sizeof(buf));
        p = copy_pkt(VA_HOST + data[i], VA_HBM + 0x1000, sizeof(buf));
        g_assert_cmphex(run(c, 0, &p), ==, M890T_IDLE);
        qpci_memread(c->dev, c->hbm, 0x1000, out, sizeof(out));
        g_assert(memcmp(buf, out, sizeof(buf)) == 0);
    }
}

static void prepare(int i)
{
    Card *c = &cards[i];
    uint64_t l1 = pt_new(c);
    unsigned int e;

    for (e = 0; e < 512; e++) {
        wq64(c, l1 + e * 8, 4 * MIB2 | PTE_HBM | M890_PTE_LARGE);
    }
    pt_set(c, c->root, VA_ALIAS, 2, l1 | M890_PTE_VALID);
    data[i] = galloc(c, DATA_SIZE);
    qtest_memset(qs->qts, data[i], 0, DATA_SIZE);
    /* a list of plausible semaphores for SIGNAL's targets */
    for (e = 0; e < M890_SIGNAL_MAX_TARGETS; e++) {
        qtest_writeq(qs->qts, data[i] + e * 8,
                     chance(90) ? fuzz_va(c, i) & ~7ull : fuzz_va(c, i));
    }
    /* tables the fuzz rewrites: the root, its level 2, two level 1s */
    ntables[i] = 0;
    tables[i][ntables[i]++] = c->root;
    tables[i][ntables[i]++] = rq64(c, c->root) & M890_PTE_ADDR_MASK;
    tables[i][ntables[i]++] = rq64(c, tables[i][1] + 8) & M890_PTE_ADDR_MASK;
    tables[i][ntables[i]++] = l1;
}

/* The number in environment variable @name, or @def if it is unset. */
static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *s = getenv(name);
    uint64_t v;

    if (!s) {
        return def;
    }
    if (qemu_strtou64(s, NULL, 0, &v) < 0) {
        g_error("%s: '%s' is not a number", name, s);
    }
    return v;
}

static void test_fuzz(const void *opaque)
{
    uint64_t seed = *(const uint64_t *)opaque;
    uint64_t ops = env_u64("M890_FUZZ_OPS", DEFAULT_OPS), n;
    struct sigaction sa = { .sa_handler = watchdog };

    g_test_message("seed 0x%" PRIx64 ", %" PRIu64 " operations", seed, ops);
    rng = seed ? seed : 1;
    qs = m890t_boot();
    card_init(qs, &cards[0], 0);
    card_init(qs, &cards[1], 1);
    prepare(0);
    prepare(1);
    sigaction(SIGALRM, &sa, NULL);
    for (n = 0; n < ops; n++) {
        if (n % BATCH == 0) {
            alarm(WATCHDOG_S);
            g_assert_cmphex(rd(&cards[0], M890_REG_ID), ==, M890_ID_MAGIC);
            g_assert_cmphex(rd(&cards[1], M890_REG_ID), ==, M890_ID_MAGIC);
        }
        fuzz_op();
    }
    g_assert_cmphex(rd(&cards[0], M890_REG_ID), ==, M890_ID_MAGIC);
    g_assert_cmphex(rd(&cards[1], M890_REG_ID), ==, M890_ID_MAGIC);
    check_cards_work();
    alarm(0);
    qtest_shutdown(qs);
    qs = NULL;
}

int main(int argc, char **argv)
{
    uint64_t seed0 = env_u64("M890_FUZZ_SEED", DEFAULT_SEED);
    uint64_t i, nseeds = MAX(env_u64("M890_FUZZ_SEEDS", 1), 1);
    uint64_t *seeds;

    g_test_init(&argc, &argv, NULL);
    seeds = g_new(uint64_t, nseeds);
    for (i = 0; i < nseeds; i++) {
        g_autofree char *name = NULL;

        seeds[i] = seed0 + i;
        name = g_strdup_printf("/m890/fuzz/seed-0x%" PRIx64, seeds[i]);
        qtest_add_data_func(name, &seeds[i], test_fuzz);
    }
    return g_test_run();
}
