// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 buffer tests (guest)
 *
 * Allocation in HBM and host memory, CPU mapping, VAs, and the refused
 * cases: zero size, bad placement flags, sizes past the VA space, stale
 * and wrong-type handles, NULL outputs.
 */
#include <string.h>

#include "tap.h"

int main(void)
{
	m890_device_t dev;
	m890_buffer_t h, d, h2;
	m890_stream_t s;
	uint64_t va_h = 0, va_d = 0, sz = 0;
	m890_device_t owner = NULL;
	m890_status_t st;
	void *p = NULL, *p2 = NULL;

	TAP_REQUIRE(m890_device_open(0, &dev));

	TAP_STATUS(m890_buffer_alloc(dev, 0, M890_MEM_HOST, &h),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_buffer_alloc(dev, 0, M890_MEM_HBM, &h),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_buffer_alloc(dev, 4096, 0, &h),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_buffer_alloc(dev, 4096, M890_MEM_HOST | M890_MEM_HBM, &h),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_buffer_alloc(dev, 4096, 1u << 7, &h),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_buffer_alloc(dev, 4096, M890_MEM_HOST, NULL),
		   M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_buffer_alloc(NULL, 4096, M890_MEM_HOST, &h),
		   M890_ERROR_INVALID_HANDLE);
	st = m890_buffer_alloc(dev, 1ull << 62, M890_MEM_HBM, &h);
	tap_ok(st == M890_ERROR_OUT_OF_DEVICE_MEMORY ||
	       st == M890_ERROR_INVALID_ARGUMENT,
	       "2^62 bytes of HBM refused (%s)", m890_status_string(st));
	st = m890_buffer_alloc(dev, UINT64_MAX, M890_MEM_HOST, &h);
	tap_ok(st == M890_ERROR_OUT_OF_DEVICE_MEMORY ||
	       st == M890_ERROR_INVALID_ARGUMENT ||
	       st == M890_ERROR_OUT_OF_HOST_MEMORY,
	       "UINT64_MAX bytes of host memory refused (%s)",
	       m890_status_string(st));

	TAP_REQUIRE(m890_buffer_alloc(dev, 10000, M890_MEM_HOST, &h));
	TAP_REQUIRE(m890_buffer_alloc(dev, 1, M890_MEM_HBM, &d));
	TAP_STATUS(m890_buffer_va(h, &va_h), M890_SUCCESS);
	TAP_STATUS(m890_buffer_va(d, &va_d), M890_SUCCESS);
	tap_ok(va_h && va_d && va_h != va_d, "distinct VAs 0x%llx 0x%llx",
	       (unsigned long long)va_h, (unsigned long long)va_d);
	TAP_STATUS(m890_buffer_size(h, &sz), M890_SUCCESS);
	tap_ok(sz == 10000, "size is the requested size (%llu)",
	       (unsigned long long)sz);
	TAP_STATUS(m890_buffer_device(h, &owner), M890_SUCCESS);
	tap_ok(owner == dev, "buffer device");
	TAP_STATUS(m890_buffer_map(h, &p), M890_SUCCESS);
	TAP_STATUS(m890_buffer_map(h, &p2), M890_SUCCESS);
	tap_ok(p && p == p2, "mapping twice returns the same pointer");
	if (p) {
		memset(p, 0x5a, 10000);
		tap_ok(((unsigned char *)p)[9999] == 0x5a, "host buffer is writable");
	}
	st = m890_buffer_map(d, &p);
	tap_ok(st == M890_SUCCESS || st == M890_ERROR_NOT_SUPPORTED,
	       "HBM map is supported or cleanly refused (%s)",
	       m890_status_string(st));
	TAP_STATUS(m890_buffer_map(h, NULL), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_buffer_va(h, NULL), M890_ERROR_INVALID_ARGUMENT);

	/* Wrong handle types. */
	TAP_REQUIRE(m890_stream_create(dev, &s));
	TAP_STATUS(m890_buffer_free((m890_buffer_t)(void *)s),
		   M890_ERROR_INVALID_HANDLE);
	TAP_STATUS(m890_buffer_free((m890_buffer_t)(void *)dev),
		   M890_ERROR_INVALID_HANDLE);
	TAP_STATUS(m890_stream_destroy(s), M890_SUCCESS);

	/* Many small buffers, freed out of order. */
	{
		m890_buffer_t many[64];
		int ok = 1;

		for (int i = 0; i < 64; i++)
			ok &= m890_buffer_alloc(dev, 4096 * (i + 1), M890_MEM_HOST,
						&many[i]) == M890_SUCCESS;
		for (int i = 0; i < 64; i += 2)
			ok &= m890_buffer_free(many[i]) == M890_SUCCESS;
		for (int i = 1; i < 64; i += 2)
			ok &= m890_buffer_free(many[i]) == M890_SUCCESS;
		tap_ok(ok, "64 host buffers allocated and freed");
	}

	TAP_STATUS(m890_buffer_free(d), M890_SUCCESS);
	TAP_STATUS(m890_buffer_free(d), M890_ERROR_INVALID_HANDLE);
	TAP_STATUS(m890_buffer_va(d, &va_d), M890_ERROR_INVALID_HANDLE);
	TAP_REQUIRE(m890_buffer_alloc(dev, 4096, M890_MEM_HOST, &h2));
	TAP_STATUS(m890_buffer_free(h2), M890_SUCCESS);
	TAP_STATUS(m890_buffer_free(h), M890_SUCCESS);
	TAP_STATUS(m890_device_close(dev), M890_SUCCESS);
	return tap_done();
}
