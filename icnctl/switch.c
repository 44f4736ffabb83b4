// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl switch
 *
 * "switch show" prints the switch the cards are cabled to: its id, port
 * count and ICN version.  "switch info" adds a summary of its ports:
 * how many have a card, how many are oper up, how many of those cards are
 * in this system.  "switch reset" returns the switch to its power-on
 * configuration (every port admin up and retrained, injection cleared,
 * partitions 0, default routes; counters kept) and needs CAP_NET_ADMIN.
 */
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

struct switch_info {
	bool seen;
	uint32_t id, ports, version;
};

static int switch_msg(struct nlattr **tb, void *arg)
{
	struct switch_info *si = arg;

	si->seen = true;
	if (tb[ICN_A_SWITCH_ID] && nla_len(tb[ICN_A_SWITCH_ID]) >= 4)
		si->id = nla_get_u32(tb[ICN_A_SWITCH_ID]);
	if (tb[ICN_A_SWITCH_PORTS] && nla_len(tb[ICN_A_SWITCH_PORTS]) >= 4)
		si->ports = nla_get_u32(tb[ICN_A_SWITCH_PORTS]);
	if (tb[ICN_A_SWITCH_VERSION] && nla_len(tb[ICN_A_SWITCH_VERSION]) >= 4)
		si->version = nla_get_u32(tb[ICN_A_SWITCH_VERSION]);
	return 0;
}

static int switch_common(struct icn_ctx *ctx, bool info)
{
	struct icn_req req = { .cmd = ICN_CMD_SWITCH_GET, .what = "switch show" };
	struct port_list *pl = NULL;
	struct switch_info si;
	char ver[32];
	int rc;

	if (ctx->argc) {
		fprintf(stderr, "icnctl: switch show takes no argument\n");
		return EXIT_USAGE;
	}
	memset(&si, 0, sizeof(si));
	rc = icn_nl_request(&req, switch_msg, &si);
	if (rc)
		return rc;
	if (!si.seen) {
		fprintf(stderr, "icnctl: the kernel sent no switch description\n");
		return EXIT_FAIL;
	}
	if (info) {
		pl = calloc(1, sizeof(*pl));
		if (!pl) {
			fprintf(stderr, "icnctl: out of memory\n");
			return EXIT_FAIL;
		}
		rc = port_list_get(pl, -1);
		if (rc) {
			free(pl);
			return rc;
		}
	}
	snprintf(ver, sizeof(ver), "%u.%u", si.version >> 16,
		 si.version & 0xffff);
	out_obj_start();
	out_u32("switch", "switch", si.id);
	out_u32("ports", "ports", si.ports);
	out_str("version", "version", ver);
	if (pl) {
		uint32_t cabled = 0, up = 0, local = 0;

		for (int i = 0; i < pl->n; i++) {
			cabled += pl->ports[i].present;
			up += pl->ports[i].oper == ICN_PORT_STATE_UP;
			local += pl->ports[i].present && pl->ports[i].dev[0];
		}
		out_u32("cabled_ports", "cabled", cabled);
		out_u32("up_ports", "up", up);
		out_u32("local_cards", "local-cards", local);
		free(pl);
	}
	out_obj_end();
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}

static int switch_show(struct icn_ctx *ctx)
{
	return switch_common(ctx, false);
}

static int switch_info(struct icn_ctx *ctx)
{
	return switch_common(ctx, true);
}

static int switch_reset(struct icn_ctx *ctx)
{
	struct icn_req req = { .cmd = ICN_CMD_SWITCH_RESET, .what = "switch reset" };

	if (ctx->argc) {
		fprintf(stderr, "icnctl: switch reset takes no argument\n");
		return EXIT_USAGE;
	}
	return icn_nl_request(&req, NULL, NULL);
}

static int switch_help(struct icn_ctx *ctx)
{
	(void)ctx;
	printf("Usage:\n");
	print_usage(stdout, switch_cmds);
	return EXIT_OK;
}

const struct icnctl_cmd switch_cmds[] = {
	{ "show", switch_show, "switch show" },
	{ "info", switch_info, "switch info" },
	{ "reset", switch_reset,
	  "switch reset    (ports up, partitions 0, default routes, no injection)" },
	{ "help", switch_help, "switch help" },
	{ NULL, NULL, NULL },
};

int cmd_switch(struct icn_ctx *ctx)
{
	return dispatch(ctx, "switch", switch_cmds, "show");
}
