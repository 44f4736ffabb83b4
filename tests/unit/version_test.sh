#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The stack has one version, the file VERSION (MAJOR.MINOR.PATCH), and
# everything that shows one agrees with it:
# - libm890.map's nodes are M890_MAJOR.0 to M890_MAJOR.N, each inheriting
#   the one before, and the newest one's N is VERSION's minor (a minor
#   adds a node); the built library defines the same nodes;
# - m890_runtime.h's M890_VERSION_MAJOR, _MINOR, _PATCH and _CODE, and
#   m890_get_version() of the built library;
# - the library's file name (libm890.so.VERSION), its soname
#   (libm890.so.MAJOR) and the link of that name, the pkg-config file;
# - m890.ko's MODULE_VERSION (when the module is built), icnctl -V and
#   the perf tools' --version.
# (libm890's build asserts the header against VERSION too: status.c.)
# Usage: version_test.sh TOP [BUILD].  Prints TAP.
top=$1
build=${2:-$top/build}
n=0 fail=0
t() { name=$1; shift; n=$((n + 1)); if "$@"; then echo "ok $n - $name"; else echo "not ok $n - $name"; fail=1; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT

ver=$(cat "$top/VERSION")
t "VERSION is MAJOR.MINOR.PATCH ($ver)" sh -c "echo '$ver' | grep -qxE '[0-9]+\.[0-9]+\.[0-9]+'"
major=${ver%%.*}
minor=${ver#*.}
minor=${minor%%.*}
patch=${ver##*.}
code=$((major * 10000 + minor * 100 + patch))

# The map's nodes in order, and the node each inherits ("-" for none).
map=$top/libm890/libm890.map
awk '/^M890_[0-9]+\.[0-9]+ *\{/ { sub(/ *\{.*/, ""); node = $0 }
	/^\}/ && node != "" { parent = $0; gsub(/[};[:space:]]/, "", parent)
		print node, (parent == "" ? "-" : parent); node = "" }' "$map" >"$dir/nodes"
sed 's/^/# /' "$dir/nodes"
t "libm890.map has version nodes" test -s "$dir/nodes"
t "libm890.map's nodes are M890_$major.0 .. M890_$major.N in turn, each inheriting the last" \
	awk -v major="$major" '{ want = "M890_" major "." NR - 1
		if ($1 != want || $2 != (NR == 1 ? "-" : prev)) bad = 1; prev = $1 }
		END { exit bad || NR == 0 }' "$dir/nodes"
newest=$(tail -n 1 "$dir/nodes" | cut -d' ' -f1)
t "the newest node ($newest) is VERSION's minor (M890_$major.$minor)" test "$newest" = "M890_$major.$minor"

# The public header's macros, compiled.
cat >"$dir/hdr.c" <<EOF
#include <stdio.h>
#include <m890_runtime.h>
int main(void)
{
	printf("%d.%d.%d %d\n", M890_VERSION_MAJOR, M890_VERSION_MINOR, M890_VERSION_PATCH,
	       M890_VERSION_CODE);
	return 0;
}
EOF
t "m890_runtime.h: M890_VERSION_MAJOR.MINOR.PATCH $ver, M890_VERSION_CODE $code" sh -c \
	"cc -std=c11 -I'$top/libm890/include' -o '$dir/hdr' '$dir/hdr.c' && test \"\$('$dir/hdr')\" = '$ver $code'"

lib=$build/lib/libm890.so.$ver
t "the library's file is libm890.so.$ver" test -f "$lib"
t "its soname is libm890.so.$major" sh -c "readelf -d '$lib' | grep -q 'SONAME.*\\[libm890.so.$major\\]'"
t "libm890.so.$major links to it" test "$(readlink "$build/lib/libm890.so.$major")" = "libm890.so.$ver"
readelf -V "$lib" 2>/dev/null | sed -n 's/.*Flags: none .*Name: \(M890_[0-9.]*\)$/\1/p' >"$dir/defs"
t "the library defines libm890.map's nodes, the newest M890_$major.$minor" sh -c \
	"cut -d' ' -f1 '$dir/nodes' | cmp -s - '$dir/defs' && test \"\$(tail -n 1 '$dir/defs')\" = M890_$major.$minor"
cat >"$dir/run.c" <<EOF
#include <stdio.h>
#include <m890.h>
int main(void)
{
	int v = 0;

	if (m890_get_version(&v))
		return 1;
	printf("%d\n", v);
	return 0;
}
EOF
t "m890_get_version() of the built library returns $code" sh -c \
	"cc -std=c11 -I'$top/libm890/include' -o '$dir/run' '$dir/run.c' -L'$build/lib' -lm890 &&
	 test \"\$(LD_LIBRARY_PATH='$build/lib' '$dir/run')\" = $code"
t "build/lib/pkgconfig/m890.pc: Version: $ver" grep -qx "Version: $ver" "$build/lib/pkgconfig/m890.pc"

if [ -f "$top/m890.ko" ]; then
	kver=$(modinfo -F version "$top/m890.ko")
	t "m890.ko's MODULE_VERSION is $ver" test "$kver" = "$ver"
	[ "$kver" = "$ver" ] || echo "# m890.ko says '$kver': built before VERSION changed? (make module)"
else
	skip "m890.ko's MODULE_VERSION" "m890.ko not built (make module)"
fi
t "icnctl -V: icnctl $ver" sh -c "'$build/bin/icnctl' -V | grep -q '^icnctl $ver '"
for p in a2a_perf ep_perf allreduce_perf allgather_perf reduce_scatter_perf broadcast_perf; do
	t "$p --version: $p $ver (libm890 $ver)" sh -c \
		"LD_LIBRARY_PATH='$build/lib' '$build/bin/$p' --version | grep -qx '$p $ver (libm890 $ver)'"
done
echo "1..$n"
exit $fail
