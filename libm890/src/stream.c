// SPDX-License-Identifier: MIT
/*
 * DOC: streams and enqueued memory operations
 *
 * A stream owns one hardware queue (DRM_M890_QUEUE_CREATE) and the
 * queue's timeline syncobj.  Every DRM_M890_SUBMIT returns a sequence
 * number N; point N of the timeline signals when those packets have
 * executed, with an error if they failed.  Synchronizing waits for the
 * last point with drmSyncobjTimelineWait.
 *
 * The wait itself does not report fence errors, so the outcome of a point
 * is read separately: the point is moved to a temporary binary syncobj
 * (drmSyncobjTransfer), exported as a sync_file (drmSyncobjExportSyncFile)
 * and asked with SYNC_IOC_FILE_INFO, whose per-fence status is negative
 * for a failed fence and whose timestamp gives the completion time used by
 * events.  The queue stops at the first failing packet and the driver
 * fails every later point, so checking the last point is enough; a submit
 * after the failure is refused with -EIO, which is reported the same way.
 * An MMU fault or bad packet on one stream stops every stream of the
 * device handle (the driver stops the file's whole context): the others'
 * points fail with -ECANCELED and their submits with -EIO, which is
 * reported with the queue state's error (DEVICE_FAULT for an MMU fault);
 * the device must be closed and opened again.
 * The first error is kept as the stream's sticky async error.
 *
 * Streams submit each enqueue call at once by default.  With
 * M890_STREAM_DEFERRED, packets are staged in a per-stream array and
 * submitted in one ioctl on flush, synchronize, query, event record, or
 * when the array is full, which saves one fence per call.  The library
 * itself stages the many small packets of a collective's exchange on any
 * stream the same way (m890_stream_batch()): every submission costs the
 * kernel work for each BO of the file (its fence goes on all of them),
 * and a communicator's file holds windows on every peer.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include "internal.h"

#define COPY_MAX_BYTES (1ull << 40)	/* per COPY/FILL packet (spec) */
#define DEFAULT_MAX_SUBMIT 256

static m890_status_t stream_check(struct m890_stream *s)
{
	m890_status_t st = m890_check(s, M890_OBJ_STREAM, "stream");

	if (st)
		return st;
	if (s->async_error)
		return m890_fail(s->async_error, "%s", s->async_msg);
	return M890_SUCCESS;
}

static m890_status_t set_async_error(struct m890_stream *s, m890_status_t st,
				     const char *why)
{
	if (!s->async_error) {
		s->async_error = st;
		snprintf(s->async_msg, sizeof(s->async_msg),
			 "%s queue %u: %s", s->dev->node, s->queue_id, why);
	}
	return m890_fail(s->async_error, "%s", s->async_msg);
}

/*
 * Outcome of the fence held by binary syncobj @binary, which must have
 * signalled.  @signal_ns: if not NULL, the latest fence timestamp
 * (CLOCK_MONOTONIC ns).
 */
m890_status_t m890_fence_status(int fd, uint32_t binary, int64_t *signal_ns)
{
	struct sync_fence_info *fi = NULL;
	struct sync_file_info info;
	m890_status_t st = M890_SUCCESS;
	int sfd = -1;

	if (drmSyncobjExportSyncFile(fd, binary, &sfd))
		return m890_fail_errno(errno, "sync_file export");
	memset(&info, 0, sizeof(info));
	if (ioctl(sfd, SYNC_IOC_FILE_INFO, &info)) {
		st = m890_fail_errno(errno, "SYNC_IOC_FILE_INFO");
		goto out;
	}
	if (info.num_fences) {
		uint32_t n = info.num_fences;

		fi = calloc(n, sizeof(*fi));
		if (!fi) {
			st = m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "fence info");
			goto out;
		}
		memset(&info, 0, sizeof(info));
		info.num_fences = n;
		info.sync_fence_info = (uint64_t)(uintptr_t)fi;
		if (ioctl(sfd, SYNC_IOC_FILE_INFO, &info)) {
			st = m890_fail_errno(errno, "SYNC_IOC_FILE_INFO");
			goto out;
		}
	}
	if (info.status < 0) {
		int err = -info.status;

		/* An MMU fault signals -EFAULT; anything else is an
		 * execution error, never an argument error of this call. */
		st = m890_errno_status(err);
		if (err == ENOSPC)	/* M890_QERR_CAPACITY (MOE_ROUTE) */
			st = M890_ERROR_CAPACITY;
		else if (st != M890_ERROR_DEVICE_FAULT && st != M890_ERROR_CANCELED &&
			 st != M890_ERROR_TIMEOUT)
			st = M890_ERROR_DEVICE_ERROR;
		st = m890_fail(st, "work failed on the device: %s",
			       err == ENOSPC ? "an expert received more rows than its capacity" :
			       strerror(err));
	} else if (info.status == 0) {
		st = m890_fail(M890_NOT_READY, "fence has not signalled");
	}
	if (signal_ns) {
		int64_t t = 0;

		for (uint32_t i = 0; fi && i < info.num_fences; i++)
			if ((int64_t)fi[i].timestamp_ns > t)
				t = (int64_t)fi[i].timestamp_ns;
		*signal_ns = t ? t : m890_monotonic_ns();
	}
out:
	free(fi);
	close(sfd);
	return st;
}

/* Outcome of timeline point @seqno, which must have signalled. */
m890_status_t m890_point_status(int fd, uint32_t syncobj, uint64_t seqno,
				int64_t *signal_ns)
{
	m890_status_t st;
	uint32_t tmp;

	if (drmSyncobjCreate(fd, 0, &tmp))
		return m890_fail_errno(errno, "syncobj create");
	if (drmSyncobjTransfer(fd, tmp, 0, syncobj, seqno, 0))
		st = m890_fail_errno(errno, "syncobj transfer of point %llu",
				     (unsigned long long)seqno);
	else
		st = m890_fence_status(fd, tmp, signal_ns);
	drmSyncobjDestroy(fd, tmp);
	return st;
}

/* Absolute CLOCK_MONOTONIC deadline for @timeout_ns from now. */
static int64_t deadline(uint64_t timeout_ns)
{
	int64_t now = m890_monotonic_ns();

	if (timeout_ns == M890_TIMEOUT_INFINITE ||
	    timeout_ns > (uint64_t)(INT64_MAX - now))
		return INT64_MAX;
	return now + (int64_t)timeout_ns;
}

/*
 * Second opinion on a signalled point: the driver's queue state keeps the
 * queue's error even when the timeline no longer holds the failed fence.
 * Drivers without DRM_M890_QUERY_QUEUE_STATE (-EINVAL) are not an error.
 */
static m890_status_t queue_state_check(struct m890_stream *s, uint64_t seqno)
{
	struct drm_m890_queue_state qs;
	struct drm_m890_query q;
	m890_status_t st;

	memset(&qs, 0, sizeof(qs));
	qs.queue_id = s->queue_id;
	memset(&q, 0, sizeof(q));
	q.type = DRM_M890_QUERY_QUEUE_STATE;
	q.size = sizeof(qs);
	q.data = (uint64_t)(uintptr_t)&qs;
	if (drmIoctl(s->dev->fd, DRM_IOCTL_M890_QUERY, &q))
		return M890_SUCCESS;
	if (!qs.error || qs.completed_seqno >= seqno)
		return M890_SUCCESS;
	/* -ENOSPC: MOE_ROUTE found more rows for an expert than its capacity
	 * (M890_QERR_CAPACITY, a status of the data, not a fault) */
	if (qs.error == -ENOSPC)
		return M890_ERROR_CAPACITY;
	st = m890_errno_status(-qs.error);
	if (st != M890_ERROR_DEVICE_FAULT && st != M890_ERROR_CANCELED &&
	    st != M890_ERROR_TIMEOUT && st != M890_ERROR_NO_DEVICE)
		st = M890_ERROR_DEVICE_ERROR;
	return m890_fail(st, "work failed on the device after point %llu: %s",
			 (unsigned long long)qs.completed_seqno,
			 strerror(-qs.error));
}

/*
 * Status of a stopped queue from DRM_M890_QUERY_QUEUE_STATE: its error
 * (the context's fault when another stream faulted), or DEVICE_ERROR if it
 * cannot be read.
 */
static m890_status_t queue_stop_status(struct m890_stream *s)
{
	struct drm_m890_queue_state qs;
	struct drm_m890_query q;
	m890_status_t st;

	memset(&qs, 0, sizeof(qs));
	qs.queue_id = s->queue_id;
	memset(&q, 0, sizeof(q));
	q.type = DRM_M890_QUERY_QUEUE_STATE;
	q.size = sizeof(qs);
	q.data = (uint64_t)(uintptr_t)&qs;
	if (drmIoctl(s->dev->fd, DRM_IOCTL_M890_QUERY, &q) || !qs.error)
		return M890_ERROR_DEVICE_ERROR;
	/* -ENOSPC: MOE_ROUTE found more rows for an expert than its capacity
	 * (M890_QERR_CAPACITY, a status of the data, not a fault) */
	if (qs.error == -ENOSPC)
		return M890_ERROR_CAPACITY;
	st = m890_errno_status(-qs.error);
	if (st != M890_ERROR_DEVICE_FAULT && st != M890_ERROR_CANCELED &&
	    st != M890_ERROR_TIMEOUT && st != M890_ERROR_NO_DEVICE)
		st = M890_ERROR_DEVICE_ERROR;
	return st;
}

/* Wait for point @seqno of @s, then check its outcome. */
m890_status_t m890_stream_wait_point(struct m890_stream *s, uint64_t seqno,
				     uint64_t timeout_ns)
{
	uint64_t point = seqno;
	m890_status_t st;

	if (seqno == 0 || seqno <= s->done_seqno)
		return s->async_error ? m890_fail(s->async_error, "%s",
						   s->async_msg) : M890_SUCCESS;
	if (drmSyncobjTimelineWait(s->dev->fd, &s->syncobj, &point, 1,
				   deadline(timeout_ns), 0, NULL)) {
		int err = errno;

		if (err == ETIME || err == ETIMEDOUT) {
			if (timeout_ns == 0)
				return m890_fail(M890_NOT_READY,
						 "%s queue %u: point %llu pending",
						 s->dev->node, s->queue_id,
						 (unsigned long long)seqno);
			return m890_fail(M890_ERROR_TIMEOUT,
					 "%s queue %u: point %llu not reached in %llu ns",
					 s->dev->node, s->queue_id,
					 (unsigned long long)seqno,
					 (unsigned long long)timeout_ns);
		}
		return m890_fail_errno(err, "%s queue %u: timeline wait",
				       s->dev->node, s->queue_id);
	}
	st = m890_point_status(s->dev->fd, s->syncobj, seqno, NULL);
	if (st == M890_SUCCESS)
		st = queue_state_check(s, seqno);
	if (st == M890_NOT_READY)
		return st;
	if (st != M890_SUCCESS) {
		if (st == M890_ERROR_DEVICE_FAULT || st == M890_ERROR_DEVICE_ERROR ||
		    st == M890_ERROR_CANCELED || st == M890_ERROR_TIMEOUT ||
		    st == M890_ERROR_NO_DEVICE)
			return set_async_error(s, st, m890_last_detail());
		if (st == M890_ERROR_CAPACITY)
			return set_async_error(s, st,
					       "an expert received more rows than its capacity (MOE_ROUTE on the card; the counts are right, the expert lists cut)");
		return st;	/* could not read the status: not sticky */
	}
	if (seqno > s->done_seqno)
		s->done_seqno = seqno;
	return M890_SUCCESS;
}

static m890_status_t submit(struct m890_stream *s,
			    const union m890_packet *pkts, uint32_t n)
{
	struct drm_m890_submit args;

	memset(&args, 0, sizeof(args));
	args.queue_id = s->queue_id;
	args.count = n;
	args.packets = (uint64_t)(uintptr_t)pkts;
	if (drmIoctl(s->dev->fd, DRM_IOCTL_M890_SUBMIT, &args)) {
		int err = errno;

		if (err == EIO) {
			/* The queue stopped on an earlier error: find out which. */
			if (s->last_seqno &&
			    m890_stream_wait_point(s, s->last_seqno,
						   s->timeout_ns) != M890_SUCCESS &&
			    s->async_error)
				return m890_fail(s->async_error, "%s", s->async_msg);
			/*
			 * No point of this stream failed: another stream of
			 * the device faulted, which stops the whole context.
			 */
			return set_async_error(s, queue_stop_status(s),
					       "queue stopped by a fault of the device context (another stream); open the device again");
		}
		if (err == EAGAIN)
			return m890_fail(M890_ERROR_BUSY,
					 "%s queue %u: ring full, submit timed out",
					 s->dev->node, s->queue_id);
		return m890_fail_errno(err, "%s queue %u: submit of %u packet(s)",
				       s->dev->node, s->queue_id, n);
	}
	s->last_seqno = args.seqno;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_stream_flush(m890_stream_t s)
{
	M890_API_SCOPE;
	m890_status_t st = stream_check(s);
	uint32_t n;

	if (st)
		return st;
	n = s->staged;
	if (!n)
		return M890_SUCCESS;
	st = submit(s, s->stage, n);
	if (st == M890_SUCCESS)
		s->staged = 0;
	return st;
}

/* Submit or stage @n packets; the caller checked the stream. */
/*
 * M890_PKT_F_RELAXED on the data packets of @p[0..n) (hardware spec §7):
 * what the library marks with m890_stream.relaxed while it stages, for
 * work that does not depend on the packets before it since the last
 * drain.  Only staged packets are marked; an immediate submission keeps
 * its order, which is never wrong.
 */
static void stage_relax(union m890_packet *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t op = M890_PKT_OPCODE(p[i].hdr);

		if (op != M890_PKT_NOP && op != M890_PKT_WAIT &&
		    op != M890_PKT_TIMESTAMP && op != M890_PKT_FENCE)
			p[i].hdr |= M890_PKT_HDR(0, M890_PKT_F_RELAXED);
	}
}

m890_status_t m890_stream_enqueue(struct m890_stream *s,
				  const union m890_packet *pkts, uint32_t n)
{
	m890_status_t st;

	if (!(s->flags & M890_STREAM_DEFERRED) && !s->batch) {
		while (n) {
			uint32_t k = n < s->stage_cap ? n : s->stage_cap;

			st = submit(s, pkts, k);
			if (st)
				return st;
			pkts += k;
			n -= k;
		}
		return M890_SUCCESS;
	}
	while (n) {
		uint32_t room = s->stage_cap - s->staged;
		uint32_t k = n < room ? n : room;

		memcpy(&s->stage[s->staged], pkts, (size_t)k * sizeof(*pkts));
		if (s->relaxed)
			stage_relax(&s->stage[s->staged], k);
		s->staged += k;
		pkts += k;
		n -= k;
		if (s->staged == s->stage_cap) {
			st = m890_stream_flush(s);
			if (st)
				return st;
		}
	}
	return M890_SUCCESS;
}

/*
 * With @on, stage what is enqueued on @s as on a deferred stream (in
 * submissions of up to the staging array's size) until called again
 * without @on, which submits what is staged.  Staging is only an
 * optimization: without memory for the array the stream keeps
 * submitting each call at once.
 */
m890_status_t m890_stream_batch(struct m890_stream *s, bool on)
{
	m890_status_t st;

	if (on) {
		if (!s->stage)
			s->stage = calloc(s->stage_cap, sizeof(*s->stage));
		s->batch = s->stage != NULL;
		return M890_SUCCESS;
	}
	if (!s->batch)
		return M890_SUCCESS;
	s->batch = false;
	st = m890_stream_flush(s);
	/* As a failed submission of each call would have dropped its packet. */
	if (st && !(s->flags & M890_STREAM_DEFERRED))
		s->staged = 0;
	return st;
}

M890_EXPORT m890_status_t m890_stream_create(m890_device_t dev,
					     m890_stream_t *stream)
{
	M890_API_SCOPE;
	struct m890_stream_config cfg = M890_STREAM_CONFIG_INIT;

	return m890_stream_create_config(dev, &cfg, stream);
}

M890_EXPORT m890_status_t
m890_stream_create_config(m890_device_t dev,
			  const struct m890_stream_config *cfg,
			  m890_stream_t *stream)
{
	M890_API_SCOPE;
	struct drm_m890_queue_create qc;
	struct m890_stream *s;
	uint32_t cap;
	m890_status_t st;

	st = m890_check(dev, M890_OBJ_DEVICE, "device");
	if (st)
		return st;
	if (!cfg || !stream)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_stream_create_config: NULL argument");
	if (cfg->size < sizeof(*cfg) || cfg->magic != M890_STREAM_CONFIG_MAGIC ||
	    cfg->version != M890_STREAM_CONFIG_VERSION)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "stream config not initialised with M890_STREAM_CONFIG_INIT (size %u magic 0x%x version %u)",
				 cfg->size, cfg->magic, cfg->version);
	if (cfg->flags & ~M890_STREAM_FLAGS || cfg->reserved)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "stream config: unknown flags 0x%x or reserved field set",
				 cfg->flags & ~M890_STREAM_FLAGS);
	cap = dev->info.max_submit_packets ? dev->info.max_submit_packets :
		DEFAULT_MAX_SUBMIT;
	if (cfg->batch_packets && cfg->batch_packets < cap)
		cap = cfg->batch_packets;

	s = calloc(1, sizeof(*s));
	if (!s)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "stream object");
	s->stage_cap = cap;
	if (cfg->flags & M890_STREAM_DEFERRED) {
		s->stage = calloc(cap, sizeof(*s->stage));
		if (!s->stage) {
			free(s);
			return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY,
					 "stream staging array");
		}
	}
	memset(&qc, 0, sizeof(qc));
	if (drmIoctl(dev->fd, DRM_IOCTL_M890_QUEUE_CREATE, &qc)) {
		int err = errno;

		free(s->stage);
		free(s);
		if (err == EBUSY)
			return m890_fail(M890_ERROR_BUSY,
					 "%s: every hardware queue is in use",
					 dev->node);
		if (err == EDQUOT)
			return m890_fail(M890_ERROR_BUSY,
					 "%s: this user's open files of the card own as many queues as the driver allows one user (module parameter queues_per_user)",
					 dev->node);
		return m890_fail_errno(err, "%s: queue create", dev->node);
	}
	s->obj.type = M890_OBJ_STREAM;
	s->dev = dev;
	s->queue_id = qc.queue_id;
	s->syncobj = qc.syncobj;
	s->flags = cfg->flags;
	s->timeout_ns = cfg->timeout_ns;
	st = m890_obj_register(s);
	if (st) {
		struct drm_m890_queue_destroy qd = { .queue_id = qc.queue_id };

		drmIoctl(dev->fd, DRM_IOCTL_M890_QUEUE_DESTROY, &qd);
		drmSyncobjDestroy(dev->fd, qc.syncobj);
		free(s->stage);
		free(s);
		return st;
	}
	m890_device_get_child(dev);
	*stream = s;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_stream_destroy(m890_stream_t s)
{
	M890_API_SCOPE;
	struct drm_m890_queue_destroy qd;
	m890_status_t st = m890_check(s, M890_OBJ_STREAM, "stream");
	struct m890_device *dev;

	if (st)
		return st;
	dev = s->dev;
	/* Let finished work finish; errors were the caller's to collect. */
	if (!s->async_error) {
		if (m890_stream_flush(s) == M890_SUCCESS)
			m890_stream_wait_point(s, s->last_seqno, s->timeout_ns);
	}
	st = m890_obj_unregister(s);
	if (st)
		return st;
	memset(&qd, 0, sizeof(qd));
	qd.queue_id = s->queue_id;
	drmIoctl(dev->fd, DRM_IOCTL_M890_QUEUE_DESTROY, &qd);
	/* Events recorded on this stream hold their own syncobj copy. */
	drmSyncobjDestroy(dev->fd, s->syncobj);
	m890_device_put_child(dev);
	free(s->stage);
	free(s);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_stream_synchronize(m890_stream_t s)
{
	M890_API_SCOPE;
	m890_status_t st = m890_stream_flush(s);

	if (st)
		return st;
	return m890_stream_wait_point(s, s->last_seqno, s->timeout_ns);
}

M890_EXPORT m890_status_t m890_stream_query(m890_stream_t s)
{
	M890_API_SCOPE;
	m890_status_t st = m890_stream_flush(s);

	if (st)
		return st;
	return m890_stream_wait_point(s, s->last_seqno, 0);
}

M890_EXPORT m890_status_t m890_stream_get_async_error(m890_stream_t s,
						      m890_status_t *error)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(s, M890_OBJ_STREAM, "stream",
					  error, "m890_stream_get_async_error");

	if (st)
		return st;
	*error = s->async_error;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_stream_device(m890_stream_t s,
					     m890_device_t *device)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check_out(s, M890_OBJ_STREAM, "stream",
					  device, "m890_stream_device");

	if (st)
		return st;
	*device = s->dev;
	return M890_SUCCESS;
}

/* ---- memory operations ---- */

static m890_status_t enqueue_copy(struct m890_stream *s, uint64_t dst,
				  uint64_t src, uint64_t bytes)
{
	union m890_packet p;
	m890_status_t st;

	if (bytes == 0)
		return M890_SUCCESS;
	if (src + bytes < src || dst + bytes < dst)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "copy of %llu bytes wraps the address space",
				 (unsigned long long)bytes);
	while (bytes) {
		uint64_t k = bytes < COPY_MAX_BYTES ? bytes : COPY_MAX_BYTES;

		memset(&p, 0, sizeof(p));
		p.copy.hdr = M890_PKT_HDR(M890_PKT_COPY, 0);
		p.copy.src = src;
		p.copy.dst = dst;
		p.copy.size = k;
		st = m890_stream_enqueue(s, &p, 1);
		if (st)
			return st;
		src += k;
		dst += k;
		bytes -= k;
	}
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_memcpy(m890_stream_t s, uint64_t dst_va,
				      uint64_t src_va, uint64_t bytes)
{
	M890_API_SCOPE;
	m890_status_t st = stream_check(s);

	if (st)
		return st;
	return enqueue_copy(s, dst_va, src_va, bytes);
}

/* Check that [off, off + bytes) lies in a buffer of @size bytes. */
static m890_status_t check_range(const char *what, uint64_t size,
				 uint64_t off, uint64_t bytes)
{
	if (off > size || bytes > size - off)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s range [%llu, +%llu) exceeds its %llu bytes",
				 what, (unsigned long long)off,
				 (unsigned long long)bytes,
				 (unsigned long long)size);
	return M890_SUCCESS;
}

static m890_status_t check_local(struct m890_stream *s, struct m890_buffer *b,
				 const char *what, unsigned int want)
{
	m890_status_t st = m890_check(b, M890_OBJ_BUFFER, what);

	if (st)
		return st;
	if (b->dev != s->dev)
		return m890_fail(M890_ERROR_DEVICE_MISMATCH,
				 "%s buffer is on %s, the stream on %s",
				 what, b->dev->node, s->dev->node);
	if (want && !(b->flags & want))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "%s buffer must be %s memory", what,
				 want == M890_MEM_HBM ? "HBM" : "host");
	return M890_SUCCESS;
}

static m890_status_t buf_copy(struct m890_stream *s,
			      struct m890_buffer *dst, uint64_t dst_off,
			      unsigned int dst_want,
			      struct m890_buffer *src, uint64_t src_off,
			      unsigned int src_want, uint64_t bytes)
{
	m890_status_t st = stream_check(s);

	if (st)
		return st;
	st = check_local(s, dst, "destination", dst_want);
	if (st)
		return st;
	st = check_local(s, src, "source", src_want);
	if (st)
		return st;
	st = check_range("destination", dst->bytes, dst_off, bytes);
	if (st)
		return st;
	st = check_range("source", src->bytes, src_off, bytes);
	if (st)
		return st;
	return enqueue_copy(s, dst->va + dst_off, src->va + src_off, bytes);
}

M890_EXPORT m890_status_t m890_memcpy_htod(m890_stream_t s,
					   m890_buffer_t dst, uint64_t dst_off,
					   m890_buffer_t src, uint64_t src_off,
					   uint64_t bytes)
{
	M890_API_SCOPE;
	return buf_copy(s, dst, dst_off, M890_MEM_HBM, src, src_off,
			M890_MEM_HOST, bytes);
}

M890_EXPORT m890_status_t m890_memcpy_dtoh(m890_stream_t s,
					   m890_buffer_t dst, uint64_t dst_off,
					   m890_buffer_t src, uint64_t src_off,
					   uint64_t bytes)
{
	M890_API_SCOPE;
	return buf_copy(s, dst, dst_off, M890_MEM_HOST, src, src_off,
			M890_MEM_HBM, bytes);
}

M890_EXPORT m890_status_t m890_memcpy_dtod(m890_stream_t s,
					   m890_buffer_t dst, uint64_t dst_off,
					   m890_buffer_t src, uint64_t src_off,
					   uint64_t bytes)
{
	M890_API_SCOPE;
	return buf_copy(s, dst, dst_off, M890_MEM_HBM, src, src_off,
			M890_MEM_HBM, bytes);
}

M890_EXPORT m890_status_t m890_memcpy_peer(m890_stream_t s,
					   m890_window_t dst, uint64_t dst_off,
					   m890_buffer_t src, uint64_t src_off,
					   uint64_t bytes)
{
	M890_API_SCOPE;
	m890_status_t st = stream_check(s);

	if (st)
		return st;
	st = m890_check(dst, M890_OBJ_WINDOW, "window");
	if (st)
		return st;
	if (dst->dev != s->dev)
		return m890_fail(M890_ERROR_DEVICE_MISMATCH,
				 "window is imported on %s, the stream is on %s",
				 dst->dev->node, s->dev->node);
	st = check_local(s, src, "source", 0);
	if (st)
		return st;
	st = check_range("window", dst->bytes, dst_off, bytes);
	if (st)
		return st;
	st = check_range("source", src->bytes, src_off, bytes);
	if (st)
		return st;
	return enqueue_copy(s, dst->va + dst_off, src->va + src_off, bytes);
}

M890_EXPORT m890_status_t m890_memcpy_2d(m890_stream_t s, uint64_t dst_va,
					uint64_t dst_pitch, uint64_t src_va,
					uint64_t src_pitch, uint64_t width,
					uint64_t height)
{
	M890_API_SCOPE;
	union m890_packet p;
	m890_status_t st = stream_check(s);

	if (st)
		return st;
	if (width > UINT32_MAX || height > UINT32_MAX ||
	    (width && height > COPY_MAX_BYTES / width))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "memcpy_2d: %llu rows of %llu bytes: limits 2^32 - 1 each, 2^40 in all",
				 (unsigned long long)height,
				 (unsigned long long)width);
	if (src_pitch < width || dst_pitch < width ||
	    src_pitch > (1ull << 48) || dst_pitch > (1ull << 48))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "memcpy_2d: pitches %llu and %llu must be >= the width %llu and <= 2^48",
				 (unsigned long long)src_pitch,
				 (unsigned long long)dst_pitch,
				 (unsigned long long)width);
	if (width && height) {
		uint64_t last_src, last_dst;

		if (__builtin_mul_overflow(height - 1, src_pitch, &last_src) ||
		    __builtin_mul_overflow(height - 1, dst_pitch, &last_dst) ||
		    __builtin_add_overflow(last_src, width, &last_src) ||
		    __builtin_add_overflow(last_dst, width, &last_dst) ||
		    src_va + last_src < src_va || dst_va + last_dst < dst_va)
			return m890_fail(M890_ERROR_INVALID_ARGUMENT,
					 "memcpy_2d: the last row wraps the address space");
	}
	memset(&p, 0, sizeof(p));
	p.copy_2d.hdr = M890_PKT_HDR(M890_PKT_COPY_2D, 0);
	p.copy_2d.width = (uint32_t)width;
	p.copy_2d.src = src_va;
	p.copy_2d.dst = dst_va;
	p.copy_2d.src_pitch = src_pitch;
	p.copy_2d.dst_pitch = dst_pitch;
	p.copy_2d.height = (uint32_t)height;
	return m890_stream_enqueue(s, &p, 1);
}

M890_EXPORT m890_status_t m890_memset32(m890_stream_t s, uint64_t dst_va,
					uint32_t pattern, uint64_t bytes)
{
	M890_API_SCOPE;
	union m890_packet p;
	m890_status_t st = stream_check(s);

	if (st)
		return st;
	if ((dst_va & 3) || (bytes & 3))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "memset32: address 0x%llx and size %llu must be multiples of 4",
				 (unsigned long long)dst_va,
				 (unsigned long long)bytes);
	if (dst_va + bytes < dst_va)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "memset32 of %llu bytes wraps the address space",
				 (unsigned long long)bytes);
	while (bytes) {
		uint64_t k = bytes < COPY_MAX_BYTES ? bytes : COPY_MAX_BYTES;

		memset(&p, 0, sizeof(p));
		p.fill.hdr = M890_PKT_HDR(M890_PKT_FILL, 0);
		p.fill.pattern = pattern;
		p.fill.dst = dst_va;
		p.fill.size = k;
		st = m890_stream_enqueue(s, &p, 1);
		if (st)
			return st;
		dst_va += k;
		bytes -= k;
	}
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_signal(m890_stream_t s, uint64_t sem_va,
				      uint64_t value, enum m890_sem_op op)
{
	M890_API_SCOPE;
	union m890_packet p;
	m890_status_t st = stream_check(s);

	if (st)
		return st;
	if (sem_va & 7)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "signal: semaphore 0x%llx not 8-byte aligned",
				 (unsigned long long)sem_va);
	if (op != M890_SEM_SET && op != M890_SEM_ADD)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "signal: unknown op %d", (int)op);
	memset(&p, 0, sizeof(p));
	p.signal.hdr = M890_PKT_HDR(M890_PKT_SIGNAL, 0);
	p.signal.op = op == M890_SEM_ADD ? M890_SIGNAL_ADD : M890_SIGNAL_SET;
	p.signal.addr = sem_va;
	p.signal.value = value;
	return m890_stream_enqueue(s, &p, 1);
}

M890_EXPORT m890_status_t m890_wait(m890_stream_t s, uint64_t sem_va,
				    uint64_t value, enum m890_sem_cond cond)
{
	M890_API_SCOPE;
	union m890_packet p;
	m890_status_t st = stream_check(s);

	if (st)
		return st;
	if (sem_va & 7)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "wait: semaphore 0x%llx not 8-byte aligned",
				 (unsigned long long)sem_va);
	if (cond != M890_SEM_GE && cond != M890_SEM_EQ)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "wait: unknown condition %d", (int)cond);
	memset(&p, 0, sizeof(p));
	p.wait.hdr = M890_PKT_HDR(M890_PKT_WAIT, 0);
	p.wait.cond = cond == M890_SEM_EQ ? M890_WAIT_EQ : M890_WAIT_GE;
	p.wait.addr = sem_va;
	p.wait.value = value;
	return m890_stream_enqueue(s, &p, 1);
}
