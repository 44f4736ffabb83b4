// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: ICN fabric management over generic netlink
 *
 * The ICN switch has no PCI function of its own: its management functions
 * are relayed by the cards cabled to it, through the BAR0 switch window
 * (write SW_ARG0/1, then SW_CMD; the result is ready when the write
 * returns).  The driver registers the generic netlink family "icn"
 * (uapi/linux/icn_netlink.h) and serves it through the first probed card
 * that is attached to a switch.  Changes need CAP_NET_ADMIN.
 *
 * Port changes are announced as ICN_CMD_PORT_NTF on the "config" group:
 * after a PORT_SET, after a PORT_CLEAR (the switch raises no event for
 * it, so every cleared port is announced), and when a card reports
 * EVT_STATUS.FABRIC.  Every card
 * on the switch gets the event, so only the serving card's events are
 * used, and a notification is sent only for a port whose state differs
 * from the last one announced.
 *
 * m890_fabric_lock protects the device list, the generation counter used
 * for NLM_F_DUMP_INTR and the announced states; each card's sw_lock
 * serializes its switch window.
 */

#include <linux/list.h>
#include <linux/mutex.h>
#include <net/genetlink.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "m890_drv.h"
#include "linux/icn_netlink.h"

static LIST_HEAD(m890_fabric_devs);
static DEFINE_MUTEX(m890_fabric_lock);
static unsigned int m890_fabric_gen = 1;
static u32 m890_port_seen[M890_SW_PORTS];
static bool m890_port_seen_valid;

static struct genl_family icn_family;

struct m890_port {
	u32 index;
	u64 w[M890_SW_PORT_WORDS];
};

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
	default:
		return -EIO;
	}
}

/* Run one switch command; @data receives @n result words. */
static int m890_sw_cmd(struct m890_device *mdev, u32 op, u32 port, u64 arg0,
		       u64 *data, unsigned int n)
{
	unsigned int i;
	int idx, ret;

	if (!drm_dev_enter(&mdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&mdev->sw_lock);
	m890_wr64(mdev, M890_REG_SW_ARG0, arg0);
	m890_wr64(mdev, M890_REG_SW_ARG1, 0);
	m890_wr(mdev, M890_REG_SW_CMD, op | (port << M890_SW_CMD_ARG_SHIFT));
	ret = m890_sw_errno(m890_rd(mdev, M890_REG_SW_STATUS));
	for (i = 0; !ret && i < n && i < M890_SW_DATA_WORDS; i++)
		data[i] = m890_rd64(mdev, M890_REG_SW_DATA(i));
	mutex_unlock(&mdev->sw_lock);
	drm_dev_exit(idx);
	return ret;
}

/* The card that serves the family, or NULL. */
static struct m890_device *m890_fabric_dev(void)
{
	lockdep_assert_held(&m890_fabric_lock);
	return list_first_entry_or_null(&m890_fabric_devs, struct m890_device, fabric_link);
}

static int m890_port_read(struct m890_device *mdev, u32 index, struct m890_port *port)
{
	port->index = index;
	return m890_sw_cmd(mdev, M890_SW_OP_PORT_GET, index, 0, port->w, M890_SW_PORT_WORDS);
}

static u32 m890_state_to_icn(u64 state)
{
	return (state & 0xff) + ICN_PORT_STATE_DOWN;
}

static int m890_port_fill(struct sk_buff *msg, const struct m890_port *port)
{
	u64 state = port->w[M890_SW_PORT_STATE];
	struct m890_device *mdev;

	if (nla_put_u32(msg, ICN_A_PORT_INDEX, port->index) ||
	    nla_put_u32(msg, ICN_A_PORT_ADMIN_STATE, m890_state_to_icn(state)) ||
	    nla_put_u32(msg, ICN_A_PORT_OPER_STATE, m890_state_to_icn(state >> 8)) ||
	    nla_put_u8(msg, ICN_A_PORT_PRESENT, !!((state >> 16) & 0xff)) ||
	    nla_put_u32(msg, ICN_A_PORT_FABRIC_ID, port->w[M890_SW_PORT_FABRIC_ID]) ||
	    nla_put_u32(msg, ICN_A_PORT_PARTITION, port->w[M890_SW_PORT_PARTITION]) ||
	    nla_put_u32(msg, ICN_A_PORT_SPEED, port->w[M890_SW_PORT_SPEED]) ||
	    nla_put_u64_64bit(msg, ICN_A_PORT_TX_BYTES, port->w[M890_SW_PORT_TX_BYTES],
			      ICN_A_PAD) ||
	    nla_put_u64_64bit(msg, ICN_A_PORT_RX_BYTES, port->w[M890_SW_PORT_RX_BYTES],
			      ICN_A_PAD) ||
	    nla_put_u64_64bit(msg, ICN_A_PORT_TX_PACKETS, port->w[M890_SW_PORT_TX_PKTS],
			      ICN_A_PAD) ||
	    nla_put_u64_64bit(msg, ICN_A_PORT_RX_PACKETS, port->w[M890_SW_PORT_RX_PKTS],
			      ICN_A_PAD) ||
	    nla_put_u64_64bit(msg, ICN_A_PORT_ERRORS, port->w[M890_SW_PORT_ERRORS],
			      ICN_A_PAD) ||
	    nla_put_u64_64bit(msg, ICN_A_PORT_LINK_DOWN_COUNT, port->w[M890_SW_PORT_LINK_DOWN],
			      ICN_A_PAD))
		return -EMSGSIZE;

	/* Name the local accel node of the card on this port, if any. */
	list_for_each_entry(mdev, &m890_fabric_devs, fabric_link) {
		if (mdev->fabric_id == port->index && mdev->drm.accel) {
			char name[16];

			snprintf(name, sizeof(name), "accel%d", mdev->drm.accel->index);
			if (nla_put_string(msg, ICN_A_PORT_DEV_NAME, name))
				return -EMSGSIZE;
			break;
		}
	}
	return 0;
}

static struct m890_device *m890_fabric_dev_or_err(struct genl_info *info)
{
	struct m890_device *mdev = m890_fabric_dev();

	if (!mdev)
		GENL_SET_ERR_MSG(info, "no M890 card is attached to an ICN switch");
	return mdev;
}

static int icn_switch_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct m890_device *mdev;
	struct sk_buff *msg;
	u64 data[3];
	void *hdr;
	int ret;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_fabric_dev_or_err(info);
	ret = mdev ? m890_sw_cmd(mdev, M890_SW_OP_INFO, 0, 0, data, 3) : -ENODEV;
	mutex_unlock(&m890_fabric_lock);
	if (ret) {
		if (mdev)
			GENL_SET_ERR_MSG(info, "switch INFO command failed");
		return ret;
	}

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_iput(msg, info);
	if (!hdr)
		goto err_free;
	if (nla_put_u32(msg, ICN_A_SWITCH_PORTS, data[0]) ||
	    nla_put_u32(msg, ICN_A_SWITCH_VERSION, data[1]) ||
	    nla_put_u32(msg, ICN_A_SWITCH_ID, data[2]))
		goto err_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int icn_port_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct m890_device *mdev;
	struct m890_port port;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_PORT_INDEX))
		return -EINVAL;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_fabric_dev_or_err(info);
	if (!mdev) {
		ret = -ENODEV;
		goto err_unlock;
	}
	ret = m890_port_read(mdev, nla_get_u32(info->attrs[ICN_A_PORT_INDEX]), &port);
	if (ret) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[ICN_A_PORT_INDEX],
				    "switch cannot read this port");
		goto err_unlock;
	}
	hdr = genlmsg_iput(msg, info);
	if (!hdr || m890_port_fill(msg, &port)) {
		ret = -EMSGSIZE;
		goto err_unlock;
	}
	mutex_unlock(&m890_fabric_lock);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_unlock:
	mutex_unlock(&m890_fabric_lock);
	nlmsg_free(msg);
	return ret;
}

static int icn_port_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct m890_device *mdev;
	struct m890_port port;
	u64 info[1];
	u32 i, ports;
	void *hdr;
	int ret = 0;

	mutex_lock(&m890_fabric_lock);
	cb->seq = m890_fabric_gen;
	mdev = m890_fabric_dev();
	if (!mdev) {
		NL_SET_ERR_MSG(cb->extack, "no M890 card is attached to an ICN switch");
		ret = -ENODEV;
		goto out;
	}
	ret = m890_sw_cmd(mdev, M890_SW_OP_INFO, 0, 0, info, 1);
	if (ret)
		goto out;
	ports = min_t(u64, info[0], M890_SW_PORTS);

	for (i = cb->args[0]; i < ports; i++) {
		ret = m890_port_read(mdev, i, &port);
		if (ret)
			goto out;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &icn_family, NLM_F_MULTI, ICN_CMD_PORT_GET);
		if (!hdr)
			break;
		genl_dump_check_consistent(cb, hdr);
		if (m890_port_fill(skb, &port)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = i;
	ret = skb->len;
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

/* Announce @port if its state differs from the last announced one. */
static void m890_port_notify(const struct m890_port *port, bool force)
{
	struct sk_buff *msg;
	u32 state = port->w[M890_SW_PORT_STATE];
	void *hdr;

	lockdep_assert_held(&m890_fabric_lock);
	if (!force && m890_port_seen[port->index] == state)
		return;
	m890_port_seen[port->index] = state;
	m890_fabric_gen++;

	if (!genl_has_listeners(&icn_family, &init_net, 0))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &icn_family, 0, ICN_CMD_PORT_NTF);
	if (!hdr || m890_port_fill(msg, port)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&icn_family, msg, 0, 0, GFP_KERNEL);
}

/* Record every port's state without announcing anything. */
static void m890_port_snapshot(struct m890_device *mdev)
{
	struct m890_port port;
	u32 i;

	for (i = 0; i < M890_SW_PORTS; i++)
		if (!m890_port_read(mdev, i, &port))
			m890_port_seen[i] = port.w[M890_SW_PORT_STATE];
	m890_port_seen_valid = true;
}

static int icn_port_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *admin_attr = info->attrs[ICN_A_PORT_ADMIN_STATE];
	struct m890_device *mdev;
	struct m890_port port;
	u32 index, admin;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_PORT_INDEX) ||
	    GENL_REQ_ATTR_CHECK(info, ICN_A_PORT_ADMIN_STATE))
		return -EINVAL;
	index = nla_get_u32(info->attrs[ICN_A_PORT_INDEX]);
	admin = nla_get_u32(admin_attr);
	if (admin != ICN_PORT_STATE_DOWN && admin != ICN_PORT_STATE_UP) {
		NL_SET_ERR_MSG_ATTR(info->extack, admin_attr,
				    "admin state must be down or up");
		return -EINVAL;
	}

	mutex_lock(&m890_fabric_lock);
	mdev = m890_fabric_dev_or_err(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	if (!m890_port_seen_valid)
		m890_port_snapshot(mdev);
	ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_SET_ADMIN, index,
			  admin == ICN_PORT_STATE_UP ? 1 : 0, NULL, 0);
	if (ret) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[ICN_A_PORT_INDEX],
				    "switch refused the port change");
		goto out;
	}
	if (!m890_port_read(mdev, index, &port))
		m890_port_notify(&port, false);
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

static int icn_port_clear_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *index_attr = info->attrs[ICN_A_PORT_INDEX];
	struct m890_device *mdev;
	struct m890_port port;
	u32 i, first, last;
	u64 sw_info[1];
	int ret;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_fabric_dev_or_err(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	if (index_attr) {
		first = nla_get_u32(index_attr);
		last = first;
	} else {
		ret = m890_sw_cmd(mdev, M890_SW_OP_INFO, 0, 0, sw_info, 1);
		if (ret) {
			GENL_SET_ERR_MSG(info, "switch INFO command failed");
			goto out;
		}
		if (!sw_info[0])
			goto out;	/* no port: nothing to clear */
		first = 0;
		last = min_t(u64, sw_info[0], M890_SW_PORTS) - 1;
	}
	if (!m890_port_seen_valid)
		m890_port_snapshot(mdev);
	for (i = first; i <= last; i++) {
		ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_CLEAR, i, 0, NULL, 0);
		if (ret) {
			if (index_attr)
				NL_SET_ERR_MSG_ATTR(info->extack, index_attr,
						    "switch refused to clear this port");
			else
				GENL_SET_ERR_MSG(info, "switch refused to clear the counters");
			goto out;
		}
		if (!m890_port_read(mdev, i, &port))
			m890_port_notify(&port, true);
	}
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

static int m890_card_fill(struct sk_buff *msg, struct m890_device *mdev)
{
	char name[16];

	snprintf(name, sizeof(name), "accel%d",
		 mdev->drm.accel ? mdev->drm.accel->index : -1);
	if (nla_put_string(msg, ICN_A_CARD_DEV_NAME, name) ||
	    nla_put_u32(msg, ICN_A_CARD_FABRIC_ID, mdev->fabric_id) ||
	    nla_put_u32(msg, ICN_A_CARD_PORT, mdev->fabric_port) ||
	    nla_put_u64_64bit(msg, ICN_A_CARD_HBM_SIZE, mdev->hbm_size, ICN_A_PAD) ||
	    nla_put_string(msg, ICN_A_CARD_BUS_NAME, pci_name(mdev->pdev)))
		return -EMSGSIZE;
	return 0;
}

/* The attached card of this system with fabric id @fabric_id, or NULL. */
static struct m890_device *m890_card_find(u32 fabric_id)
{
	struct m890_device *mdev;

	lockdep_assert_held(&m890_fabric_lock);
	list_for_each_entry(mdev, &m890_fabric_devs, fabric_link)
		if (mdev->fabric_id == fabric_id)
			return mdev;
	return NULL;
}

static int icn_card_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *id_attr = info->attrs[ICN_A_CARD_FABRIC_ID];
	struct m890_device *mdev;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_CARD_FABRIC_ID))
		return -EINVAL;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_card_find(nla_get_u32(id_attr));
	if (!mdev) {
		NL_SET_ERR_MSG_ATTR(info->extack, id_attr,
				    "no card of this system has this fabric id");
		ret = -ENOENT;
		goto err_unlock;
	}
	hdr = genlmsg_iput(msg, info);
	if (!hdr || m890_card_fill(msg, mdev)) {
		ret = -EMSGSIZE;
		goto err_unlock;
	}
	mutex_unlock(&m890_fabric_lock);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_unlock:
	mutex_unlock(&m890_fabric_lock);
	nlmsg_free(msg);
	return ret;
}

static int icn_card_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct m890_device *mdev;
	void *hdr;
	u32 id;

	mutex_lock(&m890_fabric_lock);
	cb->seq = m890_fabric_gen;
	for (id = cb->args[0]; id < M890_SW_PORTS; id++) {
		mdev = m890_card_find(id);
		if (!mdev)
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &icn_family, NLM_F_MULTI, ICN_CMD_CARD_GET);
		if (!hdr)
			break;
		genl_dump_check_consistent(cb, hdr);
		if (m890_card_fill(skb, mdev)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = id;
	mutex_unlock(&m890_fabric_lock);
	return skb->len;
}

static const struct nla_policy icn_port_get_policy[ICN_A_PORT_INDEX + 1] = {
	[ICN_A_PORT_INDEX] = NLA_POLICY_MAX(NLA_U32, M890_SW_PORTS - 1),
};

static const struct nla_policy icn_port_set_policy[ICN_A_PORT_ADMIN_STATE + 1] = {
	[ICN_A_PORT_INDEX] = NLA_POLICY_MAX(NLA_U32, M890_SW_PORTS - 1),
	[ICN_A_PORT_ADMIN_STATE] = NLA_POLICY_RANGE(NLA_U32, ICN_PORT_STATE_DOWN,
						    ICN_PORT_STATE_UP),
};

static const struct nla_policy icn_card_get_policy[ICN_A_CARD_FABRIC_ID + 1] = {
	[ICN_A_CARD_FABRIC_ID] = NLA_POLICY_MAX(NLA_U32, M890_SW_PORTS - 1),
};

static const struct genl_split_ops icn_ops[] = {
	{
		.cmd = ICN_CMD_SWITCH_GET,
		.doit = icn_switch_get_doit,
		.flags = GENL_CMD_CAP_DO,
	},
	{
		.cmd = ICN_CMD_PORT_GET,
		.doit = icn_port_get_doit,
		.policy = icn_port_get_policy,
		.maxattr = ICN_A_PORT_INDEX,
		.flags = GENL_CMD_CAP_DO,
	},
	{
		.cmd = ICN_CMD_PORT_GET,
		.dumpit = icn_port_get_dumpit,
		.flags = GENL_CMD_CAP_DUMP,
	},
	{
		.cmd = ICN_CMD_PORT_SET,
		.doit = icn_port_set_doit,
		.policy = icn_port_set_policy,
		.maxattr = ICN_A_PORT_ADMIN_STATE,
		.flags = GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd = ICN_CMD_PORT_CLEAR,
		.doit = icn_port_clear_doit,
		.policy = icn_port_get_policy,
		.maxattr = ICN_A_PORT_INDEX,
		.flags = GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd = ICN_CMD_CARD_GET,
		.doit = icn_card_get_doit,
		.policy = icn_card_get_policy,
		.maxattr = ICN_A_CARD_FABRIC_ID,
		.flags = GENL_CMD_CAP_DO,
	},
	{
		.cmd = ICN_CMD_CARD_GET,
		.dumpit = icn_card_get_dumpit,
		.flags = GENL_CMD_CAP_DUMP,
	},
};

static const struct genl_multicast_group icn_mcgrps[] = {
	{ .name = ICN_MCGRP_CONFIG },
};

static struct genl_family icn_family __ro_after_init = {
	.name = ICN_FAMILY_NAME,
	.version = ICN_FAMILY_VERSION,
	.module = THIS_MODULE,
	.split_ops = icn_ops,
	.n_split_ops = ARRAY_SIZE(icn_ops),
	.mcgrps = icn_mcgrps,
	.n_mcgrps = ARRAY_SIZE(icn_mcgrps),
};

/**
 * m890_fabric_work() - announce port changes after a fabric event.
 * @work: &m890_device.fabric_work.
 */
void m890_fabric_work(struct work_struct *work)
{
	struct m890_device *mdev = container_of(work, struct m890_device, fabric_work);
	struct m890_port port;
	u32 i;

	mutex_lock(&m890_fabric_lock);
	if (m890_fabric_dev() != mdev)
		goto out;
	if (!m890_port_seen_valid) {
		m890_port_snapshot(mdev);
		goto out;
	}
	for (i = 0; i < M890_SW_PORTS; i++)
		if (!m890_port_read(mdev, i, &port))
			m890_port_notify(&port, false);
out:
	mutex_unlock(&m890_fabric_lock);
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
			m890_port_seen_valid = false;
		list_del_init(&mdev->fabric_link);
	}
	mutex_unlock(&m890_fabric_lock);
}

/**
 * m890_fabric_init() - register the "icn" generic netlink family.
 *
 * Return: 0 or a negative errno.
 */
int m890_fabric_init(void)
{
	return genl_register_family(&icn_family);
}

/**
 * m890_fabric_fini() - unregister the family.
 */
void m890_fabric_fini(void)
{
	genl_unregister_family(&icn_family);
}
