/* SPDX-License-Identifier: MIT */
/* The responder's hooks into eng_dp_rguard.c (eng_rguard.h). */
#ifndef ENG_DP_RGUARD_H
#define ENG_DP_RGUARD_H

#include <stdbool.h>
#include <stdint.h>

struct eng_qp;
struct eng_mr;
struct eng_dp_msg;

/* The MR m->rkey names at dst, covering [*va, *va+len) with the
 * rights need; NULL (counted, charged to the source device) if none, or
 * when the source is over its error budget.  On success *va is the
 * address in the MR's own terms (a zero-based window's offset plus the
 * window's start, eng_mw.h). */
struct eng_mr *eng_dp_rguard_mr(struct eng_qp *dst, const struct eng_dp_msg *m,
				uint64_t *va, uint64_t len, uint32_t need);
/* Before an RC responder enters ERR on an access violation: raises
 * IBV_EVENT_QP_ACCESS_ERR on dst. */
void eng_dp_rguard_access_err(struct eng_qp *dst);

/* May a datagram from src with qkey enter dst?  A wrong Q_Key is counted
 * (dp_drops_qkey and at dst's device, warned at most once a second) and
 * charged to src's device like a wrong rkey; past that budget src's
 * datagrams are refused (dp_remote_refused) whatever their Q_Key. */
bool eng_dp_rguard_qkey_ok(struct eng_qp *src, struct eng_qp *dst,
			   uint32_t qkey);

#endif /* ENG_DP_RGUARD_H */
