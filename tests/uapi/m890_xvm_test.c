// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * DOC: M890 cross-VM export and window uAPI tests
 *
 * DRM_M890_FABRIC_EXPORT, _REVOKE and _IMPORT (Documentation/uapi.rst,
 * hardware spec §8.7).  In one VM: a chosen key (DRM_M890_EXPORT_KEY)
 * needs CAP_SYS_ADMIN, others get the driver's random key; every bad argument gets its documented
 * errno (flags, pads, handles of other files, host BOs and windows refused,
 * a BO or key exported twice, unknown keys and fabric ids), a window opened
 * from card 1 on an export of card 0 of the same VM carries data both ways
 * and reports DRM_M890_BO_PEER, a revoked or freed export cannot be opened
 * again and the windows already open on it fault (the driver clears their
 * PTEs: the switch checks windows only between VMs), in every file that
 * opened the window by a flink name too, several window BOs
 * on one export share the switch's one window,
 * and the export slots run out with -ENOSPC and come back.
 *
 * With M890_VMS=2 (scripts/guest-run.sh -V 2, both VMs run this program at
 * the same time) one more test goes across VMs: VM 0 exports a BO under a
 * key both derive from the test's name, VM 1 polls FABRIC_IMPORT until the
 * window opens and writes through it, VM 0 sees the data and revokes, and
 * VM 1's next access through the window faults (M890_FAULT_FABRIC).
 *
 * Uses kselftest_harness.h and prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include <drm/m890_accel.h>

#include "kselftest_harness.h"

#define ACCEL0			"/dev/accel/accel0"
#define ACCEL1			"/dev/accel/accel1"
#define WAIT_TIMEOUT_NS		(20ull * 1000 * 1000 * 1000)
#define EXPORT_SLOTS		64	/* M890_SW_EXPORTS, spec §8.7 */
#define XVM_TIMEOUT_S		120	/* for the other VM to get there */

#include "m890_test_util.h"

static int fabric_export(int fd, __u32 handle, __u32 flags, __u64 key,
			 struct drm_m890_fabric_export *ex)
{
	memset(ex, 0, sizeof(*ex));
	ex->handle = handle;
	ex->flags = flags;
	ex->key = key;
	return m890_ioctl(fd, DRM_IOCTL_M890_FABRIC_EXPORT, ex);
}

static int fabric_revoke(int fd, __u32 handle, __u32 flags)
{
	struct drm_m890_fabric_revoke r = { .handle = handle, .flags = flags };

	return m890_ioctl(fd, DRM_IOCTL_M890_FABRIC_REVOKE, &r);
}

static int fabric_import(int fd, __u32 fabric_id, __u64 key, struct drm_m890_fabric_import *im)
{
	memset(im, 0, sizeof(*im));
	im->fabric_id = fabric_id;
	im->key = key;
	return m890_ioctl(fd, DRM_IOCTL_M890_FABRIC_IMPORT, im);
}

/* A key no other test (or VM) uses at the same time. */
static __u64 test_key(unsigned int n)
{
	return 0x7876000000000000ull | ((__u64)getpid() << 16) | n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- fixture: card 0 and card 1 of this VM ---- */

FIXTURE(xvm) {
	int fd0, fd1;
	struct drm_m890_device_info info0, info1;
};

FIXTURE_SETUP(xvm)
{
	self->fd1 = -1;
	self->fd0 = open(ACCEL0, O_RDWR | O_CLOEXEC);
	if (self->fd0 < 0)
		SKIP(return, "%s: %s", ACCEL0, strerror(errno));
	ASSERT_EQ(0, query_info(self->fd0, &self->info0));
	if (!(self->info0.capabilities & DRM_M890_CAP_FABRIC_WINDOWS))
		SKIP(return, "card 0 has no fabric windows (not on a switch)");
	self->fd1 = open(ACCEL1, O_RDWR | O_CLOEXEC);
	if (self->fd1 < 0)
		SKIP(return, "%s: %s", ACCEL1, strerror(errno));
	ASSERT_EQ(0, query_info(self->fd1, &self->info1));
}

FIXTURE_TEARDOWN(xvm)
{
	if (self->fd0 >= 0)
		close(self->fd0);
	if (self->fd1 >= 0)
		close(self->fd1);
}

TEST_F(xvm, capability_with_fabric)
{
	EXPECT_NE(0xff, self->info0.fabric_id);
	EXPECT_NE(0, self->info0.capabilities & DRM_M890_CAP_FABRIC);
	EXPECT_NE(0, self->info0.capabilities & DRM_M890_CAP_HBM_BO);
}

TEST_F(xvm, export_random_key)
{
	struct drm_m890_fabric_export a, b;
	struct drm_m890_bo_create x, y;

	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &x));
	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &y));
	ASSERT_EQ(0, fabric_export(self->fd0, x.handle, 0, 0, &a));
	ASSERT_EQ(0, fabric_export(self->fd0, y.handle, 0, 0, &b));
	EXPECT_NE(0, a.key);
	EXPECT_NE(0, b.key);
	EXPECT_NE(a.key, b.key);
	EXPECT_EQ(self->info0.fabric_id, a.fabric_id);
	EXPECT_LT(a.slot, EXPORT_SLOTS);
	EXPECT_LT(b.slot, EXPORT_SLOTS);
	EXPECT_NE(a.slot, b.slot);
}

/*
 * A chosen key is a credential others can predict (or squat on): only a
 * caller with CAP_SYS_ADMIN may name one.  A child that dropped to user
 * nobody, on the same fd, gets -EPERM for DRM_M890_EXPORT_KEY (nothing
 * exported) and a random non-zero key from the driver without it.
 */
TEST_F(xvm, export_key_needs_cap_sys_admin)
{
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo;
	int status;
	pid_t pid;

	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		if (fabric_export(self->fd0, bo.handle, DRM_M890_EXPORT_KEY, test_key(7),
				  &ex) != -EPERM)
			_exit(11);
		if (fabric_revoke(self->fd0, bo.handle, 0) != -ENOENT)
			_exit(12);
		if (fabric_export(self->fd0, bo.handle, 0, 0, &ex) || !ex.key)
			_exit(13);
		_exit(fabric_revoke(self->fd0, bo.handle, 0) ? 14 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	/* 11: chosen key accepted; 12: something exported; 13: no random key. */
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* Root may still choose. */
	EXPECT_EQ(0, fabric_export(self->fd0, bo.handle, DRM_M890_EXPORT_KEY, test_key(7), &ex));
	EXPECT_EQ(test_key(7), ex.key);
}

TEST_F(xvm, export_bad_flags_and_key)
{
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo;

	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo));
	EXPECT_EQ(-EINVAL, fabric_export(self->fd0, bo.handle, 1u << 1, 0, &ex));
	EXPECT_EQ(-EINVAL, fabric_export(self->fd0, bo.handle, ~0u, test_key(1), &ex));
	EXPECT_EQ(-EINVAL, fabric_export(self->fd0, bo.handle, DRM_M890_EXPORT_KEY, 0, &ex));
	/* Nothing was exported by the refused calls. */
	EXPECT_EQ(-ENOENT, fabric_revoke(self->fd0, bo.handle, 0));
}

TEST_F(xvm, export_bad_handle)
{
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo;
	int fd2 = open(ACCEL0, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENOENT, fabric_export(self->fd0, 0, 0, 0, &ex));
	EXPECT_EQ(-ENOENT, fabric_export(self->fd0, 0x7fffffff, 0, 0, &ex));
	/* A handle of another file of the same card is unknown here. */
	ASSERT_EQ(0, bo_create(fd2, 64 * 1024, DRM_M890_BO_HBM, &bo));
	if (bo.handle != 1)
		EXPECT_EQ(-ENOENT, fabric_export(self->fd0, bo.handle, 0, 0, &ex));
	EXPECT_EQ(-ENOENT, fabric_export(self->fd1, bo.handle, 0, 0, &ex));
	close(fd2);
}

TEST_F(xvm, export_host_bo_refused)
{
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo;

	ASSERT_EQ(0, bo_create(self->fd0, 4096, DRM_M890_BO_HOST, &bo));
	EXPECT_EQ(-EINVAL, fabric_export(self->fd0, bo.handle, 0, 0, &ex));
	EXPECT_EQ(-EINVAL, fabric_export(self->fd0, bo.handle, DRM_M890_EXPORT_KEY,
					 test_key(2), &ex));
}

TEST_F(xvm, export_twice_and_key_in_use)
{
	struct drm_m890_fabric_export ex, ex2;
	struct drm_m890_bo_create a, b, c;
	__u64 key = test_key(3);

	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &a));
	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &b));
	ASSERT_EQ(0, bo_create(self->fd1, 64 * 1024, DRM_M890_BO_HBM, &c));
	ASSERT_EQ(0, fabric_export(self->fd0, a.handle, DRM_M890_EXPORT_KEY, key, &ex));
	EXPECT_EQ(key, ex.key);
	EXPECT_EQ(-EEXIST, fabric_export(self->fd0, a.handle, 0, 0, &ex2));
	EXPECT_EQ(-EEXIST, fabric_export(self->fd0, a.handle, DRM_M890_EXPORT_KEY, key + 1, &ex2));
	/* The key is taken on card 0, not on card 1. */
	EXPECT_EQ(-EEXIST, fabric_export(self->fd0, b.handle, DRM_M890_EXPORT_KEY, key, &ex2));
	EXPECT_EQ(0, fabric_export(self->fd1, c.handle, DRM_M890_EXPORT_KEY, key, &ex2));
	/* After a revoke both the BO and the key are free again. */
	ASSERT_EQ(0, fabric_revoke(self->fd0, a.handle, 0));
	EXPECT_EQ(0, fabric_export(self->fd0, b.handle, DRM_M890_EXPORT_KEY, key, &ex2));
	EXPECT_EQ(0, fabric_export(self->fd0, a.handle, DRM_M890_EXPORT_KEY, key + 1, &ex2));
}

TEST_F(xvm, revoke_bad_args)
{
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo;
	int fd2 = open(ACCEL0, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo));
	EXPECT_EQ(-ENOENT, fabric_revoke(self->fd0, bo.handle, 0));	/* not exported */
	EXPECT_EQ(-ENOENT, fabric_revoke(self->fd0, 0x7fffffff, 0));
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, 0, 0, &ex));
	EXPECT_EQ(-EINVAL, fabric_revoke(self->fd0, bo.handle, 1));
	/* Another file cannot name the BO. */
	EXPECT_EQ(-ENOENT, fabric_revoke(fd2, bo.handle, 0));
	EXPECT_EQ(0, fabric_revoke(self->fd0, bo.handle, 0));
	EXPECT_EQ(-ENOENT, fabric_revoke(self->fd0, bo.handle, 0));
	close(fd2);
}

TEST_F(xvm, import_bad_args)
{
	struct drm_m890_fabric_import im;
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo;

	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, 0, 0, &ex));

	fabric_import(self->fd1, ex.fabric_id, ex.key, &im);
	im.flags = 1;
	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd1, DRM_IOCTL_M890_FABRIC_IMPORT, &im));
	fabric_import(self->fd1, ex.fabric_id, ex.key, &im);
	im.pad = 1;
	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd1, DRM_IOCTL_M890_FABRIC_IMPORT, &im));
	EXPECT_EQ(-EINVAL, fabric_import(self->fd1, 64, ex.key, &im));
	EXPECT_EQ(-EINVAL, fabric_import(self->fd1, 0xff, ex.key, &im));
	EXPECT_EQ(-EINVAL, fabric_import(self->fd1, ~0u, ex.key, &im));
}

TEST_F(xvm, import_unknown_key)
{
	struct drm_m890_fabric_import im;
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo;

	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, 0, 0, &ex));
	EXPECT_EQ(-ENOENT, fabric_import(self->fd1, ex.fabric_id, ex.key ^ 1, &im));
	EXPECT_EQ(-ENOENT, fabric_import(self->fd1, ex.fabric_id, 0, &im));
	/* The right key on the wrong card. */
	EXPECT_EQ(-ENOENT, fabric_import(self->fd0, self->info1.fabric_id, ex.key, &im));
}

/*
 * Card 1 writes card 0's exported BO through a window and reads it back:
 * an export of a card of the same VM opens the way one of another VM does.
 */
TEST_F(xvm, import_same_vm_carries_data)
{
	struct drm_m890_bo_create bo, host;
	struct drm_m890_queue_create q;
	struct drm_m890_fabric_import im;
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_info bi;
	union m890_packet p[2];
	__u32 *m, *h;
	__u64 seq, i;

	ASSERT_EQ(0, bo_create(self->fd0, 256 * 1024, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, DRM_M890_EXPORT_KEY, test_key(4), &ex));
	ASSERT_EQ(0, fabric_import(self->fd1, ex.fabric_id, ex.key, &im));
	EXPECT_NE(0, im.handle);
	EXPECT_EQ(bo.size, im.size);
	EXPECT_NE(0, im.va);

	ASSERT_EQ(0, bo_info(self->fd1, im.handle, &bi));
	EXPECT_EQ(DRM_M890_BO_HBM | DRM_M890_BO_PEER, bi.flags);
	EXPECT_EQ(self->info0.fabric_id, bi.peer_fabric_id);
	EXPECT_EQ(im.size, bi.size);
	EXPECT_EQ(im.va, bi.va);
	EXPECT_EQ(0, bi.mmap_offset);

	ASSERT_EQ(0, queue_create(self->fd1, &q));
	pkt_fill(&p[0], im.va, im.size, 0x5eed1234);
	ASSERT_EQ(0, submit(self->fd1, q.queue_id, p, 1, &seq));
	ASSERT_EQ(0, wait_point(self->fd1, q.syncobj, seq));
	EXPECT_EQ(1, point_status(self->fd1, q.syncobj, seq));
	m = bo_map(self->fd0, &bo);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0x5eed1234, m[0]);
	EXPECT_EQ(0x5eed1234, m[bo.size / 4 - 1]);

	/* And reads: card 0's data copied into a host BO of card 1. */
	for (i = 0; i < bo.size / 4; i++)
		m[i] = (__u32)(i * 2654435761u);
	ASSERT_EQ(0, bo_create(self->fd1, bo.size, DRM_M890_BO_HOST, &host));
	h = bo_map(self->fd1, &host);
	ASSERT_NE(NULL, h);
	pkt_copy(&p[0], im.va, host.va, im.size);
	ASSERT_EQ(0, submit(self->fd1, q.queue_id, p, 1, &seq));
	ASSERT_EQ(0, wait_point(self->fd1, q.syncobj, seq));
	EXPECT_EQ(1, point_status(self->fd1, q.syncobj, seq));
	EXPECT_EQ(0, memcmp(h, m, bo.size));
	munmap(m, bo.size);
	munmap(h, host.size);
	EXPECT_EQ(0, gem_close(self->fd1, im.handle));
}

/* FILL through @va on a new queue of @fd: 1 done, < 0 the job's error. */
static int fill_through(struct __test_metadata *_metadata, int fd, __u64 va, __u32 val)
{
	struct drm_m890_queue_create q;
	union m890_packet p;
	__u64 seq;
	int ret;

	if (queue_create(fd, &q))
		return -999;
	pkt_fill(&p, va, 4096, val);
	if (submit(fd, q.queue_id, &p, 1, &seq) || wait_point(fd, q.syncobj, seq))
		ret = -998;
	else
		ret = point_status(fd, q.syncobj, seq);
	queue_destroy(fd, q.queue_id);
	return ret;
}

/*
 * In one VM the switch does not check windows, so the driver must: after
 * a revoke, and after the owner's BO is freed (its HBM given to a new
 * BO), an access through a window opened before faults and the new BO's
 * contents stay untouched.
 */
TEST_F(xvm, same_vm_window_faults_after_revoke_and_free)
{
	struct drm_m890_fabric_import im;
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo, bo2;
	__u32 *m;

	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, 0, 0, &ex));
	ASSERT_EQ(0, fabric_import(self->fd1, ex.fabric_id, ex.key, &im));
	EXPECT_EQ(1, fill_through(_metadata, self->fd1, im.va, 0x11111111));
	ASSERT_EQ(0, fabric_revoke(self->fd0, bo.handle, 0));
	EXPECT_GT(0, fill_through(_metadata, self->fd1, im.va, 0x22222222));
	m = bo_map(self->fd0, &bo);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0x11111111, m[0]);
	munmap(m, bo.size);
	EXPECT_EQ(0, gem_close(self->fd1, im.handle));

	/* Exported again, window opened, then the BO freed and replaced. */
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, 0, 0, &ex));
	ASSERT_EQ(0, fabric_import(self->fd1, ex.fabric_id, ex.key, &im));
	ASSERT_EQ(0, gem_close(self->fd0, bo.handle));
	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo2));
	EXPECT_GT(0, fill_through(_metadata, self->fd1, im.va, 0x33333333));
	m = bo_map(self->fd0, &bo2);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0, m[0]);
	munmap(m, bo2.size);
}

static int gem_flink(int fd, __u32 handle, __u32 *name)
{
	struct drm_gem_flink f = { .handle = handle };
	int ret = m890_ioctl(fd, DRM_IOCTL_GEM_FLINK, &f);

	*name = f.name;
	return ret;
}

static int gem_open(int fd, __u32 name, __u32 *handle, __u64 *size)
{
	struct drm_gem_open o = { .name = name };
	int ret = m890_ioctl(fd, DRM_IOCTL_GEM_OPEN, &o);

	*handle = o.handle;
	*size = o.size;
	return ret;
}

/*
 * A window can reach files other than its importer's: B imports it and
 * flinks it, C (another file of card 1) opens the name and gets its own
 * mapping.  A revoke, and the free of the exported BO, must clear C's
 * mapping too: C's FILL then faults, and the BO that gets the freed HBM
 * range next (a client D of card 0) keeps its contents.  A revoked
 * window cannot be opened again.
 */
TEST_F(xvm, window_opened_by_name_goes_on_revoke_and_free)
{
	struct drm_m890_fabric_import im;
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo, bo2;
	__u32 name, hc, hc2;
	int b, c, d;
	__u64 size;
	__u32 *m;
	__u64 vc;
	struct drm_m890_bo_info bi;

	if (geteuid())
		SKIP(return, "GEM_FLINK needs root");
	c = open(ACCEL1, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, c);
	d = open(ACCEL0, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, d);

	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, 0, 0, &ex));
	ASSERT_EQ(0, fabric_import(self->fd1, ex.fabric_id, ex.key, &im));
	ASSERT_EQ(0, gem_flink(self->fd1, im.handle, &name));
	ASSERT_EQ(0, gem_open(c, name, &hc, &size));
	EXPECT_EQ(im.size, size);
	ASSERT_EQ(0, bo_info(c, hc, &bi));
	vc = bi.va;
	ASSERT_NE(0, vc);
	EXPECT_EQ(1, fill_through(_metadata, c, vc, 0x11111111));
	m = bo_map(self->fd0, &bo);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0x11111111, m[0]);

	/* Revoked: every file's mapping faults, the BO keeps its data. */
	ASSERT_EQ(0, fabric_revoke(self->fd0, bo.handle, 0));
	EXPECT_GT(0, fill_through(_metadata, self->fd1, im.va, 0x22222222));
	EXPECT_GT(0, fill_through(_metadata, c, vc, 0x33333333));
	EXPECT_EQ(0x11111111, m[0]);
	EXPECT_EQ(-ENODEV, gem_open(c, name, &hc2, &size));
	munmap(m, bo.size);
	EXPECT_EQ(0, gem_close(c, hc));
	EXPECT_EQ(0, gem_close(self->fd1, im.handle));

	/*
	 * Exported again, imported and opened by name in two new files (the
	 * faults made B's and C's contexts bad); then the BO freed and its
	 * range given to D.
	 */
	close(c);
	b = open(ACCEL1, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, b);
	c = open(ACCEL1, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, 0, 0, &ex));
	ASSERT_EQ(0, fabric_import(b, ex.fabric_id, ex.key, &im));
	ASSERT_EQ(0, gem_flink(b, im.handle, &name));
	ASSERT_EQ(0, gem_open(c, name, &hc, &size));
	ASSERT_EQ(0, bo_info(c, hc, &bi));
	vc = bi.va;
	EXPECT_EQ(1, fill_through(_metadata, c, vc, 0x44444444));
	ASSERT_EQ(0, gem_close(self->fd0, bo.handle));
	ASSERT_EQ(0, bo_create(d, 64 * 1024, DRM_M890_BO_HBM, &bo2));
	m = bo_map(d, &bo2);
	ASSERT_NE(NULL, m);
	m[0] = 0xd0d0d0d0;
	EXPECT_GT(0, fill_through(_metadata, c, vc, 0x55555555));
	EXPECT_GT(0, fill_through(_metadata, b, im.va, 0x66666666));
	EXPECT_EQ(0xd0d0d0d0, m[0]);
	EXPECT_EQ(0, m[1]);
	munmap(m, bo2.size);
	close(b);
	close(c);
	close(d);
}

TEST_F(xvm, window_cannot_be_exported_or_shared)
{
	struct drm_m890_fabric_import im;
	struct drm_m890_fabric_export ex, ex2;
	struct drm_m890_bo_create bo;
	int dfd = -1;

	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, 0, 0, &ex));
	ASSERT_EQ(0, fabric_import(self->fd1, ex.fabric_id, ex.key, &im));
	EXPECT_EQ(-EINVAL, fabric_export(self->fd1, im.handle, 0, 0, &ex2));
	EXPECT_EQ(-ENOENT, fabric_revoke(self->fd1, im.handle, 0));
	EXPECT_NE(0, drmPrimeHandleToFD(self->fd1, im.handle, DRM_CLOEXEC, &dfd));
	if (dfd >= 0)
		close(dfd);
}

TEST_F(xvm, revoked_or_freed_export_cannot_be_opened)
{
	struct drm_m890_fabric_import im;
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo;
	__u64 key = test_key(5);

	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, DRM_M890_EXPORT_KEY, key, &ex));
	ASSERT_EQ(0, fabric_import(self->fd1, ex.fabric_id, key, &im));
	ASSERT_EQ(0, fabric_revoke(self->fd0, bo.handle, 0));
	EXPECT_EQ(-ENOENT, fabric_import(self->fd1, ex.fabric_id, key, &im));

	/* Exported again, then the BO freed: the export goes with it. */
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, DRM_M890_EXPORT_KEY, key, &ex));
	ASSERT_EQ(0, fabric_import(self->fd1, ex.fabric_id, key, &im));
	ASSERT_EQ(0, gem_close(self->fd0, bo.handle));
	EXPECT_EQ(-ENOENT, fabric_import(self->fd1, ex.fabric_id, key, &im));
}

/*
 * The switch keeps one window per card and export: two window BOs on one
 * export, the first closed, the second still reaches the export.
 */
TEST_F(xvm, two_windows_on_one_export)
{
	struct drm_m890_fabric_import a, b;
	struct drm_m890_queue_create q;
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo;
	int fd2 = open(ACCEL1, O_RDWR | O_CLOEXEC);
	union m890_packet p;
	__u64 seq;
	__u32 *m;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, 0, 0, &ex));
	ASSERT_EQ(0, fabric_import(self->fd1, ex.fabric_id, ex.key, &a));
	ASSERT_EQ(0, fabric_import(fd2, ex.fabric_id, ex.key, &b));
	ASSERT_EQ(0, fabric_import(self->fd1, ex.fabric_id, ex.key, &a));
	EXPECT_EQ(0, gem_close(self->fd1, a.handle));
	close(self->fd1);	/* and every window of that file */
	self->fd1 = -1;

	ASSERT_EQ(0, queue_create(fd2, &q));
	pkt_fill(&p, b.va, b.size, 0xb0b0b0b0);
	ASSERT_EQ(0, submit(fd2, q.queue_id, &p, 1, &seq));
	ASSERT_EQ(0, wait_point(fd2, q.syncobj, seq));
	EXPECT_EQ(1, point_status(fd2, q.syncobj, seq));
	m = bo_map(self->fd0, &bo);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0xb0b0b0b0, m[0]);
	munmap(m, bo.size);
	close(fd2);
}

TEST_F(xvm, export_slots_run_out_and_come_back)
{
	struct drm_m890_bo_create bo[EXPORT_SLOTS + 1];
	struct drm_m890_fabric_export ex;
	int n, ret = 0, fd = open(ACCEL0, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd);
	for (n = 0; n <= EXPORT_SLOTS; n++) {
		ASSERT_EQ(0, bo_create(fd, 64 * 1024, DRM_M890_BO_HBM, &bo[n]));
		ret = fabric_export(fd, bo[n].handle, 0, 0, &ex);
		if (ret)
			break;
	}
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_GE(n, 1);
	EXPECT_LE(n, EXPORT_SLOTS);
	/* A freed BO gives its slot back. */
	ASSERT_EQ(0, gem_close(fd, bo[0].handle));
	EXPECT_EQ(0, fabric_export(fd, bo[n].handle, 0, 0, &ex));
	/* Closing the file frees every slot. */
	close(fd);
	ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo[0]));
	EXPECT_EQ(0, fabric_export(self->fd0, bo[0].handle, 0, 0, &ex));
}

/* ---- across two VMs (M890_VMS=2): revoke, then the window faults ---- */

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v ? atoi(v) : dflt;
}

TEST_F_TIMEOUT(xvm, other_vm_window_faults_after_revoke, 2 * XVM_TIMEOUT_S)
{
	int vm = env_int("M890_VM", 0), vms = env_int("M890_VMS", 1);
	const __u64 key = 0x78766d7265766f6bull;	/* both VMs derive the same */
	const __u32 owner = 0;	/* fabric id of VM 0's card 0 */
	struct drm_m890_fabric_import im;
	struct drm_m890_queue_create q;
	struct drm_m890_fabric_export ex;
	struct drm_m890_bo_create bo;
	union m890_packet p;
	double t0 = now_s();
	int ret, err = 0;
	volatile __u32 *m;
	__u64 seq;

	if (vms != 2)
		SKIP(return, "needs two VMs (M890_VMS=%d)", vms);

	if (vm == 0) {
		ASSERT_EQ(owner, self->info0.fabric_id);
		ASSERT_EQ(0, bo_create(self->fd0, 64 * 1024, DRM_M890_BO_HBM, &bo));
		ASSERT_EQ(0, fabric_export(self->fd0, bo.handle, DRM_M890_EXPORT_KEY, key, &ex));
		m = bo_map(self->fd0, &bo);
		ASSERT_NE(NULL, m);
		/* VM 1 writes its VM number + 1 into the first word. */
		while (m[0] != 2 && now_s() - t0 < XVM_TIMEOUT_S)
			usleep(10000);
		ASSERT_EQ(2, m[0]);
		ASSERT_EQ(0, fabric_revoke(self->fd0, bo.handle, 0));
		/* Keep the BO until VM 1 saw the fault (it writes nothing more). */
		m[1] = 0;
		sleep(2);
		EXPECT_EQ(0, m[1]);
		munmap((void *)m, bo.size);
		return;
	}

	do {
		ret = fabric_import(self->fd0, owner, key, &im);
		if (ret == -ENOENT)
			usleep(20000);
	} while (ret == -ENOENT && now_s() - t0 < XVM_TIMEOUT_S);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(64 * 1024, im.size);
	ASSERT_EQ(0, queue_create(self->fd0, &q));
	pkt_fill(&p, im.va, 4, 2);
	ASSERT_EQ(0, submit(self->fd0, q.queue_id, &p, 1, &seq));
	ASSERT_EQ(0, wait_point(self->fd0, q.syncobj, seq));
	ASSERT_EQ(1, point_status(self->fd0, q.syncobj, seq));

	/* Write word 1 until the revoke makes the window fault. */
	pkt_fill(&p, im.va + 4, 4, 0xbad);
	while (now_s() - t0 < XVM_TIMEOUT_S) {
		ASSERT_EQ(0, submit(self->fd0, q.queue_id, &p, 1, &seq));
		ASSERT_EQ(0, wait_point(self->fd0, q.syncobj, seq));
		err = point_status(self->fd0, q.syncobj, seq);
		if (err != 1)
			break;
		usleep(20000);
	}
	EXPECT_GT(0, err);
	EXPECT_EQ(-ENOENT, fabric_import(self->fd0, owner, key, &im));
}

TEST_HARNESS_MAIN
