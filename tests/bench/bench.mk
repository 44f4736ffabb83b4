# SPDX-License-Identifier: MIT
#
# Benchmark programs (`make bench`, see Documentation/performance.rst):
#   build/bin/a2a_perf           guest: all-to-all bandwidth (libm890)
#   build/bin/ep_perf            guest: EP dispatch/combine times (libm890)
#   build/bin/allreduce_perf, allgather_perf, reduce_scatter_perf,
#   broadcast_perf               guest: device collectives (libm890), one
#                                source (coll_perf.c) built per collective
#   build/bench/memcpy_bw        host: memcpy bandwidth (-t threads), the limit
#   build/bench/mpi_a2a_perf     host: Open MPI MPI_Alltoall baseline
# The guest programs go into the guest image with the other programs; the
# host programs are built only by `make bench` (they need Open MPI, which
# `deps.sh bench` installs).
# Needs libm890/libm890.mk (included first by the top-level Makefile).

M890_BUILD ?= build
BENCH_HOST_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g

.PHONY: bench-guest bench-host userspace

COLL_PERF_TOOLS := allreduce_perf allgather_perf reduce_scatter_perf broadcast_perf

bench-guest: $(M890_BUILD)/bin/ep_perf $(M890_BUILD)/bin/a2a_perf $(M890_BUILD)/bin/a2a_perf_test \
	$(addprefix $(M890_BUILD)/bin/,$(COLL_PERF_TOOLS))

# a2a_perf's and the collective tools' option semantics
# (tests/bench/a2a_perf_test.sh): in the guest (m890-guest-tests) and, its
# host part, as a unit test (which also knows VERSION, for --version).
$(M890_BUILD)/bin/a2a_perf_test: tests/bench/a2a_perf_test.sh
	@mkdir -p $(@D)
	install -m 755 $< $@
$(M890_BUILD)/unit/a2a_perf_args_test: tests/bench/a2a_perf_test.sh $(M890_BUILD)/bin/a2a_perf \
		$(addprefix $(M890_BUILD)/bin/,$(COLL_PERF_TOOLS)) VERSION
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec sh %s/tests/bench/a2a_perf_test.sh %s/$(M890_BUILD)/bin/a2a_perf %s\n' \
		'$(CURDIR)' '$(CURDIR)' '$(M890_VERSION)' >$@
	chmod 755 $@
unit: $(M890_BUILD)/unit/a2a_perf_args_test

# make bench's host pieces (tests/bench/bench_table_test.sh): memcpy_bw's
# options, the table of the repeats and its plot.  memcpy_bw needs no
# Open MPI, so the unit tests build it too.
$(M890_BUILD)/unit/bench_table_test: tests/bench/bench_table_test.sh \
		tests/bench/alltoall.awk tests/bench/busbw.sh $(M890_BUILD)/bench/memcpy_bw
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec bash %s/tests/bench/bench_table_test.sh %s %s/$(M890_BUILD)/bench/memcpy_bw\n' \
		'$(CURDIR)' '$(CURDIR)' '$(CURDIR)' >$@
	chmod 755 $@
unit: $(M890_BUILD)/unit/bench_table_test
userspace: bench-guest
bench-host: $(M890_BUILD)/bench/memcpy_bw $(M890_BUILD)/bench/mpi_a2a_perf

# Also linked again by `make install` (scripts/install.mk).
EP_PERF_SRCS := tests/bench/ep_perf.c
A2A_PERF_SRCS := tests/bench/a2a_perf.c

$(M890_BUILD)/bin/ep_perf: $(EP_PERF_SRCS) tests/bench/bench_pat.h tests/bench/model12.h \
		tests/bench/ep_dev_model.h tests/bench/perf_args.h \
		libm890/examples/cli_args.h \
		$(LIBM890_LIB) $(LIBM890_PUBHDR)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_APP_CFLAGS) -Ilibm890/examples -o $@ $(EP_PERF_SRCS) \
		$(LIBM890_APP_LDFLAGS) $(LIBM890_APP_LIBS)

$(M890_BUILD)/bin/a2a_perf: $(A2A_PERF_SRCS) tests/bench/bench_pat.h \
		tests/bench/perf_args.h libm890/examples/cli_args.h \
		$(LIBM890_LIB) $(LIBM890_PUBHDR)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_APP_CFLAGS) -Ilibm890/examples -o $@ $(A2A_PERF_SRCS) \
		$(LIBM890_APP_LDFLAGS) $(LIBM890_APP_LIBS)

# The collective of each tool, for coll_perf.c's -DPERF_COLL.
COLL_PERF_SRCS := tests/bench/coll_perf.c
coll_perf_def = -DPERF_COLL=PC_$(shell echo $(patsubst %_perf,%,$(1)) | tr a-z A-Z)

$(addprefix $(M890_BUILD)/bin/,$(COLL_PERF_TOOLS)): $(M890_BUILD)/bin/%: $(COLL_PERF_SRCS) \
		tests/bench/perf_args.h libm890/examples/cli_args.h $(LIBM890_LIB) $(LIBM890_PUBHDR)
	@mkdir -p $(@D)
	$(CC) $(LIBM890_APP_CFLAGS) -Ilibm890/examples $(call coll_perf_def,$*) -o $@ \
		$(COLL_PERF_SRCS) $(LIBM890_APP_LDFLAGS) $(LIBM890_APP_LIBS)

$(M890_BUILD)/bench/memcpy_bw: tests/bench/memcpy_bw.c tests/bench/bench_pat.h \
		libm890/examples/cli_args.h
	@mkdir -p $(@D)
	$(CC) $(BENCH_HOST_CFLAGS) -pthread -Ilibm890/examples -o $@ $<

$(M890_BUILD)/bench/mpi_a2a_perf: tests/bench/mpi_a2a_perf.c tests/bench/bench_pat.h \
		libm890/examples/cli_args.h
	@mkdir -p $(@D)
	mpicc $(BENCH_HOST_CFLAGS) -Ilibm890/examples -o $@ $<

# submit_perf: SUBMIT's wall time against the BOs the file holds (raw
# ioctls, no libm890), in the guest image.
SUBMIT_PERF_CFLAGS = -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -Iuapi \
	$(call m890_pkg_config,SUBMIT_PERF_DRM_CFLAGS,--cflags libdrm)
$(M890_BUILD)/bin/submit_perf: tests/bench/submit_perf.c uapi/drm/m890_accel.h uapi/drm/m890_packets.h
	@mkdir -p $(@D)
	$(CC) $(SUBMIT_PERF_CFLAGS) -o $@ $< $(call m890_pkg_config,SUBMIT_PERF_DRM_LIBS,--libs libdrm)
bench-guest: $(M890_BUILD)/bin/submit_perf
