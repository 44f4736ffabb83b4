// SPDX-License-Identifier: MIT
/*
 * DOC: memcpy_bw - the host's memcpy bandwidth, the limit of the
 * all-to-all table
 *
 * memcpy_bw [-b MIN] [-e MAX] [-f FACTOR | -i STEP] [-t THREADS]: for each
 * size of the sweep (nccl-tests' options, as a2a_perf takes them: the size
 * is what one rank of an all-to-all sends in total), THREADS threads (-t,
 * --nthreads, default 1) each copy a buffer of that size of their own with
 * memcpy(), all at once, and the program prints "size GB/s": the bytes all
 * threads copied per second (GB = 10^9), the best of three rounds.  With
 * as many threads as the host has cores it is the most the host can copy,
 * whoever does the copying: the limit of an exchange the host's memory
 * carries, counted over all ranks.
 * Run it alone: it measures the machine, not a contended share of it.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_pat.h"

#define MAX_THREADS 64

/*
 * One copying thread: its buffers, the size and count of this round, and
 * when its copies began and ended (each thread reads the clock itself: a
 * thread that is not running cannot stop or start a clock for another).
 */
struct copier {
	pthread_t tid;
	uint8_t *src, *dst;
	uint64_t size, reps;
	int64_t t0, t1;
};

static pthread_barrier_t start_line;

static void *copier_main(void *arg)
{
	struct copier *c = arg;

	pthread_barrier_wait(&start_line);
	c->t0 = cli_now_ns();
	for (uint64_t r = 0; r < c->reps; r++) {
		memcpy(c->dst, c->src, c->size);
		/* A dependency between copies, so none is skipped. */
		c->src[r % c->size] ^= c->dst[(r * 7) % c->size];
	}
	c->t1 = cli_now_ns();
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: memcpy_bw [-b MIN] [-e MAX] [-f FACTOR | [-f 1] -i STEP] [-t THREADS]\n"
		"  (--minbytes --maxbytes --stepfactor --stepbytes --nthreads --help)\n"
		"  the sweep of nccl-tests: -f 1 steps by -i (default 1M), -f above 1 with -i\n"
		"  is a usage error\n"
		"  sizes in bytes, K/M/G suffixes allowed; each of THREADS threads (default 1,\n"
		"  at most %d) copies a buffer of that size; GB/s counts all threads' bytes\n",
		MAX_THREADS);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "stepbytes", required_argument, NULL, 'i' },
		{ "nthreads", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_sweep sw = CLI_SWEEP_INIT(8 << 10, 8 << 20);
	static struct copier cp[MAX_THREADS];
	int opt, threads = 1, bad;
	const char *why;

	while ((opt = getopt_long(argc, argv, "b:e:f:i:t:h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		if (opt == 't')
			bad = cli_parse_int(optarg, 1, MAX_THREADS, &threads);
		else
			bad = cli_sweep_opt(&sw, opt, optarg);
		if (bad) {
			if (optarg)
				fprintf(stderr, "memcpy_bw: bad value '%s' for -%c\n", optarg, opt);
			usage(stderr);
			return 2;
		}
	}
	why = optind != argc ? "unexpected argument" : cli_sweep_finish(&sw);
	if (why) {
		fprintf(stderr, "memcpy_bw: %s\n", why);
		usage(stderr);
		return 2;
	}
	for (int t = 0; t < threads; t++) {
		cp[t].src = malloc(sw.max_bytes);
		cp[t].dst = malloc(sw.max_bytes);
		if (!cp[t].src || !cp[t].dst) {
			fprintf(stderr, "memcpy_bw: cannot allocate %d x 2 x %llu bytes\n",
				threads, (unsigned long long)sw.max_bytes);
			return 1;
		}
		memset(cp[t].src, 1, sw.max_bytes);
		memset(cp[t].dst, 2, sw.max_bytes);
	}
	if (pthread_barrier_init(&start_line, NULL, threads)) {
		fprintf(stderr, "memcpy_bw: pthread_barrier_init failed\n");
		return 1;
	}
	printf("# memcpy_bw: %d thread%s, each copying a buffer of size bytes\n",
	       threads, threads == 1 ? "" : "s");
	printf("# %12s %12s\n", "size(B)", "GB/s");
	for (uint64_t size = sw.min_bytes;;) {
		/* About 256 MiB per thread and round. */
		uint64_t reps = (256ull << 20) / size + 3;
		double best = 0;

		for (int round = 0; round < 3; round++) {
			int64_t t0 = INT64_MAX, t1 = 0, dt;

			for (int t = 0; t < threads; t++) {
				cp[t].size = size;
				cp[t].reps = reps;
				if (pthread_create(&cp[t].tid, NULL, copier_main, &cp[t])) {
					fprintf(stderr, "memcpy_bw: pthread_create failed\n");
					return 1;
				}
			}
			/* From the first thread's start to the last one's end. */
			for (int t = 0; t < threads; t++) {
				pthread_join(cp[t].tid, NULL);
				if (cp[t].t0 < t0)
					t0 = cp[t].t0;
				if (cp[t].t1 > t1)
					t1 = cp[t].t1;
			}
			dt = t1 - t0;
			if (dt > 0 && (double)size * reps * threads / dt > best)
				best = (double)size * reps * threads / dt;
		}
		printf("  %12llu %12.2f\n", (unsigned long long)size, best);
		fflush(stdout);
		if (cli_sweep_next(&sw, &size))
			break;
	}
	pthread_barrier_destroy(&start_line);
	for (int t = 0; t < threads; t++) {
		free(cp[t].src);
		free(cp[t].dst);
	}
	return 0;
}
