#!/bin/sh
# SPDX-License-Identifier: MIT
# The CNI plugin's view of an engine restart: an attachment made by ADD on
# the old engine is still there after a SIGKILL and a new engine on the
# same state file (same id, so CHECK passes and DEL finds it), DEL removes
# it from the engine and from the state file (a further restart does not
# bring it back), and ADDs on the new engine work and do not reuse an id.
. "$PV_ROOT/tests/lib/topo.sh"
. "$PV_ROOT/tests/lib/cni.sh"

topo_init
[ -x "$PLUGIN" ] || skip "podverbs CNI plugin not built"
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
topo_bridge node 10.9.0.1/24 a 10.9.0.2/24 b 10.9.0.3/24
STATE_FILE=$TMP/engine-state/devices.json
start_engine --state-file "$STATE_FILE"
STATE=$TMP/state
NSA=$(topo_path a) NSB=$(topo_path b)

dev_id_of() {
	"$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" dev list |
		awk -v n="$1" -v ns="$2" '$2 == n && $3 == ns { print $1 }'
}

kill_and_restart() {
	kill -9 "$ENGINE_PID"
	wait "$ENGINE_PID" 2>/dev/null
	ENGINE_PID=
	start_engine --state-file "$STATE_FILE"
}

CONF_A=$(cni_conf "$NSA" 10.9.0.2/24 ',"pkey":"0x8001","deviceName":"rdmaA"')
CONF_B=$(cni_conf "$NSB" 10.9.0.3/24 ',"deviceName":"rdmaB"')
run_cni ADD ca "$NSA" "$CONF_A"
expect_ok "ADD a"
run_cni ADD cb "$NSB" "$CONF_B"
expect_ok "ADD b"
ID_A=$(dev_id_of rdmaA "$NSA")
ID_B=$(dev_id_of rdmaB "$NSB")
[ -n "$ID_A" ] && [ -n "$ID_B" ] || fail "ADD made no devices"

kill_and_restart
[ "$(dev_id_of rdmaA "$NSA")" = "$ID_A" ] ||
	fail "rdmaA has id '$(dev_id_of rdmaA "$NSA")' after the restart, was $ID_A"
echo "ok: the new engine has rdmaA ($ID_A) and rdmaB ($ID_B) made by ADD on the old one"

CONF_A_ADDED=$(cni_conf "$NSA" 10.9.0.2/24 ',"pkey":"0x8001","deviceName":"rdmaA"')
run_cni CHECK ca "$NSA" "$CONF_A_ADDED"
expect_ok "CHECK a after the restart"
echo "ok: CHECK passes after the restart"

run_cni DEL ca "$NSA" "$CONF_A"
expect_ok "DEL a after the restart"
engine_has rdmaA "$NSA" && fail "DEL after the restart left rdmaA in the engine"
/usr/bin/python3 "$PV_ROOT/tests/lib/engine_state.py" "$STATE_FILE" |
	grep -q rdmaA && fail "rdmaA still in the engine's state (file and journal)"
echo "ok: DEL after the restart removes rdmaA from the engine and its state file"

kill_and_restart
engine_has rdmaA "$NSA" && fail "rdmaA came back after another restart"
engine_has rdmaB "$NSB" || fail "rdmaB lost in the second restart"
echo "ok: another restart brings back rdmaB only"

# A new attachment on the restarted engine gets an id never handed out.
run_cni ADD ca2 "$NSA" "$CONF_A"
expect_ok "ADD a again"
ID_A2=$(dev_id_of rdmaA "$NSA")
[ "$ID_A2" != "$ID_A" ] && [ "$ID_A2" != "$ID_B" ] ||
	fail "new device got id $ID_A2 (old ones $ID_A, $ID_B)"
echo "ok: a new ADD gets id $ID_A2, not a reused one"
run_cni DEL ca2 "$NSA" "$CONF_A"
expect_ok "DEL a again"
run_cni DEL cb "$NSB" "$CONF_B"
expect_ok "DEL b"
[ "$(engine_count)" = 0 ] || fail "$(engine_count) devices left"
[ "$(state_count)" = 0 ] || fail "CNI state left: $(ls "$STATE")"
echo PASS
