/* SPDX-License-Identifier: MIT */
/*
 * Q_Keys between two pods (issue 8, finding 8).  Controlled Q_Keys (the
 * high bit set, IBA 10.2.5) are for privileged consumers: a pod's
 * ibv_modify_qp with one fails with EPERM, both when moving a fresh UD QP
 * to INIT and on a ready one.  Then A guesses B's Q_Key with GUESSES
 * datagrams of random (uncontrolled) Q_Keys: B receives none.  Past its
 * budget the engine refuses A's datagrams for a while; once tokens came
 * back (the rguard_rate limit, 16 a second), a datagram with the right Q_Key
 * arrives.  (The script checks the engine counted the violations and
 * the refusals and warned.)
 */
#include "dpt.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define QKEY_A		0x11111111u
#define QKEY_B		0x2a3b4c5du
#define QKEY_CTRL	0x80000001u
#define GUESSES		20000
#define BATCH		64

static void setup(struct dpt_side *s, struct ibv_cq **cq, struct ibv_qp **qp,
		  uint32_t qkey, struct dpt_conn *peer, struct ibv_mr *mr)
{
	struct ibv_qp_cap cap = { .max_send_wr = BATCH, .max_recv_wr = 64,
				  .max_send_sge = 1, .max_recv_sge = 1,
				  .max_inline_data = 64 };
	struct dpt_conn me;

	*cq = dpt_cq(s, 256, NULL);
	*qp = dpt_qp(s, IBV_QPT_UD, *cq, NULL, &cap, 0);
	dpt_ud_ready(*qp, qkey);
	dpt_conn_fill(s, &me, *qp, mr);
	dpt_swap(s, &me, peer);
}

static void controlled_refused(struct dpt_side *s, struct ibv_qp *ready,
			       struct ibv_cq *cq)
{
	struct ibv_qp *fresh = dpt_qp(s, IBV_QPT_UD, cq, NULL, NULL, 1);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = QKEY_CTRL };
	int rc;

	rc = ibv_modify_qp(fresh, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_QKEY);
	dpt_log(s, "modify to INIT with Q_Key 0x%08x: %s", QKEY_CTRL,
		rc ? strerror(rc) : "accepted");
	CHECK(rc == EPERM, "controlled Q_Key at INIT: %s, not EPERM",
	      rc ? strerror(rc) : "accepted");
	CHECK(ibv_destroy_qp(fresh) == 0, "ibv_destroy_qp");
	memset(&a, 0, sizeof(a));
	a.qkey = QKEY_CTRL;
	rc = ibv_modify_qp(ready, &a, IBV_QP_QKEY);
	dpt_log(s, "RTS QP's Q_Key to 0x%08x: %s", QKEY_CTRL,
		rc ? strerror(rc) : "accepted");
	CHECK(rc == EPERM, "controlled Q_Key on a ready QP: %s, not EPERM",
	      rc ? strerror(rc) : "accepted");
}

static void send_batch(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_ah *ah,
		       uint32_t qpn, const uint32_t *qkeys, int n)
{
	static uint32_t msg[BATCH];
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		/* The payload names the Q_Key it was sent with. */
		struct ibv_sge sge = { (uintptr_t)&msg[i], 4, 0 };
		struct ibv_send_wr wr = {
			.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_INLINE |
				      (i == n - 1 ? IBV_SEND_SIGNALED : 0),
		};

		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qpn;
		wr.wr.ud.remote_qkey = qkeys[i];
		msg[i] = qkeys[i];
		dpt_post_send(qp, &wr);
	}
	CHECK(dpt_poll(cq, &wc, 1, 5000) == 1, "send completion");
	CHECK(wc.status == IBV_WC_SUCCESS, "UD send status %d", wc.status);
}

static int side_a(struct dpt_side *s)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct dpt_conn peer;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	uint32_t qkeys[BATCH];
	int sent = 0;

	setup(s, &cq, &qp, QKEY_A, &peer, NULL);
	controlled_refused(s, qp, cq);
	aa.grh.dgid = peer.gid;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(s->pd, &aa);
	CHECK(ah, "ibv_create_ah: %s", strerror(errno));
	dpt_sync(s);			/* B posted its receives */
	while (sent < GUESSES) {
		CHECK(getrandom(qkeys, sizeof(qkeys), 0) == sizeof(qkeys),
		      "getrandom");
		for (int i = 0; i < BATCH; i++) {
			qkeys[i] &= 0x7fffffffu;	/* uncontrolled */
			if (qkeys[i] == QKEY_B)
				qkeys[i] ^= 1;
		}
		send_batch(qp, cq, ah, peer.qpn, qkeys, BATCH);
		sent += BATCH;
	}
	dpt_log(s, "%d datagrams with guessed Q_Keys sent", sent);
	dpt_sync(s);			/* all sent: B checks */
	dpt_sync(s);			/* B saw nothing */
	usleep(1200 * 1000);		/* the budget earns tokens back */
	qkeys[0] = QKEY_B;
	send_batch(qp, cq, ah, peer.qpn, qkeys, 1);
	dpt_sync(s);			/* B got the right one */
	return 0;
}

static int side_b(struct dpt_side *s)
{
	char *buf = dpt_buf(64 * 128);
	struct ibv_mr *mr = dpt_mr(s, buf, 64 * 128, IBV_ACCESS_LOCAL_WRITE);
	struct dpt_conn peer;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_wc wc;

	setup(s, &cq, &qp, QKEY_B, &peer, mr);
	for (int i = 0; i < 64; i++)
		dpt_post_recv(qp, (uint64_t)i, buf + i * 128, 128, mr->lkey);
	dpt_sync(s);
	dpt_sync(s);
	if (dpt_poll(cq, &wc, 1, 100) == 1)
		CHECK(0, "a datagram with Q_Key 0x%08x arrived at Q_Key 0x%08x",
		      *(uint32_t *)(buf + wc.wr_id * 128 + 40), QKEY_B);
	dpt_log(s, "no datagram with a wrong Q_Key received");
	dpt_sync(s);
	dpt_sync(s);
	CHECK(dpt_poll(cq, &wc, 1, 2000) == 1 && wc.status == IBV_WC_SUCCESS,
	      "the datagram with the right Q_Key did not arrive");
	dpt_log(s, "the right Q_Key's datagram arrived");
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
