#!/bin/sh
# SPDX-License-Identifier: MIT
# Multicast on one engine: a UD send to a group reaches the QPs attached
# to it and no other, a pod cannot attach another pod's QP, the engine's
# limits and refusals are counted, and destroyed QPs leave no attachment.
# (tests/integration/datapath/dpt_mcast.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_mcast || fail "dpt_mcast"
stats=$(pvctl stats) || fail "pvctl stats"
stat() { echo "$stats" | awk -v n="$1" '$1 == n { print $2 }'; }
att=$(stat mcast_attaches) det=$(stat mcast_detaches)
ref=$(stat mcast_refused) del=$(stat mcast_delivered)
echo "mcast_attaches=${att:-missing} mcast_detaches=${det:-missing} mcast_refused=${ref:-missing} mcast_delivered=${del:-missing}"
[ "${ref:-0}" -ge 4 ] || fail "refusals not counted"
[ "${del:-0}" -ge 4 ] || fail "deliveries not counted"
[ -n "$att" ] && [ "$att" = "$det" ] ||
	fail "attachments left behind: $att made, $det gone"
echo PASS
