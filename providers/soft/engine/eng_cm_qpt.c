/* SPDX-License-Identifier: MIT */
/*
 * Which QP types an RDMA CM id may have and which meet (eng_cm.h).  Pure:
 * the ids' requests (eng_cm_id.c) and both connection paths, same node
 * (eng_cm_conn.c) and wire (eng_cm_wire_svc.c), ask here.
 */
#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_cm.h"

bool eng_cm_qpt_ok(uint32_t ps, uint32_t qp_type)
{
	switch (ps) {
	case PV_CM_PS_TCP:
		return qp_type == IBV_QPT_RC;
	case PV_CM_PS_UDP:
		return qp_type == IBV_QPT_UD;
	case PV_CM_PS_IB:
		return qp_type == IBV_QPT_RC || qp_type == IBV_QPT_XRC_SEND ||
		       qp_type == IBV_QPT_XRC_RECV;
	default:
		return false;
	}
}

bool eng_cm_qpt_match(uint32_t active_qpt, uint32_t listener_qpt)
{
	return (active_qpt == IBV_QPT_XRC_SEND) ==
	       (listener_qpt == IBV_QPT_XRC_RECV);
}
