#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified ibv_rc_pingpong between two pods on one engine, over
# our libibverbs: polling, events (-e), validation of received data (-c),
# both together, and the new post-send API (-N).
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
pairs_done
