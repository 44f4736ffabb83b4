// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl-test-dumpintr - a port dump interrupted by a change
 *
 * The "icn" family's dumps span several messages and must set
 * NLM_F_DUMP_INTR when the fabric changes while they run.  This test reads
 * a PORT_GET dump on a plain netlink socket with a 4 KiB receive buffer,
 * which makes the kernel size every dump message to 4 KiB (about twenty
 * ports, so 64 ports take four messages), and changes a port's admin
 * state after the first message arrived.  The kernel builds at most one
 * message ahead of the reader, so from the third message on the dump
 * reflects the change: at least one message must carry NLM_F_DUMP_INTR.
 * A dump with no change must carry none, and every port must appear once
 * in it.  Needs root (the change) and two cards.  Prints TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include <linux/icn_netlink.h>

static int n, failed;

static void ok(int cond, const char *what)
{
	n++;
	if (!cond)
		failed = 1;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, what);
}

static int family_id(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int id = -1;

	if (sk && genl_connect(sk) == 0)
		id = genl_ctrl_resolve(sk, ICN_FAMILY_NAME);
	nl_socket_free(sk);
	return id;
}

struct dump_result {
	int datagrams;		/* messages the kernel sent (recv calls) */
	int ports;		/* port objects received */
	int intr;		/* objects flagged NLM_F_DUMP_INTR */
	int first_intr;		/* datagram of the first flag, 0-based */
	int error;		/* errno of an NLMSG_ERROR, 0 if none */
};

/*
 * Dump every port; after the first datagram run @between (if not NULL).
 * Returns 0 when the dump ended with NLMSG_DONE.
 */
static int dump_ports(int family, const char *between, struct dump_result *r)
{
	struct {
		struct nlmsghdr nlh;
		struct genlmsghdr genl;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = (unsigned short)family,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = 1,
		},
		.genl = { .cmd = ICN_CMD_PORT_GET, .version = ICN_FAMILY_VERSION },
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	static char buf[4096] __attribute__((aligned(4)));
	int fd, done = 0;
	ssize_t len;

	memset(r, 0, sizeof(*r));
	r->first_intr = -1;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("netlink");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (!done) {
		len = recv(fd, buf, sizeof(buf), 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			perror("recv");
			break;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				r->error = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
				done = 1;
				break;
			}
			r->ports++;
			if (h->nlmsg_flags & NLM_F_DUMP_INTR) {
				r->intr++;
				if (r->first_intr < 0)
					r->first_intr = r->datagrams;
			}
		}
		r->datagrams++;
		if (r->datagrams == 1 && between && system(between) != 0)
			fprintf(stderr, "# \"%s\" failed\n", between);
	}
	close(fd);
	return done && !r->error ? 0 : -1;
}

int main(void)
{
	struct dump_result r;
	char msg[160];
	int family;

	family = family_id();
	if (family < 0) {
		printf("ok 1 - port dump # SKIP the icn family is missing\n1..1\n");
		return 0;
	}
	if (geteuid() != 0) {
		printf("ok 1 - port dump # SKIP needs root to change a port\n1..1\n");
		return 0;
	}

	ok(dump_ports(family, NULL, &r) == 0, "a quiet dump completes");
	snprintf(msg, sizeof(msg), "a quiet dump: 64 ports in %d messages", r.datagrams);
	ok(r.ports == 64 && r.datagrams >= 3, msg);
	ok(r.intr == 0, "a quiet dump is not flagged NLM_F_DUMP_INTR");

	ok(dump_ports(family, "icnctl port set 1 state down", &r) == 0,
	   "a dump during a change completes");
	snprintf(msg, sizeof(msg), "%d of %d ports flagged NLM_F_DUMP_INTR, from message %d",
		 r.intr, r.ports, r.first_intr);
	ok(r.intr > 0 && r.first_intr >= 1, msg);
	ok(system("icnctl port set 1 state up") == 0, "port 1 up again");

	ok(dump_ports(family, NULL, &r) == 0 && r.intr == 0,
	   "the next quiet dump is not flagged");
	ok(system("icnctl port show 1 | grep -q 'oper up'") == 0,
	   "icnctl (which restarts interrupted dumps) sees port 1 up");
	printf("1..%d\n", n);
	return failed;
}
