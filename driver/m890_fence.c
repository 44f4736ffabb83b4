// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: submission fences
 *
 * Each DRM_M890_SUBMIT ends with a kernel FENCE packet whose value is the
 * submission's sequence number; the card stores it to the queue's fence
 * word and raises the queue's MSI-X vector.  The handler signals, in
 * order, every pending &struct m890_fence whose seqno the fence word has
 * reached.  A queue that stops on an error, is destroyed, times out or
 * whose card goes away signals all its pending fences with an error.
 *
 * As each fence signals, the time since it was submitted (or since the
 * previous fence of the queue signalled, if later) is added to the
 * context's busy time, reported in fdinfo as drm-engine-compute.
 *
 * Each fence has its own spinlock, so a fence held by a syncobj or a
 * sync_file never points at a freed queue.
 *
 * The file's own BOs share its context's reservation object, whose fences
 * their free waits for (m890_resv.c).  A fence holds a reference to each
 * other BO the submitting file has a handle to at submit time (imports and
 * windows: the driver cannot tell which of them the packets use).
 * Closing a GEM handle, or the file, therefore never unmaps memory a job
 * may still reach.  Once the fence has signalled, a work item on
 * m890_wq drops those references in process context (a BO's release may
 * sleep, and fences signal from the interrupt handler), holding the DRM
 * device until it has.
 */

#include <linux/interrupt.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>

#include "m890_drv.h"
#include "m890_fence.h"
#include "m890_mmu.h"
#include "m890_queue.h"

static const char *m890_fence_driver_name(struct dma_fence *fence)
{
	return M890_DRIVER_NAME;
}

static const char *m890_fence_timeline_name(struct dma_fence *fence)
{
	return "m890-queue";
}

static const struct dma_fence_ops m890_fence_ops = {
	.get_driver_name = m890_fence_driver_name,
	.get_timeline_name = m890_fence_timeline_name,
};

/* Drop the BO references of a signalled fence, then the fence itself. */
static void m890_fence_retire(struct work_struct *work)
{
	struct m890_fence *f = container_of(work, struct m890_fence, retire);
	struct drm_device *dev = f->dev;
	u32 i;

	for (i = 0; i < f->nbos; i++)
		drm_gem_object_put(f->bos[i]);
	kvfree(f->bos);
	f->bos = NULL;
	f->nbos = 0;
	f->dev = NULL;
	/* The pending list's reference, handed over by m890_fence_done(). */
	dma_fence_put(&f->base);
	drm_dev_put(dev);
}

/*
 * @f just signalled and left the pending list: drop the list's reference,
 * through the retire work if the fence holds BOs.
 */
static void m890_fence_done(struct m890_fence *f)
{
	if (f->nbos)
		queue_work(m890_wq, &f->retire);
	else
		dma_fence_put(&f->base);
}

/**
 * m890_fence_alloc() - allocate a fence to be initialised later.
 *
 * Return: the fence (free with kfree() until m890_fence_init()) or NULL.
 */
struct m890_fence *m890_fence_alloc(void)
{
	struct m890_fence *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (f) {
		spin_lock_init(&f->lock);
		INIT_LIST_HEAD(&f->link);
		INIT_WORK(&f->retire, m890_fence_retire);
	}
	return f;
}

/**
 * m890_fence_init() - initialise a fence on @q's timeline.
 * @q: queue.
 * @f: from m890_fence_alloc(); from now on released with dma_fence_put().
 * @seqno: sequence number, increasing per queue.
 */
void m890_fence_init(struct m890_queue *q, struct m890_fence *f, u64 seqno)
{
	dma_fence_init(&f->base, &m890_fence_ops, &f->lock, q->fence_ctx, seqno);
}

/* Account @f's run time to its context; @q->fence_lock held. */
static void m890_fence_account(struct m890_queue *q, struct m890_fence *f, ktime_t now)
{
	ktime_t start = ktime_after(f->submitted, q->last_done) ? f->submitted : q->last_done;

	lockdep_assert_held(&q->fence_lock);
	if (ktime_after(now, start))
		atomic64_add(ktime_to_ns(ktime_sub(now, start)), &q->ctx->busy_ns);
	q->last_done = now;
}

/**
 * m890_fence_process() - signal the fences the card has completed.
 * @q: queue.
 *
 * Context: any, including hard IRQ.
 */
void m890_fence_process(struct m890_queue *q)
{
	u64 done = le64_to_cpu(READ_ONCE(*q->fence_cpu));
	struct m890_fence *f, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&q->fence_lock, flags);
	list_for_each_entry_safe(f, tmp, &q->pending, link) {
		if (f->base.seqno > done)
			break;
		list_del_init(&f->link);
		q->done_tail = f->end_tail;
		m890_fence_account(q, f, ktime_get());
		dma_fence_signal(&f->base);
		m890_fence_done(f);
	}
	spin_unlock_irqrestore(&q->fence_lock, flags);
	wake_up_all(&q->space_wq);
}

/**
 * m890_fence_track() - put @f, just submitted, on @q's pending list.
 * @q: queue.
 * @f: fence with its seqno, end tail and submission time set, holding the
 *     pending list's reference.
 *
 * The submitter checks that @q is alive before building @f, but a fault
 * interrupt (of @q or of another queue of its context) may stop @q in
 * between: m890_fence_fail_all() would then miss @f, which would only
 * fail by the job timeout, as -ETIMEDOUT instead of the queue's error.
 * So @q's death is checked again under the fence lock.
 *
 * Return: true if @f is pending; false if @q is dead, in which case @f
 * has been signalled with @q's error and the packets must not be pushed.
 * Context: any.
 */
bool m890_fence_track(struct m890_queue *q, struct m890_fence *f)
{
	unsigned long flags;
	int err;

	spin_lock_irqsave(&q->fence_lock, flags);
	err = q->dead;
	if (!err) {
		list_add_tail(&f->link, &q->pending);
	} else {
		dma_fence_set_error(&f->base, err);
		dma_fence_signal(&f->base);
		m890_fence_done(f);
	}
	spin_unlock_irqrestore(&q->fence_lock, flags);
	return !err;
}

/**
 * m890_fence_fail_all() - stop @q and signal its pending fences with @err.
 * @q: queue.
 * @err: negative errno stored in the fences and in @q->dead.
 *
 * Context: any, including hard IRQ.
 */
void m890_fence_fail_all(struct m890_queue *q, int err)
{
	struct m890_fence *f, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&q->fence_lock, flags);
	if (!q->dead)
		q->dead = err;
	list_for_each_entry_safe(f, tmp, &q->pending, link) {
		list_del_init(&f->link);
		m890_fence_account(q, f, ktime_get());
		dma_fence_set_error(&f->base, err);
		dma_fence_signal(&f->base);
		m890_fence_done(f);
	}
	spin_unlock_irqrestore(&q->fence_lock, flags);
	wake_up_all(&q->space_wq);
}

/**
 * m890_queue_irq() - MSI-X handler of FENCE interrupts.
 * @irq: vector.
 * @arg: &struct m890_qirq of the vector's first hardware queue.
 *
 * Return: IRQ_HANDLED.
 */
irqreturn_t m890_queue_irq(int irq, void *arg)
{
	struct m890_qirq *qi = arg;
	struct m890_device *mdev = qi->mdev;
	u32 i;

	spin_lock(&mdev->hwq_lock);
	for (i = qi->q; i < mdev->num_queues; i += mdev->num_qvec)
		if (mdev->hwq[i])
			m890_fence_process(mdev->hwq[i]);
	spin_unlock(&mdev->hwq_lock);
	return IRQ_HANDLED;
}
