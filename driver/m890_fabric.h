/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the switch access (m890_fabric.c) and the "icn" generic
 * netlink family (m890_netlink.c) only; the rest of the driver uses the
 * m890_fabric_*() calls of m890_drv.h.
 */
#ifndef M890_FABRIC_H
#define M890_FABRIC_H

#include <linux/mutex.h>
#include <linux/types.h>

#include "m890_drv.h"

/* Protects the attached-card list and the announced switch state. */
extern struct mutex m890_fabric_lock;

/**
 * struct m890_port - one switch port as PORT_GET returns it.
 * @index: port number.
 * @w: the result words (M890_SW_PORT_STATE, M890_SW_PORT_PARTITION, ...).
 */
struct m890_port {
	u32 index;
	u64 w[M890_SW_PORT_WORDS];
};

/* m890_fabric.c */
struct m890_device *m890_fabric_dev(void);
struct m890_device *m890_card_find(u32 fabric_id);
int m890_port_read(struct m890_device *mdev, u32 index, struct m890_port *port);
int m890_route_read(struct m890_device *mdev, u32 fid, u64 *entry);
int m890_sw_ports(struct m890_device *mdev, u32 *ports);

/* m890_netlink.c */
void m890_netlink_forget(void);

#endif /* M890_FABRIC_H */
