#!/bin/sh
# SPDX-License-Identifier: MIT
# Isolated-mode latency against the engine's scheduling (issue 14): one
# engine, pods a -> b as bench/run.sh makes them, perftest ib_send_lat and
# ib_write_lat (2 B, t_typical, BENCH_LAT_ITERS iterations) with the
# engine's loop thread in the normal scheduler ("cfs") and in SCHED_FIFO
# at priority 1 ("fifo", what --limit rt_priority=1 sets), interleaved
# run by run on the same engine (chrt -p switches it), BENCH_REPS rounds
# (default 5).  Each run prints its figure, perftest's t_avg and 99 %,
# and the engine's counters over it (dp_sleeps, dp_sleeps_nospin,
# dp_doorbells, dp_spin_backoffs); then the medians and the write/send
# ratios beside the 1.5x target.  A benchmark: a miss is printed, never
# an error.
#
# usage: bench/lat_sched.sh [BUILD]     (root; BENCH_SCHED_MODES="cfs fifo")
PV_ROOT=$(cd "$(dirname "$0")/.." && pwd)
PV_BUILD=$(cd "${1:-${PV_BUILD:-$PV_ROOT/build}}" && pwd)
export PV_ROOT PV_BUILD
REPS=${BENCH_REPS:-5}
LAT_ITERS=${BENCH_LAT_ITERS:-5000}
LAT_SIZE=2
MODES=${BENCH_SCHED_MODES:-cfs fifo}
command -v chrt >/dev/null 2>&1 || { echo "bench: needs chrt"; exit 1; }
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
TMP=$(mktemp -d /tmp/pvbench.XXXXXX)
trap 'topo_cleanup; rm -rf "$TMP"' EXIT
IP_B=$POD_B_IP DEV=$POD_DEV LIB=$PV_BUILD/lib
ENG_A=$PODVERBS_ENGINE ENG_B=$PODVERBS_ENGINE
ns_exec() { topo_exec "$@"; }
. "$PV_ROOT/bench/lib/measure.sh"

COUNTERS='dp_sleeps dp_sleeps_nospin dp_doorbells dp_spin_backoffs'
# counters: their values in $COUNTERS' order (pvctl stats has its own).
counters() {
	pvctl stats | awk -v names="$COUNTERS" '{ v[$1] = $2 } END {
		n = split(names, k, " "); for (i = 1; i <= n; i++) printf "%s ", v[k[i]] + 0 }'
}
# delta "A..." "B...": the counters' increments, named.
delta() {
	echo "$1|$2" | awk -v names="$COUNTERS" -F'|' '{
		n = split(names, k, " "); split($1, a, " "); split($2, b, " ")
		for (i = 1; i <= n; i++) printf "%s+%d ", k[i], b[i] - a[i] }'
}
set_mode() {
	case $1 in
	cfs) chrt -o -p 0 "$ENGINE_PID" ;;
	fifo) chrt -f -p 1 "$ENGINE_PID" ;;
	*) echo "bench: unknown mode $1"; exit 1 ;;
	esac
}

echo "isolated latency by engine scheduling: pods a -> b, $LAT_SIZE B, $LAT_ITERS iterations, $REPS rounds"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$REPS"); do
	for m in $MODES; do
		set_mode "$m"
		for t in ib_send_lat ib_write_lat; do
			c0=$(counters)
			v=$(perftest_once "$t" 5 -s "$LAT_SIZE" -n "$LAT_ITERS")
			tail=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ { a = $6; p = $8 }
				END { if (a != "") print "avg " a " p99 " p }' "$TMP/cli.out")
			echo "$m $t ${v:-FAILED}" >>"$TMP/res"
			printf '%-5s %-13s %8s us  (%s)  %s\n' "$m" "$t" "${v:-FAILED}" \
				"${tail:-no result}" "$(delta "$c0" "$(counters)")"
		done
	done
done
echo
printf '%-5s %12s %12s %8s  %s\n' mode send_lat write_lat ratio "target <= 1.5x"
for m in $MODES; do
	s=$(awk -v k="$m ib_send_lat" '$1 " " $2 == k && $3 != "FAILED" { print $3 }' "$TMP/res" | median)
	w=$(awk -v k="$m ib_write_lat" '$1 " " $2 == k && $3 != "FAILED" { print $3 }' "$TMP/res" | median)
	awk -v m="$m" -v s="$s" -v w="$w" 'BEGIN {
		r = (s + 0 > 0 && w != "-") ? w / s : -1
		printf "%-5s %9s us %9s us %7s  %s\n", m, s, w,
			r < 0 ? "-" : sprintf("%.2fx", r),
			r < 0 ? "NO-RESULT" : (r <= 1.5 ? "PASS" : "MISS") }'
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
