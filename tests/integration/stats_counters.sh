#!/bin/sh
# SPDX-License-Identifier: MIT
# NIC-style counters (issue 15, eng_hwc.h; `pvctl stat show`) move by
# what was sent.  Between two pods on one engine, and again across two
# nodes (tests/cross.list):
# - Debian's ibv_ud_pingpong, N messages of S bytes each way: every port
#   counts exactly N packets and N*S bytes each way, N rdma_sends and N
#   rdma_recvs;
# - ibv_rc_pingpong at 4 KiB (4 packets of the 1024-byte path MTU): one
#   node counts exactly 4N packets and 4N*4096 bytes; across the wire the
#   messages are exact and the bytes exact but for what was resent (ACKs
#   carry none; tail probes resend a packet);
# - across nodes with 5 % loss on the link: retransmissions counted
#   (resent_pkts, completer_retry_err), NAKs or timeouts to go with them;
# - pod b re-added in another partition: its port counts pkey_drops.
# Also: `stat show qp N` shows a live QP's row, --json parses, `pvctl top`
# lists it.
. "$PV_ROOT/tests/lib/pods.sh"
need_cmd ibv_ud_pingpong
need_cmd ibv_rc_pingpong
need_cmd python3
pods_up

NODE_A=1 NODE_B=2
[ "${PV_TOPO:-}" = cross ] || NODE_B=1

# dev_id NODE POD: the id of POD's device in NODE's engine.
dev_id() {
	pvctl_node "$1" --json dev list | python3 -c '
import json, sys
for d in json.load(sys.stdin):
    if d["netns"] == sys.argv[1]:
        print(d["id"])' "$(topo_path "$2")"
}

# hwc NODE POD NAME: counter NAME of POD's port.
hwc() {
	pvctl_node "$1" stat show dev "$(dev_id "$1" "$2")" |
		awk -v n="$3" '{ for (i = 3; i < NF; i++) if ($i == n) print $(i + 1) }'
}

# snap TAG: the counters of both ports into $TMP/TAG.a / TAG.b.
snap() {
	pvctl_node $NODE_A stat show dev "$(dev_id $NODE_A a)" >"$TMP/$1.a"
	pvctl_node $NODE_B stat show dev "$(dev_id $NODE_B b)" >"$TMP/$1.b"
}

# delta FROM TO POD NAME: how far NAME of POD's port moved.
delta() {
	python3 - "$TMP/$1.$3" "$TMP/$2.$3" "$4" <<'PY'
import sys
def read(p):
    w = open(p).read().split()
    return {w[i]: int(w[i + 1]) for i in range(2, len(w) - 1, 2)}
print(read(sys.argv[2])[sys.argv[3]] - read(sys.argv[1])[sys.argv[3]])
PY
}

FAILS=0
# expect WHAT GOT OP WANT
expect() {
	if [ "$2" "$3" "$4" ]; then
		echo "ok   $1: $2 ($3 $4)"
	else
		echo "FAIL $1: $2, want $3 $4"
		FAILS=$((FAILS + 1))
	fi
}

N=200 S=512
snap ud0
pair_case ud 60 "ibv_ud_pingpong -d $POD_DEV -g 0 -n $N -s $S" \
	"ibv_ud_pingpong -d $POD_DEV -g 0 -n $N -s $S" || fail "ud pingpong"
snap ud1
for p in a b; do
	for c in sent_pkts rcvd_pkts rdma_sends rdma_recvs; do
		expect "ud $p $c" "$(delta ud0 ud1 $p $c)" -eq $N
	done
	for c in sent_bytes rcvd_bytes; do
		expect "ud $p $c" "$(delta ud0 ud1 $p $c)" -eq $((N * S))
	done
done

N=100 S=4096
snap rc0
pair_case rc 60 "ibv_rc_pingpong -d $POD_DEV -g 0 -n $N -s $S" \
	"ibv_rc_pingpong -d $POD_DEV -g 0 -n $N -s $S" || fail "rc pingpong"
snap rc1
for p in a b; do
	expect "rc $p rdma_sends" "$(delta rc0 rc1 $p rdma_sends)" -eq $N
	expect "rc $p rdma_recvs" "$(delta rc0 rc1 $p rdma_recvs)" -eq $N
	if [ "${PV_TOPO:-}" = cross ]; then
		resent=$(delta rc0 rc1 $p resent_pkts)
		extra=$(($(delta rc0 rc1 $p sent_bytes) - N * S))
		expect "rc $p sent_bytes beyond N*S" $extra -ge 0
		expect "rc $p sent_bytes beyond N*S" $extra -le $((resent * 1024))
		expect "rc $p sent_pkts (data + ACKs)" \
			"$(delta rc0 rc1 $p sent_pkts)" -ge $((4 * N))
	else
		for c in sent_pkts rcvd_pkts; do
			expect "rc $p $c" "$(delta rc0 rc1 $p $c)" -eq $((4 * N))
		done
		for c in sent_bytes rcvd_bytes; do
			expect "rc $p $c" "$(delta rc0 rc1 $p $c)" -eq $((N * S))
		done
	fi
done

# A live QP's row: the server's QP while it waits for its client.
in_pod b timeout 20 ibv_rc_pingpong -d "$POD_DEV" -g 0 -n 5 \
	>"$TMP/live.srv" 2>&1 &
live=$!
wait_until 10 tcp_listening b 18515 || fail "server did not listen"
pvctl_node $NODE_B --json stat show dev "$(dev_id $NODE_B b)" qp all \
	>"$TMP/live.json"
qpn=$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
qps = [r for r in rows if "lqpn" in r]
assert all(r["ifname"] == "rdma0" and "sent_pkts" in r for r in rows)
print(qps[0]["lqpn"] if qps else 0)' "$TMP/live.json") ||
	fail "stat show --json did not parse"
expect "live QP listed" "$qpn" -gt 0
one=$(pvctl_node $NODE_B stat show qp "$qpn" | grep -c " lqpn $qpn ")
expect "stat show qp $qpn rows" "$one" -eq 1
pvctl_node $NODE_B top --interval 200 --count 1 >"$TMP/top.out" ||
	fail "pvctl top failed"
expect "pvctl top lists QP $qpn" "$(awk -v q="$qpn" '$2 == q' "$TMP/top.out" | wc -l)" -eq 1
in_pod a timeout 20 ibv_rc_pingpong -d "$POD_DEV" -g 0 -n 5 "$POD_B_IP" \
	>"$TMP/live.cli" 2>&1 || fail "live pingpong client"
wait "$live" || fail "live pingpong server"

if [ "${PV_TOPO:-}" = cross ]; then
	snap loss0
	WIRE_SEED=${WIRE_SEED:-5} wire_impair loss=5
	in_pod b timeout 90 ibv_rc_pingpong -d "$POD_DEV" -g 0 -n 200 \
		-s 4096 >"$TMP/loss.srv" 2>&1 &
	srv=$!
	wait_until 10 tcp_listening b 18515 || fail "lossy server did not listen"
	# Either side may end in RETRY_EXC_ERR (12) on its last send and
	# nothing else (wire_rc_loss.sh says why: the peer that had all it
	# needed is gone when the lost ACK's retransmission arrives); the
	# counters below are what this case checks.
	if ! in_pod a timeout 90 ibv_rc_pingpong -d "$POD_DEV" -g 0 -n 200 \
		-s 4096 "$POD_B_IP" >"$TMP/loss.cli" 2>&1; then
		grep -q "Failed status transport retry counter exceeded (12)" \
			"$TMP/loss.cli" ||
			fail "lossy pingpong client: $(tail -4 "$TMP/loss.cli")"
		echo "note: lossy pingpong client ended in RETRY_EXC_ERR on its last send"
	fi
	wait "$srv"
	wire_impair off
	snap loss1
	r=0 w=0
	for p in a b; do
		r=$((r + $(delta loss0 loss1 $p resent_pkts)))
		w=$((w + $(delta loss0 loss1 $p completer_retry_err)))
		w=$((w + $(delta loss0 loss1 $p local_ack_timeout_err)))
	done
	expect "lossy resent_pkts (both ports)" $r -gt 0
	expect "lossy retries + timeouts (both ports)" $w -gt 0
fi

# Another partition: b's port drops what a sends.
pvctl_node $NODE_B dev del "$POD_DEV" --netns "$(topo_path b)" >/dev/null ||
	fail "dev del b"
pod_dev_add b --pkey 0x8002
in_pod b timeout 6 ibv_ud_pingpong -d "$POD_DEV" -g 0 -n 5 -s 64 \
	>"$TMP/pkey.srv" 2>&1 &
srv=$!
wait_until 10 tcp_listening b 18515 || fail "pkey server did not listen"
in_pod a timeout 4 ibv_ud_pingpong -d "$POD_DEV" -g 0 -n 5 -s 64 \
	"$POD_B_IP" >"$TMP/pkey.cli" 2>&1
wait "$srv"
expect "pkey_drops at b" "$(hwc $NODE_B b pkey_drops)" -gt 0
expect "rcvd_bytes at b (nothing through)" "$(hwc $NODE_B b rcvd_bytes)" -eq 0

[ "$FAILS" = 0 ] || fail "$FAILS counter checks failed"
echo PASS
