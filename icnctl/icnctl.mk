# SPDX-License-Identifier: MIT
#
# icnctl, the ICN fabric CLI.  Included by the top-level Makefile (paths
# relative to the repository top), or used alone:
#   make -f icnctl/icnctl.mk icnctl icnctl-unit
#
# Targets:
#   icnctl        build/bin/icnctl
#   icnctl-unit   host unit tests (plain and ASan/UBSan), run at once
#                 (icnctl-unit-build only builds them)
# Guest tests of icnctl are in tests/icnctl/icnctl-tests.mk.
#
# Variables: M890_BUILD (output root, default build), CC, CFLAGS_EXTRA.

M890_BUILD ?= build
CC ?= cc
include scripts/pkg-config.mk
include scripts/version.mk

ICNCTL_OBJDIR := $(M890_BUILD)/obj/icnctl
ICNCTL_SRCS := $(sort $(wildcard icnctl/*.c))
ICNCTL_OBJS := $(patsubst icnctl/%.c,$(ICNCTL_OBJDIR)/%.o,$(ICNCTL_SRCS))
ICNCTL_HDRS := icnctl/icnctl.h uapi/linux/icn_netlink.h
ICNCTL_PKGS := libnl-genl-3.0 json-c
# pkg-config runs on first use (scripts/pkg-config.mk), after `make deps`.
ICNCTL_PKG_CFLAGS = $(call m890_pkg_config,ICNCTL_PKG_CFLAGS,--cflags $(ICNCTL_PKGS))
ICNCTL_PKG_LIBS = $(call m890_pkg_config,ICNCTL_PKG_LIBS,--libs $(ICNCTL_PKGS))
ICNCTL_NL_CFLAGS = $(call m890_pkg_config,ICNCTL_NL_CFLAGS,--cflags libnl-genl-3.0)
ICNCTL_NL_LIBS = $(call m890_pkg_config,ICNCTL_NL_LIBS,--libs libnl-genl-3.0)
ICNCTL_JSON_CFLAGS = $(call m890_pkg_config,ICNCTL_JSON_CFLAGS,--cflags json-c)
ICNCTL_JSON_LIBS = $(call m890_pkg_config,ICNCTL_JSON_LIBS,--libs json-c)
ICNCTL_WARN := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-Wmissing-prototypes -Wstrict-prototypes
ICNCTL_CFLAGS = $(ICNCTL_WARN) -O2 -g -Iicnctl -Iuapi \
	-DM890_VERSION_STRING='"$(M890_VERSION)"' $(ICNCTL_PKG_CFLAGS) $(CFLAGS_EXTRA)
ICNCTL_LIBS = $(ICNCTL_PKG_LIBS)
ICNCTL_BIN := $(M890_BUILD)/bin/icnctl

.PHONY: icnctl icnctl-unit icnctl-unit-build icnctl-clean userspace

icnctl: $(ICNCTL_BIN)

userspace: icnctl icnctl-unit-build

$(ICNCTL_OBJDIR)/%.o: icnctl/%.c $(ICNCTL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ICNCTL_CFLAGS) -c -o $@ $<
$(ICNCTL_OBJDIR)/main.o: VERSION

$(ICNCTL_BIN): $(ICNCTL_OBJS)
	@mkdir -p $(@D)
	$(CC) -o $@ $(ICNCTL_OBJS) $(ICNCTL_LIBS)

# Unit tests link the pure helpers and the output module only; plain in
# build/unit/, with ASan/UBSan in build/unit-san/.
ICNCTL_UNIT_SRCS := tests/unit/mx_icnctl_test.c icnctl/util.c icnctl/json_out.c
ICNCTL_UNIT_CFLAGS = $(ICNCTL_WARN) -O1 -g -Iicnctl -Iuapi $(ICNCTL_JSON_CFLAGS)
ICNCTL_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

icnctl-unit-build: $(M890_BUILD)/unit/mx_icnctl_test $(M890_BUILD)/unit-san/mx_icnctl_test

icnctl-unit: icnctl-unit-build
	$(M890_BUILD)/unit/mx_icnctl_test
	$(M890_BUILD)/unit-san/mx_icnctl_test

$(M890_BUILD)/unit/mx_icnctl_test: $(ICNCTL_UNIT_SRCS) $(ICNCTL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ICNCTL_UNIT_CFLAGS) -o $@ $(ICNCTL_UNIT_SRCS) $(ICNCTL_JSON_LIBS)

$(M890_BUILD)/unit-san/mx_icnctl_test: $(ICNCTL_UNIT_SRCS) $(ICNCTL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ICNCTL_UNIT_CFLAGS) $(ICNCTL_SAN) -o $@ $(ICNCTL_UNIT_SRCS) \
		$(ICNCTL_JSON_LIBS)

icnctl-clean:
	rm -rf $(ICNCTL_OBJDIR) $(ICNCTL_BIN) $(M890_BUILD)/unit/mx_icnctl_test \
		$(M890_BUILD)/unit-san/mx_icnctl_test
