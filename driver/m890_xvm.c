// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: exports and windows across VMs
 *
 * A dma-buf cannot travel between VMs, so a card of another VM reaches an
 * HBM BO through switch state instead (hardware spec §8.7):
 *
 * - DRM_M890_FABRIC_EXPORT gives the BO a free export slot of its card
 *   (EXPORT_ADD) under a 64-bit key, random (get_random_u64()) unless a
 *   caller with CAP_SYS_ADMIN names one (DRM_M890_EXPORT_KEY).  The key is
 *   the only credential an importer in another VM presents, so it must be
 *   unguessable: an unprivileged caller gets the driver's random key and
 *   hands it to its peers itself.  A chosen key could be predicted, and
 *   an export under a key a victim's peers are about to import would hand
 *   them the attacker's memory, so only trusted (privileged) software,
 *   which derives its keys from a random secret, may choose.
 *   The slot is released by DRM_M890_FABRIC_REVOKE or when the BO is
 *   freed (EXPORT_DEL, which also revokes every window opened on it),
 *   before its HBM range can be given to another BO.
 * - DRM_M890_FABRIC_IMPORT asks the switch for a window on the export with
 *   that key on the card with that fabric id (WINDOW_OPEN), then builds a
 *   peer window BO over the export's range with the same PEER PTEs a
 *   dma-buf import uses (m890_p2p.c), mapped into the caller's context
 *   before its handle exists.  Freeing that BO unmaps it, invalidates the
 *   TLB and then closes the window (WINDOW_CLOSE).
 *
 * The switch keeps one window per (issuing card, export), however often it
 * is opened, so the driver counts the window BOs of a card per export
 * (&struct m890_xvm_win) and closes the window with the last of them.  When
 * an export is revoked and its slot reused, the switch has already dropped
 * the old window; the old count is then marked stale and never closes the
 * new window.
 *
 * Switch state survives a driver reload, so probe deletes every export of
 * the card left over from an earlier driver instance.  Windows the card
 * opened then cannot be named; they only grant access and close when the
 * owner revokes the export or leaves the switch.
 *
 * Importing an export of a card of this VM uses the same path, but the
 * switch checks windows only between trust domains (VMs): within one VM it
 * would let a window outlive its export and reach HBM the owner has since
 * given to another BO.  So a window on a card of this system is also
 * listed with the owner card (m890_device.xvm_local), after its PTEs are
 * in place and only if the export is still there; revoking the export
 * clears the PTEs of those windows and invalidates their TLBs, so an
 * access through them faults (NOT_PRESENT) as one from another VM does
 * (FABRIC).
 *
 * A window BO can have handles in several files (GEM open of a flink
 * name): each such file gets its own mapping (m890_bo_open()), and a
 * revoke clears all of them and marks the window revoked, so no file
 * keeps reaching HBM the owner has since given to another BO.
 *
 * Locking: m890_device.xvm_lock protects the export slot bitmap, the
 * window counts, the local windows on the card's exports and the export
 * state of the card's BOs; it is taken before m890_device.sw_lock (inside
 * m890_sw_cmd()), before a window's map_lock and a context's lock
 * (clearing PTEs).  Two cards' xvm_locks are never held together.
 */

#include <linux/capability.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>

#include "m890_drv.h"
#include "m890_fabric.h"
#include "m890_gem.h"
#include "m890_xvm.h"

/**
 * struct m890_xvm_win - windows of one card on one export.
 * @link: entry in m890_device.xvm_windows.
 * @fabric_id: owner's fabric id.
 * @slot: owner's export slot.
 * @key: export key the window was opened with.
 * @users: window BOs using it; the window closes when it drops to 0.
 * @stale: the switch dropped this window (the slot now holds another
 *         export): closing must not touch the switch.
 */
struct m890_xvm_win {
	struct list_head link;
	u32 fabric_id;
	u32 slot;
	u64 key;
	unsigned int users;
	bool stale;
};

static u64 m890_range_bytes(u64 range)
{
	return (range >> M890_SW_RANGE_PAGES_SHIFT) << M890_SW_RANGE_PAGE_SHIFT;
}

static u64 m890_range_offset(u64 range)
{
	return (range & M890_SW_RANGE_OFFSET_MASK) << M890_SW_RANGE_PAGE_SHIFT;
}

/**
 * m890_xvm_init() - forget exports left in the switch by an earlier driver.
 * @mdev: device being probed, attached to a switch or not, before its
 *        node is registered.
 */
void m890_xvm_init(struct m890_device *mdev)
{
	u32 slot;

	if (mdev->fabric_id == M890_FABRIC_ID_NONE)
		return;
	/* ENOENT for free slots; EINVAL on a switch without exports. */
	for (slot = 0; slot < M890_SW_EXPORTS; slot++)
		if (m890_sw_cmd(mdev, M890_SW_OP_EXPORT_DEL, slot, 0, 0, NULL, 0) == -EINVAL)
			break;
}

/*
 * Revoke the windows of this system on export @slot (every slot if @all):
 * their PTEs go in every file that has a handle to them, not only in the
 * importer's (m890_bo_revoke()).
 */
static void m890_xvm_zap_local(struct m890_device *mdev, u32 slot, bool all)
{
	struct m890_bo *win, *tmp;

	lockdep_assert_held(&mdev->xvm_lock);
	list_for_each_entry_safe(win, tmp, &mdev->xvm_local, window_link) {
		if (!all && win->window_slot != slot)
			continue;
		list_del_init(&win->window_link);
		m890_bo_revoke(win);
	}
}

/**
 * m890_xvm_fini() - the driver lets go of a card: revoke its exports.
 * @mdev: device being removed or unbound, still reachable.
 *
 * Its HBM may be given to other BOs by the next driver instance while
 * BOs of this one are still referenced, so nothing may reach it through
 * an export of this instance: every export is deleted from the switch and
 * every window of this system on them loses its PTEs now.  The BOs keep
 * their bookkeeping until they are freed.
 */
void m890_xvm_fini(struct m890_device *mdev)
{
	u32 slot;

	mutex_lock(&mdev->xvm_lock);
	m890_xvm_zap_local(mdev, 0, true);
	for_each_set_bit(slot, mdev->xvm_exports, M890_SW_EXPORTS)
		m890_sw_cmd(mdev, M890_SW_OP_EXPORT_DEL, slot, 0, 0, NULL, 0);
	mutex_unlock(&mdev->xvm_lock);
}

/* Withdraw @bo's export; the caller holds xvm_lock. */
static void m890_xvm_revoke_locked(struct m890_device *mdev, struct m890_bo *bo)
{
	int ret;

	lockdep_assert_held(&mdev->xvm_lock);
	/* Windows of this system: no access after the revoke either. */
	m890_xvm_zap_local(mdev, bo->export_slot, false);
	mdev->xvm_slot_bo[bo->export_slot] = NULL;
	ret = m890_sw_cmd(mdev, M890_SW_OP_EXPORT_DEL, bo->export_slot, 0, 0, NULL, 0);
	/* -ENODEV: the card left the switch, which dropped its exports. */
	if (ret && ret != -ENODEV && ret != -ENOENT)
		drm_err(&mdev->drm, "export slot %u: EXPORT_DEL failed: %d\n",
			bo->export_slot, ret);
	clear_bit(bo->export_slot, mdev->xvm_exports);
	bo->exported = false;
}

/**
 * m890_xvm_bo_free() - revoke the export of an HBM BO being freed.
 * @bo: HBM BO whose last reference is gone, before its HBM range is.
 */
void m890_xvm_bo_free(struct m890_bo *bo)
{
	struct m890_device *mdev = to_m890(bo->shmem.base.dev);

	mutex_lock(&mdev->xvm_lock);
	if (bo->exported)
		m890_xvm_revoke_locked(mdev, bo);
	mutex_unlock(&mdev->xvm_lock);
}

/**
 * m890_fabric_export_ioctl() - DRM_IOCTL_M890_FABRIC_EXPORT.
 * @dev: DRM device.
 * @data: struct drm_m890_fabric_export.
 * @file: caller.
 *
 * Return: 0 or a negative errno (see the uAPI header).
 */
int m890_fabric_export_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct m890_device *mdev = to_m890(dev);
	struct drm_m890_fabric_export *args = data;
	struct drm_gem_object *obj;
	struct m890_bo *bo;
	u64 key, range;
	u32 slot;
	int ret;

	if (args->flags & ~DRM_M890_EXPORT_KEY)
		return -EINVAL;
	if ((args->flags & DRM_M890_EXPORT_KEY) && !args->key)
		return -EINVAL;
	/* A chosen key is a credential others can predict: privileged only. */
	if ((args->flags & DRM_M890_EXPORT_KEY) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	bo = to_m890_bo(obj);
	if (bo->kind != M890_BO_KIND_HBM) {
		ret = -EINVAL;
		goto out_put;
	}
	if (mdev->fabric_id == M890_FABRIC_ID_NONE) {
		ret = -ENODEV;
		goto out_put;
	}
	range = (bo->hbm_node.start >> M890_SW_RANGE_PAGE_SHIFT) |
		(obj->size >> M890_SW_RANGE_PAGE_SHIFT) << M890_SW_RANGE_PAGES_SHIFT;

	mutex_lock(&mdev->xvm_lock);
	if (bo->exported) {
		ret = -EEXIST;
		goto out_unlock;
	}
	slot = find_first_zero_bit(mdev->xvm_exports, M890_SW_EXPORTS);
	if (slot >= M890_SW_EXPORTS) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	if (args->flags & DRM_M890_EXPORT_KEY) {
		key = args->key;
	} else {
		do {
			key = get_random_u64();
		} while (!key);
	}
	ret = m890_sw_cmd(mdev, M890_SW_OP_EXPORT_ADD, slot, key, range, NULL, 0);
	if (ret == -EBUSY)
		ret = -EEXIST;	/* the slot is ours: another export has the key */
	if (ret)
		goto out_unlock;
	set_bit(slot, mdev->xvm_exports);
	mdev->xvm_slot_bo[slot] = bo;
	bo->exported = true;
	bo->export_slot = slot;
	bo->export_key = key;
	args->key = key;
	args->fabric_id = mdev->fabric_id;
	args->slot = slot;
	m890_dbg(mdev, "export slot %u: HBM 0x%llx + 0x%zx\n", slot, bo->hbm_node.start,
		 obj->size);
out_unlock:
	mutex_unlock(&mdev->xvm_lock);
out_put:
	drm_gem_object_put(obj);
	return ret;
}

/**
 * m890_fabric_revoke_ioctl() - DRM_IOCTL_M890_FABRIC_REVOKE.
 * @dev: DRM device.
 * @data: struct drm_m890_fabric_revoke.
 * @file: caller.
 *
 * Return: 0, -EINVAL non-zero flags, -ENOENT unknown handle or not exported.
 */
int m890_fabric_revoke_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct m890_device *mdev = to_m890(dev);
	struct drm_m890_fabric_revoke *args = data;
	struct drm_gem_object *obj;
	struct m890_bo *bo;
	int ret = 0;

	if (args->flags)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	bo = to_m890_bo(obj);
	mutex_lock(&mdev->xvm_lock);
	if (bo->kind == M890_BO_KIND_HBM && bo->exported)
		m890_xvm_revoke_locked(mdev, bo);
	else
		ret = -ENOENT;
	mutex_unlock(&mdev->xvm_lock);
	drm_gem_object_put(obj);
	return ret;
}

/*
 * Count one more window BO on export @slot of @fabric_id opened with @key;
 * the caller holds xvm_lock and has just opened the window.
 */
static struct m890_xvm_win *m890_xvm_win_get(struct m890_device *mdev, u32 fabric_id,
					     u32 slot, u64 key)
{
	struct m890_xvm_win *win;

	lockdep_assert_held(&mdev->xvm_lock);
	list_for_each_entry(win, &mdev->xvm_windows, link) {
		if (win->stale || win->fabric_id != fabric_id || win->slot != slot)
			continue;
		if (win->key == key) {
			win->users++;
			return win;
		}
		/* The export was revoked and its slot reused. */
		win->stale = true;
	}
	win = kzalloc(sizeof(*win), GFP_KERNEL);
	if (!win)
		return NULL;
	win->fabric_id = fabric_id;
	win->slot = slot;
	win->key = key;
	win->users = 1;
	list_add_tail(&win->link, &mdev->xvm_windows);
	return win;
}

/* Drop one window BO of @win; the last one closes the window. */
static void m890_xvm_win_put(struct m890_device *mdev, struct m890_xvm_win *win)
{
	int ret;

	lockdep_assert_held(&mdev->xvm_lock);
	if (--win->users)
		return;
	if (!win->stale) {
		ret = m890_sw_cmd(mdev, M890_SW_OP_WINDOW_CLOSE, win->fabric_id, win->slot,
				  0, NULL, 0);
		/* -ENOENT: the owner revoked it or left; -ENODEV: we did. */
		if (ret && ret != -ENOENT && ret != -ENODEV)
			drm_err(&mdev->drm, "window on %u/%u: WINDOW_CLOSE failed: %d\n",
				win->fabric_id, win->slot, ret);
	}
	list_del(&win->link);
	kfree(win);
}

/*
 * List window @bo (mapped) with its owner @owner, a card of this system,
 * if export @slot still has @key; else -ENOENT (it was revoked meanwhile).
 */
static int m890_xvm_local_add(struct m890_device *owner, struct m890_bo *bo, u32 slot, u64 key)
{
	struct m890_bo *exp;
	int ret = -ENOENT;

	mutex_lock(&owner->xvm_lock);
	exp = owner->xvm_slot_bo[slot];
	if (exp && exp->export_key == key) {
		list_add_tail(&bo->window_link, &owner->xvm_local);
		ret = 0;
	}
	mutex_unlock(&owner->xvm_lock);
	return ret;
}

static void m890_window_free(struct drm_gem_object *obj)
{
	struct m890_device *mdev = to_m890(obj->dev);
	struct m890_bo *bo = to_m890_bo(obj);
	struct m890_device *owner = bo->window_owner;

	if (owner) {
		mutex_lock(&owner->xvm_lock);
		list_del(&bo->window_link);
		mutex_unlock(&owner->xvm_lock);
		drm_dev_put(&owner->drm);
	}
	/* PTEs cleared and the TLB invalidated before the grant goes. */
	m890_bo_unmap(bo);
	mutex_lock(&mdev->xvm_lock);
	m890_xvm_win_put(mdev, bo->window);
	mutex_unlock(&mdev->xvm_lock);
	drm_gem_object_release(obj);
	kfree(bo);
}

static struct dma_buf *m890_window_export(struct drm_gem_object *obj, int flags)
{
	/* A window belongs to the card that opened it. */
	return ERR_PTR(-EOPNOTSUPP);
}

static const struct drm_gem_object_funcs m890_window_funcs = {
	.free = m890_window_free,
	.open = m890_bo_open,
	.close = m890_bo_close,
	.export = m890_window_export,
};

/*
 * WINDOW_OPEN of export @key on card @fabric_id through @mdev: returns the
 * card's count of windows on it (a reference) with the range word and
 * slot in @res, or an ERR_PTR: the switch's refusal, -EIO for an answer
 * the switch cannot have given, -ENOMEM.  On error the window is closed.
 */
static struct m890_xvm_win *m890_window_open(struct m890_device *mdev, u32 fabric_id,
					     u64 key, u64 *res)
{
	struct m890_xvm_win *win;
	int ret;

	mutex_lock(&mdev->xvm_lock);
	ret = m890_sw_cmd(mdev, M890_SW_OP_WINDOW_OPEN, fabric_id, key, 0, res, 2);
	if (ret) {
		mutex_unlock(&mdev->xvm_lock);
		return ERR_PTR(ret);
	}
	if (!m890_range_bytes(res[0]) || m890_range_bytes(res[0]) > M890_VA_SIZE ||
	    res[1] >= M890_SW_EXPORTS) {
		/* Not something the switch can have accepted. */
		drm_err(&mdev->drm, "WINDOW_OPEN on %u: bad range 0x%llx or slot %llu\n",
			fabric_id, res[0], res[1]);
		ret = -EIO;
		goto out_close;
	}
	win = m890_xvm_win_get(mdev, fabric_id, res[1], key);
	if (!win) {
		ret = -ENOMEM;
		goto out_close;
	}
	mutex_unlock(&mdev->xvm_lock);
	return win;

out_close:
	if (res[1] < M890_SW_EXPORTS)
		m890_sw_cmd(mdev, M890_SW_OP_WINDOW_CLOSE, fabric_id, res[1], 0, NULL, 0);
	mutex_unlock(&mdev->xvm_lock);
	return ERR_PTR(ret);
}

/**
 * m890_fabric_import_ioctl() - DRM_IOCTL_M890_FABRIC_IMPORT.
 * @dev: DRM device.
 * @data: struct drm_m890_fabric_import.
 * @file: caller.
 *
 * Return: 0 or a negative errno (see the uAPI header).
 */
int m890_fabric_import_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct m890_device *mdev = to_m890(dev);
	struct m890_file *mfile = file->driver_priv;
	struct drm_m890_fabric_import *args = data;
	struct drm_gem_object *obj;
	struct m890_xvm_win *win;
	struct m890_bo *bo;
	u64 res[2], size;
	u32 handle;
	int ret;

	if (args->flags || args->pad || args->fabric_id >= M890_SW_PORTS)
		return -EINVAL;
	if (mdev->fabric_id == M890_FABRIC_ID_NONE)
		return -ENODEV;
	if (!args->key)
		return -ENOENT;	/* no export has key 0 */

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return -ENOMEM;
	win = m890_window_open(mdev, args->fabric_id, args->key, res);
	if (IS_ERR(win)) {
		kfree(bo);
		return PTR_ERR(win);
	}
	size = m890_range_bytes(res[0]);

	/* From here m890_window_free() undoes everything. */
	m890_bo_init(bo, M890_BO_KIND_PEER);
	INIT_LIST_HEAD(&bo->window_link);
	bo->peer_offset = m890_range_offset(res[0]);
	bo->peer_fabric_id = args->fabric_id;
	bo->window = win;
	bo->window_slot = res[1];
	bo->window_owner = m890_fabric_card_get(args->fabric_id);
	obj = &bo->shmem.base;
	obj->funcs = &m890_window_funcs;
	drm_gem_private_object_init(dev, obj, size);

	mutex_lock(&bo->map_lock);
	ret = m890_bo_map(bo, mfile->ctx);
	mutex_unlock(&bo->map_lock);
	if (!ret && bo->window_owner)
		ret = m890_xvm_local_add(bo->window_owner, bo, res[1], args->key);
	if (ret)
		goto out_put;
	ret = drm_gem_handle_create(file, obj, &handle);
	if (ret)
		goto out_put;
	args->handle = handle;
	args->size = size;
	args->va = bo->va_node.start;
	m890_dbg(mdev, "window on %u/%llu: 0x%llx bytes at VA 0x%llx\n", args->fabric_id,
		 res[1], size, args->va);
out_put:
	/* The handle, if any, holds the object from here on. */
	drm_gem_object_put(obj);
	return ret;
}
