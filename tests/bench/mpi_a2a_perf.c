// SPDX-License-Identifier: MIT
/*
 * DOC: mpi_a2a_perf - the host baseline: Open MPI's MPI_Alltoall
 *
 * Run with mpirun, one process per emulated card (-np 8).  The same
 * command line, sizes, formulas and data check as a2a_perf: -b/-e/-f/-i the
 * sizes (bytes one rank sends in all; size / n to each rank, rounded down),
 * -n timed and -w warm-up iterations, -c 1 to verify every
 * received byte.  time is the slowest rank's mean time per MPI_Alltoall
 * (between barriers), size the bytes each rank sends in total, algbw =
 * size / time, busbw = algbw * (n - 1) / n.  Output columns: size, count
 * (bytes), type, time(us), algbw, busbw, #wrong.
 *
 * Exit status: 0 when nothing was wrong, 1 otherwise, 2 on a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench_pat.h"

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "stepbytes", required_argument, NULL, 'i' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup_iters", required_argument, NULL, 'w' },
		{ "check", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_sweep sw = { .min_bytes = 8 << 10, .max_bytes = 8 << 20, .step_factor = 2 };
	uint64_t size, maxb;
	int iters = 5, warm = 1, check = 1, opt, rank, n, bad = 0;
	unsigned long long wrong_any = 0;
	uint8_t *sbuf, *rbuf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	while ((opt = getopt_long(argc, argv, "b:e:f:i:n:w:c:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
		case 'e':
		case 'f':
		case 'i':
			bad |= cli_sweep_opt(&sw, opt, optarg) != 0;
			break;
		case 'n':
			bad |= cli_parse_int(optarg, 1, 1000000, &iters) != 0;
			break;
		case 'w':
			bad |= cli_parse_int(optarg, 0, 1000000, &warm) != 0;
			break;
		case 'c':
			bad |= cli_parse_int(optarg, 0, 1, &check) != 0;
			break;
		default:
			bad = 1;
		}
	}
	maxb = sw.max_bytes / (uint64_t)n;
	if (bad || optind != argc || !cli_sweep_valid(&sw) || maxb > (uint64_t)INT32_MAX) {
		if (!rank)
			fprintf(stderr,
				"usage: mpirun -np N mpi_a2a_perf [-b MINBYTES] [-e MAXBYTES] [-f FACTOR | -i STEP] [-n ITERS] [-w WARMUP] [-c 0|1]\n"
				"  sizes are the bytes one rank sends in all (size / ranks at most 2^31 - 1 to each), K/M/G suffixes allowed\n");
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
