# SPDX-License-Identifier: MIT
#
# icnctl guest tests: build/tests/icnctl-test-basic, icnctl-test-fabric
# and icnctl-test-mgmt (TAP shell scripts), icnctl-test-dumpintr (C) and
# its helpers build/tests/icnctl-json (JSON checker) and
# build/tests/icnctl-nocap (runs a command without capabilities).  Needs icnctl/icnctl.mk.

M890_BUILD ?= build

ICNCTL_TEST_BINS := $(M890_BUILD)/tests/icnctl-test-basic \
	$(M890_BUILD)/tests/icnctl-test-fabric $(M890_BUILD)/tests/icnctl-test-mgmt \
	$(M890_BUILD)/tests/icnctl-test-dumpintr $(M890_BUILD)/tests/icnctl-json \
	$(M890_BUILD)/tests/icnctl-nocap

.PHONY: icnctl-tests userspace

icnctl-tests: $(ICNCTL_TEST_BINS)

userspace: icnctl-tests

$(M890_BUILD)/tests/icnctl-test-basic: tests/icnctl/icnctl-test-basic.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(M890_BUILD)/tests/icnctl-test-fabric: tests/icnctl/icnctl-test-fabric.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(M890_BUILD)/tests/icnctl-test-mgmt: tests/icnctl/icnctl-test-mgmt.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

# A C program: a PORT_GET dump on a raw socket, interrupted by a change.
$(M890_BUILD)/tests/icnctl-test-dumpintr: tests/icnctl/icn_dump_intr.c uapi/linux/icn_netlink.h
	@mkdir -p $(@D)
	$(CC) $(ICNCTL_WARN) -O2 -g -Iuapi $(ICNCTL_NL_CFLAGS) -o $@ $< $(ICNCTL_NL_LIBS)

$(M890_BUILD)/tests/icnctl-json: tests/icnctl/icnctl_json.c
	@mkdir -p $(@D)
	$(CC) $(ICNCTL_WARN) -O2 -g $(ICNCTL_JSON_CFLAGS) -o $@ $< $(ICNCTL_JSON_LIBS)

$(M890_BUILD)/tests/icnctl-nocap: tests/icnctl/nocap.c
	@mkdir -p $(@D)
	$(CC) $(ICNCTL_WARN) -O2 -g -o $@ $<
