/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: dma-buf export and peer windows (m890_p2p.c).
 */
#ifndef M890_P2P_H
#define M890_P2P_H

#include "m890_drv.h"

struct dma_buf *m890_hbm_export(struct drm_gem_object *obj, int flags);
struct dma_buf *m890_host_export(struct drm_gem_object *obj, int flags);
struct drm_gem_object *m890_gem_prime_import(struct drm_device *dev, struct dma_buf *buf);
void m890_p2p_revoke(struct m890_device *mdev);

#endif /* M890_P2P_H */
