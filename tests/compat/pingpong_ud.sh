#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's unmodified ibv_ud_pingpong between two pods on one engine, over
# our libibverbs: polling, events (-e), validation of received data (-c),
# both together; message sizes up to the port MTU (1024 on a 1500 veth).
PP_TOOL=ibv_ud_pingpong
. "$PV_ROOT/tests/compat/pingpong_common.inc"

pp_case $PP_TOOL ud-poll -n 500 -s 1024
pp_case $PP_TOOL ud-events -n 500 -s 1024 -e
pp_case $PP_TOOL ud-check -n 500 -s 1024 -c
pp_case $PP_TOOL ud-events-check -n 500 -s 512 -e -c
pp_case $PP_TOOL ud-small -n 500 -s 1 -c
pairs_done
