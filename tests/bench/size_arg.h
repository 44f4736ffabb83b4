/* SPDX-License-Identifier: MIT */
/*
 * Size arguments of the benchmark programs, as nccl-tests takes them:
 * a number with an optional K, M or G suffix (powers of two).  The parser
 * and the clock are m890-a2a's (libm890/examples/cli_args.h).
 */
#ifndef M890_BENCH_SIZE_ARG_H
#define M890_BENCH_SIZE_ARG_H

#include <stdint.h>

#include "cli_args.h"

/*
 * The size sweep options every benchmark takes: -b MIN and -e MAX bytes
 * (non-zero) and -f FACTOR (at least 2).  @opt is the getopt() letter and
 * @arg its argument; the matching one of *@minb, *@maxb, *@factor is set.
 * Returns 0, or -1 on a malformed or out-of-range value or a letter that
 * is none of b, e, f.
 */
static inline int bench_size_opt(int opt, const char *arg, uint64_t *minb,
				 uint64_t *maxb, uint64_t *factor)
{
	switch (opt) {
	case 'b':
		return cli_parse_size(arg, minb) || !*minb ? -1 : 0;
	case 'e':
		return cli_parse_size(arg, maxb) || !*maxb ? -1 : 0;
	case 'f':
		return cli_parse_size(arg, factor) || *factor < 2 ? -1 : 0;
	default:
		return -1;
	}
}

/* The byte rank @from sends to rank @to at offset @off of its block (the
 * same pattern as a2a_perf, so the checks agree). */
static inline uint8_t bench_pat(int from, int to, uint64_t off)
{
	return (uint8_t)(from * 29 + to * 5 + off * 7 + (off >> 9) + 3);
}

#endif
