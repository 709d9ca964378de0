#!/bin/sh
# SPDX-License-Identifier: MIT
# Synchronous ids over our librdmacm between two pods on one engine
# (tests/integration/cm/cm_sync.c, built here against our headers):
# rdma_getaddrinfo + rdma_create_ep on both sides, rdma_get_request
# giving an id with its QP, rdma_accept/rdma_connect blocking until
# ESTABLISHED, 100 verified send/recv round trips through the rdma_verbs.h
# inlines, again with the server's receives on an SRQ of the id
# (rdma_create_srq); and an event channel's fd with O_NONBLOCK gives
# EAGAIN.
# Cross-node (tests/cross.list) each round's SEND usually reaches the
# server before it posted that round's receive (it posts it after its own
# send completed, which takes the client's ACK a trip back): the wire
# responder holds such a request for a receive instead of an RNR NAK
# that would cost 655 ms (the CM's min_rnr_timer 0), wire_rc_rnr_held.
set -u
. "$PV_ROOT/tests/lib/pods.sh"
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
pods_up
BIN=$TMP/cm_sync
cc -std=gnu11 -Wall -Werror -I"$PV_ROOT/include" \
	-o "$BIN" "$PV_ROOT/tests/integration/cm/cm_sync.c" \
	-L"$PV_LIB" -l:librdmacm.so.1 -l:libibverbs.so.1 ||
	fail "cm_sync does not build"
# run_pair MODE PORT: the server in MODE against the client.
run_pair() {
	in_pod b timeout 30 "$BIN" "$1" "$POD_B_IP" "$2" >"$TMP/srv" 2>&1 &
	SPID=$!
	wait_until 10 grep -q 'ok listening' "$TMP/srv" ||
		fail "$1 did not listen: $(cat "$TMP/srv")"
	in_pod a timeout 30 "$BIN" client "$POD_B_IP" "$2" >"$TMP/cli" 2>&1
	crc=$?
	wait "$SPID"
	src=$?
	cat "$TMP/srv" "$TMP/cli"
	[ "$crc" = 0 ] && [ "$src" = 0 ] || {
		pods_wire_stats
		fail "$1: exit codes: server $src, client $crc"
	}
	grep -q "ok 100 round trips verified" "$TMP/cli" ||
		fail "$1: client did not verify"
}
run_pair server 7471
# The server's receives posted to the id's SRQ (rdma_create_srq before
# rdma_create_qp): the client's 100 messages arrive through it.
run_pair server-srq 7472
grep -q "ok QP made on the id's SRQ" "$TMP/srv" || fail "no SRQ on the QP"
in_pod a timeout 10 "$BIN" nonblock || fail "nonblock"
echo PASS
