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
 * With "socket=PATH" the switch is icn-switchd's, shared with other VMs
 * (m890_switch_remote.c); the card code below is the same in both cases.
 *
 * A card's fabric id is its port.  The card relays management requests
 * written to its BAR0 switch window (SW_CMD) to the core and returns the
 * result synchronously; state changes come back as events to every card.
 * The card property "switch-mgmt" (default on) is the management
 * permission of spec §8.3: without it changing commands answer EPERM.
 *
 * All cards of one VM form one trust domain (spec §8.7), so their peer
 * accesses need no window.  The card property "trust-domain" (0..255,
 * default 0) is a test hook: cards of one VM given different values are
 * in different domains, so one VM can exercise exports, windows and
 * revocation as if the cards were in VMs of their own.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qom/object_interfaces.h"

#include "m890.h"
#include "trace.h"

/* Core callbacks run under the BQL in this process. */
static void icn_switch_event_cb(void *cb_opaque, void *ep_opaque,
                                const struct icn_event *ev)
{
    IcnSwitchState *sw = cb_opaque;

    /* with icn-switchd, events come from the daemon only */
    if (ep_opaque && !sw->remote) {
        m890_fabric_event(ep_opaque, ev);
    }
}

static void icn_switch_kick_cb(void *opaque)
{
    m890_kick(opaque);
}

static void icn_switch_kick_sem_cb(void *opaque, const void *sem)
{
    m890_kick_sem(opaque, sem);
}

int m890_switch_attach(M890State *s, Error **errp)
{
    IcnSwitchState *sw = s->sw;
    struct icn_endpoint ep = {
        .opaque = s,
        .hbm = s->hbm,
        .hbm_size = s->hbm_size,
        .kick = icn_switch_kick_cb,
        .kick_sem = icn_switch_kick_sem_cb,
        .domain = s->trust_domain,
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
    if (sw->remote && icn_remote_attach(sw->remote, s, errp) < 0) {
        icn_switch_detach(sw->core, s->port);
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
    if (s->sw->remote) {
        icn_remote_detach(s->sw->remote, s);
    }
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

void m890_switch_cmd(M890State *s, uint32_t cmd)
{
    uint32_t op = cmd & M890_SW_CMD_OP_MASK;
    uint32_t arg = (cmd & M890_SW_CMD_ARG_MASK) >> M890_SW_CMD_ARG_SHIFT;
    IcnRemote *remote = s->attached ? s->sw->remote : NULL;

    memset(s->sw_data, 0, sizeof(s->sw_data));
    if (!s->attached || (remote && !icn_remote_connected(remote))) {
        s->sw_status = M890_SW_ENODEV;
    } else if (remote) {
        s->sw_status = icn_remote_cmd(remote, s, cmd, s->sw_data);
    } else {
        s->sw_status = icn_switch_command(s->sw->core, s->port, s->sw_mgmt,
                                          cmd, s->sw_arg[0], s->sw_arg[1],
                                          s->sw_data, NULL);
    }
    if (s->sw_status != M890_SW_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "m890: switch command 0x%x: status %u\n",
                      cmd, s->sw_status);
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
    if (sw->socket) {
        icn_remote_open(sw, errp);
    }
}

static bool icn_switch_can_be_deleted(UserCreatable *uc)
{
    return ICN_SWITCH(uc)->cards == 0;
}

static char *icn_switch_get_socket(Object *obj, Error **errp)
{
    return g_strdup(ICN_SWITCH(obj)->socket);
}

static void icn_switch_set_socket(Object *obj, const char *value,
                                  Error **errp)
{
    IcnSwitchState *sw = ICN_SWITCH(obj);

    if (sw->core) {
        error_setg(errp, "icn-switch: 'socket' cannot change once created");
        return;
    }
    g_free(sw->socket);
    sw->socket = g_strdup(value);
}

static void icn_switch_get_id(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    uint32_t value = ICN_SWITCH(obj)->switch_id;

    visit_type_uint32(v, name, &value, errp);
}

static void icn_switch_set_id(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    IcnSwitchState *sw = ICN_SWITCH(obj);
    uint32_t value;

    if (sw->core) {
        error_setg(errp, "icn-switch: 'switch-id' cannot change once created");
        return;
    }
    if (visit_type_uint32(v, name, &value, errp)) {
        sw->switch_id = value;
    }
}

static void icn_switch_instance_finalize(Object *obj)
{
    IcnSwitchState *sw = ICN_SWITCH(obj);

    icn_remote_close(sw);
    icn_switch_free(sw->core);
    g_free(sw->socket);
    sw->core = NULL;
}

static void icn_switch_class_init(ObjectClass *oc, void *data)
{
    UserCreatableClass *ucc = USER_CREATABLE_CLASS(oc);

    ucc->complete = icn_switch_complete;
    ucc->can_be_deleted = icn_switch_can_be_deleted;

    /* Class properties, so that `-object icn-switch,help` lists them. */
    object_class_property_add(oc, "switch-id", "uint32", icn_switch_get_id,
                              icn_switch_set_id, NULL, NULL);
    object_class_property_set_description(oc, "switch-id",
        "switch id the cards report, default 0 (not used with 'socket': "
        "icn-switchd -i sets it)");
    object_class_property_add_str(oc, "socket", icn_switch_get_socket,
                                  icn_switch_set_socket);
    object_class_property_set_description(oc, "socket",
        "Unix socket of an icn-switchd to join (cards of several VMs on one "
        "fabric); unset: the switch lives in this QEMU process only");
}

static const TypeInfo icn_switch_info = {
    .name = TYPE_ICN_SWITCH,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(IcnSwitchState),
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
