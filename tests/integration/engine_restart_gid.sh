#!/bin/sh
# SPDX-License-Identifier: MIT
# GID squatting across an engine restart.  Pod a's device is made first
# (lower id), then pod b's; a then adds b's address to its own interface.
# b keeps the GID (first holder wins) and a's table leaves it out.  After
# a SIGKILL and a new engine on the same state file, which re-creates the
# devices in id order, b must still own its GID: a restart must not hand
# a squatter its neighbour's address.  If b's device does not come back,
# a may have it (nobody else holds it).
# Then b's device comes back claiming its CNI-assigned address (pvctl
# --claim, as the CNI's ADM_DEV_ADD does) and takes the GID from the
# squatter.  b's address goes away for a while (a picks the GID up) and the
# engine restarts meanwhile: when the address is back, b's claim must
# still beat the squatter, so the state file has to keep the claims.
# Last, a device without a claim (d) whose address moves after its add:
# the state must hold its new GID, or a restart hands it to a squatter.
. "$PV_ROOT/tests/lib/topo.sh"

topo_init
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
need_cmd /usr/bin/python3
topo_ns a
topo_ns b
topo_veth a b 10.80.0.1/24 10.80.0.2/24 eth0 eth0
STATE_FILE=$TMP/st/devices.json
B_GID=0000:0000:0000:0000:0000:ffff:0a50:0002

pvctl() {
	"$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" "$@"
}

# gids_of POD: that pod's device's GID table, one line.
gids_of() {
	pvctl --json dev list | /usr/bin/python3 -c '
import json, sys
for d in json.load(sys.stdin):
    if d["netns"] == sys.argv[1]:
        print(" ".join(d["gids"]))' "$(topo_path "$1")"
}

has_gid() {
	gids_of "$1" | grep -q "$B_GID"
}

kill_and_restart() {
	kill -9 "$ENGINE_PID"
	wait "$ENGINE_PID" 2>/dev/null
	ENGINE_PID=
	start_engine --state-file "$STATE_FILE"
}

start_engine --state-file "$STATE_FILE"
pvctl dev add --netns "$(topo_path a)" --ifname eth0 --name rdma0 >/dev/null ||
	fail "dev add a"
pvctl dev add --netns "$(topo_path b)" --ifname eth0 --name rdma0 >/dev/null ||
	fail "dev add b"
topo_ip a addr add 10.80.0.2/32 dev eth0 || fail "squat b's address in a"
wait_until 5 sh -c "'$PV_BUILD/bin/pvctl' --socket '$ENGINE_SOCK' stats | grep -q '^gid_conflicts *[1-9]'" ||
	fail "no GID conflict counted"
has_gid b || fail "b lost its GID to the squatter before any restart"
has_gid a && fail "the squatter got b's GID before any restart"
echo "ok: before the restart b owns $B_GID, a (the squatter, lower id) leaves it out"

kill_and_restart
echo "after the restart: a: $(gids_of a)"
echo "                   b: $(gids_of b)"
has_gid b || fail "after the restart b lost its GID"
has_gid a && fail "after the restart the squatter a has b's GID"
echo "ok: after a SIGKILL and a restart b still owns its GID, a does not"

# b's device deleted and the engine restarted: the GID is free for a.
pvctl dev del rdma0 --netns "$(topo_path b)" >/dev/null || fail "dev del b"
kill_and_restart
wait_until 5 has_gid a || fail "a did not get the freed GID: $(gids_of a)"
echo "ok: with b's device gone, a's table has the address again"

pvctl dev add --netns "$(topo_path b)" --ifname eth0 --name rdma0 \
	--claim 10.80.0.2/24 >/dev/null || fail "dev add b --claim"
wait_until 5 has_gid b || fail "b's claim did not take its GID back: b: $(gids_of b); a: $(gids_of a)"
has_gid a && fail "the squatter a kept b's GID against b's claim"
echo "ok: b re-added with its claim owns $B_GID again"

topo_ip b addr del 10.80.0.2/24 dev eth0 || fail "drop b's address"
wait_until 5 has_gid a || fail "a did not pick up the GID b let go: $(gids_of a)"
kill_and_restart
topo_ip b addr add 10.80.0.2/24 dev eth0 || fail "give b its address back"
if ! wait_until 5 has_gid b; then
	echo "after the restart and b's address back: a: $(gids_of a)"
	echo "                                        b: $(gids_of b)"
	fail "after a restart b's claim was lost: the squatter a kept b's GID"
fi
has_gid a && fail "after a restart the squatter a still has b's GID"
grep -q '"claims"' "$STATE_FILE" || fail "no claims in the state file"
echo "ok: after a restart b's claim (kept in the state file) beats the squatter again"

# d's address moves after its device was added (no claim): the state must
# hold the GID d has now, or a restart hands it to the squatter c.
topo_ns c
topo_ns d
topo_veth c d 10.81.0.1/24 10.81.0.2/24 eth0 eth0
D_GID=0000:0000:0000:0000:0000:ffff:0a52:0003
d_has() { gids_of "$1" | grep -q "$D_GID"; }
pvctl dev add --netns "$(topo_path c)" --ifname eth0 --name rdma0 >/dev/null ||
	fail "dev add c"
pvctl dev add --netns "$(topo_path d)" --ifname eth0 --name rdma0 >/dev/null ||
	fail "dev add d"
topo_ip d addr add 10.82.0.3/24 dev eth0 || fail "d's new address"
topo_ip d addr del 10.81.0.2/24 dev eth0 || fail "d's old address away"
wait_until 5 d_has d || fail "d's table did not follow its address: $(gids_of d)"
conflicts=$(pvctl stats | awk '$1 == "gid_conflicts" { print $2 }')
topo_ip c addr add 10.82.0.3/32 dev eth0 || fail "squat d's new address in c"
wait_until 5 sh -c "[ \$('$PV_BUILD/bin/pvctl' --socket '$ENGINE_SOCK' stats | awk '\$1 == \"gid_conflicts\" { print \$2 }') -gt $conflicts ]" ||
	fail "no GID conflict counted for c"
d_has c && fail "the squatter c got d's GID before any restart"
kill_and_restart
echo "after the restart: c: $(gids_of c)"
echo "                   d: $(gids_of d)"
d_has d || fail "after a restart d lost the GID it moved to (the state held its old one)"
d_has c && fail "after a restart the squatter c has d's GID"
echo "ok: a device whose address moved after its add keeps its new GID across a restart"
echo PASS
