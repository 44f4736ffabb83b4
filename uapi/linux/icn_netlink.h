/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * ICN Switch 1.0 generic netlink family "icn" (Documentation/netlink.rst).
 *
 * Documentation/netlink/specs/icn.yaml is the source of truth for every
 * name and value here; a host unit test checks that they agree.
 * All integer attributes are fixed width (u8/u32/u64); enums start at 1.
 * Changes need CAP_NET_ADMIN (GENL_ADMIN_PERM).
 */
#ifndef _UAPI_LINUX_ICN_NETLINK_H
#define _UAPI_LINUX_ICN_NETLINK_H

#define ICN_FAMILY_NAME		"icn"
#define ICN_FAMILY_VERSION	1
#define ICN_MCGRP_CONFIG	"config"

enum icn_cmd {
	ICN_CMD_UNSPEC,
	ICN_CMD_SWITCH_GET,	/* do: switch description */
	ICN_CMD_PORT_GET,	/* do: one port (ICN_A_PORT_INDEX); dump: all */
	ICN_CMD_PORT_SET,	/* do, admin: ICN_A_PORT_INDEX + ADMIN_STATE */
	ICN_CMD_PORT_NTF,	/* notification on ICN_MCGRP_CONFIG */
	ICN_CMD_PORT_CLEAR,	/* do, admin: zero counters of PORT_INDEX or all */
	ICN_CMD_CARD_GET,	/* do: one card (CARD_FABRIC_ID); dump: all */

	__ICN_CMD_MAX,
	ICN_CMD_MAX = __ICN_CMD_MAX - 1
};

enum icn_port_state {
	ICN_PORT_STATE_DOWN = 1,
	ICN_PORT_STATE_TRAINING,
	ICN_PORT_STATE_UP,
	ICN_PORT_STATE_ERROR,
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
	ICN_A_PORT_SPEED,		/* u32: Mbit/s */
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

	__ICN_A_MAX,
	ICN_A_MAX = __ICN_A_MAX - 1
};

#endif /* _UAPI_LINUX_ICN_NETLINK_H */
