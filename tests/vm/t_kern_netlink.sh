#!/bin/sh
# SPDX-License-Identifier: MIT
# Kernel devices found through RDMA netlink (issue 16), as rdma-core does
# before sysfs: in the VM, a second rxe device named kbx0 (on a veth, so
# librxe's name pattern "rxe*" does not claim it, and rxe has no parent
# device whose driver sysfs could name) is matched to Debian's librxe by
# the driver id the kernel gives in RDMA_NLDEV_CMD_GET_CHARDEV; over OUR
# libibverbs.so.1:
#  - ibv_devices lists rxe0 and kbx0; ibv_get_device_index of each is the
#    kernel's index (`rdma dev`);
#  - ibv_devinfo -d kbx0 opens it (port ACTIVE) and ibv_rc_pingpong -c
#    runs in loopback over it;
#  - with netlink unused (SYSFS_PATH=/sys/.: another sysfs root is a
#    fixture, where the kernel's netlink answers do not apply) kbx0 is not
#    listed and IBV_SHOW_WARNINGS says no driver was found for it, which
#    proves the netlink path is what found it.
# The VM is left as found: kbx0 and its veth deleted.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
need_cmd ibv_devices ibv_devinfo ibv_rc_pingpong
LOOP=$PV_BUILD/tests/bin/kboth-loop
[ -x "$LOOP" ] || skip "kboth-loop not built"
vm_test_init
vm_rxe_up

out=$(vm_run 150 "B=$PV_BUILD LOOP=$LOOP"'
bad() { echo "BAD: $*"; exit 1; }
cleanup() {
	rdma link del kbx0 2>/dev/null
	ip link del kbn0 2>/dev/null
}
trap cleanup EXIT
L="env LD_LIBRARY_PATH=$B/lib"
ip link add kbn0 type veth peer name kbn1 || bad veth
ip addr add 10.84.250.1/24 dev kbn0 && ip link set kbn0 up &&
	ip link set kbn1 up || bad "veth up"
rdma link add kbx0 type rxe netdev kbn0 || bad "rdma link add kbx0"
for i in $(seq 100); do
	grep -q "^0000:0000:0000:0000:0000:ffff:" \
		/sys/class/infiniband/kbx0/ports/1/gids/1 2>/dev/null && break
	sleep 0.1
done
echo "== rdma dev"
rdma dev
echo "== ibv_devices"
$L ibv_devices || bad ibv_devices
echo "== kboth-loop -l"
$L $LOOP -l || bad "kboth-loop -l"
echo "== ibv_devinfo -d kbx0"
$L ibv_devinfo -d kbx0 || bad "ibv_devinfo -d kbx0"
echo "== ibv_rc_pingpong -d kbx0"
$L timeout 80 ibv_rc_pingpong -d kbx0 -g 1 -n 20 -c -p 18516 \
	>$VM_WORK/knl-srv.out 2>&1 &
srv=$!
for i in $(seq 100); do
	ss -ltn | grep -q ":18516 " && break
	sleep 0.1
done
$L timeout 70 ibv_rc_pingpong -d kbx0 -g 1 -n 20 -c -p 18516 127.0.0.1 ||
	bad "ibv_rc_pingpong client over kbx0"
wait $srv || bad "ibv_rc_pingpong server over kbx0: $(cat $VM_WORK/knl-srv.out)"
echo "== sysfs only"
$L IBV_SHOW_WARNINGS=1 SYSFS_PATH=/sys/. ibv_devices 2>&1
echo "vm side done"') || fail "the VM side: $out"
echo "$out" | sed 's/^/    /'
echo "$out" | grep -q '^vm side done' || fail "the VM side did not finish"

sect() { echo "$out" | sed -n "/^== $1/,/^== /p"; }
for d in rxe0 kbx0; do
	sect ibv_devices | grep -Eq "^ +$d[[:space:]]+[0-9a-f]{16}\$" ||
		fail "ibv_devices over our library does not list $d"
	kidx=$(sect 'rdma dev' | awk -v d="$d:" '$2 == d { sub(":", "", $1); print $1 }')
	[ -n "$kidx" ] || fail "rdma dev does not show $d"
	sect 'kboth-loop' | grep -q "^indexes: .*\\b$d=$kidx\\b" ||
		fail "ibv_get_device_index($d) is not the kernel's $kidx: $(sect kboth-loop | grep indexes)"
done
sect 'ibv_devinfo' | grep -q 'state:.*PORT_ACTIVE' || fail "kbx0's port is not ACTIVE"
echo "$out" | grep -q '20 iters' || fail "ibv_rc_pingpong over kbx0 did not run 20 iterations"
only=$(sect 'sysfs only')
echo "$only" | grep -Eq '^ +rxe0[[:space:]]' || fail "sysfs alone does not list rxe0"
echo "$only" | grep -Eq '^ +kbx0[[:space:]]' && fail "sysfs alone lists kbx0: netlink not shown to matter"
echo "$only" | grep -q 'no userspace device-specific driver found for kbx0' ||
	fail "sysfs alone: no warning for kbx0"
echo "PASS: a renamed rxe device (kbx0) found through RDMA netlink's driver id over our libibverbs: listed with the kernel's index, opened, rc_pingpong loopback; sysfs alone cannot match it"
