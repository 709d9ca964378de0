#!/bin/sh
# SPDX-License-Identifier: MIT
# The podverbs CNI plugin driven as a runtime drives it (CNI 1.1.0
# execution protocol), against a real engine and real namespaces:
# VERSION; ADD -> CHECK -> DEL; DEL twice; DEL without netns and without
# prevResult; DEL after the namespace vanished; CHECK after the address
# changed; GC with a valid-attachments list; STATUS with the engine up and
# stopped; malformed input and missing variables; failing ADDs leave
# nothing behind.
. "$PV_ROOT/tests/lib/topo.sh"
. "$PV_ROOT/tests/lib/cni.sh"

topo_init
[ -x "$PLUGIN" ] || skip "podverbs CNI plugin not built"
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
topo_bridge node 10.9.0.1/24 a 10.9.0.2/24 b 10.9.0.3/24 c 10.9.0.4/24
topo_ns d
topo_veth d node 10.9.1.2/24 10.9.1.1/24 eth0 v-d
start_engine
STATE=$TMP/state
NSA=$(topo_path a) NSB=$(topo_path b) NSC=$(topo_path c) NSD=$(topo_path d)

# VERSION
OUT=$(echo '{"cniVersion":"1.1.0"}' | CNI_COMMAND=VERSION "$PLUGIN") ||
	fail "VERSION failed"
for v in 0.4.0 1.0.0 1.1.0; do
	echo "$OUT" | grep -q "\"$v\"" || fail "VERSION lacks $v: $OUT"
done
echo "ok: VERSION"

# ADD passes prevResult on unchanged.
CONF_A=$(cni_conf "$NSA" 10.9.0.2/24 ',"pkey":"0x8001","deviceName":"rdmaA"')
run_cni ADD ca "$NSA" "$CONF_A"
expect_ok "ADD a"
printf '%s' "$OUT" | tr -d ' \t\n' | grep -q '"address":"10.9.0.2/24"' ||
	fail "ADD result lost prevResult's ips: $OUT"
printf '%s' "$OUT" | tr -d ' \t\n' | grep -q '"sandbox":"'"$NSA"'"' ||
	fail "ADD result lost prevResult's interfaces: $OUT"
engine_has rdmaA "$NSA" || fail "engine has no rdmaA in $NSA"
"$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" dev list | grep rdmaA |
	grep -q 0x8001 || fail "rdmaA has not P_Key 0x8001"
echo "ok: ADD"

run_cni CHECK ca "$NSA" "$CONF_A"
expect_ok "CHECK a"
echo "ok: CHECK"

# CHECK after the address changed fails, and passes again once restored.
topo_ip a addr del 10.9.0.2/24 dev eth0
topo_ip a addr add 10.9.0.22/24 dev eth0
sleep 0.3
run_cni CHECK ca "$NSA" "$CONF_A"
expect_code "CHECK after address change" 103
topo_ip a addr del 10.9.0.22/24 dev eth0
topo_ip a addr add 10.9.0.2/24 dev eth0
topo_ip a route add default via 10.9.0.1 2>/dev/null
wait_until 3 sh -c "printf '%s' '$CONF_A' | CNI_COMMAND=CHECK CNI_CONTAINERID=ca CNI_NETNS=$NSA CNI_IFNAME=eth0 CNI_PATH=/x $PLUGIN" ||
	fail "CHECK does not pass after the address was restored"

# DEL, and DEL again.
run_cni DEL ca "$NSA" "$CONF_A"
expect_ok "DEL a"
engine_has rdmaA "$NSA" && fail "rdmaA still in the engine after DEL"
[ "$(state_count)" = 0 ] || fail "state left after DEL: $(ls "$STATE")"
run_cni DEL ca "$NSA" "$CONF_A"
expect_ok "DEL a twice"
run_cni CHECK ca "$NSA" "$CONF_A"
expect_code "CHECK after DEL" 3
[ "$(state_count)" = 0 ] || fail "CHECK left state behind"
echo "ok: DEL, DEL twice"

# DEL with no netns and no prevResult (runtimes do this after a failure).
CONF_B=$(cni_conf "$NSB" 10.9.0.3/24)
run_cni ADD cb "$NSB" "$CONF_B"
expect_ok "ADD b"
engine_has pv_eth0 "$NSB" || fail "no pv_eth0 (default name) in $NSB"
run_cni DEL cb "" "$(cni_conf "$NSB" -)"
expect_ok "DEL b without netns and prevResult"
engine_has pv_eth0 "$NSB" && fail "pv_eth0 of b survived DEL"
echo "ok: DEL without netns and prevResult"

# DEL after the namespace is gone.
CONF_C=$(cni_conf "$NSC" 10.9.0.4/24)
run_cni ADD cc "$NSC" "$CONF_C"
expect_ok "ADD c"
ip netns del "$(topo_name c)"
run_cni DEL cc "$NSC" "$CONF_C"
expect_ok "DEL c with its namespace gone"
[ "$(engine_count)" = 0 ] || fail "devices left: $(engine_count)"
[ "$(state_count)" = 0 ] || fail "state left: $(ls "$STATE")"
echo "ok: DEL with a vanished netns"

# DEL when the engine no longer knows the device.
run_cni ADD ca "$NSA" "$CONF_A"
expect_ok "ADD a again"
"$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" dev del rdmaA --netns "$NSA" ||
	fail "pvctl dev del"
run_cni CHECK ca "$NSA" "$CONF_A"
expect_code "CHECK with the device gone" 103
run_cni DEL ca "$NSA" "$CONF_A"
expect_ok "DEL of a device the engine forgot"
[ "$(state_count)" = 0 ] || fail "state left: $(ls "$STATE")"

# GC keeps valid attachments and reaps the rest; both key spellings.
run_cni ADD ca "$NSA" "$CONF_A"
expect_ok "ADD a for GC"
run_cni ADD cb "$NSB" "$CONF_B"
expect_ok "ADD b for GC"
CNI_NET=othernet run_cni ADD cb "$NSD" "$(CNI_NET=othernet cni_conf "$NSD" 10.9.1.2/24 ',"deviceName":"other"')"
expect_ok "ADD in another network (same container id)"
run_cni GC "" "" "$(cni_conf "" - ',"cni.dev/valid-attachments":[{"containerID":"ca","ifname":"eth0"}]')"
expect_ok "GC"
engine_has rdmaA "$NSA" || fail "GC removed a valid attachment"
engine_has pv_eth0 "$NSB" && fail "GC kept a stale attachment"
engine_has other "$NSD" || fail "GC touched another network's attachment"
run_cni GC "" "" "$(cni_conf "" - ',"cni.dev/attachments":[]')"
expect_ok "GC (cni.dev/attachments)"
engine_has rdmaA "$NSA" && fail "GC with an empty list kept rdmaA"
run_cni GC "" "" "$(cni_conf "" -)"
expect_code "GC without a list" 7
CNI_NET=othernet run_cni GC "" "" "$(CNI_NET=othernet cni_conf "" - ',"cni.dev/valid-attachments":[]')"
expect_ok "GC othernet"
[ "$(engine_count)" = 0 ] || fail "devices left after GC: $(engine_count)"
[ "$(state_count)" = 0 ] || fail "state left after GC: $(ls "$STATE")"
echo "ok: GC"

# Errors: spec codes, non-zero exit, nothing half-done.
run_cni ADD ca "$NSA" '{"cniVersion":"1.1.0","name":'
expect_code "malformed JSON" 6
run_cni ADD ca "$NSA" "$(CNI_VER=0.1.0 cni_conf "$NSA" -)"
expect_code "unsupported version" 1
run_cni ADD ca "$NSA" "$(cni_conf "$NSA" 10.9.0.2/24 ',"pkey":"0x8000"')"
expect_code "invalid pkey" 7
OUT=$(printf '%s' "$CONF_A" | env -u CNI_CONTAINERID -u CNI_IFNAME \
	CNI_COMMAND=ADD CNI_NETNS="$NSA" CNI_PATH=/x "$PLUGIN")
RC=$?
expect_code "missing variables" 4
printf '%s' "$OUT" | grep -q CNI_CONTAINERID || fail "message lacks CNI_CONTAINERID"
printf '%s' "$OUT" | grep -q CNI_IFNAME || fail "message lacks CNI_IFNAME"
OUT=$(printf '%s' "$CONF_A" | CNI_COMMAND=BOGUS "$PLUGIN"); RC=$?
expect_code "unknown command" 4
run_cni ADD ca "$NSA" "$(cni_conf "$NSA" -)"
expect_code "ADD without prevResult" 7
CNI_IF=eth9 run_cni ADD ca "$NSA" "$(CNI_IF=eth9 cni_conf "$NSA" 10.9.0.2/24)"
expect_code "ADD with an interface not in prevResult" 7
run_cni ADD ca /var/run/netns/pvt-none "$CONF_A"
expect_code "ADD with a missing netns" 4
# The name is taken in that namespace: the engine refuses, we clean up.
run_cni ADD ca "$NSA" "$CONF_A"
expect_ok "ADD a"
CNI_IF=eth0 run_cni ADD cx "$NSA" "$CONF_A"
expect_code "ADD with a device name taken" 100
run_cni DEL cx "$NSA" "$CONF_A"
expect_ok "DEL after failed ADD"
engine_has rdmaA "$NSA" || fail "failed ADD or its DEL removed another attachment's device"
run_cni DEL ca "$NSA" "$CONF_A"
expect_ok "DEL a"
[ "$(engine_count)" = 0 ] || fail "devices left after failed ADDs: $(engine_count)"
[ "$(state_count)" = 0 ] || fail "state left after failed ADDs: $(ls "$STATE")"

# STATUS, then the engine stops.
run_cni STATUS "" "" "$(cni_conf "" -)"
expect_ok "STATUS with the engine up"
run_cni ADD ca "$NSA" "$CONF_A"
expect_ok "ADD before engine stop"
stop_engine
run_cni STATUS "" "" "$(cni_conf "" -)"
expect_code "STATUS with the engine stopped" 50
run_cni ADD cb "$NSB" "$CONF_B"
expect_code "ADD with the engine stopped" 11
run_cni DEL ca "$NSA" "$CONF_A"
expect_ok "DEL with the engine stopped"
[ "$(state_count)" = 0 ] || fail "state left with the engine stopped: $(ls "$STATE")"
echo "PASS"
