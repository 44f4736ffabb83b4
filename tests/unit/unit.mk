# SPDX-License-Identifier: MIT
#
# Host unit tests: each is built plain (build/unit) and with ASan/UBSan
# (build/unit-san); both print TAP and a "N passed, N failed" line.

UNIT_CORE_SRC := qemu-device/icn/icn_switch_core.c qemu-device/icn/icn_switch_cmd.c \
	tests/unit/icn_switch_core_test.c
UNIT_CORE_DEPS := $(UNIT_CORE_SRC) qemu-device/icn/icn_switch_core.h \
	qemu-device/icn/icn_switch_cmd.h include/m890_regs.h
UNIT_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g \
	-Iinclude -Iqemu-device/icn

$(BUILD)/unit/icn_switch_core_test: $(UNIT_CORE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $(UNIT_CORE_SRC) -lpthread -o $@

$(BUILD)/unit-san/icn_switch_core_test: $(UNIT_CORE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -fsanitize=address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=all $(UNIT_CORE_SRC) -lpthread -o $@

.PHONY: unit
unit: $(BUILD)/unit/icn_switch_core_test $(BUILD)/unit-san/icn_switch_core_test
userspace: unit

# m890-moe's projection: the modelled expert GEMMs of tests/bench/
# ep_dev_model.h and model12.h against timing model 1.2's arithmetic.
UNIT_MOE_DEPS := tests/unit/moe_model_test.c tests/bench/ep_dev_model.h tests/bench/model12.h
$(BUILD)/unit/moe_model_test: $(UNIT_MOE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -Itests/bench $< -lm -o $@
$(BUILD)/unit-san/moe_model_test: $(UNIT_MOE_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) -Itests/bench -fsanitize=address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=all $< -lm -o $@
unit: $(BUILD)/unit/moe_model_test $(BUILD)/unit-san/moe_model_test

# uAPI layout: compile-time size and offset checks of every struct.
UNIT_UAPI_CFLAGS = -std=c11 -Wall -Wextra -Werror -Iuapi -Iuapi/drm $(LIBM890_PKG_CFLAGS)
$(BUILD)/unit/uapi_layout_test: tests/unit/uapi_layout_test.c $(wildcard uapi/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_UAPI_CFLAGS) $< -o $@
$(BUILD)/unit-san/uapi_layout_test: tests/unit/uapi_layout_test.c $(wildcard uapi/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_UAPI_CFLAGS) -fsanitize=address,undefined $< -o $@
unit: $(BUILD)/unit/uapi_layout_test $(BUILD)/unit-san/uapi_layout_test

# The project's rules for the netlink YAML spec beyond the kernel's schema
# (python3-yaml; a wrapper script so that check.sh runs it like the other
# unit tests).  The schema and the generated files: scripts/ynl.sh check.
$(BUILD)/unit/icn_netlink_spec_test: tests/unit/icn_spec_check.py \
		Documentation/netlink/specs/icn.yaml
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec python3 %s/tests/unit/icn_spec_check.py %s\n' \
		'$(CURDIR)' '$(CURDIR)' >$@
	chmod 755 $@
unit: $(BUILD)/unit/icn_netlink_spec_test

# Shell tests of the bash completion and of `make install`.
$(BUILD)/unit/icnctl_completion_test: tests/unit/icnctl_completion_test.sh \
		icnctl/icnctl.bash-completion
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash %s/tests/unit/icnctl_completion_test.sh %s/icnctl/icnctl.bash-completion\n' \
		'$(CURDIR)' '$(CURDIR)' >$@
	chmod 755 $@
$(BUILD)/unit/install_test: tests/unit/install_test.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s/tests/unit/install_test.sh %s\n' '$(CURDIR)' '$(CURDIR)' >$@
	chmod 755 $@
unit: $(BUILD)/unit/icnctl_completion_test $(BUILD)/unit/install_test

# scripts/check.sh's counting of the suites' TAP (scripts/tap-count.pl).
$(BUILD)/unit/tap_count_test: tests/unit/tap_count_test.sh scripts/tap-count.pl
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s/tests/unit/tap_count_test.sh %s\n' '$(CURDIR)' '$(CURDIR)' >$@
	chmod 755 $@
unit: $(BUILD)/unit/tap_count_test

# The one version: VERSION, libm890.map's newest node, the header's macros,
# the library's file name, soname and pkg-config file, m890.ko, the tools.
$(BUILD)/unit/version_test: tests/unit/version_test.sh $(LIBM890_LIB) $(LIBM890_PC) $(ICNCTL_BIN) \
		$(addprefix $(BUILD)/bin/,a2a_perf ep_perf allreduce_perf allgather_perf \
		reduce_scatter_perf broadcast_perf)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s/tests/unit/version_test.sh %s %s/$(BUILD)\n' \
		'$(CURDIR)' '$(CURDIR)' '$(CURDIR)' >$@
	chmod 755 $@
unit: $(BUILD)/unit/version_test

# Bad CARDS, VMS, HBM_MB refused before anything is built or boots.
$(BUILD)/unit/guest_args_test: tests/unit/guest_args_test.sh scripts/guest-run.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec sh %s/tests/unit/guest_args_test.sh %s\n' '$(CURDIR)' '$(CURDIR)' >$@
	chmod 755 $@
unit: $(BUILD)/unit/guest_args_test

# libm890's generated API reference is current and covers every export.
$(BUILD)/unit/apidoc_test: scripts/apidoc.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash %s/scripts/apidoc.sh --check\n' '$(CURDIR)' >$@
	chmod 755 $@
unit: $(BUILD)/unit/apidoc_test
