#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 8, finding 5: a hostile pod pair must not freeze the engine.
# Pods c -> d keep 1 GiB RDMA WRITEs in flight (16 on each of
# FLOOD_QPS QPs, tests/integration/datapath/dpt_flood.c) while
#  - control requests keep flowing: `pvctl stats` answers within 1 s;
#  - a victim pair a <-> b opens its device, connects and ping-pongs for
#    2 s, every round trip within FLOOD_MAX_STALL_MS (default 1000), and
#    finishes while the flood still runs (not after it, which is what a
#    blocked engine gives);
#  - the hostile writes themselves complete.
# These are liveness bounds; bench/victim.sh measures latency.
# Cross-node (PV_TOPO=cross) c and d are on the two nodes, the flood and
# the victim's ping-pong both cross the wire, and both engines must keep
# answering; the writes are 8 MiB there (FLOOD_MB), or draining the
# window after the flood would take minutes at the wire's tens of MB/s.
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
need_cmd date
run() {
	_x=$1 _y=$2
	shift 2
	timeout 90 env PODVERBS_ENGINE="$(pod_engine_sock "$_x")" \
		PODVERBS_ENGINE_B="$(pod_engine_sock "$_y")" LD_LIBRARY_PATH="$PV_LIB" \
		"$PROG" "$(topo_path "$_x")" "$(topo_path "$_y")" "$@"
}
ms() { echo $(( $(date +%s%N) / 1000000 )); }
FLOOD_SECS=${FLOOD_SECS:-12}
# Under ASan (make check SAN=1) memcpy is several times slower: smaller
# writes keep the drain after the flood inside the programs' 60 s alarm.
[ "${PV_TOPO:-}" = cross ] && FLOOD_MB=${FLOOD_MB:-8}
[ -n "${ASAN_OPTIONS:-}" ] && FLOOD_MB=${FLOOD_MB:-128}
run c d write "${FLOOD_MB:-1024}" "$FLOOD_SECS" 16 "${FLOOD_QPS:-2}" >"$TMP/flood.out" 2>&1 &
fpid=$!
wait_until 60 grep -q "hostile: flooding" "$TMP/flood.out" ||
	{ cat "$TMP/flood.out"; fail "the flood did not start"; }
t_flood=$(ms)
worst=0
nodes=1
[ "${PV_TOPO:-}" = cross ] && nodes="1 2"
for i in 1 2 3; do
	for n in $nodes; do
		t0=$(ms)
		pvctl_node "$n" stats >/dev/null ||
			fail "pvctl stats failed under the flood (node $n)"
		d=$(( $(ms) - t0 ))
		[ "$d" -gt "$worst" ] && worst=$d
	done
done
echo "pvctl stats under the flood: slowest of 3 took $worst ms"
t0=$(ms)
run a b pingpong 2 "${FLOOD_MAX_STALL_MS:-1000}" >"$TMP/victim.out" 2>&1
vrc=$?
t_victim=$(( $(ms) - t0 ))
grep -q "hostile: [0-9]" "$TMP/flood.out" && flood_over=yes || flood_over=no
echo "victim (setup + 2 s ping-pong) took $t_victim ms, started $(( t0 - t_flood )) ms into the flood; flood over by then: $flood_over"
echo "loaded:   $(grep victim: "$TMP/victim.out")"
wait "$fpid"
frc=$?
cat "$TMP/flood.out"
pid_alive "$ENGINE_PID" || fail "the engine died"
[ "${PV_TOPO:-}" != cross ] || pid_alive "$(node_engine_pid 2)" ||
	fail "node 2's engine died"
[ "$frc" = 0 ] || fail "the hostile flood itself failed (exit $frc)"
grep -q "hostile: [1-9]" "$TMP/flood.out" || fail "the flood made no progress: the check is blind"
[ "$worst" -lt 1000 ] || fail "a control request waited $worst ms behind the flood"
[ "$vrc" = 0 ] || { cat "$TMP/victim.out"; fail "victim stalled under the flood"; }
[ "$flood_over" = no ] || fail "the victim only got through after the flood ended"
echo PASS
