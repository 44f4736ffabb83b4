// SPDX-License-Identifier: MIT
/*
 * DOC: icnctl partition
 *
 * A partition is a set of switch ports whose cards may reach each other
 * (hardware spec §8.5); partition 0 is the default one and holds every
 * port no other partition holds.  "partition show [ID]" lists partitions
 * with their member ports; "partition add ID [ports LIST]" defines a new
 * one, moving the listed ports into it; "partition set ID ports LIST"
 * makes LIST its exact membership (ports left out return to partition
 * 0); "partition del ID" returns its ports to partition 0.  LIST is
 * "1,3,5-7".  Changes need CAP_NET_ADMIN.
 */
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>

#include <linux/icn_netlink.h>

#include "icnctl.h"

struct partition {
	uint32_t id;
	uint64_t ports;
};

struct partition_list {
	struct partition p[ICN_PARTITIONS];
	int n;
};

static void partition_parse(struct nlattr **tb, struct partition *p)
{
	memset(p, 0, sizeof(*p));
	if (tb[ICN_A_PARTITION_ID] && nla_len(tb[ICN_A_PARTITION_ID]) >= 4)
		p->id = nla_get_u32(tb[ICN_A_PARTITION_ID]);
}

/*
 * PARTITION_PORT repeats, so the parsed table holds only the last one:
 * walk the message's attributes instead.
 */
/*
 * PARTITION_PORT repeats, so the parsed table holds only the last one:
 * walk the message's attribute stream instead.
 */
static void partition_ports(struct partition *p)
{
	struct nlattr *a, *head;
	int len, rem;

	head = icn_nl_attrs(&len);
	nla_for_each_attr(a, head, len, rem)
		if (nla_type(a) == ICN_A_PARTITION_PORT && nla_len(a) >= 4 &&
		    nla_get_u32(a) < ICN_PORTS)
			p->ports |= 1ull << nla_get_u32(a);
}

static void partition_fields(const struct partition *p)
{
	out_u32("partition", "partition", p->id);
	out_port_list("ports", "ports", p->ports);
}

void partition_print(struct nlattr **tb)
{
	struct partition p;

	partition_parse(tb, &p);
	partition_ports(&p);
	partition_fields(&p);
}

static int partition_msg(struct nlattr **tb, void *arg)
{
	struct partition_list *pl = arg;
	struct partition *p;

	if (!tb[ICN_A_PARTITION_ID])
		return 0;
	if (pl->n >= ICN_PARTITIONS) {
		fprintf(stderr, "icnctl: more than %d partitions in the reply\n",
			ICN_PARTITIONS);
		return -1;
	}
	p = &pl->p[pl->n++];
	partition_parse(tb, p);
	partition_ports(p);
	return 0;
}

static void partition_reset(void *arg)
{
	((struct partition_list *)arg)->n = 0;
}

static int partition_show(struct icn_ctx *ctx)
{
	struct icn_req req = {
		.cmd = ICN_CMD_PARTITION_GET,
		.what = "partition show",
		.reset = partition_reset,
	};
	struct partition_list *pl;
	uint32_t id;
	int rc;

	if (ctx->argc > 1) {
		fprintf(stderr, "icnctl: partition show takes at most one ID\n");
		return EXIT_USAGE;
	}
	if (ctx->argc == 1) {
		if (parse_index(ctx->argv[0], "partition", ICN_PARTITIONS, &id))
			return EXIT_USAGE;
		icn_req_add(&req, ICN_A_PARTITION_ID, 4, id);
	} else {
		req.dump = true;
	}
	pl = calloc(1, sizeof(*pl));
	if (!pl) {
		fprintf(stderr, "icnctl: out of memory\n");
		return EXIT_FAIL;
	}
	rc = icn_nl_request(&req, partition_msg, pl);
	if (rc == EXIT_OK) {
		for (int i = 0; i < pl->n; i++) {
			out_obj_start();
			partition_fields(&pl->p[i]);
			out_obj_end();
		}
		if (out_finish())
			rc = EXIT_FAIL;
	}
	free(pl);
	return rc;
}

/*
 * "partition add|set ID [ports LIST]" and "partition del ID": @ports_rule
 * is 0 (none allowed), 1 (optional) or 2 (required).
 */
static int partition_change(struct icn_ctx *ctx, uint8_t cmd, const char *what,
			    int ports_rule, const char *usage)
{
	static const char *const keys[] = { "ports" };
	struct icn_req req = { .cmd = cmd, .what = what };
	uint64_t ports = 0;
	uint32_t id;

	if (ctx->argc < 1)
		goto usage;
	if (parse_index(ctx->argv[0], "partition", ICN_PARTITIONS, &id))
		return EXIT_USAGE;
	if (ctx->argc > 1) {
		if (!ports_rule || ctx->argc != 3 || match_word(ctx->argv[1], keys, 1) < 0)
			goto usage;
		if (parse_port_list(ctx->argv[2], &ports)) {
			fprintf(stderr, "icnctl: bad port list \"%s\": ports 0..%d as 1,3,5-7\n",
				ctx->argv[2], ICN_PORTS - 1);
			return EXIT_USAGE;
		}
	}
	if (ports_rule == 2 && !ports) {
		fprintf(stderr, "icnctl: %s needs at least one port\n", what);
		goto usage;
	}
	icn_req_add(&req, ICN_A_PARTITION_ID, 4, id);
	for (int i = 0; i < ICN_PORTS; i++)
		if (ports >> i & 1)
			icn_req_add(&req, ICN_A_PARTITION_PORT, 4, i);
	return icn_nl_request(&req, NULL, NULL);
usage:
	fprintf(stderr, "icnctl: usage: icnctl %s\n", usage);
	return EXIT_USAGE;
}

static int partition_add(struct icn_ctx *ctx)
{
	return partition_change(ctx, ICN_CMD_PARTITION_ADD, "partition add", 1,
				partition_cmds[1].help);
}

static int partition_set(struct icn_ctx *ctx)
{
	return partition_change(ctx, ICN_CMD_PARTITION_SET, "partition set", 2,
				partition_cmds[2].help);
}

static int partition_del(struct icn_ctx *ctx)
{
	return partition_change(ctx, ICN_CMD_PARTITION_DEL, "partition del", 0,
				partition_cmds[3].help);
}

static int partition_help(struct icn_ctx *ctx)
{
	(void)ctx;
	printf("Usage:\n");
	print_usage(stdout, partition_cmds);
	return EXIT_OK;
}

const struct icnctl_cmd partition_cmds[] = {
	{ "show", partition_show, "partition show [ ID ]" },
	{ "add", partition_add, "partition add ID [ ports LIST ]" },
	{ "set", partition_set, "partition set ID ports LIST" },
	{ "del", partition_del, "partition del ID" },
	{ "help", partition_help, "partition help" },
	{ NULL, NULL, NULL },
};

int cmd_partition(struct icn_ctx *ctx)
{
	return dispatch(ctx, "partition", partition_cmds, "show");
}
