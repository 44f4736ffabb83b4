// SPDX-License-Identifier: MIT
/*
 * DOC: a2a_perf - all-to-all bandwidth across the cards, nccl-tests style
 *
 * One communicator over every card (or -g CARDS), m890_alltoall() of
 * float data for sizes from -b to -e (multiplied by -f), -w warm-up and
 * -n timed iterations per size.  Columns as nccl-tests' alltoall_perf:
 * size is the bytes each rank sends in total (bytes per peer times the
 * number of ranks), count the floats, time the wall time per iteration
 * from the first enqueue to the last card's completion, algbw = size /
 * time, busbw = algbw * (n - 1) / n, and #wrong the bytes that differ from
 * the expected pattern after the timed iterations (-c 1; -c 0 skips the
 * check).  Then the same time and busbw in the cards' modelled clock
 * (TIMESTAMP events around the timed iterations on every card; the
 * slowest card counts), what the exchange would take on real M890
 * hardware.  The last column is the memcpy bandwidth of the machine the
 * program runs on (the guest, emulated) over a buffer of the same size.
 * Lines starting with '#' are comments; the others have a fixed number of
 * columns for scripts.
 *
 * Exit status: 0 when nothing was wrong, 1 otherwise, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <m890.h>

#include "size_arg.h"

#define MAXN 64
#define HOST_CHUNK (4ull << 20)	/* host staging per card */

static int n;
static m890_device_t dev[MAXN];
static m890_stream_t str[MAXN];
static m890_buffer_t sb[MAXN], rb[MAXN], hb[MAXN];
static m890_event_t ev0[MAXN], ev1[MAXN];
static uint8_t *hp[MAXN];
static uint64_t hbytes;		/* host staging buffer per card */

#define CHECK(call) do { \
	m890_status_t st_ = (call); \
	if (st_) { \
		fprintf(stderr, "a2a_perf: %s: %s\n", #call, \
			m890_get_last_error()); \
		exit(1); \
	} \
} while (0)

/* Host memcpy bandwidth in GB/s over @bytes (at most 16 MiB: the guest
 * has little memory besides the cards'). */
static double memcpy_gbps(uint64_t bytes)
{
	static uint8_t *a, *b;
	static uint64_t have;
	int reps = bytes < (1u << 20) ? 200 : 10;
	int64_t t0;

	if (bytes > (16u << 20))
		bytes = 16u << 20;

	if (bytes > have) {
		free(a);
		free(b);
		a = malloc(bytes);
		b = malloc(bytes);
		if (!a || !b)
			return 0;
		memset(a, 1, bytes);
		memset(b, 2, bytes);
		have = bytes;
	}
	t0 = cli_now_ns();
	for (int r = 0; r < reps; r++) {
		memcpy(b, a, bytes);
		a[r % bytes] ^= b[(r * 7) % bytes];
	}
	return (double)bytes * reps / (double)(cli_now_ns() - t0);
}

int main(int argc, char **argv)
{
	uint64_t minb = 1024, maxb = 1u << 20, factor = 2;
	int iters = 5, warm = 1, check = 1, want = -1, opt, wrong_any = 0;
	m890_comm_t comm;

	while ((opt = getopt(argc, argv, "b:e:f:n:w:c:g:h")) != -1) {
		switch (opt) {
		case 'b':
		case 'e':
		case 'f':
			if (bench_size_opt(opt, optarg, &minb, &maxb, &factor))
				goto usage;
			break;
		case 'n':
			iters = atoi(optarg);
			break;
		case 'w':
			warm = atoi(optarg);
			break;
		case 'c':
			check = atoi(optarg);
			break;
		case 'g':
			want = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc || iters < 1 || warm < 0 || minb > maxb)
		goto usage;
	CHECK(m890_device_count(&n));
	if (want > 0 && want < n)
		n = want;
	if (n > MAXN)
		n = MAXN;
	for (int i = 0; i < n; i++) {
		struct m890_stream_config cfg = M890_STREAM_CONFIG_INIT;
		void *p;
		uint64_t total = maxb * (uint64_t)n;

		hbytes = total < HOST_CHUNK ? total : HOST_CHUNK;

		/* One driver submission per collective, not per packet. */
		cfg.flags = M890_STREAM_DEFERRED;

		CHECK(m890_device_open(i, &dev[i]));
		CHECK(m890_stream_create_config(dev[i], &cfg, &str[i]));
		CHECK(m890_buffer_alloc(dev[i], total, M890_MEM_HBM, &sb[i]));
		CHECK(m890_buffer_alloc(dev[i], total, M890_MEM_HBM, &rb[i]));
		CHECK(m890_buffer_alloc(dev[i], hbytes, M890_MEM_HOST, &hb[i]));
		CHECK(m890_event_create(dev[i], &ev0[i]));
		CHECK(m890_event_create(dev[i], &ev1[i]));
		CHECK(m890_buffer_map(hb[i], &p));
		hp[i] = p;
	}
	CHECK(m890_comm_create(dev, n, NULL, &comm));
	printf("# a2a_perf: %d cards, alltoall, float, %d warm-up + %d timed iterations\n",
	       n, warm, iters);
	printf("# %12s %12s %6s %10s %8s %8s %7s %10s %8s %12s\n", "size(B)",
	       "count", "type", "time(us)", "algbw", "busbw", "#wrong",
	       "model(us)", "busbw", "memcpy-GB/s");
	printf("# %12s %12s %6s %10s %8s %8s %7s %10s %8s %12s\n", "",
	       "(elements)", "", "", "(GB/s)", "(GB/s)", "", "", "(GB/s)",
	       "(this host)");
	for (uint64_t b = minb; b <= maxb; b *= factor) {
		uint64_t size = b * (uint64_t)n, wrong = 0;
		double us, algbw, mus = 0;
		int64_t t0;

		for (int i = 0; i < n; i++)
			for (uint64_t at = 0; at < size; at += hbytes) {
				uint64_t k = size - at < hbytes ? size - at : hbytes;

				CHECK(m890_stream_synchronize(str[i]));
				for (uint64_t o = 0; o < k; o++)
					hp[i][o] = bench_pat(i, (int)((at + o) / b), (at + o) % b);
				CHECK(m890_memcpy_htod(str[i], sb[i], at, hb[i], 0, k));
			}
		for (int k = 0; k < warm; k++)
			CHECK(m890_alltoall(comm, sb, rb, b, str));
		CHECK(m890_comm_synchronize(comm, str));
		for (int i = 0; i < n; i++)
			CHECK(m890_event_record(ev0[i], str[i]));
		t0 = cli_now_ns();
		for (int k = 0; k < iters; k++)
			CHECK(m890_alltoall(comm, sb, rb, b, str));
		CHECK(m890_comm_synchronize(comm, str));
		us = (double)(cli_now_ns() - t0) / 1e3 / iters;
		for (int i = 0; i < n; i++) {
			int64_t dns;

			CHECK(m890_event_record(ev1[i], str[i]));
			CHECK(m890_event_synchronize(ev1[i]));
			CHECK(m890_event_elapsed_time(ev0[i], ev1[i], NULL, &dns));
			if (dns / 1e3 / iters > mus)
				mus = dns / 1e3 / iters;
		}
		if (check) {
			for (int j = 0; j < n; j++)
				for (uint64_t at = 0; at < size; at += hbytes) {
					uint64_t k = size - at < hbytes ? size - at : hbytes;

					CHECK(m890_memcpy_dtoh(str[j], hb[j], 0, rb[j], at, k));
					CHECK(m890_stream_synchronize(str[j]));
					for (uint64_t o = 0; o < k; o++)
						wrong += hp[j][o] !=
							 bench_pat((int)((at + o) / b), j, (at + o) % b);
				}
		}
		wrong_any |= wrong != 0;
		algbw = (double)size / (us * 1e3);
		printf("  %12llu %12llu %6s %10.1f %8.3f %8.3f %7s %10.2f %8.2f %12.2f\n",
		       (unsigned long long)size, (unsigned long long)(size / 4),
		       "float", us, algbw, algbw * (n - 1) / n,
		       check ? (wrong ? "WRONG" : "0") : "N/A", mus,
		       mus > 0 ? (double)size / (mus * 1e3) * (n - 1) / n : 0.0,
		       memcpy_gbps(size));
		if (check && wrong)
			printf("# %llu bytes wrong at size %llu\n",
			       (unsigned long long)wrong, (unsigned long long)size);
		fflush(stdout);
		if (b > UINT64_MAX / factor)
			break;
	}
	CHECK(m890_comm_destroy(comm));
	for (int i = 0; i < n; i++) {
		m890_stream_destroy(str[i]);
		m890_buffer_free(sb[i]);
		m890_buffer_free(rb[i]);
		m890_buffer_free(hb[i]);
		m890_event_destroy(ev0[i]);
		m890_event_destroy(ev1[i]);
		m890_device_close(dev[i]);
	}
	return wrong_any;
usage:
	fprintf(stderr,
		"usage: a2a_perf [-b MINBYTES] [-e MAXBYTES] [-f FACTOR] [-n ITERS] [-w WARMUP] [-c 0|1] [-g CARDS]\n"
		"  sizes are bytes per peer, K/M/G suffixes allowed\n");
	return 2;
}
