#!/bin/sh
# Device plugin: real kernel uevents reach its libudev monitor.  Runs the
# plugin in a throw-away network namespace and adds a veth pair
# there (never in the host's namespace).
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
PYTHONDONTWRITEBYTECODE=1
export PV_ROOT PV_BUILD PYTHONDONTWRITEBYTECODE
[ -x /usr/bin/python3 ] || { echo "SKIP: /usr/bin/python3 missing"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for a network namespace"; exit 77; }
NS=pvdp-udev-$$
ip netns add "$NS" 2>/dev/null || { echo "SKIP: cannot create a network namespace"; exit 77; }
trap 'ip netns del "$NS" 2>/dev/null' EXIT INT TERM
ip netns exec "$NS" ip link set lo up
cd "$PV_ROOT/tests/integration/dp" &&
	ip netns exec "$NS" /usr/bin/python3 test_udev.py
