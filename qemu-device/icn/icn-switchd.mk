# SPDX-License-Identifier: GPL-2.0-or-later
#
# icn-switchd, the fabric daemon joining the cards of several QEMU
# processes (a host program, not part of the guest image), and its host
# test: built plain and with ASan/UBSan like the other unit tests; each
# test runs the daemon built the same way, next to it.

ICN_SWITCHD_SRC := qemu-device/icn/icn-switchd.c qemu-device/icn/icn_proto.c \
	qemu-device/icn/icn_switch_cmd.c qemu-device/icn/icn_switch_core.c
ICN_SWITCHD_DEPS := $(ICN_SWITCHD_SRC) $(wildcard qemu-device/icn/*.h) include/m890_regs.h
ICN_SWITCHD_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g \
	-Iinclude -Iqemu-device/icn
ICN_SWITCHD_TEST_SRC := tests/unit/icn_switchd_test.c qemu-device/icn/icn_proto.c

$(BUILD)/host/icn-switchd: $(ICN_SWITCHD_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ICN_SWITCHD_CFLAGS) $(ICN_SWITCHD_SRC) -lpthread -o $@

$(BUILD)/unit/icn-switchd: $(ICN_SWITCHD_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ICN_SWITCHD_CFLAGS) $(ICN_SWITCHD_SRC) -lpthread -o $@
$(BUILD)/unit-san/icn-switchd: $(ICN_SWITCHD_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ICN_SWITCHD_CFLAGS) $(SAN_FLAGS) $(ICN_SWITCHD_SRC) -lpthread -o $@

$(BUILD)/unit/icn_switchd_test: $(ICN_SWITCHD_TEST_SRC) $(ICN_SWITCHD_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ICN_SWITCHD_CFLAGS) $(ICN_SWITCHD_TEST_SRC) -o $@
$(BUILD)/unit-san/icn_switchd_test: $(ICN_SWITCHD_TEST_SRC) $(ICN_SWITCHD_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ICN_SWITCHD_CFLAGS) $(SAN_FLAGS) $(ICN_SWITCHD_TEST_SRC) -o $@

.PHONY: icn-switchd
icn-switchd: $(BUILD)/host/icn-switchd
unit: $(BUILD)/unit/icn-switchd $(BUILD)/unit-san/icn-switchd \
	$(BUILD)/unit/icn_switchd_test $(BUILD)/unit-san/icn_switchd_test
userspace: icn-switchd
