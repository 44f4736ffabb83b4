#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build the guest's initramfs: busybox, the guest kernel's DRM modules that
# m890.ko needs, m890.ko itself, and the project's binaries (build/bin,
# build/tests, the user's programs) with every shared library they link,
# copied from the host.
#
# usage: guest-image.sh KREL KMODROOT OUT.cpio
set -euo pipefail
krel=$1 kroot=$2 out=$3
top=$(cd "$(dirname "$0")/.." && pwd)
stage=$(mktemp -d)
chmod 755 "$stage"
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,usr/lib,lib/modules,proc,sys,dev,tmp,root,etc,run,var/log,home/user}
cp /bin/busybox "$stage/bin/busybox"
cp "$top/scripts/guest-init.sh" "$stage/init"
chmod 755 "$stage/init"

# Modules m890.ko depends on, in load order (dependencies first).
moddir=$kroot/lib/modules/$krel
declare -A seen=()
order=()
add_mod() {
	local name=$1 f dep
	[ -n "${seen[$name]:-}" ] && return
	seen[$name]=1
	f=$(find "$moddir/kernel" -name "$name.ko*" -print -quit)
	[ -n "$f" ] || { echo "guest-image: module $name not found" >&2; exit 1; }
	for dep in $(modinfo -F depends "$f" | tr ',' ' '); do
		add_mod "$dep"
	done
	case $f in
	*.xz) xz -dc "$f" >"$stage/lib/modules/$name.ko" ;;
	*.zst) zstd -qdc "$f" >"$stage/lib/modules/$name.ko" ;;
	*) cp "$f" "$stage/lib/modules/$name.ko" ;;
	esac
	order+=("$name")
}
for dep in $(modinfo -F depends "$top/m890.ko" | tr ',' ' '); do
	add_mod "$dep"
done
printf '%s\n' "${order[@]}" >"$stage/lib/modules/load-order"
cp "$top/m890.ko" "$stage/lib/modules/m890.ko"

# The project's programs and libraries, the user's programs (the
# executables of $GUEST_PROGRAMS, default user/, and the C files there
# built into build/user: user/README.md), plus every host library they need.
for d in bin tests user; do
	[ -d "$top/build/$d" ] && cp -a "$top/build/$d/." "$stage/usr/bin/"
done
udir=${GUEST_PROGRAMS:-user}
case $udir in /*) ;; *) udir=$top/$udir ;; esac
if [ -d "$udir" ]; then
	find "$udir" -maxdepth 1 -type f -perm -u+x ! -name '*.c' -exec cp {} "$stage/usr/bin/" \;
fi
[ -d "$top/build/lib" ] && cp -a "$top/build/lib/." "$stage/usr/lib/"

# The kernel's YNL command line, tools/net/ynl/cli.py from linux-source
# (extracted into the cache by ynl.sh), in /usr/lib/ynl with the family's
# spec in /usr/share/ynl/specs and the kernel's schemas next to specs/, as
# cli.py looks for them; run by Debian's python3, with only the files a
# traced cli.py run uses (ynl-guest-files.py: about 11 MB, no OpenSSL).
ynl=$("$top/scripts/ynl.sh" tools)
py=$(readlink -f /usr/bin/python3)
mkdir -p "$stage/usr/lib/ynl/lib" "$stage/usr/share/ynl/specs"
cp "$ynl/cli.py" "$stage/usr/lib/ynl/"
cp "$ynl"/lib/*.py "$stage/usr/lib/ynl/lib/"
cp "$ynl"/../../../Documentation/netlink/*.yaml "$stage/usr/share/ynl/"
cp "$top/Documentation/netlink/specs/icn.yaml" "$stage/usr/share/ynl/specs/"
cp "$py" "$stage/usr/bin/"
ln -sf "$(basename "$py")" "$stage/usr/bin/python3"
ln -sf /bin/busybox "$stage/usr/bin/env"	# cli.py's #!/usr/bin/env python3
env -i PATH=/usr/bin:/bin "$py" "$top/scripts/ynl-guest-files.py" "$ynl" \
		"$stage/usr/share/ynl/specs/icn.yaml" >"$stage/.pyfiles" ||
	{ echo "guest-image: tracing cli.py's files failed" >&2; exit 1; }
# (With their times: a .pyc is used only if its source's mtime matches.)
while IFS= read -r f; do
	mkdir -p "$stage$(dirname "$f")"
	cp -pL "$f" "$stage$f"
done <"$stage/.pyfiles"
rm "$stage/.pyfiles"
"$py" -m compileall -q -d /usr/lib/ynl "$stage/usr/lib/ynl" >/dev/null

elves=()
while IFS= read -r -d '' f; do
	[ "$(head -c 4 "$f")" = $'\x7fELF' ] && elves+=("$f")
done < <(find "$stage/usr/bin" "$stage/usr/lib" -type f -print0)
libs=$( { [ ${#elves[@]} = 0 ] || LD_LIBRARY_PATH="$top/build/lib" ldd "${elves[@]}" 2>/dev/null || true; } |
	awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | sort -u)
for l in $libs; do
	case $l in "$top"/*) continue ;; esac
	mkdir -p "$stage$(dirname "$l")"
	cp -L "$l" "$stage$l"
done
mkdir -p "$stage/lib64"
cp -L /lib64/ld-linux-x86-64.so.2 "$stage/lib64/"

cat >"$stage/etc/passwd" <<'PW'
root:x:0:0:root:/root:/bin/sh
user:x:1000:1000:unprivileged test user:/home/user:/bin/sh
PW
cat >"$stage/etc/group" <<'GR'
root:x:0:
user:x:1000:
GR
chown 1000:1000 "$stage/home/user"
echo "/usr/lib" >"$stage/etc/ld.so.conf"

(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=+0:+0 --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
