#!/bin/sh
# SPDX-License-Identifier: MIT
# Engine data path: error semantics through our libibverbs (eng-dp-loop:
# remote access, RNR, lengths, lkeys, atomics, dead peer, flush, CQ
# overflow, SRQ limit, solicited events), an idle engine with mapped
# rings burns no CPU, and a client SIGKILLed mid-transfer leaves its
# peer's engine objects alone and its own freed.
. "$PV_ROOT/tests/lib/topo.sh"
topo_init
CTL="$PV_BUILD/bin/pvctl"
LOOP="$PV_BUILD/tests/bin/eng-dp-loop"
[ -x "$CTL" ] && [ -x "$LOOP" ] || skip "pvctl/eng-dp-loop not built"
[ -e "$PV_BUILD/lib/libibverbs.so.1" ] || skip "libibverbs not built"
# Every check below runs or the whole script skips (mk/deps.sh installs
# both tools).
need_cmd ibv_rc_pingpong ib_write_bw
topo_ns a
topo_ns b
topo_veth a b 10.9.0.1/24 10.9.0.2/24 eth0 eth0
start_engine
"$CTL" dev add --netns "$(topo_path a)" --ifname eth0 --name rdma0 || fail "add a"
"$CTL" dev add --netns "$(topo_path b)" --ifname eth0 --name rdma0 || fail "add b"
topo_wait_dad a
topo_wait_dad b

in_pod() {
	_ns=$1
	shift
	ip netns exec "$(topo_name "$_ns")" env \
		LD_LIBRARY_PATH="$PV_BUILD/lib" PODVERBS_ENGINE="$ENGINE_SOCK" "$@"
}
# in_pod_bg NS CMD... &: $! is then CMD's own pid (the subshell execs).
in_pod_bg() {
	_ns=$1
	shift
	exec ip netns exec "$(topo_name "$_ns")" env \
		LD_LIBRARY_PATH="$PV_BUILD/lib" PODVERBS_ENGINE="$ENGINE_SOCK" "$@"
}
objs() {
	"$CTL" obj list | tail -n +2
}
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

echo "== error semantics"
in_pod a timeout 120 "$LOOP" || fail "eng-dp-loop"
no_objs || { objs; fail "objects left after eng-dp-loop"; }

echo "== idle engine with rings mapped"
in_pod_bg b ibv_rc_pingpong -d rdma0 -g 0 >"$TMP/idle.out" 2>&1 &
PP=$!
topo_track_pid "$PP"
wait_until 5 sh -c "'$CTL' obj list | grep -q qp" || fail "no QP"
sleep 0.5
t0=$(cpu_ticks "$ENGINE_PID")
sleep 3
t1=$(cpu_ticks "$ENGINE_PID")
echo "engine CPU over 3 s idle: $((t1 - t0)) ticks"
# A tick is 10 ms at most; allow 3 (1 %).
[ $((t1 - t0)) -le 3 ] || fail "idle engine used $((t1 - t0)) ticks"
kill "$PP"
wait "$PP" 2>/dev/null

echo "== client killed mid-transfer"
in_pod_bg b ib_write_bw -d rdma0 -p 18600 -s 65536 -D 20 >"$TMP/srv.out" 2>&1 &
SRV=$!
topo_track_pid "$SRV"
sleep 1
in_pod_bg a ib_write_bw -d rdma0 -p 18600 -s 65536 -D 20 10.9.0.2 \
	>"$TMP/cli.out" 2>&1 &
CLI=$!
topo_track_pid "$CLI"
stat_of() { "$CTL" stats | awk -v n="$1" '$1 == n { print $2 }'; }
wait_until 10 sh -c "[ \$('$CTL' stats | awk '\$1 == \"dp_bytes\" { print \$2 }') -gt 100000000 ]" ||
	{ cat "$TMP/srv.out" "$TMP/cli.out"; fail "no transfer"; }
kill -9 "$CLI"
wait "$CLI" 2>/dev/null
sleep 0.5
pid_alive "$ENGINE_PID" || fail "engine died"
IDA=$("$CTL" dev list | awk -v p="$(topo_path a)" '$3 == p { print $1 }')
[ -n "$IDA" ] || fail "no device in a"
no_objs "$IDA" || fail "killed client's objects not freed"
kill "$SRV" 2>/dev/null
wait "$SRV" 2>/dev/null
wait_until 5 no_objs || { objs; fail "objects left"; }
"$CTL" stats | grep -E '^dp_(wqes|bytes|mr_mapped|mr_refused_no_memfd|sleeps)'
echo "PASS"
