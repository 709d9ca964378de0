/* SPDX-License-Identifier: MIT */
/*
 * Tag matching headers (<infiniband/tm_types.h> of rdma-core 44): what a
 * tag-matching SRQ finds at the start of a message (TMH) and, for a
 * rendezvous, the remote buffer after it (RVH).  Big-endian on the wire.
 */
#ifndef _TM_TYPES_H
#define _TM_TYPES_H

#include <linux/types.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ibv_tmh_op {
	IBV_TMH_NO_TAG = 0,
	IBV_TMH_RNDV = 1,
	IBV_TMH_FIN = 2,
	IBV_TMH_EAGER = 3,
};

struct ibv_tmh {
	uint8_t opcode;		/* enum ibv_tmh_op */
	uint8_t reserved[3];	/* zero */
	__be32 app_ctx;		/* the application's, opaque */
	__be64 tag;
};

struct ibv_rvh {
	__be64 va;
	__be32 rkey;
	__be32 len;
};

#ifdef __cplusplus
}
#endif

#endif /* _TM_TYPES_H */
