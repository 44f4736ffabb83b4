#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Resolve the newest Debian 6.12 "+deb12" kernel that has both an unsigned
# image and matching headers, install the headers (to build m890.ko) and
# unpack the image into the cache (the guest's vmlinuz and modules; the
# host's own boot setup is never touched).
#
# Prints the kernel release (e.g. 6.12.117+deb12-amd64) on stdout.
# `kernel.sh headers` installs only the headers, for a DKMS build on the
# host (scripts/dkms.sh), and needs no cache.
set -euo pipefail
headers_only=0
[ "${1:-}" != headers ] || headers_only=1
if [ $headers_only = 1 ]; then
	M890_CACHE=${M890_CACHE:-$HOME/.cache/m890}
fi
CACHE=${M890_CACHE:?M890_CACHE not set}
KDIR_ROOT=$CACHE/kernel
mkdir -p "$KDIR_ROOT"

rel_file=$KDIR_ROOT/release
if [ $headers_only = 0 ] && [ -s "$rel_file" ]; then
	rel=$(cat "$rel_file")
	if [ -d "/lib/modules/$rel/build" ] && [ -f "$KDIR_ROOT/$rel/boot/vmlinuz-$rel" ]; then
		echo "$rel"
		exit 0
	fi
else
	apt-cache show linux-source-6.12 >/dev/null 2>&1 || apt-get update -qq
	rel=$(apt-cache pkgnames linux-image-6.12. 2>/dev/null |
		sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12-amd64\)-unsigned$/\1/p' |
		while read -r r; do
			apt-cache show "linux-headers-$r" >/dev/null 2>&1 && echo "$r"
		done | sort -V | tail -n1)
	[ -n "$rel" ] || { echo "kernel: no 6.12 +deb12 image with headers found" >&2; exit 1; }
fi

if [ ! -d "/lib/modules/$rel/build" ]; then
	echo "kernel: installing linux-headers-$rel" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "linux-headers-$rel" >/dev/null
fi
if [ $headers_only = 1 ]; then
	echo "$rel"
	exit 0
fi
if [ ! -f "$KDIR_ROOT/$rel/boot/vmlinuz-$rel" ]; then
	echo "kernel: unpacking linux-image-$rel-unsigned" >&2
	# apt downloads as its sandbox user _apt, which must be able to write there.
	tmp=$(mktemp -d); chmod 755 "$tmp"
	! id -u _apt >/dev/null 2>&1 || chown _apt "$tmp"
	(cd "$tmp" && apt-get download -qq "linux-image-$rel-unsigned" >/dev/null)
	rm -rf "$KDIR_ROOT/$rel"
	dpkg-deb -x "$tmp"/linux-image-*.deb "$KDIR_ROOT/$rel"
	rm -rf "$tmp"
fi
echo "$rel" >"$rel_file"
echo "$rel"
