#!/bin/sh
# SPDX-License-Identifier: MIT
# Async events in a pod: its interface down/up gives IBV_EVENT_PORT_ERR /
# IBV_EVENT_PORT_ACTIVE; the engine stopping gives IBV_EVENT_DEVICE_FATAL
# and posts then fail (tests/integration/datapath/dpt_async.c).
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_async "ip -n $(topo_name a) link set eth0 down" \
	"ip -n $(topo_name a) link set eth0 up" \
	"kill $ENGINE_PID" || fail "dpt_async"
echo PASS
