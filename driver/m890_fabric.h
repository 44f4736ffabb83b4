/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: the switch access (m890_fabric.c) and the "icn"
 * generic netlink family (m890_netlink.c).  The first part is what the
 * rest of the driver calls; the second is shared by those two files only.
 */
#ifndef M890_FABRIC_H
#define M890_FABRIC_H

#include <linux/mutex.h>
#include <linux/types.h>

#include "m890_drv.h"

int m890_fabric_init(void);
void m890_fabric_fini(void);
void m890_fabric_add(struct m890_device *mdev);
void m890_fabric_remove(struct m890_device *mdev);
void m890_fabric_event(struct m890_device *mdev);
void m890_fabric_fault(struct m890_device *mdev);
int m890_fabric_peer_check(struct m890_device *mdev, struct m890_device *peer);
struct m890_device *m890_fabric_card_get(u32 fabric_id);
int m890_sw_cmd(struct m890_device *mdev, u32 op, u32 arg, u64 arg0, u64 arg1,
		u64 *data, unsigned int n);
void m890_fabric_work(struct work_struct *work);

/* Shared by m890_fabric.c and m890_netlink.c only. */

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
