/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: the reservation object a file's BOs share
 * (m890_resv.c).
 */
#ifndef M890_RESV_H
#define M890_RESV_H

#include <linux/dma-resv.h>
#include <linux/types.h>

struct drm_gem_object;
struct m890_bo;
struct m890_ctx;

/**
 * struct m890_job_resv - the reservation objects one submission fences.
 * @acquire: ww acquire context of the locks.
 * @resv: distinct reservation objects, locked: the context's own and
 *        those of its shared BOs.
 * @one: storage of @resv when the file has no shared BO.
 * @nresv: entries in @resv.
 * @objs: the file's shared BOs (&m890_ctx.shared), one reference each;
 *        m890_job_resv_fence() hands them to the caller.
 * @nobjs: entries in @objs.
 */
struct m890_job_resv {
	struct ww_acquire_ctx acquire;
	struct dma_resv **resv;
	struct dma_resv *one;
	u32 nresv;
	struct drm_gem_object **objs;
	u32 nobjs;
};

void m890_bo_share_resv(struct m890_bo *bo, struct m890_ctx *ctx);
bool m890_bo_free_later(struct m890_bo *bo, void (*destroy)(struct m890_bo *bo));
void m890_ctx_frees_wait(struct m890_ctx *ctx);
int m890_ctx_shared_add(struct m890_ctx *ctx, struct drm_gem_object *obj);
void m890_ctx_shared_del(struct m890_ctx *ctx, struct drm_gem_object *obj);
int m890_job_resv_lock(struct m890_ctx *ctx, struct m890_job_resv *jr);
void m890_job_resv_fence(struct m890_job_resv *jr, struct dma_fence *fence);
void m890_job_resv_unlock(struct m890_job_resv *jr);

#endif /* M890_RESV_H */
