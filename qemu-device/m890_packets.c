/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: M890 packet execution
 *
 * Executes the private copy of one packet (see m890_queue.c).  Every field
 * is checked before any memory is touched: reserved bits and header flags
 * must be zero, alignment and sizes must hold and no address range may wrap
 * or leave the 48-bit VA space.  Data moves page by page through the MMU:
 * host targets with pci_dma_read/pci_dma_write (a failed transaction is
 * M890_QERR_DMA), local HBM by memcpy on the backend's RAM and a peer's HBM
 * by memcpy on the pointer the switch core hands out after checking that
 * the peer is reachable (a refusal is M890_QERR_FABRIC).
 *
 * Long packets work in steps bounded by the run's byte budget and resume
 * from q->progress, so a 1 TiB copy cannot hold the main loop.  The
 * modelled clock (m890_clock.c) is charged per byte according to where
 * the bytes went, plus a switch round trip for a packet that reads a
 * peer; WAIT, TIMESTAMP and FENCE drain the data mover first.
 * GATHER/SCATTER and REDUCE read a row's index (and weight) entries once
 * into the queue (q->snap_*) and compute every piece of that row, also in
 * later runs, from that checked copy.  The spec 1.1 row packets (COPY_ROWS,
 * MOE_ROUTE) and the segment tables REDUCE shares with them live in
 * m890_rows.c; the helpers both files use are declared in m890_exec.h.
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "hw/pci/pci_device.h"

#include "m890.h"
#include "m890_exec.h"
#include "trace.h"


M890Status m890_bad_field(M890Queue *q, const char *what)
{
    trace_m890_err_field(q->index, what);
    qemu_log_mask(LOG_GUEST_ERROR, "m890: queue %u bad packet field: %s\n",
                  q->index, what);
    return M890_ST_BAD_FIELD;
}

/* True if [va, va + len) lies inside the VA space. */
bool m890_range_ok(uint64_t va, uint64_t len)
{
    return va <= M890_VA_LIMIT && len <= M890_VA_LIMIT - va;
}

/* Translate the start of [va, va + max) into one directly usable piece. */
M890Status m890_seg(M890State *s, M890Queue *q, uint64_t va, uint64_t max,
                    bool write, M890Seg *g)
{
    M890Xlate x;
    unsigned int egress;
    M890Status ret;
    int r;

    ret = m890_mmu_translate(s, q, va, write, &x);
    if (ret) {
        return ret;
    }
    g->len = MIN(x.len, max);
    g->peer = -1;
    g->ptr = NULL;
    switch (x.target) {
    case M890_PTE_TARGET_HOST:
        g->dma = x.addr;
        g->cls = M890_CLS_HOST;
        return 0;
    case M890_PTE_TARGET_HBM:
        if (x.addr >= s->hbm_size || g->len > s->hbm_size - x.addr) {
            m890_mmu_fault(s, q, va, write, M890_FAULT_OUT_OF_RANGE);
            return M890_ST_MMU_FAULT;
        }
        g->ptr = s->hbm + x.addr;
        g->cls = M890_CLS_HBM;
        return 0;
    default:
        if (!s->attached) {
            m890_mmu_fault(s, q, va, write, M890_FAULT_FABRIC);
            return M890_ST_FABRIC;
        }
        r = icn_switch_peer_ptr(s->sw->core, s->port, x.peer, x.addr,
                                g->len, &g->ptr, &egress);
        if (r == -ERANGE) {
            m890_mmu_fault(s, q, va, write, M890_FAULT_OUT_OF_RANGE);
            return M890_ST_MMU_FAULT;
        }
        if (r) {
            trace_m890_err_fabric(q->index, x.peer, r);
            m890_mmu_fault(s, q, va, write, M890_FAULT_FABRIC);
            return M890_ST_FABRIC;
        }
        g->peer = egress;
        g->cls = M890_CLS_PEER;
        if (!write) {
            /* a read waits for its completion; a write is posted */
            m890_clock_peer_read(s, q);
        }
        return 0;
    }
}

/* Account @n bytes of @q's packet moved through @g. */
void m890_seg_done(M890State *s, M890Queue *q, const M890Seg *g,
                          uint64_t n, bool write)
{
    m890_clock_bytes(s, q, g->cls, n);
    if (g->peer >= 0) {
        if (write) {
            icn_switch_account(s->sw->core, s->port, g->peer, n);
        } else {
            icn_switch_account(s->sw->core, g->peer, s->port, n);
        }
    }
}

/* Move @len bytes between @buf and VA @va.  Returns M890_ST_OK or a qerr. */
M890Status m890_rw(M890State *s, M890Queue *q, uint64_t va, void *buf,
                   uint64_t len, bool write)
{
    uint8_t *p = buf;
    M890Seg g;
    M890Status ret;

    while (len) {
        ret = m890_seg(s, q, va, len, write, &g);
        if (ret) {
            return ret;
        }
        if (g.ptr) {
            if (write) {
                memcpy(g.ptr, p, g.len);
            } else {
                memcpy(p, g.ptr, g.len);
            }
        } else if (pci_dma_rw(PCI_DEVICE(s), g.dma, p, g.len,
                              write ? DMA_DIRECTION_FROM_DEVICE :
                              DMA_DIRECTION_TO_DEVICE,
                              MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
            trace_m890_err_dma(q->index, g.dma, g.len, write);
            return M890_ST_DMA;
        }
        m890_seg_done(s, q, &g, g.len, write);
        va += g.len;
        p += g.len;
        len -= g.len;
    }
    return 0;
}

/*
 * Read or write the 64-bit semaphore at the 8-byte aligned VA @va (one
 * page, so one piece), like m890_rw().  *@sem: where it lives, a host
 * pointer into this card's or a peer's HBM, or NULL in host memory, as
 * m890_kick_sem() compares it.
 */
static M890Status m890_sem_rw(M890State *s, M890Queue *q, uint64_t va,
                              uint64_t *val, bool write, const void **sem)
{
    M890Seg g;
    M890Status ret;

    ret = m890_seg(s, q, va, 8, write, &g);
    if (ret) {
        return ret;
    }
    assert(g.len == 8);
    if (g.ptr) {
        if (write) {
            memcpy(g.ptr, val, 8);
        } else {
            memcpy(val, g.ptr, 8);
        }
    } else if (pci_dma_rw(PCI_DEVICE(s), g.dma, val, 8,
                          write ? DMA_DIRECTION_FROM_DEVICE :
                          DMA_DIRECTION_TO_DEVICE,
                          MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
        trace_m890_err_dma(q->index, g.dma, 8, write);
        return M890_ST_DMA;
    }
    m890_seg_done(s, q, &g, 8, write);
    *sem = g.ptr;
    return 0;
}

/* Add @v to the little-endian 64-bit semaphore at the host pointer @p. */
static uint64_t m890_sem_add_ptr(uint8_t *p, uint64_t v)
{
    uint64_t *w = (uint64_t *)p;        /* 8-byte aligned: HBM page + VA */
    uint64_t old = qatomic_read(w), cur, new;

    /*
     * A compare-and-swap, not a read and a write: with icn-switchd the
     * HBM is shared with other processes whose cards add to it too.
     */
    for (;;) {
        new = cpu_to_le64(le64_to_cpu(old) + v);
        cur = qatomic_cmpxchg(w, old, new);
        if (cur == old) {
            return le64_to_cpu(new);
        }
        old = cur;
    }
}

/*
 * One SIGNAL operation (spec §7.5): SET @value into, or ADD @value to, the
 * semaphore at the 8-byte aligned VA @va, then wake the WAITs on it.
 *
 * Costs (spec §10): a SET writes 8 bytes in the semaphore's class; an ADD
 * reads and writes it (16 bytes) in local HBM or host memory.  On a peer
 * a SET is a posted write of 8 bytes on the link and, on a card with
 * CAPS.ATOMICS, so is an ADD, executed by the card that owns the memory;
 * without ATOMICS an ADD on a peer reads (one round trip) and writes.
 */
static M890Status m890_sem_op(M890State *s, M890Queue *q, uint64_t va,
                              uint32_t op, uint64_t value)
{
    bool posted = m890_caps(s) & M890_HWCAP_ATOMICS;
    uint64_t cur = 0;
    M890Seg g;
    M890Status ret;

    ret = m890_seg(s, q, va, 8, true, &g);
    if (ret) {
        return ret;
    }
    assert(g.len == 8);                 /* aligned: never crosses a page */
    if (op == M890_SIGNAL_SET) {
        cur = value;
        if (g.ptr) {
            stq_le_p(g.ptr, value);
        } else if (stq_le_pci_dma(PCI_DEVICE(s), g.dma, value,
                                  MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
            trace_m890_err_dma(q->index, g.dma, 8, true);
            return M890_ST_DMA;
        }
        m890_seg_done(s, q, &g, 8, true);
    } else if (g.ptr) {
        cur = m890_sem_add_ptr(g.ptr, value);
        if (g.peer >= 0 && posted) {
            m890_seg_done(s, q, &g, 8, true);
        } else {
            if (g.peer >= 0) {
                m890_clock_peer_read(s, q);     /* 1.0: a non-posted read */
            }
            m890_seg_done(s, q, &g, 8, false);
            m890_seg_done(s, q, &g, 8, true);
        }
    } else {
        if (ldq_le_pci_dma(PCI_DEVICE(s), g.dma, &cur,
                           MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
            trace_m890_err_dma(q->index, g.dma, 8, false);
            return M890_ST_DMA;
        }
        m890_seg_done(s, q, &g, 8, false);
        cur += value;
        if (stq_le_pci_dma(PCI_DEVICE(s), g.dma, cur,
                           MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
            trace_m890_err_dma(q->index, g.dma, 8, true);
            return M890_ST_DMA;
        }
        m890_seg_done(s, q, &g, 8, true);
    }
    trace_m890_signal(q->index, va, cur);
    m890_clock_signalled(s, q, g.ptr);
    /* wake the WAITs on this semaphore, on every card of the switch */
    if (s->attached) {
        icn_switch_kick_sem(s->sw->core, g.ptr);
    } else {
        m890_kick_sem(s, g.ptr);
    }
    return 0;
}

/* True if a semaphore at @va is 8-byte aligned and inside the VA space. */
static bool m890_sem_va_ok(uint64_t va)
{
    return !(va & 7) && m890_range_ok(va, 8);
}

/*
 * Copy forward up to @len bytes from @src to @dst, stopping when the byte
 * budget runs out; *@done receives the bytes copied.  Returns M890_ST_OK
 * or a qerr.
 */
M890Status m890_copy_fwd(M890State *s, M890Queue *q, uint64_t src,
                         uint64_t dst, uint64_t len, M890Budget *b,
                         uint64_t *done)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    M890Seg sg, dg;
    uint64_t n;
    M890Status ret;

    *done = 0;
    while (*done < len && b->bytes) {
        n = MIN(len - *done, b->bytes);
        ret = m890_seg(s, q, src + *done, n, false, &sg);
        if (ret) {
            return ret;
        }
        ret = m890_seg(s, q, dst + *done, n, true, &dg);
        if (ret) {
            return ret;
        }
        n = MIN(sg.len, dg.len);
        if (sg.ptr && dg.ptr) {
            memmove(dg.ptr, sg.ptr, n);
        } else if (sg.ptr) {
            if (pci_dma_write(pdev, dg.dma, sg.ptr, n) != MEMTX_OK) {
                trace_m890_err_dma(q->index, dg.dma, n, true);
                return M890_ST_DMA;
            }
        } else if (dg.ptr) {
            if (pci_dma_read(pdev, sg.dma, dg.ptr, n) != MEMTX_OK) {
                trace_m890_err_dma(q->index, sg.dma, n, false);
                return M890_ST_DMA;
            }
        } else {
            n = MIN(n, M890_BOUNCE_SIZE);
            if (pci_dma_read(pdev, sg.dma, s->bounce, n) != MEMTX_OK) {
                trace_m890_err_dma(q->index, sg.dma, n, false);
                return M890_ST_DMA;
            }
            if (pci_dma_write(pdev, dg.dma, s->bounce, n) != MEMTX_OK) {
                trace_m890_err_dma(q->index, dg.dma, n, true);
                return M890_ST_DMA;
            }
        }
        m890_seg_done(s, q, &sg, n, false);
        m890_seg_done(s, q, &dg, n, true);
        *done += n;
        m890_budget_charge(b, n, 0);
    }
    return 0;
}

/*
 * Fill the new piece @p with up to @len bytes from VA @src to VA @dst,
 * translating and checking every page first.  Stops early at a segment a
 * pool thread may not copy.  Returns M890_ST_OK or a qerr (a fault of a page of
 * the piece: the piece is then dropped, none of it was written).
 */
static M890Status m890_piece_fill(M890State *s, M890Queue *q, M890Piece *p,
                                  uint64_t src, uint64_t dst, uint64_t len,
                                  M890Budget *b)
{
    uint64_t off = 0, n;
    M890Seg sg, dg;
    M890Status ret;

    while (off < len && b->bytes) {
        n = MIN(len - off, b->bytes);
        ret = m890_seg(s, q, src + off, n, false, &sg);
        if (!ret) {
            ret = m890_seg(s, q, dst + off, n, true, &dg);
        }
        if (ret) {
            return ret;
        }
        if (!m890_piece_add(s, p, &sg, &dg, &n)) {
            break;
        }
        off += n;
        m890_budget_charge(b, n, 0);
    }
    return 0;
}

/*
 * Hand the forward copy of @len bytes from VA @src to VA @dst to pool
 * threads (m890_worker.c), piece by piece, as far as slots and the run's
 * budget allow; @serial (overlapping ranges): one piece at a time.
 * Returns M890_EXEC_ASYNC when pieces are in flight, 0 when the next
 * bytes must be copied in the bottom half (nothing in flight), or a qerr.
 */
static M890Status m890_copy_async(M890State *s, M890Queue *q, uint64_t src,
                                  uint64_t dst, uint64_t len, bool serial,
                                  M890Budget *b)
{
    uint64_t off = 0;
    M890Piece *p;
    M890Status ret = M890_ST_OK;

    while (off < len && b->bytes && m890_async_slot(s, q) &&
           !(serial && q->npieces)) {
        p = m890_piece_new(s, q);
        ret = m890_piece_fill(s, q, p, src + off, dst + off,
                              MIN(len - off, M890_ASYNC_PIECE), b);
        if (ret || !m890_piece_bytes(p)) {
            m890_piece_free(p);
            break;
        }
        off += m890_piece_bytes(p);
        m890_piece_submit(s, q, p);
    }
    if (!q->npieces) {
        return ret;
    }
    if (ret) {
        /* raised once the pieces before the fault are retired */
        q->piece_err = ret;
    }
    /* only a run out of budget goes on before a piece retires */
    q->piece_wait = ret || b->bytes || off == len || serial ||
                    !m890_async_slot(s, q);
    return M890_EXEC_ASYNC;
}

/* COPY's data: forward, or backwards through the buffer on overlap. */
static M890Status m890_copy_data(M890State *s, M890Queue *q, M890Budget *b)
{
    const struct m890_pkt_copy *p = &q->pkt.copy;
    uint64_t src = le64_to_cpu(p->src), dst = le64_to_cpu(p->dst);
    uint64_t size = le64_to_cpu(p->size), done, chunk, off, pos;
    bool overlap = src < dst + size && dst < src + size;
    M890Status ret;

    if (dst > src && dst < src + size) {
        /* overlapping, destination above: copy backwards via the buffer */
        while (q->progress < size) {
            if (!m890_budget_left(b)) {
                return M890_EXEC_MORE;
            }
            chunk = MIN(MIN(size - q->progress, M890_BOUNCE_SIZE), b->bytes);
            off = size - q->progress - chunk;
            ret = m890_rw(s, q, src + off, s->bounce, chunk, false);
            if (!ret) {
                ret = m890_rw(s, q, dst + off, s->bounce, chunk, true);
            }
            if (ret) {
                return ret;
            }
            q->progress += chunk;
            m890_budget_charge(b, chunk, 0);
        }
        return M890_EXEC_DONE;
    }
    if (q->piece_err && !q->npieces) {
        return q->piece_err;
    }
    pos = q->progress + q->piece_bytes;
    if (size - q->progress >= M890_ASYNC_MIN && pos < size) {
        ret = m890_copy_async(s, q, src + pos, dst + pos, size - pos,
                              overlap, b);
        if (ret) {
            return ret;
        }
    }
    if (q->npieces) {
        q->piece_wait = true;
        return M890_EXEC_ASYNC;
    }
    ret = m890_copy_fwd(s, q, src + q->progress, dst + q->progress,
                        size - q->progress, b, &done);
    q->progress += done;
    if (ret) {
        return ret;
    }
    return q->progress == size ? M890_EXEC_DONE : M890_EXEC_MORE;
}

/*
 * COPY (spec §7.2), with the put with signal of 1.1: once the data's last
 * write is done, sig_value is added to the semaphore at sig_addr in the
 * same phase, as a SIGNAL ADD (posted on a peer), so it follows the data.
 */
static M890Status m890_exec_copy(M890State *s, M890Queue *q, M890Budget *b)
{
    const struct m890_pkt_copy *p = &q->pkt.copy;
    uint64_t src = le64_to_cpu(p->src), dst = le64_to_cpu(p->dst);
    uint64_t size = le64_to_cpu(p->size);
    uint64_t sig = le64_to_cpu(p->sig_addr);
    M890Status ret;

    if (p->rsvd0 || !buffer_is_zero(p->rsvd, sizeof(p->rsvd))) {
        return m890_bad_field(q, "copy reserved");
    }
    if (size > M890_MAX_COPY) {
        return m890_bad_field(q, "copy size");
    }
    if (sig && !(m890_caps(s) & M890_HWCAP_ATOMICS)) {
        trace_m890_err_unsupported(q->index, "copy sig_addr");
        return M890_ST_UNSUPPORTED;
    }
    if (sig && !m890_sem_va_ok(sig)) {
        return m890_bad_field(q, "copy sig_addr");
    }
    if (!sig && p->sig_value) {
        return m890_bad_field(q, "copy sig_value without sig_addr");
    }
    if (size && (!m890_range_ok(src, size) || !m890_range_ok(dst, size))) {
        return m890_bad_field(q, "copy range");
    }
    if (size) {
        ret = m890_copy_data(s, q, b);
        if (ret != M890_EXEC_DONE) {
            return ret;
        }
    }
    if (sig) {
        ret = m890_sem_op(s, q, sig, M890_SIGNAL_ADD,
                          le64_to_cpu(p->sig_value));
        if (ret) {
            return ret;
        }
    }
    return M890_EXEC_DONE;
}

static M890Status m890_exec_copy_2d(M890State *s, M890Queue *q, M890Budget *b)
{
    const struct m890_pkt_copy_2d *p = &q->pkt.copy_2d;
    uint64_t src = le64_to_cpu(p->src), dst = le64_to_cpu(p->dst);
    uint64_t spitch = le64_to_cpu(p->src_pitch);
    uint64_t dpitch = le64_to_cpu(p->dst_pitch);
    uint32_t width = le32_to_cpu(p->width), height = le32_to_cpu(p->height);
    uint64_t total, row, col, done, sext, dext;
    M890Status ret;

    if (p->rsvd0 || !buffer_is_zero(p->rsvd, sizeof(p->rsvd))) {
        return m890_bad_field(q, "copy_2d reserved");
    }
    if (spitch < width || dpitch < width) {
        return m890_bad_field(q, "copy_2d pitch < width");
    }
    if (!width || !height) {
        return M890_EXEC_DONE;
    }
    total = (uint64_t)width * height;
    if (total > M890_MAX_COPY || spitch > M890_VA_LIMIT ||
        dpitch > M890_VA_LIMIT) {
        return m890_bad_field(q, "copy_2d size");
    }
    /* pitch <= 2^48 and height < 2^32: no 64-bit overflow */
    sext = spitch * (height - 1) + width;
    dext = dpitch * (height - 1) + width;
    if (!m890_range_ok(src, sext) || !m890_range_ok(dst, dext)) {
        return m890_bad_field(q, "copy_2d range");
    }
    while (q->progress < total) {
        if (!m890_budget_left(b)) {
            return M890_EXEC_MORE;
        }
        row = q->progress / width;
        col = q->progress % width;
        ret = m890_copy_fwd(s, q, src + row * spitch + col,
                            dst + row * dpitch + col, width - col, b, &done);
        q->progress += done;
        if (ret) {
            return ret;
        }
    }
    return M890_EXEC_DONE;
}

static M890Status m890_exec_fill(M890State *s, M890Queue *q, M890Budget *b)
{
    const struct m890_pkt_fill *p = &q->pkt.fill;
    uint64_t dst = le64_to_cpu(p->dst), size = le64_to_cpu(p->size), n;
    uint32_t pattern = p->pattern;      /* already little-endian */
    unsigned int i;
    M890Status ret;

    if (!buffer_is_zero(p->rsvd, sizeof(p->rsvd))) {
        return m890_bad_field(q, "fill reserved");
    }
    if ((dst & 3) || (size & 3)) {
        return m890_bad_field(q, "fill alignment");
    }
    if (size > M890_MAX_COPY) {
        return m890_bad_field(q, "fill size");
    }
    if (!size) {
        return M890_EXEC_DONE;
    }
    if (!m890_range_ok(dst, size)) {
        return m890_bad_field(q, "fill range");
    }
    for (i = 0; i < M890_BOUNCE_SIZE; i += 4) {
        memcpy(s->bounce + i, &pattern, 4);
    }
    while (q->progress < size) {
        n = MIN(MIN(size - q->progress, M890_BOUNCE_SIZE), b->bytes) & ~3ull;
        if (!n) {
            return M890_EXEC_MORE;
        }
        ret = m890_rw(s, q, dst + q->progress, s->bounce, n, true);
        if (ret) {
            return ret;
        }
        q->progress += n;
        m890_budget_charge(b, n, 0);
    }
    return M890_EXEC_DONE;
}

/*
 * Read @count 64-bit words of the list at @va into @out (CPU order): a SIGNAL's
 * target or value list, read once when the packet starts.
 */
static M890Status m890_read_list(M890State *s, M890Queue *q, uint64_t va,
                                 uint32_t count, uint64_t *out)
{
    uint32_t i;
    M890Status ret;

    ret = m890_rw(s, q, va, out, (uint64_t)count * 8, false);
    if (ret) {
        return ret;
    }
    for (i = 0; i < count; i++) {
        out[i] = le64_to_cpu(out[i]);
    }
    return 0;
}

/* Checks of SIGNAL's fields in the order of the spec's table (§7.5). */
static M890Status m890_signal_check(M890State *s, M890Queue *q)
{
    const struct m890_pkt_signal *p = &q->pkt.signal;
    uint64_t addr = le64_to_cpu(p->addr), targets = le64_to_cpu(p->targets);
    uint64_t stride = le64_to_cpu(p->stride), values = le64_to_cpu(p->values);
    uint32_t op = le32_to_cpu(p->op), count = le32_to_cpu(p->count);

    if (p->rsvd1 || p->rsvd2) {
        return m890_bad_field(q, "signal reserved");
    }
    if (op > M890_SIGNAL_ADD) {
        return m890_bad_field(q, "signal op");
    }
    if (addr & 7) {
        return m890_bad_field(q, "signal alignment");
    }
    if (addr && targets) {
        return m890_bad_field(q, "signal addr with targets");
    }
    if (count > 1 && !(m890_caps(s) & M890_HWCAP_ATOMICS)) {
        trace_m890_err_unsupported(q->index, "signal count");
        return M890_ST_UNSUPPORTED;
    }
    if (count > M890_SIGNAL_MAX_TARGETS) {
        return m890_bad_field(q, "signal count");
    }
    if (count <= 1 && (targets || stride || values)) {
        return m890_bad_field(q, "signal list fields without count");
    }
    if (targets & 7) {
        return m890_bad_field(q, "signal targets alignment");
    }
    if (stride & 7) {
        return m890_bad_field(q, "signal stride");
    }
    if (values & 7) {
        return m890_bad_field(q, "signal values alignment");
    }
    if (count <= 1) {
        return m890_range_ok(addr, 8) ? 0 :
               m890_bad_field(q, "signal range");
    }
    if (targets ? !m890_range_ok(targets, (uint64_t)count * 8) :
        (stride > M890_VA_LIMIT ||
         !m890_range_ok(addr, (uint64_t)(count - 1) * stride + 8))) {
        return m890_bad_field(q, "signal range");
    }
    if (values && !m890_range_ok(values, (uint64_t)count * 8)) {
        return m890_bad_field(q, "signal values range");
    }
    return 0;
}

/*
 * SIGNAL (spec §7.5): one semaphore, or 2 .. 256 of them in ascending
 * order, addressed by a target list or by a stride, with one value or a
 * value list.  Both lists are read once, into the bounce buffer, and every
 * target is checked before the first operation.  At most 256 operations:
 * the packet completes in one step.
 */
static M890Status m890_exec_signal(M890State *s, M890Queue *q, M890Budget *b)
{
    const struct m890_pkt_signal *p = &q->pkt.signal;
    uint64_t addr = le64_to_cpu(p->addr), value = le64_to_cpu(p->value);
    uint64_t targets = le64_to_cpu(p->targets);
    uint64_t stride = le64_to_cpu(p->stride), values = le64_to_cpu(p->values);
    uint32_t op = le32_to_cpu(p->op), count = le32_to_cpu(p->count), i;
    uint64_t *tg = (uint64_t *)s->bounce;
    uint64_t *vl = tg + M890_SIGNAL_MAX_TARGETS;
    M890Status ret;

    QEMU_BUILD_BUG_ON(2 * M890_SIGNAL_MAX_TARGETS * 8 > M890_BOUNCE_SIZE);
    ret = m890_signal_check(s, q);
    if (ret) {
        return ret;
    }
    if (count <= 1) {
        ret = m890_sem_op(s, q, addr, op, value);
        m890_budget_charge(b, M890_STEP_CHARGE, 0);
        return ret ? ret : M890_EXEC_DONE;
    }
    if (targets) {
        ret = m890_read_list(s, q, targets, count, tg);
        if (ret) {
            return ret;
        }
        for (i = 0; i < count; i++) {
            if (tg[i] && !m890_sem_va_ok(tg[i])) {
                return m890_bad_field(q, "signal target entry");
            }
        }
    }
    if (values) {
        ret = m890_read_list(s, q, values, count, vl);
        if (ret) {
            return ret;
        }
    }
    for (i = 0; i < count; i++) {
        uint64_t va = targets ? tg[i] : addr + i * stride;

        if (targets && !va) {
            continue;
        }
        ret = m890_sem_op(s, q, va, op, values ? vl[i] : value);
        if (ret) {
            return ret;
        }
    }
    b->bytes -= MIN(b->bytes, (uint64_t)count * M890_STEP_CHARGE);
    return M890_EXEC_DONE;
}

static M890Status m890_exec_wait(M890State *s, M890Queue *q, M890Budget *b)
{
    const struct m890_pkt_wait *p = &q->pkt.wait;
    uint64_t addr = le64_to_cpu(p->addr), value = le64_to_cpu(p->value);
    uint32_t cond = le32_to_cpu(p->cond);
    uint64_t cur;
    M890Status ret;

    if (!buffer_is_zero(p->rsvd, sizeof(p->rsvd))) {
        return m890_bad_field(q, "wait reserved");
    }
    if (cond > M890_WAIT_EQ) {
        return m890_bad_field(q, "wait cond");
    }
    if (addr & 7) {
        return m890_bad_field(q, "wait alignment");
    }
    /*
     * Ordering: checked once earlier packets are done.  Every check of a
     * peer semaphore is a read that waits for its round trip.
     */
    m890_clock_drain(s, q);
    m890_clock_check(s, q);
    ret = m890_sem_rw(s, q, addr, &cur, false, &q->wait_sem);
    if (ret) {
        return ret;
    }
    cur = le64_to_cpu(cur);
    if (cond == M890_WAIT_GE ? cur >= value : cur == value) {
        return M890_EXEC_DONE;
    }
    return M890_EXEC_WAIT;
}

static M890Status m890_exec_timestamp(M890State *s, M890Queue *q, M890Budget *b)
{
    const struct m890_pkt_timestamp *p = &q->pkt.timestamp;
    uint64_t addr = le64_to_cpu(p->addr), now;
    M890Status ret;

    if (p->rsvd0 || !buffer_is_zero(p->rsvd, sizeof(p->rsvd))) {
        return m890_bad_field(q, "timestamp reserved");
    }
    if (addr & 7) {
        return m890_bad_field(q, "timestamp alignment");
    }
    /* the drain's start: every earlier packet of the queue is done */
    m890_clock_drain(s, q);
    now = cpu_to_le64(m890_clock_drain_ns(q));
    ret = m890_rw(s, q, addr, &now, 8, true);
    return ret ? ret : M890_EXEC_DONE;
}

static M890Status m890_exec_fence(M890State *s, M890Queue *q, M890Budget *b)
{
    const struct m890_pkt_fence *p = &q->pkt.fence;
    uint32_t flags = le32_to_cpu(p->flags);
    uint64_t value = le64_to_cpu(p->value);

    if (!buffer_is_zero(p->rsvd, sizeof(p->rsvd))) {
        return m890_bad_field(q, "fence reserved");
    }
    if (flags & ~M890_FENCE_F_IRQ) {
        return m890_bad_field(q, "fence flags");
    }
    m890_clock_drain(s, q);
    if (q->fence_addr) {
        if (q->fence_addr & 7) {
            return m890_bad_field(q, "fence address alignment");
        }
        if (stq_le_pci_dma(PCI_DEVICE(s), q->fence_addr, value,
                           MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
            trace_m890_err_dma(q->index, q->fence_addr, 8, true);
            return M890_ST_DMA;
        }
        m890_clock_bytes(s, q, M890_CLS_HOST, 8);
    }
    q->fence_value = value;
    trace_m890_fence(q->index, value, flags);
    if (flags & M890_FENCE_F_IRQ) {
        m890_msix_notify(s, q->msix_vector);
    }
    return M890_EXEC_DONE;
}

/* GATHER and SCATTER: progress counts bytes over count * row_bytes. */
static M890Status m890_exec_gather(M890State *s, M890Queue *q, M890Budget *b,
                                   bool scatter)
{
    const struct m890_pkt_gather *p = &q->pkt.gather;
    uint64_t src = le64_to_cpu(p->src), dst = le64_to_cpu(p->dst);
    uint64_t idxva = le64_to_cpu(p->idx);
    uint32_t row_bytes = le32_to_cpu(p->row_bytes);
    uint32_t count = le32_to_cpu(p->count), idx;
    uint64_t total, i, off, from, to, done, tab;
    M890Status ret;

    if (p->rsvd0 || !buffer_is_zero(p->rsvd, sizeof(p->rsvd))) {
        return m890_bad_field(q, "gather reserved");
    }
    if (!row_bytes) {
        return m890_bad_field(q, "gather row_bytes");
    }
    if (idxva & 3) {
        return m890_bad_field(q, "gather idx alignment");
    }
    if (!count) {
        return M890_EXEC_DONE;
    }
    total = (uint64_t)count * row_bytes;
    if (!m890_range_ok(idxva, (uint64_t)count * 4) ||
        !m890_range_ok(scatter ? src : dst, total)) {
        return m890_bad_field(q, "gather range");
    }
    tab = scatter ? dst : src;
    while (q->progress < total) {
        if (!m890_budget_left(b)) {
            return M890_EXEC_MORE;
        }
        i = q->progress / row_bytes;
        off = q->progress % row_bytes;
        if (!q->snap_valid || q->snap_row != i) {
            /* the row's index is read once, then only the copy is used */
            ret = m890_rw(s, q, idxva + i * 4, &idx, 4, false);
            if (ret) {
                return ret;
            }
            q->snap_idx[0] = le32_to_cpu(idx);
            q->snap_row = i;
            q->snap_valid = true;
        }
        idx = q->snap_idx[0];
        m890_budget_charge(b, M890_STEP_CHARGE, 0);
        if (idx == M890_INDEX_NONE) {
            q->progress += row_bytes - off;
            continue;
        }
        if (!m890_range_ok(tab, (uint64_t)(idx + 1ull) * row_bytes)) {
            return m890_bad_field(q, "gather index out of VA space");
        }
        if (scatter) {
            from = src + i * row_bytes + off;
            to = dst + (uint64_t)idx * row_bytes + off;
        } else {
            from = src + (uint64_t)idx * row_bytes + off;
            to = dst + i * row_bytes + off;
        }
        ret = m890_copy_fwd(s, q, from, to, row_bytes - off, b, &done);
        q->progress += done;
        if (ret) {
            return ret;
        }
    }
    return M890_EXEC_DONE;
}

uint32_t m890_load_elem(const uint8_t *p, unsigned int esz)
{
    return esz == 2 ? m890_bf16_to_f32(lduw_le_p(p)) : ldl_le_p(p);
}

void m890_store_elem(uint8_t *p, unsigned int esz, uint32_t f)
{
    if (esz == 2) {
        stw_le_p(p, m890_f32_to_bf16(f));
    } else {
        stl_le_p(p, f);
    }
}

/* A checked REDUCE packet. */
typedef struct M890Reduce {
    uint64_t src, dst, idx, weight;
    uint32_t rows, hidden, seg_rows;
    unsigned int k, esz;
    bool table;                 /* SRC_TABLE: src is a segment table */
    bool unweighted;
    uint64_t row_bytes;         /* hidden * esz */
    uint64_t total;             /* output elements, rows * hidden */
} M890Reduce;

/* Decode and check a REDUCE packet (spec 7.10, 7.13). */
static M890Status m890_reduce_decode(M890State *s, M890Queue *q,
                                     M890Reduce *r)
{
    const struct m890_pkt_reduce *p = &q->pkt.reduce;
    unsigned int flags = le16_to_cpu(p->flags);

    r->src = le64_to_cpu(p->src);
    r->dst = le64_to_cpu(p->dst);
    r->idx = le64_to_cpu(p->idx);
    r->weight = le64_to_cpu(p->weight);
    r->rows = le32_to_cpu(p->rows);
    r->hidden = le32_to_cpu(p->hidden);
    r->seg_rows = le32_to_cpu(p->seg_rows);
    r->k = p->k;
    r->table = flags & M890_REDUCE_F_SRC_TABLE;
    r->unweighted = flags & M890_REDUCE_F_UNWEIGHTED;
    r->total = 0;
    if (p->rsvd1 || p->rsvd2 ||
        (!(m890_caps(s) & M890_HWCAP_ROWS) && (flags || r->seg_rows))) {
        return m890_bad_field(q, "reduce reserved");
    }
    if (p->dtype != M890_DTYPE_FP32 && p->dtype != M890_DTYPE_BF16) {
        return m890_bad_field(q, "reduce dtype");
    }
    if (r->k < 1 || r->k > M890_REDUCE_MAX_K) {
        return m890_bad_field(q, "reduce k");
    }
    if (flags & ~(M890_REDUCE_F_SRC_TABLE | M890_REDUCE_F_UNWEIGHTED)) {
        return m890_bad_field(q, "reduce flags");
    }
    if (r->table && (r->src & 7)) {
        return m890_bad_field(q, "reduce table alignment");
    }
    if ((r->idx & 3) || (r->weight & 3)) {
        return m890_bad_field(q, "reduce alignment");
    }
    if (r->unweighted && r->weight) {
        return m890_bad_field(q, "reduce weight with UNWEIGHTED");
    }
    if (r->table ? r->seg_rows < 1 || r->seg_rows > M890_ROWS_MAX :
                   r->seg_rows) {
        return m890_bad_field(q, "reduce seg_rows");
    }
    if (!r->rows || !r->hidden) {
        return M890_ST_OK;              /* nothing to do, nothing to check */
    }
    r->esz = p->dtype == M890_DTYPE_FP32 ? 4 : 2;
    r->row_bytes = (uint64_t)r->hidden * r->esz;
    r->total = (uint64_t)r->rows * r->hidden;
    if (!m890_range_ok(r->idx, (uint64_t)r->rows * r->k * 4) ||
        (!r->unweighted &&
         !m890_range_ok(r->weight, (uint64_t)r->rows * r->k * 4)) ||
        (r->table && !m890_range_ok(r->src, M890_TABLE_MAX_SEGMENTS * 8)) ||
        r->total > M890_MAX_COPY || !m890_range_ok(r->dst, r->total * r->esz)) {
        return m890_bad_field(q, "reduce range");
    }
    return M890_ST_OK;
}

/*
 * Read output row @row's k indices and weights once into q->snap_idx and
 * q->snap_w (CPU order), for all its pieces, also in later runs.
 */
static M890Status m890_reduce_snap(M890State *s, M890Queue *q,
                                   const M890Reduce *r, uint64_t row)
{
    unsigned int j;
    M890Status ret;

    if (q->snap_valid && q->snap_row == row) {
        return M890_ST_OK;
    }
    ret = m890_rw(s, q, r->idx + row * r->k * 4, q->snap_idx, r->k * 4,
                  false);
    if (!ret && !r->unweighted) {
        ret = m890_rw(s, q, r->weight + row * r->k * 4, q->snap_w, r->k * 4,
                      false);
    }
    if (ret) {
        return ret;
    }
    for (j = 0; j < r->k; j++) {
        q->snap_idx[j] = le32_to_cpu(q->snap_idx[j]);
        q->snap_w[j] = r->unweighted ? M890_F32_ONE :
                       le32_to_cpu(q->snap_w[j]);
    }
    q->snap_row = row;
    q->snap_valid = true;
    return M890_ST_OK;
}

/* VA *@va of source row @ix; *@skip if its table segment is empty. */
static M890Status m890_reduce_row_va(M890State *s, M890Queue *q,
                                     const M890Reduce *r, uint32_t ix,
                                     uint64_t *va, bool *skip)
{
    uint64_t off;

    if (r->table) {
        return m890_table_row(s, q, 0, r->src, r->seg_rows, r->row_bytes, ix,
                              r->row_bytes, va, skip);
    }
    *skip = false;
    if (__builtin_mul_overflow((uint64_t)ix, r->row_bytes, &off) ||
        !m890_range_ok(r->src, off) ||
        !m890_range_ok(r->src + off, r->row_bytes)) {
        return m890_bad_field(q, "reduce index out of VA space");
    }
    *va = r->src + off;
    return M890_ST_OK;
}

/* Output elements [col, col + ncol) of row @row (snapshot taken). */
static M890Status m890_reduce_step(M890State *s, M890Queue *q,
                                   const M890Reduce *r, uint64_t row,
                                   uint64_t col, unsigned int ncol)
{
    uint32_t acc[M890_REDUCE_COLS], ix, wb, x;
    unsigned int esz = r->esz, j, c;
    uint64_t rowva;
    bool skip;
    M890Status ret;

    QEMU_BUILD_BUG_ON(M890_REDUCE_COLS * 4 > M890_BOUNCE_SIZE);
    for (c = 0; c < ncol; c++) {
        acc[c] = 0;                     /* +0.0 */
    }
    for (j = 0; j < r->k; j++) {
        ix = q->snap_idx[j];
        wb = q->snap_w[j];
        if (ix == M890_INDEX_NONE) {
            continue;
        }
        ret = m890_reduce_row_va(s, q, r, ix, &rowva, &skip);
        if (!ret && !skip) {
            ret = m890_rw(s, q, rowva + col * esz, s->bounce, ncol * esz,
                          false);
        }
        if (ret) {
            return ret;
        }
        for (c = 0; !skip && c < ncol; c++) {
            x = m890_load_elem(s->bounce + c * esz, esz);
            /* 1.0 * x is exact: UNWEIGHTED adds the rows as they are */
            acc[c] = m890_f32_add(acc[c], r->unweighted ? x :
                                  m890_f32_mul(wb, x));
        }
    }
    for (c = 0; c < ncol; c++) {
        m890_store_elem(s->bounce + c * esz, esz, acc[c]);
    }
    return m890_rw(s, q, r->dst + (row * r->hidden + col) * esz, s->bounce,
                   ncol * esz, true);
}

/*
 * REDUCE: progress counts output elements over rows * hidden, at most
 * M890_REDUCE_COLS of a row per step.  With SRC_TABLE (spec 1.1) source
 * row i lies in segment i / seg_rows of the table at src
 * (m890_table_row()); UNWEIGHTED sums the rows as they are.
 */
static M890Status m890_exec_reduce(M890State *s, M890Queue *q, M890Budget *b)
{
    M890Reduce r;
    uint64_t row, col;
    unsigned int ncol;
    M890Status ret;

    ret = m890_reduce_decode(s, q, &r);
    if (ret) {
        return ret;
    }
    while (q->progress < r.total) {
        if (!m890_budget_left(b)) {
            return M890_EXEC_MORE;
        }
        row = q->progress / r.hidden;
        col = q->progress % r.hidden;
        ncol = MIN(r.hidden - col, M890_REDUCE_COLS);
        ret = m890_reduce_snap(s, q, &r, row);
        if (!ret) {
            ret = m890_reduce_step(s, q, &r, row, col, ncol);
        }
        if (ret) {
            return ret;
        }
        q->progress += ncol;
        m890_budget_charge(b, (uint64_t)(r.k + 1) * ncol * r.esz,
                           (uint64_t)r.k * ncol);
    }
    return M890_EXEC_DONE;
}

void m890_mx_quant(const M890MxFmt *f, const uint8_t *el, unsigned int esz,
                   unsigned int nblk, uint8_t *mx, uint8_t *sc)
{
    uint32_t v[M890_MX_BLOCK];
    uint8_t code[M890_MX_BLOCK];
    unsigned int i, j, e0;

    memset(mx, 0, f == &m890_fp4 ? nblk * M890_MX_BLOCK / 2 :
                                   nblk * M890_MX_BLOCK);
    for (i = 0; i < nblk; i++) {
        for (j = 0; j < M890_MX_BLOCK; j++) {
            v[j] = m890_load_elem(el + (i * M890_MX_BLOCK + j) * esz, esz);
        }
        sc[i] = m890_mx_quant_block(f, v, code);
        for (j = 0; j < M890_MX_BLOCK; j++) {
            e0 = i * M890_MX_BLOCK + j;
            if (f == &m890_fp4) {
                mx[e0 / 2] |= code[j] << ((e0 & 1) * 4);
            } else {
                mx[e0] = code[j];
            }
        }
    }
}

/* A checked MX_QUANT or MX_DEQUANT packet. */
typedef struct M890Mx {
    const M890MxFmt *f;
    unsigned int esz;           /* bytes of an FP32 or BF16 element */
    uint64_t src, dst, scale, count;
} M890Mx;

/* Bytes of @n elements of format @f packed (MXFP4: two to a byte). */
static uint64_t m890_mx_bytes(const M890MxFmt *f, uint64_t n)
{
    return f == &m890_fp4 ? n / 2 : n;
}

/* Decode and check an MX packet of direction @quant (spec 7.11). */
static M890Status m890_mx_decode(M890Queue *q, bool quant, M890Mx *m)
{
    const struct m890_pkt_mx *p = &q->pkt.mx;
    uint64_t elbytes, mxbytes;

    if (p->rsvd0 || !buffer_is_zero(p->rsvd, sizeof(p->rsvd))) {
        return m890_bad_field(q, "mx reserved");
    }
    if (p->mx_dtype != M890_DTYPE_MXFP4 && p->mx_dtype != M890_DTYPE_MXFP8) {
        return m890_bad_field(q, "mx dtype");
    }
    if (p->src_dtype != M890_DTYPE_FP32 && p->src_dtype != M890_DTYPE_BF16) {
        return m890_bad_field(q, "mx src_dtype");
    }
    m->src = le64_to_cpu(p->src);
    m->dst = le64_to_cpu(p->dst);
    m->scale = le64_to_cpu(p->scale);
    m->count = le64_to_cpu(p->count);
    if (m->count % M890_MX_BLOCK || m->count > M890_MAX_COPY) {
        return m890_bad_field(q, "mx count");
    }
    if (!m->count) {
        return 0;                       /* no access: nothing to check */
    }
    m->f = p->mx_dtype == M890_DTYPE_MXFP4 ? &m890_fp4 : &m890_fp8;
    m->esz = p->src_dtype == M890_DTYPE_FP32 ? 4 : 2;
    elbytes = m->count * m->esz;
    mxbytes = m890_mx_bytes(m->f, m->count);
    if (!m890_range_ok(quant ? m->src : m->dst, elbytes) ||
        !m890_range_ok(quant ? m->dst : m->src, mxbytes) ||
        !m890_range_ok(m->scale, m->count / M890_MX_BLOCK)) {
        return m890_bad_field(q, "mx range");
    }
    return 0;
}

/* Quantize @n elements from element @e0 (a multiple of M890_MX_BLOCK). */
static M890Status m890_mx_quant_step(M890State *s, M890Queue *q,
                                     const M890Mx *m, uint64_t e0,
                                     unsigned int n)
{
    uint8_t mx[M890_MX_STEP], sc[M890_MX_STEP / M890_MX_BLOCK];
    unsigned int nblk = n / M890_MX_BLOCK;
    M890Status ret;

    ret = m890_rw(s, q, m->src + e0 * m->esz, s->bounce,
                  (uint64_t)n * m->esz, false);
    if (ret) {
        return ret;
    }
    m890_mx_quant(m->f, s->bounce, m->esz, nblk, mx, sc);
    ret = m890_rw(s, q, m->dst + m890_mx_bytes(m->f, e0), mx,
                  m890_mx_bytes(m->f, n), true);
    if (ret) {
        return ret;
    }
    return m890_rw(s, q, m->scale + e0 / M890_MX_BLOCK, sc, nblk, true);
}

/* Dequantize @n elements from element @e0 (a multiple of M890_MX_BLOCK). */
static M890Status m890_mx_dequant_step(M890State *s, M890Queue *q,
                                       const M890Mx *m, uint64_t e0,
                                       unsigned int n)
{
    uint8_t mx[M890_MX_STEP], sc[M890_MX_STEP / M890_MX_BLOCK];
    unsigned int i, code;
    M890Status ret;

    ret = m890_rw(s, q, m->src + m890_mx_bytes(m->f, e0), mx,
                  m890_mx_bytes(m->f, n), false);
    if (!ret) {
        ret = m890_rw(s, q, m->scale + e0 / M890_MX_BLOCK, sc,
                      n / M890_MX_BLOCK, false);
    }
    if (ret) {
        return ret;
    }
    for (i = 0; i < n; i++) {
        code = m->f == &m890_fp4 ? (mx[i / 2] >> ((i & 1) * 4)) & 0xf : mx[i];
        m890_store_elem(s->bounce + i * m->esz, m->esz,
                        m890_mx_dequant(m->f, code, sc[i / M890_MX_BLOCK]));
    }
    return m890_rw(s, q, m->dst + e0 * m->esz, s->bounce,
                   (uint64_t)n * m->esz, true);
}

/*
 * MX_QUANT and MX_DEQUANT: progress counts elements, M890_MX_STEP at a
 * time; the FP32/BF16 side of a step goes through s->bounce.
 */
static M890Status m890_exec_mx(M890State *s, M890Queue *q, M890Budget *b,
                               bool quant)
{
    M890Mx m;
    unsigned int n;
    M890Status ret;

    QEMU_BUILD_BUG_ON(M890_MX_STEP * 4 > M890_BOUNCE_SIZE);
    QEMU_BUILD_BUG_ON(M890_MX_STEP % M890_MX_BLOCK);
    ret = m890_mx_decode(q, quant, &m);
    if (ret) {
        return ret;
    }
    while (q->progress < m.count) {
        if (!m890_budget_left(b)) {
            return M890_EXEC_MORE;
        }
        n = MIN(m.count - q->progress, M890_MX_STEP);
        ret = quant ? m890_mx_quant_step(s, q, &m, q->progress, n) :
                      m890_mx_dequant_step(s, q, &m, q->progress, n);
        if (ret) {
            return ret;
        }
        q->progress += n;
        m890_budget_charge(b, (uint64_t)n * (m.esz + 1), n);
    }
    return M890_EXEC_DONE;
}

static M890Status m890_exec_mx_quant(M890State *s, M890Queue *q, M890Budget *b)
{
    return m890_exec_mx(s, q, b, true);
}

static M890Status m890_exec_mx_dequant(M890State *s, M890Queue *q,
                                       M890Budget *b)
{
    return m890_exec_mx(s, q, b, false);
}

static M890Status m890_exec_nop(M890State *s, M890Queue *q, M890Budget *b)
{
    const struct m890_pkt_copy *p = &q->pkt.copy;

    /* every dword after the header is reserved */
    if (p->rsvd0 || !buffer_is_zero(&p->src, M890_PKT_SIZE - 8)) {
        return m890_bad_field(q, "nop reserved");
    }
    return M890_EXEC_DONE;
}

static M890Status m890_exec_gather_pkt(M890State *s, M890Queue *q,
                                       M890Budget *b)
{
    return m890_exec_gather(s, q, b, false);
}

static M890Status m890_exec_scatter_pkt(M890State *s, M890Queue *q,
                                        M890Budget *b)
{
    return m890_exec_gather(s, q, b, true);
}

/* How the command processor executes an opcode (spec 7). */
typedef struct M890Opcode {
    M890Status (*exec)(M890State *s, M890Queue *q, M890Budget *b);
    uint32_t caps;              /* M890_HWCAP_* the card needs, 0: any */
    bool data;                  /* a data packet: RELAXED is allowed */
} M890Opcode;

static const M890Opcode m890_opcodes[M890_PKT_OPCODE_COUNT] = {
    [M890_PKT_NOP] = { m890_exec_nop, 0, false },
    [M890_PKT_COPY] = { m890_exec_copy, 0, true },
    [M890_PKT_COPY_2D] = { m890_exec_copy_2d, 0, true },
    [M890_PKT_FILL] = { m890_exec_fill, 0, true },
    [M890_PKT_SIGNAL] = { m890_exec_signal, 0, true },
    [M890_PKT_WAIT] = { m890_exec_wait, 0, false },
    [M890_PKT_TIMESTAMP] = { m890_exec_timestamp, 0, false },
    [M890_PKT_GATHER] = { m890_exec_gather_pkt, 0, true },
    [M890_PKT_SCATTER] = { m890_exec_scatter_pkt, 0, true },
    [M890_PKT_REDUCE] = { m890_exec_reduce, 0, true },
    [M890_PKT_MX_QUANT] = { m890_exec_mx_quant, 0, true },
    [M890_PKT_MX_DEQUANT] = { m890_exec_mx_dequant, 0, true },
    [M890_PKT_COPY_ROWS] = { m890_exec_copy_rows, M890_HWCAP_ROWS, true },
    [M890_PKT_MOE_ROUTE] = { m890_exec_moe_route, M890_HWCAP_ROWS, true },
    [M890_PKT_FENCE] = { m890_exec_fence, 0, false },
    [M890_PKT_GEMM] = { m890_exec_gemm, M890_HWCAP_GEMM, true },
};

M890Status m890_execute(M890State *s, M890Queue *q, M890Budget *b)
{
    uint32_t hdr = le32_to_cpu(q->pkt.hdr);
    uint32_t op = M890_PKT_OPCODE(hdr);
    const M890Opcode *o = op < ARRAY_SIZE(m890_opcodes) ? &m890_opcodes[op] :
                          NULL;

    if (!o || !o->exec || (o->caps & ~m890_caps(s))) {
        /* a hole in the list, or not on this card (1.0: no ROWS) */
        trace_m890_err_opcode(q->index, op);
        qemu_log_mask(LOG_GUEST_ERROR, "m890: queue %u bad opcode 0x%x\n",
                      q->index, op);
        return M890_ST_BAD_OPCODE;
    }
    if ((M890_PKT_FLAGS(hdr) & ~M890_PKT_FLAGS_VALID) ||
        (hdr & M890_PKT_HDR_RSVD)) {
        return m890_bad_field(q, "header flags");
    }
    if ((M890_PKT_FLAGS(hdr) & M890_PKT_F_RELAXED) &&
        (!o->data || !(m890_caps(s) & M890_HWCAP_ENGINES))) {
        /* spec §7: data packets only, on a card with several data movers */
        return m890_bad_field(q, "header flag RELAXED");
    }
    return o->exec(s, q, b);
}
