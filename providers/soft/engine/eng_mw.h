/* SPDX-License-Identifier: MIT */
/*
 * Memory windows on the data path (eng_mw.c): the requester's bind and
 * local invalidate, the responder's access through a window's rkey and
 * its send-with-invalidate.  The responder's hooks are called from the
 * shared checks (eng_dp_rguard.c, eng_dp_resp.c), so the same-node path
 * and the wire's receive path judge windows alike.
 */
#ifndef ENG_MW_H
#define ENG_MW_H

#include <stdbool.h>
#include <stdint.h>

struct eng_qp;
struct eng_mr;
struct pv_send_wqe;

/* IBV_WR_BIND_MW at the head of qp's send queue (the engine's copy of the
 * WQE, pv-soft-ring-abi.h): IBV_WC_SUCCESS or IBV_WC_MW_BIND_ERR. */
int eng_mw_bind(struct eng_qp *qp, const struct pv_send_wqe *w);
/* IBV_WR_LOCAL_INV of a type 2 window: IBV_WC_SUCCESS or
 * IBV_WC_LOC_QP_OP_ERR. */
int eng_mw_local_inv(struct eng_qp *qp, uint32_t rkey);
/* The MR under the window rkey names at dst when the window is bound,
 * of dst's PD (type 2: bound through dst), grants need and covers
 * [*va, *va + len) (zero-based: [0, length)); else NULL.  On success a
 * zero-based window's *va becomes the MR's address. */
struct eng_mr *eng_mw_remote(struct eng_qp *dst, uint32_t rkey, uint64_t *va,
			     uint64_t len, uint32_t need);
/* IBV_WR_SEND_WITH_INV arriving at dst: invalidates the type 2 window
 * rkey names if it is bound through dst; false (nothing changed) if
 * rkey names no such window. */
bool eng_mw_send_inv(struct eng_qp *dst, uint32_t rkey);
/* qp is being destroyed: the type 2 windows bound through it are
 * invalidated. */
void eng_mw_qp_gone(struct eng_qp *qp);

#endif /* ENG_MW_H */
