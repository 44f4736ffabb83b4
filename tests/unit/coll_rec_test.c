// SPDX-License-Identifier: MIT
/*
 * DOC: host unit test of the device collectives' and groups' records
 *
 * The global checks every process runs on the same records before a
 * device collective (m890_dcoll_check()) or a group of collectives
 * (m890_group_sum_check()) enqueues anything (libm890/src/coll_check.c):
 * matching records accepted; a rank's local refusal carried with its
 * status and text, naming the rank; another count, type, root or
 * algorithm refused naming rank 0's and the other rank's values; another
 * scratch registration number refused for reductions only; groups with
 * another number of calls or another call at some position refused
 * naming the call and the ranks.  Every message depends on the records
 * only, so every process prints the same.  Prints TAP.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define N 8

static int n_tests, failed;

static void ok(int cond, const char *name, const char *msg)
{
	n_tests++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n_tests, name);
	if (msg && *msg)
		printf("#   %s\n", msg);
	if (!cond)
		failed++;
}

static struct m890_dcoll_rec recs[N];

static void fill(void)
{
	memset(recs, 0, sizeof(recs));
	for (int j = 0; j < N; j++) {
		recs[j].kind = 1;
		recs[j].count = 1ull << 33;	/* 64-bit counts compared whole */
		recs[j].type = 2;
		recs[j].root = 0;
		recs[j].algo = 2;
		recs[j].recv_index = (uint32_t)j;	/* may differ per rank */
		recs[j].scratch_index = 3;
	}
}

static struct m890_group_sum sums[N];

static void fill_sums(unsigned int calls)
{
	memset(sums, 0, sizeof(sums));
	for (int j = 0; j < N; j++) {
		sums[j].ncalls = calls;
		for (unsigned int k = 0; k < calls; k++) {
			snprintf(sums[j].call[k].what, M890_META_WHAT, "%s",
				 k % 2 ? "alltoall" : "allreduce");
			sums[j].call[k].bytes = 200 + k;
		}
	}
}

int main(void)
{
	char msg[400];
	m890_status_t st;

	fill();
	st = m890_dcoll_check(N, recs, true, "allreduce", msg, sizeof(msg));
	ok(st == M890_SUCCESS, "matching records accepted (receive numbers may differ)", NULL);

	fill();
	recs[5].status = M890_ERROR_DEVICE_MISMATCH;
	snprintf(recs[5].msg, sizeof(recs[5].msg), "rank 5's stream is on accel3");
	st = m890_dcoll_check(N, recs, true, "allreduce", msg, sizeof(msg));
	ok(st == M890_ERROR_DEVICE_MISMATCH && strstr(msg, "allreduce: rank 5 refused the call") &&
	   strstr(msg, "accel3"), "a rank's refusal carried with its status and text", msg);

	fill();
	recs[3].status = M890_ERROR_INVALID_ARGUMENT;
	recs[6].status = M890_ERROR_TIMEOUT;
	st = m890_dcoll_check(N, recs, true, "allreduce", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "rank 3"),
	   "of several refusals the lowest rank's counts", msg);

	fill();
	recs[7].count++;
	st = m890_dcoll_check(N, recs, false, "allgather", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "rank 0 passes count 8589934592") &&
	   strstr(msg, "rank 7 passes 8589934593"), "a count differing above 2^32 named", msg);

	fill();
	recs[2].type = 1;
	st = m890_dcoll_check(N, recs, true, "reduce_scatter", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "rank 2"), "another type refused", msg);

	fill();
	recs[4].root = 1;
	st = m890_dcoll_check(N, recs, false, "broadcast", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "root 0") && strstr(msg, "rank 4"),
	   "another root refused", msg);

	fill();
	recs[1].algo = 1;
	st = m890_dcoll_check(N, recs, true, "allreduce", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "algorithm 2"),
	   "another algorithm refused", msg);

	fill();
	recs[6].scratch_index = 4;
	st = m890_dcoll_check(N, recs, true, "allreduce", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "registered different numbers") &&
	   strstr(msg, "rank 6"), "a reduction refuses another scratch number", msg);
	st = m890_dcoll_check(N, recs, false, "allgather", msg, sizeof(msg));
	ok(st == M890_SUCCESS, "... which no other collective uses", NULL);

	fill_sums(5);
	st = m890_group_sum_check(N, sums, msg, sizeof(msg));
	ok(st == M890_SUCCESS, "matching groups accepted", NULL);

	fill_sums(5);
	sums[4].ncalls = 4;
	st = m890_group_sum_check(N, sums, msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "rank 0 makes 5 calls") &&
	   strstr(msg, "rank 4 makes 4"), "a group of another length names both ranks", msg);

	fill_sums(5);
	snprintf(sums[3].call[2].what, M890_META_WHAT, "barrier");
	st = m890_group_sum_check(N, sums, msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "call 2 is allreduce (202-byte records) at rank 0") &&
	   strstr(msg, "barrier (202) at rank 3"), "another call names the position and both", msg);

	fill_sums(5);
	sums[1].call[4].bytes++;
	st = m890_group_sum_check(N, sums, msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "call 4") && strstr(msg, "(205) at rank 1"),
	   "another record size of one call refused", msg);

	fill_sums(3);
	sums[2].status = M890_ERROR_OUT_OF_HOST_MEMORY;
	snprintf(sums[2].msg, sizeof(sums[2].msg), "cannot record the call");
	sums[2].ncalls = 0;
	st = m890_group_sum_check(N, sums, msg, sizeof(msg));
	ok(st == M890_ERROR_OUT_OF_HOST_MEMORY && strstr(msg, "rank 2 refused the group") &&
	   strstr(msg, "cannot record"), "a rank's refusal of its group comes first", msg);

	printf("1..%d\n", n_tests);
	return failed ? 1 : 0;
}
