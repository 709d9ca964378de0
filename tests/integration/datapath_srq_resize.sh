#!/bin/sh
# SPDX-License-Identifier: MIT
# SRQ resize past the initial ring between two pods: posts, grows, posts more, twice (once with WQEs half consumed); every message lands in its receive in posting order; growing past max_srq_wr is EINVAL.
# (tests/integration/datapath/dpt_srq_resize.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_srq_resize || fail "dpt_srq_resize"
