#!/bin/sh
# SPDX-License-Identifier: MIT
# The plugin dies (SIGKILL) after the engine created the device but before
# its id reached the state record.  With the test build of the plugin
# (build/tests/bin/podverbs-fault, PODVERBS_CNI_TEST_CRASH_AT=engine-added):
#  - DEL afterwards deletes the device (found by namespace + interface under
#    the attachment's claim) and leaves no state;
#  - a retried ADD cleans up the dead one's device and succeeds (no EEXIST);
#  - GC reaps such a half-made attachment;
#  - devices of others are never deleted: one made outside the plugin
#    (pvctl) makes ADD fail and survives that attachment's DEL, and another
#    network's attachment on the same interface keeps its device when an
#    ADD that conflicts with it is undone and DELeted.
. "$PV_ROOT/tests/lib/topo.sh"
. "$PV_ROOT/tests/lib/cni.sh"

topo_init
FAULT=$PV_BUILD/tests/bin/podverbs-fault
[ -x "$PLUGIN" ] || skip "podverbs CNI plugin not built"
[ -x "$FAULT" ] || skip "test build of the plugin (podverbs-fault) not built"
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
topo_bridge node 10.9.0.1/24 a 10.9.0.2/24 b 10.9.0.3/24 c 10.9.0.4/24
start_engine
STATE=$TMP/state
NSA=$(topo_path a) NSB=$(topo_path b) NSC=$(topo_path c)
REAL_PLUGIN=$PLUGIN

# crash_add CID NETNS CONF: ADD with the test build, killed at the crash
# point; checks it died there and left the half-made state.
crash_add() {
	PLUGIN=$FAULT
	PODVERBS_CNI_TEST_CRASH_AT=engine-added
	export PODVERBS_CNI_TEST_CRASH_AT
	run_cni ADD "$1" "$2" "$3"
	unset PODVERBS_CNI_TEST_CRASH_AT
	PLUGIN=$REAL_PLUGIN
	[ "$RC" = 137 ] || fail "ADD $1 with the crash point: exit $RC, not killed: $OUT"
	_rec=$(cat "$STATE/rdmanet@$1@eth0.json" 2>/dev/null)
	printf '%s' "$_rec" | tr -d ' \t\n' | grep -q '"phase":"adding"' &&
		printf '%s' "$_rec" | tr -d ' \t\n' | grep -q '"devId":0,' ||
		fail "no half-made record after the crash: $_rec"
}

CONF_A=$(cni_conf "$NSA" 10.9.0.2/24 ',"deviceName":"rdmaA"')

# 1. Crash, then DEL: the device is found and deleted.
crash_add ca "$NSA" "$CONF_A"
engine_has rdmaA "$NSA" || fail "the engine has no rdmaA after the crash"
echo "ok: ADD killed after the engine made rdmaA; record says adding, devId 0"
run_cni DEL ca "$NSA" "$CONF_A"
expect_ok "DEL after the crash"
engine_has rdmaA "$NSA" && fail "DEL after the crash left rdmaA in the engine"
[ "$(state_count)" = 0 ] || fail "state left after DEL: $(ls "$STATE")"
echo "ok: DEL after the crash deletes the device and leaves no state"

# Same, DEL without CNI_NETNS (the namespace may be gone by then).
crash_add ca "$NSA" "$CONF_A"
run_cni DEL ca "" "$(cni_conf "" - ',"deviceName":"rdmaA"')"
expect_ok "DEL without netns after the crash"
[ "$(engine_count)" = 0 ] || fail "DEL without netns left $(engine_count) devices"
[ "$(state_count)" = 0 ] || fail "state left: $(ls "$STATE")"
echo "ok: DEL without CNI_NETNS or prevResult after the crash cleans up"

# 2. Crash, then ADD again: no EEXIST, one device, and DEL cleans it.
crash_add ca "$NSA" "$CONF_A"
run_cni ADD ca "$NSA" "$CONF_A"
expect_ok "retried ADD after the crash"
[ "$(engine_count)" = 1 ] || fail "retried ADD: $(engine_count) devices, not 1"
run_cni CHECK ca "$NSA" "$CONF_A"
expect_ok "CHECK after the retried ADD"
run_cni DEL ca "$NSA" "$CONF_A"
expect_ok "DEL after the retried ADD"
[ "$(engine_count)" = 0 ] || fail "devices left: $(engine_count)"
[ "$(state_count)" = 0 ] || fail "state left: $(ls "$STATE")"
echo "ok: a retried ADD after the crash succeeds and DEL cleans up"

# 3. GC reaps a crashed ADD.
crash_add ca "$NSA" "$CONF_A"
run_cni GC "" "" "$(cni_conf "" - ',"cni.dev/valid-attachments":[]')"
expect_ok "GC after the crash"
[ "$(engine_count)" = 0 ] || fail "GC left $(engine_count) devices"
[ "$(state_count)" = 0 ] || fail "GC left state: $(ls "$STATE")"
echo "ok: GC reaps a crashed ADD"

# 4. Someone else's device on the interface (made with pvctl): ADD fails
# and neither its undo nor the runtime's DEL touches that device.
"$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" dev add --netns "$NSB" \
	--ifname eth0 --name byhand >/dev/null || fail "pvctl dev add"
CONF_B=$(cni_conf "$NSB" 10.9.0.3/24 ',"deviceName":"byhand"')
run_cni ADD cb "$NSB" "$CONF_B"
expect_code "ADD on an interface that has another's device" 100
run_cni DEL cb "$NSB" "$CONF_B"
expect_ok "DEL after that failed ADD"
engine_has byhand "$NSB" || fail "DEL deleted a device made by pvctl"
[ "$(state_count)" = 0 ] || fail "state left: $(ls "$STATE")"
"$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" dev del byhand >/dev/null
echo "ok: a device made by someone else survives a failed ADD and its DEL"

# 5. Two networks chaining podverbs on one interface: the second ADD fails
# on the first's claim; its DEL (and a crash-free retry) keep the device.
CONF_C1=$(CNI_NET=net1 cni_conf "$NSC" 10.9.0.4/24 ',"deviceName":"rdmaC"')
CONF_C2=$(CNI_NET=net2 cni_conf "$NSC" 10.9.0.4/24 ',"deviceName":"rdmaC"')
run_cni ADD cc "$NSC" "$CONF_C1"
expect_ok "ADD net1 on c"
run_cni ADD cc "$NSC" "$CONF_C2"
expect_code "ADD net2 on the same interface" 100
run_cni DEL cc "$NSC" "$CONF_C2"
expect_ok "DEL net2"
engine_has rdmaC "$NSC" || fail "DEL of net2 deleted net1's device"
run_cni CHECK cc "$NSC" "$CONF_C1"
expect_ok "CHECK net1 after net2's DEL"
run_cni DEL cc "$NSC" "$CONF_C1"
expect_ok "DEL net1"
[ "$(engine_count)" = 0 ] || fail "devices left: $(engine_count)"
[ "$(state_count)" = 0 ] || fail "state left: $(ls "$STATE")"
echo "ok: another network's attachment on the same interface keeps its device"
echo PASS
