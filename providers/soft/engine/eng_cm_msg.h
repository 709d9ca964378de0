/* SPDX-License-Identifier: MIT */
/*
 * The IB CM's messages, decoded: what eng_cm_mad.c encodes into and
 * decodes from a 256-byte CM MAD (management class 0x07, class version 2),
 * and what the engine's CM service (same-node exchange and QP1 on the
 * wire) passes between its state machines (eng_cm_sm.c).  Pure data, no
 * functions.
 *
 * Layouts: IBA vol 1 rel 1.4 §12.6 (REQ 12.6.5, MRA 12.6.6, REJ 12.6.7,
 * REP 12.6.8, RTU 12.6.9, DREQ 12.6.10, DREP 12.6.11, SIDR_REQ 12.6.12,
 * SIDR_REP 12.6.13; LAP and APR as the kernel's cm_msgs.h lays them
 * out), ClassPortInfo 13.4.8.1, the MAD header 13.4.2.
 * Every field is held in host order in the narrowest C type that fits
 * it; bit fields narrower than their type are range-checked by the
 * encoder (-EINVAL on a value that does not fit) and masked by the
 * decoder.  Names follow the spec's (local_ = the sender's side).
 *
 * On RoCEv2 (IBA annex A17 §A17.4): LIDs are unused (the kernel writes
 * 0xFFFF, permissive, and ignores them on receive), the path's GIDs are
 * the IP addresses' GIDs, flow label / traffic class / hop limit are the
 * GRH (= IPv6 header or IPv4 TOS/TTL) values, SL is 0 and subnet_local
 * is 0 when hop_limit > 1.
 *
 * Private data has no length on the wire: each message's field is fixed
 * (ENG_CM_*_PDATA_SIZE) and zero-padded.  On encode, private_data_len
 * bytes are copied and the rest is zeroed (-EINVAL if it exceeds the
 * field); a decoded message always has private_data_len = the full field
 * size, as the kernel delivers it.
 */
#ifndef ENG_CM_MSG_H
#define ENG_CM_MSG_H

#include <stdint.h>

/* MAD framing (IBA 13.4.2): every CM MAD is exactly 256 bytes. */
#define ENG_CM_MAD_SIZE		256u
#define ENG_CM_MAD_HDR_SIZE	24u
#define ENG_CM_MAD_DATA_SIZE	(ENG_CM_MAD_SIZE - ENG_CM_MAD_HDR_SIZE) /* 232 */

#define ENG_CM_BASE_VERSION	1u
#define ENG_CM_MGMT_CLASS	0x07u	/* Communication Management */
#define ENG_CM_CLASS_VERSION	2u

/* Methods (IBA table 103; R bit = 0x80). */
enum eng_cm_method {
	ENG_CM_METHOD_GET	= 0x01,
	ENG_CM_METHOD_SET	= 0x02,
	ENG_CM_METHOD_SEND	= 0x03,
	ENG_CM_METHOD_GET_RESP	= 0x81,
};

/* Attribute IDs (IBA table 104 / 107). */
enum eng_cm_attr {
	ENG_CM_ATTR_CLASS_PORT_INFO = 0x0001,
	ENG_CM_ATTR_REQ		= 0x0010,
	ENG_CM_ATTR_MRA		= 0x0011,
	ENG_CM_ATTR_REJ		= 0x0012,
	ENG_CM_ATTR_REP		= 0x0013,
	ENG_CM_ATTR_RTU		= 0x0014,
	ENG_CM_ATTR_DREQ	= 0x0015,
	ENG_CM_ATTR_DREP	= 0x0016,
	ENG_CM_ATTR_SIDR_REQ	= 0x0017,
	ENG_CM_ATTR_SIDR_REP	= 0x0018,
	ENG_CM_ATTR_LAP		= 0x0019,	/* decoded; answered "unsupported" */
	ENG_CM_ATTR_APR		= 0x001a,	/* we send it; one received is dropped */
};

/* MAD status (IBA table 101), what we set in a GetResp. */
#define ENG_CM_MAD_STATUS_OK			0x0000u
#define ENG_CM_MAD_STATUS_BAD_VERSION		0x0004u	/* class version */
#define ENG_CM_MAD_STATUS_UNSUP_METHOD		0x0008u
#define ENG_CM_MAD_STATUS_UNSUP_METHOD_ATTR	0x000cu
#define ENG_CM_MAD_STATUS_INVALID_FIELD		0x001cu

/* Private-data field sizes (fixed on the wire). */
#define ENG_CM_REQ_PDATA_SIZE		92u
#define ENG_CM_MRA_PDATA_SIZE		222u
#define ENG_CM_REJ_PDATA_SIZE		148u
#define ENG_CM_REP_PDATA_SIZE		196u
#define ENG_CM_RTU_PDATA_SIZE		224u
#define ENG_CM_DREQ_PDATA_SIZE		220u
#define ENG_CM_DREP_PDATA_SIZE		224u
#define ENG_CM_SIDR_REQ_PDATA_SIZE	216u
#define ENG_CM_SIDR_REP_PDATA_SIZE	136u
#define ENG_CM_REJ_ARI_SIZE		72u
#define ENG_CM_LAP_PDATA_SIZE		168u
#define ENG_CM_APR_PDATA_SIZE		148u
#define ENG_CM_APR_INFO_SIZE		72u
#define ENG_CM_SIDR_REP_INFO_SIZE	72u	/* a ClassPortInfo */

/* REQ transport service type (2 bits) and ext. transport (3 bits). */
enum eng_cm_transport {
	ENG_CM_TRANSPORT_RC	= 0,
	ENG_CM_TRANSPORT_UC	= 1,
	ENG_CM_TRANSPORT_RD	= 2,
	ENG_CM_TRANSPORT_EXT	= 3,	/* see ext_transport_type: 1 = XRC */
};
#define ENG_CM_EXT_TRANSPORT_XRC	1u

/* REJ "message REJected" / MRA "message MRAed" (2 bits). */
enum eng_cm_msg_ref {
	ENG_CM_MSG_REF_REQ	= 0,
	ENG_CM_MSG_REF_REP	= 1,
	ENG_CM_MSG_REF_OTHER	= 2,	/* REJ: other; MRA: LAP */
};

/* REJ reasons (IBA table 112; the kernel's enum ib_cm_rej_reason). */
enum eng_cm_rej_reason {
	ENG_CM_REJ_NO_QP			= 1,
	ENG_CM_REJ_NO_EEC			= 2,
	ENG_CM_REJ_NO_RESOURCES			= 3,
	ENG_CM_REJ_TIMEOUT			= 4,
	ENG_CM_REJ_UNSUPPORTED			= 5,
	ENG_CM_REJ_INVALID_COMM_ID		= 6,
	ENG_CM_REJ_INVALID_COMM_INSTANCE	= 7,
	ENG_CM_REJ_INVALID_SERVICE_ID		= 8,
	ENG_CM_REJ_INVALID_TRANSPORT_TYPE	= 9,
	ENG_CM_REJ_STALE_CONN			= 10,
	ENG_CM_REJ_RDC_NOT_EXIST		= 11,
	ENG_CM_REJ_INVALID_GID			= 12,
	ENG_CM_REJ_INVALID_LID			= 13,
	ENG_CM_REJ_INVALID_SL			= 14,
	ENG_CM_REJ_INVALID_TRAFFIC_CLASS	= 15,
	ENG_CM_REJ_INVALID_HOP_LIMIT		= 16,
	ENG_CM_REJ_INVALID_PACKET_RATE		= 17,
	ENG_CM_REJ_INVALID_ALT_GID		= 18,
	ENG_CM_REJ_INVALID_ALT_LID		= 19,
	ENG_CM_REJ_INVALID_ALT_SL		= 20,
	ENG_CM_REJ_INVALID_ALT_TRAFFIC_CLASS	= 21,
	ENG_CM_REJ_INVALID_ALT_HOP_LIMIT	= 22,
	ENG_CM_REJ_INVALID_ALT_PACKET_RATE	= 23,
	ENG_CM_REJ_PORT_CM_REDIRECT		= 24,
	ENG_CM_REJ_PORT_REDIRECT		= 25,
	ENG_CM_REJ_INVALID_MTU			= 26,
	ENG_CM_REJ_INSUFFICIENT_RESP_RESOURCES	= 27,
	ENG_CM_REJ_CONSUMER_DEFINED		= 28,	/* rdma_reject() */
	ENG_CM_REJ_INVALID_RNR_RETRY		= 29,
	ENG_CM_REJ_DUPLICATE_LOCAL_COMM_ID	= 30,
	ENG_CM_REJ_INVALID_CLASS_VERSION	= 31,
	ENG_CM_REJ_INVALID_FLOW_LABEL		= 32,
	ENG_CM_REJ_INVALID_ALT_FLOW_LABEL	= 33,
	ENG_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED	= 35,
};

/* SIDR_REP status (IBA table 116). */
enum eng_cm_sidr_status {
	ENG_CM_SIDR_SUCCESS		= 0,
	ENG_CM_SIDR_UNSUPPORTED		= 1,	/* no such service ID */
	ENG_CM_SIDR_REJECT		= 2,	/* provider rejected */
	ENG_CM_SIDR_NO_QP		= 3,
	ENG_CM_SIDR_REDIRECT		= 4,
	ENG_CM_SIDR_UNSUPPORTED_VERSION	= 5,
};

/* APR AP status (the IBA's values, the kernel's enum ib_cm_apr_status).
 * We load no alternate path (no APM on a soft RoCE device): every LAP
 * of an established connection is answered with UNSUPPORTED. */
enum eng_cm_apr_status {
	ENG_CM_APR_SUCCESS		= 0,
	ENG_CM_APR_INVALID_COMM_ID	= 1,
	ENG_CM_APR_UNSUPPORTED		= 2,
	ENG_CM_APR_REJECT		= 3,
};

/* The MAD common header (IBA 13.4.2), host order. */
struct eng_cm_mad_hdr {
	uint8_t  base_version;		/* 1 */
	uint8_t  mgmt_class;		/* 0x07 */
	uint8_t  class_version;		/* 2 */
	uint8_t  method;		/* enum eng_cm_method (R bit included) */
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;			/* transaction ID, echoed by replies */
	uint16_t attr_id;		/* enum eng_cm_attr */
	uint32_t attr_mod;
};

/* A REQ's path (primary or alternate): IBA 12.6.5 bytes 52..95 / 96..139. */
struct eng_cm_path {
	uint16_t local_lid;		/* 0xffff on RoCE */
	uint16_t remote_lid;
	uint8_t  local_gid[16];		/* the active side's GID */
	uint8_t  remote_gid[16];	/* the passive side's GID */
	uint32_t flow_label;		/* 20 bits */
	uint8_t  packet_rate;		/* 6 bits, IBA rate encoding */
	uint8_t  traffic_class;
	uint8_t  hop_limit;
	uint8_t  sl;			/* 4 bits */
	uint8_t  subnet_local;		/* 1 bit */
	uint8_t  local_ack_timeout;	/* 5 bits: 4.096 us * 2^n */
};

struct eng_cm_req {
	uint32_t local_comm_id;
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;		/* UD only; 0 for RC */
	uint32_t local_qpn;		/* 24 bits */
	uint8_t  responder_resources;	/* max RDMA read/atomic we accept */
	uint32_t local_eecn;		/* 24 bits, RD only */
	uint8_t  initiator_depth;	/* max RDMA read/atomic we issue */
	uint32_t remote_eecn;		/* 24 bits, RD only */
	uint8_t  remote_cm_response_timeout; /* 5 bits: how long to wait for the REP */
	uint8_t  transport_type;	/* 2 bits, enum eng_cm_transport */
	uint8_t  e2e_flow_control;	/* 1 bit */
	uint32_t starting_psn;		/* 24 bits */
	uint8_t  local_cm_response_timeout; /* 5 bits */
	uint8_t  retry_count;		/* 3 bits, transport retries */
	uint16_t pkey;
	uint8_t  path_mtu;		/* 4 bits, IBA MTU enum (1 = 256 .. 5 = 4096) */
	uint8_t  rdc_exists;		/* 1 bit */
	uint8_t  rnr_retry_count;	/* 3 bits */
	uint8_t  max_cm_retries;	/* 4 bits: REQ retransmissions */
	uint8_t  srq;			/* 1 bit */
	uint8_t  ext_transport_type;	/* 3 bits */
	uint8_t  has_alternate;		/* decoded: alternate path non-zero */
	struct eng_cm_path primary;
	struct eng_cm_path alternate;	/* encoded as zeros unless has_alternate */
	uint8_t  private_data_len;
	uint8_t  private_data[ENG_CM_REQ_PDATA_SIZE];
};

struct eng_cm_mra {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t  msg_mraed;		/* 2 bits, enum eng_cm_msg_ref */
	uint8_t  service_timeout;	/* 5 bits: extra time the sender needs */
	uint8_t  private_data_len;
	uint8_t  private_data[ENG_CM_MRA_PDATA_SIZE];
};

struct eng_cm_rej {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;	/* 0 if the REQ was never matched */
	uint8_t  msg_rejected;		/* 2 bits, enum eng_cm_msg_ref */
	uint8_t  ari_len;		/* 7 bits, <= ENG_CM_REJ_ARI_SIZE */
	uint16_t reason;		/* enum eng_cm_rej_reason */
	uint8_t  ari[ENG_CM_REJ_ARI_SIZE];
	uint8_t  private_data_len;
	uint8_t  private_data[ENG_CM_REJ_PDATA_SIZE];
};

struct eng_cm_rep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;		/* 24 bits */
	uint32_t local_eecn;		/* 24 bits */
	uint32_t starting_psn;		/* 24 bits */
	uint8_t  responder_resources;
	uint8_t  initiator_depth;
	uint8_t  target_ack_delay;	/* 5 bits */
	uint8_t  failover_accepted;	/* 2 bits */
	uint8_t  e2e_flow_control;	/* 1 bit */
	uint8_t  rnr_retry_count;	/* 3 bits */
	uint8_t  srq;			/* 1 bit */
	uint64_t local_ca_guid;
	uint8_t  private_data_len;
	uint8_t  private_data[ENG_CM_REP_PDATA_SIZE];
};

struct eng_cm_rtu {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t  private_data_len;
	uint8_t  private_data[ENG_CM_RTU_PDATA_SIZE];
};

struct eng_cm_dreq {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn;		/* 24 bits: the receiver's QPN */
	uint8_t  private_data_len;
	uint8_t  private_data[ENG_CM_DREQ_PDATA_SIZE];
};

struct eng_cm_drep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t  private_data_len;
	uint8_t  private_data[ENG_CM_DREP_PDATA_SIZE];
};

struct eng_cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint64_t service_id;
	uint8_t  private_data_len;
	uint8_t  private_data[ENG_CM_SIDR_REQ_PDATA_SIZE];
};

struct eng_cm_sidr_rep {
	uint32_t request_id;
	uint8_t  status;		/* enum eng_cm_sidr_status */
	uint8_t  info_len;		/* <= ENG_CM_SIDR_REP_INFO_SIZE */
	uint32_t qpn;			/* 24 bits */
	uint64_t service_id;
	uint32_t qkey;
	uint8_t  info[ENG_CM_SIDR_REP_INFO_SIZE];
	uint8_t  private_data_len;
	uint8_t  private_data[ENG_CM_SIDR_REP_PDATA_SIZE];
};

/* LAP (Load Alternate Path, IBA ch. 12): the sender asks us to load an
 * alternate path.  The path's fields as the spec lays them out. */
struct eng_cm_lap {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn;		/* 24 bits: the receiver's QPN/EECN */
	uint8_t  remote_cm_response_timeout; /* 5 bits */
	uint16_t alt_local_lid;
	uint16_t alt_remote_lid;
	uint8_t  alt_local_gid[16];
	uint8_t  alt_remote_gid[16];
	uint32_t alt_flow_label;	/* 20 bits */
	uint8_t  alt_traffic_class;
	uint8_t  alt_hop_limit;
	uint8_t  alt_packet_rate;	/* 6 bits */
	uint8_t  alt_sl;		/* 4 bits */
	uint8_t  alt_subnet_local;	/* 1 bit */
	uint8_t  alt_local_ack_timeout;	/* 5 bits */
	uint8_t  private_data_len;
	uint8_t  private_data[ENG_CM_LAP_PDATA_SIZE];
};

/* APR (Alternate Path Response): the answer to a LAP. */
struct eng_cm_apr {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t  info_len;		/* <= ENG_CM_APR_INFO_SIZE */
	uint8_t  ap_status;		/* enum eng_cm_apr_status */
	uint8_t  info[ENG_CM_APR_INFO_SIZE];
	uint8_t  private_data_len;
	uint8_t  private_data[ENG_CM_APR_PDATA_SIZE];
};

/* ClassPortInfo (IBA 13.4.8.1), 72 bytes: what a Get on the CM answers. */
struct eng_cm_class_port_info {
	uint8_t  base_version;
	uint8_t  class_version;
	uint16_t capability_mask;
	uint32_t capability_mask2;	/* 27 bits */
	uint8_t  resp_time_value;	/* 5 bits */
	uint8_t  redirect_gid[16];
	uint8_t  redirect_tc;
	uint8_t  redirect_sl;		/* 4 bits */
	uint32_t redirect_fl;		/* 20 bits */
	uint16_t redirect_lid;
	uint16_t redirect_pkey;
	uint32_t redirect_qp;		/* 24 bits */
	uint32_t redirect_qkey;
	uint8_t  trap_gid[16];
	uint8_t  trap_tc;
	uint8_t  trap_sl;		/* 4 bits */
	uint32_t trap_fl;		/* 20 bits */
	uint16_t trap_lid;
	uint16_t trap_pkey;
	uint8_t  trap_hl;
	uint32_t trap_qp;		/* 24 bits */
	uint32_t trap_qkey;
};

/* One decoded CM MAD: hdr.attr_id says which member of u is valid. */
struct eng_cm_msg {
	struct eng_cm_mad_hdr hdr;
	union {
		struct eng_cm_req req;
		struct eng_cm_mra mra;
		struct eng_cm_rej rej;
		struct eng_cm_rep rep;
		struct eng_cm_rtu rtu;
		struct eng_cm_dreq dreq;
		struct eng_cm_drep drep;
		struct eng_cm_sidr_req sidr_req;
		struct eng_cm_sidr_rep sidr_rep;
		struct eng_cm_lap lap;
		struct eng_cm_apr apr;
		struct eng_cm_class_port_info cpi;
	} u;
};

#endif /* ENG_CM_MSG_H */
