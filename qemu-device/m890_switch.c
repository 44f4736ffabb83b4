/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: in-process ICN switch and the card's switch window
 *
 * "icn-switch" is a user-creatable object wrapping the plain-C switch core
 * (icn/icn_switch_core.c), so that all cards of one VM share one fabric
 * without a daemon:
 *
 *   -object icn-switch,id=sw0[,switch-id=N]
 *   -device m890,memdev=hbm0,switch=sw0,port=0
 *
 * A card's fabric id is its port.  The card relays management requests
 * written to its BAR0 switch window (SW_CMD) to the core and returns the
 * result synchronously; state changes come back as events to every card.
 * The card property "switch-mgmt" (default on) is the management
 * permission of spec §8.3: without it changing commands answer EPERM.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qapi/error.h"
#include "qom/object_interfaces.h"

#include "m890.h"
#include "trace.h"

/* Core callbacks run under the BQL in this process. */
static void icn_switch_event_cb(void *cb_opaque, void *ep_opaque,
                                const struct icn_event *ev)
{
    if (ep_opaque) {
        m890_fabric_event(ep_opaque, ev);
    }
}

static void icn_switch_kick_cb(void *opaque)
{
    m890_kick(opaque);
}

int m890_switch_attach(M890State *s, Error **errp)
{
    IcnSwitchState *sw = s->sw;
    struct icn_endpoint ep = {
        .opaque = s,
        .hbm = s->hbm,
        .hbm_size = s->hbm_size,
        .kick = icn_switch_kick_cb,
    };
    int ret;

    if (!sw->core) {
        error_setg(errp, "m890: switch '%s' is not ready",
                   object_get_canonical_path_component(OBJECT(sw)));
        return -1;
    }
    ret = icn_switch_attach(sw->core, s->port, &ep);
    if (ret == -EBUSY) {
        error_setg(errp, "m890: port %u of switch '%s' is already taken",
                   s->port, object_get_canonical_path_component(OBJECT(sw)));
        return -1;
    }
    if (ret) {
        error_setg(errp, "m890: cannot attach to port %u: %s", s->port,
                   strerror(-ret));
        return -1;
    }
    s->attached = true;
    sw->cards++;
    return 0;
}

void m890_switch_detach(M890State *s)
{
    if (!s->attached) {
        return;
    }
    s->attached = false;
    icn_switch_detach(s->sw->core, s->port);
    s->sw->cards--;
}

uint32_t m890_switch_fabric_reg(M890State *s)
{
    struct icn_port_info pi;
    uint32_t v;

    if (!s->attached) {
        return M890_FABRIC_ID_NONE |
               (M890_FABRIC_ID_NONE << M890_FABRIC_PORT_SHIFT);
    }
    v = s->port | (uint32_t)s->port << M890_FABRIC_PORT_SHIFT;
    if (!icn_switch_port_get(s->sw->core, s->port, &pi) &&
        pi.oper == M890_LINK_UP) {
        v |= M890_FABRIC_LINK_UP;
    }
    return v;
}

/* Map a core error of a changing command to a switch status. */
static uint32_t m890_switch_status(int ret)
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

static void m890_switch_port_get(M890State *s, uint32_t port)
{
    struct icn_port_info pi;
    uint64_t *d = s->sw_data;

    icn_switch_port_get(s->sw->core, port, &pi);
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

/*
 * Execute one command; checks in the order of spec §8.3: (ENODEV and the
 * reserved bits are checked by the caller) opcode, ERANGE on the port or
 * fabric id argument and on a route's egress port, EPERM, then argument
 * values.
 */
static uint32_t m890_switch_do(M890State *s, uint32_t op, uint32_t arg)
{
    struct icn_switch *core = s->sw->core;
    uint64_t arg0 = s->sw_arg[0], *d = s->sw_data;
    bool changes;

    switch (op) {
    case M890_SW_OP_INFO:
    case M890_SW_OP_PORT_GET:
    case M890_SW_OP_ROUTE_GET:
        changes = false;
        break;
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
    if (changes && !s->sw_mgmt) {
        return M890_SW_EPERM;
    }

    switch (op) {
    case M890_SW_OP_INFO:
        d[0] = ICN_SWITCH_PORTS;
        d[1] = ICN_SWITCH_VERSION;
        d[2] = icn_switch_id(core);
        return M890_SW_OK;
    case M890_SW_OP_PORT_GET:
        m890_switch_port_get(s, arg);
        return M890_SW_OK;
    case M890_SW_OP_PORT_SET_ADMIN:
        if (arg0 > 1) {
            return M890_SW_EINVAL;
        }
        return m890_switch_status(icn_switch_set_admin(core, arg, arg0 ?
                                  M890_LINK_UP : M890_LINK_DOWN));
    case M890_SW_OP_PORT_CLEAR:
        return m890_switch_status(icn_switch_port_clear(core, arg));
    case M890_SW_OP_PORT_SET_PARTITION:
        if (arg0 >= M890_SW_PARTITIONS) {
            return M890_SW_EINVAL;
        }
        return m890_switch_status(icn_switch_set_partition(core, arg, arg0));
    case M890_SW_OP_ROUTE_GET:
        icn_switch_route_get(core, arg, &d[0]);
        return M890_SW_OK;
    case M890_SW_OP_ROUTE_SET:
        return m890_switch_status(icn_switch_route_set(core, arg, arg0));
    default:    /* M890_SW_OP_PORT_INJECT */
        if (arg0 > UINT32_MAX) {
            return M890_SW_EINVAL;
        }
        return m890_switch_status(icn_switch_inject(core, arg, arg0,
                                                    s->sw_arg[1]));
    }
}

void m890_switch_cmd(M890State *s, uint32_t cmd)
{
    uint32_t op = cmd & 0xff, arg = (cmd >> M890_SW_CMD_ARG_SHIFT) & 0xff;

    memset(s->sw_data, 0, sizeof(s->sw_data));
    if (!s->attached) {
        s->sw_status = M890_SW_ENODEV;
    } else if (cmd >> 16) {
        s->sw_status = M890_SW_EINVAL;
    } else {
        s->sw_status = m890_switch_do(s, op, arg);
    }
    if (s->sw_status != M890_SW_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "m890: switch command 0x%x: status %u\n",
                      cmd, s->sw_status);
    }
    if (s->sw_status != M890_SW_OK) {
        memset(s->sw_data, 0, sizeof(s->sw_data));
    }
    trace_m890_switch_cmd(op, arg, s->sw_status);
}

static void icn_switch_complete(UserCreatable *uc, Error **errp)
{
    IcnSwitchState *sw = ICN_SWITCH(uc);

    sw->core = icn_switch_new(sw->switch_id);
    if (!sw->core) {
        error_setg(errp, "icn-switch: out of memory");
        return;
    }
    icn_switch_set_event_cb(sw->core, icn_switch_event_cb, sw);
}

static bool icn_switch_can_be_deleted(UserCreatable *uc)
{
    return ICN_SWITCH(uc)->cards == 0;
}

static void icn_switch_instance_init(Object *obj)
{
    IcnSwitchState *sw = ICN_SWITCH(obj);

    object_property_add_uint32_ptr(obj, "switch-id", &sw->switch_id,
                                   OBJ_PROP_FLAG_READWRITE);
}

static void icn_switch_instance_finalize(Object *obj)
{
    IcnSwitchState *sw = ICN_SWITCH(obj);

    icn_switch_free(sw->core);
    sw->core = NULL;
}

static void icn_switch_class_init(ObjectClass *oc, void *data)
{
    UserCreatableClass *ucc = USER_CREATABLE_CLASS(oc);

    ucc->complete = icn_switch_complete;
    ucc->can_be_deleted = icn_switch_can_be_deleted;
}

static const TypeInfo icn_switch_info = {
    .name = TYPE_ICN_SWITCH,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(IcnSwitchState),
    .instance_init = icn_switch_instance_init,
    .instance_finalize = icn_switch_instance_finalize,
    .class_init = icn_switch_class_init,
    .interfaces = (InterfaceInfo[]) {
        { TYPE_USER_CREATABLE },
        { }
    },
};

static void icn_switch_register_types(void)
{
    type_register_static(&icn_switch_info);
}

type_init(icn_switch_register_types)
