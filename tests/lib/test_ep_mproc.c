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
#include <stdio.h>
#include <unistd.h>

#include "ep_ranks.h"

static struct epr_proc proc;

struct job {
	int n;
	char path[64];	/* the bootstrap socket */
};

/* The child of rank @me: the checks it passed, or 0 if it could not start. */
static unsigned int child(int me, int fd, void *arg)
{
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	const struct job *job = arg;
	struct epr_proc *p = &proc;
	unsigned int ok;

	cfg.timeout_ns = 20000000000ull;
	p->timeout_ns = cfg.timeout_ns;
	p->n = job->n;
	p->m = 1;
	p->rank[0] = me;
	if (m890_device_open(me, &p->dev[0]) ||
	    m890_stream_create(p->dev[0], &p->str[0]) ||
	    m890_comm_create_rank(p->dev[0], me, p->n, job->path, &cfg,
				  &p->comm) ||
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
	int n, rank[EPR_MAXN];
	struct job job;

	if (m890_device_count(&n) || n < 2) {
		tap_skip("needs two cards", "EP with one process per card");
		return tap_done();
	}
	if (n > EPR_MAXN)
		n = EPR_MAXN;
	for (int i = 0; i < n; i++)
		rank[i] = i;
	job.n = n;
	snprintf(job.path, sizeof(job.path), "/tmp/m890-ep-mproc-%d.sock",
		 (int)getpid());
	epr_fork(n, n, rank, "one process per card", child, &job);
	unlink(job.path);
	return tap_done();
}
