#!/bin/sh
# SPDX-License-Identifier: MIT
# On-demand paging (explicit ODP) between two pods: odp_caps IBV_ODP_SUPPORT (not IMPLICIT) with the RC/UC/UD/XRC operations; implicit ODP refused with EINVAL; over ODP MRs on both sides WRITE, READ, SEND to an SRQ and back, FETCH_ADD, CMP_SWP and a UD datagram with data checked; a WRITE to an ODP MR without REMOTE_WRITE -> REM_ACCESS_ERR, memory untouched; ibv_advise_mr PREFETCH populates the pages, and its errors (EOPNOTSUPP, EINVAL, ENOENT, EPERM, EFAULT) follow rereg and dereg.
# (tests/integration/datapath/dpt_odp.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
# PODVERBS_DEBUG=1: the library says why it refused each call.
PODVERBS_DEBUG=1 dpt_run dpt_odp || fail "dpt_odp"
grep -q "PREFETCH populated the MR\|population not checked" "$TMP/dpt.out" ||
	fail "dpt_odp did not report the prefetch check"
grep -q "ibv_reg_mr((nil), [0-9]*): Invalid argument: implicit on-demand paging" \
	"$TMP/dpt.out" || fail "no PODVERBS_DEBUG reason for refusing implicit ODP"
grep -q "ibv_advise_mr: sge 0: No such file or directory: lkey of no on-demand MR" \
	"$TMP/dpt.out" || fail "no PODVERBS_DEBUG reason for an advice's ENOENT"
echo PASS
