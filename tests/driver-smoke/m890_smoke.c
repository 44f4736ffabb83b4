// SPDX-License-Identifier: MIT
/*
 * DOC: m890 driver smoke test
 *
 * A quick end-to-end check of m890.ko on every /dev/accel/accel* node:
 * DEVICE_INFO query, host and HBM BOs (create, info, mmap), a queue, a
 * submission of NOP, FILL and COPY packets waited on through the queue's
 * timeline syncobj, the data checked through the CPU mappings, a packet
 * that faults (its point must carry an error and the queue must refuse
 * further work with EIO) and, with two cards on the fabric, a copy into a
 * peer window imported from the other card.  Prints one line per check
 * and exits non-zero on the first failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include <drm/m890_accel.h>

#define WAIT_NS		(10ll * 1000 * 1000 * 1000)
#define BUF_SIZE	(256 * 1024)

static int failures;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		printf("ok   ");					\
	} else {							\
		printf("FAIL ");					\
		failures++;						\
	}								\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	fflush(stdout);							\
} while (0)

struct bo {
	uint32_t handle;
	uint64_t va;
	uint64_t size;
	void *map;
};

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret == -1 ? -errno : 0;
}

static int bo_create(int fd, uint32_t flags, uint64_t size, struct bo *bo)
{
	struct drm_m890_bo_create c = { .size = size, .flags = flags };
	int ret = xioctl(fd, DRM_IOCTL_M890_BO_CREATE, &c);

	if (ret)
		return ret;
	bo->handle = c.handle;
	bo->va = c.va;
	bo->size = size;
	bo->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, c.mmap_offset);
	if (bo->map == MAP_FAILED)
		return -errno;
	return 0;
}

static int submit(int fd, uint32_t queue, union m890_packet *pkts, uint32_t n, uint64_t *seqno)
{
	struct drm_m890_submit s = {
		.queue_id = queue, .count = n, .packets = (uintptr_t)pkts,
	};
	int ret = xioctl(fd, DRM_IOCTL_M890_SUBMIT, &s);

	*seqno = s.seqno;
	return ret;
}

/* Wait for @point and return the fence status: 1 ok, < 0 error. */
static int wait_point(int fd, uint32_t syncobj, uint64_t point)
{
	struct sync_file_info info = { 0 };
	uint32_t tmp;
	int sync_fd, ret;

	ret = drmSyncobjTimelineWait(fd, &syncobj, &point, 1, INT64_MAX,
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	if (ret)
		return ret;
	if (drmSyncobjCreate(fd, 0, &tmp))
		return -errno;
	ret = drmSyncobjTransfer(fd, tmp, 0, syncobj, point, 0);
	if (!ret)
		ret = drmSyncobjExportSyncFile(fd, tmp, &sync_fd);
	if (!ret) {
		ret = ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info) ? -errno : info.status;
		close(sync_fd);
	}
	drmSyncobjDestroy(fd, tmp);
	return ret;
}

static int queue_state(int fd, uint32_t queue, struct drm_m890_queue_state *st)
{
	struct drm_m890_query q = {
		.type = DRM_M890_QUERY_QUEUE_STATE, .size = sizeof(*st), .data = (uintptr_t)st,
	};

	memset(st, 0, sizeof(*st));
	st->queue_id = queue;
	return xioctl(fd, DRM_IOCTL_M890_QUERY, &q);
}

static void pkt_fill(union m890_packet *p, uint64_t dst, uint64_t size, uint32_t pattern)
{
	memset(p, 0, sizeof(*p));
	p->fill.hdr = M890_PKT_HDR(M890_PKT_FILL, 0);
	p->fill.dst = dst;
	p->fill.size = size;
	p->fill.pattern = pattern;
}

static void pkt_copy(union m890_packet *p, uint64_t src, uint64_t dst, uint64_t size)
{
	memset(p, 0, sizeof(*p));
	p->copy.hdr = M890_PKT_HDR(M890_PKT_COPY, 0);
	p->copy.src = src;
	p->copy.dst = dst;
	p->copy.size = size;
}

static int all_words(const void *buf, uint64_t size, uint32_t v)
{
	const uint32_t *w = buf;
	uint64_t i;

	for (i = 0; i < size / 4; i++)
		if (w[i] != v)
			return 0;
	return 1;
}

static int test_card(const char *path, struct drm_m890_device_info *info)
{
	struct drm_m890_query q = { .type = DRM_M890_QUERY_DEVICE_INFO };
	struct drm_m890_queue_create qc = { 0 };
	union m890_packet pkts[4];
	struct drm_m890_queue_state st;
	struct bo host, hbm;
	uint64_t seqno;
	int fd, ret;

	fd = open(path, O_RDWR | O_CLOEXEC);
	CHECK(fd >= 0, "%s: open", path);
	if (fd < 0)
		return -1;

	q.size = sizeof(*info);
	q.data = (uintptr_t)info;
	ret = xioctl(fd, DRM_IOCTL_M890_QUERY, &q);
	CHECK(!ret && info->pci_vendor == 0x1d89, "%s: query: %u queues, %llu MiB HBM, fabric id %u",
	      path, info->num_queues, (unsigned long long)info->hbm_size >> 20, info->fabric_id);

	ret = bo_create(fd, DRM_M890_BO_HOST, BUF_SIZE, &host);
	CHECK(!ret, "%s: host BO va 0x%llx (%d)", path, (unsigned long long)host.va, ret);
	ret = ret ? ret : bo_create(fd, DRM_M890_BO_HBM, BUF_SIZE, &hbm);
	CHECK(!ret, "%s: HBM BO va 0x%llx (%d)", path, (unsigned long long)hbm.va, ret);
	if (ret)
		goto out;
	CHECK(all_words(hbm.map, BUF_SIZE, 0), "%s: new HBM BO reads as zero", path);

	ret = xioctl(fd, DRM_IOCTL_M890_QUEUE_CREATE, &qc);
	CHECK(!ret, "%s: queue %u syncobj %u", path, qc.queue_id, qc.syncobj);
	if (ret)
		goto out;

	memset(&pkts[0], 0, sizeof(pkts[0]));
	pkts[0].nop.hdr = M890_PKT_HDR(M890_PKT_NOP, 0);
	ret = submit(fd, qc.queue_id, pkts, 1, &seqno);
	CHECK(!ret && wait_point(fd, qc.syncobj, seqno) == 1, "%s: NOP seqno %llu", path,
	      (unsigned long long)seqno);

	memset(host.map, 0, BUF_SIZE);
	pkt_fill(&pkts[0], hbm.va, BUF_SIZE, 0xa5a5f00d);
	pkt_copy(&pkts[1], hbm.va, host.va, BUF_SIZE);
	ret = submit(fd, qc.queue_id, pkts, 2, &seqno);
	ret = ret ? ret : wait_point(fd, qc.syncobj, seqno);
	CHECK(ret == 1 && all_words(host.map, BUF_SIZE, 0xa5a5f00d) &&
	      all_words(hbm.map, BUF_SIZE, 0xa5a5f00d),
	      "%s: FILL HBM + COPY HBM->host (%d)", path, ret);

	pkts[0].hdr = M890_PKT_HDR(M890_PKT_FENCE, 0);
	ret = submit(fd, qc.queue_id, pkts, 1, &seqno);
	CHECK(ret == -EINVAL, "%s: FENCE from userspace refused (%d)", path, ret);

	pkt_fill(&pkts[0], 0x1000, 4096, 1);	/* below va_start: never mapped */
	ret = submit(fd, qc.queue_id, pkts, 1, &seqno);
	ret = ret ? ret : wait_point(fd, qc.syncobj, seqno);
	CHECK(ret == 1 || ret == -EFAULT, "%s: faulting FILL signals its point (%d)", path, ret);
	ret = queue_state(fd, qc.queue_id, &st);
	CHECK(!ret && st.error == -EFAULT && st.submitted_seqno == seqno &&
	      st.completed_seqno == seqno - 1,
	      "%s: queue state: error %d, submitted %llu, completed %llu", path, st.error,
	      (unsigned long long)st.submitted_seqno, (unsigned long long)st.completed_seqno);
	memset(&pkts[0], 0, sizeof(pkts[0]));
	ret = submit(fd, qc.queue_id, pkts, 1, &seqno);
	CHECK(ret == -EIO, "%s: stopped queue refuses work with EIO (%d)", path, ret);

	struct drm_m890_queue_destroy qd = { .queue_id = qc.queue_id };

	ret = xioctl(fd, DRM_IOCTL_M890_QUEUE_DESTROY, &qd);
	CHECK(!ret, "%s: queue destroy", path);
out:
	close(fd);
	return failures ? -1 : 0;
}

/* Card B copies into a window onto card A's HBM BO; A checks the data. */
static void test_p2p(const char *a_path, const char *b_path)
{
	struct drm_m890_queue_create qc = { 0 };
	struct drm_m890_bo_info bi = { 0 };
	union m890_packet pkt;
	struct bo a_hbm, b_host;
	int a, b, dmabuf, ret;
	uint32_t win;
	uint64_t seqno;

	a = open(a_path, O_RDWR | O_CLOEXEC);
	b = open(b_path, O_RDWR | O_CLOEXEC);
	if (a < 0 || b < 0) {
		CHECK(0, "p2p: open");
		return;
	}
	ret = bo_create(a, DRM_M890_BO_HBM, BUF_SIZE, &a_hbm);
	ret = ret ? ret : bo_create(b, DRM_M890_BO_HOST, BUF_SIZE, &b_host);
	ret = ret ? ret : drmPrimeHandleToFD(a, a_hbm.handle, DRM_CLOEXEC | DRM_RDWR, &dmabuf);
	ret = ret ? ret : drmPrimeFDToHandle(b, dmabuf, &win);
	CHECK(!ret, "p2p: export %s HBM BO, import on %s (%d)", a_path, b_path, ret);
	if (ret)
		goto out;
	bi.handle = win;
	ret = xioctl(b, DRM_IOCTL_M890_BO_INFO, &bi);
	CHECK(!ret && (bi.flags & DRM_M890_BO_PEER) && bi.va, "p2p: window va 0x%llx peer %u",
	      (unsigned long long)bi.va, bi.peer_fabric_id);

	memset(b_host.map, 0x3c, BUF_SIZE);
	ret = xioctl(b, DRM_IOCTL_M890_QUEUE_CREATE, &qc);
	pkt_copy(&pkt, b_host.va, bi.va, BUF_SIZE);
	ret = ret ? ret : submit(b, qc.queue_id, &pkt, 1, &seqno);
	ret = ret ? ret : wait_point(b, qc.syncobj, seqno);
	CHECK(ret == 1 && all_words(a_hbm.map, BUF_SIZE, 0x3c3c3c3c),
	      "p2p: COPY host -> peer HBM through the fabric (%d)", ret);
	close(dmabuf);
out:
	close(b);
	close(a);
}

int main(void)
{
	struct drm_m890_device_info info[64];
	glob_t g;
	size_t i;

	if (glob("/dev/accel/accel*", 0, NULL, &g) || !g.gl_pathc) {
		printf("FAIL no /dev/accel/accel* nodes\n");
		return 1;
	}
	for (i = 0; i < g.gl_pathc && i < 64; i++)
		test_card(g.gl_pathv[i], &info[i]);
	if (g.gl_pathc >= 2 && (info[0].capabilities & DRM_M890_CAP_PEER_IMPORT) &&
	    (info[1].capabilities & DRM_M890_CAP_PEER_IMPORT))
		test_p2p(g.gl_pathv[0], g.gl_pathv[1]);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	globfree(&g);
	return failures ? 1 : 0;
}
