// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 stream tests (guest)
 *
 * Work enqueued on streams: fills, copies between host and HBM, zero
 * sizes, semaphores, deferred batching past one submission, events with
 * wall and device time; and the failures: unaligned fills, ranges past a
 * buffer or wrapping 2^64, a copy to an unmapped VA reported as a sticky
 * async fault, stale stream handles, every queue taken.
 */
#include <string.h>

#include "tap.h"

#define N (1u << 20)

static int check_fill(const uint32_t *p, uint64_t words, uint32_t v)
{
	for (uint64_t i = 0; i < words; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

int main(void)
{
	struct m890_device_info info = M890_DEVICE_INFO_INIT;
	m890_device_t dev;
	m890_stream_t s, s2;
	m890_buffer_t h, h2, d, d2;
	m890_event_t e0, e1;
	uint64_t vh, vh2, vd;
	uint8_t *ph, *ph2;
	m890_status_t st, async;
	void *p;

	TAP_REQUIRE(m890_device_open(0, &dev));
	TAP_REQUIRE(m890_device_get_info(dev, &info));
	TAP_REQUIRE(m890_stream_create(dev, &s));
	TAP_REQUIRE(m890_buffer_alloc(dev, N, M890_MEM_HOST, &h));
	TAP_REQUIRE(m890_buffer_alloc(dev, N, M890_MEM_HOST, &h2));
	TAP_REQUIRE(m890_buffer_alloc(dev, N, M890_MEM_HBM, &d));
	TAP_REQUIRE(m890_buffer_alloc(dev, N, M890_MEM_HBM, &d2));
	TAP_REQUIRE(m890_buffer_map(h, &p));
	ph = p;
	TAP_REQUIRE(m890_buffer_map(h2, &p));
	ph2 = p;
	m890_buffer_va(h, &vh);
	m890_buffer_va(h2, &vh2);
	m890_buffer_va(d, &vd);

	/* FILL into host memory. */
	memset(ph, 0, N);
	TAP_STATUS(m890_memset32(s, vh, 0xa5a55a5a, N), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(s), M890_SUCCESS);
	tap_ok(check_fill((uint32_t *)ph, N / 4, 0xa5a55a5a), "memset32 of 1 MiB host");

	/* host -> HBM -> HBM -> host round trip with odd offsets. */
	for (uint32_t i = 0; i < N; i++)
		ph[i] = (uint8_t)(i * 7 + 3);
	memset(ph2, 0, N);
	TAP_STATUS(m890_memcpy_htod(s, d, 0, h, 0, N), M890_SUCCESS);
	TAP_STATUS(m890_memcpy_dtod(s, d2, 1, d, 3, N - 3), M890_SUCCESS);
	TAP_STATUS(m890_memcpy_dtoh(s, h2, 0, d2, 1, N - 3), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(s), M890_SUCCESS);
	tap_ok(memcmp(ph2, ph + 3, N - 3) == 0, "htod/dtod/dtoh round trip, unaligned");

	/* Generic memcpy by VA, zero size, query. */
	TAP_STATUS(m890_memcpy(s, vh2, vd, 4096), M890_SUCCESS);
	TAP_STATUS(m890_memcpy(s, vh2, vd, 0), M890_SUCCESS);
	TAP_STATUS(m890_memset32(s, vh2, 0, 0), M890_SUCCESS);
	st = m890_stream_query(s);
	tap_ok(st == M890_SUCCESS || st == M890_NOT_READY, "query: %s",
	       m890_status_string(st));
	TAP_STATUS(m890_stream_synchronize(s), M890_SUCCESS);
	TAP_STATUS(m890_stream_query(s), M890_SUCCESS);
	tap_ok(memcmp(ph2, ph, 4096) == 0, "memcpy by VA");

	/* Argument checks, all before anything is enqueued. */
	TAP_STATUS(m890_memset32(s, vh + 2, 0, 8), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memset32(s, vh, 0, 6), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memset32(s, UINT64_MAX - 3, 0, 8), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy(s, UINT64_MAX - 10, vh, 100), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy_htod(s, d, 1, h, 0, N), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy_htod(s, d, 0, h, N + 1, 0), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy_htod(s, d, UINT64_MAX, h, 0, 2), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy_htod(s, d, 8, h, 0, UINT64_MAX - 4), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy_htod(s, h, 0, d, 0, 16), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy_dtoh(s, d, 0, h, 0, 16), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy_dtod(s, d, 0, h, 0, 16), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy_htod(s, d, 0, (m890_buffer_t)(void *)s, 0, 16),
		   M890_ERROR_INVALID_HANDLE);
	TAP_STATUS(m890_signal(s, vh + 4, 1, M890_SEM_SET), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_signal(s, vh, 1, (enum m890_sem_op)7), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_wait(s, vh, 1, (enum m890_sem_cond)9), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy(NULL, vh, vh2, 8), M890_ERROR_INVALID_HANDLE);
	TAP_STATUS(m890_stream_synchronize(s), M890_SUCCESS);

	/* Semaphores: SET, ADD, WAIT on a value already reached. */
	memset(ph, 0, 64);
	TAP_STATUS(m890_signal(s, vh, 40, M890_SEM_SET), M890_SUCCESS);
	TAP_STATUS(m890_signal(s, vh, 2, M890_SEM_ADD), M890_SUCCESS);
	TAP_STATUS(m890_wait(s, vh, 42, M890_SEM_EQ), M890_SUCCESS);
	TAP_STATUS(m890_wait(s, vh, 41, M890_SEM_GE), M890_SUCCESS);
	TAP_STATUS(m890_signal(s, vh + 8, 7, M890_SEM_SET), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(s), M890_SUCCESS);
	tap_ok(((uint64_t *)ph)[0] == 42 && ((uint64_t *)ph)[1] == 7,
	       "signal set/add, wait ge/eq (%llu, %llu)",
	       (unsigned long long)((uint64_t *)ph)[0],
	       (unsigned long long)((uint64_t *)ph)[1]);

	/* Deferred stream: more packets than one submission carries. */
	{
		struct m890_stream_config cfg = M890_STREAM_CONFIG_INIT;
		struct m890_stream_config bad = M890_STREAM_CONFIG_INIT;
		uint32_t count = 1000, ok = 1;

		cfg.flags = M890_STREAM_DEFERRED;
		cfg.batch_packets = 64;
		TAP_REQUIRE(m890_stream_create_config(dev, &cfg, &s2));
		for (uint32_t i = 0; i < count && ok; i++)
			ok = m890_memset32(s2, vh2 + 4 * i, i, 4) == M890_SUCCESS;
		tap_ok(ok, "deferred: %u fills enqueued", count);
		TAP_STATUS(m890_stream_synchronize(s2), M890_SUCCESS);
		for (uint32_t i = 0; i < count; i++)
			ok &= ((uint32_t *)ph2)[i] == i;
		tap_ok(ok, "deferred: all %u fills executed in order", count);
		TAP_STATUS(m890_stream_destroy(s2), M890_SUCCESS);
		TAP_STATUS(m890_stream_destroy(s2), M890_ERROR_INVALID_HANDLE);
		TAP_STATUS(m890_stream_synchronize(s2), M890_ERROR_INVALID_HANDLE);

		bad.version = 99;
		TAP_STATUS(m890_stream_create_config(dev, &bad, &s2),
			   M890_ERROR_INVALID_ARGUMENT);
		bad = (struct m890_stream_config)M890_STREAM_CONFIG_INIT;
		bad.flags = 0x80;
		TAP_STATUS(m890_stream_create_config(dev, &bad, &s2),
			   M890_ERROR_INVALID_ARGUMENT);
		bad = (struct m890_stream_config)M890_STREAM_CONFIG_INIT;
		bad.size = 8;
		TAP_STATUS(m890_stream_create_config(dev, &bad, &s2),
			   M890_ERROR_INVALID_ARGUMENT);
	}

	/* Events around a 1 MiB HBM copy. */
	TAP_REQUIRE(m890_event_create(dev, &e0));
	TAP_REQUIRE(m890_event_create(dev, &e1));
	TAP_STATUS(m890_event_synchronize(e0), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_event_record(e0, s), M890_SUCCESS);
	TAP_STATUS(m890_memcpy_dtod(s, d2, 0, d, 0, N), M890_SUCCESS);
	TAP_STATUS(m890_event_record(e1, s), M890_SUCCESS);
	TAP_STATUS(m890_event_synchronize(e1), M890_SUCCESS);
	TAP_STATUS(m890_event_query(e0), M890_SUCCESS);
	{
		int64_t wall = -1, devns = -1;

		TAP_STATUS(m890_event_elapsed_time(e0, e1, &wall, &devns),
			   M890_SUCCESS);
		/* 1 MiB read + 1 MiB written at 3.2 TB/s is ~655 ns. */
		tap_ok(devns >= 600 && devns < 100000,
		       "device time of a 1 MiB HBM copy: %lld ns",
		       (long long)devns);
		tap_ok(wall >= 0, "wall time %lld ns", (long long)wall);
		TAP_STATUS(m890_event_elapsed_time(e0, e1, NULL, NULL),
			   M890_ERROR_INVALID_ARGUMENT);
	}
	{
		int64_t w0 = 0, w1 = 0;
		uint64_t d0 = 0, d1 = 0;

		TAP_STATUS(m890_event_get_timestamp(e0, &w0, &d0), M890_SUCCESS);
		TAP_STATUS(m890_event_get_timestamp(e1, &w1, &d1), M890_SUCCESS);
		tap_ok(w0 > 0 && w1 >= w0 && d1 > d0,
		       "absolute timestamps ordered (wall %lld..%lld, device %llu..%llu)",
		       (long long)w0, (long long)w1, (unsigned long long)d0,
		       (unsigned long long)d1);
		TAP_STATUS(m890_event_get_timestamp(e0, NULL, NULL),
			   M890_ERROR_INVALID_ARGUMENT);
	}
	TAP_STATUS(m890_event_record((m890_event_t)(void *)s, s), M890_ERROR_INVALID_HANDLE);

	/*
	 * A copy to an unmapped VA faults: sticky async error.  The fault
	 * stops every stream of its device handle (one context), so it runs
	 * on a second handle of the same card.
	 */
	{
		uint64_t bad_va = info.va_start + info.va_bytes - (1ull << 21);
		m890_device_t dev2;
		m890_buffer_t hf;
		m890_stream_t s3;
		uint64_t vhf;

		TAP_REQUIRE(m890_device_open(0, &dev2));
		TAP_REQUIRE(m890_buffer_alloc(dev2, 4096, M890_MEM_HOST, &hf));
		m890_buffer_va(hf, &vhf);
		TAP_REQUIRE(m890_stream_create(dev2, &s2));
		TAP_REQUIRE(m890_stream_create(dev2, &s3));
		TAP_STATUS(m890_memcpy(s2, bad_va, vhf, 4096), M890_SUCCESS);
		TAP_STATUS(m890_stream_synchronize(s2), M890_ERROR_DEVICE_FAULT);
		TAP_STATUS(m890_stream_get_async_error(s2, &async), M890_SUCCESS);
		tap_ok(async == M890_ERROR_DEVICE_FAULT, "async error is sticky: %s",
		       m890_status_string(async));
		TAP_STATUS(m890_memset32(s2, vhf, 0, 4), M890_ERROR_DEVICE_FAULT);
		TAP_STATUS(m890_stream_query(s2), M890_ERROR_DEVICE_FAULT);
		TAP_STATUS(m890_event_record(e0, s2), M890_ERROR_DEVICE_FAULT);
		/* The handle's other stream is stopped with the same cause. */
		TAP_STATUS(m890_memset32(s3, vhf, 0, 4), M890_ERROR_DEVICE_FAULT);
		TAP_STATUS(m890_stream_destroy(s3), M890_SUCCESS);
		TAP_STATUS(m890_stream_destroy(s2), M890_SUCCESS);
		m890_buffer_free(hf);
		TAP_STATUS(m890_device_close(dev2), M890_SUCCESS);
	}
	/* Other device handles (contexts) are unaffected. */
	TAP_STATUS(m890_memset32(s, vh, 0x11111111, 4096), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(s), M890_SUCCESS);
	tap_ok(check_fill((uint32_t *)ph, 1024, 0x11111111), "other device handle still works");

	/* Event outlives its stream. */
	TAP_STATUS(m890_event_record(e1, s), M890_SUCCESS);
	TAP_STATUS(m890_stream_destroy(s), M890_SUCCESS);
	TAP_STATUS(m890_event_synchronize(e1), M890_SUCCESS);
	TAP_STATUS(m890_event_destroy(e0), M890_SUCCESS);
	TAP_STATUS(m890_event_destroy(e1), M890_SUCCESS);
	TAP_STATUS(m890_event_destroy(e1), M890_ERROR_INVALID_HANDLE);

	/* Take every queue: the next create is BUSY, not a crash. */
	{
		m890_stream_t all[256];
		uint32_t n = 0;

		while (n < 256) {
			st = m890_stream_create(dev, &all[n]);
			if (st)
				break;
			n++;
		}
		tap_ok(st == M890_ERROR_BUSY, "queue %u refused with BUSY (%s)",
		       n, m890_status_string(st));
		tap_ok(n >= 1 && n <= info.num_queues, "%u of %u queues obtained",
		       n, info.num_queues);
		while (n)
			m890_stream_destroy(all[--n]);
		TAP_STATUS(m890_stream_create(dev, &s), M890_SUCCESS);
		TAP_STATUS(m890_stream_destroy(s), M890_SUCCESS);
	}

	m890_buffer_free(d2);
	m890_buffer_free(d);
	m890_buffer_free(h2);
	m890_buffer_free(h);
	TAP_STATUS(m890_device_close(dev), M890_SUCCESS);
	return tap_done();
}
