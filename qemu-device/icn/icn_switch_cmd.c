// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: ICN switch management commands
 *
 * The decoder of the switch management window's commands (spec §8.3),
 * written against the switch core only, so that a card relaying SW_CMD to
 * an in-process switch and icn-switchd serving cards of other VMs give
 * the same answers.
 */
#include <string.h>

#include "icn_switch_cmd.h"

/* Opcodes that change the switch and need management permission. */
static bool icn_cmd_changes(uint32_t op)
{
    return op == M890_SW_OP_PORT_SET_ADMIN || op == M890_SW_OP_PORT_CLEAR;
}

static bool icn_cmd_known(uint32_t op)
{
    return op >= M890_SW_OP_INFO && op <= M890_SW_OP_PORT_CLEAR;
}

static void icn_cmd_port_get(struct icn_switch *sw, unsigned int port,
                             uint64_t *d)
{
    struct icn_port_info pi;

    icn_switch_port_get(sw, port, &pi);
    d[M890_SW_PORT_STATE] = pi.admin | pi.oper << 8 |
                            (uint32_t)pi.present << 16;
    d[M890_SW_PORT_FABRIC_ID] = pi.fabric_id;
    d[M890_SW_PORT_PARTITION] = pi.partition;
    d[M890_SW_PORT_SPEED] = pi.speed_mbps;
    d[M890_SW_PORT_TX_BYTES] = pi.tx_bytes;
    d[M890_SW_PORT_RX_BYTES] = pi.rx_bytes;
    d[M890_SW_PORT_TX_PKTS] = pi.tx_pkts;
    d[M890_SW_PORT_RX_PKTS] = pi.rx_pkts;
    d[M890_SW_PORT_ERRORS] = pi.errors;
    d[M890_SW_PORT_LINK_DOWN] = pi.link_down;
}

uint32_t icn_switch_command(struct icn_switch *sw, bool mgmt, uint32_t cmd,
                            uint64_t arg0, uint64_t arg1, uint64_t *d)
{
    uint32_t op = cmd & 0xff;
    uint32_t port = (cmd >> M890_SW_CMD_ARG_SHIFT) & 0xff;

    (void)arg1;
    memset(d, 0, M890_SW_DATA_WORDS * sizeof(*d));
    if ((cmd >> 16) || !icn_cmd_known(op)) {
        return M890_SW_EINVAL;
    }
    if (op != M890_SW_OP_INFO && port >= ICN_SWITCH_PORTS) {
        return M890_SW_ERANGE;
    }
    if (icn_cmd_changes(op) && !mgmt) {
        return M890_SW_EPERM;
    }
    switch (op) {
    case M890_SW_OP_INFO:
        d[0] = ICN_SWITCH_PORTS;
        d[1] = ICN_SWITCH_VERSION;
        d[2] = icn_switch_id(sw);
        return M890_SW_OK;
    case M890_SW_OP_PORT_GET:
        icn_cmd_port_get(sw, port, d);
        return M890_SW_OK;
    case M890_SW_OP_PORT_SET_ADMIN:
        if (arg0 > 1) {
            return M890_SW_EINVAL;
        }
        icn_switch_set_admin(sw, port, arg0 ? M890_LINK_UP : M890_LINK_DOWN);
        return M890_SW_OK;
    case M890_SW_OP_PORT_CLEAR:
        icn_switch_port_clear(sw, port);
        return M890_SW_OK;
    }
    return M890_SW_EINVAL;
}
