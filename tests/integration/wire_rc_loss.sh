#!/bin/sh
# SPDX-License-Identifier: MIT
# RC across a bad wire (issue 10): pod a on node 1, pod b on node 2, each
# node with its own engine, the link between them through pv-impair at
# loss 3 %, reorder 5 %, dup 1 %, corrupt 0.1 %.  Debian's ibv_rc_pingpong
# with data validation (-c) at 4 KiB (4 packets a message) and 64 KiB, and
# perftest's ib_write_bw and ib_read_bw, still pass: the requester goes
# back N on a PSN sequence NAK or its transport timer, the responder
# re-ACKs duplicates and re-serves READs.  The counters show it: node 1
# retransmitted, node 2 NAK'd gaps and saw duplicates; corrupted packets
# are dropped (by the kernel's UDP checksum, or the ICRC).  Then the link
# is unplugged mid-run: the requester gives up with IBV_WC_RETRY_EXC_ERR
# (status 12) after retry_cnt retries instead of hanging.
PV_TOPO=cross
export PV_TOPO
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd ibv_rc_pingpong
need_cmd ib_write_bw
need_cmd ib_read_bw

pods_up

# stat K NAME: node K's engine counter.
stat() {
	node_pvctl "$1" stats | awk -v n="$2" '$1 == n { print $2 }'
}

WIRE_SEED=${WIRE_SEED:-3} wire_impair loss=3 reorder=5 dup=1 corrupt=0.1

# One pingpong; the client must succeed with its data validated (-c),
# i.e. every message of the server arrived.  The server may still end in
# RETRY_EXC_ERR (12) on its last send and nothing else: when the ACK of
# that send is lost, the client has all it needs and destroys its QP, so
# the retransmission is never answered (a lost final ACK looks like a
# dead peer; IBA has no remedy).
pp() {
	_n=$1
	shift
	in_pod b timeout 90 ibv_rc_pingpong -d "$POD_DEV" -g 0 "$@" \
		>"$TMP/$_n.srv" 2>&1 &
	_spid=$!
	if ! wait_until 10 tcp_listening b 18515; then
		stop_pid "$_spid"
		case_fail "$_n" "server did not listen"
		return 0
	fi
	in_pod a timeout 90 ibv_rc_pingpong -d "$POD_DEV" -g 0 "$@" \
		"$POD_B_IP" >"$TMP/$_n.cli" 2>&1
	_crc=$?
	wait "$_spid"
	_src=$?
	if [ "$_crc" != 0 ] || grep -qi 'invalid data' "$TMP/$_n".*; then
		case_fail "$_n" "client $_crc (124 = timeout) or data invalid"
		return 0
	fi
	if [ "$_src" != 0 ] &&
	   { ! grep -q 'retry counter exceeded (12)' "$TMP/$_n.srv" ||
	     grep -v 'retry counter\|parse WC\|address' "$TMP/$_n.srv" |
	     grep -q .; }; then
		case_fail "$_n" "server $_src"
		return 0
	fi
	_last=""
	[ "$_src" != 0 ] && _last=" (server: its last ACK lost)"
	case_ok "$_n: $(grep -E 'usec/iter' "$TMP/$_n.cli" | head -1)$_last"
}

pt() {
	_n=$1 _t=$2
	shift 2
	pair_case "$_n" 90 "$_t -d $POD_DEV -x 0 $*" \
		"$_t -d $POD_DEV -x 0 $*" || return 0
	case_ok "$_n: $(grep -E '^ *[0-9]+ +[0-9]+ ' "$TMP/$_n.cli" | tail -1)"
}

pp rc-lossy-4k -n 300 -s 4096 -c
pp rc-lossy-64k -n 100 -s 65536 -c
pt write-bw-lossy ib_write_bw -s 65536 -n 300
pt read-bw-lossy ib_read_bw -s 65536 -n 300

echo "wire: $(wire_stats ab | tr -s ' ')"
echo "wire: $(wire_stats ba | tr -s ' ')"
for k in 1 2; do
	echo "node $k: $(node_pvctl "$k" stats | grep -E '^wire_(rc|rx_icrc)' |
		awk '$2 != 0 { printf "%s=%s ", $1, $2 }')"
done
retx=$(( $(stat 1 wire_rc_retransmits) + $(stat 2 wire_rc_retransmits) ))
naks=$(( $(stat 1 wire_rc_seq_naks_sent) + $(stat 2 wire_rc_seq_naks_sent) ))
dups=$(( $(stat 1 wire_rc_dup_reqs) + $(stat 2 wire_rc_dup_reqs) ))
icrc=$(( $(stat 1 wire_rx_icrc_err) + $(stat 2 wire_rx_icrc_err) ))
[ "$retx" -gt 0 ] || case_fail counters "no retransmission counted"
[ "$naks" -gt 0 ] || case_fail counters "no PSN sequence NAK sent"
[ "$dups" -gt 0 ] || case_fail counters "no duplicate request seen"
echo "retransmissions $retx, sequence NAKs $naks, duplicates $dups, ICRC errors $icrc"

# Unplugged: timeout 14 (67 ms) x retry_cnt 7 (ibv_rc_pingpong's) ends
# in RETRY_EXC_ERR within seconds on whichever side has a send in flight
# (the other may be left waiting for a receive that never comes: RC has
# no timer for that; its timeout ends it).
wire_impair off
in_pod b timeout 20 ibv_rc_pingpong -d "$POD_DEV" -g 0 -n 1000000 \
	>"$TMP/unplug.srv" 2>&1 &
spid=$!
wait_until 10 tcp_listening b 18515 || case_fail unplug "server did not listen"
in_pod a timeout 20 ibv_rc_pingpong -d "$POD_DEV" -g 0 -n 1000000 \
	"$POD_B_IP" >"$TMP/unplug.cli" 2>&1 &
cpid=$!
# Connected and running: node 1 ACKs the server's sends (the tools'
# output is buffered until they exit).
acks0=$(stat 1 wire_rc_acks_sent)
running() { [ "$(stat 1 wire_rc_acks_sent)" -gt $((acks0 + 100)) ]; }
wait_until 20 running || case_fail unplug "no traffic before the unplug"
wire_link down
t0=$(date +%s)
wait "$cpid"
wait "$spid"
wire_link up
if grep -q 'transport retry counter exceeded (12)' "$TMP/unplug.cli" \
	"$TMP/unplug.srv"; then
	case_ok "unplug: $(grep -h -m1 'retry counter' "$TMP/unplug.cli" \
		"$TMP/unplug.srv" | head -1) (both ended in $(( $(date +%s) - t0 )) s)"
else
	case_fail unplug "no IBV_WC_RETRY_EXC_ERR on either side"
fi
pairs_done
