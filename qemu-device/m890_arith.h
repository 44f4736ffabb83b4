/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * M890 card arithmetic (hardware spec §7.10, §7.11, §7.13) in exact
 * integer code: binary32 values are handled as their bit patterns, every
 * result is rounded once to nearest even by integer shifts, so a card
 * computes the same bits on every host, whatever the host compiler's
 * floating-point contraction, rounding mode or flush-to-zero setting.
 * Plain C without QEMU types, so that host unit tests can link it next
 * to libm890's host reference (tests/unit/arith_agree_test.c).
 */
#ifndef M890_ARITH_H
#define M890_ARITH_H

#include <stdbool.h>
#include <stdint.h>

#define M890_F32_QNAN       0x7fc00000u     /* every NaN result, FP32 */
#define M890_BF16_QNAN      0x7fc0u         /* every NaN result, BF16 */
#define M890_F32_ONE        0x3f800000u
#define M890_MX_BLOCK       32u             /* elements per scale */
#define M890_MX_SCALE_NAN   0xffu

/*
 * An OCP MX v1.0 element format: @mbits mantissa bits, exponent @bias,
 * @emax the exponent of the largest normal, @maxcode the code of the
 * largest magnitude (the saturation target), @signbit the sign's bit,
 * @nancode the magnitude code of NaN (0: none).
 */
typedef struct M890MxFmt {
    int mbits;
    int bias;
    int emax;
    unsigned int maxcode;
    unsigned int signbit;
    unsigned int nancode;
} M890MxFmt;

extern const M890MxFmt m890_fp4;        /* E2M1 */
extern const M890MxFmt m890_fp8;        /* E4M3 */

/* binary32 a * b and a + b, rounded to nearest even; NaN: M890_F32_QNAN. */
uint32_t m890_f32_mul(uint32_t a, uint32_t b);
uint32_t m890_f32_add(uint32_t a, uint32_t b);

/* BF16 (spec 7.10): exact widening; narrowing to nearest even, NaN 0x7fc0. */
uint32_t m890_bf16_to_f32(uint16_t h);
uint16_t m890_f32_to_bf16(uint32_t f);

/*
 * MX_QUANT of one block of 32 binary32 inputs @v (spec 7.11): returns the
 * E8M0 scale byte and stores the 32 element codes (sign included) in
 * @code.
 */
uint8_t m890_mx_quant_block(const M890MxFmt *f, const uint32_t *v,
                            uint8_t *code);

/* MX_DEQUANT of element @code with scale byte @scale: binary32 bits. */
uint32_t m890_mx_dequant(const M890MxFmt *f, unsigned int code,
                         uint8_t scale);

#endif /* M890_ARITH_H */
