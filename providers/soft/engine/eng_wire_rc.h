/* SPDX-License-Identifier: MIT */
/*
 * RC and UC on the wire (issue 10, IBA Vol. 1 ch. 9.5-9.9): the per-QP
 * state and the stages, split as Linux rxe splits them:
 *
 *   eng_wire_rc_pkt.c   pure: PSNs per message, the opcode of each
 *                       request / READ response packet, length rules
 *   eng_wire_rc_state.c the per-QP state's life, the go-back-N cursor
 *                       (a leaf: the error path drops the state)
 *   eng_wire_rc_req.c   requester: SQ WQEs into an outstanding window
 *                       (engine copies), segmentation per path MTU, PSNs,
 *                       AckReq, timers; eng_wire_rc_rx()'s dispatch
 *   eng_wire_rc_comp.c  completer: ACK/NAK/RNR NAK, READ responses and
 *                       atomic ACKs matched to the window by PSN, timers
 *   eng_wire_rc_resp.c  responder: PSN classifier, opcode sequence,
 *                       lengths, execution through eng_dp_resp_deliver(),
 *                       ACKs, READ responses, atomic ACKs, NAKs,
 *                       duplicates
 *
 * The SQ slot of an outstanding WQE stays unconsumed until its completion
 * (pv-soft-ring-abi.h's slot reuse order), so a QP going to ERR flushes
 * the window's WQEs from their slots with the rest.
 */
#ifndef ENG_WIRE_RC_H
#define ENG_WIRE_RC_H

#include <stdbool.h>
#include <stdint.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_resp_res.h"
#include "providers/soft/engine/eng_wire_hdr.h"
#include "providers/soft/engine/eng_wire_rtt.h"

/* The hard bound of the window (eng_lim.wire_rc_window within it). */
#define ENG_RC_WIN_MAX		128

/* The payload a held request can carry: the largest path MTU. */
#define ENG_RC_HOLD_MAX		4096

/* One outstanding send WQE. */
struct eng_rc_went {
	struct eng_dp_swqe sw;		/* the engine's copy */
	uint64_t total;			/* message bytes */
	uint32_t psn, npsn;		/* first PSN and how many it uses */
	uint64_t rd_done;		/* READ response bytes placed */
	uint32_t rd_chunk;		/* READ: PSNs per request */
	int status;			/* IBV_WC_*: a local error found at
					 * fetch completes it at the head;
					 * ENG_RC_ST_LOCAL: a window
					 * operation, run at the head */
};

/* Not an IBV_WC_* status: IBV_WR_BIND_MW / IBV_WR_LOCAL_INV (eng_mw.h)
 * wait in the window, send nothing, and run once everything before them
 * completed. */
#define ENG_RC_ST_LOCAL		0x7fff

/* A READ being answered: response packets k..npsn-1 still to send. */
struct eng_rc_rdq {
	uint32_t psn, k, npsn;		/* the READ's first PSN, next, count */
	uint64_t va;			/* of packet 0 */
	uint32_t rkey, len;		/* len: from packet 0 */
};

/* The wire state of one RC/UC QP (allocated at its first wire use). */
struct eng_wire_rc {
	uint32_t cap;			/* window entries allocated */
	uint32_t qpn;			/* the QP's, for trace probes */
	uint32_t mtu;			/* path MTU in bytes */
	/* requester */
	bool req_init;			/* PSNs taken from sq_psn */
	uint32_t head, n;		/* oldest entry, entries in use */
	uint32_t sent;			/* entries fully sent (from head) */
	uint64_t cur_off;		/* bytes of entry head+sent sent */
	uint32_t next_psn;		/* PSN the next new entry gets */
	uint32_t tx_psn;		/* PSN of the next packet to send */
	uint32_t una;			/* oldest PSN not acknowledged */
	uint32_t since_ackreq;		/* packets since the last AckReq */
	uint32_t rd_out;		/* READ/atomics in the window */
	/* READ response PSNs asked for up to rd_hi, held against the
	 * device's eng_dev.rd_credit_used as rd_claim (from una). */
	uint32_t rd_hi;
	uint32_t rd_claim;
	bool probing;			/* the armed RETRY timer is the probe */
	uint64_t probe_left;		/* ns of the full timeout after it */
	uint64_t probe_ns;		/* the armed probe's interval */
	/* After a transport timeout one packet (with AckReq) is in
	 * flight until an answer moves una: a timeout that only saw a
	 * slow peer costs one duplicate, not a flight of them. */
	bool recover;
	bool gap_asked;			/* READ responses re-asked from */
	uint32_t gap_psn;		/* this PSN, no progress since */
	uint32_t tx_hi;			/* first PSN never sent */
	bool rtt_on;			/* a round trip is being timed: */
	uint32_t rtt_psn;		/* from this (new) AckReq packet */
	uint64_t rtt_t0;		/* sent then (eng_dp_now_ns) */
	struct eng_rtt rtt;		/* paces the probe, stretches the
					 * transport timer (eng_wire_rtt.h) */
	/* responder */
	int req_prev;			/* last request opcode accepted */
	struct eng_reth wr;		/* the WRITE in progress's RETH */
	uint64_t msg_off;		/* bytes received of the message */
	uint32_t unacked;		/* packets accepted, not ACKed */
	bool uc_drop;			/* UC: discard until FIRST/ONLY */
	/* READ responses queued, sent wire_rc_read_burst packets a turn
	 * (a 2 GiB READ never floods the socket's queue at once) */
	uint32_t rdq_head, rdq_n;
	struct eng_rc_rdq rdq[ENG_RESP_RES_MAX];
	/* A request whose RQ/SRQ had no WQE waits up to eng_rc_hold_ns()
	 * for one before the RNR NAK goes (the application is often
	 * posting it right now: an immediate NAK costs its requester the
	 * whole RNR timer, 655 ms at min_rnr_timer 0, the CM's).  Later
	 * requests are dropped meanwhile and NAK'd (PSN sequence) on
	 * release, so the requester resends them at once. */
	bool hold;
	bool hold_dropped;		/* later requests dropped meanwhile */
	bool hold_kept;			/* its retry found no WQE, time left */
	uint64_t hold_until;		/* CLOCK_MONOTONIC ns: RNR NAK then */
	struct eng_pkt hold_pkt;	/* payload points into hold_buf */
	uint8_t hold_buf[ENG_RC_HOLD_MAX];
	struct eng_rc_went win[];	/* cap entries */
};

/* ---- eng_wire_rc_pkt.c (pure) ---- */
/* PSNs a message uses: one per MTU of payload (at least one); a READ
 * reserves one per response packet; an atomic one. */
uint32_t eng_rc_npsn(uint32_t wr_opcode, uint64_t len, uint32_t mtu);
/* The request opcode of a packet of a WR (enum ibv_wr_opcode) on RC or
 * UC, first/last in its message; -EINVAL when the WR has none there. */
int eng_rc_req_opcode(bool uc, uint32_t wr_opcode, bool first, bool last);
/* The WR opcode a request opcode belongs to, or -EINVAL. */
int eng_rc_wr_of(uint8_t opcode);
/* The READ response opcode of packet k of npsn. */
uint8_t eng_rc_read_resp_opcode(uint32_t k, uint32_t npsn);
/* A READ WQE of npsn response PSNs goes as requests of chunk PSNs each
 * (the last one the rest; chunk 0: one request): the PSN count of the
 * request holding response packet k, its first packet in *first.  Each
 * request is answered as its own READ (FIRST..LAST), so the opcode of
 * packet k is eng_rc_read_resp_opcode_at(). */
uint32_t eng_rc_read_chunk(uint32_t npsn, uint32_t chunk, uint32_t k,
			   uint32_t *first);
uint8_t eng_rc_read_resp_opcode_at(uint32_t k, uint32_t npsn, uint32_t chunk);
/* READ response packets a device may have asked for and not received:
 * what half a receive buffer of rcvbuf bytes (0: unknown) holds at
 * path MTU mtu, at most cap, at least 1. */
uint32_t eng_rc_read_credit(uint64_t rcvbuf, uint32_t mtu, uint64_t cap);
/* IBA 9.7.4.1.3/9.8.3.1: FIRST and MIDDLE carry exactly one MTU, LAST
 * 1..MTU, ONLY 0..MTU; a READ request or atomic none. */
bool eng_rc_req_len_ok(uint8_t opcode, uint32_t paylen, uint32_t mtu);
/* The path MTU of an RC/UC QP in bytes: the smaller of its path_mtu
 * attribute and what the device's interface carries. */
uint32_t eng_rc_mtu(uint32_t path_mtu_enum, uint32_t dev_mtu_bytes);

/* ---- eng_wire_rc_rstep.c (pure) ---- */
/* What the RC responder does with a request packet, before anything
 * executes. */
enum eng_rc_ract {
	ENG_RC_R_EXECUTE = 0,	/* expected: check and execute it */
	ENG_RC_R_NAK_SEQ,	/* out of sequence: NAK PSN sequence error */
	ENG_RC_R_OOS_DROP,	/* out of sequence, the gap already NAK'd */
	ENG_RC_R_DUP_ACK,	/* duplicate SEND/WRITE asking for an ACK */
	ENG_RC_R_DUP_DROP,	/* duplicate needing no answer */
	ENG_RC_R_DUP_READ,	/* re-serve res from response packet k */
	ENG_RC_R_DUP_ATOMIC,	/* answer with res->orig, not executed */
	ENG_RC_R_HELD_AGAIN,	/* the held request again: nothing to do */
	ENG_RC_R_HELD_DROP,	/* after the held one: dropped, NAK later */
};

struct eng_rc_rdec {
	enum eng_rc_ract act;
	const struct eng_resp_res_ent *res;	/* DUP_READ, DUP_ATOMIC */
	uint32_t k;				/* DUP_READ */
};

/* Classifies a request (opcode, psn, AckReq) against rx (which it moves
 * as eng_psn_classify_req does), the saved resources and a pending hold;
 * fills *out and returns out->act. */
enum eng_rc_ract eng_rc_resp_classify(struct eng_psn_rx *rx,
				      const struct eng_resp_res *res,
				      bool holding, uint8_t opcode,
				      uint32_t psn, bool ackreq,
				      struct eng_rc_rdec *out);
/* How long a request may wait for a receive WQE: the RNR timer it
 * replaces (rnr_ns), at most hold_max_ns. */
uint64_t eng_rc_hold_ns(uint64_t rnr_ns, uint64_t hold_max_ns);

/* ---- eng_wire_rc_gbn.c (pure) ---- */
/* What an ACK of PSN p acknowledges in w's window. */
struct eng_rc_acked {
	uint32_t ncomplete;	/* head entries that complete (success) */
	bool local_err;		/* then the head completes with its error */
	bool go_back;		/* then a READ/atomic was passed without
				 * its response: ask again from una */
	uint32_t una;		/* the oldest PSN not acknowledged after */
};
void eng_rc_ack_scan(const struct eng_wire_rc *w, uint32_t p,
		     struct eng_rc_acked *a);
/* READ and atomic requests sent (before tx_hi) whose responses are not
 * all in (ending after una): each holds a responder resource (IBA
 * 9.7.2.1, max_rd_atomic counts requests, not WQEs). */
uint32_t eng_rc_rd_reqs_out(const struct eng_wire_rc *w);
/* The packet the tail-loss probe resends (the last one sent): its entry
 * (index from the head) and byte offset; false when there is none. */
bool eng_rc_probe_at(const struct eng_wire_rc *w, uint32_t *idx,
		     uint64_t *off);

/* ---- eng_wire_rc_state.c ---- */
/* The QP's wire state, allocated on first use; NULL when out of memory. */
struct eng_wire_rc *eng_wire_rc_get(struct eng_dp_qp *dq);
void eng_wire_rc_free(struct eng_dp_qp *dq);
/* Sets w's hold on d's READ credit (rd_credit_used) to the response
 * PSNs it asked for and has not received (una to rd_hi); d may be NULL. */
void eng_wire_rc_claim(struct eng_dev *d, struct eng_wire_rc *w);
/* QP_MODIFY: a new connection (RTR) or RESET/ERR empties the window. */
void eng_wire_rc_qp_modified(struct eng_qp *qp, uint32_t old_state);
/* Go back N: the next packet sent is the one of PSN psn (within the
 * window; else nothing changes).  Counted in wire_rc_retransmits. */
void eng_wire_rc_rewind(struct eng_wire_rc *w, uint32_t psn);
/* When una passed the send cursor (an answer acknowledged packets a go
 * back N was about to resend), the cursor moves up to una. */
void eng_wire_rc_skip_acked(struct eng_wire_rc *w);
/* Where packets of qp go. */
struct eng_wire_dst;
void eng_wire_rc_dst(const struct eng_qp *qp, struct eng_wire_dst *dst);

/* ---- eng_wire_rc_comp.c ---- */
/* A response packet (ACK, ATOMIC ACK, READ response) for qp's window. */
void eng_wire_rc_comp_rx(struct eng *e, struct eng_dp_qp *dq,
			 const struct eng_pkt *pkt);
/* Completes the head entry with status (consumes its slot, writes the
 * CQE); an error moves the QP to ERR. */
void eng_wire_rc_complete_head(struct eng *e, struct eng_dp_qp *dq,
			       int status);
/* The status the head entry x (never sent) completes with: its local
 * error, or the result of running its window operation now. */
int eng_wire_rc_head_status(struct eng_qp *qp, struct eng_rc_went *x);
/* The transport timer is (re)armed for what is still unacknowledged, or
 * stopped when nothing is. */
void eng_wire_rc_arm(struct eng_dp_qp *dq);

/* ---- eng_wire_rc_resp.c ---- */
void eng_wire_rc_resp_rx(struct eng *e, struct eng_dev *d,
			 struct eng_dp_qp *dq, const struct eng_pkt *pkt);
/* Sends the next burst of queued READ responses; true if more wait. */
bool eng_wire_rc_resp_pump(struct eng *e, struct eng_dp_qp *dq);

#endif /* ENG_WIRE_RC_H */
