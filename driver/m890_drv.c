// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: M890 driver core
 *
 * The DRM accel driver entry points: the &drm_driver, the ioctl table,
 * file open/close and the DEVICE_INFO query.  Each open file gets its own
 * device address space (&struct m890_ctx) and its own queue namespace;
 * nothing one file creates is reachable by id from another file.
 *
 * Closing a file goes through DRM's own &drm_file release: DRM first
 * releases the file's GEM handles while its jobs may still run.  That is
 * safe because no BO is unmapped under a job: the file's BOs share its
 * context's reservation object and their free waits for its fences
 * (m890_resv.c), import mappings of busy BOs are parked (m890_gem.c), and
 * the jobs hold the file's other BOs (m890_fence.c).  Then
 * m890_postclose() stops and frees the file's hardware queues (cancelling
 * their fences, so the card has stopped using the file's memory), waits
 * for the file's own deferred BO frees -- only those: nothing driver-wide
 * is flushed -- drops the parked mappings and releases the ASID.
 */

#include <linux/dma-resv.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_prime.h>

#include "m890_drv.h"
#include "m890_fabric.h"
#include "m890_fence.h"
#include "m890_gem.h"
#include "m890_limits.h"
#include "m890_mmu.h"
#include "m890_p2p.h"
#include "m890_pci.h"
#include "m890_queue.h"
#include "m890_resv.h"
#include "m890_xvm.h"

/*
 * Drops the BO references of signalled fences (m890_fence.c) and runs the
 * frees that waited for fences (m890_resv.c); drained at module exit.
 */
struct workqueue_struct *m890_wq;

static int m890_open(struct drm_device *dev, struct drm_file *file)
{
	struct m890_device *mdev = to_m890(dev);
	struct m890_file *mfile;
	int idx, ret;

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;

	mfile = kzalloc(sizeof(*mfile), GFP_KERNEL);
	if (!mfile) {
		ret = -ENOMEM;
		goto out_exit;
	}
	mfile->mdev = mdev;
	xa_init_flags(&mfile->queues, XA_FLAGS_ALLOC1);

	mfile->ctx = m890_ctx_create(mdev);
	if (IS_ERR(mfile->ctx)) {
		ret = PTR_ERR(mfile->ctx);
		goto out_free;
	}

	mutex_lock(&mdev->files_lock);
	list_add_tail(&mfile->link, &mdev->files);
	mutex_unlock(&mdev->files_lock);

	file->driver_priv = mfile;
	drm_dev_exit(idx);
	return 0;

out_free:
	kfree(mfile);
out_exit:
	drm_dev_exit(idx);
	return ret;
}

static void m890_postclose(struct drm_device *dev, struct drm_file *file)
{
	struct m890_device *mdev = to_m890(dev);
	struct m890_file *mfile = file->driver_priv;

	mutex_lock(&mdev->files_lock);
	list_del(&mfile->link);
	mutex_unlock(&mdev->files_lock);

	m890_file_queues_fini(mfile);
	/* Its fences have signalled: the frees they held up are under way. */
	m890_ctx_frees_wait(mfile->ctx);
	m890_ctx_unpark(mfile->ctx);
	xa_destroy(&mfile->queues);
	m890_ctx_release(mfile->ctx);
	m890_ctx_put(&mfile->ctx);
	kfree(mfile);
}

static void m890_fill_info(struct m890_device *mdev, struct drm_m890_device_info *info)
{
	memset(info, 0, sizeof(*info));
	info->pci_vendor = mdev->pdev->vendor;
	info->pci_device = mdev->pdev->device;
	info->spec_version = mdev->version;
	info->num_queues = mdev->num_queues;
	info->fabric_id = mdev->fabric_id;
	info->fabric_port = mdev->fabric_port;
	info->hbm_size = mdev->hbm_size;
	info->va_start = M890_VA_START;
	info->va_size = M890_VA_SIZE;
	info->capabilities = DRM_M890_CAP_HOST_BO | DRM_M890_CAP_TIMELINE_SYNCOBJ |
			     DRM_M890_CAP_BO_WAIT;
	if (mdev->hbm_size)
		info->capabilities |= DRM_M890_CAP_HBM_BO;
	if (mdev->fabric_id != M890_FABRIC_ID_NONE) {
		info->capabilities |= DRM_M890_CAP_FABRIC;
		if (mdev->hbm_size)
			info->capabilities |= DRM_M890_CAP_PEER_IMPORT |
					      DRM_M890_CAP_FABRIC_WINDOWS;
	}
	if (mdev->caps & M890_HWCAP_TIMESTAMP)
		info->capabilities |= DRM_M890_CAP_TIMESTAMP;
	/* spec 1.1: the packets and flags the driver lets through */
	if (mdev->caps & M890_HWCAP_ENGINES)
		info->capabilities |= DRM_M890_CAP_ENGINES;
	if (mdev->caps & M890_HWCAP_ATOMICS)
		info->capabilities |= DRM_M890_CAP_ATOMICS;
	if (mdev->caps & M890_HWCAP_ROWS)
		info->capabilities |= DRM_M890_CAP_ROWS;
	if (mdev->caps & M890_HWCAP_GEMM)
		info->capabilities |= DRM_M890_CAP_GEMM;
	info->max_submit_packets = M890_MAX_SUBMIT;
}

/* Copy @len valid bytes of @obj to the user, zero the rest of @size. */
static int m890_query_copy(struct drm_m890_query *args, const void *obj, u32 len)
{
	void __user *ptr = u64_to_user_ptr(args->data);
	u32 n = min(args->size, len);

	if (copy_to_user(ptr, obj, n))
		return -EFAULT;
	if (args->size > n && clear_user(ptr + n, args->size - n))
		return -EFAULT;
	args->size = n;
	return 0;
}

static int m890_query_queue_state(struct drm_file *file, struct drm_m890_query *args)
{
	struct drm_m890_queue_state st = { };
	u32 n = min_t(u32, args->size, sizeof(st));

	if (n < sizeof(st.queue_id))
		return -EINVAL;
	if (copy_from_user(&st, u64_to_user_ptr(args->data), n))
		return -EFAULT;
	return m890_queue_state(file->driver_priv, &st) ?:
	       m890_query_copy(args, &st, sizeof(st));
}

static int m890_query_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_m890_query *args = data;
	struct drm_m890_device_info info;

	if (args->pad || args->pad2)
		return -EINVAL;

	switch (args->type) {
	case DRM_M890_QUERY_DEVICE_INFO:
		if (!args->size) {
			args->size = sizeof(info);
			return 0;
		}
		m890_fill_info(to_m890(dev), &info);
		return m890_query_copy(args, &info, sizeof(info));
	case DRM_M890_QUERY_QUEUE_STATE:
		if (!args->size) {
			args->size = sizeof(struct drm_m890_queue_state);
			return 0;
		}
		return m890_query_queue_state(file, args);
	default:
		return -EINVAL;
	}
}

/**
 * m890_show_fdinfo() - &drm_driver.show_fdinfo: memory and busy time.
 * @p: printer.
 * @file: the file.
 *
 * Prints drm-{total,shared,active}-{hbm,host} over the BOs the file has a
 * handle to (imported peer windows are another card's memory and are not
 * counted), drm-hbm-mapped (HBM bytes the file's BOs hold, whether or not
 * a handle is left; what kill -9 must give back) and drm-engine-compute,
 * the busy time of the file's queues in ns.
 */
static void m890_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct m890_file *mfile = file->driver_priv;
	struct drm_memory_stats stats[2] = { };
	struct drm_gem_object *obj;
	struct drm_memory_stats *st;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		switch (to_m890_bo(obj)->kind) {
		case M890_BO_KIND_HBM:
			st = &stats[0];
			break;
		case M890_BO_KIND_HOST:
			st = &stats[1];
			break;
		default:
			continue;
		}
		if (drm_gem_object_is_shared_for_memory_stats(obj))
			st->shared += obj->size;
		else
			st->private += obj->size;
		if (!dma_resv_test_signaled(obj->resv, DMA_RESV_USAGE_BOOKKEEP))
			st->active += obj->size;
	}
	spin_unlock(&file->table_lock);

	drm_print_memory_stats(p, &stats[0], 0, "hbm");
	drm_print_memory_stats(p, &stats[1], 0, "host");
	drm_printf(p, "drm-hbm-mapped:\t%lld\n", atomic64_read(&mfile->ctx->hbm_bytes));
	drm_printf(p, "drm-engine-compute:\t%lld ns\n", atomic64_read(&mfile->ctx->busy_ns));
}

static const struct drm_ioctl_desc m890_ioctls[] = {
	DRM_IOCTL_DEF_DRV(M890_QUERY, m890_query_ioctl, 0),
	DRM_IOCTL_DEF_DRV(M890_BO_CREATE, m890_bo_create_ioctl, 0),
	DRM_IOCTL_DEF_DRV(M890_BO_INFO, m890_bo_info_ioctl, 0),
	DRM_IOCTL_DEF_DRV(M890_QUEUE_CREATE, m890_queue_create_ioctl, 0),
	DRM_IOCTL_DEF_DRV(M890_QUEUE_DESTROY, m890_queue_destroy_ioctl, 0),
	DRM_IOCTL_DEF_DRV(M890_SUBMIT, m890_submit_ioctl, 0),
	DRM_IOCTL_DEF_DRV(M890_BO_WAIT, m890_bo_wait_ioctl, 0),
	DRM_IOCTL_DEF_DRV(M890_FABRIC_EXPORT, m890_fabric_export_ioctl, 0),
	DRM_IOCTL_DEF_DRV(M890_FABRIC_REVOKE, m890_fabric_revoke_ioctl, 0),
	DRM_IOCTL_DEF_DRV(M890_FABRIC_IMPORT, m890_fabric_import_ioctl, 0),
};

/* The core's accel fops as they are, plus fdinfo (m890_show_fdinfo()). */
static const struct file_operations m890_fops = {
	.owner = THIS_MODULE,
	DRM_ACCEL_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

const struct drm_driver m890_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_COMPUTE_ACCEL | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.open = m890_open,
	.postclose = m890_postclose,
	.gem_create_object = m890_gem_create_object,
	.gem_prime_import = m890_gem_prime_import,
	.show_fdinfo = m890_show_fdinfo,
	.ioctls = m890_ioctls,
	.num_ioctls = ARRAY_SIZE(m890_ioctls),
	.fops = &m890_fops,
	.name = M890_DRIVER_NAME,
	.desc = M890_DRIVER_DESC,
#ifdef M890_HAVE_DRM_DRIVER_DATE
	.date = "20250101",
#endif
	.major = 1,
	.minor = 0,
};

static int __init m890_init(void)
{
	int ret;

	m890_limits_init();
	m890_wq = alloc_workqueue("m890", WQ_UNBOUND, 0);
	if (!m890_wq)
		return -ENOMEM;

	ret = m890_fabric_init();
	if (ret)
		goto err_wq;

	ret = m890_pci_register();
	if (ret)
		goto err_fabric;
	return 0;

err_fabric:
	m890_fabric_fini();
err_wq:
	destroy_workqueue(m890_wq);
	return ret;
}

static void __exit m890_exit(void)
{
	m890_pci_unregister();
	m890_fabric_fini();
	/* Runs what is still queued, then frees the workqueue. */
	destroy_workqueue(m890_wq);
}

module_init(m890_init);
module_exit(m890_exit);

MODULE_DESCRIPTION(M890_DRIVER_DESC);
MODULE_LICENSE("GPL");
MODULE_VERSION(M890_VERSION);
MODULE_IMPORT_NS(DMA_BUF);
