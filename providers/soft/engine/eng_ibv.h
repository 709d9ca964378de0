/* SPDX-License-Identifier: MIT */
/*
 * The libibverbs enum values the engine uses, by value (the IPC carries
 * ibv_* numbers; the engine does not include verbs.h so it builds without
 * the library).  Values are those of the libibverbs 1.x ABI.
 */
#ifndef ENG_IBV_H
#define ENG_IBV_H

/* enum ibv_event_type */
#define ENG_EV_CQ_ERR		0
#define ENG_EV_QP_FATAL		1
#define ENG_EV_DEVICE_FATAL	8
#define ENG_EV_PORT_ACTIVE	9
#define ENG_EV_PORT_ERR		10
#define ENG_EV_SRQ_LIMIT_REACHED	15
#define ENG_EV_QP_LAST_WQE_REACHED	16
#define ENG_EV_GID_CHANGE	18

/* enum ibv_qp_type */
#define ENG_QPT_RC		2
#define ENG_QPT_UC		3
#define ENG_QPT_UD		4

/* enum ibv_qp_state */
#define ENG_QPS_RESET		0
#define ENG_QPS_INIT		1
#define ENG_QPS_RTR		2
#define ENG_QPS_RTS		3
#define ENG_QPS_ERR		6

/* enum ibv_qp_attr_mask */
#define ENG_QP_STATE			(1u << 0)
#define ENG_QP_CUR_STATE		(1u << 1)
#define ENG_QP_EN_SQD_ASYNC_NOTIFY	(1u << 2)
#define ENG_QP_ACCESS_FLAGS		(1u << 3)
#define ENG_QP_PKEY_INDEX		(1u << 4)
#define ENG_QP_PORT			(1u << 5)
#define ENG_QP_QKEY			(1u << 6)
#define ENG_QP_AV			(1u << 7)
#define ENG_QP_PATH_MTU			(1u << 8)
#define ENG_QP_TIMEOUT			(1u << 9)
#define ENG_QP_RETRY_CNT		(1u << 10)
#define ENG_QP_RNR_RETRY		(1u << 11)
#define ENG_QP_RQ_PSN			(1u << 12)
#define ENG_QP_MAX_QP_RD_ATOMIC		(1u << 13)
#define ENG_QP_ALT_PATH			(1u << 14)
#define ENG_QP_MIN_RNR_TIMER		(1u << 15)
#define ENG_QP_SQ_PSN			(1u << 16)
#define ENG_QP_MAX_DEST_RD_ATOMIC	(1u << 17)
#define ENG_QP_PATH_MIG_STATE		(1u << 18)
#define ENG_QP_CAP			(1u << 19)
#define ENG_QP_DEST_QPN			(1u << 20)
#define ENG_QP_RATE_LIMIT		(1u << 25)

/* enum ibv_srq_attr_mask */
#define ENG_SRQ_MAX_WR		(1u << 0)
#define ENG_SRQ_LIMIT		(1u << 1)

/* enum ibv_access_flags */
#define ENG_ACCESS_LOCAL_WRITE		(1u << 0)
#define ENG_ACCESS_REMOTE_WRITE		(1u << 1)
#define ENG_ACCESS_REMOTE_READ		(1u << 2)
#define ENG_ACCESS_REMOTE_ATOMIC	(1u << 3)
#define ENG_ACCESS_MW_BIND		(1u << 4)
#define ENG_ACCESS_ZERO_BASED		(1u << 5)
#define ENG_ACCESS_KNOWN		0xffu	/* bits 0..7 */
#define ENG_ACCESS_OPTIONAL		0x3ff00000u /* may be ignored */

/* enum ibv_device_cap_flags */
#define ENG_DEVICE_RESIZE_MAX_WR	(1u << 0)
#define ENG_DEVICE_CURR_QP_STATE_MOD	(1u << 7)
#define ENG_DEVICE_PORT_ACTIVE_EVENT	(1u << 10)
#define ENG_DEVICE_SYS_IMAGE_GUID	(1u << 11)
#define ENG_DEVICE_RC_RNR_NAK_GEN	(1u << 12)
#define ENG_DEVICE_SRQ_RESIZE		(1u << 13)
#define ENG_DEVICE_N_NOTIFY_CQ		(1u << 14)

/* enum ibv_port_cap_flags */
#define ENG_PORT_CM_SUP			(1u << 16)
#define ENG_PORT_IP_BASED_GIDS		(1u << 26)

#define ENG_ATOMIC_HCA		1	/* enum ibv_atomic_cap */
#define ENG_LINK_LAYER_ETHERNET	2
#define ENG_WIDTH_4X		2	/* ibv_port_attr.active_width */
#define ENG_SPEED_EDR		32	/* ibv_port_attr.active_speed */
#define ENG_PHYS_LINK_UP	5
#define ENG_PHYS_DISABLED	3

#endif /* ENG_IBV_H */
