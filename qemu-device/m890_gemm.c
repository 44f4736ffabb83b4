/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: M890 GEMM packet (spec 1.1, CAPS.GEMM, §7.15)
 *
 * A grouped matrix multiply over the expert-major layout MOE_ROUTE RECV
 * produces: group g (a local expert) has count_g rows, each an activation
 * row (BF16, or MXFP8 in the dispatch's wire format: elements then
 * scales) read contiguously or through an index list, multiplied by the
 * group's weight matrix (BF16, or MXFP4 rows: elements then scales).
 * The epilogue optionally fuses SwiGLU (gate rows then up rows) and
 * either stores bf16 rows in expert-major order or adds them, weighted,
 * into the rows the index list names (SCATTER_ADD: the combine's input).
 *
 * Arithmetic is defined bit for bit and done with QEMU's softfloat in
 * binary32, round to nearest even, no fused multiply-add, subnormals
 * kept: operands are dequantized as MX_DEQUANT does, each product and
 * each sum is rounded, terms are added in ascending k from +0.0.  The
 * host reference (libm890 gemm.c) does the same operations in the same
 * order in C floats, so both give the same bits.
 *
 * Work is cut into pieces: one piece is a tile of up to
 * M890_GEMM_TILE_ROWS rows by up to M890_GEMM_TILE_COLS output columns
 * (with SwiGLU twice as many weight rows) over the whole K, fewer columns
 * when K is large so that a piece does at most M890_GEMM_PIECE_MACS
 * multiply-adds.  Each piece counts its multiply-adds against the run's
 * arithmetic (M890_BH_MAX_ELEMS, spec §4.3) and 16 bytes per multiply-add
 * against its bytes, at least M890_STEP_CHARGE and at least the weight
 * bytes it read.  Only the rows of a tile that are not NONE are computed:
 * a tile whose rows are all NONE reads no weights (the group's first tile
 * still reads them, for the timing model, but decodes nothing) and is one
 * step for all its columns, so the work of a run is bounded whatever the
 * index list holds (a piece decodes at most twice its multiply-adds).
 * State between pieces
 * (group, row, column tile, the tile's checked index and weight copies)
 * lives in q->gemm; the SCATTER_ADD "row seen" bitmap is allocated once
 * per queue with a fixed size (M890_GEMM_MAX_OUT_ROWS bits), never sized
 * by a guest field.
 *
 * The timing model charges what the card's engines move, independent of
 * how this emulation tiles the work: each group's weights once, each
 * activation row once, each output row once (SCATTER_ADD: read too
 * unless it is the row's first write), the count, index and weight
 * lists as read; and the multiply-adds on the card's matrix engines
 * (m890_clock_compute()) at the rate of the operand formats.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bitmap.h"
#include "hw/pci/pci_device.h"
#include "fpu/softfloat.h"
#include "fpu/softfloat-helpers.h"

#include "m890.h"
#include "m890_exec.h"
#include "trace.h"

/* Decoded operand tiles: every card's BH runs under the BQL, one at a time. */
static float32 *m890_gemm_wbuf;     /* weight rows of a tile, fp32 */
static float32 *m890_gemm_abuf;     /* activation rows of a tile, fp32 */

#define M890_GEMM_K_MAX     (M890_GEMM_MAX_KBLOCKS * M890_MX_BLOCK)
#define M890_GEMM_WROWS     (2 * M890_GEMM_TILE_COLS)

/* Bytes of a run's budget per multiply-add. */
#define M890_GEMM_BUDGET_PER_MAC    16
/*
 * Multiply-adds of a piece at most, half a run's arithmetic: a full tile
 * at the largest K with SwiGLU is one column (two weight rows).
 */
#define M890_GEMM_PIECE_MACS        (M890_BH_MAX_ELEMS / 2)

/* Binary32 constants of the SwiGLU exponential (spec §7.15). */
#define F32_ONE             0x3f800000u
#define F32_LOG2E           0x3fb8aa3bu     /* 1.44269502 */
#define F32_LN2_HI          0x3f317200u     /* 0.693145751953125 */
#define F32_LN2_LO          0x35bfbe8eu     /* 1.42860677e-06 */
#define F32_EXP_MAX         0x42b00000u     /* 88.0 */
#define F32_EXP_MIN         0xc2ae0000u     /* -87.0 */
#define F32_INF             0x7f800000u
#define F32_NAN             0x7fc00000u     /* the default quiet NaN */

static const uint32_t m890_exp_poly[7] = {
    0x3ab60b61u,        /* 1/720 */
    0x3c088889u,        /* 1/120 */
    0x3d2aaaabu,        /* 1/24 */
    0x3e2aaaabu,        /* 1/6 */
    0x3f000000u,        /* 1/2 */
    0x3f800000u,        /* 1 */
    0x3f800000u,        /* 1 */
};

/* Binary32, round to nearest even, no flush, default NaN 0x7fc00000. */
static void m890_gemm_fpst(float_status *st)
{
    memset(st, 0, sizeof(*st));
    set_float_rounding_mode(float_round_nearest_even, st);
    set_float_2nan_prop_rule(float_2nan_prop_s_ab, st);
    set_float_default_nan_pattern(0x40, st);
    set_default_nan_mode(true, st);
    set_flush_to_zero(false, st);
    set_flush_inputs_to_zero(false, st);
    /* results never depend on the flags; a set INEXACT allows hardfloat */
    float_raise(float_flag_inexact, st);
}

static float32 m890_f32(uint32_t bits)
{
    return make_float32(bits);
}

/* bf16 of a binary32, round to nearest even, every NaN 0x7fc0 (§7.10). */
static uint16_t m890_gemm_bf16(float32 f)
{
    uint32_t u = float32_val(f);

    if ((u & 0x7fffffffu) > 0x7f800000u) {
        return 0x7fc0;
    }
    u += 0x7fffu + ((u >> 16) & 1);
    return u >> 16;
}

/* E8M0 scale as a binary32: 2^(s - 127), s = 255 NaN. */
static float32 m890_gemm_scale(uint8_t s)
{
    if (s == 0xff) {
        return m890_f32(F32_NAN);
    }
    if (s == 0) {
        return m890_f32(0x00400000u);           /* 2^-127, subnormal */
    }
    return m890_f32((uint32_t)s << 23);         /* exponent s - 127 */
}

/* Value of an E2M1 code (§7.11), exact. */
static float32 m890_gemm_e2m1(unsigned int code)
{
    static const uint32_t mag[8] = {
        0x00000000u, 0x3f000000u, 0x3f800000u, 0x3fc00000u,
        0x40000000u, 0x40400000u, 0x40800000u, 0x40c00000u,
    };

    return m890_f32(mag[code & 7] | ((code & 8) ? 0x80000000u : 0));
}

/* Value of an E4M3 code (§7.11), exact; 0x7f and 0xff are NaN. */
static float32 m890_gemm_e4m3(unsigned int code, float_status *st)
{
    unsigned int e = (code >> 3) & 0xf, m = code & 7;
    uint32_t sign = (code & 0x80) ? 0x80000000u : 0;

    if ((code & 0x7f) == 0x7f) {
        return m890_f32(F32_NAN);
    }
    if (e == 0) {
        /* m / 8 * 2^-6 = m * 2^-9, exact */
        float32 v = float32_scalbn(int32_to_float32(m, st), -9, st);

        return m890_f32(float32_val(v) | sign);
    }
    return m890_f32(sign | ((e - 7 + 127) << 23) | (m << 20));
}

/*
 * Decode one operand row of @k elements of @dtype at @p (BF16: 2k bytes;
 * MXFP8 or MXFP4: the elements, then k / 32 scale bytes) into @out.
 */
static void m890_gemm_decode(unsigned int dtype, const uint8_t *p,
                             unsigned int k, float32 *out, float_status *st)
{
    unsigned int i, eb = dtype == M890_DTYPE_MXFP4 ? k / 2 : k;
    const uint8_t *sc = p + eb;
    float32 x, s = float32_zero;

    for (i = 0; i < k; i++) {
        if (dtype == M890_DTYPE_BF16) {
            out[i] = m890_f32((uint32_t)lduw_le_p(p + 2 * i) << 16);
            continue;
        }
        if (i % M890_MX_BLOCK == 0) {
            s = m890_gemm_scale(sc[i / M890_MX_BLOCK]);
        }
        if (dtype == M890_DTYPE_MXFP4) {
            x = m890_gemm_e2m1((p[i / 2] >> ((i & 1) * 4)) & 0xf);
        } else {
            x = m890_gemm_e4m3(p[i], st);
        }
        out[i] = float32_mul(x, s, st);
    }
}

/* Bytes of one row of @k elements of @dtype (elements and scales). */
static uint64_t m890_gemm_row_bytes(unsigned int dtype, uint64_t k)
{
    switch (dtype) {
    case M890_DTYPE_BF16:
        return 2 * k;
    case M890_DTYPE_MXFP8:
        return k + k / M890_MX_BLOCK;
    default:
        return k / 2 + k / M890_MX_BLOCK;
    }
}

/* e^t as §7.15 defines it, for the SwiGLU's sigmoid. */
static float32 m890_gemm_exp(float32 t, float_status *st)
{
    float32 n, r, p;
    int32_t ni;
    unsigned int i;

    if (float32_lt(m890_f32(F32_EXP_MAX), t, st)) {
        return m890_f32(F32_INF);
    }
    if (float32_lt(t, m890_f32(F32_EXP_MIN), st)) {
        return float32_zero;
    }
    n = float32_round_to_int(float32_mul(t, m890_f32(F32_LOG2E), st), st);
    ni = float32_to_int32(n, st);
    r = float32_sub(t, float32_mul(n, m890_f32(F32_LN2_HI), st), st);
    r = float32_sub(r, float32_mul(n, m890_f32(F32_LN2_LO), st), st);
    p = m890_f32(m890_exp_poly[0]);
    for (i = 1; i < ARRAY_SIZE(m890_exp_poly); i++) {
        p = float32_add(float32_mul(p, r, st), m890_f32(m890_exp_poly[i]),
                        st);
    }
    /* |n| <= 127: 2^n is a normal binary32 */
    return float32_mul(p, m890_f32((uint32_t)(ni + 127) << 23), st);
}

/* silu(g) * u = g / (1 + e^-g) * u. */
static float32 m890_gemm_swiglu(float32 g, float32 u, float_status *st)
{
    float32 e, silu;

    if (float32_is_any_nan(g)) {
        return m890_f32(F32_NAN);
    }
    e = m890_gemm_exp(float32_chs(g), st);
    silu = float32_div(g, float32_add(m890_f32(F32_ONE), e, st), st);
    return float32_mul(silu, u, st);
}

/* Dot product of @k terms from +0.0 in ascending order, no FMA. */
static float32 m890_gemm_dot(const float32 *a, const float32 *w,
                             unsigned int k, float_status *st)
{
    float32 acc = float32_zero;
    unsigned int i;

    for (i = 0; i < k; i++) {
        acc = float32_add(acc, float32_mul(a[i], w[i], st), st);
    }
    return acc;
}

/*
 * Read @len bytes at VA @va into @buf; charged to the timing model (and
 * the switch counters) only if @charge: the engines keep the weights of
 * a group and the rows of a tile, re-reads of this emulation are free.
 */
static M890Status m890_gemm_read(M890State *s, M890Queue *q, uint64_t va,
                                 void *buf, uint64_t len, bool charge)
{
    uint8_t *p = buf;
    M890Seg g;
    M890Status ret;

    while (len) {
        ret = m890_seg(s, q, va, len, false, &g);
        if (ret) {
            return ret;
        }
        if (g.ptr) {
            memcpy(p, g.ptr, g.len);
        } else if (pci_dma_read(PCI_DEVICE(s), g.dma, p, g.len) != MEMTX_OK) {
            trace_m890_err_dma(q->index, g.dma, g.len, false);
            return M890_ST_DMA;
        }
        if (charge) {
            m890_seg_done(s, q, &g, g.len, false);
        }
        va += g.len;
        p += g.len;
        len -= g.len;
    }
    return 0;
}

void m890_gemm_reset(M890Queue *q)
{
    M890GemmState *gs = &q->gemm;

    gs->started = false;
    gs->group_valid = false;
    gs->tile_valid = false;
    gs->g = 0;
}

void m890_gemm_fini(M890State *s)
{
    unsigned int i;

    for (i = 0; i < M890_MAX_QUEUES; i++) {
        g_free(s->queues[i].gemm.seen);
        s->queues[i].gemm.seen = NULL;
    }
}

/* The packet's shape, from its checked fields. */
typedef struct M890GemmShape {
    const struct m890_pkt_gemm *p;
    unsigned int k, n, nw, groups, flags;
    unsigned int pcols;                 /* output columns of a piece */
    uint32_t cap;
    uint64_t arow, wrow, orow, wgroup;
    uint64_t a, w, out, idx, counts, weight;
    bool scatter;
    unsigned int hfs_per_mac;
} M890GemmShape;

/* Check the packet's fields (spec §7.15, in the order of its table). */
static M890Status m890_gemm_check(M890State *s, M890Queue *q,
                                  M890GemmShape *sh)
{
    const struct m890_pkt_gemm *p = &q->pkt.gemm;
    unsigned int wpc = (p->flags & M890_GEMM_F_SWIGLU) ? 2 : 1;
    uint64_t rows;

    sh->p = p;
    sh->flags = p->flags;
    sh->scatter = p->flags & M890_GEMM_F_SCATTER_ADD;
    sh->groups = p->groups;
    sh->k = le16_to_cpu(p->k_blocks) * M890_MX_BLOCK;
    sh->n = le16_to_cpu(p->n);
    sh->cap = le32_to_cpu(p->cap);
    sh->a = le64_to_cpu(p->a);
    sh->w = le64_to_cpu(p->w);
    sh->out = le64_to_cpu(p->out);
    sh->idx = le64_to_cpu(p->idx);
    sh->counts = le64_to_cpu(p->counts);
    sh->weight = le64_to_cpu(p->weight);
    if (p->a_dtype != M890_DTYPE_BF16 && p->a_dtype != M890_DTYPE_MXFP8) {
        return m890_bad_field(q, "gemm a_dtype");
    }
    if (p->w_dtype != M890_DTYPE_BF16 && p->w_dtype != M890_DTYPE_MXFP4) {
        return m890_bad_field(q, "gemm w_dtype");
    }
    if (p->flags & ~M890_GEMM_FLAGS_VALID) {
        return m890_bad_field(q, "gemm flags");
    }
    if (sh->k > M890_GEMM_K_MAX) {
        return m890_bad_field(q, "gemm k_blocks");
    }
    if (sh->n > M890_GEMM_MAX_N) {
        return m890_bad_field(q, "gemm n");
    }
    rows = (uint64_t)sh->groups * sh->cap;
    if (sh->cap > M890_ROWS_MAX || rows > M890_ROWS_MAX) {
        return m890_bad_field(q, "gemm cap");
    }
    if ((sh->idx & 3) || (sh->counts & 3) || (sh->weight & 3)) {
        return m890_bad_field(q, "gemm list alignment");
    }
    if (sh->scatter ? !sh->idx || !sh->weight : sh->weight != 0) {
        return m890_bad_field(q, "gemm idx/weight with SCATTER_ADD");
    }
    sh->nw = wpc * sh->n;
    sh->arow = m890_gemm_row_bytes(p->a_dtype, sh->k);
    sh->wrow = m890_gemm_row_bytes(p->w_dtype, sh->k);
    sh->orow = 2ull * sh->n;
    sh->wgroup = sh->nw * sh->wrow;
    /* at least 1: M890_GEMM_PIECE_MACS fits a tile by 2 weight rows of K */
    sh->pcols = MIN(M890_GEMM_TILE_COLS, M890_GEMM_PIECE_MACS /
                    ((uint64_t)M890_GEMM_TILE_ROWS * wpc * MAX(sh->k, 1)));
    sh->hfs_per_mac = (p->a_dtype == M890_DTYPE_MXFP8 &&
                       p->w_dtype == M890_DTYPE_MXFP4) ?
                      M890_HFS_PER_MAC_MX : M890_HFS_PER_MAC_BF16;
    if (!sh->groups || !sh->cap || !sh->k || !sh->n) {
        return M890_EXEC_DONE;
    }
    if ((sh->counts && !m890_range_ok(sh->counts, sh->groups * 4ull)) ||
        (sh->idx && !m890_range_ok(sh->idx, rows * 4)) ||
        (sh->weight && !m890_range_ok(sh->weight, rows * 4)) ||
        !m890_range_ok(sh->w, sh->groups * sh->wgroup) ||
        ((!sh->idx || sh->scatter) && !m890_range_ok(sh->a, rows * sh->arow)) ||
        (!sh->scatter && !m890_range_ok(sh->out, rows * sh->orow))) {
        return m890_bad_field(q, "gemm range");
    }
    return 0;
}

/* Start group gs->g: read and check its count (once). */
static M890Status m890_gemm_group(M890State *s, M890Queue *q,
                                  const M890GemmShape *sh)
{
    M890GemmState *gs = &q->gemm;
    uint32_t c;
    M890Status ret;

    gs->count = sh->cap;
    if (sh->counts) {
        ret = m890_rw(s, q, sh->counts + gs->g * 4ull, &c, 4, false);
        if (ret) {
            return ret;
        }
        gs->count = le32_to_cpu(c);
        if (gs->count > sh->cap) {
            trace_m890_err_capacity(q->index, gs->g, sh->cap);
            qemu_log_mask(LOG_GUEST_ERROR, "m890: queue %u GEMM group %u: "
                          "count %u over cap %u\n", q->index, gs->g,
                          gs->count, sh->cap);
            return M890_ST_CAPACITY;
        }
    }
    gs->pos = 0;
    gs->ct = 0;
    gs->group_valid = true;
    gs->tile_valid = false;
    return 0;
}

/*
 * Start the row tile at gs->pos: read its index (and weight) entries once
 * and check the rows they name; with SCATTER_ADD decide which rows are
 * written for the first time.
 */
static M890Status m890_gemm_tile(M890State *s, M890Queue *q,
                                 const M890GemmShape *sh)
{
    M890GemmState *gs = &q->gemm;
    uint64_t x0 = (uint64_t)gs->g * sh->cap + gs->pos, r;
    uint32_t v[M890_GEMM_TILE_ROWS];
    unsigned int i, nr = MIN(M890_GEMM_TILE_ROWS, gs->count - gs->pos);
    M890Status ret;

    gs->nrows = nr;
    for (i = 0; i < nr; i++) {
        gs->arow[i] = x0 + i;
        gs->orow[i] = x0 + i;
        gs->w[i] = F32_ONE;
        gs->fresh[i] = false;
    }
    if (sh->idx) {
        ret = m890_rw(s, q, sh->idx + x0 * 4, v, nr * 4, false);
        if (ret) {
            return ret;
        }
        for (i = 0; i < nr; i++) {
            r = le32_to_cpu(v[i]);
            if (sh->scatter) {
                gs->orow[i] = r;
            } else {
                gs->arow[i] = r;
            }
        }
    }
    if (sh->scatter) {
        ret = m890_rw(s, q, sh->weight + x0 * 4, v, nr * 4, false);
        if (ret) {
            return ret;
        }
        for (i = 0; i < nr; i++) {
            gs->w[i] = le32_to_cpu(v[i]);
        }
    }
    gs->live = 0;
    for (i = 0; i < nr; i++) {
        r = sh->scatter ? gs->orow[i] : gs->arow[i];
        if (r == M890_INDEX_NONE) {
            continue;
        }
        gs->live++;
        if (sh->scatter) {
            if (r >= M890_GEMM_MAX_OUT_ROWS ||
                !m890_range_ok(sh->out, (r + 1) * sh->orow)) {
                return m890_bad_field(q, "gemm output row index");
            }
            /* the first write of a row in the packet stores, later add */
            gs->fresh[i] = !test_bit(r, gs->seen);
            set_bit(r, gs->seen);
        } else if (!m890_range_ok(sh->a, (r + 1) * sh->arow)) {
            return m890_bad_field(q, "gemm activation row index");
        }
    }
    gs->tile_valid = true;
    return 0;
}

/*
 * The weight rows of the piece's @nc columns from @c0 (with SWIGLU then
 * their gate rows, n further on) read and, if @decode, decoded into
 * m890_gemm_wbuf; *@nwr is their number.  Charged with the group's first
 * row tile.
 */
static M890Status m890_gemm_weights(M890State *s, M890Queue *q,
                                    const M890GemmShape *sh, unsigned int c0,
                                    unsigned int nc, bool decode,
                                    float_status *st, unsigned int *nwr)
{
    M890GemmState *gs = &q->gemm;
    unsigned int wsel[M890_GEMM_WROWS];
    unsigned int j, n = 0;
    M890Status ret;
    uint64_t va;

    for (j = 0; j < nc; j++) {
        wsel[n++] = c0 + j;
    }
    if (sh->flags & M890_GEMM_F_SWIGLU) {
        for (j = 0; j < nc; j++) {
            wsel[n++] = sh->n + c0 + j;
        }
    }
    for (j = 0; j < n; j++) {
        va = sh->w + gs->g * sh->wgroup + wsel[j] * sh->wrow;
        ret = m890_gemm_read(s, q, va, s->bounce, sh->wrow, gs->pos == 0);
        if (ret) {
            return ret;
        }
        if (decode) {
            m890_gemm_decode(sh->p->w_dtype, s->bounce, sh->k,
                             m890_gemm_wbuf + (uint64_t)j * sh->k, st);
        }
    }
    *nwr = n;
    return 0;
}

/*
 * Row @i of the tile by the piece's @nc columns from @c0: the activation
 * row decoded (charged with the first column tile), each output its dot
 * product (through SWIGLU), with SCATTER_ADD scaled by the row's weight
 * and added to the output row unless this is its first write; stored as
 * bf16.
 */
static M890Status m890_gemm_row(M890State *s, M890Queue *q,
                                const M890GemmShape *sh, unsigned int i,
                                unsigned int c0, unsigned int nc,
                                float_status *st)
{
    M890GemmState *gs = &q->gemm;
    float32 *a = m890_gemm_abuf + (uint64_t)i * sh->k;
    float32 w = m890_f32(gs->w[i]);
    uint16_t *ob = (uint16_t *)s->bounce;
    unsigned int j;
    M890Status ret;
    uint64_t va;

    ret = m890_gemm_read(s, q, sh->a + gs->arow[i] * sh->arow, s->bounce,
                         sh->arow, gs->ct == 0);
    if (ret) {
        return ret;
    }
    m890_gemm_decode(sh->p->a_dtype, s->bounce, sh->k, a, st);
    va = sh->out + gs->orow[i] * sh->orow + c0 * 2ull;
    if (sh->scatter && !gs->fresh[i]) {
        ret = m890_rw(s, q, va, ob, nc * 2, false);
        if (ret) {
            return ret;
        }
    }
    for (j = 0; j < nc; j++) {
        float32 v = m890_gemm_dot(a, m890_gemm_wbuf + (uint64_t)j * sh->k,
                                  sh->k, st);

        if (sh->flags & M890_GEMM_F_SWIGLU) {
            float32 u = m890_gemm_dot(a, m890_gemm_wbuf +
                                      (uint64_t)(nc + j) * sh->k,
                                      sh->k, st);

            v = m890_gemm_swiglu(v, u, st);
        }
        if (sh->scatter) {
            v = float32_mul(w, v, st);
            if (!gs->fresh[i]) {
                float32 old = m890_f32((uint32_t)lduw_le_p(&ob[j]) << 16);

                v = float32_add(old, v, st);
            }
        }
        stw_le_p(&ob[j], m890_gemm_bf16(v));
    }
    return m890_rw(s, q, va, ob, nc * 2, true);
}

/*
 * One piece: the tile's rows by column tile gs->ct.  The weights are
 * charged with the group's first row tile, the activation rows with the
 * first column tile, so every byte is charged once whatever the tiling.
 * A tile without live rows is only run as a piece in its group's first
 * row tile, to read (and charge) the weights, which it does not decode.
 * The budget is charged the multiply-adds, and at least the weight bytes
 * read (a live piece's 16 bytes per multiply-add always are more).
 */
static M890Status m890_gemm_piece(M890State *s, M890Queue *q,
                                  const M890GemmShape *sh, M890Budget *b,
                                  float_status *st)
{
    M890GemmState *gs = &q->gemm;
    unsigned int c0 = gs->ct * sh->pcols;
    unsigned int nc = MIN(sh->pcols, sh->n - c0);
    unsigned int i, nwr;
    M890Status ret;
    uint64_t macs;

    ret = m890_gemm_weights(s, q, sh, c0, nc, gs->live != 0, st, &nwr);
    if (ret) {
        return ret;
    }
    for (i = 0; i < gs->nrows && gs->live; i++) {
        if (gs->arow[i] == M890_INDEX_NONE || gs->orow[i] == M890_INDEX_NONE) {
            continue;
        }
        ret = m890_gemm_row(s, q, sh, i, c0, nc, st);
        if (ret) {
            return ret;
        }
    }
    macs = (uint64_t)gs->live * nwr * sh->k;
    m890_clock_compute(s, q, macs, sh->hfs_per_mac);
    m890_budget_charge(b, MAX(macs * M890_GEMM_BUDGET_PER_MAC,
                              nwr * sh->wrow), macs);
    return 0;
}

M890Status m890_exec_gemm(M890State *s, M890Queue *q, M890Budget *b)
{
    M890GemmState *gs = &q->gemm;
    M890GemmShape sh = { 0 };
    float_status st;
    M890Status ret;

    QEMU_BUILD_BUG_ON(M890_GEMM_K_MAX * 2 > M890_BOUNCE_SIZE);
    QEMU_BUILD_BUG_ON(M890_GEMM_TILE_COLS * 2 > M890_BOUNCE_SIZE);
    QEMU_BUILD_BUG_ON(M890_GEMM_PIECE_MACS <
                      M890_GEMM_TILE_ROWS * 2ull * M890_GEMM_K_MAX);
    ret = m890_gemm_check(s, q, &sh);
    if (ret) {
        return ret;
    }
    if (!gs->started) {
        if (sh.scatter) {
            if (!gs->seen) {
                gs->seen = bitmap_new(M890_GEMM_MAX_OUT_ROWS);
            } else {
                bitmap_zero(gs->seen, M890_GEMM_MAX_OUT_ROWS);
            }
        }
        if (!m890_gemm_wbuf) {
            m890_gemm_wbuf = g_new(float32, (size_t)M890_GEMM_WROWS *
                                            M890_GEMM_K_MAX);
            m890_gemm_abuf = g_new(float32, (size_t)M890_GEMM_TILE_ROWS *
                                            M890_GEMM_K_MAX);
        }
        gs->started = true;
    }
    m890_gemm_fpst(&st);
    while (gs->g < sh.groups) {
        if (!m890_budget_left(b)) {
            return M890_EXEC_MORE;
        }
        if (!gs->group_valid) {
            ret = m890_gemm_group(s, q, &sh);
            if (ret) {
                return ret;
            }
        }
        if (gs->pos >= gs->count) {
            gs->g++;
            gs->group_valid = false;
            continue;
        }
        if (!gs->tile_valid) {
            ret = m890_gemm_tile(s, q, &sh);
            if (ret) {
                return ret;
            }
        }
        if (!gs->live && gs->pos) {
            /* nothing to compute, the weights were charged: one step */
            m890_budget_charge(b, M890_STEP_CHARGE, 0);
            gs->pos += gs->nrows;
            gs->tile_valid = false;
            continue;
        }
        ret = m890_gemm_piece(s, q, &sh, b, &st);
        if (ret) {
            return ret;
        }
        if (++gs->ct * sh.pcols >= sh.n) {
            gs->ct = 0;
            gs->pos += gs->nrows;
            gs->tile_valid = false;
        }
    }
    return M890_EXEC_DONE;
}
