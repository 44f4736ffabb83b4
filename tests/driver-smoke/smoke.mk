# SPDX-License-Identifier: MIT
#
# build/tests/m890-smoke, the driver smoke test.  Included by the top-level
# Makefile, or alone: make -f tests/driver-smoke/smoke.mk driver-smoke

M890_BUILD ?= build
CC ?= cc
include scripts/pkg-config.mk
SMOKE := $(M890_BUILD)/tests/m890-smoke
SMOKE_DRM_CFLAGS = $(call m890_pkg_config,SMOKE_DRM_CFLAGS,--cflags libdrm)
SMOKE_DRM_LIBS = $(call m890_pkg_config,SMOKE_DRM_LIBS,--libs libdrm)
SMOKE_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -Iuapi \
	$(SMOKE_DRM_CFLAGS)

.PHONY: driver-smoke
driver-smoke: $(SMOKE)
userspace: driver-smoke

$(SMOKE): tests/driver-smoke/m890_smoke.c uapi/drm/m890_accel.h uapi/drm/m890_packets.h
	@mkdir -p $(dir $@)
	$(CC) $(SMOKE_CFLAGS) -o $@ $< $(SMOKE_DRM_LIBS)
