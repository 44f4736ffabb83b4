#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `make install` with DESTDIR, PREFIX and LIBDIR (default and set) puts
# every file where it belongs: icnctl and icn-switchd, the tools (m890-a2a,
# a2a_perf, ep_perf and the four collective perf tools), libm890 with its
# headers (each compiling alone) and pkg-config file, the man pages (which
# render; the collective tools' through their .so pages), the bash
# completion, the systemd unit, and the driver's DKMS source with a
# dkms.conf of the stack's version; the installed programs run, --help of
# each exits 0 with its usage, the perf tools' --version is the stack's;
# `make uninstall` with the same variables removes it all again.  DKMS
# itself is not run for a DESTDIR install.  Usage: install_test.sh TOP.
# Prints TAP.
top=$1
n=0 fail=0
t() { name=$1; shift; n=$((n + 1)); if "$@"; then echo "ok $n - $name"; else echo "not ok $n - $name"; fail=1; fi; }

ver=$(cat "$top/VERSION")
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || cc -print-multiarch)
dest=$(mktemp -d) || exit 1
trap 'rm -rf "$dest"' EXIT
log=$(mktemp) || exit 1
t "make install DESTDIR PREFIX=/opt/icn" sh -c \
	"make -s -C '$top' install DESTDIR='$dest' PREFIX=/opt/icn >'$log' 2>&1"
sed 's/^/# /' "$log"
p=$dest/opt/icn
lib=$p/lib/$ma
t "LIBDIR defaults to the multiarch directory ($ma)" test -f "$lib/libm890.so.$ver"
tools="m890-a2a a2a_perf ep_perf allreduce_perf allgather_perf reduce_scatter_perf broadcast_perf"
for f in sbin/icnctl sbin/icn-switchd $(printf 'bin/%s ' $tools); do
	t "$f installed, executable" test -x "$p/$f"
done
t "installed icnctl runs, the stack's version" sh -c "'$p/sbin/icnctl' -V | grep -q '^icnctl $ver '"
t "installed a2a_perf finds the installed libm890, --help exits 0" sh -c \
	"LD_LIBRARY_PATH='$lib' '$p/bin/a2a_perf' --help | grep -q -- '--minbytes'"
# --help of every installed program: status 0 and its usage on stdout
# (icn-switchd, which has short options only, with -h).
for f in $tools; do
	t "installed $f --help exits 0 with its usage" sh -c \
		"LD_LIBRARY_PATH='$lib' '$p/bin/$f' --help 2>/dev/null | grep -qi '^usage: .*$f'"
done
t "installed icnctl --help exits 0 with its usage" sh -c "'$p/sbin/icnctl' --help | grep -qi '^usage: *icnctl'"
t "installed icn-switchd -h exits 0 with its usage" sh -c \
	"'$p/sbin/icn-switchd' -h | grep -q '^usage: icn-switchd'"
for f in a2a_perf ep_perf allreduce_perf allgather_perf reduce_scatter_perf broadcast_perf; do
	t "installed $f --version: $f $ver" sh -c \
		"LD_LIBRARY_PATH='$lib' '$p/bin/$f' --version | grep -q '^$f $ver '"
done
t "installed programs carry no run path into the build tree" sh -c \
	"! readelf -d $(printf "'$p/bin/%s' " $tools) | grep -q ORIGIN"
t "installed programs find LIBDIR outside the loader's path (run path)" sh -c \
	"readelf -d '$p/bin/a2a_perf' | grep -q 'R.*PATH.*/opt/icn/lib/$ma'"
t "icn-switchd -h exits 0" sh -c "'$p/sbin/icn-switchd' -h | grep -q SOCKET"
for m in man8/icnctl.8 man8/icn-switchd.8 $(printf 'man1/%s.1 ' $tools) man3/libm890.3; do
	# (from the man directory: allgather_perf.1 and the others are
	# ".so man1/allreduce_perf.1", which man resolves from there)
	t "$m installed, renders without warnings" sh -c \
		"cd '$p/share/man' && test -f '$m' && LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l '$m' \
		 2>&1 >/dev/null | (! grep .) && LC_ALL=C.UTF-8 man -l '$m' 2>/dev/null | grep -q NAME"
done
for m in allgather_perf reduce_scatter_perf broadcast_perf; do
	t "man1/$m.1 shows the collective tools' page, naming $m" sh -c \
		"cd '$p/share/man' && LC_ALL=C.UTF-8 MANWIDTH=80 man -l man1/$m.1 2>/dev/null | grep -q '^ *$m \\['"
done
t "icnctl man page has its commands" sh -c \
	"LC_ALL=C.UTF-8 man -l '$p/share/man/man8/icnctl.8' 2>/dev/null | grep -q 'topology check'"
t "bash completion installed" test -f "$p/share/bash-completion/completions/icnctl"
t "systemd unit starts the installed icn-switchd" \
	grep -q "^ExecStart=/opt/icn/sbin/icn-switchd -s " "$p/lib/systemd/system/icn-switchd.service"
t "libm890.so link" test "$(readlink "$lib/libm890.so")" = libm890.so.1
t "libm890.so.1 link" test "$(readlink "$lib/libm890.so.1")" = "libm890.so.$ver"
t "soname libm890.so.1" sh -c "readelf -d '$lib/libm890.so.$ver' | grep -q 'SONAME.*\\[libm890.so.1\\]'"
t "m890.h installed" test -f "$p/include/m890.h"
# m890.h includes one header per concern: each is installed and compiles
# on its own (it includes what it uses), in C and, if there is a C++
# compiler, in C++.
for h in m890.h m890_runtime.h m890_compute.h m890_coll.h m890_ep.h; do
	t "$h installed, compiles alone (C11, -pedantic)" sh -c \
		"test -f '$p/include/$h' && printf '#include <$h>\n' |
		 cc -std=c11 -pedantic -Wall -Wextra -Werror -I'$p/include' -x c -fsyntax-only -"
	if command -v c++ >/dev/null; then
		t "$h compiles alone in C++" sh -c \
			"printf '#include <$h>\n' | c++ -Wall -Wextra -Werror -I'$p/include' -x c++ -fsyntax-only -"
	fi
done
t "no header of the source tree is left out of the installation" sh -c \
	"test \"\$(cd '$top/libm890/include' && ls *.h | sort | tr '\n' ' ')\" = \
	      \"\$(cd '$p/include' && ls m890*.h | sort | tr '\n' ' ')\""
t "m890.h has the stack's version" sh -c \
	"printf '#include <m890.h>\n#include <stdio.h>\nint main(void) { printf(\"%%d.%%d.%%d\", M890_VERSION_MAJOR, M890_VERSION_MINOR, M890_VERSION_PATCH); return 0; }\n' |
	 cc -x c -I'$p/include' -o '$dest/v' - && test \"\$('$dest/v')\" = $ver && rm -f '$dest/v'"
t "pkg-config file names prefix, libdir" sh -c \
	"grep -qx 'prefix=/opt/icn' '$lib/pkgconfig/m890.pc' && grep -qx 'libdir=/opt/icn/lib/$ma' '$lib/pkgconfig/m890.pc'"
t "pkg-config resolves it, the stack's version" sh -c \
	"PKG_CONFIG_PATH='$lib/pkgconfig' pkg-config --libs m890 | grep -q -- '-L/opt/icn/lib/$ma -lm890' &&
	 test \"\$(PKG_CONFIG_PATH='$lib/pkgconfig' pkg-config --modversion m890)\" = $ver"
s=$dest/usr/src/m890-$ver
t "DKMS source in /usr/src/m890-$ver" test -f "$s/Kbuild" -a -f "$s/driver/m890_drv.c" \
	-a -f "$s/uapi/drm/m890_accel.h" -a -f "$s/include/m890_regs.h" -a -x "$s/scripts/kconfig-probe.sh"
t "dkms.conf of version $ver" grep -qx "PACKAGE_VERSION=\"$ver\"" "$s/dkms.conf"
t "dkms.conf is valid shell with MAKE and the module" bash -c \
	". '$s/dkms.conf' && test \"\$PACKAGE_NAME\" = m890 && test \"\${BUILT_MODULE_NAME[0]}\" = m890 && test -n \"\${MAKE[0]}\""
t "nothing installed outside DESTDIR/PREFIX and /usr/src" sh -c \
	"test \"\$(cd '$dest' && ls | tr '\n' ' ')\" = 'opt usr ' && test \"\$(ls '$dest/opt')\" = icn &&
	 test \"\$(ls '$dest/usr')\" = src"

t "make uninstall with the same variables" sh -c \
	"make -s -C '$top' uninstall DESTDIR='$dest' PREFIX=/opt/icn >'$log' 2>&1"
sed 's/^/# /' "$log"
t "uninstall leaves no file" sh -c "test -z \"\$(find '$dest' -type f -o -type l)\""

t "LIBDIR=/opt/icn/lib64 is honoured" sh -c \
	"make -s -C '$top' install-user DESTDIR='$dest' PREFIX=/opt/icn LIBDIR=/opt/icn/lib64 >'$log' 2>&1 &&
	 test -f '$dest/opt/icn/lib64/libm890.so.$ver' && grep -qx 'libdir=/opt/icn/lib64' '$dest/opt/icn/lib64/pkgconfig/m890.pc'"
sed 's/^/# /' "$log"
rm -f "$log"
echo "1..$n"
exit $fail
