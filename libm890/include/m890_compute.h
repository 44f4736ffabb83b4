/* SPDX-License-Identifier: MIT */
/*
 * libm890 compute packets: the bf16 and MX conversions, MX quantize and
 * dequantize, gather, scatter and reduce on a stream, and their
 * bit-exact host references.  Part of <m890.h>.
 */
#ifndef M890_COMPUTE_H
#define M890_COMPUTE_H

#include <stdint.h>

#include "m890_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* MX formats and compute packets                                      */
/* ------------------------------------------------------------------ */

/**
 * M890_MX_BLOCK - elements sharing one E8M0 scale byte in the MX formats
 * (OCP MX v1.0's block size); MX counts are multiples of it.
 */
#define M890_MX_BLOCK		32u
/**
 * M890_MX_SCALE_NAN - scale byte of a block that held a NaN or infinity
 * (the E8M0 NaN); dequantizing such a block gives quiet NaNs.
 */
#define M890_MX_SCALE_NAN	0xffu
/**
 * M890_ROW_NONE - index value that skips a row in gather, scatter, reduce
 * and the GEMM index lists.
 */
#define M890_ROW_NONE		0xffffffffu

/**
 * m890_bf16_to_float() - exact conversion of a bfloat16 to float, as the
 * device converts (hardware spec §7.10, §7.11).
 * @h: the bfloat16 bits.
 *
 * Return: the float whose upper 16 bits are @h and lower 16 bits zero
 * (NaNs keep their payload).
 */
float m890_bf16_to_float(uint16_t h);

/**
 * m890_float_to_bf16() - a float rounded to bfloat16 as the device rounds.
 * @f: the float to round.
 *
 * Round to nearest even (hardware spec §7.10, §7.11): overflow gives
 * infinity, every NaN gives the quiet NaN 0x7fc0.
 *
 * Return: the bfloat16 bits.
 */
uint16_t m890_float_to_bf16(float f);

/**
 * m890_mx_quantize_host() - quantize elements on the CPU exactly as the
 * device's MX_QUANT packet does (hardware spec §7.11).
 * @mx_type: M890_TYPE_MXFP4 or M890_TYPE_MXFP8.
 * @wide_type: M890_TYPE_FP32 or M890_TYPE_BF16, the type at @src.
 * @src: @count wide elements.
 * @count: a multiple of M890_MX_BLOCK (0 is a no-op).
 * @elems: receives the elements: @count / 2 bytes (MXFP4) or @count bytes.
 * @scales: receives @count / M890_MX_BLOCK scale bytes.
 *
 * Per block: a block holding a NaN or infinity gets scale
 * M890_MX_SCALE_NAN and all element codes 0; otherwise the shared exponent
 * is floor(log2(amax)) minus the element format's largest exponent (2 for
 * E2M1, 8 for E4M3), -127 for an all-zero block, clamped to -127..127, and
 * each element is the nearest element value of v / 2^shared, ties to even,
 * saturating to +-6.0 / +-448 and keeping the sign of zero.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT for the types, a
 * @count that is not a multiple of M890_MX_BLOCK, or NULL pointers with a
 * non-zero @count.
 */
m890_status_t m890_mx_quantize_host(enum m890_data_type mx_type,
				    enum m890_data_type wide_type,
				    const void *src, uint64_t count,
				    void *elems, uint8_t *scales);

/**
 * m890_mx_dequantize_host() - dequantize on the CPU exactly as the
 * device's MX_DEQUANT packet does.
 * @mx_type: M890_TYPE_MXFP4 or M890_TYPE_MXFP8, the type at @elems.
 * @wide_type: M890_TYPE_FP32 or M890_TYPE_BF16, the type written to @dst.
 * @elems: @count / 2 bytes (MXFP4) or @count bytes of elements.
 * @scales: @count / M890_MX_BLOCK scale bytes.
 * @count: a multiple of M890_MX_BLOCK (0 is a no-op).
 * @dst: receives @count elements of @wide_type.
 *
 * Each output is element * 2^(scale - 127) in binary32 (infinity on
 * overflow), rounded to nearest even for BF16 output; a NaN scale byte or
 * an E4M3 NaN element gives the quiet NaN 0x7fc00000 (FP32) or 0x7fc0
 * (BF16).
 *
 * Return: as m890_mx_quantize_host().
 */
m890_status_t m890_mx_dequantize_host(enum m890_data_type mx_type,
				      enum m890_data_type wide_type,
				      const void *elems, const uint8_t *scales,
				      uint64_t count, void *dst);

/**
 * m890_reduce_host() - the device's REDUCE on the CPU (hardware spec
 * §7.10).
 * @type: M890_TYPE_FP32 or M890_TYPE_BF16, the type of @src and @dst.
 * @src: rows of @hidden elements; every index used must be a row of it
 *       (not checked: the caller owns the table's size).
 * @dst: receives @rows rows of @hidden elements; must not overlap @src.
 * @idx: @rows * @k row numbers into @src; M890_ROW_NONE skips a term.
 * @weight: @rows * @k binary32 weights, one per index.
 * @rows: output rows; 0 is a no-op.
 * @hidden: elements per row; 0 is a no-op.
 * @k: terms per output row, 1..64.
 *
 * For each output row r < @rows and element h < @hidden: acc = +0.0f,
 * then for j = 0..@k-1 with i = @idx[r * @k + j] not M890_ROW_NONE,
 * acc = acc + @weight[r * @k + j] * src[i][h], each step a binary32
 * multiply and add rounded to nearest even (no FMA); @dst[r][h] = acc
 * (rounded to nearest even for BF16).
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT for @type, @k or NULL
 * pointers.
 */
m890_status_t m890_reduce_host(enum m890_data_type type, const void *src,
			       void *dst, const uint32_t *idx,
			       const float *weight, uint32_t rows,
			       uint32_t hidden, unsigned int k);

/**
 * m890_mx_quantize() - enqueue an MX_QUANT packet.
 * @stream: the stream; VAs are of its device.
 * @mx_type: M890_TYPE_MXFP4 or M890_TYPE_MXFP8.
 * @wide_type: M890_TYPE_FP32 or M890_TYPE_BF16, the type at @src_va.
 * @src_va: @count wide elements, element aligned (4 or 2 bytes).
 * @elems_va: receives @count / 2 (MXFP4) or @count bytes of elements.
 * @scales_va: receives @count / M890_MX_BLOCK scale bytes, any alignment.
 * @count: a multiple of M890_MX_BLOCK, at most 2^36; 0 is a no-op.
 *
 * The rules are those of m890_mx_quantize_host(), and the results are
 * bit-identical.  The three ranges must not overlap.
 *
 * Return: M890_SUCCESS once enqueued; M890_ERROR_INVALID_ARGUMENT for the
 * types, @count, alignment or a range that wraps; bad VAs and a card
 * without MX support are reported asynchronously
 * (M890_ERROR_DEVICE_FAULT, M890_ERROR_DEVICE_ERROR).
 */
m890_status_t m890_mx_quantize(m890_stream_t stream,
			       enum m890_data_type mx_type,
			       enum m890_data_type wide_type,
			       uint64_t src_va, uint64_t elems_va,
			       uint64_t scales_va, uint64_t count);

/**
 * m890_mx_dequantize() - enqueue an MX_DEQUANT packet, the inverse of
 * m890_mx_quantize().
 * @stream: the stream; VAs are of its device.
 * @mx_type: M890_TYPE_MXFP4 or M890_TYPE_MXFP8, the type at @elems_va.
 * @wide_type: M890_TYPE_FP32 or M890_TYPE_BF16, the type written.
 * @elems_va: @count / 2 (MXFP4) or @count bytes of elements.
 * @scales_va: @count / M890_MX_BLOCK scale bytes.
 * @dst_va: receives @count @wide_type elements, element aligned.
 * @count: a multiple of M890_MX_BLOCK, at most 2^36; 0 is a no-op.
 *
 * Bit-identical to m890_mx_dequantize_host().
 *
 * Return: as m890_mx_quantize().
 */
m890_status_t m890_mx_dequantize(m890_stream_t stream,
				 enum m890_data_type mx_type,
				 enum m890_data_type wide_type,
				 uint64_t elems_va, uint64_t scales_va,
				 uint64_t dst_va, uint64_t count);

/**
 * m890_gather() - enqueue a GATHER of rows by index.
 * @stream: the stream; VAs are of its device.
 * @dst_va: receives @count rows, row i at @dst_va + i * @row_bytes.
 * @src_va: the table; row idx[i] at @src_va + idx[i] * @row_bytes.
 * @idx_va: @count uint32_t indices, 4-byte aligned.
 * @row_bytes: bytes per row, 1 .. 2^32 - 1, any alignment.
 * @count: rows, 0 .. 2^24 (0 is a no-op).
 *
 * For i < @count with idx[i] not M890_ROW_NONE, copy @row_bytes bytes
 * from @src_va + idx[i] * @row_bytes to @dst_va + i * @row_bytes; rows
 * whose index is M890_ROW_NONE are left untouched.
 *
 * Return: M890_SUCCESS once enqueued; M890_ERROR_INVALID_ARGUMENT for the
 * limits, alignment or a range that wraps; an index outside the mapped
 * table is an async M890_ERROR_DEVICE_FAULT.
 */
m890_status_t m890_gather(m890_stream_t stream, uint64_t dst_va,
			  uint64_t src_va, uint64_t idx_va,
			  uint64_t row_bytes, uint64_t count);

/**
 * m890_scatter() - enqueue a SCATTER of rows by index.
 * @stream: the stream; VAs are of its device.
 * @dst_va: the table; row idx[i] at @dst_va + idx[i] * @row_bytes.
 * @src_va: @count rows, row i at @src_va + i * @row_bytes.
 * @idx_va: @count uint32_t indices, 4-byte aligned.
 * @row_bytes: bytes per row, 1 .. 2^32 - 1.
 * @count: rows, 0 .. 2^24 (0 is a no-op).
 *
 * For i < @count with idx[i] not M890_ROW_NONE, copy row i of @src_va to
 * @dst_va + idx[i] * @row_bytes, in ascending i (of equal indices the
 * larger i wins).
 *
 * Return: as m890_gather().
 */
m890_status_t m890_scatter(m890_stream_t stream, uint64_t dst_va,
			   uint64_t src_va, uint64_t idx_va,
			   uint64_t row_bytes, uint64_t count);

/**
 * m890_reduce() - enqueue a REDUCE (the mixture-of-experts combine).
 * @stream: the stream; VAs are of its device.
 * @type: M890_TYPE_FP32 or M890_TYPE_BF16, of the source and result rows.
 * @dst_va: receives @rows rows of @hidden elements, element aligned; must
 *          not overlap the inputs.
 * @src_va: the table of rows of @hidden elements, element aligned.
 * @idx_va: @rows * @k uint32_t row numbers (M890_ROW_NONE skips), 4-byte
 *          aligned.
 * @weight_va: @rows * @k binary32 weights, 4-byte aligned.
 * @rows: 0 .. 2^24 (0 is a no-op).
 * @hidden: 0 .. 2^20 elements per row.
 * @k: terms per row, 1..64.
 *
 * Bit-identical to m890_reduce_host() with the same arguments as VAs.
 *
 * Return: M890_SUCCESS once enqueued; M890_ERROR_INVALID_ARGUMENT for
 * @type, the limits, alignment or a range that wraps; async errors as
 * m890_gather().
 */
m890_status_t m890_reduce(m890_stream_t stream, enum m890_data_type type,
			  uint64_t dst_va, uint64_t src_va, uint64_t idx_va,
			  uint64_t weight_va, uint32_t rows, uint32_t hidden,
			  unsigned int k);

/* ------------------------------------------------------------------ */
/* Grouped GEMM: the expert FFN (hardware spec §7.15, CAPS.GEMM)       */
/* ------------------------------------------------------------------ */

/**
 * M890_GEMM_SWIGLU - struct m890_gemm_shape flag: each group has 2 * n
 * weight rows (gate, then up) and the output is silu(gate) * up.
 */
#define M890_GEMM_SWIGLU	(1u << 0)	/* out = silu(gate) * up */
/**
 * M890_GEMM_SCATTER_ADD - struct m890_gemm_shape flag: output row x is
 * added, weighted by weight[x], to row idx[x] of out instead of stored at
 * row x (the MoE down projection and combine in one).
 */
#define M890_GEMM_SCATTER_ADD	(1u << 1)	/* weighted add by output index */

/**
 * struct m890_gemm_shape - shape of a grouped GEMM (m890_gemm(),
 * m890_gemm_host()).
 * @size: sizeof(struct m890_gemm_shape), set by the initializer; checked.
 * @flags: 0, M890_GEMM_SWIGLU and/or M890_GEMM_SCATTER_ADD.
 * @a_type: activations, M890_TYPE_BF16 or M890_TYPE_MXFP8.
 * @w_type: weights, M890_TYPE_BF16 or M890_TYPE_MXFP4.
 * @groups: experts (matrices), 0 .. 2^24; with SCATTER_ADD at most 255.
 * @k: elements of an input row, a multiple of 32, 0 .. 16384.
 * @n: output columns, 0 .. 16384.
 * @cap: rows per group in the expert-major lists, 0 .. 2^24; @groups *
 *       @cap at most 2^24.
 *
 * Start from M890_GEMM_SHAPE_INIT.  Layout, with x = g * cap + p for row
 * p < count[g] of group g:
 *
 *   a       rows of m890_gemm_row_bytes(@a_type, @k): BF16 elements, or
 *           MX elements then their k / 32 E8M0 scales (the dispatch's
 *           receive rows); row idx[x] (M890_ROW_NONE: skipped) when
 *           idx is given without SCATTER_ADD, else row x.
 *   w       per group Nw = @n rows (2 * @n with SWIGLU: the gate rows,
 *           then the up rows) of m890_gemm_row_bytes(@w_type, @k), each
 *           one output column's K weights; group g at g * Nw * row bytes.
 *   out     bf16 rows of @n: row x; with SCATTER_ADD row idx[x] gets
 *           weight[x] * v added (its first write in the call stores it).
 *   counts  @groups uint32 (NULL/0: every group has @cap rows); a count
 *           above @cap fails with M890_ERROR_CAPACITY.
 *
 * Each output element is sum_k a[k] * w[k] in binary32 from +0.0 in
 * ascending k, every product and sum rounded to nearest even (no FMA),
 * operands dequantized as MX_DEQUANT does; SWIGLU applies silu(gate) *
 * up as the spec defines it; the result is rounded once to bf16 (every
 * NaN 0x7fc0).  This is the layout m890_ep_get_recv() describes: rows,
 * expert_count and expert_rows of a device-routed dispatch are a, counts
 * and idx of the gate/up GEMM, and expert_rows and expert_weight the idx
 * and weight of a SCATTER_ADD down GEMM into partial.
 */
struct m890_gemm_shape {
	uint32_t size;
	uint32_t flags;
	enum m890_data_type a_type;
	enum m890_data_type w_type;
	uint32_t groups;
	uint32_t k;
	uint32_t n;
	uint32_t cap;
};
/**
 * M890_GEMM_SHAPE_INIT - initializer of struct m890_gemm_shape: @size
 * set, no flags, BF16 operands, every dimension 0.
 */
#define M890_GEMM_SHAPE_INIT \
	{ .size = sizeof(struct m890_gemm_shape), .flags = 0, \
	  .a_type = M890_TYPE_BF16, .w_type = M890_TYPE_BF16, .groups = 0, \
	  .k = 0, .n = 0, .cap = 0 }

/**
 * m890_gemm_row_bytes() - bytes of one GEMM operand row.
 * @type: M890_TYPE_BF16, M890_TYPE_MXFP8 or M890_TYPE_MXFP4.
 * @k: elements in the row (a multiple of 32 for the MX types).
 *
 * Return: 2 * @k for BF16, @k + @k / 32 for MXFP8, @k / 2 + @k / 32 for
 * MXFP4 (the elements, then the scales); 0 for another type.
 */
uint64_t m890_gemm_row_bytes(enum m890_data_type type, uint64_t k);

/**
 * m890_gemm() - enqueue a grouped GEMM.
 * @stream: the stream; VAs are of its card.
 * @shape: the shape and flags (see struct m890_gemm_shape).
 * @a_va: the activation rows.
 * @w_va: the weight rows of every group.
 * @out_va: the bf16 output rows; must not overlap the inputs.
 * @idx_va: 0, or the uint32 row list (input rows, or with SCATTER_ADD the
 *          output rows), 4-byte aligned.
 * @counts_va: 0 (every group has @shape->cap rows), or @shape->groups
 *             uint32 counts, 4-byte aligned.
 * @weight_va: 0, or with SCATTER_ADD the binary32 weights, one per row of
 *             the list, 4-byte aligned.
 *
 * Bit-identical to m890_gemm_host().  More than 255 groups become several
 * packets, in group order.
 *
 * Return: M890_SUCCESS once enqueued; M890_ERROR_INVALID_ARGUMENT (shape,
 * flags, alignment, SCATTER_ADD without @idx_va or @weight_va, a weight
 * list without it); M890_ERROR_NOT_SUPPORTED (a card without
 * M890_CAP_GEMM); the stream's sticky error; asynchronously
 * M890_ERROR_CAPACITY (a count above @cap), M890_ERROR_DEVICE_FAULT and
 * M890_ERROR_DEVICE_ERROR.
 */
m890_status_t m890_gemm(m890_stream_t stream,
			const struct m890_gemm_shape *shape, uint64_t a_va,
			uint64_t w_va, uint64_t out_va, uint64_t idx_va,
			uint64_t counts_va, uint64_t weight_va);

/**
 * m890_gemm_host() - the grouped GEMM on the CPU with the device's
 * arithmetic.
 * @shape: the shape and flags (see struct m890_gemm_shape).
 * @a: the activation rows.
 * @w: the weight rows of every group.
 * @out: the bf16 output rows.
 * @idx: NULL, or the row list, as m890_gemm()'s @idx_va.
 * @counts: NULL (every group has @shape->cap rows), or @shape->groups
 *          counts.
 * @weight: NULL, or with SCATTER_ADD one weight per row of the list.
 *
 * Host pointers, the layout of struct m890_gemm_shape; indices are not
 * checked against the buffers' sizes.
 *
 * Return: M890_SUCCESS; M890_ERROR_INVALID_ARGUMENT (shape, NULL
 * operands, a SCATTER_ADD row number of 2^20 or more);
 * M890_ERROR_CAPACITY (a count above @cap; the groups before it are
 * computed); M890_ERROR_OUT_OF_HOST_MEMORY.
 */
m890_status_t m890_gemm_host(const struct m890_gemm_shape *shape,
			     const void *a, const void *w, void *out,
			     const uint32_t *idx, const uint32_t *counts,
			     const float *weight);


#ifdef __cplusplus
}
#endif

#endif /* M890_COMPUTE_H */
