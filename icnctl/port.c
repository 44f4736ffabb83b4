// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl port
 *
 * "port show [PORT]" reads one port (do) or all of them (dump) and prints
 * one line, or one JSON object, per port (with -s, its counters too).
 * Changes, which need CAP_NET_ADMIN: "port set PORT [state up|down]
 * [speed SPEED] [partition ID]", "port reset PORT" (the link goes down and
 * up again, injection cleared) and "port inject PORT { clear | link-error
 * | drop COUNT }".  Replies are collected first and printed once the
 * request succeeded, so a restarted dump never prints a port twice.
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
	p->inject_drops = get_u64(tb[ICN_A_PORT_INJECT_DROPS]);
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
	if (p->inject_drops)
		out_u64("inject_drops", "inject-drops", p->inject_drops);
	if (stats)
		port_print_stats(p);
}

int parse_port(const char *word, uint32_t *port)
{
	return parse_index(word, "port", ICN_PORTS, port);
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

/* "present" or a prefix of it (a port is a number, so no clash). */
static bool is_present_word(const char *w)
{
	return *w && !strncmp(w, "present", strlen(w));
}

/*
 * Show ports with or without their counters; shared with "stats show".
 * "[ PORT | present ]": one port, the ports with a card, or all 64.
 */
int port_show_common(struct icn_ctx *ctx, const char *cmd, bool only_stats)
{
	struct port_list *pl;
	bool present = false;
	int64_t port = -1;
	int rc;

	if (ctx->argc == 1 && is_present_word(ctx->argv[0]))
		present = true;
	else if ((rc = optional_port(ctx, cmd, &port)))
		return rc;
	pl = calloc(1, sizeof(*pl));
	if (!pl) {
		fprintf(stderr, "icnctl: out of memory\n");
		return EXIT_FAIL;
	}
	rc = port_list_get(pl, port);
	if (rc == EXIT_OK) {
		for (int i = 0; i < pl->n; i++) {
			if (present && !pl->ports[i].present)
				continue;
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

/* "port reset PORT": the link goes down and up again. */
static int port_reset_cmd(struct icn_ctx *ctx)
{
	struct icn_req req = {
		.cmd = ICN_CMD_PORT_RESET,
		.what = "port reset",
		.has_port = true,
	};

	if (ctx->argc != 1) {
		fprintf(stderr, "icnctl: usage: icnctl port reset PORT\n");
		return EXIT_USAGE;
	}
	if (parse_port(ctx->argv[0], &req.port))
		return EXIT_USAGE;
	return icn_nl_request(&req, NULL, NULL);
}

static int port_set_usage(const char *why)
{
	fprintf(stderr, "icnctl: port set: %s; usage: icnctl port set PORT [ state { up | down } ] [ speed SPEED ] [ partition ID ]\n",
		why);
	return EXIT_USAGE;
}

static int port_set(struct icn_ctx *ctx)
{
	static const char *const keys[] = { "state", "speed", "partition" };
	struct icn_req req = {
		.cmd = ICN_CMD_PORT_SET,
		.what = "port set",
		.has_port = true,
	};
	uint32_t v;
	int i, k;

	if (ctx->argc < 1)
		return port_set_usage("needs a PORT");
	if (parse_port(ctx->argv[0], &req.port))
		return EXIT_USAGE;
	for (i = 1; i < ctx->argc; i += 2) {
		k = match_word(ctx->argv[i], keys, 3);
		if (k < 0) {
			fprintf(stderr, "icnctl: %s port attribute \"%s\"; use state, speed or partition\n",
				k == MATCH_AMBIGUOUS ? "ambiguous" : "unknown", ctx->argv[i]);
			return EXIT_USAGE;
		}
		if (i + 1 >= ctx->argc) {
			fprintf(stderr, "icnctl: \"%s\" needs a value\n", keys[k]);
			return EXIT_USAGE;
		}
		switch (k) {
		case 0:
			if (parse_admin_state(ctx->argv[i + 1], &req.admin_state)) {
				fprintf(stderr, "icnctl: bad state \"%s\": use up or down\n",
					ctx->argv[i + 1]);
				return EXIT_USAGE;
			}
			req.has_admin = true;
			break;
		case 1:
			if (parse_speed(ctx->argv[i + 1], &v)) {
				fprintf(stderr, "icnctl: bad speed \"%s\": a rate in Mbit/s, or with a unit (6400Gbps)\n",
					ctx->argv[i + 1]);
				return EXIT_USAGE;
			}
			icn_req_add(&req, ICN_A_PORT_SPEED, 4, v);
			break;
		default:
			if (parse_index(ctx->argv[i + 1], "partition", ICN_PARTITIONS, &v))
				return EXIT_USAGE;
			icn_req_add(&req, ICN_A_PORT_PARTITION, 4, v);
			break;
		}
	}
	if (!req.has_admin && !req.nattrs)
		return port_set_usage("nothing to set");
	return icn_nl_request(&req, NULL, NULL);
}

static int port_inject(struct icn_ctx *ctx)
{
	struct icn_req req = {
		.cmd = ICN_CMD_PORT_INJECT,
		.what = "port inject",
		.has_port = true,
	};
	uint32_t kind;
	uint64_t count;

	if (ctx->argc < 2) {
		fprintf(stderr, "icnctl: usage: icnctl port inject PORT { clear | link-error | drop COUNT }\n");
		return EXIT_USAGE;
	}
	if (parse_port(ctx->argv[0], &req.port))
		return EXIT_USAGE;
	if (parse_inject_kind(ctx->argv[1], &kind)) {
		fprintf(stderr, "icnctl: unknown injection \"%s\": use clear, link-error or drop\n",
			ctx->argv[1]);
		return EXIT_USAGE;
	}
	icn_req_add(&req, ICN_A_INJECT_KIND, 4, kind);
	if (kind == ICN_INJECT_KIND_DROP) {
		if (ctx->argc != 3 || parse_u64(ctx->argv[2], 1ull << 32, &count) || !count) {
			fprintf(stderr, "icnctl: drop needs a COUNT of transfers, 1..4294967296\n");
			return EXIT_USAGE;
		}
		icn_req_add(&req, ICN_A_INJECT_COUNT, 8, count);
	} else if (ctx->argc != 2) {
		fprintf(stderr, "icnctl: %s takes no COUNT\n", inject_kind_name(kind));
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
	{ "show", port_show, "port show [ PORT | present ]" },
	{ "list", port_show, NULL },
	{ "set", port_set,
	  "port set PORT [ state { up | down } ] [ speed SPEED ] [ partition ID ]" },
	{ "reset", port_reset_cmd, "port reset PORT    (link down and up, injection cleared)" },
	{ "inject", port_inject, "port inject PORT { clear | link-error | drop COUNT }" },
	{ "help", port_help, "port help" },
	{ NULL, NULL, NULL },
};

int cmd_port(struct icn_ctx *ctx)
{
	return dispatch(ctx, "port", port_cmds, "show");
}
