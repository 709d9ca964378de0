#!/bin/sh
# SPDX-License-Identifier: MIT
# SRQ between two pods on one engine: receives from two QPs, limit event below srq_limit and disarmed, last WQE reached.
# (tests/integration/datapath/dpt_srq.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_srq || fail "dpt_srq"
