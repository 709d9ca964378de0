#!/bin/sh
# SPDX-License-Identifier: MIT
# The benchmark's cross-node rows (issue 10): a pod on node 1 and a pod on
# node 2, each node with its own engine, the link between them through the
# "wire" namespace of tests/lib/nodes.sh.  For each condition (interface
# MTU 1500, 9000, and 1500 with pv-impair dropping 3% each way: the same
# two pods, the same link), TCP's baselines (iperf3 one stream, sockperf
# ping-pong median) and perftest beside them, with the ratio and the CPU
# of both engines.  A perftest run that fails shows FAILED in its row;
# nothing here fails on a miss (a benchmark, not a test).
#
# usage: bench/cross.sh [BUILD]         (root; bench/run.sh runs it when
#                                        BENCH_CROSS=1, the default)
# Builds its own two nodes (nodes.sh, routed) unless the caller has them
# (deploy/demo.sh does) and exports, besides nodes.sh's own state
# (TOPO_PREFIX TOPO_TMP NODES_N NODES_LAYOUT NODES_MTU, exported by
# topo_init and nodes_up):
#   BENCH_X_PODS     "CLIENT SERVER": pod names (nodes.sh's), on two nodes
# First the connection-setup row (cmtime, bench/lib/cm_rate.sh; with
# BENCH_CM_ONLY=1 only that).
# Knobs: BENCH_X_UCX_BW_ITERS (500: 64 KiB messages of the ucx tag_bw row), BENCH_X_REPS (else BENCH_REPS, else 3), BENCH_SECS (3), BENCH_LAT_ITERS (5000),
# BENCH_X_CONDS (default "1500 9000 1500+loss3"), BENCH_X_TIMEOUT (20: s a
# perftest side may take, doubled under loss; the first failed run ends its
# row's runs), BENCH_X_LOSS_ITERS (1000: latency iterations under loss).
#
# Uses tests/lib/nodes.sh (and topo.sh) as a library: its node layout, the
# pods' names and addresses, wire_impair; if those change, this changes.
PV_ROOT=$(cd "$(dirname "$0")/.." && pwd)
PV_BUILD=$(cd "${1:-${PV_BUILD:-$PV_ROOT/build}}" && pwd)
export PV_ROOT PV_BUILD
REPS=${BENCH_X_REPS:-${BENCH_REPS:-3}}
SECS=${BENCH_SECS:-3}
LAT_ITERS=${BENCH_LAT_ITERS:-5000}
BW_SIZE=65536
LAT_SIZE=2
CONDS=${BENCH_X_CONDS:-1500 9000 1500+loss3}
PT_TIMEOUT=${BENCH_X_TIMEOUT:-20}
PT_FAIL_FAST=1
LAT_ITERS0=$LAT_ITERS PT_TIMEOUT0=$PT_TIMEOUT

# nodes.sh starts with no nodes (NODES_N=0): the caller's count is kept.
_x_n=${NODES_N:-0}
. "$PV_ROOT/tests/lib/nodes.sh"
NODES_N=$_x_n

if [ -n "${BENCH_X_PODS:-}" ]; then
	[ -n "${TOPO_TMP:-}" ] && [ -d "$TOPO_TMP" ] ||
		{ echo "bench/cross: BENCH_X_PODS without nodes.sh's TOPO_TMP"; exit 1; }
	set -- $BENCH_X_PODS
	POD_A=$1 POD_B=$2
	TMP=$(mktemp -d /tmp/pvbench-x.XXXXXX)
	OWN=0
else
	topo_init
	nodes_up 2 routed 1500
	POD_A=a1 POD_B=b1
	node_pod_add 1 "$POD_A"
	node_pod_add 2 "$POD_B"
	TMP=$TOPO_TMP/bench
	mkdir -p "$TMP"
	OWN=1
fi
NODE_A=$(node_of "$POD_A") NODE_B=$(node_of "$POD_B")
[ -n "$NODE_A" ] && [ -n "$NODE_B" ] && [ "$NODE_A" != "$NODE_B" ] ||
	{ echo "bench/cross: $POD_A and $POD_B are not pods of two nodes"; exit 1; }
IP_B=$(node_pod_ip "$POD_B")
DEV=$NODES_DEV
LIB=$PV_BUILD/lib
ENG_A=$(node_engine_sock "$NODE_A") ENG_B=$(node_engine_sock "$NODE_B")
ENGINE_PID_A=$(node_engine_pid "$NODE_A") ENGINE_PID_B=$(node_engine_pid "$NODE_B")
MTU0=$NODES_MTU
ns_exec() {
	_x=$1
	shift
	case $_x in a) _x=$POD_A ;; b) _x=$POD_B ;; esac
	topo_exec "$_x" "$@"
}
. "$PV_ROOT/bench/lib/measure.sh"
. "$PV_ROOT/bench/lib/link.sh"
. "$PV_ROOT/bench/lib/cm_rate.sh"
CM_ADMIN_B=$(node_engine_admin "$NODE_B")
. "$PV_ROOT/bench/lib/ucx.sh"
# Across nodes fewer UCX messages (BENCH_X_UCX_BW_ITERS): a 64 KiB message
# is 64 datagrams through both engines and two routed hops.
UCX_BW_ITERS=${BENCH_X_UCX_BW_ITERS:-500}
UCX_LAT_ITERS0=$UCX_LAT_ITERS
UCX_OK=0
command -v ucx_perftest >/dev/null 2>&1 && UCX_OK=1

finish() {
	stop_server iperf3
	stop_server sockperf
	if [ "$OWN" = 0 ]; then
		# The caller's nodes go back as they were: the bridge, the MTU.
		[ -n "$(wire_impair_pid)" ] && { wire_impair off; wire_offload on; }
		link_mtu "$MTU0" >/dev/null 2>&1
		rm -rf "$TMP"
	else
		topo_cleanup	# topo_init's EXIT trap, which this one replaced
	fi
}
trap finish EXIT

for c in ib_write_bw ib_send_bw ib_write_lat ib_send_lat ib_read_lat \
	iperf3 sockperf ss; do
	command -v "$c" >/dev/null 2>&1 || { echo "bench: needs $c"; exit 1; }
done

echo "cross-node rows: pod $POD_A (node $NODE_A, $(node_pod_ip "$POD_A")) -> pod $POD_B (node $NODE_B, $IP_B),"
echo "  each node its own engine, the link through the wire namespace; median of $REPS runs"
echo "  (a perftest run that fails ends its row's runs: FAILED, with its error below)"

# cond_run COND: the rows of one condition (MTU[+lossN]).
cond_run() {
	_mtu=${1%%+*} _loss=
	case $1 in *+loss*) _loss=${1##*+loss} ;; esac
	link_mtu "$_mtu" || { printf '%-12s link MTU %s could not be set\n' "$1" "$_mtu"; return; }
	LAT_ITERS=$LAT_ITERS0 PT_TIMEOUT=$PT_TIMEOUT0 UCX_LAT_ITERS=$UCX_LAT_ITERS0
	if [ -n "$_loss" ]; then
		# Every lost packet of a ping-pong waits for the transport
		# timer (perftest's QP timeout 14: 4.096 us x 2^14 = 67 ms), so
		# 5000 round trips at 3% loss take about 20 s: fewer of them,
		# more time.
		LAT_ITERS=${BENCH_X_LOSS_ITERS:-1000} PT_TIMEOUT=$((PT_TIMEOUT0 * 2))
		UCX_LAT_ITERS=$LAT_ITERS
		wire_impair loss="$_loss"
	elif [ -n "$(wire_impair_pid)" ]; then
		wire_impair off
		wire_offload on
	fi
	rm -f "$TMP"/failed.* "$TMP"/cpu.* "$TMP"/why.*
	_tbw=$(tcp_bw) _tlat=$(tcp_lat)
	for _t in write send; do
		_v=$(rdma_bw ib_${_t}_bw)
		printf '%-12s ' "$1"
		row "ib_${_t}_bw 64K" "$_v" Gb/s "$_tbw" bw "$(failed ib_${_t}_bw)" 1 \
			"$(cpu_both ib_${_t}_bw)"
	done
	for _t in send write read; do
		_v=$(rdma_lat ib_${_t}_lat)
		printf '%-12s ' "$1"
		row "ib_${_t}_lat 2B" "$_v" us "$_tlat" lat "$(failed ib_${_t}_lat)" 1 \
			"$(cpu_both ib_${_t}_lat)"
	done
	# UCX over rc_verbs beside UCX over tcp (bench/lib/ucx.sh).
	[ "$UCX_OK" = 1 ] && ucx_rows "$(printf '%-12s ' "$1")" 1
	for _f in "$TMP"/why.*; do
		[ -e "$_f" ] && { echo "$1: ${_f##*/why.}"; sed 's/^/    /' "$_f"; }
	done >>"$TMP/failures"
	[ -n "$_loss" ] && echo "$1: $(wire_brief ab) $(wire_brief ba)" >>"$TMP/wire"
}

# wire_brief DIR: the impairer's frames forwarded and dropped one way.
wire_brief() {
	wire_stats "$1" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "=")
		if (kv[1] == "rx" || kv[1] == "drop") v[kv[1]] = kv[2] } }
		END { printf "%s: %d frames in, %d dropped (%.1f%%);", $2, v["rx"], v["drop"],
			(v["rx"] ? 100 * v["drop"] / v["rx"] : 0) }'
}

# cpu_both TOOL: " nA% nB%" of the two engines over TOOL's runs.
cpu_both() {
	[ -s "$TMP/cpu.$1" ] || return 0
	printf ' n%s %s%% n%s %s%%' "$NODE_A" "$(tool_cpu "$1" 1)" "$NODE_B" "$(tool_cpu "$1" 2)"
}

# The connection-setup row first, on the link as it is (no impairer).
if command -v cmtime >/dev/null 2>&1; then
	echo
	echo "connection setup across nodes: RDMA CM over the wire (IB CM MADs on QP1), cmtime, $CM_CONNS connections at once, median of $REPS runs"
	cm_rate_row "cmtime 2 nodes"
fi
[ "${BENCH_CM_ONLY:-0}" = 1 ] && exit 0

: >"$TMP/failures"
: >"$TMP/wire"
echo
printf '%-12s %-16s %10s %-5s %10s %-5s %8s  %-10s %-9s%s\n' condition test RDMA "" TCP "" \
	ratio target result " engine CPU (% of a core)"
for c in $CONDS; do
	cond_run "$c"
done
echo
echo "condition: interface MTU on every hop (pods, bridges, uplinks, wire) [+lossN: pv-impair drops N% each way]"
echo "targets across nodes: bandwidth >= 1x TCP's single stream, every latency median below TCP's"
[ "$UCX_OK" = 1 ] && echo "ucx rows: ucx_perftest over rc_verbs, TCP column = the same test over UCX's tcp (tag_lat: half a round trip)"
[ -s "$TMP/wire" ] && { echo "impaired link's counters:"; sed 's/^/  /' "$TMP/wire"; }
if [ -s "$TMP/failures" ]; then
	echo
	echo "failed cross-node perftest runs (first of each row):"
	cat "$TMP/failures"
fi
exit 0
