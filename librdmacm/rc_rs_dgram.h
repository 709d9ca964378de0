/* SPDX-License-Identifier: MIT */
/*
 * Datagram rsockets (SOCK_DGRAM), rdma-core's protocol
 * (rc_rs_dgram_proto.h).  A datagram rsocket is a struct rc_rs whose ds
 * is set; everything of it is under rs->lock.  It owns:
 * - a UDP socket: its address (rbind binds it, rconnect connects it) and
 *   the path of the first datagrams to a peer whose QPN is not known yet;
 * - one UD QP per local source address (an id of RDMA_PS_UDP bound to
 *   that address and the UDP socket's port, Q_Key RDMA_UDP_QKEY), each
 *   with its CQ and completion channel;
 * - the peers it sent to or heard from (struct rc_ds_dest: address, the
 *   QP it is reached from, and once known the peer's QPN and an address
 *   handle from a CM route resolution), bounded.
 * There is no service thread: what arrives on the UDP socket is handled
 * by whichever call of the rsocket runs (every wait includes it, through
 * one epoll fd holding the UDP socket and the completion channels), so
 * rpoll, a blocked rrecvfrom and a spinning non-blocking one all make
 * progress.  Datagrams that came over UDP are queued (copied) beside
 * those the UD QPs received; both queues are bounded and what does not
 * fit is dropped and counted, as a full UDP socket buffer drops.
 */
#ifndef RC_RS_DGRAM_H
#define RC_RS_DGRAM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rdma/rdma_cma.h>

#include "librdmacm/rc_rs_dgram_proto.h"

struct rc_rs;

#define RC_DS_QPS_MAX	4	/* local source addresses per rsocket */
#define RC_DS_DESTS_MAX	1024	/* peers an rsocket remembers */
#define RC_DS_UDPQ	64	/* datagrams that came over UDP, queued */
#define RC_DS_QP_MAX	1024	/* most queue entries each way */
#define RC_DS_RESOLVE_MS 2000

struct rc_ds_qp {
	struct rdma_cm_id *id;
	struct sockaddr_storage src;	/* bound address and port */
	uint8_t hdr[RC_DS_V6_LEN];	/* the datagram header we send */
	uint8_t hdr_len;
	uint32_t mtu;			/* the port's: a UD message's limit */
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *smr, *rmr;
	uint8_t *rbuf;			/* rq_size slots, then the GRH */
	bool armed;
};

struct rc_ds_dest {
	struct sockaddr_storage addr;
	int qp;				/* index into qps */
	struct ibv_ah *ah;		/* NULL: send over UDP */
	uint32_t qpn;
	struct rc_ds_dest *next;
};

/* A received datagram waiting for rrecv*: from a UD QP (data in that
 * QP's rbuf slot) or from UDP (data in udpq's slot). */
struct rc_ds_rmsg {
	struct sockaddr_storage src;
	uint32_t off;			/* payload's offset in its buffer */
	uint32_t len;			/* payload bytes */
	uint32_t slot;			/* rbuf offset to repost / udpq slot */
	uint8_t qp;			/* RC_DS_QP_UDP: came over UDP */
};

#define RC_DS_QP_UDP	0xFF

/* Why datagrams were dropped (PODVERBS_DEBUG prints them at rclose). */
struct rc_ds_stats {
	uint64_t udp_bad[RC_DS_BAD_NR];	/* UDP headers refused, by reason */
	uint64_t ud_bad[RC_DS_BAD_NR];	/* UD datagram headers refused */
	uint64_t ud_err;		/* receive completions in error */
	uint64_t send_err;		/* send completions in error */
	uint64_t full;			/* no room to queue */
	uint64_t dests_full;		/* a new peer past RC_DS_DESTS_MAX */
	uint64_t ah_fail;		/* route/AH resolution failed */
};

struct rc_ds {
	int udp;			/* the UDP socket */
	int epfd;			/* udp + every qp's cc->fd */
	struct rc_ds_qp qps[RC_DS_QPS_MAX];
	int nqps;
	struct rc_ds_dest *dests;
	int ndests;
	struct rc_ds_dest *conn;	/* rconnect's peer */

	uint32_t sq_size, rq_size;	/* fixed at the first QP */
	uint8_t *sbuf;			/* sq_size slots of RC_DS_MSG_MAX */
	uint32_t *sfree;		/* free send slots (a stack) */
	uint32_t sqe_avail;

	/* Received, in arrival order: RC_DS_QPS_MAX * rq_size + RC_DS_UDPQ
	 * entries (every posted receive and every UDP slot fit). */
	struct rc_ds_rmsg *rx;
	uint32_t rx_cap, rx_head, rx_n;
	uint8_t *udpq;			/* RC_DS_UDPQ slots of RC_DS_MSG_MAX */
	uint32_t uq_free[RC_DS_UDPQ];
	uint32_t uq_nfree;
	struct rc_ds_stats st;
};

/* rc_rs_dgram.c: the socket, its QPs and peers. */
int rc_ds_socket(int domain, int type, int *out);
int rc_ds_bind(struct rc_rs *rs, const struct sockaddr *a, socklen_t len);
int rc_ds_connect(struct rc_rs *rs, const struct sockaddr *a, socklen_t len);
void rc_ds_close(struct rc_rs *rs);
int rc_ds_name(struct rc_rs *rs, bool peer, struct sockaddr *a,
	       socklen_t *len);
int rc_ds_setopt(struct rc_rs *rs, int level, int name, const void *val,
		 socklen_t len);
int rc_ds_getopt(struct rc_rs *rs, int level, int name, void *val,
		 socklen_t *len);
/* The peer at a (found or added, with the QP of our source address for
 * it); -errno. */
int rc_ds_get_dest(struct rc_rs *rs, const struct sockaddr *a, socklen_t len,
		   struct rc_ds_dest **out);
/* Resolves the route to d and makes its address handle for qpn. */
void rc_ds_make_ah(struct rc_rs *rs, struct rc_ds_dest *d, uint32_t qpn);
int rc_ds_post_recv(struct rc_rs *rs, int qp, uint32_t off);

/* rc_rs_dgram_io.c: sending, receiving, progress and waits. */
ssize_t rc_ds_sendv(struct rc_rs *rs, const struct iovec *iov, int cnt,
		    int flags, const struct sockaddr *to, socklen_t tolen);
ssize_t rc_ds_recvv(struct rc_rs *rs, const struct iovec *iov, int cnt,
		    int flags, struct sockaddr *from, socklen_t *fromlen,
		    int *msg_flags);
/* One pass over the UDP socket and the CQs; never blocks. */
void rc_ds_progress(struct rc_rs *rs);
/* Sends one UDP datagram to d: header op, then iov (may be empty). */
ssize_t rc_ds_send_udp(struct rc_rs *rs, struct rc_ds_dest *d, uint8_t op,
		       const struct iovec *iov, int cnt, int flags);
/* Waits until all sends completed, up to ms. */
void rc_ds_drain_sends(struct rc_rs *rs, int ms);
short rc_ds_revents(struct rc_rs *rs, short events);
bool rc_ds_arm(struct rc_rs *rs);
void rc_ds_after_wait(struct rc_rs *rs);

#endif /* RC_RS_DGRAM_H */
