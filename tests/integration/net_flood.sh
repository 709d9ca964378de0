#!/bin/sh
# SPDX-License-Identifier: MIT
# A hostile pod floods another pod's UDP 4791 with garbage: empty, 8-byte,
# 100-byte, 1100-byte and 65000-byte (fragmented, reassembled, oversized)
# datagrams (tests/integration/net/net_blast.c).  The engine keeps serving
# same-node verbs (ibv_rc_pingpong with -c, before and during the flood),
# the receive counters move, the per-turn budget is hit and the engine
# lives.  Prints the latencies and the counters.
. "$PV_ROOT/tests/lib/pods.sh"
BLAST=$PV_BUILD/tests/bin/net-blast
[ -x "$BLAST" ] || skip "net-blast not built"
pods_up

stat_of() { pvctl stats | awk -v k="$1" '$1 == k { print $2 }'; }
lat() { grep usec/iter "$TMP/$1.cli" | sed 's/.*= *//'; }

pair_case rc-quiet 60 "ibv_rc_pingpong -d $POD_DEV -g 0 -n 2000 -c" \
	"ibv_rc_pingpong -d $POD_DEV -g 0 -n 2000 -c" && case_ok "rc-quiet: $(lat rc-quiet)"
rx0=$(stat_of net_rx_pkts)

topo_exec_bg a "$BLAST" send "$POD_B_IP" 1100 8 64 mix >"$TMP/flood" 2>&1 &
FLOOD=$!
topo_track_pid "$FLOOD"
sleep 1
pair_case rc-flood 60 "ibv_rc_pingpong -d $POD_DEV -g 0 -n 2000 -c" \
	"ibv_rc_pingpong -d $POD_DEV -g 0 -n 2000 -c" && case_ok "rc-flood: $(lat rc-flood)"
wait "$FLOOD"
echo "flooder (pod a -> $POD_B_IP:4791): $(cat "$TMP/flood")"
sleep 1
for k in net_rx_pkts net_rx_batches net_rx_runts net_rx_oversized \
	net_rx_unclaimed net_rx_overflows net_rx_budget_hits net_rx_errors \
	wire_rx_pkts wire_rx_parse_err; do
	echo "$k $(stat_of $k)"
done
rx1=$(stat_of net_rx_pkts)
[ "$rx1" -gt "$rx0" ] || fail "net_rx_pkts did not move ($rx0 -> $rx1)"
[ "$(stat_of net_rx_runts)" -gt 0 ] || fail "no runt counted"
[ "$(stat_of net_rx_oversized)" -gt 0 ] || fail "no oversized datagram counted"
# What passes net reaches classify (eng_recv.c), which drops garbage as
# unparsable.
[ "$(stat_of wire_rx_pkts)" -gt 0 ] || fail "no packet reached eng_net_rx (classify)"
[ "$(stat_of wire_rx_parse_err)" -gt 0 ] || fail "classify counted no garbage (wire_rx_parse_err)"
[ "$(stat_of net_rx_budget_hits)" -gt 0 ] ||
	echo "note: the flood never filled a turn's budget (net_rx_budget)"
pid_alive "$ENGINE_PID" || fail "engine died under the flood"
pairs_done
