// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 communicators bootstrapped through the switch (guest)
 *
 * m890_comm_create_fabric() in one VM, where every path is the one used
 * across VMs (the switch's windows between VMs are covered by the two-VM
 * suite): refused configs; every card of the VM as ranks of one process,
 * two all-to-alls of other sizes checked byte by byte, the all-ranks and
 * one-rank calls refused; a second communicator with the same id refused
 * while the first exists; one process per card (forked), meeting only
 * through the switch; a rank whose fabric id has no card, which times out
 * naming it; buffers registered again in a new communicator once the
 * first is destroyed; and a peer process that joins and never takes part
 * in the all-to-all, which fails in its metadata exchange within the
 * timeout naming the peer's fabric id, after which abort and destroy
 * work.  With --vms the same checks run across the cards of several VMs
 * (the guest-2vms suite).
 */
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
#define BLOCK 12289u		/* odd, crosses pages */

struct rank {
	m890_device_t dev;
	uint32_t fid;
	m890_stream_t str;
	m890_buffer_t sb, rb, hb;
	uint8_t *hp;
};

static uint8_t pat(uint32_t from, uint32_t to, uint64_t off, int round)
{
	return (uint8_t)(from * 37 + to * 11 + off * 3 + (off >> 10) + round * 71 + 5);
}

static m890_status_t rank_open(struct rank *r, int index, uint64_t bytes)
{
	struct m890_device_info info = M890_DEVICE_INFO_INIT;
	m890_status_t st;
	void *p;

	memset(r, 0, sizeof(*r));
	st = m890_device_open(index, &r->dev);
	if (!st)
		st = m890_device_get_info(r->dev, &info);
	if (!st)
		st = m890_stream_create(r->dev, &r->str);
	if (!st)
		st = m890_buffer_alloc(r->dev, bytes, M890_MEM_HBM, &r->sb);
	if (!st)
		st = m890_buffer_alloc(r->dev, bytes, M890_MEM_HBM, &r->rb);
	if (!st)
		st = m890_buffer_alloc(r->dev, 2 * bytes, M890_MEM_HOST, &r->hb);
	if (!st)
		st = m890_buffer_map(r->hb, &p);
	if (!st) {
		r->hp = p;
		r->fid = info.fabric_id;
	}
	return st;
}

static void rank_close(struct rank *r)
{
	if (r->hb)
		m890_buffer_free(r->hb);
	if (r->rb)
		m890_buffer_free(r->rb);
	if (r->sb)
		m890_buffer_free(r->sb);
	if (r->str)
		m890_stream_destroy(r->str);
	if (r->dev)
		m890_device_close(r->dev);
	memset(r, 0, sizeof(*r));
}

/*
 * Fill the send buffers of local ranks @r[0..m) (ranks @rk[]) of an
 * n-rank communicator with round @round's pattern, run one all-to-all of
 * @b bytes per peer and check what they received: the number of wrong
 * bytes, or -1 when a call failed.
 */
static long long a2a_round(m890_comm_t comm, struct rank *r, const int *rk, int m,
			   const uint32_t *fids, int n, uint64_t b, int round)
{
	m890_buffer_t sb[MAXN], rb[MAXN];
	m890_stream_t ss[MAXN];
	long long wrong = 0;

	for (int l = 0; l < m; l++) {
		for (int j = 0; j < n; j++)
			for (uint64_t o = 0; o < b; o++)
				r[l].hp[j * b + o] = pat(fids[rk[l]], fids[j], o, round);
		if (m890_memcpy_htod(r[l].str, r[l].sb, 0, r[l].hb, 0, b * n) ||
		    m890_stream_synchronize(r[l].str))
			return -1;
		sb[l] = r[l].sb;
		rb[l] = r[l].rb;
		ss[l] = r[l].str;
	}
	if (m890_alltoall_local(comm, sb, rb, b, ss) || m890_comm_synchronize(comm, ss))
		return -1;
	for (int l = 0; l < m; l++) {
		if (m890_memcpy_dtoh(r[l].str, r[l].hb, 0, r[l].rb, 0, b * n) ||
		    m890_stream_synchronize(r[l].str))
			return -1;
		for (int i = 0; i < n; i++)
			for (uint64_t o = 0; o < b; o++)
				wrong += r[l].hp[i * b + o] != pat(fids[i], fids[rk[l]], o, round);
	}
	return wrong;
}

static m890_status_t create(uint64_t id, const uint32_t *fids, int n, struct rank *r, int m,
			    uint64_t timeout_ns, m890_comm_t *comm)
{
	struct m890_comm_fabric_config fc = M890_COMM_FABRIC_CONFIG_INIT;
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	m890_device_t devs[MAXN];

	for (int l = 0; l < m; l++)
		devs[l] = r[l].dev;
	fc.comm_id = id;
	fc.nranks = n;
	fc.ndevices = m;
	fc.fabric_ids = fids;
	fc.devices = devs;
	cfg.timeout_ns = timeout_ns;
	return m890_comm_create_fabric(&fc, &cfg, comm);
}

/*
 * The checks of coll_checks.h for local ranks @r[0..m) (ranks @rk[]) of
 * an n-rank communicator: a bit each for alltoallv, grouped send/recv and
 * the six refusal checks (bits 2..7).
 */
static unsigned int coll_round(m890_comm_t comm, struct rank *r, const int *rk, int m,
			       int n, int round)
{
	struct cc_rank cr[MAXN];
	struct cc c = { comm, n, m, (uint64_t)n * BLOCK, cr };
	unsigned int ok = 0;

	for (int l = 0; l < m; l++)
		cr[l] = (struct cc_rank){ rk[l], r[l].dev, r[l].str, r[l].sb, r[l].rb,
					  r[l].hb, r[l].hp };
	ok |= (unsigned int)cc_alltoallv(&c, round);
	ok |= (unsigned int)cc_group(&c, round + 1) << 1;
	ok |= cc_refusals(&c, round + 2) << 2;
	return ok;
}

#define COLL_ALL 0xffu

static const char *const coll_name[8] = {
	"alltoallv with uneven and zero counts, every byte checked",
	"grouped send/recv batch, every byte checked",
	"another bytes_per_peer at rank 0 refused at every rank",
	"a count rank 1 does not expect refused at every rank",
	"a send rank 1 does not receive refused at every rank",
	"a 2^32 + 64 displacement refused at every rank",
	"another collective at the last rank refused at every rank",
	"an all-to-all after the refusals, every byte checked",
};

static m890_status_t register_all(m890_comm_t comm, struct rank *r, int m)
{
	m890_status_t st = M890_SUCCESS;

	for (int l = 0; l < m && !st; l++)
		st = m890_comm_register(comm, r[l].rb);
	return st;
}

/*
 * Child: rank of card @card alone; @mode 0 runs two rounds, 1 leaves
 * once a byte arrives on @go (the parent's all-to-all is then enqueued).
 */
static int child(int card, uint64_t id, const uint32_t *fids, int n, int mode, int go)
{
	struct rank r;
	m890_comm_t comm = NULL;
	int rk = card, rc = 1;

	if (rank_open(&r, card, (uint64_t)n * BLOCK))
		return 2;
	if (create(id, fids, n, &r, 1, 30000000000ull, &comm) ||
	    register_all(comm, &r, 1)) {
		fprintf(stderr, "# child %d: %s\n", card, m890_get_last_error());
		goto out;
	}
	if (mode == 1) {
		char b;

		/* Joined and registered; leave without the collective. */
		rc = read(go, &b, 1) == 1 ? 0 : 1;
		goto out;
	}
	if (a2a_round(comm, &r, &rk, 1, fids, n, BLOCK, 1) == 0 &&
	    a2a_round(comm, &r, &rk, 1, fids, n, 4096, 2) == 0 &&
	    coll_round(comm, &r, &rk, 1, n, 3) == COLL_ALL)
		rc = 0;
	else
		fprintf(stderr, "# child %d: %s\n", card, m890_get_last_error());
out:
	if (comm)
		m890_comm_destroy(comm);
	rank_close(&r);
	return rc;
}

/*
 * --vms COMMID FIRST-LAST: this VM's part of a communicator over fabric
 * ids FIRST..LAST (every card of every VM; each VM runs it at the same
 * time with the same arguments, see tests/guest/m890-vm-fabric.sh): its
 * cards join as one process, then one all-to-all and the checks of
 * coll_checks.h run across the VMs, other VMs' ranks refusing the same
 * way.  Prints TAP.
 */
static int cross_vm(const char *id_arg, const char *ranks)
{
	uint32_t fids[MAXN];
	struct rank r[MAXN];
	int rk[MAXN], m, n, first, last;
	m890_comm_t comm;
	uint64_t id = strtoull(id_arg, NULL, 0);
	long long wrong;

	if (!id || sscanf(ranks, "%d-%d", &first, &last) != 2 || first < 0 ||
	    last < first || last - first + 1 > MAXN) {
		fprintf(stderr, "usage: --vms COMMID FIRST-LAST\n");
		return 2;
	}
	n = last - first + 1;
	for (int i = 0; i < n; i++)
		fids[i] = (uint32_t)(first + i);
	TAP_REQUIRE(m890_device_count(&m));
	if (m > n)
		m = n;
	for (int l = 0; l < m; l++) {
		TAP_REQUIRE(rank_open(&r[l], l, (uint64_t)n * BLOCK));
		rk[l] = (int)r[l].fid - first;
		if (rk[l] < 0 || rk[l] >= n) {
			tap_ok(0, "card %d's fabric id %u is one of %s", l, r[l].fid, ranks);
			return tap_done();
		}
	}
	TAP_STATUS(create(id, fids, n, r, m, 300000000000ull, &comm), M890_SUCCESS);
	TAP_STATUS(register_all(comm, r, m), M890_SUCCESS);
	wrong = a2a_round(comm, r, rk, m, fids, n, BLOCK, 1);
	tap_ok(wrong == 0, "all-to-all of %u bytes over %d ranks, %d here: %lld wrong bytes",
	       BLOCK, n, m, wrong);
	{
		unsigned int ok = coll_round(comm, r, rk, m, n, 3);

		for (int k = 0; k < 8; k++)
			tap_ok(ok >> k & 1, "%d ranks across VMs, %d here: %s", n, m, coll_name[k]);
	}
	TAP_STATUS(m890_comm_destroy(comm), M890_SUCCESS);
	for (int l = 0; l < m; l++)
		rank_close(&r[l]);
	return tap_done();
}

int main(int argc, char **argv)
{
	struct m890_comm_fabric_config fc = M890_COMM_FABRIC_CONFIG_INIT;
	struct m890_device_info info = M890_DEVICE_INFO_INIT;
	struct rank r[MAXN];
	uint32_t fids[MAXN + 1], dup[2];
	int rk[MAXN], n, st;
	m890_comm_t comm = NULL, comm2 = NULL;
	m890_device_t d0[2];
	pid_t pids[MAXN];
	long long wrong;
	int go[2];

	if (argc == 4 && !strcmp(argv[1], "--vms"))
		return cross_vm(argv[2], argv[3]);
	TAP_REQUIRE(m890_device_count(&n));
	if (n > MAXN - 1)
		n = MAXN - 1;
	if (n < 2) {
		tap_skip("needs two cards", "fabric communicator tests");
		return tap_done();
	}
	for (int l = 0; l < n; l++) {
		TAP_REQUIRE(rank_open(&r[l], l, (uint64_t)n * BLOCK));
		fids[l] = r[l].fid;
		rk[l] = l;
	}
	TAP_REQUIRE(m890_device_get_info(r[0].dev, &info));
	if (!(info.capabilities & M890_CAP_FABRIC_WINDOWS)) {
		tap_skip("cards without fabric windows", "fabric communicator tests");
		return tap_done();
	}

	/* Refused configurations. */
	d0[0] = r[0].dev;
	d0[1] = r[0].dev;
	fc.nranks = n;
	fc.ndevices = 1;
	fc.fabric_ids = fids;
	fc.devices = d0;
	TAP_STATUS(m890_comm_create_fabric(&fc, NULL, &comm), M890_ERROR_INVALID_ARGUMENT);
	tap_ok(!comm, "comm id 0 refused, no handle returned");
	fc.comm_id = 0x7e57;
	fc.magic = 0;
	TAP_STATUS(m890_comm_create_fabric(&fc, NULL, &comm), M890_ERROR_INVALID_ARGUMENT);
	fc.magic = M890_COMM_FABRIC_CONFIG_MAGIC;
	dup[0] = fids[0];
	dup[1] = fids[0];
	fc.fabric_ids = dup;
	fc.nranks = 2;
	TAP_STATUS(m890_comm_create_fabric(&fc, NULL, &comm), M890_ERROR_INVALID_ARGUMENT);
	dup[0] = fids[1];
	dup[1] = 63;
	TAP_STATUS(m890_comm_create_fabric(&fc, NULL, &comm), M890_ERROR_INVALID_ARGUMENT);
	tap_ok(strstr(m890_get_last_error(), "not among") != NULL,
	       "a card whose fabric id is no rank's is named: %s", m890_get_last_error());
	fc.fabric_ids = fids;
	fc.nranks = n;
	fc.ndevices = 2;
	TAP_STATUS(m890_comm_create_fabric(&fc, NULL, &comm), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_comm_create_fabric(&fc, NULL, NULL), M890_ERROR_INVALID_ARGUMENT);

	/* Every card of the VM in this process. */
	TAP_STATUS(create(0x7e57, fids, n, r, n, 10000000000ull, &comm), M890_SUCCESS);
	TAP_STATUS(register_all(comm, r, n), M890_SUCCESS);
	wrong = a2a_round(comm, r, rk, n, fids, n, BLOCK, 1);
	tap_ok(wrong == 0, "all-to-all of %u bytes over %d local ranks: %lld wrong bytes",
	       BLOCK, n, wrong);
	wrong = a2a_round(comm, r, rk, n, fids, n, 1000, 2);
	tap_ok(wrong == 0, "again with 1000 bytes and another pattern: %lld wrong bytes", wrong);
	{
		unsigned int ok = coll_round(comm, r, rk, n, n, 3);

		for (int k = 0; k < 8; k++)
			tap_ok(ok >> k & 1, "%d local ranks: %s", n, coll_name[k]);
	}
	{
		m890_buffer_t sb[MAXN], rb[MAXN];
		m890_stream_t ss[MAXN];

		for (int l = 0; l < n; l++) {
			sb[l] = r[l].sb;
			rb[l] = r[l].rb;
			ss[l] = r[l].str;
		}
		/* The all-ranks call takes the local ranks' arrays too. */
		TAP_STATUS(m890_alltoall(comm, sb, rb, 16, ss), M890_SUCCESS);
		TAP_STATUS(m890_comm_synchronize(comm, ss), M890_SUCCESS);
		TAP_STATUS(m890_alltoall_rank(comm, sb[0], rb[0], 16, ss[0]),
			   M890_ERROR_INVALID_ARGUMENT);
		TAP_STATUS(m890_alltoall_local(comm, sb, rb, (uint64_t)BLOCK + 1, ss),
			   M890_ERROR_INVALID_ARGUMENT);
		rb[0] = r[0].sb;
		TAP_STATUS(m890_alltoall_local(comm, sb, rb, 16, ss), M890_ERROR_INVALID_ARGUMENT);
	}
	/* The same id again while it exists: its keys are taken. */
	TAP_STATUS(create(0x7e57, fids, n, r, n, 1000000000ull, &comm2), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_comm_destroy(comm), M890_SUCCESS);
	comm = NULL;
	/* Its buffers were unexported with it: another communicator takes them. */
	TAP_STATUS(create(0x7e5b, fids, n, r, n, 10000000000ull, &comm), M890_SUCCESS);
	TAP_STATUS(register_all(comm, r, n), M890_SUCCESS);
	wrong = a2a_round(comm, r, rk, n, fids, n, 4096, 3);
	tap_ok(wrong == 0, "the same buffers in a new communicator: %lld wrong bytes", wrong);
	TAP_STATUS(m890_comm_destroy(comm), M890_SUCCESS);
	comm = NULL;

	/* A rank whose fabric id has no card: the setup names it. */
	fids[n] = 62;
	for (int l = 0; l < n; l++)
		if (fids[l] == 62)
			fids[n] = 61;
	TAP_STATUS(create(0x7e58, fids, n + 1, r, n, 1000000000ull, &comm), M890_ERROR_TIMEOUT);
	{
		char want[32];

		snprintf(want, sizeof(want), "fabric id %u", fids[n]);
		tap_ok(strstr(m890_get_last_error(), want) != NULL,
		       "the timeout names the missing rank's %s: %s", want, m890_get_last_error());
	}

	/* One process per card, meeting only through the switch. */
	for (int l = 0; l < n; l++)
		rank_close(&r[l]);
	for (int l = 0; l < n; l++) {
		pids[l] = fork();
		if (pids[l] == 0)
			_exit(child(l, 0x7e59, fids, n, 0, -1));
	}
	for (int l = 0; l < n; l++) {
		waitpid(pids[l], &st, 0);
		tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		       "process of card %d: joined through the switch, two all-to-alls, alltoallv, grouped send/recv and the refusals correct",
		       l);
	}

	/*
	 * A peer process that joins and registers, then never takes part:
	 * our all-to-all fails in its metadata exchange within the timeout,
	 * naming the peer's fabric id, before anything is enqueued; the
	 * error is sticky.  Then the peer leaves.
	 */
	TAP_REQUIRE(rank_open(&r[0], 0, (uint64_t)2 * BLOCK));
	TAP_REQUIRE(pipe(go) ? M890_ERROR_SYSTEM : M890_SUCCESS);
	pids[1] = fork();
	if (pids[1] == 0) {
		close(go[1]);
		_exit(child(1, 0x7e5a, fids, 2, 1, go[0]));
	}
	close(go[0]);
	TAP_STATUS(create(0x7e5a, fids, 2, r, 1, 3000000000ull, &comm), M890_SUCCESS);
	TAP_STATUS(register_all(comm, r, 1), M890_SUCCESS);
	{
		struct timespec t0, t1;
		m890_status_t a2a, sync;
		char want[32];
		double s;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		a2a = m890_alltoall_local(comm, &r[0].sb, &r[0].rb, BLOCK, &r[0].str);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		snprintf(want, sizeof(want), "fabric id %u", fids[1]);
		tap_ok(a2a == M890_ERROR_TIMEOUT && strstr(m890_get_last_error(), want) != NULL,
		       "the all-to-all fails (%s) naming the absent peer's %s: %s",
		       m890_status_string(a2a), want, m890_get_last_error());
		tap_ok(s < 3.0 + 12.0, "it failed within the timeout (%.1f s for 3 s)", s);
		/* Now the peer leaves. */
		tap_ok(write(go[1], "x", 1) == 1, "peer told to leave");
		close(go[1]);
		waitpid(pids[1], &st, 0);
		tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the peer joined and left");
		sync = m890_comm_synchronize(comm, &r[0].str);
		tap_ok(sync == M890_ERROR_TIMEOUT && strstr(m890_get_last_error(), want) != NULL,
		       "synchronize returns the sticky error naming it: %s", m890_get_last_error());
	}
	{
		m890_status_t ab = m890_comm_abort(comm), later;

		tap_ok(ab != M890_ERROR_INVALID_HANDLE, "abort returns (%s)",
		       m890_status_string(ab));
		later = m890_comm_register(comm, r[0].sb);
		tap_ok(later != M890_SUCCESS && later != M890_ERROR_INVALID_HANDLE,
		       "a later call fails with the sticky error (%s)",
		       m890_status_string(later));
	}
	m890_stream_synchronize(r[0].str);
	TAP_STATUS(m890_comm_destroy(comm), M890_SUCCESS);
	rank_close(&r[0]);
	return tap_done();
}
