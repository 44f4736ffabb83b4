#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Kernel-style check of the driver and the headers it shares, with
# checkpatch.pl --strict from Debian's linux-source-6.12 package (extracted
# into the cache, never committed).  Prints one TAP line per file.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=${M890_CACHE:?M890_CACHE not set}/linux-src
tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
if [ ! -x "$src/scripts/checkpatch.pl" ]; then
	[ -n "$tarball" ] || { echo "not ok 1 - linux-source-6.12 is not installed"; exit 1; }
	mkdir -p "$src"
	tar -xf "$tarball" -C "$src" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
fi
cd "$top" || exit 1
n=0 fail=0
for f in driver/*.[ch] include/m890_regs.h uapi/drm/*.h uapi/linux/*.h; do
	n=$((n + 1))
	ignore=FILE_PATH_CHANGES
	# Headers shared with userspace and QEMU cannot use the kernel's BIT().
	case $f in driver/*) ;; *) ignore=$ignore,BIT_MACRO ;; esac
	if out=$("$src/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
			--ignore "$ignore" -f "$f" 2>&1); then
		echo "ok $n - checkpatch --strict $f"
	else
		fail=1
		echo "not ok $n - checkpatch --strict $f"
		printf '%s\n' "$out" | grep -v '^total:' | sed 's/^/# /'
	fi
done
echo "1..$n"
exit $fail
