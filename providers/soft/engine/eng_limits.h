/* SPDX-License-Identifier: MIT */
/*
 * Every tunable and every enforced limit of the engine, declared once.
 * Each ENG_LIMIT(name, default, min, max, help) becomes a field of
 * struct eng_limits, a "--limit name=value" option and a line of --help.
 * Exceeding a count limit fails the request with -ENOMEM (resources
 * exhausted, as a NIC reports it); a size outside its range fails with
 * -EINVAL.  Both bump the limit_hits counter.
 */
#ifndef ENG_LIMITS_H
#define ENG_LIMITS_H

#include <stdint.h>
#include <stdio.h>

#include "providers/soft/pv-soft-abi.h"

/* The listings page (pv_ipc_list_req), so no message bounds the device
 * count.  This one bounds what walks every device (GID ownership, the
 * state file) and sizes their scratch arrays; a device costs the engine
 * a few fds (its namespace, its netlink watch, its UDP sockets). */
#define ENG_DEVICES_HARD_MAX	4096u

/* The upper bounds of max_sge and max_inline: the engine's copy of a WQE
 * (eng_dp.h) and its segment arrays are sized by them. */
#define ENG_SGE_MAX		256
#define ENG_INLINE_MAX		4096

#define ENG_LIMITS(X)							\
	X(max_devices, 1024, 1, ENG_DEVICES_HARD_MAX,			\
	  "soft devices per engine (a node's pods: Kubernetes runs up "	\
	  "to 110 by default, often 250)")				\
	X(max_clients, 4096, 1, 16384,					\
	  "client connections per engine")				\
	X(max_pd, 1024, 1, 65536, "PDs per client")			\
	X(max_mr, 65536, 1, 1048576,					\
	  "MRs per client (each also one of max_dev_maps)")		\
	X(max_mw, 4096, 1, 65536,					\
	  "memory windows per client (each holds one of the device's "	\
	  "2^24 window indexes and its 256 keys)")			\
	X(max_cq, 16384, 1, 262144, "CQs per client")			\
	X(max_qp, 16384, 1, 262144, "QPs per client")			\
	X(max_srq, 256, 1, 65536, "SRQs per client")			\
	X(max_xrcd, 64, 1, 4096, "XRC domains a client holds open")	\
	X(max_ah, 4096, 1, 65536, "AHs per client")			\
	X(max_channel, 64, 1, 1024,					\
	  "completion channels per client (each holds an fd)")		\
	X(max_cqe, 4194303, 1, 4194304,					\
	  "CQ depth (a NIC's 4M; the ring's memory is charged to "	\
	  "max_dev_ring_mb)")						\
	X(max_qp_wr, 32768, 1, 1048576, "work requests per QP queue")	\
	X(max_sge, 32, 1, ENG_SGE_MAX, "scatter/gather entries per WR") \
	X(max_inline, 256, 0, ENG_INLINE_MAX, "inline data bytes per WR") \
	X(max_srq_wr, 16384, 1, 1048576, "work requests per SRQ")	\
	X(max_rd_atom, 16, 1, 255,					\
	  "outstanding RDMA reads/atomics per QP")			\
	X(max_init_rd_atom, 128, 1, 255,				\
	  "RDMA reads/atomics a QP may initiate (max_rd_atomic; its "	\
	  "send window bounds what is outstanding)")			\
	X(max_mr_size_mb, 4096, 1, 1048576, "MiB per MR")		\
	X(max_dev_fds, 1024, 8, 1048576,				\
	  "fds the engine holds for one device's clients (channels, "	\
	  "doorbells, rings not yet passed)")				\
	X(max_dev_maps, 8192, 8, 1048576,				\
	  "engine mappings for one device's clients (MRs, rings)")	\
	X(max_dev_mr_mb, 16384, 1, 16777216,				\
	  "MiB registered by one device's clients (a memlock)")	\
	X(max_dev_ring_mb, 1024, 1, 16777216,				\
	  "MiB of rings (QP, CQ, SRQ) and QP state the engine holds "	\
	  "for one device's clients (at most half of half the RAM)")	\
	X(max_msgs_per_wakeup, 64, 1, 4096,				\
	  "requests served from one client before others get a turn") \
	X(dp_spin_us, 30, 0, 1000000,					\
	  "data path: microseconds of polling after the last work "	\
	  "before the engine sleeps")					\
	X(rt_priority, 0, 0, 99,					\
	  "SCHED_FIFO priority of the engine's loop thread, so that "	\
	  "busy-polling pods do not starve it (0: the normal "		\
	  "scheduler; needs CAP_SYS_NICE, else a warning and 0)")	\
	X(max_clients_per_ns, 64, 1, 16384,				\
	  "pod socket connections per network namespace (pod)")	\
	X(max_unproven, 128, 1, 16384,					\
	  "pod socket connections whose HELLO has not yet proven "	\
	  "their namespace")						\
	X(unproven_ms, 2000, 10, 600000,				\
	  "milliseconds a connection may stay unproven before it is "	\
	  "closed")							\
	X(max_admin_clients, 16, 1, 1024,				\
	  "admin socket connections (apart from max_clients)")		\
	X(max_unproven_per_ns, 16, 1, 16384,				\
	  "of max_unproven, per network namespace (pod)")		\
	X(rguard_burst, 64, 1, 65536,					\
	  "remote access and Q_Key errors a device's QPs may cause "	\
	  "before its remote operations are refused")			\
	X(rguard_rate, 16, 1, 1000000,					\
	  "of those errors allowed a second once past rguard_burst")	\
	X(mcast_join_burst, 32, 1, 65536,				\
	  "multicast groups a device may join on the wire (each a "	\
	  "socket in its pod and an IGMP/MLD report) before its joins "	\
	  "are rate-limited")						\
	X(mcast_join_rate, 4, 1, 1000000,				\
	  "of those joins allowed a second once past mcast_join_burst; " \
	  "an attach over the rate fails with EAGAIN")			\
	X(dp_qp_turn_kb, 1024, 1, 1048576,				\
	  "data path: KiB one QP moves in its turn (a 64 KiB chunk "	\
	  "moves whole)")						\
	X(dp_qp_turn_wqes, 64, 1, 65536,				\
	  "data path: WQEs one QP completes in its turn")		\
	X(dp_pod_pass_kb, 2048, 1, 4194304,				\
	  "data path: KiB one pod (device) moves in a pass, over all "	\
	  "its connections' QPs")					\
	X(dp_pod_pass_wqes, 128, 1, 1048576,				\
	  "data path: WQEs one pod (device) completes in a pass")	\
	X(dp_pass_kb, 8192, 1, 16777216,				\
	  "data path: KiB a pass moves before the loop serves "	\
	  "requests again")						\
	X(dp_pass_wqes, 1024, 1, 1048576,				\
	  "data path: WQEs a pass completes before the loop serves "	\
	  "requests again")						\
	X(net_rx_batch, 64, 1, 1024,					\
	  "wire: datagrams one recvmmsg takes (64 KiB of buffer each)") \
	X(net_rx_budget, 256, 1, 65536,					\
	  "wire: packets one device socket delivers per loop turn "	\
	  "(the rest waits in the socket buffer)")			\
	X(net_rx_turn_us, 100, 0, 1000000,				\
	  "wire: microseconds one device socket may take of a loop "	\
	  "turn, checked after each batch (the rings get theirs; 0: "	\
	  "no bound but net_rx_budget)")				\
	X(net_rx_gro, 1, 0, 1,						\
	  "wire: ask for UDP_GRO on the device sockets (1) or not (0)") \
	X(net_tx_batch, 64, 1, 1024,					\
	  "wire: packets one sendmmsg sends")				\
	X(net_tx_queue, 1024, 1, 65536,					\
	  "wire: packets queued per device socket; beyond, dropped "	\
	  "and counted (the transport retransmits)")			\
	X(net_tx_gso, 1, 0, 1,						\
	  "wire: send each run of equal-size packets to one peer as "	\
	  "one UDP GSO message (1) or one datagram each (0)")		\
	X(wire_rc_window, 32, 1, 128,					\
	  "wire: send WQEs an RC/UC QP keeps outstanding")		\
	X(wire_rc_flight_pkts, 128, 1, 65536,				\
	  "wire: RC packets in flight (sent, unacknowledged) per QP")	\
	X(wire_rc_ackreq_pkts, 64, 1, 65536,				\
	  "wire: RC requester asks for an ACK at least every N packets") \
	X(wire_rc_ack_pkts, 64, 1, 65536,				\
	  "wire: RC responder ACKs at least every N packets")		\
	X(wire_rc_read_burst, 64, 1, 65536,				\
	  "wire: RC READ response packets a QP sends per turn")		\
	X(wire_rc_read_req_pkts, 32, 1, 65536,				\
	  "wire: RC READ response packets one READ request asks for; "	\
	  "a longer READ WQE goes as several requests (consecutive "	\
	  "PSNs), each counted against max_rd_atomic")			\
	X(wire_dev_read_credit_pkts, 1024, 1, 65536,			\
	  "wire: READ response packets a device's QPs may have asked "	\
	  "for and not received, together; at most what half its "	\
	  "socket receive buffer (SO_RCVBUF read back) holds")		\
	X(wire_rc_probe_us, 2000, 0, 1000000,				\
	  "wire: RC requester's first tail probe (its last packet "	\
	  "again, AckReq; then at doubling intervals) after max(this, "	\
	  "2 x its measured round trip) without an ACK, before its "	\
	  "transport timer (not a retry; 0: off)")			\
	X(wire_rc_rnr_hold_us, 4000, 0, 1000000,			\
	  "wire: RC responder waits up to this long (and never longer " \
	  "than its RNR timer) for a receive WQE before it sends an "	\
	  "RNR NAK (0: NAK at once)")					\
	X(cm_resp_timeout, 20, 0, 31,					\
	  "CM on the wire: our CM response time, 4.096 us * 2^n "	\
	  "(the kernel's 20 = 4.3 s; tests shorten it)")		\
	X(cm_max_retries, 15, 0, 15,					\
	  "CM on the wire: resends of a REQ/REP/DREQ before giving up "	\
	  "(the kernel's 15)")						\
	X(cm_dreq_retries, 3, 0, 15,					\
	  "CM on the wire: resends of the DREQ of a connection whose id "	\
	  "is gone or disconnected (it waits for no DREP; the kernel's "	\
	  "cm_destroy_id sends one)")					\
	X(cm_wire_per_peer, 1024, 1, 4096,				\
	  "CM on the wire: requests of one sender (GID, device) waiting "	\
	  "for an accept, over all listeners (one full backlog)")	\
	X(metrics_conns, 8, 1, 256,					\
	  "metrics endpoint: scrape connections at once (more are "	\
	  "closed at accept)")						\
	X(metrics_req_bytes, 4096, 256, 65536,				\
	  "metrics endpoint: bytes of a request's head; beyond, 431") \
	X(metrics_timeout_ms, 5000, 100, 600000,			\
	  "metrics endpoint: a scrape connection is closed this long " \
	  "after its accept, answered or not (slow clients)")		\
	X(metrics_body_bytes, 16777216, 65536, 1073741824,		\
	  "metrics endpoint: largest exposition served (500 beyond)")

struct eng_limits {
#define ENG_LIMIT_FIELD(name, def, lo, hi, help) uint64_t name;
	ENG_LIMITS(ENG_LIMIT_FIELD)
#undef ENG_LIMIT_FIELD
};

/* The engine's limits; defaults until eng_limits_set() changes them. */
extern struct eng_limits eng_lim;

/* Sets one limit from "name=value"; -EINVAL for an unknown name or a
 * value outside its range, -ERANGE likewise with the range in msg. */
int eng_limits_set(const char *assignment);
/* Sets one limit by name; same errors. */
int eng_limits_set_one(const char *name, uint64_t value);
/* Prints "  name (default D, min..max): help" lines. */
void eng_limits_help(FILE *out);

#endif /* ENG_LIMITS_H */
