#!/bin/sh
# SPDX-License-Identifier: MIT
# Multicast on one engine: a UD send to a group reaches the QPs attached
# to it and no other, a pod cannot attach another pod's QP, the engine's
# limits and refusals are counted, destroyed QPs leave no attachment, and
# a pod attaching and detaching new groups in a loop has its wire joins
# rate-limited (EAGAIN, net_mcast_join_throttled).
# (tests/integration/datapath/dpt_mcast.c)
#
# Cross-node (PV_TOPO=cross): groups are an engine's (eng_mcast.h; IP
# multicast on the wire is not there yet), so what is meaningful is that
# nothing crosses: B's attached QP receives none of A's datagrams, the
# refusals and the attachments' life are each engine's own, checked on
# both.  Delivery to attached QPs is checked same-node.
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
if [ "${PV_TOPO:-}" = cross ]; then
	dpt_run dpt_mcast cross || fail "dpt_mcast cross"
	for n in 1 2; do
		stats=$(pvctl_node $n stats) || fail "pvctl stats (node $n)"
		set -- $(echo "$stats" | awk '$1 == "mcast_attaches" { a = $2 }
			$1 == "mcast_detaches" { d = $2 }
			$1 == "mcast_refused" { r = $2 }
			$1 == "mcast_delivered" { v = $2 }
			$1 == "net_mcast_join_throttled" { t = $2 }
			END { print a + 0, d + 0, r + 0, v + 0, t + 0 }')
		echo "node $n: mcast_attaches=$1 mcast_detaches=$2 mcast_refused=$3 mcast_delivered=$4 net_mcast_join_throttled=$5"
		[ "$n" = 2 ] || [ "$5" -ge 1 ] || fail "wire joins not throttled"
		[ "$1" = "$2" ] || fail "node $n: attachments left behind"
		[ "$4" = 0 ] || fail "node $n delivered a group datagram"
		[ "$n" = 2 ] || [ "$3" -ge 4 ] || fail "refusals not counted"
	done
	echo "PASS (cross-node: no group datagram crosses; delivery is checked same-node)"
	exit 0
fi
dpt_run dpt_mcast || fail "dpt_mcast"
stats=$(pvctl stats) || fail "pvctl stats"
stat() { echo "$stats" | awk -v n="$1" '$1 == n { print $2 }'; }
att=$(stat mcast_attaches) det=$(stat mcast_detaches)
ref=$(stat mcast_refused) del=$(stat mcast_delivered)
echo "mcast_attaches=${att:-missing} mcast_detaches=${det:-missing} mcast_refused=${ref:-missing} mcast_delivered=${del:-missing}"
[ "${ref:-0}" -ge 4 ] || fail "refusals not counted"
[ "${del:-0}" -ge 4 ] || fail "deliveries not counted"
thr=$(stat net_mcast_join_throttled)
echo "net_mcast_join_throttled=${thr:-missing}"
[ "${thr:-0}" -ge 1 ] || fail "wire joins not throttled"
[ -n "$att" ] && [ "$att" = "$det" ] ||
	fail "attachments left behind: $att made, $det gone"
echo PASS
