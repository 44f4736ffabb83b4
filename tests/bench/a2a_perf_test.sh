#!/bin/sh
# SPDX-License-Identifier: MIT
#
# a2a_perf keeps nccl-tests' option semantics.  Host part (no card
# needed): --help and -h exit 0 and list the long options, bad options
# and values exit 2 before any card is touched.  With --guest (cards
# present): the sizes of -b/-e/-f and -b/-e/-i are the size column, the
# bytes one rank sends in total (count = size / 4 floats, size rounded
# down to whole floats per rank), the wall and modelled groups are apart,
# and the table closes with "# Avg bus bandwidth".
# Usage: a2a_perf_test.sh [--guest] [A2A_PERF].  Prints TAP.
guest=0
[ "${1:-}" = --guest ] && { guest=1; shift; }
bin=${1:-a2a_perf}
n=0 fail=0
t() { name=$1; shift; n=$((n + 1)); if "$@"; then echo "ok $n - $name"; else echo "not ok $n - $name"; fail=1; fi; }
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
rc() { "$@" >"$out" 2>&1; echo $?; }

t "--help exits 0" test "$(rc "$bin" --help)" = 0
for o in --minbytes --maxbytes --stepfactor --stepbytes --iters --warmup_iters --check --ngpus; do
	t "--help lists $o" grep -q -- "$o" "$out"
done
t "--help says what a size is" grep -q 'bytes one rank sends in total' "$out"
t "-h exits 0" test "$(rc "$bin" -h)" = 0
t "unknown option exits 2" test "$(rc "$bin" --bogus)" = 2
t "-b above -e exits 2" test "$(rc "$bin" -b 1M -e 1K)" = 2
t "-b above -e is named" grep -q -- '-b must not exceed -e' "$out"
t "-f 1 exits 2" test "$(rc "$bin" -f 1)" = 2
t "-n 0 exits 2" test "$(rc "$bin" -n 0)" = 2
t "-c 2 exits 2" test "$(rc "$bin" -c 2)" = 2
t "bad size suffix exits 2" test "$(rc "$bin" -b 4X)" = 2
t "stray argument exits 2" test "$(rc "$bin" 8K)" = 2

if [ $guest = 1 ]; then
	cards=$(ls /dev/accel 2>/dev/null | grep -c '^accel')
	# sizes: the first column of the data lines
	sizes() { awk '!/^#/ && NF >= 13 { printf "%s ", $1 }' "$out"; }
	t "-b 8K -e 32K -f 2 runs" test "$(rc "$bin" -b 8K -e 32K -f 2 -n 1 -w 0)" = 0
	sed 's/^/# /' "$out"
	t "size column: 8K 16K 32K in total per rank" test "$(sizes)" = "8192 16384 32768 "
	t "count = size / 4 floats" sh -c "awk '!/^#/ && NF >= 13 && \$2 * 4 != \$1 { bad = 1 } END { exit bad }' '$out'"
	t "wall and modelled groups headed apart" sh -c \
		"grep -q 'wall time' '$out' && grep -q 'modelled M890 time' '$out' && grep -q 'model-busbw' '$out'"
	t "one column named busbw" test "$(grep -m1 ' size ' "$out" | tr ' ' '\n' | grep -cx busbw)" = 1
	t "closes with # Avg bus bandwidth" grep -q '^# Avg bus bandwidth    : [0-9.e+-]*$' "$out"
	t "no wrong bytes" grep -q '^# Out of bounds values : 0 OK' "$out"
	t "--minbytes 8K --maxbytes 24K --stepbytes 8K runs" \
		test "$(rc "$bin" --minbytes 8K --maxbytes 24K --stepbytes 8K --iters 1 --warmup_iters 0)" = 0
	t "-i: sizes step by 8K" test "$(sizes)" = "8192 16384 24576 "
	t "-b 1000: rounded down to whole floats per rank" \
		test "$(rc "$bin" -b 1000 -e 1000 -n 1 -w 0)" = 0
	t "-b 1000: size $((1000 / cards / 4 * 4 * cards))" test "$(sizes)" = "$((1000 / cards / 4 * 4 * cards)) "
fi
echo "1..$n"
exit $fail
