#!/bin/sh
# deploy/ checked against the code: tests/integration/deploy/check_deploy.py
# parses and cross-checks the Kubernetes manifests, stages the image
# context (make install DESTDIR) and runs each DaemonSet container's
# command and probes from it.  Then the engine's capability set from the
# manifest is shown sufficient (ib_write_bw between two namespaces, both
# sides as uid 65534) and each capability necessary (device add fails
# without it).
set -u
. "$PV_ROOT/tests/lib/topo.sh"
need_root
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing"
/usr/bin/python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml missing"
need_cmd setpriv
ENGINE_PID=
topo_init
CAPS=$TOPO_TMP/caps
# The engine socket lives here; the uid 65534 clients must reach it.
chmod 0755 "$TOPO_TMP"
PV_CAPS_OUT=$CAPS PYTHONDONTWRITEBYTECODE=1 \
	/usr/bin/python3 "$PV_ROOT/tests/integration/deploy/check_deploy.py"
rc=$?
[ $rc = 0 ] || exit $rc
[ -s "$CAPS" ] || fail "no capability list from check_deploy.py"

need_cmd ib_write_bw
caps=$(tr '[:upper:]' '[:lower:]' <"$CAPS" | sed 's/^/+/' | paste -sd, -)
topo_ns a
topo_ns b
topo_veth a b 10.93.0.1/24 10.93.0.2/24 eth0 eth0

# start_engine_caps CAPS: the engine with only CAPS in its bounding set.
start_engine_caps() {
	ENGINE_SOCK=$TOPO_TMP/engine.sock
	setpriv --bounding-set="-all${1:+,$1}" -- "$PV_BUILD/bin/podverbsd" \
		--socket "$ENGINE_SOCK" --foreground >"$TOPO_TMP/engine.log" 2>&1 &
	ENGINE_PID=$!
	topo_track_pid "$ENGINE_PID"
	wait_until 5 test -S "$ENGINE_SOCK" ||
		fail "engine with caps '$1' did not start"
}
dev_add() {	# NS
	"$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" dev add \
		--netns "$(topo_path "$1")" --ifname eth0 --name rdma0
}
as_nobody() {	# NS CMD...
	_ns=$1; shift
	topo_exec "$_ns" setpriv --reuid 65534 --regid 65534 --clear-groups \
		env LD_LIBRARY_PATH="$PV_BUILD/lib" PODVERBS_ENGINE="$ENGINE_SOCK" "$@"
}

# Each capability alone missing: creating a device must fail.
for drop in $(tr '[:upper:]' '[:lower:]' <"$CAPS"); do
	fewer=$(tr '[:upper:]' '[:lower:]' <"$CAPS" | grep -vx "$drop" | sed 's/^/+/' | paste -sd, -)
	start_engine_caps "$fewer"
	dev_add a >/dev/null 2>&1 && fail "device added without $drop: is it needed?"
	stop_pid "$ENGINE_PID"
	echo "ok: without $drop the engine cannot create a pod's device"
done

start_engine_caps "$caps"
wait_until 5 "$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" stats ||
	fail "engine with $caps does not answer"
# After set-up the engine holds the manifest's capabilities and no more,
# bounding set included (it drops what it got beyond them itself).
want=0
for c in $(cat "$CAPS"); do
	n=$(awk -v c="CAP_$c" '$1 == "#define" && $2 == c { print $3 }' /usr/include/linux/capability.h)
	[ -n "$n" ] || fail "unknown capability $c"
	want=$((want | (1 << n)))
done
want=$(printf '%016x' "$want")
for f in CapEff CapPrm CapBnd; do
	v=$(awk -v f="$f:" '$1 == f { print $2 }' "/proc/$ENGINE_PID/status")
	[ "$v" = "$want" ] || fail "engine $f $v, want $want ($(cat "$CAPS"))"
done
echo "ok: the running engine holds exactly $(cat "$CAPS" | paste -sd, -) (CapEff=CapPrm=CapBnd=$want)"
dev_add a || fail "dev add (a) with $caps"
dev_add b || fail "dev add (b) with $caps"
topo_wait_dad a; topo_wait_dad b
as_nobody b timeout 30 ib_write_bw -d rdma0 -x 0 -F -s 65536 -n 500 \
	>"$TOPO_TMP/srv.log" 2>&1 &
srv=$!
wait_until 10 sh -c "ip netns exec '$(topo_name b)' ss -Hltn 'sport = :18515' | grep -q ."
as_nobody a timeout 30 ib_write_bw -d rdma0 -x 0 -F -s 65536 -n 500 10.93.0.2 \
	>"$TOPO_TMP/cli.log" 2>&1 || { cat "$TOPO_TMP/cli.log" "$TOPO_TMP/srv.log"; fail "ib_write_bw client"; }
wait "$srv" || { cat "$TOPO_TMP/srv.log"; fail "ib_write_bw server"; }
grep -A1 '#bytes' "$TOPO_TMP/cli.log" | tail -1 | grep -q '^ *65536 ' ||
	{ cat "$TOPO_TMP/cli.log"; fail "no bandwidth row"; }
echo "ok: with exactly $caps, ib_write_bw (uid 65534, two namespaces) completes:"
grep -A1 '#bytes' "$TOPO_TMP/cli.log" | sed 's/^/    /'
stop_pid "$ENGINE_PID"
echo PASS
