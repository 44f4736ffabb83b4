// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 bootstrap socket tests (guest, root, two cards)
 *
 * m890_comm_create_rank() meets the other ranks at a Unix socket path
 * that is a shared name, so rank 0 must not trust what it finds there:
 *
 * - a regular file at the path is neither removed nor replaced: rank 0
 *   fails with M890_ERROR_PERMISSION and the file keeps its contents;
 * - a stale socket of the same user (nobody listens) is replaced, and
 *   two ranks in two processes meet;
 * - a process of another user that connects first and claims rank 1 is
 *   dropped (SO_PEERCRED) without an answer: the real rank 1, started
 *   only once the intruder has connected, joins and both ranks succeed.
 *   Rank 0 runs with umask 0 here, so its socket is reachable by others.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#define PATH	"/tmp/m890-bootstrap-test.sock"
#define NOBODY	65534

/* The bootstrap's first message (libm890/src/bootstrap.c). */
struct boot_msg {
	uint64_t magic;
	int32_t rank;
	uint32_t has_fd;
	uint64_t val;
};

/* Rank @rank of 2 on card @rank; returns the status, message in @msg. */
static m890_status_t join(int rank, uint64_t timeout_ns, char *msg, size_t len)
{
	struct m890_comm_config cfg = M890_COMM_CONFIG_INIT;
	m890_device_t dev;
	m890_comm_t comm;
	m890_status_t st;

	cfg.timeout_ns = timeout_ns;
	st = m890_device_open(rank, &dev);
	if (st) {
		snprintf(msg, len, "%s", m890_get_last_error());
		return st;
	}
	st = m890_comm_create_rank(dev, rank, 2, PATH, &cfg, &comm);
	snprintf(msg, len, "%s", st ? m890_get_last_error() : "");
	if (!st)
		m890_comm_destroy(comm);
	m890_device_close(dev);
	return st;
}

/*
 * Fork rank 1; its status is its exit code.  It starts after @delay_ms,
 * or, with @ready >= 0, once a byte arrives on @ready (the intruder has
 * connected: an order a fixed delay cannot promise on a loaded host).
 */
static pid_t fork_rank1(unsigned int delay_ms, int ready)
{
	pid_t pid = fork();
	char msg[512], c;
	m890_status_t st;

	if (pid)
		return pid;
	if (ready >= 0) {
		if (read(ready, &c, 1) != 1)
			_exit(90);
	} else {
		usleep(delay_ms * 1000);
	}
	st = join(1, 20000000000ull, msg, sizeof(msg));
	if (st)
		printf("# rank 1: %s\n", msg);
	fflush(stdout);
	_exit((int)st);
}

static int wait_status(pid_t pid)
{
	int ws;

	if (waitpid(pid, &ws, 0) != pid)
		return -1;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/*
 * A process of user NOBODY that connects, tells @ready, and claims rank 1.
 * Exit 0: rank 0 dropped it (the send failed or the connection closed
 * without a word); 4: it never connected; 6: rank 0 answered it as a rank;
 * 128 + SIGALRM: never dropped.
 */
static pid_t fork_intruder(int ready)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct boot_msg m = { 0x4d38425430303031ull, 1, 0, 0 };
	pid_t pid = fork();
	char reply[64];
	int s, i;

	if (pid)
		return pid;
	alarm(60);
	if (setgid(NOBODY) || setuid(NOBODY))
		_exit(3);
	strcpy(sa.sun_path, PATH);
	s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	for (i = 0; i < 2000 && connect(s, (struct sockaddr *)&sa, sizeof(sa)); i++)
		usleep(5000);
	if (write(ready, "c", 1) != 1 || i == 2000)
		_exit(4);
	if (send(s, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m))
		_exit(0);	/* dropped before it could speak */
	_exit(recv(s, reply, sizeof(reply), 0) > 0 ? 6 : 0);
}

int main(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char msg[512], buf[16] = "";
	m890_status_t st;
	pid_t r1, bad;
	int fd, count = 0, ready[2], ws;

	if (m890_device_count(&count) || count < 2 || geteuid()) {
		tap_skip("needs root and two cards", "bootstrap socket tests");
		return tap_done();
	}

	/* A regular file at the path stays. */
	unlink(PATH);
	fd = open(PATH, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, "precious", 8) != 8) {
		tap_ok(0, "create a file at %s", PATH);
		return tap_done();
	}
	close(fd);
	st = join(0, 500000000ull, msg, sizeof(msg));
	tap_ok(st == M890_ERROR_PERMISSION && strstr(msg, "not replaced"),
	       "rank 0 refuses a regular file at the path: %s", msg);
	fd = open(PATH, O_RDONLY);
	tap_ok(fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 8 && !strcmp(buf, "precious"),
	       "the file is still there, unchanged");
	if (fd >= 0)
		close(fd);
	unlink(PATH);

	/* A stale socket of this user is replaced; two ranks meet. */
	strcpy(sa.sun_path, PATH);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	tap_ok(fd >= 0 && !bind(fd, (struct sockaddr *)&sa, sizeof(sa)),
	       "a stale socket left at the path");
	close(fd);
	r1 = fork_rank1(100, -1);
	st = join(0, 20000000000ull, msg, sizeof(msg));
	tap_ok(st == M890_SUCCESS, "rank 0 replaces the stale socket and meets rank 1: %s",
	       st ? msg : "ok");
	tap_ok(wait_status(r1) == 0, "rank 1 meets rank 0");
	tap_ok(access(PATH, F_OK) != 0, "rank 0 removed its socket");

	/* Another user connects first and claims rank 1: dropped. */
	umask(0);
	if (pipe(ready)) {
		tap_ok(0, "pipe");
		return tap_done();
	}
	bad = fork_intruder(ready[1]);
	r1 = fork_rank1(0, ready[0]);
	close(ready[0]);
	close(ready[1]);
	st = join(0, 20000000000ull, msg, sizeof(msg));
	tap_ok(st == M890_SUCCESS,
	       "rank 0 drops another user's connection and meets the real rank 1: %s",
	       st ? msg : "ok");
	tap_ok(wait_status(r1) == 0, "the real rank 1 is not refused as taken");
	ws = wait_status(bad);
	tap_ok(ws == 0, "the intruder connected and was dropped (status %d)", ws);
	umask(022);
	unlink(PATH);
	return tap_done();
}
