#!/bin/sh
# SPDX-License-Identifier: MIT
# The RDMA CM across nodes (issue 11 items 3, 4): pod a on node 1, pod b on
# node 2 (tests/lib/nodes.sh's routed layout, an engine each), Debian's
# unmodified rdmacm-utils over our libraries, so every REQ/REP/RTU/DREQ/
# DREP (and SIDR_REQ/REP) is an IB CM MAD on QP1 crossing the wire as a
# RoCEv2 UD packet: rping -v (data verified; RC on the wire), ucmatose
# (several connections), udaddy (SIDR + UD), cmtime -c 50 (its figures),
# a connect nobody listens for
# (REJECTED 8, as the kernel), tshark's reading of the MADs, and no CM
# state left on either engine afterwards.
set -u
PV_TOPO=cross
export PV_TOPO
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd rping
need_cmd ucmatose
need_cmd udaddy
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
pods_up

stat_of() { # NODE NAME
	pvctl_node "$1" stats | awk -v n="$2" '$1 == n { print $2 }'
}
listened_since() { [ "$(stat_of 2 cm_listens)" -gt "$1" ]; }

# cm_case NAME SECS "SERVER CMD" "CLIENT CMD": server in b (node 2),
# started first and waited for until node 2's engine counted its listen.
cm_case() {
	_cc_name=$1 _cc_secs=$2 _cc_srv=$3 _cc_cli=$4
	_cc_l0=$(stat_of 2 cm_listens)
	# shellcheck disable=SC2086
	in_pod b timeout "$_cc_secs" $_cc_srv >"$TMP/$_cc_name.srv" 2>&1 &
	_cc_spid=$!
	if ! wait_until 10 listened_since "$_cc_l0"; then
		stop_pid "$_cc_spid"
		case_fail "$_cc_name" "server did not rdma_listen"
		return 1
	fi
	# shellcheck disable=SC2086
	in_pod a timeout "$_cc_secs" $_cc_cli >"$TMP/$_cc_name.cli" 2>&1
	_cc_crc=$?
	wait "$_cc_spid"
	_cc_src=$?
	if [ "$_cc_crc" != 0 ] || [ "$_cc_src" != 0 ]; then
		case_fail "$_cc_name" "exit codes: server $_cc_src, client $_cc_crc (124 = timeout)"
		return 1
	fi
	return 0
}

CAP=$TMP/cm_wire.pcap
have_tshark=no
command -v tcpdump >/dev/null && command -v tshark >/dev/null &&
	have_tshark=yes
[ "$have_tshark" = yes ] && wire_capture start "$CAP" "udp port 4791"

if cm_case rping 60 "rping -s -a $POD_B_IP -C 100 -v" \
	   "rping -c -a $POD_B_IP -C 100 -v"; then
	n=$(grep -c 'ping data: rdma-ping-' "$TMP/rping.cli")
	if [ "$n" = 100 ]; then
		case_ok "rping across nodes: 100 pings verified"
	else
		case_fail rping "client printed $n verified pings of 100"
	fi
fi

[ "$have_tshark" = yes ] && wire_capture stop

if cm_case ucmatose 60 "ucmatose -c 4 -C 10" \
	   "ucmatose -s $POD_B_IP -c 4 -C 10"; then
	if grep -q 'data transfers complete' "$TMP/ucmatose.cli" &&
	   grep -q 'data transfers complete' "$TMP/ucmatose.srv"; then
		case_ok "ucmatose across nodes: 4 connections, 10 messages each"
	else
		case_fail ucmatose "no completion lines"
	fi
fi

if cm_case udaddy 30 "udaddy" "udaddy -s $POD_B_IP"; then
	if grep -q 'data transfers complete' "$TMP/udaddy.cli" &&
	   grep -q 'data transfers complete' "$TMP/udaddy.srv"; then
		case_ok "udaddy across nodes: SIDR_REQ/SIDR_REP, UD both ways"
	else
		case_fail udaddy "no completion lines"
	fi
fi

# cmtime: 50 connections set up and torn down at once across the wire,
# its figures printed; its server never exits by itself.
if command -v cmtime >/dev/null; then
	ct_l0=$(stat_of 2 cm_listens)
	in_pod b timeout 60 cmtime -b "$POD_B_IP" -c 50 >"$TMP/cmtime.srv" 2>&1 &
	CT_SRV=$!
	wait_until 10 listened_since "$ct_l0"
	in_pod a timeout 60 cmtime -s "$POD_B_IP" -c 50 >"$TMP/cmtime.cli" 2>&1
	ct_rc=$?
	ct_tool=$(pair_tool "$CT_SRV" cmtime)
	[ -n "$ct_tool" ] && kill "$ct_tool"
	stop_pid "$CT_SRV"
	conn=$(awk '$1 == "connect" { print $NF }' "$TMP/cmtime.cli")
	if [ "$ct_rc" = 0 ] && [ -n "$conn" ] &&
	   ! grep -q REJECTED "$TMP/cmtime.cli"; then
		grep -E '^(step|create id|resolve|create qp|connect|disconnect|destroy)' \
			"$TMP/cmtime.cli" | sed 's/^/    /'
		case_ok "cmtime across nodes: 50 connections, $conn us per connect"
	else
		case_fail cmtime "exit $ct_rc"
	fi
fi

# No listener on node 2: its engine answers the REQ with REJ "invalid
# service ID", which the client sees as REJECTED 8, as with the kernel.
in_pod a timeout 20 rping -c -a "$POD_B_IP" -p 7999 -C 1 >"$TMP/nolisten.cli" 2>&1
if grep -q 'RDMA_CM_EVENT_REJECTED, error 8' "$TMP/nolisten.cli"; then
	case_ok "no listener across nodes: REJECTED, status 8"
else
	case_fail nolisten "expected REJECTED with status 8"
fi

# What tshark reads on the wire: the CM's messages of the rping exchange.
if [ "$have_tshark" = yes ]; then
	tshark -r "$CAP" -d udp.port==4791,infiniband -Y 'infiniband.bth.destqp == 1' \
		-T fields -e ip.src -e infiniband.bth.destqp \
		-e infiniband.deth.q_key -e infiniband.deth.srcqp \
		-e _ws.col.Info >"$TMP/tshark.out" 2>"$TMP/tshark.err"
	seen=""
	for m in ConnectRequest ConnectReply ReadyToUse DisconnectRequest DisconnectReply; do
		grep -q "$m" "$TMP/tshark.out" && seen="$seen $m"
	done
	bad=$(awk -F'\t' '$2 != "0x000001" || $3 != "0x0000000080010000" || $4 != "0x00000001"' \
		"$TMP/tshark.out" | head -3)
	if [ "$seen" = " ConnectRequest ConnectReply ReadyToUse DisconnectRequest DisconnectReply" ] &&
	   [ -z "$bad" ]; then
		case_ok "tshark: REQ REP RTU DREQ DREP, all QP1 -> QP1, Q_Key 0x80010000 ($(wc -l <"$TMP/tshark.out") MADs)"
	else
		case_fail tshark "saw:$seen; off: $bad"
		head -20 "$TMP/tshark.out"
	fi
fi

# Nothing left: no ids, and every wire connection out of timewait.
cm_clean() {
	for _n in 1 2; do
		[ "$(stat_of $_n cm_ids_live)" = 0 ] || return 1
		[ "$(stat_of $_n cm_wire_conns_live)" = 0 ] || return 1
	done
}
if wait_until 10 cm_clean; then
	case_ok "no CM state left on either node (cm_ids_live 0, cm_wire_conns_live 0)"
else
	case_fail cm_left "node 1: ids $(stat_of 1 cm_ids_live) wire $(stat_of 1 cm_wire_conns_live); node 2: ids $(stat_of 2 cm_ids_live) wire $(stat_of 2 cm_wire_conns_live)"
fi
for n in 1 2; do
	echo "    node $n: $(pvctl_node $n stats | awk '$1 ~ /^cm_wire_/ && $2 != 0 { printf "%s=%s ", $1, $2 }')"
done
pairs_done
