/* SPDX-License-Identifier: GPL-2.0 */
/*
 * M890 accel driver: per-user limits (m890_limits.c).
 */
#ifndef M890_LIMITS_H
#define M890_LIMITS_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct m890_device;

/**
 * struct m890_user - what one user holds on one card (m890_limits.c).
 * @uid: the user: the real uid of the openers of its files.
 * @refs: contexts of the user not freed yet, one each (a context can
 *        outlive its file while BOs hold it); under m890_device.mmu_lock.
 *        The entry leaves m890_device.users with the last.
 * @contexts: ASIDs of the user's files, from open() to the file's
 *            release, counted against contexts_per_user; under
 *            m890_device.mmu_lock.
 * @queues: queues of the user's files, created or being created, counted
 *          against queues_per_user.
 * @host_bytes: bytes of the live host BOs the user's files created,
 *              counted against host_mb_per_user.
 */
struct m890_user {
	kuid_t uid;
	unsigned int refs;
	unsigned int contexts;
	atomic_t queues;
	atomic64_t host_bytes;
};

void m890_limits_init(void);
void m890_limits_fini(struct m890_device *mdev);
struct m890_user *m890_user_get(struct m890_device *mdev, kuid_t uid);
void m890_user_put(struct m890_device *mdev, struct m890_user **user);
int m890_limit_ctx_get(struct m890_user *user);
void m890_limit_ctx_put(struct m890_user *user);
int m890_limit_host_charge(struct m890_user *user, u64 bytes);
void m890_limit_host_uncharge(struct m890_user *user, u64 bytes);
int m890_limit_queue_get(struct m890_user *user);
void m890_limit_queue_put(struct m890_user *user);

#endif /* M890_LIMITS_H */
