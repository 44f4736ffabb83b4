/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: submission fences (m890_fence.c).
 */
#ifndef M890_FENCE_H
#define M890_FENCE_H

#include <linux/dma-fence.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/workqueue.h>

#include "m890_drv.h"

/**
 * struct m890_fence - completion of one submission.
 * @base: the dma_fence; its lock is @lock so it never outlives the queue's.
 * @lock: lock of @base.
 * @link: entry in m890_queue.pending (protected by its fence_lock).
 * @end_tail: ring tail after this submission's FENCE packet.
 * @submitted: when the submission reached the ring, for busy time.
 * @bos: the BOs of the submitting file at submit time that do not share
 *       its context's reservation object (imports, windows), one
 *       reference each, so that neither they nor their VA mappings go
 *       away (GEM_CLOSE, file close) while the job may still use them.
 *       The file's own BOs wait for the fence in their free instead.
 * @nbos: entries in @bos.
 * @dev: the DRM device, one reference while @bos is held, so the retire
 *       work may free BOs after the file and the card are gone.
 * @retire: drops @bos after the fence signalled (process context).
 */
struct m890_fence {
	struct dma_fence base;
	spinlock_t lock;	/* dma_fence state of base */
	struct list_head link;
	u32 end_tail;
	ktime_t submitted;
	struct drm_gem_object **bos;
	u32 nbos;
	struct drm_device *dev;
	struct work_struct retire;
};

struct m890_fence *m890_fence_alloc(void);
void m890_fence_init(struct m890_queue *q, struct m890_fence *f, u64 seqno);
void m890_fence_process(struct m890_queue *q);
bool m890_fence_track(struct m890_queue *q, struct m890_fence *f);
void m890_fence_fail_all(struct m890_queue *q, int err);
irqreturn_t m890_queue_irq(int irq, void *arg);

#endif /* M890_FENCE_H */
