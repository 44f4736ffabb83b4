// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/icn.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "m890_netlink_gen.h"

#include <uapi/linux/icn_netlink.h>

/* Integer value ranges */
static const struct netlink_range_validation icn_a_inject_count_range = {
	.min	= 1ULL,
	.max	= 4294967296ULL,
};

/* ICN_CMD_PORT_GET - do */
static const struct nla_policy icn_port_get_nl_policy[ICN_A_PORT_INDEX + 1] = {
	[ICN_A_PORT_INDEX] = NLA_POLICY_MAX(NLA_U32, 63),
};

/* ICN_CMD_PORT_SET - do */
static const struct nla_policy icn_port_set_nl_policy[ICN_A_PORT_SPEED + 1] = {
	[ICN_A_PORT_INDEX] = NLA_POLICY_MAX(NLA_U32, 63),
	[ICN_A_PORT_ADMIN_STATE] = NLA_POLICY_RANGE(NLA_U32, 1, 4),
	[ICN_A_PORT_SPEED] = { .type = NLA_U32, },
	[ICN_A_PORT_PARTITION] = NLA_POLICY_MAX(NLA_U32, 63),
};

/* ICN_CMD_PORT_CLEAR - do */
static const struct nla_policy icn_port_clear_nl_policy[ICN_A_PORT_INDEX + 1] = {
	[ICN_A_PORT_INDEX] = NLA_POLICY_MAX(NLA_U32, 63),
};

/* ICN_CMD_CARD_GET - do */
static const struct nla_policy icn_card_get_nl_policy[ICN_A_CARD_FABRIC_ID + 1] = {
	[ICN_A_CARD_FABRIC_ID] = NLA_POLICY_MAX(NLA_U32, 63),
};

/* ICN_CMD_PORT_RESET - do */
static const struct nla_policy icn_port_reset_nl_policy[ICN_A_PORT_INDEX + 1] = {
	[ICN_A_PORT_INDEX] = NLA_POLICY_MAX(NLA_U32, 63),
};

/* ICN_CMD_PORT_INJECT - do */
static const struct nla_policy icn_port_inject_nl_policy[ICN_A_INJECT_COUNT + 1] = {
	[ICN_A_PORT_INDEX] = NLA_POLICY_MAX(NLA_U32, 63),
	[ICN_A_INJECT_KIND] = NLA_POLICY_RANGE(NLA_U32, 1, 3),
	[ICN_A_INJECT_COUNT] = NLA_POLICY_FULL_RANGE(NLA_U64, &icn_a_inject_count_range),
};

/* ICN_CMD_ROUTE_GET - do */
static const struct nla_policy icn_route_get_nl_policy[ICN_A_ROUTE_FABRIC_ID + 1] = {
	[ICN_A_ROUTE_FABRIC_ID] = NLA_POLICY_MAX(NLA_U32, 63),
};

/* ICN_CMD_ROUTE_SET - do */
static const struct nla_policy icn_route_set_nl_policy[ICN_A_ROUTE_ENABLED + 1] = {
	[ICN_A_ROUTE_FABRIC_ID] = NLA_POLICY_MAX(NLA_U32, 63),
	[ICN_A_ROUTE_EGRESS_PORT] = NLA_POLICY_MAX(NLA_U32, 63),
	[ICN_A_ROUTE_ENABLED] = NLA_POLICY_MAX(NLA_U8, 1),
};

/* ICN_CMD_ROUTE_DEL - do */
static const struct nla_policy icn_route_del_nl_policy[ICN_A_ROUTE_FABRIC_ID + 1] = {
	[ICN_A_ROUTE_FABRIC_ID] = NLA_POLICY_MAX(NLA_U32, 63),
};

/* ICN_CMD_PARTITION_GET - do */
static const struct nla_policy icn_partition_get_nl_policy[ICN_A_PARTITION_ID + 1] = {
	[ICN_A_PARTITION_ID] = NLA_POLICY_MAX(NLA_U32, 63),
};

/* ICN_CMD_PARTITION_ADD - do */
static const struct nla_policy icn_partition_add_nl_policy[ICN_A_PARTITION_PORT + 1] = {
	[ICN_A_PARTITION_ID] = NLA_POLICY_MAX(NLA_U32, 63),
	[ICN_A_PARTITION_PORT] = NLA_POLICY_MAX(NLA_U32, 63),
};

/* ICN_CMD_PARTITION_SET - do */
static const struct nla_policy icn_partition_set_nl_policy[ICN_A_PARTITION_PORT + 1] = {
	[ICN_A_PARTITION_ID] = NLA_POLICY_MAX(NLA_U32, 63),
	[ICN_A_PARTITION_PORT] = NLA_POLICY_MAX(NLA_U32, 63),
};

/* ICN_CMD_PARTITION_DEL - do */
static const struct nla_policy icn_partition_del_nl_policy[ICN_A_PARTITION_ID + 1] = {
	[ICN_A_PARTITION_ID] = NLA_POLICY_MAX(NLA_U32, 63),
};

/* Ops table for icn */
static const struct genl_split_ops icn_nl_ops[] = {
	{
		.cmd	= ICN_CMD_SWITCH_GET,
		.doit	= icn_nl_switch_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ICN_CMD_PORT_GET,
		.doit		= icn_nl_port_get_doit,
		.policy		= icn_port_get_nl_policy,
		.maxattr	= ICN_A_PORT_INDEX,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= ICN_CMD_PORT_GET,
		.dumpit	= icn_nl_port_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= ICN_CMD_PORT_SET,
		.doit		= icn_nl_port_set_doit,
		.policy		= icn_port_set_nl_policy,
		.maxattr	= ICN_A_PORT_SPEED,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ICN_CMD_PORT_CLEAR,
		.doit		= icn_nl_port_clear_doit,
		.policy		= icn_port_clear_nl_policy,
		.maxattr	= ICN_A_PORT_INDEX,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ICN_CMD_CARD_GET,
		.doit		= icn_nl_card_get_doit,
		.policy		= icn_card_get_nl_policy,
		.maxattr	= ICN_A_CARD_FABRIC_ID,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= ICN_CMD_CARD_GET,
		.dumpit	= icn_nl_card_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= ICN_CMD_SWITCH_RESET,
		.doit	= icn_nl_switch_reset_doit,
		.flags	= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ICN_CMD_PORT_RESET,
		.doit		= icn_nl_port_reset_doit,
		.policy		= icn_port_reset_nl_policy,
		.maxattr	= ICN_A_PORT_INDEX,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ICN_CMD_PORT_INJECT,
		.doit		= icn_nl_port_inject_doit,
		.policy		= icn_port_inject_nl_policy,
		.maxattr	= ICN_A_INJECT_COUNT,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ICN_CMD_ROUTE_GET,
		.doit		= icn_nl_route_get_doit,
		.policy		= icn_route_get_nl_policy,
		.maxattr	= ICN_A_ROUTE_FABRIC_ID,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= ICN_CMD_ROUTE_GET,
		.dumpit	= icn_nl_route_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= ICN_CMD_ROUTE_SET,
		.doit		= icn_nl_route_set_doit,
		.policy		= icn_route_set_nl_policy,
		.maxattr	= ICN_A_ROUTE_ENABLED,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ICN_CMD_ROUTE_DEL,
		.doit		= icn_nl_route_del_doit,
		.policy		= icn_route_del_nl_policy,
		.maxattr	= ICN_A_ROUTE_FABRIC_ID,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ICN_CMD_PARTITION_GET,
		.doit		= icn_nl_partition_get_doit,
		.policy		= icn_partition_get_nl_policy,
		.maxattr	= ICN_A_PARTITION_ID,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= ICN_CMD_PARTITION_GET,
		.dumpit	= icn_nl_partition_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= ICN_CMD_PARTITION_ADD,
		.doit		= icn_nl_partition_add_doit,
		.policy		= icn_partition_add_nl_policy,
		.maxattr	= ICN_A_PARTITION_PORT,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ICN_CMD_PARTITION_SET,
		.doit		= icn_nl_partition_set_doit,
		.policy		= icn_partition_set_nl_policy,
		.maxattr	= ICN_A_PARTITION_PORT,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ICN_CMD_PARTITION_DEL,
		.doit		= icn_nl_partition_del_doit,
		.policy		= icn_partition_del_nl_policy,
		.maxattr	= ICN_A_PARTITION_ID,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
};

static const struct genl_multicast_group icn_nl_mcgrps[] = {
	[ICN_NLGRP_CONFIG] = { "config", },
	[ICN_NLGRP_ERRORS] = { "errors", },
};

struct genl_family icn_nl_family __ro_after_init = {
	.name		= ICN_FAMILY_NAME,
	.version	= ICN_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.split_ops	= icn_nl_ops,
	.n_split_ops	= ARRAY_SIZE(icn_nl_ops),
	.mcgrps		= icn_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(icn_nl_mcgrps),
};
