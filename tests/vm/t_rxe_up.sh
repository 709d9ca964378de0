#!/bin/sh
# SPDX-License-Identifier: MIT
# Kernel rxe comes up in the VM: `rdma link add rxe0 type rxe netdev eth0`,
# and Debian's ibv_devinfo (Debian's libibverbs with the kernel's rxe
# provider) shows port 1 ACTIVE on Ethernet, with GID 1 the RoCEv2
# IPv4-mapped GID of the VM's address.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
vm_test_init
vm_rxe_up

out=$(vm_run 60 'rdma link show; ibv_devinfo -v -d rxe0; echo "gid1=$(cat /sys/class/infiniband/rxe0/ports/1/gids/1)"; echo "type1=$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/1)"') ||
	fail "ibv_devinfo in the VM: $out"
echo "$out" | grep -E 'link rxe0|hca_id|state:|link_layer|active_mtu|GID\[ *1\]|gid1|type1'
echo "$out" | grep -q 'link rxe0/1 state ACTIVE' || fail "rdma link: rxe0/1 not ACTIVE"
echo "$out" | grep -q 'state:.*PORT_ACTIVE' || fail "ibv_devinfo: port not PORT_ACTIVE"
echo "$out" | grep -q 'link_layer:.*Ethernet' || fail "link layer is not Ethernet"
want=$(vm_ipv4_gid "$VM_IP")
echo "$out" | grep -qx "gid1=$want" || fail "GID 1 is not $want (the IPv4-mapped $VM_IP)"
echo "$out" | grep -qx 'type1=RoCE v2' || fail "GID 1 is not a RoCE v2 GID"
# ibv_devinfo's own view of the same GID (::ffff:a.b.c.d).
echo "$out" | grep -Eq "GID\[ *1\]:.*::ffff:$VM_IP, RoCE v2" ||
	fail "ibv_devinfo does not list GID[1] ::ffff:$VM_IP as RoCE v2"
# rxe's active MTU is the largest IB MTU that fits eth0's (minus the
# RoCEv2 headers): 1024 at 1500, 4096 at 9000.
case $VM_MTU in
1500) mtu=1024 ;;
9000) mtu=4096 ;;
*) mtu= ;;
esac
[ -z "$mtu" ] || echo "$out" | grep -Eq "active_mtu:.*$mtu " ||
	fail "active_mtu is not $mtu at interface MTU $VM_MTU"
echo "PASS: rxe0 ACTIVE, active_mtu ${mtu:-?} at MTU $VM_MTU, GID 1 = $want (RoCE v2)"
