#!/bin/sh
# SPDX-License-Identifier: MIT
# The CNI plugin's kernel mode against Debian's kernel (rxe0 in the VM),
# driven by the CNI protocol (CNI_COMMAND + config on stdin, as a runtime
# does):
#   - it reads the RDMA netns mode over RDMA netlink, as `rdma system show`
#     reports it;
#   - exclusive mode: ADD tries to move rxe0 into the pod's namespace; the
#     kernel refuses (rxe cannot disassociate user contexts), so ADD fails
#     with code 102 naming the device, the driver and the kernel's errno,
#     and leaves nothing: no state file, rxe0 still in the initial
#     namespace only, the pod's namespace as it was; DEL then succeeds;
#   - shared mode (the kernel's default): ADD succeeds without a move (the
#     pod's namespace already sees rxe0), CHECK and STATUS pass, DEL
#     removes the record; an unknown device fails ADD with code 102.
# The VM is left in shared mode with no namespace of ours.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
[ -x "$PV_BUILD/bin/podverbs" ] || skip "podverbs CNI plugin not built"
vm_test_init
vm_rxe_up

out=$(vm_run 120 "PLUGIN=$PV_BUILD/bin/podverbs"'
NS=kvmcni
STATE=$VM_WORK/cni-state
rm -rf "$STATE"; mkdir -p "$STATE"
bad() { echo "BAD: $*"; exit 1; }
# The namespace may only change while no other network namespace exists.
set_mode() {
	for i in $(seq 100); do
		rdma system set netns "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	rdma system set netns "$1"
}
pod_up() {
	ip netns add $NS || bad "ip netns add"
	ip link add kvmcni0 type veth peer name net1 netns $NS || bad veth
	ip -n $NS addr add 10.85.0.2/24 dev net1
	ip -n $NS link set net1 up
	ip -n $NS link set lo up
}
pod_down() {
	ip netns del $NS 2>/dev/null
	ip link del kvmcni0 2>/dev/null
}
trap "pod_down; set_mode shared" EXIT
conf() {
	printf "{\"cniVersion\":\"1.1.0\",\"name\":\"kvmnet\",\"type\":\"podverbs\",\"mode\":\"kernel\",\"device\":\"%s\",\"stateDir\":\"%s\",\"prevResult\":{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"kvmcni0\"},{\"name\":\"net1\",\"sandbox\":\"/var/run/netns/%s\"}],\"ips\":[{\"address\":\"10.85.0.2/24\",\"interface\":1}]}}" "$1" "$STATE" $NS
}
# cni CMD DEVICE: runs the plugin; output in $OUT, status in $RC.
cni() {
	OUT=$(conf "$2" | env CNI_COMMAND=$1 CNI_CONTAINERID=kvmcni-c1 \
		CNI_NETNS=/var/run/netns/$NS CNI_IFNAME=net1 CNI_PATH=/usr/lib/cni \
		"$PLUGIN" 2>&1)
	RC=$?
	echo "$1 $2: rc $RC: $(echo "$OUT" | tr -d "\n\t" | tr -s " ")"
}
code() { echo "$OUT" | tr -d " \t\n" | sed -n "s/.*\"code\":\([0-9]*\).*/\1/p"; }
nstate() { ls -A "$STATE" | wc -l; }
pod_links() { ip -n $NS -o link show | awk -F": " "{print \$2}" | sort | tr "\n" " "; }

echo "rdma system show: $(rdma system show)"
pod_down
# --- exclusive mode
set_mode exclusive || bad "rdma system set netns exclusive"
echo "rdma system show: $(rdma system show)"
rdma system show | grep -q "netns exclusive" || bad "not exclusive"
pod_up
before=$(pod_links)
cni STATUS rxe0
[ $RC = 0 ] || bad "STATUS in exclusive mode"
cni ADD rxe0
[ $RC != 0 ] || bad "ADD moved rxe0 (rxe cannot move on this kernel)"
[ "$(code)" = 102 ] || bad "ADD code $(code), want 102"
for w in rxe0 "driver rxe" EOPNOTSUPP "Operation not supported"; do
	echo "$OUT" | grep -q "$w" || bad "ADD message lacks $w"
done
[ "$(nstate)" = 0 ] || bad "state left after the failed ADD: $(ls -A "$STATE")"
echo "init netns: $(rdma dev show | tr -s " ")"
echo "pod netns:  $(ip netns exec $NS rdma dev show | tr -s " ")"
rdma dev show | grep -q "rxe0:" || bad "rxe0 left the initial namespace"
ip netns exec $NS rdma dev show | grep -q rxe0 && bad "rxe0 is in the pod namespace"
[ "$(pod_links)" = "$before" ] || bad "pod links changed: $before -> $(pod_links)"
[ "$(ip netns list | wc -l)" = 1 ] || bad "namespaces: $(ip netns list)"
[ -e /sys/class/infiniband/rxe0 ] || bad "rxe0 gone from sysfs"
cni CHECK rxe0
[ $RC != 0 ] || bad "CHECK after a failed ADD passed"
cni DEL rxe0
[ $RC = 0 ] || bad "DEL after a failed ADD"
[ "$(nstate)" = 0 ] || bad "state left after DEL"
echo "exclusive: ok"
pod_down
# --- shared mode
set_mode shared || bad "rdma system set netns shared"
echo "rdma system show: $(rdma system show)"
rdma system show | grep -q "netns shared" || bad "not shared"
pod_up
cni STATUS rxe0
[ $RC = 0 ] || bad "STATUS in shared mode"
cni ADD rxe0
[ $RC = 0 ] || bad "ADD in shared mode"
echo "$OUT" | grep -q "10.85.0.2/24" || bad "ADD result lost prevResult"
[ "$(nstate)" -ge 1 ] || bad "no state record after ADD"
grep -l "\"ready\"" "$STATE"/*.json >/dev/null || bad "state is not ready: $(cat "$STATE"/*.json)"
echo "pod netns:  $(ip netns exec $NS rdma dev show | tr -s " ")"
ip netns exec $NS rdma dev show | grep -q rxe0 || bad "pod does not see rxe0"
cni CHECK rxe0
[ $RC = 0 ] || bad "CHECK in shared mode"
cni DEL rxe0
[ $RC = 0 ] || bad "DEL in shared mode"
[ "$(nstate)" = 0 ] || bad "state left after DEL: $(ls -A "$STATE")"
rdma dev show | grep -q "rxe0:" || bad "rxe0 gone after DEL"
cni ADD nosuch9
[ "$(code)" = 102 ] || bad "ADD of an unknown device: code $(code)"
echo "$OUT" | grep -q nosuch9 || bad "unknown device not named"
[ "$(nstate)" = 0 ] || bad "state left after a failed ADD"
echo "shared: ok"
')
rc=$?
echo "$out"
[ $rc = 0 ] || fail "CNI kernel mode in the VM (rc $rc)"
msg=$(echo "$out" | grep -m1 '^ADD rxe0: rc [1-9]' |
	sed 's/^ADD rxe0: rc [0-9]*: podverbs: ADD: \(.*\){"cniVersion".*/\1/')
echo "PASS: netns mode read over RDMA netlink as rdma system shows it; exclusive: ADD code 102 \"$msg\", nothing left behind; shared: ADD/CHECK/DEL succeed without a move"
