/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: queues and submission (m890_queue.c).
 */
#ifndef M890_QUEUE_H
#define M890_QUEUE_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "m890_drv.h"

/**
 * struct m890_queue - a hardware queue owned by a file.
 * @mdev: device.
 * @ref: held by the file's xarray and by each ioctl using the queue.
 * @lock: serializes submissions and destruction; protects @tail, @seqno.
 * @hwq: hardware queue index.
 * @id: id in the file.
 * @ctx: address space (one reference).
 * @ring: ring slots (coherent DMA), followed by the fence word.
 * @ring_dma: bus address of @ring.
 * @fence_cpu: the fence word written by the device.
 * @tail: free-running slot counter (next doorbell value).
 * @seqno: last submitted sequence number.
 * @fence_ctx: dma_fence context.
 * @fence_lock: protects @pending, @done_tail and @dead.
 * @pending: unsignalled m890_fence, oldest first.
 * @done_tail: ring tail behind the last completed fence.
 * @dead: error code once the queue stopped (0 while running).
 * @space_wq: woken when ring space frees up or the queue dies.
 * @syncobj: timeline syncobj (one reference).
 * @torn: set under @lock once the hardware queue was given back.
 * @watch_seqno: oldest pending seqno seen by the last timeout check.
 * @timeout_work: job timeout check.
 * @last_done: when the previous fence signalled (under @fence_lock), so
 *             overlapping submissions count once in the busy time.
 */
struct m890_queue {
	struct m890_device *mdev;
	struct kref ref;
	struct mutex lock;	/* submission vs. teardown, tail, seqno */
	u32 hwq;
	u32 id;
	struct m890_ctx *ctx;
	union m890_packet *ring;
	dma_addr_t ring_dma;
	__le64 *fence_cpu;
	u32 tail;
	u64 seqno;
	u64 fence_ctx;
	spinlock_t fence_lock;	/* pending, done_tail, dead (IRQ) */
	struct list_head pending;
	u32 done_tail;
	int dead;
	wait_queue_head_t space_wq;
	struct drm_syncobj *syncobj;
	bool torn;
	u64 watch_seqno;
	struct delayed_work timeout_work;
	ktime_t last_done;
};

extern unsigned int m890_job_timeout_ms;
int m890_queue_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int m890_queue_destroy_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int m890_submit_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
void m890_file_queues_fini(struct m890_file *mfile);
int m890_queue_state(struct m890_file *mfile, struct drm_m890_queue_state *st);
void m890_queue_hw_error(struct m890_device *mdev, u32 q);
void m890_queues_unplug(struct m890_device *mdev);
void m890_queues_reset(struct m890_device *mdev);

#endif /* M890_QUEUE_H */
