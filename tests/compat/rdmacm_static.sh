#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's rdma_server/rdma_client and rdma_xserver/rdma_xclient between
# two pods on one engine.  Their message buffers are static arrays (.bss of
# the program image, a private file mapping's last page and the anonymous
# mapping after it): ibv_reg_mr must move them onto a memfd
# (providers/soft/provider/soft_mr_share.c) with the program unaware.
set -u
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd rdma_server
need_cmd rdma_client
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
pods_up
. "$PV_ROOT/tests/compat/rdmacm_common.inc"

# Both print "end 0" when every call succeeded (send + recv completions).
if cm_case rdma_server 30 "rdma_server -s $POD_B_IP" \
	   "rdma_client -s $POD_B_IP"; then
	if grep -q 'rdma_server: end 0' "$TMP/rdma_server.srv" &&
	   grep -q 'rdma_client: end 0' "$TMP/rdma_server.cli"; then
		case_ok "rdma_server/rdma_client: static buffers, send/recv"
	else
		case_fail rdma_server "no 'end 0' lines"
	fi
fi

# The x-pair in its default RC mode: the client posts 16 inline bytes on a
# QP created with max_inline_data 0 (the engine grants the SGE room as
# inline, as rxe does) and takes the SRQ-less path.
if command -v rdma_xserver >/dev/null &&
   cm_case rdma_xserver 30 "rdma_xserver" "rdma_xclient -s $POD_B_IP"; then
	if grep -q 'rdma_xserver: end 0' "$TMP/rdma_xserver.srv" &&
	   grep -q 'rdma_xclient: end 0' "$TMP/rdma_xserver.cli"; then
		case_ok "rdma_xserver/rdma_xclient -c r: inline send, static buffers"
	else
		case_fail rdma_xserver "no 'end 0' lines"
	fi
fi
# '-c x': XRC through the CM (RDMA_PS_IB).  The server's XRC_RECV QP
# (made by rdma_get_request in the device's XRC domain) has no receive
# queue: its rdma_get_recv_comp completes only if the client's XRC SEND,
# addressed to the SRQ number the REP's private data carried, landed in
# the XRC SRQ rdma_create_srq made.  Across nodes the REQ says XRC
# (transport 3, extended 1) and the REP carries the target's QPN in its
# EECN field, as the kernel's IB CM does.
x0=$(cm_stat 2 cm_transport_mismatch)
if command -v rdma_xserver >/dev/null &&
   cm_case rdma_xserver_x 30 "rdma_xserver -c x" \
	   "rdma_xclient -c x -s $POD_B_IP"; then
	if grep -q 'rdma_xserver: end 0' "$TMP/rdma_xserver_x.srv" &&
	   grep -q 'rdma_xclient: end 0' "$TMP/rdma_xserver_x.cli"; then
		case_ok "rdma_xserver/rdma_xclient -c x: XRC SEND into the server's XRC SRQ through an XRC_RECV QP"
	else
		case_fail rdma_xserver_x "no 'end 0' lines: $(cat "$TMP/rdma_xserver_x.srv" "$TMP/rdma_xserver_x.cli")"
	fi
fi
[ "$(cm_stat 2 cm_transport_mismatch)" = "$x0" ] ||
	case_fail rdma_xserver_x "cm_transport_mismatch rose: $x0 -> $(cm_stat 2 cm_transport_mismatch)"
pairs_done
