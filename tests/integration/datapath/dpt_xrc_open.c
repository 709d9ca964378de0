/* SPDX-License-Identifier: MIT */
/*
 * Shared XRC_RECV QPs (ibv_open_qp(3), IBA 19.2.5) between two pods.
 * In B, an opener (a second context: another engine connection) holds
 * the XRC domain of a file, an XRC SRQ of it and its CQ; B's first
 * context creates XRC_RECV QP 1 in the same domain (the file's), and a
 * child process of B creates QP 2 there too.  The opener opens both by
 * number; QP 1 goes to RTR through the opener's handle (the creator
 * sees the state), then the creator destroys its handle and closes its
 * domain handle (free now: the QP holds the opener's); QP 2's creator
 * dies (its connection ends) with QP 2 between INIT and RTR.  A's
 * XRC_SEND QPs then deliver into the opener's SRQ through both QPs,
 * reporting each QP's number.  Once the opener destroys QP 1's last
 * handle, QP 1 is gone: it cannot be opened again and A's next send to
 * it exceeds its retries with nothing delivered.
 * Refused, with EINVAL: a mask without the type or the domain, a type
 * other than XRC_RECV, a number above 24 bits, an XRC_RECV QP of
 * another domain, an RC QP, a number no QP has; in A, B's QP number
 * through A's own domain (a pod never reaches another's QP; cross-node
 * also through A's domain of the same file).
 * Prints "tally: refused=N handed_over=N opened=N" (B's engine's counts
 * at least) for the script.
 */
#include "dpt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MSG	2000u
#define NRECV	8

/* What B tells A. */
struct b_info {
	uint32_t qpn[2];
	uint32_t psn[2];
	uint32_t srqn;
	union ibv_gid gid;
	char path[PATH_MAX];
};

/* What A tells B. */
struct a_info {
	uint32_t qpn[2];
	uint32_t psn[2];
	union ibv_gid gid;
};

static struct ibv_xrcd *open_xrcd(struct ibv_context *ctx, int fd,
				  int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd, .oflags = oflags,
	};

	return ibv_open_xrcd(ctx, &a);
}

static struct ibv_qp *xrc_recv_qp(struct ibv_context *ctx,
				  struct ibv_xrcd *x)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = x,
	};

	return ibv_create_qp_ex(ctx, &ia);
}

static struct ibv_qp *open_qp(struct ibv_context *ctx, struct ibv_xrcd *x,
			      uint32_t qpn, uint32_t mask, int type,
			      void *qp_context)
{
	struct ibv_qp_open_attr a = {
		.comp_mask = mask, .qp_num = qpn, .xrcd = x,
		.qp_context = qp_context, .qp_type = (enum ibv_qp_type)type,
	};

	return ibv_open_qp(ctx, &a);
}

#define OPEN_MASK (IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | \
		   IBV_QP_OPEN_ATTR_TYPE)

/* ibv_open_qp must fail with EINVAL. */
static void open_refused(struct ibv_context *ctx, struct ibv_xrcd *x,
			 uint32_t qpn, uint32_t mask, int type,
			 const char *what)
{
	struct ibv_qp *qp;

	errno = 0;
	qp = open_qp(ctx, x, qpn, mask, type, NULL);
	CHECK(!qp && errno == EINVAL, "ibv_open_qp, %s: %s", what,
	      qp ? "opened" : strerror(errno));
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		   const char *to)
{
	int rc = ibv_modify_qp(qp, a, mask);

	CHECK(rc == 0, "XRC QP %u to %s: %s", qp->qp_num, to, strerror(rc));
}

static void to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "INIT");
}

static void to_rtr(struct ibv_qp *qp, enum ibv_mtu mtu,
		   const union ibv_gid *gid, uint32_t dest, uint32_t rq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = mtu, .dest_qp_num = dest,
		.rq_psn = rq_psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = *gid, .hop_limit = 64 } },
	};
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	if (qp->qp_type == IBV_QPT_XRC_RECV)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	modify(qp, &a, mask, "RTR");
}

/* Short retries: the send to a QP that is gone fails fast. */
static void to_rts(struct ibv_qp *qp, uint32_t sq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .sq_psn = sq_psn, .timeout = 10,
		.retry_cnt = 2, .rnr_retry = 7, .max_rd_atomic = 1,
	};

	modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	       "RTS");
}

static enum ibv_qp_state state_of(struct ibv_qp *qp, const char *who)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int rc = ibv_query_qp(qp, &a, IBV_QP_STATE, &init);

	CHECK(rc == 0, "ibv_query_qp through %s: %s", who, strerror(rc));
	CHECK(init.qp_type == IBV_QPT_XRC_RECV, "%s: type %d", who,
	      init.qp_type);
	return a.qp_state;
}

/* Both sides on one engine (same node). */
static bool one_engine(void)
{
	const char *a = getenv("PODVERBS_ENGINE");
	const char *b = getenv("PODVERBS_ENGINE_B");

	return !a || !b || strcmp(a, b) == 0;
}

static void send_one(struct ibv_qp *qp, struct ibv_cq *cq, char *buf,
		     struct ibv_mr *mr, uint32_t srqn, unsigned seed,
		     enum ibv_wc_status want, const char *what)
{
	struct ibv_sge sge = { (uintptr_t)buf, MSG, mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = seed, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;

	wr.qp_type.xrc.remote_srqn = srqn;
	dpt_fill(buf, MSG, seed);
	dpt_post_send(qp, &wr);
	dpt_wc(cq, &wc, want, want == IBV_WC_SUCCESS ? IBV_WC_SEND : -1,
	       what);
}

static int side_a(struct dpt_side *s)
{
	struct ibv_cq *cq = dpt_cq(s, 16, NULL);
	char *buf = dpt_buf(MSG);
	struct ibv_mr *mr = dpt_mr(s, buf, MSG, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_xrcd *mine = open_xrcd(s->ctx, -1, O_CREAT), *theirs;
	struct ibv_qp *qp[2];
	struct b_info b;
	struct a_info a;
	int fd;

	CHECK(mine, "ibv_open_xrcd(private): %s", strerror(errno));
	dpt_recv(s, &b, sizeof(b));
	/* B's QPs through A's own domain: never. */
	open_refused(s->ctx, mine, b.qpn[0], OPEN_MASK, IBV_QPT_XRC_RECV,
		     "B's QP through A's private domain");
	fd = open(b.path, O_RDONLY);
	CHECK(fd >= 0, "open %s: %s", b.path, strerror(errno));
	theirs = open_xrcd(s->ctx, fd, O_CREAT);
	if (one_engine()) {
		CHECK(!theirs && errno == EPERM, "ibv_open_xrcd on B's file: %s",
		      theirs ? "opened" : strerror(errno));
	} else {
		/* Another node's engine makes A a domain of its own. */
		CHECK(theirs, "ibv_open_xrcd, another node: %s",
		      strerror(errno));
		open_refused(s->ctx, theirs, b.qpn[0], OPEN_MASK,
			     IBV_QPT_XRC_RECV,
			     "B's QP through A's domain of the same file");
		CHECK(ibv_close_xrcd(theirs) == 0, "close it");
	}
	close(fd);
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr_ex ia = {
			.qp_type = IBV_QPT_XRC_SEND, .send_cq = cq,
			.cap = { .max_send_wr = 4, .max_send_sge = 1 },
			.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = s->pd,
		};

		qp[i] = ibv_create_qp_ex(s->ctx, &ia);
		CHECK(qp[i], "ibv_create_qp_ex(XRC_SEND): %s", strerror(errno));
		a.qpn[i] = qp[i]->qp_num;
		a.psn[i] = (uint32_t)(lrand48() & 0xffffff);
	}
	a.gid = s->gid;
	dpt_send(s, &a, sizeof(a));
	dpt_sync(s);			/* B's QPs are at RTR */
	for (int i = 0; i < 2; i++) {
		to_init(qp[i]);
		to_rtr(qp[i], s->mtu, &b.gid, b.qpn[i], b.psn[i]);
		to_rts(qp[i], a.psn[i]);
	}
	send_one(qp[0], cq, buf, mr, b.srqn, 1, IBV_WC_SUCCESS,
		 "send through QP 1 after its creator destroyed it");
	send_one(qp[1], cq, buf, mr, b.srqn, 2, IBV_WC_SUCCESS,
		 "send through QP 2 after its creator died");
	dpt_sync(s);			/* B got both */
	dpt_sync(s);			/* B dropped QP 1's last handle */
	send_one(qp[0], cq, buf, mr, b.srqn, 3, IBV_WC_RETRY_EXC_ERR,
		 "send to QP 1 once its last handle is gone");
	dpt_sync(s);			/* B saw nothing arrive */
	for (int i = 0; i < 2; i++)
		CHECK(ibv_destroy_qp(qp[i]) == 0, "destroy XRC_SEND QP");
	CHECK(ibv_close_xrcd(mine) == 0, "close XRC domain");
	CHECK(ibv_dereg_mr(mr) == 0 && ibv_destroy_cq(cq) == 0, "teardown");
	free(buf);
	dpt_log(s, "B's shared QPs refused through A's domains; delivered "
		"through both after their creators let go; gone with the last "
		"handle: ok");
	return 0;
}

/* The child of B that creates QP 2 and dies holding it: writes its
 * number, waits for a byte, exits without cleaning up (its connection
 * ends with it). */
static pid_t creator_child(struct ibv_device *dev, const char *path,
			   uint32_t *qpn, int *ret_go)
{
	int up[2], go[2];
	pid_t pid;

	CHECK(pipe(up) == 0 && pipe(go) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		struct ibv_context *ctx = ibv_open_device(dev);
		int fd = open(path, O_RDONLY);
		struct ibv_xrcd *x = ctx && fd >= 0 ? open_xrcd(ctx, fd, 0)
						    : NULL;
		struct ibv_qp *qp = x ? xrc_recv_qp(ctx, x) : NULL;
		uint32_t n = qp ? qp->qp_num : 0;
		char c;

		if (write(up[1], &n, sizeof(n)) != sizeof(n))
			_exit(1);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(up[1]);
	close(go[0]);
	CHECK(read(up[0], qpn, sizeof(*qpn)) == sizeof(*qpn) && *qpn,
	      "the child made no XRC_RECV QP");
	close(up[0]);
	*ret_go = go[1];
	return pid;
}

/* The opener's objects: a second context (connection) of B's device. */
struct opener {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_xrcd *x;
	struct ibv_srq *srq;
	char *rbuf;
};

static void opener_up(struct opener *o, struct dpt_side *s, int fd)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_XRC,
	};

	o->ctx = ibv_open_device(s->ctx->device);
	CHECK(o->ctx, "second ibv_open_device: %s", strerror(errno));
	o->pd = ibv_alloc_pd(o->ctx);
	o->cq = ibv_create_cq(o->ctx, 16, NULL, NULL, 0);
	CHECK(o->pd && o->cq, "opener's PD and CQ: %s", strerror(errno));
	o->rbuf = dpt_buf(NRECV * MSG);
	o->mr = ibv_reg_mr(o->pd, o->rbuf, NRECV * MSG,
			   IBV_ACCESS_LOCAL_WRITE);
	CHECK(o->mr, "opener's MR: %s", strerror(errno));
	o->x = open_xrcd(o->ctx, fd, O_CREAT);
	CHECK(o->x, "opener's ibv_open_xrcd: %s", strerror(errno));
	sa.xrcd = o->x;
	sa.cq = o->cq;
	sa.pd = o->pd;
	o->srq = ibv_create_srq_ex(o->ctx, &sa);
	CHECK(o->srq, "opener's XRC SRQ: %s", strerror(errno));
	for (int i = 0; i < NRECV; i++) {
		struct ibv_sge sge = { (uintptr_t)o->rbuf + (size_t)i * MSG,
				       MSG, o->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = (uint64_t)i,
					  .sg_list = &sge, .num_sge = 1 };
		struct ibv_recv_wr *bad;

		CHECK(ibv_post_srq_recv(o->srq, &wr, &bad) == 0,
		      "post SRQ recv");
	}
}

static void opener_down(struct opener *o)
{
	CHECK(ibv_destroy_srq(o->srq) == 0, "destroy opener's SRQ");
	CHECK(ibv_close_xrcd(o->x) == 0, "close opener's domain");
	CHECK(ibv_dereg_mr(o->mr) == 0 && ibv_destroy_cq(o->cq) == 0 &&
	      ibv_dealloc_pd(o->pd) == 0, "opener's teardown");
	CHECK(ibv_close_device(o->ctx) == 0, "close opener's context");
	free(o->rbuf);
}

/* The two sends arrived in the opener's SRQ, one through each QP. */
static void check_arrivals(struct opener *o, const struct b_info *b,
			   const struct a_info *a)
{
	bool seen[2] = { false, false };

	for (int n = 0; n < 2; n++) {
		struct ibv_wc wc;
		int i, bad;

		dpt_wc(o->cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV,
		       "XRC receive through an opened QP");
		i = wc.qp_num == b->qpn[0] ? 0 : wc.qp_num == b->qpn[1] ? 1
									 : -1;
		CHECK(i >= 0 && !seen[i], "wc.qp_num %u (QPs %u, %u)",
		      wc.qp_num, b->qpn[0], b->qpn[1]);
		seen[i] = true;
		CHECK(wc.src_qp == a->qpn[i], "wc.src_qp %u, sender %u",
		      wc.src_qp, a->qpn[i]);
		CHECK(wc.byte_len == MSG, "byte_len %u", wc.byte_len);
		bad = dpt_check(o->rbuf + wc.wr_id * MSG, MSG,
				(unsigned)i + 1);
		CHECK(bad < 0, "QP %d's message differs at byte %d", i + 1,
		      bad);
	}
}

/* The refusals, EINVAL each; returns how many reached B's engine (the
 * core refuses a wrong mask or type itself).  known: every QP number
 * of B's device. */
static int b_refusals(struct opener *o, const uint32_t *known, int nknown)
{
	uint32_t qpn1 = known[0], other_dom_qpn = known[1], rc_qpn = known[2];
	uint32_t none = qpn1 ^ 0x5a5a5u;
	bool clash = true;

	open_refused(o->ctx, o->x, qpn1, OPEN_MASK & ~IBV_QP_OPEN_ATTR_TYPE,
		     IBV_QPT_XRC_RECV, "no IBV_QP_OPEN_ATTR_TYPE");
	open_refused(o->ctx, o->x, qpn1, OPEN_MASK & ~IBV_QP_OPEN_ATTR_XRCD,
		     IBV_QPT_XRC_RECV, "no IBV_QP_OPEN_ATTR_XRCD");
	open_refused(o->ctx, o->x, qpn1, OPEN_MASK, IBV_QPT_RC, "type RC");
	open_refused(o->ctx, o->x, 0x1000000u | qpn1, OPEN_MASK,
		     IBV_QPT_XRC_RECV, "a number above 24 bits");
	open_refused(o->ctx, o->x, other_dom_qpn, OPEN_MASK, IBV_QPT_XRC_RECV,
		     "an XRC_RECV QP of another domain");
	open_refused(o->ctx, o->x, rc_qpn, OPEN_MASK, IBV_QPT_XRC_RECV,
		     "an RC QP");
	while (clash) {
		none = (none + 1) & 0xffffff;
		clash = none <= 1;
		for (int i = 0; i < nknown; i++)
			clash |= none == known[i];
	}
	open_refused(o->ctx, o->x, none, OPEN_MASK, IBV_QPT_XRC_RECV,
		     "a number no QP has");
	return 4;
}

static int side_b(struct dpt_side *s)
{
	struct ibv_cq *rc_cq = dpt_cq(s, 4, NULL);
	struct ibv_qp_cap cap = { .max_send_wr = 1, .max_recv_wr = 1,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_qp *rc = dpt_qp(s, IBV_QPT_RC, rc_cq, NULL, &cap, 0);
	struct ibv_xrcd *x1, *xp;
	struct ibv_qp *t1, *tp, *o1, *o1b, *o2;
	struct opener o;
	struct b_info b;
	struct a_info a;
	int fd, go, status, refused;
	int marker = 0;
	pid_t child;

	memset(&b, 0, sizeof(b));
	snprintf(b.path, sizeof(b.path), "/tmp/dpt_xrc_open.%d", (int)getpid());
	fd = open(b.path, O_RDONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0, "create %s: %s", b.path, strerror(errno));
	opener_up(&o, s, fd);
	CHECK(ibv_get_srq_num(o.srq, &b.srqn) == 0, "ibv_get_srq_num");
	/* The creator: B's first context, the same file's domain. */
	x1 = open_xrcd(s->ctx, fd, 0);
	xp = open_xrcd(s->ctx, -1, O_CREAT);
	CHECK(x1 && xp, "creator's domains: %s", strerror(errno));
	t1 = xrc_recv_qp(s->ctx, x1);
	tp = xrc_recv_qp(s->ctx, xp);
	CHECK(t1 && tp, "XRC_RECV QPs: %s", strerror(errno));
	child = creator_child(s->ctx->device, b.path, &b.qpn[1], &go);
	b.qpn[0] = t1->qp_num;
	{
		uint32_t known[] = { t1->qp_num, tp->qp_num, rc->qp_num,
				     b.qpn[1] };

		refused = b_refusals(&o, known, 4);
	}
	o1 = open_qp(o.ctx, o.x, t1->qp_num,
		     OPEN_MASK | IBV_QP_OPEN_ATTR_CONTEXT, IBV_QPT_XRC_RECV,
		     &marker);
	CHECK(o1, "ibv_open_qp(QP 1): %s", strerror(errno));
	CHECK(o1->qp_num == t1->qp_num && o1->qp_type == IBV_QPT_XRC_RECV &&
	      o1->context == o.ctx && o1->qp_context == &marker &&
	      o1->state == IBV_QPS_RESET, "opened QP: num %u type %d state %d",
	      o1->qp_num, o1->qp_type, o1->state);
	/* A second handle of the same client, dropped alone. */
	o1b = open_qp(o.ctx, o.x, t1->qp_num, OPEN_MASK, IBV_QPT_XRC_RECV,
		      NULL);
	CHECK(o1b && o1b != o1, "second ibv_open_qp(QP 1): %s",
	      strerror(errno));
	CHECK(ibv_destroy_qp(o1b) == 0, "destroy the second handle");
	o2 = open_qp(o.ctx, o.x, b.qpn[1], OPEN_MASK, IBV_QPT_XRC_RECV, NULL);
	CHECK(o2, "ibv_open_qp(QP 2, the child's): %s", strerror(errno));
	CHECK(ibv_close_xrcd(o.x) == EBUSY, "close of a domain held open");
	for (int i = 0; i < 2; i++)
		b.psn[i] = (uint32_t)(lrand48() & 0xffffff);
	b.gid = s->gid;
	dpt_send(s, &b, sizeof(b));
	dpt_recv(s, &a, sizeof(a));

	/* QP 1: modified through the opener, seen by the creator, then
	 * the creator lets go of its handle and of its domain. */
	to_init(o1);
	to_rtr(o1, s->mtu, &a.gid, a.qpn[0], a.psn[0]);
	CHECK(state_of(t1, "the creator") == IBV_QPS_RTR,
	      "creator does not see the opener's RTR");
	CHECK(ibv_destroy_qp(t1) == 0, "creator destroys its handle");
	CHECK(ibv_close_xrcd(x1) == 0,
	      "creator's domain handle still held after its QP went");
	CHECK(state_of(o1, "the opener") == IBV_QPS_RTR,
	      "QP 1 after its creator's destroy");
	/* QP 2: INIT while its creator lives, RTR after it died. */
	to_init(o2);
	CHECK(write(go, "x", 1) == 1, "wake the child");
	close(go);
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "the creator child failed");
	usleep(300 * 1000);		/* the engine saw its connection end */
	CHECK(state_of(o2, "the opener") == IBV_QPS_INIT,
	      "QP 2 after its creator died");
	to_rtr(o2, s->mtu, &a.gid, a.qpn[1], a.psn[1]);
	dpt_sync(s);
	check_arrivals(&o, &b, &a);
	dpt_sync(s);

	/* QP 1's last handle: the QP goes. */
	CHECK(ibv_destroy_qp(o1) == 0, "destroy QP 1's last handle");
	open_refused(o.ctx, o.x, b.qpn[0], OPEN_MASK, IBV_QPT_XRC_RECV,
		     "QP 1 after its last handle went");
	refused++;
	dpt_sync(s);
	dpt_no_wc(o.cq, 300, "a message to QP 1 once gone");
	dpt_sync(s);

	CHECK(ibv_destroy_qp(o2) == 0, "destroy QP 2's last handle");
	CHECK(ibv_destroy_qp(tp) == 0 && ibv_destroy_qp(rc) == 0 &&
	      ibv_destroy_cq(rc_cq) == 0, "creator's teardown");
	CHECK(ibv_close_xrcd(xp) == 0, "close the private domain");
	opener_down(&o);
	close(fd);
	unlink(b.path);
	dpt_log(s, "tally: refused=%d handed_over=2 opened=3", refused);
	dpt_log(s, "XRC_RECV QPs opened by number, modified and queried "
		"through the opener, alive after their creators let go: ok");
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
