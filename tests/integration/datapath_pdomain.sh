#!/bin/sh
# SPDX-License-Identifier: MIT
# Thread and parent domains between two pods: EINVAL for bad arguments and unknown comp_mask bits, EBUSY for a PD or TD a parent domain holds, an RC WRITE and SEND over a QP, CQ and MR made from a parent domain with a TD.
# (tests/integration/datapath/dpt_pdomain.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_pdomain || fail "dpt_pdomain"
