# SPDX-License-Identifier: MIT
#
# Host unit test of libm890's numeric reference (MX formats, bfloat16,
# REDUCE): build/unit/mx_format_test plain and build/unit-san/ with
# ASan/UBSan.  Needs libm890/libm890.mk (included first).

MX_FORMAT_SRCS := tests/unit/mx_format_test.c libm890/src/mx.c \
	libm890/src/status.c libm890/src/handle.c
MX_FORMAT_DEPS := $(MX_FORMAT_SRCS) $(LIBM890_HDRS)

$(M890_BUILD)/unit/mx_format_test: $(MX_FORMAT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_UNIT_CFLAGS) -o $@ $(MX_FORMAT_SRCS) -lm -lpthread

$(M890_BUILD)/unit-san/mx_format_test: $(MX_FORMAT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_UNIT_CFLAGS) $(LIBM890_SAN) -o $@ $(MX_FORMAT_SRCS) -lm -lpthread

.PHONY: mx-format-unit
mx-format-unit: $(M890_BUILD)/unit/mx_format_test $(M890_BUILD)/unit-san/mx_format_test
userspace: mx-format-unit
