#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Bad guest sizes are refused before anything is built or boots:
# guest-run.sh -C (what `make guest-args` runs first for make run, guest
# and shell) exits 2 naming the variable for CARDS 0, 65 or not a number,
# HBM_MB 0, 100 or another non-power of two, VMS x CARDS above 64, values
# too long to multiply without overflow, a GUEST_TIMEOUT not a number, and a
# CARDS x HBM_MB whose HBM BARs do not fit the guest's 64-bit PCI window
# (256 GiB under TCG: Documentation/architecture.rst, "PCIe topology");
# the sizes at the edges pass; `make run` with a bad value stops at
# guest-args, before its "booting" line (QEMU and the image are not
# remade: make -o); M890_BAR_CHECK=0 lets an unfitting size through.
# Usage: guest_args_test.sh TOP.  Prints TAP.
top=$1
run=$top/scripts/guest-run.sh
n=0 fail=0
t() { name=$1; shift; n=$((n + 1)); if "$@"; then echo "ok $n - $name"; else echo "not ok $n - $name"; fail=1; fi; }
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
# Under TCG the window is a quarter of 40 address bits, whatever the host.
export M890_KVM=0
unset M890_BAR_CHECK

# refused NAME WORD ARGS...: guest-run.sh -C ARGS exits 2, says WORD,
# prints nothing on stdout.
refused() {
	name=$1 word=$2
	shift 2
	"$run" -C "$@" -- true >"$out.stdout" 2>"$out"
	rc=$?
	t "$name refused (status $rc: $(head -n 1 "$out"))" sh -c \
		"test $rc = 2 && grep -q -- '$word' '$out' && ! test -s '$out.stdout'"
	rm -f "$out.stdout"
}
# accepted NAME ARGS...: guest-run.sh -C ARGS exits 0.
accepted() {
	name=$1
	shift
	"$run" -C "$@" -- true >"$out" 2>&1
	rc=$?
	t "$name accepted" test $rc = 0
	[ $rc = 0 ] || sed 's/^/# /' "$out"
}

refused "CARDS=0" "CARDS must be 1..64" -n 0
refused "CARDS=65" "CARDS must be 1..64" -n 65
refused "CARDS=x" "CARDS must be a number" -n x
refused "CARDS=''" "CARDS must be a number" -n ''
refused "HBM_MB=0" "HBM_MB must be a power of two" -m 0
refused "HBM_MB=100" "HBM_MB must be a power of two" -m 100
refused "HBM_MB=96" "HBM_MB must be a power of two" -m 96
refused "HBM_MB=1G" "HBM_MB must be a number of MiB" -m 1G
refused "VMS=0" "VMS x CARDS must be 1..64" -V 0 -n 2
refused "VMS=5 CARDS=13" "VMS x CARDS must be 1..64" -V 5 -n 13
refused "CARDS=2 HBM_MB=262144 (512 GiB of BARs)" "does not fit the guest.s 262144 MiB window" -n 2 -m 262144
refused "CARDS=64 HBM_MB=8192" "HBM_MB at most 4096 for 64 cards" -n 64 -m 8192
refused "CARDS=3 HBM_MB=131072" "HBM_MB at most 65536 for 3 cards" -n 3 -m 131072
refused "CARDS=2^64+2 (no wrap to 2)" "CARDS is out of range" -n 18446744073709551618
refused "VMS=2^62 CARDS=4 (no wrap of VMS x CARDS to 0)" "VMS is out of range" -V 4611686018427387904 -n 4
refused "HBM_MB=2^62 (no wrap of CARDS x HBM_MB)" "HBM_MB is out of range" -n 4 -m 4611686018427387904
refused "GUEST_TIMEOUT=abc" "GUEST_TIMEOUT must be a number of seconds" -t abc
refused "GUEST_TIMEOUT=0" "GUEST_TIMEOUT must be at least 1" -t 0
accepted "the defaults (CARDS=8 HBM_MB=128)"
accepted "CARDS=64 HBM_MB=4096 (the window, full)" -n 64 -m 4096
accepted "CARDS=1 HBM_MB=262144" -n 1 -m 262144
accepted "VMS=4 CARDS=16 HBM_MB=16384 (one window per VM)" -V 4 -n 16 -m 16384
accepted "CARDS=08 HBM_MB=0128 (decimal, not octal)" -n 08 -m 0128
M890_BAR_CHECK=0 "$run" -C -n 2 -m 262144 -- true >"$out" 2>&1
t "M890_BAR_CHECK=0 lets CARDS=2 HBM_MB=262144 through" test $? = 0

# make: guest-args is checked first, and make run stops there.
for v in "CARDS=65" "CARDS=x" "CARDS=" "HBM_MB=100" "CARDS=2 HBM_MB=262144" "GUEST_TIMEOUT=abc"; do
	# shellcheck disable=SC2086
	make -s -C "$top" guest-args $v >"$out" 2>&1
	rc=$?
	t "make guest-args $v fails with guest-run's message" sh -c \
		"test $rc != 0 && grep -q '^guest-run: ' '$out'"
done
for g in run guest shell; do
	t "make $g checks guest-args before it builds or boots" \
		grep -qE "^$g: guest-args " "$top/Makefile"
done
# shellcheck disable=SC2086
make -s -C "$top" -o qemu -o image -o image-debug run CARDS=65 QEMU_BINDIR=/nonexistent >"$out" 2>&1
rc=$?
t "make run CARDS=65 fails at guest-args (status $rc)" sh -c \
	"test $rc != 0 && grep -q 'CARDS must be 1..64' '$out'"
t "... before it prints 'booting'" sh -c "! grep -q booting '$out'"
sed 's/^/# /' "$out"
echo "1..$n"
exit $fail
