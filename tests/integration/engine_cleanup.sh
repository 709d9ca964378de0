#!/bin/sh
# SPDX-License-Identifier: MIT
# Objects belong to their connection: a pod app that is SIGKILLed loses
# exactly its own objects (pvctl obj list), another app's stay.
. "$PV_ROOT/tests/lib/topo.sh"
topo_init
CTL="$PV_BUILD/bin/pvctl"
CLIENT="$PV_BUILD/tests/bin/eng-client"
[ -x "$CTL" ] && [ -x "$CLIENT" ] || skip "pvctl/eng-client not built"
topo_ns a
topo_ns b
topo_veth a b 10.9.0.1/24 10.9.0.2/24 eth0 eth0
start_engine
"$CTL" dev add --netns "$(topo_path a)" --ifname eth0 --name rdma0 || fail "add a"
"$CTL" dev add --netns "$(topo_path b)" --ifname eth0 --name rdma0 || fail "add b"

stat_of() {
	"$CTL" stats | awk -v n="$1" '$1 == n { print $2 }'
}
objs() {
	"$CTL" obj list | tail -n +2
}

ip netns exec "$(topo_name a)" "$CLIENT" hold rdma0 >"$TMP/a.out" 2>&1 &
PA=$!
topo_track_pid "$PA"
ip netns exec "$(topo_name b)" "$CLIENT" hold rdma0 >"$TMP/b.out" 2>&1 &
PB=$!
topo_track_pid "$PB"
wait_until 5 grep -q ready "$TMP/a.out" || { cat "$TMP/a.out"; fail "a not ready"; }
wait_until 5 grep -q ready "$TMP/b.out" || { cat "$TMP/b.out"; fail "b not ready"; }
"$CTL" obj list
# PD, MR, channel, CQ, SRQ, AH, QP per client.
[ "$(objs | wc -l)" = 14 ] || fail "expected 14 objects"
objs | grep qp | grep -q INIT || fail "QP not in INIT"
"$CTL" --json obj list >/dev/null || fail "obj list --json"
[ "$(objs | wc -l)" = "$(stat_of objects_live)" ] || fail "objects_live"
IDA=$("$CTL" dev list | awk -v p="$(topo_path a)" '$3 == p { print $1 }')
[ -n "$IDA" ] || fail "no device in a"
[ "$(obj_count "$IDA")" = 7 ] ||
	fail "obj list by device"

# SIGKILL the app in a (ip netns exec execs it: same pid): its objects
# go, b's stay.
kill -9 "$PA"
wait "$PA" 2>/dev/null
seven_left() { [ "$(obj_count)" = 7 ]; }
wait_until 5 seven_left ||
	{ "$CTL" obj list; fail "a's objects not freed"; }
no_objs "$IDA" ||
	fail "objects left on a's device"
kill -9 "$PB"
wait "$PB" 2>/dev/null
wait_until 5 no_objs ||
	fail "b's objects not freed"
[ "$(stat_of objects_live)" = 0 ] || fail "objects_live not 0"
"$CTL" stats | grep -E "clients_|objects_"
pid_alive "$ENGINE_PID" || fail "engine died"
echo PASS
