#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Run a guest under the debug kernel (scripts/kernel-debug.sh: KASAN,
# lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, KFENCE, kmemleak) and fail
# on any report of those checkers, or any WARN, BUG, oops or lockup, in
# its console log.  The guest's /init checks dmesg and kmemleak itself;
# this scan of the console also catches what /init cannot report (a
# panic, a hang, a report lost from the ring buffer).
#
#   m890-debug-run.sh -l LOG [GUEST-RUN OPTIONS] -- CMD
#       boot the guest (scripts/guest-run.sh ... -l LOG -- CMD)
#   m890-debug-run.sh -l LOG -c PROGRAM [ARGS...]
#       run a host program that boots the guest itself with KERNEL and
#       INITRD from the environment and writes its console to LOG
#       (tests/guest/m890-hotplug-test.sh)
# Prints the command's output and one TAP line for the scan; exits
# non-zero when the command failed or the scan found a report.
# Environment: DEBUG_KERNEL (the bzImage), DEBUG_INITRD (its initramfs),
# QEMU, ICN_SWITCHD, GUEST_APPEND (as for guest-run.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# (-l first, then -c: everything after them is guest-run.sh's or PROGRAM's)
[ "${1:-}" = -l ] && [ -n "${2:-}" ] || { echo "usage: m890-debug-run.sh -l LOG [-c] ..." >&2; exit 2; }
log=$2 host=0
shift 2
if [ "${1:-}" = -c ]; then
	host=1
	shift
fi
: "${DEBUG_KERNEL:?DEBUG_KERNEL not set (make kernel-debug)}" "${DEBUG_INITRD:?DEBUG_INITRD not set}"
export KERNEL=$DEBUG_KERNEL INITRD=$DEBUG_INITRD
# Warnings on the console too (lockdep and WARN print at KERN_WARNING).
export GUEST_APPEND="loglevel=5${GUEST_APPEND:+ $GUEST_APPEND}"

if [ "$host" = 1 ]; then
	"$@"
else
	"$top/scripts/guest-run.sh" -l "$log" "$@"
fi
rc=$?

# Kernel lines carry a timestamp (CONFIG_PRINTK_TIME); /init's own
# verdicts start with "init:".
pat='BUG:|WARNING:|Oops|general protection|Kernel panic|kmemleak: .*suspected|possible circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|soft lockup|hung_task|blocked for more than|self-detected stall|rcu: INFO:|Call Trace'
reports=$(grep -E "^(\[vm[0-9]+\] )?(\[ *[0-9]+\.[0-9]+\] .*($pat)|init: (kernel reported problems|kmemleak|lockdep))" "$log" 2>/dev/null)
if [ -n "$reports" ]; then
	echo "not ok 1 - debug kernel: reports in the console log ($log)"
	printf '%s\n' "$reports" | head -n 40 | sed 's/^/#   /'
	[ "$rc" = 0 ] && rc=1
else
	echo "ok 1 - debug kernel: no KASAN, KFENCE, lockdep, kmemleak, WARN or BUG report in the console"
fi
exit "$rc"
