// SPDX-License-Identifier: MIT
/*
 * submit_perf: the wall time of DRM_IOCTL_M890_SUBMIT against the number
 * of BOs the submitting file holds.
 *
 *   submit_perf [-d /dev/accel/accelN] [-r ROUNDS] [BOS...]
 *
 * For each BOS count (default: 1 1000), opens the card, creates that many
 * 4 KiB host BOs and one queue, then times ROUNDS (default 2000)
 * submissions of one NOP packet each, waiting for the queue to drain
 * every 256 submissions (outside the timed calls).  Prints one line per
 * count: "bos N: submit min X us, median Y us, max Z us"; exits non-zero
 * on any error.  The driver's cost is meant not to grow with the count
 * (Documentation/uapi.rst, "Implicit fences").
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

#include "drm/m890_accel.h"

#define DRAIN_EVERY	256

static int m890_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret && (errno == EINTR || errno == EAGAIN));
	return ret ? -errno : 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int drain(int fd, uint32_t syncobj, uint64_t seqno)
{
	if (drmSyncobjTimelineWait(fd, &syncobj, &seqno, 1, INT64_MAX, 0, NULL)) {
		fprintf(stderr, "submit_perf: wait for seqno %llu: %s\n",
			(unsigned long long)seqno, strerror(errno));
		return -1;
	}
	return 0;
}

/* Time @rounds one-NOP submissions on a file holding @nbos BOs. */
static int run(const char *dev, unsigned int nbos, unsigned int rounds)
{
	struct drm_m890_queue_create q = { 0 };
	union m890_packet nop;
	double *t, t0;
	unsigned int i;
	int fd, ret = -1;

	t = calloc(rounds, sizeof(*t));
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (!t || fd < 0) {
		fprintf(stderr, "submit_perf: %s: %s\n", dev, strerror(errno));
		goto out;
	}
	for (i = 0; i < nbos; i++) {
		struct drm_m890_bo_create bo = { .size = 4096, .flags = DRM_M890_BO_HOST };
		int err = m890_ioctl(fd, DRM_IOCTL_M890_BO_CREATE, &bo);

		if (err) {
			fprintf(stderr, "submit_perf: BO %u of %u: %s\n", i, nbos, strerror(-err));
			goto out;
		}
	}
	if (m890_ioctl(fd, DRM_IOCTL_M890_QUEUE_CREATE, &q)) {
		fprintf(stderr, "submit_perf: queue: %s\n", strerror(errno));
		goto out;
	}
	memset(&nop, 0, sizeof(nop));
	nop.nop.hdr = M890_PKT_HDR(M890_PKT_NOP, 0);
	for (i = 0; i < rounds; i++) {
		struct drm_m890_submit s = {
			.queue_id = q.queue_id, .count = 1, .packets = (uintptr_t)&nop,
		};
		int err;

		t0 = now_us();
		err = m890_ioctl(fd, DRM_IOCTL_M890_SUBMIT, &s);
		t[i] = now_us() - t0;
		if (err) {
			fprintf(stderr, "submit_perf: submit %u: %s\n", i, strerror(-err));
			goto out;
		}
		if ((i + 1) % DRAIN_EVERY == 0 || i + 1 == rounds)
			if (drain(fd, q.syncobj, s.seqno))
				goto out;
	}
	qsort(t, rounds, sizeof(*t), cmp_double);
	printf("bos %u: submit min %.1f us, median %.1f us, max %.1f us (%u submissions)\n",
	       nbos, t[0], t[rounds / 2], t[rounds - 1], rounds);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(t);
	return ret;
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/accel/accel0";
	unsigned int rounds = 2000, counts[16] = { 1, 1000 }, n = 2;
	int opt, i;

	while ((opt = getopt(argc, argv, "d:r:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'r':
			rounds = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: submit_perf [-d DEV] [-r ROUNDS] [BOS...]\n");
			return 2;
		}
	}
	if (!rounds) {
		fprintf(stderr, "submit_perf: -r must be at least 1\n");
		return 2;
	}
	if (optind < argc) {
		if (argc - optind > 16) {
			fprintf(stderr, "submit_perf: at most 16 BO counts\n");
			return 2;
		}
		for (n = 0; optind < argc; optind++)
			counts[n++] = strtoul(argv[optind], NULL, 0);
	}
	for (i = 0; i < (int)n; i++)
		if (run(dev, counts[i], rounds))
			return 1;
	return 0;
}
