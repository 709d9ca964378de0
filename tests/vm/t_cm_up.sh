#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel's RDMA CM in the VM, for the librdmacm interop tests:
# rdma_ucm loads, and Debian's rping (librdmacm over the kernel's
# rdma_cm/rdma_ucm and rxe) runs in loopback to the VM's own address,
# validating the data it ping-pongs (-V).
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
vm_test_init
vm_rxe_up

out=$(vm_run 120 '
	modprobe rdma_ucm || exit 1
	[ -e /dev/infiniband/rdma_cm ] || { echo "no /dev/infiniband/rdma_cm"; exit 1; }
	rping -s -a "$VM_IP" -C 10 -v >/tmp/rping-s.txt 2>&1 & S=$!
	# rping -s listens on an RDMA CM port, not a TCP one: retry the client
	# until the server is bound.
	for i in $(seq 20); do
		rping -c -a "$VM_IP" -C 10 -V -v >/tmp/rping-c.txt 2>&1; c=$?
		[ $c = 0 ] && break
		sleep 0.5
	done
	wait $S; s=$?
	echo "--- client:"; cat /tmp/rping-c.txt; echo "--- server:"; tail -3 /tmp/rping-s.txt
	echo "client rc=$c server rc=$s"; [ $c = 0 ] && [ $s = 0 ]')
rc=$?
echo "$out"
[ $rc = 0 ] || fail "rping loopback over the kernel CM (rc $rc)"
n=$(echo "$out" | grep -c '^ping data: rdma-ping-')
[ "$n" -ge 10 ] || fail "rping client printed $n pings, want 10"
echo "PASS: rdma_ucm loaded, rping -c/-s to $VM_IP: $n validated pings"
