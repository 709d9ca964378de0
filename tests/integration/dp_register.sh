#!/bin/sh
# Device plugin registration: plugin watcher (GetInfo /
# NotifyRegistrationStatus), legacy Register with kubelet appearing late,
# five kubelet restarts with re-registration measured (< 1 s), and a second
# instance refusing to take a live instance's socket (exit 3).
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
PYTHONDONTWRITEBYTECODE=1
export PV_ROOT PV_BUILD PYTHONDONTWRITEBYTECODE
[ -x /usr/bin/python3 ] || { echo "SKIP: /usr/bin/python3 missing"; exit 77; }
cd "$PV_ROOT/tests/integration/dp" && exec /usr/bin/python3 test_register.py
