#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build QEMU 10.0 (Debian's source package) with the M890 device model and
# its qtests (one per tests/qtest/*.c), and print the directory holding
# qemu-system-x86_64 and the qtest binaries as the last line on stdout.
#
# The binaries go to $M890_CACHE/qemu/bin-<qemu version>-<hash>, where the
# hash covers qemu-device/, tests/qtest/, this script and the contract
# headers the device includes: an unchanged device never rebuilds QEMU.  The device sources are
# copied into the QEMU tree as hw/m890/ only when they changed, so ninja
# rebuilds incrementally.  Quiet when there is nothing to do; the build log
# is $M890_CACHE/qemu/build.log and its tail is printed on failure.
set -euo pipefail

CACHE=${M890_CACHE:-$HOME/.cache/m890}
top=$(cd "$(dirname "$0")/.." && pwd)
qroot=$CACHE/qemu
bdir=$qroot/build
log=$qroot/build.log
mkdir -p "$qroot"

exec 9>"$qroot/.lock"
flock 9

fail() {
	echo "qemu.sh: $*" >&2
	[ -f "$log" ] && tail -n 40 "$log" >&2
	exit 1
}

# Files that make up the device and its test, in a stable order.
dev_files() {
	(cd "$top" && find qemu-device tests/qtest -type f | LC_ALL=C sort
	 echo include/m890_regs.h
	 echo uapi/drm/m890_packets.h
	 echo scripts/qemu.sh)
}

# 1. Debian's QEMU 10.0 source tree.
srcdir=$(ls -d "$qroot"/qemu-10.0.*/ 2>/dev/null | sort -V | tail -n 1 || true)
srcdir=${srcdir%/}
if [ -z "$srcdir" ] || [ ! -f "$srcdir/meson.build" ]; then
	ver=$(apt-cache showsrc qemu 2>/dev/null |
	      sed -n 's/^Version: \(1:\)\?\(10\.0\.[^-]*\)-.*/\2/p' | sort -V | tail -n 1)
	[ -n "$ver" ] || fail "no QEMU 10.0 source in apt (run scripts/deps.sh)"
	echo "qemu.sh: fetching qemu $ver source" >&2
	chmod 755 "$qroot"
	(cd "$qroot" && apt-get source -qq "qemu=$(apt-cache showsrc qemu |
		sed -n "s/^Version: \(.*$ver-.*\)/\1/p" | head -n 1)") >"$log" 2>&1 ||
		fail "apt-get source qemu failed"
	srcdir=$qroot/qemu-$ver
	[ -f "$srcdir/meson.build" ] || fail "source tree $srcdir missing"
fi
qver=${srcdir##*/qemu-}

# The qtests: tests/qtest/NAME.c builds tests/qtest/NAME.
qtests=$(cd "$top/tests/qtest" && ls -- *.c | sed 's/\.c$//' | LC_ALL=C sort)

# 2. Nothing to do if this exact device was built already.
have_all() {
	local t
	[ -x "$bindir/qemu-system-x86_64" ] || return 1
	for t in $qtests; do
		[ -x "$bindir/$t" ] || return 1
	done
}
hash=$(cd "$top" && dev_files | while read -r f; do
	echo "$f"; sha256sum <"$f"; done | sha256sum | cut -c1-12)
bindir=$qroot/bin-$qver-$hash
if have_all && [ -e "$qroot/share/qemu" ]; then
	echo "$bindir"
	exit 0
fi

# 3. Copy the device into the tree, touching only changed files.
sync_file() {	# SRC DST
	if ! cmp -s "$1" "$2"; then
		mkdir -p "$(dirname "$2")"
		cp "$1" "$2"
	fi
}
hw=$srcdir/hw/m890
(cd "$top/qemu-device" && find . -type f) | while read -r f; do
	sync_file "$top/qemu-device/$f" "$hw/$f"
done
# The contract headers next to the code that includes them (QEMU builds
# a device only from inside its tree; the files of this repository stay
# the single source: Documentation/architecture.rst, "The device's
# sources copied into QEMU's tree").
sync_file "$top/include/m890_regs.h" "$hw/m890_regs.h"
sync_file "$top/include/m890_regs.h" "$hw/icn/m890_regs.h"
sync_file "$top/uapi/drm/m890_packets.h" "$hw/m890_packets.h"
# drop files that left the project
(cd "$hw" && find . -type f) | while read -r f; do
	case $f in ./m890_regs.h|./icn/m890_regs.h|./m890_packets.h) continue ;; esac
	[ -f "$top/qemu-device/$f" ] || rm -f "$hw/$f"
done
for t in "$top"/tests/qtest/*.[ch]; do
	[ -f "$t" ] && sync_file "$t" "$srcdir/tests/qtest/${t##*/}"
done

# 4. Hook the device and the qtest into QEMU's build (idempotent).
grep -q "subdir('m890')" "$srcdir/hw/meson.build" ||
	echo "subdir('m890')" >>"$srcdir/hw/meson.build"
grep -q "source m890/Kconfig" "$srcdir/hw/Kconfig" ||
	echo "source m890/Kconfig" >>"$srcdir/hw/Kconfig"
grep -q "'hw/m890'," "$srcdir/meson.build" ||
	sed -i "s|^\(    \)'hw/nvme',|\1'hw/m890',\n\1'hw/nvme',|" "$srcdir/meson.build"
grep -q "'hw/m890'," "$srcdir/meson.build" || fail "cannot patch trace_events_subdirs"
# -object checks its type against the QAPI schema: declare icn-switch there.
grep -q "IcnSwitchProperties" "$srcdir/qapi/qom.json" ||
	/usr/bin/python3 - "$srcdir/qapi/qom.json" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
doc = """##
# @IcnSwitchProperties:
#
# Properties for icn-switch objects (ICN Switch 1.0 fabric of M890 cards).
#
# @switch-id: switch identifier reported to the cards (default: 0)
#
# @socket: Unix socket of icn-switchd; the switch is then shared with
#     the cards of other VMs (default: the switch is in this process)
#
# Since: 10.0
##
{ 'struct': 'IcnSwitchProperties',
  'data': { '*switch-id': 'uint32', '*socket': 'str' } }

"""
s = s.replace("##\n# @ObjectType:\n", doc + "##\n# @ObjectType:\n", 1)
s = s.replace("\n    'input-barrier',\n", "\n    'icn-switch',\n    'input-barrier',\n", 1)
s = s.replace("\n      'input-barrier':", "\n      'icn-switch':                 'IcnSwitchProperties',\n      'input-barrier':", 1)
open(p, "w").write(s)
PY
# A tree patched before icn-switch had a socket: add it.
grep -q "'\*socket': 'str' } }" "$srcdir/qapi/qom.json" ||
	/usr/bin/python3 - "$srcdir/qapi/qom.json" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "# @switch-id: switch identifier reported to the cards (default: 0)\n#\n"
s = s.replace(old, old +
              "# @socket: Unix socket of icn-switchd; the switch is then shared with\n"
              "#     the cards of other VMs (default: the switch is in this process)\n#\n", 1)
s = s.replace("'data': { '*switch-id': 'uint32' } }",
              "'data': { '*switch-id': 'uint32', '*socket': 'str' } }", 1)
open(p, "w").write(s)
PY
grep -q "'icn-switch':" "$srcdir/qapi/qom.json" &&
	grep -q "'\*socket': 'str' } }" "$srcdir/qapi/qom.json" ||
	fail "cannot patch qapi/qom.json"
for t in $qtests; do
	grep -q "'$t'" "$srcdir/tests/qtest/meson.build" ||
		sed -i "s|^qtests_x86_64 = qtests_i386$|&\nqtests_x86_64 += ['$t']|" \
			"$srcdir/tests/qtest/meson.build"
	grep -q "'$t'" "$srcdir/tests/qtest/meson.build" || fail "cannot patch qtest list"
done

# 5. Configure once, then build incrementally.
if [ ! -f "$bdir/build.ninja" ]; then
	mkdir -p "$bdir"
	(cd "$bdir" && nice "$srcdir/configure" --target-list=x86_64-softmmu \
		--without-default-features --enable-tcg --enable-fdt=system \
		--disable-download --disable-docs --disable-install-blobs \
		--python=/usr/bin/python3) >"$log" 2>&1 || fail "configure failed"
fi
echo "qemu.sh: building qemu $qver with the m890 device (log: $log)" >&2
# shellcheck disable=SC2046
nice ninja -C "$bdir" -j 2 qemu-system-x86_64 $(printf 'tests/qtest/%s ' $qtests) \
	>"$log" 2>&1 ||
	fail "build failed"

# 6. Install into a content-addressed directory.  QEMU looks for its
# firmware in ../share/qemu relative to the binary: point that at Debian's
# qemu-system-data, so that qtests (which cannot pass -L) find bios-256k.bin.
mkdir -p "$qroot/share"
[ -e "$qroot/share/qemu" ] || ln -sfn /usr/share/qemu "$qroot/share/qemu"
tmp=$bindir.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
cp "$bdir/qemu-system-x86_64" "$tmp/"
for t in $qtests; do
	cp "$bdir/tests/qtest/$t" "$tmp/"
done
rm -rf "$bindir"
mv "$tmp" "$bindir"
echo "$bindir"
