/* SPDX-License-Identifier: MIT */
/*
 * IPC ABI between the soft provider (inside applications), the tools
 * (pvctl, the CNI plugin) and the podverbsd engine.
 *
 * Transport: AF_UNIX SOCK_SEQPACKET, one message per datagram.  Every
 * message is a struct pv_msg_hdr (common/pv-ipc-abi.h) followed by
 * hdr.len payload bytes; the ops and their payloads are this file's.  File
 * descriptors (async event socket, completion channel socket, later the
 * memfd rings) travel as SCM_RIGHTS ancillary data on replies.
 *
 * Rules: fixed-width fields only, host byte order (both ends are on one
 * node), every struct padded explicitly and size-checked below, reserved
 * fields are zero on send and ignored on receive.  A reply carries the
 * request's op and seq; status is 0 or a negative errno.  Requests the
 * engine does not know get -EOPNOTSUPP, malformed ones -EINVAL (and a
 * counter); neither closes the connection.
 *
 * Connection model:
 *  - ibv_get_device_list: connect, HELLO, DEV_LIST (paged: again from
 *    the next id while the reply says PV_LIST_MORE), close.
 *  - ibv_open_device: connect, HELLO, CTX_OPEN; the reply passes one fd,
 *    the context's async event socket (becomes ibv_context.async_fd).  The
 *    engine pushes struct pv_ipc_event datagrams on it.
 *  - ibv_create_comp_channel: CHANNEL_CREATE passes one fd; the engine
 *    pushes struct pv_ipc_cq_event datagrams on it.
 *  - All objects are owned by the connection that created them and are
 *    freed when it closes; but an XRC_RECV QP other connections opened
 *    (QP_OPEN) passes to one of them and lives while any handle is left.
 */
#ifndef PV_SOFT_ABI_H
#define PV_SOFT_ABI_H

#include <stdint.h>

/* The framing (header, magic, version, sizes, fd count, socket path). */
#include "common/pv-ipc-abi.h"

#define PV_NAME_MAX		64		/* device names, incl. NUL */
#define PV_IFNAME_MAX		16		/* IFNAMSIZ */
#define PV_PATH_MAX		256
#define PV_GID_TABLE_MAX	16
#define PV_FW_VER_MAX		64

/* Identifies the soft device to applications and tools (perftest keys on
 * these); 0x1de5 is not a registered PCI vendor, chosen so nothing mistakes
 * us for a vendor's card. */
#define PV_VENDOR_ID		0x1de5
#define PV_VENDOR_PART_ID	0x0001

enum pv_ipc_op {
	PV_OP_HELLO		= 1,
	PV_OP_DEV_LIST		= 2,
	PV_OP_DEV_QUERY		= 3,
	PV_OP_PORT_QUERY	= 4,
	PV_OP_GID_QUERY		= 5,
	PV_OP_PKEY_QUERY	= 6,
	PV_OP_CTX_OPEN		= 7,
	PV_OP_CHANNEL_CREATE	= 8,
	PV_OP_CHANNEL_DESTROY	= 9,

	PV_OP_PD_ALLOC		= 16,
	PV_OP_PD_DEALLOC	= 17,
	PV_OP_MR_REG		= 18,
	PV_OP_MR_DEREG		= 19,
	PV_OP_CQ_CREATE		= 20,
	PV_OP_CQ_RESIZE		= 21,
	PV_OP_CQ_DESTROY	= 22,
	PV_OP_CQ_REQ_NOTIFY	= 23,
	PV_OP_QP_CREATE		= 24,
	PV_OP_QP_MODIFY		= 25,
	PV_OP_QP_QUERY		= 26,
	PV_OP_QP_DESTROY	= 27,
	PV_OP_SRQ_CREATE	= 28,
	PV_OP_SRQ_MODIFY	= 29,
	PV_OP_SRQ_QUERY		= 30,
	PV_OP_SRQ_DESTROY	= 31,
	PV_OP_AH_CREATE		= 32,
	PV_OP_AH_DESTROY	= 33,
	PV_OP_QP_MCAST_ATTACH	= 34,	/* pv_ipc_qp_mcast */
	PV_OP_QP_MCAST_DETACH	= 35,	/* pv_ipc_qp_mcast */
	PV_OP_MR_REREG		= 36,	/* pv_ipc_mr_rereg -> mr_reg_resp */
	PV_OP_MW_ALLOC		= 37,	/* pv_ipc_mw_alloc -> pv_ipc_mw_resp */
	PV_OP_MW_DEALLOC	= 38,	/* pv_ipc_handle */
	/* XRC domains (40..43 are the ring ops of pv-soft-ring-abi.h). */
	PV_OP_XRCD		= 44,	/* pv_ipc_xrcd (+ fd) -> pv_ipc_handle */
	PV_OP_QP_OPEN		= 45,	/* pv_ipc_qp_open -> pv_ipc_qp_open_resp */

	/* Administrative: root in the engine's own network namespace only. */
	PV_OP_ADM_DEV_ADD	= 128,
	PV_OP_ADM_DEV_DEL	= 129,
	PV_OP_ADM_DEV_LIST	= 130,
	PV_OP_ADM_OBJ_LIST	= 131,
	PV_OP_ADM_STATS		= 132,
	PV_OP_ADM_MR_REPORT	= 140,	/* pv_ipc_dev_ref -> adm_mr_report */
	PV_OP_ADM_HWC		= 135,	/* pv_ipc_adm_hwc_req -> _hwc_list */

	PV_OP_MAX		= 255,
};

/* HELLO: request and reply. */
struct pv_ipc_hello {
	uint32_t abi_version;	/* PV_IPC_VERSION of the sender */
	uint32_t flags;
	uint32_t client_id;	/* reply: engine's id of this connection */
	uint32_t reserved[5];
};
_Static_assert(sizeof(struct pv_ipc_hello) == 32, "pv_ipc_hello size");
/* HELLO flags.  Request: one fd comes with it, the sender's own
 * /proc/thread-self/ns/net, which decides the devices the connection
 * sees (without it: none).  Reply: the engine took it. */
#define PV_HELLO_NETNS		0x1u

enum pv_port_state {		/* same values as enum ibv_port_state */
	PV_PORT_DOWN		= 1,
	PV_PORT_INIT		= 2,
	PV_PORT_ARMED		= 3,
	PV_PORT_ACTIVE		= 4,
};

/* One device as listed to a client (DEV_LIST reply: pv_ipc_dev_list). */
struct pv_ipc_dev_info {
	uint32_t dev_id;	/* engine-wide, stable while the device lives */
	uint32_t flags;
	uint64_t node_guid;	/* network byte order in memory (EUI-64 from
				 * the MAC), i.e. already what ibv_*'s __be64
				 * fields hold: copy, do not htobe64() */
	char     name[PV_NAME_MAX];
	char     ifname[PV_IFNAME_MAX];
	uint16_t pkey;
	uint8_t  port_state;	/* enum pv_port_state */
	uint8_t  wire_state;	/* PV_WIRE_*: its UDP 4791 sockets (0 from
				 * engines before them) */
	uint32_t netdev_mtu;	/* port 1: the interface's MTU, bytes */
	uint32_t active_mtu;	/* port 1: enum ibv_mtu */
	uint32_t gid_conflicts;	/* the interface's GIDs left out of the
				 * table: another device owns them */
};
_Static_assert(sizeof(struct pv_ipc_dev_info) == 112, "pv_ipc_dev_info size");
/* pv_ipc_dev_info.wire_state bits: a socket bound on the device's IPv4
 * (IPv6) GID address, or its bind failed (the device then serves
 * same-node traffic only). */
#define PV_WIRE_V4_BOUND	0x01u
#define PV_WIRE_V6_BOUND	0x02u
#define PV_WIRE_V4_FAILED	0x04u
#define PV_WIRE_V6_FAILED	0x08u

struct pv_ipc_dev_list {
	uint32_t count;
	uint32_t flags;		/* PV_LIST_MORE (0 from engines before
				 * paging: the list was whole) */
	struct pv_ipc_dev_info dev[];	/* count entries, by rising dev_id */
};
_Static_assert(sizeof(struct pv_ipc_dev_list) == 8, "pv_ipc_dev_list size");

/*
 * DEV_LIST and ADM_DEV_LIST request, optional: an empty one asks for the
 * first page, which is all an engine before paging answers (and all that
 * exists while the devices fit one reply).  A page lists the devices with
 * dev_id >= cursor in rising id order, at most `max` of them (0, or more
 * than fit: as many as fit one reply).  The next page starts at the last
 * listed dev_id + 1, so a device added or removed between pages moves no
 * other one; one added behind the cursor shows up next time.
 */
struct pv_ipc_list_req {
	uint32_t cursor;	/* first dev_id wanted; 0 = from the start */
	uint32_t max;		/* entries wanted at most; 0 = as many as fit */
	uint32_t reserved[2];
};
_Static_assert(sizeof(struct pv_ipc_list_req) == 16, "pv_ipc_list_req size");
/* pv_ipc_dev_list.flags: devices past the last one listed exist. */
#define PV_LIST_MORE		0x1u

/* DEV_QUERY, PORT_QUERY, GID_QUERY, PKEY_QUERY, CTX_OPEN request. */
struct pv_ipc_dev_ref {
	uint32_t dev_id;
	uint8_t  port;		/* 1-based where it matters */
	uint8_t  reserved0[3];
	uint32_t index;		/* PKEY_QUERY */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_dev_ref) == 16, "pv_ipc_dev_ref size");

/* DEV_QUERY reply: what ibv_query_device reports. */
struct pv_ipc_dev_attr {
	uint64_t node_guid;	/* network byte order, as in dev_info */
	uint64_t sys_image_guid;	/* network byte order */
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	uint32_t device_cap_flags;
	uint32_t max_qp;
	uint32_t max_qp_wr;
	uint32_t max_sge;
	uint32_t max_sge_rd;
	uint32_t max_cq;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_qp_rd_atom;
	uint32_t max_qp_init_rd_atom;
	uint32_t max_srq;
	uint32_t max_srq_wr;
	uint32_t max_srq_sge;
	uint32_t max_ah;
	uint32_t max_pkeys;
	uint32_t atomic_cap;	/* enum ibv_atomic_cap */
	uint32_t max_inline_data;
	uint32_t phys_port_cnt;
	char     fw_ver[PV_FW_VER_MAX];
	uint32_t max_mw;	/* 0 from engines without memory windows */
	/* Multicast bounds (0 from older engines): groups per device, QPs
	 * per group, attachments per device. */
	uint32_t max_mcast_grp;
	uint32_t max_mcast_qp_attach;
	uint32_t max_total_mcast_qp_attach;
	uint32_t reserved[4];
};
_Static_assert(sizeof(struct pv_ipc_dev_attr) == 216, "pv_ipc_dev_attr size");

/* PORT_QUERY reply. */
struct pv_ipc_port_attr {
	uint32_t state;		/* enum pv_port_state */
	uint32_t max_mtu;	/* enum ibv_mtu */
	uint32_t active_mtu;	/* enum ibv_mtu */
	uint32_t netdev_mtu;	/* bytes, the interface's MTU */
	uint32_t gid_tbl_len;
	uint32_t port_cap_flags;
	uint32_t max_msg_sz;
	uint32_t pkey_tbl_len;
	uint8_t  phys_state;	/* 5 = LinkUp, 3 = Disabled */
	uint8_t  active_width;
	uint8_t  active_speed;
	uint8_t  link_layer;	/* IBV_LINK_LAYER_ETHERNET */
	uint32_t reserved[7];
};
_Static_assert(sizeof(struct pv_ipc_port_attr) == 64, "pv_ipc_port_attr size");

enum pv_gid_type {		/* same values as enum ibv_gid_type */
	PV_GID_TYPE_IB		= 0,
	PV_GID_TYPE_ROCE_V1	= 1,
	PV_GID_TYPE_ROCE_V2	= 2,
};

struct pv_ipc_gid_entry {
	uint8_t  gid[16];
	uint32_t gid_type;	/* enum pv_gid_type */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_gid_entry) == 24, "pv_ipc_gid_entry size");

/* GID_QUERY reply: the whole, dense table of one port. */
struct pv_ipc_gid_table {
	uint32_t count;
	uint32_t reserved;
	struct pv_ipc_gid_entry gid[PV_GID_TABLE_MAX];
};
_Static_assert(sizeof(struct pv_ipc_gid_table) == 8 + 24 * PV_GID_TABLE_MAX,
	       "pv_ipc_gid_table size");

/* PKEY_QUERY reply. */
struct pv_ipc_pkey {
	uint16_t pkey;
	uint16_t reserved0;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_pkey) == 8, "pv_ipc_pkey size");

/* Replies that create something: CTX_OPEN, CHANNEL_CREATE, PD_ALLOC,
 * AH_CREATE; also the request of every *_DESTROY / DEALLOC / DEREG. */
struct pv_ipc_handle {
	uint32_t handle;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_handle) == 8, "pv_ipc_handle size");

/* ibv_attach_mcast / ibv_detach_mcast: a UD QP of this connection and a
 * multicast GID (ff00::/8, or ::ffff:224.0.0.0/100, RoCEv2's IPv4 group
 * mapping); the LID is kept for symmetry and ignored (RoCE has none). */
struct pv_ipc_qp_mcast {
	uint32_t qp_handle;
	uint16_t lid;
	uint16_t reserved;
	uint8_t  gid[16];
};
_Static_assert(sizeof(struct pv_ipc_qp_mcast) == 24, "pv_ipc_qp_mcast size");

/* Async events pushed on the context's event socket (ibv_context.async_fd). */
struct pv_ipc_event {
	uint32_t event_type;	/* enum ibv_event_type */
	uint32_t obj_kind;	/* enum pv_obj_kind, or PV_OBJ_NONE */
	uint32_t handle;	/* object handle, or the port number */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_event) == 16, "pv_ipc_event size");

/* Completion events pushed on a completion channel socket. */
struct pv_ipc_cq_event {
	uint32_t cq_handle;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_cq_event) == 8, "pv_ipc_cq_event size");

enum pv_obj_kind {
	PV_OBJ_NONE	= 0,
	PV_OBJ_PD	= 1,
	PV_OBJ_MR	= 2,
	PV_OBJ_CQ	= 3,
	PV_OBJ_QP	= 4,
	PV_OBJ_SRQ	= 5,
	PV_OBJ_AH	= 6,
	PV_OBJ_CHANNEL	= 7,
	PV_OBJ_PORT	= 8,
	PV_OBJ_MW	= 9,
	PV_OBJ_XRCD	= 10,
};

/* XRCD request.  PV_XRCD_OPEN: with an fd (a file the client opened,
 * ibv_open_xrcd(3)), the device's domain of that inode, made if oflags
 * has O_CREAT (O_EXCL: only made); without one a private domain.  A file
 * whose domain belongs to another device is refused (EPERM).  Reply
 * pv_ipc_handle.  PV_XRCD_CLOSE: handle; no fd. */
enum { PV_XRCD_OPEN = 1, PV_XRCD_CLOSE = 2 };
struct pv_ipc_xrcd {
	uint32_t cmd;		/* PV_XRCD_OPEN / PV_XRCD_CLOSE */
	uint32_t handle;	/* CLOSE */
	uint32_t oflags;	/* OPEN: O_CREAT, O_EXCL only */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_xrcd) == 16, "pv_ipc_xrcd size");

/* QP_OPEN (ibv_open_qp(3)): a new handle on an XRC_RECV QP of the
 * caller's device, by number, through one of the caller's handles on
 * the QP's domain.  qp_type must be IBV_QPT_XRC_RECV; a number that is
 * not an XRC_RECV QP of that domain is -EINVAL (as is any other field
 * wrong).  The handle is a QP handle for QP_MODIFY, QP_QUERY and
 * QP_DESTROY (which drops this handle only: the QP lives while any
 * handle, its creator's or an opener's, is left) and for the QP's async
 * events; it has no rings (QP_MAP refuses it).  Counts as a QP against
 * the caller's limit. */
struct pv_ipc_qp_open {
	uint32_t xrcd_handle;
	uint32_t qp_num;
	uint32_t qp_type;	/* enum ibv_qp_type: IBV_QPT_XRC_RECV */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_qp_open) == 16, "pv_ipc_qp_open size");

struct pv_ipc_qp_open_resp {
	uint32_t handle;
	uint32_t qp_num;
	uint32_t qp_state;	/* enum ibv_qp_state, now */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_qp_open_resp) == 16, "pv_ipc_qp_open_resp size");

/* MR_REG request; reply pv_ipc_mr_reg_resp. */
struct pv_ipc_mr_reg {
	uint32_t pd_handle;
	uint32_t access;	/* enum ibv_access_flags */
	uint64_t addr;		/* in the client's address space */
	uint64_t length;
	uint64_t iova;
	uint32_t reserved[4];
};
_Static_assert(sizeof(struct pv_ipc_mr_reg) == 48, "pv_ipc_mr_reg size");

struct pv_ipc_mr_reg_resp {
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_mr_reg_resp) == 16, "pv_ipc_mr_reg_resp size");

/* MR_REREG request (ibv_rereg_mr): flags are enum ibv_rereg_mr_flags;
 * pd_handle counts with IBV_REREG_MR_CHANGE_PD only, access with
 * _CHANGE_ACCESS only, addr/length/iova with _CHANGE_TRANSLATION only,
 * which also appends a struct pv_ipc_mr_backing and passes the new
 * range's memfd, exactly as MR_REG does.  Reply pv_ipc_mr_reg_resp: the
 * MR's new keys (both change on every rereg).  A failed rereg leaves the
 * MR as it was. */
struct pv_ipc_mr_rereg {
	uint32_t mr_handle;
	uint32_t flags;
	uint32_t pd_handle;
	uint32_t access;
	uint64_t addr;
	uint64_t length;
	uint64_t iova;
	uint32_t reserved[2];
};
_Static_assert(sizeof(struct pv_ipc_mr_rereg) == 48, "pv_ipc_mr_rereg size");

/* MW_ALLOC request (ibv_alloc_mw): type is enum ibv_mw_type (1 or 2).
 * Reply: the window's handle and its first rkey.  The rkey's upper 24
 * bits (its index, drawn at random) stay for the window's life; a bind
 * names the new rkey, which may change only the low 8 bits (the
 * consumer's key, ibv_inc_rkey()).  Binding and invalidating are send
 * WQEs (pv-soft-ring-abi.h, pv_send_wqe). */
struct pv_ipc_mw_alloc {
	uint32_t pd_handle;
	uint32_t type;
	uint32_t reserved[2];
};
_Static_assert(sizeof(struct pv_ipc_mw_alloc) == 16, "pv_ipc_mw_alloc size");

struct pv_ipc_mw_resp {
	uint32_t handle;
	uint32_t rkey;
	uint32_t reserved[2];
};
_Static_assert(sizeof(struct pv_ipc_mw_resp) == 16, "pv_ipc_mw_resp size");

/* CQ_CREATE / CQ_RESIZE request; reply pv_ipc_cq_resp. */
struct pv_ipc_cq_create {
	uint32_t cqe;
	uint32_t channel_handle;	/* 0 = none */
	uint32_t comp_vector;
	uint32_t cq_handle;		/* CQ_RESIZE only */
	uint32_t reserved[4];
};
_Static_assert(sizeof(struct pv_ipc_cq_create) == 32, "pv_ipc_cq_create size");

struct pv_ipc_cq_resp {
	uint32_t handle;
	uint32_t cqe;		/* actual depth */
	uint32_t reserved[2];
};
_Static_assert(sizeof(struct pv_ipc_cq_resp) == 16, "pv_ipc_cq_resp size");

/* CQ_REQ_NOTIFY request. */
struct pv_ipc_cq_notify {
	uint32_t cq_handle;
	uint32_t solicited_only;
};
_Static_assert(sizeof(struct pv_ipc_cq_notify) == 8, "pv_ipc_cq_notify size");

struct pv_ipc_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_qp_cap) == 24, "pv_ipc_qp_cap size");

/* QP_CREATE request; reply pv_ipc_qp_create_resp. */
struct pv_ipc_qp_create {
	uint32_t pd_handle;
	uint32_t send_cq_handle;
	uint32_t recv_cq_handle;
	uint32_t srq_handle;	/* 0 = none */
	uint32_t qp_type;	/* enum ibv_qp_type */
	uint32_t sq_sig_all;
	struct pv_ipc_qp_cap cap;
	/* IBV_QPT_XRC_RECV: its XRC domain (pd, CQs and SRQ are 0: it has
	 * no queues of its own); 0 for every other type. */
	uint32_t xrcd_handle;
	uint32_t reserved[3];
};
_Static_assert(sizeof(struct pv_ipc_qp_create) == 64, "pv_ipc_qp_create size");

struct pv_ipc_qp_create_resp {
	uint32_t handle;
	uint32_t qp_num;
	struct pv_ipc_qp_cap cap;	/* actual */
};
_Static_assert(sizeof(struct pv_ipc_qp_create_resp) == 32, "pv_ipc_qp_create_resp size");

/* Address vector, our fixed-width mirror of ibv_ah_attr + ibv_global_route. */
struct pv_ipc_ah_attr {
	uint8_t  dgid[16];
	uint32_t flow_label;
	uint8_t  sgid_index;
	uint8_t  hop_limit;
	uint8_t  traffic_class;
	uint8_t  is_global;
	uint16_t dlid;
	uint8_t  sl;
	uint8_t  src_path_bits;
	uint8_t  static_rate;
	uint8_t  port_num;
	uint8_t  reserved0[2];
	uint32_t reserved[2];
};
_Static_assert(sizeof(struct pv_ipc_ah_attr) == 40, "pv_ipc_ah_attr size");

/* AH_CREATE request; reply pv_ipc_handle. */
struct pv_ipc_ah_create {
	uint32_t pd_handle;
	uint32_t reserved;
	struct pv_ipc_ah_attr attr;
};
_Static_assert(sizeof(struct pv_ipc_ah_create) == 48, "pv_ipc_ah_create size");

/* Our mirror of ibv_qp_attr (values keep their ibv_* meanings). */
struct pv_ipc_qp_attr {
	uint32_t qp_state;
	uint32_t cur_qp_state;
	uint32_t path_mtu;
	uint32_t path_mig_state;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t qp_access_flags;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	struct pv_ipc_qp_cap cap;
	struct pv_ipc_ah_attr ah_attr;
	struct pv_ipc_ah_attr alt_ah_attr;
	uint8_t  en_sqd_async_notify;
	uint8_t  sq_draining;
	uint8_t  max_rd_atomic;
	uint8_t  max_dest_rd_atomic;
	uint8_t  min_rnr_timer;
	uint8_t  port_num;
	uint8_t  timeout;
	uint8_t  retry_cnt;
	uint8_t  rnr_retry;
	uint8_t  alt_port_num;
	uint8_t  alt_timeout;
	uint8_t  reserved0;
	uint32_t rate_limit;
	uint32_t reserved[4];
};
_Static_assert(sizeof(struct pv_ipc_qp_attr) == 176, "pv_ipc_qp_attr size");

/* QP_MODIFY request (no reply payload); QP_QUERY request is
 * pv_ipc_qp_modify with attr ignored, reply pv_ipc_qp_query_resp. */
struct pv_ipc_qp_modify {
	uint32_t qp_handle;
	uint32_t attr_mask;	/* enum ibv_qp_attr_mask */
	struct pv_ipc_qp_attr attr;
};
_Static_assert(sizeof(struct pv_ipc_qp_modify) == 184, "pv_ipc_qp_modify size");

struct pv_ipc_qp_query_resp {
	struct pv_ipc_qp_attr attr;
	struct pv_ipc_qp_create init;	/* as created, cap as granted */
};
_Static_assert(sizeof(struct pv_ipc_qp_query_resp) == 240, "pv_ipc_qp_query_resp size");

/* SRQ_CREATE request; reply pv_ipc_srq_resp.  SRQ_MODIFY uses it with
 * srq_handle and attr_mask (IBV_SRQ_MAX_WR, IBV_SRQ_LIMIT). */
struct pv_ipc_srq {
	uint32_t pd_handle;
	uint32_t srq_handle;
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
	uint32_t attr_mask;
	/* SRQ_CREATE of an XRC SRQ (IBV_SRQT_XRC): its domain and the CQ
	 * its receives complete on; both 0 for a basic SRQ. */
	uint32_t xrcd_handle;
	uint32_t cq_handle;
};
_Static_assert(sizeof(struct pv_ipc_srq) == 32, "pv_ipc_srq size");

struct pv_ipc_srq_resp {
	uint32_t handle;
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
	uint32_t srq_num;	/* XRC SRQs: the device's number; else 0 */
	uint32_t reserved[3];
};
_Static_assert(sizeof(struct pv_ipc_srq_resp) == 32, "pv_ipc_srq_resp size");
/* Within one PV_IPC_VERSION a reply struct only grows at its end: an
 * older library reads the prefix it knows (replies are cut to the
 * reader's buffer), a newer one accepts an older engine's shorter reply
 * (soft_call_grown; the new fields read 0).  pv_ipc_srq_resp was 16
 * bytes before XRC. */
#define PV_SRQ_RESP_V1_SIZE	16u

/* ADM_DEV_ADD request; reply pv_ipc_dev_info of the new device.
 * netns_path names the namespace (/var/run/netns/X or /proc/PID/ns/net);
 * empty means the engine's own namespace. */
struct pv_ipc_adm_dev_add {
	char     netns_path[PV_PATH_MAX];
	char     ifname[PV_IFNAME_MAX];
	char     name[PV_NAME_MAX];	/* empty: engine picks "pv<N>" */
	uint16_t pkey;			/* 0 means the default 0xffff */
	uint16_t reserved0;
	uint32_t flags;
	uint32_t reserved[6];
};
_Static_assert(sizeof(struct pv_ipc_adm_dev_add) == 368, "pv_ipc_adm_dev_add size");

/* Appended to ADM_DEV_ADD when flags has PV_ADM_DEV_ADD_CLAIMS: the GIDs
 * of the addresses the CNI assigned to the attachment (its prevResult).
 * They belong to this device: another device holding one without
 * claiming it (a squatter that added the address) loses it. */
#define PV_ADM_DEV_ADD_CLAIMS	(1u << 0)
#define PV_GID_CLAIM_MAX	8
struct pv_ipc_adm_dev_claims {
	uint32_t count;
	uint32_t reserved;
	uint8_t  gid[PV_GID_CLAIM_MAX][16];
};
_Static_assert(sizeof(struct pv_ipc_adm_dev_claims) == 136, "pv_ipc_adm_dev_claims size");

/* Appended after pv_ipc_adm_dev_claims (sent, count 0 if none, whenever
 * this is) when flags has PV_ADM_DEV_ADD_POD: the pod the attachment is
 * for, as the CNI's K8S_POD_NAMESPACE / K8S_POD_NAME name it; labels of
 * the device's metrics only (no access decision rests on them). */
#define PV_ADM_DEV_ADD_POD	(1u << 1)
#define PV_POD_NS_MAX		64
#define PV_POD_NAME_MAX		256
struct pv_ipc_adm_dev_pod {
	char     ns[PV_POD_NS_MAX];
	char     name[PV_POD_NAME_MAX];
};
_Static_assert(sizeof(struct pv_ipc_adm_dev_pod) == 320, "pv_ipc_adm_dev_pod size");

/* ADM_DEV_DEL request: by dev_id, or by name when dev_id is 0. */
struct pv_ipc_adm_dev_del {
	uint32_t dev_id;
	uint32_t reserved;
	char     name[PV_NAME_MAX];
};
_Static_assert(sizeof(struct pv_ipc_adm_dev_del) == 72, "pv_ipc_adm_dev_del size");

/* ADM_DEV_LIST reply: count entries of this, with the namespace. */
struct pv_ipc_adm_dev {
	struct pv_ipc_dev_info info;
	uint64_t netns_ino;	/* st_ino of the namespace */
	uint64_t netns_dev;	/* st_dev of the namespace */
	char     netns_path[PV_PATH_MAX];
	uint32_t gid_count;
	uint32_t clients;	/* connections with a context on it */
	struct pv_ipc_gid_entry gid[PV_GID_TABLE_MAX];
};
_Static_assert(sizeof(struct pv_ipc_adm_dev) == 112 + 16 + 256 + 8 + 24 * 16,
	       "pv_ipc_adm_dev size");

/* The reply pages like DEV_LIST's (request: an optional
 * pv_ipc_list_req); `total` counts the devices from the cursor on, so
 * total > count is its "more" flag (from the start: all the engine's
 * devices, as before paging). */
struct pv_ipc_adm_dev_list {
	uint32_t count;
	uint32_t total;		/* devices with dev_id >= cursor (>= count) */
	struct pv_ipc_adm_dev dev[];	/* by rising dev_id */
};

/* ADM_OBJ_LIST request: pv_ipc_dev_ref (dev_id 0 = all devices).
 * Reply: count entries of pv_ipc_adm_obj. */
struct pv_ipc_adm_obj {
	uint32_t dev_id;
	uint32_t client_id;
	uint32_t client_pid;
	uint32_t kind;		/* enum pv_obj_kind */
	uint32_t handle;
	uint32_t detail;	/* qp_num for QPs, lkey for MRs, depth for CQs */
	uint32_t state;		/* QP state, else 0 */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_adm_obj) == 32, "pv_ipc_adm_obj size");

/* The reply pages: entries start at the request's dev_ref.index and
 * `total` counts all matching ones (fetch again from index + count while
 * it is larger). */
struct pv_ipc_adm_obj_list {
	uint32_t count;
	uint32_t total;
	struct pv_ipc_adm_obj obj[];
};

/* ADM_STATS reply: engine counters (named, so tools need no table). */
#define PV_STAT_NAME_MAX 48
struct pv_ipc_stat {
	char     name[PV_STAT_NAME_MAX];
	uint64_t value;
};
_Static_assert(sizeof(struct pv_ipc_stat) == 56, "pv_ipc_stat size");

struct pv_ipc_stats {
	uint32_t count;
	uint32_t reserved;
	struct pv_ipc_stat stat[];
};

/* ADM_MR_REPORT request: pv_ipc_dev_ref (dev_id 0 = all devices; index:
 * the first row wanted).  Reply: rows in this order, paged as
 * ADM_OBJ_LIST's: per device (= per pod) its tally; then per client with
 * a context its tally followed by one row per MR it holds.  A tally is
 * MRs and bytes registered now, their peaks, registrations and bytes
 * registered since it began, MRs now misaligned, and growth: the net
 * bytes registered since its minute-long window began (eng_mr_tally.h).
 * An MR row has mrs 1, bytes its length, misaligned 0 or 1. */
enum pv_mr_row_kind {
	PV_MR_ROW_DEV = 1,
	PV_MR_ROW_CLIENT = 2,
	PV_MR_ROW_MR = 3,
};

/* The MR's start or end is not on a page boundary: the engine maps the
 * whole pages around it, and the provider moved the bytes sharing those
 * pages onto the memfd with it (docs/ARCHITECTURE.md, "Memory"). */
#define PV_MR_FLAG_MISALIGNED	1u

struct pv_ipc_adm_mr_row {
	uint32_t kind;		/* enum pv_mr_row_kind */
	uint32_t dev_id;
	uint32_t client_id;	/* 0 on device rows */
	uint32_t client_pid;
	uint32_t handle;	/* MR rows: handle, lkey, flags */
	uint32_t lkey;
	uint32_t flags;		/* PV_MR_FLAG_* */
	uint32_t reserved0;
	uint64_t mrs, bytes;
	uint64_t peak_mrs, peak_bytes;
	uint64_t regs, reg_bytes;
	uint64_t misaligned;
	int64_t  growth;
	uint64_t addr;		/* MR rows: the registered address */
	uint64_t netns_ino;	/* device rows */
	char     name[PV_NAME_MAX];	/* device rows: the device's name */
	uint64_t reserved[2];
};
_Static_assert(sizeof(struct pv_ipc_adm_mr_row) == 32 + 80 + 64 + 16,
	       "pv_ipc_adm_mr_row size");

struct pv_ipc_adm_mr_report {
	uint32_t count;
	uint32_t total;		/* rows matching (>= count) */
	struct pv_ipc_adm_mr_row row[];
};
/* ADM_HWC: the NIC-style counters of devices (port 1) and QPs
 * (eng_hwc.h).  Request: dev_id 0 = every device; qp_num 0 = every QP
 * (with PV_ADM_HWC_QPS; without it, ports only); index pages the rows as
 * ADM_OBJ_LIST does. */
#define PV_ADM_HWC_QPS		(1u << 0)
struct pv_ipc_adm_hwc_req {
	uint32_t dev_id;
	uint32_t qp_num;
	uint32_t flags;
	uint32_t index;		/* first row wanted */
};
_Static_assert(sizeof(struct pv_ipc_adm_hwc_req) == 16, "pv_ipc_adm_hwc_req size");

/* Reply: the header, ncounters names of PV_HWC_NAME_MAX bytes, then
 * count rows of sizeof(pv_ipc_adm_hwc_row) + 8 * ncounters bytes. */
#define PV_HWC_NAME_MAX		32
#define PV_HWC_ROW_PORT		(1u << 0)	/* the device's own row */
struct pv_ipc_adm_hwc_list {
	uint32_t ncounters;
	uint32_t count;		/* rows in this reply */
	uint32_t total;		/* rows matching */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pv_ipc_adm_hwc_list) == 16, "pv_ipc_adm_hwc_list size");

struct pv_ipc_adm_hwc_row {
	uint32_t dev_id;
	uint32_t qp_num;	/* 0 on a port row */
	uint32_t client_id;	/* the QP's connection; 0 on a port row */
	uint32_t flags;		/* PV_HWC_ROW_* */
	uint64_t value[];	/* ncounters */
};
_Static_assert(sizeof(struct pv_ipc_adm_hwc_row) == 16, "pv_ipc_adm_hwc_row size");

#endif /* PV_SOFT_ABI_H */
