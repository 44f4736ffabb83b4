// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 handle lifetime tests (guest)
 *
 * A handle in use by one thread is not freed under it by another: thread
 * A blocks in m890_event_synchronize() on an event behind a WAIT that the
 * host releases later, thread B destroys the event meanwhile.  B's
 * destroy must return only after A's call has returned (and A's call must
 * succeed, having used a live object); the handle is invalid afterwards.
 * Two threads destroying one busy event: exactly one succeeds, the other
 * gets M890_ERROR_INVALID_HANDLE.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct call {
	pthread_t thread;
	m890_event_t ev;
	m890_status_t st;
	_Atomic double done_at;
};

static void *sync_thread(void *arg)
{
	struct call *c = arg;

	c->st = m890_event_synchronize(c->ev);
	atomic_store(&c->done_at, now_s());
	return NULL;
}

static void *destroy_thread(void *arg)
{
	struct call *c = arg;

	c->st = m890_event_destroy(c->ev);
	atomic_store(&c->done_at, now_s());
	return NULL;
}

/* A WAIT on *@sem >= @round, then @ev recorded behind it. */
static void arm(m890_stream_t s, uint64_t sem_va, uint64_t round, m890_event_t ev)
{
	TAP_REQUIRE(m890_wait(s, sem_va, round, M890_SEM_GE));
	TAP_REQUIRE(m890_event_record(ev, s));
}

int main(void)
{
	struct call a, b, b2;
	volatile uint64_t *sem;
	m890_device_t dev;
	m890_stream_t s;
	m890_buffer_t h;
	double released;
	uint64_t va;
	void *p;
	int ok;

	TAP_REQUIRE(m890_device_open(0, &dev));
	TAP_REQUIRE(m890_stream_create(dev, &s));
	TAP_REQUIRE(m890_buffer_alloc(dev, 4096, M890_MEM_HOST, &h));
	TAP_REQUIRE(m890_buffer_map(h, &p));
	TAP_REQUIRE(m890_buffer_va(h, &va));
	sem = p;
	*sem = 0;

	/* One thread waits on the event, another destroys it meanwhile. */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	TAP_REQUIRE(m890_event_create(dev, &a.ev));
	b.ev = a.ev;
	arm(s, va, 1, a.ev);
	pthread_create(&a.thread, NULL, sync_thread, &a);
	usleep(200 * 1000);
	pthread_create(&b.thread, NULL, destroy_thread, &b);
	usleep(300 * 1000);
	released = now_s();
	*sem = 1;
	pthread_join(a.thread, NULL);
	pthread_join(b.thread, NULL);
	tap_ok(a.st == M890_SUCCESS, "synchronize on the event succeeds (%s)",
	       m890_status_string(a.st));
	tap_ok(b.st == M890_SUCCESS, "destroy of the event in use succeeds (%s)",
	       m890_status_string(b.st));
	tap_ok(atomic_load(&b.done_at) >= released,
	       "destroy returned only after the WAIT was released (%.3f s after)",
	       atomic_load(&b.done_at) - released);
	tap_ok(atomic_load(&b.done_at) >= atomic_load(&a.done_at),
	       "destroy returned after the synchronize that used the event");
	TAP_STATUS(m890_event_query(a.ev), M890_ERROR_INVALID_HANDLE);
	TAP_STATUS(m890_stream_synchronize(s), M890_SUCCESS);

	/* Two destroys of one busy event: one frees it, one is refused. */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&b2, 0, sizeof(b2));
	TAP_REQUIRE(m890_event_create(dev, &a.ev));
	b.ev = b2.ev = a.ev;
	arm(s, va, 2, a.ev);
	pthread_create(&a.thread, NULL, sync_thread, &a);
	usleep(200 * 1000);
	pthread_create(&b.thread, NULL, destroy_thread, &b);
	pthread_create(&b2.thread, NULL, destroy_thread, &b2);
	usleep(300 * 1000);
	*sem = 2;
	pthread_join(a.thread, NULL);
	pthread_join(b.thread, NULL);
	pthread_join(b2.thread, NULL);
	tap_ok(a.st == M890_SUCCESS, "synchronize under two destroys succeeds (%s)",
	       m890_status_string(a.st));
	ok = (b.st == M890_SUCCESS && b2.st == M890_ERROR_INVALID_HANDLE) ||
	     (b2.st == M890_SUCCESS && b.st == M890_ERROR_INVALID_HANDLE);
	tap_ok(ok, "one destroy frees the event, the other gets INVALID_HANDLE (%s, %s)",
	       m890_status_string(b.st), m890_status_string(b2.st));
	TAP_STATUS(m890_stream_synchronize(s), M890_SUCCESS);

	TAP_STATUS(m890_stream_destroy(s), M890_SUCCESS);
	TAP_STATUS(m890_buffer_free(h), M890_SUCCESS);
	TAP_STATUS(m890_device_close(dev), M890_SUCCESS);
	return tap_done();
}
