#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The bash completion of icnctl offers objects, commands and arguments.
# Usage: icnctl_completion_test.sh COMPLETION_FILE.  Prints TAP.
# shellcheck disable=SC1090
source "$1" || exit 1
n=0 fail=0

# expect "WORDS..." "EXPECTED": complete the last word of WORDS.
expect() {
	local -a COMP_WORDS
	read -r -a COMP_WORDS <<<"$1"
	[[ $1 == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_icnctl
	local got="${COMPREPLY[*]}"
	n=$((n + 1))
	if [[ $got == "$2" ]]; then
		echo "ok $n - complete '$1' -> '$2'"
	else
		echo "not ok $n - complete '$1': got '$got', want '$2'"
		fail=1
	fi
}

expect "icnctl " "switch port card stats topology monitor version help"
expect "icnctl s" "switch stats"
expect "icnctl -j p" "port"
expect "icnctl --" "--json --pretty --statistics --batch --version --help"
expect "icnctl port " "show set reset help"
expect "icnctl port set 3 " "state"
expect "icnctl port set 3 state " "up down"
expect "icnctl -j stats c" "clear"
expect "icnctl topology show " "dot"
expect "icnctl monitor " "all config count help"
expect "icnctl switch i" "info"
echo "1..$n"
exit $fail
