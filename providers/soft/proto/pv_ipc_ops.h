/* SPDX-License-Identifier: MIT */
/*
 * The soft device's ops as the framing sees them: the request payload
 * size and the fds each op takes, and its name.  The one table both ends
 * use to reject malformed requests before looking inside them.  Pure.
 */
#ifndef PV_IPC_OPS_H
#define PV_IPC_OPS_H

#include <stdint.h>

#include "providers/soft/pv-soft-abi.h"

/*
 * Pure: the request payload size an op takes.  *min and *max bound it
 * (equal for fixed-size requests).  Returns 0, or -EOPNOTSUPP for an op
 * with no request defined.
 */
int pv_ipc_req_size(uint16_t op, uint32_t *min, uint32_t *max);

/* What a request's fds must be (pv_ipc_req_fds). */
enum pv_ipc_fd_kind {
	PV_IPC_FD_NONE,		/* the op takes no fd */
	PV_IPC_FD_MEMFD,	/* a memfd (tmpfs or hugetlbfs regular file) */
	PV_IPC_FD_NETNS,	/* a network namespace (nsfs) */
	PV_IPC_FD_FILE,		/* a regular file or directory (XRCD) */
};

/* Pure: how many fds at most op's request takes, and of which kind (0
 * and PV_IPC_FD_NONE for most; unknown ops take none). */
int pv_ipc_req_fds(uint16_t op, enum pv_ipc_fd_kind *ret_kind);

/* Pure: a readable name for an op ("QP_CREATE"), "?" when unknown. */
const char *pv_ipc_op_name(uint16_t op);

#endif /* PV_IPC_OPS_H */
