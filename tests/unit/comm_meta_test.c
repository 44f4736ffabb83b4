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
 * process checks, since it depends on the records only.  Then the global
 * checks of all-to-all(v) and grouped send/recv (libm890/src/coll_check.c)
 * on hand-made records: refusals carried from a rank, unequal per-peer
 * sizes, count mismatches, ranges past a buffer with 64-bit values, and
 * the matching of sends with receives.  Prints TAP.
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

#define R 3

static unsigned char recs[R][4096];

/* Uniform all-to-all of @b bytes per peer between R ranks of 3b-byte buffers. */
static void a2a_fill(uint64_t b)
{
	memset(recs, 0, sizeof(recs));
	for (int j = 0; j < R; j++) {
		struct m890_a2a_rec *r = m890_a2a_rec_at(recs, R, j);

		r->per_peer = UINT64_MAX;
		r->send_bytes = r->recv_bytes = R * b;
		for (int k = 0; k < R; k++) {
			r->rows[k] = r->rows[2 * R + k] = b;
			r->rows[R + k] = r->rows[3 * R + k] = k * b;
		}
	}
}

static void test_a2a(void)
{
	struct m890_a2a_rec *r1 = m890_a2a_rec_at(recs, R, 1);
	char msg[400];
	m890_status_t st;

	ok(m890_a2a_rec_bytes(R) * R <= sizeof(recs) &&
	   m890_a2a_rec_bytes(64) <= M890_META_PAYLOAD,
	   "an all-to-all record of 64 ranks fits one metadata round", NULL);
	a2a_fill(64);
	st = m890_a2a_check(R, recs, "alltoallv", msg, sizeof(msg));
	ok(st == M890_SUCCESS, "uniform all-to-all accepted", msg);
	r1->status = M890_ERROR_DEVICE_MISMATCH;
	snprintf(r1->msg, sizeof(r1->msg), "its stream is on accel0");
	st = m890_a2a_check(R, recs, "alltoallv", msg, sizeof(msg));
	ok(st == M890_ERROR_DEVICE_MISMATCH && strstr(msg, "rank 1 refused") &&
	   strstr(msg, "accel0"), "a rank's local refusal, with its status, for everyone", msg);
	a2a_fill(64);
	for (int j = 0; j < R; j++)
		m890_a2a_rec_at(recs, R, j)->per_peer = 64;
	r1->per_peer = 32;
	st = m890_a2a_check(R, recs, "alltoall", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "rank 0 passes 64 bytes per peer, rank 1 32"),
	   "alltoall with another bytes_per_peer at rank 1", msg);
	a2a_fill(64);
	r1->rows[2 * R + 0] = 65;
	st = m890_a2a_check(R, recs, "alltoallv", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT &&
	   strstr(msg, "rank 0 sends 64 bytes to rank 1, which expects 65"),
	   "count mismatch names both ranks", msg);
	a2a_fill(64);
	m890_a2a_rec_at(recs, R, 0)->rows[R + 2] = (1ull << 32) + 64;
	st = m890_a2a_check(R, recs, "alltoallv", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "past its 192-byte send buffer"),
	   "send displacement 2^32 + 64 is past the buffer, not truncated", msg);
	a2a_fill(64);
	r1->rows[3 * R + 2] = UINT64_MAX - 8;
	st = m890_a2a_check(R, recs, "alltoallv", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "rank 1's slot for rank 2") &&
	   strstr(msg, "receive buffer"), "a wrapping receive displacement is refused", msg);
	a2a_fill(64);
	r1->rows[3 * R + 2] = 32;	/* rank 1's slot for 2 inside the one for 0 */
	st = m890_a2a_check(R, recs, "alltoallv", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT &&
	   strstr(msg, "rank 1's slots for rank 0 (64 bytes at 0) and rank 2 (64 bytes at 32) overlap"),
	   "overlapping receive blocks are refused, naming both", msg);
	a2a_fill(64);
	r1->rows[3 * R + 2] = 64;	/* the same slot as rank 1's own */
	st = m890_a2a_check(R, recs, "alltoallv", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "overlap"),
	   "two senders' blocks at one offset are refused", msg);
	a2a_fill(64);
	r1->rows[2 * R + 2] = 0;	/* an empty block may sit anywhere */
	m890_a2a_rec_at(recs, R, 2)->rows[1] = 0;
	r1->rows[3 * R + 2] = 0;
	st = m890_a2a_check(R, recs, "alltoallv", msg, sizeof(msg));
	ok(st == M890_SUCCESS, "an empty block at another block's offset is accepted", msg);
	a2a_fill(0);
	st = m890_a2a_check(R, recs, "alltoallv", msg, sizeof(msg));
	ok(st == M890_SUCCESS, "all-zero exchange with empty buffers accepted", msg);
}

static void test_group(void)
{
	struct m890_group_head h[R];
	struct m890_p2p_rec ops[R][4];
	const struct m890_p2p_rec *mt;
	uint64_t max = 0;
	char msg[400];
	m890_status_t st;

	memset(h, 0, sizeof(h));
	memset(ops, 0, sizeof(ops));
	/* 0 sends 10 then 20 bytes to 1; 1 receives both; 2 sends 5 to itself. */
	h[0].count = 2;
	ops[0][0] = (struct m890_p2p_rec){ M890_P2P_SEND, 1, 0, 0, 0, 10 };
	ops[0][1] = (struct m890_p2p_rec){ M890_P2P_SEND, 1, 0, 0, 100, 20 };
	h[1].count = 2;
	ops[1][0] = (struct m890_p2p_rec){ M890_P2P_RECV, 0, 3, 0, 64, 10 };
	ops[1][1] = (struct m890_p2p_rec){ M890_P2P_RECV, 0, 3, 0, 128, 20 };
	h[2].count = 2;
	ops[2][0] = (struct m890_p2p_rec){ M890_P2P_RECV, 2, 0, 0, 0, 5 };
	ops[2][1] = (struct m890_p2p_rec){ M890_P2P_SEND, 2, 0, 0, 8, 5 };
	st = m890_group_check_heads(R, h, "group_sendrecv", &max, msg, sizeof(msg));
	ok(st == M890_SUCCESS && max == 2, "heads accepted, longest list 2", msg);
	st = m890_group_check(R, h, &ops[0][0], 4, "group_sendrecv", msg, sizeof(msg));
	ok(st == M890_SUCCESS, "matched batch accepted", msg);
	mt = m890_group_match(R, h, &ops[0][0], 4, 0, 1, 1);
	ok(mt && mt->offset == 128 && mt->recv_index == 3,
	   "the second send of 0 to 1 lands at 1's second receive", NULL);
	ok(!m890_group_match(R, h, &ops[0][0], 4, 0, 1, 2), "no third match", NULL);
	ops[1][1].bytes = 21;
	st = m890_group_check(R, h, &ops[0][0], 4, "group_sendrecv", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT &&
	   strstr(msg, "transfer 1 from rank 0 to rank 1: 20 bytes sent, 21 expected"),
	   "size mismatch names the transfer and both ranks", msg);
	ops[1][1].bytes = 20;
	h[1].count = 1;
	st = m890_group_check(R, h, &ops[0][0], 4, "group_sendrecv", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT &&
	   strstr(msg, "rank 0 posts 2 send(s) to rank 1, which posts 1 receive(s)"),
	   "a missing receive names both ranks", msg);
	h[1].count = 2;
	ops[2][1].peer = 7;
	st = m890_group_check(R, h, &ops[0][0], 4, "group_sendrecv", msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "peer 7"), "a bad peer in a record", msg);
	h[2].status = M890_ERROR_INVALID_ARGUMENT;
	snprintf(h[2].msg, sizeof(h[2].msg), "overlaps (in place is not supported)");
	st = m890_group_check_heads(R, h, "group_sendrecv", &max, msg, sizeof(msg));
	ok(st == M890_ERROR_INVALID_ARGUMENT && strstr(msg, "rank 2 refused") &&
	   strstr(msg, "in place"), "a rank's refusal is everyone's", msg);
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

	test_a2a();
	test_group();
	printf("1..%d\n", n_tests);
	printf("%d passed, %d failed\n", n_tests - failed, failed);
	return failed ? 1 : 0;
}
