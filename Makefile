# SPDX-License-Identifier: MIT
#
# M890 open stack.  `make run` boots emulated cards and runs the main job;
# `make check` runs every test suite.  Both install what they need first.
#
# Two stages.  Stage 1 (below) reads no other makefile: it installs the
# Debian packages the goals need (scripts/deps.sh) and then runs make again
# with M890_MAKE_STAGE=2 and the same goals and variables.  Stage 2 is the
# build itself; its makefiles ask pkg-config for flags, which only works
# once the packages are there.  `make help`, `make clean` and `make
# uninstall` install nothing (and the first two need no root).

M890_CACHE ?= $(HOME)/.cache/m890
export M890_CACHE

ifeq ($(M890_MAKE_STAGE),)
# ---- stage 1: packages first ----
M890_GOALS := $(or $(MAKECMDGOALS),all)
M890_DEPS_GOALS := $(filter-out help clean uninstall dkms-uninstall,$(M890_GOALS))
ifeq ($(M890_DEPS_GOALS),)
M890_DEPS :=
else ifneq ($(filter bench bench-host,$(M890_DEPS_GOALS)),)
M890_DEPS := bench
else ifeq ($(filter-out install install-user dkms-install dkms-source,$(M890_DEPS_GOALS)),)
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
include scripts/version.mk
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
	check-unit bench clean help apidoc
all: module qemu userspace

help:
	@echo "make run [CARDS=N]       boot N emulated cards, run the all-to-all job"
	@echo "make run VMS=2 CARDS=4   two VMs of 4 cards each on one icn-switchd fabric"
	@echo "make check               run every test suite"
	@echo "make check-unit          run the host unit tests only (no guest)"
	@echo "make apidoc              Documentation/libm890-api.rst from the libm890 headers (kernel-doc)"
	@echo "make guest CMD='...'     run one command in a guest with the module loaded"
	@echo "make bench [CARDS=N]     all-to-all vs Open MPI vs memcpy, EP dispatch/combine (A2A_ARGS=, EP_ARGS=, BENCH_RUNS=)"
	@echo "make shell               interactive guest shell"
	@echo "  guest variables: CARDS HBM_MB VMS GUEST_MEM GUEST_CPUS GUEST_APPEND QEMU_OPTS GUEST_PROGRAMS"
	@echo "  (your own programs for the guest: user/README.md)"
	@echo "make module|qemu|userspace|image|clean"
	@echo "make install [PREFIX=/usr/local] [LIBDIR=] [DESTDIR=]  libm890, icnctl, icn-switchd,"
	@echo "                         the perf tools, man pages, m890.ko through DKMS"
	@echo "make uninstall           (same variables) remove what make install put there"
	@echo "make dkms-install|dkms-uninstall  only the module through DKMS"

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
include $(wildcard qemu-device/icn/icn-switchd.mk libm890/libm890.mk icnctl/icnctl.mk tests/uapi/uapi.mk tests/isolation/isolation.mk tests/unit/unit.mk tests/unit/mx_format.mk tests/lib/lib.mk tests/icnctl/icnctl-tests.mk tests/driver-smoke/smoke.mk tests/bench/bench.mk tests/guest/guest.mk)

# ---- the guest ----
image: module userspace
	@mkdir -p $(dir $(INITRD))
	@scripts/guest-image.sh $(KREL) $(KROOT) $(INITRD)

GUEST_ENV = QEMU=$(QEMU_BINDIR)/qemu-system-x86_64 KERNEL=$(KROOT)/boot/vmlinuz-$(KREL) INITRD=$(INITRD) \
	ICN_SWITCHD=$(CURDIR)/$(BUILD)/host/icn-switchd

guest: guest-args qemu image
	@$(GUEST_ENV) scripts/guest-run.sh -n $(CARDS) -V $(VMS) -m $(HBM_MB) -t $(GUEST_TIMEOUT) \
		-l $(LOGDIR)/guest.log -- '$(subst ','\'',$(CMD))'

shell: guest-args qemu image
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

run: guest-args qemu image
	@echo "== booting $(if $(filter 1,$(VMS)),,$(VMS) VMs x )$(CARDS) emulated M890 cards (console log: $(LOGDIR)/run.log)"
	@$(GUEST_ENV) scripts/guest-run.sh -n $(CARDS) -V $(VMS) -m $(HBM_MB) -t $(GUEST_TIMEOUT) \
		-l $(LOGDIR)/run.log -- "$(RUN_CMD)"

# ---- benchmarks ----
# All-to-all against Open MPI and memcpy, EP dispatch/combine; see
# Documentation/performance.rst.  64 MiB per peer on 8 cards needs about
# 1 GiB of HBM per card (a power of two: 2048 MiB by default for bench).
# Sizes are the bytes one rank sends in all (nccl-tests): 1 KiB to 64 MiB
# per peer.  The three programs run BENCH_RUNS times (min / median / max
# per size); memcpy with as many threads as the host has cores.
A2A_ARGS ?= -b $(CARDS)K -e $(shell echo $$((64 * $(CARDS))))M -f 4 -n 5 -w 1 -c 1
EP_ARGS ?= -n 3 -w 1
BENCH_HBM_MB ?= 2048
BENCH_TIMEOUT ?= 3600
BENCH_RUNS ?= 3
bench: qemu image
	@$(MAKE) -s bench-host
	@$(GUEST_ENV) CARDS=$(CARDS) HBM_MB=$(BENCH_HBM_MB) A2A_ARGS='$(A2A_ARGS)' \
		EP_ARGS='$(EP_ARGS)' GUEST_TIMEOUT=$(BENCH_TIMEOUT) BENCH_RUNS=$(BENCH_RUNS) \
		tests/bench/bench.sh

# ---- tests ----
check: qemu image
	@$(GUEST_ENV) QTEST_DIR=$(QEMU_BINDIR) KDIR=$(KDIR) M890_CONFIG_DIR=$(CURDIR)/$(BUILD)/config \
		scripts/check.sh

# The host unit tests alone (the first suites of make check): no kernel,
# QEMU or guest.
check-unit: unit libm890-unit-build icnctl-unit-build mx-format-unit
	@scripts/check-unit.sh

# libm890's API reference from its headers (scripts/apidoc.sh; kernel-doc
# from Debian's linux-source-6.12).  check-unit's apidoc_test fails when
# it is stale or an exported function has no entry.
apidoc:
	@scripts/apidoc.sh

# ---- install, uninstall, DKMS (scripts/install.mk) ----
include scripts/install.mk

clean:
	rm -rf $(BUILD) m890.ko m890.mod* *.o .*.cmd Module.symvers modules.order \
		driver/*.o driver/.*.cmd

endif # stage 2
