#!/bin/sh
# SPDX-License-Identifier: MIT
# XRC between two pods on one engine: sends reach the XRC SRQ they name when it is of the receiving QP's domain, with data, on its CQ; naming another domain's SRQ, another pod's, number 0 or none refused (REM_INV_REQ_ERR) with nothing delivered; another pod's domain file refused (EPERM).
# The engines must have counted what A tallied (xrc_srqn_refused, xrcd_refused); cross-node over the wire.
# (tests/integration/datapath/dpt_xrc.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_xrc || fail "dpt_xrc"
tally=$(sed -n 's/.*tally: //p' "$TMP/dpt.out")
[ -n "$tally" ] || fail "dpt_xrc printed no tally"
want() { echo "$tally" | tr ' ' '\n' | awk -F= -v n="$1" '$1 == n { print $2 }'; }
# B's node's engine judges the SRQ numbers, A's the domain file.
stats_b=$(pvctl_node 2 stats) || fail "pvctl stats (B's node)"
stats_a=$(pvctl_node 1 stats) || fail "pvctl stats (A's node)"
stat() { echo "$1" | awk -v n="$2" '$1 == n || $1 == n":" { print $2 }'; }
echo "A tallied: $tally; B's engine: xrc_srqn_refused=$(stat "$stats_b" xrc_srqn_refused); A's engine: xrcd_refused=$(stat "$stats_a" xrcd_refused) xrcd_opened=$(stat "$stats_a" xrcd_opened)"
[ "$(stat "$stats_b" xrc_srqn_refused)" -ge "$(want srqn_refused)" ] 2>/dev/null ||
	fail "refused SRQ numbers not counted (xrc_srqn_refused)"
[ "$(want srqn_refused)" -ge 3 ] 2>/dev/null || fail "fewer than 3 refusals ran"
[ "$(stat "$stats_a" xrcd_refused)" -ge "$(want xrcd_refused)" ] 2>/dev/null ||
	fail "the foreign domain file's refusal not counted (xrcd_refused)"
echo PASS
