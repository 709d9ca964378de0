#!/bin/sh
# SPDX-License-Identifier: MIT
# UD interop with the Linux kernel's rxe (issue 10): Debian's unmodified
# ibv_ud_pingpong between kernel rxe in the VM (GID 1, its RoCEv2 IPv4
# GID) and one of our pods (soft device rdma0 on our engine, GID 0), with
# the server on either side, data validated (-c).  Kernel rxe's packets
# carry a hashed IPv4 ID, so our side's ICRC check recovers it
# (eng_wire_iphdr.h; counted in wire_rx_ipid_recovered); kernel rxe checks
# ours over the header as sent.  The capture on the node decodes in
# tshark and every ICRC is right by scapy.  Debugging: rxe's own counters
# (/sys/class/infiniband/rxe0/ports/1/hw_counters) are printed.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
PY=/usr/bin/python3
need_cmd tshark tcpdump
POD_IP=10.84.1.2
ITERS=200
vm_test_init
vm_rxe_up
vm_pod_up pod "$POD_IP/24"

stat() {
	"$PV_BUILD/bin/pvctl" --admin-socket "$ENGINE_ADMIN_SOCK" stats |
		awk -v n="$1" '$1 == n { print $2 }'
}

cap=$VM_WORK/ud-interop-$$.pcap
vm_capture_start "$cap" udp port 4791
b_rec=$(stat wire_rx_ipid_recovered)
VM_PAIR_POD_IP=$POD_IP
bad=0
for where in vm pod; do
	if [ $where = vm ]; then
		srv="ibv_ud_pingpong -d rxe0 -g 1 -n $ITERS -s 512 -c"
		cli="ibv_ud_pingpong -d rdma0 -g 0 -n $ITERS -s 512 -c"
	else
		srv="ibv_ud_pingpong -d rdma0 -g 0 -n $ITERS -s 512 -c"
		cli="ibv_ud_pingpong -d rxe0 -g 1 -n $ITERS -s 512 -c"
	fi
	if vm_pair_case "ud-$where" 90 $where "$srv" "$cli"; then
		grep -E 'usec/iter' "$TMP/pair-ud-$where.client"
	else
		bad=1
	fi
done
sleep 0.5
vm_capture_stop
vm_run 20 'cd /sys/class/infiniband/rxe0/ports/1/hw_counters && grep -H . * | grep -v ":0$"' || true
"$PV_BUILD/bin/pvctl" --admin-socket "$ENGINE_ADMIN_SOCK" stats | grep -E '^wire_' | grep -v ' 0$'
[ "$bad" = 0 ] || fail "ibv_ud_pingpong between kernel rxe and our pod"
rec=$(( $(stat wire_rx_ipid_recovered) - b_rec ))
echo "IPv4 IDs recovered from kernel rxe's ICRCs: $rec"
[ "$rec" -ge $ITERS ] || fail "kernel rxe's packets not checked with their IPv4 ID"

n=$(tshark -r "$cap" -Y infiniband 2>/dev/null | wc -l)
total=$(tshark -r "$cap" 2>/dev/null | wc -l)
malf=$(tshark -r "$cap" -Y '_ws.malformed || _ws.expert.severity == error' 2>/dev/null | wc -l)
echo "tshark: $n of $total packets decoded as InfiniBand, $malf malformed"
# tcpdump may miss frames on a loaded machine (its log says how many the
# kernel dropped): what it caught must all decode and be right, and be at
# least one direction's worth of one run.
grep -h 'dropped by kernel' "$cap.log" 2>/dev/null
[ "$n" -ge "$ITERS" ] && [ "$n" = "$total" ] && [ "$malf" = 0 ] ||
	fail "capture: $n of $total decoded, $malf malformed"
# roce_check's status, not grep's (a pipeline's is its last command's).
out=$($PY "$PV_ROOT/tests/lib/roce_check.py" --min "$ITERS" "$cap")
rc=$?
echo "$out" | grep -v '^frame' | head -20
[ $rc = 77 ] && skip "$out"
[ $rc = 0 ] || fail "ICRC check of the capture"
echo "PASS: ibv_ud_pingpong kernel rxe <-> our pod, server on either side, ICRCs right both ways"
