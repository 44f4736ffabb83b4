// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: icn-switchd, the ICN Switch 1.0 of several VMs
 *
 * One process holds the switch (the plain-C core: ports, link states,
 * partitions, counters) for the cards of several QEMU processes.  Each
 * QEMU process connects once over a Unix stream socket, says HELLO and
 * ATTACHes its cards with their HBM file and a notification eventfd
 * (Documentation/icn-switchd.rst is the protocol's spec).  The daemon
 * forwards every card's two descriptors to every other client (PEER), so
 * a QEMU process maps its peers' HBM and moves peer data itself, checked
 * by its own copy of the switch state, which the daemon keeps current
 * with PORT_STATE messages; the clients report their traffic
 * (COUNTERS) and relay their cards' management commands (CMD).  Events
 * go to every client.
 *
 * Exports and windows (spec §8.7) are decided here only: a card's
 * EXPORT_ADD, EXPORT_DEL, WINDOW_OPEN and WINDOW_CLOSE run on the
 * daemon's core (each client is one trust domain), and every change of an
 * export slot goes to every client (EXPORT), whose copy checks its cards'
 * accesses against it.  An EXPORT_DEL is answered only after every other
 * client acknowledged a FENCE sent behind the change, or was dropped for
 * not doing so within the fence timeout (-F, ICN_FENCE_TIMEOUT_MS by
 * default): a revoke is in force in every VM when the revoking card's
 * command completes.
 *
 * A client that closes its socket or dies takes its ports down: the core
 * detaches them (events to the others, PEER_GONE) and the rest continue;
 * its ports can be attached again by a new client.  The state lives in
 * memory only: a restarted daemon starts from switch power-on.
 *
 * Single-threaded: a poll() loop over the listening socket and the
 * clients.  A send that cannot complete within ICN_SEND_TIMEOUT_MS (a
 * client that stopped reading) drops that client, so one stuck VM cannot
 * stall the fabric.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "icn_proto.h"
#include "icn_switch_cmd.h"
#include "icn_switch_core.h"

#define ICN_MAX_CLIENTS         64
#define ICN_SEND_TIMEOUT_MS     2000
#define ICN_MAX_MGMT_NAMES      16
/*
 * How long an EXPORT_DEL waits for the other VMs' FENCE_ACKs by default
 * (-F): well above the second-long stalls of a QEMU main loop on a loaded
 * host, well below the issuer's own reply wait (ICN_REMOTE_REPLY_MS, 10 s,
 * in m890_switch_remote.c), which holds its BQL meanwhile.
 */
#define ICN_FENCE_TIMEOUT_MS    8000
#define ICN_FENCE_TIMEOUT_MAX   9000

struct client;

/* A card cabled to a port by a client; the switch core's endpoint opaque. */
struct card {
    struct client *owner;       /* NULL: port free */
    unsigned int port;
    uint64_t hbm_size;
    int fds[ICN_PROTO_FDS];     /* HBM file, notification eventfd */
};

struct client {
    bool used;
    bool hello;                 /* HELLO accepted */
    bool dead;                  /* close at the end of this loop turn */
    unsigned int id;
    unsigned int version;
    bool mgmt;                  /* its cards have management permission */
    char name[32];
    struct icn_conn conn;
    uint64_t fence_sent;        /* last FENCE sent to it */
    uint64_t fence_acked;       /* last FENCE it acknowledged */
    int64_t fence_sent_ms;      /* when fence_sent went, CLOCK_MONOTONIC */
    /* an EXPORT_DEL whose reply waits for the others' FENCE_ACKs */
    bool pending;
    uint32_t pending_seq;
    uint64_t pending_fence;
    int64_t pending_deadline;   /* CLOCK_MONOTONIC ms */
    struct icn_msg_cmd_reply pending_reply;
};

static struct {
    struct icn_switch *sw;
    const char *path;
    const char *pidfile;        /* -p, or NULL */
    uint32_t switch_id;         /* -i */
    bool mgmt;                  /* clients' cards may change the switch */
    const char *mgmt_names[ICN_MAX_MGMT_NAMES];  /* -M: only these may */
    unsigned int n_mgmt_names;
    int verbose;
    int fence_timeout_ms;       /* -F */
    int listen_fd;
    unsigned int next_id;
    uint64_t next_fence;
    struct card card[ICN_SWITCH_PORTS];
    struct client client[ICN_MAX_CLIENTS];
} d;

static volatile sig_atomic_t stop_signal;

static void logmsg(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void logmsg(int level, const char *fmt, ...)
{
    va_list ap;

    if (level > d.verbose) {
        return;
    }
    va_start(ap, fmt);
    fputs("icn-switchd: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void client_send(struct client *c, unsigned int type, uint32_t seq,
                        const void *payload, const int *fds,
                        unsigned int nfds)
{
    int ret;

    if (c->dead) {
        return;
    }
    ret = icn_send(c->conn.fd, c->hello ? c->version : 1, type, seq, payload,
                   fds, nfds);
    if (ret) {
        logmsg(0, "client %u (%s): cannot send %s: %s; dropping it", c->id,
               c->name, icn_msg_name(type), strerror(-ret));
        c->dead = true;
    }
}

/* Send to every client that said HELLO, except @skip. */
static void broadcast(const struct client *skip, unsigned int type,
                      const void *payload, const int *fds, unsigned int nfds)
{
    unsigned int i;

    for (i = 0; i < ICN_MAX_CLIENTS; i++) {
        struct client *c = &d.client[i];

        if (c->used && c->hello && c != skip) {
            client_send(c, type, 0, payload, fds, nfds);
        }
    }
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* EXPORT message of slot @slot of @port; false if the slot is free. */
static bool export_msg(unsigned int port, unsigned int slot,
                       struct icn_msg_export *m)
{
    struct icn_export_info xi = { 0 };

    memset(m, 0, sizeof(*m));
    icn_switch_export_get(d.sw, port, slot, &xi);
    m->port = (uint8_t)port;
    m->slot = (uint8_t)slot;
    if (xi.key) {
        m->range = xi.range;
        m->windows = xi.windows;
    }
    return xi.key != 0;
}

static void port_state_msg(unsigned int port, struct icn_msg_port_state *m)
{
    struct icn_port_info pi;
    uint64_t route = 0;

    memset(m, 0, sizeof(*m));
    icn_switch_port_get(d.sw, port, &pi);
    m->port = (uint8_t)port;
    m->admin = pi.admin;
    m->oper = pi.oper;
    m->present = pi.present;
    m->partition = pi.partition;
    icn_switch_route_get(d.sw, port, &route);
    m->route = (uint32_t)route;
    m->drops = pi.inject_drops;
}

static void broadcast_port_state(unsigned int port)
{
    struct icn_msg_port_state m;

    port_state_msg(port, &m);
    broadcast(NULL, ICN_MSG_PORT_STATE, &m, NULL, 0);
}

/* Core event callback: called once per endpoint and once for the owner. */
static void on_switch_event(void *cb_opaque, void *ep_opaque,
                            const struct icn_event *ev)
{
    struct icn_msg_event m = { .event = icn_event_word(ev) };

    (void)cb_opaque;
    if (ep_opaque) {
        return;         /* the clients fan events out to their cards */
    }
    logmsg(1, "event type %u port %u value %u", ev->type, ev->port,
           ev->value);
    broadcast_port_state(ev->port);
    broadcast(NULL, ICN_MSG_EVENT, &m, NULL, 0);
}

static void card_release(struct card *k)
{
    struct icn_msg_port gone = { .port = (uint8_t)k->port };
    struct client *owner = k->owner;

    k->owner = NULL;
    icn_switch_detach(d.sw, k->port);
    close(k->fds[0]);
    close(k->fds[1]);
    broadcast(owner, ICN_MSG_PEER_GONE, &gone, NULL, 0);
}

static void client_close(struct client *c)
{
    unsigned int i;

    logmsg(0, "client %u (%s) disconnected", c->id, c->name);
    c->used = false;       /* no more broadcasts to it */
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        if (d.card[i].owner == c) {
            card_release(&d.card[i]);
        }
    }
    icn_conn_release(&c->conn);
    close(c->conn.fd);
}

static void do_hello(struct client *c, const struct icn_msg *m)
{
    const struct icn_msg_hello *h = &m->u.hello;
    struct icn_msg_hello_reply r = { .switch_id = icn_switch_id(d.sw) };
    unsigned int i, hi;

    memcpy(c->name, h->name, sizeof(c->name) - 1);
    c->name[sizeof(c->name) - 1] = 0;
    for (i = 0; c->name[i]; i++) {
        if (c->name[i] < 0x20 || c->name[i] > 0x7e) {
            c->name[i] = '?';
        }
    }
    hi = h->max_version < ICN_PROTO_VERSION ? h->max_version :
         ICN_PROTO_VERSION;
    if (m->hdr.version != 1 || h->flags || h->min_version < 1 ||
        h->min_version > h->max_version) {
        r.status = -EINVAL;
    } else if (h->min_version > ICN_PROTO_VERSION ||
               hi < ICN_PROTO_MIN_VERSION) {
        r.status = -EPROTONOSUPPORT;
    }
    if (r.status) {
        logmsg(0, "client %u (%s): refused: versions %u..%u, flags 0x%x "
               "(this daemon speaks %u..%u)", c->id, c->name,
               h->min_version, h->max_version, h->flags,
               ICN_PROTO_MIN_VERSION, ICN_PROTO_VERSION);
        client_send(c, ICN_MSG_HELLO_REPLY, m->hdr.seq, &r, NULL, 0);
        c->dead = true;
        return;
    }
    r.version = (uint16_t)hi;
    c->mgmt = d.mgmt;
    if (d.mgmt && d.n_mgmt_names) {
        c->mgmt = false;
        for (i = 0; i < d.n_mgmt_names; i++) {
            c->mgmt |= !strcmp(c->name, d.mgmt_names[i]);
        }
    }
    r.flags = c->mgmt ? ICN_HELLO_F_MGMT : 0;
    client_send(c, ICN_MSG_HELLO_REPLY, m->hdr.seq, &r, NULL, 0);
    c->hello = true;
    c->version = hi;
    logmsg(0, "client %u (%s) connected, protocol version %u%s", c->id,
           c->name, hi, c->mgmt ? "" : ", no management permission");
    /* the whole switch: every card of the other clients, every port */
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        struct card *k = &d.card[i];
        struct icn_msg_attach a = { .port = (uint8_t)i,
                                    .hbm_size = k->hbm_size };
        struct icn_msg_port_state st;

        if (k->owner) {
            client_send(c, ICN_MSG_PEER, 0, &a, k->fds, ICN_PROTO_FDS);
        }
        port_state_msg(i, &st);
        client_send(c, ICN_MSG_PORT_STATE, 0, &st, NULL, 0);
    }
    /* then every export with its windows (spec §8.7) */
    for (i = 0; i < ICN_SWITCH_PORTS * M890_SW_EXPORTS; i++) {
        struct icn_msg_export x;

        if (export_msg(i / M890_SW_EXPORTS, i % M890_SW_EXPORTS, &x)) {
            client_send(c, ICN_MSG_EXPORT, 0, &x, NULL, 0);
        }
    }
}

/* True if @fd is an eventfd (a pipe could block the peers that kick it). */
static bool is_eventfd(int fd)
{
    char link[64], target[64];
    ssize_t n;

    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    n = readlink(link, target, sizeof(target) - 1);
    if (n < 0) {
        return false;
    }
    target[n] = 0;
    return !strcmp(target, "anon_inode:[eventfd]");
}

static int32_t check_attach(const struct icn_msg *m)
{
    const struct icn_msg_attach *a = &m->u.attach;
    uint64_t size = a->hbm_size;
    struct stat st;
    unsigned int i;
    int seals;

    if (a->port >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    for (i = 0; i < sizeof(a->rsvd); i++) {
        if (a->rsvd[i]) {
            return -EINVAL;
        }
    }
    if (size < 4096 || (size & (size - 1))) {
        return -EINVAL;
    }
    if (fstat(m->fds[0], &st) || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size < size) {
        return -EINVAL;
    }
    /* peers map it: a file that can shrink could SIGBUS them */
    seals = fcntl(m->fds[0], F_GET_SEALS);
    if (seals < 0 || !(seals & F_SEAL_SHRINK) || !is_eventfd(m->fds[1])) {
        return -EINVAL;
    }
    if (d.card[a->port].owner) {
        return -EBUSY;
    }
    return 0;
}

static void do_attach(struct client *c, struct icn_msg *m)
{
    struct icn_msg_status r = { .port = m->u.attach.port };
    struct icn_endpoint ep = { 0 };
    struct card *k;

    r.status = check_attach(m);
    if (r.status) {
        logmsg(0, "client %u (%s): attach of port %u refused: %s", c->id,
               c->name, r.port, strerror(-r.status));
        client_send(c, ICN_MSG_STATUS, m->hdr.seq, &r, NULL, 0);
        return;
    }
    k = &d.card[r.port];
    k->owner = c;
    k->hbm_size = m->u.attach.hbm_size;
    k->fds[0] = m->fds[0];
    k->fds[1] = m->fds[1];
    m->nfds = 0;                /* the card keeps them */
    /* the others can map the card before its port comes up */
    broadcast(c, ICN_MSG_PEER, &m->u.attach, k->fds, ICN_PROTO_FDS);
    ep.opaque = k;
    ep.hbm_size = k->hbm_size;
    ep.domain = c->id;          /* one trust domain per client (§8.7) */
    icn_switch_attach(d.sw, k->port, &ep);  /* free: checked above */
    logmsg(0, "client %u (%s) attached port %u (%llu MiB HBM)", c->id,
           c->name, k->port, (unsigned long long)(k->hbm_size >> 20));
    client_send(c, ICN_MSG_STATUS, m->hdr.seq, &r, NULL, 0);
}

static void do_detach(struct client *c, const struct icn_msg *m)
{
    struct icn_msg_status r = { .port = m->u.port.port };

    if (m->u.port.port >= ICN_SWITCH_PORTS) {
        r.status = -ERANGE;
    } else if (d.card[m->u.port.port].owner != c) {
        r.status = -ENOENT;
    } else {
        card_release(&d.card[m->u.port.port]);
        logmsg(0, "client %u (%s) detached port %u", c->id, c->name, r.port);
    }
    client_send(c, ICN_MSG_STATUS, m->hdr.seq, &r, NULL, 0);
}

/*
 * Send FENCE behind an EXPORT_DEL of @c to every other client and hold
 * @c's reply until they acknowledge it (fences_poll()).
 */
static void fence_start(struct client *c, uint32_t seq,
                        const struct icn_msg_cmd_reply *r)
{
    struct icn_msg_fence f = { .id = ++d.next_fence };
    unsigned int i;

    for (i = 0; i < ICN_MAX_CLIENTS; i++) {
        struct client *k = &d.client[i];

        if (k->used && k->hello && !k->dead && k != c) {
            client_send(k, ICN_MSG_FENCE, 0, &f, NULL, 0);
            k->fence_sent = f.id;
            k->fence_sent_ms = now_ms();
        }
    }
    c->pending = true;
    c->pending_seq = seq;
    c->pending_fence = f.id;
    c->pending_deadline = now_ms() + d.fence_timeout_ms;
    c->pending_reply = *r;
}

static void client_readable(struct client *c);

/*
 * At @c's fence deadline, read what laggard @k has sent meanwhile: an
 * acknowledgement that reached the socket while this loop was busy or
 * descheduled is not a stuck VM.  True if @k acknowledged @c's fence.
 */
static bool fence_late_ack(struct client *k, const struct client *c)
{
    struct pollfd pfd = { .fd = k->conn.fd, .events = POLLIN };

    if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN)) {
        client_readable(k);
    }
    return !k->dead && k->fence_acked >= c->pending_fence;
}

/*
 * Answer the EXPORT_DELs whose fences every live client acknowledged;
 * drop the clients that let a fence time out (spec §8.7: a revoke may
 * not wait on a stuck VM, nor be answered while it could still pass).
 * Returns the milliseconds until the next deadline, -1 if none.
 */
static int fences_poll(bool reply)
{
    int64_t now = now_ms(), next = -1;
    unsigned int i, j;

    for (i = 0; i < ICN_MAX_CLIENTS; i++) {
        struct client *c = &d.client[i];
        bool done = true;

        if (!c->used || !c->pending) {
            continue;
        }
        for (j = 0; j < ICN_MAX_CLIENTS; j++) {
            struct client *k = &d.client[j];

            if (!k->used || k->dead || k == c ||
                k->fence_sent < c->pending_fence ||
                k->fence_acked >= c->pending_fence) {
                continue;
            }
            if (now >= c->pending_deadline && !fence_late_ack(k, c)) {
                logmsg(0, "client %u (%s): no FENCE_ACK within %d ms; "
                       "dropping it", k->id, k->name, d.fence_timeout_ms);
                k->dead = true;
            } else if (k->fence_acked < c->pending_fence) {
                done = false;
            }
        }
        if (done && reply) {
            c->pending = false;
            client_send(c, ICN_MSG_CMD_REPLY, c->pending_seq,
                        &c->pending_reply, NULL, 0);
        } else if (!done && (next < 0 || c->pending_deadline < next)) {
            next = c->pending_deadline;
        }
    }
    return next < 0 ? -1 : (int)(next > now ? next - now : 0);
}

static void do_fence_ack(struct client *c, const struct icn_msg *m)
{
    int64_t took = now_ms() - c->fence_sent_ms;

    if (m->u.fence.id > c->fence_sent || m->u.fence.id < c->fence_acked) {
        logmsg(0, "client %u (%s): FENCE_ACK %llu out of order", c->id,
               c->name, (unsigned long long)m->u.fence.id);
        c->dead = true;
        return;
    }
    c->fence_acked = m->u.fence.id;
    if (took > d.fence_timeout_ms / 4) {
        /* a VM this slow is near being dropped: say so */
        logmsg(0, "client %u (%s): FENCE_ACK after %lld ms (timeout %d ms)",
               c->id, c->name, (long long)took, d.fence_timeout_ms);
    }
}

static void do_cmd(struct client *c, const struct icn_msg *m)
{
    const struct icn_msg_cmd *q = &m->u.cmd;
    struct icn_msg_cmd_reply r = { 0 };
    uint32_t cmd = q->op | (uint32_t)q->arg << M890_SW_CMD_ARG_SHIFT |
                   (uint32_t)q->rsvd0 << M890_SW_CMD_RSVD_SHIFT;
    struct icn_msg_export x;
    int changed = -1;

    if (c->pending) {
        logmsg(0, "client %u (%s): a command while one is outstanding",
               c->id, c->name);
        c->dead = true;
        return;
    }
    if (q->port >= ICN_SWITCH_PORTS || d.card[q->port].owner != c) {
        r.status = M890_SW_ENODEV;
    } else if (q->rsvd[0] || q->rsvd[1] || (q->flags & ~ICN_CMD_F_MGMT)) {
        r.status = M890_SW_EINVAL;
    } else {
        r.status = icn_switch_command(d.sw, q->port,
                                      c->mgmt && (q->flags & ICN_CMD_F_MGMT),
                                      cmd, q->arg0, q->arg1, r.data,
                                      &changed);
    }
    logmsg(1, "client %u: port %u command 0x%x: status %u", c->id, q->port,
           cmd, r.status);
    if (changed >= 0) {
        /* every copy learns the export before the issuer's reply */
        export_msg((unsigned int)changed >> 8, changed & 0xff, &x);
        broadcast(NULL, ICN_MSG_EXPORT, &x, NULL, 0);
        if (q->op == M890_SW_OP_EXPORT_DEL) {
            fence_start(c, m->hdr.seq, &r);
            return;
        }
    }
    client_send(c, ICN_MSG_CMD_REPLY, m->hdr.seq, &r, NULL, 0);
    if (r.status == M890_SW_OK && q->op != M890_SW_OP_INFO &&
        q->op != M890_SW_OP_PORT_GET && q->op <= M890_SW_OP_PORT_INJECT) {
        /* a change without an event (injection counts) still reaches all */
        broadcast_port_state(q->arg);
    }
}

static void do_counters(struct client *c, const struct icn_msg *m)
{
    const struct icn_msg_counters *n = &m->u.counters;
    struct icn_port_counters pc = {
        .tx_bytes = n->tx_bytes, .rx_bytes = n->rx_bytes,
        .tx_pkts = n->tx_pkts, .rx_pkts = n->rx_pkts, .errors = n->errors,
    };

    struct icn_port_info pi;

    if (icn_switch_add_counters(d.sw, n->port, &pc)) {
        logmsg(0, "client %u (%s): counters of port %u ignored", c->id,
               c->name, n->port);
        return;
    }
    if (n->drops && !icn_switch_port_get(d.sw, n->port, &pi) &&
        pi.inject_drops) {
        /* the client used up injected drops: lower the pending count */
        if (pi.inject_drops > n->drops) {
            icn_switch_inject(d.sw, n->port, M890_SW_INJECT_DROP,
                              pi.inject_drops - n->drops);
        } else {
            icn_switch_inject(d.sw, n->port, M890_SW_INJECT_CLEAR, 0);
        }
        broadcast_port_state(n->port);
    }
}

static void client_message(struct client *c, struct icn_msg *m)
{
    logmsg(2, "client %u: %s seq %u", c->id, icn_msg_name(m->hdr.type),
           m->hdr.seq);
    if (!c->hello) {
        if (m->hdr.type == ICN_MSG_HELLO) {
            do_hello(c, m);
        } else {
            logmsg(0, "client %u: %s before HELLO", c->id,
                   icn_msg_name(m->hdr.type));
            c->dead = true;
        }
        return;
    }
    if (m->hdr.version != c->version) {
        logmsg(0, "client %u (%s): message version %u, negotiated %u", c->id,
               c->name, m->hdr.version, c->version);
        c->dead = true;
        return;
    }
    switch (m->hdr.type) {
    case ICN_MSG_ATTACH:
        do_attach(c, m);
        break;
    case ICN_MSG_DETACH:
        do_detach(c, m);
        break;
    case ICN_MSG_CMD:
        do_cmd(c, m);
        break;
    case ICN_MSG_COUNTERS:
        do_counters(c, m);
        break;
    case ICN_MSG_FENCE_ACK:
        do_fence_ack(c, m);
        break;
    default:
        logmsg(0, "client %u (%s): unexpected %s", c->id, c->name,
               icn_msg_name(m->hdr.type));
        c->dead = true;
    }
}

static void client_readable(struct client *c)
{
    struct icn_msg m;
    unsigned int i;
    int ret;

    ret = icn_conn_fill(&c->conn);
    if (ret == -EAGAIN) {
        return;
    }
    if (ret <= 0) {
        if (ret < 0) {
            logmsg(0, "client %u (%s): receive failed: %s", c->id, c->name,
                   strerror(-ret));
        }
        c->dead = true;
        return;
    }
    while (!c->dead && (ret = icn_conn_next(&c->conn, &m)) > 0) {
        client_message(c, &m);
        for (i = 0; i < m.nfds; i++) {
            close(m.fds[i]);
        }
    }
    if (ret < 0) {
        logmsg(0, "client %u (%s): protocol error", c->id, c->name);
        c->dead = true;
    }
}

/* Close the clients marked dead; closing may send and kill more. */
static void close_dead(void)
{
    unsigned int i;

    for (bool again = true; again;) {
        again = false;
        for (i = 0; i < ICN_MAX_CLIENTS; i++) {
            if (d.client[i].used && d.client[i].dead) {
                client_close(&d.client[i]);
                again = true;
            }
        }
    }
}

static void accept_client(void)
{
    struct timeval tv = { .tv_sec = ICN_SEND_TIMEOUT_MS / 1000,
                          .tv_usec = ICN_SEND_TIMEOUT_MS % 1000 * 1000 };
    unsigned int i;
    int fd;

    fd = accept4(d.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
        return;
    }
    i = 0;
    while (i < ICN_MAX_CLIENTS && d.client[i].used) {
        i++;
    }
    if (i == ICN_MAX_CLIENTS) {
        logmsg(0, "too many clients; refusing one");
        close(fd);
        return;
    }
    /* sends block (bounded by the timeout), receives do not */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    memset(&d.client[i], 0, sizeof(d.client[i]));
    d.client[i].used = true;
    d.client[i].id = d.next_id++;
    strcpy(d.client[i].name, "?");
    icn_conn_init(&d.client[i].conn, fd);
}

static int listen_on(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd, probe;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "icn-switchd: socket path too long: %s\n", path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    /* a socket file left by a dead daemon is replaced, a live one is not */
    probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe >= 0 && !connect(probe, (struct sockaddr *)&sa, sizeof(sa))) {
        fprintf(stderr, "icn-switchd: another daemon serves %s\n", path);
        close(probe);
        return -1;
    }
    if (probe >= 0) {
        close(probe);
    }
    unlink(path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
        listen(fd, 16)) {
        fprintf(stderr, "icn-switchd: cannot listen on %s: %s\n", path,
                strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

static void on_signal(int sig)
{
    stop_signal = sig;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: icn-switchd -s SOCKET [-i SWITCH_ID] [-p PIDFILE] "
            "[-M NAME]... [-R] [-F MS] [-v]\n"
            "  -s SOCKET     Unix socket to serve (QEMU: -object "
            "icn-switch,socket=SOCKET)\n"
            "  -i SWITCH_ID  switch id reported by INFO (default 0)\n"
            "  -p PIDFILE    write the pid there once the socket accepts\n"
            "  -M NAME       management permission only for the VMs that say\n"
            "                HELLO with this name (QEMU: -name NAME); repeatable\n"
            "  -R            withhold management permission from every card\n"
            "  -F MS         drop a VM that does not acknowledge a revocation\n"
            "                within MS milliseconds (50..%d, default %d)\n"
            "  -v            log state changes (-vv: every message)\n",
            ICN_FENCE_TIMEOUT_MAX, ICN_FENCE_TIMEOUT_MS);
}

/* @text as a number in [@min, @max] (strtoul() in @base) into *@out. */
static bool parse_number(const char *text, int base, unsigned long min,
                         unsigned long max, unsigned long *out)
{
    char *end;

    errno = 0;
    *out = strtoul(text, &end, base);
    return !errno && !*end && *text && *out >= min && *out <= max;
}

/*
 * The command line into d.  Returns -1 to go on, or the status to exit
 * with (0 after -h).
 */
static int parse_args(int argc, char **argv)
{
    unsigned long n;
    int opt;

    d.mgmt = true;
    d.fence_timeout_ms = ICN_FENCE_TIMEOUT_MS;
    while ((opt = getopt(argc, argv, "s:i:p:M:RF:vh")) != -1) {
        switch (opt) {
        case 's':
            d.path = optarg;
            break;
        case 'i':
            if (!parse_number(optarg, 0, 0, UINT32_MAX, &n)) {
                fprintf(stderr, "icn-switchd: bad switch id '%s'\n", optarg);
                return 2;
            }
            d.switch_id = (uint32_t)n;
            break;
        case 'p':
            d.pidfile = optarg;
            break;
        case 'M':
            if (d.n_mgmt_names == ICN_MAX_MGMT_NAMES) {
                fprintf(stderr, "icn-switchd: at most %d -M names\n",
                        ICN_MAX_MGMT_NAMES);
                return 2;
            }
            d.mgmt_names[d.n_mgmt_names++] = optarg;
            break;
        case 'R':
            d.mgmt = false;
            break;
        case 'F':
            if (!parse_number(optarg, 10, 50, ICN_FENCE_TIMEOUT_MAX, &n)) {
                fprintf(stderr, "icn-switchd: bad fence timeout '%s' "
                        "(50..%d ms)\n", optarg, ICN_FENCE_TIMEOUT_MAX);
                return 2;
            }
            d.fence_timeout_ms = (int)n;
            break;
        case 'v':
            d.verbose++;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (!d.path || optind != argc) {
        usage(stderr);
        return 2;
    }
    return -1;
}

/*
 * The switch, the signals (SIGINT and SIGTERM blocked but in ppoll(),
 * whose mask goes to *orig), the socket and the pidfile.  Returns 0, or
 * the status to exit with.
 */
static int daemon_start(sigset_t *orig)
{
    struct sigaction sa = { .sa_handler = on_signal };
    sigset_t block;
    unsigned int i;

    d.sw = icn_switch_new(d.switch_id);
    if (!d.sw) {
        fprintf(stderr, "icn-switchd: out of memory\n");
        return 1;
    }
    icn_switch_set_event_cb(d.sw, on_switch_event, NULL);
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        d.card[i].port = i;
    }

    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, orig);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    d.listen_fd = listen_on(d.path);
    if (d.listen_fd < 0) {
        return 1;
    }
    if (d.pidfile) {
        FILE *f = fopen(d.pidfile, "w");

        if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f)) {
            fprintf(stderr, "icn-switchd: cannot write %s\n", d.pidfile);
            unlink(d.path);
            return 1;
        }
    }
    logmsg(0, "serving %s (switch id %lu, protocol %u..%u%s)", d.path,
           (unsigned long)d.switch_id, ICN_PROTO_MIN_VERSION, ICN_PROTO_VERSION,
           !d.mgmt ? ", no management permission" :
           d.n_mgmt_names ? ", management permission for -M VMs" : "");
    return 0;
}

/*
 * Serve until a signal: one ppoll() over the socket and the clients,
 * woken for the next fence deadline too, then the readable fds and the
 * fences.
 */
static void serve(const sigset_t *orig)
{
    struct pollfd pfd[1 + ICN_MAX_CLIENTS];
    struct client *who[1 + ICN_MAX_CLIENTS];
    struct timespec ts;
    unsigned int i, n;
    int wait_ms;

    while (!stop_signal) {
        n = 0;
        pfd[n].fd = d.listen_fd;
        pfd[n].events = POLLIN;
        who[n++] = NULL;
        for (i = 0; i < ICN_MAX_CLIENTS; i++) {
            if (d.client[i].used) {
                pfd[n].fd = d.client[i].conn.fd;
                pfd[n].events = POLLIN;
                who[n++] = &d.client[i];
            }
        }
        wait_ms = fences_poll(false);
        ts.tv_sec = wait_ms / 1000;
        ts.tv_nsec = (long)(wait_ms % 1000) * 1000000;
        if (ppoll(pfd, n, wait_ms < 0 ? NULL : &ts, orig) < 0) {
            if (errno == EINTR) {
                continue;
            }
            perror("icn-switchd: poll");
            break;
        }
        if (pfd[0].revents & POLLIN) {
            accept_client();
        }
        for (i = 1; i < n; i++) {
            if (pfd[i].revents && who[i]->used) {
                client_readable(who[i]);
            }
        }
        /* a fence that timed out kills its laggards first */
        fences_poll(false);
        close_dead();
        /* answer the EXPORT_DELs whose fences completed */
        fences_poll(true);
        close_dead();
    }
    if (stop_signal) {
        logmsg(0, "signal %d: exiting", (int)stop_signal);
    }
}

/* Every client closed, the socket and the pidfile removed. */
static void daemon_stop(void)
{
    unsigned int i;

    for (i = 0; i < ICN_MAX_CLIENTS; i++) {
        if (d.client[i].used) {
            d.client[i].dead = true;
            client_close(&d.client[i]);
        }
    }
    close(d.listen_fd);
    unlink(d.path);
    if (d.pidfile) {
        unlink(d.pidfile);
    }
    icn_switch_free(d.sw);
}

int main(int argc, char **argv)
{
    sigset_t orig;
    int rc;

    rc = parse_args(argc, argv);
    if (rc >= 0) {
        return rc;
    }
    rc = daemon_start(&orig);
    if (rc) {
        return rc;
    }
    serve(&orig);
    daemon_stop();
    return 0;
}
