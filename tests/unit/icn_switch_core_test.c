// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: host unit test of the ICN switch core
 *
 * Exercises attach/detach, admin state, reachability (presence, link,
 * partition, route), peer pointer bounds, routes, error injection,
 * counters, the three event types, and exports, windows and the trust
 * domain check of spec §8.7 (core calls and the command decoder) without
 * QEMU.  Build: gcc -std=c11 -fsanitize=address,undefined -Iinclude
 * -Iqemu-device/icn qemu-device/icn/icn_switch_core.c this file -lpthread
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "icn_switch_cmd.h"
#include "icn_switch_core.h"

static int passed, failed;

/* One TAP line per check. */
#define CHECK(cond) do { \
    if (cond) { \
        passed++; \
        printf("ok %d - %s\n", passed + failed, #cond); \
    } else { \
        failed++; \
        printf("not ok %d - %s:%d: %s\n", passed + failed, __FILE__, \
               __LINE__, #cond); \
    } \
} while (0)

struct card {
    int events;
    int kicks;
    struct icn_event last;
    uint8_t hbm[8192];
};

static int owner_events;

static void on_event(void *cb_opaque, void *ep_opaque,
                     const struct icn_event *ev)
{
    struct card *c = ep_opaque;

    (void)cb_opaque;
    if (!c) {
        owner_events++;
        return;
    }
    c->events++;
    c->last = *ev;
}

static void on_kick(void *opaque)
{
    ((struct card *)opaque)->kicks++;
}

static struct icn_endpoint ep_of(struct card *c)
{
    struct icn_endpoint ep = {
        .opaque = c, .hbm = c->hbm, .hbm_size = sizeof(c->hbm),
        .kick = on_kick,
    };
    return ep;
}

static void test_attach(void)
{
    struct icn_switch *sw = icn_switch_new(7);
    struct card a = { 0 }, b = { 0 };
    struct icn_endpoint ea = ep_of(&a), eb = ep_of(&b);
    struct icn_port_info pi;

    CHECK(sw != NULL);
    CHECK(icn_switch_id(sw) == 7);
    icn_switch_set_event_cb(sw, on_event, NULL);
    CHECK(icn_switch_attach(sw, 64, &ea) == -ERANGE);
    CHECK(icn_switch_attach(sw, 0, NULL) == -EINVAL);
    CHECK(icn_switch_attach(sw, 0, &ea) == 0);
    CHECK(icn_switch_attach(sw, 0, &eb) == -EBUSY);
    CHECK(icn_switch_attach(sw, 63, &eb) == 0);
    CHECK(icn_switch_port_get(sw, 63, &pi) == 0);
    CHECK(pi.present && pi.oper == M890_LINK_UP && pi.admin == M890_LINK_UP);
    CHECK(pi.fabric_id == 63 && pi.speed_mbps == 6400000u);
    CHECK(icn_switch_port_get(sw, 5, &pi) == 0);
    CHECK(!pi.present && pi.oper == M890_LINK_DOWN);
    CHECK(pi.fabric_id == M890_FABRIC_ID_NONE);
    CHECK(icn_switch_port_get(sw, 64, &pi) == -ERANGE);
    CHECK(a.events == 2 && b.events == 1);
    CHECK(icn_switch_detach(sw, 63) == 0);
    CHECK(icn_switch_detach(sw, 63) == -ENOENT);
    CHECK(icn_switch_detach(sw, 99) == -ERANGE);
    CHECK(a.last.port == 63 && !a.last.present);
    icn_switch_free(sw);
}

static void test_reach(void)
{
    struct icn_switch *sw = icn_switch_new(0);
    struct card a = { 0 }, b = { 0 };
    struct icn_endpoint ea = ep_of(&a), eb = ep_of(&b);
    struct icn_port_info pi;
    uint8_t *p = NULL;
    unsigned int eg = 99;

    icn_switch_set_event_cb(sw, on_event, NULL);
    icn_switch_attach(sw, 1, &ea);
    CHECK(icn_switch_reachable(sw, 1, 2) == -ENODEV);
    icn_switch_attach(sw, 2, &eb);
    CHECK(icn_switch_reachable(sw, 1, 2) == 0);
    CHECK(icn_switch_reachable(sw, 1, 64) == -ERANGE);
    CHECK(icn_switch_peer_ptr(sw, 1, 2, 4096, 4096, &p, &eg) == 0);
    CHECK(p == b.hbm + 4096 && eg == 2);
    CHECK(icn_switch_peer_ptr(sw, 1, 2, 4097, 4096, &p, &eg) == -ERANGE);
    CHECK(icn_switch_peer_ptr(sw, 1, 2, UINT64_MAX, 2, &p, &eg) == -ERANGE);
    CHECK(icn_switch_peer_ptr(sw, 1, 2, 8, UINT64_MAX, &p, &eg) == -ERANGE);

    a.events = b.events = 0;
    CHECK(icn_switch_set_admin(sw, 2, 7) == -EINVAL);
    CHECK(icn_switch_set_admin(sw, 2, M890_LINK_DOWN) == 0);
    CHECK(a.events == 1 && b.events == 1);
    CHECK(a.last.port == 2 && a.last.oper == M890_LINK_DOWN);
    CHECK(icn_switch_reachable(sw, 1, 2) == -ENETDOWN);
    CHECK(icn_switch_reachable(sw, 2, 1) == -ENETDOWN);
    CHECK(icn_switch_peer_ptr(sw, 1, 2, 0, 8, &p, &eg) == -ENETDOWN);
    /* same state again: no event, no extra link-down */
    CHECK(icn_switch_set_admin(sw, 2, M890_LINK_DOWN) == 0);
    CHECK(a.events == 1);
    icn_switch_port_get(sw, 2, &pi);
    CHECK(pi.link_down == 1 && pi.admin == M890_LINK_DOWN);
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.errors == 4);
    CHECK(icn_switch_set_admin(sw, 2, M890_LINK_UP) == 0);
    CHECK(icn_switch_reachable(sw, 1, 2) == 0);

    a.events = 0;
    CHECK(icn_switch_set_partition(sw, 2, 5) == 0);
    CHECK(a.events == 1 && a.last.type == M890_SW_EVENT_PARTITION);
    CHECK(a.last.port == 2 && a.last.value == 5);
    CHECK(icn_event_word(&a.last) == (2 | 5 << 8 | 1 << 16));
    CHECK(icn_switch_reachable(sw, 1, 2) == -EACCES);
    CHECK(icn_switch_peer_ptr(sw, 1, 2, 0, 8, &p, &eg) == -EACCES);
    CHECK(icn_switch_set_partition(sw, 1, 5) == 0);
    CHECK(icn_switch_reachable(sw, 1, 2) == 0);
    /* same partition again: no event */
    a.events = 0;
    CHECK(icn_switch_set_partition(sw, 1, 5) == 0);
    CHECK(a.events == 0);
    CHECK(icn_switch_set_partition(sw, 64, 5) == -ERANGE);
    CHECK(icn_switch_set_partition(sw, 1, 64) == -EINVAL);
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.partition == 5 && pi.errors == 5);
    /* a port without a card is not reachable, and neither is 64 */
    CHECK(icn_switch_reachable(sw, 3, 1) == -ENODEV);
    CHECK(icn_switch_reachable(sw, 64, 1) == -ERANGE);
    icn_switch_free(sw);
}

static void test_routes(void)
{
    struct icn_switch *sw = icn_switch_new(0);
    struct card a = { 0 }, b = { 0 }, c = { 0 };
    struct icn_endpoint ea = ep_of(&a), eb = ep_of(&b), ec = ep_of(&c);
    struct icn_port_info pi;
    unsigned int eg = 99;
    uint64_t e = 0;
    uint8_t *p = NULL;

    icn_switch_set_event_cb(sw, on_event, NULL);
    icn_switch_attach(sw, 0, &ea);
    icn_switch_attach(sw, 1, &eb);
    icn_switch_attach(sw, 2, &ec);
    /* default: every fabric id routes to its own port, enabled */
    CHECK(icn_switch_route_get(sw, 0, &e) == 0 &&
          e == (0 | M890_SW_ROUTE_ENABLED));
    CHECK(icn_switch_route_get(sw, 63, &e) == 0 &&
          e == (63 | M890_SW_ROUTE_ENABLED));
    CHECK(icn_switch_route_get(sw, 64, &e) == -ERANGE);

    /* re-route fabric id 1 to the card on port 2 */
    a.events = 0;
    CHECK(icn_switch_route_set(sw, 1, 2 | M890_SW_ROUTE_ENABLED) == 0);
    CHECK(a.events == 1 && a.last.type == M890_SW_EVENT_ROUTE);
    CHECK(a.last.port == 1 && a.last.value == 2);
    CHECK(icn_event_word(&a.last) == (1 | 2 << 8 | 2 << 16));
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 64, 8, &p, &eg) == 0);
    CHECK(p == c.hbm + 64 && eg == 2);
    icn_switch_account(sw, 0, eg, 8);
    icn_switch_port_get(sw, 2, &pi);
    CHECK(pi.rx_bytes == 8);
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.rx_bytes == 0);
    /* the partition check uses the egress port */
    icn_switch_set_partition(sw, 2, 3);
    CHECK(icn_switch_reachable(sw, 0, 1) == -EACCES);
    icn_switch_set_partition(sw, 2, 0);
    /* and so does the link check */
    icn_switch_set_admin(sw, 2, M890_LINK_DOWN);
    CHECK(icn_switch_reachable(sw, 0, 1) == -ENETDOWN);
    icn_switch_set_admin(sw, 2, M890_LINK_UP);

    /* disabled: refused and counted on the issuer */
    a.events = 0;
    CHECK(icn_switch_route_set(sw, 1, 2) == 0);
    CHECK(a.events == 1 && a.last.value == M890_SW_EVENT_ROUTE_DISABLED);
    CHECK(icn_switch_reachable(sw, 0, 1) == -EHOSTUNREACH);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 0, 8, &p, &eg) == -EHOSTUNREACH);
    icn_switch_port_get(sw, 0, &pi);
    CHECK(pi.errors == 1);
    /* same entry again: no event */
    a.events = 0;
    CHECK(icn_switch_route_set(sw, 1, 2) == 0);
    CHECK(a.events == 0);

    /* bad entries change nothing */
    CHECK(icn_switch_route_set(sw, 64, 1) == -ERANGE);
    CHECK(icn_switch_route_set(sw, 1, 64 | M890_SW_ROUTE_ENABLED) == -ERANGE);
    CHECK(icn_switch_route_set(sw, 1, 0xff) == -ERANGE);
    CHECK(icn_switch_route_set(sw, 1, 1 | 1u << 9) == -EINVAL);
    CHECK(icn_switch_route_set(sw, 1, 1ull << 63) == -EINVAL);
    CHECK(icn_switch_route_get(sw, 1, &e) == 0 && e == 2);
    /* a route to an empty port */
    CHECK(icn_switch_route_set(sw, 1, 9 | M890_SW_ROUTE_ENABLED) == 0);
    CHECK(icn_switch_reachable(sw, 0, 1) == -ENODEV);
    CHECK(icn_switch_route_set(sw, 1, 1 | M890_SW_ROUTE_ENABLED) == 0);
    CHECK(icn_switch_reachable(sw, 0, 1) == 0);
    /* an issuer without a card */
    CHECK(icn_switch_reachable(sw, 5, 1) == -ENODEV);
    icn_switch_free(sw);
}

static void test_inject(void)
{
    struct icn_switch *sw = icn_switch_new(0);
    struct card a = { 0 }, b = { 0 };
    struct icn_endpoint ea = ep_of(&a), eb = ep_of(&b);
    struct icn_port_info pi;
    unsigned int eg;
    uint8_t *p = NULL;
    int i;

    icn_switch_set_event_cb(sw, on_event, NULL);
    icn_switch_attach(sw, 0, &ea);
    icn_switch_attach(sw, 1, &eb);
    CHECK(icn_switch_inject(sw, 64, M890_SW_INJECT_CLEAR, 0) == -ERANGE);
    CHECK(icn_switch_inject(sw, 1, 3, 0) == -EINVAL);
    CHECK(icn_switch_inject(sw, 1, M890_SW_INJECT_DROP, 0) == -EINVAL);
    CHECK(icn_switch_inject(sw, 1, M890_SW_INJECT_DROP,
                            M890_SW_INJECT_DROP_MAX + 1) == -EINVAL);
    CHECK(icn_switch_inject(sw, 1, M890_SW_INJECT_DROP,
                            M890_SW_INJECT_DROP_MAX) == 0);
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.inject_drops == M890_SW_INJECT_DROP_MAX);

    /* drops on the egress port: two transfers fail, the third passes */
    CHECK(icn_switch_inject(sw, 1, M890_SW_INJECT_DROP, 2) == 0);
    for (i = 0; i < 2; i++)
        CHECK(icn_switch_peer_ptr(sw, 0, 1, 0, 8, &p, &eg) == -EIO);
    CHECK(icn_switch_reachable(sw, 0, 1) == 0);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 0, 8, &p, &eg) == 0);
    icn_switch_port_get(sw, 0, &pi);
    CHECK(pi.errors == 2);
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.errors == 0 && pi.inject_drops == 0);
    /* drops on the issuer's port; a refused access consumes none */
    CHECK(icn_switch_inject(sw, 0, M890_SW_INJECT_DROP, 1) == 0);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 8192, 8, &p, &eg) == -ERANGE);
    CHECK(icn_switch_peer_ptr(sw, 1, 0, 0, 8, &p, &eg) == -EIO);
    CHECK(icn_switch_peer_ptr(sw, 1, 0, 0, 8, &p, &eg) == 0);
    /* kind 0 cancels, admin down clears */
    CHECK(icn_switch_inject(sw, 0, M890_SW_INJECT_DROP, 5) == 0);
    CHECK(icn_switch_inject(sw, 0, M890_SW_INJECT_CLEAR, 0) == 0);
    CHECK(icn_switch_peer_ptr(sw, 1, 0, 0, 8, &p, &eg) == 0);
    CHECK(icn_switch_inject(sw, 0, M890_SW_INJECT_DROP, 5) == 0);
    icn_switch_set_admin(sw, 0, M890_LINK_DOWN);
    icn_switch_set_admin(sw, 0, M890_LINK_UP);
    CHECK(icn_switch_peer_ptr(sw, 1, 0, 0, 8, &p, &eg) == 0);

    /* link error: ERROR, link-down + 1, event; admin up retrains */
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.link_down == 0);
    a.events = 0;
    CHECK(icn_switch_inject(sw, 1, M890_SW_INJECT_LINK_ERROR, 0) == 0);
    CHECK(a.events == 1 && a.last.type == M890_SW_EVENT_LINK);
    CHECK(a.last.port == 1 && a.last.value == M890_LINK_ERROR);
    CHECK(icn_event_word(&a.last) == (1 | M890_LINK_ERROR << 8));
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.oper == M890_LINK_ERROR && pi.admin == M890_LINK_UP);
    CHECK(pi.link_down == 1);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 0, 8, &p, &eg) == -ENETDOWN);
    /* again on a port in ERROR: nothing happens */
    CHECK(icn_switch_inject(sw, 1, M890_SW_INJECT_LINK_ERROR, 0) == 0);
    CHECK(a.events == 1);
    /* kind 0 does not retrain */
    CHECK(icn_switch_inject(sw, 1, M890_SW_INJECT_CLEAR, 0) == 0);
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.oper == M890_LINK_ERROR);
    CHECK(icn_switch_set_admin(sw, 1, M890_LINK_UP) == 0);
    CHECK(a.events == 2 && a.last.value == M890_LINK_UP);
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.oper == M890_LINK_UP && pi.link_down == 1);
    CHECK(icn_switch_reachable(sw, 0, 1) == 0);
    /* ERROR then admin down: DOWN without a second link-down count */
    icn_switch_inject(sw, 1, M890_SW_INJECT_LINK_ERROR, 0);
    icn_switch_set_admin(sw, 1, M890_LINK_DOWN);
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.oper == M890_LINK_DOWN && pi.link_down == 2);
    /* a port that is down stays down */
    a.events = 0;
    CHECK(icn_switch_inject(sw, 1, M890_SW_INJECT_LINK_ERROR, 0) == 0);
    CHECK(icn_switch_inject(sw, 5, M890_SW_INJECT_LINK_ERROR, 0) == 0);
    CHECK(a.events == 0);
    icn_switch_set_admin(sw, 1, M890_LINK_UP);
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.oper == M890_LINK_UP);
    /* detach clears a link error: a new card trains */
    icn_switch_inject(sw, 1, M890_SW_INJECT_LINK_ERROR, 0);
    icn_switch_detach(sw, 1);
    icn_switch_attach(sw, 1, &eb);
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.oper == M890_LINK_UP);
    icn_switch_free(sw);
}

static void test_counters(void)
{
    struct icn_switch *sw = icn_switch_new(0);
    struct card a = { 0 }, b = { 0 };
    struct icn_endpoint ea = ep_of(&a), eb = ep_of(&b);
    struct icn_port_info pi;

    icn_switch_attach(sw, 3, &ea);
    icn_switch_attach(sw, 4, &eb);
    icn_switch_account(sw, 3, 4, 4096);
    icn_switch_account(sw, 3, 4, 4097);
    icn_switch_account(sw, 4, 3, 1);
    icn_switch_account(sw, 4, 3, 0);
    icn_switch_account(sw, 64, 3, 100);
    icn_switch_port_get(sw, 3, &pi);
    CHECK(pi.tx_bytes == 8193 && pi.tx_pkts == 3);
    CHECK(pi.rx_bytes == 1 && pi.rx_pkts == 1);
    icn_switch_port_get(sw, 4, &pi);
    CHECK(pi.rx_bytes == 8193 && pi.rx_pkts == 3);
    CHECK(pi.tx_bytes == 1 && pi.tx_pkts == 1);
    icn_switch_count_error(sw, 4);
    icn_switch_count_error(sw, 200);
    icn_switch_port_get(sw, 4, &pi);
    CHECK(pi.errors == 1);
    CHECK(icn_switch_port_clear(sw, 4) == 0);
    CHECK(icn_switch_port_clear(sw, 64) == -ERANGE);
    icn_switch_port_get(sw, 4, &pi);
    CHECK(pi.tx_bytes == 0 && pi.rx_bytes == 0 && pi.errors == 0);
    CHECK(pi.tx_pkts == 0 && pi.rx_pkts == 0 && pi.link_down == 0);
    icn_switch_kick_all(sw);
    CHECK(a.kicks == 1 && b.kicks == 1);
    icn_switch_free(sw);
    icn_switch_free(NULL);
}

#define RANGE(first, pages) ((uint64_t)(first) | \
                             (uint64_t)(pages) << M890_SW_RANGE_PAGES_SHIFT)

/* Core calls: exports, windows, the window check and their lifetime. */
static void test_exports(void)
{
    struct icn_switch *sw = icn_switch_new(0);
    struct card a = { 0 }, b = { 0 }, c = { 0 };
    struct icn_endpoint ea = ep_of(&a), eb = ep_of(&b), ec = ep_of(&c);
    struct icn_export_info xi;
    unsigned int owner = 99, slot = 99, e;
    uint64_t range = 0;
    uint32_t dom = 7;
    uint8_t *ptr;

    ea.domain = 1;
    eb.domain = 2;
    ec.domain = 1;
    icn_switch_attach(sw, 0, &ea);      /* domain 1 */
    icn_switch_attach(sw, 1, &eb);      /* domain 2: hbm 2 pages */
    icn_switch_attach(sw, 2, &ec);      /* domain 1 */
    CHECK(icn_switch_domain(sw, 1, &dom) == 0 && dom == 2);
    CHECK(icn_switch_domain(sw, 5, &dom) == -ENODEV);
    CHECK(icn_switch_domain(sw, 64, &dom) == -ERANGE);

    /* same domain: no window needed; different: refused, one error */
    CHECK(icn_switch_peer_ptr(sw, 0, 2, 0, 16, &ptr, &e) == 0);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 0, 16, &ptr, &e) == -EPERM);
    CHECK(icn_switch_peer_ptr(sw, 1, 0, 4096, 1, &ptr, &e) == -EPERM);
    {
        struct icn_port_info pi;

        icn_switch_port_get(sw, 0, &pi);
        CHECK(pi.errors == 1);
    }

    /* EXPORT_ADD argument checks */
    CHECK(icn_switch_export_add(sw, 1, 64, 5, RANGE(0, 1)) == -ERANGE);
    CHECK(icn_switch_export_add(sw, 64, 0, 5, RANGE(0, 1)) == -ERANGE);
    CHECK(icn_switch_export_add(sw, 5, 0, 5, RANGE(0, 1)) == -ENODEV);
    CHECK(icn_switch_export_add(sw, 1, 0, 0, RANGE(0, 1)) == -EINVAL);
    CHECK(icn_switch_export_add(sw, 1, 0, 5, RANGE(0, 0)) == -EINVAL);
    CHECK(icn_switch_export_add(sw, 1, 0, 5, RANGE(1, 2)) == -EINVAL);
    CHECK(icn_switch_export_add(sw, 1, 0, 5, RANGE(2, 1)) == -EINVAL);
    CHECK(icn_switch_export_add(sw, 1, 0, 5, RANGE(0xffffffffu, 2)) ==
          -EINVAL);
    CHECK(icn_switch_export_add(sw, 1, 3, 5, RANGE(1, 1)) == 0);
    CHECK(icn_switch_export_add(sw, 1, 3, 6, RANGE(0, 1)) == -EBUSY);
    CHECK(icn_switch_export_add(sw, 1, 4, 5, RANGE(0, 1)) == -EBUSY);
    /* the same key on another card is fine */
    CHECK(icn_switch_export_add(sw, 0, 4, 5, RANGE(0, 2)) == 0);
    CHECK(icn_switch_export_get(sw, 1, 3, &xi) == 0);
    CHECK(xi.key == 5 && xi.range == RANGE(1, 1) && xi.windows == 0);
    CHECK(icn_switch_export_get(sw, 1, 64, &xi) == -ERANGE);

    /* an export alone opens nothing */
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 4096, 16, &ptr, &e) == -EPERM);

    /* WINDOW_OPEN */
    CHECK(icn_switch_window_open(sw, 0, 64, 5, &owner, &slot, &range) ==
          -ERANGE);
    CHECK(icn_switch_window_open(sw, 0, 1, 6, &owner, &slot, &range) ==
          -ENOENT);
    CHECK(icn_switch_window_open(sw, 0, 1, 0, &owner, &slot, &range) ==
          -ENOENT);
    CHECK(icn_switch_window_open(sw, 0, 9, 5, &owner, &slot, &range) ==
          -ENOENT);
    CHECK(icn_switch_window_open(sw, 7, 1, 5, &owner, &slot, &range) ==
          -ENODEV);
    CHECK(icn_switch_window_open(sw, 0, 1, 5, &owner, &slot, &range) == 0);
    CHECK(owner == 1 && slot == 3 && range == RANGE(1, 1));
    CHECK(icn_switch_window_open(sw, 0, 1, 5, &owner, &slot, &range) == 0);
    CHECK(icn_switch_export_get(sw, 1, 3, &xi) == 0 && xi.windows == 1);

    /* inside the window only, entirely inside */
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 4096, 4096, &ptr, &e) == 0);
    CHECK(ptr == b.hbm + 4096 && e == 1);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 8191, 1, &ptr, &e) == 0);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 4095, 2, &ptr, &e) == -EPERM);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 4096, 4097, &ptr, &e) == -EPERM);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 0, 1, &ptr, &e) == -EPERM);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, UINT64_MAX, 2, &ptr, &e) == -EPERM);
    /* the window is the issuer's: port 2 (domain 1 too) has none */
    CHECK(icn_switch_peer_ptr(sw, 2, 1, 4096, 1, &ptr, &e) == -EPERM);
    /* and one-way: port 1 reaching port 0 needs its own window */
    CHECK(icn_switch_peer_ptr(sw, 1, 0, 0, 1, &ptr, &e) == -EPERM);

    /* partition change: the window stays, the access fails §8.1 */
    icn_switch_set_partition(sw, 1, 3);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 4096, 1, &ptr, &e) == -EACCES);
    CHECK(icn_switch_window_open(sw, 2, 1, 5, &owner, &slot, &range) ==
          -EACCES);
    icn_switch_set_partition(sw, 1, 0);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 4096, 1, &ptr, &e) == 0);
    /* link down: ENOLINK */
    icn_switch_set_admin(sw, 1, M890_LINK_DOWN);
    CHECK(icn_switch_window_open(sw, 2, 1, 5, &owner, &slot, &range) ==
          -ENETDOWN);
    icn_switch_set_admin(sw, 1, M890_LINK_UP);

    /* WINDOW_CLOSE */
    CHECK(icn_switch_window_close(sw, 0, 1, 64, &owner) == -ERANGE);
    CHECK(icn_switch_window_close(sw, 0, 64, 3, &owner) == -ERANGE);
    CHECK(icn_switch_window_close(sw, 0, 1, 2, &owner) == -ENOENT);
    CHECK(icn_switch_window_close(sw, 2, 1, 3, &owner) == -ENOENT);
    CHECK(icn_switch_window_close(sw, 0, 1, 3, &owner) == 0 && owner == 1);
    CHECK(icn_switch_window_close(sw, 0, 1, 3, &owner) == -ENOENT);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 4096, 1, &ptr, &e) == -EPERM);

    /* EXPORT_DEL revokes every window on the export */
    icn_switch_window_open(sw, 0, 1, 5, &owner, &slot, &range);
    icn_switch_window_open(sw, 2, 1, 5, &owner, &slot, &range);
    CHECK(icn_switch_export_get(sw, 1, 3, &xi) == 0 && xi.windows == 5);
    CHECK(icn_switch_export_del(sw, 1, 3) == 0);
    CHECK(icn_switch_export_del(sw, 1, 3) == -ENOENT);
    CHECK(icn_switch_export_del(sw, 1, 64) == -ERANGE);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 4096, 1, &ptr, &e) == -EPERM);
    CHECK(icn_switch_peer_ptr(sw, 2, 1, 4096, 1, &ptr, &e) == -EPERM);
    /* a new export under the same key starts without windows */
    CHECK(icn_switch_export_add(sw, 1, 3, 5, RANGE(1, 1)) == 0);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 4096, 1, &ptr, &e) == -EPERM);

    /* a card that leaves loses its exports and its windows */
    icn_switch_window_open(sw, 0, 1, 5, &owner, &slot, &range);
    icn_switch_window_open(sw, 1, 0, 5, &owner, &slot, &range);
    CHECK(icn_switch_peer_ptr(sw, 1, 0, 0, 8192, &ptr, &e) == 0);
    icn_switch_detach(sw, 0);
    CHECK(icn_switch_export_get(sw, 1, 3, &xi) == 0 && xi.windows == 0);
    CHECK(icn_switch_export_get(sw, 0, 4, &xi) == 0 && xi.key == 0);
    ea.domain = 3;
    icn_switch_attach(sw, 0, &ea);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 4096, 1, &ptr, &e) == -EPERM);
    CHECK(icn_switch_peer_ptr(sw, 1, 0, 0, 1, &ptr, &e) == -EPERM);

    /* mirror (icn-switchd's clients): range and window set, no key */
    CHECK(icn_switch_export_mirror(sw, 5, 0, RANGE(0, 1), 1) == -ENODEV);
    CHECK(icn_switch_export_mirror(sw, 1, 64, RANGE(0, 1), 1) == -ERANGE);
    CHECK(icn_switch_export_mirror(sw, 1, 0, 7, 1) == -EINVAL);
    CHECK(icn_switch_export_mirror(sw, 1, 0, RANGE(0, 1), 1) == 0);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 0, 4096, &ptr, &e) == 0);
    CHECK(icn_switch_export_mirror(sw, 1, 0, 0, 1) == 0);
    CHECK(icn_switch_peer_ptr(sw, 0, 1, 0, 4096, &ptr, &e) == -EPERM);
    icn_switch_free(sw);
}

/* The decoder of opcodes 9..12 and their statuses (spec §8.7). */
static void test_export_cmds(void)
{
    struct icn_switch *sw = icn_switch_new(0);
    struct card a = { 0 }, b = { 0 };
    struct icn_endpoint ea = ep_of(&a), eb = ep_of(&b);
    uint64_t d[M890_SW_DATA_WORDS];
    int changed = 0;

#define CMD(port, op, arg, a0, a1) \
    icn_switch_command(sw, port, false, (op) | (uint32_t)(arg) << \
                       M890_SW_CMD_ARG_SHIFT, a0, a1, d, &changed)

    eb.domain = 1;
    icn_switch_attach(sw, 0, &ea);
    icn_switch_attach(sw, 1, &eb);
    CHECK(CMD(1, M890_SW_OP_EXPORT_ADD, 64, 9, RANGE(0, 1)) ==
          M890_SW_ERANGE && changed == -1);
    CHECK(CMD(1, M890_SW_OP_EXPORT_ADD, 0, 0, RANGE(0, 1)) == M890_SW_EINVAL);
    CHECK(CMD(1, M890_SW_OP_EXPORT_ADD, 0, 9, RANGE(0, 3)) == M890_SW_EINVAL);
    /* no management permission needed */
    CHECK(CMD(1, M890_SW_OP_EXPORT_ADD, 2, 9, RANGE(0, 2)) == M890_SW_OK);
    CHECK(changed == (1 << 8 | 2));
    CHECK(CMD(1, M890_SW_OP_EXPORT_ADD, 2, 8, RANGE(0, 1)) == M890_SW_EBUSY);
    CHECK(CMD(1, M890_SW_OP_EXPORT_ADD, 3, 9, RANGE(0, 1)) == M890_SW_EBUSY);
    CHECK(CMD(0, M890_SW_OP_WINDOW_OPEN, 64, 9, 0) == M890_SW_ERANGE);
    CHECK(CMD(0, M890_SW_OP_WINDOW_OPEN, 1, 8, 0) == M890_SW_ENOENT);
    CHECK(CMD(0, M890_SW_OP_WINDOW_OPEN, 1, 9, 0) == M890_SW_OK);
    CHECK(d[0] == RANGE(0, 2) && d[1] == 2 && changed == (1 << 8 | 2));
    icn_switch_set_partition(sw, 0, 1);
    CHECK(CMD(0, M890_SW_OP_WINDOW_OPEN, 1, 9, 0) == M890_SW_EPERM);
    CHECK(d[0] == 0 && d[1] == 0 && changed == -1);
    icn_switch_set_partition(sw, 0, 0);
    icn_switch_inject(sw, 1, M890_SW_INJECT_LINK_ERROR, 0);
    CHECK(CMD(0, M890_SW_OP_WINDOW_OPEN, 1, 9, 0) == M890_SW_ENOLINK);
    icn_switch_set_admin(sw, 1, M890_LINK_UP);
    CHECK(CMD(0, M890_SW_OP_WINDOW_CLOSE, 1, 64, 0) == M890_SW_ERANGE);
    CHECK(CMD(0, M890_SW_OP_WINDOW_CLOSE, 64, 2, 0) == M890_SW_ERANGE);
    CHECK(CMD(0, M890_SW_OP_WINDOW_CLOSE, 1, 1, 0) == M890_SW_ENOENT);
    CHECK(CMD(0, M890_SW_OP_WINDOW_CLOSE, 1, 2, 0) == M890_SW_OK);
    CHECK(changed == (1 << 8 | 2));
    CHECK(CMD(1, M890_SW_OP_EXPORT_DEL, 64, 0, 0) == M890_SW_ERANGE);
    CHECK(CMD(1, M890_SW_OP_EXPORT_DEL, 5, 0, 0) == M890_SW_ENOENT);
    CHECK(CMD(1, M890_SW_OP_EXPORT_DEL, 2, 0, 0) == M890_SW_OK);
    CHECK(changed == (1 << 8 | 2));
    /* reserved command bits, unknown opcode */
    CHECK(CMD(1, M890_SW_OP_EXPORT_DEL | 1u << 16, 2, 0, 0) ==
          M890_SW_EINVAL);
    CHECK(CMD(1, 13, 0, 0, 0) == M890_SW_EINVAL);
#undef CMD
    icn_switch_free(sw);
}

int main(void)
{
    test_attach();
    test_reach();
    test_routes();
    test_inject();
    test_counters();
    test_exports();
    test_export_cmds();
    CHECK(owner_events > 0);
    printf("1..%d\n", passed + failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
