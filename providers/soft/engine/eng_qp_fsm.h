/* SPDX-License-Identifier: MIT */
/*
 * QP state machine and attribute validation for the soft device: pure
 * logic, no I/O, no allocation.  The engine calls it before applying a
 * QP_MODIFY or QP_CREATE; nothing here changes any QP.
 *
 * Transitions and the attribute mask each one requires or permits follow
 * IBA vol 1 §10.3 and §11.2.1 (the QP state transition properties table)
 * and ibv_modify_qp(3), for RC, UC and UD.  Values keep their ibv_*
 * meanings (enum ibv_qp_state, ibv_qp_type, ibv_qp_attr_mask, ...).
 *
 * Errors: -EOPNOTSUPP for a QP type we do not implement (anything but RC,
 * UC, UD); -EINVAL for everything else the request gets wrong (illegal
 * transition, missing or foreign mask bit, out-of-range value).
 *
 * Choices where the spec leaves room (kept lenient where real drivers are):
 *  - Any state may go to RESET or ERR, RESET→ERR included (Linux's core
 *    table lacks RESET→ERR; the IBA state diagram allows it and it is
 *    harmless: nothing is outstanding in RESET).
 *  - Without IBV_QP_STATE the request is cur→cur, legal only where the
 *    table has that self-transition: RESET, INIT, RTS, SQD, ERR.
 *  - IBV_QP_CUR_STATE is permitted only where the table lists it (into
 *    RTS from RTR, RTS, SQD, SQE).  Its value must equal the QP's state,
 *    or both must be one of RTS/SQD/SQE: the QP may have moved between
 *    those on its own (send error, drain) since the consumer looked.  The
 *    table row used is always that of the QP's real state.
 *  - IBV_QP_ALT_PATH and IBV_QP_PATH_MIG_STATE are accepted where the
 *    table lists them, range-checked, then ignored (no APM; the device
 *    does not advertise IBV_DEVICE_AUTO_PATH_MIG).
 *  - IBV_QP_RATE_LIMIT is accepted where Linux permits it for raw packet
 *    QPs (RTR→RTS, RTS→RTS) with value 0 only: we do no pacing.
 *  - IBV_QP_CAP (resize) is never accepted.
 *  - qp_access_flags may carry any defined IBV_ACCESS_* bit (apps pass
 *    MR-style flags such as LOCAL_WRITE; drivers ignore them); only the
 *    three remote bits mean anything (ENG_QP_ACCESS_REMOTE).  Undefined
 *    bits are rejected.
 *  - The link layer is always Ethernet (RoCEv2): every address vector
 *    must carry a GRH (is_global = 1) with a valid sgid_index.
 *  - PSNs and dest_qp_num must fit in 24 bits (no silent masking).
 */
#ifndef ENG_QP_FSM_H
#define ENG_QP_FSM_H

#include <stdint.h>

#include "providers/soft/pv-soft-abi.h"

/* The qp_access_flags bits the engine acts on. */
#define ENG_QP_ACCESS_REMOTE	(0x2u | 0x4u | 0x8u)	/* IBV_ACCESS_REMOTE_{WRITE,READ,ATOMIC} */

struct eng_qp_fsm_in {
	uint32_t qp_type;		/* enum ibv_qp_type */
	uint32_t cur_state;		/* enum ibv_qp_state: the QP's real state */
	uint32_t attr_mask;		/* enum ibv_qp_attr_mask */
	const struct pv_ipc_qp_attr *attr; /* may be NULL only if attr_mask is 0 */
	uint8_t  phys_port_cnt;
	uint16_t pkey_tbl_len;
	uint32_t gid_tbl_len;
	uint32_t max_qp_rd_atom;	/* device max initiator depth */
	uint32_t max_dest_rd_atom;	/* device max responder depth */
};

/* Validates a modify request; 0, -EINVAL or -EOPNOTSUPP. */
int eng_qp_modify_check(const struct eng_qp_fsm_in *in);

/* The state the QP is in after a successful modify with this input:
 * attr->qp_state with IBV_QP_STATE, else cur_state. */
uint32_t eng_qp_next_state(const struct eng_qp_fsm_in *in);

/* Create-time capability check against device limits: 0, -EINVAL or
 * -EOPNOTSUPP.  A QP on an SRQ must come with its recv caps zeroed by the
 * caller.  Zero send (recv-only) or zero recv (send-only) queues are fine. */
int eng_qp_cap_check(const struct pv_ipc_qp_cap *req,
		    const struct pv_ipc_dev_attr *lim, uint32_t qp_type);

/* Fills in what the device grants for caps that passed eng_qp_cap_check:
 * work request counts round up to a power of two (capped at max_qp_wr),
 * SGE sizes are granted as asked, inline at least max_send_sge * 16 bytes
 * (the SGE room of a send WQE, capped by the device) when there is a send
 * queue, 0 stays 0, reserved is zeroed.  Every granted value is >= the requested one. */
void eng_qp_cap_grant(struct pv_ipc_qp_cap *cap,
		     const struct pv_ipc_dev_attr *lim);

/*
 * The transition table (eng_qp_masks.c), exposed for the engine's query
 * paths and for tests.  Returns 1 if the QP type is one we implement.
 */
int eng_qp_type_supported(uint32_t qp_type);

/* For a legal cur→next transition of a supported type: fills *req and
 * *opt (IBV_QP_STATE in neither) and returns 0; otherwise -EINVAL. */
int eng_qp_transition_masks(uint32_t qp_type, uint32_t cur, uint32_t next,
			   uint32_t *req, uint32_t *opt);

#endif /* ENG_QP_FSM_H */
