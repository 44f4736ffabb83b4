/* SPDX-License-Identifier: MIT */
/*
 * The host reference of the EP tests (test_ep.c, and ep_ranks.h for the
 * per-rank communicators): what a receive buffer row of a token holds,
 * and the "expert" the tests apply to received rows, for tokens of
 * EPR_H elements.
 */
#ifndef M890_TEST_EP_REF_H
#define M890_TEST_EP_REF_H

#include <stdint.h>
#include <string.h>

#include <m890.h>

#define EPR_H 64	/* hidden size of the tests' tokens */

/* The row of the bf16 token @tok as a receive buffer of @type holds it. */
static inline void epr_token_row(int type, const struct m890_ep_info *in,
				 const uint16_t *tok, uint8_t *row)
{
	if (type == M890_TYPE_BF16) {
		memcpy(row, tok, 2 * EPR_H);
		return;
	}
	m890_mx_quantize_host(type, M890_TYPE_BF16, tok, EPR_H, row,
			      row + in->elem_bytes);
}

/* Expert e's output for a received row: dequantize, scale by 1 + e/8. */
static inline void epr_expert(int type, const struct m890_ep_info *in, int e,
			      const uint8_t *row, uint16_t *y)
{
	float f[EPR_H];

	if (type == M890_TYPE_BF16) {
		for (int h = 0; h < EPR_H; h++) {
			uint16_t b;

			memcpy(&b, row + 2 * h, 2);
			f[h] = m890_bf16_to_float(b);
		}
	} else {
		m890_mx_dequantize_host(type, M890_TYPE_FP32, row,
					row + in->elem_bytes, EPR_H, f);
	}
	for (int h = 0; h < EPR_H; h++)
		y[h] = m890_float_to_bf16(f[h] * (1.0f + (float)e / 8.0f));
}

#endif /* M890_TEST_EP_REF_H */
