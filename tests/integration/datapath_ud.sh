#!/bin/sh
# SPDX-License-Identifier: MIT
# UD between two pods on one engine: SEND/SEND_WITH_IMM, GRH contents, src_qp, Q_Key mismatch dropped, reply through ibv_create_ah_from_wc, larger than MTU refused.
# (tests/integration/datapath/dpt_ud.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_ud || fail "dpt_ud"
