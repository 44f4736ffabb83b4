/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * M890 packet execution: the helpers the packet files share
 * (m890_packets.c, m890_rows.c, m890_gemm.c).  Everything here runs
 * under the BQL on the private copy of a queue's packet.
 */
#ifndef HW_M890_EXEC_H
#define HW_M890_EXEC_H

#include "m890.h"
#include "m890_arith.h"

#define M890_REDUCE_COLS    1024    /* elements per REDUCE step */
#define M890_MX_STEP        2048    /* elements per MX step */

/* One directly usable piece of a translated VA range. */
typedef struct M890Seg {
    uint8_t *ptr;               /* HBM or peer HBM; NULL: host DMA */
    uint64_t dma;
    uint64_t len;
    int peer;                   /* egress port, -1 if not PEER */
    unsigned int cls;           /* M890_CLS_* of the timing model */
} M890Seg;

/* Trace and log a bad field of @q's packet; returns M890_QERR_BAD_FIELD. */
M890Status m890_bad_field(M890Queue *q, const char *what);

/* True if [va, va + len) lies inside the 48-bit VA space. */
bool m890_range_ok(uint64_t va, uint64_t len);

/*
 * Translate the start of [va, va + max) into one directly usable piece
 * *@g (faults are recorded; a peer read charges its round trip).
 * Returns M890_ST_OK or a queue error.
 */
M890Status m890_seg(M890State *s, M890Queue *q, uint64_t va, uint64_t max,
                    bool write, M890Seg *g);

/* Charge @n bytes of @q's packet moved through @g (clock, switch). */
void m890_seg_done(M890State *s, M890Queue *q, const M890Seg *g,
                   uint64_t n, bool write);

/* Move @len bytes between @buf and VA @va, charged.  M890_ST_OK or a qerr. */
M890Status m890_rw(M890State *s, M890Queue *q, uint64_t va, void *buf,
                   uint64_t len, bool write);

/*
 * Copy forward up to @len bytes from VA @src to VA @dst until the run's
 * budget @b is used; *@done receives the bytes copied.  M890_ST_OK or a qerr.
 */
M890Status m890_copy_fwd(M890State *s, M890Queue *q, uint64_t src, uint64_t dst,
                         uint64_t len, M890Budget *b, uint64_t *done);

/*
 * Load an FP32 or BF16 (@esz 4 or 2) element as binary32 bits (BF16
 * widened exactly); store binary32 bits as one (BF16 rounded to nearest
 * even, NaN as 0x7fc0).
 */
uint32_t m890_load_elem(const uint8_t *p, unsigned int esz);
void m890_store_elem(uint8_t *p, unsigned int esz, uint32_t f);

/*
 * MX_QUANT (spec 7.11) of @nblk blocks of 32 elements of @esz bytes at
 * @el: element codes into @mx (@f's packing, element 0 first), one E8M0
 * scale per block into @sc.
 */
void m890_mx_quant(const M890MxFmt *f, const uint8_t *el, unsigned int esz,
                   unsigned int nblk, uint8_t *mx, uint8_t *sc);

/*
 * Add the start of the segments @sg -> @dg, at most *@n bytes, to the
 * piece @p, pinning both sides; *@n receives the bytes added.  False if
 * either side is not memory a pool thread may copy (m890_worker.c).
 */
bool m890_piece_add(M890State *s, M890Piece *p, const M890Seg *sg,
                    const M890Seg *dg, uint64_t *n);

/* m890_rows.c: spec 1.1 row packets (CAPS.ROWS) */
void m890_rows_reset(M890Queue *q);
M890Status m890_table_row(M890State *s, M890Queue *q, unsigned int t,
                          uint64_t table, uint32_t seg_rows, uint64_t pitch,
                          uint32_t x, uint64_t len, uint64_t *va, bool *skip);
M890Status m890_exec_copy_rows(M890State *s, M890Queue *q, M890Budget *b);
M890Status m890_exec_moe_route(M890State *s, M890Queue *q, M890Budget *b);

/* m890_gemm.c: GEMM (CAPS.GEMM) */
void m890_gemm_reset(M890Queue *q);
M890Status m890_exec_gemm(M890State *s, M890Queue *q, M890Budget *b);

#endif /* HW_M890_EXEC_H */
