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

# The device's integer arithmetic (qemu-device/m890_arith.c) against the
# host reference (mx.c, and gemm.c: the reference of the device's GEMM)
# built with FMA contraction on (-mfma where the CPU has it, so that
# contraction can fuse) and off: both must agree bit for bit.  The
# reference is built at -O2, as in the library: GCC fuses a multiply and
# an add only from -O2 (the test's canary checks that it did).  gemm.c
# is also built with -ffp-contract=off under other names, the baseline
# the test compares the build's GEMM with.
ARITH_SRCS := tests/unit/arith_agree_test.c qemu-device/m890_arith.c
ARITH_REF_SRCS := libm890/src/mx.c libm890/src/gemm.c libm890/src/status.c \
	libm890/src/handle.c
ARITH_DEPS := $(ARITH_SRCS) $(ARITH_REF_SRCS) tests/unit/arith_contract.c \
	qemu-device/m890_arith.h $(LIBM890_HDRS)
ARITH_FMA := $(shell grep -qw fma /proc/cpuinfo 2>/dev/null && echo -mfma)
ARITH_GEMM_OFF := -Dm890_gemm=arith_gemm_off -Dm890_gemm_host=arith_gemm_off_host \
	-Dm890_gemm_row_bytes=arith_gemm_off_row_bytes

# arith_agree_build OUT CONTRACT-FLAGS EXTRA: the reference with the flags,
# the device code and the test with the project's usual ones.
define arith_agree_build
	@mkdir -p $(@D)/arith-$(2)
	$(CC) $(LIBM890_UNIT_CFLAGS) $(3) -O2 $(4) -c libm890/src/mx.c -o $(@D)/arith-$(2)/mx.o
	$(CC) $(LIBM890_UNIT_CFLAGS) $(3) -O2 $(4) -c libm890/src/gemm.c -o $(@D)/arith-$(2)/gemm.o
	$(CC) $(LIBM890_UNIT_CFLAGS) $(3) -O2 $(4) -c tests/unit/arith_contract.c \
		-o $(@D)/arith-$(2)/contract.o
	$(CC) $(LIBM890_UNIT_CFLAGS) $(3) -O2 -ffp-contract=off $(ARITH_GEMM_OFF) \
		-c libm890/src/gemm.c -o $(@D)/arith-$(2)/gemm_off.o
	$(CC) $(LIBM890_UNIT_CFLAGS) $(3) -Iqemu-device '-DARITH_CONTRACT="$(strip $(4))"' \
		-o $@ $(ARITH_SRCS) $(addprefix $(@D)/arith-$(2)/,mx.o gemm.o contract.o gemm_off.o) \
		libm890/src/status.c libm890/src/handle.c -lm -lpthread
endef

$(M890_BUILD)/unit/arith_agree_fast_test: $(ARITH_DEPS)
	$(call arith_agree_build,$@,fast,,-ffp-contract=fast $(ARITH_FMA))
$(M890_BUILD)/unit/arith_agree_off_test: $(ARITH_DEPS)
	$(call arith_agree_build,$@,off,,-ffp-contract=off)
$(M890_BUILD)/unit-san/arith_agree_fast_test: $(ARITH_DEPS)
	$(call arith_agree_build,$@,fast,$(LIBM890_SAN),-ffp-contract=fast $(ARITH_FMA))

.PHONY: arith-agree-unit
arith-agree-unit: $(M890_BUILD)/unit/arith_agree_fast_test \
	$(M890_BUILD)/unit/arith_agree_off_test $(M890_BUILD)/unit-san/arith_agree_fast_test
userspace: arith-agree-unit
