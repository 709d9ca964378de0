#!/bin/sh
# SPDX-License-Identifier: MIT
# Finding 8 (issue 8), GID squatting across a restart: pod A adds pod B's
# address to its interface (left out: B owns the GID); B's device is
# deleted, so A picks the GID up; B's device is re-added claiming its
# CNI-assigned address (ADM_DEV_ADD claims, pvctl --claim): B owns its
# GID again, A loses it (a conflict counted), and dpt_gid_spoof shows A
# can neither send with it nor receive B's traffic.
# (tests/integration/datapath/dpt_gid_spoof.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
B_GID=0a4e:0002
A_EXTRA=10.78.0.11
A_EXTRA_GID=0a4e:000b

stat_of() { pvctl stats | awk -v n="$1" '$1 == n { print $2 }'; }
dev_row() { pvctl dev list | awk -v p="$(topo_path "$1")" '$3 == p'; }
a_has() { dev_row a | grep -q "$1"; }
b_has() { dev_row b | grep -q "$1"; }

topo_wait_dad a
topo_wait_dad b
topo_exec a ip addr add "$POD_B_IP/24" dev eth0 || fail "add B's address in pod a"
topo_exec a ip addr add "$A_EXTRA/24" dev eth0 || fail "add $A_EXTRA in pod a"
wait_until 5 a_has "$A_EXTRA_GID" || fail "A's device did not follow its addresses: $(dev_row a)"
a_has "$B_GID" && fail "A holds B's GID while B's device lives: $(dev_row a)"

IDB=$(dev_row b | awk '{ print $1 }')
pvctl dev del "$IDB" >/dev/null || fail "dev del $IDB"
wait_until 5 a_has "$B_GID" || fail "A did not pick up B's address: $(dev_row a)"
echo "ok   B's device deleted: the squatter A holds B's GID"

before=$(stat_of gid_conflicts)
pod_dev_add b --claim "$POD_B_IP/24"
wait_until 5 b_has "$B_GID" || fail "re-added B does not own its GID: $(dev_row b); A: $(dev_row a)"
a_has "$B_GID" && fail "the squatter A kept B's GID after B's re-add: $(dev_row a)"
[ "$(stat_of gid_conflicts)" -gt "$before" ] ||
	fail "A's loss of B's GID not counted as a conflict"
grep -q "GID .*0a4e:0002 of eth0 is already device" "$ENGINE_LOG" ||
	fail "conflict not logged"
echo "ok   B re-added with its claim: B owns its GID, A lost it (conflict counted)"

dpt_run dpt_gid_spoof || fail "dpt_gid_spoof after the re-add"
echo PASS
