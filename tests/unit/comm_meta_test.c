// SPDX-License-Identifier: MIT
/*
 * DOC: host unit test of the collective metadata records
 *
 * The records that m890_comm_allgather_host() moves through the cards
 * (libm890/src/comm_meta.c): a header built and read back, the n records
 * of a round accepted when every rank sent the same collective and size,
 * and refused with INVALID_ARGUMENT naming both ranks (and fabric ids)
 * when one rank called another collective or passed another size, or
 * with SYSTEM when a record is stale (another round), misplaced (another
 * rank's) or not a record at all.  The message must be the same whichever
 * process checks, since it depends on the records only.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
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

static unsigned char slots[N][M890_META_SLOT];

static void fill(uint64_t round, const char *what, uint64_t bytes,
		 uint64_t off, uint32_t len)
{
	memset(slots, 0xa5, sizeof(slots));
	for (int j = 0; j < N; j++)
		m890_meta_hdr_init((struct m890_meta_hdr *)slots[j], round, what,
				   j, bytes, off, len);
}

static m890_status_t check(uint64_t round, const char *what, uint64_t off,
			   uint32_t len, const uint32_t *fids, char *msg)
{
	return m890_meta_check(N, slots, M890_META_SLOT, round, what, off, len,
			       fids, msg, 400);
}

int main(void)
{
	static const uint32_t fids[N] = { 10, 11, 12, 13, 40, 41, 42, 43 };
	struct m890_meta_hdr *h3 = (struct m890_meta_hdr *)slots[3];
	char msg[400], msg2[400];
	m890_status_t st;

	ok(sizeof(struct m890_meta_hdr) == 64, "header is 64 bytes", NULL);
	ok(M890_META_PAYLOAD == M890_META_SLOT - 64, "payload fills the slot", NULL);

	fill(7, "alltoallv", 2056, 0, 2056);
	st = check(7, "alltoallv", 0, 2056, NULL, msg);
	ok(st == M890_SUCCESS && !msg[0], "matching records of a round accepted", msg);

	fill(9, "a collective name longer than the field", 5000, 4032, 968);
	st = check(9, "a collective name longer than the field", 4032, 968, NULL, msg);
	ok(st == M890_SUCCESS, "long names are cut, still compared", msg);
	ok(((struct m890_meta_hdr *)slots[0])->what[M890_META_WHAT - 1] == 0,
	   "the name is NUL-terminated in the header", NULL);

	/* One rank called another collective: every process says the same. */
	fill(7, "alltoallv", 2056, 0, 2056);
	m890_meta_hdr_init(h3, 7, "grouped send/recv", 3, 16, 0, 16);
	st = check(7, "alltoallv", 0, 2056, NULL, msg);
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "rank 3") &&
	   strstr(msg, "grouped send/recv") && strstr(msg, "rank 0"),
	   "another collective at rank 3: INVALID_ARGUMENT naming ranks 0 and 3", msg);
	/* The same records checked by rank 3's process (its own call). */
	st = check(7, "grouped send/recv", 0, 16, NULL, msg2);
	ok(st == M890_ERROR_INVALID_ARGUMENT &&
	   !strcmp(strchr(msg, ':'), strchr(msg2, ':')),
	   "rank 3's process gets the same message", msg2);

	/* Same collective, another size, with fabric ids. */
	fill(8, "alltoall", 96, 0, 96);
	m890_meta_hdr_init((struct m890_meta_hdr *)slots[5], 8, "alltoall", 5, 104, 0, 104);
	st = check(8, "alltoall", 0, 96, fids, msg);
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "rank 5 (fabric id 41)") &&
	   strstr(msg, "rank 0 (fabric id 10)") && strstr(msg, "104"),
	   "another size at rank 5: named with its fabric id", msg);

	/* Rank 0 is the odd one: every other rank is named against it. */
	fill(8, "alltoall", 96, 0, 96);
	m890_meta_hdr_init((struct m890_meta_hdr *)slots[0], 8, "alltoallv", 0, 96, 0, 96);
	st = check(8, "alltoall", 0, 96, NULL, msg);
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "rank 1"),
	   "another collective at rank 0: the first disagreeing rank is named", msg);

	/* Stale, misplaced and garbage records. */
	fill(11, "alltoallv", 100, 0, 100);
	h3->round = 9;
	st = check(11, "alltoallv", 0, 100, NULL, msg);
	ok(st == M890_ERROR_SYSTEM && strstr(msg, "rank 3") && strstr(msg, "out of step"),
	   "a record of an older round: SYSTEM, out of step", msg);
	fill(11, "alltoallv", 100, 0, 100);
	h3->rank = 4;
	st = check(11, "alltoallv", 0, 100, NULL, msg);
	ok(st == M890_ERROR_SYSTEM && strstr(msg, "rank 3"), "a record in another rank's slot", msg);
	fill(11, "alltoallv", 100, 0, 100);
	memset(slots[6], 0, sizeof(slots[6]));
	st = check(11, "alltoallv", 0, 100, fids, msg);
	ok(st == M890_ERROR_SYSTEM && strstr(msg, "rank 6 (fabric id 42)"),
	   "a zeroed slot is no record", msg);
	fill(11, "alltoallv", 9000, 4032, 4032);
	st = check(11, "alltoallv", 0, 4032, NULL, msg);
	ok(st == M890_ERROR_SYSTEM, "a piece at another offset: out of step", msg);

	/* Zero-byte contributions are legal. */
	fill(12, "barrier", 0, 0, 0);
	st = check(12, "barrier", 0, 0, NULL, msg);
	ok(st == M890_SUCCESS, "zero-byte records", msg);

	printf("1..%d\n", n_tests);
	printf("%d passed, %d failed\n", n_tests - failed, failed);
	return failed ? 1 : 0;
}
