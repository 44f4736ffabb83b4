// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * DOC: M890 accel uAPI tests
 *
 * Exercises every ioctl of uapi/drm/m890_accel.h against /dev/accel/accel0
 * (and accel1 for cross-device checks) as documented in
 * Documentation/uapi.rst: the positive paths (query, BO create/info/mmap,
 * queues, submission and timeline waits) and, for each argument, the
 * clean error a malformed call must get (pads, flags, sizes, handles and
 * queue ids of other files, bad packets, mmap abuse).  A packet that faults
 * must fail its timeline point and stop only its own queue.  Race tests run
 * threads against each other (BO create vs close, submit vs queue destroy,
 * submit vs BO create/close, dma-buf export/import vs close).  Sizes past
 * 2^31 and 2^32 bytes, mmap at offsets inside a BO (refused on the accel
 * fd, honoured on a dma-buf of it), two handles of one BO in a submission, refused submissions
 * (no timeline point may be used up) and output fields of BO_INFO are
 * checked against the "Kernel driver" classes of failure the project tests
 * for.
 *
 * Each test opens its own file descriptor so tests are independent.  The
 * program uses kselftest_harness.h and prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include <drm/m890_accel.h>

#include "kselftest_harness.h"

#define ACCEL0			"/dev/accel/accel0"
#define ACCEL1			"/dev/accel/accel1"
#define WAIT_TIMEOUT_NS		(20ull * 1000 * 1000 * 1000)
#define HBM_ALIGN		(64 * 1024)
#define HOST_ALIGN		4096
#define MAX_QUEUES		64	/* M890_MAX_QUEUES, spec §4 */

/* ---- small helpers: each returns 0 or -errno ---- */

#include "m890_test_util.h"

/* A VA that no BO of a fresh file can occupy. */
static __u64 unmapped_va(const struct drm_m890_device_info *info)
{
	if (info->va_start >= 0x10000)
		return 0x1000;
	return info->va_start + info->va_size;
}

/* ---- fixture: one fd on card 0 and its device info ---- */

FIXTURE(dev) {
	int fd;
	struct drm_m890_device_info info;
};

FIXTURE_SETUP(dev)
{
	self->fd = open(ACCEL0, O_RDWR | O_CLOEXEC);
	if (self->fd < 0)
		SKIP(return, "%s: %s", ACCEL0, strerror(errno));
	ASSERT_EQ(0, query_info(self->fd, &self->info));
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* ---- query ---- */

TEST_F(dev, query_device_info)
{
	const struct drm_m890_device_info *i = &self->info;
	__u64 need = DRM_M890_CAP_HBM_BO | DRM_M890_CAP_HOST_BO |
		     DRM_M890_CAP_TIMELINE_SYNCOBJ;

	EXPECT_EQ(0x1d89, i->pci_vendor);
	EXPECT_EQ(0x0890, i->pci_device);
	EXPECT_EQ(1, i->spec_version >> 16);
	EXPECT_GE(i->num_queues, 1);
	EXPECT_LE(i->num_queues, MAX_QUEUES);
	EXPECT_NE(0, i->hbm_size);
	EXPECT_EQ(0, i->hbm_size & (i->hbm_size - 1));
	EXPECT_NE(0, i->va_size);
	EXPECT_LE(i->va_start + i->va_size, 1ull << 48);
	EXPECT_GE(i->va_start + i->va_size, i->va_start);
	EXPECT_EQ(need, i->capabilities & need);
	EXPECT_GE(i->max_submit_packets, 1);
	EXPECT_EQ(0, i->pad);
	if (i->fabric_id != 0xff) {
		EXPECT_LT(i->fabric_id, 64);
		EXPECT_EQ(i->fabric_id, i->fabric_port);
	}
}

TEST_F(dev, query_size_zero_returns_size)
{
	struct drm_m890_query q = { .type = DRM_M890_QUERY_DEVICE_INFO };

	ASSERT_EQ(0, m890_ioctl(self->fd, DRM_IOCTL_M890_QUERY, &q));
	EXPECT_EQ(sizeof(struct drm_m890_device_info), q.size);
}

TEST_F(dev, query_truncated_and_extended)
{
	unsigned char buf[sizeof(struct drm_m890_device_info) + 32];
	struct drm_m890_query q = {
		.type = DRM_M890_QUERY_DEVICE_INFO,
		.size = 8,
		.data = (uintptr_t)buf,
	};
	size_t i;

	/* Short buffer: a truncated copy, nothing past it written. */
	memset(buf, 0xcc, sizeof(buf));
	ASSERT_EQ(0, m890_ioctl(self->fd, DRM_IOCTL_M890_QUERY, &q));
	EXPECT_EQ(8, q.size);
	EXPECT_EQ(0, memcmp(buf, &self->info, 8));
	for (i = 8; i < sizeof(buf); i++)
		ASSERT_EQ(0xcc, buf[i]);

	/* Long buffer: the structure, then a zeroed tail. */
	memset(buf, 0xcc, sizeof(buf));
	q.size = sizeof(buf);
	ASSERT_EQ(0, m890_ioctl(self->fd, DRM_IOCTL_M890_QUERY, &q));
	EXPECT_EQ(0, memcmp(buf, &self->info, sizeof(self->info)));
	for (i = sizeof(self->info); i < sizeof(buf); i++)
		ASSERT_EQ(0, buf[i]);
}

TEST_F(dev, query_bad_type)
{
	struct drm_m890_device_info info;
	static const __u32 types[] = { 0, 0x100, 0xffffffff };
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct drm_m890_query q = {
			.type = types[i],
			.size = sizeof(info),
			.data = (uintptr_t)&info,
		};

		EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_QUERY, &q));
	}
}

TEST_F(dev, query_nonzero_pad)
{
	struct drm_m890_device_info info;
	struct drm_m890_query q = {
		.type = DRM_M890_QUERY_DEVICE_INFO,
		.size = sizeof(info),
		.data = (uintptr_t)&info,
		.pad = 1,
	};

	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_QUERY, &q));
	q.pad = 0;
	q.pad2 = 0x80000000u;
	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_QUERY, &q));
}

TEST_F(dev, query_bad_pointer)
{
	struct drm_m890_query q = {
		.type = DRM_M890_QUERY_DEVICE_INFO,
		.size = sizeof(struct drm_m890_device_info),
		.data = 8,
	};

	EXPECT_EQ(-EFAULT, m890_ioctl(self->fd, DRM_IOCTL_M890_QUERY, &q));
}

/* ---- buffer objects ---- */

static void check_bo(struct __test_metadata *_metadata, int fd,
		     const struct drm_m890_device_info *dev,
		     const struct drm_m890_bo_create *bo, __u32 flags,
		     __u64 align)
{
	struct drm_m890_bo_info bi;

	ASSERT_NE(0, bo->handle);
	EXPECT_EQ(0, bo->va % align);
	EXPECT_GE(bo->va, dev->va_start);
	EXPECT_LE(bo->va + bo->size, dev->va_start + dev->va_size);
	EXPECT_EQ(0, bo->size % align);
	EXPECT_NE(0, bo->mmap_offset);
	EXPECT_EQ(0, bo->mmap_offset % 4096);

	ASSERT_EQ(0, bo_info(fd, bo->handle, &bi));
	EXPECT_EQ(flags, bi.flags);
	EXPECT_EQ(bo->size, bi.size);
	EXPECT_EQ(bo->va, bi.va);
	EXPECT_EQ(bo->mmap_offset, bi.mmap_offset);
	EXPECT_EQ(0, bi.pad);
}

TEST_F(dev, bo_create_hbm)
{
	struct drm_m890_bo_create bo;

	ASSERT_EQ(0, bo_create(self->fd, 1, DRM_M890_BO_HBM, &bo));
	EXPECT_EQ(HBM_ALIGN, bo.size);
	check_bo(_metadata, self->fd, &self->info, &bo, DRM_M890_BO_HBM,
		 HBM_ALIGN);
	EXPECT_EQ(0, gem_close(self->fd, bo.handle));
}

TEST_F(dev, bo_create_host)
{
	struct drm_m890_bo_create bo;

	ASSERT_EQ(0, bo_create(self->fd, 4097, DRM_M890_BO_HOST, &bo));
	EXPECT_EQ(2 * HOST_ALIGN, bo.size);
	check_bo(_metadata, self->fd, &self->info, &bo, DRM_M890_BO_HOST,
		 HOST_ALIGN);
	EXPECT_EQ(0, gem_close(self->fd, bo.handle));
}

TEST_F(dev, bo_distinct_vas)
{
	struct drm_m890_bo_create a, b;

	ASSERT_EQ(0, bo_create(self->fd, 1 << 20, DRM_M890_BO_HBM, &a));
	ASSERT_EQ(0, bo_create(self->fd, 1 << 20, DRM_M890_BO_HOST, &b));
	EXPECT_NE(a.handle, b.handle);
	EXPECT_TRUE(a.va + a.size <= b.va || b.va + b.size <= a.va);
	EXPECT_NE(a.mmap_offset, b.mmap_offset);
}

TEST_F(dev, bo_create_size_zero)
{
	struct drm_m890_bo_create bo;

	EXPECT_EQ(-EINVAL, bo_create(self->fd, 0, DRM_M890_BO_HBM, &bo));
	EXPECT_EQ(-EINVAL, bo_create(self->fd, 0, DRM_M890_BO_HOST, &bo));
}

TEST_F(dev, bo_create_huge)
{
	static const __u64 sizes[] = {
		1ull << 63, ~0ull, ~0ull - 4095, (1ull << 48) + 1,
	};
	struct drm_m890_bo_create bo;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		EXPECT_EQ(-E2BIG, bo_create(self->fd, sizes[i], DRM_M890_BO_HBM, &bo))
			TH_LOG("HBM size %#llx", (unsigned long long)sizes[i]);
		EXPECT_EQ(-E2BIG, bo_create(self->fd, sizes[i], DRM_M890_BO_HOST, &bo))
			TH_LOG("host size %#llx", (unsigned long long)sizes[i]);
	}
	/* Past the VA space but not absurd. */
	EXPECT_EQ(-E2BIG, bo_create(self->fd, self->info.va_size + HBM_ALIGN,
				    DRM_M890_BO_HBM, &bo));
}

TEST_F(dev, bo_create_bad_flags)
{
	static const __u32 flags[] = {
		0, DRM_M890_BO_HBM | DRM_M890_BO_HOST, DRM_M890_BO_PEER,
		DRM_M890_BO_HBM | DRM_M890_BO_PEER, DRM_M890_BO_HOST | (1u << 3),
		DRM_M890_BO_HBM | (1u << 31), 0xffffffffu,
	};
	struct drm_m890_bo_create bo;
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		EXPECT_EQ(-EINVAL, bo_create(self->fd, 4096, flags[i], &bo))
			TH_LOG("flags %#x", flags[i]);
}

TEST_F(dev, bo_info_bad_handle)
{
	struct drm_m890_bo_info bi;

	EXPECT_EQ(-ENOENT, bo_info(self->fd, 0, &bi));
	EXPECT_EQ(-ENOENT, bo_info(self->fd, 0xdeadbeef, &bi));
}

TEST_F(dev, bo_info_nonzero_pad)
{
	struct drm_m890_bo_create bo;
	struct drm_m890_bo_info bi = { 0 };

	ASSERT_EQ(0, bo_create(self->fd, 4096, DRM_M890_BO_HOST, &bo));
	bi.handle = bo.handle;
	bi.pad = 1;
	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_BO_INFO, &bi));
}

TEST_F(dev, bo_info_closed_handle)
{
	struct drm_m890_bo_create bo;
	struct drm_m890_bo_info bi;

	ASSERT_EQ(0, bo_create(self->fd, 4096, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, gem_close(self->fd, bo.handle));
	EXPECT_EQ(-ENOENT, bo_info(self->fd, bo.handle, &bi));
	EXPECT_EQ(-EINVAL, gem_close(self->fd, bo.handle));
}

TEST_F(dev, bo_info_other_fd)
{
	struct drm_m890_bo_create bo;
	struct drm_m890_bo_info bi;
	int fd2 = open(ACCEL0, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, bo_create(self->fd, 4096, DRM_M890_BO_HBM, &bo));
	EXPECT_EQ(-ENOENT, bo_info(fd2, bo.handle, &bi));
	EXPECT_EQ(-EINVAL, gem_close(fd2, bo.handle));
	/* Still fine on its own fd. */
	EXPECT_EQ(0, bo_info(self->fd, bo.handle, &bi));
	close(fd2);
}

TEST_F(dev, bo_info_other_device)
{
	struct drm_m890_bo_create bo;
	struct drm_m890_bo_info bi;
	int fd1 = open(ACCEL1, O_RDWR | O_CLOEXEC);

	if (fd1 < 0)
		SKIP(return, "%s: %s", ACCEL1, strerror(errno));
	ASSERT_EQ(0, bo_create(self->fd, 4096, DRM_M890_BO_HOST, &bo));
	EXPECT_EQ(-ENOENT, bo_info(fd1, bo.handle, &bi));
	close(fd1);
}

static void mmap_rw(struct __test_metadata *_metadata, int fd, __u32 flags,
		    __u64 size)
{
	struct drm_m890_bo_create bo;
	__u32 *p;
	__u64 i, n;

	ASSERT_EQ(0, bo_create(fd, size, flags, &bo));
	p = bo_map(fd, &bo);
	ASSERT_NE(NULL, p);
	n = bo.size / 4;
	for (i = 0; i < n; i++)
		p[i] = (__u32)(i * 2654435761u);
	ASSERT_EQ(0, munmap(p, bo.size));

	/* A second mapping sees the same memory. */
	p = bo_map(fd, &bo);
	ASSERT_NE(NULL, p);
	for (i = 0; i < n; i++)
		ASSERT_EQ((__u32)(i * 2654435761u), p[i]);
	ASSERT_EQ(0, munmap(p, bo.size));
	EXPECT_EQ(0, gem_close(fd, bo.handle));
}

TEST_F(dev, mmap_hbm_rw)
{
	mmap_rw(_metadata, self->fd, DRM_M890_BO_HBM, 256 * 1024);
}

TEST_F(dev, mmap_host_rw)
{
	mmap_rw(_metadata, self->fd, DRM_M890_BO_HOST, 256 * 1024);
}

TEST_F(dev, mmap_after_close_keeps_pages)
{
	struct drm_m890_bo_create bo;
	volatile __u32 *p;

	ASSERT_EQ(0, bo_create(self->fd, 4096, DRM_M890_BO_HOST, &bo));
	p = bo_map(self->fd, &bo);
	ASSERT_NE(NULL, p);
	/* The mapping holds its own reference. */
	ASSERT_EQ(0, gem_close(self->fd, bo.handle));
	p[0] = 0x12345678;
	EXPECT_EQ(0x12345678, p[0]);
	munmap((void *)p, 4096);
}

TEST_F(dev, mmap_past_end)
{
	struct drm_m890_bo_create bo;
	__u32 flags[] = { DRM_M890_BO_HBM, DRM_M890_BO_HOST };
	size_t i;

	for (i = 0; i < 2; i++) {
		void *p;

		ASSERT_EQ(0, bo_create(self->fd, 64 * 1024, flags[i], &bo));
		p = mmap(NULL, bo.size + 4096, PROT_READ | PROT_WRITE,
			 MAP_SHARED, self->fd, bo.mmap_offset);
		EXPECT_EQ(MAP_FAILED, p);
		if (p != MAP_FAILED)
			munmap(p, bo.size + 4096);
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd,
			 bo.mmap_offset + bo.size);
		EXPECT_EQ(MAP_FAILED, p);
		if (p != MAP_FAILED)
			munmap(p, 4096);
	}
}

TEST_F(dev, mmap_private_write_hbm)
{
	struct drm_m890_bo_create bo;
	void *p;

	ASSERT_EQ(0, bo_create(self->fd, 64 * 1024, DRM_M890_BO_HBM, &bo));
	p = mmap(NULL, bo.size, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd,
		 bo.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	if (p != MAP_FAILED)
		munmap(p, bo.size);
}

TEST_F(dev, mmap_other_fd)
{
	struct drm_m890_bo_create bo;
	int fd2 = open(ACCEL0, O_RDWR | O_CLOEXEC);
	void *p;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, bo_create(self->fd, 4096, DRM_M890_BO_HOST, &bo));
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd2, bo.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	if (p != MAP_FAILED)
		munmap(p, 4096);
	close(fd2);
}

/* ---- queues ---- */

TEST_F(dev, queue_create_destroy)
{
	struct drm_m890_queue_create q;
	uint64_t val = 0;

	ASSERT_EQ(0, queue_create(self->fd, &q));
	EXPECT_NE(0, q.syncobj);
	EXPECT_EQ(0, q.pad);
	EXPECT_EQ(0, queue_destroy(self->fd, q.queue_id));
	EXPECT_EQ(-ENOENT, queue_destroy(self->fd, q.queue_id));
	/* The syncobj outlives the queue. */
	EXPECT_EQ(0, drmSyncobjQuery(self->fd, &q.syncobj, &val, 1));
	EXPECT_EQ(0, drmSyncobjDestroy(self->fd, q.syncobj));
}

TEST_F(dev, queue_create_bad_args)
{
	struct drm_m890_queue_create q = { .flags = 1 };

	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_QUEUE_CREATE, &q));
	memset(&q, 0, sizeof(q));
	q.flags = 0x80000000u;
	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_QUEUE_CREATE, &q));
	memset(&q, 0, sizeof(q));
	q.pad = 1;
	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_QUEUE_CREATE, &q));
}

TEST_F(dev, queue_create_until_busy)
{
	__u32 ids[MAX_QUEUES + 1];
	struct drm_m890_queue_create q;
	unsigned int n = 0, i;
	int ret = 0;

	unsigned int limit = 0;
	char buf[32];
	FILE *f;

	/*
	 * The user's limit (0: none), if this driver has one; this file is
	 * the only one of the user (root) holding queues on the card.
	 */
	f = fopen("/sys/module/m890/parameters/queues_per_user", "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			limit = (unsigned int)strtoul(buf, NULL, 10);
		fclose(f);
	}
	while (n <= MAX_QUEUES) {
		ret = queue_create(self->fd, &q);
		if (ret)
			break;
		ids[n++] = q.queue_id;
	}
	/* -EDQUOT at the user's limit, -EBUSY when the card has no more. */
	EXPECT_EQ(limit && n == limit ? -EDQUOT : -EBUSY, ret);
	EXPECT_LE(n, self->info.num_queues);
	EXPECT_GE(n, 1);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, queue_destroy(self->fd, ids[i]));
	/* Freed queues can be created again. */
	ASSERT_EQ(0, queue_create(self->fd, &q));
	EXPECT_EQ(0, queue_destroy(self->fd, q.queue_id));
}

TEST_F(dev, queue_destroy_bad_args)
{
	struct drm_m890_queue_create q;
	struct drm_m890_queue_destroy d = { 0 };

	EXPECT_EQ(-ENOENT, queue_destroy(self->fd, 0));
	EXPECT_EQ(-ENOENT, queue_destroy(self->fd, 0xffffffffu));
	ASSERT_EQ(0, queue_create(self->fd, &q));
	d.queue_id = q.queue_id;
	d.pad = 1;
	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_QUEUE_DESTROY, &d));
	EXPECT_EQ(0, queue_destroy(self->fd, q.queue_id));
}

TEST_F(dev, queue_id_of_other_fd)
{
	struct drm_m890_queue_create q;
	union m890_packet p;
	int fd2 = open(ACCEL0, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, queue_create(self->fd, &q));
	pkt_nop(&p);
	EXPECT_EQ(-ENOENT, submit(fd2, q.queue_id, &p, 1, NULL));
	EXPECT_EQ(-ENOENT, queue_destroy(fd2, q.queue_id));
	close(fd2);
	/* Untouched on its own fd. */
	EXPECT_EQ(0, submit(self->fd, q.queue_id, &p, 1, NULL));
	EXPECT_EQ(0, queue_destroy(self->fd, q.queue_id));
}

TEST_F(dev, queue_id_of_other_device)
{
	struct drm_m890_queue_create q;
	union m890_packet p;
	int fd1 = open(ACCEL1, O_RDWR | O_CLOEXEC);

	if (fd1 < 0)
		SKIP(return, "%s: %s", ACCEL1, strerror(errno));
	ASSERT_EQ(0, queue_create(self->fd, &q));
	pkt_nop(&p);
	EXPECT_EQ(-ENOENT, submit(fd1, q.queue_id, &p, 1, NULL));
	EXPECT_EQ(-ENOENT, queue_destroy(fd1, q.queue_id));
	close(fd1);
}

/* ---- submission ---- */

FIXTURE(q) {
	int fd;
	struct drm_m890_device_info info;
	struct drm_m890_queue_create q;
};

FIXTURE_SETUP(q)
{
	self->fd = open(ACCEL0, O_RDWR | O_CLOEXEC);
	if (self->fd < 0)
		SKIP(return, "%s: %s", ACCEL0, strerror(errno));
	ASSERT_EQ(0, query_info(self->fd, &self->info));
	ASSERT_EQ(0, queue_create(self->fd, &self->q));
}

FIXTURE_TEARDOWN(q)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(q, submit_nop)
{
	union m890_packet p[4];
	__u64 seq;
	int i;

	for (i = 0; i < 4; i++)
		pkt_nop(&p[i]);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, p, 4, &seq));
	EXPECT_GE(seq, 1);
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
	EXPECT_EQ(1, point_status(self->fd, self->q.syncobj, seq));
}

TEST_F(q, submit_max_packets)
{
	__u32 n = self->info.max_submit_packets;
	union m890_packet *p = calloc(n, sizeof(*p));
	__u64 seq;
	__u32 i;

	ASSERT_NE(NULL, p);
	for (i = 0; i < n; i++)
		pkt_nop(&p[i]);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, p, n, &seq));
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
	free(p);
}

TEST_F(q, seqno_increases)
{
	union m890_packet p;
	__u64 seq, prev = 0;
	uint64_t val = 0;
	int i;

	pkt_nop(&p);
	for (i = 0; i < 32; i++) {
		ASSERT_EQ(0, submit(self->fd, self->q.queue_id, &p, 1, &seq));
		EXPECT_GT(seq, prev);
		prev = seq;
	}
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, prev));
	ASSERT_EQ(0, drmSyncobjQuery(self->fd, &self->q.syncobj, &val, 1));
	EXPECT_GE(val, prev);
}

static void fill_and_check(struct __test_metadata *_metadata, int fd,
			   const struct drm_m890_queue_create *q, __u32 flags)
{
	struct drm_m890_bo_create bo;
	union m890_packet p[2];
	__u32 *m;
	__u64 seq, i, n;

	ASSERT_EQ(0, bo_create(fd, 256 * 1024, flags, &bo));
	m = bo_map(fd, &bo);
	ASSERT_NE(NULL, m);
	memset(m, 0, bo.size);
	pkt_fill(&p[0], bo.va, bo.size, 0xa5c3e10fu);
	/* A second FILL over the middle checks ordering and offsets. */
	pkt_fill(&p[1], bo.va + 4096, 8192, 0x01020304u);
	ASSERT_EQ(0, submit(fd, q->queue_id, p, 2, &seq));
	ASSERT_EQ(0, wait_point(fd, q->syncobj, seq));
	EXPECT_EQ(1, point_status(fd, q->syncobj, seq));
	n = bo.size / 4;
	for (i = 0; i < n; i++) {
		__u32 want = (i >= 1024 && i < 3072) ? 0x01020304u : 0xa5c3e10fu;

		ASSERT_EQ(want, m[i]) TH_LOG("word %llu", (unsigned long long)i);
	}
	munmap(m, bo.size);
}

TEST_F(q, submit_fill_hbm)
{
	fill_and_check(_metadata, self->fd, &self->q, DRM_M890_BO_HBM);
}

TEST_F(q, submit_fill_host)
{
	fill_and_check(_metadata, self->fd, &self->q, DRM_M890_BO_HOST);
}

TEST_F(q, submit_copy)
{
	struct drm_m890_bo_create src, mid, dst;
	const __u64 size = 128 * 1024;
	union m890_packet p[2];
	unsigned char *s, *d;
	__u64 seq, i;

	ASSERT_EQ(0, bo_create(self->fd, size, DRM_M890_BO_HOST, &src));
	ASSERT_EQ(0, bo_create(self->fd, size, DRM_M890_BO_HBM, &mid));
	ASSERT_EQ(0, bo_create(self->fd, size, DRM_M890_BO_HOST, &dst));
	s = bo_map(self->fd, &src);
	d = bo_map(self->fd, &dst);
	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, d);
	for (i = 0; i < size; i++)
		s[i] = (unsigned char)(i * 7 + 3);
	memset(d, 0, size);

	/* host -> HBM -> host, odd offsets and lengths included. */
	pkt_copy(&p[0], src.va, mid.va, size);
	pkt_copy(&p[1], mid.va + 1, dst.va + 3, size - 5);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, p, 2, &seq));
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
	EXPECT_EQ(1, point_status(self->fd, self->q.syncobj, seq));
	EXPECT_EQ(0, d[0]);
	EXPECT_EQ(0, d[1]);
	EXPECT_EQ(0, d[2]);
	EXPECT_EQ(0, memcmp(d + 3, s + 1, size - 5));
	EXPECT_EQ(0, d[size - 2]);
	EXPECT_EQ(0, d[size - 1]);
	munmap(s, size);
	munmap(d, size);
}

/*
 * Spec 1.1 cards: a RELAXED COPY, a COPY with its signal and a SIGNAL ADD
 * to many semaphores (a stride) pass the driver and run.
 */
TEST_F(q, submit_spec_1_1_packets)
{
	const __u64 need = DRM_M890_CAP_ENGINES | DRM_M890_CAP_ATOMICS;
	struct drm_m890_bo_create bo;
	union m890_packet p[3];
	volatile __u64 *m;
	__u64 seq;

	if ((self->info.capabilities & need) != need)
		SKIP(return, "not a spec 1.1 card");
	EXPECT_GE(self->info.spec_version & 0xffff, 1);
	ASSERT_EQ(0, bo_create(self->fd, 4096, DRM_M890_BO_HOST, &bo));
	m = bo_map(self->fd, &bo);
	ASSERT_NE(NULL, m);
	memset((void *)m, 0, 4096);
	m[64] = 0x1122334455667788ull;

	pkt_copy(&p[0], bo.va + 512, bo.va + 1024, 8);
	p[0].hdr |= M890_PKT_HDR(0, M890_PKT_F_RELAXED);
	pkt_copy(&p[1], bo.va + 1024, bo.va + 1032, 8);
	p[1].copy.sig_addr = bo.va;
	p[1].copy.sig_value = 5;
	memset(&p[2], 0, sizeof(p[2]));
	p[2].signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
	p[2].signal.op = M890_SIGNAL_ADD;
	p[2].signal.addr = bo.va;
	p[2].signal.value = 2;
	p[2].signal.count = 4;
	p[2].signal.stride = 16;
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, p, 3, &seq));
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
	EXPECT_EQ(1, point_status(self->fd, self->q.syncobj, seq));
	EXPECT_EQ(0x1122334455667788ull, m[129]);
	EXPECT_EQ(7, m[0]);
	EXPECT_EQ(0, m[1]);
	EXPECT_EQ(2, m[2]);
	EXPECT_EQ(2, m[6]);
	EXPECT_EQ(0, m[8]);
	munmap((void *)m, 4096);
}

TEST_F(q, submit_bad_count_and_pointer)
{
	__u32 n = self->info.max_submit_packets + 1;
	union m890_packet *p = calloc(n, sizeof(*p));
	__u32 i;

	ASSERT_NE(NULL, p);
	for (i = 0; i < n; i++)
		pkt_nop(&p[i]);
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 0, NULL));
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, n, NULL));
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 0xffffffffu, NULL));
	EXPECT_EQ(-EFAULT, submit(self->fd, self->q.queue_id, NULL, 1, NULL));
	EXPECT_EQ(-EFAULT, submit(self->fd, self->q.queue_id,
				  (const union m890_packet *)8, 1, NULL));
	free(p);
}

TEST_F(q, submit_bad_flags_and_pad)
{
	union m890_packet p;
	struct drm_m890_submit s = {
		.queue_id = self->q.queue_id,
		.count = 1,
		.packets = (uintptr_t)&p,
	};

	pkt_nop(&p);
	s.flags = 1;
	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_SUBMIT, &s));
	s.flags = 0x80000000u;
	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_SUBMIT, &s));
	s.flags = 0;
	s.pad = 1;
	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_SUBMIT, &s));
}

TEST_F(q, submit_unknown_queue)
{
	union m890_packet p;

	pkt_nop(&p);
	EXPECT_EQ(-ENOENT, submit(self->fd, self->q.queue_id + 1000, &p, 1, NULL));
	EXPECT_EQ(-ENOENT, submit(self->fd, 0xffffffffu, &p, 1, NULL));
}

TEST_F(q, submit_bad_packets)
{
	static const __u32 bad_hdr[] = {
		M890_PKT_HDR(0x10, 0), M890_PKT_HDR(0x11, 0), M890_PKT_HDR(0xff, 0),
		M890_PKT_HDR(M890_PKT_FENCE, 0),
		M890_PKT_HDR(M890_PKT_FENCE, M890_FENCE_F_IRQ),
		M890_PKT_HDR(M890_PKT_NOP, M890_PKT_F_RELAXED),
		M890_PKT_HDR(M890_PKT_WAIT, M890_PKT_F_RELAXED),
		M890_PKT_HDR(M890_PKT_TIMESTAMP, M890_PKT_F_RELAXED),
		M890_PKT_HDR(M890_PKT_COPY, 2),
		M890_PKT_HDR(M890_PKT_NOP, 0x80),
		M890_PKT_HDR(M890_PKT_NOP, 0) | (1u << 16),
		M890_PKT_HDR(M890_PKT_NOP, 0) | (1u << 31),
	};
	union m890_packet p[3];
	__u64 seq;
	size_t i;

	for (i = 0; i < sizeof(bad_hdr) / sizeof(bad_hdr[0]); i++) {
		pkt_nop(&p[0]);
		p[0].hdr = bad_hdr[i];
		EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL))
			TH_LOG("header %#x", bad_hdr[i]);
	}

	/* Reserved fields of a packet body. */
	pkt_nop(&p[0]);
	p[0].nop.rsvd[14] = 1;
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL));
	pkt_copy(&p[0], 0, 0, 0);
	p[0].copy.rsvd0 = 1;
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL));
	pkt_fill(&p[0], 0, 0, 0);
	p[0].fill.rsvd[4] = 1;
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL));
	pkt_copy(&p[0], 0, 0, 0);
	p[0].copy.rsvd[1] = 1;
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL));
	memset(&p[0], 0, sizeof(p[0]));
	p[0].signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
	p[0].signal.rsvd1 = 1;
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL));
	p[0].signal.rsvd1 = 0;
	p[0].signal.rsvd2 = 1;
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL));
	memset(&p[0], 0, sizeof(p[0]));
	p[0].reduce.hdr = M890_PKT_HDR(M890_PKT_REDUCE, 0);
	p[0].reduce.flags = 4;			/* no such REDUCE flag */
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL));

	/* Spec 1.1 opcodes and the RELAXED flag need their capabilities. */
	if (!(self->info.capabilities & DRM_M890_CAP_ROWS)) {
		pkt_nop(&p[0]);
		p[0].hdr = M890_PKT_HDR(M890_PKT_COPY_ROWS, 0);
		EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL));
		p[0].hdr = M890_PKT_HDR(M890_PKT_MOE_ROUTE, 0);
		EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL));
	}
	if (!(self->info.capabilities & DRM_M890_CAP_GEMM)) {
		pkt_nop(&p[0]);
		p[0].hdr = M890_PKT_HDR(M890_PKT_GEMM, 0);
		EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL));
	}
	if (!(self->info.capabilities & DRM_M890_CAP_ENGINES)) {
		pkt_copy(&p[0], 0, 0, 0);
		p[0].hdr |= M890_PKT_HDR(0, M890_PKT_F_RELAXED);
		EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 1, NULL));
	}

	/* One bad packet refuses the whole submission. */
	pkt_nop(&p[0]);
	pkt_nop(&p[1]);
	pkt_nop(&p[2]);
	p[1].hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 3, NULL));

	/* The queue is unharmed. */
	p[1].hdr = M890_PKT_HDR(M890_PKT_NOP, 0);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, p, 3, &seq));
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
	EXPECT_EQ(1, point_status(self->fd, self->q.syncobj, seq));
}

TEST_F(q, fault_stops_its_context)
{
	struct drm_m890_queue_create q2, q3;
	union m890_packet p;
	__u64 seq;

	ASSERT_EQ(0, queue_create(self->fd, &q2));

	/* FILL through a VA with no BO behind it. */
	pkt_fill(&p, unmapped_va(&self->info), 4096, 0xdeadbeef);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, &p, 1, &seq));
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
	EXPECT_EQ(-EFAULT, point_status(self->fd, self->q.syncobj, seq));

	/* The context is bad: every queue refuses new work ... */
	pkt_nop(&p);
	EXPECT_EQ(-EIO, submit(self->fd, self->q.queue_id, &p, 1, NULL));
	EXPECT_EQ(-EIO, submit(self->fd, q2.queue_id, &p, 1, NULL));
	EXPECT_EQ(-EFAULT, queue_error(self->fd, q2.queue_id));
	/* ... even one created after the fault. */
	ASSERT_EQ(0, queue_create(self->fd, &q3));
	EXPECT_EQ(-EIO, submit(self->fd, q3.queue_id, &p, 1, NULL));
	EXPECT_EQ(-EFAULT, queue_error(self->fd, q3.queue_id));

	/* Stopped queues can still be destroyed. */
	EXPECT_EQ(0, queue_destroy(self->fd, self->q.queue_id));
	EXPECT_EQ(0, queue_destroy(self->fd, q2.queue_id));
	EXPECT_EQ(0, queue_destroy(self->fd, q3.queue_id));

	/* A new file is a new context and works. */
	close(self->fd);
	self->fd = open(ACCEL0, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, queue_create(self->fd, &self->q));
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, &p, 1, &seq));
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
	EXPECT_EQ(1, point_status(self->fd, self->q.syncobj, seq));
}

TEST_F(q, fault_other_file_unaffected)
{
	struct drm_m890_queue_create q2;
	union m890_packet p;
	__u64 seq, seq2;
	int fd2 = open(ACCEL0, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, queue_create(fd2, &q2));
	pkt_copy(&p, unmapped_va(&self->info), unmapped_va(&self->info), 64);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, &p, 1, &seq));
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
	EXPECT_GT(0, point_status(self->fd, self->q.syncobj, seq));

	pkt_nop(&p);
	ASSERT_EQ(0, submit(fd2, q2.queue_id, &p, 1, &seq2));
	ASSERT_EQ(0, wait_point(fd2, q2.syncobj, seq2));
	EXPECT_EQ(1, point_status(fd2, q2.syncobj, seq2));
	close(fd2);
}

TEST_F(q, close_with_work_in_flight)
{
	struct drm_m890_bo_create bo;
	union m890_packet p[8];
	int i;

	ASSERT_EQ(0, bo_create(self->fd, 4 << 20, DRM_M890_BO_HBM, &bo));
	for (i = 0; i < 8; i++)
		pkt_fill(&p[i], bo.va, bo.size, (__u32)i);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, submit(self->fd, self->q.queue_id, p, 8, NULL));
	close(self->fd);
	/* The device is still usable by a new client. */
	self->fd = open(ACCEL0, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, queue_create(self->fd, &self->q));
	pkt_nop(&p[0]);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, p, 1, NULL));
}

/* ---- concurrency ---- */

#define RACE_SLOTS	64
#define RACE_ROUNDS	2000

struct bo_race {
	int fd;
	_Atomic __u32 slot[RACE_SLOTS];
	atomic_bool stop;
	atomic_int errors;
};

static void *bo_race_creator(void *arg)
{
	struct bo_race *r = arg;
	struct drm_m890_bo_create bo;
	int i;

	for (i = 0; i < RACE_ROUNDS; i++) {
		__u32 flags = (i & 1) ? DRM_M890_BO_HBM : DRM_M890_BO_HOST;
		__u32 old;

		if (bo_create(r->fd, 4096, flags, &bo)) {
			atomic_fetch_add(&r->errors, 1);
			continue;
		}
		old = atomic_exchange(&r->slot[i % RACE_SLOTS], bo.handle);
		if (old && gem_close(r->fd, old))
			atomic_fetch_add(&r->errors, 1);
	}
	atomic_store(&r->stop, true);
	return NULL;
}

static void *bo_race_closer(void *arg)
{
	struct bo_race *r = arg;
	unsigned int i = 0;

	while (!atomic_load(&r->stop)) {
		struct drm_m890_bo_info bi;
		__u32 h = atomic_exchange(&r->slot[i++ % RACE_SLOTS], 0);

		if (!h)
			continue;
		/* Info on a handle that is about to go must be clean. */
		bo_info(r->fd, h, &bi);
		if (gem_close(r->fd, h))
			atomic_fetch_add(&r->errors, 1);
	}
	return NULL;
}

TEST_F(dev, race_bo_create_close)
{
	struct bo_race *r = calloc(1, sizeof(*r));
	pthread_t t[3];
	int i;

	ASSERT_NE(NULL, r);
	r->fd = self->fd;
	ASSERT_EQ(0, pthread_create(&t[0], NULL, bo_race_creator, r));
	ASSERT_EQ(0, pthread_create(&t[1], NULL, bo_race_closer, r));
	ASSERT_EQ(0, pthread_create(&t[2], NULL, bo_race_closer, r));
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	EXPECT_EQ(0, atomic_load(&r->errors));
	for (i = 0; i < RACE_SLOTS; i++)
		if (r->slot[i])
			EXPECT_EQ(0, gem_close(self->fd, r->slot[i]));
	/* A handle no thread owns any more is gone, and the fd still works. */
	{
		struct drm_m890_bo_create bo;

		EXPECT_EQ(0, bo_create(self->fd, 4096, DRM_M890_BO_HBM, &bo));
	}
	free(r);
}

struct submit_race {
	int fd;
	__u32 queue_id;
	atomic_bool started;
	__u64 last_seq;
	int bad_ret;
};

static void *submit_racer(void *arg)
{
	struct submit_race *r = arg;
	union m890_packet p[8];
	int i;

	for (i = 0; i < 8; i++)
		pkt_nop(&p[i]);
	for (;;) {
		__u64 seq;
		int ret = submit(r->fd, r->queue_id, p, 8, &seq);

		atomic_store(&r->started, true);
		if (ret == -EAGAIN)
			continue;
		if (ret == -ENOENT)
			break;
		if (ret) {
			r->bad_ret = ret;
			break;
		}
		r->last_seq = seq;
	}
	return NULL;
}

TEST_F(dev, race_submit_queue_destroy)
{
	int round;

	for (round = 0; round < 8; round++) {
		struct submit_race r = { .fd = self->fd };
		struct drm_m890_queue_create q;
		pthread_t t;

		ASSERT_EQ(0, queue_create(self->fd, &q));
		r.queue_id = q.queue_id;
		ASSERT_EQ(0, pthread_create(&t, NULL, submit_racer, &r));
		while (!atomic_load(&r.started))
			usleep(100);
		usleep(1000 * (round + 1));
		EXPECT_EQ(0, queue_destroy(self->fd, q.queue_id));
		pthread_join(t, NULL);
		EXPECT_EQ(0, r.bad_ret);
		/* Every point handed out signals, completed or cancelled. */
		if (r.last_seq) {
			int st;

			ASSERT_EQ(0, wait_point(self->fd, q.syncobj, r.last_seq));
			st = point_status(self->fd, q.syncobj, r.last_seq);
			EXPECT_TRUE(st == 1 || st == -ECANCELED)
				TH_LOG("status %d", st);
		}
		EXPECT_EQ(0, drmSyncobjDestroy(self->fd, q.syncobj));
	}
}

/* ---- BO wait ---- */

static int bo_wait(int fd, __u32 handle, __s64 timeout_ns)
{
	struct drm_m890_bo_wait w = { .handle = handle, .timeout_ns = timeout_ns };

	return m890_ioctl(fd, DRM_IOCTL_M890_BO_WAIT, &w);
}

TEST_F(dev, bo_wait_bad_args)
{
	struct drm_m890_bo_wait w = { 0 };
	struct drm_m890_bo_create bo;
	int fd2 = open(ACCEL0, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd2);
	EXPECT_NE(0, self->info.capabilities & DRM_M890_CAP_BO_WAIT);
	ASSERT_EQ(0, bo_create(self->fd, 4096, DRM_M890_BO_HOST, &bo));
	w.handle = bo.handle;
	w.flags = 1;
	EXPECT_EQ(-EINVAL, m890_ioctl(self->fd, DRM_IOCTL_M890_BO_WAIT, &w));
	EXPECT_EQ(-ENOENT, bo_wait(self->fd, bo.handle + 100, abs_timeout(0)));
	EXPECT_EQ(-ENOENT, bo_wait(self->fd, 0, abs_timeout(0)));
	/* Another file's handle is unknown to this one. */
	EXPECT_EQ(-ENOENT, bo_wait(fd2, bo.handle, abs_timeout(0)));
	/* An idle BO: immediately, with a past or a far timeout. */
	EXPECT_EQ(0, bo_wait(self->fd, bo.handle, 0));
	EXPECT_EQ(0, bo_wait(self->fd, bo.handle, INT64_MAX));
	EXPECT_EQ(0, gem_close(self->fd, bo.handle));
	EXPECT_EQ(-ENOENT, bo_wait(self->fd, bo.handle, abs_timeout(0)));
	close(fd2);
}

/* BO_WAIT follows a job blocked on a semaphore the CPU then releases. */
TEST_F(q, bo_wait_follows_job)
{
	struct drm_m890_bo_create sem, bo;
	union m890_packet p[2];
	volatile __u64 *s;
	__u32 *m;
	__u64 seq;

	ASSERT_EQ(0, bo_create(self->fd, 4096, DRM_M890_BO_HOST, &sem));
	ASSERT_EQ(0, bo_create(self->fd, 64 * 1024, DRM_M890_BO_HOST, &bo));
	s = bo_map(self->fd, &sem);
	m = bo_map(self->fd, &bo);
	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, m);
	memset(&p[0], 0, sizeof(p[0]));
	p[0].wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
	p[0].wait.cond = M890_WAIT_GE;
	p[0].wait.addr = sem.va;
	p[0].wait.value = 1;
	pkt_fill(&p[1], bo.va, bo.size, 0xfeedf00d);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, p, 2, &seq));

	EXPECT_EQ(-ETIME, bo_wait(self->fd, bo.handle, abs_timeout(100 * 1000 * 1000)));
	EXPECT_EQ(-ETIME, bo_wait(self->fd, sem.handle, 0));
	*s = 1;
	EXPECT_EQ(0, bo_wait(self->fd, bo.handle, abs_timeout(WAIT_TIMEOUT_NS)));
	EXPECT_EQ(0xfeedf00d, m[0]);
	EXPECT_EQ(0xfeedf00d, m[bo.size / 4 - 1]);
	EXPECT_EQ(1, point_status(self->fd, self->q.syncobj, seq));
	munmap((void *)s, sem.size);
	munmap(m, bo.size);
}

/* A timeline point never submitted does not signal: the wait times out. */
TEST_F(q, wait_unsubmitted_point)
{
	union m890_packet p;
	uint64_t point;
	__u64 seq;

	pkt_nop(&p);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, &p, 1, &seq));
	point = seq + 5;
	EXPECT_NE(0, drmSyncobjTimelineWait(self->fd, &self->q.syncobj, &point, 1,
					    abs_timeout(200 * 1000 * 1000),
					    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL));
	EXPECT_EQ(ETIME, errno);
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
}

/* Destroying a queue whose job is blocked cancels it; the BO goes idle. */
TEST_F(dev, destroy_queue_cancels_blocked_job)
{
	struct drm_m890_queue_create q;
	struct drm_m890_bo_create sem;
	union m890_packet p;
	__u64 seq;
	int fd2 = open(ACCEL0, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, bo_create(fd2, 4096, DRM_M890_BO_HOST, &sem));
	ASSERT_EQ(0, queue_create(fd2, &q));
	memset(&p, 0, sizeof(p));
	p.wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
	p.wait.addr = sem.va;
	p.wait.value = 1;
	ASSERT_EQ(0, submit(fd2, q.queue_id, &p, 1, &seq));
	ASSERT_EQ(0, queue_destroy(fd2, q.queue_id));
	ASSERT_EQ(0, wait_point(fd2, q.syncobj, seq));
	EXPECT_EQ(-ECANCELED, point_status(fd2, q.syncobj, seq));
	EXPECT_EQ(0, bo_wait(fd2, sem.handle, abs_timeout(WAIT_TIMEOUT_NS)));
	close(fd2);
}

/* ---- sizes, mmap offsets, refused work, races (hazard classes) ---- */

/* Value of an fdinfo key of @fd (number before any unit), or -1. */
static long long fdinfo_value(int fd, const char *key)
{
	char path[64], buf[4096], *p;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, key);
	if (!p || p[strlen(key)] != ':')
		return -1;
	return strtoll(p + strlen(key) + 1, NULL, 10);
}

/*
 * Sizes past 2^31 and 2^32 bytes are not truncated to 32 bits: HBM sizes
 * beyond the card's HBM fail with -ENOSPC (never a small BO), host sizes
 * beyond the machine's memory with -ENOMEM, and nothing is left behind.
 */
TEST_F(dev, bo_create_past_32bit)
{
	static const __u64 sizes[] = {
		(1ull << 31), (1ull << 31) + HBM_ALIGN, (1ull << 32), (1ull << 32) + HBM_ALIGN,
	};
	struct drm_m890_bo_create bo;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (sizes[i] <= self->info.hbm_size)
			continue;
		EXPECT_EQ(-ENOSPC, bo_create(self->fd, sizes[i], DRM_M890_BO_HBM, &bo))
			TH_LOG("HBM size %#llx", (unsigned long long)sizes[i]);
	}
	EXPECT_EQ(-ENOMEM, bo_create(self->fd, 1ull << 40, DRM_M890_BO_HOST, &bo));
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-total-hbm"));
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-total-host"));
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-hbm-mapped"));
}

/*
 * mmap at an offset inside a BO is refused with -EINVAL (DRM finds BOs by
 * their exact offset), for lengths inside and past the BO alike, and the
 * BO's own mapping is unaffected.
 */
TEST_F(dev, mmap_offset_inside_bo)
{
	static const __u32 kinds[] = { DRM_M890_BO_HBM, DRM_M890_BO_HOST };
	struct drm_m890_bo_create bo;
	__u32 *all;
	void *part;
	size_t k;

	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, bo_create(self->fd, 256 * 1024, kinds[k], &bo));
		all = bo_map(self->fd, &bo);
		ASSERT_NE(NULL, all);
		all[64 * 1024 / 4] = 0x5eed;
		part = mmap(NULL, 64 * 1024, PROT_READ, MAP_SHARED, self->fd,
			    bo.mmap_offset + 64 * 1024);
		EXPECT_EQ(MAP_FAILED, part);
		EXPECT_EQ(EINVAL, errno);
		if (part != MAP_FAILED)
			munmap(part, 64 * 1024);
		part = mmap(NULL, 128 * 1024, PROT_READ, MAP_SHARED, self->fd,
			    bo.mmap_offset + 192 * 1024);
		EXPECT_EQ(MAP_FAILED, part);
		if (part != MAP_FAILED)
			munmap(part, 128 * 1024);
		EXPECT_EQ(0x5eed, all[64 * 1024 / 4]);
		munmap(all, bo.size);
		EXPECT_EQ(0, gem_close(self->fd, bo.handle));
	}
}

/*
 * A dma-buf of a BO is mmap()ed at any page offset inside it (dma-buf
 * checks the range): the mapping shows the BO from that offset on, for
 * HBM and host BOs, through reads and writes; a range past the end is
 * refused.
 */
TEST_F(dev, dmabuf_mmap_at_offset)
{
	static const __u32 kinds[] = { DRM_M890_BO_HBM, DRM_M890_BO_HOST };
	struct drm_m890_bo_create bo;
	__u32 *all, *part;
	size_t k, i;
	int dfd;

	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, bo_create(self->fd, 256 * 1024, kinds[k], &bo));
		all = bo_map(self->fd, &bo);
		ASSERT_NE(NULL, all);
		for (i = 0; i < bo.size / 4; i++)
			all[i] = 0xc0000000u + (__u32)i;
		ASSERT_EQ(0, drmPrimeHandleToFD(self->fd, bo.handle, DRM_CLOEXEC | DRM_RDWR, &dfd));

		part = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 64 * 1024);
		ASSERT_NE(MAP_FAILED, part) TH_LOG("kind %zu: %s", k, strerror(errno));
		EXPECT_EQ(0xc0000000u + 64 * 1024 / 4, part[0]) TH_LOG("kind %zu", k);
		EXPECT_EQ(0xc0000000u + 128 * 1024 / 4 - 1, part[64 * 1024 / 4 - 1]);
		part[1] = 0xabcdef01;
		EXPECT_EQ(0xabcdef01, all[64 * 1024 / 4 + 1]);
		EXPECT_EQ(1u, all[1] - 0xc0000000u);
		munmap(part, 64 * 1024);

		/* The last page; then one page past the end. */
		part = mmap(NULL, 4096, PROT_READ, MAP_SHARED, dfd, bo.size - 4096);
		ASSERT_NE(MAP_FAILED, part);
		EXPECT_EQ(0xc0000000u + (__u32)(bo.size / 4) - 1024, part[0]);
		munmap(part, 4096);
		part = mmap(NULL, 8192, PROT_READ, MAP_SHARED, dfd, bo.size - 4096);
		EXPECT_EQ(MAP_FAILED, part);
		if (part != MAP_FAILED)
			munmap(part, 8192);

		close(dfd);
		munmap(all, bo.size);
		EXPECT_EQ(0, gem_close(self->fd, bo.handle));
	}
}

static int gem_flink(int fd, __u32 handle, __u32 *name)
{
	struct drm_gem_flink f = { .handle = handle };
	int ret = m890_ioctl(fd, DRM_IOCTL_GEM_FLINK, &f);

	*name = f.name;
	return ret;
}

static int gem_open(int fd, __u32 name, __u32 *handle)
{
	struct drm_gem_open o = { .name = name };
	int ret = m890_ioctl(fd, DRM_IOCTL_GEM_OPEN, &o);

	*handle = o.handle;
	return ret;
}

/*
 * A file holding two handles of one BO (GEM_OPEN of its own flink name)
 * still submits: the reservation of the BO is taken once, and the job's
 * fence reaches the BO through either handle.
 */
TEST_F(q, submit_with_two_handles_of_one_bo)
{
	struct drm_m890_bo_create bo;
	union m890_packet p;
	__u32 name, h2;
	__u64 seq;
	__u32 *m;

	if (geteuid())
		SKIP(return, "GEM_FLINK needs root");
	ASSERT_EQ(0, bo_create(self->fd, 64 * 1024, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, gem_flink(self->fd, bo.handle, &name));
	ASSERT_EQ(0, gem_open(self->fd, name, &h2));
	EXPECT_NE(bo.handle, h2);

	pkt_fill(&p, bo.va, bo.size, 0x0dd0dd0d);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, &p, 1, &seq));
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
	EXPECT_EQ(1, point_status(self->fd, self->q.syncobj, seq));
	m = bo_map(self->fd, &bo);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0x0dd0dd0d, m[0]);
	EXPECT_EQ(0x0dd0dd0d, m[bo.size / 4 - 1]);
	munmap(m, bo.size);
	EXPECT_EQ(0, gem_close(self->fd, h2));
	pkt_nop(&p);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, &p, 1, &seq));
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
}

/* BO_INFO fills every output field, whatever the caller left in them. */
TEST_F(dev, bo_info_sets_every_output)
{
	struct drm_m890_bo_create bo;
	struct drm_m890_bo_info info;

	ASSERT_EQ(0, bo_create(self->fd, 64 * 1024, DRM_M890_BO_HBM, &bo));
	memset(&info, 0xa5, sizeof(info));
	info.handle = bo.handle;
	info.pad = 0;
	ASSERT_EQ(0, m890_ioctl(self->fd, DRM_IOCTL_M890_BO_INFO, &info));
	EXPECT_EQ(DRM_M890_BO_HBM, info.flags);
	EXPECT_EQ(bo.size, info.size);
	EXPECT_EQ(bo.va, info.va);
	EXPECT_EQ(bo.mmap_offset, info.mmap_offset);
	EXPECT_EQ(self->info.fabric_id, info.peer_fabric_id);
	EXPECT_EQ(0, info.pad);
}

/*
 * A refused submission (bad packet, bad count, bad pointer) uses up no
 * sequence number and leaves no fence behind: the next good one gets the
 * next number and the timeline reaches it.
 */
TEST_F(q, refused_submit_leaves_no_point)
{
	union m890_packet p[2];
	struct drm_m890_queue_state st;
	__u64 s1, s2;
	uint64_t val = 0;

	pkt_nop(&p[0]);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, p, 1, &s1));
	pkt_nop(&p[1]);
	p[1].hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p, 2, NULL));
	EXPECT_EQ(-EINVAL, submit(self->fd, self->q.queue_id, p,
				  self->info.max_submit_packets + 1, NULL));
	EXPECT_EQ(-EFAULT, submit(self->fd, self->q.queue_id, (void *)8, 1, NULL));
	ASSERT_EQ(0, queue_state(self->fd, self->q.queue_id, &st));
	EXPECT_EQ(s1, st.submitted_seqno);
	ASSERT_EQ(0, submit(self->fd, self->q.queue_id, p, 1, &s2));
	EXPECT_EQ(s1 + 1, s2);
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, s2));
	EXPECT_EQ(1, point_status(self->fd, self->q.syncobj, s2));
	EXPECT_EQ(0, drmSyncobjQuery(self->fd, &self->q.syncobj, &val, 1));
	EXPECT_EQ(s2, val);
}

struct bo_churn {
	int fd;
	atomic_bool stop;
	atomic_int errors;
};

static void *bo_churner(void *arg)
{
	struct bo_churn *c = arg;
	struct drm_m890_bo_create bo;
	int i;

	for (i = 0; !atomic_load(&c->stop) && i < RACE_ROUNDS; i++) {
		if (bo_create(c->fd, 64 * 1024, i & 1 ? DRM_M890_BO_HBM : DRM_M890_BO_HOST, &bo) ||
		    gem_close(c->fd, bo.handle))
			atomic_fetch_add(&c->errors, 1);
	}
	return NULL;
}

/*
 * Submissions race BO creation and GEM_CLOSE on the same file (the submit
 * path takes every BO of the file): every submission succeeds, the data
 * of the BO the jobs use is right, the churned BOs all go away.
 */
TEST_F(q, race_submit_bo_create_close)
{
	struct bo_churn c = { .fd = self->fd };
	struct drm_m890_bo_create dst;
	union m890_packet p;
	__u64 seq = 0;
	pthread_t t;
	__u32 *m;
	int i, ret;

	ASSERT_EQ(0, bo_create(self->fd, 64 * 1024, DRM_M890_BO_HOST, &dst));
	m = bo_map(self->fd, &dst);
	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, pthread_create(&t, NULL, bo_churner, &c));
	for (i = 0; i < 400; i++) {
		pkt_fill(&p, dst.va, dst.size, 0x1000 + i);
		ret = submit(self->fd, self->q.queue_id, &p, 1, &seq);
		if (ret == -EAGAIN)
			continue;
		ASSERT_EQ(0, ret) TH_LOG("submit %d", i);
	}
	atomic_store(&c.stop, true);
	pthread_join(t, NULL);
	EXPECT_EQ(0, atomic_load(&c.errors));
	ASSERT_EQ(0, wait_point(self->fd, self->q.syncobj, seq));
	EXPECT_EQ(1, point_status(self->fd, self->q.syncobj, seq));
	EXPECT_EQ(0, queue_error(self->fd, self->q.queue_id));
	EXPECT_EQ(0x1000 + 399, m[0]);
	EXPECT_EQ(0x1000 + 399, m[dst.size / 4 - 1]);
	for (i = 0; i < 500 && fdinfo_value(self->fd, "drm-hbm-mapped") != 0; i++)
		usleep(10000);
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-hbm-mapped"));
	munmap(m, dst.size);
}

struct prime_race {
	int a, b;
	__u32 handle;
	atomic_bool stop;
	atomic_int errors;
};

/* Export from a, import on b (same card), check the VA, close both ends. */
static void *prime_importer(void *arg)
{
	struct prime_race *r = arg;
	struct drm_m890_bo_info info;
	__u32 h;
	int i, fd;

	for (i = 0; i < 300 && !atomic_load(&r->stop); i++) {
		if (drmPrimeHandleToFD(r->a, r->handle, DRM_CLOEXEC, &fd)) {
			atomic_fetch_add(&r->errors, 1);
			continue;
		}
		if (drmPrimeFDToHandle(r->b, fd, &h) || bo_info(r->b, h, &info) || !info.va ||
		    gem_close(r->b, h))
			atomic_fetch_add(&r->errors, 1);
		close(fd);
	}
	atomic_store(&r->stop, true);
	return NULL;
}

/* Meanwhile the exporter exports the same BO again and again. */
static void *prime_exporter(void *arg)
{
	struct prime_race *r = arg;
	int fd;

	while (!atomic_load(&r->stop)) {
		if (drmPrimeHandleToFD(r->a, r->handle, DRM_CLOEXEC, &fd))
			atomic_fetch_add(&r->errors, 1);
		else
			close(fd);
	}
	return NULL;
}

/*
 * dma-buf export and same-card import race each other and GEM_CLOSE:
 * every import gets a VA in the importer's space, and once every handle
 * and dma-buf is gone the BO's HBM is given back.
 */
TEST_F(dev, race_prime_export_import_close)
{
	struct prime_race r = { .a = self->fd };
	struct drm_m890_bo_create bo;
	pthread_t t[2];
	int i;

	r.b = open(ACCEL0, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, r.b);
	ASSERT_EQ(0, bo_create(self->fd, 1 << 20, DRM_M890_BO_HBM, &bo));
	r.handle = bo.handle;
	ASSERT_EQ(0, pthread_create(&t[0], NULL, prime_importer, &r));
	ASSERT_EQ(0, pthread_create(&t[1], NULL, prime_exporter, &r));
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	EXPECT_EQ(0, atomic_load(&r.errors));
	EXPECT_EQ(1 << 20, fdinfo_value(self->fd, "drm-hbm-mapped"));
	EXPECT_EQ(0, gem_close(self->fd, bo.handle));
	for (i = 0; i < 500 && fdinfo_value(self->fd, "drm-hbm-mapped") != 0; i++)
		usleep(10000);
	EXPECT_EQ(0, fdinfo_value(self->fd, "drm-hbm-mapped"));
	close(r.b);
}

TEST_HARNESS_MAIN
