# SPDX-License-Identifier: MIT
#
# The in-guest test drivers (shell scripts), installed into build/bin and
# so into the guest's /usr/bin.  Included by the top-level Makefile.
#   m890-guest-tests       every in-guest suite, `make check` per card count
#   m890-vm-fabric         a fabric shared by several VMs (make run VMS=N)
#   m890-supernode-tests   a whole supernode in one guest (64 cards)
#   m890-ynl-test          the icn family through the kernel's YNL cli.py

GUEST_SCRIPTS := m890-guest-tests m890-vm-fabric m890-supernode-tests m890-ynl-test
GUEST_SCRIPT_BINS := $(patsubst %,$(M890_BUILD)/bin/%,$(GUEST_SCRIPTS))

.PHONY: userspace
userspace: $(GUEST_SCRIPT_BINS)

$(M890_BUILD)/bin/m890-%: tests/guest/m890-%.sh
	@mkdir -p $(dir $@)
	@install -m 755 $< $@

# The user's own programs (user/README.md): NAME.c built against libm890
# into build/user/NAME; guest-image.sh copies build/user and the other
# executables of the folder into the guest's /usr/bin.
GUEST_PROGRAMS ?= user
export GUEST_PROGRAMS
GUEST_USER_SRCS := $(wildcard $(GUEST_PROGRAMS)/*.c)
GUEST_USER_BINS := $(patsubst $(GUEST_PROGRAMS)/%.c,$(M890_BUILD)/user/%,$(GUEST_USER_SRCS))

userspace: $(GUEST_USER_BINS)

$(M890_BUILD)/user/%: $(GUEST_PROGRAMS)/%.c $(LIBM890_LIB) $(LIBM890_PUBHDR)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_APP_CFLAGS) -o $@ $< $(LIBM890_APP_LDFLAGS) $(LIBM890_APP_LIBS) -lm -lpthread
