#!/bin/sh
# SPDX-License-Identifier: MIT
# RDMA CM interop with the Linux kernel (issue 11 item 3): Debian's
# unmodified rping between the kernel's RDMA CM over rxe in the VM and one
# of our pods (our librdmacm, the engine's CM on QP1 of soft device
# rdma0), the server on either side, data verified (-v).  The kernel must
# accept our REQ and we its REQ; the capture on the node shows the
# exchange both ways (tshark: REQ, REP, RTU, DREQ, DREP from each side).
# Then perftest's ib_write_bw -R (connected through the CM), both ways.
#
# Each client starts once the server's RDMA CM listener exists (the VM's
# `rdma res show cm_id`, our engine's cm_listens), and runs once: a client
# started again after a failed one would meet a server that has moved on.
# perftest -R connects twice on the same port: a first connection for its
# parameter exchange, then, after a handshake over it, the test's own; the
# server listens for the second only after that handshake, and a client
# fast enough to beat it gets REJ "invalid service ID" (8).  Debian 12's
# perftest (4.5-0.17) then retries with ids and nodes it has just freed and
# crashes (rdma_cm_client_connection after rdma_cm_destroy_cma; fixed
# upstream in perftest 3d9d8d0, Dec 2025).  So the client's second
# rdma_connect waits for the server's second listener (lib/cm_gate.c, a
# preload, and a watcher of the server's listeners on its side).  On any
# failure the CM MADs and first RC packets of the capture are printed
# (lib/interop.sh vm_cm_trace) and the capture and outputs kept.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
. "$PV_ROOT/tests/vm/lib/interop.sh"
need_cmd tshark tcpdump rping
[ -e "$PV_BUILD/lib/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
POD_IP=10.84.3.2
N=20
vm_test_init
vm_rxe_up
vm_run 60 'modprobe rdma_ucm && [ -e /dev/infiniband/rdma_cm ]' ||
	fail "rdma_ucm in the VM"
vm_pod_up pod "$POD_IP/24"

pvstat() {
	"$PV_BUILD/bin/pvctl" --admin-socket "$ENGINE_ADMIN_SOCK" stats |
		awk -v n="$1" '$1 == n { print $2 }'
}
listened_since() { [ "$(pvstat cm_listens)" -gt "$1" ]; }

cap=$VM_WORK/cm-interop-$$.pcap
vm_capture_start "$cap" "udp port 4791"
bad=0
# 1. Server in the VM (kernel CM), client in our pod: the kernel accepts
# our REQ.  rping -s listens on an RDMA CM port (7174), not a TCP one.
vm_start srv 90 "rping -s -a $VM_IP -C $N -v"
wait_until 60 vm_cm_listening 7174 || echo "the kernel's rping server did not listen"
ok=no
vm_in_pod pod timeout 30 rping -c -a "$VM_IP" -C "$N" -v \
	>"$TMP/vm-srv.client" 2>&1 && ok=yes
vm_wait "$srv" >"$TMP/vm-srv.server" 2>&1
src=$?
n=$(grep -c '^ping data: rdma-ping-' "$TMP/vm-srv.client")
if [ $ok = yes ] && [ $src = 0 ] && [ "$n" = "$N" ]; then
	echo "ok rping: kernel CM server in the VM, our pod's client: $n pings verified"
else
	bad=1
	echo "FAILED rping with the server in the VM: client $ok ($n pings), server rc $src"
	cat "$TMP/vm-srv.client" "$TMP/vm-srv.server"
fi

# 2. Server in our pod, client in the VM: we accept the kernel's REQ.
l0=$(pvstat cm_listens)
vm_in_pod pod timeout 90 rping -s -a "$POD_IP" -C "$N" -v \
	>"$TMP/pod-srv.server" 2>&1 &
sp=$!
wait_until 10 listened_since "$l0" || echo "our rping server did not listen"
vm_run 60 "rping -c -a $POD_IP -C $N -v" >"$TMP/pod-srv.client" 2>&1
crc=$?
wait "$sp"
src=$?
n=$(grep -c '^ping data: rdma-ping-' "$TMP/pod-srv.client")
if [ $crc = 0 ] && [ $src = 0 ] && [ "$n" = "$N" ]; then
	echo "ok rping: our pod's server, kernel CM client in the VM: $n pings verified"
else
	bad=1
	echo "FAILED rping with the server in our pod: client rc $crc ($n pings), server rc $src"
	cat "$TMP/pod-srv.client" "$TMP/pod-srv.server"
fi
# 3. perftest through the CM (-R), server on either side.  With -R the
# server listens on an RDMA CM port: the client retries until it is up.
BW="ib_write_bw -R -n 200 -s 4096"
# perftest's refused second connection (see the top), in a client's output.
refused_late() {
	grep -q 'Event: RDMA_CM_EVENT_REJECTED; error: 8' "$1" &&
		echo "its second connection was refused (REJ 8): the client's gate opened before the server's second listener"
}

# Server in the VM: its listeners watched there (vm_cm_gate_watch); the
# client starts at the first and connects the second time at the second.
bw_vm() {
	g=$VM_WORK/bw-vm-gate
	rm -rf "$g" && mkdir -p "$g"
	vm_start bws 150 ". $VM_LIB/interop.sh
		$BW -d rxe0 & s=\$!
		echo \$s >$g/pid
		vm_cm_gate_watch 18515 \$s $g &
		wait \$s"
	wait_until 90 test -e "$g/listen1" ||
		echo "ib_write_bw in the VM did not listen"
	vm_in_pod pod timeout 60 env PV_CM_GATE="$g/listen2" \
		LD_PRELOAD="$VM_WORK/cm_gate.so" $BW -d rdma0 "$VM_IP" \
		>"$TMP/bw-vm.client" 2>&1
	crc=$?
	# A client that failed leaves the server waiting: stopped at once.
	[ $crc = 0 ] || vm_run 10 "kill \$(cat $g/pid)" >/dev/null 2>&1
	vm_wait "$bws" >"$TMP/bw-vm.server" 2>&1
	src=$?
}

# Server in our pod: its second listen is our engine's next cm_listens.
bw_pod() {
	g=$VM_WORK/bw-pod-listen2
	rm -f "$g"
	l0=$(pvstat cm_listens)
	vm_in_pod pod timeout 90 $BW -d rdma0 >"$TMP/bw-pod.server" 2>&1 &
	sp=$!
	wait_until 10 listened_since "$l0" || echo "our ib_write_bw server did not listen"
	(wait_until 80 listened_since $((l0 + 1)) && : >"$g") &
	gp=$!
	vm_run 60 "env PV_CM_GATE=$g LD_PRELOAD=$VM_WORK/cm_gate.so $BW -d rxe0 $POD_IP" \
		>"$TMP/bw-pod.client" 2>&1
	crc=$?
	# $sp is vm_in_pod's subshell: the server is what runs in the pod.
	[ $crc = 0 ] || ip netns pids "$(topo_name pod)" | xargs -r kill
	wait "$sp"
	src=$?
	stop_pid "$gp"
}

if command -v ib_write_bw >/dev/null; then
	vm_cm_gate_so || fail "cc: tests/vm/lib/cm_gate.c"
	bw_vm
	bw=$(awk '$1 == 4096 && $2 == 200 { print $4 }' "$TMP/bw-vm.client")
	if [ $crc = 0 ] && [ $src = 0 ] && [ -n "$bw" ]; then
		echo "ok ib_write_bw -R: kernel server in the VM, our client: $bw MB/s"
	else
		bad=1
		echo "FAILED ib_write_bw -R with the server in the VM (client rc $crc, server rc $src)"
		refused_late "$TMP/bw-vm.client"
		cat "$TMP/bw-vm.client" "$TMP/bw-vm.server"
	fi
	bw_pod
	bw=$(awk '$1 == 4096 && $2 == 200 { print $4 }' "$TMP/bw-pod.client")
	if [ $crc = 0 ] && [ $src = 0 ] && [ -n "$bw" ]; then
		echo "ok ib_write_bw -R: our server, kernel client in the VM: $bw MB/s"
	else
		bad=1
		echo "FAILED ib_write_bw -R with the server in our pod (client rc $crc, server rc $src)"
		refused_late "$TMP/bw-pod.client"
		cat "$TMP/bw-pod.client" "$TMP/bw-pod.server"
	fi
fi
sleep 0.5
vm_capture_stop
"$PV_BUILD/bin/pvctl" --admin-socket "$ENGINE_ADMIN_SOCK" stats |
	grep -E '^cm_' | grep -v ' 0$' | tr '\n' ' '
echo
tshark -r "$cap" -Y 'infiniband.bth.destqp == 1' -T fields -e ip.src \
	-e _ws.col.Info 2>/dev/null | sed 's/CM: //' | sort | uniq -c
# Each side's engine/kernel sent each message at least once.
for who in "$POD_IP" "$VM_IP"; do
	for m in ConnectRequest ConnectReply ReadyToUse DisconnectRequest DisconnectReply; do
		tshark -r "$cap" -Y "infiniband.bth.destqp == 1 && ip.src == $who" \
			-T fields -e _ws.col.Info 2>/dev/null | grep -q "$m" ||
			{ echo "capture: no $m from $who"; bad=1; }
	done
done
# Every packet of the exchanges (CM MADs, rping's and perftest's data)
# decodes and has the right ICRC, by scapy.
out=$(/usr/bin/python3 "$PV_ROOT/tests/lib/roce_check.py" --min 20 "$cap")
rc=$?
echo "$out" | grep -v '^frame' | head -20
[ $rc = 77 ] && skip "$out"
[ $rc = 0 ] || { echo "ICRC/decode check of the capture failed"; bad=1; }
if [ "$bad" != 0 ]; then
	vm_cm_trace "$cap" 20
	vm_keep_failed t_cm_interop "$cap" "$TMP"/*.client "$TMP"/*.server
fi
[ "$bad" = 0 ] || fail "rping between the kernel's RDMA CM and our pod"
echo "PASS: rping ($N pings verified) and ib_write_bw -R between the kernel RDMA CM and our pod, server on either side; REQ/REP/RTU/DREQ/DREP from both"
