// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: per-user limits
 *
 * A card's queues and ASIDs and the machine's RAM are shared by every
 * client, so one user must not be able to take all of them.  Three
 * module parameters bound what one user (the real uid of the opener)
 * holds on one card, summed over all of the user's open files of the
 * card, so that opening the node again, in the same process or in
 * another, gives no new budget.  Each is writable at run time in
 * /sys/module/m890/parameters/ (a new value applies to the next
 * allocation, nothing already held is taken away) and 0 means no limit:
 *
 * - host_mb_per_user: MiB of host memory that the host BOs the user's
 *   files created may pin together (their pages are pinned for the card
 *   while the BO lives).  Default: half the RAM, set when the module
 *   loads.  DRM_M890_BO_CREATE fails with -EDQUOT past it.  A BO counts
 *   until it is freed, also after its file is closed (an exported BO
 *   outlives it).
 * - queues_per_user: queues the user's files may own.  Default 8 (half
 *   a card's 16).  DRM_M890_QUEUE_CREATE fails with -EDQUOT past it, and
 *   with -EBUSY as before when every hardware queue of the card is taken.
 * - contexts_per_user: open files (each one an ASID of the card) of the
 *   user.  Default 128 (the card has up to 255).  open() fails with
 *   -EDQUOT past it, and with -EBUSY when the card has no free ASID.  An
 *   ASID counts from open until the file's release.
 *
 * host_mb_per_file and queues_per_file, the names of 1.5 to 1.7, when
 * the first two counted per open file, remain as deprecated names of the
 * same parameters.
 *
 * Each card keeps a &struct m890_user per user that holds a context on
 * it, in &m890_device.users (indexed by uid, under m890_device.mmu_lock,
 * which allocates the ASIDs); every &struct m890_ctx holds a reference to
 * its user's until the context is freed, so the counts are reached from
 * a file, a queue or a BO through its context without a lookup or a
 * lock: the ASIDs under mmu_lock, the queues and host bytes atomically.
 * The uid is that of the opener, as for the file's other credentials:
 * a descriptor passed to another process keeps counting for its opener.
 */

#include <linux/cred.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "m890_drv.h"
#include "m890_limits.h"

#define M890_HOST_MB_UNSET	UINT_MAX

static unsigned int m890_host_mb_per_user = M890_HOST_MB_UNSET;
module_param_named(host_mb_per_user, m890_host_mb_per_user, uint, 0644);
MODULE_PARM_DESC(host_mb_per_user,
		 "MiB of host memory the host BOs of one user may pin on one card (default: half the RAM; 0: no limit)");
module_param_named(host_mb_per_file, m890_host_mb_per_user, uint, 0644);
MODULE_PARM_DESC(host_mb_per_file, "Deprecated name of host_mb_per_user");

static unsigned int m890_queues_per_user = 8;
module_param_named(queues_per_user, m890_queues_per_user, uint, 0644);
MODULE_PARM_DESC(queues_per_user,
		 "Queues the files of one user may own on one card (default 8; 0: no limit)");
module_param_named(queues_per_file, m890_queues_per_user, uint, 0644);
MODULE_PARM_DESC(queues_per_file, "Deprecated name of queues_per_user");

static unsigned int m890_contexts_per_user = 128;
module_param_named(contexts_per_user, m890_contexts_per_user, uint, 0644);
MODULE_PARM_DESC(contexts_per_user,
		 "Open files (ASIDs) one user may hold on one card (default 128; 0: no limit)");

/**
 * m890_limits_init() - set the defaults that depend on the machine.
 *
 * host_mb_per_user, unless given at load time, becomes half the RAM.
 */
void m890_limits_init(void)
{
	if (m890_host_mb_per_user == M890_HOST_MB_UNSET)
		m890_host_mb_per_user = max(1UL, totalram_pages() >> (21 - PAGE_SHIFT));
}

/**
 * m890_user_get() - the counts of @uid on @mdev, with a new reference.
 * @mdev: device.
 * @uid: the opener's real uid.
 *
 * Context: under @mdev->mmu_lock.
 * Return: the user's entry, created with zero counts if it had none, or
 * ERR_PTR(-ENOMEM).
 */
struct m890_user *m890_user_get(struct m890_device *mdev, kuid_t uid)
{
	unsigned long key = from_kuid(&init_user_ns, uid);
	struct m890_user *user;
	int ret;

	lockdep_assert_held(&mdev->mmu_lock);
	user = xa_load(&mdev->users, key);
	if (!user) {
		user = kzalloc(sizeof(*user), GFP_KERNEL);
		if (!user)
			return ERR_PTR(-ENOMEM);
		user->uid = uid;
		ret = xa_err(xa_store(&mdev->users, key, user, GFP_KERNEL));
		if (ret) {
			kfree(user);
			return ERR_PTR(ret);
		}
	}
	user->refs++;
	return user;
}

/**
 * m890_user_put() - drop a reference taken by m890_user_get().
 * @mdev: device.
 * @user: the reference; cleared.  The last one frees the entry, whose
 *        counts are all zero by then.
 *
 * Context: under @mdev->mmu_lock.
 */
void m890_user_put(struct m890_device *mdev, struct m890_user **user)
{
	struct m890_user *u = *user;

	lockdep_assert_held(&mdev->mmu_lock);
	*user = NULL;
	if (--u->refs)
		return;
	xa_erase(&mdev->users, from_kuid(&init_user_ns, u->uid));
	kfree(u);
}

/**
 * m890_limit_ctx_get() - count one more ASID of @user.
 * @user: the opener's entry on the card.
 *
 * Context: under m890_device.mmu_lock.
 * Return: 0, or -EDQUOT (nothing counted) past contexts_per_user.
 */
int m890_limit_ctx_get(struct m890_user *user)
{
	unsigned int limit = READ_ONCE(m890_contexts_per_user);

	if (limit && user->contexts >= limit)
		return -EDQUOT;
	user->contexts++;
	return 0;
}

/**
 * m890_limit_ctx_put() - an ASID counted by m890_limit_ctx_get() is freed.
 * @user: the entry it was counted for.
 *
 * Context: under m890_device.mmu_lock.
 */
void m890_limit_ctx_put(struct m890_user *user)
{
	user->contexts--;
}

/**
 * m890_limit_host_charge() - count @bytes of pinned host memory for @user.
 * @user: the entry of the creating file's context.
 * @bytes: size of the new host BO.
 *
 * Return: 0, or -EDQUOT (nothing counted) past host_mb_per_user.
 */
int m890_limit_host_charge(struct m890_user *user, u64 bytes)
{
	u64 limit = (u64)READ_ONCE(m890_host_mb_per_user) << 20;

	if (atomic64_add_return(bytes, &user->host_bytes) > limit && limit) {
		atomic64_sub(bytes, &user->host_bytes);
		return -EDQUOT;
	}
	return 0;
}

/**
 * m890_limit_host_uncharge() - a host BO counted for @user is freed.
 * @user: the entry of its creator's context.
 * @bytes: its size.
 */
void m890_limit_host_uncharge(struct m890_user *user, u64 bytes)
{
	atomic64_sub(bytes, &user->host_bytes);
}

/**
 * m890_limit_queue_get() - count a new queue of @user.
 * @user: the entry of the creating file's context.
 *
 * Return: 0, or -EDQUOT (nothing counted) past queues_per_user.
 */
int m890_limit_queue_get(struct m890_user *user)
{
	unsigned int limit = READ_ONCE(m890_queues_per_user);

	if (atomic_inc_return(&user->queues) > limit && limit) {
		atomic_dec(&user->queues);
		return -EDQUOT;
	}
	return 0;
}

/**
 * m890_limit_queue_put() - a queue counted by m890_limit_queue_get() is gone.
 * @user: the entry it was counted for.
 */
void m890_limit_queue_put(struct m890_user *user)
{
	atomic_dec(&user->queues);
}

/**
 * m890_limits_fini() - free the per-user table of a released device.
 * @mdev: device whose files and contexts are all gone, and with them
 *        every entry of the table (each context's last reference frees
 *        its entry).
 */
void m890_limits_fini(struct m890_device *mdev)
{
	xa_destroy(&mdev->users);
}
