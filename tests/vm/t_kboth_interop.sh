#!/bin/sh
# SPDX-License-Identifier: MIT
# Our libibverbs on both ends of a kernel <-> soft connection (issue 16):
# in the VM, Debian's unmodified ibv_rc_pingpong, ib_write_bw and
# ib_read_bw run over OUR libibverbs.so.1 (LD_LIBRARY_PATH), which drives
# kernel rxe0 through Debian's librxe-rdmav34.so; in our pod the same
# tools run over our library on our engine's soft device rdma0.  Server on
# either side:
#  - ibv_rc_pingpong -c (data checked) at 4 KiB and 64 KiB (FIRST/MIDDLE/
#    LAST at the 1024-byte path MTU);
#  - ib_write_bw and ib_read_bw, 64 KiB, small counts (-u 16: see
#    t_perf_interop.sh);
# every VM-side run under LD_DEBUG=files, which must show our
# libibverbs.so.1 and Debian's librxe initialised in that process; rxe0's
# packet counters and our engine's wire counters must both have moved.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
. "$PV_ROOT/tests/vm/lib/interop.sh"
need_cmd ibv_rc_pingpong ib_write_bw ib_read_bw
POD_IP=10.84.7.2
vm_test_init
vm_rxe_up
vm_pod_up pod "$POD_IP/24"
VM_PAIR_POD_IP=$POD_IP
OURS="env LD_LIBRARY_PATH=$PV_BUILD/lib LD_DEBUG=files"

rxe_pkts() {
	vm_run 20 'cd /sys/class/infiniband/rxe0/ports/1/hw_counters &&
		echo $(($(cat sent_pkts) + $(cat rcvd_pkts)))'
}

# Which libibverbs and which provider the VM side's process initialised.
vm_side_out() {
	[ "$2" = vm ] && echo "$TMP/pair-$1-$2.server" ||
		echo "$TMP/pair-$1-$2.client"
}
proven=0
check_loaded() {
	_f=$(vm_side_out "$1" "$2")
	if ! grep -q "calling init: $PV_BUILD/lib/libibverbs.so.1\$" "$_f"; then
		echo "  $1-$2: our libibverbs.so.1 was not loaded in the VM:"
		grep 'libibverbs.so' "$_f" | head -3
		bad=1
	elif ! grep -Eq 'calling init: .*/libibverbs/librxe-rdmav34.so$' "$_f"; then
		echo "  $1-$2: Debian's librxe was not initialised in the VM"
		bad=1
	elif grep -Eq 'calling init: /(usr/)?lib/.*/libibverbs.so.1' "$_f"; then
		echo "  $1-$2: Debian's libibverbs was loaded too"
		bad=1
	else
		proven=$((proven + 1))
	fi
}

bad=0
ran=0
# NAME WHERE "VM CMD" "POD CMD" RESULT-AWK
pair() {
	vm_interop_want "$1" || return 0
	ran=$((ran + 1))
	if [ "$2" = vm ]; then
		_srv=$3 _cli=$4
	else
		_srv=$4 _cli=$3
	fi
	if vm_pair_case "$1-$2" 150 "$2" "$_srv" "$_cli" >"$TMP/case.out"; then
		check_loaded "$1" "$2"
		_c=$TMP/pair-$1-$2.client
		echo "  $1, server in $2: $(awk "$5" "$_c")"
	else
		cat "$TMP/case.out"
		bad=1
	fi
}
rc() {
	for where in vm pod; do
		pair "$1" $where \
			"$OURS ibv_rc_pingpong -d rxe0 -g 1 -n $2 -s $3 -c" \
			"ibv_rc_pingpong -d rdma0 -g 0 -n $2 -s $3 -c" \
			'/usec\/iter/ { print; exit }'
	done
}
perf() {
	for where in vm pod; do
		pair "$1" $where \
			"$OURS ib_$1 -d rxe0 -x 1 -F -u 16 -n $2 -s 65536" \
			"ib_$1 -d rdma0 -x 0 -F -u 16 -n $2 -s 65536" \
			'$1 == 65536 && NF >= 4 { print $4 " MB/s"; f = 1; exit }
			 END { if (!f) print "no result row" }'
		grep -Eq '^ *65536 +[0-9]+ ' "$TMP/pair-$1-$where.client" ||
			bad=1
	done
}

k0=$(rxe_pkts)
w0=$(vm_pvstat wire_tx_pkts)
rc rc-4k 100 4096
rc rc-64k 10 65536
perf write_bw 100
perf read_bw 100
k1=$(rxe_pkts)
w1=$(vm_pvstat wire_tx_pkts)
echo "kernel rxe: $(vm_rxe_counters)"
echo "our engine: $(vm_pvstats_nonzero '^wire_')"
echo "rxe0 packets +$((k1 - k0)), our engine's wire_tx_pkts +$((${w1:-0} - ${w0:-0}))"
[ "$bad" = 0 ] || fail "a case between rxe0 over our library and our pod"
[ "$proven" = "$ran" ] && [ "$ran" -gt 0 ] ||
	fail "$proven of $ran VM-side runs proven over our library + librxe"
[ $((k1 - k0)) -gt 1000 ] || fail "rxe0 moved only $((k1 - k0)) packets"
[ -n "$w1" ] && [ $((w1 - ${w0:-0})) -gt 1000 ] ||
	fail "our engine sent only $((${w1:-0} - ${w0:-0})) wire packets"
echo "PASS: ibv_rc_pingpong -c (4 KiB, 64 KiB), ib_write_bw, ib_read_bw: rxe0 over our libibverbs + Debian's librxe <-> our pod, server on either side ($proven runs proven by LD_DEBUG)"
