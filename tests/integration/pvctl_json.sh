#!/bin/sh
# SPDX-License-Identifier: MIT
# pvctl --json: every command's output parses as JSON (python3 -m
# json.tool) and says what the text output says: dev add's id, dev list's
# fields and types (netns_ino exact as stat(1) sees it: 64-bit numbers
# are not rounded through a double), obj list's objects of a client that
# holds some, stats' counters, dev del's id.  A failed request prints no
# JSON at all (exit 1, message on stderr).
. "$PV_ROOT/tests/lib/topo.sh"
topo_init
need_cmd python3
CTL="$PV_BUILD/bin/pvctl"
CLIENT="$PV_BUILD/tests/bin/eng-client"
[ -x "$CTL" ] && [ -x "$CLIENT" ] || skip "pvctl/eng-client not built"
topo_ns a
topo_ns b
topo_veth a b 10.9.0.1/24 10.9.0.2/24 eth0 eth0
start_engine
A=$(topo_path a) B=$(topo_path b)

# parses FILE: FILE is one JSON document.
parses() {
	/usr/bin/python3 -m json.tool "$1" >/dev/null ||
		{ cat "$1"; fail "not JSON: $1"; }
}
# check FILE PYTHON-EXPR [ARGS...]: the expression over j (FILE's JSON)
# and a (ARGS) is true.
check() {
	_f=$1 _e=$2
	shift 2
	/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
a = sys.argv[3:]
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$_f" "$_e" "$@" ||
		{ cat "$_f"; fail "$_f: not $_e ($*)"; }
}

echo "== dev add"
"$CTL" --json dev add --netns "$A" --ifname eth0 --name rdma0 \
	>"$TMP/add.json" || fail "dev add a"
parses "$TMP/add.json"
check "$TMP/add.json" 'set(j) == {"id", "name", "port_state"}'
check "$TMP/add.json" 'type(j["id"]) is int and j["id"] > 0'
check "$TMP/add.json" 'j["name"] == "rdma0" and j["port_state"] == "ACTIVE"'
IDA=$(/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])' \
	<"$TMP/add.json")
"$CTL" --json dev add --netns "$B" --ifname eth0 --name rdmab --pkey 0x8001 \
	>"$TMP/addb.json" || fail "dev add b"
parses "$TMP/addb.json"
topo_wait_dad a
topo_wait_dad b

echo "== dev list"
"$CTL" --json dev list >"$TMP/list.json" || fail "dev list"
parses "$TMP/list.json"
check "$TMP/list.json" 'type(j) is list and len(j) == 2'
check "$TMP/list.json" 'all(set(d) == {"id", "name", "ifname", "netns",
	"netns_dev", "netns_ino", "port_state", "mtu", "active_mtu", "pkey",
	"clients", "gid_conflicts", "wire_ipv4", "wire_ipv6", "node_guid",
	"gids"} for d in j)'
check "$TMP/list.json" 'all(d[k] in ("bound", "failed", "none") for d in j
	for k in ("wire_ipv4", "wire_ipv6"))'
check "$TMP/list.json" 'all(d["wire_ipv4"] == "bound" for d in j)'
check "$TMP/list.json" 'all(type(d[k]) is int for d in j for k in ("id",
	"netns_dev", "netns_ino", "mtu", "active_mtu", "pkey", "clients",
	"gid_conflicts"))'
check "$TMP/list.json" '[d["netns_ino"] for d in j if d["netns"] == a[0]] ==
	[int(a[1])]' "$A" "$(stat -L -c %i "$A")"
check "$TMP/list.json" '[d["pkey"] for d in j if d["name"] == "rdmab"] ==
	[0x8001]'
check "$TMP/list.json" 'all(len(d["node_guid"]) == 16 and
	int(d["node_guid"], 16) != 0 for d in j)'
check "$TMP/list.json" 'all(type(g) is str and g.count(":") == 7
	for d in j for g in d["gids"])'
check "$TMP/list.json" '"0000:0000:0000:0000:0000:ffff:0a09:0001" in
	[g for d in j if d["netns"] == a[0] for g in d["gids"]]' "$A"
# The text rows name the same devices.
[ "$("$CTL" dev list | tail -n +2 | awk '{ print $1 }' | sort | tr '\n' ' ')" = \
  "$(/usr/bin/python3 -c 'import json,sys; print(" ".join(sorted(str(d["id"]) for d in json.load(sys.stdin))), end=" ")' <"$TMP/list.json")" ] ||
	fail "dev list text and JSON disagree"

echo "== obj list"
"$CTL" --json obj list >"$TMP/none.json" || fail "obj list (empty)"
parses "$TMP/none.json"
check "$TMP/none.json" 'j == []'
ip netns exec "$(topo_name a)" "$CLIENT" hold rdma0 >"$TMP/a.out" 2>&1 &
PA=$!
topo_track_pid "$PA"
wait_until 5 grep -q ready "$TMP/a.out" || { cat "$TMP/a.out"; fail "client not ready"; }
"$CTL" --json obj list >"$TMP/objs.json" || fail "obj list"
parses "$TMP/objs.json"
N=$("$CTL" obj list | tail -n +2 | wc -l)
[ "$N" -gt 0 ] || fail "the client holds no objects"
check "$TMP/objs.json" 'len(j) == int(a[0])' "$N"
check "$TMP/objs.json" 'all(set(o) == {"dev_id", "client", "pid", "kind",
	"handle", "detail", "state"} for o in j)'
check "$TMP/objs.json" 'all(o["dev_id"] == int(a[0]) and o["pid"] == int(a[1])
	for o in j)' "$IDA" "$PA"
check "$TMP/objs.json" '[o["state"] for o in j if o["kind"] == "qp"] ==
	["INIT"]'
"$CTL" --json obj list rdmab >"$TMP/objsb.json" || fail "obj list rdmab"
check "$TMP/objsb.json" 'j == []'

echo "== stats"
"$CTL" --json stats >"$TMP/stats.json" || fail "stats"
parses "$TMP/stats.json"
"$CTL" stats >"$TMP/stats.txt" || fail "stats (text)"
check "$TMP/stats.json" 'type(j) is dict and len(j) > 10 and
	all(type(v) is int for v in j.values())'
check "$TMP/stats.json" 'set(j) == set(l.split()[0] for l in open(a[0]))' \
	"$TMP/stats.txt"
check "$TMP/stats.json" 'j["objects_live"] == int(a[0])' "$N"
kill -9 "$PA"
wait "$PA" 2>/dev/null

echo "== dev del, and a failed request"
"$CTL" --json dev del rdmab >"$TMP/del.json" || fail "dev del"
parses "$TMP/del.json"
check "$TMP/del.json" 'set(j) == {"deleted"} and type(j["deleted"]) is int'
"$CTL" --json dev del rdmab >"$TMP/del2.json" 2>"$TMP/del2.err"
rc=$?
[ $rc = 1 ] || fail "dev del of a deleted device: exit $rc, not 1"
[ ! -s "$TMP/del2.json" ] || { cat "$TMP/del2.json"; fail "JSON on failure"; }
grep -q "no device rdmab" "$TMP/del2.err" || fail "no message on failure"
pid_alive "$ENGINE_PID" || fail "engine died"
echo PASS
