/* SPDX-License-Identifier: MIT */
/*
 * Multicast between two pods on one engine (providers/soft/engine/
 * eng_mcast.h).  B has three UD QPs: M attached to group G1, N attached to
 * nothing, O attached to G2.  A, the hostile one, first tries to attach
 * B's QP N to G1 by naming N's handle on its own connection (a forged
 * handle: libibverbs never sends one it did not get), then what the
 * engine must refuse on its own QPs: a unicast GID, an RC QP, more groups
 * per QP than ENG_MCAST_PER_QP.  Then A sends SENDS datagrams to G1
 * (QPN 0xFFFFFF): M receives each with G1 as the GRH's destination, N and
 * O none, A's own unattached QP none.  B detaches M and A sends once more:
 * nothing arrives.  Last, A attaches and detaches new groups in a loop
 * until its engine refuses the wire joins (EAGAIN).
 *
 * With the argument "cross" (A and B on two nodes' engines): groups are
 * an engine's (eng_mcast.h: IP multicast on the wire is not there yet),
 * so M receives nothing of A's datagrams either, and everything else
 * (refusals on A's engine, B's attachments and detach on B's) is the
 * same.
 */
#include "dpt.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "libverbs/pv_provider.h"

#define QKEY		0x01234567u	/* RDMA_UDP_QKEY, as mckey's */
#define SENDS		4
#define PER_QP		16		/* ENG_MCAST_PER_QP */
#define SLOT		256

/* ::ffff:239.1.2.3 and ::ffff:239.1.2.4: RoCEv2's IPv4 group GIDs. */
static void group(union ibv_gid *g, uint8_t last)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = g->raw[11] = 0xff;
	g->raw[12] = 239;
	g->raw[13] = 1;
	g->raw[14] = 2;
	g->raw[15] = last;
}

static bool cross(const struct dpt_side *s)
{
	return s->argc >= 1 && !strcmp(s->argv[0], "cross");
}

static struct ibv_qp *ud_qp(struct dpt_side *s, struct ibv_cq *cq)
{
	struct ibv_qp_cap cap = { .max_send_wr = 16, .max_recv_wr = 16,
				  .max_send_sge = 1, .max_recv_sge = 1,
				  .max_inline_data = 64 };
	struct ibv_qp *qp = dpt_qp(s, IBV_QPT_UD, cq, NULL, &cap, 1);

	dpt_ud_ready(qp, QKEY);
	return qp;
}

static void refusals(struct dpt_side *s, struct ibv_qp *qa, struct ibv_cq *cq,
		     uint32_t n_handle)
{
	struct pv_qp *pq = (struct pv_qp *)qa;
	union ibv_gid g1, g;
	uint32_t mine = pq->handle;
	struct ibv_qp *rc, *q2;
	int ret;

	group(&g1, 3);
	/* B's QP named by its handle on A's connection: the engine resolves
	 * handles per connection, so this is at most one of A's own. */
	pq->handle = n_handle;
	ret = ibv_attach_mcast(qa, &g1, 0);
	pq->handle = mine;
	dpt_log(s, "attach with B's QP handle %u: %s", n_handle,
		ret ? strerror(ret) : "accepted (one of A's own objects)");
	if (ret == 0) {
		pq->handle = n_handle;
		ibv_detach_mcast(qa, &g1, 0);
		pq->handle = mine;
	}
	ret = ibv_attach_mcast(qa, &s->gid, 0);
	CHECK(ret == EINVAL, "attach to a unicast GID: %s", strerror(ret));
	rc = dpt_qp(s, IBV_QPT_RC, cq, NULL, NULL, 1);
	ret = ibv_attach_mcast(rc, &g1, 0);
	CHECK(ret == EINVAL, "attach of an RC QP: %s", strerror(ret));
	CHECK(ibv_destroy_qp(rc) == 0, "ibv_destroy_qp");
	ret = ibv_detach_mcast(qa, &g1, 0);
	CHECK(ret == EINVAL, "detach of a group not attached: %s",
	      strerror(ret));
	q2 = ud_qp(s, cq);
	for (int i = 0; i < PER_QP; i++) {
		group(&g, (uint8_t)(100 + i));
		ret = ibv_attach_mcast(q2, &g, 0);
		CHECK(ret == 0, "attach %d: %s", i, strerror(ret));
	}
	group(&g, 200);
	ret = ibv_attach_mcast(q2, &g, 0);
	CHECK(ret == ENOMEM, "attach past the per-QP limit: %s",
	      strerror(ret));
	dpt_log(s, "refused: unicast GID, RC QP, unknown detach, group %d "
		"of a QP", PER_QP + 1);
	/* Destroying the QP drops its attachments (the script checks the
	 * engine's count). */
	CHECK(ibv_destroy_qp(q2) == 0, "ibv_destroy_qp");
}

static void send_group(struct dpt_side *s, struct ibv_qp *qp,
		       struct ibv_cq *cq, struct ibv_ah *ah, int n)
{
	static char msg[32] = "to the group";
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		struct ibv_sge sge = { (uintptr_t)msg, sizeof(msg), 0 };
		struct ibv_send_wr wr = {
			.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_INLINE,
		};

		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = 0xffffff;
		wr.wr.ud.remote_qkey = QKEY;
		dpt_post_send(qp, &wr);
		CHECK(dpt_poll(cq, &wc, 1, 5000) == 1, "send completion");
		CHECK(wc.status == IBV_WC_SUCCESS, "send status %d", wc.status);
	}
}

/* A pod that attaches and detaches new groups in a loop makes its engine
 * join each on the wire (a socket in the pod, an IGMP report): past
 * mcast_join_burst joins (32) and their rate (4 a second) the attach
 * fails with EAGAIN, and the refused group is not attached. */
static void churn(struct dpt_side *s, struct ibv_cq *cq)
{
	struct ibv_qp *q = ud_qp(s, cq);
	int ok = 0, ret = 0;
	union ibv_gid g;

	for (int i = 0; i < 200; i++) {
		group(&g, (uint8_t)i);
		g.raw[13] = 77;
		ret = ibv_attach_mcast(q, &g, 0);
		if (ret == EAGAIN)
			break;
		CHECK(ret == 0, "churn attach %d: %s", i, strerror(ret));
		ok++;
		CHECK(ibv_detach_mcast(q, &g, 0) == 0, "churn detach %d", i);
	}
	CHECK(ret == EAGAIN, "200 attach/detach rounds of new groups were "
	      "never refused (no rate limit on wire joins)");
	CHECK(ibv_detach_mcast(q, &g, 0) == EINVAL,
	      "the refused group was attached anyway");
	dpt_log(s, "churn: %d new groups joined, then EAGAIN", ok);
	CHECK(ibv_destroy_qp(q) == 0, "ibv_destroy_qp");
}

static int side_a(struct dpt_side *s)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_cq *cq = dpt_cq(s, 64, NULL);
	struct ibv_cq *rcq = dpt_cq(s, 64, NULL);
	struct ibv_qp *qa = ud_qp(s, cq);
	char *buf = dpt_buf(4 * SLOT);
	struct ibv_mr *mr = dpt_mr(s, buf, 4 * SLOT, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_qp *qr = ud_qp(s, rcq);
	uint32_t n_handle;
	struct ibv_ah *ah;

	for (int i = 0; i < 4; i++)
		dpt_post_recv(qr, (uint64_t)i, buf + i * SLOT, SLOT, mr->lkey);
	dpt_recv(s, &n_handle, sizeof(n_handle));
	refusals(s, qa, cq, n_handle);
	group(&aa.grh.dgid, 3);
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(s->pd, &aa);
	CHECK(ah, "ibv_create_ah (group): %s", strerror(errno));
	send_group(s, qa, cq, ah, SENDS);
	dpt_log(s, "%d datagrams sent to ::ffff:239.1.2.3", SENDS);
	dpt_no_wc(rcq, 200, "A's unattached QP received the group's datagram");
	dpt_sync(s);			/* B checks, then detaches */
	dpt_sync(s);
	send_group(s, qa, cq, ah, 1);
	dpt_sync(s);			/* B: nothing after the detach */
	churn(s, cq);
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct ibv_cq *cm = dpt_cq(s, 64, NULL), *cn = dpt_cq(s, 64, NULL),
		      *co = dpt_cq(s, 64, NULL);
	struct ibv_qp *m = ud_qp(s, cm), *n = ud_qp(s, cn), *o = ud_qp(s, co);
	char *buf = dpt_buf(3 * 8 * SLOT);
	struct ibv_mr *mr = dpt_mr(s, buf, 3 * 8 * SLOT,
				   IBV_ACCESS_LOCAL_WRITE);
	uint32_t n_handle = ((struct pv_qp *)n)->handle;
	union ibv_gid g1, g2;
	struct ibv_wc wc;
	int ret;

	group(&g1, 3);
	group(&g2, 4);
	for (int i = 0; i < 8; i++) {
		dpt_post_recv(m, (uint64_t)i, buf + i * SLOT, SLOT, mr->lkey);
		dpt_post_recv(n, 0, buf + (8 + i) * SLOT, SLOT, mr->lkey);
		dpt_post_recv(o, 0, buf + (16 + i) * SLOT, SLOT, mr->lkey);
	}
	ret = ibv_attach_mcast(m, &g1, 0);
	CHECK(ret == 0, "attach M to G1: %s", strerror(ret));
	CHECK(ibv_attach_mcast(m, &g1, 0) == 0, "attach twice");
	ret = ibv_attach_mcast(o, &g2, 0);
	CHECK(ret == 0, "attach O to G2: %s", strerror(ret));
	dpt_send(s, &n_handle, sizeof(n_handle));
	dpt_sync(s);
	for (int i = 0; cross(s) && i < SENDS; i++)
		dpt_no_wc(cm, 100, "M received a group datagram from another "
			  "node's engine");
	for (int i = 0; !cross(s) && i < SENDS; i++) {
		const uint8_t *ip;

		CHECK(dpt_poll(cm, &wc, 1, 5000) == 1, "M: datagram %d", i);
		CHECK(wc.status == IBV_WC_SUCCESS, "M: status %d", wc.status);
		/* RoCEv2, IPv4: the "GRH" is 20 unused bytes and the IPv4
		 * header, whose destination (offset 16) is the group. */
		ip = (const uint8_t *)buf + wc.wr_id * SLOT + 20;
		CHECK(!memcmp(ip + 16, g1.raw + 12, 4),
		      "M: IP destination %u.%u.%u.%u is not the group",
		      ip[16], ip[17], ip[18], ip[19]);
		CHECK(!strcmp(buf + wc.wr_id * SLOT + 40, "to the group"),
		      "M: payload");
	}
	dpt_no_wc(cm, 100, "M got more than was sent");
	dpt_no_wc(cn, 100, "N (never attached) received the group's datagram");
	dpt_no_wc(co, 100, "O (another group) received G1's datagram");
	dpt_log(s, "M received %d of %d; N and O none", cross(s) ? 0 : SENDS,
		SENDS);
	ret = ibv_detach_mcast(m, &g1, 0);
	CHECK(ret == 0, "detach M: %s", strerror(ret));
	dpt_sync(s);
	dpt_sync(s);
	dpt_no_wc(cm, 200, "M received after its detach");
	dpt_log(s, "after the detach: nothing");
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
