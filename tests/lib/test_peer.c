// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 peer window tests (guest, two cards or more)
 *
 * Importing another card's HBM buffer and writing it through the fabric;
 * importing the same buffer twice; a window outliving its buffer; and the
 * refused cases: own buffer, host buffer, ranges past the window, a window
 * used on the wrong card's stream, stale windows.
 */
#include <string.h>

#include "tap.h"

#define N (256u << 10)

int main(void)
{
	m890_device_t a, b;
	m890_stream_t sa, sb;
	m890_buffer_t ha, hb, da, db, db2, hostb;
	m890_window_t w, w2;
	uint64_t wsz = 0, wva = 0, wva2 = 0;
	uint32_t fid = 0;
	uint8_t *pa, *pb;
	void *p;
	int n = 0;

	TAP_REQUIRE(m890_device_count(&n));
	if (n < 2) {
		tap_skip("needs two cards", "peer windows");
		return tap_done();
	}
	TAP_REQUIRE(m890_device_open(0, &a));
	TAP_REQUIRE(m890_device_open(1, &b));
	TAP_REQUIRE(m890_stream_create(a, &sa));
	TAP_REQUIRE(m890_stream_create(b, &sb));
	TAP_REQUIRE(m890_buffer_alloc(a, N, M890_MEM_HOST, &ha));
	TAP_REQUIRE(m890_buffer_alloc(b, N, M890_MEM_HOST, &hb));
	TAP_REQUIRE(m890_buffer_alloc(a, N, M890_MEM_HBM, &da));
	TAP_REQUIRE(m890_buffer_alloc(b, N, M890_MEM_HBM, &db));
	TAP_REQUIRE(m890_buffer_map(ha, &p));
	pa = p;
	TAP_REQUIRE(m890_buffer_map(hb, &p));
	pb = p;

	TAP_STATUS(m890_buffer_import_peer(a, da, &w), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_buffer_import_peer(a, hb, &w), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_buffer_import_peer(a, db, NULL), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_buffer_import_peer(a, (m890_buffer_t)(void *)sb, &w),
		   M890_ERROR_INVALID_HANDLE);

	TAP_REQUIRE(m890_buffer_import_peer(a, db, &w));
	TAP_STATUS(m890_window_size(w, &wsz), M890_SUCCESS);
	tap_ok(wsz == N, "window size %llu", (unsigned long long)wsz);
	TAP_STATUS(m890_window_va(w, &wva), M890_SUCCESS);
	TAP_STATUS(m890_window_peer_fabric_id(w, &fid), M890_SUCCESS);
	{
		struct m890_device_info ib = M890_DEVICE_INFO_INIT;

		m890_device_get_info(b, &ib);
		tap_ok(fid == ib.fabric_id, "window names card b's fabric id %u", fid);
	}

	/* a: host pattern -> HBM -> b's HBM through the window; b reads back. */
	for (uint32_t i = 0; i < N; i++)
		pa[i] = (uint8_t)(i ^ (i >> 8) ^ 0x3c);
	memset(pb, 0, N);
	TAP_STATUS(m890_memcpy_htod(sa, da, 0, ha, 0, N), M890_SUCCESS);
	TAP_STATUS(m890_memcpy_peer(sa, w, 0, da, 0, N), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(sa), M890_SUCCESS);
	TAP_STATUS(m890_memcpy_dtoh(sb, hb, 0, db, 0, N), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(sb), M890_SUCCESS);
	tap_ok(memcmp(pa, pb, N) == 0, "256 KiB written to the peer through the fabric");

	/* Host buffer as the source of a peer write, and memcpy by VA. */
	TAP_STATUS(m890_memcpy_peer(sa, w, 100, ha, 0, 1000), M890_SUCCESS);
	TAP_STATUS(m890_memcpy(sa, wva + 5000, wva + 100, 1000), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(sa), M890_SUCCESS);
	TAP_STATUS(m890_memcpy_dtoh(sb, hb, 0, db, 0, N), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(sb), M890_SUCCESS);
	tap_ok(memcmp(pb + 100, pa, 1000) == 0 && memcmp(pb + 5000, pa, 1000) == 0,
	       "host source to peer, and peer-to-peer by VA");

	/* Range and device checks. */
	TAP_STATUS(m890_memcpy_peer(sa, w, 1, da, 0, N), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy_peer(sa, w, UINT64_MAX, da, 0, 2), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_memcpy_peer(sb, w, 0, db, 0, 16), M890_ERROR_DEVICE_MISMATCH);
	TAP_STATUS(m890_memcpy_peer(sa, w, 0, db, 0, 16), M890_ERROR_DEVICE_MISMATCH);
	TAP_STATUS(m890_memcpy_dtod(sa, da, 0, db, 0, 16), M890_ERROR_DEVICE_MISMATCH);

	/* The same buffer imported twice: independent windows. */
	TAP_STATUS(m890_buffer_import_peer(a, db, &w2), M890_SUCCESS);
	m890_window_va(w2, &wva2);
	TAP_STATUS(m890_window_free(w), M890_SUCCESS);
	TAP_STATUS(m890_window_free(w), M890_ERROR_INVALID_HANDLE);
	TAP_STATUS(m890_memcpy_peer(sa, w, 0, da, 0, 16), M890_ERROR_INVALID_HANDLE);
	TAP_STATUS(m890_memset32(sa, wva2, 0x77777777, 64), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(sa), M890_SUCCESS);
	tap_ok(1, "second window usable after the first is freed");

	/* The window keeps the memory alive after the owner frees it. */
	TAP_STATUS(m890_buffer_free(db), M890_SUCCESS);
	TAP_REQUIRE(m890_buffer_alloc(b, N, M890_MEM_HBM, &db2));
	TAP_STATUS(m890_memset32(sa, wva2, 0x12345678, N), M890_SUCCESS);
	TAP_STATUS(m890_stream_synchronize(sa), M890_SUCCESS);
	TAP_STATUS(m890_window_free(w2), M890_SUCCESS);

	/* Device close refuses while windows or buffers exist. */
	TAP_REQUIRE(m890_buffer_alloc(b, 4096, M890_MEM_HOST, &hostb));
	TAP_STATUS(m890_device_close(b), M890_ERROR_INVALID_ARGUMENT);
	m890_buffer_free(hostb);

	m890_stream_destroy(sa);
	m890_stream_destroy(sb);
	m890_buffer_free(db2);
	m890_buffer_free(da);
	m890_buffer_free(ha);
	m890_buffer_free(hb);
	TAP_STATUS(m890_device_close(a), M890_SUCCESS);
	TAP_STATUS(m890_device_close(b), M890_SUCCESS);
	return tap_done();
}
