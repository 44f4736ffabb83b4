// SPDX-License-Identifier: MIT
/*
 * DOC: libm890 device tests (guest)
 *
 * Discovery, ordering, device info, and the handle checks of the device
 * calls: bad indices, NULL and stale handles, closing a device that still
 * has objects, and the versioned info struct.
 */
#include <string.h>

#include "tap.h"

int main(void)
{
	struct m890_device_info info = M890_DEVICE_INFO_INIT;
	m890_device_t dev, dev2;
	m890_buffer_t buf;
	int n = 0, version = 0;
	uint32_t prev_fid = 0;

	TAP_STATUS(m890_get_version(&version), M890_SUCCESS);
	tap_ok(version == M890_VERSION_CODE, "library version %d", version);
	TAP_STATUS(m890_get_version(NULL), M890_ERROR_INVALID_ARGUMENT);
	tap_ok(strcmp(m890_status_string(M890_SUCCESS), "success") == 0,
	       "status string of M890_SUCCESS");
	tap_ok(strcmp(m890_status_string((m890_status_t)9999), "unknown status") == 0,
	       "status string of an unknown value");

	TAP_REQUIRE(m890_device_count(&n));
	tap_ok(n > 0, "device count %d > 0", n);
	TAP_STATUS(m890_device_count(NULL), M890_ERROR_INVALID_ARGUMENT);

	for (int i = 0; i < n; i++) {
		struct m890_device_info di = M890_DEVICE_INFO_INIT;

		TAP_REQUIRE(m890_device_open(i, &dev));
		TAP_REQUIRE(m890_device_get_info(dev, &di));
		tap_ok(di.pci_vendor == 0x1d89 && di.pci_device == 0x0890,
		       "card %d (%s): PCI id %04x:%04x", i, di.node,
		       di.pci_vendor, di.pci_device);
		tap_ok(di.hbm_bytes > 0 && di.num_queues > 0,
		       "card %d: %llu bytes HBM, %u queues", i,
		       (unsigned long long)di.hbm_bytes, di.num_queues);
		tap_ok(i == 0 || di.fabric_id >= prev_fid,
		       "card %d: ordered by fabric id (%u)", i, di.fabric_id);
		prev_fid = di.fabric_id;
		TAP_STATUS(m890_device_close(dev), M890_SUCCESS);
	}

	TAP_STATUS(m890_device_open(n, &dev), M890_ERROR_NO_DEVICE);
	TAP_STATUS(m890_device_open(-1, &dev), M890_ERROR_NO_DEVICE);
	TAP_STATUS(m890_device_open(0, NULL), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_device_close(NULL), M890_ERROR_INVALID_HANDLE);
	TAP_STATUS(m890_device_get_info(NULL, &info), M890_ERROR_INVALID_HANDLE);

	TAP_REQUIRE(m890_device_open(0, &dev));
	/* Two opens of one card are independent handles. */
	TAP_STATUS(m890_device_open(0, &dev2), M890_SUCCESS);
	tap_ok(dev != dev2, "two opens give two handles");
	TAP_STATUS(m890_device_close(dev2), M890_SUCCESS);
	/* Stale handle: closed above. */
	TAP_STATUS(m890_device_close(dev2), M890_ERROR_INVALID_HANDLE);

	{
		struct m890_device_info bad = { 0 };

		TAP_STATUS(m890_device_get_info(dev, &bad),
			   M890_ERROR_INVALID_ARGUMENT);
	}
	{
		/* An older, shorter struct gets only its own fields. */
		struct m890_device_info small;

		memset(&small, 0xab, sizeof(small));
		small.size = 16;
		small.version = 1;
		TAP_STATUS(m890_device_get_info(dev, &small), M890_SUCCESS);
		tap_ok(small.num_queues == 0xabababab,
		       "short info struct: fields past size untouched");
	}
	/* A buffer handle is not a device handle. */
	TAP_REQUIRE(m890_buffer_alloc(dev, 4096, M890_MEM_HOST, &buf));
	TAP_STATUS(m890_device_get_info((m890_device_t)(void *)buf, &info),
		   M890_ERROR_INVALID_HANDLE);
	TAP_STATUS(m890_device_close(dev), M890_ERROR_INVALID_ARGUMENT);
	TAP_STATUS(m890_buffer_free(buf), M890_SUCCESS);
	TAP_STATUS(m890_device_close(dev), M890_SUCCESS);
	tap_ok(m890_get_last_error() != NULL, "last error is never NULL");
	return tap_done();
}
