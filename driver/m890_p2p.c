// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: dma-buf export and peer windows
 *
 * M890 BOs are exported with the driver's own &dma_buf_ops so an importing
 * M890 can recognise them.  Importing on the exporting device returns the
 * same GEM object.  Importing an HBM BO on another M890 creates a "peer
 * window": a BO without backing store whose PTEs (TARGET_PEER, the
 * exporter's fabric id, the HBM offset) make the importing card reach the
 * exporter's HBM through the ICN fabric.  Both cards must be in the same
 * switch partition when the window is created (-EPERM otherwise); the
 * switch checks every access again, so moving a card to another
 * partition later makes its existing windows fault.  No PCI peer-to-peer DMA is
 * involved, so other drivers cannot attach to HBM dma-bufs, and dma-bufs
 * from other drivers are refused with -EOPNOTSUPP.
 *
 * A peer window holds a reference on the exporter's dma-buf, which keeps
 * the exporter's BO (and its HBM range) allocated.  The window is mapped
 * into the address space of the first file that gets a handle to it.
 *
 * That reservation only lives as long as the exporter's driver instance:
 * once the exporter is removed (unbind, hot-unplug, module unload), a new
 * instance on the same card, or a new card on the same switch port, starts
 * with a fresh HBM allocator and hands the same ranges to other clients.
 * So removal revokes every window into the card (m890_p2p_revoke(), the
 * role dma-buf's move_notify/revoke plays for other drivers): their PEER
 * PTEs are cleared and the importers' TLBs invalidated before remove
 * returns, so a later access through a window faults (NOT_PRESENT) on the
 * importing card and fails that job; the window's handle and VA range stay
 * until the importer closes them, and the window is never mapped again.
 *
 * Importing on the exporting device returns the BO itself; a file other
 * than the creator then gets its own mapping of it (m890_bo_open()).
 */

#include <linux/dma-buf.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>

#include "m890_drv.h"
#include "m890_fabric.h"
#include "m890_gem.h"
#include "m890_p2p.h"

/* Live peer windows of every card, for m890_p2p_revoke(). */
static DEFINE_MUTEX(m890_peer_lock);
static LIST_HEAD(m890_peer_windows);

static int m890_hbm_attach(struct dma_buf *buf, struct dma_buf_attachment *attach)
{
	return -EOPNOTSUPP;
}

static struct sg_table *m890_hbm_map_dma_buf(struct dma_buf_attachment *attach,
					     enum dma_data_direction dir)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static void m890_hbm_unmap_dma_buf(struct dma_buf_attachment *attach,
				   struct sg_table *sgt, enum dma_data_direction dir)
{
}

static const struct dma_buf_ops m890_hbm_dmabuf_ops = {
	.attach = m890_hbm_attach,
	.map_dma_buf = m890_hbm_map_dma_buf,
	.unmap_dma_buf = m890_hbm_unmap_dma_buf,
	.release = drm_gem_dmabuf_release,
	.mmap = drm_gem_dmabuf_mmap,
};

static const struct dma_buf_ops m890_host_dmabuf_ops = {
	.cache_sgt_mapping = true,
	.attach = drm_gem_map_attach,
	.detach = drm_gem_map_detach,
	.map_dma_buf = drm_gem_map_dma_buf,
	.unmap_dma_buf = drm_gem_unmap_dma_buf,
	.release = drm_gem_dmabuf_release,
	.mmap = drm_gem_dmabuf_mmap,
	.vmap = drm_gem_dmabuf_vmap,
	.vunmap = drm_gem_dmabuf_vunmap,
};

static struct dma_buf *m890_export(struct drm_gem_object *obj, int flags,
				   const struct dma_buf_ops *ops)
{
	struct dma_buf_export_info exp_info = {
		.exp_name = M890_DRIVER_NAME,
		.owner = obj->dev->driver->fops->owner,
		.ops = ops,
		.size = obj->size,
		.flags = flags,
		.priv = obj,
		.resv = obj->resv,
	};

	return drm_gem_dmabuf_export(obj->dev, &exp_info);
}

/**
 * m890_hbm_export() - &drm_gem_object_funcs.export for HBM BOs.
 * @obj: HBM BO.
 * @flags: dma-buf file flags.
 *
 * Return: the dma-buf or an ERR_PTR.
 */
struct dma_buf *m890_hbm_export(struct drm_gem_object *obj, int flags)
{
	return m890_export(obj, flags, &m890_hbm_dmabuf_ops);
}

/**
 * m890_host_export() - &drm_gem_object_funcs.export for host BOs.
 * @obj: host BO.
 * @flags: dma-buf file flags.
 *
 * Return: the dma-buf or an ERR_PTR.
 */
struct dma_buf *m890_host_export(struct drm_gem_object *obj, int flags)
{
	return m890_export(obj, flags, &m890_host_dmabuf_ops);
}

static void m890_peer_free(struct drm_gem_object *obj)
{
	struct m890_bo *bo = to_m890_bo(obj);

	mutex_lock(&m890_peer_lock);
	list_del(&bo->peer_link);
	mutex_unlock(&m890_peer_lock);
	m890_bo_unmap(bo);
	/* The window held the exporter's BO through its dma-buf. */
	dma_buf_put(bo->peer_buf);
	drm_gem_object_release(obj);
	kfree(bo);
}

const struct drm_gem_object_funcs m890_peer_funcs = {
	.free = m890_peer_free,
	.open = m890_bo_open,
	.close = m890_bo_close,
};

static struct drm_gem_object *m890_peer_create(struct m890_device *mdev,
					       struct drm_gem_object *src_obj,
					       struct dma_buf *buf)
{
	struct m890_device *src = to_m890(src_obj->dev);
	struct m890_bo *sbo = to_m890_bo(src_obj);
	struct drm_gem_object *obj;
	struct m890_bo *bo;
	int idx, ret;

	if (sbo->kind != M890_BO_KIND_HBM)
		return ERR_PTR(-EOPNOTSUPP);
	ret = m890_fabric_peer_check(mdev, src);
	if (ret)
		return ERR_PTR(ret);

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	m890_bo_init(bo, M890_BO_KIND_PEER);
	bo->peer_offset = sbo->hbm_node.start;
	bo->peer_fabric_id = src->fabric_id;
	bo->peer_dev = src;

	/*
	 * Listed while the exporter is known present: its removal unplugs
	 * before it revokes, so it either sees this window or we see it gone.
	 */
	mutex_lock(&m890_peer_lock);
	if (!drm_dev_enter(&src->drm, &idx)) {
		mutex_unlock(&m890_peer_lock);
		mutex_destroy(&bo->map_lock);
		kfree(bo);
		return ERR_PTR(-ENODEV);
	}
	list_add_tail(&bo->peer_link, &m890_peer_windows);
	drm_dev_exit(idx);
	mutex_unlock(&m890_peer_lock);

	get_dma_buf(buf);
	bo->peer_buf = buf;
	obj = &bo->shmem.base;
	obj->funcs = &m890_peer_funcs;
	drm_gem_private_object_init(&mdev->drm, obj, src_obj->size);
	return obj;
}

/**
 * m890_p2p_revoke() - revoke every peer window into @mdev's HBM.
 * @mdev: exporting card being removed, already unplugged (drm_dev_unplug()),
 *        so no new window into it can appear.
 *
 * Clears the PTEs of each window in every context it is mapped in and
 * invalidates those contexts' TLBs on the importing cards; later accesses
 * fault NOT_PRESENT.  The windows stay allocated (handles, VA ranges,
 * dma-buf reference) until their importers close them.
 *
 * Context: process; takes m890_peer_lock, the windows' map_lock, the
 * importers' context and MMU locks.
 */
void m890_p2p_revoke(struct m890_device *mdev)
{
	struct m890_bo *bo;
	u32 n = 0;

	mutex_lock(&m890_peer_lock);
	list_for_each_entry(bo, &m890_peer_windows, peer_link) {
		if (bo->peer_dev != mdev)
			continue;
		m890_bo_revoke(bo);
		n++;
	}
	mutex_unlock(&m890_peer_lock);
	if (n)
		m890_dbg(mdev, "revoked %u peer windows\n", n);
}

/**
 * m890_gem_prime_import() - &drm_driver.gem_prime_import.
 * @dev: importing device.
 * @buf: dma-buf.
 *
 * Return: the same object for a BO of @dev, a new peer window for an HBM
 * BO of another M890, ERR_PTR(-EOPNOTSUPP) for anything else.
 */
struct drm_gem_object *m890_gem_prime_import(struct drm_device *dev, struct dma_buf *buf)
{
	struct drm_gem_object *obj;

	if (buf->ops != &m890_hbm_dmabuf_ops && buf->ops != &m890_host_dmabuf_ops)
		return ERR_PTR(-EOPNOTSUPP);

	obj = buf->priv;
	if (obj->dev == dev) {
		drm_gem_object_get(obj);
		return obj;
	}
	return m890_peer_create(to_m890(dev), obj, buf);
}
