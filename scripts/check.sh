#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Run every test suite and print one summary line "N passed, N failed".
# Suites: host unit tests (plain and ASan/UBSan builds), the device qtests,
# the in-guest suites (uAPI kselftests, libm890, icnctl, module reload),
# run in one guest boot per card count, the collective tests on 4 cards,
# two guests on icn-switchd, and the hot-unplug test (its own boot, driven
# from the host through the QEMU monitor).  Each suite speaks TAP; its
# output goes to build/logs/<suite>.log and a line per suite is printed,
# with the counts of prove's TAP parser (TAP::Parser, count_tap below).
#
# Environment: QEMU, KERNEL, INITRD, ICN_SWITCHD (as for guest-run.sh),
# QTEST_DIR, KDIR and M890_CONFIG_DIR (the module's build, for sparse);
# CHECK_CARDS, CHECK_VMS=0 (skip the suites of several VMs),
# CHECK_SUPERNODE=0 (skip the 64-card suites); DEBUG_KERNEL and
# DEBUG_INITRD (the debug kernel's guest), CHECK_DEBUG=0 (skip its
# suites), CHECK_DEBUG_COLL_CARDS.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
logdir=$top/build/logs
mkdir -p "$logdir"
passed=0 failed=0 skipped=0

# count_tap LOG NAME: add the tests of a suite's TAP log to the totals, as
# prove's parser reads them (scripts/tap-count.pl, TAP::Parser).  A host
# suite's log is one TAP stream: a missing or wrong plan, tests out of
# sequence or "Bail out!" is one failure more.  A guest-* suite's log has
# several programs' TAP in turn, one stream per VM ("[vmN] " prefix): its
# test lines count, and each "Bail out!".  The problems are printed.
count_tap() {
	local p f s mode='' out
	case $2 in guest-*) mode=--guest ;; esac
	out=$(perl "$top/scripts/tap-count.pl" $mode "$1")
	read -r p f s <<<"${out%%$'\n'*}"
	case "$p$f$s" in
	*[!0-9]* | '') p=0 f=1 s=0 ;;
	esac
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	printf '%-28s %4d passed, %d failed, %d skipped   (%s)\n' "$2" "$p" "$f" "$s" "${1#"$top"/}"
	[ "$out" = "${out%%$'\n'*}" ] || printf '%s\n' "${out#*$'\n'}" | head -20 | sed 's/^/    /'
}

# run_suite NAME CMD...: run a TAP-printing command; a non-zero exit with no
# failing test counted is itself one failure.
run_suite() {
	local name=$1 log=$logdir/$1.log rc f0=$failed
	shift
	"$@" >"$log" 2>&1
	rc=$?
	count_tap "$log" "$name"
	if [ $rc != 0 ] && [ $failed = "$f0" ]; then
		echo "not ok - $name exited with status $rc" | tee -a "$log"
		failed=$((failed + 1))
	fi
	if [ $failed != "$f0" ]; then
		grep -E '^(\[vm[0-9]+\] )?( *not ok|#.*(FAIL|fail)|init: )|guest-run:' "$log" | head -20 |
			sed 's/^/    /'
		# what the kernel and icn-switchd said meanwhile (the first lines)
		for f in "$logdir/$name.console.log" "$logdir/$name.console.icn-switchd.log"; do
			[ -f "$f" ] || continue
			grep -E '\*ERROR\*|BUG|WARNING|rcu: INFO|dropping it|FENCE_ACK after|receive failed' "$f" |
				grep -v -E '^(\[vm[0-9]+\] )?#' | head -10 | sed "s|^|    ${f##*/}: |"
		done
	fi
}

# 1. Host unit tests, plain and sanitized, under prove (scripts/check-unit.sh:
# prove parses and summarises their TAP; its summary gives the counts).
"$top/scripts/check-unit.sh" | tee "$logdir/check-unit.log" | sed -n '/^Test Summary/,$p;/^Files=/p' |
	grep -v '^[0-9]* passed' | sed 's/^/    /'
unit_rc=${PIPESTATUS[0]}
read -r up _ uf _ us _ < <(tail -n 1 "$logdir/check-unit.log")
case "$up$uf$us" in
*[!0-9]* | '') up=0 uf=1 us=0 ;;
esac
passed=$((passed + up)) failed=$((failed + uf)) skipped=$((skipped + us))
[ "$unit_rc" = 0 ] || [ "$uf" != 0 ] || failed=$((failed + 1))
printf '%-28s %4d passed, %d failed, %d skipped   (%s)\n' "unit (prove)" "$up" "$uf" "$us" \
	"build/logs/unit.log"

# Kernel coding style of the driver and its shared headers, and sparse
# (make C=2, endian checks) over the driver.
run_suite checkpatch "$top/scripts/checkpatch.sh"
run_suite fnlen "$top/scripts/fnlen.sh"
run_suite sparse "$top/scripts/sparse.sh" "${KDIR:?}" "${M890_CONFIG_DIR:?}"
# The netlink spec against the kernel's YNL schema, and the generated uAPI
# header and kernel policies/ops against what ynl-gen-c.py makes of it.
run_suite ynl "$top/scripts/ynl.sh" check
# QEMU coding style of the device model, icn-switchd and the qtests.
run_suite qemu-style "$top/scripts/qemu-style.sh"

# 2. Device model qtests.
for t in "${QTEST_DIR:?}"/*-test; do
	[ -x "$t" ] || continue
	run_suite "qtest-$(basename "$t")" env QTEST_QEMU_BINARY="$QEMU" \
		ICN_SWITCHD="$top/build/host/icn-switchd" "$t" --tap -k
done

# QEMU's introspection: every property of m890 and icn-switch described.
run_suite qemu-help sh "$top/tests/qtest/m890-help-test.sh" "$top" "$QEMU"

# 3. In-guest suites, one boot per card count.
for n in ${CHECK_CARDS:-8 2}; do
	run_suite "guest-${n}cards" "$top/scripts/guest-run.sh" -n "$n" -t "${GUEST_TIMEOUT:-1200}" \
		-l "$logdir/guest-${n}cards.console.log" -- "m890-guest-tests $n"
done

# 4. The collective tests alone on other card counts (one short boot each;
# on one card the tests of several processes skip):
# all-to-all, grouped send/recv, EP dispatch/combine, one process per
# card and the collective metadata exchange, and EP on per-rank
# communicators (one process per card, fabric), EP with routing on the
# card (one process, one process per card), the per-rank stress and
# hazard test, on 4 cards.
for n in ${CHECK_COLL_CARDS:-1 4}; do
	run_suite "guest-${n}cards-collectives" "$top/scripts/guest-run.sh" -n "$n" \
		-t "${GUEST_TIMEOUT:-1200}" -l "$logdir/guest-${n}cards-collectives.console.log" -- \
		'rc=0; for t in m890-lib-test-comm m890-lib-test-ep m890-lib-test-mproc m890-lib-test-meta m890-lib-test-ep_mproc m890-lib-test-ep_fabric m890-lib-test-ep_dev m890-lib-test-ep_dev_mproc m890-lib-test-rankstress m890-lib-test-dcoll m890-lib-test-group; do echo "# suite $t"; $t || rc=1; done; exit $rc'
done
# Spec 1.0 cards (one data mover, no fabric atomics: -global m890.engines=0),
# where the collectives take their spec 1.0 paths: the all-to-all, the
# per-rank collectives and their timeouts, host-routed EP.
run_suite guest-4cards-spec10 env QEMU_OPTS="-global m890.engines=0${QEMU_OPTS:+ $QEMU_OPTS}" \
	"$top/scripts/guest-run.sh" -n 4 -t "${GUEST_TIMEOUT:-1200}" \
	-l "$logdir/guest-4cards-spec10.console.log" -- \
	'rc=0; for t in m890-lib-test-comm m890-lib-test-ep m890-lib-test-mproc m890-lib-test-meta m890-lib-test-ep_mproc; do echo "# suite $t"; $t || rc=1; done; exit $rc'
# 5. Two VMs of two cards on one icn-switchd: the joined fabric seen from
# each guest (tests/guest/m890-vm-fabric.sh).  Cross-VM data, a VM that
# dies and the daemon's restart are covered by qtest-m890-multivm-test.
if [ "${CHECK_VMS:-1}" != 0 ]; then
	run_suite guest-2vms "$top/scripts/guest-run.sh" -V 2 -n 2 -t "${GUEST_TIMEOUT:-1200}" \
		-l "$logdir/guest-2vms.console.log" -- m890-vm-fabric --leave
fi
# 6. The supernode: 64 cards in one guest (tests/guest/m890-supernode-tests.sh:
# the all-to-all, the single-process collective and EP tests, m890-moe,
# ep_perf's measured Kimi-K3 step against its formula), and the same 64 cards as
# four VMs of sixteen on icn-switchd (m890-vm-fabric in each).
if [ "${CHECK_SUPERNODE:-1}" != 0 ]; then
	run_suite guest-64cards "$top/scripts/guest-run.sh" -n 64 -t "${GUEST_TIMEOUT:-1800}" \
		-l "$logdir/guest-64cards.console.log" -- "m890-supernode-tests 64"
	if [ "${CHECK_VMS:-1}" != 0 ]; then
		run_suite guest-4vms "$top/scripts/guest-run.sh" -V 4 -n 16 -t "${GUEST_TIMEOUT:-1800}" \
			-l "$logdir/guest-4vms.console.log" -- m890-vm-fabric
	fi
fi
# 7. The guest harness: every card probes at the PCIe layout's edges, a
# card that does not probe fails the boot naming it, GUEST_* variables.
run_suite guest-boot "$top/tests/guest/m890-boot-tests.sh" -l "$logdir/guest-boot.console.log"
# 8. Hot-unplug: device_del of a card behind a pcie-root-port with a client
# open (its own boot: the card is gone afterwards).
run_suite guest-hotplug "$top/tests/guest/m890-hotplug-test.sh" -l "$logdir/guest-hotplug.console.log"

# 10. The debug kernel (scripts/kernel-debug.sh: KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, KFENCE, kmemleak), one boot per
# group: the uAPI, isolation and recovery tests with a bounded ioctl
# stress run and the module's unload; the collectives (but the long
# rank stress); the hot-unplug test, with lockdep's dependency checks
# off (lockdep.prove_locking=0: the kernel's own pciehp trips them at
# every removal, Documentation/testing.rst).  Any checker report, WARN
# or BUG in the console fails the suite (tests/guest/m890-debug-run.sh),
# as /init's scan of dmesg and kmemleak does in the guest.
# CHECK_DEBUG=0 skips them.
if [ "${CHECK_DEBUG:-1}" != 0 ]; then
	dbg=$top/tests/guest/m890-debug-run.sh
	run_suite guest-debug-uapi "$dbg" -l "$logdir/guest-debug-uapi.console.log" \
		-n 2 -t "${GUEST_TIMEOUT:-1800}" -- "m890-debug-tests 2"
	for n in ${CHECK_DEBUG_COLL_CARDS:-2}; do
		run_suite "guest-debug-${n}cards-collectives" "$dbg" \
			-l "$logdir/guest-debug-${n}cards-collectives.console.log" -n "$n" \
			-t "${GUEST_TIMEOUT:-1800}" -- \
			'rc=0; for t in m890-lib-test-comm m890-lib-test-ep m890-lib-test-mproc m890-lib-test-meta m890-lib-test-ep_mproc m890-lib-test-ep_fabric; do echo "# suite $t"; $t || rc=1; done; rmmod m890 || rc=1; exit $rc'
	done
	run_suite guest-debug-hotplug env GUEST_APPEND="lockdep.prove_locking=0${GUEST_APPEND:+ $GUEST_APPEND}" \
		"$dbg" -l "$logdir/guest-debug-hotplug.console.log" -c \
		"$top/tests/guest/m890-hotplug-test.sh" -l "$logdir/guest-debug-hotplug.console.log"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
