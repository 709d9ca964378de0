# SPDX-License-Identifier: MIT
# vm tier: the VM's node (POSIX sh; sourced by vm.sh).  The VM is one more
# node of the simulated cluster: its NIC is a TAP device inside a "node"
# network namespace (the run's own, named by topo.sh, so parallel runs
# never share one), and qemu is started inside that namespace so the TAP
# stays there.  The node routes: pods attached with vm_pod_attach (pod.sh)
# reach the VM by plain IP forwarding.
#
#   vm_net_up            namespace $VM_NS with $VM_TAP at $VM_GW
#   vm_node CMD...       CMD inside the node namespace
#   vm_capture_start FILE FILTER / vm_capture_stop
#                        tcpdump on the TAP (in the node namespace)

VM_IP=${VM_IP:-10.84.0.2}
VM_GW=${VM_GW:-10.84.0.1}
VM_PREFIX=${VM_PREFIX:-24}
VM_MAC=${VM_MAC:-52:54:00:84:00:02}
VM_TAP=${VM_TAP:-tap0}
# 9000 lets rxe use a 4096-byte path MTU (its active_mtu follows eth0's).
VM_MTU=${VM_MTU:-1500}

vm_net_up() {
	topo_ns vm-node
	VM_NS=$(topo_name vm-node)
	export VM_NS VM_IP VM_GW VM_PREFIX VM_MAC VM_TAP VM_MTU
	ip -n "$VM_NS" tuntap add dev "$VM_TAP" mode tap ||
		fail "tuntap add in $VM_NS"
	ip -n "$VM_NS" addr add "$VM_GW/$VM_PREFIX" dev "$VM_TAP" ||
		fail "address on $VM_TAP"
	ip -n "$VM_NS" link set "$VM_TAP" mtu "$VM_MTU" up ||
		fail "MTU $VM_MTU on $VM_TAP"
	ip netns exec "$VM_NS" sysctl -qw net.ipv4.ip_forward=1
}

vm_node() {
	ip netns exec "$VM_NS" "$@"
}

# vm_capture_start FILE [FILTER]: tcpdump on the TAP into FILE until
# vm_capture_stop; returns once tcpdump is capturing (its "listening on"
# line), so no packet sent afterwards is missed.
vm_capture_start() {
	need_cmd tcpdump
	_cf=$1
	shift
	# A simple command, not vm_node: `vm_node ... &` would make $! the
	# function's subshell, and stopping that leaves tcpdump running.
	ip netns exec "$VM_NS" tcpdump -i "$VM_TAP" -nn -U -s 0 -B 16384 -w "$_cf" "$@" \
		>"$_cf.log" 2>&1 &
	VM_CAP_PID=$!
	topo_track_pid "$VM_CAP_PID"
	wait_until 10 grep -q 'listening on' "$_cf.log" ||
		fail "tcpdump did not start: $(cat "$_cf.log")"
}

# vm_capture_stop: stops tcpdump (SIGTERM flushes the file).
vm_capture_stop() {
	[ -n "${VM_CAP_PID:-}" ] || return 0
	stop_pid "$VM_CAP_PID"
	VM_CAP_PID=
}
