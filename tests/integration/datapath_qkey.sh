#!/bin/sh
# SPDX-License-Identifier: MIT
# Finding 8 (issue 8): a pod may not set a controlled (high-bit) Q_Key
# (EPERM, counted as qkey_privileged_denied); Q_Key guessing is counted
# per device (dp_drops_qkey), warned about in the engine log, and past
# the source's budget its datagrams are refused (dp_remote_refused).
# (tests/integration/datapath/dpt_qkey.c)
#
# Cross-node (PV_TOPO=cross) the guesses cross the wire: B's engine drops
# them (wire_rx_qkey) and warns; the sending device's error budget is kept
# by the engine that sees both ends, so A's own engine cannot know of the
# drops and the refusal past the budget is a same-node check (A's
# datagram with the right Q_Key still arrives; A's controlled Q_Keys are
# refused by A's engine either way).
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_qkey || fail "dpt_qkey"
stats=$(pvctl stats) || fail "pvctl stats"
stat() { echo "$stats" | awk -v n="$1" '$1 == n { print $2 }'; }
if [ "${PV_TOPO:-}" = cross ]; then
	denied=$(stat qkey_privileged_denied)
	stats=$(pvctl_node 2 stats) || fail "pvctl stats (node 2)"
	wq=$(stat wire_rx_qkey)
	echo "node 1: qkey_privileged_denied=${denied:-missing}; node 2: wire_rx_qkey=${wq:-missing}"
	[ "${denied:-0}" -ge 2 ] || fail "controlled Q_Key refusals not counted"
	# UDP may lose some of 20000 datagrams on the way (socket
	# buffers); most must have been seen and dropped for their Q_Key.
	[ "${wq:-0}" -ge 10000 ] || fail "Q_Key violations not counted on node 2"
	grep "wrong Q_Key" "$ENGINE_LOG_B" | head -3
	grep -q "wrong Q_Key.*over the wire" "$ENGINE_LOG_B" ||
		fail "no Q_Key warning in node 2's engine log"
	echo "PASS (cross-node: the budget's refusal is checked same-node)"
	exit 0
fi
drops=$(stat dp_drops_qkey) denied=$(stat qkey_privileged_denied)
refused=$(stat dp_remote_refused)
echo "dp_drops_qkey=${drops:-missing} dp_remote_refused=${refused:-missing} qkey_privileged_denied=${denied:-missing}"
[ "${drops:-0}" -ge 64 ] || fail "Q_Key violations not counted"
[ $((${drops:-0} + ${refused:-0})) -ge 20000 ] || fail "guessed datagrams neither counted nor refused"
[ "${refused:-0}" -gt 0 ] || fail "no datagram refused past the budget"
[ "${denied:-0}" -ge 2 ] || fail "controlled Q_Key refusals not counted"
grep "wrong Q_Key" "$ENGINE_LOG" | head -3
grep -q "wrong Q_Key" "$ENGINE_LOG" || fail "no Q_Key warning in the engine log"
echo PASS
