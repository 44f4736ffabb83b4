#!/bin/sh
# SPDX-License-Identifier: MIT
#
# In-guest test driver, run by `make check` as the guest's command:
#   m890-guest-tests CARDS
# Runs every in-guest suite and prints TAP lines ("ok N - name" /
# "not ok N - name"); exits non-zero if anything failed.
cards=${1:-8}
n=0
fail=0

ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}

not_ok() {
	n=$((n + 1))
	fail=1
	echo "not ok $n - $*"
}

# check NAME CMD...: one TAP line for a command's exit status.
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# suite NAME CMD...: a program that prints its own TAP lines.
suite() {
	name=$1
	shift
	echo "# suite $name"
	if ! command -v "$1" >/dev/null; then
		not_ok "$name: $1 not installed"
		return
	fi
	"$@"
	rc=$?
	[ $rc = 0 ] || { echo "# $name exited with status $rc"; fail=1; }
}

accel_count() {
	ls /dev/accel 2>/dev/null | grep -c '^accel'
}

check "module loaded with $cards accel nodes" test "$(accel_count)" = "$cards"
# The debugfs directory of a card is named after its PCI address (uapi.rst).
check "debugfs of accel0 at /sys/kernel/debug/accel/<pci address>/" sh -c \
	'test -e "/sys/kernel/debug/accel/$(basename "$(readlink -f /sys/class/accel/accel0/device)")/hbm"'
suite uapi m890_uapi_test
suite xvm m890_xvm_test
suite isolation m890_isolation_test
for t in /usr/bin/m890-lib-test-*; do
	[ -x "$t" ] && suite "$(basename "$t")" "$t"
done
for t in /usr/bin/icnctl-test-*; do
	[ -x "$t" ] && suite "$(basename "$t")" "$t"
done
suite a2a_perf a2a_perf_test --guest a2a_perf
suite ynl m890-ynl-test
check "icnctl port show" sh -c 'icnctl port show >/tmp/ports && test -s /tmp/ports'
check "m890-a2a on $cards cards" sh -c 'm890-a2a >/tmp/a2a.log 2>&1 || { cat /tmp/a2a.log; exit 1; }'
# One MoE layer (router, dispatch, MXFP4 expert GEMMs, combine) at the
# program's own shape, bit-exact against the host's layer from the inputs.
check "m890-moe on $cards cards: the MoE layer equals the host's from the inputs" sh -c \
	'm890-moe >/tmp/moe.log 2>&1; rc=$?; sed "s/^/# /" /tmp/moe.log; test $rc = 0 && grep -q "^OK:" /tmp/moe.log'

# rmmod with a client open is refused: the open file holds a reference to
# the module (file_operations.owner; an mmap or a dma-buf keeps the file),
# so the card stays usable.
exec 3</dev/accel/accel0
check "rmmod m890 refused while a client has a card open" sh -c '! rmmod m890 2>/dev/null'
check "module and accel nodes still there after the refused rmmod" \
	sh -c 'test -e /sys/module/m890 && test "$(ls /dev/accel | grep -c "^accel")" = '"$cards"
exec 3<&-
# The same with no accel fd left, only an HBM mapping or an exported dma-buf.
for how in mmap dmabuf; do
	rm -f /tmp/held
	m890_hold $how /tmp/held &
	holder=$!
	i=0
	while [ ! -e /tmp/held ] && [ $i -lt 300 ] && kill -0 $holder 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	check "m890_hold $how holds the card" test -e /tmp/held
	check "rmmod m890 refused while only a BO $how is held" sh -c '! rmmod m890 2>/dev/null'
	kill $holder
	wait $holder 2>/dev/null
done
check "the card works after the refused rmmod" m890-smoke

# Module reload: unload with no clients, load again, nodes come back.
check "rmmod m890" rmmod m890
check "no accel nodes after rmmod" test "$(accel_count)" = 0
check "no m890 module state after rmmod" test ! -e /sys/module/m890
check "no accel debugfs entries after rmmod" sh -c '! ls /sys/kernel/debug/accel/* >/dev/null 2>&1'
check "icnctl names the unloaded driver" sh -c \
	'! icnctl port show >/tmp/nodrv 2>&1 && grep -qi "driver" /tmp/nodrv'
check "insmod m890 again" insmod /lib/modules/m890.ko
check "accel nodes back after insmod" test "$(accel_count)" = "$cards"
check "m890-a2a after reload" sh -c 'm890-a2a >/tmp/a2a2.log 2>&1 || { cat /tmp/a2a2.log; exit 1; }'

echo "1..$n"
exit $fail
