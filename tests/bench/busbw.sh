#!/bin/bash
# SPDX-License-Identifier: MIT
#
# busbw.sh TABLE PNG CARDS THREADS: plot make bench's all-to-all table
# (alltoall.txt, written by bench.sh) into PNG with gnuplot.  Two panels
# over the same axis of bytes per peer (ticks in B, KiB, MiB):
#   top     wall-time busbw, each curve the median of the repeats with
#           min-max bars: libm890 on the emulated cards, Open MPI on the
#           host, and the host's limit (THREADS-thread memcpy of all
#           CARDS ranks' bytes);
#   bottom  libm890's busbw in modelled M890 time, with the 800 GB/s of
#           a switch port.
# The legends sit right of the panels, outside the curves.
set -euo pipefail
[ $# = 4 ] || { echo "usage: busbw.sh TABLE PNG CARDS THREADS" >&2; exit 2; }
table=$1 png=$2 cards=$3 threads=$4

# gnuplot warns about its symbol encoding under a C locale (a new machine,
# or a CI chroot without LANG); the script is ASCII, read as UTF-8.
export LC_ALL=C.UTF-8

# pngcairo draws antialiased text; the plain png terminal is the fallback.
term="pngcairo size 1280,1000 font 'Sans,11'"
gnuplot -e 'set terminal pngcairo' 2>/dev/null || term="png size 1280,1000"

# The x ticks: every power of 4 bytes, labelled in B, KiB, MiB and GiB
# (gnuplot's own %B would print "ki").
xtics= units=(B KiB MiB GiB TiB)
for ((e = 0; e <= 40; e += 2)); do
	xtics="$xtics${xtics:+, }\"$((1 << (e % 10))) ${units[e / 10]}\" $((1 << e))"
done

gnuplot <<EOF
set terminal $term
set output "$png"
set datafile missing "-"
set encoding utf8

set logscale x 2
set xtics ($xtics)
set mxtics 2
set grid xtics ytics mytics
# Each legend right of its panel, the curves' points a little inside the
# frame (no point or bar on the border, none cut off).
set key top left vertical Left reverse noenhanced spacing 1.4 samplen 3
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
set autoscale noextend
set lmargin at screen 0.08
set rmargin at screen 0.62
set multiplot

# Top: what the host measured, wall time.
set tmargin at screen 0.94
set bmargin at screen 0.56
set title "All-to-all on $cards ranks, wall time (median of the repeats, bars: min to max)" noenhanced
set xlabel "bytes each rank sends to each peer"
set ylabel "busbw (GB/s)"
set logscale y 10
set format y "%g"
set key at screen 0.64, screen 0.93
plot "$table" using 1:4:3:5 with yerrorlines lw 2 pt 7 title "libm890, $cards emulated cards (QEMU TCG)", \
     "" using 1:8:7:9 with yerrorlines lw 2 pt 5 title "Open MPI MPI_Alltoall, $cards host processes", \
     "" using 1:10 with lines lw 2 dt 2 title "host limit: $threads-thread memcpy of all $cards ranks' bytes"

# Bottom: the same collective in modelled M890 time.
set tmargin at screen 0.44
set bmargin at screen 0.06
set title "The same all-to-all in modelled M890 time (timing model of hardware-spec §10)" noenhanced
set yrange [*:2000]
set key at screen 0.64, screen 0.43
plot "$table" using 1:6 with linespoints lw 2 pt 7 title "libm890, modelled busbw", \
     800 with lines lw 2 dt 3 lc rgb "#c00000" title "800 GB/s (one switch port)"
unset multiplot
EOF
