/* SPDX-License-Identifier: MIT */
/*
 * net: the engine's RoCEv2 I/O stage (IBA Vol. 1 Annex A17: UDP
 * destination port 4791).  Every soft device has a UDP socket made inside
 * its pod's network namespace, bound to the device's IPv4 GID address
 * (and one for its first IPv6 GID), so packets follow the pod network's
 * routes.  Receive drains them in batches (recvmmsg) and hands each
 * packet to eng_net_rx(); send queues packets as iovecs and flushes them
 * with sendmmsg once per loop turn, runs of equal-size packets to one
 * destination as one UDP GSO message each (eng_net_tx.c).  No BTH
 * parsing happens here.
 *
 * What the engine trusts: nothing a packet carries.  The pod is root in
 * its namespace, so it controls what reaches and leaves these sockets
 * (routes, iptables/nftables, tc, its own raw or packet sockets, taking
 * the address away, flooding the port).  All of that can only hurt the
 * pod's own RDMA traffic: the socket is the engine's fd (a pod cannot
 * reach it: no SO_REUSEPORT group, no SO_REUSEADDR, so no pod socket can
 * share its port), the engine never blocks on it, and the receive stage
 * (eng_net_rx's owner) checks a packet's addresses and QP against the
 * device's GIDs and the QP's address vector as rxe does.
 *
 * What the socket does not show: the IP header itself.  Its addresses,
 * TOS and TTL come as the sockaddr and cmsgs below; the IPv4
 * Identification, which the ICRC covers, the receive stage recovers from
 * the ICRC (eng_wire_iphdr.h; a raw or packet socket would show it but
 * needs CAP_NET_RAW, and copies every UDP packet of the pod).  Sends set
 * DF, so Linux gives them ID 0, the k-th segment of a GSO send ID k, and
 * the sender knows its own header.
 */
#ifndef ENG_NET_H
#define ENG_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

struct eng;
struct eng_dev;
struct netns_link;

/* The RoCEv2 UDP destination port (IBA Annex A17.2.1). */
#define ENG_NET_ROCE_PORT	4791

/* Send: header bytes copied into the queue (BTH + the largest extension
 * headers), payload iovecs referenced, trailer copied (pad + ICRC). */
#define ENG_NET_HDR_MAX		64
#define ENG_NET_TRL_MAX		8
#define ENG_NET_IOV_MAX		8

/* The receive buffer of one datagram: the largest UDP payload, so a
 * UDP_GRO train (up to 64 KiB) is never truncated. */
#define ENG_NET_RX_SLOT		65536

/* An address in GID form: IPv4 as ::ffff:a.b.c.d (RoCEv2 GIDs). */
struct eng_net_addr {
	uint8_t gid[16];
	uint16_t port;			/* host order */
};

/* One received RoCEv2 packet: the UDP payload, BTH onwards, in the
 * engine's receive buffer (valid only during the eng_net_rx call). */
struct eng_net_pkt {
	const uint8_t *data;
	uint32_t len;
	bool ipv6;
	struct eng_net_addr src;	/* the sender (IP header + UDP) */
	uint8_t dst[16];		/* IP_PKTINFO / IPV6_PKTINFO */
	uint8_t tos;			/* TOS / traffic class (GRH) */
	uint8_t ttl;			/* TTL / hop limit (GRH) */
	uint32_t ifindex;
};

/* The receive hook.  The default (weak) one counts the packet in
 * net_rx_unclaimed and drops it; the wire stage defines its own
 * (classify -> responder / completer).  Runs on the loop thread. */
void eng_net_rx(struct eng *e, struct eng_dev *d, const struct eng_net_pkt *p);

/* One packet to send. */
struct eng_net_tx {
	struct eng_net_addr dst;	/* port 0: ENG_NET_ROCE_PORT */
	bool ipv6;			/* which of the device's sockets */
	uint8_t tos;			/* DSCP/ECN (IP_TOS / IPV6_TCLASS) */
	uint8_t ttl;			/* 0: the socket's default */
	const void *hdr;		/* copied, <= ENG_NET_HDR_MAX */
	uint32_t hdr_len;
	const struct iovec *payload;	/* referenced, <= ENG_NET_IOV_MAX */
	uint32_t npayload;
	const void *trl;		/* copied, <= ENG_NET_TRL_MAX */
	uint32_t trl_len;
	/* The trailer ends in an ICRC computed for IPv4 ID 0 (or IPv6):
	 * the packet may leave in a UDP GSO send, its ICRC then adjusted
	 * to the ID the kernel gives it (eng_wire_icrc_id_delta). */
	bool icrc;
};

/*
 * Queues t on d's socket; flushed at the end of the loop turn (or now,
 * when a batch is full).  The payload is not copied: its memory must
 * stay mapped until the packet is sent or dropped, i.e. until the next
 * eng_net_flush, or eng_net_tx_purge(d) before it is unmapped.  Returns
 * 0, -ENOTCONN (no socket of that family: counted, dropped), -ENOBUFS
 * (queue full: counted, dropped; the transport retransmits), -EINVAL.
 */
int eng_net_send(struct eng *e, struct eng_dev *d, const struct eng_net_tx *t);
/* Sends what every device queued (eng_run, once per loop turn). */
void eng_net_flush(struct eng *e);
/* Drops what d's sockets hold queued (their payloads are going away). */
void eng_net_tx_purge(struct eng *e, struct eng_dev *d);

/* Device lifecycle (eng_device.c): makes, rebinds or closes d's sockets
 * after a read of its interface (link NULL: gone) and its GID table. */
void eng_net_dev_sync(struct eng *e, struct eng_dev *d,
		      const struct netns_link *link);
void eng_net_dev_fini(struct eng *e, struct eng_dev *d);
/* Multicast on the wire (eng_net_mcast.c): d's first QP attached to
 * group gid joins it on the pod's interface, its last one detached
 * leaves (eng_mcast.c calls both).  join: 0 (also when joined already),
 * or -errno when the group is not on the wire for d (no interface or
 * socket of that family, bounds, the kernel's refusal: counted, logged);
 * -EAGAIN when d's joins are over their rate (mcast_join_burst/_rate),
 * which the attach reports; leave of a group not joined is a no-op. */
int eng_net_mcast_join(struct eng *e, struct eng_dev *d, const uint8_t gid[16]);
void eng_net_mcast_leave(struct eng *e, struct eng_dev *d,
			 const uint8_t gid[16]);
/* PV_WIRE_* bits of d's sockets (pv_ipc_dev_info.wire_state). */
uint8_t eng_net_wire_state(const struct eng_dev *d);
/* The address d's socket of that family is bound to (GID form), which
 * is the source of what it sends; false when it has none. */
bool eng_net_bound_addr(const struct eng_dev *d, bool ipv6, uint8_t gid[16]);
/* The engine's shared buffers (eng_fini). */
void eng_net_fini(struct eng *e);

/* The RoCE path MTU of d in bytes (256..4096): the largest IBA MTU whose
 * packets fit its interface MTU (eng_port_ib_mtu; 9000 gives 4096). */
uint32_t eng_net_path_mtu(const struct eng_dev *d);

/* The receive buffer of d's sockets in bytes (the smaller one; 0 when
 * none is open or it could not be read). */
uint64_t eng_net_rcvbuf(const struct eng_dev *d);

/*
 * Pure: splits a UDP_GRO train of len bytes whose segments are seg bytes
 * (the UDP_GRO cmsg; 0: not coalesced) into at most max packets; writes
 * offsets and lengths, returns the count.
 */
uint32_t eng_net_gro_split(uint32_t len, uint32_t seg, uint32_t *off,
			   uint32_t *plen, uint32_t max);

#endif /* ENG_NET_H */
