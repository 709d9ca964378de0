#!/bin/sh
# SPDX-License-Identifier: MIT
# P_Key isolation between two pods (one engine, or two across nodes): devices in different
# partitions (pvctl dev add --pkey) cannot exchange - RC ends in
# IBV_WC_RETRY_EXC_ERR, nothing is received; re-added in the same
# partition, they can (tests/integration/datapath/dpt_pkey.c).
. "$PV_ROOT/tests/lib/pods.sh"
PKEY_A=0x8001 PKEY_B=0x8002
pods_up
dpt_run dpt_pkey isolated || fail "dpt_pkey isolated"
if [ "${PV_TOPO:-}" = cross ]; then
	n=$(pvctl_node 2 stats | awk '$1 == "wire_rx_pkey" { print $2 }')
	echo "node 2: wire_rx_pkey=${n:-missing}"
	[ "${n:-0}" -ge 1 ] || fail "node 2 did not count the P_Key drops"
fi
# b's engine: node 2's across nodes (P_Key mismatches are then dropped
# by the receiving engine, wire_rx_pkey), the only one on one node.
pvctl_node 2 dev del "$POD_DEV" --netns "$(topo_path b)" >/dev/null ||
	fail "dev del b"
pod_dev_add b --pkey 0x8001
dpt_run dpt_pkey ok || fail "dpt_pkey ok"
echo PASS
