#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The guest harness itself, host side, run by `make check` (suite
# guest-boot): short boots that check
# - every card probes at the card counts around the PCIe layout's edges
#   (eight root ports to a slot: 1, 7, 8, 9, 31, 33, 63 cards; 24 and 25,
#   where one vector per queue used to run out; 2, 4, 8 and 64 are booted
#   by the other suites);
# - a card that does not probe fails the boot, naming the card and the
#   cause (a 256 GiB HBM BAR that the host bridge's window cannot hold
#   beside another), and so does a card more than was asked for;
# - GUEST_CPUS, GUEST_MEM, GUEST_APPEND (m890.max_vectors=1: one MSI-X
#   vector shared by events and every queue) and QEMU_OPTS reach the guest,
#   and bad values are refused before anything boots;
# - a kernel oops before m890.ko loads is retried once, one after is not;
#   a vCPU timer stall before the command runs is retried twice.
# Prints TAP.
#
# usage: m890-boot-tests.sh [-l LOG]
# Environment: QEMU, KERNEL, INITRD (as for guest-run.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
run=$top/scripts/guest-run.sh
log=/dev/null
while getopts "l:" o; do
	case $o in
	l) log=$OPTARG ;;
	*) exit 2 ;;
	esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ "$log" = /dev/null ] || { mkdir -p "$(dirname "$log")"; : >"$log"; }
n=0 fail=0

tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

# boot OUT ARGS... -- CMD: one guest, its output in OUT (and the log);
# returns its status.
boot() {
	local out=$1 rc
	shift
	"$run" -t 300 "$@" >"$out" 2>&1
	rc=$?
	{ echo "== guest-run.sh $*"; cat "$out"; } >>"$log"
	return $rc
}

for c in 1 7 9 24 25 31 33 63; do
	boot "$work/out" -n "$c" -- \
		"test \$(ls /dev/accel | grep -c '^accel') = $c && grep -c 'm890' /proc/interrupts"
	rc=$?
	tap $rc "CARDS=$c: every card probes (MSI-X vectors in use: $(tail -n 1 "$work/out"))"
	[ $rc = 0 ] || sed 's/^/# /' "$work/out" | tail -n 5
done

# Two cards of 256 GiB HBM each: the 64-bit window (the top quarter of a
# 40-bit physical address space) holds one; card1's BAR is not assigned.
# (guest-run.sh refuses these sizes before the boot: M890_BAR_CHECK=0
# lets them through, to see what the guest does with them.)
M890_BAR_CHECK=0 M890_KVM=0 boot "$work/out" -n 2 -m 262144 -- 'echo THE-COMMAND-RAN'
rc=$?
tap $((rc == 0)) "a card that does not probe fails the boot (status $rc)"
! grep -q THE-COMMAND-RAN "$work/out"
tap $? "... before the command runs"
grep -q 'init: card1 (0000:02:00.0) did not probe: BAR 2 (HBM, 262144 MiB) not assigned' "$work/out"
tap $? "... naming the card and the cause"
grep 'did not probe' "$work/out" | sed 's/^/# /'

QEMU_OPTS="-object memory-backend-memfd,id=hbmx,size=128M,share=on -device m890,id=cardx,memdev=hbmx,switch=sw0,port=60,bus=pcie.0,addr=1f.0" \
	boot "$work/out" -n 2 -- 'echo THE-COMMAND-RAN'
rc=$?
tap $((rc == 0)) "a card more than CARDS (added through QEMU_OPTS) fails the boot (status $rc)"
grep -q '3 M890 cards on the PCI bus, 2 expected' "$work/out" && ! grep -q THE-COMMAND-RAN "$work/out"
tap $? "... saying how many cards were found and expected"

GUEST_CPUS=3 GUEST_MEM=1536 boot "$work/out" -n 1 -- \
	'echo "cpus=$(nproc) mem=$(awk "/MemTotal/ { print int(\$2 / 1024) }" /proc/meminfo)"'
rc=$?
line=$(grep '^cpus=' "$work/out")
[ $rc = 0 ] && [ "${line%% *}" = cpus=3 ] && [ "${line#* mem=}" -gt 1300 ] && [ "${line#* mem=}" -le 1536 ]
tap $? "GUEST_CPUS=3 GUEST_MEM=1536 reach the guest ($line)"

GUEST_APPEND=m890.max_vectors=1 boot "$work/out" -n 3 -- \
	'cat /sys/module/m890/parameters/max_vectors; grep -c m890 /proc/interrupts; m890-a2a | tail -n 1; m890-lib-test-stream >/tmp/st; echo $?'
rc=$?
tap $rc "GUEST_APPEND=m890.max_vectors=1: the guest runs with one vector per card"
mapfile -t v < <(grep -v -e '^\[' -e '^guest-run' "$work/out")
[ "${v[0]:-}" = 1 ] && [ "${v[1]:-}" = 3 ]
tap $? "... the parameter reached the module, 3 cards use 3 vectors (${v[0]:-?}, ${v[1]:-?})"
[ "${v[2]:-}" = "# OK: all 9 blocks verified" ] && [ "${v[3]:-}" = 0 ]
tap $? "... events and every queue on one vector: the all-to-all and the stream tests pass (${v[2]:-?}; stream tests status ${v[3]:-?})"

# retry_case APPEND TRIES RESTARTED FINAL DESC: a one-card boot with
# GUEST_APPEND=APPEND whose command must never run: it fails, with TRIES
# lines matching RESTARTED in the harness's output and one matching FINAL.
retry_case() {
	local rc tries
	GUEST_APPEND=$1 boot "$work/out" -n 1 -- 'echo THE-COMMAND-RAN'
	rc=$?
	tries=$(grep -c "$3" "$work/out")
	[ $rc != 0 ] && [ "$tries" = "$2" ] && grep -q "$4" "$work/out" &&
		! grep -q THE-COMMAND-RAN "$work/out"
	tap $? "$5 (status $rc, $tries restarts)"
}

# A kernel oops before m890.ko loads gets one fresh boot, reported, and a
# second one fails the run; one from the loading of m890.ko on is never
# retried (m890test.boot_oops: /init's stand-in for such an oops).
retry_case m890test.boot_oops=pre 1 'restarting it once' 'a second time: the run fails' \
	"an oops before m890.ko loads: one fresh boot, reported, and a second fails the run"
retry_case m890test.boot_oops=post 0 'restarting' 'stand-in for an oops from m890.ko' \
	"an oops from the loading of m890.ko on is not retried and fails the run"
# A vCPU whose local timer stops before the command runs, even after
# m890.ko loaded (RCU names the CPU; m890test.timer_stall=post is /init's
# stand-in for that report): two fresh boots, reported, then the run fails.
retry_case m890test.timer_stall=post 2 'local timer stopped before the command ran.*restarting it' \
	'a third time: the run fails' \
	"a vCPU timer stall before the command, after m890.ko loaded: two fresh boots, reported, then the run fails"

for bad in "GUEST_CPUS=0" "GUEST_CPUS=x" "GUEST_MEM=100" "GUEST_MEM=1G"; do
	env "$bad" "$run" -n 1 -- true >"$work/out" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -q "guest-run: ${bad%%=*}" "$work/out"
	tap $? "$bad refused before anything boots (status $rc: $(head -n 1 "$work/out"))"
done

echo "1..$n"
exit $fail
