/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * M890 command packets (Documentation/hardware-spec.rst §7).
 *
 * Every packet is 64 bytes, little-endian, and starts with a 32-bit header:
 * bits 7:0 opcode, bits 15:8 flags, bits 31:16 reserved (zero).  All
 * addresses are 64-bit device virtual addresses (VAs) of the submitting
 * context, translated by the device MMU; sizes are in bytes unless a field
 * name says otherwise.  Reserved fields must be zero: the device rejects a
 * packet with M890_QERR_BAD_FIELD otherwise, and the driver rejects it
 * earlier with -EINVAL.
 */
#ifndef _UAPI_M890_PACKETS_H_
#define _UAPI_M890_PACKETS_H_

#include <linux/types.h>

#define M890_PKT_SIZE		64

enum m890_opcode {
	M890_PKT_NOP = 0x00,
	M890_PKT_COPY = 0x01,
	M890_PKT_COPY_2D = 0x02,
	M890_PKT_FILL = 0x03,
	M890_PKT_SIGNAL = 0x04,
	M890_PKT_WAIT = 0x05,
	M890_PKT_TIMESTAMP = 0x06,
	M890_PKT_GATHER = 0x07,
	M890_PKT_SCATTER = 0x08,
	M890_PKT_REDUCE = 0x09,
	M890_PKT_MX_QUANT = 0x0a,
	M890_PKT_MX_DEQUANT = 0x0b,
	M890_PKT_COPY_ROWS = 0x0c,	/* spec 1.1, CAPS.ROWS */
	M890_PKT_MOE_ROUTE = 0x0d,	/* spec 1.1, CAPS.ROWS */
	M890_PKT_GEMM = 0x0e,	/* spec 1.1, CAPS.GEMM */
	M890_PKT_FENCE = 0x0f,	/* kernel only: queue completion */
	M890_PKT_OPCODE_COUNT = 0x10,
};

#define M890_PKT_HDR(op, flags)	((__u32)(op) | ((__u32)(flags) << 8))
#define M890_PKT_OPCODE(hdr)	((hdr) & 0xff)
#define M890_PKT_FLAGS(hdr)	(((hdr) >> 8) & 0xff)
#define M890_PKT_HDR_RSVD	0xffff0000u

/*
 * Header flags (bits 15:8; spec 1.1, §7).  M890_PKT_F_RELAXED: a data
 * packet that may start before the earlier packets of its queue complete
 * (after the queue's last WAIT, TIMESTAMP or FENCE); needs CAPS.ENGINES
 * and is refused on NOP, WAIT, TIMESTAMP and FENCE.  Other bits are zero.
 */
#define M890_PKT_F_RELAXED	(1u << 0)
#define M890_PKT_FLAGS_VALID	M890_PKT_F_RELAXED

/** struct m890_pkt_nop - no operation (§7.1). */
struct m890_pkt_nop {
	__u32 hdr;
	__u32 rsvd[15];
};

/**
 * struct m890_pkt_copy - linear copy, optionally a put with signal (§7.2).
 * @src: source VA, any alignment.
 * @dst: destination VA, any alignment; may be on host memory, local HBM or
 *       a peer's HBM. Overlapping ranges are copied as if through a buffer.
 * @size: bytes; 0 is a no-op (but still signals); at most 2^40.
 * @sig_addr: spec 1.1 (CAPS.ATOMICS): 0, or the VA of a 64-bit semaphore,
 *            8-byte aligned, to which @sig_value is added after the copy's
 *            last write, ordered after the data (posted on a peer).
 * @sig_value: the value added; 0 when @sig_addr is 0.
 */
struct m890_pkt_copy {
	__u32 hdr;
	__u32 rsvd0;
	__u64 src;
	__u64 dst;
	__u64 size;
	__u64 sig_addr;
	__u64 sig_value;
	__u64 rsvd[2];
};

/**
 * struct m890_pkt_copy_2d - strided copy of @height rows of @width bytes (§7.3).
 * @src_pitch, @dst_pitch: bytes between row starts; each >= @width.
 */
struct m890_pkt_copy_2d {
	__u32 hdr;
	__u32 width;
	__u64 src;
	__u64 dst;
	__u64 src_pitch;
	__u64 dst_pitch;
	__u32 height;
	__u32 rsvd0;
	__u64 rsvd[2];
};

/**
 * struct m890_pkt_fill - fill with a repeated 32-bit pattern (§7.4).
 * @dst: VA, 4-byte aligned.  @size: bytes, multiple of 4, at most 2^40.
 */
struct m890_pkt_fill {
	__u32 hdr;
	__u32 pattern;
	__u64 dst;
	__u64 size;
	__u64 rsvd[5];
};

enum m890_signal_op {
	M890_SIGNAL_SET = 0,	/* *addr = value */
	M890_SIGNAL_ADD = 1,	/* *addr += value (atomic per device) */
};

#define M890_SIGNAL_MAX_TARGETS	256

/**
 * struct m890_pkt_signal - write one or many 64-bit semaphores (§7.5).
 * @addr: VA of the semaphore, 8-byte aligned; local or a peer's HBM.  0
 *        when @targets is used.
 * @value: value to set or add (for every target unless @values is set).
 * @op: enum m890_signal_op.
 * @count: spec 1.1 (CAPS.ATOMICS): 0 or 1 for one semaphore, else 2 ..
 *         M890_SIGNAL_MAX_TARGETS semaphores, done in ascending order.
 * @targets: 0, or VA of @count __u64 semaphore VAs (8-byte aligned; an
 *           entry of 0 is skipped).
 * @stride: with @targets 0: semaphore i is at @addr + i * @stride (bytes,
 *          a multiple of 8).
 * @values: 0, or VA of @count __u64 values, 8-byte aligned.
 * @targets, @stride and @values are 0 when @count is 0 or 1.
 */
struct m890_pkt_signal {
	__u32 hdr;
	__u32 op;
	__u64 addr;
	__u64 value;
	__u32 count;
	__u32 rsvd1;
	__u64 targets;
	__u64 stride;
	__u64 values;
	__u64 rsvd2;
};

enum m890_wait_cond {
	M890_WAIT_GE = 0,	/* until *addr >= value (unsigned) */
	M890_WAIT_EQ = 1,	/* until *addr == value */
};

/**
 * struct m890_pkt_wait - block the queue until a semaphore condition (§7.6).
 * @addr: VA of the semaphore, 8-byte aligned.  @cond: enum m890_wait_cond.
 * The device re-checks on every SIGNAL it executes and every 10 us
 * otherwise; a wait that never ends is cut by the driver's job timeout.
 */
struct m890_pkt_wait {
	__u32 hdr;
	__u32 cond;
	__u64 addr;
	__u64 value;
	__u64 rsvd[5];
};

/**
 * struct m890_pkt_timestamp - write the modelled device clock (§7.7).
 * @addr: VA, 8-byte aligned; receives nanoseconds as a __u64.
 */
struct m890_pkt_timestamp {
	__u32 hdr;
	__u32 rsvd0;
	__u64 addr;
	__u64 rsvd[6];
};

#define M890_INDEX_NONE		0xffffffffu

/**
 * struct m890_pkt_gather - rows by index list (§7.8, §7.9).
 * GATHER: for i < @count: dst[i] = src[idx[i]]; idx == M890_INDEX_NONE
 *         leaves dst[i] untouched.
 * SCATTER: for i < @count: dst[idx[i]] = src[i]; NONE skips row i.
 * @row_bytes: bytes per row, > 0.  @idx: VA of @count __u32 indices, 4-byte
 * aligned.  Row i of a table is at base + i * @row_bytes.
 */
struct m890_pkt_gather {
	__u32 hdr;
	__u32 row_bytes;
	__u64 src;
	__u64 dst;
	__u64 idx;
	__u32 count;
	__u32 rsvd0;
	__u64 rsvd[3];
};

enum m890_dtype {
	M890_DTYPE_FP32 = 0,
	M890_DTYPE_BF16 = 1,
	M890_DTYPE_MXFP4 = 2,	/* E2M1 elements, E8M0 scale per 32 */
	M890_DTYPE_MXFP8 = 3,	/* E4M3 elements, E8M0 scale per 32 */
};

#define M890_TABLE_MAX_SEGMENTS	256	/* entries of a segment table */

/* REDUCE flags (spec 1.1, CAPS.ROWS) */
#define M890_REDUCE_F_SRC_TABLE		(1u << 0)	/* @src: segment table */
#define M890_REDUCE_F_UNWEIGHTED	(1u << 1)	/* every weight 1.0 */

/**
 * struct m890_pkt_reduce - weighted sum of @k rows per output row (§7.10).
 * For r < @rows: dst[r] = sum_{j<k, idx[r*k+j] != NONE}
 *                         weight[r*k+j] * src[idx[r*k+j]]
 * accumulated in fp32 in ascending j, rounded once to @dtype.
 * @dtype: M890_DTYPE_FP32 or _BF16 for src and dst.  @hidden: elements per
 * row.  @idx: __u32[rows*k].  @weight: float[rows*k].  @k: 1..64.
 * @flags: M890_REDUCE_F_* (spec 1.1).  With SRC_TABLE, @src is the VA of
 *         up to M890_TABLE_MAX_SEGMENTS __u64 segment bases and row i is
 *         at table[i / @seg_rows] + (i % @seg_rows) * row bytes (an entry
 *         of 0: the rows count as NONE).  With UNWEIGHTED, @weight is 0.
 * @seg_rows: rows per segment with SRC_TABLE (1 .. 2^24), else 0.
 */
struct m890_pkt_reduce {
	__u32 hdr;
	__u8 dtype;
	__u8 k;
	__u16 flags;
	__u64 src;
	__u64 dst;
	__u64 idx;
	__u64 weight;
	__u32 rows;
	__u32 hidden;
	__u32 seg_rows;
	__u32 rsvd1;
	__u64 rsvd2;
};

/**
 * struct m890_pkt_mx - MX_QUANT / MX_DEQUANT (§7.11, OCP MX v1.0).
 * QUANT: @count elements of @src_dtype (FP32 or BF16) at @src become
 * MX @mx_dtype elements at @dst (MXFP4: two per byte, low nibble first;
 * MXFP8: one per byte) and one E8M0 scale byte per block of 32 at @scale.
 * DEQUANT: the reverse, writing @src_dtype elements to @dst from @src and
 * @scale.  @count: multiple of 32.
 */
struct m890_pkt_mx {
	__u32 hdr;
	__u8 mx_dtype;
	__u8 src_dtype;
	__u16 rsvd0;
	__u64 src;
	__u64 dst;
	__u64 scale;
	__u64 count;
	__u64 rsvd[3];
};

enum m890_rows_op {
	M890_ROWS_COPY = 0,	/* dst row = src row */
	M890_ROWS_ADD = 1,	/* dst row += src row (reduce-on-write) */
	M890_ROWS_MX = 2,	/* dst row = MX_QUANT(src row): elements, scales */
};

#define M890_ROWS_SRC_TABLE	(1u << 0)	/* @src is a segment table */
#define M890_ROWS_DST_TABLE	(1u << 1)	/* @dst is a segment table */
#define M890_ROWS_MAX		(1u << 24)	/* rows, row bytes, seg_rows */

/**
 * struct m890_pkt_copy_rows - rows by source and destination index (§7.13).
 * For i < @count: s = @src_idx ? src_idx[i] : i, d = @dst_idx ? dst_idx[i]
 * : i (M890_INDEX_NONE skips the row); COPY copies @row_bytes bytes from
 * source row s to destination row d, ADD adds them element-wise in
 * @dtype (fp32 arithmetic, round to nearest even; spec 1.1 CAPS.ATOMICS),
 * MX writes the source row (@row_bytes of @dtype elements, a multiple of
 * 32 elements) quantized to @mx_dtype: its element bytes, then its E8M0
 * scales, as MX_QUANT would (CAPS.MX).
 * Row x of a side is at base + x * pitch, or with its *_TABLE bit at
 * table[x / @seg_rows] + (x % @seg_rows) * pitch.
 * @row_bytes: 1 .. M890_ROWS_MAX; a multiple of the element size for ADD.
 * @src, @dst: VA of row 0, or of a table of up to M890_TABLE_MAX_SEGMENTS
 *             __u64 segment bases (8-byte aligned; an entry of 0 skips).
 * @src_idx, @dst_idx: 0, or VA of @count __u32, 4-byte aligned.
 * @count: rows, 0 .. M890_ROWS_MAX.
 * @seg_rows: rows per segment when a table is used, 1 .. M890_ROWS_MAX;
 *            else 0.
 * @src_pitch, @dst_pitch: bytes between rows; 0 means @row_bytes, else
 *                         at least @row_bytes.
 * @op: enum m890_rows_op.  @dtype: ADD, MX: M890_DTYPE_FP32 or _BF16 (the
 *       source's for MX); COPY: 0.
 * @tables: M890_ROWS_SRC_TABLE | M890_ROWS_DST_TABLE.
 * @mx_dtype: MX: M890_DTYPE_MXFP4 or _MXFP8; else 0.
 */
struct m890_pkt_copy_rows {
	__u32 hdr;
	__u32 row_bytes;
	__u64 src;
	__u64 dst;
	__u64 src_idx;
	__u64 dst_idx;
	__u32 count;
	__u32 seg_rows;
	__u32 src_pitch;
	__u32 dst_pitch;
	__u8 op;
	__u8 dtype;
	__u8 tables;
	__u8 mx_dtype;
	__u32 rsvd0;
};

enum m890_route_mode {
	M890_ROUTE_SEND = 0,	/* send lists, counts, combine indices */
	M890_ROUTE_RECV = 1,	/* expert-major lists of received rows */
};

#define M890_ROUTE_MAX_RANKS	256
#define M890_ROUTE_MAX_TMAX	(1u << 20)
#define M890_ROUTE_MAX_EXPERTS	4096	/* per rank */

/**
 * struct m890_pkt_moe_route - MoE routing on the card (§7.14).
 * Rank r holds experts r * L .. r * L + L - 1 (L = @experts_per_rank);
 * every rank sends at most @tmax tokens to every rank; row numbers
 * d * @tmax + c name the c-th row of segment d.
 * SEND: @ids = __s32[@tokens][@k] expert ids (-1: none); writes
 *   @out0 send_src __u32[@ranks * @tmax], @out1 send_dst (same),
 *   @out2 dest_count __u64[@ranks] (@tag << 32 | tokens for rank d),
 *   @out3 combine_idx __u32[@tokens * @k].
 * RECV: @ids = meta table, row s * @tmax + i of 8 * @k bytes (__s32 ids
 *   then fp32 weights); @out3 = __u64[@ranks], low 32 bits the rows from
 *   each source; writes @out0 expert_count __u32[L], @out1 expert_rows
 *   __u32[L * @cap], @out2 expert_weight float[L * @cap]; a count over
 *   @cap fails the packet with M890_QERR_CAPACITY after its writes.
 * @mode: enum m890_route_mode.  @k: 1 .. 64.  @my_rank: < @ranks.
 * @tokens: SEND: 0 .. @tmax; RECV: 0.  @tmax: 1 .. M890_ROUTE_MAX_TMAX.
 * @ranks: 1 .. M890_ROUTE_MAX_RANKS.  @experts_per_rank: 1 ..
 * M890_ROUTE_MAX_EXPERTS.  @cap: RECV: 1 .. M890_ROWS_MAX.  @tag: SEND:
 * any value, the high half of every dest_count.
 */
struct m890_pkt_moe_route {
	__u32 hdr;
	__u8 mode;
	__u8 k;
	__u16 my_rank;
	__u64 ids;
	__u32 tokens;
	__u32 tmax;
	__u16 ranks;
	__u16 experts_per_rank;
	union {
		__u32 cap;	/* RECV */
		__u32 tag;	/* SEND */
	};
	__u64 out0;
	__u64 out1;
	__u64 out2;
	__u64 out3;
};

/* GEMM flags (spec 1.1, CAPS.GEMM) */
#define M890_GEMM_F_SWIGLU	(1u << 0)	/* out = silu(gate) * up */
#define M890_GEMM_F_SCATTER_ADD	(1u << 1)	/* out rows by @idx, weighted */
#define M890_GEMM_FLAGS_VALID	(M890_GEMM_F_SWIGLU | M890_GEMM_F_SCATTER_ADD)

#define M890_GEMM_MAX_GROUPS	255		/* groups per packet */
#define M890_GEMM_MAX_KBLOCKS	512		/* K = 32 * k_blocks <= 16384 */
#define M890_GEMM_MAX_N		16384		/* output columns */
#define M890_GEMM_MAX_OUT_ROWS	(1u << 20)	/* SCATTER_ADD row numbers */

/**
 * struct m890_pkt_gemm - grouped matrix multiply of expert-major rows
 * (§7.15, CAPS.GEMM): for group g < @groups and row p < count_g (the
 * __u32 at @counts + 4g, or @cap when @counts is 0), with K = 32 *
 * @k_blocks and x = g * @cap + p:
 *
 *   A row:  @a + i * A-row bytes, i = @idx[x] (M890_INDEX_NONE skips the
 *           row) when @idx is set and SCATTER_ADD is not, else i = x;
 *           BF16: K elements; MXFP8: K E4M3 bytes then K / 32 E8M0.
 *   weights of group g: Nw = @n (2 * @n with SWIGLU: gate rows, then up
 *           rows) rows of K elements, each a row of @w_dtype as above
 *           (MXFP4: K / 2 bytes, low nibble first, then K / 32 E8M0),
 *           packed, group g at @w + g * Nw * W-row bytes.
 *   acc[c] = sum over kk ascending of A[kk] * W[c][kk]: both operands
 *           dequantized to fp32 (as MX_DEQUANT), one fp32 multiply and
 *           one fp32 add per term, round to nearest even, from +0.0.
 *   v[c]   = acc[c], or with SWIGLU silu(acc[c]) * acc[n + c] (§7.15).
 *   output: bf16 rows of @n: row x at @out (STORE); with SCATTER_ADD
 *           row @idx[x] becomes bf16(w * v) the first time a group of
 *           the packet names it, else bf16(old + w * v), w = @weight[x].
 *
 * @a_dtype: M890_DTYPE_BF16 or _MXFP8.  @w_dtype: M890_DTYPE_BF16 or
 * _MXFP4.  @flags: M890_GEMM_F_*.  @groups: 0 .. M890_GEMM_MAX_GROUPS.
 * @k_blocks: 0 .. M890_GEMM_MAX_KBLOCKS.  @n: 0 .. M890_GEMM_MAX_N.
 * @cap: rows per group, 0 .. M890_ROWS_MAX; @groups * @cap at most
 * M890_ROWS_MAX.  @idx, @counts, @weight: 4-byte aligned VAs or 0
 * (@idx and @weight required with SCATTER_ADD, @weight only then).
 */
struct m890_pkt_gemm {
	__u32 hdr;
	__u8 a_dtype;
	__u8 w_dtype;
	__u8 flags;
	__u8 groups;
	__u16 k_blocks;
	__u16 n;
	__u32 cap;
	__u64 a;
	__u64 w;
	__u64 out;
	__u64 idx;
	__u64 counts;
	__u64 weight;
};

#define M890_FENCE_F_IRQ	(1u << 0)

/** struct m890_pkt_fence - kernel-only completion marker (§7.12). */
struct m890_pkt_fence {
	__u32 hdr;
	__u32 flags;		/* bit 0: raise the queue's MSI-X vector */
	__u64 value;		/* stored to Q_FENCE_VALUE and Q_FENCE_ADDR */
	__u64 rsvd[6];
};

/** union m890_packet - any packet, as laid out in a ring slot. */
union m890_packet {
	__u32 hdr;
	__u32 dw[16];
	struct m890_pkt_nop nop;
	struct m890_pkt_copy copy;
	struct m890_pkt_copy_2d copy_2d;
	struct m890_pkt_fill fill;
	struct m890_pkt_signal signal;
	struct m890_pkt_wait wait;
	struct m890_pkt_timestamp timestamp;
	struct m890_pkt_gather gather;
	struct m890_pkt_reduce reduce;
	struct m890_pkt_mx mx;
	struct m890_pkt_copy_rows copy_rows;
	struct m890_pkt_moe_route moe_route;
	struct m890_pkt_gemm gemm;
	struct m890_pkt_fence fence;
};

#endif /* _UAPI_M890_PACKETS_H_ */
