/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: shared types.
 *
 * Lock order (outer first):
 *   m890_fabric_lock (global) > m890_device.sw_lock
 *   m890_file.queue_lock (xarray) > m890_queue.lock > m890_device.hwq_lock
 *   m890_queue.lock > m890_queue.fence_lock
 *   m890_ctx.lock > m890_device.mmu_lock
 *   m890_peer_lock (global, m890_p2p.c) > m890_bo.map_lock
 *   m890_bo.map_lock > BO reservation (shmem pages) > m890_ctx.lock
 *   m890_bo.map_lock > m890_ctx.park_lock (leaf)
 *   m890_queue.lock > BO reservations (ww) > m890_device.reset_sem (read)
 *     > m890_device.hwq_lock
 *   m890_queue.lock > m890_device.reset_sem (read: stopping a queue)
 *   m890_device.reset_sem (write: device reset, FLR) > m890_device.sw_lock
 *   m890_device.xvm_lock > m890_device.sw_lock
 *   m890_device.xvm_lock > m890_bo.map_lock > m890_ctx.lock (a revoke
 *     clears every mapping of the local windows on an export)
 *   m890_device.hbm_lock is a leaf.
 *   m890_device.mmu_lock > m890_device.ctx_users (xarray lock).
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

struct m890_queue;
struct m890_file;
struct m890_xvm_win;

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
 * @host_bytes: bytes of the host BOs the file created that are alive,
 *              counted against host_mb_per_file (m890_limits.c).
 * @uid: real uid of the opener; its ASID counts against contexts_per_user.
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
	atomic64_t host_bytes;
	kuid_t uid;
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
 * @mmu_lock: protects @ctx_table, @asid_ida and MMU_INVALIDATE.
 * @ctx_table: context descriptor array (coherent DMA).
 * @ctx_table_dma: its bus address.
 * @ctx_count: descriptors in @ctx_table.
 * @asid_ida: ASID allocator (1..ctx_count-1; 0 is never valid).
 * @ctx_users: ASIDs in use per uid (xa value entries), for the
 *             contexts_per_user limit; under @mmu_lock.
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

	struct mutex mmu_lock;	/* ctx_table, asid_ida, MMU_INVALIDATE */
	u8 *ctx_table;
	dma_addr_t ctx_table_dma;
	u32 ctx_count;
	struct ida asid_ida;
	struct xarray ctx_users;

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
 * @nqueues: queues of the file, created or being created, counted against
 *            queues_per_file (m890_limits.c).
 * @link: entry in m890_device.files.
 */
struct m890_file {
	struct m890_device *mdev;
	struct m890_ctx *ctx;
	struct xarray queues;
	u32 queue_next;
	atomic_t nqueues;
	struct list_head link;
};

enum m890_bo_kind {
	M890_BO_KIND_HOST,
	M890_BO_KIND_HBM,
	M890_BO_KIND_PEER,
};

/**
 * struct m890_bo_va - mapping of a BO in the context of a file that
 * imported it (a dma-buf of a BO of the same card opened by another file).
 * @link: entry in m890_bo.imports.
 * @ctx: the importer's context (one reference).
 * @node: VA range in @ctx.
 * @handles: handles of the importing file to the BO; the mapping goes
 *           with the last of them (m890_bo_close()), or is parked.
 * @bo: the BO (no reference: the entry goes with the BO).
 * @park_link: entry in m890_ctx.parked while parked, else empty.
 */
struct m890_bo_va {
	struct list_head link;
	struct m890_ctx *ctx;
	struct drm_mm_node node;
	u32 handles;
	struct m890_bo *bo;
	struct list_head park_link;
};

/**
 * struct m890_bo - any M890 buffer object.
 * @shmem: GEM shmem object; only host BOs use its pages, the others use
 *         only @shmem.base.
 * @kind: enum m890_bo_kind.
 * @ctx: context the BO is mapped in (one reference), NULL if unmapped:
 *       the creator's, or for a peer window the first opener's.
 * @va_node: VA range in @ctx.
 * @large_ptes: 2 MiB PTEs of the mapping in @ctx (for debugfs).
 * @map_lock: protects @ctx on a peer window's first open, and @imports.
 *            Not the reservation lock: mapping a host BO takes that one.
 * @imports: &struct m890_bo_va of other files of the card that opened the
 *           BO through a dma-buf; each is unmapped when its file's last
 *           handle to the BO goes (or with the BO).
 * @hbm_node: HBM range (HBM BOs).
 * @dummy_page: page that CPU mappings of an HBM BO show once the card is
 *              gone (allocated on the first such fault, freed with the BO).
 * @peer_buf: exporter's dma-buf (peer windows, one reference).
 * @peer_offset: HBM offset on the peer (peer windows).
 * @peer_fabric_id: fabric id of the peer (peer windows).
 * @exported: an HBM BO offered to other VMs (under m890_device.xvm_lock).
 * @export_slot: its switch export slot.
 * @export_key: its key.
 * @window: for a window opened by DRM_M890_FABRIC_IMPORT, the card's count
 *          of windows on that export (one reference, m890_xvm.c).
 * @window_owner: for a window on a card of this system, that card (a
 *                reference on its DRM device); NULL otherwise.
 * @window_slot: the export slot of the window.
 * @window_link: entry in the owner's m890_device.xvm_local (under its
 *               xvm_lock), empty once revoked.
 * @peer_dev: exporting card (peer windows); compared only, never
 *            dereferenced: @peer_buf keeps that &drm_device allocated.
 * @peer_link: entry in the list of live peer windows (m890_p2p.c).
 * @revoked: the exporting card's driver instance went away or the export
 *           was revoked; the window's PTEs are cleared in every context
 *           and it is never mapped again (m890_bo_revoke(), under
 *           @map_lock).
 * @resv_ctx: the context whose &m890_ctx.resv the BO uses as its own (one
 *            reference, dropped after the BO's last use of it), NULL for
 *            a BO with its own reservation object (peer and fabric windows).
 * @free_cb: callback on @free_fence for a free that waits (m890_gem.c).
 * @free_fence: the fences of @resv_ctx's jobs pending at the BO's free.
 * @free_work: frees the BO once @free_fence signalled (process context).
 * @free_destroy: what @free_work calls to free the BO.
 */
struct m890_bo {
	struct drm_gem_shmem_object shmem;
	enum m890_bo_kind kind;
	struct m890_ctx *ctx;
	struct drm_mm_node va_node;
	u32 large_ptes;
	struct mutex map_lock;	/* ctx (first open), imports */
	struct list_head imports;
	struct drm_mm_node hbm_node;
	struct page *dummy_page;
	struct dma_buf *peer_buf;
	u64 peer_offset;
	u32 peer_fabric_id;
	bool exported;
	u32 export_slot;
	u64 export_key;
	struct m890_xvm_win *window;
	struct m890_device *window_owner;
	u32 window_slot;
	struct list_head window_link;
	struct m890_device *peer_dev;
	struct list_head peer_link;
	bool revoked;
	struct m890_ctx *resv_ctx;
	struct dma_fence_cb free_cb;
	struct dma_fence *free_fence;
	struct work_struct free_work;
	void (*free_destroy)(struct m890_bo *bo);
};

static inline struct m890_bo *to_m890_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct m890_bo, shmem.base);
}

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

void m890_show_fdinfo(struct drm_printer *p, struct drm_file *file);

/* m890_pci.c */
int m890_hw_reset(struct m890_device *mdev);
int m890_device_reset(struct m890_device *mdev);
void m890_reset_prepare(struct m890_device *mdev);
int m890_reset_done(struct m890_device *mdev, int ret);
bool m890_reset_check(struct m890_device *mdev);
int m890_pci_register(void);
void m890_pci_unregister(void);

/* m890_gem.c */
struct drm_gem_object *m890_gem_create_object(struct drm_device *dev, size_t size);
int m890_bo_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int m890_bo_info_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int m890_bo_wait_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int m890_bo_map(struct m890_bo *bo, struct m890_ctx *ctx);
void m890_bo_unmap(struct m890_bo *bo);
void m890_bo_init(struct m890_bo *bo, enum m890_bo_kind kind);
void m890_bo_revoke(struct m890_bo *bo);
int m890_bo_open(struct drm_gem_object *obj, struct drm_file *file);
void m890_bo_close(struct drm_gem_object *obj, struct drm_file *file);
void m890_ctx_unpark(struct m890_ctx *ctx);
u64 m890_bo_va(struct m890_bo *bo, struct m890_ctx *ctx);
void m890_hbm_init(struct m890_device *mdev);
void m890_hbm_fini(struct m890_device *mdev);
extern const struct drm_gem_object_funcs m890_peer_funcs;

/* m890_mmu.c */
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

/* m890_queue.c */
extern unsigned int m890_job_timeout_ms;
int m890_queue_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int m890_queue_destroy_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int m890_submit_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
void m890_file_queues_fini(struct m890_file *mfile);
int m890_queue_state(struct m890_file *mfile, struct drm_m890_queue_state *st);
void m890_queue_hw_error(struct m890_device *mdev, u32 q);
void m890_queues_unplug(struct m890_device *mdev);
void m890_queues_reset(struct m890_device *mdev);

/* m890_fence.c */
struct m890_fence *m890_fence_alloc(void);
void m890_fence_init(struct m890_queue *q, struct m890_fence *f, u64 seqno);
void m890_fence_process(struct m890_queue *q);
bool m890_fence_track(struct m890_queue *q, struct m890_fence *f);
void m890_fence_fail_all(struct m890_queue *q, int err);
irqreturn_t m890_queue_irq(int irq, void *arg);

/* m890_p2p.c */
struct dma_buf *m890_hbm_export(struct drm_gem_object *obj, int flags);
struct dma_buf *m890_host_export(struct drm_gem_object *obj, int flags);
struct drm_gem_object *m890_gem_prime_import(struct drm_device *dev, struct dma_buf *buf);
void m890_p2p_revoke(struct m890_device *mdev);

/* m890_fabric.c (switch access), m890_netlink.c (the "icn" family) */
int m890_fabric_init(void);
void m890_fabric_fini(void);
void m890_fabric_add(struct m890_device *mdev);
void m890_fabric_remove(struct m890_device *mdev);
void m890_fabric_event(struct m890_device *mdev);
void m890_fabric_fault(struct m890_device *mdev);
int m890_fabric_peer_check(struct m890_device *mdev, struct m890_device *peer);
struct m890_device *m890_fabric_card_get(u32 fabric_id);
int m890_sw_cmd(struct m890_device *mdev, u32 op, u32 arg, u64 arg0, u64 arg1,
		u64 *data, unsigned int n);
void m890_fabric_work(struct work_struct *work);

/* m890_xvm.c */
void m890_xvm_init(struct m890_device *mdev);
void m890_xvm_fini(struct m890_device *mdev);
void m890_xvm_bo_free(struct m890_bo *bo);
int m890_fabric_export_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int m890_fabric_revoke_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int m890_fabric_import_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

/* m890_debugfs.c */
void m890_debugfs_init(struct m890_device *mdev);

#endif /* M890_DRV_H */
