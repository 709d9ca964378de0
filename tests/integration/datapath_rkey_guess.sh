#!/bin/sh
# SPDX-License-Identifier: MIT
# Finding 7 (issue 8): pod A guesses the rkey of pod B's unadvertised MR
# over UC (10^6 tries or 5 s); B's memory stays untouched, an lkey is no
# rkey, and the engine counts the guesses (dp_rkey_violations) and
# refuses A's remote operations past its budget (dp_remote_refused).
# (tests/integration/datapath/dpt_rkey_guess.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_rkey_guess || fail "dpt_rkey_guess"
stats=$(pvctl stats) || fail "pvctl stats"
stat() { echo "$stats" | awk -v n="$1" '$1 == n || $1 == n":" { print $2 }'; }
viol=$(stat dp_rkey_violations) refused=$(stat dp_remote_refused)
echo "dp_rkey_violations=${viol:-missing} dp_remote_refused=${refused:-missing}"
[ "${viol:-0}" -ge 64 ] || fail "rkey violations not counted"
[ "${refused:-0}" -gt 0 ] || fail "no remote operation refused past the budget"
grep "remote access or Q_Key errors" "$ENGINE_LOG" | head -2
grep -q "remote access or Q_Key errors" "$ENGINE_LOG" || fail "no rate-limit warning in the engine log"
echo PASS
