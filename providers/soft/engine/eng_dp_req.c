/* SPDX-License-Identifier: MIT */
/*
 * The requester: takes send WQEs off a QP's SQ ring in order, checks
 * the local side (lkeys, PD, bounds, rights, lengths), finds the
 * destination QP on this engine and hands the message to the responder,
 * then completes the WQE.  A message moves in chunks of ENG_DP_CHUNK
 * bytes (UD datagrams and atomics in one), at most what the scheduler's
 * budget allows per turn (eng_dp_sched.c), so one large WQE cannot hold
 * the engine's only thread; the QP's cursor (dq->done) says where the
 * next turn goes on, and WQEs of one QP still complete in order.  What
 * comes back for a chunk (eng_dp_reply.h), or its absence, goes through
 * the completer's state machine (eng_comp_sm.c), which places READ data
 * and atomic results and decides: next chunk, complete, wait on the RNR
 * or transport timer and resend, or fail the WQE.
 *
 * The wire's seam: a chunk here becomes the request packets of one
 * message piece (cut per path MTU, one PSN each), the reply the packets
 * that answer them; eng_dp.h says where PSNs and the window go.
 */
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_comp_sm.h"
#include "common/pv_usdt.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_reply.h"
#include "providers/soft/engine/eng_dp_rguard.h"
#include "providers/soft/engine/eng_gid_own.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_mcast.h"
#include "providers/soft/engine/eng_mw.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_rc.h"
#include "providers/soft/engine/eng_wire_xport.h"
#include "providers/soft/engine/eng_wr.h"

#define ST_WAIT			(-1)	/* WQE stays; a timer is armed */
#define ST_MORE			(-2)	/* a chunk moved, more remain */
#define ST_FATAL		(-3)	/* malformed WQE: QP fatal */
#define ST_LOCAL		(-4)	/* a window operation: run here */

static bool dev_has_gid(const struct eng_dev *d, const uint8_t gid[16])
{
	return eng_gid_table_has(d->gid, d->gid_count, gid);
}

/* P_Keys match when their base values are equal and at least one is a
 * full member (IBA 10.9.3). */
static bool pkeys_match(uint16_t a, uint16_t b)
{
	return (a & ENG_PKEY_BASE_MASK) == (b & ENG_PKEY_BASE_MASK) &&
	       ((a | b) & ENG_PKEY_FULL_MEMBER);
}

static uint32_t peer_type(uint32_t qp_type)
{
	return qp_type == IBV_QPT_XRC_SEND ? IBV_QPT_XRC_RECV : qp_type;
}

/* The device whose table holds dgid: at most one does, since a GID
 * belongs to one device of the engine (eng_gid_own.h). */
static struct eng_dev *dest_dev(struct eng *e, struct eng_dp_qp *dq,
				const uint8_t dgid[16])
{
	struct eng_dev *d = NULL;

	if (dq->dest_dev_id) {
		d = eng_dev_by_id(e, dq->dest_dev_id);
		if (d && !dev_has_gid(d, dgid))
			d = NULL;
	}
	for (uint32_t i = e->devs.min; !d && i < e->devs.cap; i++) {
		struct eng_dev *x = e->devs.slot[i];

		if (x && dev_has_gid(x, dgid))
			d = x;
	}
	if (d)
		dq->dest_dev_id = d->id;
	return d;
}

struct eng_qp *eng_dp_find_dest(struct eng *e, struct eng_dp_qp *dq,
				const uint8_t dgid[16], uint32_t qpn)
{
	struct eng_dev *own = dq->qp->o.conn->dev;
	struct eng_dev *d = dest_dev(e, dq, dgid);
	struct eng_qp *dst;

	if (!d || !own || d->port_state != PV_PORT_ACTIVE ||
	    own->port_state != PV_PORT_ACTIVE) {
		eng_stat_inc(dp_drops_no_dest);
		return NULL;
	}
	if (!pkeys_match(d->pkey, own->pkey)) {
		eng_stat_inc(dp_drops_pkey);
		eng_hwc_dev_add(d, pkey_drops, 1);
		return NULL;
	}
	dst = eng_idtab_get(&d->qps, qpn & ENG_BTH_24BIT_MASK);
	/* A QP receives from RTR on; RESET/INIT/ERR ones drop packets.
	 * An XRC_SEND QP's peer is an XRC_RECV QP. */
	if (!dst || !eng_qps_receives(dst->state) ||
	    dst->init.qp_type != peer_type(dq->qp->init.qp_type)) {
		eng_stat_inc(dp_drops_no_dest);
		return NULL;
	}
	return dst;
}

/* The local side of a WQE (the engine's copy) as segments, at most
 * ENG_SGE_MAX; returns a WC status. */
static int local_segs(struct eng_qp *qp, struct eng_dp_swqe *sw,
		      struct eng_seg *segs, uint32_t *nsegs, uint64_t *len)
{
	const struct pv_send_wqe *w = &sw->w;
	uint32_t access = eng_wr_needs_local_write(w->opcode) ?
			  IBV_ACCESS_LOCAL_WRITE : 0;

	*nsegs = 0;
	*len = 0;
	if (w->send_flags & IBV_SEND_INLINE) {
		/* Inline bytes were copied out of the ring with the WQE. */
		segs[0] = (struct eng_seg){ .ptr = sw->inl,
					    .len = w->inline_len };
		*nsegs = w->inline_len ? 1 : 0;
		*len = w->inline_len;
		return IBV_WC_SUCCESS;
	}
	for (uint32_t i = 0; i < w->num_sge && i < ENG_SGE_MAX; i++) {
		const struct pv_wqe_sge *s = &sw->sge[i];
		struct eng_mr *mr;

		if (!s->length)
			continue;
		mr = eng_dp_mr_find(qp->o.conn->dev, s->lkey, qp->pd, s->addr,
				    s->length, access);
		if (!mr)
			return IBV_WC_LOC_PROT_ERR;
		eng_dp_mr_seg(mr, s->addr, s->length, &segs[(*nsegs)++]);
		*len += s->length;
	}
	return *len > ENG_PORT_MAX_MSG_SZ ? IBV_WC_LOC_LEN_ERR : IBV_WC_SUCCESS;
}

/* UD addressing: AH, qkey (IBA 10.2.5: a high bit set in the WR's qkey
 * means "use the QP's"), path MTU.  Returns a WC status; *dst NULL means
 * the datagram is silently lost. */
static int ud_dest(struct eng *e, struct eng_dp_qp *dq,
		   const struct pv_send_wqe *w, uint64_t len,
		   struct eng_dp_msg *m, struct eng_qp **dst)
{
	struct eng_qp *qp = dq->qp;
	struct eng_dev *own = qp->o.conn->dev;
	struct eng_ah *ah = eng_obj_get(qp->o.conn, w->ah_handle, PV_OBJ_AH);
	uint32_t qkey;

	*dst = NULL;
	if (!ah || ah->pd != qp->pd || ah->attr.sgid_index >= own->gid_count)
		return IBV_WC_LOC_QP_OP_ERR;
	if (len > eng_port_mtu_bytes(own->active_mtu))
		return IBV_WC_LOC_LEN_ERR;
	m->sgid = own->gid[ah->attr.sgid_index].gid;
	m->dgid = ah->attr.dgid;
	m->traffic_class = ah->attr.traffic_class;
	m->hop_limit = ah->attr.hop_limit;
	m->flow_label = ah->attr.flow_label;
	qkey = (w->remote_qkey & 0x80000000u) ? qp->attr.qkey : w->remote_qkey;
	if (eng_mcast_gid_is_group(ah->attr.dgid) &&
	    (w->remote_qpn & ENG_BTH_24BIT_MASK) == ENG_MCAST_QPN) {
		/* To a group: every member here gets it, and the wire
		 * carries one datagram to the group's address for the
		 * members elsewhere (eng_mcast.h). */
		eng_mcast_deliver(e, qp, m, qkey);
		if (eng_wire_up(own, ah->attr.dgid)) {
			eng_stat_inc(mcast_wire_tx);
			return eng_wire_ud_send(e, dq, m, ENG_MCAST_QPN, qkey);
		}
		return IBV_WC_SUCCESS;
	}
	if (eng_wire_route(e, own, ah->attr.dgid))
		return eng_wire_ud_send(e, dq, m, w->remote_qpn, qkey);
	*dst = eng_dp_find_dest(e, dq, ah->attr.dgid, w->remote_qpn);
	if (*dst && !eng_dp_rguard_qkey_ok(qp, *dst, qkey))
		*dst = NULL;
	return IBV_WC_SUCCESS;
}

/* The local side of bytes [off, off + len) of the current WQE, its MRs
 * looked up again; returns a WC status. */
static int chunk_segs(struct eng_dp_qp *dq, uint64_t off, uint64_t len,
		      struct eng_seg *segs, uint32_t *n)
{
	struct eng_dp_swqe *sw = &dq->cur;
	struct eng_qp *qp = dq->qp;
	uint32_t access = eng_wr_needs_local_write(sw->w.opcode) ?
			  IBV_ACCESS_LOCAL_WRITE : 0;
	int nd;

	*n = 0;
	if (sw->w.send_flags & IBV_SEND_INLINE) {
		if (off + len > sw->w.inline_len || off + len > ENG_INLINE_MAX)
			return IBV_WC_LOC_LEN_ERR;	/* validated: a bug */
		segs[0] = (struct eng_seg){ .ptr = sw->inl + off,
					    .len = (uint32_t)len };
		*n = len ? 1 : 0;
		return IBV_WC_SUCCESS;
	}
	nd = eng_dp_sge_range(qp->o.conn->dev, qp->pd, sw->sge, sw->w.num_sge,
			      access, off, len, segs, ENG_SGE_MAX);
	if (nd < 0)
		return nd == -1 ? IBV_WC_LOC_PROT_ERR : IBV_WC_LOC_LEN_ERR;
	*n = (uint32_t)nd;
	return IBV_WC_SUCCESS;
}

/* The destination of the current WQE (UD: also its addressing in m);
 * NULL when there is none (the request is lost: RC's transport timer
 * tells), *st a WC status when the WQE itself is wrong. */
static struct eng_qp *req_dest(struct eng *e, struct eng_dp_qp *dq,
			       struct eng_dp_msg *m, int *st)
{
	struct eng_qp *qp = dq->qp, *dst;

	*st = IBV_WC_SUCCESS;
	if (qp->init.qp_type == IBV_QPT_UD) {
		*st = ud_dest(e, dq, &dq->cur.w, dq->total, m, &dst);
		return *st == IBV_WC_SUCCESS ? dst : NULL;
	}
	dst = eng_dp_find_dest(e, dq, qp->attr.ah_attr.dgid,
			       qp->attr.dest_qp_num);
	/* Connected to us: its QP number and its remote GID, which must be
	 * ours (QP numbers are per device, so the number alone would let
	 * any pod speak for the real peer). */
	if (dst && (dst->attr.dest_qp_num != qp->qp_num ||
		    !dev_has_gid(qp->o.conn->dev, dst->attr.ah_attr.dgid)))
		dst = NULL;
	if (qp->init.qp_type == IBV_QPT_XRC_SEND)
		m->xrc_srqn = dq->cur.w.remote_qpn & ENG_BTH_24BIT_MASK;
	return dst;
}

/* The completer's input for the head WQE's outstanding chunk. */
static void comp_load(const struct eng_dp_qp *dq, struct eng_comp *c,
		      const struct eng_seg *local, uint32_t nlocal,
		      uint64_t chunk, bool last)
{
	const struct eng_qp *qp = dq->qp;

	*c = (struct eng_comp){
		.qp_type = eng_qpt_reliable(qp->init.qp_type) ?
			   IBV_QPT_RC : (uint8_t)qp->init.qp_type,
		.rnr_retry = qp->attr.rnr_retry, .retry_cnt = qp->attr.retry_cnt,
		.timeout = qp->attr.timeout, .opcode = dq->cur.w.opcode,
		.last = last, .chunk = (uint32_t)chunk, .local = local,
		.nlocal = nlocal, .rnr_tries = dq->rnr_tries,
		.retry_tries = dq->retry_tries, .timer_kind = dq->timer_kind,
	};
}

/* Keeps what the completer decided; returns a WC status once the WQE is
 * done, ST_MORE (a chunk was acknowledged, or one must go again), or
 * ST_WAIT (a timer is armed). */
static int comp_store(struct eng_dp_qp *dq, const struct eng_comp *c,
		      enum eng_comp_st st, uint64_t chunk, uint64_t *moved)
{
	dq->rnr_tries = c->rnr_tries;
	dq->retry_tries = c->retry_tries;
	dq->timer_kind = c->timer_kind;
	dq->timer_at = 0;
	switch (st) {
	case ENG_COMP_ST_MORE:
		dq->done += chunk;
		*moved = chunk;
		return ST_MORE;
	case ENG_COMP_ST_RESEND:
		return ST_MORE;
	case ENG_COMP_ST_WAIT:
		dq->timer_at = eng_dp_now_ns() + c->timer_ns;
		return ST_WAIT;
	case ENG_COMP_ST_DONE:
		return IBV_WC_SUCCESS;
	default:
		return c->status != IBV_WC_SUCCESS ? c->status :
						     IBV_WC_GENERAL_ERR;
	}
}

/* The armed timer fired: the completer says resend or give up.
 * IBV_WC_SUCCESS (go on with the chunk) or the WQE's error status. */
static int req_timer(struct eng_dp_qp *dq)
{
	struct eng_comp c;
	enum eng_comp_st st;
	uint64_t moved;

	comp_load(dq, &c, NULL, 0, 0, false);
	st = eng_comp_run(&c, ENG_COMP_EV_TIMER, NULL);
	if (st == ENG_COMP_ST_RESEND) {
		comp_store(dq, &c, st, 0, &moved);
		return IBV_WC_SUCCESS;
	}
	return comp_store(dq, &c, st, 0, &moved);
}

/* Moves the next chunk of the current WQE (all of it for UD and
 * atomics) and runs the completer on the reply; returns a WC status once
 * the WQE is done, ST_MORE when a chunk moved and more remain, or
 * ST_WAIT.  *moved: bytes this chunk. */
static int req_chunk(struct eng *e, struct eng_dp_qp *dq, uint64_t *moved)
{
	const struct pv_send_wqe *w = &dq->cur.w;
	bool atomic = eng_wr_is_atomic(w->opcode);
	uint64_t left = dq->total - dq->done, chunk = left;
	struct eng_seg segs[ENG_SGE_MAX];
	struct eng_qp *qp = dq->qp, *dst;
	struct eng_dp_msg m = { .src = qp, .opcode = w->opcode,
				.send_flags = w->send_flags,
				.imm_data = w->imm_data,
				.remote_addr = w->remote_addr, .rkey = w->rkey,
				.compare_add = w->compare_add, .swap = w->swap };
	struct eng_dp_reply r = { .kind = ENG_DP_REPLY_NONE };
	struct eng_comp c;
	uint32_t n;
	int st;

	*moved = 0;
	if (atomic)
		chunk = ENG_DP_ATOMIC_BYTES;
	else if (qp->init.qp_type != IBV_QPT_UD && chunk > ENG_DP_CHUNK)
		chunk = ENG_DP_CHUNK;
	st = chunk_segs(dq, dq->done, chunk, segs, &n);
	if (st != IBV_WC_SUCCESS)
		return st;
	m.len = atomic ? ENG_DP_ATOMIC_BYTES : (uint32_t)dq->total;
	m.off = (uint32_t)dq->done;
	m.chunk = (uint32_t)chunk;
	m.first = dq->done == 0;
	m.last = atomic || dq->done + chunk == dq->total;
	m.segs = segs;
	m.nsegs = n;
	dst = req_dest(e, dq, &m, &st);
	if (st != IBV_WC_SUCCESS)
		return st;
	if (dst)
		eng_dp_resp_deliver(e, dst, &m, &r);
	if (r.kind == ENG_DP_REPLY_RNR_NAK) {
		PV_USDT(podverbsd, rnr_nak, qp->qp_num, 0, r.code, 0);
		eng_stat_inc(dp_rnr_naks);
		eng_hwc_qp_inc(qp, rcvd_rnr_err);
		eng_hwc_qp_inc(dst, send_rnr_err);
	}
	/* READ data and the atomic's original land in segs, the WQE's own
	 * local memory for this chunk. */
	comp_load(dq, &c, segs, n, chunk, m.last);
	return comp_store(dq, &c, eng_comp_run(&c, ENG_COMP_EV_REPLY, &r),
			  chunk, moved);
}

static void req_complete(struct eng *e, struct eng_qp *qp,
			 const struct pv_send_wqe *w, int st, uint64_t len)
{
	struct pv_cqe cqe = {
		.wr_id = w->wr_id, .status = (uint32_t)st,
		.opcode = eng_dp_wc_opcode(w->opcode),
		.byte_len = (uint32_t)len, .qp_num = qp->qp_num,
	};

	if (st == IBV_WC_SUCCESS && !(w->send_flags & IBV_SEND_SIGNALED) &&
	    !qp->init.sq_sig_all)
		return;
	eng_dp_cqe_push(e, qp->send_cq, &cqe, false);
}

/* Starts the WQE at the ring's head: copies it (the slot is read once;
 * the copy is used until the WQE completes, across chunks and RNR or
 * transport retries) and checks its whole local side.  A WC status. */
static int req_start(struct eng *e, struct eng_dp_qp *dq)
{
	struct eng_seg segs[ENG_SGE_MAX];
	struct eng_qp *qp = dq->qp;
	uint32_t n;
	int st;

	if (eng_dp_send_wqe_fetch(&dq->sq, qp->init.qp_type, &qp->init.cap,
				  &dq->cur) < 0)
		return ST_FATAL;
	dq->busy = true;
	dq->done = 0;
	dq->timer_kind = ENG_DP_TIMER_NONE;
	dq->timer_at = 0;
	dq->rnr_tries = dq->retry_tries = 0;
	if (eng_wr_is_local(dq->cur.w.opcode)) {
		dq->total = 0;
		PV_USDT(podverbsd, wqe_start, qp->o.conn->id, qp->qp_num,
			dq->cur.w.wr_id, dq->cur.w.opcode, 0);
		return ST_LOCAL;
	}
	st = local_segs(qp, &dq->cur, segs, &n, &dq->total);
	if (st == IBV_WC_SUCCESS && eng_wr_is_atomic(dq->cur.w.opcode) &&
	    dq->total < ENG_DP_ATOMIC_BYTES)
		st = IBV_WC_LOC_LEN_ERR;
	PV_USDT(podverbsd, wqe_start, qp->o.conn->id, qp->qp_num,
		dq->cur.w.wr_id, dq->cur.w.opcode, dq->total);
	return st;
}

/* Runs the head WQE for at most one chunk; false when the QP must stop
 * (waiting, failed or fatal).  *moved: bytes moved. */
static bool req_one(struct eng *e, struct eng_dp_qp *dq, uint64_t *moved,
		    bool *completed)
{
	struct eng_qp *qp = dq->qp;
	int st = IBV_WC_SUCCESS;

	*moved = 0;
	*completed = false;
	if (!dq->busy)
		st = req_start(e, dq);
	else if (dq->timer_kind != ENG_DP_TIMER_NONE)
		st = req_timer(dq);	/* expired (eng_dp_req_run) */
	if (st == ST_FATAL) {
		eng_dp_qp_fatal(e, qp);
		return false;
	}
	if (st == ST_LOCAL)
		st = dq->cur.w.opcode == IBV_WR_BIND_MW ?
		     eng_mw_bind(qp, &dq->cur.w) :
		     eng_mw_local_inv(qp, dq->cur.w.imm_data);
	else if (st == IBV_WC_SUCCESS)
		st = req_chunk(e, dq, moved);
	if (st == ST_WAIT)
		return false;
	if (st == ST_MORE)
		return true;
	dq->busy = false;
	dq->timer_kind = ENG_DP_TIMER_NONE;
	dq->timer_at = 0;
	dq->rnr_tries = dq->retry_tries = 0;
	eng_stat_inc(dp_wqes);
	eng_hwc_wqe_done(qp, dq->cur.w.opcode, st);
	*moved = dq->total - dq->done;
	*completed = true;
	/* Retire the slot before the completion is visible: an application
	 * that reuses a slot as soon as it polls the CQE must find it free
	 * (pv-soft-ring-abi.h, slot reuse order).  cur is a private copy. */
	eng_dp_ring_consume(&dq->sq);
	req_complete(e, qp, &dq->cur.w, st, dq->total);
	if (st != IBV_WC_SUCCESS) {
		eng_dbg("client %u: QP %u: WQE failed with status %d",
			qp->o.conn->id, qp->qp_num, st);
		eng_dp_qp_error(e, qp);
		return false;
	}
	return true;
}

/* Every WQE costs at least this much of a budget, so a flood of empty
 * ones is bounded by bytes as well as by count. */
#define WQE_MIN_COST	256

bool eng_dp_req_run(struct eng *e, struct eng_dp_qp *dq,
		    struct eng_dp_budget *b)
{
	struct eng_qp *qp = dq->qp;
	bool did = false;

	if (!qp->o.conn->dev)
		return false;	/* device deleted: nothing moves */
	/* An XRC_RECV QP has no send queue (IBA 19.2.5): its ring is
	 * never read, nor flushed (it has no CQ); on the wire it may owe
	 * READ responses. */
	if (qp->init.qp_type == IBV_QPT_XRC_RECV)
		return qp->state != IBV_QPS_ERR &&
		       eng_wire_rc_resp_pump(e, dq);
	if (qp->state == IBV_QPS_ERR)
		return eng_dp_flush(e, qp);
	if (qp->state != IBV_QPS_RTS)	/* an RTR responder may still owe
					 * READ responses on the wire */
		return eng_wire_rc_resp_pump(e, dq);
	/* Connected across the wire: the RC/UC transport's own requester
	 * (its window, PSNs and timers; eng_wire_xport.h). */
	if (qp->init.qp_type != IBV_QPT_UD &&
	    eng_wire_route(e, qp->o.conn->dev, qp->attr.ah_attr.dgid))
		return eng_wire_rc_req_run(e, dq, b);
	if (dq->timer_kind != ENG_DP_TIMER_NONE &&
	    eng_dp_now_ns() < dq->timer_at)
		return false;
	while (b->wqes && b->bytes) {
		int n = dq->busy ? 1 : eng_dp_ring_avail(&dq->sq);
		uint64_t moved, cost;
		bool completed, go;

		if (n < 0) {
			eng_dp_qp_fatal(e, qp);
			return true;
		}
		if (n == 0)
			break;
		go = req_one(e, dq, &moved, &completed);
		cost = moved > WQE_MIN_COST ? moved : WQE_MIN_COST;
		b->bytes = b->bytes > cost ? b->bytes - cost : 0;
		if (completed)
			b->wqes--;
		did = true;
		if (!go)
			break;
	}
	return did || qp->state == IBV_QPS_ERR;
}
