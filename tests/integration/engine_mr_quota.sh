#!/bin/sh
# SPDX-License-Identifier: MIT
# Finding 6 of issue 8, the memory share, played by a hostile pod
# (eng-mem-quota speaks the IPC itself): pod A floods the engine with
# registered bytes, fds (completion channels) and mappings (MRs) from two
# connections at once, and registers a memfd it never touched.  Each flood
# must be refused at pod A's own share (small limits here), the untouched
# memfd refused outright, every refusal counted; meanwhile pod B still
# registers memory and runs traffic (eng-dp-loop), and once pod A lets go
# its whole share is usable again.
. "$PV_ROOT/tests/lib/topo.sh"
topo_init
CTL="$PV_BUILD/bin/pvctl"
Q="$PV_BUILD/tests/bin/eng-mem-quota"
LOOP="$PV_BUILD/tests/bin/eng-dp-loop"
[ -x "$CTL" ] && [ -x "$Q" ] && [ -x "$LOOP" ] ||
	skip "pvctl/eng-mem-quota/eng-dp-loop not built"
[ -e "$PV_BUILD/lib/libibverbs.so.1" ] || skip "libibverbs not built"
need_cmd mkfifo
FDS=32 MAPS=128 MIB=16
topo_ns a
topo_ns b
topo_veth a b 10.9.0.1/24 10.9.0.2/24 eth0 eth0
start_engine --limit max_dev_fds=$FDS --limit max_dev_maps=$MAPS \
	--limit max_dev_mr_mb=$MIB
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
stat_of() {
	"$CTL" stats | awk -v n="$1" '$1 == n { print $2 }'
}

echo "== an untouched memfd"
in_pod a "$Q" untouched || fail "untouched memfd registered"
[ "$(stat_of dp_mr_refused_unpopulated)" -ge 1 ] || fail "not counted"

# One flood at a time (a pod at its byte share has no bytes left for
# more mappings, and the reverse): pod A takes its whole share of one
# kind and holds it while pod B registers and runs traffic.
mkfifo "$TMP/hold"
for _k in "bytes $MIB quota_mr_bytes_hit" "fds $FDS quota_fds_hit" \
	  "maps $MAPS quota_maps_hit"; do
	set -- $_k
	echo "== pod A floods $1 and holds them"
	_hits=$(stat_of "$3")
	in_pod a "$Q" "$1" "$2" <"$TMP/hold" >"$TMP/flood-$1.out" 2>&1 &
	_pid=$!
	topo_track_pid $_pid
	exec 3>"$TMP/hold"
	wait_until 20 grep -qE '^(holding|FAIL|error)' "$TMP/flood-$1.out" ||
		{ cat "$TMP/flood-$1.out"; fail "$1 flood did not finish"; }
	cat "$TMP/flood-$1.out"
	grep -q '^holding' "$TMP/flood-$1.out" || fail "$1 flood not refused"
	echo "$3: $_hits -> $(stat_of "$3")"
	[ "$(stat_of "$3")" -gt "$_hits" ] || fail "$3 not counted"
	echo "== pod B registers and runs traffic meanwhile"
	in_pod b timeout 120 "$LOOP" >"$TMP/loop.out" 2>&1 ||
		{ tail -20 "$TMP/loop.out"; fail "pod B's traffic failed"; }
	tail -1 "$TMP/loop.out"
	pid_alive "$ENGINE_PID" || fail "engine died"
	exec 3>&-
	wait $_pid || fail "$1 flood exited $?"
	wait_until 5 no_objs || fail "pod A's objects not freed"
done

echo "== pod A let go: its whole share is back"
in_pod a "$Q" maps $MAPS </dev/null >"$TMP/again.out" 2>&1
cat "$TMP/again.out"
grep -q "^maps: $MAPS taken" "$TMP/again.out" ||
	fail "the share did not come back whole"
echo "PASS"
