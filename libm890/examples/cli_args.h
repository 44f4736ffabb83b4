/* SPDX-License-Identifier: MIT */
/*
 * Command-line helpers shared by m890-a2a and the benchmark programs
 * (tests/bench): size arguments as nccl-tests takes them, and a monotonic
 * clock in nanoseconds.  Header-only, no libm890 dependency, so host-only
 * programs can include it too.
 */
#ifndef M890_CLI_ARGS_H
#define M890_CLI_ARGS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/*
 * Parse @s, a number (decimal, 0x hex or 0 octal) with an optional K, M or
 * G suffix (powers of two, either case), into *@out.  Returns 0, or -1 on
 * a malformed, negative or overflowing value (*@out is then untouched).
 */
static inline int cli_parse_size(const char *s, uint64_t *out)
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

/* CLOCK_MONOTONIC in nanoseconds. */
static inline int64_t cli_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

#endif
