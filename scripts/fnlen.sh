#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Function length: every C function of driver/, qemu-device/ (with
# qemu-device/icn/) and libm890/src/ fits in FNLEN_MAX lines (80), its
# header to its closing brace, unless its file says why in a marker
# comment naming it:
#
#	/* fnlen: NAME: the reason it is longer */
#
# (Documentation/architecture.rst, "Functions fit on a screen").  A
# function is what the kernel and QEMU styles make of one: a body whose
# "{" and "}" stand alone in column 0, its name the identifier before the
# first "(" of the header above it.  Prints one TAP line per file and a
# "# NAME LINES file:line" line for each long function; -l lists every
# function over the limit, exempt or not, and exits 0.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
max=${FNLEN_MAX:-80}
list=0
[ "${1:-}" = -l ] && list=1
cd "$top" || exit 1

# fnlen FILE: "NAME LINES LINE" for each function of FILE over the limit.
fnlen() {
	awk -v max="$max" '
		# A header starts at a line in column 0 that follows a blank
		# line, a declaration, a comment, a preprocessor line or a
		# closing brace; it runs to the "{".
		inbody && /^}/ {
			inbody = 0
			if (FNR - start + 1 > max)
				print name, FNR - start + 1, start
			next
		}
		inbody { next }
		/^\{/ { inbody = 1; start = hdr ? hdr : FNR; name = hname; hdr = 0; next }
		/^[ \t]*$/ || /;[ \t]*$/ || /\*\/[ \t]*$/ || /^#/ || /^}/ { hdr = 0; next }
		/^[A-Za-z_]/ && !hdr { hdr = FNR; hname = "" }
		hdr && hname == "" && match($0, /[A-Za-z_][A-Za-z_0-9]*[ \t]*\(/) {
			hname = substr($0, RSTART, RLENGTH); sub(/[ \t]*\($/, "", hname)
		}' "$1"
}

n=0 fail=0
for f in driver/*.c qemu-device/*.c qemu-device/icn/*.c libm890/src/*.c; do
	n=$((n + 1))
	bad=
	while read -r name len line; do
		[ -n "$name" ] || continue
		if [ $list = 1 ]; then
			printf '%-32s %4d  %s:%d\n' "$name" "$len" "$f" "$line"
			continue
		fi
		if grep -Eq "fnlen: $name: [^ ]" "$f"; then
			bad+="# $name $len $f:$line (exempt: $(grep -Eo "fnlen: $name: .*" "$f" |
				sed 's/ *\*\/$//; s/^fnlen: [^:]*: //'))"$'\n'
		else
			bad+="# $name $len $f:$line: longer than $max lines"$'\n'
			fail=1
		fi
	done < <(fnlen "$f")
	[ $list = 1 ] && continue
	if [ -z "$bad" ] || ! printf '%s' "$bad" | grep -q 'longer than'; then
		echo "ok $n - function length $f"
	else
		echo "not ok $n - function length $f"
	fi
	printf '%s' "$bad"
done
[ $list = 1 ] && exit 0
echo "1..$n"
exit $fail
