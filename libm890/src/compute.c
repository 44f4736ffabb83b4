// SPDX-License-Identifier: MIT
/*
 * Compute packets enqueued on a stream: MX_QUANT, MX_DEQUANT, GATHER,
 * SCATTER and REDUCE (hardware spec §7.8 - §7.11).  Arguments are checked
 * here against the packet limits so that a mistake is reported at the
 * call, not as a stopped queue.
 */
#include <string.h>

#include "internal.h"

#define MX_MAX_COUNT		(1ull << 36)
#define GATHER_MAX_COUNT	(1ull << 24)
#define REDUCE_MAX_ROWS		(1u << 24)
#define REDUCE_MAX_HIDDEN	(1u << 20)

static m890_status_t compute_check(struct m890_stream *s)
{
	m890_status_t st = m890_check(s, M890_OBJ_STREAM, "stream");

	if (st)
		return st;
	if (s->async_error)
		return m890_fail(s->async_error, "%s", s->async_msg);
	return M890_SUCCESS;
}

/* [va, va + bytes) must not wrap past 2^64. */
static bool range_ok(uint64_t va, uint64_t bytes)
{
	return va + bytes >= va;
}

static m890_status_t enqueue_mx(struct m890_stream *s, uint32_t opcode,
				enum m890_data_type mx_type,
				enum m890_data_type wide_type, uint64_t src,
				uint64_t dst, uint64_t scales, uint64_t count)
{
	const char *what = opcode == M890_PKT_MX_QUANT ? "mx_quantize" :
			   "mx_dequantize";
	uint64_t wide_va = opcode == M890_PKT_MX_QUANT ? src : dst;
	uint64_t mx_va = opcode == M890_PKT_MX_QUANT ? dst : src;
	unsigned int esz = wide_type == M890_TYPE_FP32 ? 4 : 2;
	union m890_packet p;
	m890_status_t st = compute_check(s);

	if (st)
		return st;
	if (mx_type != M890_TYPE_MXFP4 && mx_type != M890_TYPE_MXFP8)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: MX type %d is not MXFP4 or MXFP8",
				 what, (int)mx_type);
	if (wide_type != M890_TYPE_FP32 && wide_type != M890_TYPE_BF16)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: wide type %d is not FP32 or BF16",
				 what, (int)wide_type);
	if (count % M890_MX_BLOCK || count > MX_MAX_COUNT)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: count %llu is not a multiple of %u up to 2^36",
				 what, (unsigned long long)count, M890_MX_BLOCK);
	if (wide_va % esz)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: wide elements at 0x%llx are not %u-byte aligned",
				 what, (unsigned long long)wide_va, esz);
	if (!range_ok(wide_va, count * esz) ||
	    !range_ok(mx_va, mx_type == M890_TYPE_MXFP4 ? count / 2 : count) ||
	    !range_ok(scales, count / M890_MX_BLOCK))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: a range wraps the address space", what);
	memset(&p, 0, sizeof(p));
	p.mx.hdr = M890_PKT_HDR(opcode, 0);
	p.mx.mx_dtype = (uint8_t)mx_type;
	p.mx.src_dtype = (uint8_t)wide_type;
	p.mx.src = src;
	p.mx.dst = dst;
	p.mx.scale = scales;
	p.mx.count = count;
	return m890_stream_enqueue(s, &p, 1);
}

M890_EXPORT m890_status_t m890_mx_quantize(m890_stream_t s,
					   enum m890_data_type mx_type,
					   enum m890_data_type wide_type,
					   uint64_t src_va, uint64_t elems_va,
					   uint64_t scales_va, uint64_t count)
{
	M890_API_SCOPE;
	return enqueue_mx(s, M890_PKT_MX_QUANT, mx_type, wide_type, src_va,
			  elems_va, scales_va, count);
}

M890_EXPORT m890_status_t m890_mx_dequantize(m890_stream_t s,
					     enum m890_data_type mx_type,
					     enum m890_data_type wide_type,
					     uint64_t elems_va,
					     uint64_t scales_va,
					     uint64_t dst_va, uint64_t count)
{
	M890_API_SCOPE;
	return enqueue_mx(s, M890_PKT_MX_DEQUANT, mx_type, wide_type, elems_va,
			  dst_va, scales_va, count);
}

static m890_status_t enqueue_gather(struct m890_stream *s, uint32_t opcode,
				    uint64_t dst, uint64_t src, uint64_t idx,
				    uint64_t row_bytes, uint64_t count)
{
	const char *what = opcode == M890_PKT_GATHER ? "gather" : "scatter";
	union m890_packet p;
	m890_status_t st = compute_check(s);

	if (st)
		return st;
	if (!row_bytes || row_bytes > UINT32_MAX)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: row size %llu is not 1 .. 2^32 - 1",
				 what, (unsigned long long)row_bytes);
	if (count > GATHER_MAX_COUNT)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: %llu rows, at most 2^24",
				 what, (unsigned long long)count);
	if (idx & 3)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: indices at 0x%llx are not 4-byte aligned",
				 what, (unsigned long long)idx);
	if (!range_ok(idx, count * 4) ||
	    !range_ok(opcode == M890_PKT_GATHER ? dst : src, count * row_bytes))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s: a range wraps the address space", what);
	memset(&p, 0, sizeof(p));
	p.gather.hdr = M890_PKT_HDR(opcode, 0);
	p.gather.row_bytes = (uint32_t)row_bytes;
	p.gather.src = src;
	p.gather.dst = dst;
	p.gather.idx = idx;
	p.gather.count = (uint32_t)count;
	return m890_stream_enqueue(s, &p, 1);
}

M890_EXPORT m890_status_t m890_gather(m890_stream_t s, uint64_t dst_va,
				      uint64_t src_va, uint64_t idx_va,
				      uint64_t row_bytes, uint64_t count)
{
	M890_API_SCOPE;
	return enqueue_gather(s, M890_PKT_GATHER, dst_va, src_va, idx_va,
			      row_bytes, count);
}

M890_EXPORT m890_status_t m890_scatter(m890_stream_t s, uint64_t dst_va,
				       uint64_t src_va, uint64_t idx_va,
				       uint64_t row_bytes, uint64_t count)
{
	M890_API_SCOPE;
	return enqueue_gather(s, M890_PKT_SCATTER, dst_va, src_va, idx_va,
			      row_bytes, count);
}

M890_EXPORT m890_status_t m890_reduce(m890_stream_t s,
				      enum m890_data_type type,
				      uint64_t dst_va, uint64_t src_va,
				      uint64_t idx_va, uint64_t weight_va,
				      uint32_t rows, uint32_t hidden,
				      unsigned int k)
{
	M890_API_SCOPE;
	unsigned int esz = type == M890_TYPE_FP32 ? 4 : 2;
	union m890_packet p;
	m890_status_t st = compute_check(s);

	if (st)
		return st;
	if (type != M890_TYPE_FP32 && type != M890_TYPE_BF16)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "reduce: type %d is not FP32 or BF16",
				 (int)type);
	if (k < 1 || k > 64)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "reduce: k %u is not 1..64", k);
	if (rows > REDUCE_MAX_ROWS || hidden > REDUCE_MAX_HIDDEN)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "reduce: %u rows of %u elements, limits 2^24 and 2^20",
				 rows, hidden);
	if ((src_va | dst_va) % esz || (idx_va | weight_va) & 3)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "reduce: misaligned address");
	if (!range_ok(dst_va, (uint64_t)rows * hidden * esz) ||
	    !range_ok(idx_va, (uint64_t)rows * k * 4) ||
	    !range_ok(weight_va, (uint64_t)rows * k * 4))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "reduce: a range wraps the address space");
	memset(&p, 0, sizeof(p));
	p.reduce.hdr = M890_PKT_HDR(M890_PKT_REDUCE, 0);
	p.reduce.dtype = (uint8_t)type;
	p.reduce.k = (uint8_t)k;
	p.reduce.src = src_va;
	p.reduce.dst = dst_va;
	p.reduce.idx = idx_va;
	p.reduce.weight = weight_va;
	p.reduce.rows = rows;
	p.reduce.hidden = hidden;
	return m890_stream_enqueue(s, &p, 1);
}
