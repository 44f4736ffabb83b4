/* SPDX-License-Identifier: MIT */
/*
 * Size arguments of the benchmark programs, as nccl-tests takes them:
 * a number with an optional K, M or G suffix (powers of two).
 */
#ifndef M890_BENCH_SIZE_ARG_H
#define M890_BENCH_SIZE_ARG_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Parse @s into *@out; -1 on a malformed or overflowing value. */
static inline int bench_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K':
		mul = 1ull << 10; end++; break;
	case 'm': case 'M':
		mul = 1ull << 20; end++; break;
	case 'g': case 'G':
		mul = 1ull << 30; end++; break;
	default:
		break;
	}
	if (*end || (v && mul > UINT64_MAX / v))
		return -1;
	*out = v * mul;
	return 0;
}

static inline int64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* The byte rank @from sends to rank @to at offset @off of its block (the
 * same pattern as a2a_perf, so the checks agree). */
static inline uint8_t bench_pat(int from, int to, uint64_t off)
{
	return (uint8_t)(from * 29 + to * 5 + off * 7 + (off >> 9) + 3);
}

#endif
