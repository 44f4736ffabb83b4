// SPDX-License-Identifier: MIT
/*
 * DOC: memcpy_bw - the host's memcpy bandwidth, the limit of the
 * all-to-all table
 *
 * memcpy_bw [-b MIN] [-e MAX] [-f FACTOR] [-g RANKS]: for each size per
 * peer b from -b to -e, copies a buffer of b * RANKS bytes (what one rank
 * of an all-to-all sends in total) with memcpy() on one thread, a few
 * times, and prints "size GB/s" (bytes copied per second; GB = 10^9).
 * Run it alone: it measures the machine, not a contended share of it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "size_arg.h"

int main(int argc, char **argv)
{
	uint64_t minb = 1024, maxb = 1u << 20, factor = 2;
	int ranks = 8, opt;
	uint8_t *a, *b;

	while ((opt = getopt(argc, argv, "b:e:f:g:")) != -1) {
		switch (opt) {
		case 'b':
		case 'e':
		case 'f':
			if (bench_size_opt(opt, optarg, &minb, &maxb, &factor))
				goto usage;
			break;
		case 'g':
			ranks = atoi(optarg);
			if (ranks < 1 || ranks > 64)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc || minb > maxb)
		goto usage;
	a = malloc(maxb * ranks);
	b = malloc(maxb * ranks);
	if (!a || !b) {
		fprintf(stderr, "memcpy_bw: cannot allocate 2 x %llu bytes\n",
			(unsigned long long)(maxb * ranks));
		return 1;
	}
	memset(a, 1, maxb * ranks);
	memset(b, 2, maxb * ranks);
	printf("# memcpy_bw: one thread, buffer = bytes per peer x %d\n", ranks);
	printf("# %12s %12s\n", "size(B)", "GB/s");
	for (uint64_t s = minb; s <= maxb; s *= factor) {
		uint64_t size = s * ranks, reps = (256ull << 20) / size + 3;
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
		if (s > UINT64_MAX / factor)
			break;
	}
	free(a);
	free(b);
	return 0;
usage:
	fprintf(stderr, "usage: memcpy_bw [-b MIN] [-e MAX] [-f FACTOR] [-g RANKS]\n"
		"  sizes are bytes per peer, K/M/G suffixes allowed\n");
	return 2;
}
