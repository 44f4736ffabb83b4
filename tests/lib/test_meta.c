// SPDX-License-Identifier: MIT
/*
 * DOC: the collective metadata exchange through the cards (guest)
 *
 * m890_comm_allgather_host() is internal (libm890/src/internal.h), so
 * this test is linked with the library's objects instead of the shared
 * library.  For each kind of per-rank communicator -- one process per
 * card met through a Unix socket (m890_comm_create_rank) and through the
 * switch (m890_comm_create_fabric) -- it forks one process per card; each
 * gathers records of 40 bytes, of several slots (several rounds) and of
 * 0 bytes and checks every rank's bytes; then one rank calls another
 * collective, then one passes another size (one round against several):
 * every rank must get INVALID_ARGUMENT with the same text, and the next
 * exchange must work.  Then the last rank comes 3.5 s late, with the
 * driver's job timeout at 1 s (only for that exchange): the others'
 * control streams are reset by the driver while they wait and must be
 * re-armed, the exchange completing within the communicator's timeout
 * (8 s).  Finally the last rank kills itself before an
 * exchange: the others must time out naming it (and its fabric id; through
 * the switch the write into its revoked window may fault instead, also
 * naming it), abort must return promptly and later exchanges fail with
 * the sticky error.  The fabric kind also runs with every card in one process, and
 * a m890_comm_create communicator gathers by plain copies.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "drv_param.h"
#include "tap.h"
#include "internal.h"

#define MAXN 64
#define NCHECK 9
#define NALIVE 6		/* checks before the last rank dies */
#define LATE_NS 3500000000ll	/* the late rank's delay */

static const char *const check_name[NCHECK] = {
	"joins the communicator",
	"gathers 40-byte records of every rank",
	"gathers records of several rounds, and of 0 bytes",
	"another collective at one rank: the same INVALID_ARGUMENT at every rank",
	"another size at one rank: the same INVALID_ARGUMENT at every rank",
	"a rank late past the driver's job timeout: the exchange completes",
	"a peer killed before an exchange: timeout naming it",
	"abort returns promptly, later exchanges fail, destroy works",
	"exits cleanly",
};

static uint8_t pat(int rank, size_t off, int round)
{
	return (uint8_t)(rank * 53 + off * 7 + (off >> 9) + round * 29 + 1);
}

/*
 * Gather @bytes of rank pattern @round from the @m local ranks @rk[] of
 * @comm and check every rank's: 1 if right.
 */
static int gather_ok(m890_comm_t comm, const int *rk, int m, int n,
		     size_t bytes, int round)
{
	unsigned char *mine[MAXN], *all = malloc(bytes * n + 1);
	const void *cmine[MAXN];
	size_t wrong = 0;
	int good = 0;

	for (int l = 0; l < m; l++) {
		mine[l] = malloc(bytes + 1);
		for (size_t o = 0; o < bytes; o++)
			mine[l][o] = pat(rk[l], o, round);
		cmine[l] = mine[l];
	}
	if (all && !m890_comm_allgather_host(comm, "test gather", cmine, bytes, all)) {
		for (int i = 0; i < n; i++)
			for (size_t o = 0; o < bytes; o++)
				wrong += all[i * bytes + o] != pat(i, o, round);
		good = !wrong;
		if (wrong)
			printf("# rank %d: %zu wrong bytes of %zu\n", rk[0], wrong, bytes * n);
	} else {
		printf("# rank %d: gather of %zu bytes: %s\n", rk[0], bytes,
		       m890_get_last_error());
	}
	for (int l = 0; l < m; l++)
		free(mine[l]);
	free(all);
	return good;
}

/* A gather with @what and @bytes must fail with INVALID_ARGUMENT. */
static int refused(m890_comm_t comm, const char *what, size_t bytes, char *msg)
{
	unsigned char *buf = calloc(1, bytes ? bytes : 1), *all = calloc(MAXN, bytes ? bytes : 1);
	const void *mine[1] = { buf };
	m890_status_t st = m890_comm_allgather_host(comm, what, mine, bytes, all);

	snprintf(msg, 400, "%s", m890_get_last_error());
	free(buf);
	free(all);
	if (st != M890_ERROR_INVALID_ARGUMENT)
		printf("# %s: %s\n", what, msg);
	return st == M890_ERROR_INVALID_ARGUMENT;
}

static m890_status_t join(int kind, m890_device_t dev, int me, int n,
			  const char *path, const uint32_t *fids, uint64_t id,
			  m890_comm_t *comm)
{
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	struct m890_comm_fabric_config fc = M890_COMM_FABRIC_CONFIG_INIT;

	cfg.timeout_ns = 8000000000ull;
	if (kind == 0)
		return m890_comm_create_rank(dev, me, n, path, &cfg, comm);
	fc.comm_id = id;
	fc.nranks = n;
	fc.ndevices = 1;
	fc.fabric_ids = fids;
	fc.devices = &dev;
	return m890_comm_create_fabric(&fc, &cfg, comm);
}


/* Send the checks and the two messages (without their prefix) to the parent. */
static int send_result(int out, unsigned int ok, const char *m1, const char *m2)
{
	char m[2][200];

	memset(m, 0, sizeof(m));
	snprintf(m[0], sizeof(m[0]), "%s", strchr(m1, ':') ? strchr(m1, ':') : m1);
	snprintf(m[1], sizeof(m[1]), "%s", strchr(m2, ':') ? strchr(m2, ':') : m2);
	fflush(stdout);
	return write(out, &ok, sizeof(ok)) == sizeof(ok) &&
	       write(out, m, sizeof(m)) == sizeof(m);
}

/*
 * The process of rank @me of @n: a bit mask of passed checks on @out
 * (the message of the refused calls too, to compare between ranks).
 */
static unsigned int child(int kind, int me, int n, const char *path,
			  const uint32_t *fids, uint64_t id, int out,
			  const char *restore)
{
	unsigned int ok = 0;
	m890_device_t dev;
	m890_comm_t comm;
	char m1[400] = "", m2[400] = "";
	int64_t t0;

	if (m890_device_open(me, &dev) || join(kind, dev, me, n, path, fids, id, &comm)) {
		printf("# rank %d: %s\n", me, m890_get_last_error());
		goto report;
	}
	ok |= 1u << 0;
	ok |= (unsigned int)gather_ok(comm, &me, 1, n, 40, 1) << 1;
	ok |= (unsigned int)(gather_ok(comm, &me, 1, n, 3 * M890_META_PAYLOAD + 17, 2) &&
			     gather_ok(comm, &me, 1, n, 0, 3) &&
			     gather_ok(comm, &me, 1, n, M890_META_PAYLOAD, 4)) << 2;
	/* Rank 1 calls something else; then all go on in step. */
	if (refused(comm, me == 1 ? "other collective" : "test gather", 40, m1) &&
	    strstr(m1, "rank 1") && strstr(m1, "other collective") &&
	    gather_ok(comm, &me, 1, n, 24, 5))
		ok |= 1u << 3;
	/* Rank 0 passes a size of several rounds, the others one round. */
	if (refused(comm, "test gather", me == 0 ? 2 * M890_META_PAYLOAD : 40, m2) &&
	    strstr(m2, "rank 1") && strstr(m2, "rank 0") &&
	    gather_ok(comm, &me, 1, n, 100, 6))
		ok |= 1u << 4;
	/*
	 * The last rank comes late, past the driver's job timeout (set to
	 * 1 s by main()), which resets the others' waiting control streams:
	 * they are re-armed and the exchange completes within its timeout.
	 */
	if (me == n - 1) {
		struct timespec late = { LATE_NS / 1000000000, LATE_NS % 1000000000 };

		nanosleep(&late, NULL);
	}
	ok |= (unsigned int)gather_ok(comm, &me, 1, n, 64, 7) << 5;
	/* Back to the usual job timeout before the rest (abort included). */
	if (me == 0)
		job_timeout(NULL, 0, restore);
	if (me == n - 1) {
		/* Dies without joining the next exchange. */
		if (!send_result(out, ok, m1, m2))
			_exit(2);
		raise(SIGKILL);
	}
	{
		char want[48];
		unsigned char b = 1, all[MAXN];
		const void *mine[1] = { &b };
		m890_status_t st = m890_comm_allgather_host(comm, "test gather", mine, 1, all);

		if (kind)
			snprintf(want, sizeof(want), "rank %d (fabric id %u)", n - 1, fids[n - 1]);
		else
			snprintf(want, sizeof(want), "rank %d", n - 1);
		/*
		 * A timeout, or through the switch a fault of the write into
		 * the dead process's revoked window: either way naming it.
		 */
		if ((st == M890_ERROR_TIMEOUT || (kind && st == M890_ERROR_DEVICE_FAULT)) &&
		    strstr(m890_get_last_error(), want))
			ok |= 1u << 6;
		else
			printf("# rank %d: %s: %s\n", me, m890_status_string(st),
			       m890_get_last_error());
	}
	t0 = (int64_t)time(NULL);
	{
		unsigned char b = 1, all[MAXN];
		const void *mine[1] = { &b };

		/* After a fault the context is stopped: abort says so. */
		m890_status_t ab = m890_comm_abort(comm);

		if ((ab == M890_SUCCESS || (kind && ab == M890_ERROR_DEVICE_FAULT)) &&
		    (int64_t)time(NULL) - t0 < 10 &&
		    m890_comm_allgather_host(comm, "test gather", mine, 1, all) != M890_SUCCESS &&
		    m890_comm_destroy(comm) == M890_SUCCESS &&
		    m890_device_close(dev) == M890_SUCCESS)
			ok |= 1u << 7;
		else
			printf("# rank %d abort: %s\n", me, m890_get_last_error());
	}
	ok |= 1u << 8;
report:
	return send_result(out, ok, m1, m2) ? 0 : 2;
}

/* Fork one process per card for @kind and print its checks. */
static void run_kind(int kind, int n, const uint32_t *fids, const char *old)
{
	static const char *const kname[2] = { "socket", "fabric" };
	char path[64], first[2][200] = { "", "" };
	pid_t pid[MAXN];
	int fdp[MAXN][2];

	snprintf(path, sizeof(path), "/tmp/m890-meta-%d.sock", (int)getpid());
	/* For the late rank's exchange; rank 0 restores @old after it. */
	job_timeout(NULL, 0, "1000");
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		if (pipe(fdp[i]))
			exit(1);
		pid[i] = fork();
		if (pid[i] == 0) {
			close(fdp[i][0]);
			alarm(120);	/* never hang the suite */
			_exit(child(kind, i, n, path, fids, 0x3e7a0 + kind, fdp[i][1], old));
		}
		close(fdp[i][1]);
	}
	for (int i = 0; i < n; i++) {
		unsigned int ok = 0;
		char m[2][200] = { "", "" };
		int status = 0, same;
		ssize_t got = read(fdp[i][0], &ok, sizeof(ok));

		if (got != sizeof(ok) || read(fdp[i][0], m[0], 200) != 200 ||
		    read(fdp[i][0], m[1], 200) != 200)
			ok = 0;
		waitpid(pid[i], &status, 0);
		close(fdp[i][0]);
		if (!i) {
			memcpy(first, m, sizeof(first));
			printf("# refused: %s\n# refused: %s\n", m[0], m[1]);
		}
		same = !strcmp(m[0], first[0]) && !strcmp(m[1], first[1]);
		if (i == n - 1) {
			for (int k = 0; k < NALIVE; k++)
				tap_ok(ok >> k & 1 && (k < 3 || k > 4 || same), "%s, rank %d of %d: %s",
				       kname[kind], i, n, check_name[k]);
			tap_ok(WIFSIGNALED(status), "%s, rank %d of %d: killed before the next exchange",
			       kname[kind], i, n);
			continue;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ok &= ~(1u << 8);
		for (int k = 0; k < NCHECK; k++)
			tap_ok(ok >> k & 1 && (k < 3 || k > 4 || same), "%s, rank %d of %d: %s",
			       kname[kind], i, n, check_name[k]);
	}
	unlink(path);
}

int main(void)
{
	struct m890_device_info info = M890_DEVICE_INFO_INIT;
	struct m890_comm_fabric_config fc = M890_COMM_FABRIC_CONFIG_INIT;
	m890_device_t dev[MAXN];
	uint32_t fids[MAXN];
	int rk[MAXN], n;
	m890_comm_t comm;
	char old[32] = "5000";

	TAP_REQUIRE(m890_device_count(&n));
	if (n < 2) {
		tap_skip("needs two cards", "metadata exchange");
		return tap_done();
	}
	if (n > MAXN)
		n = MAXN;
	for (int i = 0; i < n; i++) {
		TAP_REQUIRE(m890_device_open(i, &dev[i]));
		TAP_REQUIRE(m890_device_get_info(dev[i], &info));
		fids[i] = info.fabric_id;
		rk[i] = i;
	}
	/* Every rank in this process: plain copies. */
	TAP_REQUIRE(m890_comm_create(dev, n, NULL, &comm));
	tap_ok(gather_ok(comm, rk, n, n, 5000, 7), "all ranks in one process: plain copy of every record");
	TAP_STATUS(m890_comm_destroy(comm), M890_SUCCESS);
	if (info.capabilities & M890_CAP_FABRIC_WINDOWS) {
		/* Every card of this process as ranks of a fabric communicator. */
		fc.comm_id = 0x3e7af;
		fc.nranks = n;
		fc.ndevices = n;
		fc.fabric_ids = fids;
		fc.devices = dev;
		TAP_STATUS(m890_comm_create_fabric(&fc, NULL, &comm), M890_SUCCESS);
		tap_ok(gather_ok(comm, rk, n, n, 40, 8) &&
		       gather_ok(comm, rk, n, n, 2 * M890_META_PAYLOAD + 1, 9),
		       "fabric, %d local ranks in one process: records of one and several rounds", n);
		TAP_STATUS(m890_comm_destroy(comm), M890_SUCCESS);
	}
	for (int i = 0; i < n; i++)
		TAP_REQUIRE(m890_device_close(dev[i]));
	tap_ok(job_timeout(old, sizeof(old), "1000"), "driver job timeout set to 1000 ms (was %s)", old);
	run_kind(0, n, fids, old);
	if (info.capabilities & M890_CAP_FABRIC_WINDOWS)
		run_kind(1, n, fids, old);
	else
		tap_skip("cards without fabric windows", "fabric kind, one process per card");
	tap_ok(job_timeout(NULL, 0, old), "driver job timeout restored to %s ms", old);
	return tap_done();
}
