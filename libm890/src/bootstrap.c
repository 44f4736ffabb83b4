// SPDX-License-Identifier: MIT
/*
 * DOC: bootstrap of communicators across processes
 *
 * Ranks in different processes of one machine meet at a Unix socket path
 * they all know.  Rank 0 binds a SOCK_SEQPACKET socket there and accepts
 * one connection per other rank; the others connect, retrying until the
 * deadline, and say their rank.
 *
 * The path is a shared name, so neither side trusts what it finds there.
 * Rank 0 replaces only a stale socket of its own user (nobody listens on
 * it); anything else at the path (a file, a link, a directory, another
 * user's socket, a live listener) is left alone and the call fails.  At
 * the end it removes the path only if it is still the socket it bound.
 * Both sides check who is at the other end (SO_PEERCRED): rank 0 drops a
 * connection from another user (the socket may be reachable by others:
 * umask, a shared directory) without letting it claim a rank, and the
 * other ranks refuse a rank 0 of another user.  The only
 * operation is an all-gather of one 64-bit value and one file descriptor
 * per rank, star-shaped through rank 0: each rank sends its message (the
 * descriptor as SCM_RIGHTS ancillary data) to rank 0, which then sends
 * every rank's message to every rank.  Communicators use it to pass the
 * dma-bufs of their HBM areas, so that each process imports its peers'
 * memory as windows; nothing else goes through the socket, and the
 * collectives themselves never touch it.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define BOOT_MAGIC 0x4d38425430303031ull	/* "M8BT0001" */

struct boot_msg {
	uint64_t magic;
	int32_t rank;
	uint32_t has_fd;
	uint64_t val;
};

struct m890_boot {
	int n, rank;
	int *sock;		/* rank 0: [n], socket of rank j; else [1] */
	int64_t deadline;	/* for every operation */
};

static void set_timeouts(int fd, uint64_t timeout_ns)
{
	struct timeval tv;

	if (timeout_ns == M890_TIMEOUT_INFINITE)
		return;
	tv.tv_sec = (time_t)(timeout_ns / 1000000000ull);
	tv.tv_usec = (suseconds_t)(timeout_ns % 1000000000ull / 1000);
	if (!tv.tv_sec && !tv.tv_usec)
		tv.tv_usec = 1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static m890_status_t send_msg(int sock, int32_t rank, uint64_t val, int fd)
{
	struct boot_msg m = { BOOT_MAGIC, rank, fd >= 0, val };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) != (ssize_t)sizeof(m))
		return m890_fail_errno(errno ? errno : EPROTO,
				       "bootstrap: send to a peer process");
	return M890_SUCCESS;
}

static m890_status_t recv_msg(int sock, struct boot_msg *m, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	ssize_t got;

	*fd = -1;
	got = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return m890_fail(M890_ERROR_TIMEOUT,
				 "bootstrap: no message from a peer process in time");
	if (got < 0)
		return m890_fail_errno(errno, "bootstrap: receive from a peer process");
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	if (got == 0)
		return m890_fail(M890_ERROR_SYSTEM,
				 "bootstrap: a peer process closed its connection (exited?)");
	if (got != (ssize_t)sizeof(*m) || m->magic != BOOT_MAGIC ||
	    (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    (m->has_fd != 0) != (*fd >= 0)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return m890_fail(M890_ERROR_SYSTEM,
				 "bootstrap: malformed message from a peer process");
	}
	return M890_SUCCESS;
}

void m890_boot_close(struct m890_boot *b)
{
	if (!b)
		return;
	for (int i = 0; i < (b->rank ? 1 : b->n); i++)
		if (b->sock[i] >= 0)
			close(b->sock[i]);
	free(b->sock);
	free(b);
}

static int64_t boot_deadline(uint64_t timeout_ns)
{
	int64_t now = m890_monotonic_ns();

	if (timeout_ns == M890_TIMEOUT_INFINITE ||
	    timeout_ns > (uint64_t)(INT64_MAX - now))
		return INT64_MAX;
	return now + (int64_t)timeout_ns;
}

/* The user at the other end of connected socket @s, or -1. */
static long peer_uid(int s)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &len) || len != sizeof(cr))
		return -1;
	return (long)cr.uid;
}

/*
 * Bind @lfd at @sa.  A socket of this user that nobody listens on (left by
 * a process that died) is replaced; anything else at the path is not
 * touched.  The bound socket's identity goes to @mine.
 */
static m890_status_t boot_bind(int lfd, const struct sockaddr_un *sa, struct stat *mine)
{
	const char *path = sa->sun_path;
	struct stat old;
	int probe;

	if (!bind(lfd, (const struct sockaddr *)sa, sizeof(*sa)))
		goto bound;
	if (errno != EADDRINUSE)
		return m890_fail_errno(errno, "bootstrap: bind to %s", path);
	if (lstat(path, &old))
		return m890_fail_errno(errno, "bootstrap: %s", path);
	if (!S_ISSOCK(old.st_mode) || old.st_uid != geteuid())
		return m890_fail(M890_ERROR_PERMISSION,
				 "bootstrap: %s exists and is not a socket of this user; not replaced (choose another path)",
				 path);
	probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (probe < 0)
		return m890_fail_errno(errno, "bootstrap: socket");
	if (!connect(probe, (const struct sockaddr *)sa, sizeof(*sa)) || errno != ECONNREFUSED) {
		close(probe);
		return m890_fail(M890_ERROR_BUSY,
				 "bootstrap: %s is in use by a live listener; not replaced",
				 path);
	}
	close(probe);
	/* Stale: ours and dead.  Replace it. */
	if (unlink(path) || bind(lfd, (const struct sockaddr *)sa, sizeof(*sa)))
		return m890_fail_errno(errno, "bootstrap: bind to %s", path);
bound:
	if (lstat(path, mine))
		return m890_fail_errno(errno, "bootstrap: %s", path);
	return M890_SUCCESS;
}

/* Remove @path if it is still the socket boot_bind() made (@mine). */
static void boot_unlink(const char *path, const struct stat *mine)
{
	struct stat now;

	if (!lstat(path, &now) && now.st_dev == mine->st_dev && now.st_ino == mine->st_ino)
		unlink(path);
}

static m890_status_t boot_root(struct m890_boot *b, const struct sockaddr_un *sa,
			       uint64_t timeout_ns)
{
	int lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	m890_status_t st = M890_SUCCESS;
	unsigned int foreign = 0;
	struct stat mine;

	if (lfd < 0)
		return m890_fail_errno(errno, "bootstrap: socket");
	st = boot_bind(lfd, sa, &mine);
	if (st) {
		close(lfd);
		return st;
	}
	if (listen(lfd, b->n)) {
		st = m890_fail_errno(errno, "bootstrap: listen on %s", sa->sun_path);
		goto out;
	}
	for (int got = 1; got < b->n && !st;) {
		struct pollfd p = { lfd, POLLIN, 0 };
		int64_t left = b->deadline - m890_monotonic_ns();
		struct boot_msg m;
		int s, fd;

		if (poll(&p, 1, left <= 0 ? 0 : left > INT32_MAX * 1000000ll ?
			 -1 : (int)(left / 1000000)) <= 0) {
			st = m890_fail(M890_ERROR_TIMEOUT,
				       "bootstrap: only %d of %d ranks connected to %s in time (%u connection(s) of other users refused)",
				       got, b->n, sa->sun_path, foreign);
			break;
		}
		s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (s < 0) {
			st = m890_fail_errno(errno, "bootstrap: accept");
			break;
		}
		/* Another user cannot claim a rank: drop it and go on waiting. */
		if (peer_uid(s) != (long)geteuid()) {
			close(s);
			foreign++;
			continue;
		}
		set_timeouts(s, timeout_ns);
		st = recv_msg(s, &m, &fd);
		if (!st && (fd >= 0 || m.rank < 1 || m.rank >= b->n ||
			    b->sock[m.rank] >= 0))
			st = m890_fail(M890_ERROR_INVALID_ARGUMENT,
				       "bootstrap: a process says it is rank %d of %d (bad or taken)",
				       m.rank, b->n);
		if (fd >= 0)
			close(fd);
		if (st) {
			close(s);
			break;
		}
		b->sock[m.rank] = s;
		got++;
	}
out:
	close(lfd);
	boot_unlink(sa->sun_path, &mine);
	return st;
}

m890_status_t m890_boot_open(const char *path, int rank, int n,
			     uint64_t timeout_ns, struct m890_boot **out)
{
	struct sockaddr_un sa;
	struct m890_boot *b;
	m890_status_t st = M890_SUCCESS;

	if (!path || strlen(path) >= sizeof(sa.sun_path) || !*path)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "bootstrap: the socket path must have 1..%zu bytes",
				 sizeof(sa.sun_path) - 1);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	b = calloc(1, sizeof(*b));
	if (!b || !(b->sock = malloc(sizeof(int) * (rank ? 1 : (size_t)n)))) {
		free(b);
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "bootstrap");
	}
	b->n = n;
	b->rank = rank;
	b->deadline = boot_deadline(timeout_ns);
	for (int i = 0; i < (rank ? 1 : n); i++)
		b->sock[i] = -1;
	if (!rank) {
		st = boot_root(b, &sa, timeout_ns);
	} else {
		int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

		if (s < 0) {
			st = m890_fail_errno(errno, "bootstrap: socket");
		} else {
			b->sock[0] = s;
			/*
			 * Rank 0 may not listen yet, or a stale file lingers.
			 * Retried after a bare sleep: another process creating
			 * the socket raises no event this one could wait on
			 * short of inotify on the directory, which a stale file
			 * or a directory shared with other users would fool.
			 */
			while (connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
				struct timespec ts = { 0, 10000000 };

				if ((errno != ENOENT && errno != ECONNREFUSED) ||
				    m890_monotonic_ns() > b->deadline) {
					st = errno == ENOENT || errno == ECONNREFUSED ?
					     m890_fail(M890_ERROR_TIMEOUT,
						       "bootstrap: rank 0 did not listen on %s in time",
						       path) :
					     m890_fail_errno(errno, "bootstrap: connect to %s",
							     path);
					break;
				}
				nanosleep(&ts, NULL);
			}
			if (!st && peer_uid(s) != (long)geteuid())
				st = m890_fail(M890_ERROR_PERMISSION,
					       "bootstrap: %s is served by user %ld, not by this user (%ld)",
					       path, peer_uid(s), (long)geteuid());
			if (!st) {
				set_timeouts(s, timeout_ns);
				st = send_msg(s, rank, 0, -1);
			}
		}
	}
	if (st) {
		m890_boot_close(b);
		return st;
	}
	*out = b;
	return M890_SUCCESS;
}

m890_status_t m890_boot_allgather(struct m890_boot *b, uint64_t val, int fd,
				  uint64_t *vals, int *fds)
{
	m890_status_t st = M890_SUCCESS;
	struct boot_msg m;
	int got;

	for (int i = 0; i < b->n; i++)
		fds[i] = -1;
	vals[b->rank] = val;
	if (b->rank) {
		st = send_msg(b->sock[0], b->rank, val, fd);
		for (int k = 0; k < b->n && !st; k++) {
			st = recv_msg(b->sock[0], &m, &got);
			if (!st && m.rank != k)
				st = m890_fail(M890_ERROR_SYSTEM,
					       "bootstrap: rank 0 sent rank %d's data out of order",
					       m.rank);
			if (!st) {
				vals[k] = m.val;
				if (k != b->rank)
					fds[k] = got;
				else if (got >= 0)
					close(got);
			} else if (got >= 0) {
				close(got);
			}
		}
	} else {
		for (int j = 1; j < b->n && !st; j++) {
			st = recv_msg(b->sock[j], &m, &got);
			if (!st && m.rank != j)
				st = m890_fail(M890_ERROR_SYSTEM,
					       "bootstrap: rank %d's socket sent rank %d's data",
					       j, m.rank);
			if (!st) {
				vals[j] = m.val;
				fds[j] = got;
			} else if (got >= 0) {
				close(got);
			}
		}
		for (int j = 1; j < b->n && !st; j++)
			for (int k = 0; k < b->n && !st; k++)
				st = send_msg(b->sock[j], k, vals[k],
					      k ? fds[k] : fd);
	}
	if (st) {
		/* close() leaves the last error alone. */
		for (int i = 0; i < b->n; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		return m890_fail_wrap(st, NULL, "rank %d of %d", b->rank, b->n);
	}
	return M890_SUCCESS;
}
