// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: ICN switch access
 *
 * The ICN switch has no PCI function of its own: its management functions
 * are relayed by the cards cabled to it, through the BAR0 switch window
 * (write SW_ARG0/1, then SW_CMD; the result is ready when the write
 * returns; hardware spec §8).  This file runs those commands, keeps the
 * list of probed cards attached to a switch (the first one serves the
 * "icn" generic netlink family of m890_netlink.c), answers the partition
 * check of P2P windows, and takes the card's fabric interrupts.
 *
 * Locking: m890_fabric_lock protects the device list and, in
 * m890_netlink.c, the announced switch state; each card's sw_lock
 * serializes its switch window.  Order: m890_fabric_lock > sw_lock.
 */

#include <linux/list.h>
#include <linux/mutex.h>

#include <drm/drm_drv.h>

#include "m890_drv.h"
#include "m890_fabric.h"

/* Probed cards attached to a switch, in probe order. */
static LIST_HEAD(m890_fabric_devs);
/* Protects m890_fabric_devs and m890_netlink.c's announced state. */
DEFINE_MUTEX(m890_fabric_lock);

static int m890_sw_errno(u32 status)
{
	switch (status) {
	case M890_SW_OK:
		return 0;
	case M890_SW_EINVAL:
		return -EINVAL;
	case M890_SW_ERANGE:
		return -ERANGE;
	case M890_SW_EPERM:
		return -EPERM;
	case M890_SW_ENODEV:
		return -ENODEV;
	case M890_SW_ENOENT:
		return -ENOENT;
	case M890_SW_EBUSY:
		return -EBUSY;
	case M890_SW_ENOLINK:
		return -ENOLINK;
	default:
		return -EIO;
	}
}

/**
 * m890_sw_cmd() - run one command through the card's switch window.
 * @mdev: card.
 * @op: enum m890_sw_op.
 * @arg: port, fabric id or slot argument of @op.
 * @arg0: SW_ARG0.
 * @arg1: SW_ARG1.
 * @data: receives @n SW_DATA words on success, may be NULL if @n is 0.
 * @n: result words wanted.
 *
 * Context: takes sw_lock; may sleep.
 * Return: 0, the switch status as a negative errno, or -ENODEV once the
 * card is gone.
 */
int m890_sw_cmd(struct m890_device *mdev, u32 op, u32 arg, u64 arg0, u64 arg1,
		u64 *data, unsigned int n)
{
	unsigned int i;
	int idx, ret;

	if (!drm_dev_enter(&mdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&mdev->sw_lock);
	m890_wr64(mdev, M890_REG_SW_ARG0, arg0);
	m890_wr64(mdev, M890_REG_SW_ARG1, arg1);
	m890_wr(mdev, M890_REG_SW_CMD, op | (arg << M890_SW_CMD_ARG_SHIFT));
	ret = m890_sw_errno(m890_rd(mdev, M890_REG_SW_STATUS));
	for (i = 0; !ret && i < n && i < M890_SW_DATA_WORDS; i++)
		data[i] = m890_rd64(mdev, M890_REG_SW_DATA(i));
	mutex_unlock(&mdev->sw_lock);
	drm_dev_exit(idx);
	return ret;
}

/**
 * m890_fabric_dev() - the card that serves the family.
 *
 * Context: m890_fabric_lock held.
 * Return: the first attached card, or NULL.
 */
struct m890_device *m890_fabric_dev(void)
{
	lockdep_assert_held(&m890_fabric_lock);
	return list_first_entry_or_null(&m890_fabric_devs, struct m890_device, fabric_link);
}

/**
 * m890_port_read() - PORT_GET of switch port @index through @mdev.
 * @mdev: card.
 * @index: port.
 * @port: receives the port's words.
 *
 * Return: 0 or the error of m890_sw_cmd().
 */
int m890_port_read(struct m890_device *mdev, u32 index, struct m890_port *port)
{
	port->index = index;
	return m890_sw_cmd(mdev, M890_SW_OP_PORT_GET, index, 0, 0, port->w,
			   M890_SW_PORT_WORDS);
}

/**
 * m890_route_read() - ROUTE_GET of the entry for @fid through @mdev.
 * @mdev: card.
 * @fid: destination fabric id.
 * @entry: receives the entry.
 *
 * Return: 0 or the error of m890_sw_cmd().
 */
int m890_route_read(struct m890_device *mdev, u32 fid, u64 *entry)
{
	return m890_sw_cmd(mdev, M890_SW_OP_ROUTE_GET, fid, 0, 0, entry, 1);
}

/**
 * m890_sw_ports() - number of switch ports, at most M890_SW_PORTS.
 * @mdev: card.
 * @ports: receives the count.
 *
 * Return: 0 or the error of m890_sw_cmd().
 */
int m890_sw_ports(struct m890_device *mdev, u32 *ports)
{
	u64 info[1];
	int ret;

	ret = m890_sw_cmd(mdev, M890_SW_OP_INFO, 0, 0, 0, info, 1);
	if (!ret)
		*ports = min_t(u64, info[0], M890_SW_PORTS);
	return ret;
}

/**
 * m890_card_find() - the attached card of this system with @fabric_id.
 * @fabric_id: fabric id.
 *
 * Context: m890_fabric_lock held.
 * Return: the card, or NULL.
 */
struct m890_device *m890_card_find(u32 fabric_id)
{
	struct m890_device *mdev;

	lockdep_assert_held(&m890_fabric_lock);
	list_for_each_entry(mdev, &m890_fabric_devs, fabric_link)
		if (mdev->fabric_id == fabric_id)
			return mdev;
	return NULL;
}

/**
 * m890_fabric_event() - EVT_STATUS.FABRIC was raised on @mdev.
 * @mdev: device.
 *
 * Context: hard IRQ.
 */
void m890_fabric_event(struct m890_device *mdev)
{
	mdev->evt_sw = m890_rd(mdev, M890_REG_SW_EVENT);
	schedule_work(&mdev->fabric_work);
}

/**
 * m890_fabric_fault() - a queue of @mdev stopped with M890_QERR_FABRIC.
 * @mdev: device.
 *
 * Records the faulting address for the "errors" group and schedules the
 * notification; faults that arrive before it is sent are merged.
 *
 * Context: the event interrupt's thread.
 */
void m890_fabric_fault(struct m890_device *mdev)
{
	WRITE_ONCE(mdev->fabric_fault_addr, m890_rd64(mdev, M890_REG_MMU_FAULT_ADDR));
	atomic_inc(&mdev->fabric_faults);
	schedule_work(&mdev->fabric_work);
}

/**
 * m890_fabric_peer_check() - may @mdev open a P2P window on @peer's HBM?
 * @mdev: importing card.
 * @peer: exporting card.
 *
 * Both cards must be attached to the switch and their ports must be in the
 * same partition (hardware spec §8.1, §8.5).  The check is made when the
 * window is created; the switch checks every access again.
 *
 * Return: 0, -EPERM (different partitions), -EOPNOTSUPP (a card is not on
 * a switch) or the error of the switch command.
 */
int m890_fabric_peer_check(struct m890_device *mdev, struct m890_device *peer)
{
	struct m890_port a, b;
	int ret;

	if (mdev->fabric_id == M890_FABRIC_ID_NONE || peer->fabric_id == M890_FABRIC_ID_NONE)
		return -EOPNOTSUPP;
	ret = m890_port_read(mdev, mdev->fabric_port, &a);
	if (!ret)
		ret = m890_port_read(mdev, peer->fabric_port, &b);
	if (ret)
		return ret;
	if (a.w[M890_SW_PORT_PARTITION] != b.w[M890_SW_PORT_PARTITION]) {
		drm_dbg_driver(&mdev->drm, "fabric id %u is in partition %llu, not %llu\n",
			       peer->fabric_id, b.w[M890_SW_PORT_PARTITION],
			       a.w[M890_SW_PORT_PARTITION]);
		return -EPERM;
	}
	return 0;
}

/**
 * m890_fabric_card_get() - the card of this system with @fabric_id.
 * @fabric_id: fabric id.
 *
 * Return: the card with a reference on its DRM device (drop it with
 * drm_dev_put()), or NULL when no card of this system has that id.
 */
struct m890_device *m890_fabric_card_get(u32 fabric_id)
{
	struct m890_device *mdev;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_card_find(fabric_id);
	if (mdev)
		drm_dev_get(&mdev->drm);
	mutex_unlock(&m890_fabric_lock);
	return mdev;
}

/**
 * m890_fabric_add() - offer a probed card to serve the fabric.
 * @mdev: device; ignored when it is not attached to a switch.
 */
void m890_fabric_add(struct m890_device *mdev)
{
	if (mdev->fabric_id == M890_FABRIC_ID_NONE)
		return;
	mutex_lock(&m890_fabric_lock);
	list_add_tail(&mdev->fabric_link, &m890_fabric_devs);
	mutex_unlock(&m890_fabric_lock);
}

/**
 * m890_fabric_remove() - withdraw a card; no netlink request uses it after.
 * @mdev: device.
 */
void m890_fabric_remove(struct m890_device *mdev)
{
	mutex_lock(&m890_fabric_lock);
	if (!list_empty(&mdev->fabric_link)) {
		if (m890_fabric_dev() == mdev)
			m890_netlink_forget();
		list_del_init(&mdev->fabric_link);
	}
	mutex_unlock(&m890_fabric_lock);
}
