/* SPDX-License-Identifier: MIT */
/*
 * XRC between two pods (IBA 19.2.5): A's XRC_SEND QPs send to B's
 * XRC_RECV QPs naming one of B's XRC SRQs.  Messages naming B's SRQ of
 * the receiving QP's domain arrive there, with their data, on that SRQ's
 * CQ, reporting the XRC_RECV QP and the sender.  A message naming an SRQ
 * of another domain of B, one of A's own SRQs (another pod's), number 0
 * (a basic SRQ has none) or a number no SRQ has is refused: A's WQE
 * completes with IBV_WC_REM_INV_REQ_ERR, nothing reaches any of B's
 * queues, and B's XRC_RECV QPs keep working.  A opening the domain file
 * B opened is refused (EPERM: a domain never spans two pods) where one
 * engine serves both.  Cross-node the same runs over the wire (XRC
 * opcodes, the XRCETH naming the SRQ).  Verbs
 * errors: ibv_get_srq_num of a basic SRQ, closing a domain in use.  The
 * last send goes through ibv_wr_set_xrc_srqn (the extended API).
 * Prints "tally: srqn_refused=N xrcd_refused=N" for the script.
 */
#include "dpt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCASE	6
#define MSG	3000u		/* bytes; spans pages, one chunk */

enum { C_GOOD, C_OTHER_XRCD, C_NONE, C_ZERO, C_OTHER_POD, C_GOOD_AGAIN };

/* What B tells A. */
struct b_info {
	uint32_t tgt_qpn[NCASE];
	uint32_t tgt_psn[NCASE];
	union ibv_gid gid;
	uint32_t srqn_good, srqn_other;
	char path[PATH_MAX];
};

static struct ibv_xrcd *open_xrcd(struct dpt_side *s, int fd, int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd, .oflags = oflags,
	};

	return ibv_open_xrcd(s->ctx, &a);
}

static struct ibv_srq *xrc_srq(struct dpt_side *s, struct ibv_xrcd *x,
			       struct ibv_cq *cq)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_XRC, .xrcd = x, .cq = cq, .pd = s->pd,
	};
	struct ibv_srq *srq = ibv_create_srq_ex(s->ctx, &a);

	CHECK(srq, "ibv_create_srq_ex(XRC): %s", strerror(errno));
	return srq;
}

static uint32_t srq_num(struct ibv_srq *srq)
{
	uint32_t n = 0;

	CHECK(ibv_get_srq_num(srq, &n) == 0, "ibv_get_srq_num");
	CHECK(n && n <= 0xffffff, "SRQ number %u", n);
	return n;
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		   const char *to)
{
	int rc = ibv_modify_qp(qp, a, mask);

	CHECK(rc == 0, "XRC QP %u to %s: %s", qp->qp_num, to, strerror(rc));
}

/* RESET -> INIT -> RTR (-> RTS) with the masks of XRC's halves. */
static void xrc_connect(struct dpt_side *s, struct ibv_qp *qp,
			const union ibv_gid *gid, uint32_t dest_qpn,
			uint32_t rq_psn, uint32_t sq_psn)
{
	bool send = qp->qp_type == IBV_QPT_XRC_SEND;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = 0 };
	int mask;

	modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = s->mtu;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.hop_limit = 64;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN;
	if (!send)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	modify(qp, &a, mask, "RTR");
	if (!send)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = 12;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	       "RTS");
}

/* wr as ibv_wr_send + ibv_wr_set_xrc_srqn + ibv_wr_set_sge. */
static void post_ex(struct ibv_qp *qp, const struct ibv_send_wr *wr)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);

	CHECK(x, "no ibv_qp_ex for an XRC_SEND QP made with send_ops_flags");
	ibv_wr_start(x);
	x->wr_id = wr->wr_id;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_xrc_srqn(x, wr->qp_type.xrc.remote_srqn);
	ibv_wr_set_sge(x, wr->sg_list[0].lkey, wr->sg_list[0].addr,
		       wr->sg_list[0].length);
	CHECK(ibv_wr_complete(x) == 0, "ibv_wr_complete");
}

/* Everything goes, the harness's PD and context too: a sanitizer build
 * then shows the XRC paths leave nothing behind. */
static void close_all(struct dpt_side *s)
{
	CHECK(ibv_dealloc_pd(s->pd) == 0, "ibv_dealloc_pd");
	CHECK(ibv_close_device(s->ctx) == 0, "ibv_close_device");
	s->pd = NULL;
	s->ctx = NULL;
}

/* Both sides on one engine (same node): dpt.c's PODVERBS_ENGINE_B is
 * B's engine when it has its own. */
static bool one_engine(void)
{
	const char *a = getenv("PODVERBS_ENGINE"), *b = getenv("PODVERBS_ENGINE_B");

	return !a || !b || strcmp(a, b) == 0;
}

static int side_a(struct dpt_side *s)
{
	struct ibv_cq *cq = dpt_cq(s, 16, NULL);
	char *buf = dpt_buf(MSG);
	struct ibv_mr *mr = dpt_mr(s, buf, MSG, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_xrcd *mine = open_xrcd(s, -1, O_CREAT), *theirs;
	struct ibv_srq *own;
	struct b_info b;
	uint32_t srqn[NCASE], psn[NCASE];
	int fd, refused = 0, xrcd_refused = 0;

	CHECK(mine, "ibv_open_xrcd(private): %s", strerror(errno));
	own = xrc_srq(s, mine, cq);
	dpt_recv(s, &b, sizeof(b));
	/* B's domain file, opened here: another pod's domain, refused by
	 * an engine that serves both pods; another node's engine knows no
	 * domain of it and makes A its own. */
	fd = open(b.path, O_RDONLY);
	CHECK(fd >= 0, "open %s: %s", b.path, strerror(errno));
	theirs = open_xrcd(s, fd, O_CREAT);
	if (one_engine()) {
		CHECK(!theirs && errno == EPERM, "ibv_open_xrcd on B's file: %s",
		      theirs ? "opened" : strerror(errno));
		xrcd_refused = 1;
	} else {
		CHECK(theirs, "ibv_open_xrcd on the file, another node: %s",
		      strerror(errno));
		CHECK(ibv_close_xrcd(theirs) == 0, "close it");
	}
	close(fd);
	srqn[C_GOOD] = srqn[C_GOOD_AGAIN] = b.srqn_good;
	srqn[C_OTHER_XRCD] = b.srqn_other;
	srqn[C_NONE] = 1;
	while (srqn[C_NONE] == b.srqn_good || srqn[C_NONE] == b.srqn_other)
		srqn[C_NONE]++;
	srqn[C_ZERO] = 0;
	srqn[C_OTHER_POD] = srq_num(own);
	for (int i = 0; i < NCASE; i++)
		psn[i] = (uint32_t)(lrand48() & 0xffffff);
	dpt_send(s, psn, sizeof(psn));
	dpt_send(s, &s->gid, sizeof(s->gid));
	for (int i = 0; i < NCASE; i++) {
		struct ibv_qp_init_attr_ex ia = {
			.qp_type = IBV_QPT_XRC_SEND, .send_cq = cq,
			.cap = { .max_send_wr = 4, .max_send_sge = 1 },
			.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = s->pd,
		};
		struct ibv_qp *qp;
		struct ibv_sge sge = { (uintptr_t)buf, MSG, mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		};
		bool good = i == C_GOOD || i == C_GOOD_AGAIN;
		struct ibv_wc wc;

		/* The last case posts through the extended API. */
		if (i == C_GOOD_AGAIN) {
			ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
			ia.send_ops_flags = IBV_QP_EX_WITH_SEND;
		}
		qp = ibv_create_qp_ex(s->ctx, &ia);
		CHECK(qp, "ibv_create_qp_ex(XRC_SEND): %s", strerror(errno));
		dpt_send(s, &qp->qp_num, sizeof(qp->qp_num));
		dpt_sync(s);		/* B's target QP is at RTR */
		xrc_connect(s, qp, &b.gid, b.tgt_qpn[i], b.tgt_psn[i],
			    psn[i]);
		if (i == C_OTHER_POD && srqn[i] == b.srqn_good) {
			dpt_log(s, "A's SRQ number equals B's: case skipped");
			good = true;	/* it does name B's good SRQ */
		}
		wr.qp_type.xrc.remote_srqn = srqn[i];
		dpt_fill(buf, MSG, (unsigned)i);
		if (i == C_GOOD_AGAIN)
			post_ex(qp, &wr);
		else
			dpt_post_send(qp, &wr);
		dpt_wc(cq, &wc, good ? IBV_WC_SUCCESS : IBV_WC_REM_INV_REQ_ERR,
		       good ? IBV_WC_SEND : -1, "XRC send");
		refused += !good;
		dpt_send(s, &good, sizeof(good));
		dpt_sync(s);		/* B checked its queues */
		CHECK(ibv_destroy_qp(qp) == 0, "destroy XRC_SEND QP");
	}
	CHECK(ibv_close_xrcd(mine) == EBUSY, "close of a domain with an SRQ");
	CHECK(ibv_destroy_srq(own) == 0, "destroy XRC SRQ");
	CHECK(ibv_close_xrcd(mine) == 0, "close XRC domain");
	CHECK(ibv_dereg_mr(mr) == 0 && ibv_destroy_cq(cq) == 0, "teardown");
	free(buf);
	close_all(s);
	dpt_log(s, "tally: srqn_refused=%d xrcd_refused=%d", refused,
		xrcd_refused);
	dpt_log(s, "XRC sends to the named SRQ only, %d foreign SRQ numbers "
		"refused, another pod's domain file %s: ok", refused,
		xrcd_refused ? "refused" : "a domain of this node's own");
	return 0;
}

/* Nothing arrived on B's other queues; the good SRQ got exactly what
 * A sent when good. */
static void b_check(struct ibv_cq *cq_good, struct ibv_cq *cq_other,
		    struct ibv_qp *tgt, uint32_t src, char *rbuf, int i,
		    bool good)
{
	struct ibv_wc wc;
	int bad;

	dpt_no_wc(cq_other, 50, "completion on the other domain's SRQ CQ");
	if (!good) {
		dpt_no_wc(cq_good, 50, "completion from a refused message");
		return;
	}
	dpt_wc(cq_good, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "XRC receive");
	CHECK(wc.byte_len == MSG, "byte_len %u", wc.byte_len);
	CHECK(wc.qp_num == tgt->qp_num, "wc.qp_num %u, XRC_RECV QP is %u",
	      wc.qp_num, tgt->qp_num);
	CHECK(wc.src_qp == src, "wc.src_qp %u, sender %u", wc.src_qp, src);
	bad = dpt_check(rbuf + wc.wr_id * MSG, MSG, (unsigned)i);
	CHECK(bad < 0, "case %d: data differs at byte %d", i, bad);
}

static int side_b(struct dpt_side *s)
{
	struct ibv_cq *cq_good = dpt_cq(s, 16, NULL);
	struct ibv_cq *cq_other = dpt_cq(s, 16, NULL);
	char *rbuf = dpt_buf(16 * MSG);
	struct ibv_mr *mr = dpt_mr(s, rbuf, 16 * MSG, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_srq_init_attr ba = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_xrcd *x1, *x2;
	struct ibv_srq *good, *other, *basic;
	struct ibv_qp *tgt[NCASE];
	struct b_info b;
	union ibv_gid agid;
	uint32_t psn[NCASE], n;
	int fd;

	memset(&b, 0, sizeof(b));
	snprintf(b.path, sizeof(b.path), "/tmp/dpt_xrc.%d", (int)getpid());
	fd = open(b.path, O_RDONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0, "create %s: %s", b.path, strerror(errno));
	x1 = open_xrcd(s, fd, O_CREAT);
	CHECK(x1, "ibv_open_xrcd(%s): %s", b.path, strerror(errno));
	x2 = open_xrcd(s, -1, O_CREAT);
	CHECK(x2, "ibv_open_xrcd(private): %s", strerror(errno));
	good = xrc_srq(s, x1, cq_good);
	other = xrc_srq(s, x2, cq_other);
	basic = ibv_create_srq(s->pd, &ba);
	CHECK(basic, "ibv_create_srq: %s", strerror(errno));
	CHECK(ibv_get_srq_num(basic, &n) == EINVAL, "number of a basic SRQ");
	b.srqn_good = srq_num(good);
	b.srqn_other = srq_num(other);
	CHECK(b.srqn_good != b.srqn_other, "two SRQs, one number");
	for (int i = 0; i < 16; i++) {
		struct ibv_sge sge = { (uintptr_t)rbuf + (size_t)i * MSG, MSG,
				       mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;
		struct ibv_srq *q = i < 8 ? good : i < 12 ? other : basic;

		if (i >= 8)
			sge.addr = (uintptr_t)rbuf + 15 * MSG;
		CHECK(ibv_post_srq_recv(q, &wr, &bad) == 0, "post SRQ recv");
	}
	for (int i = 0; i < NCASE; i++) {
		struct ibv_qp_init_attr_ex ia = {
			.qp_type = IBV_QPT_XRC_RECV,
			.comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = x1,
		};

		tgt[i] = ibv_create_qp_ex(s->ctx, &ia);
		CHECK(tgt[i], "ibv_create_qp_ex(XRC_RECV): %s", strerror(errno));
		b.tgt_qpn[i] = tgt[i]->qp_num;
		b.tgt_psn[i] = (uint32_t)(lrand48() & 0xffffff);
	}
	b.gid = s->gid;
	dpt_send(s, &b, sizeof(b));
	dpt_recv(s, psn, sizeof(psn));
	dpt_recv(s, &agid, sizeof(agid));
	for (int i = 0; i < NCASE; i++) {
		uint32_t src;
		bool ok;

		dpt_recv(s, &src, sizeof(src));
		xrc_connect(s, tgt[i], &agid, src, psn[i], b.tgt_psn[i]);
		dpt_sync(s);
		dpt_recv(s, &ok, sizeof(ok));
		b_check(cq_good, cq_other, tgt[i], src, rbuf, i, ok);
		dpt_sync(s);
	}
	dpt_no_wc(cq_other, 100, "anything on the other domain's SRQ");
	CHECK(ibv_close_xrcd(x1) == EBUSY, "close of a domain in use");
	for (int i = 0; i < NCASE; i++)
		CHECK(ibv_destroy_qp(tgt[i]) == 0, "destroy XRC_RECV QP");
	CHECK(ibv_destroy_srq(good) == 0 && ibv_destroy_srq(other) == 0 &&
	      ibv_destroy_srq(basic) == 0, "destroy SRQs");
	CHECK(ibv_close_xrcd(x1) == 0 && ibv_close_xrcd(x2) == 0,
	      "close XRC domains");
	CHECK(ibv_dereg_mr(mr) == 0 && ibv_destroy_cq(cq_good) == 0 &&
	      ibv_destroy_cq(cq_other) == 0, "teardown");
	free(rbuf);
	close_all(s);
	close(fd);
	unlink(b.path);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
