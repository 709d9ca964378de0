#!/bin/sh
# SPDX-License-Identifier: MIT
# perftest interop with the Linux kernel's rxe (issue 10): Debian's
# unmodified ib_write_bw, ib_read_bw, ib_send_lat and ib_atomic_bw
# (connected through perftest's TCP exchange, not the CM) between kernel
# rxe in the VM (-x 1, its RoCEv2 IPv4 GID) and one of our pods (rdma0 on
# our engine, -x 0), the server on either side.  Each prints its figures;
# the captures on the node decode in tshark and every ICRC is right by
# scapy.  TCG is for function, not speed: small counts.  The transport
# timeout is 268 ms (-u 16; perftest's default 14 is 67 ms): a TCG guest
# on a loaded host stalls for half a second at times, and seven 67 ms
# retries without an answer end the run in IBV_WC_RETRY_EXC_ERR.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
. "$PV_ROOT/tests/vm/lib/interop.sh"
need_cmd tshark tcpdump mergecap ib_write_bw ib_read_bw ib_send_lat ib_atomic_bw
POD_IP=10.84.5.2
vm_test_init
vm_rxe_up
vm_pod_up pod "$POD_IP/24"
VM_PAIR_POD_IP=$POD_IP

bad=0
# NAME SIZE-COLUMN-FILTER FIELD UNIT "ARGS": the tool with ARGS on both
# sides, server on each; the client's result row (first column the
# message size) gives FIELD.
perf_case() {
	_tool=${1%%-*}
	vm_interop_want "$1" || return 0
	for where in vm pod; do
		if vm_interop_case "$1" $where 150 \
			"ib_$_tool -d rxe0 -x 1 -F -u 16 $5" \
			"ib_$_tool -d rdma0 -x 0 -F -u 16 $5"; then
			_v=$(awk -v s="$2" -v f="$3" '$1 == s && NF >= f { print $f; exit }' \
				"$TMP/pair-$1-$where.client")
			[ -n "$_v" ] || { echo "  $1: no result row"; bad=1; }
			echo "  $1, server in $where: $_v $4"
		else
			bad=1
		fi
	done
}
perf_case write_bw-64k 65536 4 MB/s "-n 200 -s 65536"
perf_case read_bw-64k 65536 4 MB/s "-n 200 -s 65536"
perf_case send_lat-64 64 6 "usec (t_avg)" "-n 200 -s 64"
perf_case atomic_bw 8 4 MB/s "-n 200"
echo "kernel rxe: $(vm_rxe_counters)"
echo "our engine: $(vm_pvstats_nonzero '^wire_')"
[ "$bad" = 0 ] || fail "perftest between kernel rxe and our pod"
vm_interop_check 1000 || fail "the captures' decode or ICRC check"
echo "PASS: ib_write_bw, ib_read_bw, ib_send_lat, ib_atomic_bw kernel rxe <-> our pod, server on either side"
