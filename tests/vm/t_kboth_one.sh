#!/bin/sh
# SPDX-License-Identifier: MIT
# Both device kinds in one process (issue 16): in the VM, our engine
# (podverbsd from $PV_BUILD: the VM runs this machine's userland) makes a
# soft device rdma0 on the eth0 of a network namespace inside the VM (the
# kernel's rxe owns UDP 4791 of the VM's own namespace), and a process in
# that namespace, over OUR libibverbs.so.1, sees kernel rxe0 (through
# Debian's librxe) and the soft rdma0 side by side:
#  - ibv_devices and ibv_devinfo list both, each with its own GUID and
#    port state (LD_DEBUG=files: our library and librxe initialised);
#  - their indices differ (rdma0's above 2^30), and rdma0's dev_path and
#    ibdev_path name no existing folder (rxe0's are its kernel folders);
#  - kboth-loop (tests/vm/kboth/kboth_loop.c) opens both devices in one
#    process, connects two RC QPs on each through its own GID (rxe0: the
#    kernel's loopback; rdma0: our engine's), and runs rounds of RDMA
#    WRITE + SEND/RECV on both, interleaved, every byte checked;
#  - from the same environment, ibv_rc_pingpong -c over rdma0 to a pod of
#    the host's engine on the VM's node (routed through the VM), so the
#    VM's soft device carries traffic to a peer as well as to itself.
# The VM is left as found: engine stopped, namespace and veth deleted.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
need_cmd ibv_devices ibv_devinfo ibv_rc_pingpong
LOOP=$PV_BUILD/tests/bin/kboth-loop
[ -x "$LOOP" ] || skip "kboth-loop not built"
[ -x "$PV_BUILD/bin/podverbsd" ] || skip "podverbsd not built"
POD_IP=10.84.8.2
VNS_NET=10.84.9	# the VM's inner namespace: $VNS_NET.2, its gateway .1
vm_test_init
vm_rxe_up
vm_pod_up pod "$POD_IP/24"
# The node reaches the VM's inner namespace through the VM; the route
# goes at exit (run.sh's later tests share the node).
ip -n "$VM_NS" route add "$VNS_NET.0/24" via "$VM_IP" ||
	fail "route to the VM's inner namespace"
trap '_kb_rc=$?; ip -n "$VM_NS" route del "$VNS_NET.0/24" 2>/dev/null; (exit $_kb_rc); vm_exit' EXIT

# The VM side: one script, so its trap stops what it started on every
# path.  Runs as root under bash in the VM.
VM_SIDE="B=$PV_BUILD VNS_NET=$VNS_NET POD_IP=$POD_IP"'
NS=kboth E=/tmp/kboth-eng eng=
bad() { echo "BAD: $*"; exit 1; }
cleanup() {
	[ -n "$eng" ] && kill "$eng" && wait "$eng"
	ip netns del $NS 2>/dev/null
	ip link del kb0 2>/dev/null
	[ -n "${made_node:-}" ] && rm -f /dev/infiniband/podverbs
	[ -n "${fwd:-}" ] && sysctl -qw net.ipv4.ip_forward=$fwd
	rm -rf $E $E-admin
}
trap cleanup EXIT
[ -e /dev/infiniband/podverbs ] || made_node=1
ip netns add $NS || bad "ip netns add"
ip link add kb0 type veth peer name eth0 netns $NS || bad veth
ip addr add $VNS_NET.1/24 dev kb0 && ip link set kb0 up || bad kb0
ip -n $NS addr add $VNS_NET.2/24 dev eth0 && ip -n $NS link set eth0 up &&
	ip -n $NS link set lo up &&
	ip -n $NS route add default via $VNS_NET.1 || bad "netns eth0"
fwd=$(sysctl -n net.ipv4.ip_forward)
sysctl -qw net.ipv4.ip_forward=1
mkdir -p $E
$B/bin/podverbsd --socket $E/engine.sock --admin-socket $E-admin/admin.sock \
	--foreground >$VM_WORK/kboth-engine.log 2>&1 &
eng=$!
for i in $(seq 100); do
	$B/bin/pvctl --admin-socket $E-admin/admin.sock stats >/dev/null 2>&1 && break
	sleep 0.1
done
$B/bin/pvctl --admin-socket $E-admin/admin.sock dev add \
	--netns /run/netns/$NS --ifname eth0 --name rdma0 || bad "pvctl dev add"
R="ip netns exec $NS env PODVERBS_ENGINE=$E/engine.sock LD_LIBRARY_PATH=$B/lib"
echo "== ibv_devices"
$R LD_DEBUG=files ibv_devices 2>$VM_WORK/kboth-devices.ld || bad "ibv_devices"
grep -c "calling init: $B/lib/libibverbs.so.1\$" $VM_WORK/kboth-devices.ld |
	sed "s/^/our libibverbs initialised: /"
grep -Ec "calling init: .*/libibverbs/librxe-rdmav34.so\$" \
	$VM_WORK/kboth-devices.ld | sed "s/^/librxe initialised: /"
grep -Ec "calling init: /(usr/)?lib/.*/libibverbs.so.1\$" \
	$VM_WORK/kboth-devices.ld | sed "s/^/Debian libibverbs initialised: /"
echo "== ibv_devinfo"
$R ibv_devinfo || bad "ibv_devinfo"
echo "== kboth-loop"
$R $B/tests/bin/kboth-loop -n 20 -s 4096 rxe0:1 rdma0:0 || bad "kboth-loop 4 KiB"
$R $B/tests/bin/kboth-loop -n 4 -s 65536 rdma0:0 rxe0:1 || bad "kboth-loop 64 KiB"
echo "== paths"
$R $B/tests/bin/kboth-loop -l >$VM_WORK/kboth-list.out || bad "kboth-loop -l"
cat $VM_WORK/kboth-list.out
while read -r tag n dp ip; do
	[ "$tag" = path: ] || continue
	case $n in
	rdma0)	[ -e "$dp" ] && bad "rdma0 dev_path $dp names an existing folder"
		[ -e "$ip" ] && bad "rdma0 ibdev_path $ip names an existing folder" ;;
	rxe0)	[ -e "$dp/ibdev" ] || bad "rxe0 dev_path $dp has no ibdev" ;;
	esac
done <$VM_WORK/kboth-list.out
echo "== ibv_rc_pingpong over rdma0 to the pod $POD_IP"
$R timeout 90 ibv_rc_pingpong -d rdma0 -g 0 -n 50 -s 4096 -c $POD_IP ||
	bad "ibv_rc_pingpong rdma0 -> pod"
$B/bin/pvctl --admin-socket $E-admin/admin.sock stats |
	grep -E "^wire_(tx|rx)_pkts " | tr "\n" " "; echo
echo "vm side done"'

# The pod's server waits for the VM side's client.
vm_in_pod pod timeout 150 ibv_rc_pingpong -d rdma0 -g 0 -n 50 -s 4096 -c \
	>"$TMP/pod-server.out" 2>&1 &
srv=$!
wait_until 30 sh -c "ip netns exec '$(topo_name pod)' ss -ltn | grep -q ':18515 '" ||
	fail "the pod's ibv_rc_pingpong server does not listen"
out=$(vm_run 150 "$VM_SIDE" 2>&1)
rc=$?
wait "$srv"
src=$?
echo "$out" | sed 's/^/    /'
echo "    pod server ($src): $(grep -m1 'usec/iter' "$TMP/pod-server.out")"
[ "$rc" = 0 ] && echo "$out" | grep -q '^vm side done' ||
	fail "the VM side failed (rc $rc)"
[ "$src" = 0 ] || fail "the pod's ibv_rc_pingpong server: $(cat "$TMP/pod-server.out")"

# What the one environment saw and did.
echo "$out" | grep -q '^our libibverbs initialised: [1-9]' ||
	fail "ibv_devices did not run over our libibverbs.so.1"
echo "$out" | grep -q '^librxe initialised: [1-9]' ||
	fail "Debian's librxe was not initialised"
echo "$out" | grep -q '^Debian libibverbs initialised: 0' ||
	fail "Debian's libibverbs was loaded too"
devs=$(echo "$out" | sed -n '/^== ibv_devices/,/^== ibv_devinfo/p')
echo "$devs" | grep -Eq '^ +rxe0[[:space:]]+[0-9a-f]{16}$' || fail "ibv_devices does not list rxe0"
echo "$devs" | grep -Eq '^ +rdma0[[:space:]]+[0-9a-f]{16}$' || fail "ibv_devices does not list rdma0"
info=$(echo "$out" | sed -n '/^== ibv_devinfo/,/^== kboth-loop/p')
[ "$(echo "$info" | grep -Ec 'hca_id:[[:space:]]+(rxe0|rdma0)$')" = 2 ] ||
	fail "ibv_devinfo does not list both rxe0 and rdma0"
[ "$(echo "$info" | grep -c 'state:.*PORT_ACTIVE')" -ge 2 ] ||
	fail "ibv_devinfo: not both ports PORT_ACTIVE"
# kboth-loop lists the devices in each of its two runs and in -l.
[ "$(echo "$out" | grep '^devices:' | grep -w rxe0 | grep -cw rdma0)" = 3 ] ||
	fail "kboth-loop's device lists"
for d in rxe0 rdma0; do
	echo "$out" | grep -Eq "^$d: .* 20 rounds of 4096 bytes, 163840 bytes checked" ||
		fail "kboth-loop: no 4 KiB traffic checked on $d"
	echo "$out" | grep -Eq "^$d: .* 4 rounds of 65536 bytes, 524288 bytes checked" ||
		fail "kboth-loop: no 64 KiB traffic checked on $d"
done
[ "$(echo "$out" | grep -c '^kboth-loop: OK')" = 2 ] || fail "kboth-loop"
# Indices: rxe0 the kernel's, rdma0 its engine id above 2^30 (libverbs/
# lv_dev_ident.h), never the same; both device kinds' paths were checked
# in the VM (rdma0's name no existing folder, rxe0's its kernel folder).
idx=$(echo "$out" | grep -m1 '^indexes:')
ri=$(echo "$idx" | sed -n 's/.* rdma0=\([-0-9]*\).*/\1/p')
ki=$(echo "$idx" | sed -n 's/.* rxe0=\([-0-9]*\).*/\1/p')
[ -n "$ri" ] && [ -n "$ki" ] || fail "no indexes of rdma0 and rxe0: $idx"
[ "$ri" -gt 1073741824 ] && [ "$ri" -ne "$ki" ] ||
	fail "rdma0's index $ri is not above 2^30 and apart from rxe0's $ki"
[ "$(echo "$out" | grep -c '^path: \(rdma0\|rxe0\) /')" -ge 2 ] ||
	fail "kboth-loop -l printed no paths"
echo "$out" | grep -q '50 iters' || fail "ibv_rc_pingpong rdma0 -> pod: no 50 iterations"
echo "PASS: one process over our libibverbs lists rxe0 (librxe) and soft rdma0 (our engine in the VM) and moves checked RC traffic on each; rdma0 also to a host pod"
