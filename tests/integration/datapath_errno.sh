#!/bin/sh
# SPDX-License-Identifier: MIT
# errno: failing control verbs return an errno and leave it in errno, as rdma-core's do (EINVAL for bad transitions, ports, sizes, limits; EBUSY for objects in use).
# (tests/integration/datapath/dpt_errno.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_errno || fail "dpt_errno"
