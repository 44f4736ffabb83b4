#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sparse over every file of the driver (make C=2: checked whether or not it
# needs compiling; endian checks on), as kernel drivers are checked.  One
# TAP line per driver file: ok when sparse says nothing about it.  The
# module is built on the way (as `make module` does).
# Usage: sparse.sh KDIR CONFIG_DIR.  Needs Debian's sparse.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${1:?usage: sparse.sh KDIR CONFIG_DIR}
cfg=${2:?usage: sparse.sh KDIR CONFIG_DIR}
command -v sparse >/dev/null || { echo "not ok 1 - sparse is not installed"; echo "1..1"; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
make -s -C "$kdir" M="$top" M890_CONFIG_DIR="$cfg" C=2 CF="-D__CHECK_ENDIAN__" modules >"$log" 2>&1
rc=$?
n=0 fail=0
for f in "$top"/driver/*.c "$top"/driver/*.h; do
	rel=${f#"$top"/}
	n=$((n + 1))
	if grep -qE "(^|/)$rel:[0-9]+:[0-9]+: (warning|error)" "$log"; then
		echo "not ok $n - sparse $rel"
		grep -E "(^|/)$rel:[0-9]+:[0-9]+: " "$log" | sed 's/^/# /'
		fail=1
	else
		echo "ok $n - sparse $rel"
	fi
done
n=$((n + 1))
if [ $rc = 0 ] && ! grep -qE ': (warning|error):' "$log"; then
	echo "ok $n - make C=2: the module builds, no sparse or compiler message"
else
	echo "not ok $n - make C=2 (status $rc)"
	sed 's/^/# /' "$log" | head -40
	fail=1
fi
echo "1..$n"
exit $fail
