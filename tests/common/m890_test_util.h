/* SPDX-License-Identifier: MIT */
/*
 * ioctl and packet helpers shared by the in-guest uAPI and isolation tests.
 * Each returns 0 or a negative errno.  The including test defines
 * WAIT_TIMEOUT_NS, the bound of wait_point(), before including this file.
 */
#ifndef M890_TEST_UTIL_H
#define M890_TEST_UTIL_H

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include <drm/m890_accel.h>

#ifndef WAIT_TIMEOUT_NS
#error "define WAIT_TIMEOUT_NS before including m890_test_util.h"
#endif

static inline int m890_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && errno == EINTR);
	return ret == -1 ? -errno : 0;
}

static inline int query_info(int fd, struct drm_m890_device_info *info)
{
	struct drm_m890_query q = {
		.type = DRM_M890_QUERY_DEVICE_INFO,
		.size = sizeof(*info),
		.data = (uintptr_t)info,
	};

	memset(info, 0, sizeof(*info));
	return m890_ioctl(fd, DRM_IOCTL_M890_QUERY, &q);
}

static inline int bo_create(int fd, __u64 size, __u32 flags, struct drm_m890_bo_create *bo)
{
	memset(bo, 0, sizeof(*bo));
	bo->size = size;
	bo->flags = flags;
	return m890_ioctl(fd, DRM_IOCTL_M890_BO_CREATE, bo);
}

static inline int bo_info(int fd, __u32 handle, struct drm_m890_bo_info *info)
{
	memset(info, 0, sizeof(*info));
	info->handle = handle;
	return m890_ioctl(fd, DRM_IOCTL_M890_BO_INFO, info);
}

static inline int gem_close(int fd, __u32 handle)
{
	struct drm_gem_close c = { .handle = handle };

	return m890_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

static inline int queue_create(int fd, struct drm_m890_queue_create *q)
{
	memset(q, 0, sizeof(*q));
	return m890_ioctl(fd, DRM_IOCTL_M890_QUEUE_CREATE, q);
}

static inline int queue_destroy(int fd, __u32 id)
{
	struct drm_m890_queue_destroy d = { .queue_id = id };

	return m890_ioctl(fd, DRM_IOCTL_M890_QUEUE_DESTROY, &d);
}

static inline int queue_state(int fd, __u32 id, struct drm_m890_queue_state *st)
{
	struct drm_m890_query q = {
		.type = DRM_M890_QUERY_QUEUE_STATE,
		.size = sizeof(*st),
		.data = (uintptr_t)st,
	};

	memset(st, 0, sizeof(*st));
	st->queue_id = id;
	return m890_ioctl(fd, DRM_IOCTL_M890_QUERY, &q);
}

/* Sticky error of a queue (0 while it runs), or the query's error. */
static inline int queue_error(int fd, __u32 id)
{
	struct drm_m890_queue_state st;
	int ret = queue_state(fd, id, &st);

	return ret ? ret : st.error;
}

static inline int submit(int fd, __u32 queue, const union m890_packet *pkts, __u32 count,
		  __u64 *seqno)
{
	struct drm_m890_submit s = {
		.queue_id = queue,
		.count = count,
		.packets = (uintptr_t)pkts,
	};
	int ret = m890_ioctl(fd, DRM_IOCTL_M890_SUBMIT, &s);

	if (!ret && seqno)
		*seqno = s.seqno;
	return ret;
}

static inline __s64 abs_timeout(__u64 rel_ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__s64)ts.tv_sec * 1000000000ll + ts.tv_nsec + (__s64)rel_ns;
}

static inline int wait_point_ns(int fd, uint32_t syncobj, uint64_t point, __u64 rel_ns)
{
	int ret = drmSyncobjTimelineWait(fd, &syncobj, &point, 1, abs_timeout(rel_ns),
					 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);

	return ret ? -errno : 0;
}

static inline int wait_point(int fd, uint32_t syncobj, uint64_t point)
{
	return wait_point_ns(fd, syncobj, point, WAIT_TIMEOUT_NS);
}

/* 1 when a signalled point succeeded, else the negative fence error. */
static inline int point_status(int fd, __u32 syncobj, __u64 point)
{
	struct sync_fence_info fi[16];
	struct sync_file_info info;
	__u32 tmp;
	int sfd = -1, ret;

	memset(fi, 0, sizeof(fi));
	if (drmSyncobjCreate(fd, 0, &tmp))
		return -errno;
	ret = drmSyncobjTransfer(fd, tmp, 0, syncobj, point, 0);
	if (!ret)
		ret = drmSyncobjExportSyncFile(fd, tmp, &sfd);
	if (ret) {
		ret = -errno;
		goto out;
	}
	memset(&info, 0, sizeof(info));
	info.num_fences = 16;
	info.sync_fence_info = (uintptr_t)fi;
	ret = m890_ioctl(sfd, SYNC_IOC_FILE_INFO, &info);
	if (!ret)
		ret = info.status;
	close(sfd);
out:
	drmSyncobjDestroy(fd, tmp);
	return ret;
}

/*
 * sync_file of timeline point @point of @syncobj (>= 0), or -errno.  Unlike
 * the syncobj, it can still be waited on once the card is unplugged (DRM
 * then refuses every ioctl of the device).
 */
static inline int sync_file_of_point(int fd, __u32 syncobj, __u64 point)
{
	__u32 tmp;
	int sfd = -1, ret;

	if (drmSyncobjCreate(fd, 0, &tmp))
		return -errno;
	ret = drmSyncobjTransfer(fd, tmp, 0, syncobj, point, 0);
	if (!ret)
		ret = drmSyncobjExportSyncFile(fd, tmp, &sfd);
	ret = ret ? -errno : sfd;
	drmSyncobjDestroy(fd, tmp);
	return ret;
}

/*
 * Wait up to @timeout_ms for a sync_file, then look at the job fences it
 * holds (a timeline point unwraps to the fences of its chain): 0 while
 * pending, 1 if none failed, else the first fence error.
 */
static inline int sync_file_result(int sfd, int timeout_ms)
{
	struct pollfd pfd = { .fd = sfd, .events = POLLIN };
	struct sync_fence_info fi[64];
	struct sync_file_info info;
	__u32 i;

	if (poll(&pfd, 1, timeout_ms) < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	memset(fi, 0, sizeof(fi));
	info.num_fences = 64;
	info.sync_fence_info = (uintptr_t)fi;
	if (m890_ioctl(sfd, SYNC_IOC_FILE_INFO, &info))
		return -errno;
	if (!info.status)
		return 0;
	for (i = 0; i < info.num_fences && i < 64; i++)
		if (fi[i].status < 0)
			return fi[i].status;
	return 1;
}

static inline void pkt_nop(union m890_packet *p)
{
	memset(p, 0, sizeof(*p));
	p->nop.hdr = M890_PKT_HDR(M890_PKT_NOP, 0);
}

static inline void pkt_fill(union m890_packet *p, __u64 dst, __u64 size, __u32 pat)
{
	memset(p, 0, sizeof(*p));
	p->fill.hdr = M890_PKT_HDR(M890_PKT_FILL, 0);
	p->fill.pattern = pat;
	p->fill.dst = dst;
	p->fill.size = size;
}

static inline void pkt_copy(union m890_packet *p, __u64 src, __u64 dst, __u64 size)
{
	memset(p, 0, sizeof(*p));
	p->copy.hdr = M890_PKT_HDR(M890_PKT_COPY, 0);
	p->copy.src = src;
	p->copy.dst = dst;
	p->copy.size = size;
}

/* WAIT until the 64-bit semaphore at @addr is >= @value. */
static inline void pkt_wait(union m890_packet *p, __u64 addr, __u64 value)
{
	memset(p, 0, sizeof(*p));
	p->wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
	p->wait.cond = M890_WAIT_GE;
	p->wait.addr = addr;
	p->wait.value = value;
}

static inline void *bo_map(int fd, const struct drm_m890_bo_create *bo)
{
	void *p = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       bo->mmap_offset);

	return p == MAP_FAILED ? NULL : p;
}

#endif /* M890_TEST_UTIL_H */
