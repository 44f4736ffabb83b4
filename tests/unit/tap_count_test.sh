#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/tap-count.pl, with which scripts/check.sh counts every suite's
# log through prove's parser (TAP::Parser): passes, failures, skips and
# TODOs as prove counts them; a host suite's stream without a plan, with a
# wrong plan, out of sequence or bailing out is one failure more; a
# guest's log (--guest) of several programs' TAP, with or without "[vmN] "
# prefixes, counts its test lines per VM and each "Bail out!".
# Usage: tap_count_test.sh TOP.  Prints TAP.
top=$1
n=0 fail=0
t() { name=$1; shift; n=$((n + 1)); if "$@"; then echo "ok $n - $name"; else echo "not ok $n - $name"; fail=1; fi; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT

# expect NAME WANT [--guest] TAP: tap-count.pl's first line for the log
# holding TAP (printf format) is WANT.
expect() {
	name=$1 want=$2
	shift 2
	mode=
	[ "$1" = --guest ] && { mode=--guest; shift; }
	# shellcheck disable=SC2059
	printf "$1" >"$dir/log"
	got=$(perl "$top/scripts/tap-count.pl" $mode "$dir/log" | head -n 1)
	t "$name: '$want'" test "$got" = "$want"
	[ "$got" = "$want" ] || echo "# got '$got'"
}

expect "plan first, passes and a failure" "2 1 0" '1..3\nok 1 - a\nnot ok 2 - b\nok 3 - c\n'
expect "plan last, a skip" "1 0 1" 'ok 1 - a\nok 2 # SKIP no card\n1..2\n'
expect "lines that are not TAP are ignored" "2 0 0" \
	'1..2\nqemu: warning: something\nok 1 - a\n# a comment\nmake: leaving\nok 2 - b\n'
expect "not ok with a TODO directive is a pass" "2 0 0" '1..2\nok 1\nnot ok 2 # TODO later\n'
expect "no plan: one failure" "1 1 0" 'ok 1 - a\n'
expect "an empty log: one failure" "0 1 0" ''
expect "a plan of 3 and 2 tests: one failure" "2 1 0" '1..3\nok 1\nok 2\n'
expect "tests out of sequence: one failure" "2 1 0" '1..2\nok 2\nok 1\n'
expect "Bail out!: one failure" "1 1 0" '1..2\nok 1\nBail out! no card\n'
expect "a failure and a wrong plan: two" "1 2 0" '1..3\nok 1\nnot ok 2\n'
expect "--guest: programs in turn, each with its plan" "4 1 1" --guest \
	'# suite a\n1..2\nok 1 - a1\nok 2 - a2\n# suite b\nok 1 - b1 # SKIP x\nnot ok 2 - b2\nok 3 - b3\n1..3\nok 3 - driver\n'
expect "--guest: each Bail out! is a failure" "1 1 0" --guest 'ok 1\nBail out! gone\n1..1\n'
expect "--guest: console lines between" "1 0 0" --guest \
	'[    1.2] m890 0000:01:00.0: probed\nok 1 - a\nM890-EXIT=0\n'
expect "[vmN] prefixes: one stream per VM" "3 1 0" \
	'[vm0] 1..2\n[vm1] 1..2\n[vm0] ok 1 - a\n[vm1] ok 1 - a\n[vm1] not ok 2 - b\n[vm0] ok 2 - b\n'
expect "[vmN] prefixes, --guest" "3 1 1" --guest \
	'[vm0] ok 1 - a\n[vm1] ok 1 - a\n[vm1] ok 1 - c # SKIP\n[vm0] not ok 2 - b\nguest-run: VM 1 exited\n[vm1] ok 2\n'

# The problems are named after the counts.
printf 'ok 1\n' >"$dir/log"
t "the missing plan is named" sh -c \
	"perl '$top/scripts/tap-count.pl' '$dir/log' | sed -n 2p | grep -q 'No plan found'"
printf '[vm1] ok 1\n[vm1] Bail out! lost\n' >"$dir/log"
t "a VM's problem names the VM" sh -c \
	"perl '$top/scripts/tap-count.pl' --guest '$dir/log' | sed -n 2p | grep -qx 'vm1: Bail out! lost'"
t "no log: exit 2" sh -c "perl '$top/scripts/tap-count.pl' '$dir/none' 2>/dev/null; test \$? = 2"
t "scripts/check.sh counts through it" grep -q 'tap-count.pl' "$top/scripts/check.sh"
echo "1..$n"
exit $fail
