#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 8, finding 6 (connections): one pod must not take every client
# slot.  Pod c (the attacker, no device) opens connections until the
# engine refuses; meanwhile pod b must still open its device and run a
# ping-pong with pod a, and admin must still list devices.  Then pod c
# opens connections that never say HELLO: only its share is kept, and
# those are closed after unproven_ms.
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd ibv_rc_pingpong
ATTACK=$PV_BUILD/tests/bin/sec-attack
pods_up
[ -x "$ATTACK" ] || skip "sec-attack not built"
topo_ns c
ulimit -n 4096 || skip "cannot raise the fd limit to 4096"
FAILED=""

topo_exec c env PODVERBS_ENGINE="$ENGINE_SOCK" "$ATTACK" flood 3000 \
	>"$TMP/flood" 2>&1 &
FLOOD=$!
topo_track_pid "$FLOOD"
wait_until 60 grep -q '^opened' "$TMP/flood" || fail "flood did not finish"
echo "pod c: $(cat "$TMP/flood")"

if pair_case rc-under-flood 60 "ibv_rc_pingpong -d $POD_DEV -g 0 -n 200" \
	"ibv_rc_pingpong -d $POD_DEV -g 0 -n 200"; then
	case_ok "rc-under-flood: $(grep usec/iter "$TMP/rc-under-flood.cli")"
else
	FAILED="$FAILED pingpong"
fi
if _l=$(pvctl dev list 2>&1); then
	echo "admin: dev list answered ($(echo "$_l" | grep -c "$POD_DEV") devices)"
else
	echo "admin: FAIL: dev list: $_l"
	FAILED="$FAILED admin"
fi
_n=$(sed -n 's/^opened //p' "$TMP/flood")
_cap=$(pvctl stats | awk '$1 == "clients_rejected_ns" { print $2 }')
if [ "${_n:-0}" -le 64 ] && [ "${_cap:-0}" -ge 1 ]; then
	echo "pod c held $_n connections (max_clients_per_ns 64); clients_rejected_ns $_cap"
else
	echo "FAIL: pod c held ${_n:-?} connections (clients_rejected_ns ${_cap:-?})"
	FAILED="$FAILED share"
fi
# The flooder itself (a descendant of the backgrounded topo_exec).
_fp=$(pair_tool "$FLOOD" sec-attack)
[ -n "$_fp" ] && kill "$_fp"
stop_pid "$FLOOD"
few_live() {
	[ "$(pvctl stats | awk '$1 == "clients_live" { print $2 }')" -le 2 ]
}
wait_until 5 few_live || fail "the flood's connections did not go"

# Connections that never prove their namespace: capped per pod
# (max_unproven_per_ns 16), then closed after unproven_ms (2 s).
topo_exec c env PODVERBS_ENGINE="$ENGINE_SOCK" "$ATTACK" flood-raw 500 3 \
	>"$TMP/raw" 2>&1 &
RAW=$!
topo_track_pid "$RAW"
wait_until 10 grep -q '^kept ' "$TMP/raw" || fail "raw flood did not start"
if in_pod b "$PV_BUILD/tests/bin/eng-client" open "$POD_DEV" >"$TMP/open" 2>&1
then
	echo "pod b opened $POD_DEV during the raw flood"
else
	echo "FAIL: pod b could not open $POD_DEV during the raw flood: $(cat "$TMP/open")"
	FAILED="$FAILED raw-open"
fi
wait_until 10 grep -q '^kept-later' "$TMP/raw" || fail "raw flood did not end"
_k=$(sed -n 's/^kept //p' "$TMP/raw")
_kl=$(sed -n 's/^kept-later //p' "$TMP/raw")
_exp=$(pvctl stats | awk '$1 == "clients_unproven_expired" { print $2 }')
if [ "${_k:-0}" -ge 1 ] && [ "${_k:-999}" -le 16 ] && [ "${_kl:-999}" = 0 ] && [ "${_exp:-0}" -ge "${_k:-1}" ]; then
	echo "raw: $_k of 500 kept, 0 after 3.5 s (clients_unproven_expired $_exp)"
else
	echo "raw: FAIL: kept ${_k:-?} of 500, ${_kl:-?} after 3.5 s, clients_unproven_expired ${_exp:-?}"
	FAILED="$FAILED raw"
fi

[ -z "$FAILED" ] || { echo "FAIL:$FAILED"; exit 1; }
echo PASS
