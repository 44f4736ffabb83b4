// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 EP dispatch/combine with one process per card (guest)
 *
 * The test forks one process per card.  Each opens only its card, joins
 * an m890_comm_create_rank() communicator, registers its receive and
 * expert output buffers and runs the steps of tests/lib/ep_ranks.h for
 * its rank: bf16, MXFP8 and MXFP4 dispatch and combine bit-exact against
 * the host reference, twice with identical bytes, the global per-expert
 * counts, a capacity overflow refused identically at every rank with no
 * receive buffer written, one rank's unregistered buffer refusing the
 * call at every rank, and finally the last rank's process killed before
 * a dispatch, which every other rank must report as a timeout naming it.
 * Each child reports its checks through a pipe; the parent prints one
 * TAP line per check and rank.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "ep_ranks.h"

static struct epr_proc proc;

/* The child of rank @me: the checks it passed, or 0 if it could not start. */
static unsigned int child(int me, int n, const char *path, int fd)
{
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	struct epr_proc *p = &proc;
	unsigned int ok;

	cfg.timeout_ns = 20000000000ull;
	p->n = n;
	p->m = 1;
	p->rank[0] = me;
	if (m890_device_open(me, &p->dev[0]) ||
	    m890_stream_create(p->dev[0], &p->str[0]) ||
	    m890_comm_create_rank(p->dev[0], me, n, path, &cfg, &p->comm) ||
	    epr_setup(p)) {
		printf("# rank %d setup: %s\n", me, m890_get_last_error());
		return 0;
	}
	ok = epr_run(p, 1, fd);
	m890_stream_destroy(p->str[0]);
	m890_device_close(p->dev[0]);
	return ok;
}

int main(void)
{
	pid_t pid[EPR_MAXN];
	int n, fdp[EPR_MAXN][2];
	char path[64];

	if (m890_device_count(&n) || n < 2) {
		tap_skip("needs two cards", "EP with one process per card");
		return tap_done();
	}
	if (n > EPR_MAXN)
		n = EPR_MAXN;
	snprintf(path, sizeof(path), "/tmp/m890-ep-mproc-%d.sock", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		if (pipe(fdp[i]))
			return 1;
		pid[i] = fork();
		if (pid[i] == 0) {
			unsigned int ok;

			close(fdp[i][0]);
			alarm(300);	/* never hang the suite */
			ok = child(i, n, path, fdp[i][1]);
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
		if (got != sizeof(ok))
			ok = 0;
		/* The last rank is killed on purpose, the others exit. */
		if (i == n - 1 ? !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL :
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ok &= ~(1u << EPR_TEARDOWN);
		for (int k = 0; k < EPR_NCHECK; k++)
			tap_ok(ok >> k & 1, "rank %d of %d: %s%s", i, n,
			       epr_check_name[k],
			       i == n - 1 && k == EPR_KILLED ? " (this rank was killed)" : "");
	}
	unlink(path);
	return tap_done();
}
