// SPDX-License-Identifier: MIT
/*
 * DOC: memcpy_bw - the host's memcpy bandwidth, the limit of the
 * all-to-all table
 *
 * memcpy_bw [-b MIN] [-e MAX] [-f FACTOR | -i STEP]: for each size of the
 * sweep (nccl-tests' options, as a2a_perf takes them: the size is what
 * one rank of an all-to-all sends in total), copies a buffer of that size
 * with memcpy() on one thread, a few times, and prints "size GB/s" (bytes
 * copied per second; GB = 10^9).
 * Run it alone: it measures the machine, not a contended share of it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_pat.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: memcpy_bw [-b MIN] [-e MAX] [-f FACTOR | -i STEP]\n"
		"  (--minbytes --maxbytes --stepfactor --stepbytes --help)\n"
		"  sizes in bytes, K/M/G suffixes allowed\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "stepbytes", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_sweep sw = { .min_bytes = 8 << 10, .max_bytes = 8 << 20, .step_factor = 2 };
	uint64_t maxb;
	int opt;
	uint8_t *a, *b;

	while ((opt = getopt_long(argc, argv, "b:e:f:i:h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		if (cli_sweep_opt(&sw, opt, optarg)) {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !cli_sweep_valid(&sw)) {
		usage(stderr);
		return 2;
	}
	maxb = sw.max_bytes;
	a = malloc(maxb);
	b = malloc(maxb);
	if (!a || !b) {
		fprintf(stderr, "memcpy_bw: cannot allocate 2 x %llu bytes\n",
			(unsigned long long)maxb);
		return 1;
	}
	memset(a, 1, maxb);
	memset(b, 2, maxb);
	printf("# memcpy_bw: one thread, buffer = size\n");
	printf("# %12s %12s\n", "size(B)", "GB/s");
	for (uint64_t size = sw.min_bytes;;) {
		uint64_t reps = (256ull << 20) / size + 3;
		double best = 0;

		/* Best of 3 rounds of reps copies each (about 256 MiB). */
		for (int round = 0; round < 3; round++) {
			int64_t t0 = cli_now_ns(), dt;

			for (uint64_t r = 0; r < reps; r++) {
				memcpy(b, a, size);
				a[r % size] ^= b[(r * 7) % size];
			}
			dt = cli_now_ns() - t0;
			if (dt > 0 && (double)size * reps / dt > best)
				best = (double)size * reps / dt;
		}
		printf("  %12llu %12.2f\n", (unsigned long long)size, best);
		if (cli_sweep_next(&sw, &size))
			break;
	}
	free(a);
	free(b);
	return 0;
}
