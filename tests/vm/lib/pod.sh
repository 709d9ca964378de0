# SPDX-License-Identifier: MIT
# vm tier: one of our pods on the VM's node (POSIX sh; sourced by vm.sh),
# for interop tests between kernel rxe in the VM and a soft device of our
# engine.  The node routes between its TAP (the VM, $VM_IP) and each pod's
# subnet, as a cluster's pod network does: pod <-> VM traffic is plain IP.
#
#   vm_pod_attach POD IP/LEN   pod namespace POD (topo.sh's name) with eth0
#                              at IP, veth to the node whose node end is
#                              the subnet's .1 and the pod's default route;
#                              the VM routes everything via the node
#   vm_pod_up POD IP/LEN       the same plus an engine (started once) and
#                              soft device rdma0 on the pod's eth0
#   vm_in_pod POD CMD...       CMD in the pod with our library and engine
#   vm_pair_case ...           one interop case, server on either side

vm_pod_attach() {
	_pa_pod=$1 _pa_ip=$2
	topo_has_ns "$_pa_pod" || topo_ns "$_pa_pod"
	_pa_gw=$(echo "${_pa_ip%/*}" | awk -F. '{ print $1"."$2"."$3".1" }')
	_pa_len=${_pa_ip#*/}
	_pa_if=$(printf 'vp-%s-%s' "$$" "$_pa_pod" | cut -c1-15)
	topo_ip "$_pa_pod" link add eth0 type veth peer name "$_pa_if" \
		netns "$VM_NS" || fail "veth $_pa_pod - node"
	topo_ip "$_pa_pod" addr add "$_pa_ip" dev eth0 ||
		fail "address $_pa_ip in $_pa_pod"
	topo_ip "$_pa_pod" link set eth0 mtu "$VM_MTU" up
	ip -n "$VM_NS" addr add "$_pa_gw/$_pa_len" dev "$_pa_if" ||
		fail "address $_pa_gw on the node"
	ip -n "$VM_NS" link set "$_pa_if" mtu "$VM_MTU" up
	topo_ip "$_pa_pod" route add default via "$_pa_gw" ||
		fail "default route in $_pa_pod"
}

vm_pod_up() {
	[ -e "$PV_BUILD/lib/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
	[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
	vm_pod_attach "$1" "$2"
	[ -n "${ENGINE_PID:-}" ] || start_engine
	"$PV_BUILD/bin/pvctl" --admin-socket "$ENGINE_ADMIN_SOCK" dev add \
		--netns "$(topo_path "$1")" --ifname eth0 --name rdma0 \
		>/dev/null || fail "dev add in $1"
}

vm_in_pod() {
	_ip_pod=$1
	shift
	topo_exec "$_ip_pod" env PODVERBS_ENGINE="$ENGINE_SOCK" \
		LD_LIBRARY_PATH="$PV_BUILD/lib" "$@"
}

# vm_pair_case NAME SECS WHERE "SERVER CMD" "CLIENT CMD": one interop case
# between kernel rxe in the VM and pod $VM_PAIR_POD (default "pod") on our
# engine.  WHERE is the server's side: "vm" (the client runs in the pod
# with $VM_IP appended) or "pod" (the client runs in the VM with the pod's
# address, $VM_PAIR_POD_IP, appended).  The client starts once the server
# listens on TCP port $PAIR_PORT (default 18515, the pingpongs' and
# perftest's); both are bounded by SECS.  Prints "ok NAME" or both sides'
# output; returns 0 when both exited 0.
vm_pair_case() {
	_pc_name=$1 _pc_secs=$2 _pc_where=$3 _pc_srv=$4 _pc_cli=$5
	_pc_pod=${VM_PAIR_POD:-pod} _pc_port=${PAIR_PORT:-18515}
	_pc_out=$TMP/pair-$_pc_name
	if [ "$_pc_where" = vm ]; then
		vm_start _pc_id "$_pc_secs" "$_pc_srv"
		wait_until 30 vm_run 10 "ss -ltn | grep -q ':$_pc_port '"
		vm_in_pod "$_pc_pod" timeout "$_pc_secs" $_pc_cli "$VM_IP" \
			>"$_pc_out.client" 2>&1
		_pc_crc=$?
		vm_wait "$_pc_id" >"$_pc_out.server" 2>&1
		_pc_src=$?
	else
		vm_in_pod "$_pc_pod" timeout "$_pc_secs" $_pc_srv \
			>"$_pc_out.server" 2>&1 &
		_pc_sp=$!
		wait_until 30 sh -c "ip netns exec '$(topo_name "$_pc_pod")' ss -ltn | grep -q ':$_pc_port '"
		vm_run "$_pc_secs" "$_pc_cli ${VM_PAIR_POD_IP:?}" \
			>"$_pc_out.client" 2>&1
		_pc_crc=$?
		wait "$_pc_sp"
		_pc_src=$?
	fi
	if [ "$_pc_crc" = 0 ] && [ "$_pc_src" = 0 ]; then
		echo "ok $_pc_name (server in $_pc_where)"
		return 0
	fi
	echo "FAILED $_pc_name (server in $_pc_where): client rc $_pc_crc, server rc $_pc_src"
	echo "--- client:"; cat "$_pc_out.client"
	echo "--- server:"; cat "$_pc_out.server"
	return 1
}
