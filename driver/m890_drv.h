/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: the device, the open file and the lock order.  Each
 * .c has its own header for its types and calls (m890_gem.h, m890_mmu.h,
 * m890_queue.h, ...); this one is included by all of them.
 *
 * Lock order (outer first):
 *   m890_fabric_lock (global) > m890_device.sw_lock
 *   m890_file.queue_lock (xarray) > m890_queue.lock > m890_device.hwq_lock
 *   m890_queue.lock > m890_queue.fence_lock
 *   m890_ctx.lock > m890_device.mmu_lock
 *   m890_peer_lock (global, m890_p2p.c) > m890_bo.map_lock
 *   m890_bo.map_lock > BO reservation (shmem pages) > m890_ctx.lock
 *   m890_bo.map_lock > m890_ctx.park_lock (leaf)
 *   m890_queue.lock > BO reservations (ww: the context's shared one and
 *     those of its imports) > m890_device.reset_sem (read)
 *     > m890_device.hwq_lock
 *   m890_queue.lock > m890_ctx.shared_lock (leaf)
 *   m890_queue.lock > m890_device.reset_sem (read: stopping a queue)
 *   m890_device.reset_sem (write: device reset, FLR) > m890_device.sw_lock
 *   m890_device.xvm_lock > m890_device.sw_lock
 *   m890_device.xvm_lock > m890_bo.map_lock > m890_ctx.lock (a revoke
 *     clears every mapping of the local windows on an export)
 *   m890_device.hbm_lock is a leaf.
 *   m890_device.mmu_lock > m890_device.users (xarray lock).
 * hwq_lock and fence_lock are taken from hard IRQ context (irqsave); queue
 * errors run in the event interrupt's thread, which takes hwq_lock with
 * interrupts off.
 */
#ifndef M890_DRV_H
#define M890_DRV_H

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/ktime.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_mm.h>
#include <drm/drm_print.h>

/* Kbuild defines M890_HAVE_CONFIG_H when the probes wrote the header. */
#ifdef M890_HAVE_CONFIG_H
#include "m890_config.h"
#else
#define M890_HAVE_DRM_DRIVER_DATE 1	/* plain 6.12 */
#endif

#include "m890_regs.h"
#include "drm/m890_accel.h"

#define M890_DRIVER_NAME	"m890"
#define M890_DRIVER_DESC	"M890 AI accelerator"

/* Device VA layout of every context (reported by DEVICE_INFO). */
#define M890_VA_START		(4ull << 30)
#define M890_VA_END		(1ull << (M890_VA_BITS - 1))
#define M890_VA_SIZE		(M890_VA_END - M890_VA_START)

#define M890_HBM_ALIGN		SZ_64K
#define M890_RING_ORDER		10
#define M890_RING_ENTRIES	BIT(M890_RING_ORDER)
#define M890_MAX_SUBMIT		(M890_RING_ENTRIES - 1)
#define M890_MAX_CTX		256
#define M890_MAX_QVEC		16	/* queue MSI-X vectors per card */

#define m890_dbg(mdev, fmt, ...) drm_dbg_driver(&(mdev)->drm, fmt, ##__VA_ARGS__)

struct m890_bo;
struct m890_ctx;
struct m890_queue;
struct m890_xvm_win;

/**
 * struct m890_device - one M890 card.
 * @drm: DRM device, the devres-managed container.
 * @pdev: PCI function.
 * @regs: BAR0 mapping.
 * @hbm_phys: CPU physical address of BAR2 (HBM aperture).
 * @hbm_size: bytes of HBM.
 * @version: the card's spec version (REG_VERSION), major << 16 | minor.
 * @caps: M890_HWCAP_*.
 * @num_queues: hardware queues.
 * @fabric_id: card's fabric id or M890_FABRIC_ID_NONE.
 * @fabric_port: switch port.
 * @hbm_lock: protects @hbm_mm.
 * @hbm_mm: HBM allocator (byte offsets into BAR2).
 * @mmu_lock: protects @ctx_table, @asid_ida, @users and MMU_INVALIDATE.
 * @ctx_table: context descriptor array (coherent DMA).
 * @ctx_table_dma: its bus address.
 * @ctx_count: descriptors in @ctx_table.
 * @asid_ida: ASID allocator (1..ctx_count-1; 0 is never valid).
 * @users: uid to &struct m890_user, what each user with a context on the
 *         card holds, for the per-user limits (m890_limits.c); under
 *         @mmu_lock.
 * @queue_lock: protects @hwq_used.
 * @hwq_used: bitmap of hardware queues that are owned by a queue.
 * @hwq_lock: protects @hwq for the IRQ handlers.
 * @hwq: hardware queue index to queue, for the IRQ handlers.
 * @files_lock: protects @files (debugfs).
 * @files: open files.
 * @sw_lock: serializes the switch management window.
 * @xvm_lock: protects @xvm_exports, @xvm_windows and the export state of
 *            the card's BOs (m890_xvm.c).
 * @xvm_exports: switch export slots in use by BOs of this card.
 * @xvm_slot_bo: the BO exported in each slot (no reference: the BO's
 *               free revokes the export first).
 * @xvm_windows: &struct m890_xvm_win of windows this card has open.
 * @xvm_local: window BOs of cards of this system on this card's exports
 *             (m890_bo.window_link), whose PTEs a revoke clears.
 * @fabric_link: entry in the global list of fabric-attached cards.
 * @fabric_work: sends netlink notifications for fabric events.
 * @evt_sw: last port/state seen in SW_EVENT, for @fabric_work.
 * @qerr_pending: QERR_STATUS bits the event interrupt acknowledged and
 *                its thread has not handled yet.
 * @fabric_faults: queue stops by a fabric refusal not yet announced.
 * @fabric_fault_addr: faulting VA of the last of them.
 * @num_vec: MSI-X vectors in use, events and queues.
 * @num_qvec: vectors that serve queues; queue q completes on vector
 *            @qvec_base + q % @num_qvec.
 * @qvec_base: first of them: 1, or 0 when one vector serves everything.
 * @irq_ctx: per-vector cookie for the queue IRQ handlers.
 * @hbm_used: bytes of HBM allocated to BOs, all clients.
 * @reset_sem: taken for writing by a device reset, for reading by code
 *             that programs a hardware queue, so nothing reaches a queue
 *             while the card is being reset.
 * @reset_count: device resets since probe.
 * @last_fault: last execution error, for debugfs (under @hwq_lock).
 */
struct m890_device {
	struct drm_device drm;
	struct pci_dev *pdev;
	void __iomem *regs;
	phys_addr_t hbm_phys;
	u64 hbm_size;
	u32 version;
	u32 caps;
	u32 num_queues;
	u32 fabric_id;
	u32 fabric_port;

	struct mutex hbm_lock;	/* hbm_mm */
	struct drm_mm hbm_mm;

	struct mutex mmu_lock;	/* ctx_table, asid_ida, users, MMU_INVALIDATE */
	u8 *ctx_table;
	dma_addr_t ctx_table_dma;
	u32 ctx_count;
	struct ida asid_ida;
	struct xarray users;

	struct mutex queue_lock;	/* hwq_used */
	DECLARE_BITMAP(hwq_used, M890_MAX_QUEUES);
	spinlock_t hwq_lock;	/* hwq[], taken in IRQ handlers */
	struct m890_queue *hwq[M890_MAX_QUEUES];

	struct mutex files_lock;	/* files */
	struct list_head files;

	struct mutex sw_lock;	/* switch window registers */
	struct mutex xvm_lock;	/* xvm_exports, xvm_windows, BO export state */
	DECLARE_BITMAP(xvm_exports, M890_SW_EXPORTS);
	struct m890_bo *xvm_slot_bo[M890_SW_EXPORTS];
	struct list_head xvm_windows;
	struct list_head xvm_local;
	struct list_head fabric_link;
	struct work_struct fabric_work;
	u32 evt_sw;
	atomic64_t qerr_pending;
	atomic_t fabric_faults;
	u64 fabric_fault_addr;
	u32 num_vec;
	u32 num_qvec;
	u32 qvec_base;

	struct m890_qirq {
		struct m890_device *mdev;
		u32 q;
	} irq_ctx[M890_MAX_QVEC];

	atomic64_t hbm_used;
	struct rw_semaphore reset_sem;	/* device reset vs. queue programming */
	atomic_t reset_count;
	struct {
		u64 addr;
		u32 hwq;
		u32 code;
		u32 info;
		pid_t pid;
		u32 count;
	} last_fault;
};

#define to_m890(d) container_of(d, struct m890_device, drm)

/**
 * struct m890_file - per open file state.
 * @mdev: device.
 * @ctx: the file's address space (one reference).
 * @queues: queue id to queue; ids are allocated cyclically.
 * @queue_next: cyclic allocation hint for @queues.
 * @link: entry in m890_device.files.
 */
struct m890_file {
	struct m890_device *mdev;
	struct m890_ctx *ctx;
	struct xarray queues;
	u32 queue_next;
	struct list_head link;
};

static inline u32 m890_rd(struct m890_device *mdev, u32 reg)
{
	return readl(mdev->regs + reg);
}

static inline void m890_wr(struct m890_device *mdev, u32 reg, u32 val)
{
	writel(val, mdev->regs + reg);
}

static inline u64 m890_rd64(struct m890_device *mdev, u32 reg)
{
	u64 lo = readl(mdev->regs + reg);

	return lo | ((u64)readl(mdev->regs + reg + 4) << 32);
}

static inline void m890_wr64(struct m890_device *mdev, u32 reg, u64 val)
{
	writel(lower_32_bits(val), mdev->regs + reg);
	writel(upper_32_bits(val), mdev->regs + reg + 4);
}

/* m890_drv.c */
extern const struct drm_driver m890_drm_driver;
extern struct workqueue_struct *m890_wq;

#endif /* M890_DRV_H */
