/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: buffer objects (m890_gem.c).
 */
#ifndef M890_GEM_H
#define M890_GEM_H

#include <linux/dma-fence.h>

#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_mm.h>

#include "m890_drv.h"

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

#endif /* M890_GEM_H */
