# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The kselftest-harness uAPI tests, build/tests/m890_uapi_test and
# build/tests/m890_xvm_test (exports and windows across VMs).  Included by
# the top-level Makefile (paths relative to the repository top), or used
# alone:  make -f tests/uapi/uapi.mk uapi-tests
#
# kselftest_harness.h and kselftest.h are taken at build time from Debian's
# linux-source-6.12 tarball into $(M890_CACHE)/linux-src (used, not kept in
# the repository).  The harness needs GNU extensions, hence -std=gnu11; its
# comparison macros and signal handler trip -Wsign-compare and
# -Wunused-parameter and -Wclobbered, so those are off for this program.

M890_CACHE ?= $(HOME)/.cache/m890
M890_BUILD ?= build
CC ?= cc
include scripts/pkg-config.mk

UAPI_LINUX_SRC_TAR ?= $(firstword $(wildcard /usr/src/linux-source-6.12.tar.xz))
UAPI_KSFT_DIR := $(M890_CACHE)/linux-src/tools/testing/selftests
UAPI_KSFT_HDRS := $(UAPI_KSFT_DIR)/kselftest_harness.h $(UAPI_KSFT_DIR)/kselftest.h
UAPI_TEST := $(M890_BUILD)/tests/m890_uapi_test
XVM_TEST := $(M890_BUILD)/tests/m890_xvm_test
UAPI_DRM_CFLAGS = $(call m890_pkg_config,UAPI_DRM_CFLAGS,--cflags libdrm)
UAPI_DRM_LIBS = $(call m890_pkg_config,UAPI_DRM_LIBS,--libs libdrm)
UAPI_TEST_CFLAGS = -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-Wno-sign-compare -Wno-unused-parameter -Wno-clobbered -O2 -g \
	-Iuapi -Itests/common -I$(UAPI_KSFT_DIR) $(UAPI_DRM_CFLAGS)
UAPI_TEST_LIBS = $(UAPI_DRM_LIBS) -lpthread

.PHONY: uapi-tests uapi-tests-syntax
uapi-tests: $(UAPI_TEST) $(XVM_TEST)
userspace: uapi-tests

$(UAPI_KSFT_HDRS):
	@test -n "$(UAPI_LINUX_SRC_TAR)" || \
		{ echo "uapi-tests: linux-source-6.12 is not installed (make deps)" >&2; exit 1; }
	@mkdir -p $(M890_CACHE)/linux-src
	@tar -xJf $(UAPI_LINUX_SRC_TAR) -C $(M890_CACHE)/linux-src --strip-components=1 \
		linux-source-6.12/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.12/tools/testing/selftests/kselftest.h

$(UAPI_TEST): tests/uapi/m890_uapi_test.c tests/common/m890_test_util.h uapi/drm/m890_accel.h \
		uapi/drm/m890_packets.h $(UAPI_KSFT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(UAPI_TEST_CFLAGS) -o $@ $< $(UAPI_TEST_LIBS)

$(XVM_TEST): tests/uapi/m890_xvm_test.c tests/common/m890_test_util.h uapi/drm/m890_accel.h \
		uapi/drm/m890_packets.h $(UAPI_KSFT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(UAPI_TEST_CFLAGS) -o $@ $< $(UAPI_TEST_LIBS)

# Compile only, for a quick check without linking.
uapi-tests-syntax: $(UAPI_KSFT_HDRS)
	$(CC) $(UAPI_TEST_CFLAGS) -fsyntax-only tests/uapi/m890_uapi_test.c tests/uapi/m890_xvm_test.c
