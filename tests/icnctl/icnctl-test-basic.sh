#!/bin/sh
# SPDX-License-Identifier: MIT
#
# icnctl in the guest (TAP): output forms, abbreviations, exit codes, port
# state changes, and the errors a user sees (bad port, no permission).
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
t() { name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }

cards=$(ls /dev/accel 2>/dev/null | grep -c '^accel')
out=/tmp/icnctl.out
err=/tmp/icnctl.err

rc() { "$@" >$out 2>$err; echo $?; }

t "icnctl -V exits 0" test "$(rc icnctl -V)" = 0
t "icnctl help exits 0" test "$(rc icnctl help)" = 0
t "no arguments exits 2" test "$(rc icnctl)" = 2
t "unknown object exits 2" test "$(rc icnctl bogus show)" = 2
t "unknown command exits 2" test "$(rc icnctl port frob)" = 2
t "ambiguous command exits 2" test "$(rc icnctl port s)" = 2
t "ambiguous error names the candidates" grep -q "show set" $err
t "bad port number exits 2" test "$(rc icnctl port show x)" = 2

t "port show exits 0" test "$(rc icnctl port show)" = 0
ports=$(wc -l <$out)
t "port show: 64 lines ($ports)" test "$ports" = 64
t "port show: $cards ports with a card" test "$(grep -c ' card accel' $out)" = "$cards"
t "port show: line format" grep -q '^port 0 admin up oper up card accel[0-9]* fabric-id 0 partition 0 speed ' $out
t "abbreviated: icnctl po sh 0" test "$(rc icnctl po sh 0)" = 0
t "one port: one line" test "$(wc -l <$out)" = 1
t "one port: port 0" grep -q '^port 0 ' $out
t "icnctl p is ambiguous (port, partition)" test "$(rc icnctl p sh 0)" = 2

t "JSON exits 0" test "$(rc icnctl -j port show)" = 0
t "JSON: array of 64" test "$(icnctl-json length <$out)" = 64
t "JSON: port 3 index" test "$(icnctl-json 3 port <$out)" = 3
t "pretty JSON parses" test "$(icnctl -p -j port show | icnctl-json length)" = 64
t "pretty JSON is several lines" test "$(icnctl -p -j port show | wc -l)" -gt 64

t "switch show exits 0" test "$(rc icnctl switch show)" = 0
t "switch show: 64 ports, version 1.0" grep -q 'ports 64 version 1.0' $out
t "switch JSON" test "$(icnctl -j switch show | icnctl-json 0 ports)" = 64

t "port show 64: usage error, exit 2" test "$(rc icnctl port show 64)" = 2
t "port show 64: names the range 0..63" grep -q 'port "64" is not in the range 0..63' $err
t "port show 999: exit 2" test "$(rc icnctl port show 999)" = 2
t "port show 010 is port 10 (decimal, not octal)" sh -c "icnctl port show 010 | grep -q '^port 10 '"
cat $err | sed 's/^/# /'

if [ "$cards" -ge 2 ]; then
	p=1
	t "port set $p state down" test "$(rc icnctl port set $p state down)" = 0
	t "port $p oper down" test "$(icnctl -j port show $p | icnctl-json 0 oper)" = down
	t "port $p admin down" test "$(icnctl -j port show $p | icnctl-json 0 admin)" = down
	t "port set $p st u (abbreviated)" test "$(rc icnctl port set $p st u)" = 0
	t "port $p oper up again" test "$(icnctl -j port show $p | icnctl-json 0 oper)" = up
	t "link-down count counted" test "$(icnctl -s -j port show $p | icnctl-json 0 link_down_count)" -ge 1
fi
t "port set 999: exits 2" test "$(rc icnctl port set 999 state up)" = 2
cat $err | sed 's/^/# /'

# Without CAP_NET_ADMIN (capabilities dropped): changes refused, reads work.
icnctl-nocap icnctl port set 0 state down >$out 2>$err
r=$?
t "no CAP_NET_ADMIN: port set exits 1" test "$r" = 1
t "no CAP_NET_ADMIN: message names the capability" grep -q 'operation not permitted: need CAP_NET_ADMIN' $err
cat $err | sed 's/^/# /'
t "no CAP_NET_ADMIN: port show works" icnctl-nocap icnctl port show 0 >/dev/null
t "port 0 still up" test "$(icnctl -j port show 0 | icnctl-json 0 admin)" = up
icnctl port set 0 state up >/dev/null 2>&1	# whatever happened above

if id user >/dev/null 2>&1 && command -v su >/dev/null &&
   su user -c 'icnctl -V' >/dev/null 2>&1; then
	su user -c 'icnctl port set 0 state down' >$out 2>$err
	r=$?
	t "unprivileged port set exits 1" test "$r" = 1
	t "unprivileged: need CAP_NET_ADMIN" grep -q 'operation not permitted: need CAP_NET_ADMIN' $err
	cat $err | sed 's/^/# /'
	t "unprivileged port show works" su user -c 'icnctl port show >/dev/null'
	t "port 0 still up" test "$(icnctl -j port show 0 | icnctl-json 0 admin)" = up
	icnctl port set 0 state up >/dev/null 2>&1
else
	n=$((n + 1)); echo "ok $n - unprivileged checks # SKIP cannot run icnctl as user 'user' (no su, no user, or no access)"
fi

# ---- no card bound: every read names the cause and exits 1 ----
drv=/sys/bus/pci/drivers/m890
if [ -w $drv/unbind ] && [ "$cards" -gt 0 ]; then
	bdfs=$(for d in $drv/0000:*; do basename $d; done)
	for b in $bdfs; do echo $b >$drv/unbind; done
	for c in "switch show" "port show" "card show" "topology show"; do
		t "no card: $c exits 1" test "$(rc icnctl $c)" = 1
		t "no card: $c names the cause" grep -q 'no M890 card is attached' $err
		t "no card: $c prints nothing" test ! -s $out
	done
	show_err
	for b in $bdfs; do echo $b >$drv/bind; done
	for i in $(seq 100); do
		[ "$(ls /dev/accel 2>/dev/null | grep -c '^accel')" = "$cards" ] && break
		sleep 0.1
	done
	t "cards bound again" test "$(rc icnctl card show)" = 0
else
	n=$((n + 1)); echo "ok $n - no card bound # SKIP cannot unbind the driver"
fi

echo "1..$n"
exit $fail
