#!/bin/sh
# SPDX-License-Identifier: MIT
#
# icnctl fabric management commands in the guest (TAP): switch reset,
# port set speed/partition, port reset, port inject, stats errors and
# watch, route show/set/del, partition show/add/set/del, monitor per
# group.  Each change is checked through show (text and JSON parsed back
# with icnctl-json), through a concurrent "icnctl -j monitor", refused
# without CAP_NET_ADMIN, and a batch names the failing line.
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
t() { name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
show_err() { sed 's/^/# /' $err; }

cards=$(ls /dev/accel 2>/dev/null | grep -c '^accel')
out=/tmp/icnctl-m.out
err=/tmp/icnctl-m.err
rc() { "$@" >$out 2>$err; echo $?; }
J=icnctl-json

if [ "$cards" -lt 2 ]; then
	skip "fabric management" "needs two cards"
	echo "1..$n"
	exit 0
fi

# ---- switch reset: the power-on configuration ----
t "switch reset exits 0" test "$(rc icnctl switch reset)" = 0
t "switch reset takes no argument" test "$(rc icnctl switch reset now)" = 2

# ---- route ----
t "route show exits 0" test "$(rc icnctl route show)" = 0
t "route show: 64 entries" test "$(wc -l <$out)" = 64
t "route show: default line format" grep -qx 'route 5 egress 5 state enabled' $out
t "route JSON: 64 entries" test "$(icnctl -j route show | $J length)" = 64
t "route JSON: entry 7 egress" test "$(icnctl -j route show 7 | $J 0 egress)" = 7
t "route JSON: entry 7 enabled" test "$(icnctl -j route show 7 | $J 0 enabled)" = true
t "route set 1 egress 0 exits 0" test "$(rc icnctl route set 1 egress 0)" = 0
t "route 1 now leaves on port 0" test "$(icnctl -j route show 1 | $J 0 egress)" = 0
t "route del 1 exits 0" test "$(rc icnctl route del 1)" = 0
t "route 1 disabled, egress kept" test "$(icnctl route show 1)" = "route 1 egress 0 state disabled"
t "route set ... state disabled" test "$(rc icnctl route set 1 egress 1 state dis)" = 0
t "route 1: egress 1, still disabled" test "$(icnctl route show 1)" = "route 1 egress 1 state disabled"
t "route set 1 egress 1 enables it" test "$(rc icnctl route set 1 egress 1)" = 0
t "route 1 enabled" test "$(icnctl -j route show 1 | $J 0 enabled)" = true
t "route show 64: exit 2" test "$(rc icnctl route show 64)" = 2
t "route show 64: names the range" grep -q 'fabric id "64" is not in the range 0..63' $err
t "route set 1 egress 64: exit 2" test "$(rc icnctl route set 1 egress 64)" = 2
t "route set without egress: exit 2" test "$(rc icnctl route set 1)" = 2
t "route set bad state: exit 2" test "$(rc icnctl route set 1 egress 1 state maybe)" = 2
t "route del without id: exit 2" test "$(rc icnctl route del)" = 2

# ---- partition ----
t "partition show exits 0" test "$(rc icnctl partition show)" = 0
t "partition show: only 0, every port" test "$(cat $out)" = "partition 0 ports 0-63"
t "partition JSON: one partition" test "$(icnctl -j partition show | $J length)" = 1
for l in "" "," "1,,2" "1," ",1"; do
	t "partition add 3 ports '$l': exit 2" test "$(rc icnctl partition add 3 ports "$l")" = 2
	t "partition add 3 ports '$l': bad port list" grep -q 'bad port list' $err
done
t "partition 3 not created by the refused lists" test "$(rc icnctl partition show 3)" = 1
t "partition add 3 ports 1 exits 0" test "$(rc icnctl partition add 3 ports 1)" = 0
t "partition 3 holds port 1" test "$(icnctl partition show 3)" = "partition 3 ports 1"
t "partition 0 lost port 1" test "$(icnctl partition show 0)" = "partition 0 ports 0,2-63"
t "partition JSON: ports of 3" test "$(icnctl -j partition show 3 | $J 0 ports)" = 1
t "port 1 shows partition 3" test "$(icnctl -j port show 1 | $J 0 partition)" = 3
t "partition add 3 again: exit 1" test "$(rc icnctl partition add 3)" = 1
t "partition add 3 again: exists" grep -q 'the partition exists already' $err
show_err
t "partition add 4 (empty) exits 0" test "$(rc icnctl partition add 4)" = 0
t "partition 4 exists, empty" test "$(icnctl partition show 4)" = "partition 4 ports none"
t "partition set 3 ports 0,1 exits 0" test "$(rc icnctl partition set 3 ports 0,1)" = 0
t "partition 3 holds ports 0 and 1" test "$(icnctl -j partition show 3 | $J 0 ports)" = 0,1
t "partition set 3 ports 1: port 0 back in 0" sh -c \
	"icnctl partition set 3 ports 1 && test \"\$(icnctl -j port show 0 | $J 0 partition)\" = 0"
t "partition set 0: exit 1" test "$(rc icnctl partition set 0 ports 1)" = 1
t "partition set 0: says why" grep -q 'partition 0' $err
show_err
t "partition set 9 (no such): exit 1" test "$(rc icnctl partition set 9 ports 1)" = 1
t "partition set 9: no such partition" grep -q 'no such partition' $err
t "partition set without ports: exit 2" test "$(rc icnctl partition set 3)" = 2
t "partition add bad list: exit 2" test "$(rc icnctl partition add 5 ports 1-x)" = 2
t "partition add port 64: exit 2" test "$(rc icnctl partition add 5 ports 64)" = 2
t "partition show 64: exit 2" test "$(rc icnctl partition show 64)" = 2
t "partition del 3 exits 0" test "$(rc icnctl partition del 3)" = 0
t "port 1 back in partition 0" test "$(icnctl -j port show 1 | $J 0 partition)" = 0
t "partition show 3: gone, exit 1" test "$(rc icnctl partition show 3)" = 1
t "partition show 3: no such partition" grep -q 'no such partition' $err
t "partition del 0: exit 1" test "$(rc icnctl partition del 0)" = 1
t "partition del 4 exits 0" test "$(rc icnctl partition del 4)" = 0

# ---- port set speed and partition ----
t "port set 1 speed 100: exit 1" test "$(rc icnctl port set 1 speed 100)" = 1
t "port set 1 speed 100: names the valid speed" grep -q '6400000 Mbit/s' $err
show_err
t "port set 1 speed 6400Gbps exits 0" test "$(rc icnctl port set 1 speed 6400Gbps)" = 0
t "port set 1 speed 6400000 exits 0" test "$(rc icnctl port set 1 speed 6400000)" = 0
t "port set 1 speed fast: exit 2" test "$(rc icnctl port set 1 speed fast)" = 2
t "port set 1 partition 2 exits 0" test "$(rc icnctl port set 1 partition 2)" = 0
t "partition 2 now exists with port 1" test "$(icnctl partition show 2)" = "partition 2 ports 1"
t "port set 1 partition 64: exit 2" test "$(rc icnctl port set 1 partition 64)" = 2
t "port set 1 partition 0 state up" test "$(rc icnctl port set 1 partition 0 state up)" = 0
t "port set 1 bogus 3: exit 2" test "$(rc icnctl port set 1 bogus 3)" = 2

# ---- port reset, port inject, stats errors ----
ld=$(icnctl -j -s port show 1 | $J 0 link_down_count)
t "port reset 1 exits 0" test "$(rc icnctl port reset 1)" = 0
t "port reset: one more link-down" test "$(icnctl -j -s port show 1 | $J 0 link_down_count)" = $((ld + 1))
t "port reset: link up again" test "$(icnctl -j port show 1 | $J 0 oper)" = up
t "port reset without port: exit 2" test "$(rc icnctl port reset)" = 2
t "port inject 1 drop 3 exits 0" test "$(rc icnctl port inject 1 drop 3)" = 0
t "port 1: 3 drops pending" test "$(icnctl -j port show 1 | $J 0 inject_drops)" = 3
t "stats errors exits 0" test "$(rc icnctl stats errors)" = 0
t "stats errors: a line per card" test "$(wc -l <$out)" -ge "$cards"
t "stats errors: port 1 line" grep -q '^port 1 oper up errors [0-9]* link-down [0-9]* inject-drops 3$' $out
t "stats errors JSON" test "$(icnctl -j stats errors 1 | $J 0 inject_drops)" = 3
t "port inject 1 clear exits 0" test "$(rc icnctl port inject 1 clear)" = 0
t "port 1: no drop pending" test "$(icnctl -j stats errors 1 | $J 0 inject_drops)" = 0
t "port inject drop without count: exit 2" test "$(rc icnctl port inject 1 drop)" = 2
t "port inject drop 0: exit 2" test "$(rc icnctl port inject 1 drop 0)" = 2
t "port inject clear 5: exit 2" test "$(rc icnctl port inject 1 clear 5)" = 2
t "port inject bogus: exit 2" test "$(rc icnctl port inject 1 bogus)" = 2
t "port inject 1 link-error exits 0" test "$(rc icnctl port inject 1 link-error)" = 0
t "port 1 oper error" test "$(icnctl -j port show 1 | $J 0 oper)" = error
t "link-error on a port in error: exit 1" test "$(rc icnctl port inject 1 link-error)" = 1
t "link-error: says the link is not up" grep -q 'not up' $err
show_err
t "port reset 1 retrains" sh -c "icnctl port reset 1 && test \"\$(icnctl -j port show 1 | $J 0 oper)\" = up"

# ---- a port reset of an up port is announced: down, then up ----
mon=/tmp/icnctl-m-mon
icnctl -j monitor config count 2 >$mon 2>&1 &
pid=$!
(sleep 20; kill $pid 2>/dev/null) &
killer=$!
sleep 3
icnctl port reset 1
wait $pid
r=$?
kill $killer 2>/dev/null
sed 's/^/# reset: /' $mon
t "port reset announced: 2 events" test "$r" = 0
t "port reset announced: port 1 down" test "$($J line 0 event <$mon)/$($J line 0 port <$mon)/$($J line 0 oper <$mon)" = port/1/down
t "port reset announced: port 1 up" test "$($J line 1 event <$mon)/$($J line 1 port <$mon)/$($J line 1 oper <$mon)" = port/1/up

# ---- stats watch ----
t "stats watch 0 count 2 exits 0" test "$(rc icnctl -i 1 stats watch 0 count 2)" = 0
t "stats watch: two rounds" test "$(wc -l <$out)" = 2
t "stats watch: line format" grep -q '^port 0 tx [0-9]* rx [0-9]* .* tx-rate [0-9]* rx-rate [0-9]*$' $out
t "stats watch -j: one object per line" test "$(icnctl -j stats watch 0 interval 1 count 2 | $J lines)" = 2
t "stats watch -j: port member" test "$(icnctl -j stats watch 1 count 1 | $J line 0 port)" = 1
t "stats watch: all cards per round" test "$(icnctl stats watch count 1 | wc -l)" = "$cards"
t "stats watch count 0: exit 2" test "$(rc icnctl stats watch count 0)" = 2
t "-i 0: exit 2" test "$(rc icnctl -i 0 stats watch)" = 2

# ---- monitor per group, concurrent with the changes ----
mon=/tmp/icnctl-m-mon
monerr=/tmp/icnctl-m-monerr
icnctl -j monitor config count 4 >$mon 2>&1 &
pid=$!
icnctl -j monitor errors count 2 >$monerr 2>&1 &
pid2=$!
(sleep 60; kill $pid $pid2 2>/dev/null) &
killer=$!
sleep 3
icnctl route set 2 egress 3		# config: route
icnctl partition add 6			# config: partition (empty)
icnctl port set 1 partition 6		# config: port, partition 6 (and 0)
icnctl port inject 1 link-error		# errors: injected, link-error
wait $pid
r=$?
wait $pid2
r2=$?
kill $killer 2>/dev/null
sed 's/^/# config: /' $mon
sed 's/^/# errors: /' $monerr
t "monitor config: ended after 4 events" test "$r" = 0
t "monitor config: 4 JSON lines" test "$($J lines <$mon)" = 4
t "monitor config: route event first" test "$($J line 0 event <$mon)" = route
t "monitor config: route 2 egress 3" test "$($J line 0 fabric_id <$mon)/$($J line 0 egress <$mon)" = 2/3
t "monitor config: partition 6 added" test "$($J line 1 event <$mon)/$($J line 1 partition <$mon)" = partition/6
t "monitor config: port 1 moved" test "$($J line 2 event <$mon)/$($J line 2 partition <$mon)" = port/6
t "monitor config: group member" test "$($J line 0 group <$mon)" = config
t "monitor errors: ended after 2 events" test "$r2" = 0
t "monitor errors: injection announced" test "$($J line 0 error <$monerr)/$($J line 0 inject <$monerr)" = injected/link-error
t "monitor errors: link error announced" test "$($J line 1 error <$monerr)/$($J line 1 port <$monerr)" = link-error/1
t "monitor errors: group member" test "$($J line 1 group <$monerr)" = errors
icnctl monitor errors count 1 >$mon 2>&1 &
pid=$!
(sleep 60; kill $pid 2>/dev/null) &
killer=$!
sleep 3
icnctl port inject 0 drop 2
wait $pid
kill $killer 2>/dev/null
t "monitor errors text" grep -q '^\[errors\] error injected port 0 inject drop count 2$' $mon
sed 's/^/# monitor: /' $mon
icnctl port inject 0 clear
t "monitor bogus group: exit 2" test "$(rc icnctl monitor bogus)" = 2

# ---- permission: every change refused without CAP_NET_ADMIN ----
for c in "switch reset" "port reset 0" "port inject 0 clear" "port set 0 speed 6400Gbps" \
	"port set 0 partition 0" "route set 0 egress 0" "route del 0" "partition add 9" \
	"partition set 6 ports 1" "partition del 6"; do
	icnctl-nocap icnctl $c >$out 2>$err
	r=$?
	t "no CAP_NET_ADMIN: $c exits 1" test "$r" = 1
	t "no CAP_NET_ADMIN: $c names the capability" grep -q 'need CAP_NET_ADMIN' $err
done
show_err
t "no CAP_NET_ADMIN: reads work" sh -c \
	'icnctl-nocap icnctl route show 0 >/dev/null && icnctl-nocap icnctl partition show >/dev/null && icnctl-nocap icnctl stats errors >/dev/null'
t "partition 6 untouched" test "$(icnctl partition show 6)" = "partition 6 ports 1"

# ---- batch: the failing line is named ----
b=/tmp/icnctl-m-batch
printf 'route show 0\npartition show 0\nroute set 1 egress 99\nroute show 1\n' >$b
t "batch: usage error on line 3 exits 2" test "$(rc icnctl -b $b)" = 2
t "batch: names line 3" grep -q "$b: line 3" $err
t "batch: stopped at line 3" sh -c "grep -q '^route 0 ' $out && ! grep -q '^route 1 ' $out"
printf 'route show 0\npartition add 6\nroute show 1\n' >$b
t "batch: kernel error on line 2 exits 1" test "$(rc icnctl -b $b)" = 1
t "batch: names line 2" grep -q "$b: line 2" $err
t "batch: the kernel's reason" grep -q 'exists already' $err
show_err

# ---- switch reset restores everything ----
t "switch reset exits 0" test "$(rc icnctl switch reset)" = 0
t "after reset: only partition 0, every port" test "$(icnctl partition show)" = "partition 0 ports 0-63"
t "after reset: route 2 default" test "$(icnctl route show 2)" = "route 2 egress 2 state enabled"
t "after reset: port 1 up" test "$(icnctl -j port show 1 | $J 0 oper)" = up
t "after reset: ports with a card up" test "$(icnctl -j switch info | $J 0 up_ports)" = "$cards"

echo "1..$n"
exit $fail
