// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl monitor
 *
 * "monitor [ all | config | errors ] [ count N ]" joins the family's
 * multicast groups ("all", the default, joins both) and prints one line
 * per notification as it arrives: in text mode "[GROUP] OBJECT ..." with
 * the object (port, route, partition or error), with -j one JSON object
 * per line carrying "group" and "event" members, flushed after each, so
 * another program can follow it through a pipe.  It runs until
 * interrupted, or until N notifications were printed.
 */
#include <string.h>

#include <netlink/attr.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

struct mon_ctx {
	bool json;
};

static uint32_t attr_u32(struct nlattr *a)
{
	return a && nla_len(a) >= 4 ? nla_get_u32(a) : 0;
}

static void error_print(struct nlattr **tb)
{
	uint32_t kind = attr_u32(tb[ICN_A_ERROR_KIND]);
	char addr[32];

	out_str("error", "error", error_kind_name(kind));
	if (tb[ICN_A_PORT_INDEX])
		out_u32("port", "port", attr_u32(tb[ICN_A_PORT_INDEX]));
	if (tb[ICN_A_INJECT_KIND])
		out_str("inject", "inject", inject_kind_name(attr_u32(tb[ICN_A_INJECT_KIND])));
	if (tb[ICN_A_INJECT_COUNT] && nla_len(tb[ICN_A_INJECT_COUNT]) >= 8)
		out_u64("count", "count", nla_get_u64(tb[ICN_A_INJECT_COUNT]));
	if (tb[ICN_A_CARD_DEV_NAME] && nla_len(tb[ICN_A_CARD_DEV_NAME]) > 0)
		out_str("card", "card", nla_get_string(tb[ICN_A_CARD_DEV_NAME]));
	if (tb[ICN_A_CARD_FABRIC_ID])
		out_u32("fabric_id", "fabric-id", attr_u32(tb[ICN_A_CARD_FABRIC_ID]));
	if (tb[ICN_A_ERROR_ADDR] && nla_len(tb[ICN_A_ERROR_ADDR]) >= 8) {
		snprintf(addr, sizeof(addr), "0x%llx",
			 (unsigned long long)nla_get_u64(tb[ICN_A_ERROR_ADDR]));
		out_u64_as("addr", nla_get_u64(tb[ICN_A_ERROR_ADDR]), "addr", addr);
	}
	if (tb[ICN_A_ERROR_COUNT])
		out_u32("faults", "faults", attr_u32(tb[ICN_A_ERROR_COUNT]));
}

static int mon_event(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct mon_ctx *mc = arg;
	const char *group = ICN_MCGRP_CONFIG, *event;
	struct port_info p;

	switch (cmd) {
	case ICN_CMD_PORT_NTF:
		event = "port";
		break;
	case ICN_CMD_ROUTE_NTF:
		event = "route";
		break;
	case ICN_CMD_PARTITION_NTF:
		event = "partition";
		break;
	case ICN_CMD_ERROR_NTF:
		event = "error";
		group = ICN_MCGRP_ERRORS;
		break;
	default:
		return 0;	/* unknown notification: newer kernel */
	}
	out_obj_start();
	out_str("group", NULL, group);
	out_str("event", NULL, event);
	if (!mc->json)
		printf("[%s] ", group);
	switch (cmd) {
	case ICN_CMD_PORT_NTF:
		port_info_parse(tb, &p);
		port_print(&p, true);
		break;
	case ICN_CMD_ROUTE_NTF:
		route_print(tb);
		break;
	case ICN_CMD_PARTITION_NTF:
		partition_print(tb);
		break;
	default:
		error_print(tb);
		break;
	}
	out_obj_end();
	return 0;
}

static int monitor_run(struct icn_ctx *ctx)
{
	static const char *const groups[] = { "all", ICN_MCGRP_CONFIG, ICN_MCGRP_ERRORS };
	static const char *const both[] = { ICN_MCGRP_CONFIG, ICN_MCGRP_ERRORS };
	static const char *const keys[] = { "count" };
	struct mon_ctx mc = { .json = ctx->json };
	const char *const *join = both;
	unsigned long count = 0;
	int i = 0, g, njoin = 2;
	uint32_t v;

	if (i < ctx->argc && match_word(ctx->argv[i], keys, 1) < 0) {
		g = match_word(ctx->argv[i], groups, 3);
		if (g < 0) {
			fprintf(stderr, "icnctl: %s monitor group \"%s\": use all, config or errors\n",
				g == MATCH_AMBIGUOUS ? "ambiguous" : "unknown", ctx->argv[i]);
			return EXIT_USAGE;
		}
		if (g) {
			join = &groups[g];
			njoin = 1;
		}
		i++;
	}
	if (i < ctx->argc) {
		if (match_word(ctx->argv[i], keys, 1) < 0 || i + 1 >= ctx->argc ||
		    parse_u32(ctx->argv[i + 1], UINT32_MAX, &v) || !v) {
			fprintf(stderr, "icnctl: usage: icnctl monitor [ all | config | errors ] [ count N ]\n");
			return EXIT_USAGE;
		}
		count = v;
		i += 2;
	}
	if (i != ctx->argc) {
		fprintf(stderr, "icnctl: monitor: unexpected \"%s\"\n", ctx->argv[i]);
		return EXIT_USAGE;
	}
	out_stream(true);
	return icn_nl_monitor(join, njoin, count, mon_event, &mc);
}

static int monitor_help(struct icn_ctx *ctx)
{
	(void)ctx;
	printf("Usage:\n");
	print_usage(stdout, monitor_cmds);
	return EXIT_OK;
}

const struct icnctl_cmd monitor_cmds[] = {
	{ "all", monitor_run, "monitor [ all | config | errors ] [ count N ]" },
	{ "config", monitor_run, NULL },
	{ "errors", monitor_run, NULL },
	{ "count", monitor_run, NULL },
	{ "help", monitor_help, "monitor help" },
	{ NULL, NULL, NULL },
};

/*
 * "monitor" alone, "monitor GROUP ..." and "monitor count N" all run the
 * monitor: the group word is put back for monitor_run to read.
 */
int cmd_monitor(struct icn_ctx *ctx)
{
	int m;

	if (!ctx->argc)
		return monitor_run(ctx);
	m = match_cmd(ctx->argv[0], monitor_cmds);
	if (m >= 0 && monitor_cmds[m].fn == monitor_run)
		return monitor_run(ctx);
	return dispatch(ctx, "monitor", monitor_cmds, NULL);
}
