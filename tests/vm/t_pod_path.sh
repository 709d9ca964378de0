#!/bin/sh
# SPDX-License-Identifier: MIT
# The interop tests' path: one of our pods (a namespace with eth0 and a
# soft device of our engine, vm_pod_up) on the VM's node, routed to the
# VM.  TCP between the pod and the VM in both directions moves 1 MiB with
# the same SHA-256 at both ends, and the pod sees its soft device.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
PY=/usr/bin/python3
XFER=$VM_LIB/tcpxfer.py
POD_IP=10.84.1.2
vm_test_init
vm_pod_up pod "$POD_IP/24"

vm_in_pod pod ibv_devices | grep -q rdma0 || fail "the pod has no rdma0"
topo_exec pod busybox ping -c 1 -W 5 "$VM_IP" >/dev/null || fail "pod cannot ping the VM"

# vm_pair_case is what the interop tests use: here with a TCP transfer on
# the pingpongs' port, so it is proven before our wire exists.
VM_PAIR_POD_IP=$POD_IP
for where in vm pod; do
	if [ $where = vm ]; then
		srv="python3 $XFER recv 18515" cli="$PY $XFER send 18515 1048576"
	else
		srv="$PY $XFER recv 18515" cli="python3 $XFER send 18515 1048576"
	fi
	vm_pair_case "tcp-$where" 60 $where "$srv" "$cli" ||
		fail "TCP pod <-> VM with the server in the $where"
	sent=$(cat "$TMP/pair-tcp-$where.client")
	got=$(cat "$TMP/pair-tcp-$where.server")
	echo "server in the $where: client sent $sent, server got $got"
	[ -n "$sent" ] && [ "$sent" = "$got" ] || fail "server in the $where: digests differ"
done
echo "PASS: pod $POD_IP (rdma0 on our engine) <-> VM $VM_IP: 1 MiB each way over TCP, digests equal"
