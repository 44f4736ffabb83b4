// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: ICN switch management commands
 *
 * The decoder of the switch management window's commands (spec §8.3),
 * written against the switch core only, so that a card relaying SW_CMD to
 * an in-process switch and icn-switchd serving the cards of several VMs
 * give the same answers.
 */
#include <errno.h>
#include <string.h>

#include "icn_switch_cmd.h"

/* Map a core error of a changing command to a switch status. */
static uint32_t icn_cmd_status(int ret)
{
    switch (ret) {
    case 0:
        return M890_SW_OK;
    case -ERANGE:
        return M890_SW_ERANGE;
    default:
        return M890_SW_EINVAL;
    }
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
    d[M890_SW_PORT_INJECT_DROPS] = pi.inject_drops;
}

/* Map a core error of an export or window opcode (spec §8.7). */
static uint32_t icn_cmd_export_status(int ret)
{
    switch (ret) {
    case 0:
        return M890_SW_OK;
    case -ERANGE:
        return M890_SW_ERANGE;
    case -ENODEV:
        return M890_SW_ENODEV;
    case -ENOENT:
        return M890_SW_ENOENT;
    case -EBUSY:
        return M890_SW_EBUSY;
    case -EACCES:
        return M890_SW_EPERM;
    case -ENETDOWN:
        return M890_SW_ENOLINK;
    default:
        return M890_SW_EINVAL;
    }
}

/*
 * Opcodes 9..12 (spec §8.7), issued by the card on @port: exports of its
 * own HBM and its windows on other cards' exports.
 */
static uint32_t icn_cmd_export(struct icn_switch *sw, unsigned int port,
                               uint32_t op, uint32_t arg, uint64_t arg0,
                               uint64_t arg1, uint64_t *d, int *changed)
{
    unsigned int owner = 0, slot = 0;
    uint64_t range = 0;
    int ret;

    switch (op) {
    case M890_SW_OP_EXPORT_ADD:
        ret = icn_switch_export_add(sw, port, arg, arg0, arg1);
        owner = port;
        slot = arg;
        break;
    case M890_SW_OP_EXPORT_DEL:
        ret = icn_switch_export_del(sw, port, arg);
        owner = port;
        slot = arg;
        break;
    case M890_SW_OP_WINDOW_OPEN:
        ret = icn_switch_window_open(sw, port, arg, arg0, &owner, &slot,
                                     &range);
        d[0] = range;
        d[1] = slot;
        break;
    default:    /* M890_SW_OP_WINDOW_CLOSE */
        if (arg0 >= M890_SW_EXPORTS) {
            return M890_SW_ERANGE;
        }
        slot = (unsigned int)arg0;
        ret = icn_switch_window_close(sw, port, arg, slot, &owner);
        break;
    }
    if (!ret && changed) {
        *changed = (int)(owner << 8 | slot);
    }
    return icn_cmd_export_status(ret);
}

static uint32_t icn_cmd_do(struct icn_switch *sw, unsigned int port,
                           bool mgmt, uint32_t op, uint32_t arg,
                           uint64_t arg0, uint64_t arg1, uint64_t *d,
                           int *changed)
{
    bool changes;

    switch (op) {
    case M890_SW_OP_INFO:
    case M890_SW_OP_PORT_GET:
    case M890_SW_OP_ROUTE_GET:
        changes = false;
        break;
    case M890_SW_OP_EXPORT_ADD:
    case M890_SW_OP_EXPORT_DEL:
    case M890_SW_OP_WINDOW_OPEN:
    case M890_SW_OP_WINDOW_CLOSE:
        /* a card offers only its own HBM: no management permission */
        if (arg >= (op <= M890_SW_OP_EXPORT_DEL ? M890_SW_EXPORTS :
                    ICN_SWITCH_PORTS)) {
            return M890_SW_ERANGE;      /* slot, or fabric id */
        }
        return icn_cmd_export(sw, port, op, arg, arg0, arg1, d, changed);
    case M890_SW_OP_PORT_SET_ADMIN:
    case M890_SW_OP_PORT_CLEAR:
    case M890_SW_OP_PORT_SET_PARTITION:
    case M890_SW_OP_ROUTE_SET:
    case M890_SW_OP_PORT_INJECT:
        changes = true;
        break;
    default:
        return M890_SW_EINVAL;
    }
    if (op != M890_SW_OP_INFO && arg >= ICN_SWITCH_PORTS) {
        return M890_SW_ERANGE;
    }
    if (op == M890_SW_OP_ROUTE_SET &&
        (arg0 & M890_SW_ROUTE_EGRESS_MASK) >= ICN_SWITCH_PORTS) {
        return M890_SW_ERANGE;
    }
    if (changes && !mgmt) {
        return M890_SW_EPERM;
    }

    switch (op) {
    case M890_SW_OP_INFO:
        d[0] = ICN_SWITCH_PORTS;
        d[1] = ICN_SWITCH_VERSION;
        d[2] = icn_switch_id(sw);
        return M890_SW_OK;
    case M890_SW_OP_PORT_GET:
        icn_cmd_port_get(sw, arg, d);
        return M890_SW_OK;
    case M890_SW_OP_PORT_SET_ADMIN:
        if (arg0 > 1) {
            return M890_SW_EINVAL;
        }
        return icn_cmd_status(icn_switch_set_admin(sw, arg, arg0 ?
                              M890_LINK_UP : M890_LINK_DOWN));
    case M890_SW_OP_PORT_CLEAR:
        return icn_cmd_status(icn_switch_port_clear(sw, arg));
    case M890_SW_OP_PORT_SET_PARTITION:
        if (arg0 >= M890_SW_PARTITIONS) {
            return M890_SW_EINVAL;
        }
        return icn_cmd_status(icn_switch_set_partition(sw, arg, arg0));
    case M890_SW_OP_ROUTE_GET:
        icn_switch_route_get(sw, arg, &d[0]);
        return M890_SW_OK;
    case M890_SW_OP_ROUTE_SET:
        return icn_cmd_status(icn_switch_route_set(sw, arg, arg0));
    default:    /* M890_SW_OP_PORT_INJECT */
        if (arg0 > UINT32_MAX) {
            return M890_SW_EINVAL;
        }
        return icn_cmd_status(icn_switch_inject(sw, arg, arg0, arg1));
    }
}

uint32_t icn_switch_command(struct icn_switch *sw, unsigned int port,
                            bool mgmt, uint32_t cmd, uint64_t arg0,
                            uint64_t arg1, uint64_t *d, int *changed)
{
    uint32_t status;
    int dummy;

    if (!changed) {
        changed = &dummy;
    }
    *changed = -1;
    memset(d, 0, M890_SW_DATA_WORDS * sizeof(*d));
    if (cmd & M890_SW_CMD_RSVD_MASK) {
        return M890_SW_EINVAL;
    }
    status = icn_cmd_do(sw, port, mgmt, cmd & M890_SW_CMD_OP_MASK,
                        (cmd & M890_SW_CMD_ARG_MASK) >> M890_SW_CMD_ARG_SHIFT,
                        arg0, arg1, d, changed);
    if (status != M890_SW_OK) {
        memset(d, 0, M890_SW_DATA_WORDS * sizeof(*d));
        *changed = -1;
    }
    return status;
}
