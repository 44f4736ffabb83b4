// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The contraction canary of arith_agree_test.c, built with the host
 * reference's flags: in a file of its own so that the multiply and the
 * add meet only here, where the compiler may fuse them.
 */
float arith_contract_canary(float a, float b, float c);

float arith_contract_canary(float a, float b, float c)
{
    return a * b + c;
}
