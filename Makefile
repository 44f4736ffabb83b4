# SPDX-License-Identifier: MIT
#
# M890 open stack.  `make run` boots emulated cards and runs the main job;
# `make check` runs every test suite.  Both install what they need first.
#
# Two stages.  Stage 1 (below) reads no other makefile: it installs the
# Debian packages the goals need (scripts/deps.sh) and then runs make again
# with M890_MAKE_STAGE=2 and the same goals and variables.  Stage 2 is the
# build itself; its makefiles ask pkg-config for flags, which only works
# once the packages are there.  `make help` and `make clean` install
# nothing and need no root.

M890_CACHE ?= $(HOME)/.cache/m890
export M890_CACHE

ifeq ($(M890_MAKE_STAGE),)
# ---- stage 1: packages first ----
M890_GOALS := $(or $(MAKECMDGOALS),all)
M890_DEPS_GOALS := $(filter-out help clean,$(M890_GOALS))
ifeq ($(M890_DEPS_GOALS),)
M890_DEPS :=
else ifneq ($(filter bench,$(M890_DEPS_GOALS)),)
M890_DEPS := bench
else ifeq ($(filter-out install,$(M890_DEPS_GOALS)),)
M890_DEPS := install
else
M890_DEPS := build
endif

.PHONY: $(M890_GOALS) m890-stage2
$(M890_GOALS): m890-stage2
	@:
m890-stage2:
ifneq ($(M890_DEPS),)
	@scripts/deps.sh $(M890_DEPS)
endif
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) M890_MAKE_STAGE=2 \
		$(MAKECMDGOALS)

else
# ---- stage 2: the build ----
CARDS ?= 8
VMS ?= 1
HBM_MB ?= 128
GUEST_TIMEOUT ?= 900
CMD ?=

BUILD := build
LOGDIR := $(BUILD)/logs
KREL = $(shell cat $(M890_CACHE)/kernel/release 2>/dev/null)
KDIR = /lib/modules/$(KREL)/build
KROOT = $(M890_CACHE)/kernel/$(KREL)
QEMU_BINDIR = $(shell cat $(BUILD)/qemu-bindir 2>/dev/null)
INITRD := $(BUILD)/guest/initramfs.cpio

CC ?= gcc
USER_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: all deps kernel module qemu userspace image guest guest-args shell run check \
	check-unit bench clean help install kernel-debug module-debug image-debug fuzz
all: module qemu userspace

help:
	@echo "make run [CARDS=N]       boot N emulated cards, run the all-to-all job"
	@echo "make run VMS=2 CARDS=4   two VMs of 4 cards each on one icn-switchd fabric"
	@echo "make check               run every test suite"
	@echo "make check-unit          run the host unit tests only (no guest)"
	@echo "make guest CMD='...'     run one command in a guest with the module loaded"
	@echo "make bench [CARDS=N]     all-to-all vs Open MPI vs memcpy, EP dispatch/combine (A2A_ARGS=, EP_ARGS=)"
	@echo "make fuzz [FUZZ_ARGS=]   a long ioctl stress run under the debug kernel (KASAN, lockdep, kmemleak)"
	@echo "  GUEST_KERNEL=debug     make run|guest|shell boot the debug kernel instead of Debian's"
	@echo "make shell               interactive guest shell"
	@echo "  guest variables: CARDS HBM_MB VMS GUEST_MEM GUEST_CPUS GUEST_APPEND QEMU_OPTS GUEST_PROGRAMS"
	@echo "  (your own programs for the guest: user/README.md)"
	@echo "make module|qemu|userspace|image|kernel-debug|image-debug|clean"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=]  icnctl, libm890, man page, completion"

# ---- dependencies (Debian archive only; idempotent, quiet when present) ----
# Stage 1 has run scripts/deps.sh for the goals already.
deps:

kernel: deps
	@scripts/kernel.sh >/dev/null

# ---- the kernel module ----
module: kernel
	@mkdir -p $(BUILD)/config
	@scripts/kconfig-probe.sh $(KDIR) $(CURDIR)/$(BUILD)/config
	@$(MAKE) -s -C $(KDIR) M=$(CURDIR) M890_CONFIG_DIR=$(CURDIR)/$(BUILD)/config modules

# ---- QEMU with the M890 device and ICN switch ----
# (qemu.sh's status must not be lost in a pipe: a failed build stops here.)
qemu: deps
	@mkdir -p $(BUILD)
	@out=$$(scripts/qemu.sh) && d=$$(printf '%s\n' "$$out" | tail -n 1) && \
		test -x "$$d/qemu-system-x86_64" && echo "$$d" >$(BUILD)/qemu-bindir.tmp
	@mv $(BUILD)/qemu-bindir.tmp $(BUILD)/qemu-bindir

# ---- userspace: libm890, icnctl, test programs ----
include scripts/pkg-config.mk
include $(wildcard qemu-device/icn/icn-switchd.mk libm890/libm890.mk icnctl/icnctl.mk tests/uapi/uapi.mk tests/isolation/isolation.mk tests/stress/stress.mk tests/unit/unit.mk tests/unit/mx_format.mk tests/lib/lib.mk tests/icnctl/icnctl-tests.mk tests/driver-smoke/smoke.mk tests/bench/bench.mk tests/guest/guest.mk)

# ---- the guest ----
image: module userspace
	@mkdir -p $(dir $(INITRD))
	@scripts/guest-image.sh $(KREL) $(KROOT) $(INITRD)

# ---- the debug guest kernel: KASAN, lockdep, kmemleak, ... ----
# (scripts/kernel-debug.sh; Documentation/testing.rst, "The debug kernel").
# m890.ko is built for it from a copy of the sources in build/debug-module
# (one tree cannot hold objects for two kernels).
KDBG_DIR = $(shell cat $(BUILD)/kernel-debug-dir 2>/dev/null)
DEBUG_MOD := $(BUILD)/debug-module
DEBUG_INITRD := $(BUILD)/guest-debug/initramfs.cpio
kernel-debug: deps
	@mkdir -p $(BUILD)
	@d=$$(scripts/kernel-debug.sh) && test -f "$$d/arch/x86/boot/bzImage" && \
		echo "$$d" >$(BUILD)/kernel-debug-dir.tmp
	@mv $(BUILD)/kernel-debug-dir.tmp $(BUILD)/kernel-debug-dir

module-debug: kernel-debug
	@mkdir -p $(DEBUG_MOD)/config
	@cp -pRu Kbuild driver include uapi $(DEBUG_MOD)/
	@scripts/kconfig-probe.sh $(KDBG_DIR) $(CURDIR)/$(DEBUG_MOD)/config
	@$(MAKE) -s -C $(KDBG_DIR) M=$(CURDIR)/$(DEBUG_MOD) \
		M890_CONFIG_DIR=$(CURDIR)/$(DEBUG_MOD)/config modules

image-debug: module-debug userspace
	@mkdir -p $(dir $(DEBUG_INITRD))
	@M890_KO=$(DEBUG_MOD)/m890.ko scripts/guest-image.sh \
		$$(cat $(KDBG_DIR)/include/config/kernel.release) $(KDBG_DIR) $(DEBUG_INITRD)

DEBUG_ENV = DEBUG_KERNEL=$(KDBG_DIR)/arch/x86/boot/bzImage DEBUG_INITRD=$(CURDIR)/$(DEBUG_INITRD)

GUEST_KERNEL ?= stock
ifeq ($(GUEST_KERNEL),debug)
GUEST_IMAGE := image-debug
GUEST_ENV = QEMU=$(QEMU_BINDIR)/qemu-system-x86_64 KERNEL=$(KDBG_DIR)/arch/x86/boot/bzImage \
	INITRD=$(DEBUG_INITRD) ICN_SWITCHD=$(CURDIR)/$(BUILD)/host/icn-switchd \
	GUEST_APPEND='loglevel=5 $(subst ','\'',$(GUEST_APPEND))'
else ifeq ($(GUEST_KERNEL),stock)
GUEST_IMAGE := image
GUEST_ENV = QEMU=$(QEMU_BINDIR)/qemu-system-x86_64 KERNEL=$(KROOT)/boot/vmlinuz-$(KREL) INITRD=$(INITRD) \
	ICN_SWITCHD=$(CURDIR)/$(BUILD)/host/icn-switchd
else
$(error GUEST_KERNEL must be stock or debug, not '$(GUEST_KERNEL)')
endif

guest: guest-args qemu $(GUEST_IMAGE)
	@$(GUEST_ENV) scripts/guest-run.sh -n $(CARDS) -V $(VMS) -m $(HBM_MB) -t $(GUEST_TIMEOUT) \
		-l $(LOGDIR)/guest.log -- '$(subst ','\'',$(CMD))'

shell: guest-args qemu $(GUEST_IMAGE)
	@$(GUEST_ENV) scripts/guest-run.sh -i -n $(CARDS) -m $(HBM_MB)

ifeq ($(VMS),1)
RUN_CMD = echo '== icnctl port show present'; icnctl port show present || exit 1; \
	echo '== m890-a2a: all-to-all across $(CARDS) cards'; m890-a2a
else
# Several VMs on icn-switchd: each checks the joined fabric, runs the
# all-to-all across its own cards, then its ranks of the all-to-all over
# every card of every VM (tests/guest/m890-vm-fabric.sh).
RUN_CMD = m890-vm-fabric
endif

# The arguments are checked before anything is built or booted.
guest-args:
	@scripts/guest-run.sh -C -n $(CARDS) -V $(VMS) -m $(HBM_MB) -t $(GUEST_TIMEOUT) -- true

run: guest-args qemu $(GUEST_IMAGE)
	@echo "== booting $(if $(filter 1,$(VMS)),,$(VMS) VMs x )$(CARDS) emulated M890 cards (console log: $(LOGDIR)/run.log)"
	@$(GUEST_ENV) scripts/guest-run.sh -n $(CARDS) -V $(VMS) -m $(HBM_MB) -t $(GUEST_TIMEOUT) \
		-l $(LOGDIR)/run.log -- "$(RUN_CMD)"

# ---- benchmarks ----
# All-to-all against Open MPI and memcpy, EP dispatch/combine; see
# Documentation/performance.rst.  64 MiB per peer on 8 cards needs about
# 1 GiB of HBM per card (a power of two: 2048 MiB by default for bench).
A2A_ARGS ?= -b 1K -e 64M -f 4 -n 5 -w 1 -c 1
EP_ARGS ?= -n 3 -w 1
BENCH_HBM_MB ?= 2048
BENCH_TIMEOUT ?= 3600
bench: qemu image
	@$(MAKE) -s bench-host
	@$(GUEST_ENV) CARDS=$(CARDS) HBM_MB=$(BENCH_HBM_MB) A2A_ARGS='$(A2A_ARGS)' \
		EP_ARGS='$(EP_ARGS)' GUEST_TIMEOUT=$(BENCH_TIMEOUT) tests/bench/bench.sh

# ---- tests ----
# (The stock kernel's suites, then the guest-debug-* suites under the
# debug kernel; CHECK_DEBUG=0 skips those and the debug kernel's build.)
CHECK_DEBUG ?= 1
check: qemu image $(if $(filter 0,$(CHECK_DEBUG)),,image-debug)
	@$(GUEST_ENV) $(DEBUG_ENV) CHECK_DEBUG=$(CHECK_DEBUG) QTEST_DIR=$(QEMU_BINDIR) scripts/check.sh

# A long ioctl stress run under the debug kernel (tests/stress/m890_stress.c;
# the seed is printed, FUZZ_ARGS='--seed N ...' replays it).
FUZZ_CARDS ?= 2
FUZZ_ARGS ?= --procs 4 --threads 4 --ops 4000 --kills 40 --resets 40
FUZZ_TIMEOUT ?= 5400
fuzz: qemu image-debug
	@$(GUEST_ENV) $(DEBUG_ENV) tests/guest/m890-debug-run.sh -n $(FUZZ_CARDS) -t $(FUZZ_TIMEOUT) \
		-l $(LOGDIR)/fuzz.console.log -- \
		'm890_stress --timeout $(FUZZ_TIMEOUT) $(subst ','\'',$(FUZZ_ARGS)) && rmmod m890'

# The host unit tests alone (the first suites of make check): no kernel,
# QEMU or guest.
check-unit: unit libm890-unit-build icnctl-unit-build mx-format-unit
	@scripts/check-unit.sh

# ---- install: icnctl (+ man page, bash completion) and libm890 ----
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL ?= install
install: $(BUILD)/bin/icnctl $(BUILD)/lib/libm890.so.1.0.0
	$(INSTALL) -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	$(INSTALL) -m 755 $(BUILD)/bin/icnctl $(DESTDIR)$(PREFIX)/sbin/icnctl
	$(INSTALL) -m 644 icnctl/icnctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/icnctl.8
	$(INSTALL) -m 644 icnctl/icnctl.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/icnctl
	$(INSTALL) -m 755 $(BUILD)/lib/libm890.so.1.0.0 $(DESTDIR)$(PREFIX)/lib/
	ln -sf libm890.so.1.0.0 $(DESTDIR)$(PREFIX)/lib/libm890.so.1
	ln -sf libm890.so.1 $(DESTDIR)$(PREFIX)/lib/libm890.so
	$(INSTALL) -m 644 libm890/include/m890.h $(DESTDIR)$(PREFIX)/include/m890.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|0.1.0|' -e 's|@REQUIRES@|libdrm|' \
		libm890/m890.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/m890.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/m890.pc

clean:
	rm -rf $(BUILD) m890.ko m890.mod* *.o .*.cmd Module.symvers modules.order \
		driver/*.o driver/.*.cmd

endif # stage 2
