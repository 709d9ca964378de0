#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified mckey between two pods on one engine: the receiver
# in b joins an IPv4 group and waits for the messages, the sender in a
# joins (full member, then send-only with -o: rdma_join_multicast_ex) and
# sends them.  The join's UD parameters are the RoCEv2 mapping of the
# group address (::ffff:239.x), QPN 0xFFFFFF; the engine hands each
# datagram to the attached QPs (providers/soft/engine/eng_mcast.h).
#
# Not in tests/cross.list: the cross pass uses nodes.sh's routed layout,
# whose node namespaces do no multicast routing (as many Kubernetes pod
# networks do not).  Across nodes, mckey runs in the flat layout (one L2
# segment) in tests/integration/wire_mcast.sh.
set -u
if [ "${PV_TOPO:-}" = cross ]; then
	echo "SKIP: the routed layout does no multicast routing; mckey across nodes is tests/integration/wire_mcast.sh (flat layout)"
	exit 77
fi
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd mckey
[ -e "$PV_LIB/librdmacm.so.1" ] || skip "librdmacm.so.1 not built"
pods_up

mc_stat() { pvctl stats | awk -v n="$1" '$1 == n { print $2 }'; }
attached_since() { [ "$(mc_stat mcast_attaches)" -gt "$1" ]; }

# mc_case NAME GROUP "SENDER FLAGS": 10 messages from a to b.
mc_case() {
	_mc_name=$1 _mc_grp=$2 _mc_flags=$3
	_mc_a0=$(mc_stat mcast_attaches)
	_mc_d0=$(mc_stat mcast_delivered)
	in_pod b timeout 30 mckey -m "$_mc_grp" -b "$POD_B_IP" -C 10 \
		>"$TMP/$_mc_name.srv" 2>&1 &
	_mc_spid=$!
	if ! wait_until 10 attached_since "$_mc_a0"; then
		stop_pid "$_mc_spid"
		case_fail "$_mc_name" "the receiver's QP was never attached"
		return
	fi
	# shellcheck disable=SC2086
	in_pod a timeout 30 mckey -m "$_mc_grp" -b "$POD_A_IP" -s -C 10 \
		$_mc_flags >"$TMP/$_mc_name.cli" 2>&1
	_mc_crc=$?
	wait "$_mc_spid"
	_mc_src=$?
	_mc_del=$(($(mc_stat mcast_delivered) - _mc_d0))
	if [ "$_mc_crc" != 0 ] || [ "$_mc_src" != 0 ]; then
		case_fail "$_mc_name" "exit codes: receiver $_mc_src, sender $_mc_crc (124 = timeout)"
	elif ! grep -q "joined dgid: ::ffff:$_mc_grp" "$TMP/$_mc_name.srv" ||
	     ! grep -q 'data transfers complete' "$TMP/$_mc_name.srv"; then
		case_fail "$_mc_name" "receiver did not join ::ffff:$_mc_grp or receive"
	elif [ "$_mc_del" -lt 10 ]; then
		case_fail "$_mc_name" "engine delivered $_mc_del datagrams, not 10"
	else
		case_ok "$_mc_name: joined ::ffff:$_mc_grp, 10 of 10 received ($_mc_del delivered)"
	fi
}

mc_case mckey 239.1.1.7 ""
# Send-only join: the sender's QP is not attached (its own datagrams do
# not come back to it), the receiver still gets every one.
if mckey -h 2>&1 | grep -q -- '-o'; then
	a0=$(mc_stat mcast_attaches)
	mc_case mckey-sendonly 239.1.1.8 "-o"
	n=$(($(mc_stat mcast_attaches) - a0))
	[ "$n" = 1 ] || case_fail mckey-sendonly-attach "$n attachments, want 1 (receiver only)"
fi
# Every QP gone: no attachment left in the engine.
att=$(mc_stat mcast_attaches) det=$(mc_stat mcast_detaches)
if [ "$att" = "$det" ]; then
	case_ok "no attachments left ($att made, $det gone)"
else
	case_fail mckey-left "$att attachments made, $det gone"
fi
pairs_done
