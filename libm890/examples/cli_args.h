/* SPDX-License-Identifier: MIT */
/*
 * Command-line helpers shared by m890-a2a and the benchmark programs
 * (tests/bench): the one parser of size arguments (K/M/G suffixes, as
 * nccl-tests takes them), the size sweep of nccl-tests' -b/-e/-i/-f, and a
 * monotonic clock in nanoseconds.  Header-only, no libm890 dependency, so
 * host-only programs (memcpy_bw, mpi_a2a_perf) include it too.
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
 * times the last when it is above 1, else @step_bytes (-i) more.  What a
 * size counts is the program's (for the all-to-all tools, nccl-tests'
 * meaning: the bytes one rank sends in total, to all ranks).  @given says
 * which of -f and -i the command line set (CLI_SWEEP_F, CLI_SWEEP_I).
 * Start from CLI_SWEEP_INIT(min, max): factor 2, and a step of 1 MiB
 * (nccl-tests' -i default) for -f 1.
 */
struct cli_sweep {
	uint64_t min_bytes;
	uint64_t max_bytes;
	uint64_t step_bytes;
	uint64_t step_factor;
	unsigned int given;
};

#define CLI_SWEEP_F	1u
#define CLI_SWEEP_I	2u
#define CLI_SWEEP_INIT(min, max) \
	{ .min_bytes = (min), .max_bytes = (max), .step_bytes = 1u << 20, .step_factor = 2 }

/* The sweep options' words for --help, one line each. */
#define CLI_SWEEP_HELP_F \
	"  -f, --stepfactor N       each size N times the last (default 2); -f 1: step by -i\n"
#define CLI_SWEEP_HELP_I \
	"  -i, --stepbytes SIZE     each size SIZE more than the last (default 1M with -f 1;\n" \
	"                           with -f N above 1 a usage error, where nccl-tests ignores -i)\n"

/*
 * cli_sweep_opt() - apply the sweep option @opt ('b', 'e', 'i' or 'f') with
 * its argument @arg to @sw.  -b and -e take a size (non-zero), -i a
 * non-zero size step, -f a factor of at least 1 (1: step by -i, as in
 * nccl-tests).  Returns 0, or -1 on a malformed or out-of-range value or
 * another letter (@sw unchanged).  cli_sweep_finish() then checks how
 * they combine.
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
		sw->given |= CLI_SWEEP_I;
		return 0;
	case 'f':
		sw->step_factor = v;
		sw->given |= CLI_SWEEP_F;
		return 0;
	default:
		return -1;
	}
}

/*
 * cli_sweep_finish() - settle @sw after the command line.  -i without -f
 * steps by -i (the default factor gives way, as nccl-tests' default
 * factor of 1 does); -i with -f above 1 asks for two different sweeps and
 * is refused (nccl-tests silently takes the factor).  Returns NULL, or
 * the reason the sweep is refused (to print after the program's name).
 */
static inline const char *cli_sweep_finish(struct cli_sweep *sw)
{
	if ((sw->given & CLI_SWEEP_I) && !(sw->given & CLI_SWEEP_F))
		sw->step_factor = 1;
	if ((sw->given & (CLI_SWEEP_I | CLI_SWEEP_F)) == (CLI_SWEEP_I | CLI_SWEEP_F) &&
	    sw->step_factor > 1)
		return "-f N (N > 1) and -i conflict: give one of them (-f 1 -i SIZE steps by SIZE)";
	if (!sw->min_bytes || sw->min_bytes > sw->max_bytes)
		return "-b must not exceed -e";
	if (!sw->step_factor || (sw->step_factor == 1 && !sw->step_bytes))
		return "the sweep needs -f N or -i SIZE";
	return NULL;
}

/*
 * cli_sweep_next() - the size after *@size in @sw, into *@size.  Returns
 * 0, or -1 when *@size was the last one (past @max_bytes or overflowing).
 */
static inline int cli_sweep_next(const struct cli_sweep *sw, uint64_t *size)
{
	uint64_t next;

	if (sw->step_factor > 1) {
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
