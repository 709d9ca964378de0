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
# BENCH_RS_ONLY=1 runs only the TCP baselines and the rsocket rows
# (bench/lib/rsocket.sh), same node.
# Then the connection-setup row (cmtime, bench/lib/cm_rate.sh; BENCH_CM_ONLY=1
# runs only those rows, same-node and cross-node; BENCH_ADMIN_B: the
# caller's engine admin socket, to see cmtime's listen).
# BENCH_CROSS=1 (the default) then runs the cross-node rows, bench/cross.sh
# (its own two simulated nodes unless the caller exports BENCH_X_PODS and
# the nodes' state, as deploy/demo.sh does); BENCH_CROSS=0 skips them.
# Between them: the message-rate and 4 MiB rows (bench/lib/msgrate.sh) and
# a size sweep (bench/lib/sweep.sh; BENCH_SWEEP=0 skips it).  Last, the
# report: BUILD/bench/report.md with the machine, every table and plots of
# bandwidth and latency against message size (bench/lib/report.sh;
# BENCH_OUT elsewhere).
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
	# BENCH_RT_PRIORITY=N: the engine's loop thread in SCHED_FIFO at N
	# (--limit rt_priority=N, eng_rt_prio.h); unset: the engine's default.
	PODS_ENGINE_ARGS="${PODS_ENGINE_ARGS:-}${BENCH_RT_PRIORITY:+ --limit rt_priority=$BENCH_RT_PRIORITY}"
	pods_up
	trap 'stop_server iperf3; stop_server sockperf; topo_cleanup' EXIT
	IP_B=$POD_B_IP
	DEV=$POD_DEV
	ns_exec() { topo_exec "$@"; }
fi
LIB=$PV_BUILD/lib
ENG_A=$PODVERBS_ENGINE ENG_B=$PODVERBS_ENGINE
ENGINE_PID_A=$ENGINE_PID ENGINE_PID_B=
. "$PV_ROOT/bench/lib/measure.sh"
. "$PV_ROOT/bench/lib/ucx.sh"
. "$PV_ROOT/bench/lib/qp_scale.sh"
. "$PV_ROOT/bench/lib/msgrate.sh"
. "$PV_ROOT/bench/lib/sweep.sh"
. "$PV_ROOT/bench/lib/report.sh"
REPORT_LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

for c in ib_write_bw ib_send_bw ib_read_bw ib_write_lat ib_send_lat \
	ib_read_lat iperf3 sockperf ss; do
	command -v "$c" >/dev/null 2>&1 || { echo "bench: needs $c"; exit 1; }
done

echo "podverbs data-path benchmark: pods a -> b on one engine, median of $REPS runs each"
echo "  bandwidth: ${BW_SIZE} B messages, ${SECS} s (perftest -D, iperf3 -t, one stream)"
echo "  latency:   ${LAT_SIZE} B, perftest t_typical over $LAT_ITERS iterations;"
echo "             TCP: sockperf ping-pong median (one way), 14 B, ${SECS} s"
[ -n "${BENCH_RT_PRIORITY:-}" ] && echo "  engine:    loop thread SCHED_FIFO at $BENCH_RT_PRIORITY (BENCH_RT_PRIORITY)"

# BENCH_CM_ONLY=1: only the connection-setup rows (bench/lib/cm_rate.sh),
# here and in bench/cross.sh.
. "$PV_ROOT/bench/lib/cm_rate.sh"
CM_ADMIN_B=${BENCH_ADMIN_B:-${ENGINE_ADMIN_SOCK:-}}
cm_rows() {
	echo
	echo "connection setup: RDMA CM, Debian's cmtime, $CM_CONNS connections at once, median of $REPS runs"
	cm_rate_row "cmtime 1 node"
}
if [ "${BENCH_CM_ONLY:-0}" = 1 ]; then
	command -v cmtime >/dev/null 2>&1 || { echo "bench: needs cmtime"; exit 1; }
	cm_rows
	[ "${BENCH_CROSS:-1}" = 1 ] || exit 0
	echo
	exec sh "$PV_ROOT/bench/cross.sh" "$PV_BUILD"
fi

_t0=$(engine_ticks "$ENGINE_PID")
sleep 2
IDLE_CPU=$(cpu_pct $(( $(engine_ticks "$ENGINE_PID") - _t0 )) 2)

TCP_BW=$(tcp_bw)
TCP_LAT=$(tcp_lat)

# BENCH_RS_ONLY=1: only the rsocket rows (bench/lib/rsocket.sh) beside
# the TCP baselines just measured, then exit.
if [ "${BENCH_RS_ONLY:-0}" = 1 ]; then
	. "$PV_ROOT/bench/lib/rsocket.sh"
	echo
	printf '%-16s %10s %-5s %10s %-5s %8s  %-10s %s\n' test RDMA "" TCP "" ratio target result
	rs_rows
	exit 0
fi

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
	# UCX over rc_verbs beside UCX over tcp (bench/lib/ucx.sh); Debian's
	# ucx-utils, optional here.
	if command -v ucx_perftest >/dev/null 2>&1; then
		ucx_rows "" 3
	else
		echo "(no UCX rows: needs ucx_perftest, Debian's ucx-utils)"
	fi
	# iperf3/sockperf over rsockets (Debian's preload on our librdmacm).
	. "$PV_ROOT/bench/lib/rsocket.sh"
	rs_rows
} >"$TMP/table"
BW_CPU=$(tool_cpu ib_write_bw 1)

echo
cat "$TMP/table"
echo
echo "engine CPU: idle ${IDLE_CPU}% of a core (2 s); during ib_write_bw ${BW_CPU}% (incl. setup)"
echo "(read latency is a round trip; send/write latency and sockperf's are one way)"
echo "(ucx rows: ucx_perftest over rc_verbs, TCP column = the same test over UCX's tcp; tag_lat is half a round trip)"
qp_scale_rows | tee "$TMP/qpscale"
if [ -s "$TMP/last-failure" ]; then
	echo
	echo "last failed perftest run:"
	cat "$TMP/last-failure"
fi
# Message rate and 4 MiB messages (bench/lib/msgrate.sh), then the size
# sweep for the report's plots (bench/lib/sweep.sh; BENCH_SWEEP=0 skips it).
echo
echo "message rate (8 B, perftest MsgRate, median of $REPS) and 4 MiB messages:"
msgrate_rows >"$TMP/msgrate"
cat "$TMP/msgrate"
cat "$TMP/qpscale" >>"$TMP/msgrate"
if [ "${BENCH_SWEEP:-1}" = 1 ]; then
	echo
	echo "size sweep for the report (one run per point): bandwidth $SWEEP_BW_SIZES; latency $SWEEP_LAT_SIZES"
	sweep_run
fi
command -v cmtime >/dev/null 2>&1 && cm_rows | tee "$TMP/cm.txt"
# The cross-node rows (bench/cross.sh): its own two nodes, or the caller's
# (BENCH_X_PODS, see there).  Its exit status is this script's: a miss is
# never an error, a setup that could not be built is.  The report
# (bench/lib/report.sh) is written last, with them.
rc=0
if [ "${BENCH_CROSS:-1}" = 1 ]; then
	echo
	{ sh "$PV_ROOT/bench/cross.sh" "$PV_BUILD"; echo $? >"$TMP/cross.rc"; } |
		tee "$TMP/cross.txt"
	rc=$(cat "$TMP/cross.rc" 2>/dev/null || echo 1)
fi
cat "$TMP/cm.txt" >>"$TMP/table" 2>/dev/null
echo
report_write "$TMP/table" "$TMP/msgrate" "$TMP/cross.txt"
exit "$rc"
