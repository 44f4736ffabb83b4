// SPDX-License-Identifier: MIT
/*
 * DOC: host unit test of libm890's process bootstrap (bootstrap.c)
 *
 * Real processes and real Unix sockets, no card: 1, 2 and 5 forked ranks
 * meet at a socket path and all-gather a value and a memfd per rank (each
 * rank checks that every peer's descriptor holds that peer's text), then
 * all-gather again without descriptors.  Then the failures: a path too
 * long, a rank that waits for a rank 0 that never comes (timeout), two
 * processes claiming one rank, and a rank that exits in the middle of an
 * all-gather (the others get an error, nobody hangs).  Built plain and
 * with ASan/UBSan; prints TAP.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

#define SEC 1000000000ull

static int n_ok, n_fail;

static void ok(int good, const char *what, ...)
	__attribute__((format(printf, 2, 3)));
static void ok(int good, const char *what, ...)
{
	va_list ap;

	printf("%sok %d - ", good ? "" : "not ", n_ok + n_fail + 1);
	va_start(ap, what);
	vprintf(what, ap);
	va_end(ap);
	printf("\n");
	if (good)
		n_ok++;
	else
		n_fail++;
	fflush(stdout);
}

/* One rank's part of a good run: 0 on success, else the failing step. */
static int good_rank(const char *path, int rank, int n)
{
	struct m890_boot *b;
	uint64_t vals[8];
	int fds[8], fd, step = 1;
	char text[32];

	if (m890_boot_open(path, rank, n, 10 * SEC, &b))
		return step;
	step++;
	fd = memfd_create("boot-test", MFD_CLOEXEC);
	snprintf(text, sizeof(text), "rank %d", rank);
	if (fd < 0 || pwrite(fd, text, sizeof(text), 0) != sizeof(text) ||
	    m890_boot_allgather(b, 1000 + rank, fd, vals, fds))
		return step;
	close(fd);
	step++;
	for (int k = 0; k < n; k++) {
		char got[32] = "";

		if (vals[k] != 1000u + k)
			return step;
		if (k == rank) {
			if (fds[k] != -1)
				return step + 1;
			continue;
		}
		snprintf(text, sizeof(text), "rank %d", k);
		if (fds[k] < 0 || pread(fds[k], got, sizeof(got), 0) != sizeof(got) ||
		    strcmp(got, text))
			return step + 2;
		close(fds[k]);
	}
	step += 3;
	if (m890_boot_allgather(b, 7, -1, vals, fds))
		return step;
	for (int k = 0; k < n; k++)
		if (vals[k] != 7 || fds[k] != -1)
			return step + 1;
	m890_boot_close(b);
	return 0;
}

/* Fork @n ranks running @fn; returns how many exited with status 0. */
static int run_ranks(int n, const char *path,
		     int (*fn)(const char *, int, int), int *status)
{
	pid_t pid[8];
	int good = 0;

	fflush(stdout);
	for (int r = 0; r < n; r++) {
		pid[r] = fork();
		if (pid[r] == 0) {
			alarm(30);
			_exit(fn(path, r, n));
		}
	}
	for (int r = 0; r < n; r++) {
		int st = 0;

		waitpid(pid[r], &st, 0);
		if (status)
			status[r] = st;
		good += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	return good;
}

/* Rank 2 of 3 exits after connecting; the others must fail, not hang. */
static int dying_rank(const char *path, int rank, int n)
{
	struct m890_boot *b;
	uint64_t vals[8];
	int fds[8];
	m890_status_t st;

	if (m890_boot_open(path, rank, n, 3 * SEC, &b))
		return 10;
	if (rank == n - 1)
		_exit(0);
	st = m890_boot_allgather(b, 1, -1, vals, fds);
	m890_boot_close(b);
	/* 0 = failed cleanly with a status, as wanted. */
	return st == M890_SUCCESS ? 11 : 0;
}

/* Ranks 1 and 2 both say they are rank 1. */
static int twin_rank(const char *path, int rank, int n)
{
	struct m890_boot *b;
	m890_status_t st = m890_boot_open(path, rank == 2 ? 1 : rank, n, 2 * SEC, &b);

	if (!st)
		m890_boot_close(b);
	/* Rank 0 must refuse; each rank reports what it saw. */
	return rank == 0 ? (st == M890_ERROR_INVALID_ARGUMENT ? 0 : 1) : 0;
}

int main(void)
{
	char path[64], lng[200];
	struct m890_boot *b;
	int status[8];

	snprintf(path, sizeof(path), "/tmp/m890-boot-test-%d.sock", (int)getpid());
	ok(run_ranks(1, path, good_rank, NULL) == 1,
	   "one rank: all-gather of itself (%d process)", 1);
	ok(run_ranks(2, path, good_rank, NULL) == 2,
	   "%d ranks: values and memfds of every peer arrive, then values alone", 2);
	ok(run_ranks(5, path, good_rank, NULL) == 5,
	   "%d ranks: values and memfds of every peer arrive, then values alone", 5);
	ok(access(path, F_OK) != 0, "rank 0 removed the socket file");

	memset(lng, 'x', sizeof(lng) - 1);
	lng[0] = '/';
	lng[sizeof(lng) - 1] = 0;
	ok(m890_boot_open(lng, 0, 2, SEC, &b) == M890_ERROR_INVALID_ARGUMENT,
	   "a path longer than sun_path is refused");
	ok(m890_boot_open(path, 1, 2, SEC / 5, &b) == M890_ERROR_TIMEOUT &&
	   strstr(m890_get_last_error(), "rank 0 did not listen"),
	   "rank 1 with no rank 0 times out naming it");
	ok(m890_boot_open(path, 0, 2, SEC / 5, &b) == M890_ERROR_TIMEOUT &&
	   strstr(m890_get_last_error(), "only 1 of 2"),
	   "rank 0 with nobody else times out counting the ranks");
	run_ranks(3, path, twin_rank, status);
	ok(WIFEXITED(status[0]) && WEXITSTATUS(status[0]) == 0,
	   "two processes claiming rank 1: rank 0 refuses (%d ranks)", 3);
	ok(run_ranks(3, path, dying_rank, status) == 3,
	   "a rank that exits during an all-gather: the other %d fail cleanly", 2);
	unlink(path);
	printf("1..%d\n", n_ok + n_fail);
	printf("# %d passed, %d failed\n", n_ok, n_fail);
	return n_fail != 0;
}
