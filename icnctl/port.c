// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl port
 *
 * "port show [PORT]" reads one port (do) or all of them (dump) and prints
 * one line, or one JSON object, per port (with -s, its counters too);
 * "port set PORT state up|down" changes a port's administrative state and
 * "port reset [PORT]" zeroes counters; both need CAP_NET_ADMIN.
 * Replies are collected first and printed once the request succeeded, so
 * a restarted dump never prints a port twice.
 */
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

static uint32_t get_u32(struct nlattr *a)
{
	return a && nla_len(a) >= 4 ? nla_get_u32(a) : 0;
}

static uint64_t get_u64(struct nlattr *a)
{
	return a && nla_len(a) >= 8 ? nla_get_u64(a) : 0;
}

void port_info_parse(struct nlattr **tb, struct port_info *p)
{
	memset(p, 0, sizeof(*p));
	p->index = get_u32(tb[ICN_A_PORT_INDEX]);
	p->admin = get_u32(tb[ICN_A_PORT_ADMIN_STATE]);
	p->oper = get_u32(tb[ICN_A_PORT_OPER_STATE]);
	p->present = tb[ICN_A_PORT_PRESENT] && nla_len(tb[ICN_A_PORT_PRESENT]) >= 1 &&
		nla_get_u8(tb[ICN_A_PORT_PRESENT]);
	p->has_fabric_id = tb[ICN_A_PORT_FABRIC_ID] != NULL;
	p->fabric_id = get_u32(tb[ICN_A_PORT_FABRIC_ID]);
	p->partition = get_u32(tb[ICN_A_PORT_PARTITION]);
	p->speed = get_u32(tb[ICN_A_PORT_SPEED]);
	p->tx_bytes = get_u64(tb[ICN_A_PORT_TX_BYTES]);
	p->rx_bytes = get_u64(tb[ICN_A_PORT_RX_BYTES]);
	p->tx_packets = get_u64(tb[ICN_A_PORT_TX_PACKETS]);
	p->rx_packets = get_u64(tb[ICN_A_PORT_RX_PACKETS]);
	p->errors = get_u64(tb[ICN_A_PORT_ERRORS]);
	p->link_down = get_u64(tb[ICN_A_PORT_LINK_DOWN_COUNT]);
	if (tb[ICN_A_PORT_DEV_NAME] && nla_len(tb[ICN_A_PORT_DEV_NAME]) > 0)
		snprintf(p->dev, sizeof(p->dev), "%.*s",
			 nla_len(tb[ICN_A_PORT_DEV_NAME]),
			 (const char *)nla_data(tb[ICN_A_PORT_DEV_NAME]));
}

static int port_msg(struct nlattr **tb, void *arg)
{
	struct port_list *pl = arg;

	if (!tb[ICN_A_PORT_INDEX])
		return 0;	/* not a port message */
	if (pl->n >= ICN_MAX_PORTS) {
		fprintf(stderr, "icnctl: more than %d ports in the reply\n",
			ICN_MAX_PORTS);
		return -1;
	}
	port_info_parse(tb, &pl->ports[pl->n++]);
	return 0;
}

static void port_reset(void *arg)
{
	((struct port_list *)arg)->n = 0;
}

/* The six counters, as fields of the current object. */
void port_print_stats(const struct port_info *p)
{
	out_u64("tx_bytes", "tx", p->tx_bytes);
	out_u64("rx_bytes", "rx", p->rx_bytes);
	out_u64("tx_packets", "tx-packets", p->tx_packets);
	out_u64("rx_packets", "rx-packets", p->rx_packets);
	out_u64("errors", "errors", p->errors);
	out_u64("link_down_count", "link-down", p->link_down);
}

void port_print(const struct port_info *p, bool stats)
{
	char speed[32];

	out_u32("port", "port", p->index);
	out_str("admin", "admin", port_state_name(p->admin));
	out_str("oper", "oper", port_state_name(p->oper));
	out_bool("present", p->present ? NULL : "present", p->present);
	if (p->present) {
		out_str("card", "card", p->dev[0] ? p->dev : "-");
		if (p->has_fabric_id)
			out_u32("fabric_id", "fabric-id", p->fabric_id);
	}
	out_u32("partition", "partition", p->partition);
	format_speed(p->speed, speed, sizeof(speed));
	out_u64_as("speed_mbps", p->speed, "speed", speed);
	if (stats)
		port_print_stats(p);
}

int parse_port(const char *word, uint32_t *port)
{
	if (parse_u32(word, UINT32_MAX, port)) {
		fprintf(stderr, "icnctl: \"%s\" is not a port number\n", word);
		return -1;
	}
	return 0;
}

int port_list_get(struct port_list *pl, int64_t port)
{
	struct icn_req req = {
		.cmd = ICN_CMD_PORT_GET,
		.what = "port show",
		.reset = port_reset,
	};

	if (port >= 0) {
		req.has_port = true;
		req.port = (uint32_t)port;
	} else {
		req.dump = true;
	}
	pl->n = 0;
	return icn_nl_request(&req, port_msg, pl);
}

/* "[ PORT ]" of a show command: -1 for all ports, or an exit code. */
static int optional_port(struct icn_ctx *ctx, const char *cmd, int64_t *port)
{
	uint32_t p;

	*port = -1;
	if (ctx->argc > 1) {
		fprintf(stderr, "icnctl: %s takes at most one PORT\n", cmd);
		return EXIT_USAGE;
	}
	if (ctx->argc == 1) {
		if (parse_port(ctx->argv[0], &p))
			return EXIT_USAGE;
		*port = p;
	}
	return EXIT_OK;
}

/* Show ports with or without their counters; shared with "stats show". */
int port_show_common(struct icn_ctx *ctx, const char *cmd, bool only_stats)
{
	struct port_list *pl;
	int64_t port;
	int rc;

	rc = optional_port(ctx, cmd, &port);
	if (rc)
		return rc;
	pl = calloc(1, sizeof(*pl));
	if (!pl) {
		fprintf(stderr, "icnctl: out of memory\n");
		return EXIT_FAIL;
	}
	rc = port_list_get(pl, port);
	if (rc == EXIT_OK) {
		for (int i = 0; i < pl->n; i++) {
			out_obj_start();
			if (only_stats) {
				out_u32("port", "port", pl->ports[i].index);
				port_print_stats(&pl->ports[i]);
			} else {
				port_print(&pl->ports[i], ctx->stats);
			}
			out_obj_end();
		}
		if (out_finish())
			rc = EXIT_FAIL;
	}
	free(pl);
	return rc;
}

static int port_show(struct icn_ctx *ctx)
{
	return port_show_common(ctx, "port show", false);
}

/* Zero the counters of one port or all; shared with "stats clear". */
int port_clear_common(struct icn_ctx *ctx, const char *cmd)
{
	struct icn_req req = { .cmd = ICN_CMD_PORT_CLEAR, .what = cmd };
	int64_t port;
	int rc;

	rc = optional_port(ctx, cmd, &port);
	if (rc)
		return rc;
	if (port >= 0) {
		req.has_port = true;
		req.port = (uint32_t)port;
	}
	return icn_nl_request(&req, NULL, NULL);
}

static int port_reset_cmd(struct icn_ctx *ctx)
{
	return port_clear_common(ctx, "port reset");
}

static int port_set(struct icn_ctx *ctx)
{
	static const char *const keys[] = { "state" };
	struct icn_req req = {
		.cmd = ICN_CMD_PORT_SET,
		.what = "port set",
		.has_port = true,
	};
	int i;

	if (ctx->argc < 1) {
		fprintf(stderr, "icnctl: port set needs a PORT; usage: icnctl port set PORT state { up | down }\n");
		return EXIT_USAGE;
	}
	if (parse_port(ctx->argv[0], &req.port))
		return EXIT_USAGE;
	for (i = 1; i < ctx->argc; i += 2) {
		int k = match_word(ctx->argv[i], keys, 1);

		if (k < 0) {
			fprintf(stderr, "icnctl: unknown port attribute \"%s\"\n",
				ctx->argv[i]);
			return EXIT_USAGE;
		}
		if (i + 1 >= ctx->argc) {
			fprintf(stderr, "icnctl: \"state\" needs a value: up or down\n");
			return EXIT_USAGE;
		}
		if (parse_admin_state(ctx->argv[i + 1], &req.admin_state)) {
			fprintf(stderr, "icnctl: bad state \"%s\": use up or down\n",
				ctx->argv[i + 1]);
			return EXIT_USAGE;
		}
		req.has_admin = true;
	}
	if (!req.has_admin) {
		fprintf(stderr, "icnctl: nothing to set; usage: icnctl port set PORT state { up | down }\n");
		return EXIT_USAGE;
	}
	return icn_nl_request(&req, NULL, NULL);
}

static int port_help(struct icn_ctx *ctx)
{
	(void)ctx;
	printf("Usage:\n");
	print_usage(stdout, port_cmds);
	return EXIT_OK;
}

const struct icnctl_cmd port_cmds[] = {
	{ "show", port_show, "port show [ PORT ]" },
	{ "list", port_show, NULL },
	{ "set", port_set, "port set PORT state { up | down }" },
	{ "reset", port_reset_cmd, "port reset [ PORT ]    (zero the counters)" },
	{ "help", port_help, "port help" },
	{ NULL, NULL, NULL },
};

int cmd_port(struct icn_ctx *ctx)
{
	return dispatch(ctx, "port", port_cmds, "show");
}
