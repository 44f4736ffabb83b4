#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Hot-unplug of a card with a client open (host side), run by `make check`:
#   m890-hotplug-test.sh [-l CONSOLE_LOG]
# Boots a guest with two cards, the second behind a pcie-root-port (native
# PCIe hotplug), runs m890_unplug_test in it, and once that program has
# its jobs in flight (it prints M890-UNPLUG-READY) sends `device_del
# card1` to the QEMU monitor.  The guest program checks the client's side
# and the other card; the guest's /init fails the run on any WARN, oops,
# lockup or hung task.  Every wait is polled and bounded.  Prints TAP.
#
# Environment: QEMU, KERNEL, INITRD (as for guest-run.sh), GUEST_TIMEOUT.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
log=
while getopts "l:" o; do
	case $o in
	l) log=$OPTARG ;;
	*) exit 2 ;;
	esac
done
work=$(mktemp -d)
guest=
cleanup() {
	[ -n "$guest" ] && kill "$guest" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
[ -n "$log" ] || log=$work/console.log
mkdir -p "$(dirname "$log")"
: >"$log"
ready_timeout=${M890_HOTPLUG_READY_TIMEOUT:-600}
n=0 fail=0

tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

# monitor CMD: send one command to the QEMU monitor, print its answer.
monitor() {
	/usr/bin/python3 - "$work/monitor.sock" "$1" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
time.sleep(0.2)
s.recv(65536)                       # banner and prompt
s.sendall(sys.argv[2].encode() + b"\n")
time.sleep(0.5)
try:
    out = s.recv(65536).decode(errors="replace")
except socket.timeout:
    out = ""
# the monitor echoes the line with terminal control sequences: drop them
print("".join(l for l in out.splitlines() if "Error" in l or "error" in l))
EOF
}

M890_MONITOR=$work/monitor.sock "$top/scripts/guest-run.sh" -n 2 -H -t "${GUEST_TIMEOUT:-600}" \
	-l "$log" -- m890_unplug_test >"$work/out" 2>&1 &
guest=$!

ready=1
for ((t = 0; t < ready_timeout * 2; t++)); do
	if grep -q '^M890-UNPLUG-READY' "$log"; then
		ready=0
		break
	fi
	kill -0 "$guest" 2>/dev/null || break
	sleep 0.5
done
tap $ready "guest client has jobs in flight on the hot-pluggable card"
if [ $ready = 0 ]; then
	err=$(monitor "device_del card1")
	[ -z "$err" ]
	tap $? "device_del card1 accepted by the monitor${err:+: $err}"
fi

wait "$guest"
rc=$?
guest=
# The guest program's own TAP lines, renumbered after ours.
while IFS= read -r line; do
	case $line in
	"ok "[0-9]*) n=$((n + 1)); echo "ok $n ${line#ok [0-9]* }" ;;
	"not ok "[0-9]*) n=$((n + 1)); fail=1; echo "not ok $n ${line#not ok [0-9]* }" ;;
	"#"*) echo "$line" ;;
	esac
done < <(sed 's/\r$//' "$work/out")
[ "$rc" = 0 ]
tap $? "guest exited cleanly with no kernel warnings (status $rc)"
[ "$rc" = 0 ] || grep -E 'init: kernel reported|WARNING:|BUG:|guest-run:' "$work/out" | head -20 | sed 's/^/# /'
echo "1..$n"
exit $fail
