/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: PCI probe, removal and reset (m890_pci.c).
 */
#ifndef M890_PCI_H
#define M890_PCI_H

#include "m890_drv.h"

int m890_hw_reset(struct m890_device *mdev);
int m890_device_reset(struct m890_device *mdev);
void m890_reset_prepare(struct m890_device *mdev);
int m890_reset_done(struct m890_device *mdev, int ret);
bool m890_reset_check(struct m890_device *mdev);
int m890_pci_register(void);
void m890_pci_unregister(void);

#endif /* M890_PCI_H */
