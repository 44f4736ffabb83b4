// SPDX-License-Identifier: MIT
/*
 * m890_hold MODE READY_FILE: keep a reference to card 0 without an open
 * accel fd, for the module-unload checks of m890-guest-tests.
 *
 *   mmap    an HBM BO mapped, the accel fd closed
 *   dmabuf  an HBM BO exported as a dma-buf, the accel fd closed
 *
 * Creates READY_FILE once it holds the reference, then sleeps until it is
 * killed.  Exit status 1 with a message on any setup error.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WAIT_TIMEOUT_NS		(10ull * 1000 * 1000 * 1000)
#include "m890_test_util.h"

int main(int argc, char **argv)
{
	struct drm_m890_bo_create bo;
	int fd, buf = -1, ret;
	void *map = NULL;

	if (argc != 3 || (strcmp(argv[1], "mmap") && strcmp(argv[1], "dmabuf"))) {
		fprintf(stderr, "usage: m890_hold mmap|dmabuf READY_FILE\n");
		return 2;
	}
	fd = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("m890_hold: /dev/accel/accel0");
		return 1;
	}
	ret = bo_create(fd, 64 * 1024, DRM_M890_BO_HBM, &bo);
	if (!ret && !strcmp(argv[1], "mmap")) {
		map = bo_map(fd, &bo);
		ret = map ? 0 : -errno;
	} else if (!ret) {
		ret = drmPrimeHandleToFD(fd, bo.handle, DRM_CLOEXEC, &buf) ? -errno : 0;
	}
	if (ret) {
		fprintf(stderr, "m890_hold: %s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	close(fd);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror("m890_hold: ready file");
		return 1;
	}
	close(fd);
	for (;;)
		pause();
}
