#!/bin/sh
# SPDX-License-Identifier: MIT
#
# In-guest checks of a whole supernode in one guest, run by `make check`
# (suite guest-64cards) as the guest's command:
#   m890-supernode-tests [CARDS]
# Every card probed and present and up on the switch, the all-to-all
# over every card with every block checked, the collective tests
# (all-to-all, alltoallv, grouped send/recv) and the EP tests
# (dispatch/combine in bf16, MXFP8 and MXFP4, bit-exact against the host
# reference), with every rank in one process and with one process per
# card, EP with routing on the card (one process, and one process per
# card), the device collectives and groups, one MoE layer (m890-moe,
# 4 tokens per card, bit-exact against the host's layer from the inputs),
# then ep_perf twice with its data checked and its modelled times
# (TIMESTAMP events) held to its formula: routing on the host at the
# Kimi-K3 decode shape within 1%, routing on the card at 32 tokens per
# rank within 2.5% (its formula is one 50 ns fetch short, 1.9% of the
# 2.6 us its dispatch takes on the card's clock).
# Prints TAP; exits non-zero if anything failed.
cards=${1:-64}
n=0
fail=0

result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		fail=1
		echo "not ok $n - $2"
	fi
}

# suite NAME CMD...: a program that prints its own TAP lines.
suite() {
	echo "# suite $1"
	shift
	"$@"
	rc=$?
	[ $rc = 0 ] || { echo "# $1 exited with status $rc"; fail=1; }
}

nodes=$(ls /dev/accel 2>/dev/null | grep -c '^accel')
test "$nodes" = "$cards"
result $? "$cards accel nodes (found $nodes)"

icnctl -j port show >/tmp/ports.json
result $? "icnctl -j port show"
present=$(sed 's/},{/}\n{/g' /tmp/ports.json | grep -c '"present":true')
up=$(sed 's/},{/}\n{/g' /tmp/ports.json | grep '"present":true' | grep -c '"oper":"up"')
test "$present" = "$cards"
result $? "$cards ports present on the switch (found $present)"
test "$up" = "$cards"
result $? "$cards ports oper up (found $up)"

m890-a2a >/tmp/a2a.log 2>&1
rc=$?
sed 's/^/# /' /tmp/a2a.log | tail -n 4
blocks=$((cards * cards))
test $rc = 0 && grep -q "OK: all $blocks blocks verified" /tmp/a2a.log
result $? "m890-a2a on $cards cards: all $blocks blocks verified"

suite m890-lib-test-comm m890-lib-test-comm
suite m890-lib-test-ep m890-lib-test-ep
# The same with one process per card: 64 processes on the guest's vCPUs.
suite m890-lib-test-mproc m890-lib-test-mproc
suite m890-lib-test-ep_mproc m890-lib-test-ep_mproc
# EP with routing on the card (spec 1.1): dispatch and combine bit-exact.
suite m890-lib-test-ep_dev m890-lib-test-ep_dev
# ... and with one process per card (64 processes): bit-exact per rank,
# objects created and destroyed in turn, a killed peer named.
suite m890-lib-test-ep_dev_mproc m890-lib-test-ep_dev_mproc
# The device collectives, both kinds (64 ranks in one process, then 64 processes).
suite m890-lib-test-dcoll m890-lib-test-dcoll
suite m890-lib-test-group m890-lib-test-group

# One MoE layer on every card, end to end (router, dispatch, MXFP4
# expert GEMMs, combine), at 4 tokens per card to keep it short.
m890-moe -t 4 >/tmp/moe.log 2>&1
rc=$?
sed 's/^/# /' /tmp/moe.log
test $rc = 0 && grep -q '^OK:' /tmp/moe.log
result $? "m890-moe -t 4 on $cards cards: the MoE layer equals the host's from the inputs"

# The K3 decode step, measured: one warm-up and one timed iteration
# suffice (modelled time is deterministic), -A 1 fails a measurement
# that strays from the formula by more than 1%.  Routing on the host at
# the full shape; routing on the card (spec 1.1) at 32 tokens per rank,
# whose receive areas fit the suite's 128 MiB cards (the full shape's
# need about 180 MiB per card, measured by make bench).  On the card the
# formula is one 50 ns packet fetch short of the measurement in some
# shapes (Documentation/performance.rst), 1.9% of this short dispatch:
# it is held to 2.5%.
ep_perf -n 1 -w 1 -A 1 -m host >/tmp/ep.log 2>&1
rc=$?
sed 's/^/# /' /tmp/ep.log
test $rc = 0 && grep -q '#wrong 0' /tmp/ep.log
result $? "ep_perf -m host, Kimi-K3 decode on $cards cards: data right, measured modelled time within 1% of the formula"
ep_perf -n 1 -w 1 -A 2.5 -m dev -t 32 >/tmp/ep.log 2>&1
rc=$?
sed 's/^/# /' /tmp/ep.log
test $rc = 0 && grep -q '#wrong 0' /tmp/ep.log
result $? "ep_perf -m dev -t 32, Kimi-K3 layer on $cards cards: data right, measured modelled time within 2.5% of the formula"

echo "1..$n"
exit $fail
