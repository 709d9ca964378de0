#!/bin/sh
# SPDX-License-Identifier: MIT
# Finding 8 (issue 8): a pod may not set a controlled (high-bit) Q_Key
# (EPERM, counted as qkey_privileged_denied); Q_Key guessing is counted
# per device (dp_drops_qkey), warned about in the engine log, and past
# the source's budget its datagrams are refused (dp_remote_refused).
# (tests/integration/datapath/dpt_qkey.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_qkey || fail "dpt_qkey"
stats=$(pvctl stats) || fail "pvctl stats"
stat() { echo "$stats" | awk -v n="$1" '$1 == n { print $2 }'; }
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
