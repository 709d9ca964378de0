/* SPDX-License-Identifier: MIT */
/*
 * CM calls not implemented yet (issue 11, later parts): ECE and
 * rdma_notify.  ENOSYS under the debug flag's one line.
 */
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "librdmacm/rc_core.h"

RC_EXPORT int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	return rc_unimplemented("rdma_set_local_ece");
}

RC_EXPORT int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	return rc_unimplemented("rdma_get_remote_ece");
}

RC_EXPORT int rdma_reject_ece(struct rdma_cm_id *id, const void *data,
			      uint8_t len)
{
	return rc_unimplemented("rdma_reject_ece");
}

RC_EXPORT int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	return rc_unimplemented("rdma_notify");
}
