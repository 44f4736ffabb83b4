/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: debugfs files (m890_debugfs.c).
 */
#ifndef M890_DEBUGFS_H
#define M890_DEBUGFS_H

#include "m890_drv.h"

void m890_debugfs_init(struct m890_device *mdev);

#endif /* M890_DEBUGFS_H */
