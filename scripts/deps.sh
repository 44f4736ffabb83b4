#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Install, from Debian's archive, everything the build and tests need.
# Idempotent and quiet when everything is present: it only calls apt when a
# package or source entry is missing (then it must run as root).  The
# top-level Makefile runs it before it reads the makefiles that ask
# pkg-config for flags.
#   deps.sh [build] the build, `make run` and `make check`
#   deps.sh bench   also what `make bench` needs (Open MPI for the host
#                   baseline; gnuplot is always installed)
#   deps.sh install only what `make install` builds with (icnctl,
#                   libm890 and the tools: compiler, pkg-config, libdrm,
#                   libnl, json-c; dkms for the module, whose kernel
#                   headers scripts/dkms.sh installs when none are there)
set -euo pipefail

mode=${1:-build}
case $mode in
build|bench|install) ;;
*) echo "usage: deps.sh [build|bench|install]" >&2; exit 2 ;;
esac

STAMP_DIR=${M890_CACHE:?M890_CACHE not set}
mkdir -p "$STAMP_DIR"

PKGS_INSTALL="build-essential pkgconf libdrm-dev libnl-3-dev libnl-genl-3-dev libjson-c-dev
 dkms"
# man-db: the install test renders the man pages.  sparse: make check runs
# it on the driver next to checkpatch.  perl: prove summarises the TAP.
# python3-yaml and python3-jsonschema: the kernel's YNL tools
# (scripts/ynl.sh, and cli.py in the guest).
PKGS="$PKGS_INSTALL bc bison flex kmod cpio xz-utils zstd dpkg-dev
 ninja-build python3 python3-venv libglib2.0-dev zlib1g-dev libfdt-dev
 busybox-static qemu-system-data linux-source-6.12 gnuplot-nox python3-yaml
 python3-jsonschema
 man-db sparse perl"
case $mode in
bench) PKGS="$PKGS libopenmpi-dev openmpi-bin" ;;
install) PKGS=$PKGS_INSTALL ;;
esac

need_apt_update=0
src=/etc/apt/sources.list.d/m890-build.sources
if [ "$mode" != install ] && [ ! -f "$src" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps: must run as root to add apt sources" >&2
		exit 1
	fi
	cat >"$src" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	need_apt_update=1
fi

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing="$missing $p"
done
meson_ok=1
if [ "$mode" != install ]; then
	meson_ok=0
	if command -v meson >/dev/null &&
		dpkg --compare-versions "$(meson --version 2>/dev/null || echo 0)" ge 1.5; then
		meson_ok=1
	fi
fi

if [ -n "$missing" ] || [ $meson_ok = 0 ] || [ $need_apt_update = 1 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps: missing packages:$missing; run as root" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	what=$missing
	[ $meson_ok = 1 ] || what="$what meson/bookworm-backports"
	echo "deps: installing from Debian's archive:${what:- nothing (apt sources added)}"
	apt-get update -qq
	[ -z "$missing" ] || apt-get install -y -qq --no-install-recommends $missing >/dev/null
	[ $meson_ok = 1 ] || apt-get install -y -qq --no-install-recommends -t bookworm-backports meson >/dev/null
fi
