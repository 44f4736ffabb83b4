#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# QEMU's introspection of the device model: `-object icn-switch,help` and
# `-device m890,help` list every property of the two types with a
# description (the properties are the DEFINE_PROP_* of qemu-device/m890.c
# and the class properties of qemu-device/m890_switch.c).
# Usage: m890-help-test.sh TOP QEMU.  Prints TAP.
top=$1 qemu=$2
n=0 fail=0
t() { name=$1; shift; n=$((n + 1)); if "$@"; then echo "ok $n - $name"; else echo "not ok $n - $name"; fail=1; fi; }
out=$(mktemp) || exit 1
trap 'rm -f "$out" "$out.dev"' EXIT

# described FILE PROP: FILE's line of PROP has a description after " - ".
described() {
	grep -E "^  $2=<[^ ]*> +- +[^ (]" "$1" | grep -q .
}

t "-object icn-switch,help exits 0" sh -c "'$qemu' -object icn-switch,help >'$out' 2>&1"
sed 's/^/# /' "$out"
t "icn-switch lists options" grep -q '^icn-switch options:' "$out"
for p in $(sed -n 's/.*object_class_property_add[a-z0-9_]*(oc, "\([^"]*\)".*/\1/p' \
	"$top/qemu-device/m890_switch.c"); do
	t "icn-switch property $p described" described "$out" "$p"
done
t "icn-switch has its two properties" sh -c "grep -cE '^  (socket|switch-id)=' '$out' | grep -qx 2"

t "-device m890,help exits 0" sh -c "'$qemu' -device m890,help >'$out.dev' 2>&1"
props=$(sed -n 's/^ *DEFINE_PROP_[A-Z0-9_]*("\([^"]*\)".*/\1/p' "$top/qemu-device/m890.c")
t "m890.c defines properties" test -n "$props"
for p in $props; do
	t "m890 property $p described" described "$out.dev" "$p"
done
echo "1..$n"
exit $fail
