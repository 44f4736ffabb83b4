# SPDX-License-Identifier: MIT
#
# The in-guest test drivers (shell scripts), installed into build/bin and
# so into the guest's /usr/bin.  Included by the top-level Makefile.
#   m890-guest-tests       every in-guest suite, `make check` per card count
#   m890-vm-fabric         a fabric shared by several VMs (make run VMS=N)
#   m890-supernode-tests   a whole supernode in one guest (64 cards)

GUEST_SCRIPTS := m890-guest-tests m890-vm-fabric m890-supernode-tests
GUEST_SCRIPT_BINS := $(patsubst %,$(M890_BUILD)/bin/%,$(GUEST_SCRIPTS))

.PHONY: userspace
userspace: $(GUEST_SCRIPT_BINS)

$(M890_BUILD)/bin/m890-%: tests/guest/m890-%.sh
	@mkdir -p $(dir $@)
	@install -m 755 $< $@
