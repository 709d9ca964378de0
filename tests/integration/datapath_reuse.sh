#!/bin/sh
# SPDX-License-Identifier: MIT
# Finding 8 (issue 8): QP numbers and memory keys are not reused soon nor
# predictably across create/destroy loops (random 24-bit QPNs avoiding
# QP0/QP1/0xffffff, live and recently freed ones; random 32-bit keys).
# (tests/integration/datapath/dpt_reuse.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_reuse || fail "dpt_reuse"
echo PASS
