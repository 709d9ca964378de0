#!/bin/sh
# SPDX-License-Identifier: MIT
# The data-path benchmark: Debian's perftest between two pod namespaces on
# one engine, beside TCP (iperf3, sockperf) measured in the same run between
# the same namespaces, as ratios.  Each figure is the median of $BENCH_REPS
# runs (default 3).  Prints one table; a missed target is reported, never
# an error (this is a benchmark, not a test).  See bench/README.md.
#
# usage: bench/run.sh [BUILD]           (root)
# Makes its own pods and engine, unless the caller already has them and
# exports (deploy/demo.sh does):
#   BENCH_NS_A, BENCH_NS_B   namespace names (client side, server side)
#   BENCH_IP_B               server's IPv4 address
#   BENCH_DEV                device name in both pods
#   PODVERBS_ENGINE          the engine's socket; BENCH_ENGINE_PID its pid
PV_ROOT=$(cd "$(dirname "$0")/.." && pwd)
PV_BUILD=$(cd "${1:-${PV_BUILD:-$PV_ROOT/build}}" && pwd)
export PV_ROOT PV_BUILD
REPS=${BENCH_REPS:-3}
SECS=${BENCH_SECS:-3}
LAT_ITERS=${BENCH_LAT_ITERS:-5000}
BW_SIZE=65536
LAT_SIZE=2

if [ -n "${BENCH_NS_A:-}" ]; then
	TMP=$(mktemp -d /tmp/pvbench.XXXXXX)
	trap 'stop_server iperf3; stop_server sockperf; rm -rf "$TMP"' EXIT
	ENGINE_PID=${BENCH_ENGINE_PID:-}
	IP_B=$BENCH_IP_B
	DEV=$BENCH_DEV
	ns_exec() {
		_n=$1
		shift
		case $_n in a) _n=$BENCH_NS_A ;; b) _n=$BENCH_NS_B ;; esac
		ip netns exec "$_n" "$@"
	}
else
	. "$PV_ROOT/tests/lib/pods.sh"
	pods_up
	trap 'stop_server iperf3; stop_server sockperf; topo_cleanup' EXIT
	IP_B=$POD_B_IP
	DEV=$POD_DEV
	ns_exec() { topo_exec "$@"; }
fi
LIB=$PV_BUILD/lib

for c in ib_write_bw ib_send_bw ib_read_bw ib_write_lat ib_send_lat \
	ib_read_lat iperf3 sockperf ss; do
	command -v "$c" >/dev/null 2>&1 || { echo "bench: needs $c"; exit 1; }
done

verbs() {
	_v=$1
	shift
	ns_exec "$_v" env LD_LIBRARY_PATH="$LIB" PODVERBS_ENGINE="$PODVERBS_ENGINE" "$@"
}

listening() {
	[ -n "$(ns_exec b ss -Hltn "sport = :$1" 2>/dev/null)" ]
}

# wait_listen PORT PID: until PORT listens in pod b (or PID exits), 10 s.
wait_listen() {
	_i=0
	while ! listening "$1"; do
		kill -0 "$2" 2>/dev/null || return 1
		_i=$((_i + 1))
		[ $_i -gt 100 ] && return 1
		sleep 0.1
	done
}

# median: the middle of the numbers on stdin ("-" when there are none).
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}

# engine_ticks: the engine's utime+stime in clock ticks.
engine_ticks() {
	[ -n "$ENGINE_PID" ] && [ -r "/proc/$ENGINE_PID/stat" ] || { echo 0; return; }
	sed 's/.*) //' "/proc/$ENGINE_PID/stat" | awk '{ print $12 + $13 }'
}

HZ=$(getconf CLK_TCK)
# cpu_pct TICKS SECS: percent of one core.
cpu_pct() {
	awk -v t="$1" -v s="$2" -v hz="$HZ" 'BEGIN { printf "%.1f", (s > 0 ? 100 * t / hz / s : 0) }'
}

now() { date +%s.%N; }

# perftest_once TOOL FIELD ARGS...: one server/client run; prints field
# FIELD of the last result row of the client, or nothing on failure (the
# tail of both outputs goes to $TMP/last-failure).
perftest_once() {
	_t=$1 _f=$2
	shift 2
	verbs b timeout 60 "$_t" -d "$DEV" -F "$@" >"$TMP/srv.out" 2>&1 &
	_s=$!
	if ! wait_listen 18515 "$_s"; then
		kill "$_s" 2>/dev/null
		wait "$_s" 2>/dev/null
		{ echo "== $_t server"; tail -5 "$TMP/srv.out"; } >"$TMP/last-failure"
		echo x >>"$TMP/failed.$_t"
		return
	fi
	verbs a timeout 60 "$_t" -d "$DEV" -F "$@" "$IP_B" >"$TMP/cli.out" 2>&1
	_rc=$?
	wait "$_s"
	if [ $_rc != 0 ]; then
		{ echo "== $_t client (rc $_rc)"; grep -v '^ ' "$TMP/cli.out" | head -5
		  echo "== $_t server"; grep -v '^ ' "$TMP/srv.out" | head -5; } \
			>"$TMP/last-failure"
		echo x >>"$TMP/failed.$_t"
		return
	fi
	awk -v f="$_f" '/^ *#bytes/ { on = 1; next }
		on && /^ *[0-9]+ +[0-9]+ +[0-9.]+/ { v = $f } END { if (v != "") print v }' \
		"$TMP/cli.out"
}

# rdma_bw TOOL: median Gb/s; the engine's CPU ticks and wall seconds of
# each run go to $TMP/cpu.TOOL.
rdma_bw() {
	for _r in $(seq "$REPS"); do
		_t0=$(engine_ticks) _w0=$(now)
		perftest_once "$1" 4 -s $BW_SIZE -D "$SECS" --report_gbits
		echo "$(( $(engine_ticks) - _t0 )) $_w0 $(now)" >>"$TMP/cpu.$1"
	done | median
}

rdma_lat() {
	for _r in $(seq "$REPS"); do
		perftest_once "$1" 5 -s $LAT_SIZE -n "$LAT_ITERS"
	done | median
}

# bg_server NAME NS CMD...: starts CMD in NS in the background with its
# pid in $TMP/NAME.pid and $SRV_PID (the command itself, not a wrapping
# shell, so that stop_server can end it).  Not to be called inside $(...).
bg_server() {
	_n=$1 _ns=$2
	shift 2
	rm -f "$TMP/$_n.pid"
	ns_exec "$_ns" sh -c 'echo $$ >"$0"; exec "$@"' "$TMP/$_n.pid" "$@" \
		>"$TMP/$_n.out" 2>&1 &
	_i=0
	while [ ! -s "$TMP/$_n.pid" ] && [ $_i -lt 50 ]; do
		_i=$((_i + 1))
		sleep 0.1
	done
	SRV_PID=$(cat "$TMP/$_n.pid" 2>/dev/null)
}

stop_server() {
	[ -s "$TMP/$1.pid" ] && kill "$(cat "$TMP/$1.pid")" 2>/dev/null
	rm -f "$TMP/$1.pid"
}

tcp_bw() {
	for _r in $(seq "$REPS"); do
		bg_server iperf3 b iperf3 -s -1 -p 5201
		if wait_listen 5201 "$SRV_PID"; then
			ns_exec a timeout 60 iperf3 -c "$IP_B" -p 5201 -t "$SECS" -f m 2>&1 |
				awk '/receiver/ { for (i = 1; i < NF; i++)
					if ($(i + 1) == "Mbits/sec") print $i / 1000 }'
		fi
		stop_server iperf3
	done | median
}

tcp_lat() {
	bg_server sockperf b sockperf server --tcp -i "$IP_B" -p 11111
	if wait_listen 11111 "$SRV_PID"; then
		for _r in $(seq "$REPS"); do
			ns_exec a timeout 60 sockperf ping-pong --tcp -i "$IP_B" \
				-p 11111 -t "$SECS" -m 14 2>&1 |
				awk '/percentile 50.000 =/ { print $NF }'
		done | median
	else
		echo "-"
	fi
	stop_server sockperf
}

echo "podverbs data-path benchmark: pods a -> b on one engine, median of $REPS runs each"
echo "  bandwidth: ${BW_SIZE} B messages, ${SECS} s (perftest -D, iperf3 -t, one stream)"
echo "  latency:   ${LAT_SIZE} B, perftest t_typical over $LAT_ITERS iterations;"
echo "             TCP: sockperf ping-pong median (one way), 14 B, ${SECS} s"

_t0=$(engine_ticks)
sleep 2
IDLE_CPU=$(cpu_pct $(( $(engine_ticks) - _t0 )) 2)

TCP_BW=$(tcp_bw)
TCP_LAT=$(tcp_lat)

# failed TOOL: " (N of REPS runs failed)" when any did.
failed() {
	[ -s "$TMP/failed.$1" ] &&
		echo " ($(wc -l <"$TMP/failed.$1") of $REPS runs failed)"
}

# row NAME VALUE UNIT TCP KIND [NOTE]: KIND bw wants VALUE >= 3 x TCP,
# lat wants VALUE < TCP.
row() {
	awk -v n="$1" -v v="$2" -v u="$3" -v t="$4" -v k="$5" -v note="${6:-}" 'BEGIN {
		if (v == "" || v == "-" || t == "" || t == "-") {
			printf "%-16s %10s %-5s %10s %-5s %8s  %-10s %s\n", n, (v == "" ? "-" : v), u,
				(t == "" ? "-" : t), u, "-", (k == "bw" ? ">= 3x TCP" : "< TCP"), "NO-RESULT" note
			exit
		}
		r = t > 0 ? v / t : 0
		ok = (k == "bw") ? (r >= 3) : (v < t)
		printf "%-16s %10.2f %-5s %10.2f %-5s %7.2fx  %-10s %s\n", n, v, u, t, u, r,
			(k == "bw" ? ">= 3x TCP" : "< TCP"), (ok ? "PASS" : "MISS") note
	}'
}

{
	printf '%-16s %10s %-5s %10s %-5s %8s  %-10s %s\n' test RDMA "" TCP "" ratio target result
	for t in write send read; do
		v=$(rdma_bw ib_${t}_bw)
		row "ib_${t}_bw 64K" "$v" Gb/s "$TCP_BW" bw "$(failed ib_${t}_bw)"
	done
	for t in write send read; do
		v=$(rdma_lat ib_${t}_lat)
		row "ib_${t}_lat 2B" "$v" us "$TCP_LAT" lat "$(failed ib_${t}_lat)"
	done
} >"$TMP/table"
BW_CPU=$(awk -v hz="$HZ" '{ t += $1; s += $3 - $2 }
	END { printf "%.1f", (s > 0 ? 100 * t / hz / s : 0) }' "$TMP/cpu.ib_write_bw")

echo
cat "$TMP/table"
echo
echo "engine CPU: idle ${IDLE_CPU}% of a core (2 s); during ib_write_bw ${BW_CPU}% (incl. setup)"
echo "(read latency is a round trip; send/write latency and sockperf's are one way)"
if [ -s "$TMP/last-failure" ]; then
	echo
	echo "last failed perftest run:"
	cat "$TMP/last-failure"
fi
exit 0
