# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# build/tests/m890_isolation_test: cross-client isolation, job timeout,
# device reset and kill -9 accounting tests (kselftest harness).  Included
# by the top-level Makefile after tests/uapi/uapi.mk, whose harness headers
# and flags it shares.

ISOLATION_TEST := $(M890_BUILD)/tests/m890_isolation_test

.PHONY: isolation-tests
isolation-tests: $(ISOLATION_TEST)
userspace: isolation-tests

$(ISOLATION_TEST): tests/isolation/m890_isolation_test.c tests/common/m890_test_util.h uapi/drm/m890_accel.h \
		uapi/drm/m890_packets.h $(UAPI_KSFT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(UAPI_TEST_CFLAGS) -o $@ $< $(UAPI_TEST_LIBS)

# build/tests/m890_unplug_test: the guest side of the hot-unplug test
# (tests/guest/m890-hotplug-test.sh drives it from the host).
UNPLUG_TEST := $(M890_BUILD)/tests/m890_unplug_test

.PHONY: unplug-test
unplug-test: $(UNPLUG_TEST)
userspace: unplug-test

$(UNPLUG_TEST): tests/isolation/m890_unplug_test.c tests/common/m890_test_util.h uapi/drm/m890_accel.h \
		uapi/drm/m890_packets.h
	@mkdir -p $(dir $@)
	$(CC) $(UAPI_TEST_CFLAGS) -o $@ $< $(UAPI_TEST_LIBS)

# build/tests/m890_hold: holds card 0 through an mmap or a dma-buf with no
# accel fd open, for the refused-rmmod checks of m890-guest-tests.
HOLD_TOOL := $(M890_BUILD)/tests/m890_hold

.PHONY: hold-tool
hold-tool: $(HOLD_TOOL)
userspace: hold-tool

$(HOLD_TOOL): tests/isolation/m890_hold.c tests/common/m890_test_util.h uapi/drm/m890_accel.h \
		uapi/drm/m890_packets.h
	@mkdir -p $(dir $@)
	$(CC) $(UAPI_TEST_CFLAGS) -o $@ $< $(UAPI_TEST_LIBS)
