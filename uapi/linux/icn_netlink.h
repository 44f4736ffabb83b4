/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/icn.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_ICN_NETLINK_H
#define _UAPI_LINUX_ICN_NETLINK_H

#define ICN_FAMILY_NAME		"icn"
#define ICN_FAMILY_VERSION	1

/**
 * enum icn_port_state - Link state of a switch port (hardware spec 8.2). The
 *   administrative state takes down and up only; the operational state takes
 *   all four.
 * @ICN_PORT_STATE_DOWN: no link; administratively down or no card cabled
 * @ICN_PORT_STATE_TRAINING: link being trained, not usable yet
 * @ICN_PORT_STATE_UP: link usable
 * @ICN_PORT_STATE_ERROR: link failed (cable fault or injected error), no
 *   traffic
 */
enum icn_port_state {
	ICN_PORT_STATE_DOWN = 1,
	ICN_PORT_STATE_TRAINING,
	ICN_PORT_STATE_UP,
	ICN_PORT_STATE_ERROR,
};

/**
 * enum icn_inject_kind - Error injection kinds (hardware spec 8.5).
 * @ICN_INJECT_KIND_CLEAR: cancel pending drops (a link in error stays there
 *   until reset)
 * @ICN_INJECT_KIND_LINK_ERROR: an oper-up port's link fails (oper error,
 *   link-down count + 1)
 * @ICN_INJECT_KIND_DROP: the next inject-count transfers through the port fail
 */
enum icn_inject_kind {
	ICN_INJECT_KIND_CLEAR = 1,
	ICN_INJECT_KIND_LINK_ERROR,
	ICN_INJECT_KIND_DROP,
};

/**
 * enum icn_error_kind - Kinds of error-ntf notification.
 * @ICN_ERROR_KIND_LINK_ERROR: a port's oper state became error; carries
 *   port-index
 * @ICN_ERROR_KIND_INJECTED: an error injection was executed; carries
 *   port-index, inject-kind and, for drop, inject-count
 * @ICN_ERROR_KIND_FABRIC_FAULT: a queue of a card of this system stopped
 *   because the fabric refused an access (hardware spec 8.1); carries
 *   card-dev-name, card-fabric-id, error-addr and error-count
 */
enum icn_error_kind {
	ICN_ERROR_KIND_LINK_ERROR = 1,
	ICN_ERROR_KIND_INJECTED,
	ICN_ERROR_KIND_FABRIC_FAULT,
};

enum icn_attr {
	ICN_A_SWITCH_PORTS = 1,
	ICN_A_SWITCH_VERSION,
	ICN_A_SWITCH_ID,
	ICN_A_PORT_INDEX,
	ICN_A_PORT_ADMIN_STATE,
	ICN_A_PORT_OPER_STATE,
	ICN_A_PORT_PRESENT,
	ICN_A_PORT_FABRIC_ID,
	ICN_A_PORT_PARTITION,
	ICN_A_PORT_SPEED,
	ICN_A_PORT_TX_BYTES,
	ICN_A_PORT_RX_BYTES,
	ICN_A_PORT_TX_PACKETS,
	ICN_A_PORT_RX_PACKETS,
	ICN_A_PORT_ERRORS,
	ICN_A_PORT_LINK_DOWN_COUNT,
	ICN_A_PORT_DEV_NAME,
	ICN_A_CARD_DEV_NAME,
	ICN_A_CARD_FABRIC_ID,
	ICN_A_CARD_PORT,
	ICN_A_CARD_HBM_SIZE,
	ICN_A_CARD_BUS_NAME,
	ICN_A_PAD,
	ICN_A_PORT_INJECT_DROPS,
	ICN_A_ROUTE_FABRIC_ID,
	ICN_A_ROUTE_EGRESS_PORT,
	ICN_A_ROUTE_ENABLED,
	ICN_A_PARTITION_ID,
	ICN_A_PARTITION_PORT,
	ICN_A_INJECT_KIND,
	ICN_A_INJECT_COUNT,
	ICN_A_ERROR_KIND,
	ICN_A_ERROR_ADDR,
	ICN_A_ERROR_COUNT,

	__ICN_A_MAX,
	ICN_A_MAX = (__ICN_A_MAX - 1)
};

enum icn_cmd {
	ICN_CMD_SWITCH_GET = 1,
	ICN_CMD_PORT_GET,
	ICN_CMD_PORT_SET,
	ICN_CMD_PORT_NTF,
	ICN_CMD_PORT_CLEAR,
	ICN_CMD_CARD_GET,
	ICN_CMD_SWITCH_RESET,
	ICN_CMD_PORT_RESET,
	ICN_CMD_PORT_INJECT,
	ICN_CMD_ROUTE_GET,
	ICN_CMD_ROUTE_SET,
	ICN_CMD_ROUTE_DEL,
	ICN_CMD_ROUTE_NTF,
	ICN_CMD_PARTITION_GET,
	ICN_CMD_PARTITION_ADD,
	ICN_CMD_PARTITION_SET,
	ICN_CMD_PARTITION_DEL,
	ICN_CMD_PARTITION_NTF,
	ICN_CMD_ERROR_NTF,

	__ICN_CMD_MAX,
	ICN_CMD_MAX = (__ICN_CMD_MAX - 1)
};

#define ICN_MCGRP_CONFIG	"config"
#define ICN_MCGRP_ERRORS	"errors"

#endif /* _UAPI_LINUX_ICN_NETLINK_H */
