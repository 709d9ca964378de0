#!/bin/sh
# SPDX-License-Identifier: MIT
# Shared XRC_RECV QPs (ibv_open_qp): a second client of pod B opens B's XRC_RECV QPs by number through its handle on the same file's domain, modifies and queries them; they outlive their creators (one destroys its handle, one process dies) and deliver A's XRC sends into the opener's SRQ; the last handle's destroy frees the QP (A's next send exceeds its retries).
# Refused with EINVAL: wrong mask or type, a number above 24 bits, another domain's QP, an RC QP, an unknown or freed number, B's QP from pod A. B's engine must have counted the opens, refusals and hand-overs; cross-node over the wire.
# (tests/integration/datapath/dpt_xrc_open.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_xrc_open || fail "dpt_xrc_open"
tally=$(sed -n 's/.*tally: //p' "$TMP/dpt.out")
[ -n "$tally" ] || fail "dpt_xrc_open printed no tally"
want() { echo "$tally" | tr ' ' '\n' | awk -F= -v n="$1" '$1 == n { print $2 }'; }
stats_b=$(pvctl_node 2 stats) || fail "pvctl stats (B's node)"
stat() { echo "$1" | awk -v n="$2" '$1 == n || $1 == n":" { print $2 }'; }
echo "B tallied: $tally; B's engine: xrc_qp_opened=$(stat "$stats_b" xrc_qp_opened) xrc_qp_open_refused=$(stat "$stats_b" xrc_qp_open_refused) xrc_qp_handed_over=$(stat "$stats_b" xrc_qp_handed_over)"
for k in opened:xrc_qp_opened refused:xrc_qp_open_refused handed_over:xrc_qp_handed_over; do
	[ "$(stat "$stats_b" "${k#*:}")" -ge "$(want "${k%%:*}")" ] 2>/dev/null ||
		fail "${k#*:} below B's tally of ${k%%:*}"
done
[ "$(want handed_over)" -ge 2 ] 2>/dev/null || fail "no hand-over ran"
echo PASS
