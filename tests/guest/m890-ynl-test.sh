#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The live "icn" family through the kernel's own YNL command line
# (tools/net/ynl/cli.py, installed by guest-image.sh in /usr/lib/ynl with
# the spec in /usr/share/ynl/specs), in the guest (TAP).  cli.py validates
# the spec against the kernel's schema, resolves the family and decodes
# every reply from the spec alone, so each check here also checks that
# the driver speaks what the spec says.  JSON output is read with
# icnctl-json and compared with icnctl where both report the same thing.
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
t() { name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }

cards=$(ls /dev/accel 2>/dev/null | grep -c '^accel')
out=/tmp/ynl.out
err=/tmp/ynl.err
cli=/usr/lib/ynl/cli.py
specs=/usr/share/ynl/specs

# ynl ARGS...: cli.py on icn.yaml; stdout in $out, stderr in $err, the
# exit status printed.  Only the first command validates the spec against
# the schema (a few seconds under TCG; scripts/ynl.sh check does it on the
# host too); the others pass --no-schema.  (cli.py finds the schema two
# directories above the spec's path, so the path has to name specs/'s
# parent: here it is absolute.)
ynl() {
	$cli --spec $specs/icn.yaml --no-schema "$@" >$out 2>$err
	echo $?
}
# ynl_nocap ARGS...: the same without capabilities.
ynl_nocap() {
	icnctl-nocap $cli --spec $specs/icn.yaml --no-schema "$@" >$out 2>$err
	echo $?
}
show_err() { sed 's/^/# /' $err $out | head -20; }

t "cli.py and python3 are installed" test -x $cli -a -x /usr/bin/python3

# A dump of every port, the spec validated against the kernel's schema.
$cli --spec $specs/icn.yaml --dump port-get >$out 2>$err
rc=$?
t "cli.py --spec icn.yaml --dump port-get exits 0" test "$rc" = 0
[ "$rc" = 0 ] || show_err
t "the dump names port-index (decoded from the spec)" grep -q "'port-index': 63" $out
t "the dump decodes port-oper-state through enum port-state" grep -q "'port-oper-state': 'up'" $out

t "JSON dump exits 0" test "$(ynl --output-json --dump port-get)" = 0
cp $out /tmp/ynl-ports.json
t "JSON dump: 64 ports" test "$(icnctl-json length </tmp/ynl-ports.json)" = 64
present=0
i=0
while [ $i -lt 64 ]; do
	[ "$(icnctl-json $i port-present </tmp/ynl-ports.json)" = 1 ] && present=$((present + 1))
	i=$((i + 1))
done
t "JSON dump: $cards ports present ($present)" test "$present" = "$cards"
t "JSON dump: port 0 is the card accel0's" \
	test "$(icnctl-json 0 port-dev-name </tmp/ynl-ports.json)" = accel0
t "JSON dump: port 5 has index 5" test "$(icnctl-json 5 port-index </tmp/ynl-ports.json)" = 5
t "JSON dump: nominal speed 6400000" \
	test "$(icnctl-json 0 port-speed </tmp/ynl-ports.json)" = 6400000
t "JSON dump: port 0 oper state agrees with icnctl" \
	test "$(icnctl-json 0 port-oper-state </tmp/ynl-ports.json)" = \
	"$(icnctl -j port show 0 | icnctl-json 0 oper)"

t "do switch-get exits 0" test "$(ynl --output-json --do switch-get)" = 0
t "do switch-get: 64 ports" grep -q '"switch-ports": 64' $out
t "do switch-get: version 1.0 (65536)" grep -q '"switch-version": 65536' $out

t "do port-get of port 3 exits 0" \
	test "$(ynl --output-json --do port-get --json '{"port-index": 3}')" = 0
t "do port-get: port-index 3" grep -q '"port-index": 3' $out

t "dump card-get exits 0" test "$(ynl --output-json --dump card-get)" = 0
t "dump card-get: $cards cards" test "$(icnctl-json length <$out)" = "$cards"
t "dump card-get: accel0 has fabric id 0" test "$(icnctl-json 0 card-fabric-id <$out)" = 0
t "dump route-get: 64 routes" \
	sh -c "$cli --spec $specs/icn.yaml --no-schema --output-json --dump route-get |
		icnctl-json length | grep -qx 64"
t "dump partition-get: partition 0 exists" \
	sh -c "$cli --spec $specs/icn.yaml --no-schema --output-json --dump partition-get |
		icnctl-json 0 partition-id | grep -qx 0"

# Policies: the generated per-operation policy refuses a port out of range
# and cli.py shows the kernel's error and extack.
t "do port-get of port 64 fails" test "$(ynl --do port-get --json '{"port-index": 64}')" = 1
t "port 64: Numerical result out of range" grep -q 'Numerical result out of range' $out
t "port 64: extack names the bad attribute" grep -q "bad-attr" $out

# A change as root, seen by icnctl and announced on "config" (port 1:
# the second card's, or an empty port with one card).
p=1
rc=$(ynl --do port-set --json "{\"port-index\": $p, \"port-admin-state\": \"down\"}")
t "do port-set port $p admin down exits 0" test "$rc" = 0
[ "$rc" = 0 ] || show_err
t "icnctl sees port $p admin down" test "$(icnctl -j port show $p | icnctl-json 0 admin)" = down
# A listener on "config" (cli.py subscribes, sleeps, then prints what
# arrived); the change is made by icnctl once the listener's socket has
# joined a group (/proc/net/netlink: protocol 16, its port id, groups).
# (One cli.py that subscribes and changes at once fails in the 6.12 YNL
# library when a notification arrives before the reply.)
$cli --spec $specs/icn.yaml --no-schema --output-json --subscribe config --sleep 4 \
	>/tmp/ynl-ntf.out 2>&1 &
lst=$!
i=0
until awk -v pid=$lst '$2 == 16 && $3 == pid && $4 != "00000000" { f = 1 } END { exit !f }' \
		/proc/net/netlink || [ $i -ge 100 ]; do
	usleep 100000
	i=$((i + 1))
done
t "cli.py --subscribe config joined the group" test $i -lt 100
t "icnctl port set $p state up" icnctl port set $p state up
wait $lst
t "the listener exits 0" test $? = 0
t "it got a port-ntf for port $p" \
	grep -q "\"name\": \"port-ntf\", \"msg\": {\"port-index\": $p," /tmp/ynl-ntf.out
t "the port-ntf says admin up" grep -q '"port-admin-state": "up"' /tmp/ynl-ntf.out
sed 's/^/# /' /tmp/ynl-ntf.out | head -c 600
echo
i=0
while [ "$cards" -gt 1 ] && [ "$(icnctl -j port show $p | icnctl-json 0 oper)" != up ] &&
	[ $i -lt 50 ]; do
	usleep 100000
	i=$((i + 1))
done
t "port $p is up again" test "$(icnctl -j port show $p | icnctl-json 0 admin)" = up

# Without CAP_NET_ADMIN: reads work, changes are refused by GENL_ADMIN_PERM.
t "without capabilities: dump port-get works" test "$(ynl_nocap --dump port-get)" = 0
t "without capabilities: port-set fails" \
	test "$(ynl_nocap --do port-set --json '{"port-index": 0, "port-admin-state": "up"}')" = 1
t "without capabilities: Operation not permitted" grep -q 'Operation not permitted' $out

echo "1..$n"
exit $fail
