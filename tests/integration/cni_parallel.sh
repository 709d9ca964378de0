#!/bin/sh
# SPDX-License-Identifier: MIT
# Runtimes run ADD and DEL for different containers at once: six pods are
# added in parallel (plus a repeated ADD racing a DEL of one attachment),
# then deleted in parallel; every device and record appears and goes.
# Also: a 0.4.0 config gets a 0.4.0 result (per-IP "version").
. "$PV_ROOT/tests/lib/topo.sh"
. "$PV_ROOT/tests/lib/cni.sh"

topo_init
[ -x "$PLUGIN" ] || skip "podverbs CNI plugin not built"
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
N=6
args=""
i=1
while [ $i -le $N ]; do
	args="$args p$i 10.9.0.$((i + 1))/24"
	i=$((i + 1))
done
# shellcheck disable=SC2086
topo_bridge node 10.9.0.1/24 $args
start_engine
STATE=$TMP/state

one() {	# CMD I
	run_cni "$1" "c$2" "$(topo_path "p$2")" \
		"$(cni_conf "$(topo_path "p$2")" "10.9.0.$(($2 + 1))/24")"
	[ "$RC" = 0 ] || { echo "$1 p$2: $OUT" >&2; return 1; }
}

pids=""
i=1
while [ $i -le $N ]; do
	one ADD $i & pids="$pids $!"
	i=$((i + 1))
done
one DEL 1 & pids="$pids $!"
for p in $pids; do
	wait "$p" || fail "a parallel ADD/DEL failed"
done
# p1's ADD and DEL raced: either order is fine, but state and engine
# must agree.
if [ -e "$STATE/rdmanet@c1@eth0.json" ]; then
	engine_has pv_eth0 "$(topo_path p1)" || fail "p1 recorded but no device"
else
	engine_has pv_eth0 "$(topo_path p1)" && fail "p1 device without record"
	one ADD 1 || fail "ADD p1"
fi
[ "$(engine_count)" = $N ] || fail "$(engine_count) devices, want $N"
i=1
while [ $i -le $N ]; do
	one CHECK $i || fail "CHECK p$i"
	i=$((i + 1))
done
echo "ok: $N parallel ADDs"

pids=""
i=1
while [ $i -le $N ]; do
	one DEL $i & pids="$pids $!"
	i=$((i + 1))
done
for p in $pids; do
	wait "$p" || fail "a parallel DEL failed"
done
[ "$(engine_count)" = 0 ] || fail "devices left: $(engine_count)"
[ "$(state_count)" = 0 ] || fail "state left: $(ls "$STATE")"
echo "ok: $N parallel DELs"

# 0.4.0: the result is in 0.4.0 form (IPs carry "version").
NS=$(topo_path p2)
CONF=$(CNI_VER=0.4.0 cni_conf "$NS" 10.9.0.3/24)
run_cni ADD c2 "$NS" "$CONF"
expect_ok "ADD 0.4.0"
printf '%s' "$OUT" | tr -d ' \t\n' | grep -q '"cniVersion":"0.4.0"' ||
	fail "0.4.0 result has another cniVersion: $OUT"
printf '%s' "$OUT" | tr -d ' \t\n' | grep -q '"version":"4"' ||
	fail "0.4.0 result lacks the IP version: $OUT"
run_cni CHECK c2 "$NS" "$CONF"
expect_ok "CHECK 0.4.0"
run_cni DEL c2 "$NS" "$CONF"
expect_ok "DEL 0.4.0"
echo PASS
