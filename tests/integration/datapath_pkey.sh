#!/bin/sh
# SPDX-License-Identifier: MIT
# P_Key isolation between two pods on one engine: devices in different
# partitions (pvctl dev add --pkey) cannot exchange - RC ends in
# IBV_WC_RETRY_EXC_ERR, nothing is received; re-added in the same
# partition, they can (tests/integration/datapath/dpt_pkey.c).
. "$PV_ROOT/tests/lib/pods.sh"
PKEY_A=0x8001 PKEY_B=0x8002
pods_up
dpt_run dpt_pkey isolated || fail "dpt_pkey isolated"
pvctl dev del "$POD_DEV" --netns "$(topo_path b)" >/dev/null || fail "dev del b"
pod_dev_add b --pkey 0x8001
dpt_run dpt_pkey ok || fail "dpt_pkey ok"
echo PASS
