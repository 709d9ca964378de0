#!/bin/sh
# SPDX-License-Identifier: MIT
# Finding 8 (issue 8), GID squatting through the CNI plugin: ADD sends the
# attachment's prevResult addresses as GID claims.  Pod b (a device made
# with pvctl, claiming nothing) adds pod a's address to its interface;
# a's attachment is deleted (b picks the GID up) and added again: a's
# device owns its GID, b's lost it.
. "$PV_ROOT/tests/lib/topo.sh"
. "$PV_ROOT/tests/lib/cni.sh"

topo_init
[ -x "$PLUGIN" ] || skip "podverbs CNI plugin not built"
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
topo_bridge node 10.9.0.1/24 a 10.9.0.2/24 b 10.9.0.3/24
start_engine
STATE=$TMP/state
NSA=$(topo_path a) NSB=$(topo_path b)
A_GID=0a09:0002

pvctl() { "$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" "$@"; }
dev_row() { pvctl dev list | awk -v p="$1" '$3 == p'; }
has() { dev_row "$1" | grep -q "$2"; }

pvctl dev add --netns "$NSB" --ifname eth0 --name rdmaB >/dev/null ||
	fail "dev add in b"
CONF_A=$(cni_conf "$NSA" 10.9.0.2/24 ',"deviceName":"rdmaA"')
run_cni ADD ca "$NSA" "$CONF_A"
expect_ok "ADD a"
topo_wait_dad a
topo_wait_dad b
topo_exec b ip addr add 10.9.0.2/24 dev eth0 || fail "add a's address in b"
sleep 0.5
has "$NSB" "$A_GID" && fail "b holds a's GID while a's device lives: $(dev_row "$NSB")"

run_cni DEL ca "$NSA" "$CONF_A"
expect_ok "DEL a"
wait_until 5 has "$NSB" "$A_GID" || fail "b did not pick a's GID up: $(dev_row "$NSB")"
echo "ok: a's attachment deleted: the squatter b holds a's GID"

run_cni ADD ca "$NSA" "$CONF_A"
expect_ok "ADD a again"
wait_until 5 has "$NSA" "$A_GID" ||
	fail "a's device does not own a's GID after ADD: a: $(dev_row "$NSA"); b: $(dev_row "$NSB")"
has "$NSB" "$A_GID" && fail "the squatter b kept a's GID: $(dev_row "$NSB")"
echo "ok: ADD again: a owns its GID, b lost it"
run_cni DEL ca "$NSA" "$CONF_A"
expect_ok "DEL a"
echo PASS
