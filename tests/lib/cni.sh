# SPDX-License-Identifier: MIT
# Helpers for the CNI plugin tests (POSIX sh; sourced after topo.sh):
# tests/integration/cni_*.sh and podman_*.sh.
PLUGIN=$PV_BUILD/bin/podverbs

# cni_conf NETNS [IP] [EXTRA]: a podverbs network config with a prevResult
# like the bridge plugin's (interface eth0 in NETNS with address IP);
# IP "-" leaves prevResult out.  EXTRA is more JSON keys (",\"pkey\":..").
cni_conf() {
	_prev=
	if [ "${2:--}" != - ]; then
		_prev=$(printf ',"prevResult":{"cniVersion":"%s","interfaces":[{"name":"br0","mac":"02:00:00:00:00:01"},{"name":"eth0","mac":"02:00:00:00:00:02","sandbox":"%s"}],"ips":[{"address":"%s","gateway":"10.9.0.1","interface":1}],"routes":[{"dst":"0.0.0.0/0"}],"dns":{}}' \
			"${CNI_VER:-1.1.0}" "$1" "$2")
	fi
	printf '{"cniVersion":"%s","name":"%s","type":"podverbs","stateDir":"%s","engineSocket":"%s"%s%s}' \
		"${CNI_VER:-1.1.0}" "${CNI_NET:-rdmanet}" "$STATE" \
		"${ENGINE_SOCK:-/nonexistent}" "${3:-}" "$_prev"
}

# run_cni CMD CID NETNS CONF: runs the plugin with CONF on stdin; stdout in
# $OUT, exit status in $RC.
run_cni() {
	OUT=$(printf '%s' "$4" | env CNI_COMMAND="$1" CNI_CONTAINERID="$2" \
		CNI_NETNS="$3" CNI_IFNAME="${CNI_IF:-eth0}" \
		CNI_PATH=/usr/lib/cni "$PLUGIN")
	RC=$?
}

# expect_ok WHAT / expect_code WHAT CODE: check the last run_cni.
expect_ok() {
	[ "$RC" = 0 ] || fail "$1: exit $RC, output: $OUT"
}

expect_code() {
	[ "$RC" != 0 ] || fail "$1: exit 0, expected error code $2"
	_code=$(printf '%s' "$OUT" | tr -d ' \t\n' | sed -n 's/.*"code":\([0-9]*\).*/\1/p')
	[ "$_code" = "$2" ] || fail "$1: code '$_code', expected $2: $OUT"
	printf '%s' "$OUT" | grep -q '"msg"' || fail "$1: no msg: $OUT"
	echo "ok: $1 -> code $2"
}

# engine_has NAME NETNS / engine_count: devices the engine has.  pvctl
# runs with $PVCTL_PREFIX (e.g. nsenter into the engine's namespace).
# When pvctl fails, engine_has fails the test and engine_count prints
# nothing: "no such device" must never stand in for "no answer".
engine_has() {
	_eh=$($PVCTL_PREFIX "$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" \
		dev list) || fail "engine_has: pvctl dev list failed"
	printf '%s\n' "$_eh" |
		awk -v n="$1" -v ns="$2" '$2 == n && $3 == ns { f = 1 } END { exit !f }'
}

engine_count() {
	_ec=$($PVCTL_PREFIX "$PV_BUILD/bin/pvctl" --socket "$ENGINE_SOCK" \
		dev list) || return 1
	printf '%s\n' "$_ec" | awk 'NR > 1 && $1 ~ /^[0-9]+$/' | wc -l
}

# state_count: files in the state folder.
state_count() {
	ls -A "$STATE" 2>/dev/null | wc -l
}
