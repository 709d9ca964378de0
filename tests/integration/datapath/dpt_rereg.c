/* SPDX-License-Identifier: MIT */
/*
 * ibv_rereg_mr between two pods.  B owns one MR and reregisters it
 * between rounds; A, the requester, runs one RDMA WRITE or READ against
 * it per round on a fresh RC pair (an access error leaves the QPs in
 * ERR).  Checked: data before and after each rereg; both keys change;
 * dropping REMOTE_WRITE makes a WRITE fail with IBV_WC_REM_ACCESS_ERR
 * with the new rkey and with the old one, memory untouched, while a READ
 * works; a new range takes writes and the old range is out of reach; an
 * MR moved to another PD is out of reach of the QP's PD and back in
 * reach once moved back; rdma-core 44's argument checks
 * (IBV_REREG_MR_ERR_INPUT, errno EINVAL) and a refused command
 * (IBV_REREG_MR_ERR_CMD, errno EINVAL) leave the MR working.
 */
#include "dpt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define BUF (4 * 4096)
#define LEN 4096
#define LW IBV_ACCESS_LOCAL_WRITE

/* One round: what B tells A to do. */
struct round {
	uint64_t addr;
	uint32_t rkey;
	uint32_t op;		/* IBV_WR_RDMA_WRITE or _READ */
	uint32_t seed;		/* WRITE: pattern to write; READ: expected */
	uint32_t fail;		/* expect IBV_WC_REM_ACCESS_ERR */
	uint32_t stop;		/* no more rounds */
	char what[64];
};

struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static void pair_up(struct dpt_side *s, struct pair *p)
{
	struct dpt_qp_opts o = { .timeout = 10, .retry_cnt = 2 };
	struct dpt_conn me, peer;

	p->cq = dpt_cq(s, 16, NULL);
	p->qp = dpt_qp(s, IBV_QPT_RC, p->cq, NULL, NULL, 1);
	dpt_conn_fill(s, &me, p->qp, NULL);
	dpt_swap(s, &me, &peer);
	dpt_connect(p->qp, s, &peer, &o);
	/* Both in RTS before A posts: an error at a responder still in
	 * RTR would move it to ERR before its RTS. */
	dpt_sync(s);
}

static void pair_down(struct pair *p)
{
	CHECK(ibv_destroy_qp(p->qp) == 0, "ibv_destroy_qp");
	CHECK(ibv_destroy_cq(p->cq) == 0, "ibv_destroy_cq");
}

static int side_a(struct dpt_side *s)
{
	char *buf = dpt_buf(LEN);
	struct ibv_mr *mr = dpt_mr(s, buf, LEN, DPT_ACCESS_ALL);
	struct round rd;
	struct pair p;

	for (;;) {
		struct ibv_sge sge = { (uintptr_t)buf, LEN, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge,
					  .num_sge = 1,
					  .send_flags = IBV_SEND_SIGNALED };
		struct ibv_wc wc;

		dpt_recv(s, &rd, sizeof(rd));
		if (rd.stop)
			break;
		pair_up(s, &p);
		wr.opcode = rd.op;
		wr.wr.rdma.remote_addr = rd.addr;
		wr.wr.rdma.rkey = rd.rkey;
		if (rd.op == IBV_WR_RDMA_WRITE)
			dpt_fill(buf, LEN, rd.seed);
		else
			memset(buf, 0, LEN);
		dpt_post_send(p.qp, &wr);
		dpt_wc(p.cq, &wc, rd.fail ? IBV_WC_REM_ACCESS_ERR :
		       IBV_WC_SUCCESS, -1, rd.what);
		if (rd.op == IBV_WR_RDMA_READ && !rd.fail)
			CHECK(dpt_check(buf, LEN, rd.seed) < 0, "%s: READ "
			      "data differs", rd.what);
		dpt_log(s, "%s: %s", rd.what, rd.fail ?
			"IBV_WC_REM_ACCESS_ERR" : "done, data checked");
		dpt_sync(s);
		pair_down(&p);
	}
	CHECK(ibv_dereg_mr(mr) == 0, "ibv_dereg_mr");
	return 0;
}

/* Runs one round from B's side: A acts, then B checks its memory at
 * where (seed: what it must hold, the new pattern or the old one). */
static void round_b(struct dpt_side *s, struct round *rd, const char *where,
		    unsigned seed)
{
	struct pair p;
	int bad;

	dpt_send(s, rd, sizeof(*rd));
	pair_up(s, &p);
	dpt_sync(s);
	bad = dpt_check(where, LEN, seed);
	CHECK(bad < 0, "%s: memory differs at byte %d", rd->what, bad);
	pair_down(&p);
}

static struct round mk(const struct ibv_mr *mr, uint64_t addr, uint32_t rkey,
		       uint32_t op, uint32_t seed, uint32_t fail,
		       const char *what)
{
	struct round rd = { .addr = addr, .rkey = rkey, .op = op,
			    .seed = seed, .fail = fail };

	(void)mr;
	snprintf(rd.what, sizeof(rd.what), "%s", what);
	return rd;
}

static void rereg_ok(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		     void *addr, size_t len, int access, const char *what)
{
	uint32_t lkey = mr->lkey, rkey = mr->rkey;
	int ret = ibv_rereg_mr(mr, flags, pd, addr, len, access);

	CHECK(ret == 0, "%s: ibv_rereg_mr = %d (%s)", what, ret,
	      strerror(errno));
	CHECK(mr->lkey != lkey && mr->rkey != rkey && mr->lkey != mr->rkey,
	      "%s: keys 0x%x/0x%x -> 0x%x/0x%x: both must change", what,
	      lkey, rkey, mr->lkey, mr->rkey);
}

static void rereg_bad(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		      void *addr, size_t len, int access, int want,
		      const char *what)
{
	uint32_t lkey = mr->lkey, rkey = mr->rkey;
	int ret;

	errno = 0;
	ret = ibv_rereg_mr(mr, flags, pd, addr, len, access);
	CHECK(ret == want && errno == EINVAL, "%s: ibv_rereg_mr = %d errno "
	      "%d, want %d errno EINVAL", what, ret, errno, want);
	CHECK(mr->lkey == lkey && mr->rkey == rkey, "%s: keys changed",
	      what);
}

static void bad_args(struct dpt_side *s, struct ibv_mr *mr, char *buf)
{
	const int I = IBV_REREG_MR_ERR_INPUT, C = IBV_REREG_MR_ERR_CMD;

	rereg_bad(mr, 1 << 3, NULL, NULL, 0, 0, I, "unknown flag");
	rereg_bad(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, LEN, 0, I,
		  "TRANSLATION without addr");
	rereg_bad(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf, 0, 0, I,
		  "TRANSLATION without length");
	rereg_bad(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, buf, LEN, LW, I,
		  "a range without TRANSLATION");
	rereg_bad(mr, IBV_REREG_MR_CHANGE_PD, NULL, NULL, 0, 0, I,
		  "CHANGE_PD without a PD");
	rereg_bad(mr, 0, NULL, NULL, 0, 0, C, "no flags");
	rereg_bad(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		  IBV_ACCESS_REMOTE_WRITE, C, "REMOTE_WRITE without LOCAL_WRITE");
	rereg_bad(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		  LW | (1 << 15), C, "unknown access bit");
	dpt_log(s, "bad arguments: ERR_INPUT / ERR_CMD with EINVAL, keys kept");
}

static int side_b(struct dpt_side *s)
{
	char *buf = dpt_buf(BUF), *lo = buf, *hi = buf + 2 * LEN;
	struct ibv_mr *mr = dpt_mr(s, lo, LEN, DPT_ACCESS_ALL);
	struct ibv_pd *pd2 = ibv_alloc_pd(s->ctx);
	const uint32_t W = IBV_WR_RDMA_WRITE, R = IBV_WR_RDMA_READ;
	struct round rd, end = { .stop = 1 };
	uint32_t old_rkey;

	CHECK(pd2, "ibv_alloc_pd");
	rd = mk(mr, (uintptr_t)lo, mr->rkey, W, 1, 0, "WRITE before rereg");
	round_b(s, &rd, lo, 1);

	old_rkey = mr->rkey;
	rereg_ok(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		 LW | IBV_ACCESS_REMOTE_READ, "drop REMOTE_WRITE");
	rd = mk(mr, (uintptr_t)lo, mr->rkey, R, 1, 0,
		"READ after dropping REMOTE_WRITE");
	round_b(s, &rd, lo, 1);
	rd = mk(mr, (uintptr_t)lo, mr->rkey, W, 9, 1,
		"WRITE, new rkey, no REMOTE_WRITE");
	round_b(s, &rd, lo, 1);
	rd = mk(mr, (uintptr_t)lo, old_rkey, W, 9, 1,
		"WRITE, old rkey with the old rights");
	round_b(s, &rd, lo, 1);

	dpt_fill(hi, LEN, 5);
	rereg_ok(mr, IBV_REREG_MR_CHANGE_TRANSLATION |
		 IBV_REREG_MR_CHANGE_ACCESS, NULL, hi, LEN, DPT_ACCESS_ALL,
		 "new range");
	CHECK(mr->addr == hi && mr->length == LEN, "new range: mr->addr %p "
	      "length %zu", mr->addr, mr->length);
	rd = mk(mr, (uintptr_t)hi, mr->rkey, R, 5, 0, "READ of the new range");
	round_b(s, &rd, hi, 5);
	rd = mk(mr, (uintptr_t)hi, mr->rkey, W, 2, 0, "WRITE to the new range");
	round_b(s, &rd, hi, 2);
	CHECK(dpt_check(lo, LEN, 1) < 0, "the old range changed");
	rd = mk(mr, (uintptr_t)lo, mr->rkey, W, 9, 1,
		"WRITE to the old range, new rkey");
	round_b(s, &rd, lo, 1);

	rereg_ok(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0, "to another PD");
	CHECK(mr->pd == pd2, "mr->pd not updated");
	rd = mk(mr, (uintptr_t)hi, mr->rkey, W, 9, 1,
		"WRITE to an MR of another PD");
	round_b(s, &rd, hi, 2);
	CHECK(ibv_dealloc_pd(pd2) == EBUSY, "dealloc of the MR's new PD "
	      "must fail with EBUSY");
	rereg_ok(mr, IBV_REREG_MR_CHANGE_PD, s->pd, NULL, 0, 0, "PD back");

	bad_args(s, mr, hi);
	rd = mk(mr, (uintptr_t)hi, mr->rkey, W, 3, 0,
		"WRITE after refused reregs");
	round_b(s, &rd, hi, 3);

	dpt_send(s, &end, sizeof(end));
	CHECK(ibv_dereg_mr(mr) == 0, "ibv_dereg_mr");
	CHECK(ibv_dealloc_pd(pd2) == 0, "ibv_dealloc_pd");
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
