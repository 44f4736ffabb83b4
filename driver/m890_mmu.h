/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: device MMU contexts and page tables (m890_mmu.c).
 */
#ifndef M890_MMU_H
#define M890_MMU_H

#include <linux/dma-resv.h>
#include <linux/kref.h>
#include <linux/sched.h>

#include <drm/drm_mm.h>

#include "m890_drv.h"

struct m890_user;

/**
 * struct m890_ctx - a device address space (one per open file).
 * @mdev: owning device.
 * @ref: held by the file and by every BO mapped in this context, so the
 *       page tables outlive the file while BOs (e.g. exported) remain.
 * @lock: protects @va_mm and the page-table tree.
 * @asid: hardware context id, 0 once released.
 * @root: top-level table.
 * @retired: empty level-0 tables replaced by a 2 MiB entry, kept (linked
 *           through m890_pt.next) until the context is freed, so the card
 *           never walks freed memory.
 * @va_mm: VA allocator over [M890_VA_START, M890_VA_END).
 * @bad: 0, or the negative errno (-EFAULT MMU fault, -EIO bad packet) of
 *       the fault that made the context bad: every queue of the context
 *       is stopped then and submissions fail (see m890_queue.c).  Written
 *       once, under &m890_device.hwq_lock; read locklessly.
 * @pid: thread-group id of the opener, for fault logs.
 * @comm: command name of the opener, for fault logs.
 * @hbm_bytes: bytes of this card's HBM mapped in the context (the BOs the
 *             file created); returns to 0 when they are all freed.
 * @user: what the opener's user (real uid) holds on the card, one
 *        reference until the context is freed: the context's ASID, its
 *        queues and its live host BOs count there against the per-user
 *        limits (m890_limits.c).
 * @busy_ns: nanoseconds during which at least one of the context's queues
 *           had work outstanding, accumulated as fences signal.
 * @faults: execution errors (MMU faults and others) of its queues.
 * @park_lock: protects @parked (a leaf lock).
 * @parked: import mappings (&struct m890_bo_va.park_link) whose handle was
 *          closed while the BO was busy; dropped when the file closes or
 *          the BO is freed, or taken back by a new handle (m890_gem.c).
 * @resv: reservation object shared by every BO the file created (their
 *        &drm_gem_object.resv points here): one fence per submission
 *        covers them all, however many there are (m890_gem.c, "shared
 *        reservation").
 * @shared_lock: protects @shared.
 * @shared: &struct m890_shared_bo of the BOs the file has handles to whose
 *          reservation object is another (imports, windows, other files'
 *          BOs): each submission fences those explicitly.
 * @nshared: entries in @shared.
 * @frees: BOs sharing @resv whose free waits for fences (m890_gem.c).
 * @frees_wq: woken when @frees drops to 0.
 */
struct m890_ctx {
	struct m890_device *mdev;
	struct kref ref;
	struct mutex lock;	/* VA allocator and page tables */
	u32 asid;
	struct m890_pt *root;
	struct m890_pt *retired;
	struct drm_mm va_mm;
	int bad;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	atomic64_t hbm_bytes;
	struct m890_user *user;
	atomic64_t busy_ns;
	atomic_t faults;
	spinlock_t park_lock;	/* parked */
	struct list_head parked;
	struct dma_resv resv;
	struct mutex shared_lock;	/* shared, nshared */
	struct list_head shared;
	u32 nshared;
	atomic_t frees;
	wait_queue_head_t frees_wq;
};

/**
 * struct m890_pt - one page table (512 entries) and its children.
 * @cpu: CPU view of the table (coherent DMA memory).
 * @dma: bus address written into the parent entry.
 * @child: lower-level tables (NULL for level 0).
 * @next: next table on m890_ctx.retired.
 */
struct m890_pt {
	u64 *cpu;
	dma_addr_t dma;
	struct m890_pt **child;
	struct m890_pt *next;
};

int m890_mmu_hw_init(struct m890_device *mdev);
void m890_mmu_hw_enable(struct m890_device *mdev);
void m890_mmu_hw_fini(struct m890_device *mdev);
struct m890_ctx *m890_ctx_create(struct m890_device *mdev);
void m890_ctx_release(struct m890_ctx *ctx);
void m890_ctx_put(struct m890_ctx **ctx);
int m890_ctx_va_alloc(struct m890_ctx *ctx, struct drm_mm_node *node, u64 size);
void m890_ctx_va_free(struct m890_ctx *ctx, struct drm_mm_node *node);
int m890_mmu_map(struct m890_ctx *ctx, u64 va, u64 addr, u64 size, u64 flags, u32 *large);
void m890_mmu_unmap(struct m890_ctx *ctx, u64 va, u64 size);
void m890_mmu_invalidate(struct m890_ctx *ctx);

#endif /* M890_MMU_H */
