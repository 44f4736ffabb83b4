// SPDX-License-Identifier: MIT
/*
 * DOC: a2a_perf - all-to-all bandwidth across the cards, nccl-tests style
 *
 * One communicator over every card (or -g CARDS), m890_alltoall() of
 * float data for the sizes of nccl-tests' sweep (-b MIN to -e MAX, times
 * -f or plus -i), -w warm-up and -n timed iterations per size.  The
 * options and columns are nccl-tests' alltoall_perf's: size is the bytes
 * each rank sends in total (to all ranks, itself included; rounded down
 * to whole floats per peer), count the floats of it, time the wall time
 * per iteration from the first enqueue to the last card's completion,
 * algbw = size / time, busbw = algbw * (n - 1) / n, and #wrong the bytes
 * that differ from the expected pattern after the timed iterations (-c 1;
 * -c 0 skips the check).  A second column group has the time, algbw and
 * busbw in the cards' modelled clock (TIMESTAMP events around the timed
 * iterations on every card; the slowest card counts): what the exchange
 * would take on real M890 hardware.  The last column is the memcpy
 * bandwidth of the machine the program runs on (the guest, emulated) over
 * a buffer of the same size.  Lines starting with '#' are comments; the
 * others have a fixed number of columns for scripts.  The closing lines
 * are nccl-tests': "# Out of bounds values" and "# Avg bus bandwidth"
 * (the mean wall busbw over the sizes), then the mean modelled busbw.
 *
 * The sweep is nccl-tests': -f above 1 multiplies, -f 1 steps by -i (1M
 * unless given), -i alone steps by -i; -f above 1 with -i asks for two
 * sweeps and is a usage error (nccl-tests would drop -i).  -d float and
 * -o none are the only type and reduction, -r is refused (no root), and
 * nccl-tests' other options take the one value that applies here or are
 * refused (perf_args.h).  --version prints VERSION and libm890's.
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

#include "bench_pat.h"
#include "perf_args.h"

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

/* The command line. */
struct a2a_opts {
	struct cli_sweep sweep;
	int iters;
	int warm;
	int check;
	int cards;		/* -1: every card */
};

static void usage(void)
{
	FILE *f = stdout;

	fprintf(f,
		"usage: a2a_perf [OPTIONS]\n"
		"All-to-all bandwidth of libm890 across the cards (nccl-tests' alltoall_perf).\n"
		"  -b, --minbytes SIZE      smallest size (default 8K)\n"
		"  -e, --maxbytes SIZE      largest size (default 8M)\n"
		CLI_SWEEP_HELP_F
		CLI_SWEEP_HELP_I
		"  -n, --iters N            timed iterations per size (default 5)\n"
		"  -w, --warmup_iters N     warm-up iterations per size (default 1)\n"
		"  -c, --check 0|1          verify every received byte (default 1)\n"
		"  -g, --ngpus CARDS        cards taking part (default: all)\n"
		"  -d, --datatype float     the data type (float only)\n"
		"  -o, --op none            the reduction (none: all-to-all does not reduce)\n"
		"  -h, --help               this text\n"
		"      --version            the version of a2a_perf and of libm890\n");
	perf_fixed_usage(f);
	fprintf(f,
		"  -r, --root               all-to-all has no root\n"
		"SIZE is the bytes one rank sends in total (to all ranks), with an optional\n"
		"K, M or G suffix (powers of two); each peer gets SIZE / ranks, in whole floats.\n"
		"Columns: size count type redop root, then wall time (this host): time(us)\n"
		"algbw busbw #wrong, then modelled M890 time: model-time model-algbw model-busbw,\n"
		"then memcpy-GB/s of this host.  busbw = algbw * (ranks - 1) / ranks.\n"
		"Exit status: 0 all data right, 1 wrong data or a failed call, 2 usage error.\n");
}

/* One option into @o: 0, or 2 after a message (a usage error). */
static int parse_opt(int opt, const char *arg, struct a2a_opts *o)
{
	int bad, rc = perf_fixed_opt("a2a_perf", opt, arg);

	if (rc >= 0)
		return rc;
	switch (opt) {
	case 'b':
	case 'e':
	case 'f':
	case 'i':
		bad = cli_sweep_opt(&o->sweep, opt, arg);
		break;
	case 'n':
		bad = cli_parse_int(arg, 1, 1000000, &o->iters);
		break;
	case 'w':
		bad = cli_parse_int(arg, 0, 1000000, &o->warm);
		break;
	case 'c':
		bad = cli_parse_int(arg, 0, 1, &o->check);
		break;
	case 'g':
		bad = cli_parse_int(arg, 1, MAXN, &o->cards);
		break;
	case 'd':
		return perf_value_opt("a2a_perf", 'd', "datatype", arg, "float",
				      "the all-to-all moves floats");
	case 'o':
		return perf_value_opt("a2a_perf", 'o', "op", arg, "none",
				      "all-to-all does not reduce");
	case 'r':
		return perf_refuse_opt("a2a_perf", 'r', "root", "all-to-all has no root");
	default:
		return 2;
	}
	if (bad) {
		fprintf(stderr, "a2a_perf: bad value '%s' for -%c\n", arg, opt);
		return 2;
	}
	return 0;
}

/*
 * parse_args() - the command line into @o.  Returns -1 to go on, or the
 * exit status (0 after --help or --version, 2 after a usage error, with
 * a message).
 */
static int parse_args(int argc, char **argv, struct a2a_opts *o)
{
	static const struct option own[] = {
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "stepbytes", required_argument, NULL, 'i' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup_iters", required_argument, NULL, 'w' },
		{ "check", required_argument, NULL, 'c' },
		{ "ngpus", required_argument, NULL, 'g' },
		{ "datatype", required_argument, NULL, 'd' },
		{ "op", required_argument, NULL, 'o' },
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option longopts[PERF_MAX_LONGOPTS];
	char shortopts[64];
	const char *why;
	int opt;

	perf_getopt_init("b:e:f:i:n:w:c:g:d:o:r:h", own, shortopts, sizeof(shortopts),
			 longopts);
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage();
			return 0;
		}
		if (opt == PERF_OPT_VERSION) {
			perf_print_version("a2a_perf");
			return 0;
		}
		if (parse_opt(opt, optarg, o))
			goto usage;
	}
	if (optind != argc) {
		fprintf(stderr, "a2a_perf: unexpected argument '%s'\n", argv[optind]);
		goto usage;
	}
	why = cli_sweep_finish(&o->sweep);
	if (why) {
		fprintf(stderr, "a2a_perf: %s\n", why);
		goto usage;
	}
	return -1;
usage:
	fprintf(stderr, "Try 'a2a_perf --help'.\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct a2a_opts o = {
		.sweep = CLI_SWEEP_INIT(8 << 10, 8 << 20),
		.iters = 5, .warm = 1, .check = 1, .cards = -1,
	};
	double sum_busbw = 0, sum_mbusbw = 0;
	int wrong_any = 0, rows = 0, rc;
	uint64_t wrong_total = 0, size;
	m890_comm_t comm;

	rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		return rc;
	CHECK(m890_device_count(&n));
	if (o.cards > 0 && o.cards < n)
		n = o.cards;
	if (n > MAXN)
		n = MAXN;
	if (n < 1) {
		fprintf(stderr, "a2a_perf: no M890 card\n");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		struct m890_stream_config cfg = M890_STREAM_CONFIG_INIT;
		void *p;
		uint64_t total = o.sweep.max_bytes;

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
	       n, o.warm, o.iters);
	printf("# size: the bytes each rank sends in total (size / %d to each rank)\n", n);
	printf("# %12s %12s %6s %6s %5s   %-38s   %-30s %12s\n", "", "", "", "", "",
	       "|------ wall time (this host) ------|", "|---- modelled M890 time ----|", "");
	printf("# %12s %12s %6s %6s %5s   %10s %8s %8s %7s   %10s %11s %11s %12s\n",
	       "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
	       "model-time", "model-algbw", "model-busbw", "memcpy");
	printf("# %12s %12s %6s %6s %5s   %10s %8s %8s %7s   %10s %11s %11s %12s\n",
	       "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
	       "(us)", "(GB/s)", "(GB/s)", "(GB/s)");
	for (size = o.sweep.min_bytes;;) {
		uint64_t b = cli_a2a_block(size, n, sizeof(float));
		uint64_t bytes = b * (uint64_t)n, wrong = 0;
		double us, algbw, busbw, mbusbw, mus = 0;
		int64_t t0;

		for (int i = 0; b && i < n; i++)
			for (uint64_t at = 0; at < bytes; at += hbytes) {
				uint64_t k = bytes - at < hbytes ? bytes - at : hbytes;

				CHECK(m890_stream_synchronize(str[i]));
				for (uint64_t off = 0; off < k; off++)
					hp[i][off] = bench_pat(i, (int)((at + off) / b),
							       (at + off) % b);
				CHECK(m890_memcpy_htod(str[i], sb[i], at, hb[i], 0, k));
			}
		for (int k = 0; k < o.warm; k++)
			CHECK(m890_alltoall(comm, sb, rb, b, str));
		CHECK(m890_comm_synchronize(comm, str));
		for (int i = 0; i < n; i++)
			CHECK(m890_event_record(ev0[i], str[i]));
		t0 = cli_now_ns();
		for (int k = 0; k < o.iters; k++)
			CHECK(m890_alltoall(comm, sb, rb, b, str));
		CHECK(m890_comm_synchronize(comm, str));
		us = (double)(cli_now_ns() - t0) / 1e3 / o.iters;
		for (int i = 0; i < n; i++) {
			int64_t dns;

			CHECK(m890_event_record(ev1[i], str[i]));
			CHECK(m890_event_synchronize(ev1[i]));
			CHECK(m890_event_elapsed_time(ev0[i], ev1[i], NULL, &dns));
			if (dns / 1e3 / o.iters > mus)
				mus = dns / 1e3 / o.iters;
		}
		for (int j = 0; o.check && b && j < n; j++)
			for (uint64_t at = 0; at < bytes; at += hbytes) {
				uint64_t k = bytes - at < hbytes ? bytes - at : hbytes;

				CHECK(m890_memcpy_dtoh(str[j], hb[j], 0, rb[j], at, k));
				CHECK(m890_stream_synchronize(str[j]));
				for (uint64_t off = 0; off < k; off++)
					wrong += hp[j][off] !=
						 bench_pat((int)((at + off) / b), j,
							   (at + off) % b);
			}
		wrong_any |= wrong != 0;
		wrong_total += wrong;
		algbw = us > 0 ? (double)bytes / (us * 1e3) : 0;
		busbw = algbw * (n - 1) / n;
		mbusbw = mus > 0 ? (double)bytes / (mus * 1e3) * (n - 1) / n : 0;
		sum_busbw += busbw;
		sum_mbusbw += mbusbw;
		rows++;
		printf("  %12llu %12llu %6s %6s %5d   %10.1f %8.3f %8.3f %7s   %10.2f %11.2f %11.2f %12.2f\n",
		       (unsigned long long)bytes, (unsigned long long)(bytes / sizeof(float)),
		       "float", "none", -1, us, algbw, busbw,
		       o.check ? (wrong ? "WRONG" : "0") : "N/A", mus,
		       mus > 0 ? (double)bytes / (mus * 1e3) : 0.0, mbusbw,
		       memcpy_gbps(bytes ? bytes : 1));
		if (o.check && wrong)
			printf("# %llu bytes wrong at size %llu\n",
			       (unsigned long long)wrong, (unsigned long long)bytes);
		fflush(stdout);
		if (cli_sweep_next(&o.sweep, &size))
			break;
	}
	printf("# Out of bounds values : %llu %s\n", (unsigned long long)wrong_total,
	       wrong_total ? "FAILED" : "OK");
	printf("# Avg bus bandwidth    : %g\n", rows ? sum_busbw / rows : 0.0);
	printf("# Avg modelled bus bandwidth : %g\n", rows ? sum_mbusbw / rows : 0.0);
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
}
