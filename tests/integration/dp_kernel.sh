#!/bin/sh
# Device plugin, kernel pools over a sysfs fixture (tests/fixtures/sysfs):
# ListAndWatch with NUMA topology, Allocate field by field (DeviceSpecs,
# JSON env, CDI), preferred allocation across two NUMA nodes, udev-style
# removal and port down -> Unhealthy, and recovery.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
PYTHONDONTWRITEBYTECODE=1
export PV_ROOT PV_BUILD PYTHONDONTWRITEBYTECODE
[ -x /usr/bin/python3 ] || { echo "SKIP: /usr/bin/python3 missing"; exit 77; }
cd "$PV_ROOT/tests/integration/dp" && exec /usr/bin/python3 test_kernel.py
