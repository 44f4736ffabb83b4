#!/bin/bash
# SPDX-License-Identifier: MIT
#
# m890.ko through DKMS, for `make dkms-install` and `make dkms-uninstall`
# (scripts/install.mk has put the source and dkms.conf in SRCDIR).
#   dkms.sh install VERSION SRCDIR  remove every other m890 version, add
#       this one, build and install it for each installed kernel with
#       headers (/lib/modules/K/build) that dkms.conf accepts (6.12 and
#       later); with none, first install the headers of Debian's newest
#       6.12 kernel (scripts/kernel.sh headers)
#   dkms.sh remove VERSION SRCDIR   remove this version from DKMS and
#       from every kernel
# Must run as root.  Ends with `dkms status m890`.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: dkms.sh install|remove VERSION SRCDIR}
ver=${2:?usage: dkms.sh install|remove VERSION SRCDIR}
src=${3:?usage: dkms.sh install|remove VERSION SRCDIR}

[ "$(id -u)" = 0 ] || { echo "dkms: must run as root (or set DESTDIR)" >&2; exit 1; }
command -v dkms >/dev/null || { echo "dkms: dkms is not installed (apt-get install dkms)" >&2; exit 1; }

# Versions of m890 DKMS knows, one per line.
registered() {
	dkms status m890 2>/dev/null | sed -n 's|^m890/\([^,:]*\)[,:].*|\1|p' | sort -u
}

# Kernels with headers whose release dkms.conf's BUILD_EXCLUSIVE_KERNEL takes.
kernels() {
	local b k pat
	pat=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$src/dkms.conf")
	for b in /lib/modules/*/build; do
		[ -d "$b" ] || continue
		k=${b#/lib/modules/}
		k=${k%/build}
		[[ $k =~ $pat ]] && echo "$k"
	done
	return 0
}

case $mode in
install)
	for v in $(registered); do
		[ "$v" = "$ver" ] && continue
		echo "dkms: removing m890/$v"
		dkms remove "m890/$v" --all >/dev/null
	done
	ks=$(kernels)
	if [ -z "$ks" ]; then
		echo "dkms: no kernel of 6.12 or later with headers; installing Debian's newest 6.12 headers"
		"$top/scripts/kernel.sh" headers >/dev/null
		ks=$(kernels)
	fi
	registered | grep -qx "$ver" || dkms add "$src" >/dev/null
	for k in $ks; do
		echo "dkms: building m890/$ver for $k"
		if ! dkms install -m m890 -v "$ver" -k "$k" >/dev/null; then
			echo "dkms: building m890/$ver for $k failed; see /var/lib/dkms/m890/$ver/build/make.log" >&2
			exit 1
		fi
	done
	;;
remove)
	if registered | grep -qx "$ver"; then
		dkms remove "m890/$ver" --all >/dev/null
	fi
	;;
*)
	echo "usage: dkms.sh install|remove VERSION SRCDIR" >&2
	exit 2
	;;
esac
dkms status m890
