// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 per-rank communicator stress and hazard tests (guest)
 *
 * One process per card, as test_mproc.c, on two communicators over the
 * same cards (A and B, joined through two sockets):
 *
 * - registration order that differs between processes: on A the even
 *   ranks register buffers X then Y, the odd ranks Y then X, so one
 *   receive buffer has another registration number at each rank; an
 *   all-to-all into X and one into Y must land every byte;
 * - many consecutive collectives (stress_iters(): 1100 up to 4 cards,
 *   so the metadata rounds and both parities wrap many times) used alternately
 *   on A and B: all-to-all of 0 bytes, an all-zero alltoallv, a grouped
 *   send/recv with no operation, and an all-to-all whose every byte is
 *   checked now and then;
 * - mismatches that every rank must refuse: 0 bytes per peer at rank 0
 *   and 64 elsewhere, a grouped send/recv at rank 0 while the others run
 *   an alltoallv;
 * - m890_comm_abort() from a second thread while the main thread blocks
 *   in B's metadata exchange (the last rank is late): the blocked call
 *   returns M890_ERROR_CANCELED promptly; the late rank then fails
 *   cleanly (never a success);
 * - the last rank killed (SIGKILL) while it blocks in A's metadata
 *   exchange, before any peer joined it (the others wait for EOF on a
 *   pipe only that rank holds open): the others fail (timeout naming it,
 *   or a fault) and never report a completed collective.
 *
 * Each child reports a bit mask through a pipe; the parent prints one
 * TAP line per check and rank.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "coll_checks.h"

#define MAXN 64
#define BLOCK 4099u		/* odd, crosses a page */
/*
 * Collectives over A and B together: 1100 up to 4 cards (the collective
 * suite of make check runs 4), fewer on more cards, where each costs
 * about n^2 copies on the two vCPUs of the guest (8 cards: 275).
 */
#define STRESS_ITERS 1100
static int stress_iters(int n)
{
	return n <= 4 ? STRESS_ITERS : STRESS_ITERS * 16 / (n * n) + 1;
}

#define NCHECK 10

/* Held open for writing by the last rank only: EOF once it is dead. */
static int gate[2];

static const char *const check_name[NCHECK] = {
	"joins two communicators on the same cards",
	"registration order differing between processes: every byte in place",
	"%d alternating collectives on two communicators (0 bytes, all-zero, no ops, data)",
	"0 bytes per peer at rank 0 only: the same error at every rank",
	"another collective kind at rank 0: the same error at every rank",
	"all-to-all after the refusals: every byte in place",
	"abort from another thread releases a blocked metadata exchange",
	"the late rank after its peers aborted: fails, never succeeds",
	"a peer killed inside the metadata exchange: clean failure naming it",
	"abort and destroy after the failures",
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct ctx {
	int n, me;
	m890_device_t dev;
	m890_stream_t str;
	m890_buffer_t sb, hb;
	uint8_t *hp;
};

/* All-to-all of @b bytes per peer into @rb on @comm, every byte checked. */
static int a2a_check(struct ctx *c, m890_comm_t comm, m890_buffer_t rb,
		     uint64_t b, int round)
{
	const struct cc_rank r = { .rank = c->me, .dev = c->dev, .str = c->str,
				   .sb = c->sb, .rb = rb, .hb = c->hb, .hp = c->hp };

	return cc_a2a_rank(&r, comm, c->n, rb, b, round);
}

static int expect(m890_status_t st, m890_status_t want, const char *what, int me)
{
	if (st == want)
		return 1;
	printf("# rank %d %s: %s, expected %s: %s\n", me, what,
	       m890_status_string(st), m890_status_string(want),
	       m890_get_last_error());
	return 0;
}

struct aborter {
	m890_comm_t comm;
	unsigned int delay_ms;
	m890_status_t st;
};

static void *abort_later(void *arg)
{
	struct aborter *a = arg;

	usleep(a->delay_ms * 1000u);
	a->st = m890_comm_abort(a->comm);
	if (a->st)
		printf("# abort thread: %s\n", m890_get_last_error());
	return NULL;
}

static void *kill_self_later(void *arg)
{
	usleep(*(unsigned int *)arg * 1000u);
	fflush(stdout);
	kill(getpid(), SIGKILL);
	return NULL;
}

static unsigned int child(int me, int n, const char *pa, const char *pb, int out)
{
	struct m890_comm_config ca = M890_COMM_CONFIG_INIT, cb = M890_COMM_CONFIG_INIT;
	struct ctx c = { .n = n, .me = me };
	uint64_t total = (uint64_t)BLOCK * n;
	static uint64_t zero[MAXN];
	m890_buffer_t x, y, rbb;
	m890_comm_t a, b;
	unsigned int ok = 0;
	int last = me == n - 1;
	void *p;

	ca.timeout_ns = 4000000000ull;
	cb.timeout_ns = 8000000000ull;
	if (m890_device_open(me, &c.dev) || m890_stream_create(c.dev, &c.str) ||
	    m890_buffer_alloc(c.dev, total, M890_MEM_HBM, &c.sb) ||
	    m890_buffer_alloc(c.dev, total, M890_MEM_HBM, &x) ||
	    m890_buffer_alloc(c.dev, total / 2, M890_MEM_HBM, &y) ||
	    m890_buffer_alloc(c.dev, total, M890_MEM_HBM, &rbb) ||
	    m890_buffer_alloc(c.dev, total, M890_MEM_HOST, &c.hb) ||
	    m890_buffer_map(c.hb, &p)) {
		printf("# rank %d setup: %s\n", me, m890_get_last_error());
		return 0;
	}
	c.hp = p;
	if (m890_comm_create_rank(c.dev, me, n, pa, &ca, &a) ||
	    m890_comm_create_rank(c.dev, me, n, pb, &cb, &b)) {
		printf("# rank %d create: %s\n", me, m890_get_last_error());
		return 0;
	}
	ok |= 1u << 0;

	/* Even ranks register X, Y; odd ranks Y, X. */
	if ((me & 1 ? m890_comm_register(a, y) || m890_comm_register(a, x) :
		      m890_comm_register(a, x) || m890_comm_register(a, y)) ||
	    m890_comm_register(b, rbb)) {
		printf("# rank %d register: %s\n", me, m890_get_last_error());
	} else {
		ok |= (unsigned int)(a2a_check(&c, a, x, BLOCK, 1) &
				     a2a_check(&c, a, y, BLOCK / 2, 2) &
				     a2a_check(&c, a, x, 96, 3)) << 1;
	}

	{
		int64_t t0 = now_ms();
		int good = 1, it;

		for (it = 0; it < stress_iters(n) && good; it++) {
			m890_comm_t cm = it & 1 ? b : a;
			m890_buffer_t rb = it & 1 ? rbb : x;
			m890_status_t st = M890_SUCCESS;

			switch ((it >> 1) % 4) {
			case 0:
				st = m890_alltoall_rank(cm, c.sb, rb, 0, c.str);
				break;
			case 1:
				st = m890_alltoallv(cm, &c.sb, zero, zero, &rb, zero,
						    zero, &c.str);
				break;
			case 2:
				st = m890_group_sendrecv(cm, NULL, 0, &c.str);
				break;
			default:
				if (it % 64 == 7)
					good = a2a_check(&c, cm, rb, 64 + it % 5, it);
				else
					st = m890_alltoall_rank(cm, c.sb, rb, 32, c.str);
				break;
			}
			if (!st && it % 16 == 15)
				st = m890_comm_synchronize(cm, &c.str);
			if (st) {
				printf("# rank %d iteration %d: %s\n", me, it,
				       m890_get_last_error());
				good = 0;
			}
		}
		if (good && (m890_comm_synchronize(a, &c.str) ||
			     m890_comm_synchronize(b, &c.str)))
			good = 0;
		if (me == 0)
			printf("# %d collectives in %lld ms\n", it,
			       (long long)(now_ms() - t0));
		ok |= (unsigned int)good << 2;
	}

	ok |= (unsigned int)expect(m890_alltoall_rank(a, c.sb, x, me ? 64 : 0, c.str),
				   M890_ERROR_INVALID_ARGUMENT, "0 bytes at rank 0", me) << 3;
	ok |= (unsigned int)expect(me ? m890_alltoallv(a, &c.sb, zero, zero, &x, zero,
						       zero, &c.str) :
				   m890_group_sendrecv(a, NULL, 0, &c.str),
				   M890_ERROR_INVALID_ARGUMENT, "another kind at rank 0", me) << 4;
	ok |= (unsigned int)a2a_check(&c, a, x, 200, 4) << 5;

	/* Abort B from a thread while the main thread waits for the last rank. */
	if (!last) {
		struct aborter ab = { b, 1000, M890_SUCCESS };
		pthread_t t;
		m890_status_t st;
		int64_t t0 = now_ms(), dt;

		if (pthread_create(&t, NULL, abort_later, &ab) == 0) {
			st = m890_alltoall_rank(b, c.sb, rbb, 64, c.str);
			if (!st)
				st = m890_comm_synchronize(b, &c.str);
			dt = now_ms() - t0;
			pthread_join(t, NULL);
			if (st == M890_ERROR_CANCELED && ab.st == M890_SUCCESS &&
			    dt < 6000 && m890_stream_synchronize(c.str) == M890_SUCCESS)
				ok |= 1u << 6;
			else
				printf("# rank %d abort thread: %s after %lld ms: %s\n", me,
				       m890_status_string(st), (long long)dt,
				       m890_get_last_error());
		}
		ok |= 1u << 7;
	} else {
		m890_status_t st;

		ok |= 1u << 6;
		usleep(3000000);
		st = m890_alltoall_rank(b, c.sb, rbb, 64, c.str);
		if (!st)
			st = m890_comm_synchronize(b, &c.str);
		if (st != M890_SUCCESS)
			ok |= 1u << 7;
		else
			printf("# rank %d: the late collective succeeded\n", me);
		m890_comm_abort(b);
	}

	/* A: the last rank dies inside the metadata exchange. */
	if (last) {
		static unsigned int delay = 1500;
		pthread_t t;

		if (write(out, &ok, sizeof(ok)) != sizeof(ok))
			_exit(2);
		fflush(stdout);
		if (pthread_create(&t, NULL, kill_self_later, &delay) == 0) {
			int64_t t0 = now_ms();
			m890_status_t st = m890_alltoall_rank(a, c.sb, x, 64, c.str);

			/* Not reached while the exchange blocks. */
			printf("# rank %d: the exchange returned %s after %lld ms: %s\n",
			       me, m890_status_string(st), (long long)(now_ms() - t0),
			       m890_get_last_error());
			fflush(stdout);
		}
		_exit(3);
	} else {
		m890_status_t st;
		char want[32];
		int64_t t0;

		char byte;

		/* Until the last rank died inside its exchange. */
		while (read(gate[0], &byte, 1) > 0)
			;
		t0 = now_ms();
		st = m890_alltoall_rank(a, c.sb, x, 64, c.str);
		if (!st)
			st = m890_comm_synchronize(a, &c.str);
		snprintf(want, sizeof(want), "rank %d", n - 1);
		if ((st == M890_ERROR_TIMEOUT || st == M890_ERROR_DEVICE_FAULT) &&
		    strstr(m890_get_last_error(), want) && now_ms() - t0 < 15000)
			ok |= 1u << 8;
		else
			printf("# rank %d killed peer: %s: %s\n", me,
			       m890_status_string(st), m890_get_last_error());
	}
	m890_comm_abort(a);
	if (m890_stream_synchronize(c.str) == M890_SUCCESS &&
	    m890_alltoall_rank(a, c.sb, x, 64, c.str) != M890_SUCCESS &&
	    m890_comm_destroy(a) == M890_SUCCESS && m890_comm_destroy(b) == M890_SUCCESS &&
	    m890_buffer_free(x) == M890_SUCCESS && m890_buffer_free(y) == M890_SUCCESS &&
	    m890_buffer_free(rbb) == M890_SUCCESS && m890_buffer_free(c.sb) == M890_SUCCESS &&
	    m890_buffer_free(c.hb) == M890_SUCCESS &&
	    m890_stream_destroy(c.str) == M890_SUCCESS &&
	    m890_device_close(c.dev) == M890_SUCCESS)
		ok |= 1u << 9;
	else
		printf("# rank %d teardown: %s\n", me, m890_get_last_error());
	return ok;
}

int main(void)
{
	pid_t pid[MAXN];
	int n, fdp[MAXN][2];
	char pa[64], pb[64];

	if (m890_device_count(&n) || n < 2) {
		tap_skip("needs two cards", "per-rank stress");
		return tap_done();
	}
	if (n > MAXN)
		n = MAXN;
	snprintf(pa, sizeof(pa), "/tmp/m890-rstress-a-%d.sock", (int)getpid());
	snprintf(pb, sizeof(pb), "/tmp/m890-rstress-b-%d.sock", (int)getpid());
	fflush(stdout);
	if (pipe(gate))
		return 1;
	for (int i = 0; i < n; i++) {
		if (pipe(fdp[i]))
			return 1;
		pid[i] = fork();
		if (pid[i] == 0) {
			unsigned int ok;

			close(fdp[i][0]);
			close(gate[i == n - 1 ? 0 : 1]);
			alarm(300);	/* never hang the suite */
			ok = child(i, n, pa, pb, fdp[i][1]);
			if (write(fdp[i][1], &ok, sizeof(ok)) != sizeof(ok))
				_exit(2);
			fflush(stdout);
			_exit(0);
		}
		close(fdp[i][1]);
	}
	close(gate[0]);
	close(gate[1]);
	for (int i = 0; i < n; i++) {
		unsigned int ok = 0;
		int status = 0, ncheck = NCHECK;
		ssize_t got = read(fdp[i][0], &ok, sizeof(ok));

		waitpid(pid[i], &status, 0);
		close(fdp[i][0]);
		if (i == n - 1) {
			/* Killed on purpose inside the last exchange. */
			ncheck = 8;
			if (got != sizeof(ok))
				ok = 0;
			if (!tap_ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
				    "rank %d of %d: killed inside the metadata exchange", i, n))
				printf("# rank %d: wait status 0x%x\n", i, status);
		} else if (got != sizeof(ok) || !WIFEXITED(status) || WEXITSTATUS(status)) {
			ok = 0;
		}
		for (int k = 0; k < ncheck; k++) {
			char name[128];

			snprintf(name, sizeof(name), check_name[k], stress_iters(n));
			tap_ok(ok >> k & 1, "rank %d of %d: %s", i, n, name);
		}
	}
	unlink(pa);
	unlink(pb);
	return tap_done();
}
