// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl netlink transport
 *
 * One request per call: connect a generic netlink socket, resolve the
 * "icn" family, send a do or dump request and feed every reply's
 * attributes to a handler.  libnl's default error handling turns the
 * kernel's errno into its own codes and drops the extended ACK, so this
 * file installs its own error callback: it keeps the raw errno and the
 * kernel's extack message and reports them with the cause spelled out
 * (permission, family missing, the kernel's own text).  A dump interrupted
 * by a concurrent change (NLM_F_DUMP_INTR) is retried a few times.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct req_state {
	icn_msg_fn fn;
	void *arg;
	bool done;
	int err;		/* raw errno from the kernel, 0 if none */
	int handler_err;	/* non-zero when the handler failed */
	char extack[256];
};

/* The message being passed to a handler (single-threaded tool). */
static struct nlmsghdr *cur_nlh;

struct nlattr *icn_nl_attrs(int *len)
{
	if (!cur_nlh) {
		*len = 0;
		return NULL;
	}
	*len = genlmsg_attrlen(nlmsg_data(cur_nlh), 0);
	return genlmsg_attrdata(nlmsg_data(cur_nlh), 0);
}

static int valid_cb(struct nl_msg *msg, void *data)
{
	struct req_state *st = data;
	struct nlattr *tb[ICN_A_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int ret;

	ret = genlmsg_parse(nlh, 0, tb, ICN_A_MAX, NULL);
	if (ret < 0) {
		fprintf(stderr, "icnctl: malformed reply from the kernel: %s\n",
			nl_geterror(ret));
		st->handler_err = EXIT_FAIL;
		return NL_STOP;
	}
	cur_nlh = nlh;
	ret = st->fn ? st->fn(tb, st->arg) : 0;
	cur_nlh = NULL;
	if (ret) {
		st->handler_err = EXIT_FAIL;
		return NL_STOP;
	}
	return NL_OK;
}

/* Extended ACK attributes follow the (possibly capped) echoed request. */
static void parse_extack(struct nlmsgerr *e, struct req_state *st)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);
	int len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)off;
	if (len <= 0)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)e + off), len, NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(st->extack, sizeof(st->extack), "%s",
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
}

static int error_cb(struct sockaddr_nl *who, struct nlmsgerr *e, void *data)
{
	struct req_state *st = data;

	(void)who;
	st->err = -e->error;
	parse_extack(e, st);
	st->done = true;
	return NL_STOP;
}

/*
 * End of a dump or a plain ACK.  A dump that failed at its start (no card,
 * say) ends with NLMSG_DONE carrying the negative errno, followed by the
 * extack attributes when NLM_F_ACK_TLVS is set: report it as an error.
 */
static int finish_cb(struct nl_msg *msg, void *data)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct req_state *st = data;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int err, len;

	st->done = true;
	if (nlh->nlmsg_type != NLMSG_DONE || nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(err))
		return NL_STOP;
	memcpy(&err, nlmsg_data(nlh), sizeof(err));
	if (err >= 0)
		return NL_STOP;
	st->err = -err;
	len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)NLMSG_ALIGN(sizeof(err));
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && len > 0 &&
	    nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)nlmsg_data(nlh) + NLMSG_ALIGN(sizeof(err))),
		      len, NULL) >= 0 && tb[NLMSGERR_ATTR_MSG])
		snprintf(st->extack, sizeof(st->extack), "%s",
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

static int report_errno(const struct req_state *st, const char *what)
{
	const char *ctx = st->extack[0] ? st->extack : NULL;

	if (st->err == EPERM || st->err == EACCES)
		fprintf(stderr, "icnctl: %s: operation not permitted: need CAP_NET_ADMIN%s%s\n",
			what, ctx ? ": " : "", ctx ? ctx : "");
	else if (ctx)
		fprintf(stderr, "icnctl: %s: %s (%s)\n", what, ctx,
			strerror(st->err));
	else
		fprintf(stderr, "icnctl: %s: %s\n", what, strerror(st->err));
	return EXIT_FAIL;
}

static int do_request(struct nl_sock *sk, int family,
		      const struct icn_req *req, struct req_state *st,
		      bool *interrupted)
{
	struct nl_msg *msg;
	struct nl_cb *cb;
	int ret;

	*interrupted = false;
	msg = nlmsg_alloc();
	if (!msg)
		return -NLE_NOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			 req->dump ? NLM_F_DUMP : 0, req->cmd,
			 ICN_FAMILY_VERSION) ||
	    (req->has_port && nla_put_u32(msg, ICN_A_PORT_INDEX, req->port)) ||
	    (req->has_admin &&
	     nla_put_u32(msg, ICN_A_PORT_ADMIN_STATE, req->admin_state)) ||
	    (req->has_card && nla_put_u32(msg, ICN_A_CARD_FABRIC_ID, req->card))) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	for (int i = 0; i < req->nattrs; i++) {
		uint16_t t = req->attrs[i].type;
		uint64_t v = req->attrs[i].val;

		ret = req->attrs[i].bytes == 1 ? nla_put_u8(msg, t, (uint8_t)v) :
		      req->attrs[i].bytes == 4 ? nla_put_u32(msg, t, (uint32_t)v) :
		      nla_put_u64(msg, t, v);
		if (ret < 0) {
			nlmsg_free(msg);
			return ret;
		}
	}
	ret = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		return ret;

	cb = nl_cb_alloc(NL_CB_CUSTOM);
	if (!cb)
		return -NLE_NOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, st);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, finish_cb, st);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, finish_cb, st);
	nl_cb_err(cb, NL_CB_CUSTOM, error_cb, st);
	ret = 0;
	while (!st->done && !st->handler_err) {
		ret = nl_recvmsgs(sk, cb);
		if (ret == -NLE_DUMP_INTR) {
			*interrupted = true;
			ret = 0;
			break;
		}
		if (ret < 0 && !st->err)
			break;
		ret = 0;
	}
	nl_cb_put(cb);
	return ret;
}

/* A connected socket and the family id, or NULL after printing why. */
static struct nl_sock *icn_open(int *family)
{
	struct nl_sock *sk;
	int ret, one = 1;

	sk = nl_socket_alloc();
	if (!sk) {
		fprintf(stderr, "icnctl: out of memory\n");
		return NULL;
	}
	ret = genl_connect(sk);
	if (ret < 0) {
		fprintf(stderr, "icnctl: cannot open a generic netlink socket: %s\n",
			nl_geterror(ret));
		goto err;
	}
	/* Ask for the kernel's error messages; harmless if unsupported. */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one,
		   sizeof(one));
	*family = genl_ctrl_resolve(sk, ICN_FAMILY_NAME);
	if (*family < 0) {
		if (*family == -NLE_OBJ_NOTFOUND)
			fprintf(stderr, "icnctl: ICN netlink family \"%s\" not found: is the m890 driver loaded?\n",
				ICN_FAMILY_NAME);
		else
			fprintf(stderr, "icnctl: cannot resolve the ICN netlink family: %s\n",
				nl_geterror(*family));
		goto err;
	}
	return sk;
err:
	nl_socket_free(sk);
	return NULL;
}

void icn_req_add(struct icn_req *req, uint16_t type, uint8_t bytes,
		 uint64_t val)
{
	if (req->nattrs >= ICN_REQ_MAX_ATTRS)
		return;		/* callers add at most 64 + a few */
	req->attrs[req->nattrs].type = type;
	req->attrs[req->nattrs].bytes = bytes;
	req->attrs[req->nattrs].val = val;
	req->nattrs++;
}

int icn_nl_request(const struct icn_req *req, icn_msg_fn fn, void *arg)
{
	struct req_state st;
	struct nl_sock *sk;
	int family, ret, rc = EXIT_FAIL;
	bool intr = false;

	sk = icn_open(&family);
	if (!sk)
		return EXIT_FAIL;
	for (int attempt = 0; attempt < 4; attempt++) {
		memset(&st, 0, sizeof(st));
		st.fn = fn;
		st.arg = arg;
		ret = do_request(sk, family, req, &st, &intr);
		if (!intr)
			break;
		if (attempt == 3) {
			fprintf(stderr, "icnctl: dump kept being interrupted by changes; try again\n");
			goto out;
		}
		/* Start over with a fresh dump: results are collected
		 * before they are printed, so nothing is shown twice. */
		if (req->reset)
			req->reset(arg);
	}
	if (st.handler_err) {
		rc = st.handler_err;
		goto out;
	}
	if (st.err) {
		rc = report_errno(&st, req->what ? req->what : "request");
		goto out;
	}
	if (ret < 0) {
		fprintf(stderr, "icnctl: netlink: %s\n", nl_geterror(ret));
		goto out;
	}
	rc = EXIT_OK;
out:
	nl_socket_free(sk);
	return rc;
}

struct mon_state {
	icn_ntf_fn fn;
	void *arg;
	unsigned long count, seen;
	int rc;
};

static int mon_valid_cb(struct nl_msg *msg, void *data)
{
	struct mon_state *ms = data;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[ICN_A_MAX + 1];
	int ret;

	ret = genlmsg_parse(nlh, 0, tb, ICN_A_MAX, NULL);
	if (ret < 0) {
		fprintf(stderr, "icnctl: malformed notification: %s\n",
			nl_geterror(ret));
		return NL_SKIP;
	}
	cur_nlh = nlh;
	ret = ms->fn(gh->cmd, tb, ms->arg);
	cur_nlh = NULL;
	if (ret) {
		ms->rc = EXIT_FAIL;
		return NL_STOP;
	}
	ms->seen++;
	return ms->count && ms->seen >= ms->count ? NL_STOP : NL_OK;
}

/* Notifications carry sequence number 0: accept every one. */
static int mon_seq_cb(struct nl_msg *msg, void *data)
{
	(void)msg;
	(void)data;
	return NL_OK;
}

int icn_nl_monitor(const char *const *groups, int n, unsigned long count,
		   icn_ntf_fn fn, void *arg)
{
	struct mon_state ms = { .fn = fn, .arg = arg, .count = count };
	struct nl_sock *sk;
	struct nl_cb *cb;
	int family, grp, ret;

	sk = icn_open(&family);
	if (!sk)
		return EXIT_FAIL;
	for (int i = 0; i < n; i++) {
		grp = genl_ctrl_resolve_grp(sk, ICN_FAMILY_NAME, groups[i]);
		if (grp < 0) {
			fprintf(stderr, "icnctl: the ICN family has no multicast group \"%s\": %s (driver too old?)\n",
				groups[i], nl_geterror(grp));
			nl_socket_free(sk);
			return EXIT_FAIL;
		}
		ret = nl_socket_add_membership(sk, grp);
		if (ret < 0) {
			fprintf(stderr, "icnctl: cannot join multicast group \"%s\": %s\n",
				groups[i], nl_geterror(ret));
			nl_socket_free(sk);
			return EXIT_FAIL;
		}
	}
	cb = nl_cb_alloc(NL_CB_CUSTOM);
	if (!cb) {
		nl_socket_free(sk);
		return EXIT_FAIL;
	}
	/* This callback set replaces the socket's, so it also has to turn
	 * off libnl's check that replies match the last request. */
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, mon_seq_cb, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, mon_valid_cb, &ms);
	ms.rc = EXIT_OK;
	while (ms.rc == EXIT_OK && (!count || ms.seen < count)) {
		/*
		 * Wait for an event or for the reader of our output to go
		 * away (`icnctl monitor | head -n 1`): a pipe whose reader
		 * closed reports POLLERR on its write end at once, not only
		 * at the next write, which might never come.
		 */
		struct pollfd pfd[2] = {
			{ .fd = nl_socket_get_fd(sk), .events = POLLIN },
			{ .fd = STDOUT_FILENO, .events = 0 },
		};

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "icnctl: monitor: poll: %s\n", strerror(errno));
			ms.rc = EXIT_FAIL;
			break;
		}
		if (pfd[1].revents & (POLLERR | POLLHUP | POLLNVAL))
			break;		/* nobody reads us any more: done */
		if (!(pfd[0].revents & POLLIN))
			continue;
		ret = nl_recvmsgs(sk, cb);
		if (ret < 0 && ret != -NLE_INTR && ret != -NLE_AGAIN) {
			fprintf(stderr, "icnctl: monitor: %s\n", nl_geterror(ret));
			ms.rc = EXIT_FAIL;
		}
	}
	nl_cb_put(cb);
	nl_socket_free(sk);
	return ms.rc;
}
