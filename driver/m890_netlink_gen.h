/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/icn.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_ICN_GEN_H
#define _LINUX_ICN_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/icn_netlink.h>

int icn_nl_switch_get_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_port_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int icn_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_port_clear_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_card_get_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_card_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int icn_nl_switch_reset_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_port_reset_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_port_inject_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_route_get_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_route_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int icn_nl_route_set_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_route_del_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_partition_get_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_partition_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int icn_nl_partition_add_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_partition_set_doit(struct sk_buff *skb, struct genl_info *info);
int icn_nl_partition_del_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	ICN_NLGRP_CONFIG,
	ICN_NLGRP_ERRORS,
};

extern struct genl_family icn_nl_family;

#endif /* _LINUX_ICN_GEN_H */
