/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: M890 row packets (spec 1.1, CAPS.ROWS)
 *
 * COPY_ROWS (§7.13) moves rows chosen by a source and a destination index
 * list, optionally through segment tables of up to 256 base VAs (a table
 * of every peer's window lets one packet write into all of them), and
 * copies, adds (reduce-on-write) or MX-quantizes each row.  MOE_ROUTE
 * (§7.14) computes an expert-parallel layer's routing on the card: SEND
 * turns top-k expert ids into COPY_ROWS index lists, per-rank counts and
 * the combine's REDUCE indices; RECV turns the received top-k rows into
 * expert-major row and weight lists.  The REDUCE table form (§7.10) uses
 * the table lookup of this file (m890_table_row()).
 *
 * As for every packet, the 64-byte copy is validated field by field
 * before memory is touched, and the work is cut into steps that each
 * charge the run's budget (at least M890_STEP_CHARGE), so a packet of
 * 2^24 rows resumes over many runs from q->progress.  A row's indices are
 * read once, when the row starts, into q->snap_*; a table entry once per
 * packet, the first time a row of its segment is used, into q->rows.tab.
 * A COPY_ROWS ADD into a peer's HBM is executed as by the peer: the
 * issuing card reads nothing over the link and is charged the row's
 * bytes once, a posted write (§10).
 *
 * MOE_ROUTE SEND reads the ids twice: a first pass counts the tokens each
 * rank receives, which places every rank's block in the send lists; the
 * second pass writes the lists and the combine indices.  Its state
 * between pieces (counts, block starts) lives in q->rows, a fixed-size
 * part of the queue: no guest field sizes an allocation.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/pci/pci_device.h"

#include "m890.h"
#include "m890_exec.h"
#include "trace.h"

enum {
    M890_TAB_SRC = 0,
    M890_TAB_DST = 1,
};

/* MOE_ROUTE steps, q->rows.phase */
enum {
    M890_SEND_COUNT,            /* pass 1 over the ids: tokens per rank */
    M890_SEND_COUNTS,           /* dest_count */
    M890_SEND_FILL,             /* list entries past the last: NONE */
    M890_SEND_LISTS,            /* pass 2: send lists, combine_idx */
    M890_RECV_COUNTS = 0,       /* the rows received from every source */
    M890_RECV_ROWS,             /* the meta rows, in row order */
    M890_RECV_DONE,             /* expert_count, capacity */
};

void m890_rows_reset(M890Queue *q)
{
    memset(q->rows.tab_valid, 0, sizeof(q->rows.tab_valid));
    q->rows.phase = 0;
    q->rows.total = 0;
}

/*
 * Entry @seg of table @t (M890_TAB_*) at VA @table, read once per packet.
 * Returns M890_ST_OK or a qerr.
 */
static M890Status m890_table_entry(M890State *s, M890Queue *q, unsigned int t,
                                   uint64_t table, uint32_t seg, uint64_t *e)
{
    M890RowsState *rs = &q->rows;
    uint64_t bit = 1ull << (seg % 64), v;
    M890Status ret;

    if (!(rs->tab_valid[t][seg / 64] & bit)) {
        ret = m890_rw(s, q, table + seg * 8ull, &v, 8, false);
        if (ret) {
            return ret;
        }
        rs->tab[t][seg] = le64_to_cpu(v);
        rs->tab_valid[t][seg / 64] |= bit;
    }
    *e = rs->tab[t][seg];
    return 0;
}

/*
 * VA of row @x (@len bytes, rows @pitch apart) through the segment table
 * @t at VA @table of @seg_rows rows per segment.  *@skip is set when the
 * row's entry is 0 (its rows are NONE).  A segment of 256 or more and a
 * row past the VA space fail with BAD_FIELD.  Returns M890_ST_OK or a qerr.
 */
M890Status m890_table_row(M890State *s, M890Queue *q, unsigned int t,
                          uint64_t table, uint32_t seg_rows, uint64_t pitch,
                          uint32_t x, uint64_t len, uint64_t *va, bool *skip)
{
    uint32_t seg = x / seg_rows;
    uint64_t base, off;
    M890Status ret;

    if (seg >= M890_TABLE_MAX_SEGMENTS) {
        return m890_bad_field(q, "index past its segment table");
    }
    ret = m890_table_entry(s, q, t, table, seg, &base);
    if (ret) {
        return ret;
    }
    *skip = !base;
    if (!base) {
        return 0;
    }
    off = (uint64_t)(x % seg_rows) * pitch;
    if (!m890_range_ok(base, off) || !m890_range_ok(base + off, len)) {
        return m890_bad_field(q, "table row out of VA space");
    }
    *va = base + off;
    return 0;
}

/* The decoded fields of a COPY_ROWS packet. */
typedef struct M890Rows {
    uint64_t base[2];           /* src, dst: row 0 or a table */
    uint64_t idx[2];            /* src_idx, dst_idx, 0: row i */
    uint64_t pitch[2];
    uint64_t len[2];            /* bytes of a source / destination row */
    bool table[2];
    uint32_t row_bytes, count, seg_rows;
    unsigned int op, esz;
    const M890MxFmt *f;         /* MX */
} M890Rows;

/* VA of row @x of side @t of @r; *@skip for a 0 table entry. */
static M890Status m890_rows_va(M890State *s, M890Queue *q, const M890Rows *r,
                               unsigned int t, uint32_t x, uint64_t *va,
                               bool *skip)
{
    uint64_t off = (uint64_t)x * r->pitch[t];

    if (r->table[t]) {
        return m890_table_row(s, q, t, r->base[t], r->seg_rows, r->pitch[t],
                              x, r->len[t], va, skip);
    }
    *skip = false;
    if (!m890_range_ok(r->base[t], off) ||
        !m890_range_ok(r->base[t] + off, r->len[t])) {
        return m890_bad_field(q, "copy_rows row out of VA space");
    }
    *va = r->base[t] + off;
    return 0;
}

/*
 * dst[0 .. n) += add[0 .. n) for @n elements of @esz bytes at VA @va, as
 * the card owning the memory does it: on this card (HBM, host memory) the
 * destination is read and written and both are charged; on a peer the
 * issuing card posts the row and is charged its bytes once on the link.
 */
static M890Status m890_rows_add(M890State *s, M890Queue *q, uint64_t va,
                                const uint8_t *add, unsigned int n,
                                unsigned int esz)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint8_t cur[M890_REDUCE_COLS * 4];
    uint64_t len = (uint64_t)n * esz, pos;
    unsigned int i;
    M890Seg g;
    M890Status ret;

    for (pos = 0; pos < len; pos += g.len) {
        ret = m890_seg(s, q, va + pos, len - pos, true, &g);
        if (ret) {
            return ret;
        }
        if (g.ptr) {
            memcpy(cur + pos, g.ptr, g.len);
        } else if (pci_dma_read(pdev, g.dma, cur + pos, g.len) != MEMTX_OK) {
            trace_m890_err_dma(q->index, g.dma, g.len, false);
            return M890_ST_DMA;
        }
        if (g.peer < 0) {
            m890_seg_done(s, q, &g, g.len, false);
        }
    }
    for (i = 0; i < n; i++) {
        /* spec 7.13: one binary32 sum, every NaN the default one */
        uint32_t a = m890_load_elem(cur + i * esz, esz);
        uint32_t b = m890_load_elem(add + i * esz, esz);

        m890_store_elem(cur + i * esz, esz, m890_f32_add(a, b));
    }
    for (pos = 0; pos < len; pos += g.len) {
        ret = m890_seg(s, q, va + pos, len - pos, true, &g);
        if (ret) {
            return ret;
        }
        if (g.ptr) {
            memcpy(g.ptr, cur + pos, g.len);
        } else if (pci_dma_write(pdev, g.dma, cur + pos, g.len) != MEMTX_OK) {
            trace_m890_err_dma(q->index, g.dma, g.len, true);
            return M890_ST_DMA;
        }
        m890_seg_done(s, q, &g, g.len, true);
    }
    return 0;
}

/*
 * One step of row @from -> @to at source byte @off of the row: up to
 * M890_REDUCE_COLS elements for ADD, M890_MX_STEP for MX.  Advances
 * q->progress by the source bytes done.
 */
static M890Status m890_rows_step(M890State *s, M890Queue *q, const M890Rows *r,
                                 uint64_t from, uint64_t to, uint64_t off,
                                 M890Budget *b)
{
    unsigned int esz = r->esz, nel = r->row_bytes / esz, e0 = off / esz, n;
    uint8_t mx[M890_MX_STEP], sc[M890_MX_STEP / M890_MX_BLOCK];
    uint64_t done, elbytes;
    M890Status ret;

    QEMU_BUILD_BUG_ON(M890_MX_STEP * 4 > M890_BOUNCE_SIZE);
    QEMU_BUILD_BUG_ON(M890_REDUCE_COLS * 4 > M890_BOUNCE_SIZE);
    switch (r->op) {
    case M890_ROWS_COPY:
        ret = m890_copy_fwd(s, q, from + off, to + off, r->row_bytes - off, b,
                            &done);
        q->progress += done;
        return ret;
    case M890_ROWS_ADD:
        n = MIN(nel - e0, M890_REDUCE_COLS);
        ret = m890_rw(s, q, from + off, s->bounce, (uint64_t)n * esz, false);
        if (!ret) {
            ret = m890_rows_add(s, q, to + off, s->bounce, n, esz);
        }
        break;
    default:
        n = MIN(nel - e0, M890_MX_STEP);
        elbytes = r->f == &m890_fp4 ? nel / 2 : nel;
        ret = m890_rw(s, q, from + off, s->bounce, (uint64_t)n * esz, false);
        if (ret) {
            return ret;
        }
        m890_mx_quant(r->f, s->bounce, esz, n / M890_MX_BLOCK, mx, sc);
        ret = m890_rw(s, q, to + (r->f == &m890_fp4 ? e0 / 2 : e0), mx,
                      r->f == &m890_fp4 ? n / 2 : n, true);
        if (!ret) {
            ret = m890_rw(s, q, to + elbytes + e0 / M890_MX_BLOCK, sc,
                          n / M890_MX_BLOCK, true);
        }
        break;
    }
    if (ret) {
        return ret;
    }
    q->progress += (uint64_t)n * esz;
    m890_budget_charge(b, (uint64_t)n * esz * 2, n);
    return 0;
}

/* The fields of a COPY_ROWS packet into @r, unchecked. */
static void m890_rows_fields(const struct m890_pkt_copy_rows *p, M890Rows *r)
{
    r->row_bytes = le32_to_cpu(p->row_bytes);
    r->count = le32_to_cpu(p->count);
    r->seg_rows = le32_to_cpu(p->seg_rows);
    r->base[0] = le64_to_cpu(p->src);
    r->base[1] = le64_to_cpu(p->dst);
    r->idx[0] = le64_to_cpu(p->src_idx);
    r->idx[1] = le64_to_cpu(p->dst_idx);
    r->table[0] = p->tables & M890_ROWS_SRC_TABLE;
    r->table[1] = p->tables & M890_ROWS_DST_TABLE;
    r->op = p->op;
    r->esz = p->dtype == M890_DTYPE_FP32 ? 4 : 2;
    r->f = p->mx_dtype == M890_DTYPE_MXFP4 ? &m890_fp4 : &m890_fp8;
}

/* Each field of @p on its own, in the spec's table order (7.13). */
static M890Status m890_rows_check_fields(M890Queue *q,
                                         const struct m890_pkt_copy_rows *p,
                                         const M890Rows *r)
{
    unsigned int t;

    if (p->rsvd0) {
        return m890_bad_field(q, "copy_rows reserved");
    }
    if (!r->row_bytes || r->row_bytes > M890_ROWS_MAX) {
        return m890_bad_field(q, "copy_rows row_bytes");
    }
    if (p->tables & ~(M890_ROWS_SRC_TABLE | M890_ROWS_DST_TABLE)) {
        return m890_bad_field(q, "copy_rows tables");
    }
    for (t = 0; t < 2; t++) {
        if (r->table[t] && (r->base[t] & 7)) {
            return m890_bad_field(q, "copy_rows table alignment");
        }
    }
    if ((r->idx[0] & 3) || (r->idx[1] & 3)) {
        return m890_bad_field(q, "copy_rows index list alignment");
    }
    if (r->count > M890_ROWS_MAX) {
        return m890_bad_field(q, "copy_rows count");
    }
    if (r->table[0] || r->table[1] ? !r->seg_rows ||
        r->seg_rows > M890_ROWS_MAX : r->seg_rows) {
        return m890_bad_field(q, "copy_rows seg_rows");
    }
    if (r->op > M890_ROWS_MX) {
        return m890_bad_field(q, "copy_rows op");
    }
    if (r->op == M890_ROWS_COPY ? p->dtype != 0 :
        p->dtype != M890_DTYPE_FP32 && p->dtype != M890_DTYPE_BF16) {
        return m890_bad_field(q, "copy_rows dtype");
    }
    if (r->op == M890_ROWS_MX ? p->mx_dtype != M890_DTYPE_MXFP4 &&
        p->mx_dtype != M890_DTYPE_MXFP8 : p->mx_dtype != 0) {
        return m890_bad_field(q, "copy_rows mx_dtype");
    }
    if ((r->op == M890_ROWS_ADD && r->row_bytes % r->esz) ||
        (r->op == M890_ROWS_MX && r->row_bytes % (M890_MX_BLOCK * r->esz))) {
        return m890_bad_field(q, "copy_rows row_bytes for op");
    }
    return 0;
}

/*
 * A row's bytes on each side and the pitches (0: row_bytes), checked
 * against each other, then the capability the op needs.
 */
static M890Status m890_rows_shape(M890State *s, M890Queue *q,
                                  const struct m890_pkt_copy_rows *p,
                                  M890Rows *r)
{
    uint32_t sp = le32_to_cpu(p->src_pitch), dp = le32_to_cpu(p->dst_pitch);
    unsigned int nel;

    /* the destination row: MX elements, then one scale per 32 */
    r->len[0] = r->row_bytes;
    r->len[1] = r->row_bytes;
    if (r->op == M890_ROWS_MX) {
        nel = r->row_bytes / r->esz;
        r->len[1] = (r->f == &m890_fp4 ? nel / 2 : nel) + nel / M890_MX_BLOCK;
    }
    r->pitch[0] = sp ? sp : r->row_bytes;
    r->pitch[1] = dp ? dp : r->row_bytes;
    if (r->pitch[0] < r->len[0] || r->pitch[1] < r->len[1]) {
        return m890_bad_field(q, "copy_rows pitch");
    }
    if ((r->op == M890_ROWS_ADD && !(m890_caps(s) & M890_HWCAP_ATOMICS)) ||
        (r->op == M890_ROWS_MX && !(m890_caps(s) & M890_HWCAP_MX))) {
        trace_m890_err_unsupported(q->index, r->op == M890_ROWS_ADD ?
                                   "copy_rows ADD" : "copy_rows MX");
        return M890_ST_UNSUPPORTED;
    }
    return 0;
}

/* The index lists, the tables and the rows of @r's count within VA space. */
static M890Status m890_rows_check_ranges(M890Queue *q, const M890Rows *r)
{
    unsigned int t;

    for (t = 0; t < 2; t++) {
        if (r->idx[t] && !m890_range_ok(r->idx[t], (uint64_t)r->count * 4)) {
            return m890_bad_field(q, "copy_rows index list range");
        }
        if (r->table[t] &&
            !m890_range_ok(r->base[t], M890_TABLE_MAX_SEGMENTS * 8)) {
            return m890_bad_field(q, "copy_rows table range");
        }
        /* a side of consecutive rows is checked as a whole */
        if (!r->idx[t] && !r->table[t] &&
            (!m890_range_ok(r->base[t],
                            (uint64_t)(r->count - 1) * r->pitch[t]) ||
             !m890_range_ok(r->base[t] +
                            (uint64_t)(r->count - 1) * r->pitch[t],
                            r->len[t]))) {
            return m890_bad_field(q, "copy_rows range");
        }
    }
    return 0;
}

/* Decode and check a COPY_ROWS packet (spec 7.13, in its table's order). */
static M890Status m890_rows_decode(M890State *s, M890Queue *q, M890Rows *r)
{
    const struct m890_pkt_copy_rows *p = &q->pkt.copy_rows;
    M890Status ret;

    m890_rows_fields(p, r);
    ret = m890_rows_check_fields(q, p, r);
    if (ret) {
        return ret;
    }
    ret = m890_rows_shape(s, q, p, r);
    if (ret || !r->count) {
        return ret;
    }
    return m890_rows_check_ranges(q, r);
}

/* COPY_ROWS: progress counts source bytes over count * row_bytes. */
M890Status m890_exec_copy_rows(M890State *s, M890Queue *q, M890Budget *b)
{
    uint64_t total, i, off, va[2];
    uint32_t x[2], v;
    bool skip[2];
    M890Rows r;
    unsigned int t;
    M890Status ret;

    ret = m890_rows_decode(s, q, &r);
    if (ret) {
        return ret;
    }
    total = (uint64_t)r.count * r.row_bytes;
    while (q->progress < total) {
        if (!m890_budget_left(b)) {
            return M890_EXEC_MORE;
        }
        i = q->progress / r.row_bytes;
        off = q->progress % r.row_bytes;
        if (!q->snap_valid || q->snap_row != i) {
            /* both indices of a row are read once, when it starts */
            for (t = 0; t < 2; t++) {
                q->snap_idx[t] = i;
                if (r.idx[t]) {
                    ret = m890_rw(s, q, r.idx[t] + i * 4, &v, 4, false);
                    if (ret) {
                        return ret;
                    }
                    q->snap_idx[t] = le32_to_cpu(v);
                }
            }
            q->snap_row = i;
            q->snap_valid = true;
            m890_budget_charge(b, M890_STEP_CHARGE, 0);
        }
        x[0] = q->snap_idx[0];
        x[1] = q->snap_idx[1];
        if (x[0] == M890_INDEX_NONE || x[1] == M890_INDEX_NONE) {
            q->progress += r.row_bytes - off;
            continue;
        }
        for (t = 0; t < 2; t++) {
            ret = m890_rows_va(s, q, &r, t, x[t], &va[t], &skip[t]);
            if (ret) {
                return ret;
            }
        }
        if (skip[0] || skip[1]) {
            q->progress += r.row_bytes - off;
            continue;
        }
        ret = m890_rows_step(s, q, &r, va[0], va[1], off, b);
        if (ret) {
            return ret;
        }
    }
    return M890_EXEC_DONE;
}

/* The decoded fields of a MOE_ROUTE packet. */
typedef struct M890Route {
    unsigned int mode, k;
    uint32_t my_rank, tokens, tmax, ranks, L;
    uint32_t cap;               /* RECV: cap; SEND: tag */
    uint64_t ids, out[4];
} M890Route;

/* Decode and check a MOE_ROUTE packet (spec 7.14, in its table's order). */
static M890Status m890_route_decode(M890Queue *q, M890Route *r)
{
    const struct m890_pkt_moe_route *p = &q->pkt.moe_route;
    static const uint64_t align[2][4] = {
        [M890_ROUTE_SEND] = { 4, 4, 8, 4 },
        [M890_ROUTE_RECV] = { 4, 4, 4, 8 },
    };
    uint64_t len[4], ids_len, lists;
    unsigned int i;

    r->mode = p->mode;
    r->k = p->k;
    r->my_rank = le16_to_cpu(p->my_rank);
    r->ids = le64_to_cpu(p->ids);
    r->tokens = le32_to_cpu(p->tokens);
    r->tmax = le32_to_cpu(p->tmax);
    r->ranks = le16_to_cpu(p->ranks);
    r->L = le16_to_cpu(p->experts_per_rank);
    r->cap = le32_to_cpu(p->cap);
    for (i = 0; i < 4; i++) {
        r->out[i] = le64_to_cpu((&p->out0)[i]);
    }

    if (r->mode > M890_ROUTE_RECV) {
        return m890_bad_field(q, "moe_route mode");
    }
    if (r->k < 1 || r->k > M890_REDUCE_MAX_K) {
        return m890_bad_field(q, "moe_route k");
    }
    if (r->ranks < 1 || r->ranks > M890_ROUTE_MAX_RANKS ||
        r->my_rank >= r->ranks) {
        return m890_bad_field(q, "moe_route ranks or my_rank");
    }
    if (r->ids & 3) {
        return m890_bad_field(q, "moe_route ids alignment");
    }
    if (r->tmax < 1 || r->tmax > M890_ROUTE_MAX_TMAX ||
        (uint64_t)r->ranks * r->tmax > M890_ROWS_MAX) {
        return m890_bad_field(q, "moe_route tmax");
    }
    if (r->mode == M890_ROUTE_SEND ? r->tokens > r->tmax : r->tokens) {
        return m890_bad_field(q, "moe_route tokens");
    }
    if (r->L < 1 || r->L > M890_ROUTE_MAX_EXPERTS) {
        return m890_bad_field(q, "moe_route experts_per_rank");
    }
    if (r->mode == M890_ROUTE_RECV && (r->cap < 1 || r->cap > M890_ROWS_MAX)) {
        return m890_bad_field(q, "moe_route cap");
    }
    for (i = 0; i < 4; i++) {
        if (r->out[i] & (align[r->mode][i] - 1)) {
            return m890_bad_field(q, "moe_route output alignment");
        }
    }
    lists = (uint64_t)r->ranks * r->tmax;
    if (r->mode == M890_ROUTE_SEND) {
        ids_len = (uint64_t)r->tokens * r->k * 4;
        len[0] = lists * 4;
        len[1] = lists * 4;
        len[2] = (uint64_t)r->ranks * 8;
        len[3] = ids_len;
    } else {
        ids_len = lists * r->k * 8;
        len[0] = (uint64_t)r->L * 4;
        len[1] = (uint64_t)r->L * r->cap * 4;
        len[2] = len[1];
        len[3] = (uint64_t)r->ranks * 8;
    }
    if (!m890_range_ok(r->ids, ids_len)) {
        return m890_bad_field(q, "moe_route ids range");
    }
    for (i = 0; i < 4; i++) {
        if (!m890_range_ok(r->out[i], len[i])) {
            return m890_bad_field(q, "moe_route output range");
        }
    }
    return 0;
}

/*
 * Read token @t's k expert ids into @ids and check them: -1 or an expert
 * of one of the ranks.  Returns M890_ST_OK or a qerr.
 */
static M890Status m890_route_ids(M890State *s, M890Queue *q, const M890Route *r,
                                 uint32_t t, int32_t *ids)
{
    uint64_t experts = (uint64_t)r->ranks * r->L;
    uint32_t raw[M890_REDUCE_MAX_K];
    unsigned int j;
    M890Status ret;

    ret = m890_rw(s, q, r->ids + (uint64_t)t * r->k * 4, raw, r->k * 4,
                  false);
    if (ret) {
        return ret;
    }
    for (j = 0; j < r->k; j++) {
        ids[j] = (int32_t)le32_to_cpu(raw[j]);
        if (ids[j] < -1 || (ids[j] >= 0 && (uint64_t)ids[j] >= experts)) {
            return m890_bad_field(q, "moe_route expert id");
        }
    }
    return 0;
}

/*
 * SEND pass 1: the tokens each rank receives (a token counts once per
 * rank however many of its k experts are there), then every rank's
 * block in the send lists, in the order my_rank + 1, .., my_rank.
 */
static M890Status m890_send_count(M890State *s, M890Queue *q,
                                  const M890Route *r, M890Budget *b)
{
    M890RowsState *rs = &q->rows;
    uint8_t hit[M890_ROUTE_MAX_RANKS];
    int32_t ids[M890_REDUCE_MAX_K];
    uint32_t d, pos, i;
    unsigned int j;
    M890Status ret;

    if (!q->progress) {
        memset(rs->cnt1, 0, sizeof(rs->cnt1));
        memset(rs->cnt2, 0, sizeof(rs->cnt2));
    }
    for (; q->progress < r->tokens; q->progress++) {
        if (!m890_budget_left(b)) {
            return M890_EXEC_MORE;
        }
        ret = m890_route_ids(s, q, r, q->progress, ids);
        if (ret) {
            return ret;
        }
        memset(hit, 0, r->ranks);
        for (j = 0; j < r->k; j++) {
            if (ids[j] >= 0 && !hit[ids[j] / r->L]) {
                hit[ids[j] / r->L] = 1;
                rs->cnt1[ids[j] / r->L]++;
            }
        }
        m890_budget_charge(b, M890_STEP_CHARGE, 0);
    }
    pos = 0;
    for (i = 1; i <= r->ranks; i++) {
        d = (r->my_rank + i) % r->ranks;
        rs->first[d] = pos;
        pos += rs->cnt1[d];
    }
    rs->total = pos;
    return 0;
}

/* SEND: dest_count, each rank's count and the tag, in one write. */
static M890Status m890_send_counts(M890State *s, M890Queue *q,
                                   const M890Route *r, M890Budget *b)
{
    M890RowsState *rs = &q->rows;
    uint64_t *cnt = (uint64_t *)s->bounce;
    uint32_t d;
    M890Status ret;

    QEMU_BUILD_BUG_ON(M890_ROUTE_MAX_RANKS * 8 > M890_BOUNCE_SIZE);
    if (!m890_budget_left(b)) {
        return M890_EXEC_MORE;
    }
    for (d = 0; d < r->ranks; d++) {
        cnt[d] = cpu_to_le64((uint64_t)r->cap << 32 | rs->cnt1[d]);
    }
    ret = m890_rw(s, q, r->out[2], cnt, r->ranks * 8ull, true);
    if (ret) {
        return ret;
    }
    m890_budget_charge(b, M890_STEP_CHARGE, 0);
    return 0;
}

/* SEND: both lists' entries from q->progress to ranks * tmax, NONE. */
static M890Status m890_send_fill(M890State *s, M890Queue *q,
                                 const M890Route *r, M890Budget *b)
{
    uint64_t lists = (uint64_t)r->ranks * r->tmax, n;
    M890Status ret;

    memset(s->bounce, 0xff, M890_BOUNCE_SIZE);
    while (q->progress < lists) {
        if (!m890_budget_left(b)) {
            return M890_EXEC_MORE;
        }
        n = MIN(lists - q->progress, M890_BOUNCE_SIZE / 4);
        ret = m890_rw(s, q, r->out[0] + q->progress * 4, s->bounce, n * 4,
                      true);
        if (!ret) {
            ret = m890_rw(s, q, r->out[1] + q->progress * 4, s->bounce,
                          n * 4, true);
        }
        if (ret) {
            return ret;
        }
        q->progress += n;
        m890_budget_charge(b, n * 8, 0);
    }
    return 0;
}

/*
 * SEND pass 2 for token @t: its entry in the send lists of each rank it
 * goes to (the token and its combine index), and its k combine indices.
 */
static M890Status m890_send_token(M890State *s, M890Queue *q,
                                  const M890Route *r, uint32_t t)
{
    M890RowsState *rs = &q->rows;
    uint8_t hit[M890_ROUTE_MAX_RANKS];
    uint32_t comb[M890_REDUCE_MAX_K], v[2], c, d, pos;
    int32_t ids[M890_REDUCE_MAX_K];
    unsigned int j;
    M890Status ret;

    ret = m890_route_ids(s, q, r, t, ids);
    if (ret) {
        return ret;
    }
    memset(hit, 0, r->ranks);
    for (j = 0; j < r->k; j++) {
        comb[j] = cpu_to_le32(M890_INDEX_NONE);
        if (ids[j] < 0 || hit[ids[j] / r->L]) {
            continue;
        }
        d = ids[j] / r->L;
        hit[d] = 1;
        c = rs->cnt2[d];
        if (c >= rs->cnt1[d]) {
            continue;   /* the ids changed since pass 1 */
        }
        rs->cnt2[d]++;
        comb[j] = cpu_to_le32(d * r->tmax + c);
        pos = rs->first[d] + c;
        v[0] = cpu_to_le32(t);
        v[1] = comb[j];
        ret = m890_rw(s, q, r->out[0] + pos * 4ull, &v[0], 4, true);
        if (!ret) {
            ret = m890_rw(s, q, r->out[1] + pos * 4ull, &v[1], 4, true);
        }
        if (ret) {
            return ret;
        }
    }
    return m890_rw(s, q, r->out[3] + (uint64_t)t * r->k * 4, comb, r->k * 4,
                   true);
}

/* MOE_ROUTE SEND; q->progress counts tokens or list entries of a step. */
static M890Status m890_route_send(M890State *s, M890Queue *q,
                                  const M890Route *r, M890Budget *b)
{
    M890RowsState *rs = &q->rows;
    M890Status ret;

    switch (rs->phase) {
    case M890_SEND_COUNT:
        ret = m890_send_count(s, q, r, b);
        if (ret) {
            return ret;
        }
        rs->phase = M890_SEND_COUNTS;
        q->progress = 0;
        /* fall through */
    case M890_SEND_COUNTS:
        ret = m890_send_counts(s, q, r, b);
        if (ret) {
            return ret;
        }
        rs->phase = M890_SEND_FILL;
        q->progress = rs->total;
        /* fall through */
    case M890_SEND_FILL:
        ret = m890_send_fill(s, q, r, b);
        if (ret) {
            return ret;
        }
        rs->phase = M890_SEND_LISTS;
        q->progress = 0;
        /* fall through */
    default:
        for (; q->progress < r->tokens; q->progress++) {
            if (!m890_budget_left(b)) {
                return M890_EXEC_MORE;
            }
            ret = m890_send_token(s, q, r, q->progress);
            if (ret) {
                return ret;
            }
            m890_budget_charge(b, M890_STEP_CHARGE, 0);
        }
        return M890_EXEC_DONE;
    }
}

/* RECV: the rows received from each source (dest_count's low half). */
static M890Status m890_recv_counts(M890State *s, M890Queue *q,
                                   const M890Route *r, M890Budget *b)
{
    M890RowsState *rs = &q->rows;
    uint64_t *cnt = (uint64_t *)s->bounce;
    uint32_t src;
    M890Status ret;

    QEMU_BUILD_BUG_ON(M890_ROUTE_MAX_RANKS * 8 > M890_BOUNCE_SIZE);
    if (!m890_budget_left(b)) {
        return M890_EXEC_MORE;
    }
    ret = m890_rw(s, q, r->out[3], cnt, r->ranks * 8ull, false);
    if (ret) {
        return ret;
    }
    for (src = 0; src < r->ranks; src++) {
        rs->got[src] = (uint32_t)le64_to_cpu(cnt[src]);
        if (rs->got[src] > r->tmax) {
            return m890_bad_field(q, "moe_route receive count");
        }
    }
    memset(rs->ecount, 0, sizeof(rs->ecount));
    m890_budget_charge(b, M890_STEP_CHARGE, 0);
    return 0;
}

/*
 * RECV for meta row @row: its row index and weight appended to the
 * lists of each of its k experts that is on this rank (up to cap rows
 * each; ecount counts past cap too).
 */
static M890Status m890_recv_row(M890State *s, M890Queue *q,
                                const M890Route *r, uint64_t row)
{
    M890RowsState *rs = &q->rows;
    uint32_t meta[2 * M890_REDUCE_MAX_K], e, le, pos, v;
    unsigned int j;
    uint64_t at;
    M890Status ret;

    ret = m890_rw(s, q, r->ids + row * r->k * 8, meta, r->k * 8, false);
    if (ret) {
        return ret;
    }
    for (j = 0; j < r->k; j++) {
        e = le32_to_cpu(meta[j]);
        if ((int32_t)e < 0 || e / r->L != r->my_rank) {
            continue;
        }
        le = e % r->L;
        pos = rs->ecount[le]++;
        if (pos >= r->cap) {
            continue;
        }
        at = ((uint64_t)le * r->cap + pos) * 4;
        v = cpu_to_le32(row);
        ret = m890_rw(s, q, r->out[1] + at, &v, 4, true);
        if (!ret) {
            ret = m890_rw(s, q, r->out[2] + at, &meta[r->k + j], 4, true);
        }
        if (ret) {
            return ret;
        }
    }
    return 0;
}

/* RECV: every source's received meta rows, in row order. */
static M890Status m890_recv_rows(M890State *s, M890Queue *q,
                                 const M890Route *r, M890Budget *b)
{
    uint64_t rows = (uint64_t)r->ranks * r->tmax;
    M890RowsState *rs = &q->rows;
    uint32_t src;
    M890Status ret;

    while (q->progress < rows) {
        if (!m890_budget_left(b)) {
            return M890_EXEC_MORE;
        }
        src = q->progress / r->tmax;
        if (q->progress % r->tmax >= rs->got[src]) {
            q->progress = (uint64_t)(src + 1) * r->tmax;
            continue;
        }
        ret = m890_recv_row(s, q, r, q->progress);
        if (ret) {
            return ret;
        }
        q->progress++;
        m890_budget_charge(b, M890_STEP_CHARGE, 0);
    }
    return 0;
}

/* RECV: expert_count; CAPACITY when an expert got more than cap rows. */
static M890Status m890_recv_done(M890State *s, M890Queue *q,
                                 const M890Route *r, M890Budget *b)
{
    M890RowsState *rs = &q->rows;
    uint32_t *out = (uint32_t *)s->bounce;
    uint64_t over = 0;
    uint32_t le;
    M890Status ret;

    QEMU_BUILD_BUG_ON(M890_ROUTE_MAX_EXPERTS * 4 > M890_BOUNCE_SIZE);
    if (!m890_budget_left(b)) {
        return M890_EXEC_MORE;
    }
    for (le = 0; le < r->L; le++) {
        out[le] = cpu_to_le32(rs->ecount[le]);
        if (rs->ecount[le] > r->cap) {
            over++;
        }
    }
    ret = m890_rw(s, q, r->out[0], out, r->L * 4ull, true);
    if (ret) {
        return ret;
    }
    m890_budget_charge(b, M890_STEP_CHARGE, 0);
    if (over) {
        trace_m890_err_capacity(q->index, over, r->cap);
        return M890_ST_CAPACITY;
    }
    return M890_EXEC_DONE;
}

/* MOE_ROUTE RECV; q->progress counts meta rows (s * tmax + i). */
static M890Status m890_route_recv(M890State *s, M890Queue *q,
                                  const M890Route *r, M890Budget *b)
{
    M890RowsState *rs = &q->rows;
    M890Status ret;

    switch (rs->phase) {
    case M890_RECV_COUNTS:
        ret = m890_recv_counts(s, q, r, b);
        if (ret) {
            return ret;
        }
        rs->phase = M890_RECV_ROWS;
        q->progress = 0;
        /* fall through */
    case M890_RECV_ROWS:
        ret = m890_recv_rows(s, q, r, b);
        if (ret) {
            return ret;
        }
        rs->phase = M890_RECV_DONE;
        /* fall through */
    default:
        return m890_recv_done(s, q, r, b);
    }
}

M890Status m890_exec_moe_route(M890State *s, M890Queue *q, M890Budget *b)
{
    M890Route r;
    M890Status ret;

    ret = m890_route_decode(q, &r);
    if (ret) {
        return ret;
    }
    if (r.mode == M890_ROUTE_SEND) {
        return m890_route_send(s, q, &r, b);
    }
    return m890_route_recv(s, q, &r, b);
}
