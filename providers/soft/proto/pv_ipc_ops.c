/* SPDX-License-Identifier: MIT */
/* Request payload sizes, fds and names per op (pv_ipc_ops.h). */
#include "providers/soft/proto/pv_ipc_ops.h"
#include "providers/soft/pv-soft-ring-abi.h"
#include "providers/soft/pv-soft-cm-abi.h"

#include <errno.h>

struct op_desc {
	const char *name;
	uint32_t min, max;
	int defined;
};

#define FIXED(n, t)  [PV_OP_##n] = { #n, sizeof(t), sizeof(t), 1 }
#define EMPTY(n)     [PV_OP_##n] = { #n, 0, 0, 1 }
#define RANGE(n, lo, hi) [PV_OP_##n] = { #n, lo, hi, 1 }

static const struct op_desc ops[PV_OP_MAX + 1] = {
	FIXED(HELLO, struct pv_ipc_hello),
	RANGE(DEV_LIST, 0, sizeof(struct pv_ipc_list_req)),
	FIXED(DEV_QUERY, struct pv_ipc_dev_ref),
	FIXED(PORT_QUERY, struct pv_ipc_dev_ref),
	FIXED(GID_QUERY, struct pv_ipc_dev_ref),
	FIXED(PKEY_QUERY, struct pv_ipc_dev_ref),
	FIXED(CTX_OPEN, struct pv_ipc_dev_ref),
	EMPTY(CHANNEL_CREATE),
	FIXED(CHANNEL_DESTROY, struct pv_ipc_handle),
	EMPTY(PD_ALLOC),
	FIXED(PD_DEALLOC, struct pv_ipc_handle),
	RANGE(MR_REG, sizeof(struct pv_ipc_mr_reg),
	      sizeof(struct pv_ipc_mr_reg) + sizeof(struct pv_ipc_mr_backing)),
	FIXED(MR_DEREG, struct pv_ipc_handle),
	FIXED(CQ_CREATE, struct pv_ipc_cq_create),
	FIXED(CQ_RESIZE, struct pv_ipc_cq_create),
	FIXED(CQ_DESTROY, struct pv_ipc_handle),
	FIXED(CQ_REQ_NOTIFY, struct pv_ipc_cq_notify),
	FIXED(QP_CREATE, struct pv_ipc_qp_create),
	FIXED(QP_MODIFY, struct pv_ipc_qp_modify),
	FIXED(QP_QUERY, struct pv_ipc_qp_modify),
	FIXED(QP_DESTROY, struct pv_ipc_handle),
	FIXED(SRQ_CREATE, struct pv_ipc_srq),
	FIXED(SRQ_MODIFY, struct pv_ipc_srq),
	FIXED(SRQ_QUERY, struct pv_ipc_handle),
	FIXED(SRQ_DESTROY, struct pv_ipc_handle),
	FIXED(AH_CREATE, struct pv_ipc_ah_create),
	FIXED(AH_DESTROY, struct pv_ipc_handle),
	FIXED(QP_MCAST_ATTACH, struct pv_ipc_qp_mcast),
	FIXED(QP_MCAST_DETACH, struct pv_ipc_qp_mcast),
	FIXED(MW_ALLOC, struct pv_ipc_mw_alloc),
	FIXED(MW_DEALLOC, struct pv_ipc_handle),
	FIXED(XRCD, struct pv_ipc_xrcd),
	FIXED(QP_OPEN, struct pv_ipc_qp_open),
	RANGE(MR_REREG, sizeof(struct pv_ipc_mr_rereg),
	      sizeof(struct pv_ipc_mr_rereg) +
	      sizeof(struct pv_ipc_mr_backing)),
	EMPTY(CTX_MAP),
	FIXED(QP_MAP, struct pv_ipc_handle),
	FIXED(CQ_MAP, struct pv_ipc_handle),
	FIXED(SRQ_MAP, struct pv_ipc_handle),
	RANGE(ADM_DEV_ADD, sizeof(struct pv_ipc_adm_dev_add),
	      sizeof(struct pv_ipc_adm_dev_add) +
	      sizeof(struct pv_ipc_adm_dev_claims) +
	      sizeof(struct pv_ipc_adm_dev_pod)),
	FIXED(ADM_DEV_DEL, struct pv_ipc_adm_dev_del),
	RANGE(ADM_DEV_LIST, 0, sizeof(struct pv_ipc_list_req)),
	FIXED(ADM_OBJ_LIST, struct pv_ipc_dev_ref),
	EMPTY(ADM_STATS),
	FIXED(ADM_MR_REPORT, struct pv_ipc_dev_ref),
	FIXED(ADM_HWC, struct pv_ipc_adm_hwc_req),
	/* The CM service (pv-soft-cm-abi.h). */
	EMPTY(CM_OPEN),
	FIXED(CM_ID_CREATE, struct pv_ipc_cm_id_create),
	FIXED(CM_ID_DESTROY, struct pv_ipc_cm_ref),
	FIXED(CM_BIND, struct pv_ipc_cm_addr),
	FIXED(CM_RESOLVE_ADDR, struct pv_ipc_cm_addr),
	FIXED(CM_RESOLVE_ROUTE, struct pv_ipc_cm_ref),
	FIXED(CM_LISTEN, struct pv_ipc_cm_ref),
	FIXED(CM_CONNECT, struct pv_ipc_cm_conn),
	FIXED(CM_ACCEPT, struct pv_ipc_cm_conn),
	FIXED(CM_REJECT, struct pv_ipc_cm_conn),
	FIXED(CM_ESTABLISH, struct pv_ipc_cm_ref),
	FIXED(CM_DISCONNECT, struct pv_ipc_cm_ref),
	FIXED(CM_OPTION, struct pv_ipc_cm_ref),
	FIXED(CM_JOIN, struct pv_ipc_cm_addr),
};

/* Every other op takes none: a client fd the engine did not ask for is
 * refused before any handler runs (and disposed of off the loop). */
int pv_ipc_req_fds(uint16_t op, enum pv_ipc_fd_kind *ret_kind)
{
	switch (op) {
	case PV_OP_HELLO:	/* its own /proc/thread-self/ns/net */
		*ret_kind = PV_IPC_FD_NETNS;
		return 1;
	case PV_OP_MR_REG:	/* the memory's memfd, when shared */
	case PV_OP_MR_REREG:	/* the new range's memfd (TRANSLATION) */
		*ret_kind = PV_IPC_FD_MEMFD;
		return 1;
	case PV_OP_XRCD:	/* the file naming a shared domain */
		*ret_kind = PV_IPC_FD_FILE;
		return 1;
	default:
		*ret_kind = PV_IPC_FD_NONE;
		return 0;
	}
}

int pv_ipc_req_size(uint16_t op, uint32_t *min, uint32_t *max)
{
	if (op > PV_OP_MAX || !ops[op].defined)
		return -EOPNOTSUPP;
	*min = ops[op].min;
	*max = ops[op].max;
	return 0;
}

const char *pv_ipc_op_name(uint16_t op)
{
	if (op > PV_OP_MAX || !ops[op].defined)
		return "?";
	return ops[op].name;
}
