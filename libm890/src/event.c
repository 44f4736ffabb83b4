// SPDX-License-Identifier: MIT
/*
 * DOC: events
 *
 * An event is a point in a stream with two clocks.  Recording flushes the
 * stream and submits one TIMESTAMP packet that writes the card's modelled
 * device clock (ns) into a small host BO owned by the event; the fence of
 * that submission is copied into a binary syncobj owned by the event, so
 * the event stays usable after its stream is destroyed.  When the fence
 * has signalled, the event's wall time is the fence's signal timestamp
 * (sync_file fence info, CLOCK_MONOTONIC) and its device time is the value
 * the packet wrote.  Differences of either give elapsed times: wall time
 * is what the host observed, device time what the modelled hardware would
 * take.
 *
 * The same host BO holds, at EVENT_SEM, a 64-bit semaphore for waits on
 * the card (m890_stream_wait_event()): the k-th record enqueues, after
 * its TIMESTAMP, a SIGNAL SET of the semaphore to k, and a wait enqueued
 * after that record is a WAIT for >= k on the waiting stream.  No host
 * round trip: the waiting stream's packets are submitted at once and the
 * card holds them until the recorded point has executed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include "internal.h"

#define TS_BO_BYTES 4096
#define EVENT_SEM 8		/* byte offset of the semaphore in the BO */

M890_EXPORT m890_status_t m890_event_create(m890_device_t dev,
					    m890_event_t *event)
{
	M890_API_SCOPE;
	struct m890_event *ev;
	m890_status_t st;
	void *p;

	st = m890_check(dev, M890_OBJ_DEVICE, "device");
	if (st)
		return st;
	if (!event)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_event_create: NULL output");
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return m890_fail(M890_ERROR_OUT_OF_HOST_MEMORY, "event object");
	st = m890_buffer_create(dev, TS_BO_BYTES, M890_MEM_HOST, &ev->ts);
	if (st)
		goto err_free;
	st = m890_buffer_map(ev->ts, &p);
	if (st)
		goto err_bo;
	ev->ts_ptr = p;
	ev->ts_ptr[0] = 0;
	ev->ts_ptr[EVENT_SEM / 8] = 0;
	if (drmSyncobjCreate(dev->fd, 0, &ev->syncobj)) {
		st = m890_fail_errno(errno, "%s: event syncobj", dev->node);
		goto err_bo;
	}
	ev->obj.type = M890_OBJ_EVENT;
	ev->dev = dev;
	st = m890_obj_register(ev);
	if (st)
		goto err_syncobj;
	m890_device_get_child(dev);
	*event = ev;
	return M890_SUCCESS;

err_syncobj:
	drmSyncobjDestroy(dev->fd, ev->syncobj);
err_bo:
	m890_buffer_destroy(ev->ts);
err_free:
	free(ev);
	return st;
}

M890_EXPORT m890_status_t m890_event_destroy(m890_event_t ev)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(ev, M890_OBJ_EVENT, "event");
	struct m890_device *dev;

	if (st)
		return st;
	dev = ev->dev;
	st = m890_obj_unregister(ev);
	if (st)
		return st;
	drmSyncobjDestroy(dev->fd, ev->syncobj);
	/* A pending TIMESTAMP may still target the BO: the kernel keeps the
	 * BO alive for in-flight work, so freeing it here is safe. */
	m890_buffer_destroy(ev->ts);
	m890_device_put_child(dev);
	free(ev);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_event_record(m890_event_t ev, m890_stream_t s)
{
	M890_API_SCOPE;
	union m890_packet p;
	m890_status_t st;

	st = m890_check(ev, M890_OBJ_EVENT, "event");
	if (st)
		return st;
	st = m890_stream_flush(s);	/* checks @s and its async error */
	if (st)
		return st;
	if (s->dev != ev->dev)
		return m890_fail(M890_ERROR_DEVICE_MISMATCH,
				 "event of %s recorded on a stream of %s",
				 ev->dev->node, s->dev->node);
	if (!(ev->dev->info.capabilities & DRM_M890_CAP_TIMESTAMP))
		return m890_fail(M890_ERROR_NOT_SUPPORTED,
				 "%s has no TIMESTAMP packet", ev->dev->node);
	/* In a group the calls before this record are enqueued at its end. */
	if (m890_group_active())
		return m890_group_record(ev, s);
	memset(&p, 0, sizeof(p));
	p.timestamp.hdr = M890_PKT_HDR(M890_PKT_TIMESTAMP, 0);
	p.timestamp.addr = ev->ts->va;
	st = m890_stream_enqueue(s, &p, 1);
	if (st)
		return st;
	st = m890_signal(s, ev->ts->va + EVENT_SEM, ev->gen + 1, M890_SEM_SET);
	if (st)
		return st;
	ev->gen++;
	st = m890_stream_flush(s);
	if (st)
		return st;
	if (drmSyncobjTransfer(ev->dev->fd, ev->syncobj, 0, s->syncobj,
			       s->last_seqno, 0))
		return m890_fail_errno(errno, "%s: event syncobj transfer",
				       ev->dev->node);
	ev->recorded = true;
	ev->complete = false;
	ev->status = M890_SUCCESS;
	return M890_SUCCESS;
}

/* Wait up to @timeout_ns (0: poll) and latch the event's result. */
static m890_status_t event_wait(struct m890_event *ev, int64_t abs_timeout)
{
	m890_status_t st;
	int64_t wall;

	if (!ev->recorded)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "event was never recorded");
	if (ev->complete)
		return ev->status ? m890_fail(ev->status,
					      "recorded work failed") :
			M890_SUCCESS;
	/*
	 * The SIGNAL that ends the recorded point lets other streams' waits
	 * go on before the submission's fence has signalled: its completion
	 * write and interrupt are still on their way.  A stream that waited
	 * on the event may already be done, so a poll that sees the
	 * semaphore reached waits for that fence instead of answering
	 * "not ready".  Nothing follows the SIGNAL in that submission
	 * (m890_event_record() flushes after it), so the wait is short.
	 */
	if (!abs_timeout && ev->ts_ptr[EVENT_SEM / 8] >= ev->gen)
		abs_timeout = INT64_MAX;
	if (drmSyncobjWait(ev->dev->fd, &ev->syncobj, 1, abs_timeout, 0,
			   NULL)) {
		if (errno == ETIME || errno == ETIMEDOUT)
			return m890_fail(M890_NOT_READY, "event not complete");
		return m890_fail_errno(errno, "%s: event wait", ev->dev->node);
	}
	st = m890_fence_status(ev->dev->fd, ev->syncobj, &wall);
	if (st == M890_NOT_READY)
		return st;
	ev->complete = true;
	ev->status = st;
	ev->wall_ns = wall;
	ev->device_ns = *ev->ts_ptr;
	return st;
}

M890_EXPORT m890_status_t m890_event_synchronize(m890_event_t ev)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(ev, M890_OBJ_EVENT, "event");

	if (st)
		return st;
	return event_wait(ev, INT64_MAX);
}

M890_EXPORT m890_status_t m890_event_query(m890_event_t ev)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(ev, M890_OBJ_EVENT, "event");

	if (st)
		return st;
	return event_wait(ev, 0);
}

M890_EXPORT m890_status_t m890_event_elapsed_time(m890_event_t start,
						  m890_event_t end,
						  int64_t *wall_ns,
						  int64_t *device_ns)
{
	M890_API_SCOPE;
	m890_status_t st;

	st = m890_check(start, M890_OBJ_EVENT, "start event");
	if (st)
		return st;
	st = m890_check(end, M890_OBJ_EVENT, "end event");
	if (st)
		return st;
	if (!wall_ns && !device_ns)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_event_elapsed_time: no output");
	if (device_ns && start->dev != end->dev)
		return m890_fail(M890_ERROR_DEVICE_MISMATCH,
				 "device clocks of %s and %s are unrelated",
				 start->dev->node, end->dev->node);
	st = event_wait(start, 0);
	if (st)
		return st;
	st = event_wait(end, 0);
	if (st)
		return st;
	if (wall_ns)
		*wall_ns = end->wall_ns - start->wall_ns;
	if (device_ns)
		*device_ns = (int64_t)(end->device_ns - start->device_ns);
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_event_get_timestamp(m890_event_t ev,
						   int64_t *wall_ns,
						   uint64_t *device_ns)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(ev, M890_OBJ_EVENT, "event");

	if (st)
		return st;
	if (!wall_ns && !device_ns)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "m890_event_get_timestamp: no output");
	st = event_wait(ev, 0);
	if (st)
		return st;
	if (wall_ns)
		*wall_ns = ev->wall_ns;
	if (device_ns)
		*device_ns = ev->device_ns;
	return M890_SUCCESS;
}

M890_EXPORT m890_status_t m890_stream_wait_event(m890_stream_t s,
						 m890_event_t ev)
{
	M890_API_SCOPE;
	m890_status_t st = m890_check(ev, M890_OBJ_EVENT, "event");

	if (st)
		return st;
	st = m890_check(s, M890_OBJ_STREAM, "stream");
	if (st)
		return st;
	if (s->async_error)
		return m890_fail(s->async_error, "%s", s->async_msg);
	if (s->dev != ev->dev)
		return m890_fail(M890_ERROR_DEVICE_MISMATCH,
				 "stream_wait_event: the event is of %s, the stream of %s",
				 ev->dev->node, s->dev->node);
	if (m890_group_active() && m890_group_records(ev))
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "stream_wait_event: the event's record in this group is made at m890_group_end(); wait after it");
	if (!ev->recorded)
		return m890_fail(M890_ERROR_INVALID_ARGUMENT,
				 "stream_wait_event: the event was never recorded");
	return m890_wait(s, ev->ts->va + EVENT_SEM, ev->gen, M890_SEM_GE);
}
