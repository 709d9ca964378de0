#!/bin/sh
# SPDX-License-Identifier: MIT
# XRC between two pods on one engine: sends reach the XRC SRQ they name when it is of the receiving QP's domain, with data, on its CQ; naming another domain's SRQ, another pod's, number 0 or none refused (REM_INV_REQ_ERR) with nothing delivered; another pod's domain file refused (EPERM).
# The engine must have counted what A tallied (xrc_srqn_refused, xrcd_refused).
# (tests/integration/datapath/dpt_xrc.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_xrc || fail "dpt_xrc"
tally=$(sed -n 's/.*tally: //p' "$TMP/dpt.out")
[ -n "$tally" ] || fail "dpt_xrc printed no tally"
want() { echo "$tally" | tr ' ' '\n' | awk -F= -v n="$1" '$1 == n { print $2 }'; }
stats=$(pvctl stats) || fail "pvctl stats"
stat() { echo "$stats" | awk -v n="$1" '$1 == n || $1 == n":" { print $2 }'; }
echo "A tallied: $tally; engine: xrc_srqn_refused=$(stat xrc_srqn_refused) xrcd_refused=$(stat xrcd_refused) xrcd_opened=$(stat xrcd_opened)"
[ "$(stat xrc_srqn_refused)" -ge "$(want srqn_refused)" ] 2>/dev/null ||
	fail "refused SRQ numbers not counted (xrc_srqn_refused)"
[ "$(want srqn_refused)" -ge 3 ] 2>/dev/null || fail "fewer than 3 refusals ran"
[ "$(stat xrcd_refused)" -ge "$(want xrcd_refused)" ] 2>/dev/null ||
	fail "the foreign domain file's refusal not counted (xrcd_refused)"
echo PASS
