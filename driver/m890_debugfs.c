// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: debugfs
 *
 * Read-only views under /sys/kernel/debug/accel/<minor>/ for debugging:
 * "contexts" (ASID, owner pid, bad flag per open file), "queues" (ring
 * state and sequence numbers, plus the card's view of each hardware
 * queue) and "hbm" (the HBM allocator).
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>

#include "m890_drv.h"

static int m890_contexts_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct m890_device *mdev = to_m890(entry->dev);
	struct m890_file *mfile;

	mutex_lock(&mdev->files_lock);
	list_for_each_entry(mfile, &mdev->files, link)
		seq_printf(m, "asid %u pid %d bad %d\n", mfile->ctx->asid,
			   mfile->ctx->pid, mfile->ctx->bad);
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

	mutex_lock(&mdev->hbm_lock);
	drm_mm_print(&mdev->hbm_mm, &p);
	mutex_unlock(&mdev->hbm_lock);
	return 0;
}

static const struct drm_debugfs_info m890_debugfs_list[] = {
	{ "contexts", m890_contexts_show, 0 },
	{ "queues", m890_queues_show, 0 },
	{ "hbm", m890_hbm_show, 0 },
};

/**
 * m890_debugfs_init() - register the debugfs files (before drm_dev_register).
 * @mdev: device.
 */
void m890_debugfs_init(struct m890_device *mdev)
{
	drm_debugfs_add_files(&mdev->drm, m890_debugfs_list, ARRAY_SIZE(m890_debugfs_list));
}
