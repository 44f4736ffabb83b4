/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ICN Switch 1.0 core: ports, link states, partitions and counters.
 *
 * Plain C11 and libc only, so that the same core serves the in-process
 * QEMU "icn-switch" object and a stand-alone fabric daemon.  Every public
 * function takes the switch mutex; callbacks (endpoint kick, events) are
 * always called with the mutex released, so they may call back into the
 * core.
 */
#ifndef ICN_SWITCH_CORE_H
#define ICN_SWITCH_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "m890_regs.h"

#define ICN_SWITCH_PORTS    M890_SW_PORTS
#define ICN_SWITCH_VERSION    0x00010000u    /* 1.0 */
#define ICN_PORT_SPEED_MBPS    6400000u    /* 800 GB/s */
#define ICN_PKT_BYTES        4096u        /* one counted packet */

/**
 * struct icn_endpoint - a card cabled to a port.
 * @opaque: passed back to the callbacks.
 * @hbm: host pointer to the card's HBM; peers access it directly.
 * @hbm_size: bytes of HBM.
 * @kick: optional; called after any SIGNAL on the fabric so that waiting
 *        queues re-check their condition.  Must only schedule work.
 */
struct icn_endpoint {
    void *opaque;
    uint8_t *hbm;
    uint64_t hbm_size;
    void (*kick)(void *opaque);
};

/**
 * struct icn_event - a port state change, sent to every attached endpoint
 * and to the switch's own event callback.
 * @port: port whose state changed.
 * @admin, @oper: new states (enum m890_link_state).
 * @present: a card is attached.
 */
struct icn_event {
    uint8_t port;
    uint8_t admin;
    uint8_t oper;
    uint8_t present;
};

/** struct icn_port_info - snapshot of one port (PORT_GET). */
struct icn_port_info {
    uint8_t admin;
    uint8_t oper;
    bool present;
    uint32_t fabric_id;
    uint32_t partition;
    uint32_t speed_mbps;
    uint64_t tx_bytes;
    uint64_t rx_bytes;
    uint64_t tx_pkts;
    uint64_t rx_pkts;
    uint64_t errors;
    uint64_t link_down;
};

struct icn_switch;

/*
 * Event callback: called once per endpoint attached at the time of the
 * change (with that endpoint's opaque) and once with @ep_opaque NULL for the
 * switch owner.
 */
typedef void (*icn_event_fn)(void *cb_opaque, void *ep_opaque,
                 const struct icn_event *ev);

/* Returns NULL on allocation failure. */
struct icn_switch *icn_switch_new(uint32_t switch_id);
void icn_switch_free(struct icn_switch *sw);
uint32_t icn_switch_id(const struct icn_switch *sw);

void icn_switch_set_event_cb(struct icn_switch *sw, icn_event_fn fn,
                 void *cb_opaque);

/*
 * Cable @ep to @port.  The link comes up at once if the port's admin state
 * is up (the default).  Returns 0, -ERANGE (port >= 64), -EBUSY (taken) or
 * -EINVAL (NULL endpoint).
 */
int icn_switch_attach(struct icn_switch *sw, unsigned int port,
              const struct icn_endpoint *ep);
/* Returns 0, -ERANGE or -ENOENT (nothing attached). */
int icn_switch_detach(struct icn_switch *sw, unsigned int port);

/*
 * Set the admin state: M890_LINK_UP or M890_LINK_DOWN (anything else is
 * -EINVAL).  Oper follows admin while a card is present; a transition of
 * oper from up to down increments the port's link-down count.  Returns 0 or
 * -ERANGE/-EINVAL.
 */
int icn_switch_set_admin(struct icn_switch *sw, unsigned int port,
             unsigned int admin);
int icn_switch_set_partition(struct icn_switch *sw, unsigned int port,
                 uint32_t partition);

/*
 * 0 if @src may reach @dst: both present, both oper up, same partition.
 * Otherwise -ERANGE, -ENODEV (no card), -ENETDOWN (a link down) or -EACCES
 * (partitions differ).
 */
int icn_switch_reachable(struct icn_switch *sw, unsigned int src,
             unsigned int dst);

/*
 * Resolve @len bytes at @offset of the HBM of the card on @dst for a
 * transfer initiated by @src.  Checks reachability and bounds
 * (-ERANGE for out of range, counted as an error on @src) and returns a
 * host pointer in *@ptr.  The pointer stays valid while the card is
 * attached; in-process callers hold the big lock for that.
 */
int icn_switch_peer_ptr(struct icn_switch *sw, unsigned int src,
            unsigned int dst, uint64_t offset, uint64_t len,
            uint8_t **ptr);

/*
 * Count @bytes moved from port @from to port @to: tx on @from, rx on @to,
 * packets = ceil(bytes / 4 KiB).  Out-of-range ports are ignored.
 */
void icn_switch_account(struct icn_switch *sw, unsigned int from,
            unsigned int to, uint64_t bytes);
void icn_switch_count_error(struct icn_switch *sw, unsigned int port);

/* Returns 0 or -ERANGE. */
int icn_switch_port_get(struct icn_switch *sw, unsigned int port,
            struct icn_port_info *info);
/* Zero the counters of @port (tx/rx bytes and packets, errors, link-down). */
int icn_switch_port_clear(struct icn_switch *sw, unsigned int port);

/* Call every attached endpoint's kick callback (after a SIGNAL). */
void icn_switch_kick_all(struct icn_switch *sw);

#endif /* ICN_SWITCH_CORE_H */
