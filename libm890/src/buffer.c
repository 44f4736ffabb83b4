// SPDX-License-Identifier: MIT
/*
 * DOC: buffers and peer windows
 *
 * A buffer is a GEM BO created with DRM_M890_BO_CREATE; the driver maps it
 * into the file's device address space at creation, so its VA is known at
 * once and stays fixed.  Host BOs can be mapped into the process through
 * their mmap offset on the DRM fd.
 *
 * A window makes another card's HBM buffer addressable: the owner's GEM
 * handle is exported as a dma-buf (drmPrimeHandleToFD) and imported on the
 * other card's fd (drmPrimeFDToHandle), where the driver maps it through
 * the fabric; DRM_M890_BO_INFO then gives the VA.  PRIME returns the same
 * handle when the same dma-buf is imported twice on one fd, so imported
 * handles are reference counted per device and closed with the last
 * window.  The dma-buf keeps the memory alive, so a window outlives the
 * buffer it was made from.
 *
 * Across VMs no dma-buf can travel: the owner exports the BO to the switch
 * under a 64-bit key (DRM_M890_FABRIC_EXPORT) and the peer opens a window
 * by fabric id and key (DRM_M890_FABRIC_IMPORT), which gives a GEM handle
 * of its own each time; such a window does not keep the memory alive (the
 * owner's free revokes it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "internal.h"

/* The last serial given to a buffer (struct m890_buffer). */
static _Atomic uint64_t buffer_serial;

static void close_handle(int fd, uint32_t handle)
{
	drmCloseBufferHandle(fd, handle);
}

m890_status_t m890_buffer_create(struct m890_device *dev, uint64_t bytes,
				 unsigned int flags, struct m890_buffer **out)
{
	struct drm_m890_bo_create args;
	struct m890_buffer *buf;
	m890_status_t st;

	if (bytes == 0)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "buffer size 0: a buffer needs at least one byte");
	if (flags != M890_MEM_HBM && flags != M890_MEM_HOST)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "buffer flags 0x%x: need exactly one of M890_MEM_HBM, M890_MEM_HOST",
				 flags);
	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "buffer object");
	memset(&args, 0, sizeof(args));
	args.size = bytes;
	args.flags = flags == M890_MEM_HBM ? DRM_M890_BO_HBM : DRM_M890_BO_HOST;
	if (drmIoctl(dev->fd, DRM_IOCTL_M890_BO_CREATE, &args)) {
		int err = errno;

		free(buf);
		if (err == E2BIG || err == ENOSPC)
			return m890_fail(M890_ERROR_OUT_OF_DEVICE_MEMORY,
					 "%s: cannot allocate %llu bytes of %s: %s",
					 dev->node, (unsigned long long)bytes,
					 flags == M890_MEM_HBM ? "HBM" : "host memory",
					 strerror(err));
		if (err == EDQUOT)
			return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
					 "%s: %llu more bytes of host memory would pass the driver's limit for one user on the card (module parameter host_mb_per_user)",
					 dev->node, (unsigned long long)bytes);
		return m890_fail_errno(err, "%s: BO_CREATE of %llu bytes",
				       dev->node, (unsigned long long)bytes);
	}
	buf->obj.type = M890_OBJ_BUFFER;
	buf->dev = dev;
	buf->handle = args.handle;
	buf->flags = flags;
	buf->bytes = bytes;
	buf->alloc_bytes = args.size > bytes ? args.size : bytes;
	buf->va = args.va;
	buf->mmap_offset = args.mmap_offset;
	buf->serial = atomic_fetch_add(&buffer_serial, 1) + 1;
	st = m890_obj_register(buf);
	if (st) {
		close_handle(dev->fd, args.handle);
		free(buf);
		return st;
	}
	m890_device_get_child(dev);
	*out = buf;
	return M890_SUCCESS;
}

m890_status_t m890_buffer_destroy(struct m890_buffer *buf)
{
	struct m890_device *dev = buf->dev;
	m890_status_t st;

	st = m890_obj_unregister(buf);
	if (st)
		return st;
	if (buf->map)
		munmap(buf->map, buf->alloc_bytes);
	close_handle(dev->fd, buf->handle);
	m890_device_put_child(dev);
	free(buf);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_buffer_alloc(m890_device_t dev, uint64_t bytes,
					    unsigned int flags,
					    m890_buffer_t *buffer)
{
	M890_API_SCOPE;
	m890_status_t st;

	st = m890_check(dev, M890_OBJ_DEVICE, "device");
	if (st)
		return st;
	if (!buffer)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_buffer_alloc: NULL output");
	return m890_buffer_create(dev, bytes, flags, buffer);
}

M890_EXPORT m890_status_t m890_buffer_free(m890_buffer_t buf)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(buf, M890_OBJ_BUFFER, "buffer");

	if (st)
		return st;
	return m890_buffer_destroy(buf);
}

M890_EXPORT m890_status_t m890_buffer_map(m890_buffer_t buf, void **ptr)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(buf, M890_OBJ_BUFFER, "buffer");
	void *p;

	if (st)
		return st;
	if (!ptr)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_buffer_map: NULL output");
	if (!buf->map) {
		if (!buf->mmap_offset)
			return m890_fail(M890_ERROR_NOT_SUPPORTED,
					 "%s: this %s buffer has no CPU mapping",
					 buf->dev->node,
					 buf->flags == M890_MEM_HBM ? "HBM" : "host");
		p = mmap(NULL, buf->alloc_bytes, PROT_READ | PROT_WRITE,
			 MAP_SHARED, buf->dev->fd, (off_t)buf->mmap_offset);
		if (p == MAP_FAILED)
			return m890_fail_errno(errno, "%s: mmap of %llu bytes",
					       buf->dev->node,
					       (unsigned long long)buf->alloc_bytes);
		buf->map = p;
	}
	*ptr = buf->map;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_buffer_va(m890_buffer_t buf, uint64_t *va)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(buf, M890_OBJ_BUFFER, "buffer",
					  va, "m890_buffer_va");

	if (st)
		return st;
	*va = buf->va;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_buffer_size(m890_buffer_t buf, uint64_t *bytes)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(buf, M890_OBJ_BUFFER, "buffer",
					  bytes, "m890_buffer_size");

	if (st)
		return st;
	*bytes = buf->bytes;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_buffer_device(m890_buffer_t buf,
					     m890_device_t *device)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(buf, M890_OBJ_BUFFER, "buffer",
					  device, "m890_buffer_device");

	if (st)
		return st;
	*device = buf->dev;
	return M890_SUCCESS;
}

/* Take a reference on the import record of @handle, creating it. */
static struct m890_import *import_get(struct m890_device *dev, uint32_t handle)
{
	struct m890_import *imp;

	pthread_mutex_lock(&dev->lock);
	for (imp = dev->imports; imp; imp = imp->next)
		if (imp->handle == handle)
			break;
	if (!imp) {
		imp = calloc(1, sizeof(*imp));
		if (imp) {
			imp->handle = handle;
			imp->next = dev->imports;
			dev->imports = imp;
		}
	}
	if (imp)
		imp->refs++;
	pthread_mutex_unlock(&dev->lock);
	return imp;
}

/* Drop a reference; the last one closes the GEM handle. */
static void import_put(struct m890_device *dev, struct m890_import *imp)
{
	struct m890_import **pp;
	bool last;

	pthread_mutex_lock(&dev->lock);
	last = --imp->refs == 0;
	if (last) {
		for (pp = &dev->imports; *pp; pp = &(*pp)->next) {
			if (*pp == imp) {
				*pp = imp->next;
				break;
			}
		}
		/* Close under the lock: a concurrent import of the same
		 * dma-buf must not find the record while the handle goes. */
		close_handle(dev->fd, imp->handle);
	}
	pthread_mutex_unlock(&dev->lock);
	if (last)
		free(imp);
}

M890_EXPORT m890_status_t m890_buffer_import_peer(m890_device_t dev,
						  m890_buffer_t peer,
						  m890_window_t *window)
{
	M890_API_SCOPE;
	m890_status_t st;
	int dmabuf;

	st = m890_check(dev, M890_OBJ_DEVICE, "device");
	if (st)
		return st;
	st = m890_check(peer, M890_OBJ_BUFFER, "buffer");
	if (st)
		return st;
	if (!window)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_buffer_import_peer: NULL output");
	if (peer->dev == dev)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "buffer already belongs to %s: use its own VA",
				 dev->node);
	if (peer->flags != M890_MEM_HBM)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "only HBM buffers can be imported by a peer");
	if (!(dev->info.capabilities & DRM_M890_CAP_PEER_IMPORT))
		return m890_fail(M890_ERROR_NOT_SUPPORTED,
				 "%s does not support peer windows", dev->node);
	if (drmPrimeHandleToFD(peer->dev->fd, peer->handle,
			       DRM_CLOEXEC | DRM_RDWR, &dmabuf))
		return m890_fail_errno(errno, "%s: export of buffer as dma-buf",
				       peer->dev->node);
	st = m890_window_from_dmabuf(dev, dmabuf, peer->bytes, peer->dev->node,
				     window);
	close(dmabuf);
	return st;
}

m890_status_t m890_buffer_export_dmabuf(struct m890_buffer *buf, int *fd)
{
	if (buf->flags != M890_MEM_HBM)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "only HBM buffers can be shared with peers");
	if (drmPrimeHandleToFD(buf->dev->fd, buf->handle,
			       DRM_CLOEXEC | DRM_RDWR, fd))
		return m890_fail_errno(errno, "%s: export of buffer as dma-buf",
				       buf->dev->node);
	return M890_SUCCESS;
}

/*
 * A window on @dev for the HBM buffer behind @dmabuf (exported by another
 * card, possibly in another process), @bytes long as its owner sees it.
 * @dmabuf stays the caller's.
 */
m890_status_t m890_window_from_dmabuf(struct m890_device *dev, int dmabuf,
				      uint64_t bytes, const char *peer_name,
				      struct m890_window **window)
{
	struct drm_m890_bo_info info;
	struct m890_import *imp;
	struct m890_window *win;
	uint32_t handle;
	m890_status_t st;
	int err;

	if (!(dev->info.capabilities & DRM_M890_CAP_PEER_IMPORT))
		return m890_fail(M890_ERROR_NOT_SUPPORTED,
				 "%s does not support peer windows", dev->node);
	err = drmPrimeFDToHandle(dev->fd, dmabuf, &handle) ? errno : 0;
	if (err) {
		if (err == EINVAL || err == EOPNOTSUPP || err == EHOSTUNREACH ||
		    err == ENOLINK || err == EXDEV)
			return m890_fail(M890_ERROR_NOT_SUPPORTED,
					 "%s cannot import a window on %s's HBM (not reachable through the fabric?): %s",
					 dev->node, peer_name, strerror(err));
		return m890_fail_errno(err, "%s: import of %s's buffer",
				       dev->node, peer_name);
	}
	imp = import_get(dev, handle);
	if (!imp) {
		/* Not counted anywhere: safe only if nobody else holds it. */
		pthread_mutex_lock(&dev->lock);
		bool shared = false;

		for (struct m890_import *i = dev->imports; i; i = i->next)
			shared |= i->handle == handle;
		if (!shared)
			close_handle(dev->fd, handle);
		pthread_mutex_unlock(&dev->lock);
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "import record");
	}
	memset(&info, 0, sizeof(info));
	info.handle = handle;
	if (drmIoctl(dev->fd, DRM_IOCTL_M890_BO_INFO, &info)) {
		st = m890_fail_errno(errno, "%s: BO_INFO of imported window",
				     dev->node);
		import_put(dev, imp);
		return st;
	}
	win = calloc(1, sizeof(*win));
	if (!win) {
		import_put(dev, imp);
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "window object");
	}
	win->obj.type = M890_OBJ_WINDOW;
	win->dev = dev;
	win->import = imp;
	win->va = info.va;
	win->bytes = info.size < bytes ? info.size : bytes;
	win->peer_fabric_id = info.peer_fabric_id;
	st = m890_obj_register(win);
	if (st) {
		import_put(dev, imp);
		free(win);
		return st;
	}
	m890_device_get_child(dev);
	*window = win;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_window_free(m890_window_t win)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(win, M890_OBJ_WINDOW, "window");
	struct m890_device *dev;

	if (st)
		return st;
	dev = win->dev;
	st = m890_obj_unregister(win);
	if (st)
		return st;
	import_put(dev, win->import);
	m890_device_put_child(dev);
	free(win);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_window_va(m890_window_t win, uint64_t *va)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(win, M890_OBJ_WINDOW, "window",
					  va, "m890_window_va");

	if (st)
		return st;
	*va = win->va;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_window_size(m890_window_t win, uint64_t *bytes)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(win, M890_OBJ_WINDOW, "window",
					  bytes, "m890_window_size");

	if (st)
		return st;
	*bytes = win->bytes;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_window_peer_fabric_id(m890_window_t win,
						     uint32_t *fabric_id)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(win, M890_OBJ_WINDOW, "window",
					  fabric_id, "m890_window_peer_fabric_id");

	if (st)
		return st;
	*fabric_id = win->peer_fabric_id;
	return M890_SUCCESS;
}

/*
 * Offer @buf to cards in other VMs under @key (non-zero, chosen by the
 * caller, derived from a random secret: it is the importers' only
 * credential).  The driver lets only CAP_SYS_ADMIN choose a key.  The
 * export lasts until the buffer is freed.
 */
m890_status_t m890_buffer_export_fabric(struct m890_buffer *buf, uint64_t key)
{
	struct drm_m890_fabric_export ex;

	if (buf->flags != M890_MEM_HBM)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "only HBM buffers can be shared with peers");
	if (!(buf->dev->info.capabilities & DRM_M890_CAP_FABRIC_WINDOWS))
		return m890_fail(M890_ERROR_NOT_SUPPORTED,
				 "%s cannot export to other VMs (no fabric windows)",
				 buf->dev->node);
	memset(&ex, 0, sizeof(ex));
	ex.handle = buf->handle;
	ex.flags = DRM_M890_EXPORT_KEY;
	ex.key = key;
	if (drmIoctl(buf->dev->fd, DRM_IOCTL_M890_FABRIC_EXPORT, &ex)) {
		int err = errno;

		if (err == EEXIST)
			return m890_fail(M890_ERROR_INVALID_ARGUMENT,
					 "%s: key 0x%016llx is already exported on this card (another communicator with the same id?)",
					 buf->dev->node, (unsigned long long)key);
		if (err == ENOSPC)
			return m890_fail(M890_ERROR_BUSY,
					 "%s: every export slot of the card is in use",
					 buf->dev->node);
		if (err == EPERM)
			return m890_fail(M890_ERROR_PERMISSION,
					 "%s: exporting under a key the peers can derive needs CAP_SYS_ADMIN (the driver gives others only random keys)",
					 buf->dev->node);
		return m890_fail_errno(err, "%s: fabric export", buf->dev->node);
	}
	return M890_SUCCESS;
}

/*
 * A window on @dev for the export @key of the card with @fabric_id.
 * Returns 0, or the errno of DRM_M890_FABRIC_IMPORT (ENOENT: no such
 * export yet, ENOLINK: a port on the path is not up, EPERM: another
 * partition), with m890_get_last_error() set; the caller decides whether
 * to retry.
 */
int m890_window_import_fabric(struct m890_device *dev, uint32_t fabric_id,
			      uint64_t key, struct m890_window **window)
{
	struct drm_m890_fabric_import im;
	struct m890_import *imp;
	struct m890_window *win;

	if (!(dev->info.capabilities & DRM_M890_CAP_FABRIC_WINDOWS)) {
		m890_fail(M890_ERROR_NOT_SUPPORTED,
			  "%s cannot open windows into other VMs", dev->node);
		return EOPNOTSUPP;
	}
	memset(&im, 0, sizeof(im));
	im.fabric_id = fabric_id;
	im.key = key;
	if (drmIoctl(dev->fd, DRM_IOCTL_M890_FABRIC_IMPORT, &im)) {
		int err = errno;

		m890_fail_errno(err, "%s: window on fabric id %u", dev->node,
				fabric_id);
		return err;
	}
	/* Every import is a handle of its own. */
	imp = import_get(dev, im.handle);
	win = calloc(1, sizeof(*win));
	if (!imp || !win) {
		if (imp)
			import_put(dev, imp);
		else
			close_handle(dev->fd, im.handle);
		free(win);
		m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "window object");
		return ENOMEM;
	}
	win->obj.type = M890_OBJ_WINDOW;
	win->dev = dev;
	win->import = imp;
	win->va = im.va;
	win->bytes = im.size;
	win->peer_fabric_id = fabric_id;
	if (m890_obj_register(win)) {
		import_put(dev, imp);
		free(win);
		return ENOMEM;
	}
	m890_device_get_child(dev);
	*window = win;
	return 0;
}

/* Withdraw the export of m890_buffer_export_fabric(); errors are ignored. */
void m890_buffer_revoke_fabric(struct m890_buffer *buf)
{
	struct drm_m890_fabric_revoke rv;

	memset(&rv, 0, sizeof(rv));
	rv.handle = buf->handle;
	drmIoctl(buf->dev->fd, DRM_IOCTL_M890_FABRIC_REVOKE, &rv);
}
