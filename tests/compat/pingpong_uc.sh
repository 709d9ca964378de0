#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified ibv_uc_pingpong between two pods on one engine, over
# our libibverbs: polling, events (-e), validation of received data (-c),
# both together.
PP_TOOL=ibv_uc_pingpong
. "$PV_ROOT/tests/compat/pingpong_common.inc"

pp_case $PP_TOOL uc-poll -n 500
pp_case $PP_TOOL uc-events -n 500 -e
pp_case $PP_TOOL uc-check -n 500 -c
pp_case $PP_TOOL uc-events-check -n 500 -e -c
pp_case $PP_TOOL uc-small -n 500 -s 1 -c
pp_case $PP_TOOL uc-large -n 100 -s 1048576 -c
pairs_done
