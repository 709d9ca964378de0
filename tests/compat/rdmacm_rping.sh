#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified rdmacm-utils between two pods on one engine, over
# our librdmacm.so.1 and libibverbs.so.1 (same-node CM): rping -v -V -C 1000
# (data verified), ucmatose with several connections, udaddy (SIDR),
# cmtime, and a connect with no listener; no CM state is left behind.
# In the cross pass (tests/cross.list, PV_TOPO=cross) the same between
# two nodes, every CM message a MAD on the wire.  udpong is not here: it
# is datagram rsockets (rsocket(SOCK_DGRAM), rsendto, rrecvfrom), issue 13.
set -u
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd rping
need_cmd ucmatose
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
pods_up

. "$PV_ROOT/tests/compat/rdmacm_common.inc"

# -V: rping checks every ping's data itself (and fails on a mismatch);
# -v prints it.  Counted by sequence number: stdout and stderr share the
# file, and an event line may land inside a data line.
if cm_case rping 60 "rping -s -a $POD_B_IP -C 1000 -v -V" \
	   "rping -c -a $POD_B_IP -C 1000 -v -V"; then
	n=$(grep -o 'rdma-ping-[0-9]*: ' "$TMP/rping.cli" | sort -u | wc -l)
	if [ "$n" = 1000 ]; then
		case_ok "rping: 1000 pings verified"
	else
		case_fail rping "client printed $n verified pings of 1000"
	fi
fi

if cm_case ucmatose 60 "ucmatose -c 4 -C 10" \
	   "ucmatose -s $POD_B_IP -c 4 -C 10"; then
	if grep -q 'data transfers complete' "$TMP/ucmatose.cli" &&
	   grep -q 'data transfers complete' "$TMP/ucmatose.srv" &&
	   grep -q 'disconnected' "$TMP/ucmatose.srv"; then
		case_ok "ucmatose: 4 connections, 10 messages each"
	else
		case_fail ucmatose "no completion lines"
	fi
fi

# UD over SIDR (RDMA_PS_UDP): udaddy's default is one connection.
if cm_case udaddy 30 "udaddy" "udaddy -s $POD_B_IP"; then
	grep -q 'data transfers complete' "$TMP/udaddy.cli" &&
	grep -q 'data transfers complete' "$TMP/udaddy.srv" &&
		case_ok "udaddy: SIDR, UD sends both ways" ||
		case_fail udaddy "no completion lines"
fi

# perftest with -R: tests/compat/rdmacm_perftest.sh.

# cmtime: 100 connections set up and torn down at once; its server
# never exits by itself.
if command -v cmtime >/dev/null; then
	ct_l0=$(cm_listens)
	in_pod b timeout 60 cmtime -b "$POD_B_IP" -c 100 >"$TMP/cmtime.srv" 2>&1 &
	CT_SRV=$!
	wait_until 10 listened_since "$ct_l0"
	in_pod a timeout 60 cmtime -s "$POD_B_IP" -c 100 >"$TMP/cmtime.cli" 2>&1
	ct_rc=$?
	ct_tool=$(pair_tool "$CT_SRV" cmtime)
	[ -n "$ct_tool" ] && kill "$ct_tool"
	stop_pid "$CT_SRV"
	conn=$(awk '$1 == "connect" { print $NF }' "$TMP/cmtime.cli")
	if [ "$ct_rc" = 0 ] && [ -n "$conn" ] &&
	   ! grep -q REJECTED "$TMP/cmtime.cli"; then
		grep -E '^(step|create id|resolve|create qp|connect|disconnect|destroy)' \
			"$TMP/cmtime.cli" | sed 's/^/    /'
		case_ok "cmtime: 100 connections, $conn us per connect"
	else
		case_fail cmtime "exit $ct_rc"
	fi
fi

# rdma_server/rdma_client (static buffers): tests/compat/rdmacm_static.sh.

# No listener: REJECTED with the IB CM's "invalid service ID" (8), as the
# kernel reports a RoCE connect to a port nobody listens on.
in_pod a timeout 20 rping -c -a "$POD_B_IP" -p 7999 -C 1 >"$TMP/nolisten.cli" 2>&1
if grep -q 'RDMA_CM_EVENT_REJECTED, error 8' "$TMP/nolisten.cli"; then
	case_ok "no listener: REJECTED, status 8"
else
	case_fail nolisten "expected REJECTED with status 8"
fi

cm_check_left
pairs_done
