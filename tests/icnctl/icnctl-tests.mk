# SPDX-License-Identifier: MIT
#
# icnctl guest tests: build/tests/icnctl-test-basic (TAP shell script) and
# its JSON checker build/tests/icnctl-json.  Needs icnctl/icnctl.mk.

M890_BUILD ?= build

ICNCTL_TEST_BINS := $(M890_BUILD)/tests/icnctl-test-basic $(M890_BUILD)/tests/icnctl-json

.PHONY: icnctl-tests userspace

icnctl-tests: $(ICNCTL_TEST_BINS)

userspace: icnctl-tests

$(M890_BUILD)/tests/icnctl-test-basic: tests/icnctl/icnctl-test-basic.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(M890_BUILD)/tests/icnctl-json: tests/icnctl/icnctl_json.c
	@mkdir -p $(@D)
	$(CC) $(ICNCTL_WARN) -O2 -g $(shell pkg-config --cflags json-c) -o $@ $< \
		$(shell pkg-config --libs json-c)
