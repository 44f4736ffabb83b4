#!/bin/sh
# SPDX-License-Identifier: MIT
#
# In-guest driver of the guest-debug-uapi suite of `make check`, run under
# the debug kernel (tests/guest/m890-debug-run.sh):
#   m890-debug-tests CARDS [STRESS ARGS...]
# The uAPI and cross-VM uAPI tests, the isolation and recovery tests, a
# bounded run of the ioctl stress program (fixed seed; arguments after
# CARDS replace its defaults), and last the module's unload, so that its
# teardown runs under the checkers too.  /init then scans dmesg and
# kmemleak.  Prints TAP; exits non-zero if anything failed.
cards=${1:-2}
[ $# -gt 0 ] && shift
n=0
fail=0

check() {
	name=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $name"; else fail=1; echo "not ok $n - $name"; fi
}

suite() {
	name=$1
	shift
	echo "# suite $name"
	"$@"
	rc=$?
	[ $rc = 0 ] || { echo "# $name exited with status $rc"; fail=1; }
}

check "module loaded with $cards accel nodes" \
	test "$(ls /dev/accel 2>/dev/null | grep -c '^accel')" = "$cards"
suite uapi m890_uapi_test
suite xvm m890_xvm_test
suite isolation m890_isolation_test
if [ $# -eq 0 ]; then
	set -- --seed 0x4d383930 --procs 3 --threads 4 --ops 1000 --kills 8 --resets 8
fi
suite stress m890_stress --cards "$cards" "$@"
check "rmmod m890" rmmod m890
echo "1..$n"
exit $fail
