#!/bin/sh
# SPDX-License-Identifier: MIT
# Memory-registration reports (issue 15, item 4): a client in a pod
# (mr-hold) registers two page-aligned MRs and one that is not, and
# deregisters one aligned again; `pvctl mr --json` must then show, for the
# client and for its pod's device, exactly 2 MRs of 16384 + 1000 bytes,
# peaks of 3 MRs and 16384 + 1000 + 8192 bytes, 3 registrations, 1
# misaligned, growth = the bytes held; the misaligned MR is flagged and
# the aligned one is not; the engine counts it (dp_mr_misaligned) and,
# at debug level, logs it.  When the client exits holding its MRs, the
# engine logs what it left, and the device's tally drops to zero while
# its peak stays.  `pvctl mr dev rdma0` prints the same table as text.
. "$PV_ROOT/tests/lib/topo.sh"
topo_init
HOLD=$PV_BUILD/tests/bin/mr-hold
CTL=$PV_BUILD/bin/pvctl
[ -x "$HOLD" ] && [ -x "$CTL" ] || skip "mr-hold/pvctl not built"
need_cmd python3
topo_ns a
topo_ns b
topo_veth a b 10.77.0.1/24 10.77.0.2/24 eth0 eth0
start_engine --log-level debug
"$CTL" dev add --netns "$(topo_path a)" --ifname eth0 --name rdma0 >/dev/null ||
	fail "dev add"
DEV_ID=$("$CTL" --json dev list | python3 -c '
import json, sys
print(json.load(sys.stdin)[0]["id"])') || fail "no device id"

PAGE=$(getconf PAGESIZE)
ALIGNED=0:16384
MISAL=$((5 * PAGE + 100)):1000
DROPPED=$((8 * PAGE)):8192
mkfifo "$TMP/hold.in"
topo_exec_bg a env LD_LIBRARY_PATH="$PV_BUILD/lib" PODVERBS_ENGINE="$ENGINE_SOCK" \
	"$HOLD" rdma0 --dereg 1 "$ALIGNED" "$MISAL" "$DROPPED" \
	<"$TMP/hold.in" >"$TMP/hold.out" 2>&1 &
HOLD_PID=$!
topo_track_pid "$HOLD_PID"
exec 3>"$TMP/hold.in"
wait_until 20 grep -q '^ready' "$TMP/hold.out" || {
	cat "$TMP/hold.out"
	fail "mr-hold did not get ready"
}
cat "$TMP/hold.out"
MIS_LKEY=$(awk -v o="$((5 * PAGE + 100))" '$2 == o { print $5 }' "$TMP/hold.out")
AL_LKEY=$(awk '$2 == 0 { print $5 }' "$TMP/hold.out")

"$CTL" mr dev rdma0 | tee "$TMP/mr.txt"
grep -q "^mr .*lkey $MIS_LKEY .*MISALIGNED" "$TMP/mr.txt" ||
	fail "pvctl mr does not flag the misaligned MR ($MIS_LKEY)"
if grep "lkey $AL_LKEY" "$TMP/mr.txt" | grep -q MISALIGNED; then
	fail "pvctl mr flags the aligned MR ($AL_LKEY)"
fi

"$CTL" --json mr >"$TMP/mr.json" || fail "pvctl --json mr"
python3 - "$TMP/mr.json" "$DEV_ID" "$MIS_LKEY" "$AL_LKEY" <<'PY' || fail "pvctl mr totals"
import json, sys
rows = json.load(open(sys.argv[1]))
dev_id, mis, al = int(sys.argv[2]), int(sys.argv[3], 16), int(sys.argv[4], 16)
want = dict(mrs=2, bytes=16384 + 1000, peak_mrs=3,
            peak_bytes=16384 + 1000 + 8192, regs=3,
            reg_bytes=16384 + 1000 + 8192, misaligned=1, growth=16384 + 1000)
bad = 0
for kind in ("device", "client"):
    got = [r for r in rows if r["kind"] == kind and r["dev_id"] == dev_id]
    if len(got) != 1:
        print("FAIL %d %s rows, want 1" % (len(got), kind)); bad += 1; continue
    for k, v in want.items():
        if got[0][k] != v:
            print("FAIL %s %s = %s, want %s" % (kind, k, got[0][k], v)); bad += 1
mrs = {r["lkey"]: r for r in rows if r["kind"] == "mr"}
if len(mrs) != 2:
    print("FAIL %d MR rows, want 2" % len(mrs)); bad += 1
if not mrs.get(mis, {}).get("misaligned"):
    print("FAIL the misaligned MR is not flagged"); bad += 1
if mrs.get(al, {}).get("misaligned", True):
    print("FAIL the aligned MR is flagged (or missing)"); bad += 1
if mrs.get(mis, {}).get("length") != 1000:
    print("FAIL the misaligned MR's length is not 1000"); bad += 1
print("totals checked: %d rows" % len(rows))
sys.exit(1 if bad else 0)
PY
n=$("$CTL" stats | awk '$1 == "dp_mr_misaligned" { print $2 }')
[ "$n" = 1 ] || fail "dp_mr_misaligned = $n, want 1"
grep -q "MR 0x[0-9a-f]*+1000 (lkey $MIS_LKEY) is not page-aligned" "$ENGINE_LOG" ||
	fail "no debug line for the misaligned MR"

# The client goes away holding its MRs.
exec 3>&-
wait "$HOLD_PID" || fail "mr-hold exited $?"
wait_until 5 grep -q "exits with 2 MRs, 17384 bytes still registered" "$ENGINE_LOG" || {
	tail -5 "$ENGINE_LOG"
	fail "the engine did not log what the client left"
}
grep "exits with 2 MRs" "$ENGINE_LOG"
grep -q "exits with 2 MRs, 17384 bytes still registered (1 misaligned; peak 3 MRs, 25576 bytes)" \
	"$ENGINE_LOG" || fail "exit line's figures"
"$CTL" --json mr >"$TMP/mr2.json" || fail "pvctl --json mr after exit"
python3 - "$TMP/mr2.json" "$DEV_ID" <<'PY' || fail "device tally after the client left"
import json, sys
rows = json.load(open(sys.argv[1]))
d = [r for r in rows if r["kind"] == "device" and r["dev_id"] == int(sys.argv[2])]
assert len(d) == 1, rows
d = d[0]
assert (d["mrs"], d["bytes"], d["misaligned"]) == (0, 0, 0), d
assert (d["peak_mrs"], d["peak_bytes"]) == (3, 25576), d
assert not [r for r in rows if r["kind"] != "device"], rows
print("after exit: device at 0 MRs, peak %d bytes" % d["peak_bytes"])
PY
echo PASS
