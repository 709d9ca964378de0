#!/bin/sh
# SPDX-License-Identifier: MIT
# A node's worth of soft devices on one engine (issue 14): PV_SCALE_DEVS
# (default 1024, the default max_devices) devices added with no --limit,
# listed completely by pvctl and by Debian's ibv_devices (our library, the
# paged DEV_LIST) in the engine's own namespace, removed again, with the
# engine's memory (VmRSS) and fds per device printed.
#
# The engine runs in a namespace of its own (eng) holding one macvlan
# interface (with an address: a GID, UDP sockets) per device over a veth
# (this kernel has no dummy links): making one namespace per device costs
# ~10 ms each here, the interfaces are one `ip -batch`.
. "$PV_ROOT/tests/lib/topo.sh"
topo_init
N=${PV_SCALE_DEVS:-1024}
ENG=$PV_BUILD/bin/podverbsd
CTL=$PV_BUILD/bin/pvctl
[ -x "$ENG" ] && [ -x "$CTL" ] || skip "podverbsd/pvctl not built"
[ -e "$PV_BUILD/lib/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
need_cmd ibv_devices

now_ms() { date +%s%3N; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$ENGINE_PID/status"; }
# The engine's CPU time (user + system) in ms: what an add costs its loop
# thread, without the pvctl process around it.
cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) * 1000 / hz }' \
		"/proc/$ENGINE_PID/stat"
}
fds() { ls "/proc/$ENGINE_PID/fd" | wc -l; }
in_eng() { topo_exec eng "$@"; }
ctl() { in_eng "$CTL" --admin-socket "$ENGINE_ADMIN_SOCK" "$@"; }

topo_ns eng
t0=$(now_ms)
i=0
{
	echo "link add base0 type veth peer name base1"
	echo "link set base1 up"
	echo "link set base0 up"
} >"$TMP/links.batch"
while [ "$i" -lt "$N" ]; do
	echo "link add s$i link base0 type macvlan mode bridge"
	echo "link set s$i up"
	echo "address add 10.$((i / 250 + 100)).$((i % 250)).1/32 dev s$i"
	i=$((i + 1))
done >>"$TMP/links.batch"
topo_ip eng -batch "$TMP/links.batch" || fail "making $N interfaces"
t_links=$(($(now_ms) - t0))

# The engine in its own namespace (start_engine runs it in ours), on the
# defaults: nothing here may need a --limit.
ENGINE_SOCK=$TMP/engine.sock
ENGINE_ADMIN_SOCK=$TMP-admin/admin.sock
ENGINE_LOG=$TMP/engine.log
# PV_SCALE_STATE=1: with a state file (on tmpfs, as the node's engine
# keeps it in /run), and a restart that must bring every device back.
# Off by default (it doubles the test's time).  Each change is one
# journal line (eng_state.h): the engine's CPU time per add printed below
# must not grow with the number of devices.
STATE=
if [ "${PV_SCALE_STATE:-0}" = 1 ]; then
	SHM=$(mktemp -d /dev/shm/pvt-scale.XXXXXX) || fail "mktemp in /dev/shm"
	trap 'rm -rf "$SHM"; topo_cleanup' EXIT
	STATE=$SHM/devices.json
fi
engine_up() {
	topo_exec_bg eng "$ENG" --socket "$ENGINE_SOCK" \
		--admin-socket "$ENGINE_ADMIN_SOCK" --state-file "$STATE" \
		--foreground >>"$ENGINE_LOG" 2>&1 &
	ENGINE_PID=$!
	export ENGINE_SOCK ENGINE_ADMIN_SOCK ENGINE_LOG ENGINE_PID
	wait_until 20 ctl stats >/dev/null || {
		tail -20 "$ENGINE_LOG" >&2
		fail "engine did not come up"
	}
}
engine_up
grep RLIMIT_NOFILE "$ENGINE_LOG"
rss0=$(rss_kb) fds0=$(fds)
ls -l "/proc/$ENGINE_PID/fd" >"$TMP/fd0.txt"

# add_devs FROM TO: devices s<FROM>..s<TO - 1>.
add_devs() {
	in_eng sh -c '
i=$4
while [ "$i" -lt "$2" ]; do
	"$1" --admin-socket "$3" dev add --ifname "s$i" --name "sd$i" \
		>/dev/null || { echo "dev add s$i failed" >&2; exit 1; }
	i=$((i + 1))
done' sh "$CTL" "$2" "$ENGINE_ADMIN_SOCK" "$1" || {
		tail -5 "$ENGINE_LOG" >&2
		fail "adding devices $1..$2"
	}
}
# The last tenth apart: what an add costs with ~N devices there.
N9=$((N - N / 10))
t0=$(now_ms) c0=$(cpu_ms)
add_devs 0 "$N9"
c9=$(cpu_ms)
add_devs "$N9" "$N"
t_add=$(($(now_ms) - t0)) c_add=$(($(cpu_ms) - c0)) c_last=$(($(cpu_ms) - c9))
rss1=$(rss_kb) fds1=$(fds)

# Complete listings: pvctl (ADM_DEV_LIST pages) and ibv_devices
# (ibv_get_device_list: DEV_LIST pages in the engine's namespace).
t0=$(now_ms)
ctl --json dev list >"$TMP/list.json" || fail "pvctl dev list"
t_list=$(($(now_ms) - t0))
n_ctl=$(json_count 'd["name"].startswith("sd")' <"$TMP/list.json")
n_gid=$(json_count 'len(d["gids"]) > 0' <"$TMP/list.json")
n_act=$(json_count 'd["port_state"] == "ACTIVE"' <"$TMP/list.json")
[ "$n_ctl" = "$N" ] || fail "pvctl lists $n_ctl of $N devices"
[ "$n_gid" = "$N" ] || fail "$n_gid of $N devices have a GID"
[ "$n_act" = "$N" ] || fail "$n_act of $N devices are ACTIVE"
names=$(/usr/bin/python3 -c '
import json, sys
print(len({d["name"] for d in json.load(sys.stdin)}))' <"$TMP/list.json")
[ "$names" = "$N" ] || fail "pvctl lists $names distinct names of $N"
t0=$(now_ms)
in_eng env PODVERBS_ENGINE="$ENGINE_SOCK" \
	LD_LIBRARY_PATH="$PV_BUILD/lib" ibv_devices >"$TMP/ibv.txt" ||
	fail "ibv_devices"
t_ibv=$(($(now_ms) - t0))
n_ibv=$(grep -c '^ *sd[0-9]* ' "$TMP/ibv.txt")
[ "$n_ibv" = "$N" ] || {
	head -5 "$TMP/ibv.txt"
	fail "ibv_devices lists $n_ibv of $N devices"
}
# Every sd<k> exactly once.
dups=$(awk '$1 ~ /^sd/ { print $1 }' "$TMP/ibv.txt" | sort | uniq -d | wc -l)
[ "$dups" = 0 ] || fail "ibv_devices lists $dups devices twice"
# One more than max_devices is refused with a clear error, the engine
# serving on.
in_eng ip link add s_over link base0 type macvlan mode bridge
if ctl dev add --ifname s_over --name s_over >"$TMP/over.txt" 2>&1; then
	[ "$N" -lt 1024 ] || fail "device $((N + 1)) accepted past max_devices"
	ctl dev del s_over >/dev/null || fail "dev del s_over"
else
	[ "$N" -ge 1024 ] || fail "device $((N + 1)) refused: $(cat "$TMP/over.txt")"
	echo "device $((N + 1)): $(cat "$TMP/over.txt")"
fi

# The state file keeps them all: a restarted engine has every device
# back.
restart=""
if [ -n "$STATE" ]; then
	st_bytes=$(cat "$STATE" "$STATE.journal" 2>/dev/null | wc -c)
	stop_engine
	t0=$(now_ms)
	engine_up
	t_restore=$(($(now_ms) - t0))
	ctl --json dev list >"$TMP/list.json" || fail "pvctl dev list"
	n_back=$(json_count 'd["name"].startswith("sd")' <"$TMP/list.json")
	[ "$n_back" = "$N" ] || {
		grep -i state "$ENGINE_LOG" | tail -5
		fail "$n_back of $N devices back after a restart"
	}
	restart=", restart with all restored ${t_restore} ms ($st_bytes bytes of state)"
fi

t0=$(now_ms)
ids=$(/usr/bin/python3 -c '
import json, sys
print(" ".join(str(d["id"]) for d in json.load(sys.stdin)))' <"$TMP/list.json")
in_eng sh -c '
ctl=$1 sock=$2
shift 2
for id in "$@"; do
	"$ctl" --admin-socket "$sock" dev del "$id" >/dev/null ||
		{ echo "dev del $id failed" >&2; exit 1; }
done' sh "$CTL" "$ENGINE_ADMIN_SOCK" $ids || fail "removing the devices"
t_del=$(($(now_ms) - t0))
left=$(ctl --json dev list | json_count 'True')
[ "$left" = 0 ] || fail "$left devices left after removal"
pid_alive "$ENGINE_PID" || fail "engine died"
rss2=$(rss_kb) fds2=$(fds)
[ "$fds2" -le $((fds0 + 2)) ] || {
	ls -l "/proc/$ENGINE_PID/fd" | diff "$TMP/fd0.txt" - 
	fail "fds $fds0 -> $fds2 after removal"
}

echo "scale_devices: $N devices: interfaces ${t_links} ms, add ${t_add} ms" \
	"($((t_add * 1000 / N)) us each; engine CPU ${c_add} ms, $((c_add * 1000 / N)) us" \
	"each, $((c_last * 1000 / (N - N9))) us each for the last $((N - N9)))," \
	"pvctl list ${t_list} ms," \
	"ibv_devices ${t_ibv} ms$restart, remove ${t_del} ms"
echo "scale_devices: engine VmRSS ${rss0} -> ${rss1} KiB with $N devices" \
	"($(((rss1 - rss0) * 1024 / N)) bytes per device), ${rss2} KiB after" \
	"removal; fds ${fds0} -> ${fds1} ($(((fds1 - fds0) * 100 / N))/100" \
	"per device) -> ${fds2}"
