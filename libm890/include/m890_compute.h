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

/** Elements sharing one E8M0 scale byte in the MX formats. */
#define M890_MX_BLOCK		32u
/** Scale byte of a block that held a NaN or infinity (E8M0 NaN). */
#define M890_MX_SCALE_NAN	0xffu
/** Index value that skips a row in gather, scatter and reduce. */
#define M890_ROW_NONE		0xffffffffu

/**
 * m890_bf16_to_float() - exact conversion of a bfloat16 to float, as the
 * device converts (hardware spec §7.10, §7.11).
 * @h: the bfloat16 bits.
 */
float m890_bf16_to_float(uint16_t h);

/**
 * m890_float_to_bf16() - @f rounded to bfloat16, to nearest even, as the
 * device rounds (hardware spec §7.10, §7.11): overflow gives infinity,
 * every NaN gives the quiet NaN 0x7fc0.
 * @f: the float to round.
 */
uint16_t m890_float_to_bf16(float f);

/**
 * m890_mx_quantize_host() - quantize @count elements on the CPU exactly as
 * the device's MX_QUANT packet does (hardware spec §7.11).
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
 * Errors: M890_ERROR_INVALID_ARGUMENT (types, @count, NULL pointers with a
 * non-zero @count).
 */
m890_status_t m890_mx_quantize_host(enum m890_data_type mx_type,
				    enum m890_data_type wide_type,
				    const void *src, uint64_t count,
				    void *elems, uint8_t *scales);

/**
 * m890_mx_dequantize_host() - the inverse, as the device's MX_DEQUANT:
 * each output is element * 2^(scale - 127) in binary32 (infinity on
 * overflow), rounded to nearest even for BF16 output; a NaN scale byte or
 * an E4M3 NaN element gives the quiet NaN 0x7fc00000 (FP32) or 0x7fc0
 * (BF16).  Arguments as m890_mx_quantize_host(), with @elems and @scales
 * read and @dst (@count elements of @wide_type) written.
 */
m890_status_t m890_mx_dequantize_host(enum m890_data_type mx_type,
				      enum m890_data_type wide_type,
				      const void *elems, const uint8_t *scales,
				      uint64_t count, void *dst);

/**
 * m890_reduce_host() - the device's REDUCE on the CPU (hardware spec
 * §7.10): for each output row r < @rows and element h < @hidden,
 * acc = +0.0f, then for j = 0..@k-1 with i = @idx[r * @k + j] not
 * M890_ROW_NONE, acc = acc + @weight[r * @k + j] * src[i][h], each step a
 * binary32 multiply and add rounded to nearest even; @dst[r][h] = acc
 * (rounded to nearest even for BF16).
 * @type: M890_TYPE_FP32 or M890_TYPE_BF16, the type of @src and @dst.
 * @src: rows of @hidden elements; every index used must be a row of it
 *       (not checked: the caller owns the table's size).
 * @k: 1..64.  @rows, @hidden: 0 is a no-op.
 * Errors: M890_ERROR_INVALID_ARGUMENT (@type, @k, NULL pointers).
 */
m890_status_t m890_reduce_host(enum m890_data_type type, const void *src,
			       void *dst, const uint32_t *idx,
			       const float *weight, uint32_t rows,
			       uint32_t hidden, unsigned int k);

/**
 * m890_mx_quantize() - enqueue an MX_QUANT packet: @count elements of
 * @wide_type at @src_va (element aligned) become @mx_type elements at
 * @elems_va and scale bytes at @scales_va, with the rules of
 * m890_mx_quantize_host() (the results are bit-identical).  VAs are on the
 * stream's device; the three ranges must not overlap.
 * Errors: M890_ERROR_INVALID_ARGUMENT (types, @count not a multiple of
 * M890_MX_BLOCK or above 2^36, alignment, wrapping range); bad VAs and a
 * card without MX support are reported asynchronously
 * (M890_ERROR_DEVICE_FAULT, M890_ERROR_DEVICE_ERROR).
 */
m890_status_t m890_mx_quantize(m890_stream_t stream,
			       enum m890_data_type mx_type,
			       enum m890_data_type wide_type,
			       uint64_t src_va, uint64_t elems_va,
			       uint64_t scales_va, uint64_t count);

/**
 * m890_mx_dequantize() - enqueue an MX_DEQUANT packet: the inverse of
 * m890_mx_quantize(), writing @count @wide_type elements to @dst_va
 * (element aligned), bit-identical to m890_mx_dequantize_host().
 */
m890_status_t m890_mx_dequantize(m890_stream_t stream,
				 enum m890_data_type mx_type,
				 enum m890_data_type wide_type,
				 uint64_t elems_va, uint64_t scales_va,
				 uint64_t dst_va, uint64_t count);

/**
 * m890_gather() - enqueue a GATHER: for i < @count with idx[i] not
 * M890_ROW_NONE, copy @row_bytes bytes from @src_va + idx[i] * @row_bytes
 * to @dst_va + i * @row_bytes (rows whose index is M890_ROW_NONE are left
 * untouched).
 * @idx_va: @count uint32_t indices, 4-byte aligned.
 * @row_bytes: 1 .. 2^32 - 1.  @count: 0 .. 2^24 (0 is a no-op).
 * Errors: M890_ERROR_INVALID_ARGUMENT for the limits and alignment; an
 * index outside the mapped table is an async M890_ERROR_DEVICE_FAULT.
 */
m890_status_t m890_gather(m890_stream_t stream, uint64_t dst_va,
			  uint64_t src_va, uint64_t idx_va,
			  uint64_t row_bytes, uint64_t count);

/**
 * m890_scatter() - enqueue a SCATTER: for i < @count with idx[i] not
 * M890_ROW_NONE, copy row i of @src_va to @dst_va + idx[i] * @row_bytes,
 * in ascending i (of equal indices the larger i wins).  Limits and errors
 * as m890_gather().
 */
m890_status_t m890_scatter(m890_stream_t stream, uint64_t dst_va,
			   uint64_t src_va, uint64_t idx_va,
			   uint64_t row_bytes, uint64_t count);

/**
 * m890_reduce() - enqueue a REDUCE (the mixture-of-experts combine),
 * bit-identical to m890_reduce_host() with the same arguments as VAs.
 * @src_va, @dst_va: element aligned; @dst_va must not overlap the inputs.
 * @idx_va: @rows * @k uint32_t; @weight_va: @rows * @k floats; both 4-byte
 * aligned.  @rows: 0 .. 2^24, @hidden: 0 .. 2^20, @k: 1..64.
 * Errors: M890_ERROR_INVALID_ARGUMENT for the limits and alignment, async
 * errors as m890_gather().
 */
m890_status_t m890_reduce(m890_stream_t stream, enum m890_data_type type,
			  uint64_t dst_va, uint64_t src_va, uint64_t idx_va,
			  uint64_t weight_va, uint32_t rows, uint32_t hidden,
			  unsigned int k);

#ifdef __cplusplus
}
#endif

#endif /* M890_COMPUTE_H */
