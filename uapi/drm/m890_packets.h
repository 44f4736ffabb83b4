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
	/* 0x0c..0x0e reserved */
	M890_PKT_FENCE = 0x0f,	/* kernel only: queue completion */
	M890_PKT_OPCODE_COUNT = 0x10,
};

#define M890_PKT_HDR(op, flags)	((__u32)(op) | ((__u32)(flags) << 8))
#define M890_PKT_OPCODE(hdr)	((hdr) & 0xff)
#define M890_PKT_FLAGS(hdr)	(((hdr) >> 8) & 0xff)
#define M890_PKT_HDR_RSVD	0xffff0000u

/* Header flags: none are defined in spec 1.0; they must be zero. */

/** struct m890_pkt_nop - no operation (§7.1). */
struct m890_pkt_nop {
	__u32 hdr;
	__u32 rsvd[15];
};

/**
 * struct m890_pkt_copy - linear copy (§7.2).
 * @src: source VA, any alignment.
 * @dst: destination VA, any alignment; may be on host memory, local HBM or
 *       a peer's HBM. Overlapping ranges are copied as if through a buffer.
 * @size: bytes; 0 is a no-op; at most 2^40.
 */
struct m890_pkt_copy {
	__u32 hdr;
	__u32 rsvd0;
	__u64 src;
	__u64 dst;
	__u64 size;
	__u64 rsvd[4];
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

/**
 * struct m890_pkt_signal - write a 64-bit semaphore (§7.5).
 * @addr: VA of the semaphore, 8-byte aligned; local or a peer's HBM.
 * @value: value to set or add.  @op: enum m890_signal_op.
 */
struct m890_pkt_signal {
	__u32 hdr;
	__u32 op;
	__u64 addr;
	__u64 value;
	__u64 rsvd[5];
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

/**
 * struct m890_pkt_reduce - weighted sum of @k rows per output row (§7.10).
 * For r < @rows: dst[r] = sum_{j<k, idx[r*k+j] != NONE}
 *                         weight[r*k+j] * src[idx[r*k+j]]
 * accumulated in fp32 in ascending j, rounded once to @dtype.
 * @dtype: M890_DTYPE_FP32 or _BF16 for src and dst.  @hidden: elements per
 * row.  @idx: __u32[rows*k].  @weight: float[rows*k].  @k: 1..64.
 */
struct m890_pkt_reduce {
	__u32 hdr;
	__u8 dtype;
	__u8 k;
	__u16 rsvd0;
	__u64 src;
	__u64 dst;
	__u64 idx;
	__u64 weight;
	__u32 rows;
	__u32 hidden;
	__u64 rsvd1;
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
	struct m890_pkt_fence fence;
};

#endif /* _UAPI_M890_PACKETS_H_ */
