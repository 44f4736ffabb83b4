#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Run the host unit tests alone (`make check-unit`, which builds them
# first): every build/unit/*_test and build/unit-san/*_test, as the first
# suites of scripts/check.sh.  Each prints TAP; its output goes to
# build/logs/unit-<dir>-<test>.log, one line per test is printed, then the
# total "N passed, N failed, N skipped".  Non-zero exit on any failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
logdir=$top/build/logs
mkdir -p "$logdir"
passed=0 failed=0 skipped=0 ran=0

for t in "$top"/build/unit/*_test "$top"/build/unit-san/*_test; do
	[ -x "$t" ] || continue
	name=unit-$(basename "$(dirname "$t")")-$(basename "$t")
	log=$logdir/$name.log
	"$t" >"$log" 2>&1
	rc=$?
	ran=$((ran + 1))
	p=$(grep -cE '^ *ok [0-9]+' "$log")
	s=$(grep -cE '^ *ok [0-9]+.*# *SKIP' "$log")
	f=$(grep -cE '^ *not ok [0-9]+' "$log")
	p=$((p - s))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "not ok - $name exited with status $rc" >>"$log"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	printf '%-40s %4d passed, %d failed, %d skipped   (%s)\n' "$name" "$p" "$f" "$s" "${log#"$top"/}"
	[ "$f" = 0 ] || grep -E '^ *not ok' "$log" | head -20 | sed 's/^/    /'
done

if [ "$ran" = 0 ]; then
	echo "check-unit: no unit tests in build/unit (make check-unit builds them)" >&2
	exit 1
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
