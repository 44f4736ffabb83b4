#!/bin/bash
# SPDX-License-Identifier: MIT
#
# QEMU coding style of the device model, icn-switchd and the qtests, with
# scripts/checkpatch.pl of the QEMU 10.0 source tree that scripts/qemu.sh
# fetched into the cache (never committed).  Prints one TAP line per file.
#
# icn-switchd is a host program that does not link QEMU's util library,
# so checkpatch's advice to use qemu_strtoul() does not apply to it.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
qroot=${M890_CACHE:?M890_CACHE not set}/qemu
srcdir=$(ls -d "$qroot"/qemu-10.0.*/ 2>/dev/null | sort -V | tail -n 1 || true)
cp=${srcdir%/}/scripts/checkpatch.pl
if [ -z "$srcdir" ] || [ ! -f "$cp" ]; then
	echo "not ok 1 - no QEMU 10.0 source tree in $qroot (scripts/qemu.sh fetches it)"
	exit 1
fi
cd "$top" || exit 1
n=0 fail=0
for f in qemu-device/*.[ch] qemu-device/icn/*.[ch] tests/qtest/*.[ch]; do
	n=$((n + 1))
	out=$(perl "$cp" --no-tree -f "$f" 2>&1)
	errs=$(printf '%s\n' "$out" | grep -E '^(ERROR|WARNING):' |
	       { if [ "$f" = qemu-device/icn/icn-switchd.c ]; then
			grep -v 'consider using qemu_strto'
		 else
			cat
		 fi; })
	if [ -z "$errs" ]; then
		echo "ok $n - QEMU checkpatch $f"
	else
		fail=1
		echo "not ok $n - QEMU checkpatch $f"
		printf '%s\n' "$out" | grep -E -A3 '^(ERROR|WARNING):' | sed 's/^/# /'
	fi
done
echo "1..$n"
exit $fail
