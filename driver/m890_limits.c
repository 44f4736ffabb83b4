// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: per-client limits
 *
 * A card's queues and ASIDs and the machine's RAM are shared by every
 * client, so one client must not be able to take all of them.  Three
 * module parameters bound what one client holds; each is writable at run
 * time in /sys/module/m890/parameters/ (a new value applies to the next
 * allocation, nothing already held is taken away) and 0 means no limit:
 *
 * - host_mb_per_file: MiB of host memory that the host BOs one file
 *   created may pin together (their pages are pinned for the card while
 *   the BO lives).  Default: half the RAM, set when the module loads.
 *   DRM_M890_BO_CREATE fails with -EDQUOT past it.  A BO counts against
 *   its creator's file until it is freed, also after the file is closed
 *   (an exported BO outlives it).
 * - queues_per_file: queues one file may own.  Default 8.
 *   DRM_M890_QUEUE_CREATE fails with -EDQUOT past it, and with -EBUSY as
 *   before when every hardware queue of the card is taken.
 * - contexts_per_user: open files (each one an ASID of the card) one user
 *   (real uid of the opener) may hold on one card.  Default 128 (the card
 *   has up to 255).  open() fails with -EDQUOT past it, and with -EBUSY
 *   when the card has no free ASID.  An ASID counts from open until the
 *   file's release.
 *
 * The counts are the driver's own bookkeeping: host bytes in the file's
 * &struct m890_ctx, queues in &struct m890_file, contexts per uid in
 * &m890_device.ctx_users (under m890_device.mmu_lock, which allocates the
 * ASIDs).
 */

#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/xarray.h>

#include "m890_drv.h"
#include "m890_limits.h"
#include "m890_mmu.h"

#define M890_HOST_MB_UNSET	UINT_MAX

static unsigned int m890_host_mb_per_file = M890_HOST_MB_UNSET;
module_param_named(host_mb_per_file, m890_host_mb_per_file, uint, 0644);
MODULE_PARM_DESC(host_mb_per_file,
		 "MiB of host memory the host BOs of one file may pin together (default: half the RAM; 0: no limit)");

static unsigned int m890_queues_per_file = 8;
module_param_named(queues_per_file, m890_queues_per_file, uint, 0644);
MODULE_PARM_DESC(queues_per_file, "Queues one open file may own (default 8; 0: no limit)");

static unsigned int m890_contexts_per_user = 128;
module_param_named(contexts_per_user, m890_contexts_per_user, uint, 0644);
MODULE_PARM_DESC(contexts_per_user,
		 "Open files (ASIDs) one user may hold on one card (default 128; 0: no limit)");

/**
 * m890_limits_init() - set the defaults that depend on the machine.
 *
 * host_mb_per_file, unless given at load time, becomes half the RAM.
 */
void m890_limits_init(void)
{
	if (m890_host_mb_per_file == M890_HOST_MB_UNSET)
		m890_host_mb_per_file = max(1UL, totalram_pages() >> (21 - PAGE_SHIFT));
}

/**
 * m890_limit_host_charge() - count @bytes of pinned host memory for @ctx.
 * @ctx: the creating file's context.
 * @bytes: size of the new host BO.
 *
 * Return: 0, or -EDQUOT (nothing counted) past host_mb_per_file.
 */
int m890_limit_host_charge(struct m890_ctx *ctx, u64 bytes)
{
	u64 limit = (u64)READ_ONCE(m890_host_mb_per_file) << 20;

	if (atomic64_add_return(bytes, &ctx->host_bytes) > limit && limit) {
		atomic64_sub(bytes, &ctx->host_bytes);
		return -EDQUOT;
	}
	return 0;
}

/**
 * m890_limit_host_uncharge() - a host BO counted for @ctx is freed.
 * @ctx: its creator's context.
 * @bytes: its size.
 */
void m890_limit_host_uncharge(struct m890_ctx *ctx, u64 bytes)
{
	atomic64_sub(bytes, &ctx->host_bytes);
}

/**
 * m890_limit_queue_get() - count a new queue of @mfile.
 * @mfile: the creating file.
 *
 * Return: 0, or -EDQUOT (nothing counted) past queues_per_file.
 */
int m890_limit_queue_get(struct m890_file *mfile)
{
	unsigned int limit = READ_ONCE(m890_queues_per_file);

	if (atomic_inc_return(&mfile->nqueues) > limit && limit) {
		atomic_dec(&mfile->nqueues);
		return -EDQUOT;
	}
	return 0;
}

/**
 * m890_limit_queue_put() - a queue counted by m890_limit_queue_get() is gone.
 * @mfile: its file.
 */
void m890_limit_queue_put(struct m890_file *mfile)
{
	atomic_dec(&mfile->nqueues);
}

/**
 * m890_limit_ctx_get() - count one more ASID of @uid on @mdev.
 * @mdev: device.
 * @uid: the opener's real uid.
 *
 * Context: under @mdev->mmu_lock.
 * Return: 0, -EDQUOT past contexts_per_user, or -ENOMEM.
 */
int m890_limit_ctx_get(struct m890_device *mdev, kuid_t uid)
{
	unsigned long key = from_kuid(&init_user_ns, uid);
	unsigned int limit = READ_ONCE(m890_contexts_per_user);
	unsigned long n;

	lockdep_assert_held(&mdev->mmu_lock);
	n = xa_to_value(xa_load(&mdev->ctx_users, key) ?: xa_mk_value(0));
	if (limit && n >= limit)
		return -EDQUOT;
	return xa_err(xa_store(&mdev->ctx_users, key, xa_mk_value(n + 1), GFP_KERNEL));
}

/**
 * m890_limit_ctx_put() - an ASID counted by m890_limit_ctx_get() is freed.
 * @mdev: device.
 * @uid: the uid it was counted for.
 *
 * Context: under @mdev->mmu_lock.
 */
void m890_limit_ctx_put(struct m890_device *mdev, kuid_t uid)
{
	unsigned long key = from_kuid(&init_user_ns, uid);
	unsigned long n;
	void *entry;

	lockdep_assert_held(&mdev->mmu_lock);
	entry = xa_load(&mdev->ctx_users, key);
	if (!entry)
		return;
	n = xa_to_value(entry);
	if (n > 1)
		xa_store(&mdev->ctx_users, key, xa_mk_value(n - 1), GFP_KERNEL);
	else
		xa_erase(&mdev->ctx_users, key);
}

/**
 * m890_limits_fini() - free the per-user counts of a released device.
 * @mdev: device whose files are all gone.
 */
void m890_limits_fini(struct m890_device *mdev)
{
	xa_destroy(&mdev->ctx_users);
}
