// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl stats
 *
 * "stats show [PORT]" prints the counters of every port (or one): bytes
 * and 4 KiB packets each way, errors and link-down count.  "stats clear
 * [PORT]" zeroes them (CAP_NET_ADMIN), as "port reset" does.
 */
#include "icnctl.h"

static int stats_show(struct icn_ctx *ctx)
{
	return port_show_common(ctx, "stats show", true);
}

static int stats_clear(struct icn_ctx *ctx)
{
	return port_clear_common(ctx, "stats clear");
}

static int stats_help(struct icn_ctx *ctx)
{
	(void)ctx;
	printf("Usage:\n");
	print_usage(stdout, stats_cmds);
	return EXIT_OK;
}

const struct icnctl_cmd stats_cmds[] = {
	{ "show", stats_show, "stats show [ PORT ]" },
	{ "clear", stats_clear, "stats clear [ PORT ]" },
	{ "help", stats_help, "stats help" },
	{ NULL, NULL, NULL },
};

int cmd_stats(struct icn_ctx *ctx)
{
	return dispatch(ctx, "stats", stats_cmds, "show");
}
