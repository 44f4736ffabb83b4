/* SPDX-License-Identifier: MIT */
/*
 * Command-line helpers shared by m890-a2a and the benchmark programs
 * (tests/bench): the one parser of size arguments (K/M/G suffixes, as
 * nccl-tests takes them), the size sweep of nccl-tests' -b/-e/-i/-f, and a
 * monotonic clock in nanoseconds.  Header-only, no libm890 dependency, so
 * host-only programs (memcpy_bw, mpi_a2a_perf) and the unit test
 * (tests/unit/cli_args_test.c) include it too.
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

/*
 * Parse @s, a decimal count in [@min, @max], into *@out.  Returns 0, or -1
 * on anything else (*@out is then untouched).
 */
static inline int cli_parse_int(const char *s, long min, long max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

/*
 * struct cli_sweep - the sizes a benchmark runs, as nccl-tests sweeps them:
 * from @min_bytes (-b) up to @max_bytes (-e), each size @step_factor (-f)
 * times the last, or @step_bytes (-i) more when @step_factor is 0.  What a
 * size counts is the program's (for the all-to-all tools, nccl-tests'
 * meaning: the bytes one rank sends in total, to all ranks).
 */
struct cli_sweep {
	uint64_t min_bytes;
	uint64_t max_bytes;
	uint64_t step_bytes;
	uint64_t step_factor;
};

/*
 * cli_sweep_opt() - apply the sweep option @opt ('b', 'e', 'i' or 'f') with
 * its argument @arg to @sw.  -b and -e take a size (non-zero), -i a
 * non-zero size step, -f a factor of at least 2; of -i and -f the last one
 * given counts.  Returns 0, or -1 on a malformed or out-of-range value or
 * another letter (@sw unchanged).
 */
static inline int cli_sweep_opt(struct cli_sweep *sw, int opt, const char *arg)
{
	uint64_t v;

	if (cli_parse_size(arg, &v) || !v)
		return -1;
	switch (opt) {
	case 'b':
		sw->min_bytes = v;
		return 0;
	case 'e':
		sw->max_bytes = v;
		return 0;
	case 'i':
		sw->step_bytes = v;
		sw->step_factor = 0;
		return 0;
	case 'f':
		if (v < 2)
			return -1;
		sw->step_factor = v;
		sw->step_bytes = 0;
		return 0;
	default:
		return -1;
	}
}

/* cli_sweep_valid() - whether @sw describes at least one size. */
static inline int cli_sweep_valid(const struct cli_sweep *sw)
{
	return sw->min_bytes && sw->min_bytes <= sw->max_bytes &&
	       (sw->step_factor >= 2 || (!sw->step_factor && sw->step_bytes));
}

/*
 * cli_sweep_next() - the size after *@size in @sw, into *@size.  Returns
 * 0, or -1 when *@size was the last one (past @max_bytes or overflowing).
 */
static inline int cli_sweep_next(const struct cli_sweep *sw, uint64_t *size)
{
	uint64_t next;

	if (sw->step_factor) {
		if (*size > UINT64_MAX / sw->step_factor)
			return -1;
		next = *size * sw->step_factor;
	} else {
		if (*size > UINT64_MAX - sw->step_bytes)
			return -1;
		next = *size + sw->step_bytes;
	}
	if (next > sw->max_bytes)
		return -1;
	*size = next;
	return 0;
}

/*
 * cli_a2a_block() - the bytes one rank sends to each of @nranks ranks when
 * it sends @size bytes in all, in whole elements of @elem bytes (rounded
 * down, as nccl-tests does: its size column then shows the block times
 * @nranks).
 */
static inline uint64_t cli_a2a_block(uint64_t size, int nranks, uint64_t elem)
{
	return size / (uint64_t)nranks / elem * elem;
}

/* CLOCK_MONOTONIC in nanoseconds. */
static inline int64_t cli_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

#endif
