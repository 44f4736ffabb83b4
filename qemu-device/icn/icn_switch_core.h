/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ICN Switch 1.0 core: ports, link states, partitions, routes, error
 * injection and counters (Documentation/hardware-spec.rst §8).
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
 * @kick_sem: optional; called instead of @kick by icn_switch_kick_sem(),
 *            with the semaphore the SIGNAL wrote, so that only the queues
 *            waiting on that semaphore re-check.  Must only schedule work.
 * @domain: trust domain of the card (spec §8.7): the in-process switch
 *          puts every card in domain 0, icn-switchd one domain per
 *          client.  A peer access between cards of different domains
 *          must fall inside a window.
 */
struct icn_endpoint {
    void *opaque;
    uint8_t *hbm;
    uint64_t hbm_size;
    void (*kick)(void *opaque);
    void (*kick_sem)(void *opaque, const void *sem);
    uint32_t domain;
};

/**
 * struct icn_event - a switch state change (spec §8.4), sent to every
 * attached endpoint and to the switch's own event callback.
 * @type: enum m890_sw_event_type: link state, partition or route.
 * @port: the port (link, partition) or destination fabric id (route).
 * @value: link: the new oper state; partition: the new partition; route:
 *         the new egress port, M890_SW_EVENT_ROUTE_DISABLED if disabled.
 * @admin, @oper: the port's states after the change (enum m890_link_state;
 *                link and partition events only, else 0).
 * @present: a card is attached to the port (link and partition events).
 */
struct icn_event {
    uint8_t type;
    uint8_t port;
    uint8_t value;
    uint8_t admin;
    uint8_t oper;
    uint8_t present;
};

/* The SW_EVENT register word of @ev (spec §8.4). */
static inline uint32_t icn_event_word(const struct icn_event *ev)
{
    return ev->port | (uint32_t)ev->value << M890_SW_EVENT_VALUE_SHIFT |
           (uint32_t)ev->type << M890_SW_EVENT_TYPE_SHIFT;
}

/**
 * struct icn_port_info - snapshot of one port (PORT_GET).
 * @inject_drops: transfers still to be dropped by PORT_INJECT kind 2.
 * The other fields are the PORT_GET words of the same names (spec §8.3).
 */
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
    uint64_t inject_drops;
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
 * -EINVAL).  Oper follows admin while a card is present; every exit of oper
 * from UP increments the port's link-down count.  Admin up retrains a port
 * in ERROR; admin down also clears the port's injection state.  An event is
 * sent when admin or oper changed.  Returns 0 or -ERANGE/-EINVAL/-ENOMEM.
 */
int icn_switch_set_admin(struct icn_switch *sw, unsigned int port,
             unsigned int admin);

/*
 * Move @port to @partition (< M890_SW_PARTITIONS).  Sends a partition
 * event when the partition changed.  Returns 0, -ERANGE (port), -EINVAL
 * (partition) or -ENOMEM.
 */
int icn_switch_set_partition(struct icn_switch *sw, unsigned int port,
                 uint32_t partition);

/*
 * Route entry of destination fabric id @fid (M890_SW_ROUTE_* bits) into
 * *@entry.  Returns 0 or -ERANGE.
 */
int icn_switch_route_get(struct icn_switch *sw, unsigned int fid,
             uint64_t *entry);

/*
 * Set the route entry of @fid.  Returns 0, -ERANGE (@fid or the egress port
 * >= 64), -EINVAL (bits other than M890_SW_ROUTE_* set) or -ENOMEM.  Sends
 * a route event when the entry changed.
 */
int icn_switch_route_set(struct icn_switch *sw, unsigned int fid,
             uint64_t entry);

/*
 * Error injection on @port, @kind an enum m890_sw_inject:
 *  CLEAR: cancel pending drops (a link in ERROR stays there until admin up);
 *  LINK_ERROR: an oper-UP port goes to ERROR (link-down count + 1, event);
 *              a port that is not UP is left alone;
 *  DROP: the next @count (1..M890_SW_INJECT_DROP_MAX) transfers that use
 *        the port, as issuer or as egress, fail; replaces a pending count.
 * @count is ignored for CLEAR and LINK_ERROR.  Returns 0, -ERANGE, -EINVAL
 * (kind, count) or -ENOMEM.
 */
int icn_switch_inject(struct icn_switch *sw, unsigned int port,
              unsigned int kind, uint64_t count);

/*
 * 0 if a transfer from the card on port @src to destination fabric id @fid
 * would be accepted (spec §8.1, without consuming injected drops).
 * Otherwise -ERANGE (port or fabric id >= 64), -ENODEV (no card on @src or
 * on the egress port), -EHOSTUNREACH (route disabled), -ENETDOWN (a link
 * not oper UP) or -EACCES (partitions differ).
 */
int icn_switch_reachable(struct icn_switch *sw, unsigned int src,
             unsigned int fid);

/*
 * One transfer of @len bytes at @offset of the HBM of destination fabric
 * id @fid, initiated by the card on @src (spec §8.1): applies the route,
 * the presence, link and partition checks, the window check of §8.7
 * between cards of different trust domains (-EPERM unless
 * [@offset, @offset + @len) lies inside one export of the destination
 * card on which @src has a window), the bounds (-ERANGE) and
 * injected drops (-EIO, consumes one), returns a host pointer in *@ptr and
 * the egress port in *@egress (for icn_switch_account()).  Every refusal
 * counts one error on @src.  The pointer stays valid while the card is
 * attached; in-process callers hold the big lock for that.
 */
int icn_switch_peer_ptr(struct icn_switch *sw, unsigned int src,
            unsigned int fid, uint64_t offset, uint64_t len,
            uint8_t **ptr, unsigned int *egress);

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

/*
 * After a SIGNAL that wrote the semaphore at host pointer @sem (into the
 * HBM of a card: an endpoint's @hbm plus the offset), or with @sem NULL
 * into host memory: call every attached endpoint's kick_sem callback with
 * @sem (it filters cheaply by the semaphores its queues wait on), and the
 * kick callback only of the endpoint without kick_sem whose HBM holds
 * @sem (a card of another VM: a kick is a system call there, and its
 * WAITs on other cards' memory are found by its own poll timer).
 */
void icn_switch_kick_sem(struct icn_switch *sw, const void *sem);

/*
 * Several VMs (spec §8.6).  struct icn_port_counters: the counters that
 * traffic changes, as increments to report or to add.
 */
struct icn_port_counters {
    uint64_t tx_bytes;
    uint64_t rx_bytes;
    uint64_t tx_pkts;
    uint64_t rx_pkts;
    uint64_t errors;
};

/*
 * Read and zero the traffic counters of @port (a QEMU process counts its
 * cards' peer traffic in its own copy of the switch and reports the
 * increments to icn-switchd).  Returns true if any was non-zero.
 */
bool icn_switch_take_counters(struct icn_switch *sw, unsigned int port,
                              struct icn_port_counters *c);
/* Add reported increments to the counters of @port.  Returns 0 or -ERANGE. */
int icn_switch_add_counters(struct icn_switch *sw, unsigned int port,
                            const struct icn_port_counters *c);
/*
 * Set the admin and oper state and the partition of @port to what the
 * fabric daemon reports, without events and without counting a link
 * down: the daemon's switch is the one that counts and sends events.
 * Returns 0, -ERANGE or -EINVAL (a state above M890_LINK_ERROR).
 */
int icn_switch_mirror_port(struct icn_switch *sw, unsigned int port,
                           unsigned int admin, unsigned int oper,
                           uint32_t partition);

/*
 * Exports and windows across trust domains (spec §8.7).  Every port has
 * M890_SW_EXPORTS export slots; an export is a range of the card's own
 * HBM named by a non-zero key, and carries the set of ports that opened
 * a window on it.  A card that leaves (detach) loses its exports and its
 * windows; attach starts a port with neither.
 */

/**
 * struct icn_export_info - one export slot.
 * @key: the export's key; 0 when the slot is free.  icn-switchd's
 *       clients keep copies without keys (icn_switch_export_mirror()),
 *       where @key is 1 for a used slot.
 * @range: first page | pages << 32, in 4 KiB pages (M890_SW_RANGE_*);
 *         0 when the slot is free.
 * @windows: bit N set: the card on port N has a window on this export.
 */
struct icn_export_info {
    uint64_t key;
    uint64_t range;
    uint64_t windows;
};

/*
 * EXPORT_ADD: offer pages [first, first + pages) of the HBM of the card
 * on @port under @key in @slot, @range = first | pages << 32.  Returns 0,
 * -ERANGE (@port or @slot >= 64), -ENODEV (no card on @port), -EINVAL
 * (@key 0, 0 pages, a range past the card's HBM), -EBUSY (@slot in use or
 * @key already used by another slot of the card).
 */
int icn_switch_export_add(struct icn_switch *sw, unsigned int port,
                          unsigned int slot, uint64_t key, uint64_t range);

/*
 * EXPORT_DEL: free @slot of @port and close every window on it; accesses
 * checked after the call returns are refused.  Returns 0, -ERANGE or
 * -ENOENT (slot free).
 */
int icn_switch_export_del(struct icn_switch *sw, unsigned int port,
                          unsigned int slot);

/*
 * WINDOW_OPEN: the card on @src opens a window on the export named @key
 * of the card reached by route[@fid].  On success *@owner, *@slot and
 * *@range are the export's port, slot and range word.  Returns 0, -ERANGE
 * (@src or @fid >= 64), -ENODEV (no card on @src), -ENOENT (route
 * disabled, no card there, or no export with @key: the three look the
 * same to the issuer), -EACCES (partitions differ) or -ENETDOWN (a port
 * not oper UP), checked in that order.  Opening twice keeps one window.
 */
int icn_switch_window_open(struct icn_switch *sw, unsigned int src,
                           unsigned int fid, uint64_t key,
                           unsigned int *owner, unsigned int *slot,
                           uint64_t *range);

/*
 * WINDOW_CLOSE: close the window of the card on @src on export @slot of
 * the card reached by route[@fid]; *@owner receives that port.  Returns
 * 0, -ERANGE (@src, @fid or @slot >= 64) or -ENOENT (route disabled, or
 * no such window).
 */
int icn_switch_window_close(struct icn_switch *sw, unsigned int src,
                            unsigned int fid, unsigned int slot,
                            unsigned int *owner);

/* Snapshot of export @slot of @port.  Returns 0 or -ERANGE. */
int icn_switch_export_get(struct icn_switch *sw, unsigned int port,
                          unsigned int slot, struct icn_export_info *info);

/*
 * Set export @slot of @port to what icn-switchd reports (@range 0: free),
 * with the window set @windows.  For the clients' copies of the switch,
 * which check accesses but never decide exports.  Returns 0, -ERANGE,
 * -ENODEV (no card on @port: the copy has not mapped it) or -EINVAL (a
 * used slot with 0 pages).
 */
int icn_switch_export_mirror(struct icn_switch *sw, unsigned int port,
                             unsigned int slot, uint64_t range,
                             uint64_t windows);

/* Trust domain of @port (its endpoint's @domain), or -ERANGE/-ENODEV. */
int icn_switch_domain(struct icn_switch *sw, unsigned int port,
                      uint32_t *domain);

#endif /* ICN_SWITCH_CORE_H */
