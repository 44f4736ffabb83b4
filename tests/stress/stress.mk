# SPDX-License-Identifier: MIT
#
# build/tests/m890_stress: the ioctl stress program (random valid and
# invalid ioctl sequences from several processes and threads, with
# resets, destroys, closes and kills; Documentation/testing.rst).
# Included by the top-level Makefile after tests/uapi/uapi.mk, whose
# libdrm flags it uses.

STRESS_TEST := $(M890_BUILD)/tests/m890_stress

.PHONY: stress-test
stress-test: $(STRESS_TEST)
userspace: stress-test

$(STRESS_TEST): tests/stress/m890_stress.c uapi/drm/m890_accel.h uapi/drm/m890_packets.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -Iuapi $(UAPI_DRM_CFLAGS) \
		-rdynamic -o $@ $< $(UAPI_DRM_LIBS) -lpthread
