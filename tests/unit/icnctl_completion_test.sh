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

expect "icnctl " "switch port card stats topology route partition monitor version help"
expect "icnctl s" "switch stats"
expect "icnctl -j p" "port partition"
expect "icnctl -j po" "port"
expect "icnctl --" "--json --pretty --statistics --interval --batch --version --help"
expect "icnctl port " "show set reset inject help"
expect "icnctl port set 3 " "state speed partition"
expect "icnctl port set 3 state " "up down"
expect "icnctl -j stats c" "clear"
expect "icnctl topology show " "dot"
expect "icnctl monitor " "all config errors count help"
expect "icnctl switch i" "info"
expect "icnctl switch " "show info reset help"
expect "icnctl port set 3 state down " "state speed partition"
expect "icnctl port set 3 speed " "6400Gbps"
expect "icnctl port inject 3 " "clear link-error drop"
expect "icnctl stats " "show errors watch clear help"
expect "icnctl stats watch 0 " "interval count"
expect "icnctl port show " "present"
expect "icnctl port show pr" "present"
expect "icnctl -j port show " "present"
expect "icnctl port show present " ""
expect "icnctl port show 3 " ""
expect "icnctl stats show " "present"
expect "icnctl stats show p" "present"
expect "icnctl stats show present " ""
expect "icnctl r" "route"
expect "icnctl route " "show set del help"
expect "icnctl route set 5 " "egress state"
expect "icnctl route set 5 egress 2 state " "enabled disabled"
expect "icnctl pa" "partition"
expect "icnctl partition " "show add set del help"
expect "icnctl partition add 2 " "ports"
expect "icnctl -i 2 st" "stats"
expect "icnctl monitor e" "errors"
expect "icnctl -i " ""
expect "icnctl --interval " ""
expect "icnctl version " "help"
echo "1..$n"
exit $fail
