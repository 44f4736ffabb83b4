#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build the debug guest kernel: Debian's linux-source-6.12 with
# tinyconfig plus scripts/kernel-debug.config (what the guest needs, and
# KASAN, lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, KFENCE, kmemleak).
# The build goes to $M890_CACHE/kernel-debug/<source version>-<hash>,
# the hash taken over the config fragment and this script's code, and is reused
# while neither the source package nor those files change.  That
# directory is also the tree m890.ko is built against (make -C DIR M=...).
# An interrupted build resumes where it stopped; a lock serializes builds
# that share the cache.  Documentation/testing.rst, "The debug kernel".
#
# Prints the build directory on stdout (bzImage: arch/x86/boot/bzImage).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${M890_CACHE:?M890_CACHE not set}/kernel-debug
frag=$top/scripts/kernel-debug.config
tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || { echo "kernel-debug: $tarball missing (package linux-source-6.12)" >&2; exit 1; }
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
# (comments and blank lines of this script do not count)
hash=$({ cat "$frag"; grep -v -E '^[[:space:]]*(#|$)' "$0"; } | sha256sum | cut -c1-16)
out=$CACHE/$ver-$hash
src=$CACHE/src-$ver/linux-source-6.12

if [ -f "$out/.m890-done" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$CACHE"
exec 9>"$CACHE/lock"
flock 9
if [ -f "$out/.m890-done" ]; then
	echo "$out"
	exit 0
fi

# The source, unpacked once per package version (into a temporary
# directory first, so a half-unpacked tree is never used).
if [ ! -f "$src/Makefile" ]; then
	echo "kernel-debug: unpacking linux-source-6.12 $ver" >&2
	rm -rf "$CACHE/src-$ver" "$CACHE/src-$ver.tmp"
	mkdir -p "$CACHE/src-$ver.tmp"
	tar -xJf "$tarball" -C "$CACHE/src-$ver.tmp"
	mv "$CACHE/src-$ver.tmp" "$CACHE/src-$ver"
fi

mkdir -p "$out"
log=$out/build.log
kmake() { nice -n 19 make -C "$src" O="$out" "$@"; }

# The configuration: tinyconfig, the fragment, olddefconfig; then every
# line of the fragment must have survived (a symbol whose dependencies are
# missing is silently dropped by kconfig otherwise).
if [ ! -f "$out/.m890-config" ]; then
	{
		kmake tinyconfig
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag"
		kmake olddefconfig
	} >"$log" 2>&1 || { tail -n 30 "$log" >&2; echo "kernel-debug: configuration failed (log: $log)" >&2; exit 1; }
	bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) sym=${line%%=*} want=${line#*=} ;;
		"# CONFIG_"*" is not set") sym=${line#"# "} sym=${sym%% *} want=n ;;
		*) continue ;;
		esac
		got=$(sed -n -e "s/^$sym=//p" -e "s/^# $sym is not set$/n/p" "$out/.config")
		if [ "${got:-n}" != "$want" ]; then
			echo "kernel-debug: $sym=$want did not survive olddefconfig (got ${got:-n})" >&2
			bad=1
		fi
	done <"$frag"
	[ "$bad" = 0 ] || exit 1
	touch "$out/.m890-config"
fi

echo "kernel-debug: building the debug kernel (log: $log; 10 to 50 minutes on 2 cores)" >&2
t0=$SECONDS
if ! kmake -j"${M890_KERNEL_JOBS:-2}" bzImage modules >>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	echo "kernel-debug: build failed (log: $log)" >&2
	exit 1
fi
echo "$((SECONDS - t0))" >"$out/build-seconds"
touch "$out/.m890-done"
echo "kernel-debug: built in $((SECONDS - t0)) s" >&2
echo "$out"
