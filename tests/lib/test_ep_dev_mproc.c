// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 EP with routing on the card, one process per card (guest)
 *
 * The per-rank form of test_ep_dev.c: the parent makes a unique id
 * (m890_get_unique_id()), forks one process per card, and each joins the
 * communicator with m890_comm_init_rank() holding only its card.  Every
 * process builds every rank's inputs with the same generator
 * (ep_dev_ref.h) and checks only its own rank: for bf16, MXFP8 and MXFP4,
 * two dispatches and combines (the two receive halves) with the ids and
 * weights in HBM, receive rows, meta rows, per-expert lists and counts
 * against the host reference, the combine against the host sum in slot
 * order, both halves giving identical bytes.  Then the last rank's
 * process kills itself before a dispatch: every other rank's dispatch
 * must fail (a timeout, or a fault on the dead peer's revoked memory)
 * with a message naming that rank, and the survivors tear down.  Each
 * child reports a bit mask of its checks through a pipe; the parent
 * prints one TAP line per check and rank.
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ep_dev_ref.h"
#include "rank_timeout.h"

enum {
	C_SETUP,
	C_BF16, C_BF16_AGAIN,
	C_MXFP8, C_MXFP8_AGAIN,
	C_MXFP4, C_MXFP4_AGAIN,
	C_KILLED,
	C_TEARDOWN,
	C_COUNT
};

static const char *const check_name[C_COUNT] = {
	"joins the communicator from the unique id",
	"bf16 dispatch and combine, both halves, equal the host reference",
	"bf16: both halves give identical bytes",
	"MXFP8 dispatch and combine, both halves, equal the host reference",
	"MXFP8: both halves give identical bytes",
	"MXFP4 dispatch and combine, both halves, equal the host reference",
	"MXFP4: both halves give identical bytes",
	"a killed peer: the dispatch fails naming it",
	"tears down cleanly",
};

static uint64_t timeout_ns;

/* The EP object of @type over 4 experts per rank, routing on the card. */
static m890_status_t ep_make(m890_comm_t comm, int type, m890_ep_t *ep,
			     struct m890_ep_info *in, m890_ep_layout_t *lo)
{
	struct m890_ep_config cfg = M890_EP_CONFIG_INIT;
	m890_status_t st;

	cfg.flags = M890_EP_F_DEVICE_ROUTING;
	cfg.max_tokens_per_rank = T;
	cfg.hidden = H;
	cfg.num_experts = 4 * (uint32_t)n;
	cfg.top_k = K;
	cfg.dispatch_type = (uint32_t)type;
	st = m890_ep_create(comm, &cfg, ep);
	if (st)
		return st;
	st = m890_ep_get_info(*ep, in);
	if (!st)
		st = m890_ep_layout_create(*ep, lo);
	if (st)
		m890_ep_destroy(*ep);
	return st;
}

/* Why a call of rank @me failed, as a TAP comment. */
static int failed(int me, const char *what, m890_status_t st)
{
	printf("# rank %d: %s: %s (%s)\n", me, what, m890_status_string(st),
	       m890_get_last_error());
	return 0;
}

/*
 * Two rounds of @type: bit @bit when both match the reference, @bit + 1
 * when they give identical bytes.
 */
static unsigned int run_type(m890_comm_t comm, int me, int type, const char *name,
			     int bit)
{
	static uint16_t got[2][MAXN][T * H];
	struct m890_ep_info in;
	m890_ep_layout_t lo;
	unsigned int ok = 1u << bit;
	m890_status_t st;
	m890_ep_t ep;
	char what[64];

	/* Every process draws the same inputs, in the same order. */
	make_routing(4 * n, 0);
	st = ep_make(comm, type, &ep, &in, &lo);
	if (st)
		return failed(me, name, st);
	upload();
	for (int round = 0; round < 2; round++) {
		snprintf(what, sizeof(what), "%s dispatch, half %d", name, round);
		st = m890_ep_dispatch_device(ep, lo, x + me, nt + me, ids + me, wts + me,
					     str + me);
		if (!st)
			st = m890_comm_synchronize(comm, str + me);
		if (st) {
			ok = failed(me, what, st);
			break;
		}
		if (!check_dispatch(lo, &in, type, round, what))
			ok = 0;
		snprintf(what, sizeof(what), "%s combine, half %d", name, round);
		st = m890_ep_combine_device(ep, lo, out + me, str + me);
		if (!st)
			st = m890_comm_synchronize(comm, str + me);
		if (st) {
			ok = failed(me, what, st);
			break;
		}
		if (!check_combine(&in, got[round], what))
			ok = 0;
	}
	if (ok && !memcmp(got[0][me], got[1][me], sizeof(got[0][me])))
		ok |= 1u << (bit + 1);
	m890_ep_layout_destroy(lo);
	st = m890_ep_destroy(ep);
	if (st)
		ok = failed(me, "ep_destroy", st);
	return ok;
}

/*
 * The last rank reports and kills itself before the dispatch; the
 * others must fail naming it, then keep their memory for one more
 * timeout (a survivor that tore down at once would fault a slower
 * one's writes, which would then name it instead).
 */
static unsigned int killed_peer(m890_comm_t comm, int me, int fd, unsigned int ok)
{
	struct timespec ts = {
		.tv_sec = (time_t)(timeout_ns / 1000000000ull),
		.tv_nsec = (long)(timeout_ns % 1000000000ull),
	};
	struct m890_ep_info in;
	m890_ep_layout_t lo;
	m890_status_t st;
	m890_ep_t ep;
	char want[32];

	make_routing(4 * n, 0);
	st = ep_make(comm, M890_TYPE_BF16, &ep, &in, &lo);
	if (st)
		return failed(me, "EP object for the killed peer", st) | ok;
	if (me == n - 1) {
		ok |= 1u << C_KILLED | 1u << C_TEARDOWN;
		if (write(fd, &ok, sizeof(ok)) != sizeof(ok))
			printf("# rank %d: cannot report\n", me);
		fflush(stdout);
		raise(SIGKILL);
	}
	upload();
	st = m890_ep_dispatch_device(ep, lo, x + me, nt + me, ids + me, wts + me, str + me);
	if (!st)
		st = m890_comm_synchronize(comm, str + me);
	snprintf(want, sizeof(want), "rank %d", n - 1);
	if ((st == M890_ERROR_TIMEOUT || st == M890_ERROR_DEVICE_FAULT) &&
	    strstr(m890_get_last_error(), want))
		ok |= 1u << C_KILLED;
	printf("# rank %d, peer killed: %s: %s\n", me, m890_status_string(st),
	       m890_get_last_error());
	m890_comm_abort(comm);
	nanosleep(&ts, NULL);
	m890_stream_synchronize(str[me]);
	m890_ep_layout_destroy(lo);
	m890_ep_destroy(ep);
	return ok;
}

/* Rank @me's process: its check mask. */
static unsigned int child(int me, const m890_unique_id_t *id, int fd)
{
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	unsigned int ok = 0;
	m890_comm_t comm;
	m890_status_t st;
	void *p;

	epd_me = me;
	cfg.timeout_ns = timeout_ns;
	st = m890_device_open(me, &dev[me]);
	if (!st)
		st = m890_stream_create(dev[me], &str[me]);
	if (!st)
		st = m890_buffer_alloc(dev[me], 2ull * T * H, M890_MEM_HBM, &x[me]);
	if (!st)
		st = m890_buffer_alloc(dev[me], 4ull * T * K, M890_MEM_HBM, &ids[me]);
	if (!st)
		st = m890_buffer_alloc(dev[me], 4ull * T * K, M890_MEM_HBM, &wts[me]);
	if (!st)
		st = m890_buffer_alloc(dev[me], 2ull * T * H, M890_MEM_HBM, &out[me]);
	if (!st)
		st = m890_buffer_alloc(dev[me], HOST_BYTES, M890_MEM_HOST, &host[me]);
	if (!st)
		st = m890_buffer_map(host[me], &p);
	if (!st) {
		hp[me] = p;
		st = m890_comm_init_rank(id, n, me, dev[me], &cfg, &comm);
	}
	if (st)
		return failed(me, "setup", st);
	ok |= 1u << C_SETUP;
	ok |= run_type(comm, me, M890_TYPE_BF16, "bf16", C_BF16);
	ok |= run_type(comm, me, M890_TYPE_MXFP8, "MXFP8", C_MXFP8);
	ok |= run_type(comm, me, M890_TYPE_MXFP4, "MXFP4", C_MXFP4);
	ok = killed_peer(comm, me, fd, ok);
	if (m890_comm_destroy(comm) == M890_SUCCESS)
		ok |= 1u << C_TEARDOWN;
	else
		printf("# rank %d: teardown: %s\n", me, m890_get_last_error());
	m890_buffer_free(x[me]);
	m890_buffer_free(ids[me]);
	m890_buffer_free(wts[me]);
	m890_buffer_free(out[me]);
	m890_buffer_free(host[me]);
	m890_stream_destroy(str[me]);
	m890_device_close(dev[me]);
	return ok;
}

/* Does card 0 have what routing on the card needs? */
static int cards_have_routing(void)
{
	struct m890_device_info info = M890_DEVICE_INFO_INIT;
	const uint64_t need = M890_CAP_ENGINES | M890_CAP_ATOMICS | M890_CAP_ROWS;
	m890_device_t d;
	int ok;

	TAP_REQUIRE(m890_device_open(0, &d));
	TAP_REQUIRE(m890_device_get_info(d, &info));
	ok = (info.capabilities & need) == need;
	m890_device_close(d);
	return ok;
}

int main(void)
{
	m890_unique_id_t id;
	pid_t pid[MAXN];
	int fdp[MAXN][2];

	if (m890_device_count(&n) || n < 2) {
		tap_skip("needs two cards", "EP routing on the card, one process per card");
		return tap_done();
	}
	if (n > MAXN)
		n = MAXN;
	if (!cards_have_routing()) {
		tap_skip("the cards are spec 1.0", "EP routing on the card, one process per card");
		return tap_done();
	}
	timeout_ns = rank_timeout_ns(n, 5000000000ull);
	TAP_REQUIRE(m890_get_unique_id(NULL, &id));
	fflush(stdout);
	for (int r = 0; r < n; r++) {
		if (pipe(fdp[r]))
			exit(1);
		pid[r] = fork();
		if (pid[r] == 0) {
			unsigned int ok;

			close(fdp[r][0]);
			alarm(600);	/* never hang the suite */
			ok = child(r, &id, fdp[r][1]);
			if (write(fdp[r][1], &ok, sizeof(ok)) != sizeof(ok))
				_exit(2);
			fflush(stdout);
			_exit(0);
		}
		close(fdp[r][1]);
	}
	for (int r = 0; r < n; r++) {
		unsigned int ok = 0;
		int status = 0, killed = r == n - 1;
		ssize_t got = read(fdp[r][0], &ok, sizeof(ok));

		waitpid(pid[r], &status, 0);
		close(fdp[r][0]);
		if (got != sizeof(ok))
			ok = 0;
		if (killed ? !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL :
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ok &= ~(1u << C_TEARDOWN);
		for (int k = 0; k < C_COUNT; k++)
			tap_ok(ok >> k & 1, "rank %d of %d in its own process, routing on the card: %s%s",
			       r, n, check_name[k],
			       killed && k == C_KILLED ? " (this rank was killed)" : "");
	}
	return tap_done();
}
