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
taskset -p -c 0 $$ >/dev/null 2>&1
c=1
while [ "$c" -lt "$(nproc)" ]; do
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
taskset -p -c "0-$(($(nproc) - 1))" $$ >/dev/null 2>&1
ip link set lo up 2>/dev/null

for m in $(cat /lib/modules/load-order); do
	insmod /lib/modules/$m.ko || echo "init: insmod $m failed"
done
if ! grep -q 'm890.noload' /proc/cmdline; then
	insmod /lib/modules/m890.ko || echo "init: insmod m890 failed"
fi

cd /root
if [ -f /cmd.sh ]; then
	sh /cmd.sh
	rc=$?
else
	setsid cttyhack sh
	rc=$?
fi

# Any WARN, BUG, oops, lockup, RCU stall or hung-task report fails the run.
if dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|soft lockup|hung_task|Call Trace|rcu_sched self-detected stall|rcu_preempt self-detected stall|rcu: INFO:|blocked for more than' >/tmp/bad; then
	echo "init: kernel reported problems:"
	dmesg | tail -n 80
	[ "$rc" = 0 ] && rc=99
fi
echo "M890-EXIT=$rc"
sync
poweroff -f
