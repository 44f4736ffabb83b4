#!/bin/bash
# SPDX-License-Identifier: MIT
#
# `make bench`: all-to-all on the emulated cards (a2a_perf) side by side
# with Open MPI's MPI_Alltoall on the host (mpi_a2a_perf) and the host's
# memcpy bandwidth (memcpy_bw), then the EP dispatch/combine figures
# (ep_perf).  Prints one table, writes everything to build/bench/:
#   memcpy.txt mpi.txt guest.txt   raw outputs
#   alltoall.txt                   the side-by-side table
#   busbw.png                      busbw against bytes per peer (gnuplot)
#   ep.txt                         ep_perf's figures
#   a2a64.txt ep64.txt             the same on 64 cards in one guest
#   boot.txt                       boot-to-command time, 8 and 64 cards
#
# Environment: QEMU, KERNEL, INITRD (as for guest-run.sh); CARDS, HBM_MB,
# GUEST_TIMEOUT; A2A_ARGS (sizes per peer, nccl-tests options) and
# EP_ARGS (ep_perf options); A2A64_ARGS (a2a_perf on 64 cards),
# BENCH_SUPERNODE=0 (skip the 64-card run), BOOT_RUNS (boots per count).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/bench
mkdir -p "$out" "$top/build/logs"
cards=${CARDS:-8}
a2a_args=${A2A_ARGS:--b $((cards))K -e $((64 * cards))M -f 4 -n 5 -w 1 -c 1}
ep_args=${EP_ARGS:--n 3 -w 1}
a2a64_args=${A2A64_ARGS:--b 64K -e 64M -f 4 -n 3 -w 1 -c 1}
boot_runs=${BOOT_RUNS:-3}

# The size options of a2a_args, for memcpy_bw (sizes are what one rank
# sends in total, for all three programs).
sizes=$(echo "$a2a_args" | grep -oE -- '-[befi] *[0-9]+[KkMmGg]?' | tr '\n' ' ')

echo "== host memcpy bandwidth (the limit)"
"$top/build/bench/memcpy_bw" $sizes | tee "$out/memcpy.txt" || exit 1

echo "== Open MPI MPI_Alltoall on the host, $cards processes"
mpirun --allow-run-as-root --oversubscribe -np "$cards" --mca btl self,vader \
	--mca mpi_yield_when_idle 1 \
	"$top/build/bench/mpi_a2a_perf" $a2a_args | tee "$out/mpi.txt"
mpi_rc=${PIPESTATUS[0]}

echo "== libm890 on $cards emulated cards (guest console: build/logs/bench.log)"
"$top/scripts/guest-run.sh" -n "$cards" -m "${HBM_MB:-2048}" -t "${GUEST_TIMEOUT:-3600}" \
	-l "$top/build/logs/bench.log" -- \
	"echo '@@ a2a_perf'; a2a_perf $a2a_args; echo '@@ ep_perf'; ep_perf $ep_args" \
	>"$out/guest.txt" 2>&1
guest_rc=$?
if [ $guest_rc != 0 ]; then
	echo "bench: the guest run failed (status $guest_rc):" >&2
	tail -5 "$out/guest.txt" >&2
fi
awk '/^@@ a2a_perf/{p=1; next} /^@@ ep_perf/{p=0} p && /^(#|  )/' "$out/guest.txt" >"$out/a2a.txt"
awk '/^@@ ep_perf/{p=1; next} p && /^(#|  )/' "$out/guest.txt" >"$out/ep.txt"
cat "$out/a2a.txt"

# One row per size: join the three outputs on the size column.
awk -v n="$cards" '
	FILENAME ~ /memcpy/ && !/^#/ { mc[$1] = $2; next }
	FILENAME ~ /mpi/ && !/^#/ { mpi[$1] = $6; mpiw[$1] = $7; next }
	FILENAME ~ /a2a/ && !/^#/ && NF >= 13 {
		size[++k] = $1; wall[$1] = $8; wrong[$1] = $9; model[$1] = $12
	}
	END {
		printf "# all-to-all on %d ranks: busbw in GB/s (busbw = algbw * (n-1)/n)\n", n
		printf "# %10s %12s %9s %9s %9s %9s %8s %8s %6s\n", "B/peer", "size(B)",
		       "libm890", "modelled", "OpenMPI", "memcpy", "m890/mc", "mpi/mc", "#wrong"
		for (i = 1; i <= k; i++) {
			s = size[i]
			c = mc[s] + 0
			printf "  %10d %12d %9.3f %9.2f %9.3f %9.2f %8.4f %8.4f %6s\n",
			       s / n, s, wall[s], model[s], mpi[s], c,
			       c ? wall[s] / c : 0, c ? mpi[s] / c : 0,
			       wrong[s] "/" (mpiw[s] == "" ? "-" : mpiw[s])
		}
	}' "$out/memcpy.txt" "$out/mpi.txt" "$out/a2a.txt" >"$out/alltoall.txt"

echo
echo "== side by side ($out/alltoall.txt)"
cat "$out/alltoall.txt"
echo
echo "== EP dispatch/combine ($out/ep.txt)"
cat "$out/ep.txt"

gnuplot <<EOF
set terminal png size 900,600
set output "$out/busbw.png"
set title "All-to-all busbw, $cards ranks: libm890 (emulated cards) vs Open MPI vs host memcpy"
set xlabel "bytes per peer"
set ylabel "GB/s"
set logscale xy 2
set format x "%.0b%B"
set key left top noenhanced
set format y "%g"
set grid
plot "$out/alltoall.txt" using 1:3 with linespoints title "libm890 busbw (wall, TCG)", \
     "" using 1:4 with linespoints title "libm890 busbw (modelled M890)", \
     "" using 1:5 with linespoints title "Open MPI MPI_Alltoall busbw", \
     "" using 1:6 with lines dashtype 2 title "host memcpy (limit)"
EOF
echo "plot: $out/busbw.png"

grep -q '#wrong 0' "$out/ep.txt" || { echo "bench: ep_perf failed or found wrong data" >&2; guest_rc=1; }

# The supernode: 64 cards in one guest.  The all-to-all up to 1 MiB per
# peer (each size moves 64 x 64 blocks: 1 MiB per peer touches 8 GiB of
# the host's memory for the cards' HBM), and the Kimi-K3 EP step measured.
if [ "${BENCH_SUPERNODE:-1}" != 0 ]; then
	echo
	echo "== libm890 on 64 emulated cards in one guest (guest console: build/logs/bench64.log)"
	"$top/scripts/guest-run.sh" -n 64 -m "${HBM_MB:-2048}" -t "${GUEST_TIMEOUT:-3600}" \
		-l "$top/build/logs/bench64.log" -- \
		"echo '@@ a2a_perf'; a2a_perf $a2a64_args; echo '@@ ep_perf'; ep_perf $ep_args -A 1" \
		>"$out/guest64.txt" 2>&1
	rc=$?
	awk '/^@@ a2a_perf/{p=1; next} /^@@ ep_perf/{p=0} p && /^(#|  )/' "$out/guest64.txt" >"$out/a2a64.txt"
	awk '/^@@ ep_perf/{p=1; next} p && /^(#|  )/' "$out/guest64.txt" >"$out/ep64.txt"
	echo "== all-to-all on 64 cards ($out/a2a64.txt)"
	cat "$out/a2a64.txt"
	echo "== EP dispatch/combine on 64 cards ($out/ep64.txt)"
	cat "$out/ep64.txt"
	if [ $rc != 0 ] || ! grep -q '#wrong 0' "$out/ep64.txt"; then
		echo "bench: the 64-card run failed (status $rc):" >&2
		tail -5 "$out/guest64.txt" >&2
		guest_rc=1
	fi
fi

# Boot to command: wall seconds from starting QEMU to the end of a guest
# whose command is `true` (kernel boot, module load, every card probed,
# power off), on the host's clock: a wall time, noisy, hence repeated.
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
		END { printf "  %6d %8.2f %8.2f %8.2f %8d\n", c, t[1], t[int((NR + 1) / 2)], t[NR], goal }'
done | tee -a "$out/boot.txt"
echo "# load while booting: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)" | tee -a "$out/boot.txt"

[ "$mpi_rc" = 0 ] && [ "$guest_rc" = 0 ]
