// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl card
 *
 * "card show [FABRIC_ID]" lists the cards of this system that are cabled
 * to the switch: accel node, fabric id, switch port, HBM size and PCI
 * address.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <netlink/attr.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

#define MAX_CARDS 64

struct card_info {
	char dev[32];
	char bus[32];
	uint32_t fabric_id, port;
	uint64_t hbm_size;
};

struct card_list {
	struct card_info cards[MAX_CARDS];
	int n;
};

static void copy_str(char *dst, size_t len, struct nlattr *a)
{
	if (a && nla_len(a) > 0)
		snprintf(dst, len, "%.*s", nla_len(a), (const char *)nla_data(a));
	else
		snprintf(dst, len, "-");
}

static int card_msg(struct nlattr **tb, void *arg)
{
	struct card_list *cl = arg;
	struct card_info *c;

	if (!tb[ICN_A_CARD_FABRIC_ID])
		return 0;
	if (cl->n >= MAX_CARDS) {
		fprintf(stderr, "icnctl: more than %d cards in the reply\n", MAX_CARDS);
		return -1;
	}
	c = &cl->cards[cl->n++];
	memset(c, 0, sizeof(*c));
	c->fabric_id = nla_get_u32(tb[ICN_A_CARD_FABRIC_ID]);
	if (tb[ICN_A_CARD_PORT] && nla_len(tb[ICN_A_CARD_PORT]) >= 4)
		c->port = nla_get_u32(tb[ICN_A_CARD_PORT]);
	if (tb[ICN_A_CARD_HBM_SIZE] && nla_len(tb[ICN_A_CARD_HBM_SIZE]) >= 8)
		c->hbm_size = nla_get_u64(tb[ICN_A_CARD_HBM_SIZE]);
	copy_str(c->dev, sizeof(c->dev), tb[ICN_A_CARD_DEV_NAME]);
	copy_str(c->bus, sizeof(c->bus), tb[ICN_A_CARD_BUS_NAME]);
	return 0;
}

static void card_reset(void *arg)
{
	((struct card_list *)arg)->n = 0;
}

static int card_show(struct icn_ctx *ctx)
{
	struct icn_req req = {
		.cmd = ICN_CMD_CARD_GET,
		.what = "card show",
		.reset = card_reset,
	};
	struct card_list cl;
	char hbm[32];
	int rc;

	if (ctx->argc > 1) {
		fprintf(stderr, "icnctl: card show takes at most one FABRIC_ID\n");
		return EXIT_USAGE;
	}
	if (ctx->argc == 1) {
		if (parse_index(ctx->argv[0], "fabric id", ICN_PORTS, &req.card))
			return EXIT_USAGE;
		req.has_card = true;
	} else {
		req.dump = true;
	}
	cl.n = 0;
	rc = icn_nl_request(&req, card_msg, &cl);
	if (rc)
		return rc;
	/* An empty card dump is the same case the other objects report. */
	if (req.dump && !cl.n) {
		fprintf(stderr, "icnctl: card show: no M890 card is attached to an ICN switch (%s)\n",
			strerror(ENODEV));
		return EXIT_FAIL;
	}
	for (int i = 0; i < cl.n; i++) {
		const struct card_info *c = &cl.cards[i];

		snprintf(hbm, sizeof(hbm), "%" PRIu64 "MiB", c->hbm_size >> 20);
		out_obj_start();
		out_str("card", "card", c->dev);
		out_u32("fabric_id", "fabric-id", c->fabric_id);
		out_u32("port", "port", c->port);
		out_u64_as("hbm_bytes", c->hbm_size, "hbm", hbm);
		out_str("bus", "bus", c->bus);
		out_obj_end();
	}
	return out_finish() ? EXIT_FAIL : EXIT_OK;
}

static int card_help(struct icn_ctx *ctx)
{
	(void)ctx;
	printf("Usage:\n");
	print_usage(stdout, card_cmds);
	return EXIT_OK;
}

const struct icnctl_cmd card_cmds[] = {
	{ "show", card_show, "card show [ FABRIC_ID ]" },
	{ "list", card_show, NULL },
	{ "help", card_help, "card help" },
	{ NULL, NULL, NULL },
};

int cmd_card(struct icn_ctx *ctx)
{
	return dispatch(ctx, "card", card_cmds, "show");
}
