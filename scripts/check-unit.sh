#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Run the host unit tests (`make check-unit`, which builds them first, and
# the first suites of scripts/check.sh): every build/unit/*_test and
# build/unit-san/*_test, under prove (Debian's perl), the standard TAP
# consumer, which parses each test's TAP (plan, numbering, exit status)
# and prints its summary.  The full TAP goes to build/logs/unit.log.
# Ends with the total "N passed, N failed, N skipped" (from prove's
# parse); non-zero exit when prove reports a failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
logdir=$top/build/logs
mkdir -p "$logdir"
log=$logdir/unit.log

tests=()
for t in "$top"/build/unit/*_test "$top"/build/unit-san/*_test; do
	[ -x "$t" ] && tests+=("${t#"$top"/}")
done
if [ ${#tests[@]} = 0 ]; then
	echo "check-unit: no unit tests in build/unit (make check-unit builds them)" >&2
	exit 1
fi
cd "$top" || exit 1
# --exec '': the tests are programs, not perl; -v keeps every TAP line in
# the log (their stderr goes there too, but is not parsed as TAP).
prove --exec '' -v "${tests[@]}" >"$log" 2>&1
rc=$?
# prove's verdict per test file (its name, and after the file's TAP the
# status line), then prove's summary.
awk '/^build\/unit[^ ]* \.+ / { name = $1; next }
	name != "" && (/^ok$/ || /^(Failed|Dubious|No subtests|skipped)/) { printf "%-40s %s\n", name, $0; name = "" }
	/^(Files=|Result:)/ || /^Test Summary Report/ || /^build\/unit.*\(Wstat/ || /^  (Failed|Parse errors|Non-zero)/' "$log"
total=$(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' "$log")
failed=$(awk '/^build\/unit.*Failed [0-9]+\/[0-9]+ subtests/ { split($0, a, "Failed "); split(a[2], b, "/"); f += b[1] }
	/^  Failed tests:/ { } END { print f + 0 }' "$log")
skipped=$(grep -cE '^ok [0-9]+.*# *SKIP' "$log")
[ -n "$total" ] || total=0
# A file that dies or breaks its plan fails without failed subtests.
[ $rc = 0 ] || [ "$failed" != 0 ] || failed=1
echo "$((total - failed - skipped)) passed, $failed failed, $skipped skipped"
exit $rc
