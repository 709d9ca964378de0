#!/bin/sh
# SPDX-License-Identifier: MIT
# RC receiver-not-ready between two pods: rnr_retry 0/1 end in IBV_WC_RNR_RETRY_EXC_ERR and QP in ERR; rnr_retry 7 waits until a receive is posted.
# (tests/integration/datapath/dpt_rnr.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_rnr || fail "dpt_rnr"
