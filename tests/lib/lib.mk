# SPDX-License-Identifier: MIT
#
# libm890 guest tests: build/tests/m890-lib-test-NAME from
# tests/lib/test_NAME.c.  Each prints TAP and exits non-zero on failure.
# Needs libm890/libm890.mk (included first by the top-level Makefile).

M890_BUILD ?= build

LIB_TEST_SRCS := $(sort $(wildcard tests/lib/test_*.c))
LIB_TEST_BINS := $(patsubst tests/lib/test_%.c,$(M890_BUILD)/tests/m890-lib-test-%,$(LIB_TEST_SRCS))

.PHONY: lib-tests userspace

lib-tests: $(LIB_TEST_BINS)

userspace: lib-tests

$(M890_BUILD)/tests/m890-lib-test-%: tests/lib/test_%.c tests/lib/tap.h tests/lib/ep_ranks.h tests/lib/ep_ref.h tests/lib/ep_dev_ref.h \
		tests/lib/coll_checks.h tests/lib/drv_param.h tests/lib/rank_timeout.h \
		$(LIBM890_LIB) $(LIBM890_PUBHDR)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_APP_CFLAGS) -Itests/lib -o $@ $< \
		$(LIBM890_APP_LDFLAGS) $(LIBM890_APP_LIBS) -lm

# The metadata exchange is internal to the library: that test links the
# library's objects (same flags) instead of libm890.so.
$(M890_BUILD)/tests/m890-lib-test-meta: tests/lib/test_meta.c tests/lib/tap.h tests/lib/drv_param.h \
		$(LIBM890_OBJS) $(LIBM890_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_CFLAGS) -Itests/lib -o $@ $< \
		$(LIBM890_OBJS) $(LIBM890_LIBS)
