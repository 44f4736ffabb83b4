// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 one-process-per-card communicator tests (guest)
 *
 * The test forks one process per card.  Each opens only its card, joins
 * the communicator through a Unix socket (m890_comm_create_rank), registers
 * its receive buffer, and runs two all-to-alls of different sizes and
 * patterns, checking every byte; the refused calls (in place, an
 * unregistered buffer, a size past a peer's buffer) are tried in between.
 * Then the checks of coll_checks.h: alltoallv with uneven and zero counts,
 * a grouped send/recv batch, every byte against a host reference, and the
 * mismatches every rank must refuse the same way (another bytes_per_peer,
 * counts, unmatched sends, a 64-bit displacement, another collective).
 * Then, on a second communicator, rank 1 agrees to an all-to-all but its
 * stream never reaches it (a WAIT on a host word comes first): the others
 * must time out in the data exchange with a message naming rank 1 and no
 * live rank (those the stream of a rank meets after rank 1 are only not
 * checked yet, on spec 1.0 cards where the exchange waits peer by peer),
 * and once rank 1's word is set the collective completes everywhere.
 * Then the last rank exits without joining a third all-to-all: the
 * others must time out in its metadata exchange with a message naming
 * it, abort must return promptly, and later calls must fail cleanly.  Each child
 * reports its checks through a pipe; the parent prints one TAP line per
 * check and rank.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "coll_checks.h"
#include "drv_param.h"
#include "rank_timeout.h"

#define MAXN 64
#define BLOCK 12289u		/* odd, crosses pages */
#define NCHECK 19
#define NALIVE 15		/* checks before the last rank exits */
#define LATE 1			/* the rank late in the second communicator */

static const char *const check_name[NCHECK] = {
	"joins the communicator through the socket",
	"registers its receive buffer",
	"all-to-all #1: every byte in place",
	"all-to-all #2 (other size and pattern): every byte in place",
	"in place, unregistered buffer and oversized calls refused at every rank",
	"alltoallv, uneven and zero counts: every byte in place, gaps untouched",
	"grouped send/recv batch: every byte in place, the rest untouched",
	"another bytes_per_peer at rank 0: the same error at every rank",
	"a count rank 1 does not expect: the same error at every rank",
	"a send rank 1 does not receive: the same error at every rank",
	"a 2^32 + 64 displacement: the same error at every rank",
	"another collective at the last rank: the same error at every rank",
	"all-to-all after the refusals: every byte in place",
	"a peer whose stream never reaches a collective: timeout naming it and no live rank",
	"the late peer arrives: the collective completes at every rank",
	"a peer that exits before a collective: timeout naming it",
	"abort returns promptly, later calls fail cleanly",
	"destroys everything",
	"exits cleanly",
};

struct ctx {
	int n, me;
	m890_device_t dev;
	m890_stream_t str;
	m890_buffer_t sb, rb, hb;
	uint8_t *hp;
};

static int a2a_round(struct ctx *c, m890_comm_t comm, uint64_t b, int round)
{
	const struct cc_rank r = { .rank = c->me, .dev = c->dev, .str = c->str,
				   .sb = c->sb, .rb = c->rb, .hb = c->hb, .hp = c->hp };

	return cc_a2a_rank(&r, comm, c->n, c->rb, b, round);
}

/*
 * The text after "waiting for" in @msg names rank @v, and no other rank:
 * neither as "rank N" nor in a "not seen yet: N N ..." list.
 */
static int names_only(const char *msg, int v)
{
	const char *p = strstr(msg, "waiting for"), *q;
	int named = 0;

	if (!p)
		return 0;
	for (q = p; (q = strstr(q, "rank ")); q += 5) {
		if (atoi(q + 5) != v)
			return 0;
		named = 1;
	}
	q = strstr(p, "not seen yet:");
	for (q = q ? q + 13 : NULL; q && *q && *q != ')'; ) {
		char *end;
		long r = strtol(q, &end, 10);

		if (end == q)
			break;
		if (r != v)
			return 0;
		q = end;
	}
	return named;
}

/*
 * Checks 13 and 14: on a communicator of its own (socket @path), rank
 * LATE agrees to an all-to-all but its stream first waits for a host word
 * that it sets only once every other rank has timed out (counted in
 * @reported, shared by all ranks); each other rank's timeout must name
 * rank LATE and no live rank; then the collective completes everywhere.
 * The driver's job timeout is raised by the parent, so that no queue is
 * reset while it waits.
 */
static unsigned int late_rank(struct ctx *c, m890_buffer_t rb, const char *path,
			      volatile int *reported)
{
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	m890_buffer_t gate = NULL;
	volatile uint64_t *word = NULL;
	unsigned int ok = 0;
	m890_comm_t comm;
	m890_status_t st;
	uint64_t va;
	void *p;

	cfg.timeout_ns = rank_timeout_ns(c->n, 3000000000ull);
	if (c->me == LATE) {
		if (m890_buffer_alloc(c->dev, 4096, M890_MEM_HOST, &gate) ||
		    m890_buffer_map(gate, &p) || m890_buffer_va(gate, &va)) {
			printf("# rank %d gate: %s\n", c->me, m890_get_last_error());
			return 0;
		}
		word = p;
		*word = 0;
	}
	st = m890_comm_create_rank(c->dev, c->me, c->n, path, &cfg, &comm);
	if (!st)
		st = m890_comm_register(comm, rb);
	if (st) {
		printf("# rank %d second communicator: %s\n", c->me, m890_get_last_error());
		return 0;
	}
	if (word)
		st = m890_wait(c->str, va, 1, M890_SEM_GE);
	if (!st)
		st = m890_alltoall_rank(comm, c->sb, rb, 64, c->str);
	if (st) {
		printf("# rank %d late all-to-all: %s\n", c->me, m890_get_last_error());
	} else if (!word) {
		char want[64];

		st = m890_comm_synchronize(comm, &c->str);
		snprintf(want, sizeof(want), "waiting for rank %d", LATE);
		if (st == M890_ERROR_TIMEOUT && strstr(m890_get_last_error(), want) &&
		    names_only(m890_get_last_error(), LATE))
			ok |= 1u << 13;
		printf("# rank %d, rank %d late: %s: %s\n", c->me, LATE,
		       m890_status_string(st), m890_get_last_error());
		__atomic_add_fetch(reported, 1, __ATOMIC_SEQ_CST);
		st = m890_stream_synchronize(c->str);
	} else {
		int64_t t0 = (int64_t)time(NULL);

		while (__atomic_load_n(reported, __ATOMIC_SEQ_CST) < c->n - 1 &&
		       (int64_t)time(NULL) - t0 < 60)
			usleep(10000);
		ok |= 1u << 13;
		*word = 1;
		st = m890_comm_synchronize(comm, &c->str);
	}
	if (!st)
		ok |= 1u << 14;
	else
		printf("# rank %d after the late rank came: %s: %s\n", c->me,
		       m890_status_string(st), m890_get_last_error());
	if (m890_comm_destroy(comm) || (gate && m890_buffer_free(gate)))
		ok &= ~(1u << 14);
	return ok;
}

/* The child of rank @me: returns a bit mask of passed checks. */
static unsigned int child(int me, int n, const char *path, const char *path2,
			  volatile int *reported, int out)
{
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	struct ctx c = { .n = n, .me = me };
	m890_buffer_t other;
	m890_comm_t comm;
	m890_status_t st;
	unsigned int ok = 0;
	uint64_t total = (uint64_t)BLOCK * n;
	int64_t t0;
	void *p;
	int r;

	cfg.timeout_ns = rank_timeout_ns(n, 3000000000ull);
	if (m890_device_open(me, &c.dev) || m890_stream_create(c.dev, &c.str) ||
	    m890_buffer_alloc(c.dev, total, M890_MEM_HBM, &c.sb) ||
	    m890_buffer_alloc(c.dev, total, M890_MEM_HBM, &c.rb) ||
	    m890_buffer_alloc(c.dev, total, M890_MEM_HBM, &other) ||
	    m890_buffer_alloc(c.dev, 2 * total, M890_MEM_HOST, &c.hb) ||
	    m890_buffer_map(c.hb, &p)) {
		printf("# rank %d setup: %s\n", me, m890_get_last_error());
		return 0;
	}
	c.hp = p;
	st = m890_comm_create_rank(c.dev, me, n, path, &cfg, &comm);
	if (st) {
		printf("# rank %d: %s\n", me, m890_get_last_error());
		return 0;
	}
	ok |= (m890_comm_rank(comm, &r) == M890_SUCCESS && r == me) << 0;
	if (m890_comm_register(comm, c.rb) == M890_SUCCESS)
		ok |= 1u << 1;
	else
		printf("# rank %d register: %s\n", me, m890_get_last_error());
	ok |= a2a_round(&c, comm, BLOCK, 1) << 2;
	ok |= a2a_round(&c, comm, BLOCK / 3, 2) << 3;
	{
		int good = 1;

		good &= m890_alltoall_rank(comm, c.rb, c.rb, 64, c.str) ==
			M890_ERROR_INVALID_ARGUMENT;
		good &= m890_alltoall_rank(comm, c.sb, other, 64, c.str) ==
			M890_ERROR_INVALID_ARGUMENT &&
			strstr(m890_get_last_error(), "not registered");
		good &= m890_alltoall_rank(comm, c.sb, c.rb, BLOCK + 1, c.str) ==
			M890_ERROR_INVALID_ARGUMENT;
		good &= m890_alltoall(comm, &c.sb, &c.sb, 64, &c.str) ==
			M890_ERROR_INVALID_ARGUMENT &&
			strstr(m890_get_last_error(), "in-place");
		if (!good)
			printf("# rank %d refused calls: %s\n", me, m890_get_last_error());
		ok |= (unsigned int)good << 4;
	}
	{
		struct cc_rank cr = { me, c.dev, c.str, c.sb, c.rb, c.hb, c.hp };
		struct cc cc = { comm, n, 1, total, &cr };

		ok |= (unsigned int)cc_alltoallv(&cc, 3) << 5;
		ok |= (unsigned int)cc_group(&cc, 4) << 6;
		ok |= cc_refusals(&cc, 5) << 7;
	}
	ok |= late_rank(&c, other, path2, reported);
	if (me == n - 1) {
		/* This rank "dies": it never joins all-to-all #3. */
		fflush(stdout);
		if (write(out, &ok, sizeof(ok)) != sizeof(ok))
			_exit(2);
		_exit(0x80);
	}
	st = m890_alltoall_rank(comm, c.sb, c.rb, 64, c.str);
	if (!st)
		st = m890_comm_synchronize(comm, &c.str);
	{
		char want[64];

		snprintf(want, sizeof(want), "waiting for rank %d", n - 1);
		if (st == M890_ERROR_TIMEOUT && strstr(m890_get_last_error(), want))
			ok |= 1u << 15;
		else
			printf("# rank %d: %s: %s\n", me, m890_status_string(st),
			       m890_get_last_error());
	}
	t0 = (int64_t)time(NULL);
	st = m890_comm_abort(comm);
	if (st == M890_SUCCESS && m890_stream_synchronize(c.str) == M890_SUCCESS &&
	    (int64_t)time(NULL) - t0 < 10 &&
	    m890_alltoall_rank(comm, c.sb, c.rb, 64, c.str) != M890_SUCCESS)
		ok |= 1u << 16;
	else
		printf("# rank %d abort: %s\n", me, m890_get_last_error());
	if (m890_comm_destroy(comm) == M890_SUCCESS &&
	    m890_buffer_free(c.sb) == M890_SUCCESS &&
	    m890_buffer_free(c.rb) == M890_SUCCESS &&
	    m890_buffer_free(other) == M890_SUCCESS &&
	    m890_buffer_free(c.hb) == M890_SUCCESS &&
	    m890_stream_destroy(c.str) == M890_SUCCESS &&
	    m890_device_close(c.dev) == M890_SUCCESS)
		ok |= 1u << 17;
	else
		printf("# rank %d teardown: %s\n", me, m890_get_last_error());
	return ok | 1u << 18;
}

int main(void)
{
	pid_t pid[MAXN];
	int n, fdp[MAXN][2];
	char path[64], path2[64], old_jt[32];
	volatile int *reported;
	int raised;

	if (m890_device_count(&n) || n < 2) {
		tap_skip("needs two cards", "one process per card");
		return tap_done();
	}
	if (n > MAXN)
		n = MAXN;
	snprintf(path, sizeof(path), "/tmp/m890-mproc-%d.sock", (int)getpid());
	snprintf(path2, sizeof(path2), "/tmp/m890-mproc-%d-late.sock", (int)getpid());
	reported = mmap(NULL, sizeof(*reported), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (reported == MAP_FAILED)
		return 1;
	*reported = 0;
	/* The late rank's peers wait for it longer than the default 5 s. */
	raised = job_timeout(old_jt, sizeof(old_jt), "60000");
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		if (pipe(fdp[i]))
			return 1;
		pid[i] = fork();
		if (pid[i] == 0) {
			unsigned int ok;

			close(fdp[i][0]);
			alarm(120);	/* never hang the suite */
			ok = child(i, n, path, path2, reported, fdp[i][1]);
			if (write(fdp[i][1], &ok, sizeof(ok)) != sizeof(ok))
				_exit(2);
			fflush(stdout);
			_exit(0);
		}
		close(fdp[i][1]);
	}
	for (int i = 0; i < n; i++) {
		unsigned int ok = 0;
		int status = 0;
		ssize_t got = read(fdp[i][0], &ok, sizeof(ok));

		waitpid(pid[i], &status, 0);
		close(fdp[i][0]);
		if (i == n - 1) {
			/* Exited on purpose before all-to-all #3. */
			if (got != sizeof(ok) || !WIFEXITED(status) || WEXITSTATUS(status) != 0x80)
				ok = 0;
			for (int k = 0; k < NALIVE; k++)
				tap_ok(ok >> k & 1, "rank %d of %d: %s", i, n, check_name[k]);
			tap_ok(WIFEXITED(status), "rank %d of %d: exits before all-to-all #3",
			       i, n);
			continue;
		}
		if (got != sizeof(ok) || !WIFEXITED(status) || WEXITSTATUS(status))
			ok &= ~(1u << 18);
		for (int k = 0; k < NCHECK; k++)
			tap_ok(ok >> k & 1, "rank %d of %d: %s", i, n, check_name[k]);
	}
	unlink(path);
	unlink(path2);
	tap_ok(!raised || job_timeout(NULL, 0, old_jt),
	       "driver job timeout restored to %s ms", old_jt);
	return tap_done();
}
