/* SPDX-License-Identifier: MIT */
/*
 * The counting points of eng_hwc.h that more than one path shares.  Only
 * the engine's copies are read (the message and WQE as copied once).
 */
#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_hwc.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_wr.h"

void eng_hwc_wqe_done(struct eng_qp *qp, uint32_t opcode, int st)
{
	if (st == IBV_WC_RETRY_EXC_ERR)
		eng_hwc_qp_inc(qp, retry_exceeded_err);
	else if (st == IBV_WC_RNR_RETRY_EXC_ERR)
		eng_hwc_qp_inc(qp, retry_rnr_exceeded_err);
	if (st != IBV_WC_SUCCESS)
		return;
	if (eng_wr_is_send(opcode))
		eng_hwc_qp_inc(qp, rdma_sends);
	else if (eng_wr_is_write(opcode))
		eng_hwc_qp_inc(qp, rdma_writes);
	else if (eng_wr_is_read(opcode))
		eng_hwc_qp_inc(qp, rdma_reads);
	else if (eng_wr_is_atomic(opcode))
		eng_hwc_qp_inc(qp, rdma_atomics);
}

/* A piece of a message between two QPs of this node, counted as the
 * packets the wire would carry for it (no ACKs): requests from src to
 * dst, READ response data back. */
static void local_pkts(struct eng_qp *src, struct eng_qp *dst,
		       const struct eng_dp_msg *m)
{
	uint32_t mtu = src->init.qp_type == IBV_QPT_UD ? 0 :
		       eng_port_mtu_bytes(src->attr.path_mtu);
	struct eng_qp *from = src, *to = dst;
	uint64_t pkts, bytes = m->chunk;

	if (eng_wr_is_atomic(m->opcode) || eng_wr_is_read(m->opcode)) {
		/* The request: one packet without payload, once. */
		if (m->first) {
			eng_hwc_qp_inc(src, sent_pkts);
			eng_hwc_qp_inc(dst, rcvd_pkts);
		}
		if (eng_wr_is_atomic(m->opcode)) {
			bytes = 0;
			mtu = 0;
		}
		from = dst;
		to = src;
	}
	pkts = eng_hwc_pkts(bytes, mtu);
	eng_hwc_qp_add(from, sent_pkts, pkts);
	eng_hwc_qp_add(from, sent_bytes, bytes);
	eng_hwc_qp_add(to, rcvd_pkts, pkts);
	eng_hwc_qp_add(to, rcvd_bytes, bytes);
}

void eng_hwc_delivered(struct eng_qp *dst, const struct eng_dp_msg *m,
		       bool served)
{
	/* The wire's messages name the remote QP by a stand-in without a
	 * connection (eng_wire_rc_resp.c): their packets were counted at
	 * eng_net_rx. */
	if (m->src && m->src->o.conn)
		local_pkts(m->src, dst, m);
	if (!served || !m->last)
		return;
	if (eng_wr_is_send(m->opcode))
		eng_hwc_qp_inc(dst, rdma_recvs);
	else if (eng_wr_is_write(m->opcode))
		eng_hwc_qp_inc(dst, rx_write_requests);
	else if (eng_wr_is_read(m->opcode))
		eng_hwc_qp_inc(dst, rx_read_requests);
	else if (eng_wr_is_atomic(m->opcode))
		eng_hwc_qp_inc(dst, rx_atomic_requests);
}

void eng_hwc_wire_tx(struct eng_dev *d, struct eng_qp *qp, int ret,
		     uint32_t paylen)
{
	if (ret < 0) {
		eng_hwc_add(d, qp, send_err, 1);
		return;
	}
	eng_hwc_add(d, qp, sent_pkts, 1);
	eng_hwc_add(d, qp, sent_bytes, paylen);
}
