/* SPDX-License-Identifier: MIT */
/* net's private parts, shared by eng_net.c, eng_net_rx.c, eng_net_tx.c. */
#ifndef ENG_NET_INT_H
#define ENG_NET_INT_H

#include <netinet/in.h>
#include <sys/socket.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_tbucket.h"

/* A queued packet: its copied header and trailer, the payload iovecs. */
struct eng_net_qent {
	struct sockaddr_in6 dst;	/* or a sockaddr_in in its place */
	uint32_t bytes;
	uint8_t tos, ttl;
	uint8_t niov;
	uint8_t trl_len;
	bool icrc;			/* eng_net_tx.icrc: may be GSO'd */
	uint16_t ip_id;			/* the ID the trailer's ICRC is for */
	uint8_t hdr[ENG_NET_HDR_MAX];
	uint8_t trl[ENG_NET_TRL_MAX];
	struct iovec iov[ENG_NET_IOV_MAX + 2];
};

struct eng_net_txq {
	struct eng_net_qent *ent;	/* cap entries, allocated on first use */
	uint32_t cap, head, count;
};

struct eng_net_sock {
	struct eng_pollable poll;	/* fd -1: none */
	struct eng_dev *dev;
	int family;			/* AF_INET / AF_INET6 */
	uint8_t addr[16];		/* bound (GID form) */
	uint32_t ifindex;
	/* The last failed bind, logged once until it changes. */
	int fail_err;
	uint8_t fail_addr[16];
	uint32_t rxq_ovfl;		/* last SO_RXQ_OVFL value */
	bool gro;
	uint32_t rcvbuf;		/* SO_RCVBUF read back (0: unknown) */
	bool gso_off;			/* UDP_SEGMENT refused: one by one */
	bool want_out;			/* EPOLLOUT armed */
	bool dirty;			/* on eng.net_dirty */
	struct eng_list dirty_link;
	struct eng_net_txq q;
};

/* A multicast group the device is joined to on the wire
 * (eng_net_mcast.c): its socket, bound to the group's address. */
struct eng_net_msock {
	struct eng_net_sock s;
	uint8_t group[16];
};

#define ENG_NET_MCAST_PER_DEV	16

struct eng_net_dev {
	struct eng_net_sock s4, s6;
	struct eng_net_msock *mc[ENG_NET_MCAST_PER_DEV];
	uint32_t nmc;
	struct eng_tbucket joins;	/* mcast_join_burst / _rate */
	bool joins_warned;
	uint64_t joins_warn_ns;		/* last throttle warning */
};

/* The engine's buffers, shared by every socket (one loop thread), made
 * with the first socket at the sizes of net_rx_batch / net_tx_batch. */
struct eng_net_buf {
	uint32_t rx_n, tx_n;
	struct mmsghdr *rx_mm;
	struct iovec *rx_iov;
	struct sockaddr_in6 *rx_name;
	uint8_t (*rx_ctl)[128];
	uint8_t *rx_data;		/* rx_n * ENG_NET_RX_SLOT */
	struct mmsghdr *tx_mm;
	uint8_t (*tx_ctl)[96];		/* TOS, TTL, UDP_SEGMENT: 3 x 24 */
	uint32_t *tx_npk;		/* packets in each tx_mm message */
	struct iovec *tx_iov;		/* ENG_NET_TX_IOV, the messages' */
};

/* One sendmmsg's iovecs, all messages together (a GSO message has its
 * packets' iovecs back to back; UIO_MAXIOV, 1024, bounds one message). */
#define ENG_NET_TX_IOV		2048

struct eng_net_buf *eng_net_buf_get(struct eng *e);
/* eng_net_sockopt.c: receive's socket options (PKTINFO, TOS/TTL,
 * RXQ_OVFL, buffer, GRO); one int option (0 or -errno). */
int eng_net_sock_rx_options(struct eng_net_sock *s, int fd);
int eng_net_set_int(int fd, int level, int name, int val);
/* eng_net_mcast.c: closes every group socket of n. */
void eng_net_mcast_fini(struct eng *e, struct eng_net_dev *n);

/* eng_net_rx.c */
void eng_net_sock_ready(struct eng *e, struct eng_pollable *p, uint32_t ev);
/* eng_net_tx.c */
void eng_net_sock_flush(struct eng *e, struct eng_net_sock *s);
void eng_net_txq_drop(struct eng *e, struct eng_net_sock *s);
void eng_net_txq_free(struct eng_net_sock *s);
int eng_net_set_events(struct eng *e, struct eng_net_sock *s, bool out);

#endif /* ENG_NET_INT_H */
