# SPDX-License-Identifier: MIT
#
# libm890, the m890-a2a program and the libm890 tests.  Included by the
# top-level Makefile (paths are relative to the repository top), or used
# alone:  make -f libm890/libm890.mk libm890 libm890-unit
#
# Targets:
#   libm890        build/lib/libm890.so.1 (+ .so link), build/include/m890*.h,
#                  build/lib/pkgconfig/m890.pc, build/bin/m890-a2a
#   libm890-unit   host unit tests, plain and with ASan/UBSan, run at once
#                  (libm890-unit-build only builds them)
# Guest tests of the library are in tests/lib/lib.mk (target lib-tests).
#
# Variables: M890_BUILD (output root, default build), CC, CFLAGS_EXTRA.

M890_BUILD ?= build
CC ?= cc
include scripts/pkg-config.mk
include scripts/version.mk

# The file name carries the stack's version; the soname only its major
# number (a new minor adds a symbol node to libm890.map, never removes).
LIBM890_SONAME := libm890.so.$(M890_VERSION_MAJOR)
LIBM890_REAL := libm890.so.$(M890_VERSION)
LIBM890_OBJDIR := $(M890_BUILD)/obj/libm890
LIBM890_SRCS := $(sort $(wildcard libm890/src/*.c))
LIBM890_OBJS := $(patsubst libm890/src/%.c,$(LIBM890_OBJDIR)/%.o,$(LIBM890_SRCS))
# The public headers: m890.h includes one header per concern.
LIBM890_PUB_SRCS := libm890/include/m890.h libm890/include/m890_runtime.h \
	libm890/include/m890_compute.h libm890/include/m890_coll.h \
	libm890/include/m890_ep.h
LIBM890_HDRS := $(LIBM890_PUB_SRCS) libm890/src/internal.h libm890/src/ep_internal.h \
	uapi/drm/m890_accel.h uapi/drm/m890_packets.h

LIBM890_PKGS := libdrm
# pkg-config runs on first use (scripts/pkg-config.mk), after `make deps`.
LIBM890_PKG_CFLAGS = $(call m890_pkg_config,LIBM890_PKG_CFLAGS,--cflags $(LIBM890_PKGS))
LIBM890_PKG_LIBS = $(call m890_pkg_config,LIBM890_PKG_LIBS,--libs $(LIBM890_PKGS))
LIBM890_WARN := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror \
	-Wmissing-prototypes -Wstrict-prototypes -Wshadow
LIBM890_VERSION_DEFS := -DM890_BUILD_VERSION_MAJOR=$(M890_VERSION_MAJOR) \
	-DM890_BUILD_VERSION_MINOR=$(M890_VERSION_MINOR) \
	-DM890_BUILD_VERSION_PATCH=$(M890_VERSION_PATCH)
LIBM890_CFLAGS = $(LIBM890_WARN) -O2 -g -fPIC -fvisibility=hidden -ffp-contract=off \
	-Ilibm890/include -Ilibm890/src -Iuapi $(LIBM890_VERSION_DEFS) \
	$(LIBM890_PKG_CFLAGS) $(CFLAGS_EXTRA)
LIBM890_LIBS = $(LIBM890_PKG_LIBS) -lpthread -lm

# Programs linked against the built library find it next to bin/.
LIBM890_APP_CFLAGS := $(LIBM890_WARN) -O2 -g -I$(M890_BUILD)/include $(CFLAGS_EXTRA)
LIBM890_APP_LDFLAGS := -L$(M890_BUILD)/lib -Wl,-rpath,'$$ORIGIN/../lib' \
	-Wl,-rpath,'$$ORIGIN/../../lib'
LIBM890_APP_LIBS := -lm890

LIBM890_LIB := $(M890_BUILD)/lib/$(LIBM890_REAL)
LIBM890_PUBHDR := $(patsubst libm890/include/%,$(M890_BUILD)/include/%,$(LIBM890_PUB_SRCS))
LIBM890_PC := $(M890_BUILD)/lib/pkgconfig/m890.pc
LIBM890_A2A := $(M890_BUILD)/bin/m890-a2a
LIBM890_MOE := $(M890_BUILD)/bin/m890-moe

.PHONY: libm890 libm890-unit libm890-unit-build libm890-clean userspace

libm890: $(LIBM890_LIB) $(LIBM890_PUBHDR) $(LIBM890_PC) $(LIBM890_A2A) $(LIBM890_MOE)

# The top-level userspace target builds everything a guest image holds.
userspace: libm890 libm890-unit-build

$(LIBM890_OBJDIR)/%.o: libm890/src/%.c $(LIBM890_HDRS) VERSION
	@mkdir -p $(@D)
	$(CC) $(LIBM890_CFLAGS) -c -o $@ $<

$(LIBM890_LIB): $(LIBM890_OBJS) libm890/libm890.map
	@mkdir -p $(@D)
	rm -f $(filter-out $@,$(wildcard $(M890_BUILD)/lib/libm890.so.*.*.*))
	$(CC) -shared -Wl,-soname,$(LIBM890_SONAME) \
		-Wl,--version-script=libm890/libm890.map -Wl,--no-undefined \
		-o $@ $(LIBM890_OBJS) $(LIBM890_LIBS)
	ln -sf $(LIBM890_REAL) $(M890_BUILD)/lib/$(LIBM890_SONAME)
	ln -sf $(LIBM890_SONAME) $(M890_BUILD)/lib/libm890.so

$(LIBM890_PUBHDR): $(M890_BUILD)/include/%: libm890/include/%
	@mkdir -p $(@D)
	cp $< $@

# LIBM890_PC_SED PREFIX LIBDIR INCLUDEDIR: m890.pc.in to a .pc (also used
# by `make install`).
LIBM890_PC_SED = sed -e 's|@PREFIX@|$(1)|' -e 's|@LIBDIR@|$(2)|' \
	-e 's|@INCLUDEDIR@|$(3)|' -e 's|@VERSION@|$(M890_VERSION)|' \
	-e 's|@REQUIRES@|$(LIBM890_PKGS)|' libm890/m890.pc.in

$(LIBM890_PC): libm890/m890.pc.in libm890/libm890.mk VERSION
	@mkdir -p $(@D)
	$(call LIBM890_PC_SED,$(abspath $(M890_BUILD)),$${prefix}/lib,$${prefix}/include) >$@

LIBM890_A2A_SRCS := libm890/examples/m890_a2a.c libm890/examples/a2a_fabric.c
$(LIBM890_A2A): $(LIBM890_A2A_SRCS) \
		libm890/examples/a2a_fabric.h libm890/examples/a2a_pattern.h \
		libm890/examples/cli_args.h \
		$(LIBM890_LIB) $(LIBM890_PUBHDR)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_APP_CFLAGS) -Ilibm890/examples -o $@ $(LIBM890_A2A_SRCS) \
		$(LIBM890_APP_LDFLAGS) $(LIBM890_APP_LIBS)

# m890-moe: one MoE layer end to end (router, dispatch, MXFP4 expert
# GEMMs, combine) on every card, verified, with its modelled times.
# Its projection is timing model 1.2's (tests/bench/ep_dev_model.h: ep_perf's
# formula for dispatch and combine, the expert GEMM packets).
$(LIBM890_MOE): libm890/examples/m890_moe.c tests/bench/ep_dev_model.h tests/bench/model12.h \
		$(LIBM890_LIB) $(LIBM890_PUBHDR)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_APP_CFLAGS) -ffp-contract=off -Itests/bench -o $@ $< \
		$(LIBM890_APP_LDFLAGS) $(LIBM890_APP_LIBS) -lm

# Host unit tests: pure logic compiled straight into the test, plain in
# build/unit/ and with ASan/UBSan in build/unit-san/ (same name).
LIBM890_UNIT_SRCS := tests/unit/mx_lib_test.c libm890/src/status.c \
	libm890/src/handle.c
LIBM890_UNIT_DEPS := $(LIBM890_UNIT_SRCS) libm890/examples/a2a_pattern.h \
	$(LIBM890_HDRS)
LIBM890_UNIT_CFLAGS = $(LIBM890_WARN) -O1 -g -Ilibm890/include -Ilibm890/src \
	-Iuapi -Ilibm890/examples $(LIBM890_VERSION_DEFS) $(LIBM890_PKG_CFLAGS)
LIBM890_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

libm890-unit-build: $(M890_BUILD)/unit/mx_lib_test $(M890_BUILD)/unit-san/mx_lib_test \
	$(M890_BUILD)/unit/boot_test $(M890_BUILD)/unit-san/boot_test \
	$(M890_BUILD)/unit/comm_meta_test $(M890_BUILD)/unit-san/comm_meta_test \
	$(M890_BUILD)/unit/coll_rec_test $(M890_BUILD)/unit-san/coll_rec_test

# The records of the collective metadata exchange and the collectives' checks.
LIBM890_META_SRCS := tests/unit/comm_meta_test.c libm890/src/comm_meta.c \
	libm890/src/coll_check.c

$(M890_BUILD)/unit/comm_meta_test: $(LIBM890_META_SRCS) $(LIBM890_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_UNIT_CFLAGS) -o $@ $(LIBM890_META_SRCS)

$(M890_BUILD)/unit-san/comm_meta_test: $(LIBM890_META_SRCS) $(LIBM890_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_UNIT_CFLAGS) $(LIBM890_SAN) -o $@ $(LIBM890_META_SRCS)

# The device collectives' and groups' global checks.
LIBM890_REC_SRCS := tests/unit/coll_rec_test.c libm890/src/coll_check.c

$(M890_BUILD)/unit/coll_rec_test: $(LIBM890_REC_SRCS) $(LIBM890_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_UNIT_CFLAGS) -o $@ $(LIBM890_REC_SRCS)

$(M890_BUILD)/unit-san/coll_rec_test: $(LIBM890_REC_SRCS) $(LIBM890_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_UNIT_CFLAGS) $(LIBM890_SAN) -o $@ $(LIBM890_REC_SRCS)

# The process bootstrap of communicators, with real processes and sockets.
LIBM890_BOOT_SRCS := tests/unit/boot_test.c libm890/src/bootstrap.c \
	libm890/src/status.c

$(M890_BUILD)/unit/boot_test: $(LIBM890_BOOT_SRCS) $(LIBM890_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_UNIT_CFLAGS) -o $@ $(LIBM890_BOOT_SRCS)

$(M890_BUILD)/unit-san/boot_test: $(LIBM890_BOOT_SRCS) $(LIBM890_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_UNIT_CFLAGS) $(LIBM890_SAN) -o $@ $(LIBM890_BOOT_SRCS)

libm890-unit: libm890-unit-build
	$(M890_BUILD)/unit/mx_lib_test
	$(M890_BUILD)/unit-san/mx_lib_test
	$(M890_BUILD)/unit/boot_test
	$(M890_BUILD)/unit-san/boot_test
	$(M890_BUILD)/unit/comm_meta_test
	$(M890_BUILD)/unit-san/comm_meta_test
	$(M890_BUILD)/unit/coll_rec_test
	$(M890_BUILD)/unit-san/coll_rec_test

$(M890_BUILD)/unit/mx_lib_test: $(LIBM890_UNIT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_UNIT_CFLAGS) -o $@ $(LIBM890_UNIT_SRCS) -lpthread

$(M890_BUILD)/unit-san/mx_lib_test: $(LIBM890_UNIT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_UNIT_CFLAGS) $(LIBM890_SAN) -o $@ $(LIBM890_UNIT_SRCS) -lpthread

libm890-clean:
	rm -rf $(LIBM890_OBJDIR) $(M890_BUILD)/lib/libm890.so* $(LIBM890_PUBHDR) \
		$(LIBM890_PC) $(LIBM890_A2A) $(M890_BUILD)/unit/mx_lib_test \
		$(M890_BUILD)/unit-san/mx_lib_test
