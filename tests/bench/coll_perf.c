// SPDX-License-Identifier: MIT
/*
 * DOC: allreduce_perf, allgather_perf, reduce_scatter_perf, broadcast_perf
 * - device collectives across the cards, nccl-tests style
 *
 * One source, built once per collective (-DPERF_COLL=...).  One
 * communicator over every card (or -g CARDS) in this process; for each
 * size of nccl-tests' sweep (-b MIN to -e MAX, times -f or plus -i), -w
 * warm-up and -n timed iterations of the collective, out of place.  The
 * sizes and bus bandwidths are nccl-tests':
 *
 *   collective       size is                      busbw
 *   allreduce        bytes of each rank's operand algbw * 2 (n - 1) / n
 *   allgather        bytes of the gathered result algbw * (n - 1) / n
 *   reduce_scatter   bytes of each rank's operand algbw * (n - 1) / n
 *   broadcast        bytes broadcast              algbw
 *
 * (rounded down to whole elements, and for allgather and reduce_scatter
 * to a multiple of n elements), algbw = size / time.  The wall time per
 * iteration runs from the first enqueue to the last card's completion;
 * the modelled columns come from TIMESTAMP events around the timed
 * iterations on every card (the slowest card counts): what the
 * collective would take on M890 hardware.  #wrong counts the elements
 * (bytes for allgather and broadcast) of every rank's result that differ
 * from the host reference (-c 1, the default; reductions summed in rank
 * order in binary32, bf16 rounded once, as libm890 documents), the
 * closing lines are nccl-tests' "# Out of bounds values" and "# Avg bus
 * bandwidth", then the mean modelled busbw.
 *
 * The options are nccl-tests' (the sweep as in a2a_perf.c: -f 1 steps by
 * -i, -f above 1 with -i is a usage error).  -o takes the one reduction
 * (sum, or none for allgather and broadcast), -d of allgather and
 * broadcast float, -r is broadcast's alone, and nccl-tests' other options
 * take the one value that applies here or are refused (perf_args.h).
 * --version prints VERSION and libm890's.
 *
 * Exit status: 0 when nothing was wrong, 1 otherwise, 2 on a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <m890.h>

#include "cli_args.h"
#include "perf_args.h"

#define PC_ALLREDUCE		1
#define PC_ALLGATHER		2
#define PC_REDUCE_SCATTER	3
#define PC_BROADCAST		4

#ifndef PERF_COLL
#error "build with -DPERF_COLL=PC_ALLREDUCE (or another PC_ value)"
#endif

#if PERF_COLL == PC_ALLREDUCE
#define NAME "allreduce_perf"
#define COLL "allreduce"
#elif PERF_COLL == PC_ALLGATHER
#define NAME "allgather_perf"
#define COLL "allgather"
#elif PERF_COLL == PC_REDUCE_SCATTER
#define NAME "reduce_scatter_perf"
#define COLL "reduce_scatter"
#elif PERF_COLL == PC_BROADCAST
#define NAME "broadcast_perf"
#define COLL "broadcast"
#else
#error "unknown PERF_COLL"
#endif

#define REDUCES (PERF_COLL == PC_ALLREDUCE || PERF_COLL == PC_REDUCE_SCATTER)

#define MAXN 64
#define HOST_CHUNK (4ull << 20)	/* host staging per card */

static int n;
static m890_device_t dev[MAXN];
static m890_stream_t str[MAXN];
static m890_buffer_t sb[MAXN], rb[MAXN], hb[MAXN];
static m890_event_t ev0[MAXN], ev1[MAXN];
static uint8_t *hp[MAXN];

#define CHECK(call) do { \
	m890_status_t st_ = (call); \
	if (st_) { \
		fprintf(stderr, NAME ": %s: %s\n", #call, m890_get_last_error()); \
		exit(1); \
	} \
} while (0)

struct perf_opts {
	struct cli_sweep sweep;
	int iters, warm, check, cards, root;
	enum m890_data_type type;
	uint32_t algo;
};

/* The one reduction, for -o: sum for the reductions, none for the others. */
#define OPNAME (REDUCES ? "sum" : "none")

static void usage(void)
{
	FILE *f = stdout;

	fprintf(f,
		"usage: " NAME " [OPTIONS]\n"
		"Device " COLL " of libm890 across the cards (nccl-tests' " NAME ").\n"
		"  -b, --minbytes SIZE      smallest size (default 8K)\n"
		"  -e, --maxbytes SIZE      largest size (default 8M)\n"
		CLI_SWEEP_HELP_F
		CLI_SWEEP_HELP_I
		"  -n, --iters N            timed iterations per size (default 5)\n"
		"  -w, --warmup_iters N     warm-up iterations per size (default 1)\n"
		"  -c, --check 0|1          compare every result with the host reference (default 1)\n"
		"  -g, --ngpus CARDS        cards taking part (default: all)\n"
#if REDUCES
		"  -d, --datatype TYPE      float or bfloat16 (default float)\n"
		"  -o, --op sum             the reduction (sum only)\n"
#else
		"  -d, --datatype float     the data type (float only)\n"
		"  -o, --op none            the reduction (none: " COLL " does not reduce)\n"
#endif
#if PERF_COLL == PC_ALLREDUCE
		"  -A, --algorithm ALGO     auto, oneshot or twoshot (default auto)\n"
#endif
#if PERF_COLL == PC_BROADCAST
		"  -r, --root RANK          the broadcasting rank (default 0)\n"
#endif
		"  -h, --help               this text\n"
		"      --version            the version of " NAME " and of libm890\n");
	perf_fixed_usage(f);
#if PERF_COLL != PC_BROADCAST
	fprintf(f, "  -r, --root               " COLL " has no root\n");
#endif
	fprintf(f,
		"SIZE takes an optional K, M or G suffix (powers of two).  It counts, as in\n"
		"nccl-tests: allreduce and reduce_scatter the bytes of each rank's operand,\n"
		"allgather the bytes of the gathered result, broadcast the bytes sent.\n"
		"Columns: size count type redop root, wall time (this host): time(us) algbw\n"
		"busbw #wrong, then modelled M890 time: model-time model-algbw model-busbw.\n"
		"busbw = algbw times 2(n-1)/n (allreduce), (n-1)/n (allgather,\n"
		"reduce_scatter) or 1 (broadcast).\n"
		"Exit status: 0 all results right, 1 a wrong result or a failed call, 2 usage error.\n");
}

/* One option into @o: 0, or 2 after a message (a usage error). */
static int parse_opt(int opt, const char *arg, struct perf_opts *o)
{
	int bad = 0, rc = perf_fixed_opt(NAME, opt, arg);

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
		if (!REDUCES)
			return perf_value_opt(NAME, 'd', "datatype", arg, "float",
					      COLL " moves bytes, counted as floats");
		if (!strcmp(arg, "float"))
			o->type = M890_TYPE_FP32;
		else if (!strcmp(arg, "bfloat16"))
			o->type = M890_TYPE_BF16;
		else
			bad = 1;
		break;
	case 'o':
		return perf_value_opt(NAME, 'o', "op", arg, OPNAME,
				      REDUCES ? "libm890 reduces by sum" : COLL " does not reduce");
	case 'A':
		if (PERF_COLL != PC_ALLREDUCE)
			return 2;
		if (!strcmp(arg, "auto"))
			o->algo = M890_ALGO_AUTO;
		else if (!strcmp(arg, "oneshot"))
			o->algo = M890_ALGO_ONE_SHOT;
		else if (!strcmp(arg, "twoshot"))
			o->algo = M890_ALGO_TWO_SHOT;
		else
			bad = 1;
		break;
	case 'r':
		if (PERF_COLL != PC_BROADCAST)
			return perf_refuse_opt(NAME, 'r', "root", COLL " has no root");
		bad = cli_parse_int(arg, 0, MAXN - 1, &o->root);
		break;
	default:
		return 2;
	}
	if (bad) {
		fprintf(stderr, NAME ": bad value '%s' for -%c\n", arg, opt);
		return 2;
	}
	return 0;
}

/*
 * parse_args() - the command line into @o.  Returns -1 to go on, or the
 * exit status (0 after --help or --version, 2 after a usage error, with
 * a message).
 */
static int parse_args(int argc, char **argv, struct perf_opts *o)
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
#if PERF_COLL == PC_ALLREDUCE
		{ "algorithm", required_argument, NULL, 'A' },
#endif
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option longopts[PERF_MAX_LONGOPTS];
	char shortopts[64];
	const char *why;
	int opt;

	perf_getopt_init(PERF_COLL == PC_ALLREDUCE ? "b:e:f:i:n:w:c:g:d:o:A:r:h" :
			 "b:e:f:i:n:w:c:g:d:o:r:h", own, shortopts, sizeof(shortopts), longopts);
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage();
			return 0;
		}
		if (opt == PERF_OPT_VERSION) {
			perf_print_version(NAME);
			return 0;
		}
		if (parse_opt(opt, optarg, o))
			goto usage;
	}
	if (optind != argc) {
		fprintf(stderr, NAME ": unexpected argument '%s'\n", argv[optind]);
		goto usage;
	}
	why = cli_sweep_finish(&o->sweep);
	if (why) {
		fprintf(stderr, NAME ": %s\n", why);
		goto usage;
	}
	return -1;
usage:
	fprintf(stderr, "Try '" NAME " --help'.\n");
	return 2;
}

static unsigned int esz(const struct perf_opts *o)
{
	return REDUCES && o->type == M890_TYPE_BF16 ? 2 : 4;
}

/* Rank @j's operand element @e: small integers, mixed signs. */
static float val(int j, uint64_t e)
{
	return (float)((int)((e * 13 + (uint64_t)j * 7) % 61) - 30);
}

/* Byte @o of rank @j's data (allgather, broadcast). */
static uint8_t pat(int j, uint64_t o)
{
	return (uint8_t)(j * 29 + o * 7 + (o >> 9) + 3);
}

/* The reference of result element @e of a reduction (global element). */
static __attribute__((unused)) void ref_elem(const struct perf_opts *o, uint64_t e, uint8_t *out)
{
	float sum = 0.0f;

	for (int j = 0; j < n; j++)
		sum += val(j, e);
	if (o->type == M890_TYPE_BF16) {
		uint16_t h = m890_float_to_bf16(sum);

		memcpy(out, &h, 2);
	} else {
		memcpy(out, &sum, 4);
	}
}

/* Element or byte @x of rank @i's operand, as stored. */
static void src_elem(const struct perf_opts *o, int i, uint64_t x, uint8_t *out)
{
	if (!REDUCES) {
		*out = pat(i, x);
	} else if (o->type == M890_TYPE_BF16) {
		uint16_t h = m890_float_to_bf16(val(i, x));

		memcpy(out, &h, 2);
	} else {
		float f = val(i, x);

		memcpy(out, &f, 4);
	}
}

/* Stage @units elements (bytes) of rank @i's operand into sb[i]. */
static void stage(const struct perf_opts *o, int i, uint64_t units, uint64_t hbytes)
{
	unsigned int u = REDUCES ? esz(o) : 1;
	uint64_t bytes = units * u;

	for (uint64_t at = 0; at < bytes; at += hbytes) {
		uint64_t k = bytes - at < hbytes ? bytes - at : hbytes;

		CHECK(m890_stream_synchronize(str[i]));
		for (uint64_t off = 0; off < k; off += u)
			src_elem(o, i, (at + off) / u, hp[i] + off);
		CHECK(m890_memcpy_htod(str[i], sb[i], at, hb[i], 0, k));
	}
	CHECK(m890_stream_synchronize(str[i]));
}

/* What rank @i's result holds at element (byte) @x. */
static void want_elem(const struct perf_opts *o, int i, uint64_t x,
		      uint64_t per_rank, uint8_t *out)
{
#if PERF_COLL == PC_ALLREDUCE
	(void)i;
	(void)per_rank;
	ref_elem(o, x, out);
#elif PERF_COLL == PC_REDUCE_SCATTER
	ref_elem(o, (uint64_t)i * per_rank + x, out);
#elif PERF_COLL == PC_ALLGATHER
	(void)o;
	(void)i;
	*out = pat((int)(x / per_rank), x % per_rank);
#else
	(void)i;
	(void)per_rank;
	*out = pat(o->root, x);
#endif
}

/* Elements (bytes) of rank @i's result that differ from the reference. */
static uint64_t verify(const struct perf_opts *o, int i, uint64_t units,
		       uint64_t per_rank, uint64_t hbytes)
{
	unsigned int u = REDUCES ? esz(o) : 1;
	uint64_t bytes = units * u, wrong = 0;
	uint8_t want[4];

	for (uint64_t at = 0; at < bytes; at += hbytes) {
		uint64_t k = bytes - at < hbytes ? bytes - at : hbytes;

		CHECK(m890_memcpy_dtoh(str[i], hb[i], 0, rb[i], at, k));
		CHECK(m890_stream_synchronize(str[i]));
		for (uint64_t off = 0; off < k; off += u) {
			want_elem(o, i, (at + off) / u, per_rank, want);
			wrong += memcmp(hp[i] + off, want, u) != 0;
		}
	}
	return wrong;
}

static void run_once(const struct perf_opts *o, m890_comm_t comm, uint64_t count)
{
	struct m890_coll_opts co = M890_COLL_OPTS_INIT;

	co.algorithm = o->algo;
#if PERF_COLL == PC_ALLREDUCE
	CHECK(m890_allreduce(comm, sb, rb, count, o->type, M890_OP_SUM, str, &co));
#elif PERF_COLL == PC_REDUCE_SCATTER
	CHECK(m890_reduce_scatter(comm, sb, rb, count, o->type, M890_OP_SUM, str, &co));
#elif PERF_COLL == PC_ALLGATHER
	CHECK(m890_allgather(comm, sb, rb, count, str, &co));
#else
	CHECK(m890_broadcast(comm, sb, rb, count, o->root, str, &co));
#endif
}

int main(int argc, char **argv)
{
	struct perf_opts o = {
		.sweep = CLI_SWEEP_INIT(8 << 10, 8 << 20),
		.iters = 5, .warm = 1, .check = 1, .cards = -1,
		.type = M890_TYPE_FP32,
	};
	double sum_busbw = 0, sum_mbusbw = 0, factor;
	uint64_t wrong_total = 0, size, hbytes;
	int rows = 0, rc;
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
		fprintf(stderr, NAME ": no M890 card\n");
		return 1;
	}
	if (o.root >= n) {
		fprintf(stderr, NAME ": root %d is not one of the %d ranks\n", o.root, n);
		return 2;
	}
	hbytes = o.sweep.max_bytes < HOST_CHUNK ? o.sweep.max_bytes : HOST_CHUNK;
	hbytes = (hbytes + 3) & ~3ull;
	for (int i = 0; i < n; i++) {
		struct m890_stream_config cfg = M890_STREAM_CONFIG_INIT;
		void *p;

		cfg.flags = M890_STREAM_DEFERRED;
		CHECK(m890_device_open(i, &dev[i]));
		CHECK(m890_stream_create_config(dev[i], &cfg, &str[i]));
		CHECK(m890_buffer_alloc(dev[i], o.sweep.max_bytes, M890_MEM_HBM, &sb[i]));
		CHECK(m890_buffer_alloc(dev[i], o.sweep.max_bytes, M890_MEM_HBM, &rb[i]));
		CHECK(m890_buffer_alloc(dev[i], hbytes, M890_MEM_HOST, &hb[i]));
		CHECK(m890_event_create(dev[i], &ev0[i]));
		CHECK(m890_event_create(dev[i], &ev1[i]));
		CHECK(m890_buffer_map(hb[i], &p));
		hp[i] = p;
	}
	CHECK(m890_comm_create(dev, n, NULL, &comm));
	factor = PERF_COLL == PC_ALLREDUCE ? 2.0 * (n - 1) / n :
		 PERF_COLL == PC_BROADCAST ? 1.0 : (double)(n - 1) / n;
	printf("# " NAME ": %d cards, " COLL ", %s, %d warm-up + %d timed iterations, out of place\n",
	       n, esz(&o) == 2 ? "bfloat16" : REDUCES ? "float" : "bytes", o.warm, o.iters);
	printf("# %12s %12s %8s %6s %5s   %-38s   %-30s\n", "", "", "", "", "",
	       "|------ wall time (this host) ------|", "|---- modelled M890 time ----|");
	printf("# %12s %12s %8s %6s %5s   %10s %8s %8s %7s   %10s %11s %11s\n",
	       "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
	       "model-time", "model-algbw", "model-busbw");
	printf("# %12s %12s %8s %6s %5s   %10s %8s %8s %7s   %10s %11s %11s\n",
	       "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
	       "(us)", "(GB/s)", "(GB/s)");
	for (size = o.sweep.min_bytes;;) {
		unsigned int e = esz(&o);
		/* The call's count (elements or bytes per rank), the size shown. */
		uint64_t count, shown, per_rank = 0, units, wrong = 0;
		double us, algbw, busbw, mbusbw, mus = 0;
		int64_t t0;

#if PERF_COLL == PC_ALLREDUCE
		count = size / e;
		shown = count * e;
		units = count;
#elif PERF_COLL == PC_REDUCE_SCATTER
		count = size / e / (uint64_t)n;
		shown = count * e * (uint64_t)n;
		per_rank = count;
		units = count;
#elif PERF_COLL == PC_ALLGATHER
		count = size / 4 / (uint64_t)n * 4;
		shown = count * (uint64_t)n;
		per_rank = count;
		units = shown;
#else
		count = size / 4 * 4;
		shown = count;
		units = count;
#endif
		for (int i = 0; i < n; i++)
			stage(&o, i, PERF_COLL == PC_REDUCE_SCATTER ? count * (uint64_t)n : count,
			      hbytes);
		for (int k = 0; k < o.warm; k++)
			run_once(&o, comm, count);
		CHECK(m890_comm_synchronize(comm, str));
		for (int i = 0; i < n; i++)
			CHECK(m890_event_record(ev0[i], str[i]));
		t0 = cli_now_ns();
		for (int k = 0; k < o.iters; k++)
			run_once(&o, comm, count);
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
		for (int i = 0; o.check && i < n; i++)
			wrong += verify(&o, i, units, per_rank, hbytes);
		wrong_total += wrong;
		algbw = us > 0 ? (double)shown / (us * 1e3) : 0;
		busbw = algbw * factor;
		mbusbw = mus > 0 ? (double)shown / (mus * 1e3) * factor : 0;
		sum_busbw += busbw;
		sum_mbusbw += mbusbw;
		rows++;
		printf("  %12llu %12llu %8s %6s %5d   %10.1f %8.3f %8.3f %7s   %10.2f %11.2f %11.2f\n",
		       (unsigned long long)shown,
		       (unsigned long long)(REDUCES ? shown / e : shown / 4),
		       REDUCES ? (e == 2 ? "bfloat16" : "float") : "float",
		       REDUCES ? "sum" : "none",
		       PERF_COLL == PC_BROADCAST ? o.root : -1, us, algbw, busbw,
		       o.check ? (wrong ? "WRONG" : "0") : "N/A", mus,
		       mus > 0 ? (double)shown / (mus * 1e3) : 0.0, mbusbw);
		if (o.check && wrong)
			printf("# %llu wrong at size %llu\n", (unsigned long long)wrong,
			       (unsigned long long)shown);
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
	return wrong_total != 0;
}
