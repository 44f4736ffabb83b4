# SPDX-License-Identifier: MIT
#
# `make install`, `make uninstall`, `make dkms-install`, `make
# dkms-uninstall` (Documentation/architecture.rst, "Installing").
# Included by the top-level Makefile in its stage 2, after the
# component makefiles; stage 1 has installed the build dependencies
# (scripts/deps.sh install: compiler, libraries, dkms).
#
# What goes where (every directory can be set on the command line):
#   BINDIR        m890-a2a, a2a_perf, ep_perf, allreduce_perf, allgather_perf,
#                 reduce_scatter_perf, broadcast_perf
#   SBINDIR       icnctl, icn-switchd
#   LIBDIR        libm890.so.VERSION, .so.MAJOR, .so; pkgconfig/m890.pc
#   INCLUDEDIR    m890.h and the headers it includes
#   MANDIR        man1 (the programs), man3 (libm890), man8 (icnctl, icn-switchd)
#   BASHCOMPDIR   icnctl's bash completion
#   SYSTEMDUNITDIR  icn-switchd.service
#   DKMS_SRCDIR   the driver's source for DKMS, /usr/src/m890-VERSION
#                 (DKMS looks there only, whatever PREFIX is)
# LIBDIR defaults to Debian's multiarch directory under PREFIX
# (dpkg-architecture -qDEB_HOST_MULTIARCH, else $(CC) -print-multiarch).
# DESTDIR stages everything below it: then DKMS is not run (the module is
# registered and built where the tree is finally installed, as a
# distribution package's postinst does) and neither is ldconfig.

PREFIX ?= /usr/local
DESTDIR ?=
INSTALL ?= install
# Evaluated once, on first use only (make run never asks dpkg).
M890_MULTIARCH = $(eval M890_MULTIARCH := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH \
	2>/dev/null || $(CC) -print-multiarch 2>/dev/null))$(M890_MULTIARCH)
LIBDIR ?= $(PREFIX)/lib$(if $(M890_MULTIARCH),/$(M890_MULTIARCH))
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
DKMS_SRCDIR ?= /usr/src/m890-$(M890_VERSION)

# The installed programs are linked again for LIBDIR: no run path into the
# build tree, and one to LIBDIR only where the dynamic loader does not
# already look.
M890_LD_DIRS = /lib /usr/lib /lib/$(M890_MULTIARCH) /usr/lib/$(M890_MULTIARCH) \
	/usr/local/lib /usr/local/lib/$(M890_MULTIARCH)
INSTALL_RPATH = $(if $(filter $(LIBDIR),$(M890_LD_DIRS)),,-Wl,-rpath,$(LIBDIR))
INSTALL_BIN := $(BUILD)/install/bin
INSTALL_PROGRAMS := m890-a2a a2a_perf ep_perf $(COLL_PERF_TOOLS)
INSTALL_LINK = $(CC) $(LIBM890_APP_CFLAGS) -Ilibm890/examples -o $@ $(1) \
	-L$(BUILD)/lib $(INSTALL_RPATH) -lm890

# Linked at every install: the run path depends on LIBDIR.
.PHONY: m890-install-force
$(INSTALL_BIN)/m890-a2a: $(LIBM890_A2A) m890-install-force
	@mkdir -p $(@D)
	$(call INSTALL_LINK,$(LIBM890_A2A_SRCS))
$(INSTALL_BIN)/a2a_perf: $(M890_BUILD)/bin/a2a_perf m890-install-force
	@mkdir -p $(@D)
	$(call INSTALL_LINK,$(A2A_PERF_SRCS))
$(INSTALL_BIN)/ep_perf: $(M890_BUILD)/bin/ep_perf m890-install-force
	@mkdir -p $(@D)
	$(call INSTALL_LINK,$(EP_PERF_SRCS))
$(addprefix $(INSTALL_BIN)/,$(COLL_PERF_TOOLS)): $(INSTALL_BIN)/%: $(M890_BUILD)/bin/% m890-install-force
	@mkdir -p $(@D)
	$(call INSTALL_LINK,$(call coll_perf_def,$*) $(COLL_PERF_SRCS))

INSTALL_MAN1 := libm890/examples/m890-a2a.1 tests/bench/a2a_perf.1 tests/bench/ep_perf.1 \
	$(addprefix tests/bench/,$(addsuffix .1,$(COLL_PERF_TOOLS)))
INSTALL_MAN3 := libm890/libm890.3
INSTALL_MAN8 := icnctl/icnctl.8 qemu-device/icn/icn-switchd.8

# The driver's source as DKMS builds it: Kbuild, the driver, the headers
# it includes, the compile probes and the version.
DKMS_FILES := Kbuild VERSION scripts/kconfig-probe.sh $(wildcard driver/*.c driver/*.h) \
	include/m890_regs.h $(wildcard uapi/drm/*.h uapi/linux/*.h)

.PHONY: install install-user uninstall dkms-install dkms-uninstall dkms-source

install: install-user dkms-install

install-user: $(ICNCTL_BIN) $(LIBM890_LIB) $(BUILD)/host/icn-switchd \
		$(addprefix $(INSTALL_BIN)/,$(INSTALL_PROGRAMS))
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(SYSTEMDUNITDIR)
	$(INSTALL) -m 755 $(ICNCTL_BIN) $(BUILD)/host/icn-switchd $(DESTDIR)$(SBINDIR)/
	$(INSTALL) -m 755 $(addprefix $(INSTALL_BIN)/,$(INSTALL_PROGRAMS)) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 644 $(INSTALL_MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(INSTALL_MAN3) $(DESTDIR)$(MANDIR)/man3/
	$(INSTALL) -m 644 $(INSTALL_MAN8) $(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 644 icnctl/icnctl.bash-completion $(DESTDIR)$(BASHCOMPDIR)/icnctl
	sed -e 's|@SBINDIR@|$(SBINDIR)|' dist/icn-switchd.service.in \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/icn-switchd.service
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/icn-switchd.service
	$(INSTALL) -m 755 $(LIBM890_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIBM890_REAL) $(DESTDIR)$(LIBDIR)/$(LIBM890_SONAME)
	ln -sf $(LIBM890_SONAME) $(DESTDIR)$(LIBDIR)/libm890.so
	$(INSTALL) -m 644 $(LIBM890_PUB_SRCS) $(DESTDIR)$(INCLUDEDIR)/
	$(call LIBM890_PC_SED,$(PREFIX),$(LIBDIR),$(INCLUDEDIR)) >$(DESTDIR)$(LIBDIR)/pkgconfig/m890.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/m890.pc
	$(if $(DESTDIR),,ldconfig)

# The driver's source in DKMS_SRCDIR with its dkms.conf.
dkms-source:
	rm -rf $(DESTDIR)$(DKMS_SRCDIR)
	$(INSTALL) -d $(DESTDIR)$(DKMS_SRCDIR)
	tar -cf - $(DKMS_FILES) | tar -xf - -C $(DESTDIR)$(DKMS_SRCDIR)
	sed -e 's|@VERSION@|$(M890_VERSION)|' dist/dkms.conf.in >$(DESTDIR)$(DKMS_SRCDIR)/dkms.conf
	chmod -R u=rwX,go=rX $(DESTDIR)$(DKMS_SRCDIR)

# Register the source with DKMS and build and install m890.ko for every
# installed kernel that has its headers (dkms.conf's BUILD_EXCLUSIVE_KERNEL
# skips kernels before 6.12); with none, the headers of Debian's newest
# 6.12 kernel are installed first (scripts/kernel.sh headers).  DKMS then
# rebuilds the module whenever a kernel is installed (AUTOINSTALL).  Any
# other m890 version DKMS holds is removed first.
dkms-install: dkms-source
ifeq ($(DESTDIR),)
	@scripts/dkms.sh install $(M890_VERSION) $(DKMS_SRCDIR)
else
	@echo "dkms-install: DESTDIR set: source staged in $(DESTDIR)$(DKMS_SRCDIR); run 'dkms install m890/$(M890_VERSION)' on the target"
endif

dkms-uninstall:
ifeq ($(DESTDIR),)
	@scripts/dkms.sh remove $(M890_VERSION) $(DKMS_SRCDIR)
endif
	rm -rf $(DESTDIR)$(DKMS_SRCDIR)

uninstall: dkms-uninstall
	rm -f $(addprefix $(DESTDIR)$(SBINDIR)/,icnctl icn-switchd) \
		$(addprefix $(DESTDIR)$(BINDIR)/,$(INSTALL_PROGRAMS)) \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(INSTALL_MAN1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(INSTALL_MAN3))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(INSTALL_MAN8))) \
		$(DESTDIR)$(BASHCOMPDIR)/icnctl $(DESTDIR)$(SYSTEMDUNITDIR)/icn-switchd.service \
		$(DESTDIR)$(LIBDIR)/$(LIBM890_REAL) $(DESTDIR)$(LIBDIR)/$(LIBM890_SONAME) \
		$(DESTDIR)$(LIBDIR)/libm890.so $(DESTDIR)$(LIBDIR)/pkgconfig/m890.pc \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(LIBM890_PUB_SRCS)))
	$(if $(DESTDIR),,ldconfig)
