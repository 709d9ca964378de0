#!/bin/sh
# SPDX-License-Identifier: MIT
# Ordering: posts made before a control call take effect before it: a CQ resize below the outstanding completions is refused; SENDs posted before modify to ERR or destroy run first.
# (tests/integration/datapath/dpt_order.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_order || fail "dpt_order"
