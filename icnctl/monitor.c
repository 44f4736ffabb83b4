// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl monitor
 *
 * "monitor [ all | config ] [ count N ]" joins the family's multicast
 * group and prints one line per notification as it arrives: in text mode
 * "[config] port ..." with the port object, with -j one JSON object per
 * line carrying "group" and "event" members, flushed after each, so
 * another program can follow it through a pipe.  It runs until
 * interrupted, or until N notifications were printed.
 */
#include <string.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

struct mon_ctx {
	const char *group;
	bool json;
	bool stats;
};

static int mon_event(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct mon_ctx *mc = arg;
	struct port_info p;

	if (cmd != ICN_CMD_PORT_NTF || !tb[ICN_A_PORT_INDEX])
		return 0;	/* unknown notification: newer kernel */
	port_info_parse(tb, &p);
	out_obj_start();
	out_str("group", NULL, mc->group);
	out_str("event", NULL, "port");
	if (!mc->json)
		printf("[%s] ", mc->group);
	port_print(&p, true);
	out_obj_end();
	return 0;
}

static int monitor_run(struct icn_ctx *ctx)
{
	static const char *const groups[] = { "all", ICN_MCGRP_CONFIG };
	static const char *const keys[] = { "count" };
	struct mon_ctx mc = { .group = ICN_MCGRP_CONFIG, .json = ctx->json };
	unsigned long count = 0;
	uint32_t v;
	int i = 0;

	if (i < ctx->argc && match_word(ctx->argv[i], groups, 2) >= 0)
		i++;	/* "config" is the only group: "all" is the same */
	else if (i < ctx->argc && match_word(ctx->argv[i], keys, 1) < 0) {
		fprintf(stderr, "icnctl: unknown monitor group \"%s\": use all or config\n",
			ctx->argv[i]);
		return EXIT_USAGE;
	}
	if (i < ctx->argc) {
		if (match_word(ctx->argv[i], keys, 1) < 0 || i + 1 >= ctx->argc ||
		    parse_u32(ctx->argv[i + 1], UINT32_MAX, &v) || !v) {
			fprintf(stderr, "icnctl: usage: icnctl monitor [ all | config ] [ count N ]\n");
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
	return icn_nl_monitor(mc.group, count, mon_event, &mc);
}

static int monitor_help(struct icn_ctx *ctx)
{
	(void)ctx;
	printf("Usage:\n");
	print_usage(stdout, monitor_cmds);
	return EXIT_OK;
}

const struct icnctl_cmd monitor_cmds[] = {
	{ "all", monitor_run, "monitor [ all | config ] [ count N ]" },
	{ "config", monitor_run, NULL },
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
