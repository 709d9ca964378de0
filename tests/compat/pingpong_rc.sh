#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified ibv_rc_pingpong between two pods on one engine, over
# our libibverbs: polling, events (-e), validation of received data (-c),
# both together, the new post-send API (-N), and on-demand paging: an
# ODP buffer (-o), prefetched with ibv_advise_mr (-P, which must not
# print "Couldn't prefetch"), while implicit ODP (-o -O) is refused as
# the device does not advertise it.
PP_TOOL=ibv_rc_pingpong
. "$PV_ROOT/tests/compat/pingpong_common.inc"

pp_case $PP_TOOL rc-poll -n 500
pp_case $PP_TOOL rc-events -n 500 -e
pp_case $PP_TOOL rc-check -n 500 -c
pp_case $PP_TOOL rc-events-check -n 500 -e -c
pp_case $PP_TOOL rc-small -n 500 -s 1 -c
pp_case $PP_TOOL rc-large -n 100 -s 1048576 -c
pp_case $PP_TOOL rc-newsend -n 500 -N -c
pp_case $PP_TOOL rc-newsend-events -n 500 -N -e
pp_case $PP_TOOL rc-odp -n 500 -o -c
pp_case $PP_TOOL rc-odp-prefetch -n 500 -o -P -c
if grep -q "Couldn't prefetch" "$TMP/rc-odp-prefetch.cli" "$TMP/rc-odp-prefetch.srv"; then
	case_fail rc-odp-prefetch "ibv_advise_mr failed: $(grep -h "Couldn't prefetch" "$TMP/rc-odp-prefetch.cli" "$TMP/rc-odp-prefetch.srv" | head -1)"
fi
# Implicit ODP: refused before any connection (no server needed).
if in_pod a timeout 20 $PP_TOOL -d $POD_DEV -g 0 -o -O >"$TMP/rc-iodp.out" 2>&1; then
	case_fail rc-implicit-odp "ibv_rc_pingpong -o -O succeeded"
elif grep -q "doesn't support implicit ODP" "$TMP/rc-iodp.out"; then
	case_ok "rc-implicit-odp: refused ($(head -1 "$TMP/rc-iodp.out"))"
else
	case_fail rc-implicit-odp "unexpected: $(head -3 "$TMP/rc-iodp.out")"
fi
pairs_done
