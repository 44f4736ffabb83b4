/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of the spec 1.1 row packets (CAPS.ROWS)
 *
 * COPY_ROWS (§7.13) in each op (COPY, ADD in FP32 and BF16, MX to MXFP8
 * and MXFP4), with and without index lists, pitches and segment tables
 * (entries of 0, a segment past the table); MOE_ROUTE (§7.14) SEND and
 * RECV against a reference computed here, capacity overflow
 * (M890_QERR_CAPACITY after every write) and receive counts above tmax;
 * REDUCE (§7.10) with SRC_TABLE, UNWEIGHTED and seg_rows.  Every field
 * check, faults in index lists and tables (the fault address and the rows
 * done before), packets long enough to run in pieces over many runs
 * (§4.3), and the exact modelled time of single packets on an idle queue
 * (50 ns fetch plus the phase of §10: tables, lists and rows in their
 * classes, posted ADD rows on a peer, a round trip for a peer source).
 *
 * A spec 1.0 card (card 2, engines=0) refuses the opcodes and REDUCE's
 * new fields.
 *
 * Buffers are described by where they are (guest RAM, card 0's HBM, or
 * card 1's HBM, which card 0 reaches through VA_PEER) so that one test can
 * put each operand in any class.
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "m890-qtest.h"

#define HFS_NS          2000000ull
#define NS(n)           ((uint64_t)(n) * HFS_NS)
#define HBM_B(n)        ((uint64_t)(n) * 625)
#define HOST_B(n)       ((uint64_t)(n) * 31250)
#define PEER_B(n)       ((uint64_t)(n) * 2500)
#define FETCH           NS(50)
#define TRIP            NS(1000)
#define NONE            M890_INDEX_NONE
#define QNAN32          0x7fc00000u
#define QNAN16          0x7fc0u

static QOSState *qs;
static Card cards[3];           /* card 2: a spec 1.0 card */

typedef enum { M_HOST, M_HBM, M_PEER } Kind;

/* Memory as card 0 sees it: guest RAM, its own HBM or card 1's. */
typedef struct Buf {
    Kind kind;
    uint64_t addr;      /* guest physical address, or HBM offset */
} Buf;

static Buf host_buf(size_t n)
{
    return (Buf){ M_HOST, galloc(&cards[0], n) };
}

static Buf hbm_buf(uint64_t off)
{
    return (Buf){ M_HBM, off };
}

static Buf peer_buf(uint64_t off)
{
    return (Buf){ M_PEER, off };
}

static uint64_t va(Buf b)
{
    return b.addr + (b.kind == M_HOST ? VA_HOST :
                     b.kind == M_HBM ? VA_HBM : VA_PEER);
}

/* Guest physical address of byte @off of @b (HBM through its BAR). */
static uint64_t bphys(Buf b, uint64_t off)
{
    return b.addr + off +
           (b.kind == M_HOST ? 0 : cards[b.kind == M_PEER].hbm.addr);
}

static void bwrite(Buf b, uint64_t off, const void *p, size_t n)
{
    if (!n) {
        return;
    }
    qtest_bufwrite(qs->qts, bphys(b, off), p, n);
}

static void bread(Buf b, uint64_t off, void *p, size_t n)
{
    if (!n) {
        return;
    }
    qtest_bufread(qs->qts, bphys(b, off), p, n);
}

static void bfill(Buf b, int byte, size_t n)
{
    g_autofree uint8_t *t = g_malloc(n);

    memset(t, byte, n);
    bwrite(b, 0, t, n);
}

static void bw32(Buf b, uint64_t i, uint32_t v)
{
    bwrite(b, i * 4, &v, 4);
}

static uint32_t br32(Buf b, uint64_t i)
{
    uint32_t v;

    bread(b, i * 4, &v, 4);
    return v;
}

static uint32_t ld32(const void *p)
{
    return (uint32_t)ldl_le_p(p);
}

/* Deterministic bytes for row contents. */
static uint32_t seed = 1;

static uint32_t rnd32(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8 | (seed << 24);
}

static void brandom(Buf b, size_t n)
{
    g_autofree uint8_t *t = g_malloc(n);
    size_t i;

    for (i = 0; i < n; i++) {
        t[i] = rnd32();
    }
    bwrite(b, 0, t, n);
}

/* Reset card 0 (its clock restarts at 0) and program it again. */
static Card *fresh(void)
{
    Card *a = &cards[0];

    wr(a, M890_REG_CONTROL, M890_CONTROL_RESET);
    card_restart(a);
    g_assert_cmpuint(rdq(a, M890_REG_CLOCK), ==, 0);
    return a;
}

static void run_ok(const union m890_packet *p)
{
    g_assert_cmphex(run(&cards[0], 0, p), ==, M890T_IDLE);
}

static void fails(const union m890_packet *p, uint32_t err)
{
    expect_error(&cards[0], 0, p, err);
}

static void clock_is(uint64_t hfs)
{
    g_assert_cmpuint(rdq(&cards[0], M890_REG_CLOCK), ==, hfs / HFS_NS);
}

static union m890_packet rows_pkt(uint8_t op, uint32_t row_bytes, Buf src,
                                  Buf dst, uint32_t count)
{
    union m890_packet p = { 0 };

    p.copy_rows.hdr = M890_PKT_HDR(M890_PKT_COPY_ROWS, 0);
    p.copy_rows.op = op;
    p.copy_rows.row_bytes = row_bytes;
    p.copy_rows.src = va(src);
    p.copy_rows.dst = va(dst);
    p.copy_rows.count = count;
    return p;
}

/* ---- arithmetic references (spec 7.10, 7.13) ---- */

static float f32(uint32_t u)
{
    float f;

    memcpy(&f, &u, 4);
    return f;
}

static uint32_t u32f(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

/* True if binary32 bits @u are a NaN. */
static bool nan32(uint32_t u)
{
    return (u & 0x7fffffffu) > 0x7f800000u;
}

static uint16_t f2bf(float f)
{
    uint32_t u = u32f(f);

    if (nan32(u)) {
        return QNAN16;
    }
    return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
}

static float bf2f(uint16_t h)
{
    return f32((uint32_t)h << 16);
}

static uint32_t add32(uint32_t a, uint32_t b)
{
    uint32_t r = u32f(f32(a) + f32(b));

    return nan32(r) ? QNAN32 : r;
}

static uint16_t add16(uint16_t a, uint16_t b)
{
    return f2bf(bf2f(a) + bf2f(b));
}

/* ---- COPY_ROWS COPY ---- */

/*
 * Rows by both index lists, with pitches: NONE in either list skips the
 * row, equal destinations keep the later row, untouched rows stay.
 */
static void test_copy_lists(void)
{
    const uint32_t rb = 24, sp = 40, dp = 32, n = 8;
    static const uint32_t sidx[8] = { 3, 0, NONE, 7, 7, 1, 2, 5 };
    static const uint32_t didx[8] = { 0, 6, 1, NONE, 2, 2, 9, 4 };
    Buf src = host_buf(sp * 8), dst = hbm_buf(0x10000);
    Buf si = host_buf(64), di = hbm_buf(0x20000);
    uint8_t s[8 * 40], d[10 * 32], want[10 * 32];
    union m890_packet p;
    uint32_t i;

    brandom(src, sizeof(s));
    bread(src, 0, s, sizeof(s));
    bfill(dst, 0xee, sizeof(d));
    bwrite(si, 0, sidx, sizeof(sidx));
    bwrite(di, 0, didx, sizeof(didx));
    memset(want, 0xee, sizeof(want));
    for (i = 0; i < n; i++) {
        if (sidx[i] != NONE && didx[i] != NONE) {
            memcpy(want + didx[i] * dp, s + sidx[i] * sp, rb);
        }
    }
    p = rows_pkt(M890_ROWS_COPY, rb, src, dst, n);
    p.copy_rows.src_idx = va(si);
    p.copy_rows.dst_idx = va(di);
    p.copy_rows.src_pitch = sp;
    p.copy_rows.dst_pitch = dp;
    run_ok(&p);
    bread(dst, 0, d, sizeof(d));
    g_assert_cmpmem(d, sizeof(d), want, sizeof(want));

    /* no lists: row i to row i; pitch 0 is row_bytes */
    bfill(dst, 0xee, sizeof(d));
    p = rows_pkt(M890_ROWS_COPY, rb, src, dst, 5);
    p.copy_rows.src_pitch = sp;
    run_ok(&p);
    bread(dst, 0, d, sizeof(d));
    memset(want, 0xee, sizeof(want));
    for (i = 0; i < 5; i++) {
        memcpy(want + i * rb, s + i * sp, rb);
    }
    g_assert_cmpmem(d, sizeof(d), want, sizeof(want));
}

/*
 * Segment tables: DST_TABLE with segments in HBM, skipped (entry 0) and
 * on the peer; SRC_TABLE reading from two segments.  An index whose
 * segment is 256 fails with BAD_FIELD after the rows before it.
 */
static void test_copy_tables(void)
{
    const uint32_t rb = 16, seg = 4, n = 6;
    static const uint32_t didx[6] = { 0, 5, 9, 4, 3, 11 };
    Buf src = host_buf(rb * n), di = host_buf(64), tab = host_buf(4096);
    Buf s0 = hbm_buf(0x30000), s2 = peer_buf(0x30000);
    Buf stab = host_buf(64), sidx = host_buf(64), dst = hbm_buf(0x38000);
    uint64_t t[3] = { va(s0), 0, va(s2) };
    uint8_t s[6 * 16], a[4 * 16], c[4 * 16];
    union m890_packet p;
    uint32_t v;

    brandom(src, sizeof(s));
    bread(src, 0, s, sizeof(s));
    bfill(s0, 0, sizeof(a));
    bfill(s2, 0, sizeof(c));
    bwrite(di, 0, didx, sizeof(didx));
    bwrite(tab, 0, t, sizeof(t));
    p = rows_pkt(M890_ROWS_COPY, rb, src, tab, n);
    p.copy_rows.dst_idx = va(di);
    p.copy_rows.tables = M890_ROWS_DST_TABLE;
    p.copy_rows.seg_rows = seg;
    run_ok(&p);
    bread(s0, 0, a, sizeof(a));
    bread(s2, 0, c, sizeof(c));
    /* rows 0 and 3 to segment 0 rows 0, 3 (and row 4 to its row 3) */
    g_assert_cmpmem(a, 16, s, 16);
    g_assert_cmpmem(a + 3 * 16, 16, s + 4 * 16, 16);
    g_assert_cmpmem(c + 1 * 16, 16, s + 2 * 16, 16);     /* 9 = seg 2 row 1 */
    g_assert_cmpmem(c + 3 * 16, 16, s + 5 * 16, 16);     /* 11 */
    g_assert_cmpuint(a[16], ==, 0);                      /* 5, 4: skipped */
    g_assert_cmpuint(a[2 * 16], ==, 0);

    /* SRC_TABLE: rows 3 and 9 gathered back from segments 0 and 2 */
    bw32(sidx, 0, 3);
    bw32(sidx, 1, 9);
    bw32(sidx, 2, 5);                   /* segment 1: entry 0, skipped */
    bwrite(stab, 0, t, sizeof(t));
    bfill(dst, 0xee, 48);
    p = rows_pkt(M890_ROWS_COPY, rb, stab, dst, 3);
    p.copy_rows.src_idx = va(sidx);
    p.copy_rows.tables = M890_ROWS_SRC_TABLE;
    p.copy_rows.seg_rows = seg;
    run_ok(&p);
    bread(dst, 0, a, 48);
    g_assert_cmpmem(a, 16, s + 4 * 16, 16);
    g_assert_cmpmem(a + 16, 16, s + 2 * 16, 16);
    g_assert_cmpuint(a[32], ==, 0xee);

    /* row 1's index is in segment 256: row 0 is done, then BAD_FIELD */
    bfill(dst, 0xee, 48);
    bw32(sidx, 0, 0);
    bw32(sidx, 1, 256 * seg);
    p.copy_rows.count = 3;
    fails(&p, M890_QERR_BAD_FIELD);
    bread(dst, 0, &v, 4);
    g_assert_cmphex(v, ==, ld32(s));                /* segment 0 row 0 */
    bread(dst, 16, &v, 4);
    g_assert_cmphex(v, ==, 0xeeeeeeee);
}

/* ---- COPY_ROWS ADD ---- */

static const uint32_t edge32[] = {
    0x3f800000, 0x7f800000, 0xff800000, 0x7fc00001, 0xffc12345, 0x00000001,
    0x80000001, 0x007fffff, 0x7f7fffff, 0x33800000, 0x3f800001, 0x80000000,
    0x00000000, 0xbf800000, 0x4b800000, 0x3f7fffff,
};

/*
 * FP32 reduce-on-write: the destination rows (local HBM and a peer's)
 * become dst + src per element, one rounding, NaN as 0x7fc00000,
 * subnormals kept; two rows added to one destination row in ascending i.
 */
static void test_add_fp32(void)
{
    const uint32_t h = 48, rb = h * 4;
    static const uint32_t didx[3] = { 1, 0, 1 };
    Buf src = host_buf(3 * rb), di = host_buf(16);
    Buf dsts[2] = { hbm_buf(0x40000), peer_buf(0x40000) };
    uint32_t s[3][48], d[2][48], got[2][48], want[2][48];
    union m890_packet p;
    unsigned int i, j, x;

    for (i = 0; i < 3; i++) {
        for (j = 0; j < h; j++) {
            s[i][j] = rnd32();
            if (j < G_N_ELEMENTS(edge32)) {
                s[i][j] = edge32[(j + 5 * i) % G_N_ELEMENTS(edge32)];
            }
        }
    }
    for (i = 0; i < 2; i++) {
        for (j = 0; j < h; j++) {
            d[i][j] = j < G_N_ELEMENTS(edge32) ?
                      edge32[(j * 7 + i) % G_N_ELEMENTS(edge32)] :
                      rnd32() & 0xbfffffff;
        }
    }
    bwrite(src, 0, s, sizeof(s));
    bwrite(di, 0, didx, sizeof(didx));
    for (x = 0; x < 2; x++) {
        memcpy(want, d, sizeof(d));
        for (i = 0; i < 3; i++) {
            for (j = 0; j < h; j++) {
                want[didx[i]][j] = add32(want[didx[i]][j], s[i][j]);
            }
        }
        bwrite(dsts[x], 0, d, sizeof(d));
        p = rows_pkt(M890_ROWS_ADD, rb, src, dsts[x], 3);
        p.copy_rows.dtype = M890_DTYPE_FP32;
        p.copy_rows.dst_idx = va(di);
        run_ok(&p);
        bread(dsts[x], 0, got, sizeof(got));
        g_assert_cmpmem(got, sizeof(got), want, sizeof(want));
    }
}

/* BF16 reduce-on-write: fp32 sum rounded once more to BF16, NaN 0x7fc0. */
static void test_add_bf16(void)
{
    const uint32_t h = 1536, rb = h * 2;         /* two steps of 1024 */
    static const uint16_t e16[] = {
        0x3f80, 0x7f80, 0xff80, 0x7fc1, 0x0001, 0x8001, 0x7f7f, 0x3f81,
        0x4000, 0xc000, 0x3b80, 0x0000, 0x8000, 0x4380,
    };
    g_autofree uint16_t *s = g_new(uint16_t, h);
    g_autofree uint16_t *d = g_new(uint16_t, h);
    g_autofree uint16_t *got = g_new(uint16_t, h);
    Buf src = hbm_buf(0x50000), dst = host_buf(rb);
    union m890_packet p;
    unsigned int j;

    for (j = 0; j < h; j++) {
        s[j] = j < 200 ? e16[j % G_N_ELEMENTS(e16)] : rnd32();
        d[j] = j < 200 ? e16[(j / G_N_ELEMENTS(e16)) % G_N_ELEMENTS(e16)] :
               rnd32() & 0xbfff;
    }
    bwrite(src, 0, s, rb);
    bwrite(dst, 0, d, rb);
    p = rows_pkt(M890_ROWS_ADD, rb, src, dst, 1);
    p.copy_rows.dtype = M890_DTYPE_BF16;
    run_ok(&p);
    bread(dst, 0, got, rb);
    for (j = 0; j < h; j++) {
        if (got[j] != add16(d[j], s[j])) {
            g_test_message("element %u: 0x%04x + 0x%04x = 0x%04x, want 0x%04x",
                           j, d[j], s[j], got[j], add16(d[j], s[j]));
        }
        g_assert_cmphex(got[j], ==, add16(d[j], s[j]));
    }
}

/* ---- COPY_ROWS MX ---- */

/*
 * MX on the way: each destination row is MX_QUANT of its source row, the
 * element bytes then the scales, at the destination pitch (which only
 * has to hold the MX row).  The reference is an MX_QUANT packet.
 */
static void test_mx(void)
{
    static const struct {
        uint8_t dtype, mx;
        uint32_t nel;
    } cases[] = {
        { M890_DTYPE_BF16, M890_DTYPE_MXFP8, 3584 },
        { M890_DTYPE_FP32, M890_DTYPE_MXFP4, 2112 },
        { M890_DTYPE_BF16, M890_DTYPE_MXFP4, 64 },
    };
    unsigned int c, i;

    for (c = 0; c < G_N_ELEMENTS(cases); c++) {
        uint32_t nel = cases[c].nel;
        uint32_t esz = 4 >> cases[c].dtype;             /* FP32 0, BF16 1 */
        uint32_t elb = nel >> (cases[c].mx == M890_DTYPE_MXFP4);
        uint32_t mxr = elb + nel / 32, rb = nel * esz, dp = mxr + 8;
        Buf src = host_buf(3 * rb), di = host_buf(16);
        Buf dst = peer_buf(0x60000), ref = hbm_buf(0x80000);
        g_autofree uint8_t *got = g_malloc(3 * dp);
        g_autofree uint8_t *want = g_malloc(mxr);
        g_autofree uint8_t *row = g_malloc(rb);
        union m890_packet p = { 0 };

        brandom(src, 3 * rb);
        /* infinities and NaNs make NaN-scale blocks */
        bread(src, rb, row, rb);
        memset(row + 5 * esz, 0xff, esz);
        bwrite(src, rb, row, rb);
        bfill(dst, 0x5a, 3 * dp);
        bw32(di, 0, 2);
        bw32(di, 1, 0);
        bw32(di, 2, NONE);
        p = rows_pkt(M890_ROWS_MX, rb, src, dst, 3);
        p.copy_rows.dtype = cases[c].dtype;
        p.copy_rows.mx_dtype = cases[c].mx;
        p.copy_rows.dst_idx = va(di);
        p.copy_rows.dst_pitch = dp;
        run_ok(&p);
        bread(dst, 0, got, 3 * dp);
        for (i = 0; i < 2; i++) {
            union m890_packet m = { 0 };

            m.mx.hdr = M890_PKT_HDR(M890_PKT_MX_QUANT, 0);
            m.mx.mx_dtype = cases[c].mx;
            m.mx.src_dtype = cases[c].dtype;
            m.mx.src = va(src) + (uint64_t)i * rb;
            m.mx.dst = va(ref);
            m.mx.scale = va(ref) + elb;
            m.mx.count = nel;
            run_ok(&m);
            bread(ref, 0, want, mxr);
            g_assert_cmpmem(got + (i == 0 ? 2 : 0) * dp, mxr, want, mxr);
        }
        for (i = 0; i < 8; i++) {       /* the pitch's gap is untouched */
            g_assert_cmpuint(got[mxr + i], ==, 0x5a);
        }
        for (i = 0; i < dp; i++) {      /* row 1 of dst: no source */
            g_assert_cmpuint(got[dp + i], ==, 0x5a);
        }
    }
}

/* ---- field checks, zero counts, limits ---- */

static void test_rows_fields(void)
{
    Buf src = host_buf(4096), dst = hbm_buf(0x90000);
    union m890_packet ok = rows_pkt(M890_ROWS_COPY, 64, src, dst, 1), p;
    uint8_t buf[64];

    /* count 0: a no-op even with ranges past the VA space */
    p = rows_pkt(M890_ROWS_COPY, 64, src, dst, 0);
    p.copy_rows.src = ~0ull;
    p.copy_rows.src_idx = VA_NONE;
    run_ok(&p);

    p = ok;
    p.copy_rows.rsvd0 = 1;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.row_bytes = 0;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.row_bytes = M890_ROWS_MAX + 1;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.count = M890_ROWS_MAX + 1;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.src_idx = va(src) + 2;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.dst_idx = va(src) + 1;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.tables = M890_ROWS_SRC_TABLE;   /* seg_rows 0 */
    fails(&p, M890_QERR_BAD_FIELD);
    p.copy_rows.seg_rows = M890_ROWS_MAX + 1;
    fails(&p, M890_QERR_BAD_FIELD);
    p.copy_rows.seg_rows = 1;
    p.copy_rows.src = va(src) + 4;              /* table alignment */
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.seg_rows = 1;                   /* without a table */
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.tables = 4;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.src_pitch = 63;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.dst_pitch = 1;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.op = 3;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.dtype = M890_DTYPE_BF16;        /* COPY: 0 */
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.mx_dtype = M890_DTYPE_MXFP8;    /* not MX */
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.op = M890_ROWS_ADD;
    p.copy_rows.dtype = M890_DTYPE_MXFP4;
    fails(&p, M890_QERR_BAD_FIELD);
    p.copy_rows.dtype = M890_DTYPE_FP32;
    p.copy_rows.row_bytes = 62;                 /* not whole elements */
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.op = M890_ROWS_MX;
    p.copy_rows.dtype = M890_DTYPE_BF16;
    p.copy_rows.mx_dtype = M890_DTYPE_MXFP8;    /* 32 elements: ok */
    run_ok(&p);
    p.copy_rows.mx_dtype = M890_DTYPE_FP32;
    fails(&p, M890_QERR_BAD_FIELD);
    p.copy_rows.mx_dtype = M890_DTYPE_MXFP8;
    p.copy_rows.dtype = M890_DTYPE_FP32;        /* 16 elements */
    fails(&p, M890_QERR_BAD_FIELD);
    p.copy_rows.dtype = M890_DTYPE_BF16;
    p.copy_rows.dst_pitch = 32;                 /* MX row is 33 bytes */
    fails(&p, M890_QERR_BAD_FIELD);
    p.copy_rows.dst_pitch = 33;
    run_ok(&p);
    /* a side of consecutive rows past the VA space, before any access */
    p = ok;
    p.copy_rows.count = 2;
    p.copy_rows.dst = (1ull << 48) - 127;
    fails(&p, M890_QERR_BAD_FIELD);
    p.copy_rows.dst = (1ull << 48) - 128;
    p.copy_rows.src = VA_NONE;                  /* fits: faults instead */
    fails(&p, M890_QERR_MMU_FAULT);
    /* an index list past the VA space; a row past it at its index */
    p = ok;
    p.copy_rows.src_idx = (1ull << 48) - 4;
    p.copy_rows.count = 2;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.copy_rows.dst_idx = va(src);
    qtest_writel(qs->qts, src.addr, 0xffffff00);
    p.copy_rows.dst = (1ull << 48) - 64ull * 0xfffffeff;
    fails(&p, M890_QERR_BAD_FIELD);
    /* the largest row: 16 MiB, all of the HBM to host memory */
    {
        Buf big = host_buf(M890_ROWS_MAX);
        uint32_t v = 0x01020304;

        bwrite(hbm_buf(0), M890_ROWS_MAX - 4, &v, 4);
        p = rows_pkt(M890_ROWS_COPY, M890_ROWS_MAX, hbm_buf(0), big, 1);
        run_ok(&p);
        bread(big, M890_ROWS_MAX - 4, buf, 4);
        g_assert_cmphex(ld32(buf), ==, v);
    }
    /* opcode 0x10 stays undefined (0x0e is GEMM, m890-gemm-test.c) */
    p = ok;
    p.hdr = M890_PKT_HDR(0x10, 0);
    fails(&p, M890_QERR_BAD_OPCODE);
}

/*
 * Faults: an index list entry on an unmapped page (the VA of that entry
 * is reported, the rows before are done), a table entry on one, and a
 * destination row that is not mapped.
 */
static void test_rows_faults(void)
{
    Card *a = &cards[0];
    Buf src = host_buf(256), dst = host_buf(256);
    Buf list = hbm_buf(HBM_SIZE - 8);   /* entries 2.. lie past the HBM */
    union m890_packet p;
    uint32_t v;

    brandom(src, 256);
    bfill(dst, 0, 256);
    bw32(list, 0, 1);
    bw32(list, 1, 2);
    p = rows_pkt(M890_ROWS_COPY, 16, src, dst, 4);
    p.copy_rows.src_idx = va(list);
    fails(&p, M890_QERR_MMU_FAULT);
    g_assert_cmphex(rdq(a, M890_REG_MMU_FAULT_ADDR), ==, VA_HBM + HBM_SIZE);
    g_assert_cmphex((rd(a, M890_REG_MMU_FAULT_INFO) & M890_FAULT_REASON_MASK)
                    >> M890_FAULT_REASON_SHIFT, ==, M890_FAULT_OUT_OF_RANGE);
    bread(src, 32, &v, 4);
    g_assert_cmphex(br32(dst, 4), ==, v);       /* row 1 = source row 2 */

    /* a table in unmapped VA: the entry's VA */
    p = rows_pkt(M890_ROWS_COPY, 16, src, dst, 1);
    p.copy_rows.dst = VA_NONE + 0x100;
    p.copy_rows.tables = M890_ROWS_DST_TABLE;
    p.copy_rows.seg_rows = 1;
    fails(&p, M890_QERR_MMU_FAULT);
    g_assert_cmphex(rdq(a, M890_REG_MMU_FAULT_ADDR), ==, VA_NONE + 0x100);
    /* a table entry pointing to unmapped VA: the row's VA */
    {
        Buf tab = host_buf(16);
        uint64_t e[2] = { va(dst), VA_NONE + 0x4000 };

        bwrite(tab, 0, e, sizeof(e));
        p.copy_rows.dst = va(tab);
        p.copy_rows.count = 2;
        fails(&p, M890_QERR_MMU_FAULT);
        g_assert_cmphex(rdq(a, M890_REG_MMU_FAULT_ADDR), ==,
                        VA_NONE + 0x4000);
    }
    /* an ADD's destination is translated for writing */
    p = rows_pkt(M890_ROWS_ADD, 16, src, dst, 1);
    p.copy_rows.dtype = M890_DTYPE_FP32;
    p.copy_rows.dst = VA_NONE;
    fails(&p, M890_QERR_MMU_FAULT);
    g_assert_cmphex(rd(a, M890_REG_MMU_FAULT_INFO) & M890_FAULT_WRITE, ==,
                    M890_FAULT_WRITE);
}

/*
 * Pieces: 80 rows of 1 MiB (80 MiB, more than one run's 64 MiB budget,
 * so a row is split between runs) by lists that overwrite 4 destination
 * rows; and 40000 rows of 8 bytes (more rows than one run takes).
 */
static void test_rows_pieces(void)
{
    const uint32_t mib = 1 << 20, n = 80, m = 40000;
    Buf src = hbm_buf(0), dst = host_buf(4 * mib), si = host_buf(4 * n);
    Buf di = host_buf(4 * n), s8 = host_buf(8 * m), d8 = host_buf(8 * m);
    Buf i8 = host_buf(4 * m);
    g_autofree uint8_t *want = g_malloc(mib);
    g_autofree uint8_t *got = g_malloc(mib);
    g_autofree uint64_t *a = g_new(uint64_t, m);
    g_autofree uint64_t *b = g_new(uint64_t, m);
    g_autofree uint32_t *x = g_new(uint32_t, m);
    union m890_packet p;
    uint32_t i, j;

    brandom(src, 5 * mib);
    for (i = 0; i < n; i++) {
        bw32(si, i, i % 5);
        bw32(di, i, i % 4);
    }
    p = rows_pkt(M890_ROWS_COPY, mib, src, dst, n);
    p.copy_rows.src_idx = va(si);
    p.copy_rows.dst_idx = va(di);
    run_ok(&p);
    for (j = 0; j < 4; j++) {           /* row 76 + j wins: source 1 + j */
        bread(src, (uint64_t)(1 + j) * mib, want, mib);
        bread(dst, (uint64_t)j * mib, got, mib);
        g_assert_cmpmem(got, mib, want, mib);
    }

    for (i = 0; i < m; i++) {
        a[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull;
        x[i] = m - 1 - i;
    }
    bwrite(s8, 0, a, 8 * m);
    bwrite(i8, 0, x, 4 * m);
    p = rows_pkt(M890_ROWS_COPY, 8, s8, d8, m);
    p.copy_rows.dst_idx = va(i8);
    run_ok(&p);
    bread(d8, 0, b, 8 * m);
    for (i = 0; i < m; i++) {
        g_assert_cmphex(b[m - 1 - i], ==, a[i]);
    }
}

/* ---- exact modelled time of single packets (spec §10) ---- */

static void test_rows_charges(void)
{
    const uint32_t n = 16, rb = 4096;
    Buf si = hbm_buf(0xa0000), di = hbm_buf(0xa1000), tab = hbm_buf(0xa2000);
    Buf src = hbm_buf(0x100000), dst = peer_buf(0x100000);
    uint64_t e[2] = { va(dst), va(dst) + 8 * rb };
    union m890_packet p;
    uint32_t i;

    for (i = 0; i < n; i++) {
        bw32(si, i, i);
        bw32(di, i, (i * 5) % 16);
    }
    bwrite(tab, 0, e, sizeof(e));

    /* COPY by lists into a peer table: HBM reads, posted peer writes */
    fresh();
    p = rows_pkt(M890_ROWS_COPY, rb, src, tab, n);
    p.copy_rows.src_idx = va(si);
    p.copy_rows.dst_idx = va(di);
    p.copy_rows.tables = M890_ROWS_DST_TABLE;
    p.copy_rows.seg_rows = 8;
    run_ok(&p);
    clock_is(FETCH + MAX(HBM_B(2 * 8 + 8 * n + n * rb), PEER_B(n * rb)));
    g_assert_cmpuint(rdq(&cards[0], M890_REG_CLOCK), ==, 131);

    /* the same rows pulled from the peer: one round trip */
    fresh();
    p = rows_pkt(M890_ROWS_COPY, rb, dst, src, n);
    run_ok(&p);
    clock_is(FETCH + TRIP + MAX(HBM_B(n * rb), PEER_B(n * rb)));

    /* ADD on the peer: posted, the rows once on the link */
    fresh();
    p = rows_pkt(M890_ROWS_ADD, rb, src, dst, n);
    p.copy_rows.dtype = M890_DTYPE_FP32;
    run_ok(&p);
    clock_is(FETCH + MAX(HBM_B(n * rb), PEER_B(n * rb)));
    g_assert_cmpuint(rdq(&cards[0], M890_REG_CLOCK), ==, 131);

    /* ADD in local HBM: source read, destination read and written */
    fresh();
    p = rows_pkt(M890_ROWS_ADD, rb, src, hbm_buf(0x200000), n);
    p.copy_rows.dtype = M890_DTYPE_BF16;
    run_ok(&p);
    clock_is(FETCH + HBM_B(3 * n * rb));

    /* MX: wide rows read from HBM, MX rows written to the peer */
    fresh();
    p = rows_pkt(M890_ROWS_MX, rb, src, dst, n);
    p.copy_rows.dtype = M890_DTYPE_BF16;
    p.copy_rows.mx_dtype = M890_DTYPE_MXFP8;
    run_ok(&p);
    clock_is(FETCH + MAX(HBM_B(n * rb), PEER_B(n * (2048 + 64))));
    g_assert_cmpuint(rdq(&cards[0], M890_REG_CLOCK), ==, 92);

    /* index lists in host memory: their 8 bytes a row at 64 GB/s */
    fresh();
    {
        Buf hl = host_buf(8 * 64);

        for (i = 0; i < 64; i++) {
            bw32(hl, i, i);
            bw32(hl, 64 + i, NONE);
        }
        p = rows_pkt(M890_ROWS_COPY, 64, src, hbm_buf(0x300000), 64);
        p.copy_rows.src_idx = va(hl);
        p.copy_rows.dst_idx = va(hl) + 256;
        run_ok(&p);                     /* every row NONE: lists only */
        clock_is(FETCH + HOST_B(8 * 64));
    }
}

/* ---- MOE_ROUTE ---- */

typedef struct Route {
    uint32_t k, ranks, L, tmax, me;
} Route;

/* Spec 7.14 SEND, written as the rule reads. */
static void ref_send(const Route *r, const int32_t *ids, uint32_t tokens,
                     uint32_t tag, uint32_t *ssrc, uint32_t *sdst,
                     uint64_t *cnt, uint32_t *comb)
{
    g_autofree uint32_t *to = g_new0(uint32_t, r->ranks * r->tmax);
    uint32_t c[256] = { 0 }, t, j, i, x, d, pos = 0;

    for (t = 0; t < tokens; t++) {
        bool seen[256] = { false };

        for (j = 0; j < r->k; j++) {
            int32_t e = ids[t * r->k + j];

            comb[t * r->k + j] = NONE;
            if (e < 0 || seen[e / r->L]) {
                continue;
            }
            d = e / r->L;
            seen[d] = true;
            comb[t * r->k + j] = d * r->tmax + c[d];
            to[d * r->tmax + c[d]++] = t;
        }
    }
    for (i = 1; i <= r->ranks; i++) {
        d = (r->me + i) % r->ranks;
        for (x = 0; x < c[d]; x++, pos++) {
            ssrc[pos] = to[d * r->tmax + x];
            sdst[pos] = d * r->tmax + x;
        }
    }
    for (; pos < r->ranks * r->tmax; pos++) {
        ssrc[pos] = sdst[pos] = NONE;
    }
    for (d = 0; d < r->ranks; d++) {
        cnt[d] = (uint64_t)tag << 32 | c[d];
    }
}

static union m890_packet route_pkt(const Route *r, uint8_t mode, Buf ids,
                                   uint32_t tokens, uint32_t cap_tag,
                                   const Buf *out)
{
    union m890_packet p = { 0 };

    p.moe_route.hdr = M890_PKT_HDR(M890_PKT_MOE_ROUTE, 0);
    p.moe_route.mode = mode;
    p.moe_route.k = r->k;
    p.moe_route.my_rank = r->me;
    p.moe_route.ids = va(ids);
    p.moe_route.tokens = tokens;
    p.moe_route.tmax = r->tmax;
    p.moe_route.ranks = r->ranks;
    p.moe_route.experts_per_rank = r->L;
    p.moe_route.cap = cap_tag;
    p.moe_route.out0 = va(out[0]);
    p.moe_route.out1 = va(out[1]);
    p.moe_route.out2 = va(out[2]);
    p.moe_route.out3 = va(out[3]);
    return p;
}

/* Run a SEND of @tokens random tokens and compare every output. */
static void send_case(const Route *r, uint32_t tokens, Buf *o, Buf ids)
{
    uint64_t lists = (uint64_t)r->ranks * r->tmax, tk = tokens * r->k;
    g_autofree int32_t *id = g_new(int32_t, MAX(tk, 1));
    g_autofree uint32_t *ws = g_new(uint32_t, lists);
    g_autofree uint32_t *wd = g_new(uint32_t, lists);
    g_autofree uint32_t *gs = g_new(uint32_t, lists);
    g_autofree uint32_t *gd = g_new(uint32_t, lists);
    g_autofree uint32_t *wc = g_new(uint32_t, MAX(tk, 1));
    g_autofree uint32_t *gc = g_new(uint32_t, MAX(tk, 1));
    uint64_t wn[256], gn[256];
    union m890_packet p;
    uint64_t i;

    for (i = 0; i < tk; i++) {
        id[i] = rnd32() % 5 == 0 ? -1 : (int32_t)(rnd32() % (r->ranks * r->L));
    }
    bwrite(ids, 0, id, tk * 4);
    bfill(o[0], 0x11, lists * 4);
    bfill(o[1], 0x22, lists * 4);
    ref_send(r, id, tokens, 0xabc00000u + tokens, ws, wd, wn, wc);
    p = route_pkt(r, M890_ROUTE_SEND, ids, tokens, 0xabc00000u + tokens, o);
    run_ok(&p);
    bread(o[0], 0, gs, lists * 4);
    bread(o[1], 0, gd, lists * 4);
    bread(o[2], 0, gn, r->ranks * 8);
    bread(o[3], 0, gc, tk * 4);
    g_assert_cmpmem(gs, lists * 4, ws, lists * 4);
    g_assert_cmpmem(gd, lists * 4, wd, lists * 4);
    g_assert_cmpmem(gn, r->ranks * 8, wn, r->ranks * 8);
    g_assert_cmpmem(gc, tk * 4, wc, tk * 4);
}

static void test_route_send(void)
{
    Route r = { .k = 4, .ranks = 4, .L = 3, .tmax = 8, .me = 1 };
    static const int32_t fixed[6 * 4] = {
        0, 1, 2, 11,            /* rank 0 thrice, rank 3 */
        -1, -1, -1, -1,         /* no expert */
        5, 3, -1, 9,            /* rank 1 twice, rank 3 */
        4, 4, 4, 4,             /* one rank, one expert */
        11, 10, 0, 6,
        7, -1, 8, 2,
    };
    Buf o[4] = { host_buf(4096), hbm_buf(0xb0000), host_buf(4096),
                 peer_buf(0xb0000) };
    Buf ids = host_buf(4096);
    uint32_t ws[32], wd[32], wc[24], gs[32], gd[32], gc[24];
    uint64_t wn[4], gn[4];
    union m890_packet p, bad;

    bwrite(ids, 0, fixed, sizeof(fixed));
    ref_send(&r, fixed, 6, 7, ws, wd, wn, wc);
    p = route_pkt(&r, M890_ROUTE_SEND, ids, 6, 7, o);
    run_ok(&p);
    bread(o[0], 0, gs, sizeof(gs));
    bread(o[2], 0, gn, sizeof(gn));
    bread(o[3], 0, gc, sizeof(gc));
    g_assert_cmpmem(gs, sizeof(gs), ws, sizeof(ws));
    g_assert_cmpmem(gn, sizeof(gn), wn, sizeof(wn));
    g_assert_cmpmem(gc, sizeof(gc), wc, sizeof(wc));
    bread(o[1], 0, gd, sizeof(gd));
    g_assert_cmpmem(gd, sizeof(gd), wd, sizeof(wd));
    /* rank 2 first: tokens 4 and 5 */
    g_assert_cmphex(gs[0], ==, 4);
    g_assert_cmphex(gn[2], ==, 7ull << 32 | 2);
    g_assert_cmphex(br32(o[1], 0), ==, 2 * 8);
    g_assert_cmphex(gc[0], ==, 0);              /* token 0 slot 0: rank 0 */
    g_assert_cmphex(gc[1], ==, NONE);
    g_assert_cmphex(gc[3], ==, 3 * 8);

    /* random cases, tokens 0 and tmax, one rank */
    send_case(&r, 0, o, ids);
    send_case(&r, 8, o, ids);
    r = (Route){ .k = 1, .ranks = 1, .L = 1, .tmax = 3, .me = 0 };
    send_case(&r, 3, o, ids);
    r = (Route){ .k = 64, .ranks = 7, .L = 5, .tmax = 5, .me = 6 };
    send_case(&r, 5, o, ids);

    /* field checks */
    r = (Route){ .k = 4, .ranks = 4, .L = 3, .tmax = 8, .me = 1 };
    bad = route_pkt(&r, M890_ROUTE_SEND, ids, 6, 7, o);
    p = bad;
    p.moe_route.mode = 2;
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.k = 0;
    fails(&p, M890_QERR_BAD_FIELD);
    p.moe_route.k = 65;
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.my_rank = 4;
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.ranks = 0;
    p.moe_route.my_rank = 0;
    fails(&p, M890_QERR_BAD_FIELD);
    p.moe_route.ranks = 257;
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.ids += 2;
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.tokens = 9;
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.tmax = 0;
    fails(&p, M890_QERR_BAD_FIELD);
    p.moe_route.tmax = M890_ROUTE_MAX_TMAX + 1;
    fails(&p, M890_QERR_BAD_FIELD);
    p.moe_route.tmax = 1 << 20;                 /* 4 * 2^20 > 2^24 */
    p.moe_route.ranks = 17;
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.experts_per_rank = 0;
    fails(&p, M890_QERR_BAD_FIELD);
    p.moe_route.experts_per_rank = M890_ROUTE_MAX_EXPERTS + 1;
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.out2 += 4;                      /* SEND: 8-byte aligned */
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.out3 += 2;
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.out0 = (1ull << 48) - 64;       /* 32 entries past 2^48 */
    fails(&p, M890_QERR_BAD_FIELD);
    /* an expert id out of range, and below -1 */
    p = bad;
    qtest_writel(qs->qts, ids.addr + 4 * 5, 12);
    fails(&p, M890_QERR_BAD_FIELD);
    qtest_writel(qs->qts, ids.addr + 4 * 5, -2);
    fails(&p, M890_QERR_BAD_FIELD);
    /* ids on an unmapped page */
    p = bad;
    p.moe_route.ids = VA_NONE;
    fails(&p, M890_QERR_MMU_FAULT);
}

/* Spec 7.14 RECV, written as the rule reads; returns the largest count. */
static uint32_t ref_recv(const Route *r, const uint8_t *meta,
                         const uint32_t *got, uint32_t cap, uint32_t *cnt,
                         uint32_t *rows, uint32_t *w)
{
    uint32_t s, i, j, most = 0;

    memset(cnt, 0, r->L * 4);
    for (s = 0; s < r->ranks; s++) {
        for (i = 0; i < got[s]; i++) {
            const uint8_t *m = meta + ((uint64_t)s * r->tmax + i) * 8 * r->k;

            for (j = 0; j < r->k; j++) {
                int32_t e = ld32(m + 4 * j);
                uint32_t le, pos;

                if (e < 0 || (uint32_t)e / r->L != r->me) {
                    continue;
                }
                le = e % r->L;
                pos = cnt[le]++;
                if (pos < cap) {
                    rows[le * cap + pos] = s * r->tmax + i;
                    w[le * cap + pos] = ld32(m + 4 * (r->k + j));
                }
            }
        }
    }
    for (i = 0; i < r->L; i++) {
        most = MAX(most, cnt[i]);
    }
    return most;
}

/*
 * RECV of random meta rows: counts, expert-major rows and weights; the
 * entries past a count are not written.  With a small cap the packet
 * writes everything, then stops with M890_QERR_CAPACITY.
 */
static void recv_case(const Route *r, uint32_t cap, Buf meta, Buf *o,
                      bool overflow)
{
    uint64_t mrow = 8 * r->k, nrows = (uint64_t)r->ranks * r->tmax;
    uint64_t lc = (uint64_t)r->L * cap;
    g_autofree uint8_t *m = g_malloc(nrows * mrow);
    g_autofree uint32_t *wr_ = g_new(uint32_t, lc);
    g_autofree uint32_t *ww = g_new(uint32_t, lc);
    g_autofree uint32_t *gr = g_new(uint32_t, lc);
    g_autofree uint32_t *gw = g_new(uint32_t, lc);
    g_autofree uint32_t *wc = g_new(uint32_t, r->L);
    g_autofree uint32_t *gc = g_new(uint32_t, r->L);
    uint32_t got[256];
    uint64_t cnt[256];
    union m890_packet p;
    uint64_t i;
    uint32_t s, most;

    for (i = 0; i < nrows * mrow / 4; i++) {
        uint32_t v = rnd32();

        if ((i % (2 * r->k)) < r->k) {          /* an id */
            v = v % 9 == 0 ? (uint32_t)-1 : v % (r->ranks * r->L);
        }
        stl_le_p(m + 4 * i, v);
    }
    for (s = 0; s < r->ranks; s++) {
        got[s] = s == 1 ? 0 : rnd32() % (r->tmax + 1);
        cnt[s] = (uint64_t)0x1234 << 32 | got[s];
    }
    got[0] = r->tmax;
    cnt[0] = (uint64_t)0x1234 << 32 | r->tmax;
    bwrite(meta, 0, m, nrows * mrow);
    bwrite(o[3], 0, cnt, r->ranks * 8);
    memset(wr_, 0x77, lc * 4);
    memset(ww, 0x77, lc * 4);
    bwrite(o[1], 0, wr_, lc * 4);
    bwrite(o[2], 0, ww, lc * 4);
    most = ref_recv(r, m, got, cap, wc, wr_, ww);
    g_assert(overflow == (most > cap));
    p = route_pkt(r, M890_ROUTE_RECV, meta, 0, cap, o);
    if (overflow) {
        fails(&p, M890_QERR_CAPACITY);
    } else {
        run_ok(&p);
    }
    bread(o[0], 0, gc, r->L * 4);
    bread(o[1], 0, gr, lc * 4);
    bread(o[2], 0, gw, lc * 4);
    g_assert_cmpmem(gc, r->L * 4, wc, r->L * 4);
    g_assert_cmpmem(gr, lc * 4, wr_, lc * 4);
    g_assert_cmpmem(gw, lc * 4, ww, lc * 4);
}

static void test_route_recv(void)
{
    Route r = { .k = 3, .ranks = 3, .L = 4, .tmax = 6, .me = 2 };
    const uint64_t zero[3] = { 0 }, seven = 7;
    Buf meta = host_buf(65536);
    Buf o[4] = { hbm_buf(0xc0000), host_buf(65536), peer_buf(0xc0000),
                 hbm_buf(0xc8000) };
    union m890_packet p, bad;

    recv_case(&r, 64, meta, o, false);
    recv_case(&r, 1, meta, o, true);
    r = (Route){ .k = 16, .ranks = 8, .L = 14, .tmax = 16, .me = 5 };
    recv_case(&r, 64, meta, o, false);
    r = (Route){ .k = 1, .ranks = 1, .L = 1, .tmax = 4, .me = 0 };
    recv_case(&r, 2, meta, o, true);

    /* field checks */
    r = (Route){ .k = 3, .ranks = 3, .L = 4, .tmax = 6, .me = 2 };
    bad = route_pkt(&r, M890_ROUTE_RECV, meta, 0, 8, o);
    p = bad;
    p.moe_route.tokens = 1;
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.cap = 0;
    fails(&p, M890_QERR_BAD_FIELD);
    p.moe_route.cap = M890_ROWS_MAX + 1;
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.out3 += 4;                      /* RECV: 8-byte aligned */
    fails(&p, M890_QERR_BAD_FIELD);
    p = bad;
    p.moe_route.out2 += 4;                      /* RECV: 4 is enough */
    bwrite(o[3], 0, zero, sizeof(zero));
    run_ok(&p);
    /* a receive count above tmax, before any write */
    bw32(o[0], 0, 0x5555);
    bwrite(o[3], 8, &seven, 8);
    fails(&bad, M890_QERR_BAD_FIELD);
    g_assert_cmphex(br32(o[0], 0), ==, 0x5555);
}

/* SEND and RECV over many runs: more tokens and rows than a run takes. */
static void test_route_pieces(void)
{
    Route r = { .k = 2, .ranks = 2, .L = 3, .tmax = 20000, .me = 0 };
    Buf ids = host_buf(8 * 20000);
    Buf o[4] = { host_buf(4 * 40000), host_buf(4 * 40000), host_buf(16),
                 host_buf(8 * 20000) };
    Buf meta = host_buf(16 * 40000);
    Buf ro[4] = { host_buf(16), host_buf(4 * 3 * 40000),
                  host_buf(4 * 3 * 40000), host_buf(16) };

    send_case(&r, 20000, o, ids);
    recv_case(&r, 40000, meta, ro, false);
}

/*
 * MOE_ROUTE's bytes, everything in host memory (64 bytes a ns, so that
 * one id too many shows): SEND reads the ids twice and writes every
 * output; RECV reads the counts and the received meta rows and writes
 * the list entries and the counts.
 */
static void test_route_charges(void)
{
    Route r = { .k = 8, .ranks = 8, .L = 4, .tmax = 128, .me = 3 };
    const uint32_t tokens = 100, cap = 512;
    const uint64_t lists = 8 * 128;
    Buf ids = host_buf(lists * 64);
    Buf o[4] = { host_buf(4 * lists), host_buf(4 * lists), host_buf(64),
                 host_buf(4 * tokens * 8) };
    Buf ro[4] = { host_buf(16), host_buf(4 * 4 * cap), host_buf(4 * 4 * cap),
                  host_buf(64) };
    g_autofree uint8_t *m = g_malloc0(lists * 64);
    uint64_t cnt[8], rows = 0, hits = 0, i;
    union m890_packet p;
    uint32_t s, j;

    fresh();
    send_case(&r, tokens, o, ids);
    clock_is(FETCH + HOST_B(2 * tokens * 32 + 8 * lists + 8 * 8 +
                            tokens * 32));

    for (s = 0; s < 8; s++) {
        cnt[s] = 10 + s;
        rows += cnt[s];
        for (i = 0; i < cnt[s]; i++) {
            uint8_t *row = m + (s * 128 + i) * 64;

            for (j = 0; j < 8; j++) {
                uint32_t e = (s * 7 + i * 3 + j * 5) % 32;

                stl_le_p(row + 4 * j, e);
                stl_le_p(row + 32 + 4 * j, 0x3f800000 + j);
                hits += e / 4 == r.me;
            }
        }
    }
    bwrite(ids, 0, m, lists * 64);
    bwrite(ro[3], 0, cnt, sizeof(cnt));
    fresh();
    p = route_pkt(&r, M890_ROUTE_RECV, ids, 0, cap, ro);
    run_ok(&p);
    clock_is(FETCH + HOST_B(8 * 8 + rows * 64 + 8 * hits + 4 * 4));
}

/* ---- REDUCE tables ---- */

static union m890_packet reduce_pkt(uint8_t dtype, uint8_t k, uint16_t flags,
                                    uint64_t src, Buf dst, Buf idx,
                                    uint32_t rows, uint32_t hidden,
                                    uint32_t seg_rows)
{
    union m890_packet p = { 0 };

    p.reduce.hdr = M890_PKT_HDR(M890_PKT_REDUCE, 0);
    p.reduce.dtype = dtype;
    p.reduce.k = k;
    p.reduce.flags = flags;
    p.reduce.src = src;
    p.reduce.dst = va(dst);
    p.reduce.idx = va(idx);
    p.reduce.rows = rows;
    p.reduce.hidden = hidden;
    p.reduce.seg_rows = seg_rows;
    return p;
}

/*
 * SRC_TABLE with segments in HBM, on the peer and skipped, UNWEIGHTED
 * and weighted, FP32 and BF16: sums in ascending j as the rule reads.
 */
static void test_reduce_table(void)
{
    const uint32_t seg = 3, h = 40, k = 4, rows = 5;
    Buf s0 = hbm_buf(0x120000), s1 = peer_buf(0x120000), s3 = host_buf(4096);
    Buf tab = host_buf(64), idx = host_buf(256), wt = host_buf(256);
    Buf dst = hbm_buf(0x130000);
    uint64_t t[4] = { va(s0), va(s1), 0, va(s3) };
    uint32_t ix[5 * 4] = {
        0, 4, NONE, 9,          /* seg 0, 1, -, 3 */
        7, 6, 2, 2,             /* 7, 6: segment 2 (entry 0) */
        NONE, NONE, NONE, NONE,
        11, 10, 9, 1,
        5, 3, 0, 8,
    };
    float w[20];
    unsigned int dt, uw, r, j, c;

    for (j = 0; j < 20; j++) {
        w[j] = 0.25f * (j % 7) - 0.5f;
    }
    bwrite(tab, 0, t, sizeof(t));
    bwrite(idx, 0, ix, sizeof(ix));
    bwrite(wt, 0, w, sizeof(w));
    for (dt = 0; dt < 2; dt++) {
        uint32_t esz = dt ? 2 : 4, rb = h * esz;
        uint8_t sv[4][3 * 160], got[5 * 160];

        for (j = 0; j < 4; j++) {
            for (c = 0; c < 3 * h; c++) {
                float f = (float)((int)(rnd32() % 2001) - 1000) / 64;

                if (dt) {
                    stw_le_p(sv[j] + 2 * c, f2bf(f));
                } else {
                    stl_le_p(sv[j] + 4 * c, u32f(f));
                }
            }
        }
        bwrite(s0, 0, sv[0], 3 * rb);
        bwrite(s1, 0, sv[1], 3 * rb);
        bwrite(s3, 0, sv[3], 3 * rb);
        for (uw = 0; uw < 2; uw++) {
            union m890_packet p;

            p = reduce_pkt(dt, k, M890_REDUCE_F_SRC_TABLE |
                           (uw ? M890_REDUCE_F_UNWEIGHTED : 0), va(tab), dst,
                           idx, rows, h, seg);
            p.reduce.weight = uw ? 0 : va(wt);
            run_ok(&p);
            bread(dst, 0, got, rows * rb);
            for (r = 0; r < rows; r++) {
                for (c = 0; c < h; c++) {
                    float acc = 0.0f, x;

                    for (j = 0; j < k; j++) {
                        uint32_t i = ix[r * k + j], sg = i / seg;
                        const uint8_t *e;

                        if (i == NONE || sg == 2) {
                            continue;
                        }
                        e = sv[sg] + ((i % seg) * h + c) * esz;
                        x = dt ? bf2f(lduw_le_p(e)) : f32(ld32(e));
                        acc = uw ? acc + x : acc + w[r * k + j] * x;
                    }
                    if (dt) {
                        g_assert_cmphex(lduw_le_p(got + (r * h + c) * 2), ==,
                                        f2bf(acc));
                    } else {
                        g_assert_cmphex(ld32(got + (r * h + c) * 4), ==,
                                        u32f(acc));
                    }
                }
            }
        }
    }
}

static void test_reduce_fields(void)
{
    Buf tab = host_buf(4096), idx = host_buf(64), dst = hbm_buf(0x140000);
    union m890_packet ok, p;
    uint64_t e = VA_HBM;

    bwrite(tab, 0, &e, 8);
    bw32(idx, 0, 0);
    ok = reduce_pkt(M890_DTYPE_FP32, 1, M890_REDUCE_F_SRC_TABLE |
                    M890_REDUCE_F_UNWEIGHTED, va(tab), dst, idx, 1, 16, 1);
    run_ok(&ok);
    p = ok;
    p.reduce.weight = va(idx);                  /* UNWEIGHTED: weight 0 */
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.reduce.flags = 4;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.reduce.seg_rows = 0;
    fails(&p, M890_QERR_BAD_FIELD);
    p.reduce.seg_rows = M890_ROWS_MAX + 1;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.reduce.src += 4;
    fails(&p, M890_QERR_BAD_FIELD);
    p = ok;
    p.reduce.flags = M890_REDUCE_F_UNWEIGHTED;  /* seg_rows without table */
    fails(&p, M890_QERR_BAD_FIELD);
    p.reduce.seg_rows = 0;
    p.reduce.src = VA_HBM;
    run_ok(&p);
    /* an index in segment 256 */
    p = ok;
    bw32(idx, 0, 256);
    fails(&p, M890_QERR_BAD_FIELD);
    /* the table entry on an unmapped page */
    p = ok;
    bw32(idx, 0, 0);
    p.reduce.src = VA_NONE;
    fails(&p, M890_QERR_MMU_FAULT);
    g_assert_cmphex(rdq(&cards[0], M890_REG_MMU_FAULT_ADDR), ==, VA_NONE);
}

/*
 * REDUCE's bytes with a table: each entry used once (8 bytes), the
 * indices, local rows and the output in HBM, peer rows on the link after
 * one round trip; no weights with UNWEIGHTED.
 */
static void test_reduce_charges(void)
{
    const uint32_t h = 2048, k = 4, rows = 8, seg = 16;
    Buf tab = hbm_buf(0x150000), idx = hbm_buf(0x151000);
    Buf dst = hbm_buf(0x160000);
    uint64_t t[2] = { VA_HBM + 0x200000, VA_PEER + 0x200000 };
    uint32_t r, j, local = 0, remote = 0;
    union m890_packet p;

    bwrite(tab, 0, t, sizeof(t));
    for (r = 0; r < rows; r++) {
        for (j = 0; j < k; j++) {
            uint32_t i = j == 3 ? NONE : (r * 3 + j * 7) % (2 * seg);

            bw32(idx, r * k + j, i);
            if (i != NONE) {
                *(i < seg ? &local : &remote) += 1;
            }
        }
    }
    fresh();
    p = reduce_pkt(M890_DTYPE_BF16, k, M890_REDUCE_F_SRC_TABLE |
                   M890_REDUCE_F_UNWEIGHTED, va(tab), dst, idx, rows, h, seg);
    run_ok(&p);
    clock_is(FETCH + TRIP + MAX(HBM_B(16 + rows * k * 4 + local * 2 * h +
                                      rows * 2 * h),
                                PEER_B(remote * 2 * h)));
}

/* A spec 1.0 card: no CAPS.ROWS, opcodes 0x0c and 0x0d, REDUCE flags. */
static void test_spec_1_0(void)
{
    Card *old = &cards[2];
    Buf idx = host_buf(64);
    union m890_packet p;

    g_assert_cmphex(rd(old, M890_REG_CAPS) & M890_HWCAP_ROWS, ==, 0);
    p = rows_pkt(M890_ROWS_COPY, 64, idx, idx, 0);
    expect_error(old, 0, &p, M890_QERR_BAD_OPCODE);
    p.hdr = M890_PKT_HDR(M890_PKT_MOE_ROUTE, 0);
    expect_error(old, 0, &p, M890_QERR_BAD_OPCODE);
    bw32(idx, 0, 0);
    p = reduce_pkt(M890_DTYPE_FP32, 1, 0, VA_HBM, hbm_buf(0x170000), idx, 1,
                   16, 0);
    p.reduce.weight = va(idx);
    g_assert_cmphex(run(old, 0, &p), ==, M890T_IDLE);
    p.reduce.flags = M890_REDUCE_F_UNWEIGHTED;
    p.reduce.weight = 0;
    expect_error(old, 0, &p, M890_QERR_BAD_FIELD);
    p.reduce.flags = 0;
    p.reduce.seg_rows = 1;
    p.reduce.weight = va(idx);
    expect_error(old, 0, &p, M890_QERR_BAD_FIELD);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    qs = m890t_boot_with_1_0();
    card_init(qs, &cards[0], 0);
    card_init(qs, &cards[1], 1);
    card_init_at(qs, &cards[2], QPCI_DEVFN(6, 0), 1);
    g_assert_cmphex(rd(&cards[0], M890_REG_CAPS) & M890_HWCAP_ROWS, ==,
                    M890_HWCAP_ROWS);
    qtest_add_func("/m890/rows/copy-lists", test_copy_lists);
    qtest_add_func("/m890/rows/copy-tables", test_copy_tables);
    qtest_add_func("/m890/rows/add-fp32", test_add_fp32);
    qtest_add_func("/m890/rows/add-bf16", test_add_bf16);
    qtest_add_func("/m890/rows/mx", test_mx);
    qtest_add_func("/m890/rows/fields", test_rows_fields);
    qtest_add_func("/m890/rows/faults", test_rows_faults);
    qtest_add_func("/m890/rows/pieces", test_rows_pieces);
    qtest_add_func("/m890/rows/charges", test_rows_charges);
    qtest_add_func("/m890/route/send", test_route_send);
    qtest_add_func("/m890/route/recv", test_route_recv);
    qtest_add_func("/m890/route/pieces", test_route_pieces);
    qtest_add_func("/m890/route/charges", test_route_charges);
    qtest_add_func("/m890/reduce/table", test_reduce_table);
    qtest_add_func("/m890/reduce/fields", test_reduce_fields);
    qtest_add_func("/m890/reduce/charges", test_reduce_charges);
    qtest_add_func("/m890/rows/spec-1.0", test_spec_1_0);
    ret = g_test_run();
    qtest_shutdown(qs);
    return ret;
}
