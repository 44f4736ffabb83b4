# SPDX-License-Identifier: MIT
#
# make bench's all-to-all table (tests/bench/bench.sh): reads the raw
# outputs of every repeat R - memcpy.R.txt (memcpy_bw -t THREADS),
# mpi.R.txt (mpi_a2a_perf), a2a.R.txt (a2a_perf) - and prints one row per
# size: libm890's and Open MPI's wall busbw as min / median / max of the
# repeats, libm890's modelled busbw, the host's limit, and the ratios of
# the medians.  Variables (awk -v): n the ranks (cards), runs the
# repeats, thr memcpy_bw's threads, loads the 1-minute load before each
# repeat.
#
# The host limit is the memcpy of all cards' bytes: an all-to-all of size
# bytes per rank makes the host copy n x size bytes, at best at
# memcpy_bw's thr-thread rate M, so algbw <= M / n and busbw <= M / n x
# (n - 1) / n.  m890/lim is therefore the bytes all cards moved per
# second over M.  The wall busbw is computed from the time columns
# (0.1 us), which keep their precision where the programs' busbw columns
# (3 decimals) round small sizes to 0.

function add(a, s, v) { a[s] = (s in a) ? a[s] " " v : v }
function seen(s) { if (!(s in known)) { known[s] = 1; order[++k] = s } }
# stats(list): min, median and max of a space-separated list, into st[].
function stats(list,    v, m, i, j, t) {
	m = split(list, v, " ")
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	st["min"] = v[1]; st["max"] = v[m]
	st["med"] = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	return m
}
# f(x, w, fmt): x in a field of w characters, "-" if there is none.
function f(x, w, fmt) { return x == "" ? sprintf("%" w "s", "-") : sprintf("%" w fmt, x) }
# busbw(bytes, us): of an all-to-all of bytes per rank in us microseconds.
function busbw(bytes, us) { return bytes / (us * 1e3) * (n - 1) / n }
function ratio(a, b) { return a == "" || b == "" || b + 0 == 0 ? "" : a / b }
FILENAME ~ /(^|\/)memcpy\.[0-9]+\.txt$/ && !/^#/ { add(mc, $1, $2); next }
FILENAME ~ /(^|\/)mpi\.[0-9]+\.txt$/ && !/^#/ && NF >= 7 && $4 > 0 {
	seen($1); add(mpi, $1, busbw($1, $4)); if ($7 == "WRONG") mpiw[$1]++; next
}
FILENAME ~ /(^|\/)a2a\.[0-9]+\.txt$/ && !/^#/ && NF >= 13 && $6 > 0 {
	seen($1); add(wall, $1, busbw($1, $6)); add(model, $1, $12)
	if ($9 == "WRONG") wrong[$1]++; next
}
END {
	printf "# all-to-all on %d ranks, %d repeats of the sweep: busbw in GB/s", n, runs
	printf " (busbw = algbw * (n-1)/n)\n"
	printf "# load (1-minute average) before each repeat:%s\n", loads
	printf "# limit: the host copying the bytes of all %d ranks with %d-thread memcpy (memcpy_bw -t %d)\n",
	       n, thr, thr
	printf "# ratios: of the medians; #wrong: repeats with wrong data, libm890/Open MPI\n"
	printf "# %10s %12s   %-29s %9s   %s\n", "", "",
	       "|---- libm890 (wall) ----|", "", "|---- Open MPI (host) ----|"
	printf "# %10s %12s   %9s %9s %9s %9s   %9s %9s %9s %9s   %8s %8s %8s %7s\n",
	       "B/peer", "size(B)", "min", "median", "max", "modelled",
	       "min", "median", "max", "limit", "m890/mpi", "m890/lim", "mpi/lim", "#wrong"
	for (i = 1; i <= k; i++) {
		s = order[i]
		wm = wl = wh = mm = pm = pl = ph = lim = ""
		if (s in wall) { stats(wall[s]); wl = st["min"]; wm = st["med"]; wh = st["max"] }
		if (s in model) { stats(model[s]); mm = st["med"] }
		if (s in mpi) { stats(mpi[s]); pl = st["min"]; pm = st["med"]; ph = st["max"] }
		if (s in mc) { stats(mc[s]); lim = st["med"] / n * (n - 1) / n }
		printf "  %10d %12d   %9s %9s %9s %9s   %9s %9s %9s %9s   %8s %8s %8s %7s\n",
		       int(s / n), s, f(wl, 9, ".4g"), f(wm, 9, ".4g"), f(wh, 9, ".4g"),
		       f(mm, 9, ".2f"), f(pl, 9, ".4g"), f(pm, 9, ".4g"), f(ph, 9, ".4g"),
		       f(lim, 9, ".4g"), f(ratio(wm, pm), 8, ".3g"), f(ratio(wm, lim), 8, ".3g"),
		       f(ratio(pm, lim), 8, ".3g"),
		       (wrong[s] + 0) "/" (mpiw[s] + 0)
	}
}
