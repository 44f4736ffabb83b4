// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: shared reservation
 *
 * The card cannot tell which BOs a job's packets reach: any VA of the
 * file's address space is fair game.  So every job must keep every BO of
 * its file alive and fence it.  Rather than lock and fence each BO (a
 * submission would then cost as much as the file has BOs), the BOs a file
 * creates share one reservation object, &m890_ctx.resv, as amdgpu and xe
 * do for the BOs local to a VM: their &drm_gem_object.resv points there,
 * and one fence added to it per submission covers them all.
 *
 * Such a BO's free therefore never unmaps under a running job: when its
 * last reference goes while the context has unsignalled fences, it takes
 * those fences (a snapshot, so later submissions do not hold it up) and
 * frees itself once they have signalled (m890_bo_free_later()).  The
 * file's close waits for those frees (m890_ctx_frees_wait()), after its
 * queues are stopped and so their fences signalled.
 *
 * Every other BO the file has a handle to -- one of another file of the
 * card (a dma-buf or flink import), a peer window, a fabric window --
 * keeps its own reservation object.  The file lists them (&m890_ctx.shared,
 * from m890_bo_open() and m890_bo_close()), and each submission locks
 * their reservation objects too, adds its fence to them and holds a
 * reference to each of them until it signals.  A submission costs that
 * many locks: the file's imports, not its BOs.
 *
 * A dma-buf exported from a file's BO has the shared reservation object
 * as its own: implicit synchronisation on it waits for the jobs of the
 * exporting file (all of them; the card cannot tell which use it) and
 * for the jobs of the files that imported it.
 */

#include <linux/slab.h>
#include <linux/sort.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>

#include "m890_drv.h"
#include "m890_gem.h"
#include "m890_mmu.h"
#include "m890_resv.h"

/**
 * struct m890_shared_bo - a BO of &m890_ctx.shared.
 * @link: entry in &m890_ctx.shared.
 * @obj: the BO (no reference: the file's handles hold it).
 * @handles: handles of the file to @obj.
 */
struct m890_shared_bo {
	struct list_head link;
	struct drm_gem_object *obj;
	u32 handles;
};

/**
 * m890_bo_share_resv() - make a new BO use its creator's reservation object.
 * @bo: BO just created: no handle, mapping or dma-buf has seen it yet.
 * @ctx: the creating file's context; the BO takes a reference on it.
 */
void m890_bo_share_resv(struct m890_bo *bo, struct m890_ctx *ctx)
{
	kref_get(&ctx->ref);
	bo->resv_ctx = ctx;
	bo->shmem.base.resv = &ctx->resv;
}

static void m890_bo_free_work(struct work_struct *work)
{
	struct m890_bo *bo = container_of(work, struct m890_bo, free_work);
	struct drm_device *dev = bo->shmem.base.dev;
	struct m890_ctx *ctx = bo->resv_ctx;

	dma_fence_put(bo->free_fence);
	/* The BO's own reference goes with it: hold the context for the count. */
	kref_get(&ctx->ref);
	bo->free_destroy(bo);
	if (atomic_dec_and_test(&ctx->frees))
		wake_up_all(&ctx->frees_wq);
	m890_ctx_put(&ctx);
	drm_dev_put(dev);
}

static void m890_bo_free_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct m890_bo *bo = container_of(cb, struct m890_bo, free_cb);

	queue_work(m890_wq, &bo->free_work);
}

/**
 * m890_bo_free_later() - defer a BO's free until its context's jobs are done.
 * @bo: BO whose last reference went, sharing its context's reservation.
 * @destroy: frees @bo.
 *
 * Return: true if @destroy will run once the fences pending on the shared
 * reservation object now have signalled; false if nothing is pending (or
 * @bo has its own reservation object): the caller frees @bo at once.
 * Context: process.
 */
bool m890_bo_free_later(struct m890_bo *bo, void (*destroy)(struct m890_bo *bo))
{
	struct drm_gem_object *obj = &bo->shmem.base;
	struct dma_fence *fence = NULL;
	int ret;

	if (!bo->resv_ctx || dma_resv_test_signaled(obj->resv, DMA_RESV_USAGE_BOOKKEEP))
		return false;
	dma_resv_lock(obj->resv, NULL);
	ret = dma_resv_get_singleton(obj->resv, DMA_RESV_USAGE_BOOKKEEP, &fence);
	dma_resv_unlock(obj->resv);
	if (ret) {
		/* No memory for the snapshot: wait here instead. */
		dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_BOOKKEEP, false,
				      MAX_SCHEDULE_TIMEOUT);
		return false;
	}
	if (!fence)
		return false;

	bo->free_destroy = destroy;
	bo->free_fence = fence;
	INIT_WORK(&bo->free_work, m890_bo_free_work);
	atomic_inc(&bo->resv_ctx->frees);
	drm_dev_get(obj->dev);
	if (!dma_fence_add_callback(fence, &bo->free_cb, m890_bo_free_cb))
		return true;
	/* Signalled meanwhile. */
	drm_dev_put(obj->dev);
	if (atomic_dec_and_test(&bo->resv_ctx->frees))
		wake_up_all(&bo->resv_ctx->frees_wq);
	dma_fence_put(fence);
	return false;
}

/**
 * m890_ctx_frees_wait() - wait for the deferred frees of @ctx's BOs.
 * @ctx: context of a closing file, whose queues are gone (their fences
 *       signalled), so every deferred free is on its way.
 *
 * Context: process; sleeps.
 */
void m890_ctx_frees_wait(struct m890_ctx *ctx)
{
	wait_event(ctx->frees_wq, !atomic_read(&ctx->frees));
}

/**
 * m890_ctx_shared_add() - a file gets a handle to a BO of another reservation.
 * @ctx: the file's context.
 * @obj: BO; nothing is recorded when it shares @ctx's reservation object.
 *
 * Context: process; takes @ctx->shared_lock.
 * Return: 0 or -ENOMEM.
 */
int m890_ctx_shared_add(struct m890_ctx *ctx, struct drm_gem_object *obj)
{
	struct m890_shared_bo *sb;
	int ret = 0;

	if (obj->resv == &ctx->resv)
		return 0;
	mutex_lock(&ctx->shared_lock);
	list_for_each_entry(sb, &ctx->shared, link) {
		if (sb->obj == obj) {
			sb->handles++;
			goto out;
		}
	}
	sb = kzalloc(sizeof(*sb), GFP_KERNEL);
	if (!sb) {
		ret = -ENOMEM;
		goto out;
	}
	sb->obj = obj;
	sb->handles = 1;
	list_add_tail(&sb->link, &ctx->shared);
	ctx->nshared++;
out:
	mutex_unlock(&ctx->shared_lock);
	return ret;
}

/**
 * m890_ctx_shared_del() - undo one m890_ctx_shared_add().
 * @ctx: the file's context.
 * @obj: BO losing a handle of the file.
 *
 * Context: process; takes @ctx->shared_lock.
 */
void m890_ctx_shared_del(struct m890_ctx *ctx, struct drm_gem_object *obj)
{
	struct m890_shared_bo *sb;

	if (obj->resv == &ctx->resv)
		return;
	mutex_lock(&ctx->shared_lock);
	list_for_each_entry(sb, &ctx->shared, link) {
		if (sb->obj != obj)
			continue;
		if (!--sb->handles) {
			list_del(&sb->link);
			ctx->nshared--;
			kfree(sb);
		}
		break;
	}
	mutex_unlock(&ctx->shared_lock);
}

static int m890_resv_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(struct dma_resv * const *)a;
	uintptr_t y = (uintptr_t)*(struct dma_resv * const *)b;

	return x < y ? -1 : x > y;
}

/*
 * Take a reference to each BO of @ctx->shared into @jr->objs, and list
 * the distinct reservation objects to lock, @ctx's first, in @jr->resv
 * (several BOs of one other file share one).
 */
static int m890_job_resv_collect(struct m890_ctx *ctx, struct m890_job_resv *jr)
{
	struct m890_shared_bo *sb;
	u32 i, n = 0;

	mutex_lock(&ctx->shared_lock);
	if (ctx->nshared) {
		jr->objs = kvmalloc_array(ctx->nshared, sizeof(*jr->objs), GFP_KERNEL);
		jr->resv = kvmalloc_array(ctx->nshared + 1, sizeof(*jr->resv), GFP_KERNEL);
		if (!jr->objs || !jr->resv) {
			mutex_unlock(&ctx->shared_lock);
			kvfree(jr->objs);
			kvfree(jr->resv);
			return -ENOMEM;
		}
	}
	list_for_each_entry(sb, &ctx->shared, link) {
		drm_gem_object_get(sb->obj);
		jr->objs[jr->nobjs++] = sb->obj;
	}
	mutex_unlock(&ctx->shared_lock);

	if (!jr->nobjs) {
		jr->resv = &jr->one;
		jr->one = &ctx->resv;
		jr->nresv = 1;
		return 0;
	}
	jr->resv[0] = &ctx->resv;
	for (i = 0; i < jr->nobjs; i++)
		jr->resv[i + 1] = jr->objs[i]->resv;
	sort(jr->resv, jr->nobjs + 1, sizeof(*jr->resv), m890_resv_cmp, NULL);
	for (i = 1, n = 1; i < jr->nobjs + 1; i++)
		if (jr->resv[i] != jr->resv[n - 1])
			jr->resv[n++] = jr->resv[i];
	jr->nresv = n;
	return 0;
}

/* Lock every reservation of @jr with the ww back-off protocol. */
static int m890_job_resv_ww_lock(struct m890_job_resv *jr)
{
	int contended = -1, i, j, ret;

	ww_acquire_init(&jr->acquire, &reservation_ww_class);
retry:
	if (contended != -1) {
		ret = dma_resv_lock_slow_interruptible(jr->resv[contended], &jr->acquire);
		if (ret)
			goto err_fini;
	}
	for (i = 0; i < jr->nresv; i++) {
		if (i == contended)
			continue;
		ret = dma_resv_lock_interruptible(jr->resv[i], &jr->acquire);
		if (!ret)
			continue;
		for (j = 0; j < i; j++)
			dma_resv_unlock(jr->resv[j]);
		if (contended > i)
			dma_resv_unlock(jr->resv[contended]);
		if (ret == -EDEADLK) {
			contended = i;
			goto retry;
		}
		goto err_fini;
	}
	ww_acquire_done(&jr->acquire);
	return 0;

err_fini:
	ww_acquire_fini(&jr->acquire);
	return ret;
}

static void m890_job_resv_release(struct m890_job_resv *jr)
{
	u32 i;

	for (i = 0; i < jr->nobjs; i++)
		drm_gem_object_put(jr->objs[i]);
	kvfree(jr->objs);
	if (jr->resv != &jr->one)
		kvfree(jr->resv);
	jr->objs = NULL;
	jr->resv = NULL;
	jr->nobjs = 0;
}

/**
 * m890_job_resv_lock() - lock what a submission of @ctx must fence.
 * @ctx: the submitting file's context.
 * @jr: zeroed; receives the locked reservation objects and the
 *      referenced shared BOs.
 *
 * Locks @ctx's reservation object and that of each BO of @ctx->shared,
 * each with room for one more fence.  Costs one lock per distinct
 * reservation object, however many BOs the file created.
 * Context: process, may sleep.
 * Return: 0, or -ENOMEM, -EINTR, -ERESTARTSYS (nothing locked or held).
 */
int m890_job_resv_lock(struct m890_ctx *ctx, struct m890_job_resv *jr)
{
	u32 i;
	int ret;

	ret = m890_job_resv_collect(ctx, jr);
	if (ret)
		return ret;
	ret = m890_job_resv_ww_lock(jr);
	if (ret)
		goto err_release;
	for (i = 0; i < jr->nresv; i++) {
		ret = dma_resv_reserve_fences(jr->resv[i], 1);
		if (ret) {
			m890_job_resv_unlock(jr);
			return ret;
		}
	}
	return 0;

err_release:
	m890_job_resv_release(jr);
	return ret;
}

/**
 * m890_job_resv_fence() - add the submission's fence and unlock.
 * @jr: locked by m890_job_resv_lock().
 * @fence: the submission's fence, added as a write fence.
 *
 * The references of @jr->objs stay with the caller (the fence's BO list),
 * which takes @jr->objs and @jr->nobjs before the call; the rest of @jr
 * is freed.
 */
void m890_job_resv_fence(struct m890_job_resv *jr, struct dma_fence *fence)
{
	u32 i;

	for (i = 0; i < jr->nresv; i++) {
		dma_resv_add_fence(jr->resv[i], fence, DMA_RESV_USAGE_WRITE);
		dma_resv_unlock(jr->resv[i]);
	}
	ww_acquire_fini(&jr->acquire);
	jr->objs = NULL;
	jr->nobjs = 0;
	m890_job_resv_release(jr);
}

/**
 * m890_job_resv_unlock() - undo m890_job_resv_lock() without a fence.
 * @jr: locked by m890_job_resv_lock(); its BO references are dropped.
 */
void m890_job_resv_unlock(struct m890_job_resv *jr)
{
	u32 i;

	for (i = 0; i < jr->nresv; i++)
		dma_resv_unlock(jr->resv[i]);
	ww_acquire_fini(&jr->acquire);
	m890_job_resv_release(jr);
}
