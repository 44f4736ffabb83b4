// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: host unit test of the ICN switch core
 *
 * Exercises attach/detach, admin state, reachability (presence, link,
 * partition), peer pointer bounds, counters and event delivery without
 * QEMU.  Build: gcc -std=c11 -fsanitize=address,undefined -Iinclude
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

    icn_switch_set_event_cb(sw, on_event, NULL);
    icn_switch_attach(sw, 1, &ea);
    CHECK(icn_switch_reachable(sw, 1, 2) == -ENODEV);
    icn_switch_attach(sw, 2, &eb);
    CHECK(icn_switch_reachable(sw, 1, 2) == 0);
    CHECK(icn_switch_reachable(sw, 1, 64) == -ERANGE);
    CHECK(icn_switch_peer_ptr(sw, 1, 2, 4096, 4096, &p) == 0);
    CHECK(p == b.hbm + 4096);
    CHECK(icn_switch_peer_ptr(sw, 1, 2, 4097, 4096, &p) == -ERANGE);
    CHECK(icn_switch_peer_ptr(sw, 1, 2, UINT64_MAX, 2, &p) == -ERANGE);
    CHECK(icn_switch_peer_ptr(sw, 1, 2, 8, UINT64_MAX, &p) == -ERANGE);

    a.events = b.events = 0;
    CHECK(icn_switch_set_admin(sw, 2, 7) == -EINVAL);
    CHECK(icn_switch_set_admin(sw, 2, M890_LINK_DOWN) == 0);
    CHECK(a.events == 1 && b.events == 1);
    CHECK(a.last.port == 2 && a.last.oper == M890_LINK_DOWN);
    CHECK(icn_switch_reachable(sw, 1, 2) == -ENETDOWN);
    CHECK(icn_switch_reachable(sw, 2, 1) == -ENETDOWN);
    CHECK(icn_switch_peer_ptr(sw, 1, 2, 0, 8, &p) == -ENETDOWN);
    /* same state again: no event, no extra link-down */
    CHECK(icn_switch_set_admin(sw, 2, M890_LINK_DOWN) == 0);
    CHECK(a.events == 1);
    icn_switch_port_get(sw, 2, &pi);
    CHECK(pi.link_down == 1 && pi.admin == M890_LINK_DOWN);
    icn_switch_port_get(sw, 1, &pi);
    CHECK(pi.errors == 4);
    CHECK(icn_switch_set_admin(sw, 2, M890_LINK_UP) == 0);
    CHECK(icn_switch_reachable(sw, 1, 2) == 0);

    CHECK(icn_switch_set_partition(sw, 2, 5) == 0);
    CHECK(icn_switch_reachable(sw, 1, 2) == -EACCES);
    CHECK(icn_switch_set_partition(sw, 1, 5) == 0);
    CHECK(icn_switch_reachable(sw, 1, 2) == 0);
    CHECK(icn_switch_set_partition(sw, 64, 5) == -ERANGE);
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
    test_counters();
    CHECK(owner_events > 0);
    printf("1..%d\n", passed + failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
