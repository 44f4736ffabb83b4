// SPDX-License-Identifier: MIT
/*
 * Hot-unplug of a card with a client open, the guest side (TAP).
 *
 * Run by tests/guest/m890-hotplug-test.sh in a guest whose last card sits
 * behind a pcie-root-port.  The program opens that card, maps an HBM BO,
 * puts jobs in flight (held in WAITs), prints M890-UNPLUG-READY and waits
 * (bounded) for the card to disappear while the host runs `device_del` on
 * the QEMU monitor.  Then it checks that:
 *
 * - a submitter blocked on a full ring returns -ENODEV (it must not hold
 *   up the removal);
 * - the in-flight jobs' fence (a sync_file exported before the removal:
 *   once the card is unplugged every DRM ioctl, syncobj waits included,
 *   fails with -ENODEV) signals with -ENODEV, and every ioctl on the open
 *   file fails with -ENODEV;
 * - touching the HBM mapping does not kill the process: the mapping now
 *   shows a zeroed page that keeps what is written to it
 *   (Documentation/uapi.rst, "Lifetime");
 * - closing the file and unmapping after removal work;
 * - the other card keeps working.
 *
 * Exit status 0 only if every check passed.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WAIT_TIMEOUT_NS		(60ull * 1000 * 1000 * 1000)
#include "m890_test_util.h"

#define UNPLUG_TIMEOUT_S	180
#define JOBS			8

static int tap_n, tap_failed;

static bool tap(bool ok, const char *name, long detail)
{
	tap_n++;
	printf("%sok %d - %s", ok ? "" : "not ", tap_n, name);
	if (!ok)
		printf(" (got %ld)", detail);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_failed++;
	return ok;
}

/* True if PCI function @bdf ("0000:02:00.0") is in a hot-plug slot. */
static int in_hotplug_slot(const char *bdf)
{
	char path[PATH_MAX], addr[64];
	struct dirent *de;
	DIR *d = opendir("/sys/bus/pci/slots");
	int hit = 0;

	if (!d)
		return 0;
	while (!hit && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/slots/%s/address", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* "0000:02:00": domain, bus and device of the slot */
		if (fgets(addr, sizeof(addr), f)) {
			addr[strcspn(addr, "\n")] = 0;
			hit = addr[0] && !strncmp(bdf, addr, strlen(addr));
		}
		fclose(f);
	}
	closedir(d);
	return hit;
}

/*
 * Find an accel node whose PCI function sits in a hot-plug slot (the
 * card the test removes; every card is behind a root port, only its
 * port has a slot that pciehp registered) and one that does not.  Names
 * go to @hot/@cold.
 */
static int find_cards(char *hot, char *cold, size_t len)
{
	char link[PATH_MAX], *real;
	struct dirent *de;
	DIR *d = opendir("/sys/class/accel");

	if (!d)
		return -errno;
	hot[0] = cold[0] = '\0';
	while ((de = readdir(d))) {
		const char *bdf;

		if (strncmp(de->d_name, "accel", 5))
			continue;
		snprintf(link, sizeof(link), "/sys/class/accel/%s/device", de->d_name);
		real = realpath(link, NULL);
		if (!real)
			continue;
		bdf = strrchr(real, '/') + 1;
		if (in_hotplug_slot(bdf) && !hot[0])
			snprintf(hot, len, "%s", de->d_name);
		else if (!in_hotplug_slot(bdf) && !cold[0])
			snprintf(cold, len, "%s", de->d_name);
		free(real);
	}
	closedir(d);
	return hot[0] && cold[0] ? 0 : -ENOENT;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A fill on @fd's card through a fresh queue; 0 when the data is right. */
static int card_works(int fd)
{
	struct drm_m890_queue_create q;
	struct drm_m890_bo_create bo;
	union m890_packet p;
	__u32 *m;
	__u64 s;
	int ret;

	ret = bo_create(fd, 64 * 1024, DRM_M890_BO_HOST, &bo);
	if (ret)
		return ret;
	m = bo_map(fd, &bo);
	if (!m)
		return -errno;
	ret = queue_create(fd, &q);
	if (!ret) {
		pkt_fill(&p, bo.va, bo.size, 0x0c01d0ff);
		ret = submit(fd, q.queue_id, &p, 1, &s);
	}
	if (!ret)
		ret = wait_point(fd, q.syncobj, s);
	if (!ret && point_status(fd, q.syncobj, s) != 1)
		ret = -EIO;
	for (size_t i = 0; !ret && i < bo.size / 4; i++)
		if (m[i] != 0x0c01d0ff)
			ret = -EIO;
	munmap(m, bo.size);
	return ret;
}

struct ring_waiter {
	int fd;
	__u32 queue;
	int ret;
	atomic_bool done;
};

/* Submit one NOP to a full ring: blocks until room, death or removal. */
static void *ring_waiter_run(void *arg)
{
	struct ring_waiter *w = arg;
	union m890_packet p;

	pkt_nop(&p);
	w->ret = submit(w->fd, w->queue, &p, 1, NULL);
	atomic_store(&w->done, true);
	return NULL;
}

/* Fill queue @q of @fd: a WAIT on @sem_va that never ends, then NOPs. */
static int fill_ring(int fd, __u32 q, __u64 sem_va)
{
	struct drm_m890_device_info info;
	union m890_packet *p;
	__u32 i, n;
	int ret;

	ret = query_info(fd, &info);
	if (ret)
		return ret;
	n = info.max_submit_packets - 2;
	p = calloc(n, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pkt_wait(&p[0], sem_va, 1);
	ret = submit(fd, q, p, 1, NULL);
	for (i = 0; i < n; i++)
		pkt_nop(&p[i]);
	if (!ret)
		ret = submit(fd, q, p, n, NULL);
	free(p);
	return ret;
}

int main(void)
{
	char hot[NAME_MAX + 1], cold[NAME_MAX + 1], path[PATH_MAX];
	struct drm_m890_bo_create hbm, sem, tmp;
	struct drm_m890_queue_create q, q2, qfull;
	struct ring_waiter w = { 0 };
	pthread_t waiter;
	union m890_packet p[2];
	volatile __u32 *mh;
	__u64 seq[JOBS];
	int fd, fd2, sfd, i, ret;
	bool gone = false;
	double t0;

	if (find_cards(hot, cold, sizeof(hot))) {
		printf("not ok 1 - need one card in a hot-plug slot and one not\n1..1\n");
		return 1;
	}
	printf("# hot-pluggable card %s, other card %s\n", hot, cold);
	snprintf(path, sizeof(path), "/dev/accel/%s", hot);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (!tap(fd >= 0, "open the hot-pluggable card", -errno))
		goto out;

	ret = bo_create(fd, 1 << 20, DRM_M890_BO_HBM, &hbm);
	if (!ret)
		ret = bo_create(fd, 4096, DRM_M890_BO_HOST, &sem);
	if (!ret)
		ret = queue_create(fd, &q);
	mh = ret ? NULL : bo_map(fd, &hbm);
	if (!tap(!ret && mh, "BOs, queue and HBM mapping", ret))
		goto out;
	for (i = 0; i < 1024; i++)
		mh[i] = 0xfeed0000u + i;
	for (i = 0; i < JOBS && !ret; i++) {
		pkt_wait(&p[0], sem.va, 1);
		pkt_fill(&p[1], hbm.va, hbm.size, 0x0bad0bad);
		ret = submit(fd, q.queue_id, p, 2, &seq[i]);
	}
	if (!tap(!ret, "jobs in flight", ret))
		goto out;
	sfd = sync_file_of_point(fd, q.syncobj, seq[JOBS - 1]);
	if (!tap(sfd >= 0 && sync_file_result(sfd, 0) == 0,
		 "sync_file of the last job, still pending", sfd))
		goto out;

	ret = queue_create(fd, &qfull);
	if (!ret)
		ret = fill_ring(fd, qfull.queue_id, sem.va);
	w.fd = fd;
	w.queue = qfull.queue_id;
	if (!ret)
		ret = -pthread_create(&waiter, NULL, ring_waiter_run, &w);
	if (!tap(!ret, "a full ring and a submitter waiting for room", ret))
		goto out;
	usleep(200 * 1000);
	if (!tap(!atomic_load(&w.done), "the submitter is blocked", w.ret))
		goto out;

	printf("M890-UNPLUG-READY\n");
	fflush(stdout);

	/* The host removes the card now; wait for its node to go. */
	snprintf(path, sizeof(path), "/sys/class/accel/%s", hot);
	t0 = now_s();
	while (now_s() - t0 < UNPLUG_TIMEOUT_S) {
		if (access(path, F_OK)) {
			gone = true;
			break;
		}
		usleep(100 * 1000);
	}
	if (!tap(gone, "card removed by device_del", (long)(now_s() - t0)))
		goto out;

	/*
	 * The fences fail once the driver has stopped the card, after DRM
	 * zapped the CPU mappings: from here on the checks are ordered.
	 */
	ret = sync_file_result(sfd, 60 * 1000);
	tap(ret == -ENODEV, "in-flight jobs fail with -ENODEV", ret);
	close(sfd);
	ret = wait_point(fd, q.syncobj, seq[0]);
	tap(ret == -ENODEV, "syncobj wait fails with -ENODEV", ret);
	for (i = 0; i < 300 && !atomic_load(&w.done); i++)
		usleep(100 * 1000);
	if (atomic_load(&w.done))
		pthread_join(waiter, NULL);
	tap(atomic_load(&w.done) && w.ret == -ENODEV,
	    "the blocked submitter returns -ENODEV", w.ret);

	pkt_nop(&p[0]);
	ret = submit(fd, q.queue_id, p, 1, NULL);
	tap(ret == -ENODEV, "submit fails with -ENODEV", ret);
	ret = bo_create(fd, 4096, DRM_M890_BO_HOST, &tmp);
	tap(ret == -ENODEV, "bo_create fails with -ENODEV", ret);
	ret = queue_create(fd, &q2);
	tap(ret == -ENODEV, "queue_create fails with -ENODEV", ret);

	/* Still alive after touching the mapping of the gone card. */
	tap(mh[0] == 0 && mh[1023] == 0, "HBM mapping reads zeros after removal", mh[0]);
	mh[5] = 0x600d;
	tap(mh[5] == 0x600d, "HBM mapping keeps what is written after removal", mh[5]);

	munmap((void *)mh, hbm.size);
	tap(close(fd) == 0, "close the removed card's file", errno);
	fd = -1;

	snprintf(path, sizeof(path), "/dev/accel/%s", cold);
	fd2 = open(path, O_RDWR | O_CLOEXEC);
	ret = fd2 < 0 ? -errno : card_works(fd2);
	tap(ret == 0, "the other card still runs work", ret);
	if (fd2 >= 0)
		close(fd2);
out:
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
