#!/bin/sh
# SPDX-License-Identifier: MIT
# A node's worth of pods on one engine with its defaults (issue 14):
# PV_SCALE_PODS pods (network namespaces, default 250), each with a soft
# device rdma0 added the way tests/lib/pods.sh adds one (pvctl dev add
# --netns), in pairs joined by a veth; then every pair runs Debian's
# ibv_rc_pingpong (-n PV_SCALE_ITERS, default 5; PV_SCALE_PP_ARGS adds
# options, e.g. -e) at once, and every one must pass.  Prints the times
# and the engine's VmRSS and fds per pod.
. "$PV_ROOT/tests/lib/pods.sh"
topo_init
# Under the sanitizers every process is several times slower (250 pods
# took minutes there): 64 by default; PV_SCALE_PODS sets any count.
N_DEF=250
grep -q -- -fsanitize= "$PV_BUILD/flags.txt" 2>/dev/null && N_DEF=64
N=${PV_SCALE_PODS:-$N_DEF}
ITERS=${PV_SCALE_ITERS:-5}
PP_ARGS=${PV_SCALE_PP_ARGS:-}
PAIRS=$((N / 2))
[ "$PAIRS" -ge 1 ] || fail "PV_SCALE_PODS=$N: need at least 2"
[ -e "$PV_LIB/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
[ -x "$PV_BUILD/bin/pvctl" ] || skip "pvctl not built"
need_cmd ibv_rc_pingpong

now_ms() { date +%s%3N; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$ENGINE_PID/status"; }
fds() { ls "/proc/$ENGINE_PID/fd" | wc -l; }
# Pair k: pods a<k> (10.<90+k/250>.<k%250>.1) and b<k> (.2), a /24 each.
ip_of() { echo "10.$((90 + $2 / 250)).$(($2 % 250)).$1"; }

# Namespaces and veths in two `ip -batch` runs, each pod's addresses in
# one more (a process per command made this 18 s of a 34 s run).
t0=$(now_ms)
k=0
while [ "$k" -lt "$PAIRS" ]; do
	echo "netns add $(topo_name "a$k")"
	echo "netns add $(topo_name "b$k")"
	k=$((k + 1))
done >"$TMP/ns.batch"
# The cleanup deletes what the list names, made or half made.
sed 's/^netns add //' "$TMP/ns.batch" >>"$TOPO_TMP/netns.list"
ip -batch "$TMP/ns.batch" || fail "making $N namespaces"
k=0
while [ "$k" -lt "$PAIRS" ]; do
	# Both ends made straight in the pods: nothing in our namespace.
	echo "link add eth0 netns $(topo_name "a$k") type veth peer name" \
		"eth0 netns $(topo_name "b$k")"
	k=$((k + 1))
done >"$TMP/veth.batch"
ip -batch "$TMP/veth.batch" || fail "making $PAIRS veth pairs"
k=0
while [ "$k" -lt "$PAIRS" ]; do
	for side in a b; do
		n=1
		[ "$side" = b ] && n=2
		printf 'addr add %s/24 dev eth0\nlink set eth0 up\n' \
			"$(ip_of "$n" "$k")" | topo_ip "$side$k" -batch - ||
			fail "addresses of pod $side$k"
	done
	k=$((k + 1))
done
t_ns=$(($(now_ms) - t0))

start_engine
rss0=$(rss_kb) fds0=$(fds)
t0=$(now_ms)
k=0
while [ "$k" -lt "$PAIRS" ]; do
	pod_dev_add "a$k"
	pod_dev_add "b$k"
	k=$((k + 1))
done
t_dev=$(($(now_ms) - t0))
rss1=$(rss_kb) fds1=$(fds)
n_dev=$(pvctl --json dev list | json_count 'd["name"] == "rdma0"')
[ "$n_dev" = $((PAIRS * 2)) ] || fail "pvctl lists $n_dev of $((PAIRS * 2)) devices"

# All servers, then (once each listens) all clients, at once.
t0=$(now_ms)
k=0
while [ "$k" -lt "$PAIRS" ]; do
	# shellcheck disable=SC2086
	# The bound covers waiting for every other server to listen too.
	in_pod "b$k" timeout 300 ibv_rc_pingpong -d rdma0 -g 0 -n "$ITERS" \
		$PP_ARGS >"$TMP/pp$k.srv" 2>&1 &
	echo "$!" >"$TMP/pp$k.spid"
	k=$((k + 1))
done
k=0
while [ "$k" -lt "$PAIRS" ]; do
	wait_until 60 tcp_listening "b$k" 18515 ||
		fail "server of pair $k did not listen: $(cat "$TMP/pp$k.srv")"
	k=$((k + 1))
done
t_listen=$(($(now_ms) - t0))
rss2=$(rss_kb)
k=0
while [ "$k" -lt "$PAIRS" ]; do
	# shellcheck disable=SC2086
	in_pod "a$k" timeout 120 ibv_rc_pingpong -d rdma0 -g 0 -n "$ITERS" \
		$PP_ARGS "$(ip_of 2 "$k")" >"$TMP/pp$k.cli" 2>&1 &
	echo "$!" >"$TMP/pp$k.cpid"
	k=$((k + 1))
done
failed=0 passed=0
k=0
while [ "$k" -lt "$PAIRS" ]; do
	wait "$(cat "$TMP/pp$k.cpid")"
	crc=$?
	wait "$(cat "$TMP/pp$k.spid")"
	src=$?
	if [ "$crc" = 0 ] && [ "$src" = 0 ] &&
	   grep -q "$ITERS iters" "$TMP/pp$k.cli" &&
	   grep -q "$ITERS iters" "$TMP/pp$k.srv"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		[ "$failed" -le 3 ] && {
			echo "FAIL pair $k: server $src, client $crc (124 = timeout)"
			tail -n 5 "$TMP/pp$k.srv" "$TMP/pp$k.cli"
		}
	fi
	k=$((k + 1))
done
t_run=$(($(now_ms) - t0))
pid_alive "$ENGINE_PID" || fail "engine died"
rss3=$(rss_kb)

echo "scale_pods: $N pods ($PAIRS pairs): namespaces+veths ${t_ns} ms," \
	"devices ${t_dev} ms, pingpongs (-n $ITERS $PP_ARGS) ${t_run} ms" \
	"(servers listening after ${t_listen} ms)"
echo "scale_pods: engine VmRSS ${rss0} -> ${rss1} KiB with $N devices" \
	"($(((rss1 - rss0) * 1024 / N)) bytes per device), ${rss2} KiB with" \
	"the servers' contexts, ${rss3} KiB after; fds ${fds0} -> ${fds1}"
if [ "$failed" != 0 ]; then
	tail -15 "$ENGINE_LOG"
	fail "$failed of $PAIRS pairs failed ($passed passed)"
fi
echo "PASS ($passed pairs of ibv_rc_pingpong at once)"
