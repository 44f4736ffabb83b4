#!/bin/sh
# SPDX-License-Identifier: MIT
#
# icnctl fabric management in the guest (TAP): switch info, card show,
# stats show/clear against real traffic, topology show
# (text, JSON, dot) and check, monitor (a change seen by a concurrent
# "icnctl -j monitor"), batch files, version, help for every object, and
# permission errors for an unprivileged user.
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
t() { name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
show_err() { sed 's/^/# /' $err; }

cards=$(ls /dev/accel 2>/dev/null | grep -c '^accel')
out=/tmp/icnctl-f.out
err=/tmp/icnctl-f.err
rc() { "$@" >$out 2>$err; echo $?; }
J=icnctl-json

# ---- help for every object, version ----
for o in switch port card stats topology route partition monitor; do
	t "$o help exits 0" test "$(rc icnctl $o help)" = 0
	t "$o help shows usage" grep -q "icnctl $o" $out
done
t "version help exits 0" test "$(rc icnctl version help)" = 0
t "version help shows usage" grep -q "icnctl version" $out
t "version exits 0" test "$(rc icnctl version)" = 0
t "version text" grep -q '^icnctl [0-9.]* family icn family-version 1 kernel [0-9.]*$' $out
t "version: the loaded module's version is icnctl's" sh -c \
	"test \"\$(icnctl -j version | $J 0 kernel)\" = \"\$(icnctl -j version | $J 0 icnctl)\""
t "version: the module's version in sysfs (modinfo)" sh -c \
	"test \"\$(cat /sys/module/m890/version)\" = \"\$(icnctl -j version | $J 0 icnctl)\""
t "version JSON" test "$(icnctl -j version | $J 0 family)" = icn
t "ambiguous object exits 2" test "$(rc icnctl s show)" = 2
t "ambiguous object names both" grep -q "switch stats" $err
t "unknown option exits 2" test "$(rc icnctl -Q port show)" = 2

# ---- switch ----
t "switch info exits 0" test "$(rc icnctl switch info)" = 0
t "switch info text" grep -q "ports 64 version 1.0 cabled $cards up $cards local-cards $cards\$" $out
t "switch info JSON: cabled_ports" test "$(icnctl -j switch info | $J 0 cabled_ports)" = "$cards"
t "switch info JSON: local_cards" test "$(icnctl -j switch info | $J 0 local_cards)" = "$cards"

# ---- card ----
t "card show exits 0" test "$(rc icnctl card show)" = 0
t "card show: one line per card" test "$(wc -l <$out)" = "$cards"
t "card show: line format" grep -qE '^card accel[0-9]+ fabric-id 0 port 0 hbm [0-9]+MiB bus [0-9a-f]{4}:' $out
t "card JSON: $cards cards" test "$(icnctl -j card show | $J length)" = "$cards"
last=$((cards - 1))
t "card show $last: its fabric id" test "$(icnctl -j card show $last | $J 0 fabric_id)" = $last
t "card JSON: HBM in bytes" test "$(icnctl -j card show 0 | $J 0 hbm_bytes)" -ge 1048576
dev0=$(icnctl -j card show 0 | $J 0 card)
t "card 0 is the card on port 0" test "$(icnctl -j port show 0 | $J 0 card)" = "$dev0"
if [ "$cards" -lt 64 ]; then
	t "card show 63 (no such card) exits 1" test "$(rc icnctl card show 63)" = 1
	t "card show 63: kernel message" grep -q 'no card of this system has this fabric id' $err
	show_err
fi
t "card show 64 exits 2" test "$(rc icnctl card show 64)" = 2
t "card show 64: names the range" grep -q 'fabric id "64" is not in the range 0..63' $err
show_err

# ---- port -s, stats ----
t "port show without -s: no counters" sh -c "! icnctl port show 0 | grep -q ' tx '"
t "port show -s: counters" sh -c "icnctl -s port show 0 | grep -q ' tx [0-9]* rx [0-9]* tx-packets '"
t "port show -s JSON: tx_bytes" sh -c "icnctl -s -j port show 0 | $J 0 tx_bytes >/dev/null"
t "stats show exits 0" test "$(rc icnctl stats show)" = 0
t "stats show: 64 lines" test "$(wc -l <$out)" = 64
t "stats show: line format" grep -q '^port 0 tx [0-9]* rx [0-9]* tx-packets [0-9]* rx-packets [0-9]* errors [0-9]* link-down [0-9]*$' $out
t "stats JSON: 64 ports" test "$(icnctl -j stats show | $J length)" = 64
if [ "$cards" -ge 2 ]; then
	m890-a2a >/dev/null 2>&1
	t "traffic counted on port 0" test "$(icnctl -j stats show 0 | $J 0 tx_bytes)" -gt 0
	t "traffic counted on port 1" test "$(icnctl -j stats show 1 | $J 0 rx_bytes)" -gt 0
	t "stats clear 0 exits 0" test "$(rc icnctl stats clear 0)" = 0
	t "port 0 counters zero" test "$(icnctl -j stats show 0 | $J 0 tx_bytes)" = 0
	t "port 1 counters kept" test "$(icnctl -j stats show 1 | $J 0 rx_bytes)" -gt 0
	t "stats clear 1 exits 0" test "$(rc icnctl stats clear 1)" = 0
	t "port 1 counters zero" test "$(icnctl -j stats show 1 | $J 0 rx_bytes)" = 0
	m890-a2a >/dev/null 2>&1
	t "stats clear (all) exits 0" test "$(rc icnctl stats clear)" = 0
	t "all counters zero" sh -c "icnctl stats show | grep -v ' tx 0 rx 0 tx-packets 0 rx-packets 0 errors 0 ' | (! grep .)"
else
	skip "traffic counters" "needs two cards"
fi
t "stats clear 64 exits 2" test "$(rc icnctl stats clear 64)" = 2
show_err

# ---- topology ----
t "topology show exits 0" test "$(rc icnctl topology show)" = 0
t "topology show: a line per card" test "$(wc -l <$out)" = "$cards"
t "topology show: line format" grep -q '^port 0 fabric-id 0 card accel[0-9]* oper up$' $out
t "topology JSON" test "$(icnctl -j topology show | $J length)" = "$cards"
t "topology show dot exits 0" test "$(rc icnctl topology show dot)" = 0
t "dot: a graph" sh -c "head -1 $out | grep -qx 'graph icn {' && tail -1 $out | grep -qx '}'"
t "dot: an edge per card" test "$(grep -c '"switch" -- "card' $out)" = "$cards"
t "topology show -d is dot" sh -c "icnctl topology show -d | cmp -s - $out"
exp=/tmp/icnctl-cabling
: >$exp
echo "# expected cabling" >>$exp
i=0
while [ $i -lt "$cards" ]; do echo "port $i fabric-id $i" >>$exp; i=$((i + 1)); done
t "topology check: match exits 0" test "$(rc icnctl topology check $exp)" = 0
t "topology check: says it matches" grep -q 'topology matches: 0 mismatches' $out
echo "port 63 fabric-id 63" >>$exp
if [ "$cards" -lt 64 ]; then
	t "topology check: missing card exits 1" test "$(rc icnctl topology check $exp)" = 1
	t "topology check: names the port" grep -q '^port 63: expected fabric-id 63, found none$' $out
	t "topology check -j: mismatch listed" test "$(icnctl -j topology check $exp | $J $cards match)" = false
fi
printf 'port 0 fabric-id 0\nport zero\n' >$exp
t "topology check: malformed line exits 2" test "$(rc icnctl topology check $exp)" = 2
t "topology check: names line 2" grep -q 'line 2' $err
t "topology check: missing file exits 1" test "$(rc icnctl topology check /nonexistent)" = 1

# ---- port show present ----
t "port show present: one line per card" test "$(icnctl port show present | wc -l)" = "$cards"
t "port show pres (a prefix): the same" test "$(icnctl port show pres | wc -l)" = "$cards"
t "port show present -j: every object has a card" test "$(icnctl -j port show present | grep -o '"present":true' | wc -l)" = "$cards"
t "stats show present: one line per card" test "$(icnctl stats show present | wc -l)" = "$cards"
t "port show presently exits 2" test "$(rc icnctl port show presently)" = 2

# ---- monitor ----
if [ "$cards" -ge 2 ]; then
	mon=/tmp/icnctl-mon
	icnctl -j monitor config count 3 >$mon 2>&1 &
	pid=$!
	(sleep 60; kill $pid 2>/dev/null) &
	killer=$!
	sleep 3
	icnctl port set 1 state down
	icnctl port set 1 state up
	icnctl stats clear 1
	wait $pid
	r=$?
	kill $killer 2>/dev/null
	sed 's/^/# monitor: /' $mon
	t "monitor -j ended after 3 events" test "$r" = 0
	t "monitor -j: 3 lines, each a JSON object" test "$($J lines <$mon)" = 3
	t "monitor -j: port 1 went down" test "$($J line 0 oper <$mon)/$($J line 0 port <$mon)" = down/1
	t "monitor -j: port 1 came up" test "$($J line 1 oper <$mon)" = up
	t "monitor -j: group config" test "$($J line 0 group <$mon)" = config
	t "monitor -j: event port" test "$($J line 0 event <$mon)" = port
	t "monitor -j: clear announced, counters zero" test "$($J line 2 tx_bytes <$mon)" = 0
	icnctl monitor count 1 >$mon 2>&1 &
	pid=$!
	(sleep 60; kill $pid 2>/dev/null) &
	killer=$!
	sleep 3
	su user -c 'icnctl port set 1 state down' 2>/dev/null	# refused: no event
	icnctl port set 1 state down
	wait $pid
	kill $killer 2>/dev/null
	sed 's/^/# monitor: /' $mon
	t "monitor text: one line, the root's change" grep -q '^\[config\] port 1 admin down oper down ' $mon
	t "monitor text: one line only" test "$(wc -l <$mon)" = 1
	icnctl port set 1 state up
	t "port 1 up again" test "$(icnctl -j port show 1 | $J 0 oper)" = up
	# A reader that goes away after the first event: monitor must end
	# then, not only at its next write (which would need a second event).
	(icnctl -j monitor config | head -n 1 >$mon; echo done >>$mon) &
	pid=$!
	sleep 3
	icnctl port set 1 state down
	n=0
	while ! grep -q '^done' $mon 2>/dev/null && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	t "monitor | head -n 1: monitor ends once its reader is gone, after one event" grep -q '^done' $mon
	kill $pid 2>/dev/null
	pkill -f 'icnctl -j monitor config' 2>/dev/null
	icnctl port set 1 state up
else
	skip "monitor" "needs two cards"
fi
t "monitor bogus group exits 2" test "$(rc icnctl monitor bogus)" = 2
t "monitor count 0 exits 2" test "$(rc icnctl monitor count 0)" = 2

# ---- batch ----
b=/tmp/icnctl-batch
printf '# a batch\nswitch show\n\nport show 0\ncard show 0\n' >$b
t "batch exits 0" test "$(rc icnctl -b $b)" = 0
t "batch: every command ran" sh -c "grep -q '^switch ' $out && grep -q '^port 0 ' $out && grep -q '^card ' $out"
t "batch -j: one array per command" test "$(icnctl -j -b $b | wc -l)" = 3
printf 'switch show\nport show 0\nport bogus\nport show 1\n' >$b
t "batch with a bad line 3 exits 2" test "$(rc icnctl -b $b)" = 2
t "batch: error names line 3" grep -q "$b: line 3" $err
t "batch: stopped at line 3" sh -c "! grep -q '^port 1 ' $out && grep -q '^port 0 ' $out"
show_err
printf 'port show 0\npartition show 63\n' >$b
t "batch with a failing line 2 exits 1" test "$(rc icnctl -b $b)" = 1
t "batch: failure names line 2" grep -q "$b: line 2" $err
printf 'port "show\n' >$b
t "batch: unclosed quote exits 2" test "$(rc icnctl -b $b)" = 2
t "batch from stdin" sh -c "echo 'switch show' | icnctl -b - | grep -q '^switch '"
t "batch: missing file exits 1" test "$(rc icnctl -b /nonexistent)" = 1
t "batch: a directory exits 1" test "$(rc icnctl -b /tmp)" = 1
t "batch: a directory names the cause" grep -q 'cannot read batch file /tmp: Is a directory' $err

# ---- unprivileged user ----
if id user >/dev/null 2>&1 && su user -c 'icnctl -V' >/dev/null 2>&1; then
	for c in "stats clear" "stats clear 0" "port reset 0" "port set 1 state down"; do
		su user -c "icnctl $c" >$out 2>$err
		r=$?
		t "unprivileged $c exits 1" test "$r" = 1
		t "unprivileged $c: need CAP_NET_ADMIN" grep -q 'need CAP_NET_ADMIN' $err
	done
	show_err
	t "unprivileged card show works" su user -c 'icnctl card show >/dev/null'
	t "unprivileged topology show works" su user -c 'icnctl topology show >/dev/null'
	t "unprivileged batch names the line" sh -c \
		"printf 'port show 0\nstats clear\n' >$b; chmod 644 $b; su user -c 'icnctl -b $b' 2>&1 | grep -q 'line 2'"
else
	skip "unprivileged checks" "cannot run icnctl as user 'user'"
fi

echo "1..$n"
exit $fail
