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
	topo_ip "$_pa_pod" link set eth0 up
	ip -n "$VM_NS" addr add "$_pa_gw/$_pa_len" dev "$_pa_if" ||
		fail "address $_pa_gw on the node"
	ip -n "$VM_NS" link set "$_pa_if" up
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
