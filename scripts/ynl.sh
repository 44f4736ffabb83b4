#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The kernel's YNL tools (tools/net/ynl: ynl-gen-c.py, cli.py and their
# library, with the schemas of Documentation/netlink) from Debian's
# linux-source-6.12 package, extracted into the cache next to checkpatch
# (never committed), applied to Documentation/netlink/specs/icn.yaml.
#
#   ynl.sh tools   extract the tools if needed; print their directory
#   ynl.sh gen     regenerate the committed files from the spec
#   ynl.sh check   TAP: the spec validates against the kernel's schema and
#                  every committed generated file is what ynl-gen-c.py
#                  makes of the spec now
#
# Generated, committed files (the kernel's convention):
#   uapi/linux/icn_netlink.h     --mode uapi --header
#   driver/m890_netlink_gen.h    --mode kernel --header (ops, groups, family)
#   driver/m890_netlink_gen.c    --mode kernel --source (policies, ops table,
#                                struct genl_family)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${M890_CACHE:?M890_CACHE not set}
src=$cache/linux-src
python=${PYTHON:-python3}
spec_rel=Documentation/netlink/specs/icn.yaml

# name, generator arguments, committed path
outputs=(
	"uapi/linux/icn_netlink.h|--mode uapi --header"
	"driver/m890_netlink_gen.h|--mode kernel --header"
	"driver/m890_netlink_gen.c|--mode kernel --source"
)

# Extract tools/net/ynl and the schemas once, under a lock (clones share
# the cache), into a temporary directory first so that nobody sees half a
# tree.
tools() {
	local tarball tmp
	[ -f "$src/tools/net/ynl/ynl-gen-c.py" ] && [ -f "$src/Documentation/netlink/genetlink.yaml" ] &&
		return 0
	tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
	[ -n "$tarball" ] || { echo "ynl: linux-source-6.12 is not installed" >&2; return 1; }
	mkdir -p "$src"
	(
		flock 9
		[ -f "$src/tools/net/ynl/ynl-gen-c.py" ] && [ -f "$src/Documentation/netlink/genetlink.yaml" ] &&
			exit 0
		echo "ynl: extracting tools/net/ynl from $(basename "$tarball")" >&2
		tmp=$(mktemp -d "$src/.ynl.XXXXXX") || exit 1
		tar -xf "$tarball" -C "$tmp" --strip-components=1 --wildcards \
			'*/tools/net/ynl/*' '*/Documentation/netlink/*.yaml' ||
			{ rm -rf "$tmp"; exit 1; }
		mkdir -p "$src/tools/net" "$src/Documentation"
		rm -rf "$src/tools/net/ynl" "$src/Documentation/netlink"
		mv "$tmp/tools/net/ynl" "$src/tools/net/ynl"
		mv "$tmp/Documentation/netlink" "$src/Documentation/netlink"
		rm -rf "$tmp"
	) 9>"$src/.ynl.lock"
}

# ynl-gen-c.py names the spec by its path below the kernel tree, the
# directory above it that holds MAINTAINERS, and loads the schema from
# Documentation/netlink next to specs/.  A tree in build/ gives it both:
# an empty MAINTAINERS, the kernel's schemas and this project's spec, as
# symbolic links.
stage() {
	local t=$top/build/ynl/tree f
	mkdir -p "$t/Documentation/netlink/specs"
	: >"$t/MAINTAINERS"
	for f in "$src"/Documentation/netlink/*.yaml; do
		ln -sfn "$f" "$t/Documentation/netlink/$(basename "$f")"
	done
	ln -sfn "$top/$spec_rel" "$t/$spec_rel"
	echo "$t/$spec_rel"
}

# gen_one ARGS OUT: run ynl-gen-c.py on the staged spec.
gen_one() {
	local args=$1 out=$2
	# shellcheck disable=SC2086
	"$python" "$src/tools/net/ynl/ynl-gen-c.py" $args --spec "$staged" -o "$out"
}

case ${1:-} in
tools)
	tools || exit 1
	echo "$src/tools/net/ynl"
	;;
gen)
	tools || exit 1
	staged=$(stage)
	for o in "${outputs[@]}"; do
		gen_one "${o#*|}" "$top/${o%%|*}" || { echo "ynl: generating ${o%%|*} failed" >&2; exit 1; }
		echo "ynl: wrote ${o%%|*}"
	done
	;;
check)
	n=0 fail=0
	tap() {	# tap STATUS NAME [DIAG]
		n=$((n + 1))
		if [ "$1" = 0 ]; then
			echo "ok $n - $2"
		else
			fail=1
			echo "not ok $n - $2"
			[ -z "${3:-}" ] || printf '%s\n' "$3" | sed 's/^/# /'
		fi
	}
	if ! tools; then
		tap 1 "kernel YNL tools available"
		echo "1..$n"
		exit 1
	fi
	staged=$(stage)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# Schema validation and the licence check happen when the generator
	# loads the spec; the uAPI header is the first output.
	for o in "${outputs[@]}"; do
		path=${o%%|*}
		out=$tmp/$(basename "$path")
		diag=$(gen_one "${o#*|}" "$out" 2>&1)
		rc=$?
		if [ "$path" = "${outputs[0]%%|*}" ]; then
			tap $rc "$spec_rel validates (kernel schema, licence) in ynl-gen-c.py" "$diag"
		fi
		if [ $rc != 0 ]; then
			tap 1 "$path generated" "$diag"
			continue
		fi
		diag=$(diff -u "$top/$path" "$out" 2>&1)
		tap $? "$path is what ynl-gen-c.py generates (scripts/ynl.sh gen)" "$diag"
	done
	# The kernel's Python library loads the spec the way cli.py does.
	diag=$(cd "$src/tools/net/ynl" && "$python" -c '
import sys
from lib import SpecFamily
f = SpecFamily(sys.argv[1])
print(len(f.msgs), "messages,", len(f.attr_sets), "attribute sets")
' "$staged" 2>&1)
	if [ $? = 0 ]; then
		tap 0 "the YNL Python library (cli.py) loads the spec: $diag"
	else
		tap 1 "the YNL Python library (cli.py) loads the spec" "$diag"
	fi
	echo "1..$n"
	exit $fail
	;;
*)
	echo "usage: ynl.sh tools|gen|check" >&2
	exit 2
	;;
esac
