/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: icn-switch joined to icn-switchd (several VMs)
 *
 *   -object icn-switch,id=sw0,socket=/run/icn.sock
 *
 * With a "socket" the icn-switch object is this VM's end of a switch
 * that icn-switchd runs for several QEMU processes (spec §8.6, protocol
 * in Documentation/icn-switchd.rst).  The object keeps its switch core as
 * a copy of the daemon's: local cards are attached to it as usual; every
 * card of another VM is attached with its HBM mapped from the memfd the
 * daemon forwards (PEER) and a kick that writes that card's eventfd; the
 * ports' states, partitions, routes and pending drops follow the
 * daemon's PORT_STATE messages.  The card model therefore runs the same
 * peer path in both cases: the core checks route, presence, link,
 * partition, bounds and drops against the copy and hands out a pointer
 * into the mapped peer HBM; data never passes through the daemon.
 *
 * Exports and windows (spec §8.7) are the daemon's: the card's opcodes
 * 9..12 are relayed like any command, and the copy learns every export
 * slot from EXPORT messages (range and window set, no key).  Local cards
 * are in their "trust-domain" (0 by default) in the copy and every card
 * of another VM in ICN_DOMAIN_REMOTE, so the core's window check applies
 * exactly to accesses that leave this VM.  A FENCE is acknowledged when
 * it is read: the messages before it have been applied, and since peer
 * accesses run under the BQL, none checked against the old state is
 * still running.
 *
 * The daemon owns the counters: the copy's counters collect this VM's
 * traffic and are reported (COUNTERS) and zeroed every
 * ICN_REMOTE_FLUSH_MS and before every management command, so the
 * issuing VM reads its own traffic exactly.  Events come only from the
 * daemon; the copy's own events are not delivered.  Management commands
 * are relayed synchronously (CMD, CMD_REPLY) while the vCPU waits, as
 * spec §8.3 and §8.6 require, at most ICN_REMOTE_REPLY_MS for the reply
 * (Documentation/architecture.rst, "A switch command of several VMs
 * waits under the BQL": the bounds and the asynchronous design).
 *
 * When the daemon goes away every port of this VM's cards goes oper
 * DOWN with an event, management commands answer ENODEV and peer
 * accesses fail with FABRIC (the copy's ports are down and the peers are
 * unmapped); the object reconnects every ICN_REMOTE_RETRY_MS and attaches
 * its cards again, after which the new daemon's state applies.
 *
 * Everything here runs under the BQL: socket handler, timers, commands
 * from vCPUs and the command processor's bottom half, so a peer mapping
 * is never removed while a packet uses it.
 */
#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/event_notifier.h"
#include "system/system.h"
#include "qapi/error.h"
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "m890.h"
#include "icn/icn_proto.h"
#include "trace.h"

#define ICN_REMOTE_FLUSH_MS     20
#define ICN_REMOTE_RETRY_MS     500
/* above icn-switchd's fence timeout (8 s), which an EXPORT_DEL may take */
#define ICN_REMOTE_REPLY_MS     10000

typedef struct IcnRemotePeer {
    bool mapped;
    uint8_t *hbm;
    uint64_t hbm_size;
    int fds[ICN_PROTO_FDS];     /* HBM file, the card's eventfd */
} IcnRemotePeer;

typedef struct IcnRemoteCard {
    M890State *card;            /* NULL: no local card on this port */
    EventNotifier notify;       /* peers write it after a SIGNAL */
    bool notify_ok;
} IcnRemoteCard;

struct IcnRemote {
    IcnSwitchState *sw;
    int fd;                     /* -1 while disconnected */
    unsigned int version;
    bool mgmt;                  /* daemon grants management permission */
    uint32_t seq;
    struct icn_conn conn;
    QEMUTimer *flush_timer;
    QEMUTimer *retry_timer;
    bool retry_logged;
    IcnRemoteCard local[ICN_SWITCH_PORTS];
    IcnRemotePeer peer[ICN_SWITCH_PORTS];
    uint64_t drops[ICN_SWITCH_PORTS];   /* pending drops last mirrored */
};

static void icn_remote_disconnect(IcnRemote *r, const char *why);

static const char *icn_remote_path(IcnRemote *r)
{
    return r->sw->socket;
}

/* A card of another VM asks ours to re-check their WAITs. */
static void icn_remote_peer_kick(void *opaque)
{
    IcnRemotePeer *p = opaque;
    uint64_t one = 1;

    if (p->mapped && write(p->fds[1], &one, sizeof(one)) < 0 &&
        errno != EAGAIN) {
        trace_m890_remote_error("doorbell write", -errno);
    }
}

static void icn_remote_notify(EventNotifier *e)
{
    IcnRemoteCard *lc = container_of(e, IcnRemoteCard, notify);

    event_notifier_test_and_clear(e);
    if (lc->card) {
        m890_kick(lc->card);
    }
}

static void icn_remote_unmap(IcnRemote *r, unsigned int port)
{
    IcnRemotePeer *p = &r->peer[port];

    if (!p->mapped) {
        return;
    }
    icn_switch_detach(r->sw->core, port);
    munmap(p->hbm, p->hbm_size);
    close(p->fds[0]);
    close(p->fds[1]);
    p->mapped = false;
}

/* Deliver a daemon event (an SW_EVENT word) to every local card. */
static void icn_remote_deliver(IcnRemote *r, uint32_t word)
{
    struct icn_event ev = {
        .type = (word & M890_SW_EVENT_TYPE_MASK) >> M890_SW_EVENT_TYPE_SHIFT,
        .port = word & M890_SW_EVENT_ID_MASK,
        .value = (word & M890_SW_EVENT_VALUE_MASK) >>
                 M890_SW_EVENT_VALUE_SHIFT,
    };
    struct icn_port_info pi;
    unsigned int i;

    if (ev.type != M890_SW_EVENT_ROUTE &&
        !icn_switch_port_get(r->sw->core, ev.port, &pi)) {
        ev.admin = pi.admin;
        ev.oper = pi.oper;
        ev.present = pi.present;
    }
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        if (r->local[i].card) {
            m890_fabric_event(r->local[i].card, &ev);
            /* a WAIT on a peer that went down fails at its next check */
            if (ev.type == M890_SW_EVENT_LINK) {
                m890_kick(r->local[i].card);
            }
        }
    }
}

static void icn_remote_peer(IcnRemote *r, struct icn_msg *m)
{
    unsigned int port = m->u.attach.port;
    uint64_t size = m->u.attach.hbm_size;
    IcnRemotePeer *p;
    struct icn_endpoint ep = { 0 };
    struct icn_port_info pi;
    void *hbm;
    int seals;

    if (port >= ICN_SWITCH_PORTS || r->local[port].card ||
        size < 4096 || (size & (size - 1))) {
        trace_m890_remote_error("bad PEER", port);
        return;                 /* the caller closes the fds */
    }
    icn_remote_unmap(r, port);
    /* as the daemon checked: a file that cannot shrink under our mapping */
    seals = fcntl(m->fds[0], F_GET_SEALS);
    if (seals < 0 || !(seals & F_SEAL_SHRINK) ||
        fcntl(m->fds[1], F_SETFL, O_NONBLOCK)) {
        trace_m890_remote_error("unsealed PEER", port);
        return;
    }
    hbm = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, m->fds[0], 0);
    if (hbm == MAP_FAILED) {
        error_report("icn-switch: cannot map the HBM of the card on port %u:"
                     " %s", port, strerror(errno));
        return;
    }
    p = &r->peer[port];
    p->hbm = hbm;
    p->hbm_size = size;
    p->fds[0] = m->fds[0];
    p->fds[1] = m->fds[1];
    m->nfds = 0;
    ep.opaque = p;
    ep.hbm = hbm;
    ep.hbm_size = size;
    ep.kick = icn_remote_peer_kick;
    ep.domain = ICN_DOMAIN_REMOTE;
    if (icn_switch_attach(r->sw->core, port, &ep)) {
        munmap(hbm, size);
        close(p->fds[0]);
        close(p->fds[1]);
        return;
    }
    p->mapped = true;
    /* usable once the daemon's PORT_STATE says so */
    icn_switch_port_get(r->sw->core, port, &pi);
    icn_switch_mirror_port(r->sw->core, port, pi.admin, M890_LINK_DOWN,
                           pi.partition);
    trace_m890_remote_peer(port, size);
}

static void icn_remote_port_state(IcnRemote *r,
                                  const struct icn_msg_port_state *st)
{
    struct icn_switch *core = r->sw->core;
    unsigned int port = st->port;

    if (port >= ICN_SWITCH_PORTS || st->partition >= M890_SW_PARTITIONS) {
        trace_m890_remote_error("bad PORT_STATE", port);
        return;
    }
    icn_switch_mirror_port(core, port, st->admin, st->oper, st->partition);
    icn_switch_route_set(core, port, st->route);
    if (st->drops) {
        icn_switch_inject(core, port, M890_SW_INJECT_DROP, st->drops);
    } else {
        icn_switch_inject(core, port, M890_SW_INJECT_CLEAR, 0);
    }
    r->drops[port] = st->drops;
}

static void icn_remote_export(IcnRemote *r, const struct icn_msg_export *x)
{
    int ret = -EINVAL;

    if (x->slot < M890_SW_EXPORTS && !x->rsvd[0] && !x->rsvd[1] &&
        !x->rsvd[2] && !x->rsvd[3] && !x->rsvd[4] && !x->rsvd[5]) {
        ret = icn_switch_export_mirror(r->sw->core, x->port, x->slot,
                                       x->range, x->windows);
    }
    if (ret) {
        /* a card this copy could not map: its accesses fail anyway */
        trace_m890_remote_error("bad EXPORT", x->port);
        return;
    }
    trace_m890_remote_export(x->port, x->slot, x->range, x->windows);
}

/*
 * Everything before the FENCE is applied and no peer access is running
 * (we hold the BQL): acknowledge.  Not numbered: not a request.
 */
static void icn_remote_fence(IcnRemote *r, const struct icn_msg_fence *f)
{
    int ret = icn_send(r->fd, r->version, ICN_MSG_FENCE_ACK, 0, f, NULL, 0);

    if (ret) {
        icn_remote_disconnect(r, strerror(-ret));
    }
}

/* Handle one message that is not the reply somebody waits for. */
static void icn_remote_message(IcnRemote *r, struct icn_msg *m)
{
    switch (m->hdr.type) {
    case ICN_MSG_EXPORT:
        icn_remote_export(r, &m->u.export_state);
        break;
    case ICN_MSG_FENCE:
        icn_remote_fence(r, &m->u.fence);
        break;
    case ICN_MSG_PEER:
        icn_remote_peer(r, m);
        break;
    case ICN_MSG_PEER_GONE:
        if (m->u.port.port < ICN_SWITCH_PORTS) {
            icn_remote_unmap(r, m->u.port.port);
        }
        break;
    case ICN_MSG_PORT_STATE:
        icn_remote_port_state(r, &m->u.port_state);
        break;
    case ICN_MSG_EVENT:
        icn_remote_deliver(r, m->u.event.event);
        break;
    default:
        trace_m890_remote_error("unexpected message", m->hdr.type);
        break;
    }
}

static void icn_msg_close_fds(struct icn_msg *m)
{
    unsigned int i;

    for (i = 0; i < m->nfds; i++) {
        close(m->fds[i]);
    }
    m->nfds = 0;
}

/* Process every complete message; false if the connection failed. */
static bool icn_remote_drain(IcnRemote *r)
{
    struct icn_msg m;
    int ret;

    while ((ret = icn_conn_next(&r->conn, &m)) > 0) {
        icn_remote_message(r, &m);
        icn_msg_close_fds(&m);
        if (r->fd < 0) {
            return false;
        }
    }
    if (ret < 0) {
        icn_remote_disconnect(r, "protocol error");
        return false;
    }
    return true;
}

static void icn_remote_readable(void *opaque)
{
    IcnRemote *r = opaque;
    int ret = icn_conn_fill(&r->conn);

    if (ret == -EAGAIN) {
        return;
    }
    if (ret <= 0) {
        icn_remote_disconnect(r, ret ? strerror(-ret) : "daemon closed");
        return;
    }
    icn_remote_drain(r);
}

/*
 * Wait for the reply of type @type to request @seq, handling whatever
 * else arrives meanwhile.  Returns false (and disconnects) on failure.
 */
static bool icn_remote_wait(IcnRemote *r, unsigned int type, uint32_t seq,
                            struct icn_msg *reply)
{
    int64_t deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                       ICN_REMOTE_REPLY_MS;
    struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
    int ret, ms;

    for (;;) {
        while ((ret = icn_conn_next(&r->conn, reply)) > 0) {
            if (reply->hdr.type == type && reply->hdr.seq == seq) {
                return true;
            }
            icn_remote_message(r, reply);
            icn_msg_close_fds(reply);
            if (r->fd < 0) {
                return false;
            }
        }
        if (ret < 0) {
            icn_remote_disconnect(r, "protocol error");
            return false;
        }
        ms = deadline - qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
        if (ms <= 0 || poll(&pfd, 1, ms) <= 0) {
            icn_remote_disconnect(r, "no reply");
            return false;
        }
        ret = icn_conn_fill(&r->conn);
        if (ret == -EAGAIN) {
            continue;
        }
        if (ret <= 0) {
            icn_remote_disconnect(r, ret ? strerror(-ret) : "daemon closed");
            return false;
        }
    }
}

static bool icn_remote_send(IcnRemote *r, unsigned int type,
                            const void *payload, const int *fds,
                            unsigned int nfds)
{
    int ret;

    if (r->fd < 0) {
        return false;
    }
    ret = icn_send(r->fd, r->version, type, ++r->seq, payload, fds, nfds);
    if (ret) {
        icn_remote_disconnect(r, strerror(-ret));
        return false;
    }
    return true;
}

/* Report and zero the traffic counted since the last report. */
void icn_remote_flush(IcnRemote *r)
{
    struct icn_msg_counters m;
    struct icn_port_counters c;
    struct icn_port_info pi;
    unsigned int i;
    bool any;

    for (i = 0; i < ICN_SWITCH_PORTS && r->fd >= 0; i++) {
        any = icn_switch_take_counters(r->sw->core, i, &c);
        memset(&m, 0, sizeof(m));
        if (r->drops[i] && !icn_switch_port_get(r->sw->core, i, &pi) &&
            pi.inject_drops < r->drops[i]) {
            m.drops = r->drops[i] - pi.inject_drops;
            r->drops[i] = pi.inject_drops;
            any = true;
        }
        if (!any) {
            continue;
        }
        m.port = i;
        m.tx_bytes = c.tx_bytes;
        m.rx_bytes = c.rx_bytes;
        m.tx_pkts = c.tx_pkts;
        m.rx_pkts = c.rx_pkts;
        m.errors = c.errors;
        icn_remote_send(r, ICN_MSG_COUNTERS, &m, NULL, 0);
    }
}

static void icn_remote_flush_cb(void *opaque)
{
    IcnRemote *r = opaque;

    icn_remote_flush(r);
    timer_mod(r->flush_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
              ICN_REMOTE_FLUSH_MS);
}

/* Cable the local card on @port to the daemon's switch. */
static int icn_remote_attach_port(IcnRemote *r, unsigned int port,
                                  Error **errp)
{
    IcnRemoteCard *lc = &r->local[port];
    M890State *s = lc->card;
    struct icn_msg_attach a = { .port = port, .hbm_size = s->hbm_size };
    int fds[ICN_PROTO_FDS];
    struct icn_msg m;

    fds[0] = memory_region_get_fd(s->hbm_mr);
    fds[1] = event_notifier_get_fd(&lc->notify);
    if (!icn_remote_send(r, ICN_MSG_ATTACH, &a, fds, ICN_PROTO_FDS) ||
        !icn_remote_wait(r, ICN_MSG_STATUS, r->seq, &m)) {
        error_setg(errp, "icn-switch: icn-switchd at %s went away",
                   icn_remote_path(r));
        return -EPIPE;
    }
    if (m.u.status.status) {
        error_setg(errp, "icn-switch: icn-switchd at %s refused port %u: %s",
                   icn_remote_path(r), port,
                   m.u.status.status == -EBUSY ?
                   "a card of another VM is cabled to it" :
                   strerror(-m.u.status.status));
        return m.u.status.status;
    }
    return 0;
}

static bool icn_remote_connect(IcnRemote *r, Error **errp)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct icn_msg_hello h = { .min_version = ICN_PROTO_MIN_VERSION,
                               .max_version = ICN_PROTO_VERSION };
    struct timeval tv = { .tv_sec = ICN_REMOTE_REPLY_MS / 1000 };
    struct icn_msg m;
    unsigned int i;
    int fd;

    if (strlen(icn_remote_path(r)) >= sizeof(sa.sun_path)) {
        error_setg(errp, "icn-switch: socket path too long");
        return false;
    }
    strcpy(sa.sun_path, icn_remote_path(r));
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        error_setg_errno(errp, errno, "icn-switch: cannot connect to "
                         "icn-switchd at %s", icn_remote_path(r));
        if (fd >= 0) {
            close(fd);
        }
        return false;
    }
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    /* a new daemon starts from power-on: drop what the old one missed */
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        struct icn_port_counters stale;

        icn_switch_take_counters(r->sw->core, i, &stale);
        r->drops[i] = 0;
    }
    r->fd = fd;
    r->version = 1;
    icn_conn_init(&r->conn, fd);
    snprintf(h.name, sizeof(h.name), "%s", qemu_get_vm_name() ?: "qemu");
    if (!icn_remote_send(r, ICN_MSG_HELLO, &h, NULL, 0) ||
        !icn_remote_wait(r, ICN_MSG_HELLO_REPLY, r->seq, &m)) {
        error_setg(errp, "icn-switch: no answer from icn-switchd at %s",
                   icn_remote_path(r));
        return false;
    }
    if (m.u.hello_reply.status) {
        error_setg(errp, "icn-switch: icn-switchd at %s refused this QEMU "
                   "(protocol %u..%u): %s", icn_remote_path(r),
                   ICN_PROTO_MIN_VERSION, ICN_PROTO_VERSION,
                   strerror(-m.u.hello_reply.status));
        icn_remote_disconnect(r, NULL);
        return false;
    }
    r->version = m.u.hello_reply.version;
    r->mgmt = m.u.hello_reply.flags & ICN_HELLO_F_MGMT;
    qemu_set_fd_handler(fd, icn_remote_readable, NULL, r);
    trace_m890_remote_connected(r->version, r->mgmt);

    /* after a reconnect: cable our cards again */
    for (i = 0; i < ICN_SWITCH_PORTS && r->fd >= 0; i++) {
        Error *err = NULL;

        if (r->local[i].card && icn_remote_attach_port(r, i, &err)) {
            warn_report_err(err);
        }
    }
    if (r->fd < 0) {
        error_setg(errp, "icn-switch: icn-switchd at %s went away",
                   icn_remote_path(r));
        return false;
    }
    timer_mod(r->flush_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
              ICN_REMOTE_FLUSH_MS);
    return true;
}

static void icn_remote_retry(void *opaque)
{
    IcnRemote *r = opaque;
    Error *err = NULL;

    if (icn_remote_connect(r, &err)) {
        info_report("icn-switch: reconnected to icn-switchd at %s",
                    icn_remote_path(r));
        r->retry_logged = false;
        return;
    }
    if (!r->retry_logged) {
        warn_report_err(err);
        r->retry_logged = true;
    } else {
        error_free(err);
    }
    timer_mod(r->retry_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
              ICN_REMOTE_RETRY_MS);
}

/*
 * The daemon is gone (spec §8.6): unmap the peers, take our ports oper
 * DOWN with an event each, and try again later.  @why NULL: a refused
 * HELLO, no retry.
 */
static void icn_remote_disconnect(IcnRemote *r, const char *why)
{
    struct icn_port_info pi;
    unsigned int i;

    if (r->fd < 0) {
        return;
    }
    qemu_set_fd_handler(r->fd, NULL, NULL, NULL);
    icn_conn_release(&r->conn);
    close(r->fd);
    r->fd = -1;
    timer_del(r->flush_timer);
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        icn_remote_unmap(r, i);
    }
    /* a new daemon starts without exports: drop our cards' too */
    for (i = 0; i < ICN_SWITCH_PORTS * M890_SW_EXPORTS; i++) {
        if (r->local[i / M890_SW_EXPORTS].card) {
            icn_switch_export_mirror(r->sw->core, i / M890_SW_EXPORTS,
                                     i % M890_SW_EXPORTS, 0, 0);
        }
    }
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        if (!r->local[i].card ||
            icn_switch_port_get(r->sw->core, i, &pi) ||
            pi.oper == M890_LINK_DOWN) {
            continue;
        }
        icn_switch_mirror_port(r->sw->core, i, pi.admin, M890_LINK_DOWN,
                               pi.partition);
        icn_remote_deliver(r, i | M890_LINK_DOWN << M890_SW_EVENT_VALUE_SHIFT);
    }
    if (why) {
        warn_report("icn-switch: lost icn-switchd at %s (%s); ports down, "
                    "reconnecting", icn_remote_path(r), why);
        timer_mod(r->retry_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                  ICN_REMOTE_RETRY_MS);
    }
}

bool icn_remote_open(IcnSwitchState *sw, Error **errp)
{
    IcnRemote *r = g_new0(IcnRemote, 1);

    r->sw = sw;
    r->fd = -1;
    r->flush_timer = timer_new_ms(QEMU_CLOCK_REALTIME, icn_remote_flush_cb, r);
    r->retry_timer = timer_new_ms(QEMU_CLOCK_REALTIME, icn_remote_retry, r);
    sw->remote = r;
    if (!icn_remote_connect(r, errp)) {
        icn_remote_close(sw);
        return false;
    }
    return true;
}

void icn_remote_close(IcnSwitchState *sw)
{
    IcnRemote *r = sw->remote;

    if (!r) {
        return;
    }
    icn_remote_disconnect(r, NULL);
    timer_free(r->flush_timer);
    timer_free(r->retry_timer);
    sw->remote = NULL;
    g_free(r);
}

bool icn_remote_connected(IcnRemote *r)
{
    return r->fd >= 0;
}

int icn_remote_attach(IcnRemote *r, M890State *s, Error **errp)
{
    IcnRemoteCard *lc = &r->local[s->port];
    int ret;

    if (memory_region_get_fd(s->hbm_mr) < 0) {
        error_setg(errp, "m890: with a remote switch the card's memdev must "
                   "be shared with other processes "
                   "(memory-backend-memfd,share=on)");
        return -EINVAL;
    }
    if (r->fd < 0) {
        error_setg(errp, "m890: icn-switchd at %s is not connected",
                   icn_remote_path(r));
        return -ENOTCONN;
    }
    ret = event_notifier_init(&lc->notify, 0);
    if (ret) {
        error_setg_errno(errp, -ret, "m890: cannot create an eventfd");
        return ret;
    }
    lc->notify_ok = true;
    lc->card = s;
    ret = icn_remote_attach_port(r, s->port, errp);
    if (ret) {
        lc->card = NULL;
        event_notifier_cleanup(&lc->notify);
        lc->notify_ok = false;
        return ret;
    }
    event_notifier_set_handler(&lc->notify, icn_remote_notify);
    return 0;
}

void icn_remote_detach(IcnRemote *r, M890State *s)
{
    IcnRemoteCard *lc = &r->local[s->port];
    struct icn_msg_port m = { .port = s->port };

    if (lc->card != s) {
        return;
    }
    icn_remote_flush(r);
    icn_remote_send(r, ICN_MSG_DETACH, &m, NULL, 0);
    lc->card = NULL;
    if (lc->notify_ok) {
        event_notifier_set_handler(&lc->notify, NULL);
        event_notifier_cleanup(&lc->notify);
        lc->notify_ok = false;
    }
}

uint32_t icn_remote_cmd(IcnRemote *r, M890State *s, uint32_t cmd,
                        uint64_t *data)
{
    struct icn_msg_cmd q = {
        .port = s->port,
        .op = cmd & M890_SW_CMD_OP_MASK,
        .arg = (cmd & M890_SW_CMD_ARG_MASK) >> M890_SW_CMD_ARG_SHIFT,
        .flags = s->sw_mgmt ? ICN_CMD_F_MGMT : 0,
        .rsvd0 = (cmd & M890_SW_CMD_RSVD_MASK) >> M890_SW_CMD_RSVD_SHIFT,
        .arg0 = s->sw_arg[0],
        .arg1 = s->sw_arg[1],
    };
    struct icn_msg m;

    icn_remote_flush(r);
    if (!icn_remote_send(r, ICN_MSG_CMD, &q, NULL, 0) ||
        !icn_remote_wait(r, ICN_MSG_CMD_REPLY, r->seq, &m)) {
        return M890_SW_ENODEV;
    }
    memcpy(data, m.u.cmd_reply.data, sizeof(m.u.cmd_reply.data));
    return m.u.cmd_reply.status;
}
