#!/bin/sh
# Device plugin config: bad configs exit 2 with the key named, --check-config,
# SIGHUP reload (good and bad), SIGTERM clean exit.
PV_ROOT=${PV_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PV_BUILD=${PV_BUILD:-$PV_ROOT/build}
PYTHONDONTWRITEBYTECODE=1
export PV_ROOT PV_BUILD PYTHONDONTWRITEBYTECODE
[ -x /usr/bin/python3 ] || { echo "SKIP: /usr/bin/python3 missing"; exit 77; }
cd "$PV_ROOT/tests/integration/dp" && exec /usr/bin/python3 test_config.py
