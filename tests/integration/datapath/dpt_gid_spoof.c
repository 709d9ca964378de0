/* SPDX-License-Identifier: MIT */
/*
 * GID ownership between two pods, run after pod A added pod B's address
 * (and one more of its own) to its interface:
 *  - A's GID table does not hold B's GID; an address vector or an RTR
 *    with sgid_index at or past A's table is refused with EINVAL;
 *  - UD datagrams A addresses to B's GID and QP number reach B, not A's
 *    own QP of the same number; the GRH B reads carries, for each
 *    sgid_index A used, A's real GID at that index;
 *  - an RC QP of A whose number equals the one B's QP is connected to,
 *    but at a GID that is not A's, cannot get into B's QP (A's sends end
 *    in RETRY_EXC_ERR, B sees nothing).
 */
#include "dpt.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define QKEY	0x0badcafeu
#define SLOT	1024
#define NSLOTS	16

struct ends {
	struct ibv_cq *cq;
	struct ibv_qp *ud;
	struct ibv_mr *mr;
	char *buf;
	struct dpt_conn peer;
};

/* A's GID table as A's library reports it. */
struct gid_table {
	uint32_t n;
	union ibv_gid gid[16];
};

static bool gid_zero(const union ibv_gid *g)
{
	static const union ibv_gid z;

	return memcmp(g, &z, sizeof(z)) == 0;
}

static bool gid_v4(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(g->raw, pfx, sizeof(pfx)) == 0;
}

static void read_table(struct dpt_side *s, struct gid_table *t)
{
	struct ibv_port_attr pa;

	CHECK(ibv_query_port(s->ctx, 1, &pa) == 0, "ibv_query_port");
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < pa.gid_tbl_len && i < 16; i++) {
		union ibv_gid g;

		CHECK(ibv_query_gid(s->ctx, 1, i, &g) == 0, "ibv_query_gid %d",
		      i);
		if (gid_zero(&g))
			break;
		t->gid[t->n++] = g;
	}
}

static void setup(struct dpt_side *s, struct ends *e)
{
	struct dpt_conn me;

	e->cq = dpt_cq(s, 64, NULL);
	e->ud = dpt_qp(s, IBV_QPT_UD, e->cq, NULL, NULL, 1);
	e->buf = dpt_buf(NSLOTS * SLOT);
	e->mr = dpt_mr(s, e->buf, NSLOTS * SLOT, IBV_ACCESS_LOCAL_WRITE);
	dpt_ud_ready(e->ud, QKEY);
	dpt_conn_fill(s, &me, e->ud, e->mr);
	dpt_swap(s, &me, &e->peer);
}

static struct ibv_ah *ah_at(struct dpt_side *s, const union ibv_gid *dgid,
			    int sgid_index)
{
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = *dgid, .sgid_index = (uint8_t)sgid_index,
			 .hop_limit = 64 },
	};

	return ibv_create_ah(s->pd, &aa);
}

/* INIT -> RTR towards (dgid, qpn) from sgid_index; returns ibv_modify_qp's
 * result. */
static int rc_rtr(struct dpt_side *s, struct ibv_qp *qp,
		  const union ibv_gid *dgid, uint32_t qpn, int sgid_index)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = s->mtu,
		.dest_qp_num = qpn, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = *dgid,
				      .sgid_index = (uint8_t)sgid_index,
				      .hop_limit = 64 } },
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

static void rc_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = DPT_ACCESS_ALL };

	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0,
	      "RC to INIT: %s", strerror(errno));
}

static void rc_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .timeout = 8,
				 .retry_cnt = 1, .rnr_retry = 1,
				 .max_rd_atomic = 1 };

	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC) == 0,
	      "RC to RTS: %s", strerror(errno));
}

/* Nothing past A's table can be used as a source. */
static void check_refused(struct dpt_side *s, const struct gid_table *t,
			  const union ibv_gid *dgid, struct ibv_qp *rc,
			  uint32_t qpn)
{
	int bad[2] = { (int)t->n, 15 };
	struct ibv_ah *ah;
	int rc_ret;

	for (int i = 0; i < 2; i++) {
		if (bad[i] < (int)t->n)
			continue;
		errno = 0;
		ah = ah_at(s, dgid, bad[i]);
		CHECK(!ah && errno == EINVAL,
		      "AH with sgid_index %d (table of %u): %s", bad[i], t->n,
		      ah ? "created" : strerror(errno));
		rc_ret = rc_rtr(s, rc, dgid, qpn, bad[i]);
		CHECK(rc_ret == EINVAL, "RTR with sgid_index %d (table of %u): "
		      "%s", bad[i], t->n, rc_ret ? strerror(rc_ret) : "ok");
		CHECK(dpt_qp_state(rc) == IBV_QPS_INIT, "QP left INIT: %s",
		      dpt_state_str(dpt_qp_state(rc)));
	}
}

/* UD to B's GID and QP number, once from each of A's GIDs. */
static void ud_from_each_gid(struct dpt_side *s, struct ends *e,
			     const struct gid_table *t)
{
	for (uint32_t i = 0; i < t->n; i++) {
		struct ibv_ah *ah = ah_at(s, &e->peer.gid, (int)i);
		struct ibv_sge sge = { (uintptr_t)e->buf + i * SLOT, 64,
				       e->mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		};
		struct ibv_wc wc;

		CHECK(ah, "AH from sgid_index %u: %s", i, strerror(errno));
		dpt_fill(e->buf + i * SLOT, 64, 100 + i);
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = e->peer.qpn;
		wr.wr.ud.remote_qkey = QKEY;
		dpt_post_send(e->ud, &wr);
		dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, IBV_WC_SEND, "UD send");
		CHECK(ibv_destroy_ah(ah) == 0, "ibv_destroy_ah");
	}
}

static int side_a(struct dpt_side *s)
{
	struct gid_table t;
	struct ends e;
	struct ibv_qp *rc;
	struct ibv_send_wr wr = { .wr_id = 900, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct dpt_conn me, brc;
	struct ibv_wc wc;

	setup(s, &e);
	read_table(s, &t);
	CHECK(t.n >= 2, "A's table has %u GIDs, expected its two IPv4 "
	      "addresses", t.n);
	for (uint32_t i = 0; i < t.n; i++)
		CHECK(memcmp(&t.gid[i], &e.peer.gid, 16) != 0,
		      "A's GID[%u] is B's GID", i);
	dpt_send(s, &t, sizeof(t));

	rc = dpt_qp(s, IBV_QPT_RC, e.cq, NULL, NULL, 1);
	rc_init(rc);
	check_refused(s, &t, &e.peer.gid, rc, e.peer.qpn);
	dpt_log(s, "table of %u GIDs without B's; sgid_index %u refused "
		"(AH, RTR)", t.n, t.n);

	/* A's own UD QP listens too: a hijack would land here. */
	dpt_post_recv(e.ud, 50, e.buf + 15 * SLOT, SLOT, e.mr->lkey);
	dpt_sync(s);			/* B posted its receives */
	ud_from_each_gid(s, &e, &t);
	dpt_sync(s);			/* B checked them */
	dpt_no_wc(e.cq, 200, "A's own UD QP");
	dpt_log(s, "UD to B's GID reached B (A's QP %u, B's %u), GRH source "
		"= A's GID at each of %u sgid_index", e.ud->qp_num, e.peer.qpn,
		t.n);

	/* B's RC QP waits for a QP numbered like ours at someone else's
	 * GID: ours must not get in. */
	dpt_conn_fill(s, &me, rc, e.mr);
	dpt_swap(s, &me, &brc);
	CHECK(rc_rtr(s, rc, &e.peer.gid, brc.qpn, 0) == 0, "RTR: %s",
	      strerror(errno));
	rc_rts(rc);
	dpt_sync(s);			/* B is in RTR with a receive posted */
	dpt_post_send(rc, &wr);
	dpt_wc(e.cq, &wc, IBV_WC_RETRY_EXC_ERR, -1, "RC send into B's QP "
	       "connected to another GID");
	dpt_sync(s);
	dpt_log(s, "RC QP %u could not speak for another GID's QP: ok",
		rc->qp_num);
	return 0;
}

/* B: the GRH of datagram i is A's GID[i] -> B's GID. */
static void check_grh(struct ends *e, const struct ibv_wc *wc,
		      const struct gid_table *t, const union ibv_gid *me)
{
	const unsigned char *g = (const unsigned char *)e->buf +
				 wc->wr_id * SLOT;
	const union ibv_gid *src = &t->gid[wc->wr_id];
	int bad;

	CHECK(wc->wc_flags & IBV_WC_GRH, "no GRH");
	CHECK(wc->byte_len == 64 + 40, "byte_len %u", wc->byte_len);
	if (gid_v4(src) && gid_v4(me)) {
		CHECK((g[20] >> 4) == 4, "GRH %llu: not an IPv4 header",
		      (unsigned long long)wc->wr_id);
		CHECK(memcmp(g + 32, src->raw + 12, 4) == 0,
		      "GRH %llu: IPv4 source %u.%u.%u.%u is not A's GID",
		      (unsigned long long)wc->wr_id, g[32], g[33], g[34],
		      g[35]);
		CHECK(memcmp(g + 36, me->raw + 12, 4) == 0,
		      "GRH %llu: IPv4 destination", (unsigned long long)wc->wr_id);
	} else {
		CHECK((g[0] >> 4) == 6, "GRH %llu: not an IPv6 header",
		      (unsigned long long)wc->wr_id);
		CHECK(memcmp(g + 8, src->raw, 16) == 0,
		      "GRH %llu: SGID is not A's GID at that index",
		      (unsigned long long)wc->wr_id);
		CHECK(memcmp(g + 24, me->raw, 16) == 0, "GRH %llu: DGID",
		      (unsigned long long)wc->wr_id);
	}
	bad = dpt_check(g + 40, 64, 100 + (unsigned)wc->wr_id);
	CHECK(bad < 0, "datagram %llu differs at byte %d",
	      (unsigned long long)wc->wr_id, bad);
}

static int side_b(struct dpt_side *s)
{
	static const union ibv_gid elsewhere = { .raw = {
		[10] = 0xff, [11] = 0xff, 10, 78, 0, 99 } };
	struct gid_table t;
	struct ends e;
	struct dpt_conn me, arc;
	struct ibv_qp *rc;
	struct ibv_wc wc;

	setup(s, &e);
	dpt_recv(s, &t, sizeof(t));
	CHECK(t.n <= 15, "A's table of %u GIDs", t.n);
	for (uint32_t i = 0; i < t.n; i++)
		dpt_post_recv(e.ud, i, e.buf + i * SLOT, SLOT, e.mr->lkey);
	dpt_sync(s);
	dpt_sync(s);			/* A sent them */
	for (uint32_t i = 0; i < t.n; i++) {
		dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "UD from A");
		CHECK(wc.wr_id == i, "datagram %llu, expected %u",
		      (unsigned long long)wc.wr_id, i);
		CHECK(wc.src_qp == e.peer.qpn, "src_qp %u", wc.src_qp);
		check_grh(&e, &wc, &t, &s->gid);
	}

	rc = dpt_qp(s, IBV_QPT_RC, e.cq, NULL, NULL, 1);
	dpt_conn_fill(s, &me, rc, e.mr);
	dpt_swap(s, &me, &arc);
	rc_init(rc);
	CHECK(rc_rtr(s, rc, &elsewhere, arc.qpn, 0) == 0, "B RTR: %s",
	      strerror(errno));
	dpt_post_recv(rc, 7, e.buf, SLOT, e.mr->lkey);
	dpt_sync(s);
	dpt_sync(s);			/* A's send failed */
	dpt_no_wc(e.cq, 100, "B's RC QP (connected to another GID)");
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
