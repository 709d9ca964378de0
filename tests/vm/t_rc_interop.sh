#!/bin/sh
# SPDX-License-Identifier: MIT
# RC interop with the Linux kernel's rxe (issue 10): Debian's unmodified
# ibv_rc_pingpong between kernel rxe in the VM (GID 1, its RoCEv2 IPv4
# GID) and one of our pods (soft device rdma0 on our engine, GID 0), the
# server on either side, data validated (-c): 4 KiB messages (4 packets
# each at the 1024-byte path MTU) and 64 KiB ones (64 packets: FIRST/
# MIDDLE/LAST segmentation and reassembly both ways, an AckReq within
# the message, coalesced ACKs).  The captures on the node decode in
# tshark and every ICRC is right by scapy.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
. "$PV_ROOT/tests/vm/lib/interop.sh"
need_cmd tshark tcpdump mergecap ibv_rc_pingpong
POD_IP=10.84.4.2
vm_test_init
vm_rxe_up
vm_pod_up pod "$POD_IP/24"
VM_PAIR_POD_IP=$POD_IP

bad=0
# NAME ITERS SIZE: ibv_rc_pingpong -c with the server on each side.
rc_case() {
	vm_interop_want "$1" || return 0
	for where in vm pod; do
		if vm_interop_case "$1" $where 120 \
			"ibv_rc_pingpong -d rxe0 -g 1 -n $2 -s $3 -c" \
			"ibv_rc_pingpong -d rdma0 -g 0 -n $2 -s $3 -c"; then
			echo "  $1, server in $where: $(grep -m1 'usec/iter' \
				"$TMP/pair-$1-$where.client")"
		else
			bad=1
		fi
	done
}
rc_case rc-4k 200 4096
rc_case rc-64k 20 65536
echo "kernel rxe: $(vm_rxe_counters)"
echo "our engine: $(vm_pvstats_nonzero '^wire_')"
[ "$bad" = 0 ] || fail "ibv_rc_pingpong between kernel rxe and our pod"
vm_interop_check 1000 || fail "the captures' decode or ICRC check"
echo "PASS: ibv_rc_pingpong -c (4 KiB x 200, 64 KiB x 20) kernel rxe <-> our pod, server on either side"
