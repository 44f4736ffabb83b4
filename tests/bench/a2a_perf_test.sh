#!/bin/sh
# SPDX-License-Identifier: MIT
#
# a2a_perf keeps nccl-tests' option semantics.  Host part (no card
# needed): --help and -h exit 0 and list the long options, --version
# prints VERSION, bad options and values exit 2 before any card is
# touched; -f 1 (nccl-tests' default: step by -i) and -i alone are
# accepted, -f above 1 with -i is refused naming the conflict, in either
# order; nccl-tests' options that have one value here take it (-t 1, -m 1,
# -N 1, -p 0, -z 0, -C 0, -a 3, -d float, -o none) and refuse any other
# with a message naming the one value, and the ones without a meaning
# (-r, -T, -y, -G, -R) are refused saying so, status 2 each.  The
# collective tools (COLL_PERF_DIR: allreduce_perf ...) take the same
# sweep and table, with -o sum for the reductions, -r for broadcast only.
# With --guest (cards present): the sizes of -b/-e/-f, -b/-e/-i and
# -f 1 -i are the size column, the bytes one rank sends in total (count =
# size / 4 floats, size rounded down to whole floats per rank), the wall
# and modelled groups are apart, and the table closes with "# Avg bus
# bandwidth".
# Usage: a2a_perf_test.sh [--guest] [A2A_PERF [VERSION]].  Prints TAP.
guest=0
[ "${1:-}" = --guest ] && { guest=1; shift; }
bin=${1:-a2a_perf}
version=${2:-}
# The collective tools sit beside a2a_perf.
path=$(command -v "$bin")
colldir=${path%/*}
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
t "-n 0 exits 2" test "$(rc "$bin" -n 0)" = 2
t "-c 2 exits 2" test "$(rc "$bin" -c 2)" = 2
t "bad size suffix exits 2" test "$(rc "$bin" -b 4X)" = 2
t "stray argument exits 2" test "$(rc "$bin" 8K)" = 2

# parsed ARGS...: not a usage error, a2a_perf went on to look for cards
# (status 0 with cards, 1 without); one small size unless ARGS say more.
small="-b 8K -e 8K -n 1 -w 0"
# shellcheck disable=SC2086
parsed() { r=$(rc "$bin" $small "$@"); [ "$r" != 2 ] || { sed 's/^/# /' "$out"; false; }; }
# refused WORD ARGS...: status 2 and a message saying WORD.
refused() { w=$1; shift; [ "$(rc "$bin" "$@")" = 2 ] && grep -q -- "$w" "$out"; }

t "--version exits 0" test "$(rc "$bin" --version)" = 0
t "--version: a2a_perf ${version:-VERSION} (libm890 ...)" sh -c \
	"grep -qE '^a2a_perf ${version:-[0-9]+\.[0-9]+\.[0-9]+} \(libm890 [0-9.]+\)\$' '$out'"
t "--help lists --version" sh -c "'$bin' --help | grep -q -- --version"
t "-f 1 (step by -i, nccl-tests' default) is accepted" parsed -f 1
t "-f 1 -i 8K is accepted" parsed -e 24K -f 1 -i 8K
t "-i 8K alone is accepted" parsed -e 24K -i 8K
t "-f 0 exits 2" test "$(rc "$bin" -f 0)" = 2
t "-f 2 -i 8K: refused, the conflict named" refused '-f N (N > 1) and -i conflict' -f 2 -i 8K
t "-i 8K -f 4: refused in that order too" refused '-f N (N > 1) and -i conflict' -i 8K -f 4
t "--help says how -f and -i combine" sh -c "'$bin' --help | grep -q -- '-f 1: step by -i'"
for a in "-t 1" "-m 1" "-N 1" "-p 0" "-z 0" "-C 0" "-a 3" "-d float" "-o none" \
	"--nthreads=1" "--datatype=float" "--op=none"; do
	# shellcheck disable=SC2086
	t "$a (the one value that applies) is accepted" parsed $a
done
for a in "-t 2" "-m 4" "-N 0" "-p 1" "-z 1" "-C 1" "-a 1" "-d half" "-o sum" "--nthreads=2"; do
	o=${a%% *}
	[ "$o" = "$a" ] && o=${a%%=*}
	# shellcheck disable=SC2086
	t "$a refused, status 2, naming the one value" refused 'only -. [0-9a-z]* applies here' $a
done
for a in "-r 0" "-T 10" "-y 0" "-G 0" "-R 1" "--root=0" "--cudagraph=1"; do
	# shellcheck disable=SC2086
	t "$a refused, status 2: no meaning here" refused 'is not supported: ' $a
done
t "--help names the refused options" sh -c \
	"'$bin' --help | grep -q -- '-G, --cudagraph' && '$bin' --help | grep -q -- '-r, --root'"

# The collective tools share the options.
if [ -n "$colldir" ] && [ -x "$colldir/allreduce_perf" ]; then
	for c in allreduce_perf allgather_perf reduce_scatter_perf broadcast_perf; do
		cb=$colldir/$c
		t "$c --help exits 0" test "$(rc "$cb" --help)" = 0
		t "$c --version: $c ${version:-VERSION}" sh -c \
			"'$cb' --version | grep -qE '^$c ${version:-[0-9]+\.[0-9]+\.[0-9]+} '"
		t "$c -f 1 -i 8K is accepted" sh -c "'$cb' $small -e 16K -f 1 -i 8K >/dev/null 2>&1; test \$? != 2"
		t "$c -f 2 -i 8K is refused" sh -c "'$cb' -f 2 -i 8K 2>&1 | grep -q 'conflict'"
		t "$c -G 0 is refused" test "$(rc "$cb" -G 0)" = 2
		t "$c -t 2 is refused" test "$(rc "$cb" -t 2)" = 2
		case $c in
		allreduce_perf | reduce_scatter_perf)
			t "$c -o sum accepted, -o max refused" sh -c \
				"'$cb' $small -o sum >/dev/null 2>&1; test \$? != 2 && '$cb' -o max 2>&1 | grep -q 'only -o sum'"
			;;
		*)
			t "$c -o none accepted, -o sum refused" sh -c \
				"'$cb' $small -o none >/dev/null 2>&1; test \$? != 2 && '$cb' -o sum 2>&1 | grep -q 'only -o none'"
			;;
		esac
		case $c in
		broadcast_perf) t "$c -r 0 accepted" sh -c "'$cb' $small -r 0 >/dev/null 2>&1; test \$? != 2" ;;
		*) t "$c -r 0 refused: no root" sh -c "'$cb' -r 0 2>&1 | grep -q 'has no root'" ;;
		esac
	done
fi

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
	t "-f 1 -i 8K runs" test "$(rc "$bin" -b 8K -e 24K -f 1 -i 8K -n 1 -w 0)" = 0
	t "-f 1 -i: sizes step by 8K" test "$(sizes)" = "8192 16384 24576 "
	t "-f 1 alone steps by 1M" test "$(rc "$bin" -b 8K -e 2100K -f 1 -n 1 -w 0)" = 0
	want=
	for s in 8192 1056768 2105344; do want="$want$((s / cards / 4 * 4 * cards)) "; done
	t "-f 1: sizes 8K, 8K + 1M, 8K + 2M ($want)" test "$(sizes)" = "$want"
	t "-t 1 -d float -o none -a 3 run as without them" \
		test "$(rc "$bin" -b 8K -e 8K -n 1 -w 0 -t 1 -d float -o none -a 3)" = 0
	t "... size 8192" test "$(sizes)" = "8192 "
	t "-b 1000: rounded down to whole floats per rank" \
		test "$(rc "$bin" -b 1000 -e 1000 -n 1 -w 0)" = 0
	t "-b 1000: size $((1000 / cards / 4 * 4 * cards))" test "$(sizes)" = "$((1000 / cards / 4 * 4 * cards)) "
fi
echo "1..$n"
exit $fail
