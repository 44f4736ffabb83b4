// SPDX-License-Identifier: MIT
/*
 * DOC: mpi_a2a_perf - the host baseline: Open MPI's MPI_Alltoall
 *
 * Run with mpirun, one process per emulated card (-np 8).  The same
 * command line, sizes, formulas and data check as a2a_perf: -b/-e/-f/-i the
 * sizes (bytes one rank sends in all; size / n to each rank, rounded down),
 * -n timed and -w warm-up iterations, -c 1 to verify every received
 * byte; --help (also without mpirun).  time is the slowest rank's mean
 * time per MPI_Alltoall (between barriers), size the bytes each rank
 * sends in total, algbw = size / time, busbw = algbw * (n - 1) / n.
 * Output columns: size, count (bytes), type, time(us), algbw, busbw,
 * #wrong.
 *
 * Exit status: 0 when nothing was wrong, 1 otherwise, 2 on a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench_pat.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mpirun -np N mpi_a2a_perf [OPTIONS]\n"
		"Open MPI's MPI_Alltoall with a2a_perf's sizes, formulas and data check.\n"
		"  -b, --minbytes SIZE      smallest size (default 8K)\n"
		"  -e, --maxbytes SIZE      largest size (default 8M)\n"
		CLI_SWEEP_HELP_F
		CLI_SWEEP_HELP_I
		"  -n, --iters N            timed iterations per size (default 5)\n"
		"  -w, --warmup_iters N     warm-up iterations per size (default 1)\n"
		"  -c, --check 0|1          verify every received byte (default 1)\n"
		"  -h, --help               this text\n"
		"SIZE is the bytes one rank sends in total (SIZE / ranks, at most 2^31 - 1, to\n"
		"each), with an optional K, M or G suffix (powers of two).\n"
		"Columns: size count type time(us) algbw busbw #wrong; time is the slowest\n"
		"rank's, busbw = algbw * (ranks - 1) / ranks.\n"
		"Exit status: 0 all data right, 1 wrong data, 2 usage error.\n");
}

/* Whether this process is rank 0 of mpirun (or runs alone), before MPI_Init. */
static int first_rank(void)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");

	if (!r)
		r = getenv("PMI_RANK");
	return !r || !strcmp(r, "0");
}

/*
 * parse_args() - the command line, before MPI_Init (--help needs no
 * mpirun).  Returns -1 to go on, or the exit status: 0 after --help, 2
 * after a usage error (said by the first rank only).
 */
static int parse_args(int argc, char **argv, struct cli_sweep *sw, int *iters, int *warm,
		      int *check)
{
	static const struct option longopts[] = {
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "stepbytes", required_argument, NULL, 'i' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup_iters", required_argument, NULL, 'w' },
		{ "check", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *why = NULL;
	char msg[80];
	int opt, bad = 0;

	opterr = first_rank();
	while ((opt = getopt_long(argc, argv, "b:e:f:i:n:w:c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
		case 'e':
		case 'f':
		case 'i':
			bad = cli_sweep_opt(sw, opt, optarg) != 0;
			break;
		case 'n':
			bad = cli_parse_int(optarg, 1, 1000000, iters) != 0;
			break;
		case 'w':
			bad = cli_parse_int(optarg, 0, 1000000, warm) != 0;
			break;
		case 'c':
			bad = cli_parse_int(optarg, 0, 1, check) != 0;
			break;
		case 'h':
			if (first_rank())
				usage(stdout);
			return 0;
		default:
			why = "";	/* getopt said what */
		}
		if (bad) {
			snprintf(msg, sizeof(msg), "bad value '%s' for -%c", optarg, opt);
			why = msg;
		}
		if (why)
			break;
	}
	if (!why && optind != argc)
		why = "unexpected argument";
	if (!why)
		why = cli_sweep_finish(sw);
	if (!why)
		return -1;
	if (first_rank()) {
		if (*why)
			fprintf(stderr, "mpi_a2a_perf: %s\n", why);
		fprintf(stderr, "Try 'mpi_a2a_perf --help'.\n");
	}
	return 2;
}

int main(int argc, char **argv)
{
	struct cli_sweep sw = CLI_SWEEP_INIT(8 << 10, 8 << 20);
	uint64_t size, maxb;
	int iters = 5, warm = 1, check = 1, rank, n, rc;
	unsigned long long wrong_any = 0;
	uint8_t *sbuf, *rbuf;

	rc = parse_args(argc, argv, &sw, &iters, &warm, &check);
	if (rc >= 0)
		return rc;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	maxb = sw.max_bytes / (uint64_t)n;
	if (maxb > (uint64_t)INT32_MAX) {
		if (!rank)
			fprintf(stderr, "mpi_a2a_perf: -e / ranks must be at most 2^31 - 1 bytes\n");
		MPI_Finalize();
		return 2;
	}
	sbuf = malloc(maxb * n);
	rbuf = malloc(maxb * n);
	if (!sbuf || !rbuf) {
		fprintf(stderr, "mpi_a2a_perf: rank %d: cannot allocate 2 x %llu bytes\n",
			rank, (unsigned long long)(maxb * n));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (!rank) {
		printf("# mpi_a2a_perf: %d ranks, MPI_Alltoall, %d warm-up + %d timed iterations\n",
		       n, warm, iters);
		printf("# %12s %12s %6s %10s %8s %8s %7s\n", "size(B)", "count",
		       "type", "time(us)", "algbw", "busbw", "#wrong");
		printf("# %12s %12s %6s %10s %8s %8s %7s\n", "", "(elements)",
		       "", "", "(GB/s)", "(GB/s)", "");
	}
	for (size = sw.min_bytes;;) {
		uint64_t b = cli_a2a_block(size, n, 1), bytes = b * (uint64_t)n;
		unsigned long long wrong = 0, wrong_all = 0;
		double t, tmax, algbw;

		for (int j = 0; j < n; j++)
			for (uint64_t o = 0; o < b; o++)
				sbuf[j * b + o] = bench_pat(rank, j, o);
		memset(rbuf, 0, bytes);
		for (int k = 0; k < warm; k++)
			MPI_Alltoall(sbuf, (int)b, MPI_BYTE, rbuf, (int)b,
				     MPI_BYTE, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		t = MPI_Wtime();
		for (int k = 0; k < iters; k++)
			MPI_Alltoall(sbuf, (int)b, MPI_BYTE, rbuf, (int)b,
				     MPI_BYTE, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		t = (MPI_Wtime() - t) / iters;
		MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		if (check)
			for (int i = 0; i < n; i++)
				for (uint64_t o = 0; o < b; o++)
					wrong += rbuf[i * b + o] != bench_pat(i, rank, o);
		MPI_Reduce(&wrong, &wrong_all, 1, MPI_UNSIGNED_LONG_LONG,
			   MPI_SUM, 0, MPI_COMM_WORLD);
		if (!rank) {
			algbw = (double)bytes / (tmax * 1e9);
			printf("  %12llu %12llu %6s %10.1f %8.3f %8.3f %7s\n",
			       (unsigned long long)bytes,
			       (unsigned long long)bytes, "byte", tmax * 1e6,
			       algbw, algbw * (n - 1) / n,
			       check ? (wrong_all ? "WRONG" : "0") : "N/A");
			fflush(stdout);
		}
		wrong_any |= wrong_all;
		if (cli_sweep_next(&sw, &size))
			break;
	}
	free(sbuf);
	free(rbuf);
	MPI_Bcast(&wrong_any, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return wrong_any ? 1 : 0;
}
