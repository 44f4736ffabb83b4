// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 EP dispatch/combine on communicators through the switch (guest)
 *
 * m890_comm_create_fabric() communicators run the steps of
 * tests/lib/ep_ranks.h (bf16, MXFP8 and MXFP4 dispatch and combine
 * bit-exact against the host reference and repeatable, global counts,
 * capacity overflow and a refused argument failing every rank alike):
 *
 * - with no argument, in one VM: first every card as a local rank of
 *   this one process, then one process per card (forked), meeting only
 *   through the switch, whose last rank's process is killed before a
 *   dispatch: the others must fail naming it (a timeout, or the fault
 *   of a write to the area the dead process's card no longer exports);
 * - with --vms, in every VM of `guest-run.sh -V` at once (M890_VM,
 *   M890_VMS and M890_CARDS in the environment; VM v's cards have fabric
 *   ids v * cards ..): the same two phases over the cards of every VM,
 *   each VM checking its own ranks, the killed process being in the last
 *   VM.
 *
 * One TAP line per check and rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ep_ranks.h"

static struct epr_proc proc;

/*
 * Open cards @first .. @first + @m - 1 of this VM as local ranks of the
 * communicator @id over the fabric ids @fids[0..n).
 */
static m890_status_t open_ranks(struct epr_proc *p, int first, int m,
				const uint32_t *fids, int n, uint64_t id,
				uint64_t timeout_ns)
{
	struct m890_comm_fabric_config fc = M890_COMM_FABRIC_CONFIG_INIT;
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	m890_status_t st = M890_SUCCESS;

	memset(p, 0, sizeof(*p));
	p->n = n;
	p->m = m;
	for (int l = 0; l < m && !st; l++) {
		struct m890_device_info info = M890_DEVICE_INFO_INIT;

		st = m890_device_open(first + l, &p->dev[l]);
		if (!st)
			st = m890_device_get_info(p->dev[l], &info);
		if (!st)
			st = m890_stream_create(p->dev[l], &p->str[l]);
		p->rank[l] = -1;
		for (int i = 0; i < n; i++)
			if (fids[i] == info.fabric_id)
				p->rank[l] = i;
		if (!st && p->rank[l] < 0) {
			printf("# card %d's fabric id %u is no rank's\n",
			       first + l, info.fabric_id);
			return M890_ERROR_INVALID_ARGUMENT;
		}
	}
	fc.comm_id = id;
	fc.nranks = n;
	fc.ndevices = m;
	fc.fabric_ids = fids;
	fc.devices = p->dev;
	cfg.timeout_ns = timeout_ns;
	p->timeout_ns = timeout_ns;
	if (!st)
		st = m890_comm_create_fabric(&fc, &cfg, &p->comm);
	if (!st)
		st = epr_setup(p);
	return st;
}

static void close_ranks(struct epr_proc *p)
{
	for (int l = 0; l < p->m; l++) {
		if (p->str[l])
			m890_stream_destroy(p->str[l]);
		if (p->dev[l])
			m890_device_close(p->dev[l]);
	}
}

/* Every card of this VM in this process. */
static void all_local(int m, const uint32_t *fids, int n,
		      uint64_t id, const char *where)
{
	unsigned int ok = 0;

	if (open_ranks(&proc, 0, m, fids, n, id, 120000000000ull) == M890_SUCCESS)
		ok = epr_run(&proc, 0, -1);
	else
		printf("# %s: %s\n", where, m890_get_last_error());
	close_ranks(&proc);
	for (int k = 0; k < EPR_NCHECK; k++)
		if (k != EPR_KILLED && (k != EPR_CONFIG || m < n))
			tap_ok(ok >> k & 1, "%s, its %d of %d ranks in one process: %s",
			       where, m, n, epr_check_name[k]);
}

struct job {
	const uint32_t *fids;
	int n;
	uint64_t id;
};

/* The process of this VM's card @l alone. */
static unsigned int per_card(int l, int fd, void *arg)
{
	const struct job *job = arg;
	unsigned int ok = 0;

	if (open_ranks(&proc, l, 1, job->fids, job->n, job->id,
		       30000000000ull) == M890_SUCCESS)
		ok = epr_run(&proc, 1, fd);
	else
		printf("# card %d: %s\n", l, m890_get_last_error());
	close_ranks(&proc);
	return ok;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : def;
}

int main(int argc, char **argv)
{
	struct m890_device_info info = M890_DEVICE_INFO_INIT;
	uint32_t fids[EPR_MAXN];
	m890_device_t d;
	int cards, vms = 1, vm = 0, n;
	char where[32] = "one VM";

	TAP_REQUIRE(m890_device_count(&cards));
	if (argc > 1 && !strcmp(argv[1], "--vms")) {
		vms = env_int("M890_VMS", 1);
		vm = env_int("M890_VM", 0);
		if (env_int("M890_CARDS", cards) != cards || vms < 1 ||
		    vm >= vms || vms * cards > EPR_MAXN) {
			tap_ok(0, "M890_VM, M890_VMS, M890_CARDS describe this VM's %d cards",
			       cards);
			return tap_done();
		}
		snprintf(where, sizeof(where), "vm %d of %d", vm, vms);
	} else if (argc > 1) {
		fprintf(stderr, "usage: %s [--vms]\n", argv[0]);
		return 2;
	}
	n = vms * cards;
	if (n < 2) {
		tap_skip("needs two cards", "EP over fabric communicators");
		return tap_done();
	}
	TAP_REQUIRE(m890_device_open(0, &d));
	TAP_REQUIRE(m890_device_get_info(d, &info));
	TAP_REQUIRE(m890_device_close(d));
	if (!(info.capabilities & M890_CAP_FABRIC_WINDOWS)) {
		tap_skip("cards without fabric windows", "EP over fabric communicators");
		return tap_done();
	}
	/* Ranks in fabric id order: in one VM its cards' ids, else v * cards + i. */
	for (int i = 0; i < n; i++) {
		fids[i] = (uint32_t)i;
		if (vms == 1) {
			TAP_REQUIRE(m890_device_open(i, &d));
			TAP_REQUIRE(m890_device_get_info(d, &info));
			TAP_REQUIRE(m890_device_close(d));
			fids[i] = info.fabric_id;
		}
	}
	all_local(cards, fids, n, 0x5e90 + (uint64_t)vms, where);
	/* One process per card of this VM; the process of rank n - 1 dies. */
	{
		struct job job = { fids, n, 0x5ea0 + (uint64_t)vms };
		int rank[EPR_MAXN];

		for (int l = 0; l < cards; l++)
			rank[l] = vm * cards + l;
		epr_fork(cards, n, rank, where, per_card, &job);
	}
	return tap_done();
}
