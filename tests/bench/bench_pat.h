/* SPDX-License-Identifier: MIT */
/*
 * The data pattern of the all-to-all benchmarks (a2a_perf on the cards,
 * mpi_a2a_perf on the host), so that their checks agree.  Their options
 * and sizes are parsed by libm890/examples/cli_args.h, included here.
 */
#ifndef M890_BENCH_PAT_H
#define M890_BENCH_PAT_H

#include <stdint.h>

#include "cli_args.h"

/* The byte rank @from sends to rank @to at offset @off of its block. */
static inline uint8_t bench_pat(int from, int to, uint64_t off)
{
	return (uint8_t)(from * 29 + to * 5 + off * 7 + (off >> 9) + 3);
}

#endif
