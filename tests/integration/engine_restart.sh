#!/bin/sh
# SPDX-License-Identifier: MIT
# The engine dies (SIGKILL) under traffic and a new one starts with the
# same --state-file:
#  - both pods' devices come back with the same ids, names, namespaces,
#    interfaces, P_Keys, node GUIDs and GIDs;
#  - the applications of the old engine see IBV_EVENT_DEVICE_FATAL, and the
#    same processes list, open and use their devices again
#    (tests/integration/datapath/dpt_restart.c);
#  - new processes run Debian's unmodified ibv_rc_pingpong over our
#    library on the restored devices;
#  - a graceful stop (SIGTERM, as a DaemonSet rollout sends) keeps them too;
#  - a device whose namespace went away while no engine ran is dropped
#    with a log line and leaves the state file.
. "$PV_ROOT/tests/lib/pods.sh"

topo_init
[ -e "$PV_LIB/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
DPT=$PV_BUILD/tests/integration/dpt_restart
[ -x "$DPT" ] || skip "dpt_restart not built"
need_cmd ibv_rc_pingpong /usr/bin/python3
topo_ns a
topo_ns b
topo_ns c
topo_veth a b "$POD_A_IP/24" "$POD_B_IP/24" eth0 eth0
topo_veth c c 10.78.1.1/24 - eth0 peer0
STATE_FILE=$TMP/engine-state/devices.json
start_engine --state-file "$STATE_FILE"
pod_dev_add a --pkey 0x8001
pod_dev_add b --pkey 0x8001
pod_dev_add c
# IPv6 link-local GIDs join the tables once DAD is done: wait, so the
# snapshot below is final.
for _n in a b c; do topo_wait_dad "$_n" 10; done
wait_until 10 sh -c "[ \$(\"$PV_BUILD/bin/pvctl\" --socket \"$ENGINE_SOCK\" --json dev list | grep -o '\"fe80' | wc -l) = 3 ]" ||
	fail "link-local GIDs did not appear"

# The identity of every device, one line each (port state and clients
# left out: they follow the interface and the applications).
dev_ident() {
	pvctl --json dev list | /usr/bin/python3 -c '
import json, sys
for d in json.load(sys.stdin):
    print(d["id"], d["name"], d["ifname"], d["netns"], d["netns_dev"],
          d["netns_ino"], d["pkey"], d["node_guid"], ",".join(d["gids"]))'
}

# stat_of NAME: one engine counter.
stat_of() {
	pvctl stats | awk -v n="$1" '$1 == n { print $2 }'
}

BEFORE=$(dev_ident)
[ "$(echo "$BEFORE" | wc -l)" = 3 ] || fail "expected 3 devices: $BEFORE"
[ -s "$STATE_FILE" ] || fail "no state file at $STATE_FILE after dev add"
[ "$(stat -c %a "$STATE_FILE")" = 600 ] ||
	fail "state file mode $(stat -c %a "$STATE_FILE"), not 600"
[ "$(stat -c %a "${STATE_FILE%/*}")" = 700 ] ||
	fail "state folder mode $(stat -c %a "${STATE_FILE%/*}"), not 700"
echo "ok: 3 devices, state written to $STATE_FILE (0600 in a 0700 folder)"

# 1. SIGKILL under traffic.
timeout 120 env PODVERBS_ENGINE="$ENGINE_SOCK" LD_LIBRARY_PATH="$PV_LIB" \
	"$DPT" "$(topo_path a)" "$(topo_path b)" "$TMP/running" "$TMP/back" \
	>"$TMP/dpt.out" 2>&1 &
DPT_PID=$!
topo_track_pid "$DPT_PID"
wait_until 30 test -e "$TMP/running" || {
	cat "$TMP/dpt.out"
	fail "traffic did not start"
}
OLD_PID=$ENGINE_PID
kill -9 "$ENGINE_PID"
wait "$ENGINE_PID" 2>/dev/null
ENGINE_PID=
cp "$ENGINE_LOG" "$TMP/engine-1.log"
echo "ok: engine $OLD_PID SIGKILLed under traffic"
start_engine --state-file "$STATE_FILE"
AFTER=$(dev_ident)
if [ "$BEFORE" != "$AFTER" ]; then
	echo "before:"; echo "$BEFORE"; echo "after:"; echo "$AFTER"
	tail -20 "$ENGINE_LOG"
	fail "devices differ after the restart"
fi
[ "$(stat_of state_entries_restored)" = 3 ] ||
	fail "state_entries_restored $(stat_of state_entries_restored), not 3"
echo "ok: new engine $ENGINE_PID restored the 3 devices (same ids, names, netns, P_Keys, GUIDs, GIDs)"
touch "$TMP/back"
wait "$DPT_PID"
rc=$?
cat "$TMP/dpt.out"
[ "$rc" = 0 ] || {
	tail -20 "$ENGINE_LOG"
	fail "dpt_restart exited $rc"
}
grep -q '^\[A\] DEVICE_FATAL' "$TMP/dpt.out" &&
	grep -q '^\[B\] DEVICE_FATAL' "$TMP/dpt.out" ||
	fail "a side did not report DEVICE_FATAL"
echo "ok: both old clients saw DEVICE_FATAL and reopened their devices in the same process"

# 2. New processes, Debian's binary.
if pair_case rc-after-restart 60 "ibv_rc_pingpong -d $POD_DEV -g 0 -n 200 -c" \
	"ibv_rc_pingpong -d $POD_DEV -g 0 -n 200 -c"; then
	grep -Eq 'iters in [0-9.]+ seconds' "$TMP/rc-after-restart.cli" ||
		case_fail rc-after-restart "no latency line"
	case_ok "ibv_rc_pingpong after the restart: $(grep usec/iter "$TMP/rc-after-restart.cli")"
fi
[ -z "$PAIRS_FAILED" ] || fail "ibv_rc_pingpong after the restart"

# 3. SIGTERM keeps the devices as well (the engine's teardown of its
#    devices on the way out is not a deletion).
stop_engine
start_engine --state-file "$STATE_FILE"
[ "$(dev_ident)" = "$BEFORE" ] || fail "devices differ after SIGTERM + start"
echo "ok: SIGTERM + start keeps the devices"

# 4. A namespace gone while no engine runs: that device is dropped.
stop_engine
ip netns del "$(topo_name c)"
cp "$ENGINE_LOG" "$TMP/engine-3.log"
start_engine --state-file "$STATE_FILE"
NOW=$(dev_ident)
[ "$NOW" = "$(echo "$BEFORE" | grep -v " $(topo_path c) ")" ] ||
	fail "after pod c's namespace went: $NOW"
grep -q "$(topo_path c).*dropped\|dropped.*$(topo_path c)" "$ENGINE_LOG" ||
	fail "no log line for the dropped device: $(tail -5 "$ENGINE_LOG")"
[ "$(stat_of state_entries_dropped)" = 1 ] ||
	fail "state_entries_dropped $(stat_of state_entries_dropped), not 1"
/usr/bin/python3 "$PV_ROOT/tests/lib/engine_state.py" "$STATE_FILE" |
	grep -q "$(topo_name c)" &&
	fail "the dropped device is still in the state (file and journal)"
echo "ok: pod c's device dropped with a log line ($(grep dropped "$ENGINE_LOG" | head -1))"

# 5. Devices added and deleted after the restart are written too.
pvctl dev del "$POD_DEV" --netns "$(topo_path b)" >/dev/null ||
	fail "dev del b"
stop_engine
start_engine --state-file "$STATE_FILE"
[ "$(dev_ident)" = "$(echo "$BEFORE" | grep " $(topo_path a) ")" ] ||
	fail "after deleting b's device and restarting: $(dev_ident)"
echo "ok: a deletion reaches the state file"
echo PASS
