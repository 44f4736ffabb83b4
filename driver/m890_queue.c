// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: queues and submission
 *
 * A queue owns one hardware queue of the card for its whole life: a ring
 * of M890_RING_ENTRIES 64-byte slots in coherent DMA memory, followed by
 * the 8-byte fence word the card writes.  DRM_M890_SUBMIT copies the
 * user's packets into a kernel buffer first (so they cannot change after
 * the checks), rejects kernel-only and reserved opcodes, the spec 1.1
 * opcodes and the RELAXED flag on a card without their capability, other
 * header flags and non-zero reserved fields (m890_packet_valid(),
 * Documentation/uapi.rst), copies them into the ring, appends a FENCE
 * packet carrying the new sequence number and writes the new tail to the
 * queue's doorbell.  The submission's fence is added to the queue's
 * timeline syncobj at point = seqno, and as a write fence to the
 * reservation object the file's BOs share and to those of the other BOs
 * the file has handles to (imports, windows: m890_resv.c), all locked
 * together with a ww acquire context before the packets reach the ring,
 * so the fence is added to all or, on a locking error, the submission
 * fails untouched.  The cost does not grow with the file's own BOs.
 *
 * Ring space is tracked from completed fences: when fence N signals, the
 * card has consumed every slot up to the end of submission N.  A full ring
 * makes the submitter wait (interruptible, bounded by M890_RING_TIMEOUT)
 * without holding the queue's lock, so the job timeout, which takes it,
 * runs on time.
 * A queue whose oldest fence makes no progress for the job_timeout_ms
 * module parameter (checked every job_timeout_ms, so a hung job is caught
 * between one and two periods after it became the oldest) is reset and its
 * fences fail with -ETIMEDOUT (e.g. a WAIT that never ends); the queue
 * stays stopped with that error, other queues keep running.  Each check
 * first looks for a reset of the card the driver did not make (an FLR or
 * card reset behind its back, m890_reset_check()); after one, the device
 * recovery fails the pending work of every queue with -EIO instead.
 *
 * Queue errors and MMU faults arrive on the event vector, whose hard
 * interrupt handler only acknowledges them and wakes its thread
 * (m890_pci.c); the thread handles each stopped queue
 * (m890_queue_hw_error()).  A fault of a context (an MMU fault, or a
 * packet the card refuses as a bad opcode or field) marks the context
 * bad (m890_ctx.bad = -EFAULT or -EIO): the faulting queue's work fails
 * with that error, every other queue of the context is reset and its
 * pending work fails with -ECANCELED, each reports the context's error in QUERY_QUEUE_STATE, and
 * every later submission on the context fails with -EIO.  The fault is
 * logged once per context, with the opener's pid and command name.  Other
 * files are unaffected; the client recovers by opening a new file.  Errors
 * that are not the context's doing (DMA, fabric, ring, unsupported packet)
 * stop only their queue, and so does a MOE_ROUTE or GEMM that found an
 * expert over its capacity (M890_QERR_CAPACITY), whose work fails with
 * -ENOSPC.
 *
 * Queue ids are per file, allocated cyclically, and a queue is inserted in
 * the file's xarray only once it is fully built.
 */

#include <linux/bitfield.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/iopoll.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_syncobj.h>

#include "m890_drv.h"
#include "m890_fabric.h"
#include "m890_fence.h"
#include "m890_limits.h"
#include "m890_mmu.h"
#include "m890_pci.h"
#include "m890_queue.h"
#include "m890_resv.h"

#define M890_RING_BYTES		(M890_RING_ENTRIES * M890_PKT_SIZE)
#define M890_RING_ALLOC		(M890_RING_BYTES + PAGE_SIZE)
#define M890_RING_TIMEOUT	(10 * HZ)
#define M890_STOP_TIMEOUT_US	10000

unsigned int m890_job_timeout_ms = 5000;
module_param_named(job_timeout_ms, m890_job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_ms,
		 "Time a queue's oldest job may run without completing before the queue is reset, ms (0: never)");

/* Arm the job timeout of @q if it is not armed already. */
static void m890_queue_watch(struct m890_queue *q)
{
	unsigned int ms = READ_ONCE(m890_job_timeout_ms);

	if (ms)
		schedule_delayed_work(&q->timeout_work, msecs_to_jiffies(ms));
}

/*
 * Reserved 32-bit words of each user opcode (bit i = dword i must be 0),
 * as laid out by spec 1.1 (uapi/drm/m890_packets.h).  MX also reserves
 * bits 31:16 of dword 1; REDUCE's are its flags (spec 1.1, CAPS.ROWS).
 */
static const u16 m890_rsvd_dwords[M890_PKT_GEMM + 1] = {
	[M890_PKT_NOP] = 0xfffe,
	[M890_PKT_COPY] = 0xf002,
	[M890_PKT_COPY_2D] = 0xf800,
	[M890_PKT_FILL] = 0xffc0,
	[M890_PKT_SIGNAL] = 0xc080,
	[M890_PKT_WAIT] = 0xffc0,
	[M890_PKT_TIMESTAMP] = 0xfff2,
	[M890_PKT_GATHER] = 0xfe00,
	[M890_PKT_SCATTER] = 0xfe00,
	[M890_PKT_REDUCE] = 0xe000,
	[M890_PKT_MX_QUANT] = 0xfc00,
	[M890_PKT_MX_DEQUANT] = 0xfc00,
	[M890_PKT_COPY_ROWS] = 0x8000,
	[M890_PKT_MOE_ROUTE] = 0x0000,
	[M890_PKT_GEMM] = 0x0000,
};

/* 32-bit words of a packet; dword 0 is the header. */
#define M890_PKT_DWORDS		(M890_PKT_SIZE / sizeof(u32))
/* MX_QUANT/MX_DEQUANT dword 1: bits 31:16 are reserved (rsvd0). */
#define M890_MX_DW1_RSVD	GENMASK(31, 16)
/* REDUCE dword 1 bits 31:16 (flags) and dword 12 (seg_rows): CAPS.ROWS */
#define M890_REDUCE_DW1_FLAGS	GENMASK(31, 16)
#define M890_REDUCE_SEG_ROWS_DW	12
#define M890_REDUCE_FLAGS_VALID	(M890_REDUCE_F_SRC_TABLE | M890_REDUCE_F_UNWEIGHTED)

/*
 * m890_packet_valid() - may @pkt be submitted to @mdev?
 *
 * Checks what the driver can check without reading memory: the opcode
 * (user opcodes only, 0x0c/0x0d only on a card with CAPS.ROWS, 0x0e
 * only with CAPS.GEMM), the
 * header (RELAXED only on data packets of a card with CAPS.ENGINES) and
 * every reserved field.  The card checks the rest and stops the queue
 * on a bad value.
 */
static bool m890_packet_valid(struct m890_device *mdev, const union m890_packet *pkt)
{
	u32 hdr = le32_to_cpu((__force __le32)pkt->hdr);
	u32 dw1 = le32_to_cpu((__force __le32)pkt->dw[1]);
	u32 op = M890_PKT_OPCODE(hdr);
	u32 flags = M890_PKT_FLAGS(hdr);
	u16 mask;
	int i;

	if ((hdr & M890_PKT_HDR_RSVD) || (flags & ~M890_PKT_FLAGS_VALID))
		return false;
	if (op > M890_PKT_GEMM)
		return false;
	if ((op == M890_PKT_COPY_ROWS || op == M890_PKT_MOE_ROUTE) &&
	    !(mdev->caps & M890_HWCAP_ROWS))
		return false;
	if (op == M890_PKT_GEMM && !(mdev->caps & M890_HWCAP_GEMM))
		return false;
	if ((flags & M890_PKT_F_RELAXED) &&
	    (!(mdev->caps & M890_HWCAP_ENGINES) || op == M890_PKT_NOP ||
	     op == M890_PKT_WAIT || op == M890_PKT_TIMESTAMP))
		return false;
	mask = m890_rsvd_dwords[op];
	if (op == M890_PKT_REDUCE && !(mdev->caps & M890_HWCAP_ROWS))
		mask |= BIT(M890_REDUCE_SEG_ROWS_DW);
	for (i = 1; i < M890_PKT_DWORDS; i++)
		if ((mask & BIT(i)) && pkt->dw[i])
			return false;
	if ((op == M890_PKT_MX_QUANT || op == M890_PKT_MX_DEQUANT) && (dw1 & M890_MX_DW1_RSVD))
		return false;
	if (op == M890_PKT_REDUCE) {
		u32 rflags = FIELD_GET(M890_REDUCE_DW1_FLAGS, dw1);

		if (rflags & ~M890_REDUCE_FLAGS_VALID)
			return false;
		if (rflags && !(mdev->caps & M890_HWCAP_ROWS))
			return false;
	}
	return true;
}

static u32 m890_qreg(struct m890_queue *q, u32 reg)
{
	return M890_REG_Q(q->hwq) + reg;
}

static void m890_queue_hw_start(struct m890_queue *q)
{
	struct m890_device *mdev = q->mdev;

	m890_wr(mdev, m890_qreg(q, M890_Q_CONTROL), M890_Q_CONTROL_RESET);
	m890_wr64(mdev, m890_qreg(q, M890_Q_RING_BASE), q->ring_dma);
	m890_wr(mdev, m890_qreg(q, M890_Q_RING_ORDER), M890_RING_ORDER);
	m890_wr(mdev, m890_qreg(q, M890_Q_ASID), q->ctx->asid);
	m890_wr64(mdev, m890_qreg(q, M890_Q_FENCE_ADDR), q->ring_dma + M890_RING_BYTES);
	m890_wr(mdev, m890_qreg(q, M890_Q_MSIX_VECTOR),
		mdev->qvec_base + q->hwq % mdev->num_qvec);
	m890_wr(mdev, m890_qreg(q, M890_Q_CONTROL), M890_Q_CONTROL_ENABLE);
}

/*
 * Reset and disable the hardware queue; the ring may be freed after.  Not
 * while the card itself is being reset (reset_sem): its registers do not
 * answer then, and the reset stops every queue anyway.
 */
static void m890_queue_hw_stop(struct m890_queue *q)
{
	struct m890_device *mdev = q->mdev;
	u32 status;
	int idx;

	lockdep_assert_held(&q->lock);
	if (!drm_dev_enter(&mdev->drm, &idx))
		return;
	down_read(&mdev->reset_sem);
	m890_wr(mdev, m890_qreg(q, M890_Q_CONTROL), M890_Q_CONTROL_RESET);
	if (read_poll_timeout(m890_rd, status, !(status & M890_Q_STATUS_ENABLED), 10,
			      M890_STOP_TIMEOUT_US, false, mdev, m890_qreg(q, M890_Q_STATUS)) ||
	    /* RESET reads 1 until the abandoned work's last access (spec 4.4) */
	    read_poll_timeout(m890_rd, status, !(status & M890_Q_CONTROL_RESET), 10,
			      M890_STOP_TIMEOUT_US, false, mdev, m890_qreg(q, M890_Q_CONTROL)))
		drm_err_ratelimited(&mdev->drm, "hw queue %u did not stop\n", q->hwq);
	up_read(&mdev->reset_sem);
	drm_dev_exit(idx);
}

static void m890_queue_free(struct kref *ref)
{
	struct m890_queue *q = container_of(ref, struct m890_queue, ref);

	dma_free_coherent(q->mdev->drm.dev, M890_RING_ALLOC, q->ring, q->ring_dma);
	drm_syncobj_put(q->syncobj);
	m890_ctx_put(&q->ctx);
	mutex_destroy(&q->lock);
	kfree(q);
}

static void m890_queue_put(struct m890_queue **q)
{
	kref_put(&(*q)->ref, m890_queue_free);
	*q = NULL;
}

static struct m890_queue *m890_queue_lookup(struct m890_file *mfile, u32 id)
{
	struct m890_queue *q;

	xa_lock(&mfile->queues);
	q = xa_load(&mfile->queues, id);
	if (q)
		kref_get(&q->ref);
	xa_unlock(&mfile->queues);
	return q;
}

/* Give the hardware queue back; pending fences fail with -ECANCELED. */
static void m890_queue_teardown(struct m890_queue *q)
{
	struct m890_device *mdev = q->mdev;
	unsigned long flags;

	/* Let a submitter waiting for ring space give up the lock. */
	spin_lock_irqsave(&q->fence_lock, flags);
	if (!q->dead)
		q->dead = -ECANCELED;
	spin_unlock_irqrestore(&q->fence_lock, flags);
	wake_up_all(&q->space_wq);

	mutex_lock(&q->lock);
	q->torn = true;
	m890_queue_hw_stop(q);
	spin_lock_irqsave(&mdev->hwq_lock, flags);
	mdev->hwq[q->hwq] = NULL;
	spin_unlock_irqrestore(&mdev->hwq_lock, flags);
	m890_fence_process(q);
	m890_fence_fail_all(q, -ECANCELED);
	mutex_unlock(&q->lock);

	cancel_delayed_work_sync(&q->timeout_work);

	mutex_lock(&mdev->queue_lock);
	clear_bit(q->hwq, mdev->hwq_used);
	mutex_unlock(&mdev->queue_lock);
}

static void m890_queue_timeout(struct work_struct *work)
{
	struct m890_queue *q = container_of(to_delayed_work(work), struct m890_queue,
					    timeout_work);
	struct m890_fence *first;
	unsigned long flags;
	u64 seqno = 0;

	/* A card reset behind the driver: the recovery fails the work (-EIO). */
	if (m890_reset_check(q->mdev))
		return;
	m890_fence_process(q);
	spin_lock_irqsave(&q->fence_lock, flags);
	first = list_first_entry_or_null(&q->pending, struct m890_fence, link);
	if (first)
		seqno = first->base.seqno;
	spin_unlock_irqrestore(&q->fence_lock, flags);

	if (!seqno) {
		q->watch_seqno = 0;
		return;
	}
	if (seqno != q->watch_seqno || !READ_ONCE(m890_job_timeout_ms)) {
		q->watch_seqno = seqno;
		m890_queue_watch(q);
		return;
	}

	mutex_lock(&q->lock);
	if (!q->torn) {
		drm_err_ratelimited(&q->mdev->drm, "queue %u (pid %d): seqno %llu timed out\n",
				    q->hwq, q->ctx->pid, seqno);
		m890_queue_hw_stop(q);
		m890_fence_process(q);
		m890_fence_fail_all(q, -ETIMEDOUT);
	}
	mutex_unlock(&q->lock);
}

/*
 * The errno the work of a queue stopped with @code fails with: -EFAULT for
 * an MMU fault, -ENOSPC when MOE_ROUTE or GEMM found an expert over its
 * capacity (a status of the data, spec §7.14, §7.15: the packet completed
 * the writes before it),
 * -EIO for any other error.
 */
static int m890_qerr_errno(u32 code)
{
	switch (code) {
	case M890_QERR_MMU_FAULT:
		return -EFAULT;
	case M890_QERR_CAPACITY:
		return -ENOSPC;
	default:
		return -EIO;
	}
}

/* Execution errors caused by the context's own packets: they make it bad. */
static bool m890_qerr_is_ctx_fault(u32 code)
{
	return code == M890_QERR_MMU_FAULT || code == M890_QERR_BAD_OPCODE ||
	       code == M890_QERR_BAD_FIELD;
}

/*
 * Stop every other queue of @ctx after a fault of @faulted: reset them
 * (without waiting for the stop: this runs under hwq_lock; destroy waits
 * for it), record the context's error as theirs and fail their work with
 * -ECANCELED.
 */
static void m890_ctx_stop_queues(struct m890_device *mdev, struct m890_ctx *ctx,
				 struct m890_queue *faulted)
{
	struct m890_queue *q;
	u32 i;

	lockdep_assert_held(&mdev->hwq_lock);
	for (i = 0; i < mdev->num_queues; i++) {
		q = mdev->hwq[i];
		if (!q || q == faulted || q->ctx != ctx)
			continue;
		m890_wr(mdev, m890_qreg(q, M890_Q_CONTROL), M890_Q_CONTROL_RESET);
		spin_lock(&q->fence_lock);
		if (!q->dead)
			q->dead = ctx->bad;
		spin_unlock(&q->fence_lock);
		m890_fence_process(q);
		m890_fence_fail_all(q, -ECANCELED);
	}
}

/**
 * struct m890_qfault - what the card says about a stopped hardware queue.
 * @hwq: hardware queue.
 * @code: enum m890_qerr from Q_STATUS.
 * @head: Q_ERR_HEAD.
 * @addr: MMU_FAULT_ADDR for an MMU fault, else 0.
 * @info: MMU_FAULT_INFO for an MMU fault, else 0.
 */
struct m890_qfault {
	u32 hwq;
	u32 code;
	u32 head;
	u64 addr;
	u32 info;
};

static void m890_qfault_read(struct m890_device *mdev, struct m890_qfault *qf)
{
	u32 status = m890_rd(mdev, M890_REG_Q(qf->hwq) + M890_Q_STATUS);

	qf->code = (status & M890_Q_STATUS_ERR_MASK) >> M890_Q_STATUS_ERR_SHIFT;
	qf->head = m890_rd(mdev, M890_REG_Q(qf->hwq) + M890_Q_ERR_HEAD);
	if (qf->code == M890_QERR_MMU_FAULT) {
		qf->addr = m890_rd64(mdev, M890_REG_MMU_FAULT_ADDR);
		qf->info = m890_rd(mdev, M890_REG_MMU_FAULT_INFO);
	}
}

/*
 * Fail @q's work for @qf, record it for debugfs and, for a fault of the
 * context, make the context bad and stop its other queues.  Returns true
 * if this made the context bad (the fault to log).
 */
static bool m890_qfault_apply(struct m890_device *mdev, struct m890_queue *q,
			      const struct m890_qfault *qf)
{
	struct m890_ctx *ctx = q->ctx;
	int err = m890_qerr_errno(qf->code);

	lockdep_assert_held(&mdev->hwq_lock);
	m890_fence_process(q);
	m890_fence_fail_all(q, err);
	atomic_inc(&ctx->faults);
	mdev->last_fault.hwq = qf->hwq;
	mdev->last_fault.code = qf->code;
	mdev->last_fault.pid = ctx->pid;
	mdev->last_fault.addr = qf->addr;
	mdev->last_fault.info = qf->info;
	mdev->last_fault.count++;
	/*
	 * A queue of a context that is already bad was reset by the first
	 * fault (which may have cleared its own error code): nothing more.
	 */
	if (ctx->bad || !m890_qerr_is_ctx_fault(qf->code))
		return false;
	WRITE_ONCE(ctx->bad, err);
	m890_ctx_stop_queues(mdev, ctx, q);
	return true;
}

/* Log @qf once per context: the fault that made it bad, or a queue error. */
static void m890_qfault_log(struct m890_device *mdev, struct m890_ctx *ctx,
			    const struct m890_qfault *qf, bool first)
{
	if (first && qf->code == M890_QERR_MMU_FAULT)
		drm_err_ratelimited(&mdev->drm,
				    "pid %d (%s) asid %u: MMU fault at 0x%llx, reason %lu, %s (queue %u); context stopped\n",
				    ctx->pid, ctx->comm, ctx->asid, qf->addr,
				    (unsigned long)((qf->info & M890_FAULT_REASON_MASK) >>
						    M890_FAULT_REASON_SHIFT),
				    qf->info & M890_FAULT_WRITE ? "write" : "read", qf->hwq);
	else if (first)
		drm_err_ratelimited(&mdev->drm,
				    "pid %d (%s) asid %u: error %u at head %u (queue %u); context stopped\n",
				    ctx->pid, ctx->comm, ctx->asid, qf->code, qf->head, qf->hwq);
	else if (!READ_ONCE(ctx->bad))
		drm_err_ratelimited(&mdev->drm, "queue %u (pid %d): error %u at head %u\n",
				    qf->hwq, ctx->pid, qf->code, qf->head);
	else
		m890_dbg(mdev, "queue %u (pid %d): error %u in a stopped context\n",
			 qf->hwq, ctx->pid, qf->code);
}

/**
 * m890_queue_hw_error() - handle a stopped hardware queue.
 * @mdev: device.
 * @hwq: hardware queue index from QERR_STATUS.
 *
 * Completed fences signal normally, the rest with -EFAULT (MMU fault),
 * -ENOSPC (capacity) or -EIO; the queue is dead.  A fault of the context
 * (MMU fault, bad opcode or field) also marks the context bad and stops
 * its other queues (their work fails with -ECANCELED); it is logged once
 * per context.  Other errors (DMA, fabric, ring, unsupported packet) stop
 * only this queue.  A queue that no longer reports an error (destroyed,
 * its hardware queue reused, since the interrupt) is left alone.
 * Context: the event interrupt's thread (m890_pci.c); takes hwq_lock.
 */
void m890_queue_hw_error(struct m890_device *mdev, u32 hwq)
{
	struct m890_qfault qf = { .hwq = hwq };
	struct m890_queue *q;
	bool applied = false, first = false;

	spin_lock_irq(&mdev->hwq_lock);
	q = mdev->hwq[hwq];
	/* The slot's reference: teardown clears the slot before its put. */
	if (q)
		kref_get(&q->ref);
	spin_unlock_irq(&mdev->hwq_lock);
	if (!q)
		return;

	m890_qfault_read(mdev, &qf);
	if (qf.code == M890_QERR_NONE)
		goto out_put;
	spin_lock_irq(&mdev->hwq_lock);
	if (mdev->hwq[hwq] == q) {
		applied = true;
		first = m890_qfault_apply(mdev, q, &qf);
	}
	spin_unlock_irq(&mdev->hwq_lock);
	if (!applied)
		goto out_put;
	m890_qfault_log(mdev, q->ctx, &qf, first);
	if (qf.code == M890_QERR_FABRIC)
		m890_fabric_fault(mdev);
out_put:
	m890_queue_put(&q);
}

/**
 * m890_queues_unplug() - fail the work of every queue of a removed card.
 * @mdev: device, interrupts already freed.
 */
void m890_queues_unplug(struct m890_device *mdev)
{
	u32 i;

	for (i = 0; i < mdev->num_queues; i++) {
		spin_lock_irq(&mdev->hwq_lock);
		if (mdev->hwq[i])
			m890_fence_fail_all(mdev->hwq[i], -ENODEV);
		spin_unlock_irq(&mdev->hwq_lock);
	}
}

/**
 * m890_queues_reset() - fail the work of every queue after a device reset.
 * @mdev: device, just reset: no queue makes progress any more.
 *
 * Completed fences signal normally, the rest with -EIO; each queue stays
 * stopped with -EIO until it is destroyed.
 * Context: process, with @mdev->reset_sem held for writing.
 */
void m890_queues_reset(struct m890_device *mdev)
{
	struct m890_queue *q;
	u32 i;

	lockdep_assert_held_write(&mdev->reset_sem);
	for (i = 0; i < mdev->num_queues; i++) {
		spin_lock_irq(&mdev->hwq_lock);
		q = mdev->hwq[i];
		if (q) {
			m890_fence_process(q);
			m890_fence_fail_all(q, -EIO);
		}
		spin_unlock_irq(&mdev->hwq_lock);
	}
}

/*
 * A new queue of @ctx: its ring, fence word and timeline syncobj, not yet
 * on a hardware queue.  Released with m890_queue_put().
 */
static struct m890_queue *m890_queue_alloc(struct m890_device *mdev, struct m890_ctx *ctx)
{
	struct m890_queue *q;
	int ret;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return ERR_PTR(-ENOMEM);
	q->mdev = mdev;
	kref_init(&q->ref);
	mutex_init(&q->lock);
	spin_lock_init(&q->fence_lock);
	INIT_LIST_HEAD(&q->pending);
	init_waitqueue_head(&q->space_wq);
	INIT_DELAYED_WORK(&q->timeout_work, m890_queue_timeout);
	q->fence_ctx = dma_fence_context_alloc(1);
	q->ctx = ctx;
	kref_get(&ctx->ref);

	q->ring = dma_alloc_coherent(mdev->drm.dev, M890_RING_ALLOC, &q->ring_dma, GFP_KERNEL);
	if (!q->ring) {
		ret = -ENOMEM;
		goto err_free;
	}
	q->fence_cpu = (__le64 *)((u8 *)q->ring + M890_RING_BYTES);
	ret = drm_syncobj_create(&q->syncobj, 0, NULL);
	if (ret)
		goto err_ring;
	return q;

err_ring:
	dma_free_coherent(mdev->drm.dev, M890_RING_ALLOC, q->ring, q->ring_dma);
err_free:
	m890_ctx_put(&q->ctx);
	mutex_destroy(&q->lock);
	kfree(q);
	return ERR_PTR(ret);
}

/*
 * Give @q a free hardware queue and start it.  Returns 0, -EBUSY (none
 * free) or -ENODEV; on error @q holds no hardware queue.
 */
static int m890_queue_hw_claim(struct m890_queue *q)
{
	struct m890_device *mdev = q->mdev;
	u32 hwq;
	int idx;

	mutex_lock(&mdev->queue_lock);
	hwq = find_first_zero_bit(mdev->hwq_used, mdev->num_queues);
	if (hwq >= mdev->num_queues) {
		mutex_unlock(&mdev->queue_lock);
		return -EBUSY;
	}
	set_bit(hwq, mdev->hwq_used);
	mutex_unlock(&mdev->queue_lock);
	q->hwq = hwq;

	if (!drm_dev_enter(&mdev->drm, &idx)) {
		mutex_lock(&mdev->queue_lock);
		clear_bit(hwq, mdev->hwq_used);
		mutex_unlock(&mdev->queue_lock);
		return -ENODEV;
	}
	/* Program a card that holds the driver's setup, not one reset behind it. */
	m890_reset_check(mdev);
	down_read(&mdev->reset_sem);
	spin_lock_irq(&mdev->hwq_lock);
	mdev->hwq[hwq] = q;
	spin_unlock_irq(&mdev->hwq_lock);
	m890_queue_hw_start(q);
	up_read(&mdev->reset_sem);
	drm_dev_exit(idx);
	return 0;
}

/**
 * m890_queue_create_ioctl() - DRM_IOCTL_M890_QUEUE_CREATE.
 * @dev: DRM device.
 * @data: struct drm_m890_queue_create.
 * @file: caller.
 *
 * Return: 0, -EINVAL, -EDQUOT the files of the opener's user own
 * queues_per_user queues of the card (m890_limits.c), -EBUSY no free
 * hardware queue, -ENOMEM, -ENODEV.
 */
int m890_queue_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct m890_file *mfile = file->driver_priv;
	struct drm_m890_queue_create *args = data;
	struct m890_queue *q;
	u32 id, handle;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	ret = m890_limit_queue_get(mfile->ctx->user);
	if (ret)
		return ret;
	q = m890_queue_alloc(to_m890(dev), mfile->ctx);
	if (IS_ERR(q)) {
		m890_limit_queue_put(mfile->ctx->user);
		return PTR_ERR(q);
	}

	/* Reserve the id; lookups see NULL until the queue is stored. */
	ret = xa_alloc_cyclic(&mfile->queues, &id, NULL, xa_limit_31b, &mfile->queue_next,
			      GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	q->id = id;
	ret = m890_queue_hw_claim(q);
	if (ret)
		goto err_id;

	ret = drm_syncobj_get_handle(file, q->syncobj, &handle);
	if (ret)
		goto err_stop;

	/* Publish: from here the queue belongs to the file's xarray. */
	xa_store(&mfile->queues, id, q, GFP_KERNEL);
	args->queue_id = id;
	args->syncobj = handle;
	m890_dbg(q->mdev, "queue %u on hw queue %u, asid %u\n", id, q->hwq, q->ctx->asid);
	return 0;

err_stop:
	m890_queue_teardown(q);
	xa_erase(&mfile->queues, id);
	m890_queue_put(&q);
	m890_limit_queue_put(mfile->ctx->user);
	return ret;
err_id:
	xa_erase(&mfile->queues, id);
err_free:
	m890_queue_put(&q);
	m890_limit_queue_put(mfile->ctx->user);
	return ret;
}

/**
 * m890_queue_destroy_ioctl() - DRM_IOCTL_M890_QUEUE_DESTROY.
 * @dev: DRM device.
 * @data: struct drm_m890_queue_destroy.
 * @file: caller.
 *
 * Return: 0, -EINVAL non-zero pad, -ENOENT unknown queue.
 */
int m890_queue_destroy_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct m890_file *mfile = file->driver_priv;
	struct drm_m890_queue_destroy *args = data;
	struct m890_queue *q;

	if (args->pad)
		return -EINVAL;
	xa_lock(&mfile->queues);
	q = xa_load(&mfile->queues, args->queue_id);
	if (q)
		__xa_erase(&mfile->queues, args->queue_id);
	xa_unlock(&mfile->queues);
	if (!q)
		return -ENOENT;

	m890_queue_teardown(q);
	/* Drop the xarray's reference. */
	m890_queue_put(&q);
	m890_limit_queue_put(mfile->ctx->user);
	return 0;
}

/**
 * m890_file_queues_fini() - destroy every queue of a closing file.
 * @mfile: file.
 */
void m890_file_queues_fini(struct m890_file *mfile)
{
	struct m890_queue *q;
	unsigned long id;

	xa_for_each(&mfile->queues, id, q) {
		xa_erase(&mfile->queues, id);
		m890_queue_teardown(q);
		m890_queue_put(&q);
		m890_limit_queue_put(mfile->ctx->user);
	}
}

/**
 * m890_queue_state() - fill DRM_M890_QUERY_QUEUE_STATE.
 * @mfile: caller's file.
 * @st: in: queue_id; the rest is filled in.
 *
 * Return: 0 or -ENOENT.
 */
int m890_queue_state(struct m890_file *mfile, struct drm_m890_queue_state *st)
{
	struct m890_queue *q = m890_queue_lookup(mfile, st->queue_id);

	if (!q)
		return -ENOENT;
	m890_fence_process(q);
	st->error = READ_ONCE(q->dead) ?: READ_ONCE(q->ctx->bad);
	st->submitted_seqno = READ_ONCE(q->seqno);
	st->completed_seqno = le64_to_cpu(READ_ONCE(*q->fence_cpu));
	m890_queue_put(&q);
	return 0;
}

/* Free ring slots; also read without @q->lock by a waiting submitter. */
static u32 m890_queue_space(struct m890_queue *q)
{
	return M890_RING_ENTRIES - (READ_ONCE(q->tail) - READ_ONCE(q->done_tail));
}

/* Write @count packets and a FENCE for @f into the ring; ring the doorbell. */
static void m890_queue_push(struct m890_queue *q, const union m890_packet *pkts, u32 count,
			    struct m890_fence *f)
{
	union m890_packet *slot;
	u32 i;

	lockdep_assert_held(&q->lock);
	f->end_tail = q->tail + count + 1;
	f->submitted = ktime_get();
	/*
	 * The pending list holds its own reference until the fence signals.
	 * A queue stopped since the caller's check fails @f at once instead.
	 */
	dma_fence_get(&f->base);
	if (!m890_fence_track(q, f))
		return;
	for (i = 0; i < count; i++)
		memcpy(&q->ring[(q->tail + i) & (M890_RING_ENTRIES - 1)], &pkts[i],
		       sizeof(*pkts));
	slot = &q->ring[(q->tail + count) & (M890_RING_ENTRIES - 1)];
	memset(slot, 0, sizeof(*slot));
	slot->fence.flags = (__force u32)cpu_to_le32(M890_FENCE_F_IRQ);
	slot->fence.value = (__force u64)cpu_to_le64(f->base.seqno);
	slot->fence.hdr = (__force u32)cpu_to_le32(M890_PKT_HDR(M890_PKT_FENCE, 0));
	WRITE_ONCE(q->tail, q->tail + count + 1);

	/* writel() orders the ring stores before the doorbell. */
	m890_wr(q->mdev, M890_REG_DOORBELL(q->hwq), q->tail);
}

/*
 * Why @q takes no work, checked under @q->lock: 0 if it does; -ENOENT for
 * a queue being destroyed; -EIO for one stopped by an error, a timeout or
 * a reset, or in a context made bad by a fault.
 */
static int m890_queue_refuses(struct m890_queue *q)
{
	int dead = READ_ONCE(q->dead);

	lockdep_assert_held(&q->lock);
	if (q->torn)
		return -ENOENT;
	if (READ_ONCE(q->ctx->bad))
		return -EIO;
	if (dead)
		return dead == -ECANCELED ? -ENOENT : -EIO;
	return 0;
}

/*
 * Stage 1 of a submission: copy the user's @args->count packets into a
 * kernel buffer and check each there, so nothing changes after the checks.
 * Returns the buffer (kvfree()) or an ERR_PTR: -ENOMEM, -EFAULT, -EINVAL.
 */
static union m890_packet *m890_submit_copy(struct m890_device *mdev,
					   const struct drm_m890_submit *args)
{
	union m890_packet *pkts;
	u32 i;

	pkts = kvmalloc_array(args->count, sizeof(*pkts), GFP_KERNEL);
	if (!pkts)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(pkts, u64_to_user_ptr(args->packets),
			   (size_t)args->count * sizeof(*pkts))) {
		kvfree(pkts);
		return ERR_PTR(-EFAULT);
	}
	for (i = 0; i < args->count; i++) {
		if (!m890_packet_valid(mdev, &pkts[i])) {
			kvfree(pkts);
			return ERR_PTR(-EINVAL);
		}
	}
	return pkts;
}

/*
 * Stage 2: wait until @q's ring has @slots free slots.  Ring space is
 * awaited with neither @q->lock nor drm_dev_enter() held, so the job
 * timeout (which takes @q->lock), queue destruction and device removal
 * are never held up by a waiting submitter; the queue is checked again
 * under the lock after each wait.  Returns 0 with @q->lock held and the
 * device entered (*@idx), or -ENODEV, -ENOENT, -EIO, -EAGAIN (ring full
 * for M890_RING_TIMEOUT), -EINTR or -ERESTARTSYS with neither.
 */
static int m890_submit_wait_space(struct m890_queue *q, u32 slots, int *idx)
{
	long wret, wait_left = M890_RING_TIMEOUT;
	int ret;

	for (;;) {
		if (!drm_dev_enter(&q->mdev->drm, idx))
			return -ENODEV;
		ret = mutex_lock_interruptible(&q->lock);
		if (ret)
			goto out_exit;
		ret = m890_queue_refuses(q);
		if (ret)
			goto out_unlock;
		if (m890_queue_space(q) >= slots)
			return 0;
		mutex_unlock(&q->lock);
		drm_dev_exit(*idx);
		if (!wait_left)
			return -EAGAIN;
		wret = wait_event_interruptible_timeout(q->space_wq,
							READ_ONCE(q->dead) ||
							m890_queue_space(q) >= slots,
							wait_left);
		if (wret < 0)
			return wret;
		/* Once time is up, one last look under the lock. */
		wait_left = wret;
	}

out_unlock:
	mutex_unlock(&q->lock);
out_exit:
	drm_dev_exit(*idx);
	return ret;
}

/*
 * Stage 3: with @q->lock held and ring space for @count + 1 slots, lock
 * the reservation objects the job fences, give @f the next seqno, fence
 * them, push the packets and add @f to the timeline syncobj (@chain is
 * used up on success).  Returns 0 or -ENOMEM, -EINTR, -ERESTARTSYS, -EIO,
 * -ENOENT with nothing pushed and @f still unused.
 */
static int m890_submit_push(struct m890_queue *q, const union m890_packet *pkts, u32 count,
			    struct m890_fence *f, struct dma_fence_chain *chain)
{
	struct m890_device *mdev = q->mdev;
	struct m890_job_resv jr = { };
	int ret;

	lockdep_assert_held(&q->lock);
	ret = m890_job_resv_lock(q->ctx, &jr);
	if (ret)
		return ret;
	/* Lock order: reservations, then reset_sem (see m890_drv.h). */
	down_read(&mdev->reset_sem);
	ret = m890_queue_refuses(q);
	if (ret) {
		up_read(&mdev->reset_sem);
		m890_job_resv_unlock(&jr);
		return ret;
	}
	m890_fence_init(q, f, ++q->seqno);
	/*
	 * The fence takes over the shared BOs' references: once it is on the
	 * pending list it may signal and drop them at any time, so the
	 * reservations are fenced and unlocked first.
	 */
	f->bos = jr.objs;
	f->nbos = jr.nobjs;
	if (f->nbos) {
		f->dev = &mdev->drm;
		drm_dev_get(f->dev);
	}
	m890_job_resv_fence(&jr, &f->base);
	m890_queue_push(q, pkts, count, f);
	up_read(&mdev->reset_sem);
	drm_syncobj_add_point(q->syncobj, chain, &f->base, f->base.seqno);
	m890_queue_watch(q);
	return 0;
}

/**
 * m890_submit_ioctl() - DRM_IOCTL_M890_SUBMIT.
 * @dev: DRM device.
 * @data: struct drm_m890_submit.
 * @file: caller.
 *
 * Copies and checks the packets, waits for ring space, then fences and
 * pushes them (the three stages above).
 * Return: 0 with the new seqno, or -EINVAL, -EFAULT, -ENOENT, -EIO (queue
 * stopped, or its context is bad after a fault), -EAGAIN (ring full for too
 * long), -ERESTARTSYS, -ENODEV.
 */
int m890_submit_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct m890_file *mfile = file->driver_priv;
	struct drm_m890_submit *args = data;
	struct dma_fence_chain *chain = NULL;
	struct m890_fence *f = NULL;
	union m890_packet *pkts;
	struct m890_queue *q;
	int idx, ret;

	BUILD_BUG_ON(sizeof(union m890_packet) != M890_PKT_SIZE);
	if (args->flags || args->pad)
		return -EINVAL;
	if (!args->count || args->count > M890_MAX_SUBMIT)
		return -EINVAL;

	q = m890_queue_lookup(mfile, args->queue_id);
	if (!q)
		return -ENOENT;
	pkts = m890_submit_copy(q->mdev, args);
	if (IS_ERR(pkts)) {
		ret = PTR_ERR(pkts);
		goto out_put;
	}
	f = m890_fence_alloc();
	chain = dma_fence_chain_alloc();
	if (!f || !chain) {
		ret = -ENOMEM;
		goto out_free;
	}

	ret = m890_submit_wait_space(q, args->count + 1, &idx);
	if (ret)
		goto out_free;
	ret = m890_submit_push(q, pkts, args->count, f, chain);
	mutex_unlock(&q->lock);
	drm_dev_exit(idx);
	if (!ret) {
		args->seqno = f->base.seqno;
		/* Drop the creation reference; the list and the syncobj hold theirs. */
		dma_fence_put(&f->base);
		f = NULL;
		chain = NULL;
	}

out_free:
	dma_fence_chain_free(chain);
	kfree(f);
	kvfree(pkts);
out_put:
	m890_queue_put(&q);
	return ret;
}
