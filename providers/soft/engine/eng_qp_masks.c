/* SPDX-License-Identifier: MIT */
/*
 * The QP state transition table: which cur→next modifies are legal and,
 * per QP type, which attribute mask bits each requires and permits.
 * Facts from IBA vol 1 §11.2.1 ("QP state transition properties") and
 * ibv_modify_qp(3); the same facts Linux's ib_modify_qp_is_ok encodes.
 * IBV_QP_STATE itself is in neither mask; the checker handles it.
 */
#include "providers/soft/engine/eng_qp_fsm.h"

#include <errno.h>
#include <infiniband/verbs.h>

/* XI: XRC_SEND (initiator), XT: XRC_RECV (target); IBA 19.2.5 and the
 * kernel's table: RC's masks less the queue each lacks. */
enum { T_RC, T_UC, T_UD, T_XI, T_XT, T_COUNT };

#define RC_INIT	(IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define RTR_UC	(IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)
#define RTR_RC	(RTR_UC | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RTR_OPT	(IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX)
#define RTS_RC	(IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
		 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)

struct trans {
	uint8_t  valid;
	uint32_t req[T_COUNT];
	uint32_t opt[T_COUNT];
};

#define NSTATES (IBV_QPS_ERR + 1)

/* Attributes of the primary path a connected QP may change while it runs. */
#define RUNNING_UC	(IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | \
			 IBV_QP_PATH_MIG_STATE)
#define RUNNING_RC	(RUNNING_UC | IBV_QP_MIN_RNR_TIMER)

/* Entries left out are illegal.  RESET and ERR are reachable from every
 * state with no other attribute (see eng_qp_fsm.h for RESET→ERR). */
static const struct trans table[NSTATES][NSTATES] = {
	[IBV_QPS_RESET] = {
		[IBV_QPS_INIT] = { 1,
			.req = {
				[T_RC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS,
				[T_UC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS,
				[T_UD] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_QKEY,
				[T_XI] = RC_INIT, [T_XT] = RC_INIT,
			},
		},
	},
	[IBV_QPS_INIT] = {
		[IBV_QPS_INIT] = { 1,
			.opt = {
				[T_RC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS,
				[T_UC] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_ACCESS_FLAGS,
				[T_UD] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					 IBV_QP_QKEY,
				[T_XI] = RC_INIT, [T_XT] = RC_INIT,
			},
		},
		[IBV_QPS_RTR] = { 1,
			.req = {
				[T_RC] = IBV_QP_AV | IBV_QP_PATH_MTU |
					 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					 IBV_QP_MAX_DEST_RD_ATOMIC |
					 IBV_QP_MIN_RNR_TIMER,
				[T_UC] = IBV_QP_AV | IBV_QP_PATH_MTU |
					 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
				[T_XI] = RTR_UC, [T_XT] = RTR_RC,
			},
			.opt = {
				[T_RC] = IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
					 IBV_QP_PKEY_INDEX,
				[T_UC] = IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
					 IBV_QP_PKEY_INDEX,
				[T_UD] = IBV_QP_PKEY_INDEX | IBV_QP_QKEY,
				[T_XI] = RTR_OPT, [T_XT] = RTR_OPT,
			},
		},
	},
	[IBV_QPS_RTR] = {
		[IBV_QPS_RTS] = { 1,
			.req = {
				[T_RC] = IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
					 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					 IBV_QP_MAX_QP_RD_ATOMIC,
				[T_UC] = IBV_QP_SQ_PSN,
				[T_UD] = IBV_QP_SQ_PSN,
				[T_XI] = RTS_RC,
				[T_XT] = IBV_QP_SQ_PSN | IBV_QP_TIMEOUT,
			},
			.opt = {
				[T_RC] = IBV_QP_CUR_STATE | RUNNING_RC |
					 IBV_QP_RATE_LIMIT,
				[T_UC] = IBV_QP_CUR_STATE | RUNNING_UC |
					 IBV_QP_RATE_LIMIT,
				[T_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY |
					 IBV_QP_RATE_LIMIT,
				[T_XI] = IBV_QP_CUR_STATE | RUNNING_RC |
					 IBV_QP_RATE_LIMIT,
				[T_XT] = IBV_QP_CUR_STATE | RUNNING_RC,
			},
		},
	},
	[IBV_QPS_RTS] = {
		[IBV_QPS_RTS] = { 1,
			.opt = {
				[T_XI] = IBV_QP_CUR_STATE | RUNNING_RC |
					 IBV_QP_RATE_LIMIT,
				[T_XT] = IBV_QP_CUR_STATE | RUNNING_RC,
				[T_RC] = IBV_QP_CUR_STATE | RUNNING_RC |
					 IBV_QP_RATE_LIMIT,
				[T_UC] = IBV_QP_CUR_STATE | RUNNING_UC |
					 IBV_QP_RATE_LIMIT,
				[T_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY |
					 IBV_QP_RATE_LIMIT,
			},
		},
		[IBV_QPS_SQD] = { 1,
			.opt = {
				[T_RC] = IBV_QP_EN_SQD_ASYNC_NOTIFY,
				[T_UC] = IBV_QP_EN_SQD_ASYNC_NOTIFY,
				[T_UD] = IBV_QP_EN_SQD_ASYNC_NOTIFY,
			},
		},
	},
	[IBV_QPS_SQD] = {
		[IBV_QPS_RTS] = { 1,
			.opt = {
				[T_RC] = IBV_QP_CUR_STATE | RUNNING_RC,
				[T_UC] = IBV_QP_CUR_STATE | RUNNING_UC,
				[T_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
			},
		},
		/* While drained, a QP may be re-pointed to a new path. */
		[IBV_QPS_SQD] = { 1,
			.opt = {
				[T_RC] = IBV_QP_PORT | IBV_QP_AV |
					 IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					 IBV_QP_RNR_RETRY |
					 IBV_QP_MAX_QP_RD_ATOMIC |
					 IBV_QP_MAX_DEST_RD_ATOMIC |
					 IBV_QP_PKEY_INDEX | RUNNING_RC,
				[T_UC] = IBV_QP_AV | IBV_QP_PKEY_INDEX |
					 RUNNING_UC,
				[T_UD] = IBV_QP_PKEY_INDEX | IBV_QP_QKEY,
			},
		},
	},
	[IBV_QPS_SQE] = {
		/* RC never enters SQE (its send errors go to ERR). */
		[IBV_QPS_RTS] = { 1,
			.opt = {
				[T_UC] = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS,
				[T_UD] = IBV_QP_CUR_STATE | IBV_QP_QKEY,
			},
		},
	},
};

static int type_index(uint32_t qp_type)
{
	switch (qp_type) {
	case IBV_QPT_RC:
		return T_RC;
	case IBV_QPT_UC:
		return T_UC;
	case IBV_QPT_UD:
		return T_UD;
	case IBV_QPT_XRC_SEND:
		return T_XI;
	case IBV_QPT_XRC_RECV:
		return T_XT;
	default:
		return -1;
	}
}

int eng_qp_type_supported(uint32_t qp_type)
{
	return type_index(qp_type) >= 0;
}

int eng_qp_transition_masks(uint32_t qp_type, uint32_t cur, uint32_t next,
			   uint32_t *req, uint32_t *opt)
{
	int t = type_index(qp_type);

	if (t < 0 || cur >= NSTATES || next >= NSTATES)
		return -EINVAL;
	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR) {
		*req = 0;
		*opt = 0;
		return 0;
	}
	if (!table[cur][next].valid)
		return -EINVAL;
	*req = table[cur][next].req[t];
	*opt = table[cur][next].opt[t];
	return 0;
}
