#!/bin/sh
# SPDX-License-Identifier: MIT
# Memory windows type 1 and 2 between two pods: access through the window's rkey in range OK; out of range, wrong rights, the MR's rkey, after rebind/unbind/dealloc/LOCAL_INV/SEND_WITH_INV -> REM_ACCESS_ERR; type 2 tied to its QP; zero-based type 2 reached by offsets only; a window of another PD reaches nothing; bind errors -> MW_BIND_ERR.
# The engine of B's node (which binds, invalidates and answers every
# remote access) must have counted at least what B tallied.
# (tests/integration/datapath/dpt_mw.c)
. "$PV_ROOT/tests/lib/pods.sh"
# A small per-client window limit (same-node; the cross pass keeps the
# default): dpt_mw allocates up to it and sees ENOMEM past it.
PODS_ENGINE_ARGS="--limit max_mw=256"
pods_up
dpt_run dpt_mw || fail "dpt_mw"
tally=$(sed -n 's/.*tally: //p' "$TMP/dpt.out")
[ -n "$tally" ] || fail "dpt_mw printed no tally"
want() { echo "$tally" | tr ' ' '\n' | awk -F= -v n="$1" '$1 == n { print $2 }'; }
stats=$(pvctl_node 2 stats) || fail "pvctl stats"
stat() { echo "$stats" | awk -v n="$1" '$1 == n || $1 == n":" { print $2 }'; }
echo "B tallied: $tally"
echo "B's engine: mw_bound=$(stat mw_bound) mw_invalidated=$(stat mw_invalidated) mw_errors=$(stat mw_errors) dp_access_errors=$(stat dp_access_errors) dp_rkey_violations=$(stat dp_rkey_violations) limit_hits=$(stat limit_hits)"
[ "$(stat mw_bound)" -ge "$(want bound)" ] 2>/dev/null || fail "binds not counted (mw_bound)"
[ "$(stat mw_invalidated)" -ge "$(want inv)" ] 2>/dev/null || fail "invalidates not counted (mw_invalidated)"
[ "$(stat mw_errors)" -ge "$(want mw_refused)" ] 2>/dev/null || fail "refused binds and invalidates not counted (mw_errors)"
[ "$(stat dp_access_errors)" -ge "$(want rem_access)" ] 2>/dev/null || fail "remote access errors not counted (dp_access_errors)"
[ "$(stat dp_rkey_violations)" -ge "$(want rem_access)" ] 2>/dev/null || fail "window rkey misses not counted (dp_rkey_violations)"
[ "$(stat limit_hits)" -ge "$(want limit_hits)" ] 2>/dev/null || fail "the window past max_mw not counted (limit_hits)"
if [ "${PV_TOPO:-}" != cross ]; then
	grep -q "max_mw 256 windows allocated" "$TMP/dpt.out" || fail "max_mw is not the engine's --limit max_mw=256"
fi
echo PASS
