/* SPDX-License-Identifier: MIT */
/*
 * Building the message a state machine step asked for (act->send, see
 * eng_cm_sm.h) from the connection and its negotiated parameters, with
 * the kernel's formatting rules where a peer relies on them
 * (drivers/infiniband/core/cm.c, cm_format_*): RoCE paths carry
 * permissive LIDs and subnet_local = (hop_limit <= 1); a REJ of a REQ
 * names no local comm ID; a REJ "timeout" carries our CA GUID as its
 * ARI; replies reuse the transaction ID of what they answer (the
 * connection's tid).  Pure: no I/O.
 */
#ifndef ENG_CM_BUILD_H
#define ENG_CM_BUILD_H

#include <stdint.h>

#include "providers/soft/engine/eng_cm_msg.h"
#include "providers/soft/engine/eng_cm_sm.h"

/* What a connection negotiated, as the CM service keeps it. */
struct eng_cm_params {
	uint64_t service_id;
	uint64_t local_ca_guid;		/* our node GUID */
	uint32_t qkey;			/* SIDR_REP */
	uint32_t starting_psn;		/* our SQ PSN (REQ) / RQ... (REP) */
	uint16_t pkey;
	uint8_t  responder_resources;
	uint8_t  initiator_depth;
	uint8_t  local_cm_response_timeout;  /* 5 bits: how long we take */
	uint8_t  remote_cm_response_timeout; /* 5 bits: how long we wait */
	uint8_t  transport_type;	/* enum eng_cm_transport */
	uint8_t  ext_transport_type;	/* 3 bits: 1 XRC (with transport EXT) */
	uint8_t  xrc_tgt;		/* REP of an XRC target: its QPN in the
					 * EECN field, SRQ set (IBA 14.6.3.2) */
	uint8_t  retry_count;		/* 3 bits */
	uint8_t  rnr_retry_count;	/* 3 bits */
	uint8_t  path_mtu;		/* 4 bits, 1..5 */
	uint8_t  srq;
	uint8_t  target_ack_delay;	/* 5 bits (REP) */
	uint8_t  service_timeout;	/* 5 bits (MRA) */
	uint8_t  sidr_status;		/* enum eng_cm_sidr_status (SIDR_REP) */
	struct eng_cm_path path;	/* the primary path (REQ) */
	const uint8_t *private_data;	/* for this message; REQ/SIDR_REQ: the
					 * RDMA CM header first (eng_cm_pdata) */
	uint8_t  private_data_len;
};

/* Fill *out with the act->send message of c.  -EINVAL for no or an
 * unknown act->send, or private data longer than the message's field;
 * out is then unusable.  Values too wide for their fields are caught by
 * eng_cm_mad_encode. */
int eng_cm_build(const struct eng_cm_conn *c, const struct eng_cm_act *act,
		 const struct eng_cm_params *p, struct eng_cm_msg *out);

#endif /* ENG_CM_BUILD_H */
