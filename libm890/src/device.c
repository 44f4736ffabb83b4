// SPDX-License-Identifier: MIT
/*
 * DOC: device discovery
 *
 * A card is a DRM accel node (/dev/accel/accelN) whose DRM driver reports
 * the name "m890" (drmGetVersion).  Discovery opens every node, keeps the
 * M890 ones and orders them by fabric id, detached cards last, then by
 * minor, so that index i means the same card in every process of a node.
 * When nothing is found the reason is told apart: the module is absent
 * (/sys/module/m890), the nodes exist but cannot be opened (permission),
 * or there is simply no card.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xf86drm.h>

#include "internal.h"

#define ACCEL_DIR "/dev/accel"
#define MAX_CARDS 256

struct card {
	int fd;
	uint32_t minor;
	uint32_t fabric_id;
	char node[32];
	struct drm_m890_device_info info;
};

struct scan {
	struct card cards[MAX_CARDS];
	int n;
	int denied;	/* nodes we could not open */
	int denied_errno;
};

static bool driver_loaded(void)
{
	struct stat st;

	return stat("/sys/module/m890", &st) == 0;
}

/* Is /sys/class/accel/<node>/device/driver the m890 driver? */
static bool sysfs_is_m890(const char *node)
{
	char path[320], link[256];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/accel/%s/device/driver", node);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	return strcmp(base, "m890") == 0;
}

static int query_info(int fd, struct drm_m890_device_info *info)
{
	struct drm_m890_query q;

	memset(info, 0, sizeof(*info));
	memset(&q, 0, sizeof(q));
	q.type = DRM_M890_QUERY_DEVICE_INFO;
	q.size = sizeof(*info);
	q.data = (uint64_t)(uintptr_t)info;
	if (drmIoctl(fd, DRM_IOCTL_M890_QUERY, &q))
		return -errno;
	return 0;
}

static bool is_m890(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);
	bool ok;

	if (!v)
		return false;
	ok = v->name && strcmp(v->name, "m890") == 0;
	drmFreeVersion(v);
	return ok;
}

static int card_cmp(const void *a, const void *b)
{
	const struct card *x = a, *y = b;

	if (x->fabric_id != y->fabric_id)
		return x->fabric_id < y->fabric_id ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return 0;
}

static void scan_close(struct scan *s, int keep)
{
	for (int i = 0; i < s->n; i++)
		if (i != keep && s->cards[i].fd >= 0)
			close(s->cards[i].fd);
}

static m890_status_t scan_cards(struct scan *s)
{
	struct dirent *de;
	DIR *d;

	memset(s, 0, sizeof(*s));
	d = opendir(ACCEL_DIR);
	if (!d) {
		if (!driver_loaded())
			return m890_fail(M890_ERROR_DRIVER_NOT_LOADED,
					 "no %s and no /sys/module/m890: load m890.ko",
					 ACCEL_DIR);
		return m890_fail(M890_ERROR_NO_DEVICE,
				 "m890 is loaded but %s does not exist",
				 ACCEL_DIR);
	}
	while ((de = readdir(d)) && s->n < MAX_CARDS) {
		struct card *c = &s->cards[s->n];
		char path[300];
		unsigned int minor;
		int fd;

		if (sscanf(de->d_name, "accel%u", &minor) != 1)
			continue;
		snprintf(path, sizeof(path), ACCEL_DIR "/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			if ((errno == EACCES || errno == EPERM) &&
			    sysfs_is_m890(de->d_name)) {
				s->denied++;
				s->denied_errno = errno;
			}
			continue;
		}
		if (!is_m890(fd) || query_info(fd, &c->info)) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->minor = minor;
		c->fabric_id = c->info.fabric_id;
		snprintf(c->node, sizeof(c->node), "accel%u", minor);
		s->n++;
	}
	closedir(d);
	if (s->n == 0) {
		if (s->denied)
			return m890_fail_errno(s->denied_errno,
					       "%d m890 device node(s) in %s cannot be opened",
					       s->denied, ACCEL_DIR);
		if (!driver_loaded())
			return m890_fail(M890_ERROR_DRIVER_NOT_LOADED,
					 "no m890 device: the m890 module is not loaded");
		return m890_fail(M890_ERROR_NO_DEVICE,
				 "no accel node in %s is driven by m890",
				 ACCEL_DIR);
	}
	qsort(s->cards, s->n, sizeof(s->cards[0]), card_cmp);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_device_count(int *count)
{
	M890_API_SCOPE;
	struct scan *s;
	m890_status_t st;

	if (!count)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_device_count: NULL count");
	*count = 0;
	s = malloc(sizeof(*s));
	if (!s)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "device scan");
	st = scan_cards(s);
	if (st == M890_SUCCESS)
		*count = s->n;
	scan_close(s, -1);
	free(s);
	return st;
}

M890_EXPORT m890_status_t m890_device_open(int index, m890_device_t *device)
{
	M890_API_SCOPE;
	struct m890_device *dev = NULL;
	struct scan *s;
	m890_status_t st;

	if (!device)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_device_open: NULL output");
	s = malloc(sizeof(*s));
	if (!s)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "device scan");
	st = scan_cards(s);
	if (st)
		goto out;
	if (index < 0 || index >= s->n) {
		st = m890_fail(M890_ERROR_NO_DEVICE,
			       "device index %d out of range (%d cards)",
			       index, s->n);
		goto out_close;
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		st = m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "device object");
		goto out_close;
	}
	dev->obj.type = M890_OBJ_DEVICE;
	dev->fd = s->cards[index].fd;
	dev->info = s->cards[index].info;
	dev->minor = s->cards[index].minor;
	memcpy(dev->node, s->cards[index].node, sizeof(dev->node));
	pthread_mutex_init(&dev->lock, NULL);
	st = m890_obj_register(dev);
	if (st) {
		pthread_mutex_destroy(&dev->lock);
		free(dev);
		goto out_close;
	}
	scan_close(s, index);
	free(s);
	*device = dev;
	return M890_SUCCESS;

out_close:
	scan_close(s, -1);
out:
	free(s);
	return st;
}

M890_EXPORT m890_status_t m890_device_close(m890_device_t dev)
{
	M890_API_SCOPE;
	unsigned int children;
	m890_status_t st;

	st = m890_check(dev, M890_OBJ_DEVICE, "device");
	if (st)
		return st;
	pthread_mutex_lock(&dev->lock);
	children = dev->children;
	pthread_mutex_unlock(&dev->lock);
	if (children)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "device %s still has %u live object(s); free them first",
				 dev->node, children);
	st = m890_obj_unregister(dev);
	if (st)
		return st;
	/* A create of another thread may have added a child meanwhile. */
	pthread_mutex_lock(&dev->lock);
	children = dev->children;
	pthread_mutex_unlock(&dev->lock);
	if (children) {
		dev->obj.type = M890_OBJ_DEVICE;
		st = m890_obj_register(dev);
		return st ? st : m890_fail(M890_ERROR_INVALID_ARGUMENT,
					   "device %s got a live object while closing; free it first",
					   dev->node);
	}
	close(dev->fd);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_device_get_info(m890_device_t dev,
					       struct m890_device_info *info)
{
	M890_API_SCOPE;
	struct m890_device_info full;
	m890_status_t st;
	size_t n;

	st = m890_check(dev, M890_OBJ_DEVICE, "device");
	if (st)
		return st;
	if (!info)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_device_get_info: NULL info");
	if (info->size < 2 * sizeof(uint32_t) || info->version == 0)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_device_get_info: info not initialised with M890_DEVICE_INFO_INIT (size %u, version %u)",
				 info->size, info->version);
	memset(&full, 0, sizeof(full));
	full.size = info->size;
	full.version = info->version;
	full.pci_vendor = dev->info.pci_vendor;
	full.pci_device = dev->info.pci_device;
	full.spec_version = dev->info.spec_version;
	full.num_queues = dev->info.num_queues;
	full.fabric_id = dev->info.fabric_id;
	full.fabric_port = dev->info.fabric_port;
	full.hbm_bytes = dev->info.hbm_size;
	full.va_start = dev->info.va_start;
	full.va_bytes = dev->info.va_size;
	full.capabilities = dev->info.capabilities;
	full.max_submit_packets = dev->info.max_submit_packets;
	full.minor = dev->minor;
	memcpy(full.node, dev->node, sizeof(full.node));
	n = info->size < sizeof(full) ? info->size : sizeof(full);
	memcpy(info, &full, n);
	return M890_SUCCESS;
}
