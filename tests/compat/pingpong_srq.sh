#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified ibv_srq_pingpong between two pods on one engine, over
# our libibverbs: polling, events (-e), validation of received data (-c),
# both together.
PP_TOOL=ibv_srq_pingpong
. "$PV_ROOT/tests/compat/pingpong_common.inc"

pp_case $PP_TOOL srq-poll -n 500
pp_case $PP_TOOL srq-events -n 500 -e
pp_case $PP_TOOL srq-check -n 500 -c
pp_case $PP_TOOL srq-events-check -n 500 -e -c
pp_case $PP_TOOL srq-small -n 500 -s 1 -c
pp_case $PP_TOOL srq-large -n 100 -s 1048576 -c
pp_case $PP_TOOL srq-4qp -n 200 -q 4 -c
pairs_done
