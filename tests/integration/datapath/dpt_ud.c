/* SPDX-License-Identifier: MIT */
/*
 * UD between two pods: SEND and SEND_WITH_IMM through an AH, the 40-byte
 * GRH at the start of the receive buffer (for IPv4-mapped GIDs, as RoCEv2
 * NICs do, an IPv4 header in bytes 20..39 with the peer's and our
 * address), src_qp, a wrong Q_Key silently dropped, a reply through
 * ibv_create_ah_from_wc, a datagram gathered from 12 SGEs (more than a
 * wire packet's iovecs: the engine gathers it), and a message larger than
 * the path MTU refused.
 */
#include "dpt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#define QKEY 0x11111111u
#define SLOT 2048		/* bytes per receive buffer */
#define NSGE 12			/* the gathered datagram's SGEs */
#define PIECE 40		/* bytes per SGE */

struct ends {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	struct dpt_conn peer;
};

static void setup(struct dpt_side *s, struct ends *e)
{
	struct dpt_conn me;
	struct ibv_qp_cap cap = { .max_send_wr = 64, .max_recv_wr = 64,
				  .max_send_sge = NSGE, .max_recv_sge = 4 };

	e->cq = dpt_cq(s, 64, NULL);
	e->qp = dpt_qp(s, IBV_QPT_UD, e->cq, NULL, &cap, 1);
	e->buf = dpt_buf(16 * SLOT);
	e->mr = dpt_mr(s, e->buf, 16 * SLOT, IBV_ACCESS_LOCAL_WRITE);
	dpt_ud_ready(e->qp, QKEY);
	dpt_conn_fill(s, &me, e->qp, e->mr);
	dpt_swap(s, &me, &e->peer);
}

static void ud_send(struct ends *e, struct ibv_ah *ah, uint64_t id,
		    uint32_t off, uint32_t len, uint32_t qkey, int imm)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + off, len, e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(0xabcd0000u + (uint32_t)id),
	};
	struct ibv_wc wc;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = e->peer.qpn;
	wr.wr.ud.remote_qkey = qkey;
	dpt_post_send(e->qp, &wr);
	dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, IBV_WC_SEND, "UD send");
	CHECK(wc.wr_id == id, "UD send wr_id %llu", (unsigned long long)wc.wr_id);
}

/* Checks a receive: length, GRH (IPv4 header from src to dst), data. */
static void check_recv(struct ends *e, struct ibv_wc *wc, uint32_t len,
		       unsigned seed, const union ibv_gid *src,
		       const union ibv_gid *dst)
{
	const unsigned char *g = (const unsigned char *)e->buf +
				 wc->wr_id * SLOT;
	int bad;

	CHECK(wc->byte_len == len + 40, "byte_len %u, expected %u + 40",
	      wc->byte_len, len);
	CHECK(wc->wc_flags & IBV_WC_GRH, "no IBV_WC_GRH");
	CHECK(wc->src_qp == e->peer.qpn, "src_qp %u, expected %u", wc->src_qp,
	      e->peer.qpn);
	CHECK((g[20] >> 4) == 4, "GRH byte 20 is 0x%02x, not an IPv4 header",
	      g[20]);
	CHECK(memcmp(g + 32, src->raw + 12, 4) == 0,
	      "GRH IPv4 source %u.%u.%u.%u", g[32], g[33], g[34], g[35]);
	CHECK(memcmp(g + 36, dst->raw + 12, 4) == 0,
	      "GRH IPv4 destination %u.%u.%u.%u", g[36], g[37], g[38], g[39]);
	bad = dpt_check(g + 40, len, seed);
	CHECK(bad < 0, "UD data differs at byte %d", bad);
}

static struct ibv_ah *make_ah(struct dpt_side *s, const union ibv_gid *gid)
{
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = *gid, .sgid_index = 0, .hop_limit = 64 },
	};
	struct ibv_ah *ah = ibv_create_ah(s->pd, &aa);

	CHECK(ah, "ibv_create_ah: %s", strerror(errno));
	return ah;
}

static int side_a(struct dpt_side *s)
{
	struct ends e;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	uint32_t mtu;

	setup(s, &e);
	ah = make_ah(s, &e.peer.gid);
	dpt_post_recv(e.qp, 8, e.buf + 8 * SLOT, SLOT, e.mr->lkey);
	dpt_sync(s);			/* B posted its receives */

	dpt_fill(e.buf, 512, 1);
	ud_send(&e, ah, 1, 0, 512, QKEY, 0);
	dpt_fill(e.buf + SLOT, 100, 2);
	ud_send(&e, ah, 2, SLOT, 100, QKEY, 1);
	dpt_fill(e.buf + 2 * SLOT, 200, 3);
	ud_send(&e, ah, 3, 2 * SLOT, 200, 0x22222222u, 0); /* wrong Q_Key */
	dpt_fill(e.buf + 3 * SLOT, 300, 4);
	ud_send(&e, ah, 4, 3 * SLOT, 300, QKEY, 0);
	dpt_fill(e.buf + 4 * SLOT, NSGE * PIECE, 6);
	{
		struct ibv_sge sg[NSGE];
		struct ibv_send_wr wr = {
			.wr_id = 6, .sg_list = sg, .num_sge = NSGE,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		};

		for (int i = 0; i < NSGE; i++)
			sg[i] = (struct ibv_sge){
				(uintptr_t)e.buf + 4 * SLOT + i * PIECE, PIECE,
				e.mr->lkey };
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = e.peer.qpn;
		wr.wr.ud.remote_qkey = QKEY;
		dpt_post_send(e.qp, &wr);
		dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_SEND, "UD send, 12 SGEs");
	}
	dpt_sync(s);			/* B checks, then replies */

	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "reply from B");
	CHECK(wc.wr_id == 8, "reply wr_id %llu", (unsigned long long)wc.wr_id);
	check_recv(&e, &wc, 64, 5, &e.peer.gid, &s->gid);

	/* larger than the path MTU: refused at post time or completed with
	 * IBV_WC_LOC_LEN_ERR */
	mtu = 128u << s->mtu;
	{
		struct ibv_sge sge = { (uintptr_t)e.buf, mtu + 1, e.mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 77, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *bad;
		int rc;

		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = e.peer.qpn;
		wr.wr.ud.remote_qkey = QKEY;
		rc = ibv_post_send(e.qp, &wr, &bad);
		if (rc == 0)
			dpt_wc(e.cq, &wc, IBV_WC_LOC_LEN_ERR, -1,
			       "UD send of MTU + 1 bytes");
		else
			CHECK(rc == EINVAL, "post of MTU + 1: %s", strerror(rc));
	}
	dpt_sync(s);			/* B saw nothing more */
	dpt_log(s, "UD SEND/SEND_WITH_IMM, GRH, src_qp, Q_Key drop, reply via "
		"ibv_create_ah_from_wc, %d SGEs gathered, > MTU (%u) refused: ok",
		NSGE, mtu);
	return 0;
}

static int side_b(struct dpt_side *s)
{
	struct ends e;
	struct ibv_wc wc;
	struct ibv_ah *ah;

	setup(s, &e);
	for (int i = 0; i < 6; i++)
		dpt_post_recv(e.qp, (uint64_t)i, e.buf + i * SLOT, SLOT,
			      e.mr->lkey);
	dpt_sync(s);
	dpt_sync(s);			/* A sent 5 (one with a wrong Q_Key) */

	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "UD recv 1");
	check_recv(&e, &wc, 512, 1, &e.peer.gid, &s->gid);
	CHECK(!(wc.wc_flags & IBV_WC_WITH_IMM), "IMM flag without imm");

	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "UD recv 2");
	check_recv(&e, &wc, 100, 2, &e.peer.gid, &s->gid);
	CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "no IBV_WC_WITH_IMM");
	CHECK(ntohl(wc.imm_data) == 0xabcd0002u, "imm 0x%x", ntohl(wc.imm_data));

	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "UD recv 3");
	CHECK(wc.byte_len != 240, "the wrong-Q_Key datagram was delivered");
	check_recv(&e, &wc, 300, 4, &e.peer.gid, &s->gid);
	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "UD recv 4 (12 SGEs)");
	check_recv(&e, &wc, NSGE * PIECE, 6, &e.peer.gid, &s->gid);
	dpt_no_wc(e.cq, 100, "after 4 datagrams");

	/* reply to where the last datagram came from */
	ah = ibv_create_ah_from_wc(s->pd, &wc,
				   (struct ibv_grh *)(e.buf + wc.wr_id * SLOT), 1);
	CHECK(ah, "ibv_create_ah_from_wc: %s", strerror(errno));
	dpt_fill(e.buf + 10 * SLOT, 64, 5);
	ud_send(&e, ah, 10, 10 * SLOT, 64, QKEY, 0);
	dpt_sync(s);
	dpt_no_wc(e.cq, 100, "after the oversize send");
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
