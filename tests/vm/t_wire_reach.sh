#!/bin/sh
# SPDX-License-Identifier: MIT
# RoCEv2 crosses the VM's link both ways: from the VM's node, a hand-made
# UD MAD (scapy) to QP1 of kernel rxe gets a valid GetResp back; tcpdump on
# the node captures both, tshark decodes every RoCEv2 packet as InfiniBand
# with no malformed one, and every ICRC is right by scapy's computation.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
. "$PV_ROOT/tests/vm/lib/vm.sh"
PY=/usr/bin/python3
$PY -c 'import scapy.contrib.roce' 2>/dev/null || skip "needs python3-scapy"
need_cmd tshark tcpdump
vm_test_init
vm_rxe_up

cap=$VM_WORK/wire-$$.pcap # kept with the run's logs
vm_node busybox ping -c 1 -W 5 "$VM_IP" >/dev/null || fail "node cannot ping the VM"
vm_capture_start "$cap" "udp port 4791"
vm_node $PY "$VM_LIB/roce_mad.py" get "$VM_TAP" "$VM_MAC" "$VM_GW" "$VM_IP"
rc=$?
sleep 0.5
vm_capture_stop
[ $rc = 0 ] || fail "no valid reply from kernel rxe to a MAD on QP1"

n=$(tshark -r "$cap" -Y infiniband 2>/dev/null | wc -l)
total=$(tshark -r "$cap" 2>/dev/null | wc -l)
bad=$(tshark -r "$cap" -Y '_ws.malformed || _ws.expert.severity == error' 2>/dev/null | wc -l)
tshark -r "$cap" -Y infiniband -T fields -e ip.src -e ip.dst \
	-e infiniband.bth.opcode -e infiniband.bth.destqp \
	-e infiniband.mad.mgmtclass -e infiniband.mad.method \
	-e infiniband.mad.transactionid 2>/dev/null
echo "tshark: $n of $total packets decoded as InfiniBand, $bad malformed"
[ "$n" -ge 2 ] && [ "$n" = "$total" ] || fail "tshark decoded $n of $total as RoCE"
[ "$bad" = 0 ] || fail "tshark: $bad malformed packets"
tshark -r "$cap" -Y 'infiniband.mad.method == 0x81' 2>/dev/null | grep -q . ||
	fail "tshark sees no GetResp MAD"
$PY "$VM_LIB/roce_mad.py" icrc "$cap" || fail "ICRC check of the capture"
echo "PASS: MAD Get -> GetResp from kernel rxe; $n RoCEv2 packets, none malformed, ICRCs correct"
