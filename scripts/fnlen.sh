#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Function length: no function of driver/, qemu-device/ (with
# qemu-device/icn/) or libm890/src/ is longer than FNLEN_MAX lines (80),
# from the first line of its header to its closing brace, unless its file
# says why in a comment naming it:
#
#	/* fnlen: NAME: why it is longer */
#
# (Documentation/architecture.rst, "Functions in stages").  A function is
# what the kernel and QEMU styles make of one: a body whose "{" and "}"
# stand alone in column 0, its name the first identifier before a "("
# in the header above it.  Prints one TAP line per file, with a "#" line
# for each long function (exempt ones too, with their reason); -l only
# lists every function over the limit and exits 0.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
max=${FNLEN_MAX:-80}
list=0
[ "${1:-}" = -l ] && list=1
cd "$top" || exit 1

# fnlen FILE: "NAME LINES LINE" for each function of FILE over the limit.
# A header starts at a line in column 0 after a blank line, a
# declaration, a comment, a preprocessor line or a closing brace.
fnlen() {
	awk -v max="$max" '
		inbody && /^}/ {
			inbody = 0
			if (FNR - start + 1 > max)
				print name, FNR - start + 1, start
			next
		}
		inbody { next }
		/^\{/ { inbody = 1; start = hdr ? hdr : FNR; name = hname; hdr = 0; next }
		/^[ \t]*$/ || /;[ \t]*$/ || /\*\/[ \t]*$/ || /^#/ || /^}/ { hdr = 0; next }
		/^[A-Za-z_]/ && !hdr { hdr = FNR; hname = "?" }
		hdr && hname == "?" && match($0, /[A-Za-z_][A-Za-z_0-9]*[ \t]*\(/) {
			hname = substr($0, RSTART, RLENGTH); sub(/[ \t]*\($/, "", hname)
		}' "$1"
}

n=0 fail=0
for f in driver/*.[ch] qemu-device/*.[ch] qemu-device/icn/*.[ch] libm890/src/*.[ch]; do
	n=$((n + 1))
	notes= bad=0
	while read -r name len line; do
		if [ $list = 1 ]; then
			printf '%-32s %4d  %s:%d\n' "$name" "$len" "$f" "$line"
			continue
		fi
		why=$(sed -n "s|.*fnlen: $name: \(.*[^ ]\)|\1|p" "$f" | sed 's| *\*/$||' | head -n 1)
		if [ -n "$why" ]; then
			notes+="# $f:$line: $name, $len lines (the file says why: $why)"$'\n'
		else
			notes+="# $f:$line: $name is $len lines, more than $max"$'\n'
			bad=1
		fi
	done < <(fnlen "$f")
	[ $list = 1 ] && continue
	if [ $bad = 0 ]; then
		echo "ok $n - function length $f"
	else
		echo "not ok $n - function length $f"
		fail=1
	fi
	printf '%s' "$notes"
done
[ $list = 1 ] && exit 0
echo "1..$n"
exit $fail
