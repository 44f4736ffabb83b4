#!/bin/busybox sh
# SPDX-License-Identifier: MIT
#
# /init of the guest: mount the pseudo file systems, load the DRM modules
# and m890.ko, run /cmd.sh (or an interactive shell), report the exit status
# and dmesg health on the console, power off.
echo M890-BOOTED
/bin/busybox --install -s /bin
export PATH=/usr/bin:/usr/sbin:/bin:/sbin
export LD_LIBRARY_PATH=/usr/lib
export HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
hostname m890-guest

# Under TCG on a loaded host a vCPU's local APIC timer very rarely stops
# for good right after boot: every task that sleeps on that CPU then
# hangs and RCU reports stalls.  Check from CPU 0 (whose timer drives
# jiffies) that every CPU wakes from a short sleep; if one does not, ask
# guest-run.sh for a fresh boot instead of running the command.
# (Count the CPUs before pinning: nproc counts the CPUs one may run on.)
ncpu=$(grep -c '^processor' /proc/cpuinfo)
taskset -p -c 0 $$ >/dev/null 2>&1
c=1
while [ "$c" -lt "$ncpu" ]; do
	taskset -c "$c" usleep 50000 &
	p=$!
	n=0
	while kill -0 "$p" 2>/dev/null && [ "$n" -lt 50 ]; do
		usleep 100000
		n=$((n + 1))
	done
	if kill -0 "$p" 2>/dev/null; then
		echo "M890-RETRY: cpu $c does not wake from a sleep (its local timer stopped)"
		poweroff -f
	fi
	wait "$p"
	c=$((c + 1))
done
taskset -p -c "0-$((ncpu - 1))" $$ >/dev/null 2>&1
ip link set lo up 2>/dev/null

# A kernel that already reported a problem while booting (seen rarely
# under TCG: an int3 oops in sched_clock_cpu during init) is not ours to
# test: ask guest-run.sh for one fresh boot.  Problems from here on, from
# loading m890.ko onwards, fail the run instead.  m890test.boot_oops=pre
# or =post on the command line stands in for such an oops before or after
# that point (the harness's own test, tests/guest/m890-boot-tests.sh).
oops_test=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^m890test\.boot_oops=//p')
{
	dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace'
	[ "$oops_test" = pre ] && echo "Oops: stand-in for a boot oops (m890test.boot_oops=pre)"
} >/tmp/bad
if [ -s /tmp/bad ]; then
	echo "M890-RETRY-BOOT: the kernel reported a problem while booting:"
	head -n 5 /tmp/bad
	poweroff -f
fi

# A debug kernel (scripts/kernel-debug.sh) has kmemleak: forget what
# the boot left unreferenced, so that only leaks from here on count.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
fi

for m in $(cat /lib/modules/load-order); do
	insmod /lib/modules/$m.ko || echo "init: insmod $m failed"
done

# card_name BDF: "cardI (BDF)", I from the slot of the card's root port
# (guest-run.sh puts card I behind 00:<1+I/8>.<I%8>).
card_name() {
	port=$(basename "$(dirname "$(readlink -f "/sys/bus/pci/devices/$1")")")
	case $port in
	0000:00:*.*)
		slot=${port#0000:00:} fn=${slot#*.} slot=${slot%.*}
		echo "card$(( (0x$slot - 1) * 8 + fn )) ($1)" ;;
	*) echo "card at $1" ;;
	esac
}

# check_cards N: every M890 function is bound to m890 and has its accel
# node, and there are N of them; otherwise name each missing card and
# the cause the kernel logged for it.
check_cards() {
	want=$1 found=0 bad=0
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x1d89 ] && [ "$(cat "$d/device")" = 0x0890 ] || continue
		found=$((found + 1))
		bdf=$(basename "$d")
		if [ -e "$d/accel" ] || ls "$d" | grep -q '^accel'; then
			continue
		fi
		bad=$((bad + 1))
		why=$(dmesg | grep -F "$bdf" | grep -v 'enabling device' | grep -E 'm890|probe' |
			sed -e 's/^\[[ 0-9.]*\] //' -e "s/^m890 $bdf: //" | tail -n 3 |
			awk '{ printf "%s%s", (NR > 1 ? "; " : ""), $0 }')
		echo "init: $(card_name "$bdf") did not probe: ${why:-no driver bound}"
	done
	if [ "$found" != "$want" ]; then
		echo "init: $found M890 cards on the PCI bus, $want expected"
		bad=$((bad + 1))
	fi
	[ "$bad" = 0 ]
}

if ! grep -q 'm890.noload' /proc/cmdline; then
	# m890.PARAM=VALUE on the kernel command line (GUEST_APPEND) are
	# the module's parameters, as modprobe would pass them.
	params=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^m890\.\([a-z_0-9]*=.*\)$/\1/p')
	# From here on a failure may be the driver's: guest-run.sh never
	# retries a boot that got this far.
	echo M890-INSMOD
	if [ "$oops_test" = post ]; then
		echo "Oops: stand-in for an oops from m890.ko (m890test.boot_oops=post)"
		poweroff -f
	fi
	# shellcheck disable=SC2086
	insmod /lib/modules/m890.ko $params || echo "init: insmod m890 failed"
	want=$(sed -n 's/.*m890_cards=\([0-9]*\).*/\1/p' /proc/cmdline)
	if [ -n "$want" ] && ! check_cards "$want"; then
		echo "init: not every card probed; the command does not run"
		echo "M890-EXIT=97"
		poweroff -f
	fi
fi
# m890test.timer_stall=post stands in for a vCPU whose local timer stops
# after the module loaded (the RCU report's line, then no progress):
# guest-run.sh restarts such a boot (tests/guest/m890-boot-tests.sh).
if grep -q 'm890test.timer_stall=post' /proc/cmdline; then
	echo "rcu: stand-in (m890test.timer_stall=post): Possible timer handling issue on cpu=0"
	while :; do sleep 3600; done
fi
echo M890-CMD

cd /root
if [ -f /cmd.sh ]; then
	sh /cmd.sh
	rc=$?
else
	setsid cttyhack sh
	rc=$?
fi

# On a debug kernel: kmemleak's verdict on everything since the module
# load (two scans: an object must be unreferenced and older than 5 s), and
# lockdep still on (it switches itself off after its first report).
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 5
	echo scan >/sys/kernel/debug/kmemleak
	echo scan >/sys/kernel/debug/kmemleak
	if [ -s /sys/kernel/debug/kmemleak ]; then
		echo "init: kmemleak: suspected memory leaks:"
		head -n 120 /sys/kernel/debug/kmemleak
		[ "$rc" = 0 ] && rc=99
	fi
fi
if [ -r /proc/lockdep_stats ] && ! grep -q 'debug_locks: *1' /proc/lockdep_stats; then
	echo "init: lockdep turned itself off (debug_locks 0): see the kernel log"
	[ "$rc" = 0 ] && rc=99
fi

# Any WARN, BUG (KASAN and KFENCE reports among them), oops, lockup, RCU
# stall, hung-task or lockdep report fails the run.
if dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|soft lockup|hung_task|Call Trace|rcu_sched self-detected stall|rcu_preempt self-detected stall|rcu: INFO:|blocked for more than|kmemleak: .*suspected|possible circular locking|inconsistent lock state' >/tmp/bad; then
	echo "init: kernel reported problems:"
	dmesg | tail -n 80
	[ "$rc" = 0 ] && rc=99
fi
echo "M890-EXIT=$rc"
sync
poweroff -f
