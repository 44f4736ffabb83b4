// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 communicator and all-to-all tests (guest)
 *
 * One communicator over every card of the guest: all-to-all of odd-sized
 * blocks, the same split into small COPY chunks, 64-bit counts and
 * displacements (2^31, 2^32 + x, wrapping) refused without harm, a buffer
 * larger than the HBM refused, grouped send/recv (skewed, zero, reordered,
 * unmatched, mismatched, in place), several collectives in a row, all-to-allv with skewed and zero
 * counts and gaps between the slots, all-zero counts; the refused calls
 * (count mismatch, in place, range past a buffer, wrong card, bad config);
 * a rank that never joins, reported as a timeout naming it, sticky
 * afterwards; and abort releasing the waiting ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv_param.h"
#include "tap.h"

#define MAXN 64
#define BUFSZ (2u << 20)	/* the skewed alltoallv of 64 cards fits */

static int n;
static m890_device_t dev[MAXN];
static m890_stream_t str[MAXN];
static m890_buffer_t sb[MAXN], rb[MAXN], hb[MAXN];
static uint8_t *hp[MAXN];
static uint64_t sc[MAXN * MAXN], sd[MAXN * MAXN], rc[MAXN * MAXN], rd[MAXN * MAXN];

static uint8_t pat(int from, int to, uint64_t off, int round)
{
	return (uint8_t)(from * 31 + to * 7 + off * 13 + (off >> 8) + round * 101 + 1);
}

/* Upload rank i's send data: block j at sd[i][j] of sc[i][j] bytes. */
static void upload(int round)
{
	for (int i = 0; i < n; i++) {
		memset(hp[i], 0, BUFSZ);
		for (int j = 0; j < n; j++) {
			if (sd[i * n + j] + sc[i * n + j] > BUFSZ ||
			    rd[j * n + i] + rc[j * n + i] > BUFSZ) {
				printf("Bail out! round %d: rank %d's block for rank %d does not fit the %u-byte test buffers\n",
				       round, i, j, BUFSZ);
				exit(1);
			}
		}
		for (int j = 0; j < n; j++)
			for (uint64_t o = 0; o < sc[i * n + j]; o++)
				hp[i][sd[i * n + j] + o] = pat(i, j, o, round);
		TAP_REQUIRE(m890_memcpy_htod(str[i], sb[i], 0, hb[i], 0, BUFSZ));
		TAP_REQUIRE(m890_stream_synchronize(str[i]));
	}
	for (int i = 0; i < n; i++) {
		uint64_t va;

		m890_buffer_va(rb[i], &va);
		TAP_REQUIRE(m890_memset32(str[i], va, 0xeeeeeeee, BUFSZ));
		TAP_REQUIRE(m890_stream_synchronize(str[i]));
	}
}

/* Every slot holds its sender's block, everything else the poison. */
static int verify(int round, const char *what)
{
	static uint8_t mark[BUFSZ];
	int good = 1;

	for (int j = 0; j < n; j++) {
		TAP_REQUIRE(m890_memcpy_dtoh(str[j], hb[j], 0, rb[j], 0, BUFSZ));
		TAP_REQUIRE(m890_stream_synchronize(str[j]));
		memset(mark, 0, sizeof(mark));
		for (int i = 0; i < n && good; i++)
			for (uint64_t o = 0; o < rc[j * n + i]; o++) {
				uint64_t at = rd[j * n + i] + o;

				mark[at] = 1;
				if (hp[j][at] != pat(i, j, o, round)) {
					printf("# %s: rank %d slot of rank %d offset %llu: 0x%02x, want 0x%02x\n",
					       what, j, i, (unsigned long long)o,
					       hp[j][at], pat(i, j, o, round));
					good = 0;
					break;
				}
			}
		for (uint64_t at = 0; at < BUFSZ && good; at++)
			if (!mark[at] && hp[j][at] != 0xee) {
				printf("# %s: rank %d byte %llu outside every slot changed\n",
				       what, j, (unsigned long long)at);
				good = 0;
			}
	}
	return tap_ok(good, "%s: every block in place on %d cards", what, n);
}

static void set_uniform(uint64_t b)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			sc[i * n + j] = rc[i * n + j] = b;
			sd[i * n + j] = rd[i * n + j] = (uint64_t)j * b;
		}
}

/* Block the stream of @rank behind a wait on a host word the CPU sets. */
static void block_rank(int rank, m890_buffer_t gate, volatile uint64_t *word)
{
	uint64_t va;

	*word = 0;
	m890_buffer_va(gate, &va);
	TAP_REQUIRE(m890_wait(str[rank], va, 1, M890_SEM_GE));
}

static void sync_all(m890_status_t *first)
{
	*first = M890_SUCCESS;
	for (int i = 0; i < n; i++) {
		m890_status_t st = m890_stream_synchronize(str[i]);

		if (st && !*first)
			*first = st;
	}
}

int main(void)
{
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	m890_comm_t comm, c2;
	m890_buffer_t gate;
	volatile uint64_t *gword;
	m890_status_t st, err;
	char want[64];
	void *p;
	int cnt;

	TAP_REQUIRE(m890_device_count(&n));
	if (n > MAXN)
		n = MAXN;
	for (int i = 0; i < n; i++) {
		TAP_REQUIRE(m890_device_open(i, &dev[i]));
		TAP_REQUIRE(m890_stream_create(dev[i], &str[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], BUFSZ, M890_MEM_HBM, &sb[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], BUFSZ, M890_MEM_HBM, &rb[i]));
		TAP_REQUIRE(m890_buffer_alloc(dev[i], BUFSZ, M890_MEM_HOST, &hb[i]));
		TAP_REQUIRE(m890_buffer_map(hb[i], &p));
		hp[i] = p;
	}

	cfg.version = 99;
	TAP_STATUS(m890_comm_create(dev, n, &cfg, &comm), M890_ERROR_INVALID_ARGUMENT);
	cfg.version = M890_COMM_CONFIG_VERSION;
	TAP_STATUS(m890_comm_create(dev, 0, &cfg, &comm), M890_ERROR_INVALID_ARGUMENT);
	if (n > 1) {
		m890_device_t twice[2] = { dev[0], dev[0] };

		TAP_STATUS(m890_comm_create(twice, 2, NULL, &comm),
			   M890_ERROR_INVALID_ARGUMENT);
	}
	TAP_REQUIRE(m890_comm_create(dev, n, &cfg, &comm));
	TAP_STATUS(m890_comm_count(comm, &cnt), M890_SUCCESS);
	tap_ok(cnt == n, "communicator of %d ranks", n);

	/* all-to-all of odd-sized blocks. */
	set_uniform(4099);
	upload(0);
	TAP_STATUS(m890_alltoall(comm, sb, rb, 4099, str), M890_SUCCESS);
	TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
	verify(0, "alltoall 4099 bytes per peer");

	/* Blocks split into many COPY packets give the same data. */
	{
		struct m890_comm_config cc = M890_COMM_CONFIG_INIT;
		m890_comm_t chunked;

		cc.chunk_bytes = 1000;
		TAP_REQUIRE(m890_comm_create(dev, n, &cc, &chunked));
		set_uniform(BUFSZ / n - 5);
		upload(7);
		TAP_STATUS(m890_alltoall(chunked, sb, rb, BUFSZ / n - 5, str), M890_SUCCESS);
		TAP_STATUS(m890_comm_synchronize(chunked, str), M890_SUCCESS);
		verify(7, "alltoall in 1000-byte chunks");
		TAP_REQUIRE(m890_comm_destroy(chunked));
	}

	/*
	 * 64-bit counts and displacements: values that a 32-bit truncation
	 * would make valid (2^32 + 64) must be refused as past the buffer,
	 * so must 2^31-byte counts and a displacement that wraps; nothing is
	 * enqueued and the communicator stays usable.
	 */
	{
		int j = n > 1 ? 1 : 0;
		const struct { uint64_t cnt, off; const char *what; } big[] = {
			{ 64, (1ull << 32) + 64, "displacement 2^32 + 64" },
			{ 1ull << 31, 0, "count 2^31" },
			{ (1ull << 32) + 16, 0, "count 2^32 + 16" },
			{ 64, UINT64_MAX - 8, "displacement 2^64 - 8 (wraps)" },
		};
		m890_buffer_t huge;

		for (size_t b = 0; b < sizeof(big) / sizeof(big[0]); b++) {
			set_uniform(64);
			sc[0 * n + j] = rc[j * n + 0] = big[b].cnt;
			if (big[b].off)
				sd[0 * n + j] = big[b].off;
			st = m890_alltoallv(comm, sb, sc, sd, rb, rc, rd, str);
			tap_ok(st == M890_ERROR_INVALID_ARGUMENT &&
			       strstr(m890_get_last_error(), "past its"),
			       "alltoallv with %s refused: %s", big[b].what,
			       m890_get_last_error());
		}
		TAP_STATUS(m890_alltoall(comm, sb, rb, UINT64_MAX / 2, str),
			   M890_ERROR_INVALID_ARGUMENT);
		TAP_STATUS(m890_alltoall(comm, sb, rb, ((1ull << 32) + 64) / n, str),
			   M890_ERROR_INVALID_ARGUMENT);
		st = m890_buffer_alloc(dev[0], (1ull << 32) + 4096, M890_MEM_HBM, &huge);
		if (st == M890_SUCCESS) {
			tap_skip("the card has more than 4 GiB of HBM",
				 "a 2^32 + 4096-byte buffer is refused");
			m890_buffer_free(huge);
		} else {
			tap_ok(st == M890_ERROR_OUT_OF_DEVICE_MEMORY,
			       "a 2^32 + 4096-byte HBM buffer is refused cleanly: %s",
			       m890_get_last_error());
		}
		set_uniform(4099);
		upload(8);
		TAP_STATUS(m890_alltoall(comm, sb, rb, 4099, str), M890_SUCCESS);
		TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
		verify(8, "alltoall after the refused sizes");
	}

	/* Grouped send/recv: one block per pair, skewed sizes, zeros,
	 * operations listed receives first and in reverse order. */
	{
		static struct m890_p2p ops[2 * MAXN * MAXN];
		size_t m = 0;
		uint64_t so, ro;

		for (int i = 0; i < n; i++) {
			so = 0;
			for (int j = 0; j < n; j++) {
				sc[i * n + j] = (uint64_t)((i * 7 + j * 13) % 5) * 1000 +
						(j == (i + 1) % n ? 4099 : 0);
				sd[i * n + j] = so;
				so += sc[i * n + j];
			}
		}
		for (int j = 0; j < n; j++) {
			ro = 0;
			for (int i = 0; i < n; i++) {
				rc[j * n + i] = sc[i * n + j];
				rd[j * n + i] = ro + 64;
				ro += rc[j * n + i] + 64;
			}
		}
		upload(9);
		for (int j = n - 1; j >= 0; j--)
			for (int i = n - 1; i >= 0; i--)
				ops[m++] = (struct m890_p2p){ .kind = M890_P2P_RECV,
					.rank = j, .peer = i, .buffer = rb[j],
					.offset = rd[j * n + i], .bytes = rc[j * n + i] };
		for (int i = n - 1; i >= 0; i--)
			for (int j = n - 1; j >= 0; j--)
				ops[m++] = (struct m890_p2p){ .kind = M890_P2P_SEND,
					.rank = i, .peer = j, .buffer = sb[i],
					.offset = sd[i * n + j], .bytes = sc[i * n + j] };
		TAP_STATUS(m890_group_sendrecv(comm, ops, m, str), M890_SUCCESS);
		TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
		verify(9, "grouped send/recv, skewed sizes and zeros");
		TAP_STATUS(m890_group_sendrecv(comm, ops, 0, str), M890_SUCCESS);
		TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);

		/* A send without its receive, then sizes that differ. */
		ops[0] = (struct m890_p2p){ .kind = M890_P2P_SEND, .rank = 0,
			.peer = n - 1, .buffer = sb[0], .offset = 0, .bytes = 64 };
		st = m890_group_sendrecv(comm, ops, 1, str);
		tap_ok(st == M890_ERROR_INVALID_ARGUMENT &&
		       strstr(m890_get_last_error(), "posts 1 send(s)"),
		       "a send without a receive is refused: %s", m890_get_last_error());
		ops[1] = (struct m890_p2p){ .kind = M890_P2P_RECV, .rank = n - 1,
			.peer = 0, .buffer = rb[n - 1], .offset = 0, .bytes = 65 };
		st = m890_group_sendrecv(comm, ops, 2, str);
		tap_ok(st == M890_ERROR_INVALID_ARGUMENT &&
		       strstr(m890_get_last_error(), "64 bytes sent, 65 expected"),
		       "a size mismatch is refused: %s", m890_get_last_error());
		/* In place: the receive range overlaps the send range. */
		ops[1].bytes = 64;
		ops[1].buffer = ops[0].buffer = rb[n - 1];
		ops[0].rank = n - 1;
		ops[0].peer = n - 1;
		ops[1].peer = n - 1;
		ops[1].offset = 32;
		st = m890_group_sendrecv(comm, ops, 2, str);
		tap_ok(st == M890_ERROR_INVALID_ARGUMENT &&
		       strstr(m890_get_last_error(), "in place"),
		       "an overlapping (in-place) receive is refused: %s",
		       m890_get_last_error());
	}

	/* Three in a row without waiting in between; the last one counts. */
	set_uniform(1000);
	upload(1);
	for (int k = 0; k < 3; k++)
		TAP_STATUS(m890_alltoall(comm, sb, rb, 1000, str), M890_SUCCESS);
	TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
	verify(1, "three alltoalls back to back");

	/* all-to-allv: skewed counts, zeros, gaps between slots. */
	for (int i = 0; i < n; i++) {
		uint64_t so = 5, ro = 3;

		for (int j = 0; j < n; j++) {
			uint64_t b = (i + 2 * j) % 4 == 1 ? 0 :
				     ((uint64_t)(i * 5 + j * 3) % 7) * 911 + (i == 0 ? 20000 : 1);

			sc[i * n + j] = b;
			sd[i * n + j] = so;
			so += b + 17;
		}
		for (int j = 0; j < n; j++) {
			uint64_t b = ((uint64_t)(j + 2 * i) % 4 == 1) ? 0 :
				     ((uint64_t)(j * 5 + i * 3) % 7) * 911 + (j == 0 ? 20000 : 1);

			rc[i * n + j] = b;
			rd[i * n + j] = ro;
			ro += b + 9;
		}
	}
	upload(2);
	TAP_STATUS(m890_alltoallv(comm, sb, sc, sd, rb, rc, rd, str), M890_SUCCESS);
	TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
	verify(2, "alltoallv skewed and zero counts with gaps");

	/* All counts zero: legal, nothing written. */
	set_uniform(0);
	upload(3);
	TAP_STATUS(m890_alltoallv(comm, sb, sc, sd, rb, rc, rd, str), M890_SUCCESS);
	TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
	verify(3, "alltoallv with every count zero");

	/* Refused calls enqueue nothing and leave the communicator usable. */
	set_uniform(64);
	if (n > 1) {
		m890_stream_t swapped = str[0];

		rc[1 * n + 0] = 65;
		TAP_STATUS(m890_alltoallv(comm, sb, sc, sd, rb, rc, rd, str),
			   M890_ERROR_INVALID_ARGUMENT);
		tap_ok(strstr(m890_get_last_error(), "rank 0 sends 64 bytes to rank 1, which expects 65") != NULL,
		       "count mismatch names both ranks: %s", m890_get_last_error());
		rc[1 * n + 0] = 64;
		/* Rank 0's slots for ranks 0 and 1 overlap by one byte. */
		rd[0 * n + 1] = 63;
		TAP_STATUS(m890_alltoallv(comm, sb, sc, sd, rb, rc, rd, str),
			   M890_ERROR_INVALID_ARGUMENT);
		tap_ok(strstr(m890_get_last_error(),
			      "rank 0's slots for rank 0 (64 bytes at 0) and rank 1 (64 bytes at 63) overlap") != NULL,
		       "overlapping receive blocks are refused, naming them: %s",
		       m890_get_last_error());
		rd[0 * n + 1] = 64;
		str[0] = str[1];
		TAP_STATUS(m890_alltoall(comm, sb, rb, 64, str), M890_ERROR_DEVICE_MISMATCH);
		str[0] = swapped;
	}
	TAP_STATUS(m890_alltoall(comm, sb, sb, 64, str), M890_ERROR_INVALID_ARGUMENT);
	tap_ok(strstr(m890_get_last_error(), "in-place") != NULL,
	       "in place is refused clearly: %s", m890_get_last_error());
	TAP_STATUS(m890_alltoall(comm, sb, rb, BUFSZ, str),
		   n > 1 ? M890_ERROR_INVALID_ARGUMENT : M890_SUCCESS);
	TAP_STATUS(m890_alltoall(comm, NULL, rb, 64, str), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
	upload(4);
	TAP_STATUS(m890_alltoall(comm, sb, rb, 64, str), M890_SUCCESS);
	TAP_STATUS(m890_comm_synchronize(comm, str), M890_SUCCESS);
	verify(4, "alltoall after refused calls");
	TAP_STATUS(m890_comm_destroy(comm), M890_SUCCESS);
	TAP_STATUS(m890_comm_destroy(comm), M890_ERROR_INVALID_HANDLE);

	TAP_REQUIRE(m890_buffer_alloc(dev[n - 1], 4096, M890_MEM_HOST, &gate));
	TAP_REQUIRE(m890_buffer_map(gate, &p));
	gword = p;
	if (n > 1) {
		char old_jt[32];

		/*
		 * The last rank never joins: a timeout naming it.  The other
		 * ranks' WAITs for it start as each rank is enqueued, which on
		 * 64 emulated cards takes seconds: the driver's job timeout
		 * (5 s by default) is raised here so that the communicator's
		 * own timeout, counted from the synchronize, is what fires.
		 */
		tap_ok(job_timeout(old_jt, sizeof(old_jt), "60000"),
		       "driver job timeout raised to 60 s (was %s ms)", old_jt);
		cfg.timeout_ns = 5000000000ull;
		TAP_REQUIRE(m890_comm_create(dev, n, &cfg, &c2));
		block_rank(n - 1, gate, gword);
		TAP_STATUS(m890_alltoall(c2, sb, rb, 64, str), M890_SUCCESS);
		TAP_STATUS(m890_comm_synchronize(c2, str), M890_ERROR_TIMEOUT);
		snprintf(want, sizeof(want), "waiting for rank %d to join", n - 1);
		tap_ok(strstr(m890_get_last_error(), want) && strstr(m890_get_last_error(), "rank 0"),
		       "timeout names the missing peer: %s", m890_get_last_error());
		TAP_STATUS(m890_comm_get_async_error(c2, &err), M890_SUCCESS);
		tap_ok(err == M890_ERROR_TIMEOUT, "the timeout is sticky");
		TAP_STATUS(m890_alltoall(c2, sb, rb, 64, str), M890_ERROR_TIMEOUT);
		*gword = 1;	/* the rank joins late: everything completes */
		sync_all(&st);
		tap_ok(st == M890_SUCCESS, "late rank completes the collective (%s)",
		       m890_status_string(st));
		TAP_STATUS(m890_comm_destroy(c2), M890_SUCCESS);

		/* Abort releases ranks waiting for a peer that never comes. */
		TAP_REQUIRE(m890_comm_create(dev, n, NULL, &c2));
		block_rank(n - 1, gate, gword);
		TAP_STATUS(m890_alltoall(c2, sb, rb, 64, str), M890_SUCCESS);
		TAP_STATUS(m890_comm_abort(c2), M890_SUCCESS);
		st = M890_SUCCESS;
		for (int i = 0; i < n - 1; i++)
			if (!st)
				st = m890_stream_synchronize(str[i]);
		tap_ok(st == M890_SUCCESS, "abort released the waiting ranks (%s)",
		       m890_status_string(st));
		*gword = 1;
		TAP_STATUS(m890_stream_synchronize(str[n - 1]), M890_SUCCESS);
		TAP_STATUS(m890_comm_get_async_error(c2, &err), M890_SUCCESS);
		tap_ok(err == M890_ERROR_CANCELED, "aborted communicator reports CANCELED");
		TAP_STATUS(m890_alltoall(c2, sb, rb, 64, str), M890_ERROR_CANCELED);
		TAP_STATUS(m890_comm_destroy(c2), M890_SUCCESS);
		tap_ok(job_timeout(NULL, 0, old_jt), "driver job timeout restored to %s ms", old_jt);
	}
	TAP_STATUS(m890_buffer_free(gate), M890_SUCCESS);

	/* The communicator's windows and areas are gone: devices close. */
	for (int i = 0; i < n; i++) {
		TAP_STATUS(m890_stream_destroy(str[i]), M890_SUCCESS);
		m890_buffer_free(sb[i]);
		m890_buffer_free(rb[i]);
		m890_buffer_free(hb[i]);
	}
	for (int i = 0; i < n; i++)
		TAP_STATUS(m890_device_close(dev[i]), M890_SUCCESS);
	return tap_done();
}
