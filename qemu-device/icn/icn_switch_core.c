// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: ICN Switch 1.0 core
 *
 * The switch state machine shared by the in-process QEMU object and the
 * fabric daemon: 64 ports, each with an optional attached card (endpoint),
 * admin and oper link state, a partition, injected errors and counters,
 * and one route entry per destination fabric id.  A transfer to fabric id
 * F goes to the card on route[F]'s egress port; it is accepted only when
 * the route is enabled, both cards are present, both links are up, both
 * ports are in the same partition and no injected drop takes it
 * (Documentation/hardware-spec.rst §8.1); the core checks that, hands out
 * the peer's HBM pointer, and counts every transfer and every refusal.
 *
 * Trust domains (§8.7): every card carries the domain of its endpoint.
 * Each port has M890_SW_EXPORTS export slots (key, page range, and a
 * 64-bit set of the ports holding a window on it).  A transfer between
 * cards of different domains is accepted only when it lies inside one
 * export of the destination on which the issuer holds a window; the scan
 * is over the destination's 64 slots, under the same mutex as the other
 * checks, so an EXPORT_DEL that returned is seen by every later transfer.
 *
 * Locking: one mutex protects all port state.  Callbacks are collected
 * under the mutex and called after it is released, so a callback may call
 * any core function.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "icn_switch_core.h"

struct icn_port {
    bool present;
    struct icn_endpoint ep;
    uint8_t admin;
    uint8_t oper;
    bool link_error;            /* injected link error: oper ERROR */
    uint32_t partition;
    uint64_t inject_drops;      /* transfers still to drop */
    uint64_t tx_bytes, rx_bytes, tx_pkts, rx_pkts, errors, link_down;
    struct icn_export_info exp[M890_SW_EXPORTS];    /* key 0: free */
};

struct icn_switch {
    pthread_mutex_t lock;    /* protects everything below */
    uint32_t id;
    icn_event_fn event_fn;
    void *event_opaque;
    struct icn_port port[ICN_SWITCH_PORTS];
    uint64_t route[ICN_SWITCH_PORTS];   /* M890_SW_ROUTE_* per fabric id */
};

/* Endpoints to notify, captured under the lock, called after unlock. */
struct icn_notify {
    unsigned int n;
    struct icn_endpoint ep[ICN_SWITCH_PORTS];
    icn_event_fn fn;
    void *fn_opaque;
    struct icn_event ev;
};

struct icn_switch *icn_switch_new(uint32_t switch_id)
{
    struct icn_switch *sw = calloc(1, sizeof(*sw));
    unsigned int i;

    if (!sw) {
        return NULL;
    }
    if (pthread_mutex_init(&sw->lock, NULL)) {
        free(sw);
        return NULL;
    }
    sw->id = switch_id;
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        sw->port[i].admin = M890_LINK_UP;
        sw->port[i].oper = M890_LINK_DOWN;
        sw->route[i] = i | M890_SW_ROUTE_ENABLED;
    }
    return sw;
}

void icn_switch_free(struct icn_switch *sw)
{
    if (!sw) {
        return;
    }
    pthread_mutex_destroy(&sw->lock);
    free(sw);
}

uint32_t icn_switch_id(const struct icn_switch *sw)
{
    return sw->id;
}

void icn_switch_set_event_cb(struct icn_switch *sw, icn_event_fn fn,
                 void *cb_opaque)
{
    pthread_mutex_lock(&sw->lock);
    sw->event_fn = fn;
    sw->event_opaque = cb_opaque;
    pthread_mutex_unlock(&sw->lock);
}

/* Called with the lock held: snapshot the recipients of an event. */
static void icn_capture_recipients(struct icn_switch *sw,
                                   struct icn_notify *nt)
{
    unsigned int i;

    nt->n = 0;
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        if (sw->port[i].present) {
            nt->ep[nt->n++] = sw->port[i].ep;
        }
    }
    nt->fn = sw->event_fn;
    nt->fn_opaque = sw->event_opaque;
}

/* Lock held: snapshot a link (or partition) event of @port. */
static void icn_capture_event(struct icn_switch *sw, unsigned int port,
                              uint8_t type, struct icn_notify *nt)
{
    const struct icn_port *p = &sw->port[port];

    icn_capture_recipients(sw, nt);
    memset(&nt->ev, 0, sizeof(nt->ev));
    nt->ev.type = type;
    nt->ev.port = (uint8_t)port;
    nt->ev.value = type == M890_SW_EVENT_PARTITION ? (uint8_t)p->partition :
                                                     p->oper;
    nt->ev.admin = p->admin;
    nt->ev.oper = p->oper;
    nt->ev.present = p->present;
}

/* Called without the lock. */
static void icn_deliver_event(const struct icn_notify *nt)
{
    unsigned int i;

    if (!nt->fn) {
        return;
    }
    for (i = 0; i < nt->n; i++) {
        nt->fn(nt->fn_opaque, nt->ep[i].opaque, &nt->ev);
    }
    nt->fn(nt->fn_opaque, NULL, &nt->ev);
}

/*
 * Recompute oper from admin, presence and an injected link error (spec
 * §8.2; training completes at once in 1.0); lock held.  True if changed.
 */
static bool icn_update_oper(struct icn_port *p)
{
    uint8_t oper;

    if (!p->present || p->admin != M890_LINK_UP) {
        oper = M890_LINK_DOWN;
    } else if (p->link_error) {
        oper = M890_LINK_ERROR;
    } else {
        oper = M890_LINK_UP;
    }

    if (oper == p->oper) {
        return false;
    }
    if (p->oper == M890_LINK_UP && oper != M890_LINK_UP) {
        p->link_down++;
    }
    p->oper = oper;
    return true;
}

/*
 * Drop the exports of @port and every window the card on @port holds
 * (spec §8.7: a card that leaves loses both); lock held.
 */
static void icn_drop_exports(struct icn_switch *sw, unsigned int port)
{
    uint64_t bit = 1ull << port;
    unsigned int i, j;

    memset(sw->port[port].exp, 0, sizeof(sw->port[port].exp));
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        for (j = 0; j < M890_SW_EXPORTS; j++) {
            sw->port[i].exp[j].windows &= ~bit;
        }
    }
}

int icn_switch_attach(struct icn_switch *sw, unsigned int port,
              const struct icn_endpoint *ep)
{
    struct icn_notify *nt;
    struct icn_port *p;

    if (port >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    if (!ep) {
        return -EINVAL;
    }
    nt = malloc(sizeof(*nt));
    if (!nt) {
        return -ENOMEM;
    }
    pthread_mutex_lock(&sw->lock);
    p = &sw->port[port];
    if (p->present) {
        pthread_mutex_unlock(&sw->lock);
        free(nt);
        return -EBUSY;
    }
    p->present = true;
    p->ep = *ep;
    icn_drop_exports(sw, port);
    icn_update_oper(p);
    icn_capture_event(sw, port, M890_SW_EVENT_LINK, nt);
    pthread_mutex_unlock(&sw->lock);
    icn_deliver_event(nt);
    free(nt);
    return 0;
}

int icn_switch_detach(struct icn_switch *sw, unsigned int port)
{
    struct icn_notify *nt;
    struct icn_port *p;

    if (port >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    nt = malloc(sizeof(*nt));
    pthread_mutex_lock(&sw->lock);
    p = &sw->port[port];
    if (!p->present) {
        pthread_mutex_unlock(&sw->lock);
        free(nt);
        return -ENOENT;
    }
    p->present = false;
    p->link_error = false;
    memset(&p->ep, 0, sizeof(p->ep));
    icn_drop_exports(sw, port);
    icn_update_oper(p);
    if (nt) {
        icn_capture_event(sw, port, M890_SW_EVENT_LINK, nt);
    }
    pthread_mutex_unlock(&sw->lock);
    if (nt) {
        icn_deliver_event(nt);
        free(nt);
    }
    return 0;
}

int icn_switch_set_admin(struct icn_switch *sw, unsigned int port,
             unsigned int admin)
{
    struct icn_notify *nt;
    struct icn_port *p;
    bool changed;

    if (port >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    if (admin != M890_LINK_UP && admin != M890_LINK_DOWN) {
        return -EINVAL;
    }
    nt = malloc(sizeof(*nt));
    if (!nt) {
        return -ENOMEM;
    }
    pthread_mutex_lock(&sw->lock);
    p = &sw->port[port];
    changed = p->admin != admin;
    p->admin = (uint8_t)admin;
    p->link_error = false;      /* admin up retrains, admin down clears */
    if (admin == M890_LINK_DOWN) {
        p->inject_drops = 0;
    }
    changed |= icn_update_oper(p);
    if (changed) {
        icn_capture_event(sw, port, M890_SW_EVENT_LINK, nt);
    }
    pthread_mutex_unlock(&sw->lock);
    if (changed) {
        icn_deliver_event(nt);
    }
    free(nt);
    return 0;
}

int icn_switch_set_partition(struct icn_switch *sw, unsigned int port,
                 uint32_t partition)
{
    struct icn_notify *nt;
    struct icn_port *p;
    bool changed;

    if (port >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    if (partition >= M890_SW_PARTITIONS) {
        return -EINVAL;
    }
    nt = malloc(sizeof(*nt));
    if (!nt) {
        return -ENOMEM;
    }
    pthread_mutex_lock(&sw->lock);
    p = &sw->port[port];
    changed = p->partition != partition;
    p->partition = partition;
    if (changed) {
        icn_capture_event(sw, port, M890_SW_EVENT_PARTITION, nt);
    }
    pthread_mutex_unlock(&sw->lock);
    if (changed) {
        icn_deliver_event(nt);
    }
    free(nt);
    return 0;
}

int icn_switch_route_get(struct icn_switch *sw, unsigned int fid,
             uint64_t *entry)
{
    if (fid >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    pthread_mutex_lock(&sw->lock);
    *entry = sw->route[fid];
    pthread_mutex_unlock(&sw->lock);
    return 0;
}

int icn_switch_route_set(struct icn_switch *sw, unsigned int fid,
             uint64_t entry)
{
    struct icn_notify *nt;
    bool changed;

    if (fid >= ICN_SWITCH_PORTS ||
        (entry & M890_SW_ROUTE_EGRESS_MASK) >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    if (entry & ~(M890_SW_ROUTE_EGRESS_MASK | M890_SW_ROUTE_ENABLED)) {
        return -EINVAL;
    }
    nt = malloc(sizeof(*nt));
    if (!nt) {
        return -ENOMEM;
    }
    pthread_mutex_lock(&sw->lock);
    changed = sw->route[fid] != entry;
    sw->route[fid] = entry;
    if (changed) {
        icn_capture_recipients(sw, nt);
        memset(&nt->ev, 0, sizeof(nt->ev));
        nt->ev.type = M890_SW_EVENT_ROUTE;
        nt->ev.port = (uint8_t)fid;
        nt->ev.value = (entry & M890_SW_ROUTE_ENABLED) ?
                       (uint8_t)(entry & M890_SW_ROUTE_EGRESS_MASK) :
                       M890_SW_EVENT_ROUTE_DISABLED;
    }
    pthread_mutex_unlock(&sw->lock);
    if (changed) {
        icn_deliver_event(nt);
    }
    free(nt);
    return 0;
}

int icn_switch_inject(struct icn_switch *sw, unsigned int port,
              unsigned int kind, uint64_t count)
{
    struct icn_notify *nt;
    struct icn_port *p;
    bool changed = false;

    if (port >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    if (kind > M890_SW_INJECT_DROP) {
        return -EINVAL;
    }
    if (kind == M890_SW_INJECT_DROP &&
        (count == 0 || count > M890_SW_INJECT_DROP_MAX)) {
        return -EINVAL;
    }
    nt = malloc(sizeof(*nt));
    if (!nt) {
        return -ENOMEM;
    }
    pthread_mutex_lock(&sw->lock);
    p = &sw->port[port];
    switch (kind) {
    case M890_SW_INJECT_CLEAR:
        p->inject_drops = 0;
        break;
    case M890_SW_INJECT_LINK_ERROR:
        if (p->oper == M890_LINK_UP) {
            p->link_error = true;
            changed = icn_update_oper(p);
        }
        break;
    default:
        p->inject_drops = count;
        break;
    }
    if (changed) {
        icn_capture_event(sw, port, M890_SW_EVENT_LINK, nt);
    }
    pthread_mutex_unlock(&sw->lock);
    if (changed) {
        icn_deliver_event(nt);
    }
    free(nt);
    return 0;
}

/* The §8.1 checks of a transfer @src -> fabric id @fid; lock held. */
static int icn_reachable_locked(struct icn_switch *sw, unsigned int src,
                                unsigned int fid, unsigned int *egress)
{
    const struct icn_port *a, *b;
    uint64_t route;

    if (src >= ICN_SWITCH_PORTS || fid >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    a = &sw->port[src];
    if (!a->present) {
        return -ENODEV;
    }
    route = sw->route[fid];
    if (!(route & M890_SW_ROUTE_ENABLED)) {
        return -EHOSTUNREACH;
    }
    *egress = route & M890_SW_ROUTE_EGRESS_MASK;
    b = &sw->port[*egress];
    if (!b->present) {
        return -ENODEV;
    }
    if (a->oper != M890_LINK_UP || b->oper != M890_LINK_UP) {
        return -ENETDOWN;
    }
    if (a->partition != b->partition) {
        return -EACCES;
    }
    return 0;
}

int icn_switch_reachable(struct icn_switch *sw, unsigned int src,
             unsigned int fid)
{
    unsigned int egress;
    int ret;

    pthread_mutex_lock(&sw->lock);
    ret = icn_reachable_locked(sw, src, fid, &egress);
    pthread_mutex_unlock(&sw->lock);
    return ret;
}

/* Consume one injected drop on @a or @b if either has one; lock held. */
static bool icn_take_drop(struct icn_port *a, struct icn_port *b)
{
    if (a->inject_drops) {
        a->inject_drops--;
        return true;
    }
    if (b->inject_drops) {
        b->inject_drops--;
        return true;
    }
    return false;
}

/*
 * True if [@offset, @offset + @len) lies inside one export of @b on which
 * port @src holds a window (spec §8.7); lock held.
 */
static bool icn_in_window(const struct icn_port *b, unsigned int src,
                          uint64_t offset, uint64_t len)
{
    uint64_t bit = 1ull << src, start, size;
    unsigned int i;

    for (i = 0; i < M890_SW_EXPORTS; i++) {
        const struct icn_export_info *x = &b->exp[i];

        if (!x->key || !(x->windows & bit)) {
            continue;
        }
        start = (x->range & M890_SW_RANGE_OFFSET_MASK) <<
                M890_SW_RANGE_PAGE_SHIFT;
        size = (x->range >> M890_SW_RANGE_PAGES_SHIFT) <<
               M890_SW_RANGE_PAGE_SHIFT;
        if (offset >= start && offset - start <= size &&
            len <= size - (offset - start)) {
            return true;
        }
    }
    return false;
}

int icn_switch_peer_ptr(struct icn_switch *sw, unsigned int src,
            unsigned int fid, uint64_t offset, uint64_t len,
            uint8_t **ptr, unsigned int *egress)
{
    struct icn_port *b;
    unsigned int e = 0;
    int ret;

    pthread_mutex_lock(&sw->lock);
    ret = icn_reachable_locked(sw, src, fid, &e);
    if (!ret) {
        b = &sw->port[e];
        if (b->ep.domain != sw->port[src].ep.domain &&
            !icn_in_window(b, src, offset, len)) {
            ret = -EPERM;
        } else if (!b->ep.hbm || offset > b->ep.hbm_size ||
            len > b->ep.hbm_size - offset) {
            ret = -ERANGE;
        } else if (icn_take_drop(&sw->port[src], b)) {
            ret = -EIO;
        } else {
            *ptr = b->ep.hbm + offset;
        }
    }
    if (ret && src < ICN_SWITCH_PORTS) {
        sw->port[src].errors++;
    }
    pthread_mutex_unlock(&sw->lock);
    *egress = e;
    return ret;
}

void icn_switch_account(struct icn_switch *sw, unsigned int from,
            unsigned int to, uint64_t bytes)
{
    uint64_t pkts = bytes / ICN_PKT_BYTES + !!(bytes % ICN_PKT_BYTES);

    if (from >= ICN_SWITCH_PORTS || to >= ICN_SWITCH_PORTS) {
        return;
    }
    pthread_mutex_lock(&sw->lock);
    sw->port[from].tx_bytes += bytes;
    sw->port[from].tx_pkts += pkts;
    sw->port[to].rx_bytes += bytes;
    sw->port[to].rx_pkts += pkts;
    pthread_mutex_unlock(&sw->lock);
}

void icn_switch_count_error(struct icn_switch *sw, unsigned int port)
{
    if (port >= ICN_SWITCH_PORTS) {
        return;
    }
    pthread_mutex_lock(&sw->lock);
    sw->port[port].errors++;
    pthread_mutex_unlock(&sw->lock);
}

int icn_switch_port_get(struct icn_switch *sw, unsigned int port,
            struct icn_port_info *info)
{
    const struct icn_port *p;

    if (port >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    pthread_mutex_lock(&sw->lock);
    p = &sw->port[port];
    info->admin = p->admin;
    info->oper = p->oper;
    info->present = p->present;
    info->fabric_id = p->present ? port : M890_FABRIC_ID_NONE;
    info->partition = p->partition;
    info->speed_mbps = ICN_PORT_SPEED_MBPS;
    info->tx_bytes = p->tx_bytes;
    info->rx_bytes = p->rx_bytes;
    info->tx_pkts = p->tx_pkts;
    info->rx_pkts = p->rx_pkts;
    info->errors = p->errors;
    info->link_down = p->link_down;
    info->inject_drops = p->inject_drops;
    pthread_mutex_unlock(&sw->lock);
    return 0;
}

int icn_switch_port_clear(struct icn_switch *sw, unsigned int port)
{
    struct icn_port *p;

    if (port >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    pthread_mutex_lock(&sw->lock);
    p = &sw->port[port];
    p->tx_bytes = p->rx_bytes = p->tx_pkts = p->rx_pkts = 0;
    p->errors = p->link_down = 0;
    pthread_mutex_unlock(&sw->lock);
    return 0;
}

void icn_switch_kick_all(struct icn_switch *sw)
{
    struct icn_endpoint ep[ICN_SWITCH_PORTS];
    unsigned int i, n = 0;

    pthread_mutex_lock(&sw->lock);
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        if (sw->port[i].present && sw->port[i].ep.kick) {
            ep[n++] = sw->port[i].ep;
        }
    }
    pthread_mutex_unlock(&sw->lock);
    for (i = 0; i < n; i++) {
        ep[i].kick(ep[i].opaque);
    }
}

/* True if @sem points into the HBM of endpoint @e. */
static bool icn_owns(const struct icn_endpoint *e, const void *sem)
{
    const uint8_t *p = sem;

    return p && e->hbm && p >= e->hbm && p < e->hbm + e->hbm_size;
}

void icn_switch_kick_sem(struct icn_switch *sw, const void *sem)
{
    struct icn_endpoint ep[ICN_SWITCH_PORTS];
    unsigned int i, n = 0;

    pthread_mutex_lock(&sw->lock);
    for (i = 0; i < ICN_SWITCH_PORTS; i++) {
        const struct icn_endpoint *e = &sw->port[i].ep;

        if (sw->port[i].present &&
            (e->kick_sem || (e->kick && icn_owns(e, sem)))) {
            ep[n++] = *e;
        }
    }
    pthread_mutex_unlock(&sw->lock);
    for (i = 0; i < n; i++) {
        if (ep[i].kick_sem) {
            ep[i].kick_sem(ep[i].opaque, sem);
        } else {
            ep[i].kick(ep[i].opaque);
        }
    }
}

bool icn_switch_take_counters(struct icn_switch *sw, unsigned int port,
                              struct icn_port_counters *c)
{
    struct icn_port *p;

    memset(c, 0, sizeof(*c));
    if (port >= ICN_SWITCH_PORTS) {
        return false;
    }
    pthread_mutex_lock(&sw->lock);
    p = &sw->port[port];
    c->tx_bytes = p->tx_bytes;
    c->rx_bytes = p->rx_bytes;
    c->tx_pkts = p->tx_pkts;
    c->rx_pkts = p->rx_pkts;
    c->errors = p->errors;
    p->tx_bytes = p->rx_bytes = p->tx_pkts = p->rx_pkts = p->errors = 0;
    pthread_mutex_unlock(&sw->lock);
    return c->tx_bytes || c->rx_bytes || c->tx_pkts || c->rx_pkts ||
           c->errors;
}

int icn_switch_add_counters(struct icn_switch *sw, unsigned int port,
                            const struct icn_port_counters *c)
{
    struct icn_port *p;

    if (port >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    pthread_mutex_lock(&sw->lock);
    p = &sw->port[port];
    p->tx_bytes += c->tx_bytes;
    p->rx_bytes += c->rx_bytes;
    p->tx_pkts += c->tx_pkts;
    p->rx_pkts += c->rx_pkts;
    p->errors += c->errors;
    pthread_mutex_unlock(&sw->lock);
    return 0;
}

int icn_switch_mirror_port(struct icn_switch *sw, unsigned int port,
                           unsigned int admin, unsigned int oper,
                           uint32_t partition)
{
    struct icn_port *p;

    if (port >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    if (admin > M890_LINK_ERROR || oper > M890_LINK_ERROR) {
        return -EINVAL;
    }
    pthread_mutex_lock(&sw->lock);
    p = &sw->port[port];
    p->admin = (uint8_t)admin;
    p->oper = (uint8_t)oper;
    p->partition = partition;
    pthread_mutex_unlock(&sw->lock);
    return 0;
}

/* Pages of the HBM of @p (0 if none attached); lock held. */
static uint64_t icn_hbm_pages(const struct icn_port *p)
{
    return p->present ? p->ep.hbm_size >> M890_SW_RANGE_PAGE_SHIFT : 0;
}

int icn_switch_export_add(struct icn_switch *sw, unsigned int port,
                          unsigned int slot, uint64_t key, uint64_t range)
{
    uint64_t first = range & M890_SW_RANGE_OFFSET_MASK;
    uint64_t pages = range >> M890_SW_RANGE_PAGES_SHIFT;
    struct icn_port *p;
    unsigned int i;
    int ret = 0;

    if (port >= ICN_SWITCH_PORTS || slot >= M890_SW_EXPORTS) {
        return -ERANGE;
    }
    pthread_mutex_lock(&sw->lock);
    p = &sw->port[port];
    if (!p->present) {
        ret = -ENODEV;
    } else if (!key || !pages || first > icn_hbm_pages(p) ||
               pages > icn_hbm_pages(p) - first) {
        ret = -EINVAL;
    } else if (p->exp[slot].key) {
        ret = -EBUSY;
    } else {
        for (i = 0; i < M890_SW_EXPORTS; i++) {
            if (p->exp[i].key == key) {
                ret = -EBUSY;
                break;
            }
        }
    }
    if (!ret) {
        p->exp[slot].key = key;
        p->exp[slot].range = range;
        p->exp[slot].windows = 0;
    }
    pthread_mutex_unlock(&sw->lock);
    return ret;
}

int icn_switch_export_del(struct icn_switch *sw, unsigned int port,
                          unsigned int slot)
{
    struct icn_export_info *x;
    int ret = 0;

    if (port >= ICN_SWITCH_PORTS || slot >= M890_SW_EXPORTS) {
        return -ERANGE;
    }
    pthread_mutex_lock(&sw->lock);
    x = &sw->port[port].exp[slot];
    if (!x->key) {
        ret = -ENOENT;
    } else {
        memset(x, 0, sizeof(*x));
    }
    pthread_mutex_unlock(&sw->lock);
    return ret;
}

/* The port route[@fid] leads to, or -ENOENT if disabled; lock held. */
static int icn_route_port(struct icn_switch *sw, unsigned int fid)
{
    uint64_t route = sw->route[fid];

    if (!(route & M890_SW_ROUTE_ENABLED)) {
        return -ENOENT;
    }
    return (int)(route & M890_SW_ROUTE_EGRESS_MASK);
}

int icn_switch_window_open(struct icn_switch *sw, unsigned int src,
                           unsigned int fid, uint64_t key,
                           unsigned int *owner, unsigned int *slot,
                           uint64_t *range)
{
    const struct icn_port *a, *b;
    unsigned int i;
    int e, ret = -ENOENT;

    if (src >= ICN_SWITCH_PORTS || fid >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    pthread_mutex_lock(&sw->lock);
    a = &sw->port[src];
    e = icn_route_port(sw, fid);
    if (!a->present) {
        ret = -ENODEV;
        goto out;
    }
    if (e < 0 || !sw->port[e].present) {
        goto out;
    }
    b = &sw->port[e];
    /* partition first: another partition learns nothing about its keys */
    if (a->partition != b->partition) {
        ret = -EACCES;
        goto out;
    }
    if (a->oper != M890_LINK_UP || b->oper != M890_LINK_UP) {
        ret = -ENETDOWN;
        goto out;
    }
    for (i = 0; key && i < M890_SW_EXPORTS; i++) {
        if (b->exp[i].key == key) {
            sw->port[e].exp[i].windows |= 1ull << src;
            *owner = (unsigned int)e;
            *slot = i;
            *range = b->exp[i].range;
            ret = 0;
            break;
        }
    }
out:
    pthread_mutex_unlock(&sw->lock);
    return ret;
}

int icn_switch_window_close(struct icn_switch *sw, unsigned int src,
                            unsigned int fid, unsigned int slot,
                            unsigned int *owner)
{
    struct icn_export_info *x;
    uint64_t bit = 1ull << (src & 63);
    int e, ret = -ENOENT;

    if (src >= ICN_SWITCH_PORTS || fid >= ICN_SWITCH_PORTS ||
        slot >= M890_SW_EXPORTS) {
        return -ERANGE;
    }
    pthread_mutex_lock(&sw->lock);
    e = icn_route_port(sw, fid);
    if (e >= 0) {
        x = &sw->port[e].exp[slot];
        if (x->key && (x->windows & bit)) {
            x->windows &= ~bit;
            *owner = (unsigned int)e;
            ret = 0;
        }
    }
    pthread_mutex_unlock(&sw->lock);
    return ret;
}

int icn_switch_export_get(struct icn_switch *sw, unsigned int port,
                          unsigned int slot, struct icn_export_info *info)
{
    if (port >= ICN_SWITCH_PORTS || slot >= M890_SW_EXPORTS) {
        return -ERANGE;
    }
    pthread_mutex_lock(&sw->lock);
    *info = sw->port[port].exp[slot];
    pthread_mutex_unlock(&sw->lock);
    return 0;
}

int icn_switch_export_mirror(struct icn_switch *sw, unsigned int port,
                             unsigned int slot, uint64_t range,
                             uint64_t windows)
{
    struct icn_export_info *x;
    int ret = 0;

    if (port >= ICN_SWITCH_PORTS || slot >= M890_SW_EXPORTS) {
        return -ERANGE;
    }
    if (range && !(range >> M890_SW_RANGE_PAGES_SHIFT)) {
        return -EINVAL;
    }
    pthread_mutex_lock(&sw->lock);
    if (!sw->port[port].present) {
        ret = -ENODEV;
    } else {
        x = &sw->port[port].exp[slot];
        x->key = range ? 1 : 0;
        x->range = range;
        x->windows = range ? windows : 0;
    }
    pthread_mutex_unlock(&sw->lock);
    return ret;
}

int icn_switch_domain(struct icn_switch *sw, unsigned int port,
                      uint32_t *domain)
{
    int ret = 0;

    if (port >= ICN_SWITCH_PORTS) {
        return -ERANGE;
    }
    pthread_mutex_lock(&sw->lock);
    if (sw->port[port].present) {
        *domain = sw->port[port].ep.domain;
    } else {
        ret = -ENODEV;
    }
    pthread_mutex_unlock(&sw->lock);
    return ret;
}
