// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: host unit test of the ICN switch core
 *
 * Exercises attach/detach, admin state, reachability (presence, link,
 * partition, route), peer pointer bounds, routes, error injection,
 * counters and the three event types without QEMU.  Build: gcc -std=c11 -fsanitize=address,undefined -Iinclude
 * -Iqemu-device/icn qemu-device/icn/icn_switch_core.c this file -lpthread
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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

int main(void)
{
    test_attach();
    test_reach();
    test_routes();
    test_inject();
    test_counters();
    CHECK(owner_events > 0);
    printf("1..%d\n", passed + failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
