// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl route
 *
 * The switch's routing table has one entry per destination fabric id: the
 * egress port that traffic to it leaves on, and whether it is enabled
 * (hardware spec §8.5).  "route show [FABRIC_ID]" prints entries, one line
 * or JSON object each; "route set FABRIC_ID egress PORT [state { enabled |
 * disabled }]" points an entry at a port; "route del FABRIC_ID" disables
 * it, so that accesses to that fabric id fail.  Changes need
 * CAP_NET_ADMIN; "switch reset" restores the default table.
 */
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

struct route {
	uint32_t fabric_id, egress;
	bool enabled;
};

struct route_list {
	struct route r[ICN_PORTS];
	int n;
};

static void route_parse(struct nlattr **tb, struct route *r)
{
	memset(r, 0, sizeof(*r));
	if (tb[ICN_A_ROUTE_FABRIC_ID] && nla_len(tb[ICN_A_ROUTE_FABRIC_ID]) >= 4)
		r->fabric_id = nla_get_u32(tb[ICN_A_ROUTE_FABRIC_ID]);
	if (tb[ICN_A_ROUTE_EGRESS_PORT] && nla_len(tb[ICN_A_ROUTE_EGRESS_PORT]) >= 4)
		r->egress = nla_get_u32(tb[ICN_A_ROUTE_EGRESS_PORT]);
	r->enabled = tb[ICN_A_ROUTE_ENABLED] && nla_len(tb[ICN_A_ROUTE_ENABLED]) >= 1 &&
		nla_get_u8(tb[ICN_A_ROUTE_ENABLED]);
}

static void route_fields(const struct route *r)
{
	out_u32("fabric_id", "route", r->fabric_id);
	out_u32("egress", "egress", r->egress);
	out_bool("enabled", NULL, r->enabled);
	out_str(NULL, "state", r->enabled ? "enabled" : "disabled");
}

void route_print(struct nlattr **tb)
{
	struct route r;

	route_parse(tb, &r);
	route_fields(&r);
}

static int route_msg(struct nlattr **tb, void *arg)
{
	struct route_list *rl = arg;

	if (!tb[ICN_A_ROUTE_FABRIC_ID])
		return 0;
	if (rl->n >= ICN_PORTS) {
		fprintf(stderr, "icnctl: more than %d routes in the reply\n", ICN_PORTS);
		return -1;
	}
	route_parse(tb, &rl->r[rl->n++]);
	return 0;
}

static void route_reset(void *arg)
{
	((struct route_list *)arg)->n = 0;
}

static int route_show(struct icn_ctx *ctx)
{
	struct icn_req req = {
		.cmd = ICN_CMD_ROUTE_GET,
		.what = "route show",
		.reset = route_reset,
	};
	struct route_list *rl;
	uint32_t fid;
	int rc;

	if (ctx->argc > 1) {
		fprintf(stderr, "icnctl: route show takes at most one FABRIC_ID\n");
		return EXIT_USAGE;
	}
	if (ctx->argc == 1) {
		if (parse_index(ctx->argv[0], "fabric id", ICN_PORTS, &fid))
			return EXIT_USAGE;
		icn_req_add(&req, ICN_A_ROUTE_FABRIC_ID, 4, fid);
	} else {
		req.dump = true;
	}
	rl = calloc(1, sizeof(*rl));
	if (!rl) {
		fprintf(stderr, "icnctl: out of memory\n");
		return EXIT_FAIL;
	}
	rc = icn_nl_request(&req, route_msg, rl);
	if (rc == EXIT_OK) {
		for (int i = 0; i < rl->n; i++) {
			out_obj_start();
			route_fields(&rl->r[i]);
			out_obj_end();
		}
		if (out_finish())
			rc = EXIT_FAIL;
	}
	free(rl);
	return rc;
}

static int route_set(struct icn_ctx *ctx)
{
	static const char *const keys[] = { "egress", "state" };
	static const char *const states[] = { "enabled", "disabled" };
	struct icn_req req = { .cmd = ICN_CMD_ROUTE_SET, .what = "route set" };
	bool has_egress = false;
	uint32_t v;
	int i, k, st;

	if (ctx->argc < 1 ||
	    parse_index(ctx->argv[0], "fabric id", ICN_PORTS, &v))
		goto usage;
	icn_req_add(&req, ICN_A_ROUTE_FABRIC_ID, 4, v);
	for (i = 1; i < ctx->argc; i += 2) {
		k = match_word(ctx->argv[i], keys, 2);
		if (k < 0 || i + 1 >= ctx->argc) {
			fprintf(stderr, "icnctl: route set: %s \"%s\"\n",
				k < 0 ? "unknown attribute" : "no value for", ctx->argv[i]);
			goto usage;
		}
		if (k == 0) {
			if (parse_index(ctx->argv[i + 1], "egress port", ICN_PORTS, &v))
				return EXIT_USAGE;
			icn_req_add(&req, ICN_A_ROUTE_EGRESS_PORT, 4, v);
			has_egress = true;
		} else {
			st = match_word(ctx->argv[i + 1], states, 2);
			if (st < 0) {
				fprintf(stderr, "icnctl: bad route state \"%s\": use enabled or disabled\n",
					ctx->argv[i + 1]);
				return EXIT_USAGE;
			}
			icn_req_add(&req, ICN_A_ROUTE_ENABLED, 1, st == 0);
		}
	}
	if (!has_egress) {
		fprintf(stderr, "icnctl: route set needs an egress PORT\n");
		goto usage;
	}
	return icn_nl_request(&req, NULL, NULL);
usage:
	fprintf(stderr, "icnctl: usage: icnctl route set FABRIC_ID egress PORT [ state { enabled | disabled } ]\n");
	return EXIT_USAGE;
}

static int route_del(struct icn_ctx *ctx)
{
	struct icn_req req = { .cmd = ICN_CMD_ROUTE_DEL, .what = "route del" };
	uint32_t fid;

	if (ctx->argc != 1) {
		fprintf(stderr, "icnctl: usage: icnctl route del FABRIC_ID\n");
		return EXIT_USAGE;
	}
	if (parse_index(ctx->argv[0], "fabric id", ICN_PORTS, &fid))
		return EXIT_USAGE;
	icn_req_add(&req, ICN_A_ROUTE_FABRIC_ID, 4, fid);
	return icn_nl_request(&req, NULL, NULL);
}

static int route_help(struct icn_ctx *ctx)
{
	(void)ctx;
	printf("Usage:\n");
	print_usage(stdout, route_cmds);
	return EXIT_OK;
}

const struct icnctl_cmd route_cmds[] = {
	{ "show", route_show, "route show [ FABRIC_ID ]" },
	{ "set", route_set,
	  "route set FABRIC_ID egress PORT [ state { enabled | disabled } ]" },
	{ "del", route_del, "route del FABRIC_ID    (disable: the fabric id is unreachable)" },
	{ "help", route_help, "route help" },
	{ NULL, NULL, NULL },
};

int cmd_route(struct icn_ctx *ctx)
{
	return dispatch(ctx, "route", route_cmds, "show");
}
