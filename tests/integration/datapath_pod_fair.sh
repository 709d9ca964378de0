#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 8 follow-up (finding 5): the data path shares each pass between
# pods (devices), not between client connections, so a pod cannot win a
# bigger share by opening more connections.  A victim pod pair a -> b
# keeps 16 MiB RDMA WRITEs in flight on one connection and one QP while
# a hostile pair c -> d floods the same way with 8 QPs, first on one
# connection, then on 8 connections (8 processes, one QP each).  All
# pairs start together (dpt_flood's DPT_FLOOD_GO) and run SHARE_SECS;
# the victim's share of the bytes moved must not shrink with the
# hostile pod's connection count: with 8 connections it keeps at least
# SHARE_MIN_RATIO (default 0.6) of its share against one.  (Per
# connection it fell to about a third: 1/9 against 1/3.)
# (tests/integration/datapath/dpt_flood.c)
# Cross-node (PV_TOPO=cross) the senders a and c share node 1's engine and
# the receivers b and d node 2's, every byte crossing the wire: the same
# bound holds for node 1's per-pod shares; the writes are 1 MiB there, or
# draining 128 in flight would take minutes at the wire's tens of MB/s.
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
if [ "${PV_TOPO:-}" = cross ]; then
	# Across nodes the hostile pair crosses the wire too: c on node 1
	# beside a, d on node 2 beside b.
	node_pod_add 1 c
	node_pod_add 2 d
else
	topo_ns c
	topo_ns d
	topo_veth c d 10.78.1.1/24 10.78.1.2/24 eth0 eth0
	pod_dev_add c
	pod_dev_add d
fi
PROG=$PV_BUILD/tests/integration/dpt_flood
[ -x "$PROG" ] || skip "dpt_flood not built"
need_cmd awk
SECS=${SHARE_SECS:-6}
MB=16
[ "${PV_TOPO:-}" = cross ] && MB=1

run() {
	_x=$1 _y=$2
	shift 2
	timeout 120 env PODVERBS_ENGINE="$(pod_engine_sock "$_x")" \
		PODVERBS_ENGINE_B="$(pod_engine_sock "$_y")" LD_LIBRARY_PATH="$PV_LIB" \
		DPT_FLOOD_GO="$TMP/go" "$PROG" "$(topo_path "$_x")" \
		"$(topo_path "$_y")" "$@"
}

window_mb() { awk '$1 == "window:" { print $2 }' "$1"; }

# round NAME CONNS QPS_PER_CONN: the victim against CONNS hostile
# processes of QPS_PER_CONN QPs each; sets SHARE (victim's %, x1000).
round() {
	_name=$1 _conns=$2 _qps=$3
	rm -f "$TMP/go"
	: >"$TMP/$_name.victim"
	run a b write "$MB" "$SECS" 16 1 >"$TMP/$_name.victim" 2>&1 &
	_pids=$!
	_files=$TMP/$_name.victim
	_i=0
	while [ "$_i" -lt "$_conns" ]; do
		: >"$TMP/$_name.h$_i"
		run c d write "$MB" "$SECS" 16 "$_qps" >"$TMP/$_name.h$_i" 2>&1 &
		_pids="$_pids $!"
		_files="$_files $TMP/$_name.h$_i"
		_i=$((_i + 1))
	done
	for _f in $_files; do
		wait_until 60 grep -q "hostile: ready" "$_f" ||
			{ cat "$_f"; fail "$_name: $_f never got ready"; }
	done
	touch "$TMP/go"
	for _p in $_pids; do
		wait "$_p" || { cat "$TMP/$_name".*; fail "$_name: a flood failed"; }
	done
	_v=$(window_mb "$TMP/$_name.victim")
	_h=0
	for _f in "$TMP/$_name".h*; do
		_m=$(window_mb "$_f")
		[ -n "$_m" ] || { cat "$_f"; fail "$_name: no window figure"; }
		_h=$((_h + _m))
	done
	[ -n "$_v" ] && [ $((_v + _h)) -gt 0 ] ||
		{ cat "$TMP/$_name.victim"; fail "$_name: no victim figure"; }
	SHARE=$((_v * 1000 / (_v + _h)))
	echo "$_name: victim $_v MiB, hostile pod $_h MiB over $_conns connection(s) x $_qps QP(s) in $SECS s: victim share $((SHARE / 10)).$((SHARE % 10))%"
	[ "$_v" -gt 0 ] || fail "$_name: the victim moved nothing"
}

round one_conn 1 8
s1=$SHARE
round eight_conns 8 1
s8=$SHARE
pid_alive "$ENGINE_PID" || fail "the engine died"
[ "${PV_TOPO:-}" != cross ] || pid_alive "$(node_engine_pid 2)" ||
	fail "node 2's engine died"
ratio=$((s8 * 100 / s1))
min=$(awk -v r="${SHARE_MIN_RATIO:-0.6}" 'BEGIN { printf "%d", r * 100 }')
echo "victim share with 8 connections / with 1: $((ratio / 100)).$(printf %02d $((ratio % 100))) (bound $min/100)"
[ "$ratio" -ge "$min" ] ||
	fail "the hostile pod's extra connections took the victim's share: $((s8 / 10)).$((s8 % 10))% against $((s1 / 10)).$((s1 % 10))%"
echo PASS
