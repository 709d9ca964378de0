#!/bin/sh
# Device plugin, soft pool: python3-grpcio plays kubelet (legacy
# registration), reads ListAndWatch, checks Allocate field by field and
# under concurrency, stops and restarts the engine (Unhealthy -> Healthy),
# scrapes the metrics endpoint and checks seccomp confinement.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
PYTHONDONTWRITEBYTECODE=1
export PV_ROOT PV_BUILD PYTHONDONTWRITEBYTECODE
[ -x /usr/bin/python3 ] || { echo "SKIP: /usr/bin/python3 missing"; exit 77; }
cd "$PV_ROOT/tests/integration/dp" && exec /usr/bin/python3 test_soft.py
