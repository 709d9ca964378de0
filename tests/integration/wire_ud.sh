#!/bin/sh
# SPDX-License-Identifier: MIT
# UD across the wire (issue 10): pod a on node 1, pod b on node 2, each
# node with its own engine (tests/lib/nodes.sh).  Debian's ibv_ud_pingpong
# (data validated, -c) runs across; the wire namespace's capture decodes
# in tshark and every ICRC is right by python3-scapy (roce_check.py),
# except the ones corrupted on purpose.  Meanwhile a hostile pod h on
# node 2 sends UD datagrams at pod a's QP from a raw socket: a bad ICRC,
# a wrong Q_Key, a wrong P_Key, an unknown QPN, a truncated DETH, one
# before the QP receives (INIT), and a forged source address of pod c,
# which lives on node 1 (a same-node pod never uses the wire).  Each is
# dropped and counted for its reason on node 1 (pvctl stats), and none
# is delivered: node 1 receives exactly the datagrams node 2's engine
# sent.
PV_TOPO=cross
export PV_TOPO
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd ibv_ud_pingpong
need_cmd tcpdump
need_cmd tshark
/usr/bin/python3 -c 'import scapy.contrib.roce' 2>/dev/null ||
	skip "python3-scapy is not installed"
INJ=$PV_ROOT/tests/integration/wire/ud_inject.py
QKEY=0x11111111		# ibv_ud_pingpong's
N=5			# packets per hostile case
# Long enough (seconds) for the injections to land while it runs.
ITERS=${WIRE_UD_ITERS:-40000}

pods_up
node_pod_add 1 c
node_pod_add 2 h
POD_C_IP=$(node_pod_ip c)

# stat K NAME: node K's engine counter.
stat() {
	node_pvctl "$1" stats | awk -v n="$2" '$1 == n { print $2 }'
}

# inject CASE [SRC]: pod h sends N hostile packets to pod a's QP.
inject() {
	topo_exec h /usr/bin/python3 "$INJ" "$1" "${2:-$(node_pod_ip h)}" \
		"$POD_A_IP" "$QPN" "$QKEY" "$N" || fail "inject $1"
}

in_pod a timeout 60 stdbuf -oL ibv_ud_pingpong -d "$POD_DEV" -g 0 -n $ITERS -s 64 -c \
	>"$TMP/srv" 2>&1 &
SRV=$!
wait_until 10 grep -q 'local address' "$TMP/srv" ||
	fail "server did not start: $(cat "$TMP/srv")"
QPN=$(sed -n 's/.*local address:.*QPN \(0x[0-9a-f]*\),.*/\1/p' "$TMP/srv")
[ -n "$QPN" ] || fail "no QPN in: $(cat "$TMP/srv")"
echo "pod a's UD QP: $QPN (INIT until the client connects)"

for k in qp_state icrc_err qkey pkey no_qp parse_err src_local; do
	eval "B_$k=$(stat 1 wire_rx_$k)"
done
B_rx=$(stat 1 wire_ud_rx)
B_tx=$(stat 2 wire_ud_tx)
inject good			# QP in INIT: not yet receiving
wait_until 5 sh -c "[ \"\$(PV_ROOT=$PV_ROOT; \"$PV_BUILD/bin/pvctl\" --admin-socket \"$(node_engine_admin 1)\" stats | awk '\$1 == \"wire_rx_qp_state\" { print \$2 }')\" -ge $((B_qp_state + N)) ]" ||
	fail "packets to a QP in INIT not counted in wire_rx_qp_state"

in_pod b timeout 60 stdbuf -oL ibv_ud_pingpong -d "$POD_DEV" -g 0 -n $ITERS -s 64 -c \
	"$POD_A_IP" >"$TMP/cli" 2>&1 &
CLI=$!
wait_until 10 grep -q 'remote address' "$TMP/srv" ||
	fail "client did not connect: $(cat "$TMP/cli")"
# Captured: the injections and the pingpong's packets around them.
wire_capture start "$TMP/wire.pcap" 'udp port 4791'
sleep 0.2
inject "icrc,qkey,pkey,noqp,trunc,good@$POD_C_IP"	# pod c: on node 1
sleep 0.2
wire_capture stop
pid_alive "$CLI" || fail "the pingpong ended before the injections: raise WIRE_UD_ITERS"

wait "$CLI"; RC_CLI=$?
wait "$SRV"; RC_SRV=$?
cat "$TMP/cli"
[ "$RC_CLI" = 0 ] && [ "$RC_SRV" = 0 ] ||
	fail "pingpong: client $RC_CLI, server $RC_SRV: $(cat "$TMP/srv")"
grep -qi 'invalid data' "$TMP/cli" "$TMP/srv" &&
	fail "received data failed validation (-c)"

bad=0
check() {	# check COUNTER WANT
	_got=$(( $(stat 1 "wire_rx_$1") - $(eval echo "\$B_$1") ))
	echo "node 1 wire_rx_$1: +$_got (want +$2)"
	[ "$_got" = "$2" ] || bad=1
}
check qp_state $N
check icrc_err $N
check qkey $N
check pkey $N
check no_qp $N
check parse_err $N
check src_local $N
RX=$(( $(stat 1 wire_ud_rx) - B_rx ))
TX=$(( $(stat 2 wire_ud_tx) - B_tx ))
echo "node 1 delivered $RX UD datagrams, node 2's engine sent $TX"
[ "$RX" = "$TX" ] && [ "$TX" -ge $ITERS ] || bad=1
[ "$bad" = 0 ] || fail "hostile datagrams not dropped and counted as they should"

# The capture: all of it RoCEv2 that tshark decodes, the truncated ones
# malformed; our engines' packets carry DF and ID 0 (what eng_wire_tx
# computes their ICRC over).  By scapy every ICRC right but the
# corrupted ones (roce_check.py, on the hostile packets and the first 2000
# others: scapy is slow).
tshark -r "$TMP/wire.pcap" -T fields -e frame.number -e ip.src -e ip.id \
	-e ip.flags.df -e _ws.malformed -e infiniband.bth.opcode \
	-Y 'udp.dstport == 4791' >"$TMP/fields" 2>/dev/null ||
	fail "tshark could not read the capture"
_all=$(wc -l <"$TMP/fields")
_nodec=$(awk -F'\t' '$6 == ""' "$TMP/fields" | wc -l)
_malf=$(awk -F'\t' '$5 != ""' "$TMP/fields" | wc -l)
_ours=$(awk -F'\t' -v a="$POD_A_IP" -v b="$POD_B_IP" '$2 == a || $2 == b' "$TMP/fields" | wc -l)
_badid=$(awk -F'\t' -v a="$POD_A_IP" -v b="$POD_B_IP" '($2 == a || $2 == b) && ($3 != "0x0000" || $4 != "1")' "$TMP/fields" | wc -l)
echo "tshark: $_all RoCEv2 frames, $_nodec not decoded, $_malf malformed; $_ours from the engines, $_badid of them without DF or with an ID"
# What the capture holds of the bad-ICRC (IP ID 1231) and truncated (1235)
# injections: all N unless tcpdump lost some on a busy machine (the engine's
# counters above are checked exactly either way).
_cicrc=$(awk -F'\t' '$3 == "0x04cf"' "$TMP/fields" | wc -l)
_ctrunc=$(awk -F'\t' '$3 == "0x04d3"' "$TMP/fields" | wc -l)
echo "capture: $_cicrc of $N bad-ICRC and $_ctrunc of $N truncated injections"
[ "$_cicrc" -ge 1 ] && [ "$_ctrunc" -ge 1 ] ||
	fail "the capture holds none of an injected kind (tcpdump: $(cat "$(nodes_dir)/tcpdump.log"))"
[ "$_nodec" = 0 ] || fail "tshark did not decode $_nodec RoCEv2 frames"
[ "$_malf" = "$_ctrunc" ] || fail "tshark found $_malf malformed frames, want $_ctrunc"
[ "$_ours" -gt 0 ] && [ "$_badid" = 0 ] || fail "engine packets not DF with ID 0"
tshark -r "$TMP/wire.pcap" -w "$TMP/some.pcap" \
	-Y "frame.number <= 2000 || ip.src == $(node_pod_ip h) || ip.src == $POD_C_IP" \
	2>/dev/null || fail "tshark could not cut the capture"
/usr/bin/python3 "$PV_ROOT/tests/lib/roce_check.py" --min 100 \
	--expect-bad $((_cicrc + _ctrunc)) "$TMP/some.pcap" >"$TMP/roce_check" 2>&1
_rc=$?
grep -v '^frame' "$TMP/roce_check"
[ "$_rc" = 0 ] || fail "roce_check: not every packet of the capture is right: $(cat "$TMP/roce_check")"
echo "PASS: UD across nodes, hostile datagrams dropped and counted"
