// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: debugfs
 *
 * Views under /sys/kernel/debug/accel/<pci address>/ (the DRM core names an
 * accel device's directory after its device, e.g. 0000:00:01.0/) for
 * debugging:
 * "contexts" (ASID, owner pid, bad flag, HBM bytes, busy time and fault
 * count per open file), "queues" (ring state and sequence numbers, plus
 * the card's view of each hardware queue), "bos" (every handle of every
 * file, with the VA of the BO's first mapping and how many 2 MiB PTEs
 * that mapping uses), "faults" (counts and the last execution error),
 * "hbm" (bytes in use, then the HBM allocator).
 *
 * Writing anything to "force_reset" resets the card (m890_device_reset()):
 * the in-flight jobs of every client fail with -EIO, new queues work.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include "m890_drv.h"
#include "m890_debugfs.h"
#include "m890_gem.h"
#include "m890_mmu.h"
#include "m890_pci.h"
#include "m890_queue.h"

static int m890_contexts_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct m890_device *mdev = to_m890(entry->dev);
	struct m890_file *mfile;

	mutex_lock(&mdev->files_lock);
	list_for_each_entry(mfile, &mdev->files, link)
		seq_printf(m, "asid %u pid %d bad %d hbm %lld busy_ns %lld faults %d\n",
			   mfile->ctx->asid, mfile->ctx->pid, mfile->ctx->bad,
			   atomic64_read(&mfile->ctx->hbm_bytes),
			   atomic64_read(&mfile->ctx->busy_ns),
			   atomic_read(&mfile->ctx->faults));
	mutex_unlock(&mdev->files_lock);
	return 0;
}

static int m890_queues_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct m890_device *mdev = to_m890(entry->dev);
	struct m890_file *mfile;
	struct m890_queue *q;
	unsigned long id;
	int idx;

	mutex_lock(&mdev->files_lock);
	list_for_each_entry(mfile, &mdev->files, link) {
		xa_lock(&mfile->queues);
		xa_for_each(&mfile->queues, id, q)
			seq_printf(m, "pid %d queue %lu hwq %u tail %u done %u seqno %llu dead %d\n",
				   q->ctx->pid, id, q->hwq, q->tail, READ_ONCE(q->done_tail),
				   q->seqno, READ_ONCE(q->dead));
		xa_unlock(&mfile->queues);
	}
	mutex_unlock(&mdev->files_lock);

	if (!drm_dev_enter(&mdev->drm, &idx))
		return 0;
	for (id = 0; id < mdev->num_queues; id++) {
		u32 base = M890_REG_Q(id);
		u32 status = m890_rd(mdev, base + M890_Q_STATUS);

		if (!(status & (M890_Q_STATUS_ENABLED | M890_Q_STATUS_ERROR)))
			continue;
		seq_printf(m, "hwq %lu status 0x%x head %u tail %u fence %llu\n", id, status,
			   m890_rd(mdev, base + M890_Q_HEAD), m890_rd(mdev, base + M890_Q_TAIL),
			   m890_rd64(mdev, base + M890_Q_FENCE_VALUE));
	}
	seq_printf(m, "mmu faults %u\n", m890_rd(mdev, M890_REG_MMU_FAULT_COUNT));
	drm_dev_exit(idx);
	return 0;
}

static int m890_hbm_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct m890_device *mdev = to_m890(entry->dev);
	struct drm_printer p = drm_seq_file_printer(m);

	seq_printf(m, "used %lld total %llu\n", atomic64_read(&mdev->hbm_used), mdev->hbm_size);
	mutex_lock(&mdev->hbm_lock);
	drm_mm_print(&mdev->hbm_mm, &p);
	mutex_unlock(&mdev->hbm_lock);
	return 0;
}

static const char *const m890_bo_kind_name[] = {
	[M890_BO_KIND_HOST] = "host",
	[M890_BO_KIND_HBM] = "hbm",
	[M890_BO_KIND_PEER] = "peer",
};

static int m890_bos_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct drm_device *dev = entry->dev;
	struct drm_gem_object *obj;
	struct drm_file *file;
	struct m890_bo *bo;
	int id;

	mutex_lock(&dev->filelist_mutex);
	list_for_each_entry(file, &dev->filelist, lhead) {
		spin_lock(&file->table_lock);
		idr_for_each_entry(&file->object_idr, obj, id) {
			bo = to_m890_bo(obj);
			/* Export state read without xvm_lock: a snapshot. */
			seq_printf(m,
				   "client %llu handle %d %s size %zu va 0x%llx pte2m %u refs %u%s%s",
				   file->client_id, id, m890_bo_kind_name[bo->kind], obj->size,
				   bo->ctx ? bo->va_node.start : 0, bo->large_ptes,
				   kref_read(&obj->refcount),
				   obj->dma_buf ? " exported" : "",
				   READ_ONCE(bo->exported) ? " fabric-exported" : "");
			if (bo->window)
				seq_printf(m, " window on fabric id %u", bo->peer_fabric_id);
			seq_putc(m, '\n');
		}
		spin_unlock(&file->table_lock);
	}
	mutex_unlock(&dev->filelist_mutex);
	return 0;
}

static int m890_faults_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct m890_device *mdev = to_m890(entry->dev);
	struct m890_file *mfile;
	int idx;

	spin_lock_irq(&mdev->hwq_lock);
	seq_printf(m, "errors %u resets %d\n", mdev->last_fault.count,
		   atomic_read(&mdev->reset_count));
	if (mdev->last_fault.count)
		seq_printf(m, "last hwq %u pid %d code %u addr 0x%llx info 0x%x\n",
			   mdev->last_fault.hwq, mdev->last_fault.pid, mdev->last_fault.code,
			   mdev->last_fault.addr, mdev->last_fault.info);
	spin_unlock_irq(&mdev->hwq_lock);

	mutex_lock(&mdev->files_lock);
	list_for_each_entry(mfile, &mdev->files, link)
		if (atomic_read(&mfile->ctx->faults))
			seq_printf(m, "asid %u pid %d faults %d\n", mfile->ctx->asid,
				   mfile->ctx->pid, atomic_read(&mfile->ctx->faults));
	mutex_unlock(&mdev->files_lock);

	if (drm_dev_enter(&mdev->drm, &idx)) {
		seq_printf(m, "mmu faults %u\n", m890_rd(mdev, M890_REG_MMU_FAULT_COUNT));
		drm_dev_exit(idx);
	}
	return 0;
}

static const struct drm_debugfs_info m890_debugfs_list[] = {
	{ "contexts", m890_contexts_show, 0 },
	{ "queues", m890_queues_show, 0 },
	{ "bos", m890_bos_show, 0 },
	{ "faults", m890_faults_show, 0 },
	{ "hbm", m890_hbm_show, 0 },
};

static ssize_t m890_force_reset_write(struct file *file, const char __user *buf, size_t size,
				      loff_t *pos)
{
	struct m890_device *mdev = file->private_data;
	int ret;

	if (!size)
		return -EINVAL;
	ret = m890_device_reset(mdev);
	return ret ? ret : size;
}

static const struct file_operations m890_force_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = m890_force_reset_write,
};

/**
 * m890_debugfs_init() - register the debugfs files (before drm_dev_register).
 * @mdev: device.
 */
void m890_debugfs_init(struct m890_device *mdev)
{
	drm_debugfs_add_files(&mdev->drm, m890_debugfs_list, ARRAY_SIZE(m890_debugfs_list));
	debugfs_create_file("force_reset", 0200, mdev->drm.debugfs_root, mdev,
			    &m890_force_reset_fops);
}
