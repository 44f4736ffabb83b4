/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * ICN Switch 1.0 generic netlink family "icn" (Documentation/netlink.rst).
 *
 * Documentation/netlink/specs/icn.yaml is the source of truth for every
 * name and value here; a host unit test checks that they agree.
 * All integer attributes are fixed width (u8/u32/u64); enums start at 1.
 * Changes need CAP_NET_ADMIN (GENL_ADMIN_PERM).  Multicast groups:
 * "config" (port, route and partition notifications) and "errors".
 */
#ifndef _UAPI_LINUX_ICN_NETLINK_H
#define _UAPI_LINUX_ICN_NETLINK_H

#define ICN_FAMILY_NAME		"icn"
#define ICN_FAMILY_VERSION	1
#define ICN_MCGRP_CONFIG	"config"
#define ICN_MCGRP_ERRORS	"errors"

enum icn_cmd {
	ICN_CMD_UNSPEC,
	ICN_CMD_SWITCH_GET,	/* do: switch description */
	ICN_CMD_PORT_GET,	/* do: one port (ICN_A_PORT_INDEX); dump: all */
	ICN_CMD_PORT_SET,	/* do, admin: ICN_A_PORT_INDEX + ADMIN_STATE */
	ICN_CMD_PORT_NTF,	/* notification on ICN_MCGRP_CONFIG */
	ICN_CMD_PORT_CLEAR,	/* do, admin: zero counters of PORT_INDEX or all */
	ICN_CMD_CARD_GET,	/* do: one card (CARD_FABRIC_ID); dump: all */
	ICN_CMD_SWITCH_RESET,	/* do, admin: power-on configuration */
	ICN_CMD_PORT_RESET,	/* do, admin: PORT_INDEX link down and up */
	ICN_CMD_PORT_INJECT,	/* do, admin: PORT_INDEX, INJECT_KIND[, _COUNT] */
	ICN_CMD_ROUTE_GET,	/* do: one route (ROUTE_FABRIC_ID); dump: all */
	ICN_CMD_ROUTE_SET,	/* do, admin: ROUTE_FABRIC_ID, _EGRESS_PORT[, _ENABLED] */
	ICN_CMD_ROUTE_DEL,	/* do, admin: disable ROUTE_FABRIC_ID */
	ICN_CMD_ROUTE_NTF,	/* notification on ICN_MCGRP_CONFIG */
	ICN_CMD_PARTITION_GET,	/* do: PARTITION_ID; dump: every partition */
	ICN_CMD_PARTITION_ADD,	/* do, admin: PARTITION_ID, PARTITION_PORT* */
	ICN_CMD_PARTITION_SET,	/* do, admin: PARTITION_ID, PARTITION_PORT+ */
	ICN_CMD_PARTITION_DEL,	/* do, admin: PARTITION_ID */
	ICN_CMD_PARTITION_NTF,	/* notification on ICN_MCGRP_CONFIG */
	ICN_CMD_ERROR_NTF,	/* notification on ICN_MCGRP_ERRORS */

	__ICN_CMD_MAX,
	ICN_CMD_MAX = __ICN_CMD_MAX - 1
};

enum icn_port_state {
	ICN_PORT_STATE_DOWN = 1,
	ICN_PORT_STATE_TRAINING,
	ICN_PORT_STATE_UP,
	ICN_PORT_STATE_ERROR,
};

enum icn_inject_kind {
	ICN_INJECT_CLEAR = 1,	/* cancel pending drops */
	ICN_INJECT_LINK_ERROR,	/* oper up -> error */
	ICN_INJECT_DROP,	/* fail the next INJECT_COUNT transfers */
};

enum icn_error_kind {
	ICN_ERROR_LINK_ERROR = 1,	/* PORT_INDEX went oper error */
	ICN_ERROR_INJECTED,		/* PORT_INDEX, INJECT_KIND[, _COUNT] */
	ICN_ERROR_FABRIC_FAULT,		/* CARD_*, ERROR_ADDR, ERROR_COUNT */
};

enum icn_attr {
	ICN_A_UNSPEC,
	ICN_A_SWITCH_PORTS,		/* u32: number of ports */
	ICN_A_SWITCH_VERSION,		/* u32: major << 16 | minor */
	ICN_A_SWITCH_ID,		/* u32 */
	ICN_A_PORT_INDEX,		/* u32: 0..ports-1 */
	ICN_A_PORT_ADMIN_STATE,		/* u32: enum icn_port_state (DOWN/UP) */
	ICN_A_PORT_OPER_STATE,		/* u32: enum icn_port_state */
	ICN_A_PORT_PRESENT,		/* u8: 1 if a card is cabled */
	ICN_A_PORT_FABRIC_ID,		/* u32: attached card's fabric id */
	ICN_A_PORT_PARTITION,		/* u32 */
	ICN_A_PORT_SPEED,		/* u32: Mbit/s, nominal (6400000) */
	ICN_A_PORT_TX_BYTES,		/* u64 */
	ICN_A_PORT_RX_BYTES,		/* u64 */
	ICN_A_PORT_TX_PACKETS,		/* u64 */
	ICN_A_PORT_RX_PACKETS,		/* u64 */
	ICN_A_PORT_ERRORS,		/* u64 */
	ICN_A_PORT_LINK_DOWN_COUNT,	/* u64 */
	ICN_A_PORT_DEV_NAME,		/* string: accel node, e.g. "accel0" */
	ICN_A_CARD_DEV_NAME,		/* string: accel node, e.g. "accel0" */
	ICN_A_CARD_FABRIC_ID,		/* u32: 0..63 */
	ICN_A_CARD_PORT,		/* u32: switch port of the card */
	ICN_A_CARD_HBM_SIZE,		/* u64: bytes */
	ICN_A_CARD_BUS_NAME,		/* string: PCI address */
	ICN_A_PAD,			/* padding of u64 attributes */
	ICN_A_PORT_INJECT_DROPS,	/* u64: drops still pending */
	ICN_A_ROUTE_FABRIC_ID,		/* u32: destination, 0..63 */
	ICN_A_ROUTE_EGRESS_PORT,	/* u32: 0..63 */
	ICN_A_ROUTE_ENABLED,		/* u8: 0 or 1 */
	ICN_A_PARTITION_ID,		/* u32: 0..63 */
	ICN_A_PARTITION_PORT,		/* u32, repeated: member port */
	ICN_A_INJECT_KIND,		/* u32: enum icn_inject_kind */
	ICN_A_INJECT_COUNT,		/* u64: 1..2^32 */
	ICN_A_ERROR_KIND,		/* u32: enum icn_error_kind */
	ICN_A_ERROR_ADDR,		/* u64: device VA */
	ICN_A_ERROR_COUNT,		/* u32: merged faults */

	__ICN_A_MAX,
	ICN_A_MAX = __ICN_A_MAX - 1
};

#endif /* _UAPI_LINUX_ICN_NETLINK_H */
