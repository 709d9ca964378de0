/* SPDX-License-Identifier: MIT */
/*
 * QP modify validation (mask against the transition table, then the value
 * of every attribute present) and create-time capability checks.  The
 * choices where the spec allows options are listed in eng_qp_fsm.h.
 */
#include "providers/soft/engine/eng_qp_fsm.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_port.h"
#include "providers/soft/pv-soft-ring-abi.h"
#include "providers/soft/engine/eng_wr.h"

_Static_assert(ENG_QP_ACCESS_REMOTE == (IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_REMOTE_ATOMIC),
	       "ENG_QP_ACCESS_REMOTE matches the IBV_ACCESS_* bits");

/* Access bits an application may pass in qp_access_flags: bits 0-7 of
 * rdma-core 44, bits 8-9 (FLUSH_* in later rdma-core) and the optional
 * range.  All but ENG_QP_ACCESS_REMOTE are ignored, as drivers do. */
#define ACCESS_TOLERATED	(0x3ffu | IBV_ACCESS_OPTIONAL_RANGE)

/* Encodings the IBA gives 5 bits (timers) and 3 bits (retry counters). */
#define TIMEOUT_MAX		31
#define MIN_RNR_TIMER_MAX	31
#define RETRY_CNT_MAX		7
#define RNR_RETRY_MAX		7

static bool port_ok(const struct eng_qp_fsm_in *in, uint32_t port)
{
	return port >= 1 && port <= in->phys_port_cnt;
}

/* An address vector on RoCE: a GRH is mandatory (the GIDs are the only
 * addresses), so is_global must be set and sgid_index must exist. */
static int check_av(const struct eng_qp_fsm_in *in,
		    const struct pv_ipc_ah_attr *ah)
{
	if (!port_ok(in, ah->port_num))
		return -EINVAL;
	if (!ah->is_global)
		return -EINVAL;
	if (ah->sgid_index >= in->gid_tbl_len)
		return -EINVAL;
	return 0;
}

/* The state checks: requested state in range, CUR_STATE consistent. */
static int check_states(const struct eng_qp_fsm_in *in)
{
	const struct pv_ipc_qp_attr *a = in->attr;
	uint32_t claim, real = in->cur_state;

	if ((in->attr_mask & IBV_QP_STATE) && !eng_qps_known(a->qp_state))
		return -EINVAL;
	if (!(in->attr_mask & IBV_QP_CUR_STATE))
		return 0;
	claim = a->cur_qp_state;
	if (claim == real)
		return 0;
	/* The QP may have moved among these on its own since the consumer
	 * last looked; the real state's table row still decides. */
	if ((claim == IBV_QPS_RTS || claim == IBV_QPS_SQD ||
	     claim == IBV_QPS_SQE) &&
	    (real == IBV_QPS_RTS || real == IBV_QPS_SQD ||
	     real == IBV_QPS_SQE))
		return 0;
	return -EINVAL;
}

static int check_primary_path(const struct eng_qp_fsm_in *in)
{
	const struct pv_ipc_qp_attr *a = in->attr;
	uint32_t m = in->attr_mask;

	if ((m & IBV_QP_PORT) && !port_ok(in, a->port_num))
		return -EINVAL;
	if ((m & IBV_QP_PKEY_INDEX) && a->pkey_index >= in->pkey_tbl_len)
		return -EINVAL;
	if ((m & IBV_QP_AV) && check_av(in, &a->ah_attr))
		return -EINVAL;
	if ((m & IBV_QP_PATH_MTU) &&
	    (a->path_mtu < IBV_MTU_256 || a->path_mtu > IBV_MTU_4096))
		return -EINVAL;
	if ((m & IBV_QP_DEST_QPN) && a->dest_qp_num > ENG_BTH_24BIT_MASK)
		return -EINVAL;
	if ((m & IBV_QP_RQ_PSN) && a->rq_psn > ENG_BTH_24BIT_MASK)
		return -EINVAL;
	if ((m & IBV_QP_SQ_PSN) && a->sq_psn > ENG_BTH_24BIT_MASK)
		return -EINVAL;
	if ((m & IBV_QP_ACCESS_FLAGS) &&
	    (a->qp_access_flags & ~ACCESS_TOLERATED))
		return -EINVAL;
	if ((m & IBV_QP_RATE_LIMIT) && a->rate_limit != 0)
		return -EINVAL;
	return 0;
}

/* Reliability knobs: RC only, by the table. */
static int check_reliability(const struct eng_qp_fsm_in *in)
{
	const struct pv_ipc_qp_attr *a = in->attr;
	uint32_t m = in->attr_mask;

	if ((m & IBV_QP_TIMEOUT) && a->timeout > TIMEOUT_MAX)
		return -EINVAL;
	if ((m & IBV_QP_RETRY_CNT) && a->retry_cnt > RETRY_CNT_MAX)
		return -EINVAL;
	if ((m & IBV_QP_RNR_RETRY) && a->rnr_retry > RNR_RETRY_MAX)
		return -EINVAL;
	if ((m & IBV_QP_MIN_RNR_TIMER) && a->min_rnr_timer > MIN_RNR_TIMER_MAX)
		return -EINVAL;
	if ((m & IBV_QP_MAX_QP_RD_ATOMIC) &&
	    a->max_rd_atomic > in->max_qp_rd_atom)
		return -EINVAL;
	if ((m & IBV_QP_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > in->max_dest_rd_atom)
		return -EINVAL;
	return 0;
}

/* Validated, then ignored: we have no automatic path migration. */
static int check_alt_path(const struct eng_qp_fsm_in *in)
{
	const struct pv_ipc_qp_attr *a = in->attr;
	uint32_t m = in->attr_mask;

	if ((m & IBV_QP_PATH_MIG_STATE) && a->path_mig_state > IBV_MIG_ARMED)
		return -EINVAL;
	if (!(m & IBV_QP_ALT_PATH))
		return 0;
	if (!port_ok(in, a->alt_port_num) ||
	    a->alt_pkey_index >= in->pkey_tbl_len ||
	    a->alt_timeout > TIMEOUT_MAX)
		return -EINVAL;
	return check_av(in, &a->alt_ah_attr);
}

int eng_qp_modify_check(const struct eng_qp_fsm_in *in)
{
	uint32_t req, opt, next;
	int ret;

	if (!in)
		return -EINVAL;
	if (!eng_qp_type_supported(in->qp_type))
		return -EOPNOTSUPP;
	if (!eng_qps_known(in->cur_state))
		return -EINVAL;
	if (in->attr_mask && !in->attr)
		return -EINVAL;
	if (in->attr_mask) {
		ret = check_states(in);
		if (ret)
			return ret;
	}

	next = eng_qp_next_state(in);
	if (eng_qp_transition_masks(in->qp_type, in->cur_state, next,
				   &req, &opt))
		return -EINVAL;
	if ((in->attr_mask & req) != req)
		return -EINVAL;
	if (in->attr_mask & ~(req | opt | IBV_QP_STATE))
		return -EINVAL;
	if (!in->attr_mask)
		return 0;

	ret = check_primary_path(in);
	if (!ret)
		ret = check_reliability(in);
	if (!ret)
		ret = check_alt_path(in);
	return ret;
}

uint32_t eng_qp_next_state(const struct eng_qp_fsm_in *in)
{
	if ((in->attr_mask & IBV_QP_STATE) && in->attr)
		return in->attr->qp_state;
	return in->cur_state;
}

int eng_qp_cap_check(const struct pv_ipc_qp_cap *req,
		    const struct pv_ipc_dev_attr *lim, uint32_t qp_type)
{
	if (!req || !lim)
		return -EINVAL;
	if (!eng_qp_type_supported(qp_type))
		return -EOPNOTSUPP;
	if (req->max_send_wr > lim->max_qp_wr ||
	    req->max_recv_wr > lim->max_qp_wr)
		return -EINVAL;
	if (req->max_send_sge > lim->max_sge ||
	    req->max_recv_sge > lim->max_sge)
		return -EINVAL;
	if (req->max_inline_data > lim->max_inline_data)
		return -EINVAL;
	return 0;
}

/* Smallest power of two >= v (v <= 2^31), capped at cap; 0 stays 0. */
static uint32_t round_wr(uint32_t v, uint32_t cap)
{
	uint32_t p = 1;

	if (!v)
		return 0;
	while (p < v && p < 0x80000000u)
		p <<= 1;
	if (p < v)		/* v above 2^31: no power of two fits */
		p = v;
	if (p > cap)
		p = cap > v ? cap : v;
	return p;
}

void eng_qp_cap_grant(struct pv_ipc_qp_cap *cap,
		     const struct pv_ipc_dev_attr *lim)
{
	cap->max_send_wr = round_wr(cap->max_send_wr, lim->max_qp_wr);
	cap->max_recv_wr = round_wr(cap->max_recv_wr, lim->max_qp_wr);
	/* The send WQE has room for max_send_sge SGEs anyway, so inline data
	 * up to that size costs nothing: grant it, as the kernel's rxe does
	 * (it sizes the WQE by the larger of the two and reports that).
	 * Programs rely on it: rdma_xclient posts 16 inline bytes on a QP
	 * created with max_inline_data 0 and one send SGE. */
	if (cap->max_send_wr) {
		uint64_t room = (uint64_t)cap->max_send_sge *
				sizeof(struct pv_wqe_sge);

		if (room > lim->max_inline_data)
			room = lim->max_inline_data;
		if (room > cap->max_inline_data)
			cap->max_inline_data = (uint32_t)room;
	}
	cap->reserved = 0;
}
