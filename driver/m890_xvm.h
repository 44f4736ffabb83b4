/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: exports and windows across VMs (m890_xvm.c).
 */
#ifndef M890_XVM_H
#define M890_XVM_H

#include "m890_drv.h"

void m890_xvm_init(struct m890_device *mdev);
void m890_xvm_fini(struct m890_device *mdev);
void m890_xvm_bo_free(struct m890_bo *bo);
int m890_fabric_export_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int m890_fabric_revoke_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int m890_fabric_import_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

#endif /* M890_XVM_H */
