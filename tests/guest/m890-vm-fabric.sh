#!/bin/sh
# SPDX-License-Identifier: MIT
#
# In-guest check of a fabric shared by several VMs, run in every VM by
# `make run VMS=N` and by the guest-2vms suite of `make check` (see
# scripts/guest-run.sh -V, which sets M890_VM, M890_VMS and M890_CARDS).
# Prints TAP: this VM's cards, every card of every VM present and up on
# the one switch as icnctl shows it, this VM's ports at their fabric ids,
# then the all-to-all across this VM's cards and its bytes on the switch's
# counters, then the all-to-all over the cards of every VM as one
# communicator (m890-a2a --fabric: each VM runs its ranks and checks what
# they received), then alltoallv, grouped send/recv and the mismatches
# every rank must refuse alike over the same cards
# (m890-lib-test-fabric_comm --vms), and EP dispatch/combine over them
# (m890-lib-test-ep_fabric --vms: each VM checks its ranks against the
# host reference; one process per card, the last VM's last rank killed
# before a dispatch).  Exits non-zero if anything failed.
#
# --leave (two VMs): the cross-VM uAPI tests (m890_xvm_test, a revoked
# window faulting in the other VM), then VM 1 leaves and VM 0 carries on.
# The admin state of port 63 (no card) is the flag between them, set
# through the shared switch: VM 0 takes it down when its checks are done;
# VM 1 waits for that, joins one more cross-VM communicator with
# m890-a2a --hold and powers off while VM 0's all-to-all on it is pending:
# VM 0's all-to-all must fail within its timeout naming a rank of VM 1 by
# fabric id.  VM 0 then sees VM 1's ports go away (present no, oper down),
# its own stay up, and runs the all-to-all again.
leave=0
[ "${1:-}" = --leave ] && leave=1

# expect_errors WHY LINE...: announce, before a test that provokes them,
# the error lines it makes the driver and the library print, so that a
# reader of the run knows they are expected.
expect_errors() {
	echo "# EXPECTED ERRORS next: $1; these lines are the test working, not failures:"
	shift
	for l in "$@"; do
		echo "#   $l"
	done
}
vm=${M890_VM:-0}
vms=${M890_VMS:-1}
cards=${M890_CARDS:-$(ls /dev/accel 2>/dev/null | grep -c '^accel')}
total=$((vms * cards))
first=$((vm * cards))
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

# ports PRED: the JSON objects of `icnctl -j port show`, one per line,
# that contain PRED.
ports() {
	sed 's/},{/}\n{/g' /tmp/ports.json | grep -F "$1"
}

nodes=$(ls /dev/accel 2>/dev/null | grep -c '^accel')
test "$nodes" = "$cards"
result $? "vm $vm: $cards accel nodes (found $nodes)"

icnctl -j port show >/tmp/ports.json
result $? "vm $vm: icnctl -j port show"
present=$(ports '"present":true' | wc -l)
test "$present" = "$total"
result $? "vm $vm: $total cards of $vms VMs present on the switch (found $present)"
up=$(ports '"present":true' | grep -c '"oper":"up"')
test "$up" = "$total"
result $? "vm $vm: their $total ports oper up (found $up)"
mine=0
for i in $(seq 0 $((cards - 1))); do
	p=$((first + i))
	ports "\"port\":$p," | grep -q "\"fabric_id\":$p[,}]" && mine=$((mine + 1))
done
test "$mine" = "$cards"
result $? "vm $vm: own cards on ports $first..$((first + cards - 1))"

echo "# == icnctl port show present (vm $vm; the ports with a card)"
icnctl port show present >/tmp/present.txt
rc=$?
sed "s/^/# /" /tmp/present.txt
listed=$(grep -c '^port ' /tmp/present.txt)
[ $rc = 0 ] && [ "$listed" = "$total" ]
result $? "vm $vm: icnctl port show present lists the $total ports with a card (found $listed)"
echo "# == m890-a2a across the $cards cards of vm $vm"
m890-a2a >/tmp/a2a.log 2>&1
rc=$?
sed 's/^/# /' /tmp/a2a.log
result $rc "vm $vm: m890-a2a on $cards cards"

icnctl -j stats show >/tmp/ports.json
tx=0
for i in $(seq 0 $((cards - 1))); do
	p=$((first + i))
	b=$(ports "\"port\":$p," | sed -n 's/.*"tx_bytes":\([0-9]*\).*/\1/p')
	tx=$((tx + ${b:-0}))
done
test "$tx" -gt 0
result $? "vm $vm: the switch counted $tx bytes sent by this VM's ports"

# The all-to-all over every card of every VM, one communicator through
# the switch; the same id and rank list in every VM.
if [ "$vms" -gt 1 ]; then
	echo "# == m890-a2a --fabric across the $total cards of $vms VMs (ranks $first..$((first + cards - 1)) here)"
	m890-a2a --fabric 0x5a1 --ranks "0-$((total - 1))" --timeout 300 >/tmp/a2a-fabric.log 2>&1
	rc=$?
	sed 's/^/# /' /tmp/a2a-fabric.log
	result $rc "vm $vm: m890-a2a --fabric over $total cards of $vms VMs, data checked"
	# alltoallv, grouped send/recv and the refusals every rank must agree
	# on, over every card of every VM (tests/lib/coll_checks.h).
	echo "# == m890-lib-test-fabric_comm --vms across the $total cards of $vms VMs"
	m890-lib-test-fabric_comm --vms 0x5a3 "0-$((total - 1))" >/tmp/coll-fabric.log 2>&1
	rc=$?
	sed 's/^/# /' /tmp/coll-fabric.log
	result $rc "vm $vm: alltoallv, grouped send/recv and refusals across $vms VMs, data checked"
	echo "# == device collectives over the $total cards of $vms VMs (m890-lib-test-dcoll --vms)"
	m890-lib-test-dcoll --vms 0x5a7 "0-$((total - 1))" >/tmp/dcoll-fabric.log 2>&1
	rc=$?
	sed 's/^/# /' /tmp/dcoll-fabric.log
	result $rc "vm $vm: allreduce, reduce-scatter, allgather, broadcast, barrier across $vms VMs, bit-exact"
	# The id every VM passes (its text form): the meeting card is VM 0's
	# first card, fabric id 0.
	echo "# == groups, unique-id communicator, deregistration over the $total cards of $vms VMs (m890-lib-test-group --vms)"
	m890-lib-test-group --vms m890-fabric:00000000000005a9:0 "0-$((total - 1))" >/tmp/group-fabric.log 2>&1
	rc=$?
	sed 's/^/# /' /tmp/group-fabric.log
	result $rc "vm $vm: a group of collectives on a communicator from a unique id across $vms VMs, bit-exact, deregistration"
	echo "# == EP dispatch/combine over the $total cards of $vms VMs (m890-lib-test-ep_fabric --vms)"
	expect_errors "the test kills the last VM's last rank before a dispatch" \
		"'[drm] *ERROR* queue Q (pid P): seqno S timed out' (several) from the queues waiting for the killed rank" \
		"'[drm] *ERROR* pid P (...) asid A: MMU fault at ADDR, ...; context stopped' from a card writing into the killed rank's vanished window (not every run)" \
		"'[drm] *ERROR* queue Q (pid P): error 5 at head H' (a fabric error) from a queue whose write to that peer failed (not every run)" \
		"'rank N, peer killed: timeout|device fault|device error: ... rank R ...' from each surviving rank, naming the killed rank R"
	m890-lib-test-ep_fabric --vms >/tmp/ep-fabric.log 2>&1
	rc=$?
	sed 's/^/# /' /tmp/ep-fabric.log
	result $rc "vm $vm: EP dispatch/combine (bf16, MXFP8, MXFP4) over $total cards of $vms VMs, bit-exact, capacity, killed peer"
fi
if [ "$leave" = 1 ] && [ "$vms" -gt 1 ]; then
	echo "# suite m890_xvm_test"
	expect_errors "m890_xvm_test accesses windows whose exports were revoked" \
		"'[drm] *ERROR* pid P (m890_xvm_test) asid A: MMU fault at ADDR, ..., write (queue Q); context stopped' in each VM (same_vm_window_faults_after_revoke_and_free)" \
		"'[drm] *ERROR* queue Q (pid P): error 5 at head H' (a fabric error) in VM 1 (other_vm_window_faults_after_revoke: the window on VM 0's revoked export)"
	m890_xvm_test
	result $? "vm $vm: m890_xvm_test (exports and windows across VMs)"
fi

# wait_for SECONDS CMD...: poll CMD every second until it succeeds.
wait_for() {
	t=$1
	shift
	while [ "$t" -gt 0 ]; do
		"$@" && return 0
		sleep 1
		t=$((t - 1))
	done
	return 1
}

# flag_down: port 63's admin state is down.
flag_down() {
	icnctl -j port show 63 | grep -q '"admin":"down"'
}

# gone PORT: no card on PORT any more and its link down.
gone() {
	icnctl -j port show "$1" | grep -q '"present":false' &&
		icnctl -j port show "$1" | grep -q '"oper":"down"'
}

if [ "$leave" = 1 ] && [ "$vms" = 2 ] && [ "$vm" = 1 ]; then
	wait_for 300 flag_down
	result $? "vm 1: vm 0 signalled through the switch (port 63 admin down)"
	# Join a communicator with vm 0, then die while its all-to-all waits.
	m890-a2a --fabric 0x5a2 --ranks "0-$((total - 1))" --timeout 300 --hold >/tmp/hold.log 2>&1 &
	wait_for 300 grep -q '^# holding' /tmp/hold.log
	rc=$?
	[ $rc = 0 ] || sed 's/^/# /' /tmp/hold.log
	result $rc "vm 1: joined communicator 0x5a2 with vm 0, powering off in its all-to-all"
	sleep 5
	echo "1..$n"
	exit $fail
fi
if [ "$leave" = 1 ] && [ "$vms" = 2 ]; then
	icnctl port set 63 state down
	result $? "vm 0: port 63 admin down, for vm 1 to see"
	t=30
	expect_errors "VM 1 powers off in the middle of this all-to-all" \
		"'[drm] *ERROR* queue Q (pid P): seqno S timed out' (several) from this VM's queues waiting for VM 1's ranks" \
		"'m890-a2a: all-to-all: ... rank R (fabric id F) ...' naming a rank of VM 1 (a timeout or a lost peer)"
	start=$(date +%s)
	m890-a2a --fabric 0x5a2 --ranks "0-$((total - 1))" --timeout $t >/tmp/a2a-dead.log 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	sed 's/^/# /' /tmp/a2a-dead.log
	test $rc = 1
	result $? "vm 0: all-to-all with vm 1 powered off mid-operation fails (status $rc)"
	named=0
	for i in $(seq $cards $((2 * cards - 1))); do
		grep -q "fabric id $i[^0-9]" /tmp/a2a-dead.log && named=1
	done
	test "$named" = 1
	result $? "vm 0: the error names a rank of vm 1 by fabric id"
	# setup (vm 1 joins after its 1 s poll) + one timeout for the collective
	test "$took" -le $((2 * t + 30))
	result $? "vm 0: the failure came within the timeout (${took}s, timeout ${t}s)"
	other=$cards
	wait_for 300 gone $other
	result $? "vm 0: vm 1 left: its port $other has no card and is down"
	left=0
	for i in $(seq $cards $((2 * cards - 1))); do
		gone "$i" && left=$((left + 1))
	done
	test "$left" = "$cards"
	result $? "vm 0: all $cards ports of vm 1 gone ($left)"
	icnctl -j port show >/tmp/ports.json
	up=$(ports '"present":true' | grep -c '"oper":"up"')
	test "$up" = "$cards"
	result $? "vm 0: its own $cards ports still up ($up)"
	m890-a2a >/tmp/a2a.log 2>&1
	rc=$?
	[ $rc = 0 ] || sed 's/^/# /' /tmp/a2a.log
	result $rc "vm 0: m890-a2a again after vm 1 left"
	icnctl port set 63 state up
	result $? "vm 0: port 63 admin up again"
fi

echo "1..$n"
exit $fail
