// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: ICN fabric management over generic netlink
 *
 * The driver registers the generic netlink family "icn"
 * (uapi/linux/icn_netlink.h, Documentation/netlink.rst) and serves it
 * through the first probed card that is attached to a switch, with the
 * switch commands of m890_fabric.c.  Changes need CAP_NET_ADMIN.
 *
 * The family structure, its multicast groups, the ops table and the
 * per-operation attribute policies are generated from
 * Documentation/netlink/specs/icn.yaml by the kernel's ynl-gen-c.py into
 * m890_netlink_gen.c (scripts/ynl.sh); this file holds the handlers the
 * generated table names (icn_nl_<op>_doit/_dumpit).  The family is
 * visible in every network namespace (the generated netnsok); the switch
 * is one piece of hardware, so every namespace sees the same state, and
 * notifications are sent in the initial namespace only.
 *
 * Objects: the switch, its ports, the cards of this system, the routing
 * table (one entry per destination fabric id), partitions and error
 * injection.  Partitions exist in the switch only as a number per port;
 * the driver adds the set of partitions defined by PARTITION_ADD (or by
 * moving a port into one), so that an empty partition can be created
 * before its members, the way an opensm partition is.  Partition 0 always
 * exists.
 *
 * Notifications: after every change it executes, and whenever the serving
 * card reports a switch event (EVT_STATUS.FABRIC), the driver re-reads
 * every port and route (m890_fabric_sync()) and announces on the "config"
 * group each port (admin, oper, presence, partition), route and partition
 * membership that differs from what it announced last; a port entering
 * oper ERROR is also announced on "errors".  Every card on the switch
 * gets each event, so only the serving card's events are used; re-reading
 * everything covers merged and missed events.  PORT_CLEAR announces every
 * cleared port (the switch sends no event for it).  Error injections and
 * queues stopped by a fabric refusal (any card of this system) are
 * announced on "errors".
 *
 * Dumps carry a generation number that increments on every announced
 * change; a dump that sees it change between two messages sets
 * NLM_F_DUMP_INTR.
 *
 * Locking: m890_fabric_lock (m890_fabric.c) protects the generation
 * counter, the announced state and the partition set; each request holds
 * it for its whole doit, a dump for one message.
 */

#include <linux/bitops.h>
#include <linux/mutex.h>
#include <net/genetlink.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "m890_drv.h"
#include "m890_fabric.h"
#include "m890_netlink_gen.h"

static unsigned int m890_fabric_gen = 1;

/**
 * struct m890_fabric_seen - the switch state last announced.
 * @valid: the arrays hold a snapshot of the serving card's switch.
 * @state: PORT_GET STATE word per port.
 * @partition: partition per port.
 * @route: ROUTE_GET entry per fabric id.
 * @parts: partitions that exist (bit per id); bit 0 always set.
 *
 * Protected by m890_fabric_lock.
 */
static struct m890_fabric_seen {
	bool valid;
	u32 state[M890_SW_PORTS];
	u32 partition[M890_SW_PORTS];
	u64 route[M890_SW_PORTS];
	u64 parts;
} m890_seen;

/* Partitions defined by PARTITION_ADD or PORT_SET (under m890_fabric_lock). */
static u64 m890_parts_defined = BIT_ULL(0);

/* A port state byte (admin or oper) as enum icn_port_state. */
static u32 m890_state_to_icn(u64 state)
{
	return state + ICN_PORT_STATE_DOWN;
}

static u32 m890_port_oper(const struct m890_port *port)
{
	return M890_SW_STATE_OPER(port->w[M890_SW_PORT_STATE]);
}

static int m890_put_dev_name(struct sk_buff *msg, int attr, struct m890_device *mdev)
{
	char name[16];

	snprintf(name, sizeof(name), "accel%d",
		 mdev->drm.accel ? mdev->drm.accel->index : -1);
	return nla_put_string(msg, attr, name);
}

static int m890_port_fill(struct sk_buff *msg, const struct m890_port *port)
{
	u64 state = port->w[M890_SW_PORT_STATE];
	u32 admin = m890_state_to_icn(M890_SW_STATE_ADMIN(state));
	u32 oper = m890_state_to_icn(M890_SW_STATE_OPER(state));
	struct m890_device *mdev;

	if (nla_put_u32(msg, ICN_A_PORT_INDEX, port->index) ||
	    nla_put_u32(msg, ICN_A_PORT_ADMIN_STATE, admin) ||
	    nla_put_u32(msg, ICN_A_PORT_OPER_STATE, oper) ||
	    nla_put_u8(msg, ICN_A_PORT_PRESENT, !!M890_SW_STATE_PRESENT(state)) ||
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
			      ICN_A_PAD) ||
	    nla_put_u64_64bit(msg, ICN_A_PORT_INJECT_DROPS, port->w[M890_SW_PORT_INJECT_DROPS],
			      ICN_A_PAD))
		return -EMSGSIZE;

	/* Name the local accel node of the card on this port, if any. */
	mdev = m890_card_find(port->index);
	if (mdev && mdev->drm.accel &&
	    m890_put_dev_name(msg, ICN_A_PORT_DEV_NAME, mdev))
		return -EMSGSIZE;
	return 0;
}

static int m890_route_fill(struct sk_buff *msg, u32 fid, u64 entry)
{
	if (nla_put_u32(msg, ICN_A_ROUTE_FABRIC_ID, fid) ||
	    nla_put_u32(msg, ICN_A_ROUTE_EGRESS_PORT, entry & M890_SW_ROUTE_EGRESS_MASK) ||
	    nla_put_u8(msg, ICN_A_ROUTE_ENABLED, !!(entry & M890_SW_ROUTE_ENABLED)))
		return -EMSGSIZE;
	return 0;
}

/* Partition @id with the ports of @partition[0..@ports) that are in it. */
static int m890_partition_fill(struct sk_buff *msg, u32 id, const u32 *partition, u32 ports)
{
	u32 i;

	if (nla_put_u32(msg, ICN_A_PARTITION_ID, id))
		return -EMSGSIZE;
	for (i = 0; i < ports; i++)
		if (partition[i] == id && nla_put_u32(msg, ICN_A_PARTITION_PORT, i))
			return -EMSGSIZE;
	return 0;
}

/* Multicast a message built by @fill on @group (ICN_NLGRP_*) in init_net. */
static void m890_ntf(u8 cmd, unsigned int group,
		     int (*fill)(struct sk_buff *msg, const void *arg), const void *arg)
{
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&icn_nl_family, &init_net, group))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &icn_nl_family, 0, cmd);
	if (!hdr || fill(msg, arg)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&icn_nl_family, msg, 0, group, GFP_KERNEL);
}

static int m890_port_ntf_fill(struct sk_buff *msg, const void *arg)
{
	return m890_port_fill(msg, arg);
}

struct m890_route_arg {
	u32 fid;
	u64 entry;
};

static int m890_route_ntf_fill(struct sk_buff *msg, const void *arg)
{
	const struct m890_route_arg *r = arg;

	return m890_route_fill(msg, r->fid, r->entry);
}

static int m890_partition_ntf_fill(struct sk_buff *msg, const void *arg)
{
	u32 id = *(const u32 *)arg;

	return m890_partition_fill(msg, id, m890_seen.partition, M890_SW_PORTS);
}

/**
 * struct m890_fabric_err - contents of an error-ntf.
 * @kind: enum icn_error_kind.
 * @port: port (link-error, injected).
 * @inject_kind: enum icn_inject_kind (injected).
 * @inject_count: drops (injected drop), else 0.
 * @card: card whose queue stopped (fabric-fault).
 * @addr: VA of the refused access (fabric-fault).
 * @count: fabric faults merged (fabric-fault).
 */
struct m890_fabric_err {
	u32 kind;
	u32 port;
	u32 inject_kind;
	u64 inject_count;
	struct m890_device *card;
	u64 addr;
	u32 count;
};

static int m890_error_ntf_fill(struct sk_buff *msg, const void *arg)
{
	const struct m890_fabric_err *e = arg;

	if (nla_put_u32(msg, ICN_A_ERROR_KIND, e->kind))
		return -EMSGSIZE;
	switch (e->kind) {
	case ICN_ERROR_KIND_FABRIC_FAULT:
		if (m890_put_dev_name(msg, ICN_A_CARD_DEV_NAME, e->card) ||
		    nla_put_u32(msg, ICN_A_CARD_FABRIC_ID, e->card->fabric_id) ||
		    nla_put_u64_64bit(msg, ICN_A_ERROR_ADDR, e->addr, ICN_A_PAD) ||
		    nla_put_u32(msg, ICN_A_ERROR_COUNT, e->count))
			return -EMSGSIZE;
		return 0;
	case ICN_ERROR_KIND_INJECTED:
		if (nla_put_u32(msg, ICN_A_INJECT_KIND, e->inject_kind) ||
		    (e->inject_count &&
		     nla_put_u64_64bit(msg, ICN_A_INJECT_COUNT, e->inject_count, ICN_A_PAD)))
			return -EMSGSIZE;
		fallthrough;
	default:
		return nla_put_u32(msg, ICN_A_PORT_INDEX, e->port) ? -EMSGSIZE : 0;
	}
}

static void m890_error_ntf(const struct m890_fabric_err *e)
{
	m890_ntf(ICN_CMD_ERROR_NTF, ICN_NLGRP_ERRORS, m890_error_ntf_fill, e);
}

/* Announce @port unconditionally and record it as seen. */
static void m890_port_notify(const struct m890_port *port)
{
	lockdep_assert_held(&m890_fabric_lock);
	m890_seen.state[port->index] = port->w[M890_SW_PORT_STATE];
	m890_seen.partition[port->index] = port->w[M890_SW_PORT_PARTITION];
	m890_fabric_gen++;
	m890_ntf(ICN_CMD_PORT_NTF, ICN_NLGRP_CONFIG, m890_port_ntf_fill, port);
}

/* Partitions that exist given the seen port partitions. */
static u64 m890_parts_existing(void)
{
	u64 parts = m890_parts_defined | BIT_ULL(0);
	u32 i;

	for (i = 0; i < M890_SW_PORTS; i++)
		parts |= BIT_ULL(m890_seen.partition[i]);
	return parts;
}

/* Record every port and route without announcing anything. */
static void m890_fabric_snapshot(struct m890_device *mdev)
{
	struct m890_port port;
	u64 entry;
	u32 i;

	for (i = 0; i < M890_SW_PORTS; i++) {
		if (!m890_port_read(mdev, i, &port)) {
			m890_seen.state[i] = port.w[M890_SW_PORT_STATE];
			m890_seen.partition[i] = port.w[M890_SW_PORT_PARTITION] &
						 (M890_SW_PARTITIONS - 1);
		}
		if (!m890_route_read(mdev, i, &entry))
			m890_seen.route[i] = entry;
	}
	m890_seen.parts = m890_parts_existing();
	m890_seen.valid = true;
}

/*
 * Re-read every port and route of the switch and announce each one that
 * differs from what was announced last, then each partition whose
 * membership or existence changed.  The first call after the serving
 * card changed only records the state.
 */
static void m890_fabric_sync(struct m890_device *mdev)
{
	struct m890_fabric_err err = { .kind = ICN_ERROR_KIND_LINK_ERROR };
	u64 dirty_parts = 0, entry, parts;
	struct m890_route_arg r;
	struct m890_port port;
	u32 i, part, old_oper;

	lockdep_assert_held(&m890_fabric_lock);
	if (!m890_seen.valid) {
		m890_fabric_snapshot(mdev);
		return;
	}
	for (i = 0; i < M890_SW_PORTS; i++) {
		if (m890_port_read(mdev, i, &port))
			continue;
		part = port.w[M890_SW_PORT_PARTITION] & (M890_SW_PARTITIONS - 1);
		if (port.w[M890_SW_PORT_STATE] == m890_seen.state[i] &&
		    part == m890_seen.partition[i])
			continue;
		if (part != m890_seen.partition[i])
			dirty_parts |= BIT_ULL(part) | BIT_ULL(m890_seen.partition[i]);
		old_oper = M890_SW_STATE_OPER(m890_seen.state[i]);
		m890_port_notify(&port);
		if (m890_port_oper(&port) == M890_LINK_ERROR && old_oper != M890_LINK_ERROR) {
			err.port = i;
			m890_error_ntf(&err);
		}
	}
	for (i = 0; i < M890_SW_PORTS; i++) {
		if (m890_route_read(mdev, i, &entry) || entry == m890_seen.route[i])
			continue;
		m890_seen.route[i] = entry;
		m890_fabric_gen++;
		r.fid = i;
		r.entry = entry;
		m890_ntf(ICN_CMD_ROUTE_NTF, ICN_NLGRP_CONFIG, m890_route_ntf_fill, &r);
	}
	parts = m890_parts_existing();
	dirty_parts |= parts ^ m890_seen.parts;
	m890_seen.parts = parts;
	for (i = 0; i < M890_SW_PARTITIONS; i++) {
		if (!(dirty_parts & BIT_ULL(i)))
			continue;
		m890_fabric_gen++;
		m890_ntf(ICN_CMD_PARTITION_NTF, ICN_NLGRP_CONFIG, m890_partition_ntf_fill, &i);
	}
}

static struct m890_device *m890_fabric_dev_or_err(struct genl_info *info)
{
	struct m890_device *mdev = m890_fabric_dev();

	if (!mdev)
		GENL_SET_ERR_MSG(info, "no M890 card is attached to an ICN switch");
	return mdev;
}

/* Reply to @info with one object built by @fill; called with the lock held. */
static int m890_reply(struct genl_info *info, int (*fill)(struct sk_buff *msg, const void *arg),
		      const void *arg)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_iput(msg, info);
	if (!hdr || fill(msg, arg)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int m890_switch_fill(struct sk_buff *msg, const void *arg)
{
	const u64 *data = arg;

	if (nla_put_u32(msg, ICN_A_SWITCH_PORTS, data[0]) ||
	    nla_put_u32(msg, ICN_A_SWITCH_VERSION, data[1]) ||
	    nla_put_u32(msg, ICN_A_SWITCH_ID, data[2]))
		return -EMSGSIZE;
	return 0;
}

int icn_nl_switch_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct m890_device *mdev;
	u64 data[3];
	int ret;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_fabric_dev_or_err(info);
	ret = mdev ? m890_sw_cmd(mdev, M890_SW_OP_INFO, 0, 0, 0, data, 3) : -ENODEV;
	if (ret && mdev)
		GENL_SET_ERR_MSG(info, "switch INFO command failed");
	if (!ret)
		ret = m890_reply(info, m890_switch_fill, data);
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

int icn_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct m890_device *mdev;
	struct m890_port port;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_PORT_INDEX))
		return -EINVAL;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_fabric_dev_or_err(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	ret = m890_port_read(mdev, nla_get_u32(info->attrs[ICN_A_PORT_INDEX]), &port);
	if (ret) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[ICN_A_PORT_INDEX],
				    "switch cannot read this port");
		goto out;
	}
	ret = m890_reply(info, m890_port_ntf_fill, &port);
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

/* Start a dump message: the serving card, or -ENODEV with a message. */
static struct m890_device *m890_dump_dev(struct netlink_callback *cb)
{
	struct m890_device *mdev;

	lockdep_assert_held(&m890_fabric_lock);
	cb->seq = m890_fabric_gen;
	mdev = m890_fabric_dev();
	if (!mdev)
		NL_SET_ERR_MSG(cb->extack, "no M890 card is attached to an ICN switch");
	return mdev;
}

static void *m890_dump_put(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &icn_nl_family, NLM_F_MULTI, cmd);
	if (hdr)
		genl_dump_check_consistent(cb, hdr);
	return hdr;
}

int icn_nl_port_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct m890_device *mdev;
	struct m890_port port;
	u32 i, ports;
	void *hdr;
	int ret;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_dump_dev(cb);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	ret = m890_sw_ports(mdev, &ports);
	if (ret)
		goto out;
	for (i = cb->args[0]; i < ports; i++) {
		ret = m890_port_read(mdev, i, &port);
		if (ret)
			goto out;
		hdr = m890_dump_put(skb, cb, ICN_CMD_PORT_GET);
		if (!hdr)
			break;
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

/* Prepare a change: the serving card with the announced state recorded. */
static struct m890_device *m890_change_begin(struct genl_info *info)
{
	struct m890_device *mdev = m890_fabric_dev_or_err(info);

	if (mdev && !m890_seen.valid)
		m890_fabric_snapshot(mdev);
	return mdev;
}

/*
 * Report a refused switch command: @msg names what failed; -EPERM from the
 * switch means the card lacks management permission (spec §8.3).
 */
static int m890_sw_refused(struct genl_info *info, const struct nlattr *attr, int ret,
			   const char *msg)
{
	NL_SET_ERR_MSG_ATTR_FMT(info->extack, attr, "%s",
				ret == -EPERM ? "the switch denies management to this card" : msg);
	return ret;
}

int icn_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *index_attr = info->attrs[ICN_A_PORT_INDEX];
	struct nlattr *admin_attr = info->attrs[ICN_A_PORT_ADMIN_STATE];
	struct nlattr *speed_attr = info->attrs[ICN_A_PORT_SPEED];
	struct nlattr *part_attr = info->attrs[ICN_A_PORT_PARTITION];
	struct m890_device *mdev;
	struct m890_port port;
	u32 index, admin = 0, part = 0;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_PORT_INDEX))
		return -EINVAL;
	if (!admin_attr && !speed_attr && !part_attr) {
		NL_SET_ERR_MSG_ATTR(info->extack, index_attr,
				    "nothing to set: give an admin state, a speed or a partition");
		return -EINVAL;
	}
	index = nla_get_u32(index_attr);
	if (admin_attr) {
		admin = nla_get_u32(admin_attr);
		if (admin != ICN_PORT_STATE_DOWN && admin != ICN_PORT_STATE_UP) {
			NL_SET_ERR_MSG_ATTR(info->extack, admin_attr,
					    "admin state must be down or up");
			return -EINVAL;
		}
	}
	if (part_attr)
		part = nla_get_u32(part_attr);

	mutex_lock(&m890_fabric_lock);
	mdev = m890_change_begin(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	if (speed_attr) {
		ret = m890_port_read(mdev, index, &port);
		if (ret) {
			m890_sw_refused(info, index_attr, ret, "switch cannot read this port");
			goto out;
		}
		if (nla_get_u32(speed_attr) != port.w[M890_SW_PORT_SPEED]) {
			NL_SET_ERR_MSG_ATTR_FMT(info->extack, speed_attr,
						"this port runs at %llu Mbit/s only",
						port.w[M890_SW_PORT_SPEED]);
			ret = -EINVAL;
			goto out;
		}
	}
	if (admin_attr) {
		ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_SET_ADMIN, index,
				  admin == ICN_PORT_STATE_UP ? 1 : 0, 0, NULL, 0);
		if (ret) {
			m890_sw_refused(info, index_attr, ret, "switch refused the port change");
			goto sync;
		}
	}
	if (part_attr) {
		ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_SET_PARTITION, index, part, 0, NULL, 0);
		if (ret) {
			m890_sw_refused(info, part_attr, ret, "switch refused the partition");
			goto sync;
		}
		m890_parts_defined |= BIT_ULL(part);
	}
	ret = 0;
sync:
	m890_fabric_sync(mdev);
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

int icn_nl_port_clear_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *index_attr = info->attrs[ICN_A_PORT_INDEX];
	struct m890_device *mdev;
	struct m890_port port;
	u32 i, first, last, ports;
	int ret;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_change_begin(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	if (index_attr) {
		first = nla_get_u32(index_attr);
		last = first;
	} else {
		ret = m890_sw_ports(mdev, &ports);
		if (ret) {
			GENL_SET_ERR_MSG(info, "switch INFO command failed");
			goto out;
		}
		if (!ports)
			goto out;	/* no port: nothing to clear */
		first = 0;
		last = ports - 1;
	}
	for (i = first; i <= last; i++) {
		ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_CLEAR, i, 0, 0, NULL, 0);
		if (ret) {
			if (index_attr)
				m890_sw_refused(info, index_attr, ret,
						"switch refused to clear this port");
			else if (ret == -EPERM)
				GENL_SET_ERR_MSG(info, "the switch denies management to this card");
			else
				GENL_SET_ERR_MSG(info, "switch refused to clear the counters");
			goto out;
		}
		if (!m890_port_read(mdev, i, &port))
			m890_port_notify(&port);
	}
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

int icn_nl_port_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *index_attr = info->attrs[ICN_A_PORT_INDEX];
	struct m890_device *mdev;
	u32 index;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_PORT_INDEX))
		return -EINVAL;
	index = nla_get_u32(index_attr);

	mutex_lock(&m890_fabric_lock);
	mdev = m890_change_begin(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_SET_ADMIN, index, 0, 0, NULL, 0);
	if (!ret) {
		/* Announce the down state: the up state alone equals the old one. */
		m890_fabric_sync(mdev);
		ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_SET_ADMIN, index, 1, 0, NULL, 0);
	}
	if (ret)
		m890_sw_refused(info, index_attr, ret, "switch refused to reset this port");
	m890_fabric_sync(mdev);
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

int icn_nl_port_inject_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *index_attr = info->attrs[ICN_A_PORT_INDEX];
	struct nlattr *kind_attr = info->attrs[ICN_A_INJECT_KIND];
	struct nlattr *count_attr = info->attrs[ICN_A_INJECT_COUNT];
	struct m890_fabric_err err = { .kind = ICN_ERROR_KIND_INJECTED };
	struct m890_device *mdev;
	struct m890_port port;
	u32 hw_kind;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_PORT_INDEX) ||
	    GENL_REQ_ATTR_CHECK(info, ICN_A_INJECT_KIND))
		return -EINVAL;
	err.port = nla_get_u32(index_attr);
	err.inject_kind = nla_get_u32(kind_attr);
	switch (err.inject_kind) {
	case ICN_INJECT_KIND_CLEAR:
		hw_kind = M890_SW_INJECT_CLEAR;
		break;
	case ICN_INJECT_KIND_LINK_ERROR:
		hw_kind = M890_SW_INJECT_LINK_ERROR;
		break;
	default:	/* the policy admits nothing else */
		hw_kind = M890_SW_INJECT_DROP;
		if (!count_attr) {
			NL_SET_ERR_MSG_ATTR(info->extack, kind_attr,
					    "drop needs the number of transfers to drop");
			return -EINVAL;
		}
		err.inject_count = nla_get_u64(count_attr);
		break;
	}
	if (count_attr && hw_kind != M890_SW_INJECT_DROP) {
		NL_SET_ERR_MSG_ATTR(info->extack, count_attr,
				    "a count applies to drop injection only");
		return -EINVAL;
	}

	mutex_lock(&m890_fabric_lock);
	mdev = m890_change_begin(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	if (hw_kind == M890_SW_INJECT_LINK_ERROR) {
		ret = m890_port_read(mdev, err.port, &port);
		if (ret) {
			m890_sw_refused(info, index_attr, ret, "switch cannot read this port");
			goto out;
		}
		if (m890_port_oper(&port) != M890_LINK_UP) {
			NL_SET_ERR_MSG_ATTR(info->extack, index_attr,
					    "the port's link is not up, so it cannot fail");
			ret = -ENETDOWN;
			goto out;
		}
	}
	ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_INJECT, err.port, hw_kind,
			  err.inject_count, NULL, 0);
	if (ret) {
		m890_sw_refused(info, index_attr, ret, "switch refused the injection");
		goto out;
	}
	m890_error_ntf(&err);
	m890_fabric_sync(mdev);
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

int icn_nl_switch_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct m890_device *mdev;
	u32 i, ports;
	int ret;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_change_begin(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	ret = m890_sw_ports(mdev, &ports);
	if (ret) {
		GENL_SET_ERR_MSG(info, "switch INFO command failed");
		goto out;
	}
	for (i = 0; i < ports && !ret; i++) {
		ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_INJECT, i, M890_SW_INJECT_CLEAR,
				  0, NULL, 0);
		if (!ret)
			ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_SET_PARTITION, i, 0, 0, NULL, 0);
		if (!ret)
			ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_SET_ADMIN, i, 1, 0, NULL, 0);
		if (!ret)
			ret = m890_sw_cmd(mdev, M890_SW_OP_ROUTE_SET, i,
					  i | M890_SW_ROUTE_ENABLED, 0, NULL, 0);
	}
	if (ret) {
		if (ret == -EPERM)
			GENL_SET_ERR_MSG(info, "the switch denies management to this card");
		else
			GENL_SET_ERR_MSG_FMT(info, "switch refused to reset port %u", i - 1);
	} else {
		m890_parts_defined = BIT_ULL(0);
	}
	m890_fabric_sync(mdev);
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

int icn_nl_route_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *fid_attr = info->attrs[ICN_A_ROUTE_FABRIC_ID];
	struct m890_device *mdev;
	struct m890_route_arg r;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_ROUTE_FABRIC_ID))
		return -EINVAL;
	r.fid = nla_get_u32(fid_attr);

	mutex_lock(&m890_fabric_lock);
	mdev = m890_fabric_dev_or_err(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	ret = m890_route_read(mdev, r.fid, &r.entry);
	if (ret) {
		NL_SET_ERR_MSG_ATTR(info->extack, fid_attr, "switch cannot read this route");
		goto out;
	}
	ret = m890_reply(info, m890_route_ntf_fill, &r);
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

int icn_nl_route_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct m890_device *mdev;
	u32 fid, ports;
	u64 entry;
	void *hdr;
	int ret;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_dump_dev(cb);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	ret = m890_sw_ports(mdev, &ports);
	if (ret)
		goto out;
	for (fid = cb->args[0]; fid < ports; fid++) {
		ret = m890_route_read(mdev, fid, &entry);
		if (ret)
			goto out;
		hdr = m890_dump_put(skb, cb, ICN_CMD_ROUTE_GET);
		if (!hdr)
			break;
		if (m890_route_fill(skb, fid, entry)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = fid;
	ret = skb->len;
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

/*
 * Set the route of @fid to @entry, or only clear its enabled bit when
 * @disable; extack on @attr.
 */
static int m890_route_write(struct genl_info *info, const struct nlattr *attr, u32 fid,
			    u64 entry, bool disable)
{
	struct m890_device *mdev;
	int ret;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_change_begin(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	if (disable) {
		ret = m890_route_read(mdev, fid, &entry);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr, "switch cannot read this route");
			goto out;
		}
		entry &= ~M890_SW_ROUTE_ENABLED;
	}
	ret = m890_sw_cmd(mdev, M890_SW_OP_ROUTE_SET, fid, entry, 0, NULL, 0);
	if (ret)
		m890_sw_refused(info, attr, ret, "switch refused the route");
	m890_fabric_sync(mdev);
out:
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

int icn_nl_route_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *en_attr = info->attrs[ICN_A_ROUTE_ENABLED];
	u64 entry;

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_ROUTE_FABRIC_ID) ||
	    GENL_REQ_ATTR_CHECK(info, ICN_A_ROUTE_EGRESS_PORT))
		return -EINVAL;
	entry = nla_get_u32(info->attrs[ICN_A_ROUTE_EGRESS_PORT]);
	if (!en_attr || nla_get_u8(en_attr))
		entry |= M890_SW_ROUTE_ENABLED;
	return m890_route_write(info, info->attrs[ICN_A_ROUTE_EGRESS_PORT],
				nla_get_u32(info->attrs[ICN_A_ROUTE_FABRIC_ID]), entry, false);
}

int icn_nl_route_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, ICN_A_ROUTE_FABRIC_ID))
		return -EINVAL;
	return m890_route_write(info, info->attrs[ICN_A_ROUTE_FABRIC_ID],
				nla_get_u32(info->attrs[ICN_A_ROUTE_FABRIC_ID]), 0, true);
}

/*
 * Read every port's partition into @partition and return the partitions
 * that exist; the lock is held.
 */
static int m890_partitions_read(struct m890_device *mdev, u32 *partition, u32 *ports,
				u64 *exist)
{
	struct m890_port port;
	u32 i;
	int ret;

	ret = m890_sw_ports(mdev, ports);
	if (ret)
		return ret;
	*exist = m890_parts_defined | BIT_ULL(0);
	for (i = 0; i < *ports; i++) {
		ret = m890_port_read(mdev, i, &port);
		if (ret)
			return ret;
		partition[i] = port.w[M890_SW_PORT_PARTITION] & (M890_SW_PARTITIONS - 1);
		*exist |= BIT_ULL(partition[i]);
	}
	return 0;
}

struct m890_partition_arg {
	u32 id;
	u32 ports;
	u32 partition[M890_SW_PORTS];
};

static int m890_partition_reply_fill(struct sk_buff *msg, const void *arg)
{
	const struct m890_partition_arg *p = arg;

	return m890_partition_fill(msg, p->id, p->partition, p->ports);
}

int icn_nl_partition_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *id_attr = info->attrs[ICN_A_PARTITION_ID];
	struct m890_partition_arg *p;
	struct m890_device *mdev;
	u64 exist;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_PARTITION_ID))
		return -EINVAL;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->id = nla_get_u32(id_attr);

	mutex_lock(&m890_fabric_lock);
	mdev = m890_fabric_dev_or_err(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	ret = m890_partitions_read(mdev, p->partition, &p->ports, &exist);
	if (ret) {
		GENL_SET_ERR_MSG(info, "switch cannot read the ports");
		goto out;
	}
	if (!(exist & BIT_ULL(p->id))) {
		NL_SET_ERR_MSG_ATTR(info->extack, id_attr, "no such partition");
		ret = -ENOENT;
		goto out;
	}
	ret = m890_reply(info, m890_partition_reply_fill, p);
out:
	mutex_unlock(&m890_fabric_lock);
	kfree(p);
	return ret;
}

int icn_nl_partition_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct m890_device *mdev;
	u32 *partition;
	u32 id, ports;
	u64 exist;
	void *hdr;
	int ret;

	partition = kcalloc(M890_SW_PORTS, sizeof(*partition), GFP_KERNEL);
	if (!partition)
		return -ENOMEM;
	mutex_lock(&m890_fabric_lock);
	mdev = m890_dump_dev(cb);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	ret = m890_partitions_read(mdev, partition, &ports, &exist);
	if (ret)
		goto out;
	for (id = cb->args[0]; id < M890_SW_PARTITIONS; id++) {
		if (!(exist & BIT_ULL(id)))
			continue;
		hdr = m890_dump_put(skb, cb, ICN_CMD_PARTITION_GET);
		if (!hdr)
			break;
		if (m890_partition_fill(skb, id, partition, ports)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = id;
	ret = skb->len;
out:
	mutex_unlock(&m890_fabric_lock);
	kfree(partition);
	return ret;
}

/* The PARTITION_PORT attributes of a request as a port bitmap. */
static u64 m890_request_ports(struct genl_info *info)
{
	const struct nlattr *a;
	u64 ports = 0;
	int rem;

	nla_for_each_attr_type(a, ICN_A_PARTITION_PORT, genlmsg_data(info->genlhdr),
			       genlmsg_len(info->genlhdr), rem)
		ports |= BIT_ULL(nla_get_u32(a));
	return ports;
}

enum m890_part_op { M890_PART_ADD, M890_PART_SET, M890_PART_DEL };

/*
 * The request of a partition change: its partition @id and the ports it
 * names, checked against each other before the switch is asked.
 */
static int m890_partition_request(struct genl_info *info, enum m890_part_op op,
				  u32 *id, u64 *members)
{
	struct nlattr *id_attr = info->attrs[ICN_A_PARTITION_ID];

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_PARTITION_ID))
		return -EINVAL;
	*id = nla_get_u32(id_attr);
	*members = m890_request_ports(info);
	if (*id == 0 && op != M890_PART_ADD) {
		NL_SET_ERR_MSG_ATTR(info->extack, id_attr,
				    "partition 0 holds the ports of no other partition; it cannot be set or deleted");
		return -EINVAL;
	}
	if (op == M890_PART_SET && !*members) {
		NL_SET_ERR_MSG_ATTR(info->extack, id_attr,
				    "give at least one port (delete the partition to empty it)");
		return -EINVAL;
	}
	return 0;
}

/*
 * The request against the switch's partitions @p and the defined ones
 * @exist: ADD needs a new @id, SET and DEL an existing one, and every
 * member must be a port of the switch.
 */
static int m890_partition_check(struct genl_info *info, enum m890_part_op op,
				u32 id, u64 members, const struct m890_partition_arg *p,
				u64 exist)
{
	struct nlattr *id_attr = info->attrs[ICN_A_PARTITION_ID];

	if (op == M890_PART_ADD && (exist & BIT_ULL(id))) {
		NL_SET_ERR_MSG_ATTR(info->extack, id_attr, "the partition exists already");
		return -EEXIST;
	}
	if (op != M890_PART_ADD && !(exist & BIT_ULL(id))) {
		NL_SET_ERR_MSG_ATTR(info->extack, id_attr, "no such partition");
		return -ENOENT;
	}
	if (p->ports < M890_SW_PORTS && (members >> p->ports)) {
		GENL_SET_ERR_MSG_FMT(info, "the switch has %u ports only", p->ports);
		return -ERANGE;
	}
	return 0;
}

/*
 * Move the ports whose partition @op changes, one switch command each:
 * @members into @id (ADD, SET), the other members of @id into 0 (SET,
 * DEL).  Stops at the first port the switch refuses.
 */
static int m890_partition_move(struct m890_device *mdev, struct genl_info *info,
			       enum m890_part_op op, u32 id, u64 members,
			       const struct m890_partition_arg *p)
{
	u32 i, to;
	int ret;

	lockdep_assert_held(&m890_fabric_lock);
	for (i = 0; i < p->ports; i++) {
		if (op != M890_PART_DEL && (members & BIT_ULL(i)))
			to = id;
		else if (op != M890_PART_ADD && p->partition[i] == id)
			to = 0;
		else
			continue;
		if (p->partition[i] == to)
			continue;
		ret = m890_sw_cmd(mdev, M890_SW_OP_PORT_SET_PARTITION, i, to, 0, NULL, 0);
		if (ret) {
			if (ret == -EPERM)
				GENL_SET_ERR_MSG(info, "the switch denies management to this card");
			else
				GENL_SET_ERR_MSG_FMT(info, "switch refused to move port %u", i);
			return ret;
		}
	}
	return 0;
}

/*
 * The partition changes: ADD defines @id and moves @members in; SET moves
 * @members in and every other member of @id to 0; DEL moves every member
 * to 0 and forgets @id.
 */
static int m890_partition_change(struct genl_info *info, enum m890_part_op op)
{
	struct m890_partition_arg *p;
	struct m890_device *mdev;
	u64 members, exist;
	u32 id;
	int ret;

	ret = m890_partition_request(info, op, &id, &members);
	if (ret)
		return ret;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_change_begin(info);
	if (!mdev) {
		ret = -ENODEV;
		goto out;
	}
	ret = m890_partitions_read(mdev, p->partition, &p->ports, &exist);
	if (ret) {
		GENL_SET_ERR_MSG(info, "switch cannot read the ports");
		goto out;
	}
	ret = m890_partition_check(info, op, id, members, p, exist);
	if (ret)
		goto out;
	if (op == M890_PART_ADD)
		m890_parts_defined |= BIT_ULL(id);
	ret = m890_partition_move(mdev, info, op, id, members, p);
	if (!ret && op == M890_PART_DEL)
		m890_parts_defined &= ~BIT_ULL(id);
	/* Also announces an empty partition that was added or deleted. */
	m890_fabric_sync(mdev);
out:
	mutex_unlock(&m890_fabric_lock);
	kfree(p);
	return ret;
}

int icn_nl_partition_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	return m890_partition_change(info, M890_PART_ADD);
}

int icn_nl_partition_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	return m890_partition_change(info, M890_PART_SET);
}

int icn_nl_partition_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return m890_partition_change(info, M890_PART_DEL);
}

static int m890_card_fill(struct sk_buff *msg, const void *arg)
{
	struct m890_device *mdev = (struct m890_device *)arg;

	if (m890_put_dev_name(msg, ICN_A_CARD_DEV_NAME, mdev) ||
	    nla_put_u32(msg, ICN_A_CARD_FABRIC_ID, mdev->fabric_id) ||
	    nla_put_u32(msg, ICN_A_CARD_PORT, mdev->fabric_port) ||
	    nla_put_u64_64bit(msg, ICN_A_CARD_HBM_SIZE, mdev->hbm_size, ICN_A_PAD) ||
	    nla_put_string(msg, ICN_A_CARD_BUS_NAME, pci_name(mdev->pdev)))
		return -EMSGSIZE;
	return 0;
}

int icn_nl_card_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *id_attr = info->attrs[ICN_A_CARD_FABRIC_ID];
	struct m890_device *mdev;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, ICN_A_CARD_FABRIC_ID))
		return -EINVAL;

	mutex_lock(&m890_fabric_lock);
	mdev = m890_card_find(nla_get_u32(id_attr));
	if (!mdev) {
		NL_SET_ERR_MSG_ATTR(info->extack, id_attr,
				    "no card of this system has this fabric id");
		ret = -ENOENT;
	} else {
		ret = m890_reply(info, m890_card_fill, mdev);
	}
	mutex_unlock(&m890_fabric_lock);
	return ret;
}

int icn_nl_card_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
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
		hdr = m890_dump_put(skb, cb, ICN_CMD_CARD_GET);
		if (!hdr)
			break;
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

/* Announce the fabric faults of @mdev not yet announced; the lock is held. */
static void m890_fabric_fault_ntf(struct m890_device *mdev)
{
	struct m890_fabric_err err = { .kind = ICN_ERROR_KIND_FABRIC_FAULT, .card = mdev };

	lockdep_assert_held(&m890_fabric_lock);
	err.count = atomic_xchg(&mdev->fabric_faults, 0);
	if (!err.count)
		return;
	err.addr = READ_ONCE(mdev->fabric_fault_addr);
	m890_error_ntf(&err);
}

/**
 * m890_fabric_work() - announce fabric faults and switch changes.
 * @work: &m890_device.fabric_work.
 */
void m890_fabric_work(struct work_struct *work)
{
	struct m890_device *mdev = container_of(work, struct m890_device, fabric_work);

	mutex_lock(&m890_fabric_lock);
	m890_fabric_fault_ntf(mdev);
	if (m890_fabric_dev() == mdev)
		m890_fabric_sync(mdev);
	mutex_unlock(&m890_fabric_lock);
}

/**
 * m890_netlink_forget() - the serving card is going away: the next sync
 * through another card only records the state it finds.
 *
 * Context: m890_fabric_lock held.
 */
void m890_netlink_forget(void)
{
	lockdep_assert_held(&m890_fabric_lock);
	m890_seen.valid = false;
}

/**
 * m890_fabric_init() - register the "icn" generic netlink family.
 *
 * Return: 0 or a negative errno.
 */
int m890_fabric_init(void)
{
	return genl_register_family(&icn_nl_family);
}

/**
 * m890_fabric_fini() - unregister the family.
 */
void m890_fabric_fini(void)
{
	genl_unregister_family(&icn_nl_family);
}
