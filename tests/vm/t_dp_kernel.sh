#!/bin/sh
# SPDX-License-Identifier: MIT
# The device plugin against Debian's kernel in the VM: it discovers rxe0
# from the real /sys (no fixture), a device made later with `rdma link add`
# through the kernel's uevents (libudev; no udevd in the VM) and marks it
# Unhealthy once deleted, reports rxe0's netdev and NUMA node (none for a
# virtual device on a VM without NUMA: no TopologyInfo), turns it Unhealthy
# while eth0 is down and Healthy again, and Allocate hands out the
# kernel's /dev/infiniband/uverbsN of the device and rdma_cm.  kubelet is
# the integration tests' python3-grpcio stand-in (dpkube.py), run in the
# VM; lib/dp_kernel.py does the checks.  Debian 12's kernel has no siw
# (CONFIG_RDMA_SIW is not set): it is tried and reported, not required.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
[ -x "$PV_BUILD/bin/podverbs-device-plugin" ] || skip "device plugin not built"
/usr/bin/python3 -c 'import grpc, grpc_tools' 2>/dev/null ||
	skip "python3-grpcio / python3-grpc-tools missing (the kubelet stand-in)"
vm_test_init
vm_rxe_up

out=$(vm_run 200 "export PV_ROOT=$PV_ROOT PV_BUILD=$PV_BUILD PYTHONDONTWRITEBYTECODE=1"'
	modprobe rdma_ucm || exit 1
	if modprobe siw 2>/dev/null; then
		echo "siw: module loads"
	else
		echo "siw: not in this kernel ($(grep -h "CONFIG_RDMA_SIW" "$VM_KROOT"/boot/config-* 2>/dev/null))"
	fi
	echo "rdma link: $(rdma link show | tr "\n" ";")"
	echo "/dev/infiniband: $(ls /dev/infiniband | tr "\n" " ")"
	rm -rf "$VM_WORK/dp" /tmp/kvmdp
	/usr/bin/python3 "$PV_ROOT/tests/vm/lib/dp_kernel.py"; rc=$?
	ip link del kvmdp0 2>/dev/null
	rdma link delete kvmrxe1 2>/dev/null
	ip link set eth0 up
	rm -rf /tmp/kvmdp
	# Leave rxe0 as the next tests expect it: ib_core re-adds the
	# IPv4-mapped GID 1 asynchronously after eth0 came back up.
	for i in $(seq 100); do
		grep -q "^0000:0000:0000:0000:0000:ffff:" \
			/sys/class/infiniband/rxe0/ports/1/gids/1 && break
		sleep 0.1
	done
	echo "after: rxe0 port $(cat /sys/class/infiniband/rxe0/ports/1/state), GID 1 $(cat /sys/class/infiniband/rxe0/ports/1/gids/1), $(ip route show default)"
	grep -q "^0000:0000:0000:0000:0000:ffff:" \
		/sys/class/infiniband/rxe0/ports/1/gids/1 || { echo "rxe0 lost GID 1"; rc=1; }
	ip route show default | grep -q . || { echo "no default route"; rc=1; }
	[ $rc = 0 ] || for f in "$VM_WORK"/dp/dp-*.log; do echo "--- $f"; tail -20 "$f"; done
	exit $rc')
rc=$?
echo "$out"
[ $rc = 77 ] && skip "$(echo "$out" | grep -m1 '^SKIP' | cut -c7-)"
[ $rc = 0 ] || fail "device plugin against the VM's kernel (rc $rc)"
echo "$out" | grep -q 'ok port' || fail "the port phase did not finish"
echo "PASS: rxe0 from /sys ($(echo "$out" | sed -n 's/.*rxe0 NUMA: plugin \([-0-9]*\),.*/numaNode \1/p')), hotplug over udev, eth0 down -> Unhealthy -> Healthy, Allocate -> uverbsN + rdma_cm"
