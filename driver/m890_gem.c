// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: buffer objects
 *
 * Three kinds of GEM object share &struct m890_bo:
 *
 * - host BOs: pages from the GEM shmem helper, DMA-mapped for the card and
 *   mapped with TARGET_HOST PTEs;
 * - HBM BOs: a range of on-card memory from a &drm_mm over BAR2, cleared
 *   before use, mapped with TARGET_HBM PTEs and mmap()ed through BAR2 with
 *   write-combining pfn mappings;
 * - peer windows (m890_p2p.c): another card's HBM BO reached through the
 *   fabric with PEER PTEs; they cannot be mmap()ed.
 *
 * A BO is fully built and mapped into the creating file's address space
 * before its handle is created, and unmapped (with an MMU invalidation)
 * when its last reference goes.  A BO shares the reservation object of
 * its creator's context, so its free waits for the jobs of that file
 * (m890_resv.c); jobs hold references to the other BOs of their file
 * (imports, windows: m890_fence.c).  So no unmap happens under a running
 * job.  Another
 * file of the same card that imports the BO through a dma-buf gets it
 * mapped into its own address space, at its own VA, when its handle is
 * created (m890_bo_open()), and unmapped when that file's last handle to
 * it goes (m890_bo_close()) if the BO is idle.  A busy BO's mapping is
 * parked instead, so
 * the file's jobs keep reaching it: a new handle takes it back, the file's
 * close (m890_ctx_unpark()) or the BO's free drops it.  So a file that
 * imports and closes again and again costs nothing that stays.
 *
 * CPU mappings of HBM BOs are filled at mmap time; once the card is
 * removed they are zapped and a fault maps a zeroed page of the BO
 * instead (m890_hbm_fault()), so touching them never kills the process.
 */

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_utils.h>
#include <drm/drm_vma_manager.h>

#include "m890_drv.h"
#include "m890_fence.h"
#include "m890_gem.h"
#include "m890_limits.h"
#include "m890_mmu.h"
#include "m890_p2p.h"
#include "m890_resv.h"
#include "m890_xvm.h"

#define M890_HBM_CLEAR_CHUNK	SZ_16M

/* Clear @node's PTEs in @ctx, free the range and drop the reference. */
static void m890_bo_va_release(struct m890_ctx **ctx, struct drm_mm_node *node)
{
	m890_mmu_unmap(*ctx, node->start, node->size);
	m890_ctx_va_free(*ctx, node);
	m890_ctx_put(ctx);
}

/**
 * m890_bo_unmap() - undo m890_bo_map() and every import mapping.
 * @bo: BO whose last reference is gone; nothing happens if not mapped.
 */
void m890_bo_unmap(struct m890_bo *bo)
{
	struct m890_bo_va *bv, *tmp;

	list_for_each_entry_safe(bv, tmp, &bo->imports, link) {
		list_del(&bv->link);
		/* A parked mapping: its file may still be open. */
		spin_lock(&bv->ctx->park_lock);
		list_del_init(&bv->park_link);
		spin_unlock(&bv->ctx->park_lock);
		m890_bo_va_release(&bv->ctx, &bv->node);
		kfree(bv);
	}
	mutex_destroy(&bo->map_lock);
	if (!bo->ctx)
		return;
	if (bo->kind == M890_BO_KIND_HBM)
		atomic64_sub(bo->shmem.base.size, &bo->ctx->hbm_bytes);
	if (bo->kind == M890_BO_KIND_HOST)
		m890_limit_host_uncharge(bo->ctx->user, bo->shmem.base.size);
	m890_bo_va_release(&bo->ctx, &bo->va_node);
}

/*
 * Give @bo the VA range @node in @ctx and fill its PTEs; on error nothing
 * stays mapped.  Returns the 2 MiB PTEs used in @large.
 */
static int m890_bo_map_node(struct m890_bo *bo, struct m890_ctx *ctx,
			    struct drm_mm_node *node, u32 *large)
{
	struct drm_gem_object *obj = &bo->shmem.base;
	u64 va, off = 0, flags = M890_PTE_WRITE;
	struct scatterlist *sg;
	struct sg_table *sgt;
	unsigned int i;
	int ret;

	*large = 0;
	ret = m890_ctx_va_alloc(ctx, node, obj->size);
	if (ret)
		return ret;
	va = node->start;

	switch (bo->kind) {
	case M890_BO_KIND_HOST:
		sgt = drm_gem_shmem_get_pages_sgt(&bo->shmem);
		if (IS_ERR(sgt)) {
			ret = PTR_ERR(sgt);
			break;
		}
		flags |= (u64)M890_PTE_TARGET_HOST << M890_PTE_TARGET_SHIFT;
		for_each_sgtable_dma_sg(sgt, sg, i) {
			ret = m890_mmu_map(ctx, va + off, sg_dma_address(sg),
					   sg_dma_len(sg), flags, large);
			if (ret)
				break;
			off += sg_dma_len(sg);
		}
		break;
	case M890_BO_KIND_HBM:
		flags |= (u64)M890_PTE_TARGET_HBM << M890_PTE_TARGET_SHIFT;
		ret = m890_mmu_map(ctx, va, bo->hbm_node.start, obj->size, flags, large);
		break;
	case M890_BO_KIND_PEER:
		flags |= (u64)M890_PTE_TARGET_PEER << M890_PTE_TARGET_SHIFT;
		flags |= ((u64)bo->peer_fabric_id << M890_PTE_PEER_SHIFT) & M890_PTE_PEER_MASK;
		ret = m890_mmu_map(ctx, va, bo->peer_offset, obj->size, flags, large);
		break;
	default:
		ret = -EINVAL;
	}

	if (ret) {
		m890_mmu_unmap(ctx, va, obj->size);
		m890_ctx_va_free(ctx, node);
		return ret;
	}
	kref_get(&ctx->ref);
	return 0;
}

/**
 * m890_bo_map() - give a BO a VA range in @ctx and fill its PTEs.
 * @bo: BO with its backing store allocated, not yet mapped.
 * @ctx: context; the BO takes a reference on it.
 *
 * Ranges whose VA and backing address are 2 MiB aligned use 2 MiB PTEs.
 * A host BO counts against the host_mb_per_user of @ctx's user until it
 * is unmapped.
 * Return: 0, -EDQUOT past that limit, or another negative errno; on error
 * nothing stays mapped.
 */
int m890_bo_map(struct m890_bo *bo, struct m890_ctx *ctx)
{
	int ret;

	if (bo->ctx)
		return -EBUSY;
	/* Counted before the pages are pinned (m890_limits.c). */
	if (bo->kind == M890_BO_KIND_HOST) {
		ret = m890_limit_host_charge(ctx->user, bo->shmem.base.size);
		if (ret)
			return ret;
	}
	ret = m890_bo_map_node(bo, ctx, &bo->va_node, &bo->large_ptes);
	if (ret) {
		if (bo->kind == M890_BO_KIND_HOST)
			m890_limit_host_uncharge(ctx->user, bo->shmem.base.size);
		return ret;
	}
	bo->ctx = ctx;
	if (bo->kind == M890_BO_KIND_HBM)
		atomic64_add(bo->shmem.base.size, &ctx->hbm_bytes);
	return 0;
}

/**
 * m890_bo_va() - device VA of @bo in @ctx.
 * @bo: BO.
 * @ctx: a file's context.
 *
 * Context: takes @bo->map_lock.
 * Return: the VA, or 0 if the BO is not mapped there.
 */
u64 m890_bo_va(struct m890_bo *bo, struct m890_ctx *ctx)
{
	struct m890_bo_va *bv;
	u64 va = 0;

	mutex_lock(&bo->map_lock);
	if (bo->ctx == ctx) {
		va = bo->va_node.start;
	} else {
		list_for_each_entry(bv, &bo->imports, link) {
			if (bv->ctx == ctx) {
				va = bv->node.start;
				break;
			}
		}
	}
	mutex_unlock(&bo->map_lock);
	return va;
}

/**
 * m890_bo_revoke() - a window's target went away: clear every mapping.
 * @bo: peer window (a dma-buf import of another card's BO, or a window on
 *      an export).
 *
 * Clears the window's PTEs in every context it is mapped in, the first
 * opener's and those of every other file that got a handle to it (GEM
 * open of a flink name, ...), parked or not, and invalidates their TLBs;
 * marks it revoked so that no new handle maps it again (m890_bo_open()).
 * The VA ranges stay allocated until the handles go.
 * Context: process; takes @bo->map_lock, then the contexts' locks.
 */
void m890_bo_revoke(struct m890_bo *bo)
{
	struct m890_bo_va *bv;

	mutex_lock(&bo->map_lock);
	bo->revoked = true;
	if (bo->ctx)
		m890_mmu_unmap(bo->ctx, bo->va_node.start, bo->va_node.size);
	list_for_each_entry(bv, &bo->imports, link)
		m890_mmu_unmap(bv->ctx, bv->node.start, bv->node.size);
	mutex_unlock(&bo->map_lock);
}

/**
 * m890_bo_init() - initialise the driver part of a new BO.
 * @bo: zeroed BO.
 * @kind: what it is.
 */
void m890_bo_init(struct m890_bo *bo, enum m890_bo_kind kind)
{
	bo->kind = kind;
	mutex_init(&bo->map_lock);
	INIT_LIST_HEAD(&bo->imports);
}

/**
 * m890_bo_open() - &drm_gem_object_funcs.open: map the BO for the file.
 * @obj: BO getting a handle in @file.
 * @file: file.
 *
 * A BO is usually already mapped in its creator's context.  A peer window
 * is mapped into the first file that opens it (-ENODEV once revoked); a
 * BO of this card imported through a dma-buf by another file gets its own
 * VA range in that file's context, kept while the file has a handle to it
 * (m890_bo_close()).
 *
 * Return: 0 or a negative errno (the handle is then not created).
 */
int m890_bo_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct m890_file *mfile = file->driver_priv;
	struct m890_bo *bo = to_m890_bo(obj);
	struct m890_bo_va *bv;
	u32 large;
	int ret;

	/* Its jobs fence it explicitly unless it shares their reservation. */
	ret = m890_ctx_shared_add(mfile->ctx, obj);
	if (ret)
		return ret;
	mutex_lock(&bo->map_lock);
	if (bo->revoked) {
		ret = -ENODEV;
		goto out;
	}
	if (!bo->ctx) {
		ret = m890_bo_map(bo, mfile->ctx);
		goto out;
	}
	if (bo->ctx == mfile->ctx)
		goto out;
	list_for_each_entry(bv, &bo->imports, link) {
		if (bv->ctx != mfile->ctx)
			continue;
		if (!bv->handles++) {
			/* Parked: in use again. */
			spin_lock(&bv->ctx->park_lock);
			list_del_init(&bv->park_link);
			spin_unlock(&bv->ctx->park_lock);
		}
		goto out;
	}
	bv = kzalloc(sizeof(*bv), GFP_KERNEL);
	if (!bv) {
		ret = -ENOMEM;
		goto out;
	}
	ret = m890_bo_map_node(bo, mfile->ctx, &bv->node, &large);
	if (ret) {
		kfree(bv);
		goto out;
	}
	bv->ctx = mfile->ctx;
	bv->handles = 1;
	bv->bo = bo;
	INIT_LIST_HEAD(&bv->park_link);
	list_add_tail(&bv->link, &bo->imports);
out:
	mutex_unlock(&bo->map_lock);
	if (ret)
		m890_ctx_shared_del(mfile->ctx, obj);
	return ret;
}

/**
 * m890_bo_close() - &drm_gem_object_funcs.close: a handle of @file goes.
 * @obj: BO.
 * @file: file losing a handle to @obj.
 *
 * With the file's last handle, the import mapping m890_bo_open() made in
 * its context is unmapped and its context reference dropped if the BO is
 * idle.  Otherwise a job of the file may still use it (its jobs hold the
 * BO): the mapping is parked until the BO is freed, the file closes
 * (m890_ctx_unpark(), once its queues are stopped) or opens the BO again.
 * The creator's mapping stays until the BO is freed.
 */
void m890_bo_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct m890_file *mfile = file->driver_priv;
	struct m890_bo *bo = to_m890_bo(obj);
	struct m890_bo_va *bv, *gone = NULL;

	m890_ctx_shared_del(mfile->ctx, obj);
	mutex_lock(&bo->map_lock);
	list_for_each_entry(bv, &bo->imports, link) {
		if (bv->ctx != mfile->ctx)
			continue;
		if (--bv->handles)
			break;
		if (dma_resv_test_signaled(obj->resv, DMA_RESV_USAGE_BOOKKEEP)) {
			list_del(&bv->link);
			gone = bv;
			break;
		}
		spin_lock(&bv->ctx->park_lock);
		list_add_tail(&bv->park_link, &bv->ctx->parked);
		spin_unlock(&bv->ctx->park_lock);
		break;
	}
	mutex_unlock(&bo->map_lock);
	if (!gone)
		return;
	m890_bo_va_release(&gone->ctx, &gone->node);
	kfree(gone);
}

/**
 * m890_ctx_unpark() - drop the parked import mappings of a closed file.
 * @ctx: the file's context; its queues are gone and their jobs retired.
 *
 * A parked mapping holds no BO reference: one whose BO is being freed is
 * left to that free (m890_bo_unmap()), the others are dropped here.
 * Context: process; takes the BOs' map_lock.  May free BOs.
 */
void m890_ctx_unpark(struct m890_ctx *ctx)
{
	struct m890_bo_va *bv, *tmp;
	struct m890_bo *bo;
	LIST_HEAD(list);

	spin_lock(&ctx->park_lock);
	list_for_each_entry_safe(bv, tmp, &ctx->parked, park_link)
		if (kref_get_unless_zero(&bv->bo->shmem.base.refcount))
			list_move_tail(&bv->park_link, &list);
	spin_unlock(&ctx->park_lock);
	list_for_each_entry_safe(bv, tmp, &list, park_link) {
		bo = bv->bo;
		mutex_lock(&bo->map_lock);
		list_del(&bv->link);
		mutex_unlock(&bo->map_lock);
		m890_bo_va_release(&bv->ctx, &bv->node);
		kfree(bv);
		drm_gem_object_put(&bo->shmem.base);
	}
}

/*
 * Page of the BO at the start of @vma.  The BO's fake offset is in
 * vm_pgoff either way: drm_gem_mmap() leaves it there, and a dma-buf mmap
 * (drm_gem_prime_mmap()) adds it to the page offset the caller asked for.
 */
static pgoff_t m890_vma_bo_pgoff(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	return vma->vm_pgoff - drm_vma_node_start(&obj->vma_node);
}

/*
 * The shmem helper's fault handler counts pages from the start of the VMA,
 * which is wrong for a dma-buf mapped at an offset inside the BO; this one
 * counts them from the BO's start, as m890_vma_bo_pgoff() does.
 */
static vm_fault_t m890_host_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *obj = vma->vm_private_data;
	struct drm_gem_shmem_object *shmem = to_drm_gem_shmem_obj(obj);
	pgoff_t page = vmf->pgoff - drm_vma_node_start(&obj->vma_node);
	vm_fault_t ret;

	dma_resv_lock(obj->resv, NULL);
	if (page >= obj->size >> PAGE_SHIFT || !shmem->pages || shmem->madv < 0)
		ret = VM_FAULT_SIGBUS;
	else
		ret = vmf_insert_pfn(vma, vmf->address, page_to_pfn(shmem->pages[page]));
	dma_resv_unlock(obj->resv);
	return ret;
}

static void m890_host_vm_open(struct vm_area_struct *vma)
{
	drm_gem_shmem_vm_ops.open(vma);
}

static void m890_host_vm_close(struct vm_area_struct *vma)
{
	drm_gem_shmem_vm_ops.close(vma);
}

static const struct vm_operations_struct m890_host_vm_ops = {
	.fault = m890_host_fault,
	.open = m890_host_vm_open,
	.close = m890_host_vm_close,
};

/* Free a host BO; its reservation object (its context's) goes last. */
static void m890_host_destroy(struct m890_bo *bo)
{
	struct m890_ctx *resv_ctx = bo->resv_ctx;

	m890_bo_unmap(bo);
	drm_gem_shmem_free(&bo->shmem);
	m890_ctx_put(&resv_ctx);
}

/* Host BOs: the shmem helper's functions, plus the unmap on free. */
static void m890_host_free(struct drm_gem_object *obj)
{
	struct m890_bo *bo = to_m890_bo(obj);

	if (!m890_bo_free_later(bo, m890_host_destroy))
		m890_host_destroy(bo);
}

static const struct drm_gem_object_funcs m890_host_funcs = {
	.free = m890_host_free,
	.open = m890_bo_open,
	.close = m890_bo_close,
	.export = m890_host_export,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &m890_host_vm_ops,
};

/**
 * m890_gem_create_object() - &drm_driver.gem_create_object for shmem BOs.
 * @dev: DRM device.
 * @size: object size.
 *
 * Return: the embedded GEM object or ERR_PTR(-ENOMEM).
 */
struct drm_gem_object *m890_gem_create_object(struct drm_device *dev, size_t size)
{
	struct m890_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL);

	if (!bo)
		return ERR_PTR(-ENOMEM);
	m890_bo_init(bo, M890_BO_KIND_HOST);
	bo->shmem.base.funcs = &m890_host_funcs;
	return &bo->shmem.base;
}

/* HBM BOs */

void m890_hbm_init(struct m890_device *mdev)
{
	/* An empty range is not allowed; BO creation checks hbm_size. */
	drm_mm_init(&mdev->hbm_mm, 0, max_t(u64, mdev->hbm_size, 1));
}

void m890_hbm_fini(struct m890_device *mdev)
{
	drm_mm_takedown(&mdev->hbm_mm);
}

static void m890_hbm_destroy(struct m890_bo *bo)
{
	struct drm_gem_object *obj = &bo->shmem.base;
	struct m890_device *mdev = to_m890(obj->dev);
	struct m890_ctx *resv_ctx = bo->resv_ctx;

	m890_bo_unmap(bo);
	/* Other VMs' windows go before the range can be reused. */
	m890_xvm_bo_free(bo);
	mutex_lock(&mdev->hbm_lock);
	if (drm_mm_node_allocated(&bo->hbm_node)) {
		drm_mm_remove_node(&bo->hbm_node);
		atomic64_sub(obj->size, &mdev->hbm_used);
	}
	mutex_unlock(&mdev->hbm_lock);
	if (bo->dummy_page)
		__free_page(bo->dummy_page);
	drm_gem_object_release(obj);
	kfree(bo);
	m890_ctx_put(&resv_ctx);
}

static void m890_hbm_free(struct drm_gem_object *obj)
{
	struct m890_bo *bo = to_m890_bo(obj);

	if (!m890_bo_free_later(bo, m890_hbm_destroy))
		m890_hbm_destroy(bo);
}

static int m890_hbm_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	struct m890_bo *bo = to_m890_bo(obj);
	struct m890_device *mdev = to_m890(obj->dev);
	unsigned long pfn;
	int idx, ret;

	/* A private writable mapping of device memory cannot be COW'ed. */
	if (!(vma->vm_flags & VM_SHARED)) {
		if (vma->vm_flags & VM_WRITE)
			return -EINVAL;
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	/*
	 * The accel fd finds a BO only by its exact offset (page 0); a
	 * dma-buf of it may start anywhere inside it.
	 */
	if (m890_vma_bo_pgoff(obj, vma) > (obj->size >> PAGE_SHIFT) ||
	    vma_pages(vma) > (obj->size >> PAGE_SHIFT) - m890_vma_bo_pgoff(obj, vma))
		return -EINVAL;
	if (!drm_dev_enter(obj->dev, &idx))
		return -ENODEV;

	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = pgprot_writecombine(vm_get_page_prot(vma->vm_flags));
	pfn = PHYS_PFN(mdev->hbm_phys + bo->hbm_node.start) + m890_vma_bo_pgoff(obj, vma);
	ret = io_remap_pfn_range(vma, vma->vm_start, pfn, vma->vm_end - vma->vm_start,
				 vma->vm_page_prot);
	drm_dev_exit(idx);
	return ret;
}

/*
 * The mapping is filled at mmap time, so a fault means its PTEs were
 * zapped: drm_dev_unplug() does that for every CPU mapping of a removed
 * card.  From then on the whole VMA shows one zeroed page of the BO's own
 * (reads return what was last written through any of the BO's mappings,
 * writes go nowhere near the card), so a client that still touches the
 * memory keeps running and learns of the removal from -ENODEV on its next
 * ioctl.  While the card is present a fault (after a partial zap) maps
 * BAR2 again.
 */
static vm_fault_t m890_hbm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *obj = vma->vm_private_data;
	struct m890_bo *bo = to_m890_bo(obj);
	struct m890_device *mdev = to_m890(obj->dev);
	unsigned long addr, pfn;
	struct page *page;
	vm_fault_t ret;
	int idx;

	if (drm_dev_enter(obj->dev, &idx)) {
		pfn = PHYS_PFN(mdev->hbm_phys + bo->hbm_node.start) +
		      m890_vma_bo_pgoff(obj, vma) + ((vmf->address - vma->vm_start) >> PAGE_SHIFT);
		ret = vmf_insert_pfn_prot(vma, vmf->address, pfn, vma->vm_page_prot);
		drm_dev_exit(idx);
		return ret;
	}

	page = READ_ONCE(bo->dummy_page);
	if (!page) {
		page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!page)
			return VM_FAULT_OOM;
		if (cmpxchg(&bo->dummy_page, NULL, page)) {
			__free_page(page);
			page = READ_ONCE(bo->dummy_page);
		}
	}
	pfn = page_to_pfn(page);
	ret = VM_FAULT_NOPAGE;
	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		ret = vmf_insert_pfn(vma, addr, pfn);
		if (ret & VM_FAULT_ERROR)
			break;
	}
	return ret;
}

static const struct vm_operations_struct m890_hbm_vm_ops = {
	.fault = m890_hbm_fault,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static const struct drm_gem_object_funcs m890_hbm_funcs = {
	.free = m890_hbm_free,
	.open = m890_bo_open,
	.close = m890_bo_close,
	.export = m890_hbm_export,
	.mmap = m890_hbm_mmap,
	.vm_ops = &m890_hbm_vm_ops,
};

/* Zero a fresh HBM range so no data leaks between clients. */
static int m890_hbm_clear(struct m890_device *mdev, u64 start, u64 size)
{
	void __iomem *p;
	u64 off, len;
	int idx;

	if (!drm_dev_enter(&mdev->drm, &idx))
		return -ENODEV;
	for (off = 0; off < size; off += len) {
		len = min_t(u64, size - off, M890_HBM_CLEAR_CHUNK);
		p = ioremap_wc(mdev->hbm_phys + start + off, len);
		if (!p) {
			drm_dev_exit(idx);
			return -ENOMEM;
		}
		memset_io(p, 0, len);
		iounmap(p);
		cond_resched();
	}
	drm_dev_exit(idx);
	return 0;
}

static struct m890_bo *m890_hbm_create(struct m890_device *mdev, u64 size)
{
	struct drm_gem_object *obj;
	struct m890_bo *bo;
	u64 align = size >= SZ_2M ? SZ_2M : M890_HBM_ALIGN;
	int ret;

	if (size > mdev->hbm_size)
		return ERR_PTR(-ENOSPC);

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	m890_bo_init(bo, M890_BO_KIND_HBM);
	obj = &bo->shmem.base;
	obj->funcs = &m890_hbm_funcs;
	drm_gem_private_object_init(&mdev->drm, obj, size);

	mutex_lock(&mdev->hbm_lock);
	ret = drm_mm_insert_node_generic(&mdev->hbm_mm, &bo->hbm_node, size, align, 0,
					 DRM_MM_INSERT_BEST);
	if (ret == -ENOSPC && align > M890_HBM_ALIGN)
		ret = drm_mm_insert_node_generic(&mdev->hbm_mm, &bo->hbm_node, size,
						 M890_HBM_ALIGN, 0, DRM_MM_INSERT_BEST);
	if (!ret)
		atomic64_add(size, &mdev->hbm_used);
	mutex_unlock(&mdev->hbm_lock);
	if (ret)
		goto err_put;

	ret = m890_hbm_clear(mdev, bo->hbm_node.start, size);
	if (ret)
		goto err_put;
	ret = drm_gem_create_mmap_offset(obj);
	if (ret)
		goto err_put;
	return bo;

err_put:
	drm_gem_object_put(obj);
	return ERR_PTR(ret);
}

/**
 * m890_bo_create_ioctl() - DRM_IOCTL_M890_BO_CREATE.
 * @dev: DRM device.
 * @data: struct drm_m890_bo_create.
 * @file: caller.
 *
 * Return: 0 or a negative errno (see the uAPI header).
 */
int m890_bo_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct m890_device *mdev = to_m890(dev);
	struct m890_file *mfile = file->driver_priv;
	struct drm_m890_bo_create *args = data;
	struct drm_gem_shmem_object *shmem;
	struct drm_gem_object *obj;
	struct m890_bo *bo;
	u64 size;
	u32 handle;
	int ret;

	if (args->flags != DRM_M890_BO_HBM && args->flags != DRM_M890_BO_HOST)
		return -EINVAL;
	if (!args->size)
		return -EINVAL;
	if (args->size > M890_VA_SIZE)
		return -E2BIG;

	if (args->flags == DRM_M890_BO_HBM) {
		size = ALIGN(args->size, M890_HBM_ALIGN);
		bo = m890_hbm_create(mdev, size);
		if (IS_ERR(bo))
			return PTR_ERR(bo);
	} else {
		size = PAGE_ALIGN(args->size);
		if (size >> PAGE_SHIFT > totalram_pages())
			return -ENOMEM;
		shmem = drm_gem_shmem_create(dev, size);
		if (IS_ERR(shmem))
			return PTR_ERR(shmem);
		bo = to_m890_bo(&shmem->base);
	}
	obj = &bo->shmem.base;
	/* Fenced with every job of the file (m890_resv.c). */
	m890_bo_share_resv(bo, mfile->ctx);

	ret = m890_bo_map(bo, mfile->ctx);
	if (ret)
		goto out_put;

	ret = drm_gem_handle_create(file, obj, &handle);
	if (ret)
		goto out_put;

	args->handle = handle;
	args->size = obj->size;
	args->va = bo->va_node.start;
	args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
out_put:
	/* The handle, if any, holds the object from here on. */
	drm_gem_object_put(obj);
	return ret;
}

/**
 * m890_bo_info_ioctl() - DRM_IOCTL_M890_BO_INFO.
 * @dev: DRM device.
 * @data: struct drm_m890_bo_info.
 * @file: caller.
 *
 * Return: 0, -EINVAL non-zero pad, -ENOENT unknown handle.
 */
int m890_bo_info_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct m890_file *mfile = file->driver_priv;
	struct drm_m890_bo_info *args = data;
	struct drm_gem_object *obj;
	struct m890_bo *bo;

	if (args->pad)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	bo = to_m890_bo(obj);

	args->size = obj->size;
	args->va = m890_bo_va(bo, mfile->ctx);
	args->mmap_offset = 0;
	args->peer_fabric_id = to_m890(dev)->fabric_id;
	switch (bo->kind) {
	case M890_BO_KIND_HOST:
		args->flags = DRM_M890_BO_HOST;
		args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
		break;
	case M890_BO_KIND_HBM:
		args->flags = DRM_M890_BO_HBM;
		args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
		break;
	case M890_BO_KIND_PEER:
		args->flags = DRM_M890_BO_HBM | DRM_M890_BO_PEER;
		args->peer_fabric_id = bo->peer_fabric_id;
		break;
	}
	drm_gem_object_put(obj);
	return 0;
}

/**
 * m890_bo_wait_ioctl() - DRM_IOCTL_M890_BO_WAIT.
 * @dev: DRM device.
 * @data: struct drm_m890_bo_wait.
 * @file: caller.
 *
 * Return: 0 idle, -ETIME, -ENOENT, -EINVAL, -ERESTARTSYS.
 */
int m890_bo_wait_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_m890_bo_wait *args = data;
	struct drm_gem_object *obj;
	long ret;

	if (args->flags)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_BOOKKEEP, true,
				    drm_timeout_abs_to_jiffies(args->timeout_ns));
	drm_gem_object_put(obj);
	if (!ret)
		return -ETIME;
	return ret < 0 ? ret : 0;
}
