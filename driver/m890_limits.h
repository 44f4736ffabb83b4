/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: per-client limits (m890_limits.c).
 */
#ifndef M890_LIMITS_H
#define M890_LIMITS_H

#include <linux/types.h>
#include <linux/uidgid.h>

struct m890_ctx;
struct m890_device;
struct m890_file;

void m890_limits_init(void);
void m890_limits_fini(struct m890_device *mdev);
int m890_limit_host_charge(struct m890_ctx *ctx, u64 bytes);
void m890_limit_host_uncharge(struct m890_ctx *ctx, u64 bytes);
int m890_limit_queue_get(struct m890_file *mfile);
void m890_limit_queue_put(struct m890_file *mfile);
int m890_limit_ctx_get(struct m890_device *mdev, kuid_t uid);
void m890_limit_ctx_put(struct m890_device *mdev, kuid_t uid);

#endif /* M890_LIMITS_H */
