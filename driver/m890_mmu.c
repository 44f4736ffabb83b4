// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: device MMU and address spaces
 *
 * Every open file owns one context: an ASID, a 4-level page-table tree in
 * coherent DMA memory and a &drm_mm allocator for device VAs starting at
 * M890_VA_START.  BOs are mapped when they are created (or, for peer
 * windows, when first opened) and unmapped when their last reference goes;
 * each unmap is followed by MMU_INVALIDATE of the ASID so the card cannot
 * reach pages that are about to be freed.  A range whose VA and backing
 * address are both 2 MiB aligned uses level-1 LARGE entries, also where
 * an earlier 4 KiB mapping left an empty level-0 table (that table is
 * retired, not freed, and the context's translations are invalidated).
 *
 * Tables are never freed while the context lives, so the device never walks
 * freed memory; the whole tree goes when the last BO of a closed file is
 * gone.  The context descriptor is cleared and the ASID freed at close.
 */

#include <linux/cred.h>
#include <linux/dma-mapping.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>

#include "m890_drv.h"
#include "m890_limits.h"
#include "m890_mmu.h"

#define M890_PT_SIZE		(M890_PT_ENTRIES * sizeof(u64))
#define M890_LARGE_SIZE		BIT_ULL(M890_LARGE_PAGE_SHIFT)
#define M890_PAGE_SIZE		BIT_ULL(M890_PAGE_SHIFT)

static u32 m890_pt_index(u64 va, int level)
{
	return (va >> (M890_PAGE_SHIFT + 9 * level)) & (M890_PT_ENTRIES - 1);
}

static struct m890_pt *m890_pt_alloc(struct m890_device *mdev, int level)
{
	struct m890_pt *pt;

	pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	if (!pt)
		return NULL;
	pt->cpu = dma_alloc_coherent(mdev->drm.dev, M890_PT_SIZE, &pt->dma, GFP_KERNEL);
	if (!pt->cpu)
		goto err_free;
	if (level > 0) {
		pt->child = kcalloc(M890_PT_ENTRIES, sizeof(*pt->child), GFP_KERNEL);
		if (!pt->child)
			goto err_dma;
	}
	return pt;

err_dma:
	dma_free_coherent(mdev->drm.dev, M890_PT_SIZE, pt->cpu, pt->dma);
err_free:
	kfree(pt);
	return NULL;
}

static void m890_pt_free(struct m890_device *mdev, struct m890_pt *pt, int level)
{
	u32 i;

	if (!pt)
		return;
	if (pt->child) {
		for (i = 0; i < M890_PT_ENTRIES; i++)
			m890_pt_free(mdev, pt->child[i], level - 1);
		kfree(pt->child);
	}
	dma_free_coherent(mdev->drm.dev, M890_PT_SIZE, pt->cpu, pt->dma);
	kfree(pt);
}

static void m890_ctx_table_free(struct drm_device *dev, void *res)
{
	struct m890_device *mdev = to_m890(dev);

	dma_free_coherent(dev->dev, mdev->ctx_count * M890_CTX_DESC_SIZE,
			  mdev->ctx_table, mdev->ctx_table_dma);
}

/**
 * m890_mmu_hw_enable() - point the MMU at the context table and enable it.
 * @mdev: device, freshly reset; the table (host memory) keeps every live
 *        context's descriptor across a device reset.
 */
void m890_mmu_hw_enable(struct m890_device *mdev)
{
	mutex_lock(&mdev->mmu_lock);
	m890_wr64(mdev, M890_REG_MMU_CTX_BASE, mdev->ctx_table_dma);
	m890_wr(mdev, M890_REG_MMU_CTX_COUNT, mdev->ctx_count);
	m890_wr(mdev, M890_REG_MMU_INVALIDATE, M890_MMU_INV_ALL);
	m890_wr(mdev, M890_REG_MMU_CONTROL, M890_MMU_CONTROL_ENABLE);
	mutex_unlock(&mdev->mmu_lock);
}

/**
 * m890_mmu_hw_init() - allocate the context table and enable the MMU.
 * @mdev: device, freshly reset.
 *
 * The table is freed when the DRM device is released, after every file.
 * Return: 0 or a negative errno.
 */
int m890_mmu_hw_init(struct m890_device *mdev)
{
	u32 n = m890_rd(mdev, M890_REG_NUM_CTX);

	mdev->ctx_count = min_t(u32, n, M890_MAX_CTX);
	if (mdev->ctx_count < 2) {
		drm_err(&mdev->drm, "card supports %u contexts\n", n);
		return -ENODEV;
	}
	mdev->ctx_table = dma_alloc_coherent(mdev->drm.dev,
					     mdev->ctx_count * M890_CTX_DESC_SIZE,
					     &mdev->ctx_table_dma, GFP_KERNEL);
	if (!mdev->ctx_table)
		return -ENOMEM;
	if (drmm_add_action_or_reset(&mdev->drm, m890_ctx_table_free, NULL))
		return -ENOMEM;

	m890_mmu_hw_enable(mdev);
	return 0;
}

/**
 * m890_mmu_hw_fini() - turn the MMU off; every later access faults.
 * @mdev: device whose registers are still mapped.
 */
void m890_mmu_hw_fini(struct m890_device *mdev)
{
	m890_wr(mdev, M890_REG_MMU_CONTROL, 0);
}

static void m890_ctx_desc_write(struct m890_device *mdev, u32 asid, u64 val)
{
	__le64 *desc = (__le64 *)(mdev->ctx_table + asid * M890_CTX_DESC_SIZE);

	lockdep_assert_held(&mdev->mmu_lock);
	WRITE_ONCE(desc[1], 0);
	WRITE_ONCE(desc[0], cpu_to_le64(val));
}

static void m890_mmu_invalidate_locked(struct m890_device *mdev, u32 asid)
{
	int idx;

	lockdep_assert_held(&mdev->mmu_lock);
	if (!asid || !drm_dev_enter(&mdev->drm, &idx))
		return;
	/* writel orders the PTE stores before the invalidation. */
	m890_wr(mdev, M890_REG_MMU_INVALIDATE, asid & M890_MMU_INV_ASID_MASK);
	drm_dev_exit(idx);
}

/**
 * m890_mmu_invalidate() - drop the card's cached translations of @ctx.
 * @ctx: context; nothing happens once its ASID is released.
 */
void m890_mmu_invalidate(struct m890_ctx *ctx)
{
	struct m890_device *mdev = ctx->mdev;

	mutex_lock(&mdev->mmu_lock);
	m890_mmu_invalidate_locked(mdev, ctx->asid);
	mutex_unlock(&mdev->mmu_lock);
}

/**
 * m890_ctx_create() - new address space with an ASID.
 * @mdev: device.
 *
 * Return: the context (one reference) or ERR_PTR: -EBUSY when every ASID
 * is in use, -EDQUOT when the caller's user holds contexts_per_user of
 * them (m890_limits.c), -ENOMEM.  The context holds a reference to its
 * user's counts on the card (&m890_ctx.user) until it is freed.
 */
struct m890_ctx *m890_ctx_create(struct m890_device *mdev)
{
	struct m890_ctx *ctx;
	int asid, ret = -ENOMEM;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	ctx->mdev = mdev;
	kref_init(&ctx->ref);
	mutex_init(&ctx->lock);
	spin_lock_init(&ctx->park_lock);
	INIT_LIST_HEAD(&ctx->parked);
	dma_resv_init(&ctx->resv);
	mutex_init(&ctx->shared_lock);
	INIT_LIST_HEAD(&ctx->shared);
	init_waitqueue_head(&ctx->frees_wq);
	drm_mm_init(&ctx->va_mm, M890_VA_START, M890_VA_SIZE);
	ctx->pid = task_tgid_nr(current);
	get_task_comm(ctx->comm, current->group_leader);

	ctx->root = m890_pt_alloc(mdev, M890_PT_LEVELS - 1);
	if (!ctx->root)
		goto err_free;

	mutex_lock(&mdev->mmu_lock);
	ctx->user = m890_user_get(mdev, current_uid());
	if (IS_ERR(ctx->user)) {
		asid = PTR_ERR(ctx->user);
		ctx->user = NULL;
	} else {
		asid = m890_limit_ctx_get(ctx->user);
	}
	if (!asid) {
		asid = ida_alloc_range(&mdev->asid_ida, 1, mdev->ctx_count - 1, GFP_KERNEL);
		if (asid < 0)
			m890_limit_ctx_put(ctx->user);
	}
	if (asid < 0) {
		if (ctx->user)
			m890_user_put(mdev, &ctx->user);
		mutex_unlock(&mdev->mmu_lock);
		m890_pt_free(mdev, ctx->root, M890_PT_LEVELS - 1);
		ret = asid == -ENOSPC ? -EBUSY : asid;
		goto err_free;
	}
	ctx->asid = asid;
	m890_ctx_desc_write(mdev, asid, ctx->root->dma | M890_CTX_VALID);
	m890_mmu_invalidate_locked(mdev, asid);
	mutex_unlock(&mdev->mmu_lock);
	return ctx;

err_free:
	drm_mm_takedown(&ctx->va_mm);
	mutex_destroy(&ctx->lock);
	mutex_destroy(&ctx->shared_lock);
	dma_resv_fini(&ctx->resv);
	kfree(ctx);
	return ERR_PTR(ret);
}

/**
 * m890_ctx_release() - retire the ASID of a closing file's context.
 * @ctx: context; its queues must be gone.  BOs may still hold it.
 */
void m890_ctx_release(struct m890_ctx *ctx)
{
	struct m890_device *mdev = ctx->mdev;
	u32 asid;

	mutex_lock(&mdev->mmu_lock);
	asid = ctx->asid;
	if (asid) {
		m890_ctx_desc_write(mdev, asid, 0);
		m890_mmu_invalidate_locked(mdev, asid);
		ctx->asid = 0;
		ida_free(&mdev->asid_ida, asid);
		m890_limit_ctx_put(ctx->user);
	}
	mutex_unlock(&mdev->mmu_lock);
}

static void m890_ctx_free(struct kref *ref)
{
	struct m890_ctx *ctx = container_of(ref, struct m890_ctx, ref);
	struct m890_pt *pt;

	m890_ctx_release(ctx);
	mutex_lock(&ctx->mdev->mmu_lock);
	m890_user_put(ctx->mdev, &ctx->user);
	mutex_unlock(&ctx->mdev->mmu_lock);
	m890_pt_free(ctx->mdev, ctx->root, M890_PT_LEVELS - 1);
	while ((pt = ctx->retired)) {
		ctx->retired = pt->next;
		m890_pt_free(ctx->mdev, pt, 0);
	}
	drm_mm_takedown(&ctx->va_mm);
	mutex_destroy(&ctx->lock);
	mutex_destroy(&ctx->shared_lock);
	dma_resv_fini(&ctx->resv);
	kfree(ctx);
}

/**
 * m890_ctx_put() - drop a context reference and clear the caller's pointer.
 * @ctx: pointer to the reference; may point to NULL.
 */
void m890_ctx_put(struct m890_ctx **ctx)
{
	if (*ctx)
		kref_put(&(*ctx)->ref, m890_ctx_free);
	*ctx = NULL;
}

/**
 * m890_ctx_va_alloc() - reserve device VAs.
 * @ctx: context.
 * @node: zeroed node that receives the range.
 * @size: bytes, page aligned, > 0.
 *
 * Ranges of 2 MiB or more are 2 MiB aligned so they can use large pages.
 * Return: 0, -E2BIG larger than the VA space, -ENOSPC no room left.
 */
int m890_ctx_va_alloc(struct m890_ctx *ctx, struct drm_mm_node *node, u64 size)
{
	u64 align = size >= M890_LARGE_SIZE ? M890_LARGE_SIZE : M890_HBM_ALIGN;
	int ret;

	if (size > M890_VA_SIZE)
		return -E2BIG;
	mutex_lock(&ctx->lock);
	ret = drm_mm_insert_node_generic(&ctx->va_mm, node, size, align, 0,
					 DRM_MM_INSERT_BEST);
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * m890_ctx_va_free() - release a range from m890_ctx_va_alloc().
 * @ctx: context.
 * @node: the range; nothing happens if it is not allocated.
 */
void m890_ctx_va_free(struct m890_ctx *ctx, struct drm_mm_node *node)
{
	mutex_lock(&ctx->lock);
	if (drm_mm_node_allocated(node))
		drm_mm_remove_node(node);
	mutex_unlock(&ctx->lock);
}

/* Table at @level covering @va, allocating missing tables if @alloc. */
static struct m890_pt *m890_pt_walk(struct m890_ctx *ctx, u64 va, int level, bool alloc)
{
	struct m890_pt *pt = ctx->root, *child;
	int l;
	u32 i;

	lockdep_assert_held(&ctx->lock);
	for (l = M890_PT_LEVELS - 1; l > level; l--) {
		i = m890_pt_index(va, l);
		child = pt->child[i];
		if (!child) {
			if (!alloc || (pt->cpu[i] & M890_PTE_VALID))
				return NULL;
			child = m890_pt_alloc(ctx->mdev, l - 1);
			if (!child)
				return NULL;
			pt->child[i] = child;
			WRITE_ONCE(pt->cpu[i], child->dma | M890_PTE_VALID);
		}
		pt = child;
	}
	return pt;
}

/*
 * Entry @i of level-1 table @pt points to a level-0 table left from earlier
 * 4 KiB mappings.  If that table maps nothing any more, detach it (onto
 * @ctx->retired; the entry still points to it until the caller overwrites
 * it with a 2 MiB leaf) and return true; else false.
 */
static bool m890_pt_retire(struct m890_ctx *ctx, struct m890_pt *pt, u32 i)
{
	struct m890_pt *child = pt->child[i];
	u32 j;

	lockdep_assert_held(&ctx->lock);
	for (j = 0; j < M890_PT_ENTRIES; j++)
		if (child->cpu[j])
			return false;
	pt->child[i] = NULL;
	child->next = ctx->retired;
	ctx->retired = child;
	return true;
}

/**
 * m890_mmu_map() - map a contiguous range of bus addresses or HBM offsets.
 * @ctx: context.
 * @va: device VA, 4 KiB aligned.
 * @addr: first address (DMA address, local or peer HBM offset), 4 KiB aligned.
 * @size: bytes, multiple of 4 KiB.
 * @flags: M890_PTE_WRITE, target and peer bits; VALID is added.
 * @large: incremented by the number of level-1 LARGE (2 MiB) entries
 *         written: wherever @va and @addr are both 2 MiB aligned with at
 *         least 2 MiB left, and no 4 KiB table with live entries covers
 *         that VA (an empty one is retired, see m890_pt_retire()).
 *
 * On failure the caller unmaps the whole range it asked for.
 * Return: 0 or -ENOMEM.
 */
int m890_mmu_map(struct m890_ctx *ctx, u64 va, u64 addr, u64 size, u64 flags, u32 *large)
{
	u64 end = va + size;
	bool retired = false;
	struct m890_pt *pt;
	u32 i;
	int ret = 0;

	mutex_lock(&ctx->lock);
	while (va < end) {
		pt = m890_pt_walk(ctx, va, 1, true);
		if (!pt) {
			ret = -ENOMEM;
			break;
		}
		i = m890_pt_index(va, 1);
		if (IS_ALIGNED(va | addr, M890_LARGE_SIZE) && end - va >= M890_LARGE_SIZE &&
		    (!pt->child[i] || m890_pt_retire(ctx, pt, i))) {
			retired |= !pt->child[i] && pt->cpu[i];
			WRITE_ONCE(pt->cpu[i], (addr & M890_PTE_ADDR_MASK) | flags |
				   M890_PTE_LARGE | M890_PTE_VALID);
			(*large)++;
			va += M890_LARGE_SIZE;
			addr += M890_LARGE_SIZE;
			continue;
		}
		pt = m890_pt_walk(ctx, va, 0, true);
		if (!pt) {
			ret = -ENOMEM;
			break;
		}
		WRITE_ONCE(pt->cpu[m890_pt_index(va, 0)],
			   (addr & M890_PTE_ADDR_MASK) | flags | M890_PTE_VALID);
		va += M890_PAGE_SIZE;
		addr += M890_PAGE_SIZE;
	}
	mutex_unlock(&ctx->lock);
	/* A table entry changed from a table to a leaf: drop cached walks. */
	if (retired)
		m890_mmu_invalidate(ctx);
	return ret;
}

/**
 * m890_mmu_unmap() - clear the leaves of a range and invalidate the ASID.
 * @ctx: context.
 * @va: device VA, 4 KiB aligned.
 * @size: bytes; holes in the range are skipped.
 */
void m890_mmu_unmap(struct m890_ctx *ctx, u64 va, u64 size)
{
	u64 end = va + size;
	struct m890_pt *pt;
	u32 i;

	mutex_lock(&ctx->lock);
	while (va < end) {
		pt = m890_pt_walk(ctx, va, 1, false);
		if (!pt) {
			va = ALIGN(va + 1, M890_LARGE_SIZE);
			continue;
		}
		i = m890_pt_index(va, 1);
		if (pt->cpu[i] & M890_PTE_LARGE) {
			WRITE_ONCE(pt->cpu[i], 0);
			va = ALIGN(va + 1, M890_LARGE_SIZE);
			continue;
		}
		if (!pt->child[i]) {
			va = ALIGN(va + 1, M890_LARGE_SIZE);
			continue;
		}
		WRITE_ONCE(pt->child[i]->cpu[m890_pt_index(va, 0)], 0);
		va += M890_PAGE_SIZE;
	}
	mutex_unlock(&ctx->lock);
	m890_mmu_invalidate(ctx);
}
