#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Boot a microvm guest with N emulated M890 cards on one in-process ICN
# switch, run one command (or an interactive shell) and return its status.
#
# usage: guest-run.sh [-n CARDS] [-m HBM_MiB] [-t TIMEOUT_S] [-l LOG] [-i] [-N] [-H] [CMD]
#   -i  interactive shell instead of CMD      -N  do not load m890.ko
#   -H  put the last card behind a pcie-root-port (native PCIe hotplug), so
#       `device_del card<N-1>` on the monitor removes it from the running
#       guest; the guest then has one vCPU (see below)
# Environment: M890_MONITOR, path of the QEMU monitor's Unix socket
# (default: a private one).
# Environment: QEMU (binary), KERNEL (vmlinuz), INITRD (base cpio).
set -uo pipefail
cards=8 hbm=128 timeout=600 log= interactive=0 noload= hotplug=0 hpargs= smp=2
while getopts "n:m:t:l:iNH" o; do
	case $o in
	n) cards=$OPTARG ;;
	m) hbm=$OPTARG ;;
	t) timeout=$OPTARG ;;
	l) log=$OPTARG ;;
	i) interactive=1 ;;
	N) noload=" m890.noload" ;;
	H) hotplug=1 hpargs=" pcie_ports=native" smp=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
cmd=${*:-}
: "${QEMU:?QEMU not set}" "${KERNEL:?KERNEL not set}" "${INITRD:?INITRD not set}"
case $cards in ''|*[!0-9]*) echo "guest-run: CARDS must be a number" >&2; exit 2 ;; esac
if [ "$cards" -lt 1 ] || [ "$cards" -gt 64 ]; then
	echo "guest-run: CARDS must be 1..64 (ICN Switch 1.0 has 64 ports)" >&2
	exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
initrd=$INITRD
if [ "$interactive" = 0 ]; then
	# An appended cpio adds /cmd.sh to the base image without rebuilding it.
	mkdir -p "$work/extra"
	printf '%s\n' "$cmd" >"$work/extra/cmd.sh"
	(cd "$work/extra" && echo cmd.sh | cpio -o -H newc --owner=+0:+0 --quiet) >"$work/extra.cpio"
	cat "$INITRD" "$work/extra.cpio" >"$work/initrd.cpio"
	initrd=$work/initrd.cpio
fi

accel="-accel tcg,thread=multi"
if [ "${M890_KVM:-auto}" != 0 ] && [ -w /dev/kvm ] && [ -f "${M890_CACHE:-/nonexistent}/kvm-ok" ]; then
	accel="-accel kvm"
fi
# Under TCG the guest's TSC is the host's: give the guest its frequency so
# it need not calibrate (see below) and can use the TSC as its clocksource.
tsc_khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
[ -n "$tsc_khz" ] && [ "$tsc_khz" -gt 0 ] || tsc_khz=2000000
mem=$((1024 + cards * 16))
# One vCPU with -H: QEMU 10.0's TCG flushes the other vCPUs' TLBs only
# asynchronously after the memory map changes (tcg_commit), and an MMIO
# access of another vCPU through a stale TLB entry in that window (the
# unplugged card's BARs just went away) aborts QEMU in iotlb_to_section().
# "pcie_ports=native": the firmware grants no _OSC control, pciehp needs it.
args=(-machine microvm,pcie=on,rtc=on $accel -cpu max -smp "$smp" -m "${mem}M"
	-nodefaults -no-user-config -nographic -no-reboot -L /usr/share/qemu
	-serial stdio -kernel "$KERNEL" -initrd "$initrd"
	-append "console=ttyS0 quiet loglevel=4 panic=-1 nokaslr lpj=8000000 tsc_early_khz=$tsc_khz tsc=reliable lapic=notscdeadline$noload$hpargs"
	-monitor "unix:${M890_MONITOR:-$work/monitor.sock},server=on,wait=off"
	-object icn-switch,id=sw0)
for ((i = 0; i < cards; i++)); do
	bus=
	if [ "$hotplug" = 1 ] && [ $((i + 1)) = "$cards" ]; then
		args+=(-device "pcie-root-port,id=rp0,bus=pcie.0,chassis=1,slot=1")
		bus=",bus=rp0"
	fi
	args+=(-object "memory-backend-memfd,id=hbm$i,size=${hbm}M,share=on"
		-device "m890,id=card$i,memdev=hbm$i,switch=sw0,port=$i$bus")
done

if [ "$interactive" = 1 ]; then
	exec "$QEMU" "${args[@]}"
fi
# The status is read from a private copy: concurrent runs may share $log.
[ -n "$log" ] || log=/dev/null
[ "$log" = /dev/null ] || mkdir -p "$(dirname "$log")"
: >"$log"

# Under TCG on a loaded host the kernel's PIT calibration of the TSC
# fails ("tsc: Unable to calibrate against PIT"), the TSC is marked
# unstable and the boot stalls before SMP bring-up, in the local APIC
# timer calibration (lapic_timer_period= is reported as an unknown
# parameter by this kernel).  tsc_early_khz= gives the TSC a frequency
# and the boot goes through; lapic=notscdeadline keeps the local APIC
# timer out of TSC-deadline mode, whose expiry depends on that frequency
# being exact (with it, an idle vCPU could miss its timer and stall RCU).
# As a safety net /init prints M890-BOOTED
# first thing, and a boot that has not shown it in time is restarted
# (twice at most).  Hangs after boot are the command's and are never
# retried.
boot_timeout=${M890_BOOT_TIMEOUT:-90}
for attempt in 1 2 3; do
	: >"$work/console.log"
	rm -f "$work/qemu.pid" "$work/qemu.rc"
	{
		timeout --foreground -k 5 "$timeout" "$QEMU" "${args[@]}" \
			-pidfile "$work/qemu.pid" </dev/null 2>&1
		echo $? >"$work/qemu.rc"
	} | sed -u 's/\r$//' | tee "$work/console.log" -a "$log" |
		grep --line-buffered -v -E '^M890-(EXIT=|BOOTED)|^\[ *[0-9.]+\] (reboot|ACPI)' &
	pipeline=$!
	booted=0
	for ((t = 0; t < boot_timeout * 2; t++)); do
		if grep -q '^M890-BOOTED' "$work/console.log"; then
			booted=1
			break
		fi
		kill -0 "$pipeline" 2>/dev/null || break
		sleep 0.5
	done
	if [ $booted = 0 ] && [ -s "$work/qemu.pid" ] && kill -0 "$pipeline" 2>/dev/null; then
		echo "guest-run: guest did not boot in ${boot_timeout}s (attempt $attempt), restarting it" >&2
		kill "$(cat "$work/qemu.pid")" 2>/dev/null
		wait "$pipeline"
		continue
	fi
	wait "$pipeline"
	break
done
qrc=$(cat "$work/qemu.rc" 2>/dev/null || echo 1)
rc=$(sed -n 's/^M890-EXIT=\([0-9]*\)$/\1/p' "$work/console.log" | tail -n1)
if [ -z "$rc" ]; then
	if [ "$qrc" = 124 ]; then
		echo "guest-run: guest timed out after ${timeout}s (log: $log)" >&2
	else
		echo "guest-run: guest ended without an exit status (QEMU status $qrc, log: $log)" >&2
	fi
	exit 125
fi
exit "$rc"
