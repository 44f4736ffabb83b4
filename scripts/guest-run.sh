#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Boot a microvm guest with N emulated M890 cards on one in-process ICN
# switch, run one command (or an interactive shell) and return its status.
# With -V VMS > 1, start icn-switchd and boot VMS guests at once, each
# with N cards on the daemon's switch (VM v has ports v*N .. v*N+N-1), run
# CMD in each (with M890_VM=v, M890_VMS, M890_CARDS in its environment),
# prefix every line of their output with "[vmV] " (check.sh parses each
# VM's TAP apart, scripts/tap-count.pl) and return the first non-zero status.
#
# usage: guest-run.sh [-n CARDS] [-V VMS] [-m HBM_MiB] [-t TIMEOUT_S] [-l LOG] [-i] [-N] [-H] [CMD]
#   -i  interactive shell instead of CMD      -N  do not load m890.ko
#   -C  only check the arguments and the GUEST_* variables, boot nothing
#   -H  make the last card's root port hot-pluggable (native PCIe hotplug),
#       so `device_del card<N-1>` on the monitor removes it from the running
#       guest; the guest then has one vCPU (see below)
# Card i sits in a slot of its own: behind root port rp<i> at 00:<1+i/8>.<i%8>
# (Documentation/architecture.rst, "PCIe topology").  The guest's /init
# fails the boot, naming the card, when a card does not probe.
# Environment: M890_MONITOR, path of the QEMU monitor's Unix socket
# (default: a private one); M890_BAR_CHECK=0, boot even when the cards'
# HBM BARs do not fit the guest's PCI window (below).
# Environment: QEMU (binary), KERNEL (vmlinuz), INITRD (base cpio);
# ICN_SWITCHD (the daemon) for -V.
# Environment, for people: GUEST_MEM (guest RAM in MiB; default 1024 +
# 32 per card), GUEST_CPUS (vCPUs; default 2), GUEST_APPEND (more kernel
# command-line options), QEMU_OPTS (more QEMU options, split at blanks).
set -uo pipefail
cards=8 vms=1 hbm=128 timeout=600 log= interactive=0 noload= hotplug=0 hpargs= smp=${GUEST_CPUS:-2}
check_only=0
while getopts "n:V:m:t:l:iNHC" o; do
	case $o in
	n) cards=$OPTARG ;;
	V) vms=$OPTARG ;;
	m) hbm=$OPTARG ;;
	t) timeout=$OPTARG ;;
	l) log=$OPTARG ;;
	i) interactive=1 ;;
	N) noload=" m890.noload" ;;
	H) hotplug=1 hpargs=" pcie_ports=native" ;;
	C) check_only=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
cmd=${*:-}
# decimal NAME VALUE [UNIT]: VALUE as a decimal number on standard output;
# exits 2 naming NAME unless it is one of at most 9 digits (leading zeros
# aside), so that no product of the checks below can overflow.
decimal() {
	local v=$2
	case $v in ''|*[!0-9]*) echo "guest-run: $1 must be a number${3:+ of $3}, not '$v'" >&2; exit 2 ;; esac
	v=${v#"${v%%[!0]*}"}
	[ ${#v} -le 9 ] || { echo "guest-run: $1 is out of range ($2)" >&2; exit 2; }
	echo $((10#${v:-0}))
}
cards=$(decimal CARDS "$cards") || exit 2
if [ "$cards" -lt 1 ] || [ "$cards" -gt 64 ]; then
	echo "guest-run: CARDS must be 1..64 (ICN Switch 1.0 has 64 ports)" >&2
	exit 2
fi
vms=$(decimal VMS "$vms") || exit 2
if [ "$vms" -lt 1 ] || [ $((vms * cards)) -gt 64 ]; then
	echo "guest-run: VMS x CARDS must be 1..64 (one switch of 64 ports)" >&2
	exit 2
fi
hbm=$(decimal HBM_MB "$hbm" MiB) || exit 2
if [ "$hbm" -lt 1 ] || [ $((hbm & (hbm - 1))) != 0 ]; then
	echo "guest-run: HBM_MB must be a power of two (MiB), not $hbm" >&2
	exit 2
fi
timeout=$(decimal GUEST_TIMEOUT "$timeout" seconds) || exit 2
if [ "$timeout" -lt 1 ]; then
	echo "guest-run: GUEST_TIMEOUT must be at least 1 (seconds)" >&2
	exit 2
fi
if [ "$vms" -gt 1 ]; then
	[ "$interactive" = 0 ] || { echo "guest-run: -i needs one VM" >&2; exit 2; }
	[ "$check_only" = 1 ] || : "${ICN_SWITCHD:?ICN_SWITCHD not set (the icn-switchd binary)}"
fi

work=$(mktemp -d)
switchd_pid=
cleanup() {
	[ -n "$switchd_pid" ] && kill "$switchd_pid" 2>/dev/null && wait "$switchd_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# vm_initrd DIR VM: the base image plus /cmd.sh (an appended cpio adds it
# without rebuilding the image); prints the initrd's path.
vm_initrd() {
	local dir=$1 v=$2
	if [ "$interactive" = 1 ]; then
		echo "$INITRD"
		return
	fi
	mkdir -p "$dir/extra"
	{
		[ "$vms" -gt 1 ] && echo "export M890_VM=$v M890_VMS=$vms M890_CARDS=$cards"
		printf '%s\n' "$cmd"
	} >"$dir/extra/cmd.sh"
	(cd "$dir/extra" && echo cmd.sh | cpio -o -H newc --owner=+0:+0 --quiet) >"$dir/extra.cpio"
	cat "$INITRD" "$dir/extra.cpio" >"$dir/initrd.cpio"
	echo "$dir/initrd.cpio"
}

accel="-accel tcg,thread=multi"
if [ "${M890_KVM:-auto}" != 0 ] && [ -w /dev/kvm ] && [ -f "${M890_CACHE:-/nonexistent}/kvm-ok" ]; then
	accel="-accel kvm"
fi
# Under TCG the guest's TSC is the host's: give the guest its frequency so
# it need not calibrate (see below) and can use the TSC as its clocksource.
tsc_khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
[ -n "$tsc_khz" ] && [ "$tsc_khz" -gt 0 ] || tsc_khz=2000000
# The HBM BARs of a VM's cards share the 64-bit window of microvm's PCIe
# host bridge, the top quarter of the guest's physical address space:
# -cpu max has 40 address bits under TCG (a 256 GiB window) and the
# host's under KVM (Documentation/architecture.rst, "PCIe topology").
# Each BAR is a power of two, so CARDS of them fit when their sum does;
# a card whose BAR does not fit would not probe, after the boot.
# M890_BAR_CHECK=0 skips this check (the guest-boot suite boots such a
# card on purpose).
phys_bits=40
if [ "${accel#-accel }" = kvm ]; then
	phys_bits=$(awk '/^address sizes/ { print $4; exit }' /proc/cpuinfo)
	case $phys_bits in ''|*[!0-9]*) phys_bits=40 ;; esac
fi
window_mb=$((1 << (phys_bits - 22)))
if [ "${M890_BAR_CHECK:-1}" != 0 ] && [ $((cards * hbm)) -gt "$window_mb" ]; then
	per_card=1
	while [ $((per_card * 2 * cards)) -le "$window_mb" ]; do per_card=$((per_card * 2)); done
	echo "guest-run: CARDS x HBM_MB ($cards x $hbm MiB) does not fit the guest's $window_mb MiB" \
		"window for HBM BARs (a quarter of its $phys_bits-bit physical address space):" \
		"HBM_MB at most $per_card for $cards cards" >&2
	exit 2
fi
mem=${GUEST_MEM:-$((1024 + cards * 32))}
case $mem in ''|*[!0-9]*) echo "guest-run: GUEST_MEM must be a number of MiB, not '$mem'" >&2; exit 2 ;; esac
[ "$mem" -ge 256 ] || { echo "guest-run: GUEST_MEM must be at least 256 (MiB)" >&2; exit 2; }
case $smp in ''|*[!0-9]*|0) echo "guest-run: GUEST_CPUS must be a positive number, not '$smp'" >&2; exit 2 ;; esac
[ "$smp" -le 64 ] || { echo "guest-run: GUEST_CPUS must be at most 64" >&2; exit 2; }
read -r -a qemu_opts <<<"${QEMU_OPTS:-}"
[ "$check_only" = 0 ] || exit 0
: "${QEMU:?QEMU not set}" "${KERNEL:?KERNEL not set}" "${INITRD:?INITRD not set}"

# One vCPU with -H: QEMU 10.0's TCG flushes the other vCPUs' TLBs only
# asynchronously after the memory map changes (tcg_commit), and an MMIO
# access of another vCPU through a stale TLB entry in that window (the
# unplugged card's BARs just went away) aborts QEMU in iotlb_to_section().
# "pcie_ports=native": the firmware grants no _OSC control, pciehp needs it.

[ "$hotplug" = 1 ] && smp=1

# vm_args DIR VM: QEMU's arguments for VM number VM into the array args.
vm_args() {
	local dir=$1 v=$2 i port hp mf switch=icn-switch,id=sw0 mon=$1/monitor.sock
	if [ -n "${M890_MONITOR:-}" ]; then
		mon=$M890_MONITOR
		[ "$vms" -gt 1 ] && mon=$mon.vm$v
	fi
	[ "$vms" -gt 1 ] && switch=$switch,socket=$work/icn.sock
	args=(-machine microvm,pcie=on,rtc=on $accel -cpu max -smp "$smp" -m "${mem}M"
		-nodefaults -no-user-config -nographic -no-reboot -L /usr/share/qemu
		-serial stdio -kernel "$KERNEL" -initrd "$(vm_initrd "$dir" "$v")"
		-append "console=ttyS0 quiet loglevel=4 panic=-1 nokaslr lpj=8000000 tsc_early_khz=$tsc_khz tsc=reliable lapic=notscdeadline m890_cards=$cards$noload$hpargs${GUEST_APPEND:+ $GUEST_APPEND}"
		-monitor "unix:$mon,server=on,wait=off"
		-object "$switch")
	# the name identifies the VM in icn-switchd's log
	[ "$vms" -gt 1 ] && args+=(-name "m890-vm$v")
	# One root port per card, eight to a slot of the root bus (functions
	# 0-7, multifunction), so 64 cards fit in slots 1-8 of its 32.  Only
	# the -H card's port has a hot-plug slot: the kernel reserves bus
	# resources for every hot-pluggable slot.
	for ((i = 0; i < cards; i++)); do
		port=$((v * cards + i))
		hp=off mf=
		[ "$hotplug" = 1 ] && [ $((i + 1)) = "$cards" ] && hp=on
		[ $((i % 8)) = 0 ] && mf=,multifunction=on
		args+=(-device "pcie-root-port,id=rp$i,bus=pcie.0,addr=$((1 + i / 8)).$((i % 8))$mf,chassis=1,slot=$((i + 1)),hotplug=$hp"
			-object "memory-backend-memfd,id=hbm$i,size=${hbm}M,share=on"
			-device "m890,id=card$i,memdev=hbm$i,switch=sw0,port=$port,bus=rp$i")
	done
	args+=("${qemu_opts[@]}")
}

if [ "$interactive" = 1 ]; then
	vm_args "$work" 0
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
# (twice at most).  /init then checks that every vCPU wakes from a short
# sleep (a vCPU whose local timer stopped after boot hangs every task
# that sleeps on it) and prints M890-RETRY and powers off if one does
# not; such a boot is restarted too (twice at most).  A kernel that
# oopses or panics before the command runs (seen about once in 15 boots
# under TCG: an int3 oops in sched_clock_cpu during init; /init reports
# one as M890-RETRY-BOOT) gets one fresh boot, reported; a second one
# fails the run.  A vCPU whose local timer stops later, even the CPU
# /init's check runs on, is reported by RCU ("Possible timer handling
# issue on cpu=N"); seen before the command started, that boot is
# restarted too (watch_timer_stall; the same two restarts at most).
# Other hangs and oopses from the loading of m890.ko on (/init prints
# M890-INSMOD just before it) are the driver's or the command's and are
# never retried, and a card that does not probe fails the run at once.
# With several VMs only the VM that stalled boots again.
#
# run_vm DIR VM PREFIX: boot VM number VM, print its console (each line
# prefixed by PREFIX) and leave the guest's exit status in DIR/rc.
# The console lines kept in the logs but not shown: the harness's markers,
# the power-off, ACPI, and the PCI core's early "Fatal: No config space
# access function" (microvm has no config ports; the kernel takes the ECAM from
# ACPI's host bridge a moment later and every card probes through it).
console_quiet='^(\[vm[0-9]+\] )?(M890-(EXIT=|BOOTED|CMD$|INSMOD$)|\[ *[0-9.]+\] (reboot|ACPI|PCI: Fatal: No config space access function found$))'

# watch_timer_stall DIR: while the guest runs and its command has not
# started, look for the kernel's report of a vCPU whose local timer
# stopped: RCU's "timer wakeup didn't happen ... Possible timer handling
# issue on cpu=N", which names an idle CPU that takes no ticks.  That is
# the TCG stall /init's own check catches on the other CPUs, on any CPU
# and at any point before the command (the boot, /init's check, the
# loading of m890.ko and the probe of the cards).  A driver that hangs
# leaves a different trace (a task blocked, a CPU busy in the kernel: a
# soft lockup or a self-detected stall), so this one is retried even
# after M890-INSMOD.  Prints the report's line and stops QEMU when it
# finds one; prints nothing once the command started or QEMU ended.
watch_timer_stall() {
	local dir=$1 line
	while kill -0 "$pipeline" 2>/dev/null; do
		grep -q '^M890-CMD$' "$dir/console.log" && return 0
		line=$(grep -m1 -o -E 'Possible timer handling issue on cpu=[0-9]+' "$dir/console.log")
		if [ -n "$line" ]; then
			grep -q '^M890-CMD$' "$dir/console.log" && return 0
			kill "$(cat "$dir/qemu.pid" 2>/dev/null)" 2>/dev/null
			echo "$line"
			return 0
		fi
		sleep 1
	done
}

run_vm() {
	local dir=$1 v=$2 prefix=$3 attempt=0 booted t pipeline qrc rc stalled
	local hangs_left=2 retries_left=2 oopses_left=1
	local boot_timeout=${M890_BOOT_TIMEOUT:-90}
	mkdir -p "$dir"
	vm_args "$dir" "$v"
	while :; do
		attempt=$((attempt + 1))
		: >"$dir/console.log"
		rm -f "$dir/qemu.pid" "$dir/qemu.rc"
		{
			timeout --foreground -k 5 "$timeout" "$QEMU" "${args[@]}" \
				-pidfile "$dir/qemu.pid" </dev/null 2>&1
			echo $? >"$dir/qemu.rc"
		} | sed -u 's/\r$//' | tee "$dir/console.log" |
			sed -u "s/^/$prefix/" | tee -a "$log" |
			grep --line-buffered -v -E "$console_quiet" &
		pipeline=$!
		booted=0
		for ((t = 0; t < boot_timeout * 2; t++)); do
			if grep -q '^M890-BOOTED' "$dir/console.log"; then
				booted=1
				break
			fi
			kill -0 "$pipeline" 2>/dev/null || break
			sleep 0.5
		done
		if [ $booted = 0 ] && [ -s "$dir/qemu.pid" ] && kill -0 "$pipeline" 2>/dev/null; then
			echo "guest-run: ${prefix}guest did not boot in ${boot_timeout}s (attempt $attempt)$( [ $hangs_left -gt 0 ] && echo ', restarting it')" >&2
			kill "$(cat "$dir/qemu.pid")" 2>/dev/null
			wait "$pipeline"
			[ $hangs_left -gt 0 ] || break
			hangs_left=$((hangs_left - 1))
			continue
		fi
		# Until the command starts, watch for the vCPU timer stall.
		stalled=$(watch_timer_stall "$dir")
		wait "$pipeline"
		if [ -n "$stalled" ]; then
			if [ $retries_left -gt 0 ]; then
				echo "guest-run: ${prefix}a vCPU's local timer stopped before the command ran (RCU: \"$stalled\"; attempt $attempt), restarting it" >&2
				retries_left=$((retries_left - 1))
				continue
			fi
			echo "guest-run: ${prefix}a vCPU's local timer stopped before the command ran (RCU: \"$stalled\"), a third time: the run fails" >&2
			break
		fi
		if [ $retries_left -gt 0 ] && grep -q '^M890-RETRY:' "$dir/console.log"; then
			echo "guest-run: ${prefix}guest asked for a fresh boot (attempt $attempt), restarting it" >&2
			retries_left=$((retries_left - 1))
			continue
		fi
		# A kernel that oopsed or panicked before the command ran: one
		# fresh boot, reported; a second such boot fails the run.
		if ! grep -q -E '^M890-(INSMOD|CMD)$' "$dir/console.log" &&
			grep -q -E '^M890-RETRY-BOOT|Kernel panic|Oops' "$dir/console.log"; then
			echo "guest-run: ${prefix}guest kernel failed before the command ran (attempt $attempt):" \
				"$(grep -m1 -E 'Kernel panic|Oops|BUG:|WARNING:' "$dir/console.log")" \
				"$( [ $oopses_left -gt 0 ] && echo '; restarting it once' || echo '; a second time: the run fails')" >&2
			[ $oopses_left -gt 0 ] || break
			oopses_left=0
			continue
		fi
		break
	done
	qrc=$(cat "$dir/qemu.rc" 2>/dev/null || echo 1)
	rc=$(sed -n 's/^M890-EXIT=\([0-9]*\)$/\1/p' "$dir/console.log" | tail -n1)
	if [ -z "$rc" ]; then
		if [ "$qrc" = 124 ]; then
			echo "guest-run: ${prefix}guest timed out after ${timeout}s (log: $log)" >&2
		else
			echo "guest-run: ${prefix}guest ended without an exit status (QEMU status $qrc, log: $log)" >&2
		fi
		rc=125
	fi
	echo "$rc" >"$dir/rc"
}

if [ "$vms" = 1 ]; then
	run_vm "$work" 0 ""
	exit "$(cat "$work/rc")"
fi

# Several VMs: one icn-switchd for all of them, its log next to $log.
swlog=/dev/null
[ "$log" = /dev/null ] || swlog=${log%.log}.icn-switchd.log
"$ICN_SWITCHD" -s "$work/icn.sock" -p "$work/icn.pid" 2>"$swlog" &
switchd_pid=$!
for ((t = 0; t < 100; t++)); do
	[ -s "$work/icn.pid" ] && break
	kill -0 "$switchd_pid" 2>/dev/null || break
	sleep 0.1
done
if [ ! -s "$work/icn.pid" ]; then
	echo "guest-run: icn-switchd did not start (log: $swlog)" >&2
	exit 125
fi
pids=()
for ((v = 0; v < vms; v++)); do
	run_vm "$work/vm$v" "$v" "[vm$v] " &
	pids+=($!)
done
status=0
for ((v = 0; v < vms; v++)); do
	wait "${pids[$v]}"
	rc=$(cat "$work/vm$v/rc" 2>/dev/null || echo 125)
	[ "$status" = 0 ] && status=$rc
done
exit "$status"
