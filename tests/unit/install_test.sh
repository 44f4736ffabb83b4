#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `make install` with DESTDIR and PREFIX puts icnctl, its man page and
# bash completion, and libm890 with its header and pkg-config file where
# they belong, and the man page renders.  Usage: install_test.sh TOP.
# Prints TAP.
top=$1
n=0 fail=0
t() { name=$1; shift; n=$((n + 1)); if "$@"; then echo "ok $n - $name"; else echo "not ok $n - $name"; fail=1; fi; }

dest=$(mktemp -d) || exit 1
trap 'rm -rf "$dest"' EXIT
log=$(mktemp) || exit 1
t "make install DESTDIR PREFIX=/opt/icn" sh -c \
	"make -s -C '$top' install DESTDIR='$dest' PREFIX=/opt/icn >'$log' 2>&1"
sed 's/^/# /' "$log"
rm -f "$log"
p=$dest/opt/icn
t "icnctl installed, executable" test -x "$p/sbin/icnctl"
t "installed icnctl runs" sh -c "'$p/sbin/icnctl' -V | grep -q '^icnctl '"
t "man page installed" test -f "$p/share/man/man8/icnctl.8"
t "man page renders without warnings" sh -c \
	"LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l '$p/share/man/man8/icnctl.8' 2>&1 >/dev/null | \
	 (! grep .) && LC_ALL=C.UTF-8 man -l '$p/share/man/man8/icnctl.8' 2>/dev/null | grep -q 'topology check'"
t "bash completion installed" test -f "$p/share/bash-completion/completions/icnctl"
t "libm890.so.1.0.0 installed" test -f "$p/lib/libm890.so.1.0.0"
t "libm890.so link" test "$(readlink "$p/lib/libm890.so")" = libm890.so.1
t "m890.h installed" test -f "$p/include/m890.h"
t "pkg-config file names the prefix" grep -qx 'prefix=/opt/icn' "$p/lib/pkgconfig/m890.pc"
t "pkg-config resolves it" sh -c \
	"PKG_CONFIG_PATH='$p/lib/pkgconfig' pkg-config --libs m890 | grep -q -- '-lm890'"
t "nothing installed outside DESTDIR/PREFIX" sh -c \
	"test \"\$(cd '$dest' && ls)\" = opt && test \"\$(ls '$dest/opt')\" = icn"
echo "1..$n"
exit $fail
