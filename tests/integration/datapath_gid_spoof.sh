#!/bin/sh
# SPDX-License-Identifier: MIT
# GID ownership between pods: pod A adds pod B's address to its interface; A's table leaves B's GID out (conflict counted, noted in pvctl dev list), sgid_index past A's table refused (AH, RTR), UD to B's GID reaches B with A's real GID in the GRH, an RC QP cannot speak for another GID's QP; A picks the address up once B's device is gone.
# (tests/integration/datapath/dpt_gid_spoof.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
B_GID=0a4e:0002
A_EXTRA=10.78.0.11
A_EXTRA_GID=0a4e:000b

stat_of() { pvctl stats | awk -v n="$1" '$1 == n { print $2 }'; }
dev_row() { pvctl dev list | awk -v p="$(topo_path "$1")" '$3 == p'; }
a_has() { dev_row a | grep -q "$1"; }

topo_wait_dad a
topo_wait_dad b
before=$(stat_of gid_conflicts)
topo_exec a ip addr add "$POD_B_IP/24" dev eth0 || fail "add B's address in pod a"
topo_exec a ip addr add "$A_EXTRA/24" dev eth0 || fail "add $A_EXTRA in pod a"
wait_until 5 a_has "$A_EXTRA_GID" || fail "A's device did not follow its addresses: $(dev_row a)"

a_has "$B_GID" && fail "A's device holds B's GID: $(dev_row a)"
dev_row a | grep -q "note: 1 GID of eth0 left out" ||
	fail "no conflict note in pvctl dev list: $(dev_row a)"
[ "$(stat_of gid_conflicts)" = $((before + 1)) ] ||
	fail "gid_conflicts $(stat_of gid_conflicts), expected $((before + 1))"
grep -q "GID .*0a4e:0002 of eth0 is already device" "$ENGINE_LOG" ||
	fail "conflict not logged"
in_pod a ibv_devinfo -v >"$TMP/devinfo.a" 2>&1 || fail "ibv_devinfo in pod a"
grep -q "GID\[.*::ffff:$POD_B_IP," "$TMP/devinfo.a" &&
	fail "ibv_devinfo in pod a shows B's GID: $(grep 'GID\[' "$TMP/devinfo.a")"
grep -q "GID\[  0\]:.*::ffff:$POD_A_IP," "$TMP/devinfo.a" ||
	fail "A's GID[0] is not its own address: $(grep 'GID\[' "$TMP/devinfo.a")"
echo "ok   conflict: A's table without B's GID, counted, noted, logged"

dpt_run dpt_gid_spoof || fail "dpt_gid_spoof"
# The exchange's re-reads did not count the same conflict again.
[ "$(stat_of gid_conflicts)" = $((before + 1)) ] ||
	fail "gid_conflicts counted again: $(stat_of gid_conflicts)"

IDB=$(dev_row b | awk '{ print $1 }')
[ -n "$IDB" ] || fail "B's device not listed"
pvctl dev del "$IDB" >/dev/null || fail "dev del $IDB"
wait_until 5 a_has "$B_GID" || fail "A did not pick up B's address: $(dev_row a)"
dev_row a | grep -q "note:" && fail "conflict note still shown: $(dev_row a)"
in_pod a ibv_devinfo -v | grep -q "GID\[.*::ffff:$POD_B_IP," ||
	fail "ibv_devinfo in pod a does not show the picked-up GID"
echo "ok   B's device deleted: A picked up $POD_B_IP"
