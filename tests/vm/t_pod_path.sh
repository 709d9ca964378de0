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

# pod -> VM
vm_start id 60 "python3 $XFER recv 5201"
sent=$(topo_exec pod timeout 60 $PY "$XFER" send "$VM_IP" 5201 1048576) ||
	fail "pod -> VM: send failed"
got=$(vm_wait "$id") || fail "pod -> VM: receiver in the VM failed: $got"
echo "pod -> VM: sent $sent, got $got"
[ -n "$sent" ] && [ "$sent" = "$got" ] || fail "pod -> VM: digests differ"

# VM -> pod
topo_exec pod timeout 60 $PY "$XFER" recv 5202 >"$TMP/got" 2>&1 &
rp=$!
sent=$(vm_run 60 "python3 $XFER send $POD_IP 5202 1048576") ||
	fail "VM -> pod: send in the VM failed: $sent"
wait $rp || fail "VM -> pod: receiver in the pod failed: $(cat "$TMP/got")"
got=$(cat "$TMP/got")
echo "VM -> pod: sent $sent, got $got"
[ -n "$sent" ] && [ "$sent" = "$got" ] || fail "VM -> pod: digests differ"
echo "PASS: pod $POD_IP (rdma0 on our engine) <-> VM $VM_IP: 1 MiB each way over TCP, digests equal"
