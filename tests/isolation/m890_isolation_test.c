// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Isolation and recovery tests of the m890 driver (kselftest harness, TAP).
 *
 * - cross-client: client A reaches for client B's BOs, queues, syncobjs
 *   and device VAs through ioctls and through packets; every attempt
 *   fails, A's queues fault with -EFAULT, B's work and data are intact;
 *   a fault stops every queue of the faulting file's context, once logged;
 * - job timeout: a WAIT that never ends fails with -ETIMEDOUT after the
 *   job_timeout_ms module parameter, while other queues and clients run;
 * - device reset (debugfs force_reset): in-flight jobs of every client
 *   fail with -EIO, new queues work and HBM contents survive;
 * - kill -9 of processes with 64 jobs in flight: HBM accounting (debugfs
 *   and fdinfo) returns to its starting value;
 * - races: queue create/destroy, timeout against destroy, reset against
 *   submit;
 * - lifetime: GEM_CLOSE of a BO a running job uses; kill -9 leaves no MMU
 *   fault in the kernel log; a submitter waiting for ring space does not
 *   delay the job timeout;
 * - a BO shared with another file of the card through a dma-buf is mapped
 *   into that file's address space and usable in its packets;
 * - 2 MiB PTEs for large HBM BOs (debugfs "bos");
 * - per-user limits (module parameters host_mb_per_user, queues_per_user,
 *   contexts_per_user): past each the call fails with -EDQUOT, summed over
 *   the user's files of the card (two files of one process share them),
 *   while another user keeps its own; the 1.5 names remain as aliases;
 * - PCIe FLR (through sysfs, and behind the driver's back by a write of
 *   DEVCTL's FLR bit) and debugfs force_reset with 64 jobs in flight;
 * - driver unbind with a client open (jobs in flight, an HBM mapping),
 *   then bind again.
 *
 * Needs root (module parameters and debugfs) and card 0; tests that need
 * what is missing are skipped.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include <drm/m890_accel.h>

#include "kselftest_harness.h"

#define ACCEL0			"/dev/accel/accel0"
#define TIMEOUT_PARAM		"/sys/module/m890/parameters/job_timeout_ms"
#define WAIT_TIMEOUT_NS		(30ull * 1000 * 1000 * 1000)
#define KILL_ROUNDS		100
#define KILL_JOBS		64

/* ---- helpers: each returns 0 or -errno ---- */

#include "m890_test_util.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool ranges_overlap(__u64 a, __u64 alen, __u64 b, __u64 blen)
{
	return a < b + blen && b < a + alen;
}

/* Every 32-bit word of @p[0..size) equals @pat. */
static bool all_words(const volatile __u32 *p, __u64 size, __u32 pat)
{
	__u64 i;

	for (i = 0; i < size / 4; i++)
		if (p[i] != pat)
			return false;
	return true;
}

/*
 * debugfs file of the card behind @fd: accel debugfs directories are named
 * after the device (its PCI address), /sys/kernel/debug/accel/<bdf>/.
 */
static int debugfs_path(int fd, const char *name, char *buf, size_t len)
{
	char link[64], *dev, *bdf;
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device", major(st.st_rdev),
		 minor(st.st_rdev));
	dev = realpath(link, NULL);
	if (!dev)
		return -errno;
	bdf = strrchr(dev, '/');
	snprintf(buf, len, "/sys/kernel/debug/accel/%s/%s", bdf ? bdf + 1 : dev, name);
	free(dev);
	return access(buf, F_OK) ? -errno : 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	if (n < 0)
		return -errno;
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* HBM bytes allocated on the card behind @fd (debugfs "hbm": "used N"). */
static long long hbm_used(int fd)
{
	char path[128], buf[256];
	long long used;

	if (debugfs_path(fd, "hbm", path, sizeof(path)) || read_file(path, buf, sizeof(buf)))
		return -1;
	if (sscanf(buf, "used %lld", &used) != 1)
		return -1;
	return used;
}

/* Value in bytes of an fdinfo key of @fd, e.g. "drm-total-hbm" (-1 if absent). */
static long long fdinfo_bytes(int fd, const char *key)
{
	char path[64], buf[4096], *line;
	unsigned long long v;
	char unit[8] = "";
	size_t klen = strlen(key);

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	for (line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		if (sscanf(line + klen + 1, " %llu %7s", &v, unit) < 1)
			return -1;
		if (!strcmp(unit, "KiB"))
			v <<= 10;
		else if (!strcmp(unit, "MiB"))
			v <<= 20;
		return (long long)v;
	}
	return -1;
}

/* Start reading the kernel log from its current end (-errno on error). */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * Kernel log records since kmsg_open() that contain one of the |-separated
 * strings of @needles.
 */
static int kmsg_count(int fd, const char *needles)
{
	char rec[8192], list[256], *save, *tok;
	int n = 0;
	ssize_t len;

	for (;;) {
		len = read(fd, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (len <= 0)
			break;
		rec[len] = '\0';
		snprintf(list, sizeof(list), "%s", needles);
		for (tok = strtok_r(list, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
			if (strstr(rec, tok)) {
				n++;
				break;
			}
		}
	}
	return n;
}

/* PCI address of the card behind @fd into @bdf (-errno on error). */
static int card_bdf(int fd, char *bdf, size_t len)
{
	char link[64], *dev, *slash;
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device", major(st.st_rdev),
		 minor(st.st_rdev));
	dev = realpath(link, NULL);
	if (!dev)
		return -errno;
	slash = strrchr(dev, '/');
	snprintf(bdf, len, "%s", slash ? slash + 1 : dev);
	free(dev);
	return 0;
}

/* drm-client-id of @fd from fdinfo, or -1. */
static long long client_id(int fd)
{
	char path[64], buf[4096], *p;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "drm-client-id:");
	return p ? strtoll(p + strlen("drm-client-id:"), NULL, 10) : -1;
}

/* "pte2m N" of handle @handle of @fd in debugfs "bos", or -1. */
static int bo_large_ptes(int fd, __u32 handle)
{
	char path[128], want[64], *buf, *line;
	long long id = client_id(fd);
	int ret = -1;

	if (id < 0 || debugfs_path(fd, "bos", path, sizeof(path)))
		return -1;
	buf = malloc(1 << 20);
	if (!buf)
		return -1;
	if (!read_file(path, buf, 1 << 20)) {
		snprintf(want, sizeof(want), "client %lld handle %u ", id, handle);
		line = strstr(buf, want);
		if (line && strstr(line, "pte2m "))
			ret = atoi(strstr(line, "pte2m ") + 6);
	}
	free(buf);
	return ret;
}

/* Set the job timeout; returns the old value in @old (ms) or -errno. */
static int set_job_timeout(unsigned int ms, unsigned int *old)
{
	char buf[32];
	int ret;

	if (old) {
		ret = read_file(TIMEOUT_PARAM, buf, sizeof(buf));
		if (ret)
			return ret;
		*old = (unsigned int)strtoul(buf, NULL, 10);
	}
	snprintf(buf, sizeof(buf), "%u", ms);
	return write_file(TIMEOUT_PARAM, buf);
}

/* ---- fixture: two clients A and B on card 0 ---- */

FIXTURE(two) {
	int a, b;
	unsigned int old_timeout;
	bool timeout_set;
};

FIXTURE_SETUP(two)
{
	self->timeout_set = false;
	self->a = open(ACCEL0, O_RDWR | O_CLOEXEC);
	if (self->a < 0)
		SKIP(return, "%s: %s", ACCEL0, strerror(errno));
	self->b = open(ACCEL0, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->b);
}

FIXTURE_TEARDOWN(two)
{
	if (self->timeout_set)
		set_job_timeout(self->old_timeout, NULL);
	if (self->a >= 0)
		close(self->a);
	if (self->b >= 0)
		close(self->b);
}

/* Set the job timeout for this test; restored by the teardown. */
#define SET_TIMEOUT(ms) do {							\
	if (access(TIMEOUT_PARAM, W_OK))					\
		SKIP(return, "%s not writable", TIMEOUT_PARAM);		\
	ASSERT_EQ(0, set_job_timeout(ms, &self->old_timeout));			\
	self->timeout_set = true;						\
} while (0)

/* A names B's handles, queue ids and syncobjs through every ioctl. */
TEST_F_TIMEOUT(two, cross_client_ioctls, 120)
{
	struct drm_m890_bo_create bo;
	struct drm_m890_queue_create qb;
	struct drm_m890_queue_state st;
	struct drm_m890_bo_info info;
	struct drm_prime_handle prime;
	union m890_packet p;
	uint64_t val = 0;
	void *m;

	ASSERT_EQ(0, bo_create(self->b, 64 * 1024, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, queue_create(self->b, &qb));

	/* A has no objects at all: every one of B's numbers is unknown to A. */
	EXPECT_EQ(-ENOENT, bo_info(self->a, bo.handle, &info));
	EXPECT_EQ(-EINVAL, gem_close(self->a, bo.handle));
	memset(&prime, 0, sizeof(prime));
	prime.handle = bo.handle;
	prime.flags = DRM_CLOEXEC;
	EXPECT_EQ(-ENOENT, m890_ioctl(self->a, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime));
	m = mmap(NULL, bo.size, PROT_READ, MAP_SHARED, self->a, bo.mmap_offset);
	EXPECT_EQ(MAP_FAILED, m);
	if (m != MAP_FAILED)
		munmap(m, bo.size);

	pkt_nop(&p);
	EXPECT_EQ(-ENOENT, submit(self->a, qb.queue_id, &p, 1, NULL));
	EXPECT_EQ(-ENOENT, queue_state(self->a, qb.queue_id, &st));
	EXPECT_EQ(-ENOENT, queue_destroy(self->a, qb.queue_id));
	EXPECT_NE(0, drmSyncobjQuery(self->a, &qb.syncobj, &val, 1));
	EXPECT_NE(0, drmSyncobjDestroy(self->a, qb.syncobj));

	/* B's objects are untouched. */
	EXPECT_EQ(0, bo_info(self->b, bo.handle, &info));
	EXPECT_EQ(bo.va, info.va);
	EXPECT_EQ(0, queue_error(self->b, qb.queue_id));
	EXPECT_EQ(0, drmSyncobjQuery(self->b, &qb.syncobj, &val, 1));
	EXPECT_EQ(0, queue_destroy(self->b, qb.queue_id));
}

/*
 * A copies from and to B's VAs and fills them: B's VAs are not mapped in
 * A's context, so A's context faults: each of A's queues fails its job
 * (-EFAULT for the queues that faulted, -ECANCELED for those stopped by
 * the first fault), reports -EFAULT and refuses new work, and A's buffer
 * stays zero, while B fills, copies and verifies its own data meanwhile.
 */
TEST_F_TIMEOUT(two, cross_client_packets, 120)
{
	struct drm_m890_bo_create pad, src, dst, abo;
	struct drm_m890_queue_create qa[3], qb;
	union m890_packet p[2];
	__u32 *msrc, *mdst, *ma;
	__u64 sa[3], sb1, sb2;
	int i, st, faulted;

	/* B: a 4 MiB spacer, then its data buffers, above any VA A gets. */
	ASSERT_EQ(0, bo_create(self->b, 4 << 20, DRM_M890_BO_HBM, &pad));
	ASSERT_EQ(0, bo_create(self->b, 256 * 1024, DRM_M890_BO_HBM, &src));
	ASSERT_EQ(0, bo_create(self->b, 256 * 1024, DRM_M890_BO_HOST, &dst));
	ASSERT_EQ(0, bo_create(self->a, 64 * 1024, DRM_M890_BO_HOST, &abo));
	ASSERT_FALSE(ranges_overlap(abo.va, abo.size, src.va, src.size));
	ASSERT_FALSE(ranges_overlap(abo.va, abo.size, dst.va, dst.size));
	msrc = bo_map(self->b, &src);
	mdst = bo_map(self->b, &dst);
	ma = bo_map(self->a, &abo);
	ASSERT_NE(NULL, msrc);
	ASSERT_NE(NULL, mdst);
	ASSERT_NE(NULL, ma);
	memset(ma, 0, abo.size);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, queue_create(self->a, &qa[i]));
	ASSERT_EQ(0, queue_create(self->b, &qb));

	/* B: fill src, copy it to dst. */
	pkt_fill(&p[0], src.va, src.size, 0xb0b0cafe);
	pkt_copy(&p[1], src.va, dst.va, dst.size);
	ASSERT_EQ(0, submit(self->b, qb.queue_id, p, 2, &sb1));

	/* A: read B's src, write B's dst, fill B's src. */
	pkt_copy(&p[0], src.va, abo.va, abo.size);
	ASSERT_EQ(0, submit(self->a, qa[0].queue_id, p, 1, &sa[0]));
	/* Once the context faulted, submissions fail with -EIO. */
	pkt_copy(&p[0], abo.va, dst.va, abo.size);
	st = submit(self->a, qa[1].queue_id, p, 1, &sa[1]);
	ASSERT_TRUE(st == 0 || st == -EIO);
	if (st)
		sa[1] = 0;
	pkt_fill(&p[0], src.va, abo.size, 0xbad0bad0);
	st = submit(self->a, qa[2].queue_id, p, 1, &sa[2]);
	ASSERT_TRUE(st == 0 || st == -EIO);
	if (st)
		sa[2] = 0;

	for (i = 0, faulted = 0; i < 3; i++) {
		if (sa[i]) {
			ASSERT_EQ(0, wait_point(self->a, qa[i].syncobj, sa[i]));
			st = point_status(self->a, qa[i].syncobj, sa[i]);
			EXPECT_TRUE(st == -EFAULT || st == -ECANCELED)
				TH_LOG("queue %d: %d", i, st);
			faulted += st == -EFAULT;
		}
		EXPECT_EQ(-EFAULT, queue_error(self->a, qa[i].queue_id));
		pkt_nop(&p[0]);
		EXPECT_EQ(-EIO, submit(self->a, qa[i].queue_id, p, 1, NULL));
	}
	EXPECT_LE(1, faulted);
	EXPECT_TRUE(all_words(ma, abo.size, 0));

	/* B: its first job and a second one after A's faults both succeed. */
	ASSERT_EQ(0, wait_point(self->b, qb.syncobj, sb1));
	EXPECT_EQ(1, point_status(self->b, qb.syncobj, sb1));
	pkt_fill(&p[0], dst.va + dst.size / 2, dst.size / 2, 0x600d600d);
	ASSERT_EQ(0, submit(self->b, qb.queue_id, p, 1, &sb2));
	ASSERT_EQ(0, wait_point(self->b, qb.syncobj, sb2));
	EXPECT_EQ(1, point_status(self->b, qb.syncobj, sb2));
	EXPECT_EQ(0, queue_error(self->b, qb.queue_id));
	EXPECT_TRUE(all_words(msrc, src.size, 0xb0b0cafe));
	EXPECT_TRUE(all_words(mdst, dst.size / 2, 0xb0b0cafe));
	EXPECT_TRUE(all_words(mdst + dst.size / 8, dst.size / 2, 0x600d600d));

	munmap(msrc, src.size);
	munmap(mdst, dst.size);
	munmap(ma, abo.size);
}

/*
 * A fault stops the whole context: A has three queues, two of them with a
 * FILL pending behind a WAIT; when the third faults, the two pending jobs
 * fail with -ECANCELED (and do not run even once their WAIT is satisfied),
 * every queue of A reports -EFAULT and refuses new work, the kernel logs
 * the fault exactly once for this pid, and B's queue keeps working.  A new
 * file (a new context) works again.
 */
TEST_F_TIMEOUT(two, fault_stops_context, 120)
{
	struct drm_m890_queue_create qa[3], qb, qn;
	struct drm_m890_bo_create sem, buf, bbuf;
	struct drm_m890_device_info info;
	union m890_packet p[2];
	__u64 sa[3], sb, sn, bad_va;
	__u32 *m, *mb;
	__u64 *msem;
	char needle[64];
	int i, kmsg, fd;

	ASSERT_EQ(0, query_info(self->a, &info));
	bad_va = info.va_start >= 0x10000 ? 0x1000 : info.va_start + info.va_size;
	ASSERT_EQ(0, bo_create(self->a, 4096, DRM_M890_BO_HOST, &sem));
	ASSERT_EQ(0, bo_create(self->a, 64 * 1024, DRM_M890_BO_HOST, &buf));
	ASSERT_EQ(0, bo_create(self->b, 64 * 1024, DRM_M890_BO_HOST, &bbuf));
	msem = bo_map(self->a, &sem);
	m = bo_map(self->a, &buf);
	mb = bo_map(self->b, &bbuf);
	ASSERT_NE(NULL, msem);
	ASSERT_NE(NULL, m);
	ASSERT_NE(NULL, mb);
	msem[0] = 0;
	memset(m, 0, buf.size);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, queue_create(self->a, &qa[i]));
	ASSERT_EQ(0, queue_create(self->b, &qb));
	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg);

	/* Queues 1 and 2: a FILL behind a WAIT nobody signals yet. */
	for (i = 1; i < 3; i++) {
		pkt_wait(&p[0], sem.va, 1);
		pkt_fill(&p[1], buf.va, buf.size, 0x11111111);
		ASSERT_EQ(0, submit(self->a, qa[i].queue_id, p, 2, &sa[i]));
	}
	/* Queue 0 faults. */
	pkt_fill(&p[0], bad_va, 4096, 0xdeadbeef);
	ASSERT_EQ(0, submit(self->a, qa[0].queue_id, p, 1, &sa[0]));

	ASSERT_EQ(0, wait_point(self->a, qa[0].syncobj, sa[0]));
	EXPECT_EQ(-EFAULT, point_status(self->a, qa[0].syncobj, sa[0]));
	for (i = 1; i < 3; i++) {
		ASSERT_EQ(0, wait_point(self->a, qa[i].syncobj, sa[i]));
		EXPECT_EQ(-ECANCELED, point_status(self->a, qa[i].syncobj, sa[i]));
	}
	pkt_nop(&p[0]);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(-EFAULT, queue_error(self->a, qa[i].queue_id));
		EXPECT_EQ(-EIO, submit(self->a, qa[i].queue_id, p, 1, NULL));
	}
	/* The stopped queues really stopped: releasing the WAIT runs nothing. */
	__atomic_store_n(&msem[0], 1, __ATOMIC_SEQ_CST);
	usleep(200 * 1000);
	EXPECT_TRUE(all_words(m, buf.size, 0));

	/* B is unaffected. */
	pkt_fill(&p[0], bbuf.va, bbuf.size, 0x22222222);
	ASSERT_EQ(0, submit(self->b, qb.queue_id, p, 1, &sb));
	ASSERT_EQ(0, wait_point(self->b, qb.syncobj, sb));
	EXPECT_EQ(1, point_status(self->b, qb.syncobj, sb));
	EXPECT_TRUE(all_words(mb, bbuf.size, 0x22222222));
	EXPECT_EQ(0, queue_error(self->b, qb.queue_id));

	/* One log line for the fault, naming this process. */
	snprintf(needle, sizeof(needle), "pid %d (", (int)getpid());
	EXPECT_EQ(1, kmsg_count(kmsg, needle));
	close(kmsg);

	/* Recovery: a new file is a new, good context. */
	fd = open(ACCEL0, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, queue_create(fd, &qn));
	pkt_nop(&p[0]);
	ASSERT_EQ(0, submit(fd, qn.queue_id, p, 1, &sn));
	ASSERT_EQ(0, wait_point(fd, qn.syncobj, sn));
	EXPECT_EQ(1, point_status(fd, qn.syncobj, sn));
	close(fd);

	munmap(msem, sem.size);
	munmap(m, buf.size);
	munmap(mb, bbuf.size);
}

/*
 * A WAIT on a semaphore nobody signals is cut by the job timeout: its point
 * fails with -ETIMEDOUT, the queue reports it and refuses new work, while
 * another queue of the same client and another client run throughout.
 */
TEST_F_TIMEOUT(two, wait_timed_out, 120)
{
	struct drm_m890_queue_create qh, q2, qb;
	struct drm_m890_bo_create sem, buf, bbuf;
	union m890_packet p;
	__u64 sh, s2, sb;
	__u32 *m, *mb;
	double t0, dt;

	SET_TIMEOUT(1000);
	ASSERT_EQ(0, bo_create(self->a, 4096, DRM_M890_BO_HOST, &sem));
	ASSERT_EQ(0, bo_create(self->a, 64 * 1024, DRM_M890_BO_HOST, &buf));
	ASSERT_EQ(0, bo_create(self->b, 64 * 1024, DRM_M890_BO_HOST, &bbuf));
	m = bo_map(self->a, &buf);
	mb = bo_map(self->b, &bbuf);
	ASSERT_NE(NULL, m);
	ASSERT_NE(NULL, mb);
	ASSERT_EQ(0, queue_create(self->a, &qh));
	ASSERT_EQ(0, queue_create(self->a, &q2));
	ASSERT_EQ(0, queue_create(self->b, &qb));

	t0 = now_s();
	pkt_wait(&p, sem.va, 1);
	ASSERT_EQ(0, submit(self->a, qh.queue_id, &p, 1, &sh));

	/* Meanwhile the other queue and the other client work. */
	pkt_fill(&p, buf.va, buf.size, 0x11111111);
	ASSERT_EQ(0, submit(self->a, q2.queue_id, &p, 1, &s2));
	pkt_fill(&p, bbuf.va, bbuf.size, 0x22222222);
	ASSERT_EQ(0, submit(self->b, qb.queue_id, &p, 1, &sb));
	ASSERT_EQ(0, wait_point(self->a, q2.syncobj, s2));
	ASSERT_EQ(0, wait_point(self->b, qb.syncobj, sb));
	EXPECT_EQ(1, point_status(self->a, q2.syncobj, s2));
	EXPECT_EQ(1, point_status(self->b, qb.syncobj, sb));
	EXPECT_TRUE(all_words(m, buf.size, 0x11111111));
	EXPECT_TRUE(all_words(mb, bbuf.size, 0x22222222));

	/* The hung point signals with -ETIMEDOUT after at least the timeout. */
	ASSERT_EQ(0, wait_point(self->a, qh.syncobj, sh));
	dt = now_s() - t0;
	EXPECT_LE(1.0, dt);
	EXPECT_EQ(-ETIMEDOUT, point_status(self->a, qh.syncobj, sh));
	EXPECT_EQ(-ETIMEDOUT, queue_error(self->a, qh.queue_id));
	pkt_nop(&p);
	EXPECT_EQ(-EIO, submit(self->a, qh.queue_id, &p, 1, NULL));
	EXPECT_EQ(0, queue_error(self->a, q2.queue_id));
	EXPECT_EQ(0, queue_error(self->b, qb.queue_id));

	/* The card keeps working: a new queue of A and B's queue again. */
	EXPECT_EQ(0, queue_destroy(self->a, qh.queue_id));
	ASSERT_EQ(0, queue_create(self->a, &qh));
	pkt_fill(&p, buf.va, buf.size, 0x33333333);
	ASSERT_EQ(0, submit(self->a, qh.queue_id, &p, 1, &sh));
	ASSERT_EQ(0, wait_point(self->a, qh.syncobj, sh));
	EXPECT_EQ(1, point_status(self->a, qh.syncobj, sh));
	EXPECT_TRUE(all_words(m, buf.size, 0x33333333));
	pkt_fill(&p, bbuf.va, bbuf.size, 0x44444444);
	ASSERT_EQ(0, submit(self->b, qb.queue_id, &p, 1, &sb));
	ASSERT_EQ(0, wait_point(self->b, qb.syncobj, sb));
	EXPECT_EQ(1, point_status(self->b, qb.syncobj, sb));
	EXPECT_TRUE(all_words(mb, bbuf.size, 0x44444444));

	munmap(m, buf.size);
	munmap(mb, bbuf.size);
}

/* A WAIT released by a SIGNAL from another queue is not timed out. */
TEST_F_TIMEOUT(two, wait_signalled_in_time, 120)
{
	struct drm_m890_queue_create qw, qs;
	struct drm_m890_bo_create sem;
	union m890_packet p;
	__u64 sw, ss;

	SET_TIMEOUT(3000);
	ASSERT_EQ(0, bo_create(self->a, 4096, DRM_M890_BO_HOST, &sem));
	ASSERT_EQ(0, queue_create(self->a, &qw));
	ASSERT_EQ(0, queue_create(self->a, &qs));
	pkt_wait(&p, sem.va, 5);
	ASSERT_EQ(0, submit(self->a, qw.queue_id, &p, 1, &sw));
	memset(&p, 0, sizeof(p));
	p.signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
	p.signal.op = M890_SIGNAL_SET;
	p.signal.addr = sem.va;
	p.signal.value = 5;
	ASSERT_EQ(0, submit(self->a, qs.queue_id, &p, 1, &ss));
	ASSERT_EQ(0, wait_point(self->a, qw.syncobj, sw));
	EXPECT_EQ(1, point_status(self->a, qw.syncobj, sw));
	EXPECT_EQ(0, queue_error(self->a, qw.queue_id));
}

/*
 * force_reset in debugfs with hung jobs of two clients in flight: both
 * fail with -EIO, both queues stay stopped, HBM contents survive and new
 * queues of both clients work.
 */
TEST_F_TIMEOUT(two, force_reset, 120)
{
	struct drm_m890_queue_create qa, qb;
	struct drm_m890_bo_create sa, sb, ha, hb;
	char path[128], buf[256];
	union m890_packet p[2];
	__u64 pa, pb;
	__u32 *ma, *mb;
	int resets;

	if (debugfs_path(self->a, "force_reset", path, sizeof(path)))
		SKIP(return, "no force_reset in debugfs");
	SET_TIMEOUT(0);	/* only the reset may end the WAITs */
	ASSERT_EQ(0, bo_create(self->a, 4096, DRM_M890_BO_HOST, &sa));
	ASSERT_EQ(0, bo_create(self->b, 4096, DRM_M890_BO_HOST, &sb));
	ASSERT_EQ(0, bo_create(self->a, 64 * 1024, DRM_M890_BO_HBM, &ha));
	ASSERT_EQ(0, bo_create(self->b, 64 * 1024, DRM_M890_BO_HBM, &hb));
	ma = bo_map(self->a, &ha);
	mb = bo_map(self->b, &hb);
	ASSERT_NE(NULL, ma);
	ASSERT_NE(NULL, mb);
	ASSERT_EQ(0, queue_create(self->a, &qa));
	ASSERT_EQ(0, queue_create(self->b, &qb));

	/* Data written before the reset, then jobs that never finish. */
	pkt_fill(&p[0], ha.va, ha.size, 0xaaaa5555);
	pkt_wait(&p[1], sa.va, 1);
	ASSERT_EQ(0, submit(self->a, qa.queue_id, p, 2, &pa));
	pkt_fill(&p[0], hb.va, hb.size, 0x5555aaaa);
	pkt_wait(&p[1], sb.va, 1);
	ASSERT_EQ(0, submit(self->b, qb.queue_id, p, 2, &pb));
	/* The fills ran once each queue is blocked in its WAIT. */
	for (int i = 0; i < 1000 && !(all_words(ma, ha.size, 0xaaaa5555) &&
				       all_words(mb, hb.size, 0x5555aaaa)); i++)
		usleep(10000);
	ASSERT_TRUE(all_words(ma, ha.size, 0xaaaa5555));
	ASSERT_TRUE(all_words(mb, hb.size, 0x5555aaaa));
	EXPECT_EQ(-ETIME, wait_point_ns(self->a, qa.syncobj, pa, 100 * 1000 * 1000));

	ASSERT_EQ(0, write_file(path, "1"));

	ASSERT_EQ(0, wait_point(self->a, qa.syncobj, pa));
	ASSERT_EQ(0, wait_point(self->b, qb.syncobj, pb));
	EXPECT_EQ(-EIO, point_status(self->a, qa.syncobj, pa));
	EXPECT_EQ(-EIO, point_status(self->b, qb.syncobj, pb));
	EXPECT_EQ(-EIO, queue_error(self->a, qa.queue_id));
	EXPECT_EQ(-EIO, queue_error(self->b, qb.queue_id));
	pkt_nop(&p[0]);
	EXPECT_EQ(-EIO, submit(self->a, qa.queue_id, p, 1, NULL));
	EXPECT_TRUE(all_words(ma, ha.size, 0xaaaa5555));
	EXPECT_TRUE(all_words(mb, hb.size, 0x5555aaaa));

	/* debugfs counts the reset. */
	ASSERT_EQ(0, debugfs_path(self->a, "faults", path, sizeof(path)));
	ASSERT_EQ(0, read_file(path, buf, sizeof(buf)));
	ASSERT_NE(NULL, strstr(buf, "resets "));
	resets = atoi(strstr(buf, "resets ") + 7);
	EXPECT_LE(1, resets);

	/* New work on new queues succeeds, through the same mappings. */
	EXPECT_EQ(0, queue_destroy(self->a, qa.queue_id));
	EXPECT_EQ(0, queue_destroy(self->b, qb.queue_id));
	ASSERT_EQ(0, queue_create(self->a, &qa));
	ASSERT_EQ(0, queue_create(self->b, &qb));
	pkt_copy(&p[0], ha.va, ha.va + ha.size / 2, ha.size / 2);
	pkt_fill(&p[1], ha.va, ha.size / 2, 0x12345678);
	ASSERT_EQ(0, submit(self->a, qa.queue_id, p, 2, &pa));
	pkt_fill(&p[0], hb.va, hb.size, 0x87654321);
	ASSERT_EQ(0, submit(self->b, qb.queue_id, p, 1, &pb));
	ASSERT_EQ(0, wait_point(self->a, qa.syncobj, pa));
	ASSERT_EQ(0, wait_point(self->b, qb.syncobj, pb));
	EXPECT_EQ(1, point_status(self->a, qa.syncobj, pa));
	EXPECT_EQ(1, point_status(self->b, qb.syncobj, pb));
	EXPECT_TRUE(all_words(ma, ha.size / 2, 0x12345678));
	EXPECT_TRUE(all_words(ma + ha.size / 8, ha.size / 2, 0xaaaa5555));
	EXPECT_TRUE(all_words(mb, hb.size, 0x87654321));
	munmap(ma, ha.size);
	munmap(mb, hb.size);
}

/* fdinfo and debugfs account HBM per client and in total. */
TEST_F_TIMEOUT(two, hbm_accounting, 120)
{
	struct drm_m890_bo_create a1, a2, b1, h;
	long long base = hbm_used(self->a);

	if (base < 0)
		SKIP(return, "no hbm file in debugfs");
	EXPECT_EQ(0, fdinfo_bytes(self->a, "drm-total-hbm"));
	ASSERT_EQ(0, bo_create(self->a, 1 << 20, DRM_M890_BO_HBM, &a1));
	ASSERT_EQ(0, bo_create(self->a, 64 * 1024, DRM_M890_BO_HBM, &a2));
	ASSERT_EQ(0, bo_create(self->b, 2 << 20, DRM_M890_BO_HBM, &b1));
	ASSERT_EQ(0, bo_create(self->a, 8192, DRM_M890_BO_HOST, &h));
	EXPECT_EQ((1 << 20) + 64 * 1024, fdinfo_bytes(self->a, "drm-total-hbm"));
	EXPECT_EQ((1 << 20) + 64 * 1024, fdinfo_bytes(self->a, "drm-hbm-mapped"));
	EXPECT_EQ(8192, fdinfo_bytes(self->a, "drm-total-host"));
	EXPECT_EQ(2 << 20, fdinfo_bytes(self->b, "drm-total-hbm"));
	EXPECT_EQ(0, fdinfo_bytes(self->b, "drm-total-host"));
	EXPECT_EQ(base + (3 << 20) + 64 * 1024, hbm_used(self->a));
	EXPECT_LE(0, fdinfo_bytes(self->a, "drm-engine-compute"));

	EXPECT_EQ(0, gem_close(self->a, a1.handle));
	EXPECT_EQ(64 * 1024, fdinfo_bytes(self->a, "drm-total-hbm"));
	EXPECT_EQ(base + (2 << 20) + 64 * 1024, hbm_used(self->a));
	close(self->b);
	self->b = -1;
	EXPECT_EQ(base + 64 * 1024, hbm_used(self->a));
}

/* Busy time in fdinfo grows while a queue has work outstanding. */
TEST_F_TIMEOUT(two, fdinfo_busy_time, 120)
{
	struct drm_m890_queue_create q;
	struct drm_m890_bo_create sem;
	union m890_packet p;
	long long before, after;
	__u64 s;

	SET_TIMEOUT(500);
	before = fdinfo_bytes(self->a, "drm-engine-compute");
	if (before < 0)
		SKIP(return, "no drm-engine-compute in fdinfo");
	ASSERT_EQ(0, bo_create(self->a, 4096, DRM_M890_BO_HOST, &sem));
	ASSERT_EQ(0, queue_create(self->a, &q));
	pkt_wait(&p, sem.va, 1);
	ASSERT_EQ(0, submit(self->a, q.queue_id, &p, 1, &s));
	ASSERT_EQ(0, wait_point(self->a, q.syncobj, s));
	after = fdinfo_bytes(self->a, "drm-engine-compute");
	/* The WAIT was outstanding for at least the 500 ms timeout. */
	EXPECT_LE(before + 500000000ll, after);
}

/* Child: 64 jobs in flight that never finish, then tell the parent. */
static void kill_child(int ready_fd)
{
	struct drm_m890_queue_create q;
	struct drm_m890_bo_create sem, buf;
	union m890_packet p[2];
	int fd, i;
	char c = 1;

	fd = open(ACCEL0, O_RDWR | O_CLOEXEC);
	if (fd < 0 || bo_create(fd, 4096, DRM_M890_BO_HOST, &sem) ||
	    bo_create(fd, 1 << 20, DRM_M890_BO_HBM, &buf) || queue_create(fd, &q))
		_exit(1);
	for (i = 0; i < KILL_JOBS; i++) {
		pkt_wait(&p[0], sem.va, 1);
		pkt_copy(&p[1], buf.va, buf.va + buf.size / 2, buf.size / 2);
		if (submit(fd, q.queue_id, p, 2, NULL))
			_exit(2);
	}
	if (write(ready_fd, &c, 1) != 1)
		_exit(3);
	pause();
	_exit(0);
}

/*
 * 100 rounds of a process with 64 jobs in flight killed by SIGKILL: the
 * card's HBM accounting comes back to where it started each time, the
 * kernel logs no MMU fault (the jobs are cancelled before their BOs are
 * unmapped) and the card still runs work afterwards.
 */
TEST_F_TIMEOUT(two, kill9_with_jobs_in_flight, 600)
{
	struct drm_m890_queue_create q;
	struct drm_m890_bo_create buf;
	long long base = hbm_used(self->a), used;
	union m890_packet p;
	int round, status, pipefd[2], kmsg;
	pid_t pid;
	char c;
	__u64 s;

	if (base < 0)
		SKIP(return, "no hbm file in debugfs");
	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg);
	for (round = 0; round < KILL_ROUNDS; round++) {
		ASSERT_EQ(0, pipe(pipefd));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			close(pipefd[0]);
			kill_child(pipefd[1]);
		}
		close(pipefd[1]);
		ASSERT_EQ(1, read(pipefd[0], &c, 1)) TH_LOG("round %d: child failed", round);
		close(pipefd[0]);
		used = hbm_used(self->a);
		EXPECT_EQ(base + (1 << 20), used) TH_LOG("round %d", round);
		ASSERT_EQ(0, kill(pid, SIGKILL));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		/* The file is released before the parent sees the exit. */
		used = hbm_used(self->a);
		ASSERT_EQ(base, used) TH_LOG("round %d", round);
	}
	/*
	 * The queues stopped before the BOs went: no job met unmapped memory,
	 * and nothing else went wrong either (no driver error, no warning).
	 */
	EXPECT_EQ(0, kmsg_count(kmsg, "MMU fault|*ERROR*|WARNING"));
	close(kmsg);

	/* The card still works. */
	ASSERT_EQ(0, bo_create(self->a, 64 * 1024, DRM_M890_BO_HOST, &buf));
	ASSERT_EQ(0, queue_create(self->a, &q));
	pkt_fill(&p, buf.va, buf.size, 0x77777777);
	ASSERT_EQ(0, submit(self->a, q.queue_id, &p, 1, &s));
	ASSERT_EQ(0, wait_point(self->a, q.syncobj, s));
	EXPECT_EQ(1, point_status(self->a, q.syncobj, s));
}

/* ---- races ---- */

#define RACE_ROUNDS	500

struct q_race {
	int fd;
	_Atomic __u32 id;
	atomic_bool stop;
	atomic_int errors;
};

static void *q_race_creator(void *arg)
{
	struct q_race *r = arg;
	struct drm_m890_queue_create q;
	int i, ret;

	for (i = 0; i < RACE_ROUNDS; i++) {
		ret = queue_create(r->fd, &q);
		if (ret == -EBUSY)
			continue;
		if (ret) {
			atomic_fetch_add(&r->errors, 1);
			continue;
		}
		/* Hand the id over only once the last one was taken: no leak. */
		while (atomic_load(&r->id))
			sched_yield();
		atomic_store(&r->id, q.queue_id);
		drmSyncobjDestroy(r->fd, q.syncobj);
	}
	atomic_store(&r->stop, true);
	return NULL;
}

static void *q_race_destroyer(void *arg)
{
	struct q_race *r = arg;
	int ret;

	while (!atomic_load(&r->stop)) {
		__u32 id = atomic_exchange(&r->id, 0);

		if (!id)
			continue;
		ret = queue_destroy(r->fd, id);
		if (ret && ret != -ENOENT)
			atomic_fetch_add(&r->errors, 1);
	}
	return NULL;
}

/* Two threads race queue create against destroy; ids are never reused. */
TEST_F_TIMEOUT(two, race_queue_create_destroy, 300)
{
	struct drm_m890_queue_create q1, q2;
	struct q_race r = { .fd = self->a };
	pthread_t t1, t2;

	ASSERT_EQ(0, pthread_create(&t1, NULL, q_race_creator, &r));
	ASSERT_EQ(0, pthread_create(&t2, NULL, q_race_destroyer, &r));
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	EXPECT_EQ(0, atomic_load(&r.errors));
	if (atomic_load(&r.id))
		EXPECT_EQ(0, queue_destroy(self->a, atomic_load(&r.id)));

	/* A freed queue id is not handed out again right away. */
	ASSERT_EQ(0, queue_create(self->a, &q1));
	ASSERT_EQ(0, queue_destroy(self->a, q1.queue_id));
	ASSERT_EQ(0, queue_create(self->a, &q2));
	EXPECT_NE(q1.queue_id, q2.queue_id);
}

/* The job timeout fires while the queue is being destroyed. */
TEST_F_TIMEOUT(two, race_timeout_destroy, 300)
{
	struct drm_m890_queue_create q;
	struct drm_m890_bo_create sem;
	union m890_packet p;
	__u64 s;
	int i;

	SET_TIMEOUT(1);
	ASSERT_EQ(0, bo_create(self->a, 4096, DRM_M890_BO_HOST, &sem));
	pkt_wait(&p, sem.va, 1);
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(0, queue_create(self->a, &q));
		ASSERT_EQ(0, submit(self->a, q.queue_id, &p, 1, &s));
		usleep((i % 5) * 1000);
		ASSERT_EQ(0, queue_destroy(self->a, q.queue_id));
		ASSERT_EQ(0, wait_point(self->a, q.syncobj, s));
		EXPECT_GT(0, point_status(self->a, q.syncobj, s));
		drmSyncobjDestroy(self->a, q.syncobj);
	}
}

struct reset_race {
	int fd;
	__u32 queue;
	__u64 va;
	atomic_bool stop;
	atomic_int bad;
};

static void *reset_race_submitter(void *arg)
{
	struct reset_race *r = arg;
	union m890_packet p;
	int ret;

	pkt_fill(&p, r->va, 4096, 0x1);
	while (!atomic_load(&r->stop)) {
		ret = submit(r->fd, r->queue, &p, 1, NULL);
		if (ret == -EIO)
			break;	/* stopped by the reset, as documented */
		if (ret && ret != -EAGAIN)
			atomic_fetch_add(&r->bad, 1);
	}
	return NULL;
}

/* A device reset while another thread submits: submit stops with -EIO. */
TEST_F_TIMEOUT(two, race_reset_submit, 300)
{
	struct drm_m890_queue_create q;
	struct drm_m890_bo_create bo;
	struct reset_race r = { .fd = self->b };
	char path[128];
	pthread_t t;
	__u64 s;
	union m890_packet p;

	if (debugfs_path(self->a, "force_reset", path, sizeof(path)))
		SKIP(return, "no force_reset in debugfs");
	ASSERT_EQ(0, bo_create(self->b, 64 * 1024, DRM_M890_BO_HOST, &bo));
	ASSERT_EQ(0, queue_create(self->b, &q));
	r.queue = q.queue_id;
	r.va = bo.va;
	ASSERT_EQ(0, pthread_create(&t, NULL, reset_race_submitter, &r));
	usleep(50000);
	ASSERT_EQ(0, write_file(path, "1"));
	usleep(50000);
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	EXPECT_EQ(0, atomic_load(&r.bad));
	EXPECT_EQ(-EIO, queue_error(self->b, q.queue_id));

	ASSERT_EQ(0, queue_destroy(self->b, q.queue_id));
	ASSERT_EQ(0, queue_create(self->b, &q));
	pkt_fill(&p, bo.va, bo.size, 0x2);
	ASSERT_EQ(0, submit(self->b, q.queue_id, &p, 1, &s));
	ASSERT_EQ(0, wait_point(self->b, q.syncobj, s));
	EXPECT_EQ(1, point_status(self->b, q.syncobj, s));
}

/* ---- lifetime ---- */

/*
 * GEM_CLOSE of the BOs a job still uses: the job (held in a WAIT) keeps
 * them mapped, runs to completion once released and its data is right;
 * the HBM goes back only after the job is done.
 */
TEST_F_TIMEOUT(two, gem_close_while_job_runs, 120)
{
	struct drm_m890_bo_create sem, hbm, dst;
	struct drm_m890_queue_create q;
	union m890_packet p[3];
	long long base = hbm_used(self->a);
	volatile __u64 *msem;
	__u32 *mdst;
	__u64 s;

	ASSERT_EQ(0, bo_create(self->a, 4096, DRM_M890_BO_HOST, &sem));
	ASSERT_EQ(0, bo_create(self->a, 1 << 20, DRM_M890_BO_HBM, &hbm));
	ASSERT_EQ(0, bo_create(self->a, 1 << 20, DRM_M890_BO_HOST, &dst));
	msem = bo_map(self->a, &sem);
	mdst = bo_map(self->a, &dst);
	ASSERT_NE(NULL, msem);
	ASSERT_NE(NULL, mdst);
	ASSERT_EQ(0, queue_create(self->a, &q));

	pkt_wait(&p[0], sem.va, 1);
	pkt_fill(&p[1], hbm.va, hbm.size, 0xc105ed00);
	pkt_copy(&p[2], hbm.va, dst.va, dst.size);
	ASSERT_EQ(0, submit(self->a, q.queue_id, p, 3, &s));
	/* The job is parked in its WAIT; close the HBM BO it still has to use. */
	EXPECT_EQ(-ETIME, wait_point_ns(self->a, q.syncobj, s, 100 * 1000 * 1000));
	ASSERT_EQ(0, gem_close(self->a, hbm.handle));
	if (base >= 0)
		EXPECT_EQ(base + (1 << 20), hbm_used(self->a));

	*msem = 1;
	ASSERT_EQ(0, wait_point(self->a, q.syncobj, s));
	EXPECT_EQ(1, point_status(self->a, q.syncobj, s));
	EXPECT_EQ(0, queue_error(self->a, q.queue_id));
	EXPECT_TRUE(all_words(mdst, dst.size, 0xc105ed00));

	/* Once the job is done the BO goes (its release runs in a worker). */
	if (base >= 0) {
		for (int i = 0; i < 500 && hbm_used(self->a) != base; i++)
			usleep(10000);
		EXPECT_EQ(base, hbm_used(self->a));
	}
	munmap((void *)msem, sem.size);
	munmap(mdst, dst.size);
}

/*
 * The same for a BO imported from another file of the card: B closes its
 * handle while its job still has to write through B's mapping of it.  The
 * close returns at once, the job completes with the right data, and
 * importing again gets the same VA back; B's close then drops it all.
 */
TEST_F_TIMEOUT(two, gem_close_import_while_job_runs, 120)
{
	struct drm_m890_bo_create sem, hbm;
	struct drm_m890_queue_create q;
	struct drm_m890_bo_info bi, bi2;
	union m890_packet p[2];
	long long base = hbm_used(self->a);
	volatile __u64 *msem;
	__u32 *mh, h, h2;
	double t0;
	int dfd;
	__u64 s;

	ASSERT_EQ(0, bo_create(self->a, 1 << 20, DRM_M890_BO_HBM, &hbm));
	ASSERT_EQ(0, bo_create(self->b, 4096, DRM_M890_BO_HOST, &sem));
	mh = bo_map(self->a, &hbm);
	msem = bo_map(self->b, &sem);
	ASSERT_NE(NULL, mh);
	ASSERT_NE(NULL, msem);
	ASSERT_EQ(0, drmPrimeHandleToFD(self->a, hbm.handle, DRM_CLOEXEC, &dfd));
	ASSERT_EQ(0, drmPrimeFDToHandle(self->b, dfd, &h));
	ASSERT_EQ(0, bo_info(self->b, h, &bi));
	ASSERT_EQ(0, queue_create(self->b, &q));

	pkt_wait(&p[0], sem.va, 1);
	pkt_fill(&p[1], bi.va, bi.size, 0x1e0c105e);
	ASSERT_EQ(0, submit(self->b, q.queue_id, p, 2, &s));
	EXPECT_EQ(-ETIME, wait_point_ns(self->b, q.syncobj, s, 100 * 1000 * 1000));
	t0 = now_s();
	ASSERT_EQ(0, gem_close(self->b, h));
	EXPECT_GT(1.0, now_s() - t0);

	*msem = 1;
	ASSERT_EQ(0, wait_point(self->b, q.syncobj, s));
	EXPECT_EQ(1, point_status(self->b, q.syncobj, s));
	EXPECT_EQ(0, queue_error(self->b, q.queue_id));
	EXPECT_TRUE(all_words(mh, hbm.size, 0x1e0c105e));

	ASSERT_EQ(0, drmPrimeFDToHandle(self->b, dfd, &h2));
	ASSERT_EQ(0, bo_info(self->b, h2, &bi2));
	EXPECT_EQ(bi.va, bi2.va);

	/* Parked again; a parked mapping does not keep the BO: with A's
	 * handle, mapping and the dma-buf gone its HBM comes back while B
	 * is still open. */
	pkt_wait(&p[0], sem.va, 2);
	ASSERT_EQ(0, submit(self->b, q.queue_id, p, 2, &s));
	ASSERT_EQ(0, gem_close(self->b, h2));
	*msem = 2;
	ASSERT_EQ(0, wait_point(self->b, q.syncobj, s));
	EXPECT_EQ(1, point_status(self->b, q.syncobj, s));
	close(dfd);
	munmap(mh, hbm.size);
	ASSERT_EQ(0, gem_close(self->a, hbm.handle));
	if (base >= 0) {
		for (int i = 0; i < 500 && hbm_used(self->a) != base; i++)
			usleep(10000);
		EXPECT_EQ(base, hbm_used(self->a));
	}
	munmap((void *)msem, sem.size);
	close(self->b);
	self->b = -1;
}

struct ring_waiter {
	int fd;
	__u32 queue;
	int ret;
	double done;
};

static void *ring_waiter_run(void *arg)
{
	struct ring_waiter *w = arg;
	union m890_packet p;

	pkt_nop(&p);
	w->ret = submit(w->fd, w->queue, &p, 1, NULL);
	w->done = now_s();
	return NULL;
}

/*
 * A submitter blocked on a full ring does not delay the job timeout of
 * that queue: the hung job times out after one to two periods (not after
 * the submitter's 10 s ring wait), and the waiting submit then fails with
 * -EIO at once.
 */
TEST_F_TIMEOUT(two, ring_wait_does_not_delay_timeout, 120)
{
	struct drm_m890_device_info info;
	struct drm_m890_queue_create q;
	struct drm_m890_bo_create sem;
	struct ring_waiter w = { .fd = self->a };
	union m890_packet *p;
	__u32 i, fill;
	__u64 s;
	pthread_t t;
	double t0, dt;

	SET_TIMEOUT(1000);
	ASSERT_EQ(0, query_info(self->a, &info));
	ASSERT_EQ(0, bo_create(self->a, 4096, DRM_M890_BO_HOST, &sem));
	ASSERT_EQ(0, queue_create(self->a, &q));
	w.queue = q.queue_id;

	/* A WAIT that never ends (2 slots), then NOPs up to a full ring. */
	fill = info.max_submit_packets - 2;
	p = calloc(fill, sizeof(*p));
	ASSERT_NE(NULL, p);
	pkt_wait(&p[0], sem.va, 1);
	t0 = now_s();
	ASSERT_EQ(0, submit(self->a, q.queue_id, p, 1, &s));
	for (i = 0; i < fill; i++)
		pkt_nop(&p[i]);
	ASSERT_EQ(0, submit(self->a, q.queue_id, p, fill, NULL));
	free(p);

	/* This one finds no room and waits. */
	ASSERT_EQ(0, pthread_create(&t, NULL, ring_waiter_run, &w));
	ASSERT_EQ(0, wait_point(self->a, q.syncobj, s));
	dt = now_s() - t0;
	pthread_join(t, NULL);
	/* (A point followed by others loses its error in the timeline.) */
	EXPECT_EQ(-ETIMEDOUT, queue_error(self->a, q.queue_id));
	EXPECT_GT(6.0, dt) TH_LOG("timeout took %.1f s", dt);
	EXPECT_EQ(-EIO, w.ret);
	EXPECT_GT(6.0, w.done - t0);
}

/* ---- a BO shared between two files of one card ---- */

/*
 * A exports an HBM BO and a host BO; B imports them on the same card: B
 * gets handles with VAs of its own address space, its packets read and
 * write them, and A sees B's writes.  B keeps working after A closes.
 */
TEST_F_TIMEOUT(two, import_same_card, 120)
{
	struct drm_m890_bo_create ah, ahost, bdst;
	struct drm_m890_queue_create qb;
	struct drm_m890_bo_info ib, ibh;
	union m890_packet p[2];
	__u32 bh, bhost, *mah, *mbd, *mh;
	int fd_h, fd_host;
	size_t i;
	__u64 s;

	ASSERT_EQ(0, bo_create(self->a, 256 * 1024, DRM_M890_BO_HBM, &ah));
	ASSERT_EQ(0, bo_create(self->a, 64 * 1024, DRM_M890_BO_HOST, &ahost));
	ASSERT_EQ(0, bo_create(self->b, 256 * 1024, DRM_M890_BO_HOST, &bdst));
	mah = bo_map(self->a, &ah);
	mbd = bo_map(self->b, &bdst);
	ASSERT_NE(NULL, mah);
	ASSERT_NE(NULL, mbd);
	for (i = 0; i < ah.size / 4; i++)
		mah[i] = 0xa0000000u + i;

	ASSERT_EQ(0, drmPrimeHandleToFD(self->a, ah.handle, DRM_CLOEXEC, &fd_h));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->a, ahost.handle, DRM_CLOEXEC, &fd_host));
	ASSERT_EQ(0, drmPrimeFDToHandle(self->b, fd_h, &bh));
	ASSERT_EQ(0, drmPrimeFDToHandle(self->b, fd_host, &bhost));
	close(fd_h);
	close(fd_host);

	ASSERT_EQ(0, bo_info(self->b, bh, &ib));
	ASSERT_EQ(0, bo_info(self->b, bhost, &ibh));
	EXPECT_EQ(DRM_M890_BO_HBM, ib.flags);
	EXPECT_EQ(DRM_M890_BO_HOST, ibh.flags);
	EXPECT_NE(0, ib.va);
	EXPECT_NE(0, ibh.va);
	EXPECT_FALSE(ranges_overlap(ib.va, ib.size, bdst.va, bdst.size));
	EXPECT_FALSE(ranges_overlap(ibh.va, ibh.size, bdst.va, bdst.size));

	/* B's packets: copy A's data out, then fill the shared host BO. */
	ASSERT_EQ(0, queue_create(self->b, &qb));
	pkt_copy(&p[0], ib.va, bdst.va, ib.size);
	pkt_fill(&p[1], ibh.va, ibh.size, 0xbeefb0b0);
	ASSERT_EQ(0, submit(self->b, qb.queue_id, p, 2, &s));
	ASSERT_EQ(0, wait_point(self->b, qb.syncobj, s));
	ASSERT_EQ(1, point_status(self->b, qb.syncobj, s));
	for (i = 0; i < ah.size / 4 && mbd[i] == 0xa0000000u + i; i++)
		;
	EXPECT_EQ(ah.size / 4, i) TH_LOG("first wrong word %zu", i);
	mh = bo_map(self->a, &ahost);
	ASSERT_NE(NULL, mh);
	EXPECT_TRUE(all_words(mh, ahost.size, 0xbeefb0b0));
	munmap(mh, ahost.size);

	/* A goes away entirely; B's mapping of the BO stays. */
	munmap(mah, ah.size);
	close(self->a);
	self->a = -1;
	pkt_fill(&p[0], ib.va, ib.size, 0x5a5a5a5a);
	pkt_copy(&p[1], ib.va, bdst.va, ib.size);
	ASSERT_EQ(0, submit(self->b, qb.queue_id, p, 2, &s));
	ASSERT_EQ(0, wait_point(self->b, qb.syncobj, s));
	EXPECT_EQ(1, point_status(self->b, qb.syncobj, s));
	EXPECT_TRUE(all_words(mbd, ib.size, 0x5a5a5a5a));
	munmap(mbd, bdst.size);
}

/* ---- 2 MiB pages ---- */

/*
 * An HBM BO of 4 MiB or more is placed 2 MiB aligned in HBM and in the VA
 * space and mapped with 2 MiB PTEs (debugfs "bos" counts them); packets
 * reach every byte of it, across the 2 MiB boundaries.  A small BO uses
 * 4 KiB PTEs only.  A BO created after a freed one (same VA and HBM range
 * likely) reads back zeros, not stale translations.
 */
TEST_F_TIMEOUT(two, large_pages, 120)
{
	struct drm_m890_bo_create big, small, host, big2;
	struct drm_m890_queue_create q;
	union m890_packet p[3];
	__u32 *mb, *mh;
	__u64 s;

	char path[128];

	if (debugfs_path(self->a, "bos", path, sizeof(path)))
		SKIP(return, "no bos file in debugfs");
	ASSERT_EQ(0, bo_create(self->a, 6 << 20, DRM_M890_BO_HBM, &big));
	ASSERT_EQ(0, bo_create(self->a, 64 * 1024, DRM_M890_BO_HBM, &small));
	ASSERT_EQ(0, bo_create(self->a, 64 * 1024, DRM_M890_BO_HOST, &host));
	EXPECT_EQ(0, big.va % (2 << 20));
	EXPECT_EQ(3, bo_large_ptes(self->a, big.handle));
	EXPECT_EQ(0, bo_large_ptes(self->a, small.handle));

	mb = bo_map(self->a, &big);
	mh = bo_map(self->a, &host);
	ASSERT_NE(NULL, mb);
	ASSERT_NE(NULL, mh);
	ASSERT_EQ(0, queue_create(self->a, &q));
	/* Fill all, then move data across each 2 MiB boundary. */
	pkt_fill(&p[0], big.va, big.size, 0x1a12e000);
	pkt_fill(&p[1], host.va, host.size, 0x0b0e0c0d);
	pkt_copy(&p[2], host.va, big.va + (2 << 20) - 32 * 1024, host.size);
	ASSERT_EQ(0, submit(self->a, q.queue_id, p, 3, &s));
	pkt_copy(&p[0], host.va, big.va + (4 << 20) - 32 * 1024, host.size);
	pkt_copy(&p[1], big.va + (2 << 20) - 32 * 1024, host.va, host.size);
	ASSERT_EQ(0, submit(self->a, q.queue_id, p, 2, &s));
	ASSERT_EQ(0, wait_point(self->a, q.syncobj, s));
	ASSERT_EQ(1, point_status(self->a, q.syncobj, s));
	EXPECT_TRUE(all_words(mh, host.size, 0x0b0e0c0d));
	EXPECT_TRUE(all_words(mb, (2 << 20) - 32 * 1024, 0x1a12e000));
	EXPECT_TRUE(all_words(mb + ((2 << 20) - 32 * 1024) / 4, 64 * 1024, 0x0b0e0c0d));
	EXPECT_TRUE(all_words(mb + ((2 << 20) + 32 * 1024) / 4,
			      (2 << 20) - 64 * 1024, 0x1a12e000));
	EXPECT_TRUE(all_words(mb + ((4 << 20) - 32 * 1024) / 4, 64 * 1024, 0x0b0e0c0d));
	EXPECT_TRUE(all_words(mb + ((4 << 20) + 32 * 1024) / 4,
			      (2 << 20) - 32 * 1024, 0x1a12e000));
	munmap(mb, big.size);

	/* Unmapped with invalidation: a new BO in its place reads zeros. */
	ASSERT_EQ(0, gem_close(self->a, big.handle));
	ASSERT_EQ(0, bo_create(self->a, 6 << 20, DRM_M890_BO_HBM, &big2));
	EXPECT_EQ(3, bo_large_ptes(self->a, big2.handle));
	pkt_copy(&p[0], big2.va + (4 << 20) - 32 * 1024, host.va, host.size);
	ASSERT_EQ(0, submit(self->a, q.queue_id, p, 1, &s));
	ASSERT_EQ(0, wait_point(self->a, q.syncobj, s));
	ASSERT_EQ(1, point_status(self->a, q.syncobj, s));
	EXPECT_TRUE(all_words(mh, host.size, 0));
	munmap(mh, host.size);
}

/*
 * VA space where 4 KiB mappings were (their tables stay) is reused by a
 * 2 MiB BO: it still gets a 2 MiB PTE, and packets reach all of it.
 */
TEST_F_TIMEOUT(two, large_page_over_old_small_mappings, 120)
{
	struct drm_m890_bo_create small[8], big;
	struct drm_m890_queue_create q;
	union m890_packet p;
	char path[128];
	__u64 s, lo = ~0ull;
	__u32 *m;
	int i;

	if (debugfs_path(self->a, "bos", path, sizeof(path)))
		SKIP(return, "no bos file in debugfs");
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, bo_create(self->a, 64 * 1024, DRM_M890_BO_HBM, &small[i]));
		if (small[i].va < lo)
			lo = small[i].va;
	}
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, gem_close(self->a, small[i].handle));
	ASSERT_EQ(0, bo_create(self->a, 2 << 20, DRM_M890_BO_HBM, &big));
	EXPECT_EQ(lo & ~((2ull << 20) - 1), big.va) TH_LOG("VA not reused, test is moot");
	EXPECT_EQ(1, bo_large_ptes(self->a, big.handle));
	m = bo_map(self->a, &big);
	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, queue_create(self->a, &q));
	pkt_fill(&p, big.va, big.size, 0x2a2a2a2a);
	ASSERT_EQ(0, submit(self->a, q.queue_id, &p, 1, &s));
	ASSERT_EQ(0, wait_point(self->a, q.syncobj, s));
	EXPECT_EQ(1, point_status(self->a, q.syncobj, s));
	EXPECT_TRUE(all_words(m, big.size, 0x2a2a2a2a));
	munmap(m, big.size);
}

/* ---- per-user limits (module parameters, -EDQUOT) ---- */

#define PARAM_DIR	"/sys/module/m890/parameters/"
#define NOBODY		65534

static const char *const limit_names[] = {
	"host_mb_per_user", "queues_per_user", "contexts_per_user",
};

enum { LIMIT_HOST, LIMIT_QUEUES, LIMIT_CONTEXTS, LIMIT_COUNT };

/*
 * The node the limits tests use: card 0's is accel0 at boot, but the
 * unbind tests before them bind it again while a client still holds the
 * old minor, so it comes back under another; take the first one there is.
 */
static char limits_node[32];

static int find_node(void)
{
	int i;

	for (i = 0; i < 64; i++) {
		snprintf(limits_node, sizeof(limits_node), "/dev/accel/accel%d", i);
		if (!access(limits_node, F_OK))
			return 0;
	}
	snprintf(limits_node, sizeof(limits_node), "%s", ACCEL0);
	return -ENOENT;
}

/*
 * Run @fn on a file of limits_node that user nobody opened, in a child
 * (the node is made world-writable meanwhile): @fn's return value, 1 when
 * the node cannot be opened, 3 when the user cannot be changed, -1 when
 * no child ran.
 */
static int as_nobody(int (*fn)(int fd))
{
	int status = -1, ret;
	struct stat st;
	pid_t pid;

	if (stat(limits_node, &st) || chmod(limits_node, 0666))
		return -1;
	pid = fork();
	if (!pid) {
		int fd;

		if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
			_exit(3);
		fd = open(limits_node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(1);
		ret = fn(fd);
		close(fd);
		_exit(ret);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		status = -1;
	else
		status = WEXITSTATUS(status);
	chmod(limits_node, st.st_mode & 07777);
	return status;
}

FIXTURE(limits) {
	int a, b;
	char old[LIMIT_COUNT][32];
	bool set[LIMIT_COUNT];
};

static int limit_path(int which, char *path, size_t len)
{
	return snprintf(path, len, PARAM_DIR "%s", limit_names[which]) < (int)len ? 0 : -EINVAL;
}

FIXTURE_SETUP(limits)
{
	char path[128];
	int i;

	memset(self->set, 0, sizeof(self->set));
	self->b = -1;
	find_node();
	self->a = open(limits_node, O_RDWR | O_CLOEXEC);
	if (self->a < 0)
		SKIP(return, "%s: %s", limits_node, strerror(errno));
	/* Every limit is a parameter with a value (none before the limits). */
	for (i = 0; i < LIMIT_COUNT; i++) {
		ASSERT_EQ(0, limit_path(i, path, sizeof(path)));
		ASSERT_EQ(0, read_file(path, self->old[i], sizeof(self->old[i])))
			TH_LOG("%s", path);
		self->old[i][strcspn(self->old[i], "\n")] = '\0';
	}
	self->b = open(limits_node, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->b);
}

FIXTURE_TEARDOWN(limits)
{
	char path[128];
	int i;

	for (i = 0; i < LIMIT_COUNT; i++)
		if (self->set[i] && !limit_path(i, path, sizeof(path)))
			write_file(path, self->old[i]);
	if (self->a >= 0)
		close(self->a);
	if (self->b >= 0)
		close(self->b);
}

/* Set limit @which to @val for this test; restored by the teardown. */
#define SET_LIMIT(which, val) do {						\
	char _p[128];								\
	ASSERT_EQ(0, limit_path(which, _p, sizeof(_p)));			\
	ASSERT_EQ(0, write_file(_p, val)) TH_LOG("%s", _p);			\
	self->set[which] = true;						\
} while (0)

/* A 4 MiB host BO and a queue for nobody (the limits' "another user"). */
static int nobody_host_4m(int fd)
{
	struct drm_m890_bo_create bo;

	return bo_create(fd, 4 << 20, DRM_M890_BO_HOST, &bo) ? 10 : 0;
}

static int nobody_queue(int fd)
{
	struct drm_m890_queue_create q;

	return queue_create(fd, &q) ? 10 : 0;
}

/*
 * host_mb_per_user bounds the host memory the BOs of one user's files of
 * the card pin together: past it BO_CREATE fails with -EDQUOT, also in
 * a second file of the same process; another user has its own budget,
 * HBM BOs do not count, a freed BO gives its bytes back and 0 lifts the
 * limit.
 */
TEST_F_TIMEOUT(limits, host_bytes_per_user, 120)
{
	struct drm_m890_bo_create b1, b2, b3, bo;

	SET_LIMIT(LIMIT_HOST, "4");
	ASSERT_EQ(0, bo_create(self->a, 3 << 20, DRM_M890_BO_HOST, &b1));
	EXPECT_EQ(-EDQUOT, bo_create(self->a, 2 << 20, DRM_M890_BO_HOST, &bo));
	/* The process's second file shares the budget. */
	EXPECT_EQ(-EDQUOT, bo_create(self->b, 2 << 20, DRM_M890_BO_HOST, &bo));
	ASSERT_EQ(0, bo_create(self->b, 1 << 20, DRM_M890_BO_HOST, &b2));
	EXPECT_EQ(-EDQUOT, bo_create(self->a, 4096, DRM_M890_BO_HOST, &bo));
	EXPECT_EQ(-EDQUOT, bo_create(self->b, 4096, DRM_M890_BO_HOST, &bo));
	/* Another user has its own budget; HBM is not host memory. */
	EXPECT_EQ(0, as_nobody(nobody_host_4m));
	ASSERT_EQ(0, bo_create(self->a, 4 << 20, DRM_M890_BO_HBM, &bo));
	/* A freed BO no longer counts, whichever file frees it. */
	ASSERT_EQ(0, gem_close(self->a, b1.handle));
	ASSERT_EQ(0, bo_create(self->b, 3 << 20, DRM_M890_BO_HOST, &b3));
	EXPECT_EQ(-EDQUOT, bo_create(self->a, 4096, DRM_M890_BO_HOST, &bo));
	/* A lowered limit keeps what is held; 0 is no limit. */
	SET_LIMIT(LIMIT_HOST, "1");
	EXPECT_EQ(-EDQUOT, bo_create(self->a, 4096, DRM_M890_BO_HOST, &bo));
	SET_LIMIT(LIMIT_HOST, "0");
	EXPECT_EQ(0, bo_create(self->a, 8 << 20, DRM_M890_BO_HOST, &bo));
	EXPECT_EQ(0, gem_close(self->b, b2.handle));
	EXPECT_EQ(0, gem_close(self->b, b3.handle));
}

/*
 * queues_per_user bounds the queues one user's files of the card own
 * (-EDQUOT), in a second file of the same process too, leaving the
 * card's other queues to other users; a destroyed queue gives its place
 * back.
 */
TEST_F_TIMEOUT(limits, queues_per_user, 120)
{
	struct drm_m890_queue_create qa[2], qb[2];
	struct drm_m890_device_info info;

	ASSERT_EQ(0, query_info(self->a, &info));
	if (info.num_queues < 3)
		SKIP(return, "card has %u queues", info.num_queues);
	SET_LIMIT(LIMIT_QUEUES, "2");
	ASSERT_EQ(0, queue_create(self->a, &qa[0]));
	ASSERT_EQ(0, queue_create(self->b, &qb[0]));
	/* Two files of one process: one budget. */
	EXPECT_EQ(-EDQUOT, queue_create(self->a, &qa[1]));
	EXPECT_EQ(-EDQUOT, queue_create(self->b, &qb[1]));
	/* Another user still gets a queue. */
	EXPECT_EQ(0, as_nobody(nobody_queue));
	EXPECT_EQ(0, queue_destroy(self->a, qa[0].queue_id));
	ASSERT_EQ(0, queue_create(self->b, &qb[1]));
	EXPECT_EQ(-EDQUOT, queue_create(self->a, &qa[0]));
	EXPECT_EQ(0, queue_destroy(self->b, qb[0].queue_id));
	EXPECT_EQ(0, queue_destroy(self->b, qb[1].queue_id));
}

/*
 * The names of 1.5 (host_mb_per_file, queues_per_file) set the same
 * parameters as the new ones.
 */
TEST_F_TIMEOUT(limits, deprecated_names, 60)
{
	static const char *const old_names[] = { "host_mb_per_file", "queues_per_file" };
	char path[128], val[32], was[32];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), PARAM_DIR "%s", old_names[i]);
		ASSERT_EQ(0, read_file(path, was, sizeof(was))) TH_LOG("%s", path);
		SET_LIMIT(i, "3");
		ASSERT_EQ(0, read_file(path, val, sizeof(val)));
		EXPECT_EQ(3, atoi(val)) TH_LOG("%s", path);
		ASSERT_EQ(0, write_file(path, "5"));
		ASSERT_EQ(0, limit_path(i, path, sizeof(path)));
		ASSERT_EQ(0, read_file(path, val, sizeof(val)));
		EXPECT_EQ(5, atoi(val)) TH_LOG("%s", path);
	}
}

/* Open files of the card (one line per file in debugfs "contexts"). */
static int card_contexts(int fd)
{
	char path[128], *buf, *p;
	int n = -1;

	if (debugfs_path(fd, "contexts", path, sizeof(path)))
		return -1;
	buf = malloc(1 << 16);
	if (buf && !read_file(path, buf, 1 << 16))
		for (n = 0, p = buf; (p = strstr(p, "asid ")); p++)
			n++;
	free(buf);
	return n;
}

/*
 * contexts_per_user bounds the files (ASIDs) one user holds on a card:
 * past it open() fails with EDQUOT; a close gives the ASID back, and
 * another user is not affected.  The guest tests run as root, alone on
 * the card, so every open file of the card is this user's.
 */
static int nobody_open(int fd)
{
	return fd < 0;
}

TEST_F_TIMEOUT(limits, contexts_per_user, 120)
{
	int fds[4], n, i;
	char val[16];

	n = card_contexts(self->a);
	if (n < 2)
		SKIP(return, "no debugfs \"contexts\"");
	snprintf(val, sizeof(val), "%d", n + 2);
	SET_LIMIT(LIMIT_CONTEXTS, val);
	fds[0] = open(limits_node, O_RDWR | O_CLOEXEC);
	fds[1] = open(limits_node, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fds[0]);
	ASSERT_LE(0, fds[1]);
	fds[2] = open(limits_node, O_RDWR | O_CLOEXEC);
	EXPECT_EQ(-1, fds[2]);
	EXPECT_EQ(EDQUOT, errno);
	if (fds[2] >= 0)
		close(fds[2]);

	/* Another user (nobody) still gets a context. */
	EXPECT_EQ(0, as_nobody(nobody_open));

	close(fds[1]);
	fds[1] = open(limits_node, O_RDWR | O_CLOEXEC);
	EXPECT_LE(0, fds[1]);
	SET_LIMIT(LIMIT_CONTEXTS, "0");
	fds[2] = open(limits_node, O_RDWR | O_CLOEXEC);
	EXPECT_LE(0, fds[2]);
	for (i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* ---- device reset and FLR with 64 jobs in flight ---- */

#define RESET_JOBS	64

/*
 * RESET_DEVCTL: an FLR the PCI core does not know of, started by setting
 * the Initiate FLR bit of the PCIe Device Control register through the
 * card's config space (as the card's own DMA into ECAM could); the driver
 * must notice it and recover on its own.
 */
enum reset_kind { RESET_DEBUGFS, RESET_FLR, RESET_DEVCTL };

#define PCI_CFG_CAP_PTR		0x34
#define PCI_CFG_CAP_ID_EXP	0x10
#define PCI_CFG_EXP_DEVCTL	8
#define PCI_CFG_DEVCTL_FLR	0x8000

/* Set DEVCTL's FLR bit of the card at @bdf; 1 when it has no PCIe cap. */
static int devctl_flr(const char *bdf)
{
	__u8 cfg[256];
	__u16 ctl;
	char path[160];
	unsigned int pos, hops;
	int fd, ret = 1;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, cfg, sizeof(cfg), 0) != (ssize_t)sizeof(cfg)) {
		close(fd);
		return -EIO;
	}
	for (pos = cfg[PCI_CFG_CAP_PTR] & ~3u, hops = 0; pos >= 0x40 && pos < 0xfc && hops < 48;
	     pos = cfg[pos + 1] & ~3u, hops++) {
		if (cfg[pos] != PCI_CFG_CAP_ID_EXP)
			continue;
		memcpy(&ctl, &cfg[pos + PCI_CFG_EXP_DEVCTL], sizeof(ctl));
		ctl |= PCI_CFG_DEVCTL_FLR;
		ret = pwrite(fd, &ctl, sizeof(ctl), pos + PCI_CFG_EXP_DEVCTL) == sizeof(ctl) ?
		      0 : -errno;
		break;
	}
	close(fd);
	return ret;
}

/* Reset the card behind @fd; 1 when this kind of reset is not available. */
static int do_reset(int fd, enum reset_kind kind)
{
	char path[160], bdf[64];
	int ret;

	if (kind == RESET_DEBUGFS) {
		if (debugfs_path(fd, "force_reset", path, sizeof(path)))
			return 1;
		return write_file(path, "1");
	}
	ret = card_bdf(fd, bdf, sizeof(bdf));
	if (ret)
		return ret;
	if (kind == RESET_DEVCTL)
		return devctl_flr(bdf);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset_method", bdf);
	if (access(path, W_OK) || write_file(path, "flr"))
		return 1;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset", bdf);
	return write_file(path, "1");
}

/*
 * 64 jobs of A (on two queues) and one of B, all held in WAITs, when the
 * card is reset: every point fails with -EIO, the queues stay stopped,
 * HBM contents survive, and new queues of both clients run work through
 * the old mappings.
 */
static void reset_with_jobs(struct __test_metadata *_metadata, int a, int b,
			    enum reset_kind kind)
{
	struct drm_m890_queue_create qa[2], qb;
	struct drm_m890_bo_create sa, sb, ha, hb;
	union m890_packet p[2];
	__u64 pa[RESET_JOBS], pb;
	__u32 *ma, *mb;
	int i, ret;

	ASSERT_EQ(0, bo_create(a, 4096, DRM_M890_BO_HOST, &sa));
	ASSERT_EQ(0, bo_create(b, 4096, DRM_M890_BO_HOST, &sb));
	ASSERT_EQ(0, bo_create(a, 1 << 20, DRM_M890_BO_HBM, &ha));
	ASSERT_EQ(0, bo_create(b, 64 * 1024, DRM_M890_BO_HBM, &hb));
	ma = bo_map(a, &ha);
	mb = bo_map(b, &hb);
	ASSERT_NE(NULL, ma);
	ASSERT_NE(NULL, mb);
	ASSERT_EQ(0, queue_create(a, &qa[0]));
	ASSERT_EQ(0, queue_create(a, &qa[1]));
	ASSERT_EQ(0, queue_create(b, &qb));

	pkt_fill(&p[0], hb.va, hb.size, 0x5555aaaa);
	pkt_wait(&p[1], sb.va, 1);
	ASSERT_EQ(0, submit(b, qb.queue_id, p, 2, &pb));
	pkt_fill(&p[0], ha.va, ha.size, 0xaaaa5555);
	ASSERT_EQ(0, submit(a, qa[0].queue_id, p, 1, &pa[0]));
	ASSERT_EQ(0, wait_point(a, qa[0].syncobj, pa[0]));
	for (i = 0; i < RESET_JOBS; i++) {
		pkt_wait(&p[0], sa.va, 1);
		pkt_copy(&p[1], ha.va, ha.va + ha.size / 2, ha.size / 2);
		ASSERT_EQ(0, submit(a, qa[i % 2].queue_id, p, 2, &pa[i]));
	}
	for (i = 0; i < 1000 && !all_words(mb, hb.size, 0x5555aaaa); i++)
		usleep(10000);
	ASSERT_TRUE(all_words(mb, hb.size, 0x5555aaaa));

	ret = do_reset(a, kind);
	if (ret == 1)
		SKIP(return, "this reset is not available");
	ASSERT_EQ(0, ret);

	/*
	 * Every point signals; the error is read from the last point of each
	 * queue (earlier points of a timeline lose theirs once later points
	 * exist) and from the queue state.
	 */
	for (i = 0; i < RESET_JOBS; i++)
		ASSERT_EQ(0, wait_point(a, qa[i % 2].syncobj, pa[i])) TH_LOG("job %d", i);
	EXPECT_EQ(-EIO, point_status(a, qa[0].syncobj, pa[RESET_JOBS - 2]));
	EXPECT_EQ(-EIO, point_status(a, qa[1].syncobj, pa[RESET_JOBS - 1]));
	ASSERT_EQ(0, wait_point(b, qb.syncobj, pb));
	EXPECT_EQ(-EIO, point_status(b, qb.syncobj, pb));
	EXPECT_EQ(-EIO, queue_error(a, qa[0].queue_id));
	EXPECT_EQ(-EIO, queue_error(a, qa[1].queue_id));
	EXPECT_EQ(-EIO, queue_error(b, qb.queue_id));
	pkt_nop(&p[0]);
	EXPECT_EQ(-EIO, submit(a, qa[0].queue_id, p, 1, NULL));
	EXPECT_TRUE(all_words(ma, ha.size, 0xaaaa5555));
	EXPECT_TRUE(all_words(mb, hb.size, 0x5555aaaa));

	/* New queues, old mappings. */
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, queue_destroy(a, qa[i].queue_id));
	EXPECT_EQ(0, queue_destroy(b, qb.queue_id));
	ASSERT_EQ(0, queue_create(a, &qa[0]));
	ASSERT_EQ(0, queue_create(b, &qb));
	pkt_fill(&p[0], ha.va, ha.size / 2, 0x12345678);
	pkt_copy(&p[1], ha.va, ha.va + ha.size / 2, ha.size / 2);
	ASSERT_EQ(0, submit(a, qa[0].queue_id, p, 2, &pa[0]));
	pkt_fill(&p[0], hb.va, hb.size, 0x87654321);
	ASSERT_EQ(0, submit(b, qb.queue_id, p, 1, &pb));
	ASSERT_EQ(0, wait_point(a, qa[0].syncobj, pa[0]));
	ASSERT_EQ(0, wait_point(b, qb.syncobj, pb));
	EXPECT_EQ(1, point_status(a, qa[0].syncobj, pa[0]));
	EXPECT_EQ(1, point_status(b, qb.syncobj, pb));
	EXPECT_TRUE(all_words(ma, ha.size, 0x12345678));
	EXPECT_TRUE(all_words(mb, hb.size, 0x87654321));
	munmap(ma, ha.size);
	munmap(mb, hb.size);
}

TEST_F_TIMEOUT(two, force_reset_64_jobs, 180)
{
	SET_TIMEOUT(0);	/* only the reset may end the WAITs */
	reset_with_jobs(_metadata, self->a, self->b, RESET_DEBUGFS);
}

TEST_F_TIMEOUT(two, flr_64_jobs, 180)
{
	SET_TIMEOUT(0);
	reset_with_jobs(_metadata, self->a, self->b, RESET_FLR);
}

/*
 * The same with an FLR behind the driver's back (DEVCTL written directly):
 * the job timeout's next check (every job_timeout_ms, here 1 s, well
 * before the jobs would time out) finds the card reset, restores its
 * config space and recovers as from a driver reset, so every job fails
 * with -EIO, not -ETIMEDOUT, and new queues work.
 */
TEST_F_TIMEOUT(two, devctl_flr_64_jobs, 180)
{
	SET_TIMEOUT(1000);
	reset_with_jobs(_metadata, self->a, self->b, RESET_DEVCTL);
}

/* ---- driver unbind with a client open (last: the card is re-bound) ---- */

#define M890_DRIVER_SYSFS	"/sys/bus/pci/drivers/m890"

/*
 * Unbinding the driver from card 0 while A has jobs in flight and an HBM
 * BO mapped: A's jobs fail with -ENODEV, its ioctls too, touching the
 * mapping neither kills A nor reaches the card (a zeroed page that keeps
 * A's writes); after A closes, binding the driver again gives a working
 * card.
 */
TEST_F_TIMEOUT(two, unbind_with_client_open, 120)
{
	struct drm_m890_bo_create hbm, sem, tmp;
	struct drm_m890_queue_create q;
	union m890_packet p[2];
	char bdf[64], path[128];
	volatile __u32 *m;
	__u64 s;
	int sfd, i, fd;

	if (access(M890_DRIVER_SYSFS "/unbind", W_OK))
		SKIP(return, "cannot unbind the driver");
	ASSERT_EQ(0, card_bdf(self->a, bdf, sizeof(bdf)));
	ASSERT_EQ(0, bo_create(self->a, 1 << 20, DRM_M890_BO_HBM, &hbm));
	ASSERT_EQ(0, bo_create(self->a, 4096, DRM_M890_BO_HOST, &sem));
	m = bo_map(self->a, &hbm);
	ASSERT_NE(NULL, m);
	for (i = 0; i < 1024; i++)
		m[i] = 0xfeed0000u + i;
	ASSERT_EQ(0, queue_create(self->a, &q));
	for (i = 0; i < 8; i++) {
		pkt_wait(&p[0], sem.va, 1);
		pkt_fill(&p[1], hbm.va, hbm.size, 0x0bad0bad);
		ASSERT_EQ(0, submit(self->a, q.queue_id, p, 2, &s));
	}
	sfd = sync_file_of_point(self->a, q.syncobj, s);
	ASSERT_LE(0, sfd);
	EXPECT_EQ(0, sync_file_result(sfd, 0));
	close(self->b);
	self->b = -1;

	/* Synchronous: returns once the driver's remove has run. */
	ASSERT_EQ(0, write_file(M890_DRIVER_SYSFS "/unbind", bdf));
	EXPECT_EQ(-ENODEV, sync_file_result(sfd, 30 * 1000));
	close(sfd);
	EXPECT_EQ(-ENODEV, submit(self->a, q.queue_id, p, 1, NULL));
	EXPECT_EQ(-ENODEV, bo_create(self->a, 4096, DRM_M890_BO_HOST, &tmp));
	EXPECT_EQ(0, m[0]);
	EXPECT_EQ(0, m[1023]);
	m[7] = 0x600d;
	EXPECT_EQ(0x600d, m[7]);
	munmap((void *)m, hbm.size);
	EXPECT_EQ(0, close(self->a));
	self->a = -1;

	/* Bind again: the node comes back (polled, bounded) and works. */
	ASSERT_EQ(0, write_file(M890_DRIVER_SYSFS "/bind", bdf));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/accel", bdf);
	for (i = 0; i < 300 && access(path, F_OK); i++)
		usleep(100 * 1000);
	ASSERT_EQ(0, access(path, F_OK));
	fd = open(ACCEL0, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, card_bdf(fd, path, sizeof(path)));
	EXPECT_STREQ(bdf, path);
	ASSERT_EQ(0, bo_create(fd, 64 * 1024, DRM_M890_BO_HOST, &tmp));
	ASSERT_EQ(0, queue_create(fd, &q));
	pkt_fill(&p[0], tmp.va, tmp.size, 0x7e57);
	ASSERT_EQ(0, submit(fd, q.queue_id, p, 1, &s));
	ASSERT_EQ(0, wait_point(fd, q.syncobj, s));
	EXPECT_EQ(1, point_status(fd, q.syncobj, s));
	close(fd);
}

/* SUnreclaim of /proc/meminfo in KiB, or -1. */
static long sunreclaim_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Opening the card, importing a dma-buf of another file's BO and closing
 * again must leave nothing behind: the importer's mapping and context go
 * with the file, not with the BO (which the dma-buf keeps alive here).
 * Each round used to keep the file's page tables, about 28 KiB of
 * unreclaimable kernel memory; 2000 rounds must stay within 8 MiB.
 */
TEST_F_TIMEOUT(two, import_close_loop_keeps_nothing, 600)
{
	struct drm_m890_bo_create bo;
	long before = -1, after;
	int dfd, fd, i;
	__u32 h;

	ASSERT_EQ(0, bo_create(self->a, 64 * 1024, DRM_M890_BO_HBM, &bo));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->a, bo.handle, DRM_CLOEXEC, &dfd));
	for (i = 0; i < 2100; i++) {
		if (i == 100) {
			/* Warm caches and slabs first. */
			before = sunreclaim_kb();
			ASSERT_LT(0, before);
		}
		fd = open(ACCEL0, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, drmPrimeFDToHandle(fd, dfd, &h));
		close(fd);
	}
	after = sunreclaim_kb();
	close(dfd);
	EXPECT_GT(8 * 1024, after - before)
		TH_LOG("SUnreclaim grew by %ld KiB over 2000 rounds", after - before);
}

/*
 * A peer window into card 0's HBM dies with card 0's driver instance:
 * after an unbind and bind, a new client of card 0 gets the same HBM
 * range from the fresh allocator, and a FILL through the old window on
 * card 1 must fault there (job error), not overwrite that client's data.
 */
TEST_F_TIMEOUT(two, peer_window_revoked_on_unbind, 120)
{
	struct drm_m890_bo_create x, y;
	struct drm_m890_queue_create q;
	struct drm_m890_bo_info wi;
	char bdf[64], other[64], path[128];
	union m890_packet p;
	volatile __u32 *my;
	int fd1, dfd, fdq = -1, i;
	__u32 wh;
	__u64 s;

	if (access(M890_DRIVER_SYSFS "/unbind", W_OK))
		SKIP(return, "cannot unbind the driver");
	fd1 = open("/dev/accel/accel1", O_RDWR | O_CLOEXEC);
	if (fd1 < 0)
		SKIP(return, "needs a second card");
	ASSERT_EQ(0, card_bdf(self->a, bdf, sizeof(bdf)));
	ASSERT_EQ(0, bo_create(self->a, 1 << 20, DRM_M890_BO_HBM, &x));
	ASSERT_EQ(0, drmPrimeHandleToFD(self->a, x.handle, DRM_CLOEXEC, &dfd));
	ASSERT_EQ(0, drmPrimeFDToHandle(fd1, dfd, &wh));
	close(dfd);
	ASSERT_EQ(0, bo_info(fd1, wh, &wi));
	ASSERT_EQ(DRM_M890_BO_HBM | DRM_M890_BO_PEER, wi.flags);
	close(self->a);
	self->a = -1;
	close(self->b);
	self->b = -1;

	ASSERT_EQ(0, write_file(M890_DRIVER_SYSFS "/unbind", bdf));
	ASSERT_EQ(0, write_file(M890_DRIVER_SYSFS "/bind", bdf));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/accel", bdf);
	for (i = 0; i < 300 && access(path, F_OK); i++)
		usleep(100 * 1000);
	ASSERT_EQ(0, access(path, F_OK));
	for (i = 0; i < 64 && fdq < 0; i++) {
		snprintf(path, sizeof(path), "/dev/accel/accel%d", i);
		fdq = open(path, O_RDWR | O_CLOEXEC);
		if (fdq >= 0 && (card_bdf(fdq, other, sizeof(other)) || strcmp(other, bdf))) {
			close(fdq);
			fdq = -1;
		}
	}
	ASSERT_LE(0, fdq);

	/* The new client's BO, filled through its CPU mapping. */
	ASSERT_EQ(0, bo_create(fdq, 64 * 1024, DRM_M890_BO_HBM, &y));
	my = bo_map(fdq, &y);
	ASSERT_NE(NULL, my);
	for (i = 0; i < (int)(y.size / 4); i++)
		my[i] = 0x11111111;

	ASSERT_EQ(0, queue_create(fd1, &q));
	pkt_fill(&p, wi.va, wi.size, 0xdeadbeef);
	ASSERT_EQ(0, submit(fd1, q.queue_id, &p, 1, &s));
	ASSERT_EQ(0, wait_point(fd1, q.syncobj, s));
	EXPECT_EQ(-EFAULT, point_status(fd1, q.syncobj, s));
	EXPECT_NE(0, queue_error(fd1, q.queue_id));
	EXPECT_TRUE(all_words(my, y.size, 0x11111111));
	munmap((void *)my, y.size);
	close(fdq);
	close(fd1);
}

TEST_HARNESS_MAIN
