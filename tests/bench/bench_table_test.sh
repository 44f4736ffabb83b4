#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The host pieces of `make bench`: memcpy_bw's options (-t threads, the
# sweep, -f 1 -i as nccl-tests), mpi_a2a_perf's --help and usage errors
# (when built), and the table and plot bench.sh makes of its repeats
# (alltoall.awk: min / median / max per size, the host limit, the ratios
# of the medians, wrong data counted; busbw.sh: a PNG).  The raw outputs
# fed to alltoall.awk are written here, in the programs' formats, with
# values chosen so that every derived figure is known exactly.
# Usage: bench_table_test.sh TOP MEMCPY_BW.  Prints TAP.
top=$1 memcpy_bw=$2
n=0 fail=0
t() { name=$1; shift; n=$((n + 1)); if "$@"; then echo "ok $n - $name"; else echo "not ok $n - $name"; fail=1; fi; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
out=$dir/out
rc() { "$@" >"$out" 2>&1; echo $?; }

# ---- memcpy_bw ----
t "memcpy_bw --help exits 0" test "$(rc "$memcpy_bw" --help)" = 0
t "memcpy_bw --help lists --nthreads" grep -q -- '--nthreads' "$out"
t "memcpy_bw -t 0 exits 2" test "$(rc "$memcpy_bw" -t 0)" = 2
t "memcpy_bw -t 65 exits 2" test "$(rc "$memcpy_bw" -t 65)" = 2
t "memcpy_bw -t two exits 2" test "$(rc "$memcpy_bw" -t two)" = 2
t "memcpy_bw -b above -e exits 2" test "$(rc "$memcpy_bw" -b 8K -e 4K)" = 2
t "memcpy_bw -t 2 -b 4K -e 16K -f 2 runs" test "$(rc "$memcpy_bw" -t 2 -b 4K -e 16K -f 2)" = 0
t "memcpy_bw says 2 threads" grep -q '^# memcpy_bw: 2 threads' "$out"
t "memcpy_bw: the sizes 4K 8K 16K, each with a bandwidth" test \
	"$(awk '!/^#/ && $2 > 0 { printf "%s ", $1 }' "$out")" = "4096 8192 16384 "
t "memcpy_bw --nthreads 1 --stepbytes 4K runs" \
	test "$(rc "$memcpy_bw" --nthreads 1 -b 4K -e 8K --stepbytes 4K)" = 0
t "memcpy_bw: one thread" grep -q '^# memcpy_bw: 1 thread,' "$out"
t "memcpy_bw -f 1 -i 4K (nccl-tests' step by -i) runs" \
	test "$(rc "$memcpy_bw" -b 4K -e 12K -f 1 -i 4K)" = 0
t "memcpy_bw -f 1 -i 4K: the sizes 4K 8K 12K" test \
	"$(awk '!/^#/ && $2 > 0 { printf "%s ", $1 }' "$out")" = "4096 8192 12288 "
t "memcpy_bw -f 2 -i 4K exits 2, naming the conflict" sh -c \
	"'$memcpy_bw' -f 2 -i 4K 2>&1 | grep -q 'conflict'; test \$? = 0 && ! '$memcpy_bw' -f 2 -i 4K >/dev/null 2>&1"
# mpi_a2a_perf, when `make bench` built it (it needs Open MPI): --help
# without mpirun, and its usage errors.
mpi=$top/build/bench/mpi_a2a_perf
if [ -x "$mpi" ]; then
	t "mpi_a2a_perf --help exits 0 without mpirun" test "$(rc "$mpi" --help)" = 0
	t "mpi_a2a_perf --help lists the long options" sh -c \
		"grep -q -- --minbytes '$out' && grep -q -- --stepfactor '$out' && grep -q -- --check '$out'"
	t "mpi_a2a_perf -h exits 0" test "$(rc "$mpi" -h)" = 0
	t "mpi_a2a_perf --bogus exits 2" test "$(rc "$mpi" --bogus)" = 2
	t "mpi_a2a_perf -f 2 -i 4K exits 2, naming the conflict" sh -c \
		"test \"\$('$mpi' -f 2 -i 4K >/dev/null 2>&1; echo \$?)\" = 2 && '$mpi' -f 2 -i 4K 2>&1 | grep -q conflict"
else
	for w in "--help exits 0 without mpirun" "--help lists the long options" "-h exits 0" \
		"--bogus exits 2" "-f 2 -i 4K exits 2"; do
		n=$((n + 1))
		echo "ok $n - mpi_a2a_perf $w # SKIP not built (make bench builds it)"
	done
fi

# ---- alltoall.awk: 8 ranks, 3 repeats, sizes 8192 and 65536 ----
# memcpy GB/s: 64 (size 8192; median of 64 80 10) and 32 (65536)
for r in 1 2 3; do
	{
		echo "# memcpy_bw: 2 threads, each copying a buffer of size bytes"
		echo "#      size(B)         GB/s"
		case $r in
		1) echo "          8192        64.00"; echo "         65536        32.00" ;;
		2) echo "          8192        80.00"; echo "         65536        32.00" ;;
		3) echo "          8192        10.00"; echo "         65536        32.00" ;;
		esac
	} >"$dir/memcpy.$r.txt"
done
# Open MPI: size 8192 in 7, 14 and 28 us (busbw = 8192 / (us * 1e3) * 7/8:
# 1.024, 0.512, 0.256); 65536 in 56 us each time (1.024); repeat 3 saw a
# wrong byte at 65536.
for r in 1 2 3; do
	us=$((7 << (r - 1)))
	w=0
	[ $r = 3 ] && w=WRONG
	{
		echo "# mpi_a2a_perf: 8 ranks, MPI_Alltoall, 1 warm-up + 5 timed iterations"
		echo "#      size(B)        count   type   time(us)    algbw    busbw  #wrong"
		printf "  %12d %12d %6s %10.1f %8.3f %8.3f %7s\n" 8192 8192 byte "$us" 0 0 0
		printf "  %12d %12d %6s %10.1f %8.3f %8.3f %7s\n" 65536 65536 byte 56 0 0 "$w"
	} >"$dir/mpi.$r.txt"
done
# libm890: size 8192 in 70 and 140 us (0.1024, 0.0512); 65536 in 56 us,
# modelled busbw 100.00; only two repeats reached the guest's table (the
# third guest failed before a2a_perf printed).
for r in 1 2; do
	us=70
	[ $r = 2 ] && us=140
	{
		echo "# a2a_perf: 8 cards, alltoall, float, 1 warm-up + 5 timed iterations"
		printf "  %12d %12d %6s %6s %5d   %10.1f %8.3f %8.3f %7s   %10.2f %11.2f %11.2f %12.2f\n" \
			8192 2048 float none -1 "$us" 0 0 0 1.00 8.19 7.17 1.0
		printf "  %12d %12d %6s %6s %5d   %10.1f %8.3f %8.3f %7s   %10.2f %11.2f %11.2f %12.2f\n" \
			65536 16384 float none -1 56 0 0 0 1.00 65.5 100.00 1.0
		echo "# Avg bus bandwidth    : 0"
	} >"$dir/a2a.$r.txt"
done
: >"$dir/a2a.3.txt"
awk -v n=8 -v runs=3 -v thr=2 -v loads=" 1.5 2.5 3.5" -f "$top/tests/bench/alltoall.awk" \
	"$dir"/memcpy.*.txt "$dir"/mpi.*.txt "$dir"/a2a.*.txt >"$dir/alltoall.txt"
sed 's/^/# /' "$dir/alltoall.txt"
# row SIZE FIELD: field FIELD of the row of SIZE (bytes per rank).
row() { awk -v s="$1" -v f="$2" '!/^#/ && $2 == s { print $f }' "$dir/alltoall.txt"; }
# near A B: A and B agree to 0.5% (the table prints 3 or 4 digits).
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b != 0 && d <= 0.005 * (b < 0 ? -b : b)) }'; }
t "table: one row per size" test "$(grep -vc '^#' "$dir/alltoall.txt")" = 2
t "table: B/peer = size / ranks" test "$(row 65536 1)" = 8192
t "table: the load of each repeat in the header" grep -q 'before each repeat: 1.5 2.5 3.5' "$dir/alltoall.txt"
t "libm890 min (from the time column)" near "$(row 8192 3)" 0.0512
t "libm890 median of two repeats: their mean" near "$(row 8192 4)" 0.0768
t "libm890 max" near "$(row 8192 5)" 0.1024
t "modelled: a2a_perf's model-busbw" near "$(row 65536 6)" 100
t "Open MPI min" near "$(row 8192 7)" 0.256
t "Open MPI median" near "$(row 8192 8)" 0.512
t "Open MPI max" near "$(row 8192 9)" 1.024
t "limit: median memcpy / ranks x 7/8" near "$(row 8192 10)" 7
t "m890/mpi: ratio of the medians" near "$(row 8192 11)" 0.15
t "m890/lim: ratio of the medians" near "$(row 65536 12)" "$(awk 'BEGIN { print 1.024 / 3.5 }')"
t "mpi/lim" near "$(row 65536 13)" "$(awk 'BEGIN { print 1.024 / 3.5 }')"
t "#wrong: repeats with wrong data, libm890/Open MPI" test "$(row 65536 14)" = 0/1

# ---- busbw.sh ----
if command -v gnuplot >/dev/null; then
	t "busbw.sh draws the table" test "$(rc bash "$top/tests/bench/busbw.sh" "$dir/alltoall.txt" "$dir/busbw.png" 8 2)" = 0
	t "busbw.sh: a PNG" test "$(head -c 4 "$dir/busbw.png" | tail -c 3)" = PNG
	t "busbw.sh: no gnuplot warning" test ! -s "$out"
else
	echo "ok $((n + 1)) # SKIP busbw.sh: no gnuplot"
	n=$((n + 1))
fi
t "busbw.sh: usage error exits 2" test "$(rc bash "$top/tests/bench/busbw.sh" "$dir/alltoall.txt")" = 2
echo "1..$n"
exit $fail
