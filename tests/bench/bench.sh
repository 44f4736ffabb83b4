#!/bin/bash
# SPDX-License-Identifier: MIT
#
# `make bench`: all-to-all on the emulated cards (a2a_perf) side by side
# with Open MPI's MPI_Alltoall on the host (mpi_a2a_perf) and the host's
# memcpy bandwidth with as many threads as it has cores (memcpy_bw -t),
# each run BENCH_RUNS times, then (in the first repeat's guest) the EP
# dispatch/combine figures (ep_perf), the device collectives (the four
# coll_perf tools) and one MoE layer (m890-moe).  Prints one table,
# writes everything to build/bench/:
#   memcpy.R.txt mpi.R.txt guest.R.txt a2a.R.txt   raw outputs of repeat R
#   alltoall.txt            the table (alltoall.awk): min / median / max, ratios
#   busbw.png               busbw against bytes per peer (busbw.sh, gnuplot)
#   ep.txt                  ep_perf's figures (in the first repeat's guest)
#   coll.txt                allreduce_perf, allgather_perf, reduce_scatter_perf,
#                           broadcast_perf (the same guest)
#   moe.txt                 m890-moe (the same guest)
#   a2a64.txt ep64.txt moe64.txt   the same on 64 cards in one guest
#   boot.txt                boot-to-command time, 8 and 64 cards
#
# Environment: QEMU, KERNEL, INITRD (as for guest-run.sh); CARDS, HBM_MB,
# GUEST_TIMEOUT; A2A_ARGS (a2a_perf's options, sizes per rank in all, as
# nccl-tests) and EP_ARGS (ep_perf options); COLL_ARGS (the four
# coll_perf tools' options, a short sweep by default), MOE8_ARGS
# (m890-moe on CARDS cards, its defaults by default); BENCH_RUNS
# (repeats of the whole sweep, default 3), MEMCPY_THREADS (default: the
# host's cores, at most CARDS); A2A64_ARGS (a2a_perf on 64 cards),
# MOE_ARGS (m890-moe on 64 cards), BENCH_SUPERNODE=0 (skip the 64-card
# run), BOOT_RUNS (boots per count; 0 skips them).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/bench
mkdir -p "$out" "$top/build/logs"
cards=${CARDS:-8}
a2a_args=${A2A_ARGS:--b $((cards))K -e $((64 * cards))M -f 4 -n 5 -w 1 -c 1}
ep_args=${EP_ARGS:--n 3 -w 1}
coll_args=${COLL_ARGS:--b 64K -e 4M -f 4 -n 3 -w 1 -c 1}
coll_tools="allreduce_perf allgather_perf reduce_scatter_perf broadcast_perf"
moe8_args=${MOE8_ARGS:-}
moe_args=${MOE_ARGS:--t 8}
a2a64_args=${A2A64_ARGS:--b 64K -e 64M -f 4 -n 3 -w 1 -c 1}
boot_runs=${BOOT_RUNS:-3}
runs=${BENCH_RUNS:-3}
threads=${MEMCPY_THREADS:-$(nproc)}
for v in "BENCH_RUNS=$runs" "MEMCPY_THREADS=$threads"; do
	case ${v#*=} in
	'' | *[!0-9]* | 0*) echo "bench: ${v%%=*} must be a positive number" >&2; exit 2 ;;
	esac
done
[ "$threads" -gt "$cards" ] && threads=$cards

# section NAME FILE [LINES]: what a guest printed after its '@@ NAME' line,
# up to the next '@@ ' line: the table lines ('#' and two spaces) or those
# matching the regular expression LINES.
section() {
	awk -v s="@@ $1" -v re="${3:-^(#|  )}" '{ l = $0; sub(/\r$/, "", l) }
		l == s { p = 1; next } /^@@ / { p = 0 } p && $0 ~ re' "$2"
}
moe_lines='^(m890-moe|modelled|overlap|#|OK|FAIL)'

# The size options of a2a_args, for memcpy_bw (sizes are what one rank
# sends in total, for all three programs).
sizes=$(echo "$a2a_args" |
	grep -oE -- '(-[befi] *|--(minbytes|maxbytes|stepfactor|stepbytes)[ =])[0-9]+[KkMmGg]?' |
	tr ' \n' '= ' | sed 's/^\(-[befi]\)=*/\1/; s/ \(-[befi]\)=*/ \1/g')

# The three programs, one after the other (they must not share the CPU),
# and the whole sequence BENCH_RUNS times, so that each size has as many
# figures of each and the host's load changes them alike.  The table's
# ratios are between the medians of this one invocation.
rm -f "$out"/memcpy.*.txt "$out"/mpi.*.txt "$out"/guest.*.txt "$out"/a2a.*.txt
mpi_rc=0 guest_rc=0 loads=
for ((r = 1; r <= runs; r++)); do
	loads="$loads $(cut -d' ' -f1 /proc/loadavg)"
	echo "== repeat $r of $runs (load $(cut -d' ' -f1-3 /proc/loadavg))"
	echo "== host memcpy bandwidth, $threads threads (the limit)"
	"$top/build/bench/memcpy_bw" -t "$threads" $sizes | tee "$out/memcpy.$r.txt" || exit 1

	echo "== Open MPI MPI_Alltoall on the host, $cards processes"
	mpirun --allow-run-as-root --oversubscribe -np "$cards" --mca btl self,vader \
		--mca mpi_yield_when_idle 1 \
		"$top/build/bench/mpi_a2a_perf" $a2a_args | tee "$out/mpi.$r.txt"
	[ "${PIPESTATUS[0]}" = 0 ] || mpi_rc=1

	# ep_perf, the collectives (a short sweep) and m890-moe in the first
	# repeat's guest only: their figures are modelled (the wall columns
	# are the emulator's, as a2a_perf's).  The guest's status is
	# a2a_perf's (wrong data: 1), or 1 when one of the others failed.
	cmd="echo '@@ a2a_perf'; a2a_perf $a2a_args; rc=\$?"
	if [ "$r" = 1 ]; then
		cmd="$cmd; echo '@@ ep_perf'; ep_perf $ep_args || rc=1"
		for t in $coll_tools; do
			cmd="$cmd; echo '@@ $t'; $t $coll_args || rc=1"
		done
		cmd="$cmd; echo '@@ m890-moe'; m890-moe $moe8_args || rc=1"
	fi
	cmd="$cmd; exit \$rc"
	echo "== libm890 on $cards emulated cards (guest console: build/logs/bench.$r.log)"
	"$top/scripts/guest-run.sh" -n "$cards" -m "${HBM_MB:-2048}" -t "${GUEST_TIMEOUT:-3600}" \
		-l "$top/build/logs/bench.$r.log" -- "$cmd" >"$out/guest.$r.txt" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		echo "bench: the guest run of repeat $r failed (status $rc):" >&2
		tail -5 "$out/guest.$r.txt" >&2
		guest_rc=1
	fi
	section a2a_perf "$out/guest.$r.txt" >"$out/a2a.$r.txt"
	if [ "$r" = 1 ]; then
		section ep_perf "$out/guest.$r.txt" >"$out/ep.txt"
		for t in $coll_tools; do
			section "$t" "$out/guest.$r.txt"
		done >"$out/coll.txt"
		section m890-moe "$out/guest.$r.txt" "$moe_lines" >"$out/moe.txt"
	fi
	cat "$out/a2a.$r.txt"
done

# One row per size, the repeats joined (tests/bench/alltoall.awk).
awk -v n="$cards" -v runs="$runs" -v thr="$threads" -v loads="$loads" \
	-f "$top/tests/bench/alltoall.awk" "$out"/memcpy.*.txt "$out"/mpi.*.txt "$out"/a2a.*.txt \
	>"$out/alltoall.txt"

echo
echo "== side by side ($out/alltoall.txt)"
cat "$out/alltoall.txt"
echo
echo "== EP dispatch/combine ($out/ep.txt)"
cat "$out/ep.txt"
echo
echo "== device collectives on $cards cards ($out/coll.txt)"
cat "$out/coll.txt"
echo
echo "== one MoE layer on $cards cards, and the Kimi-K3 decode step projected ($out/moe.txt)"
cat "$out/moe.txt"

"$top/tests/bench/busbw.sh" "$out/alltoall.txt" "$out/busbw.png" "$cards" "$threads" &&
	echo "plot: $out/busbw.png"

grep -q '#wrong 0' "$out/ep.txt" || { echo "bench: ep_perf failed or found wrong data" >&2; guest_rc=1; }
[ "$(grep -c '^# Out of bounds values : 0 OK' "$out/coll.txt")" = 4 ] ||
	{ echo "bench: a collective's tool failed or found wrong data" >&2; guest_rc=1; }
grep -q '^OK:' "$out/moe.txt" || { echo "bench: m890-moe failed" >&2; guest_rc=1; }

# The supernode: 64 cards in one guest.  The all-to-all up to 1 MiB per
# peer (each size moves 64 x 64 blocks: 1 MiB per peer touches 8 GiB of
# the host's memory for the cards' HBM), and the Kimi-K3 EP step measured.
if [ "${BENCH_SUPERNODE:-1}" != 0 ]; then
	echo
	echo "== libm890 on 64 emulated cards in one guest (guest console: build/logs/bench64.log)"
	"$top/scripts/guest-run.sh" -n 64 -m "${HBM_MB:-2048}" -t "${GUEST_TIMEOUT:-3600}" \
		-l "$top/build/logs/bench64.log" -- \
		"echo '@@ a2a_perf'; a2a_perf $a2a64_args; echo '@@ ep_perf'; ep_perf $ep_args -A 1; echo '@@ m890-moe'; m890-moe $moe_args" \
		>"$out/guest64.txt" 2>&1
	rc=$?
	section a2a_perf "$out/guest64.txt" >"$out/a2a64.txt"
	section ep_perf "$out/guest64.txt" >"$out/ep64.txt"
	section m890-moe "$out/guest64.txt" "$moe_lines" >"$out/moe64.txt"
	echo "== all-to-all on 64 cards ($out/a2a64.txt)"
	cat "$out/a2a64.txt"
	echo "== EP dispatch/combine on 64 cards ($out/ep64.txt)"
	cat "$out/ep64.txt"
	echo "== one MoE layer on 64 cards, and the Kimi-K3 decode step projected ($out/moe64.txt)"
	cat "$out/moe64.txt"
	grep -q '^OK:' "$out/moe64.txt" || { echo "bench: m890-moe failed" >&2; guest_rc=1; }
	if [ $rc != 0 ] || ! grep -q '#wrong 0' "$out/ep64.txt"; then
		echo "bench: the 64-card run failed (status $rc):" >&2
		tail -5 "$out/guest64.txt" >&2
		guest_rc=1
	fi
fi

# Boot to command: wall seconds from starting QEMU to the end of a guest
# whose command is `true` (kernel boot, module load, every card probed,
# power off), on the host's clock: a wall time, noisy, hence repeated
# (BOOT_RUNS=0 skips it).
if [ "$boot_runs" != 0 ]; then
	echo
	echo "== boot to command (wall s, $boot_runs runs each; goal: 8 cards < 5 s, 64 cards < 10 s on an idle machine)"
	printf '# %6s %8s %8s %8s %8s\n' cards min median max goal | tee "$out/boot.txt"
	for c in 8 64; do
		times=()
		for ((r = 0; r < boot_runs; r++)); do
			t0=$(date +%s%N)
			"$top/scripts/guest-run.sh" -n "$c" -t 300 -- true >/dev/null 2>&1 || {
				echo "bench: boot of $c cards failed" >&2
				guest_rc=1
			}
			times+=("$(( ($(date +%s%N) - t0) / 1000000 ))")
		done
		printf '%s\n' "${times[@]}" | sort -n | awk -v c="$c" -v goal=$([ "$c" = 8 ] && echo 5 || echo 10) '
			{ t[NR] = $1 / 1000 }
			END { printf "  %6d %8.2f %8.2f %8.2f %8d\n", c, t[1], t[int((NR + 1) / 2)], t[NR], goal }' |
			tee -a "$out/boot.txt"
	done
	echo "# load while booting: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)" | tee -a "$out/boot.txt"
fi

[ "$mpi_rc" = 0 ] && [ "$guest_rc" = 0 ]
