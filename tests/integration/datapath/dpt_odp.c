/* SPDX-License-Identifier: MIT */
/*
 * On-demand paging (explicit ODP) between two pods.  Each side: the
 * device reports odp_caps IBV_ODP_SUPPORT (not IMPLICIT) with the RC, UC,
 * UD and XRC operations; implicit ODP (ibv_reg_mr(pd, NULL, SIZE_MAX,
 * ON_DEMAND)) fails with EINVAL.  Over ODP MRs on both sides: RDMA WRITE,
 * RDMA READ, SEND to B's SRQ and back to A's receive queue, FETCH_ADD and
 * CMP_SWP, a UD datagram, each with its data checked; a WRITE to B's ODP
 * MR without REMOTE_WRITE completes with IBV_WC_REM_ACCESS_ERR and leaves
 * it untouched.  On A: ibv_advise_mr PREFETCH / PREFETCH_WRITE (FLUSH) /
 * PREFETCH_NO_FAULT succeed, PREFETCH populates the pages (the mapping's
 * Rss in /proc/self/smaps after MADV_DONTNEED), and its errors are
 * mlx5's: bad advice EOPNOTSUPP, bad flags / num_sge 0 / 4096 SGEs
 * EINVAL, a non-ODP MR or unknown lkey ENOENT, an MR of another PD or
 * PREFETCH_WRITE without a writing right EPERM, a range outside the MR
 * EFAULT with FLUSH (dropped, 0, without), and they follow rereg (access,
 * translation, PD) and dereg.
 */
#include "dpt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PG 4096
#define LEN (8 * PG)
#define ODP IBV_ACCESS_ON_DEMAND
#define LW IBV_ACCESS_LOCAL_WRITE
#define QKEY 0x11111111u
#define FLUSH IBV_ADVISE_MR_FLAG_FLUSH
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* B's ODP MR: WRITE lands at 0, READ comes from PG, SEND at 2 * PG, the
 * atomic word at 3 * PG, UD at 4 * PG. */
struct info {
	struct dpt_conn rc;		/* addr/rkey: the ODP MR */
	struct dpt_conn ud;
	uint64_t ro_addr;		/* ODP MR without REMOTE_WRITE */
	uint32_t ro_rkey;
};

struct side {
	struct ibv_cq *cq, *ucq;
	struct ibv_qp *qp, *uqp;
	struct ibv_srq *srq;
	char *buf, *ro;
	struct ibv_mr *mr, *ro_mr;
	struct info peer;
};

static void caps_check(struct dpt_side *s)
{
	const uint32_t rc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			    IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			    IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;
	const uint32_t sr = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;
	struct ibv_device_attr_ex a;
	struct ibv_odp_caps *o = &a.odp_caps;

	memset(&a, 0, sizeof(a));
	CHECK(ibv_query_device_ex(s->ctx, NULL, &a) == 0,
	      "ibv_query_device_ex: %s", strerror(errno));
	CHECK(o->general_caps == IBV_ODP_SUPPORT, "general_caps 0x%llx, want "
	      "IBV_ODP_SUPPORT only", (unsigned long long)o->general_caps);
	CHECK(o->per_transport_caps.rc_odp_caps == rc, "rc_odp_caps 0x%x",
	      o->per_transport_caps.rc_odp_caps);
	CHECK(o->per_transport_caps.uc_odp_caps == sr, "uc_odp_caps 0x%x",
	      o->per_transport_caps.uc_odp_caps);
	CHECK(o->per_transport_caps.ud_odp_caps == sr, "ud_odp_caps 0x%x",
	      o->per_transport_caps.ud_odp_caps);
	CHECK(a.xrc_odp_caps == (IBV_ODP_SUPPORT_SEND |
				 IBV_ODP_SUPPORT_SRQ_RECV),
	      "xrc_odp_caps 0x%x", a.xrc_odp_caps);
	dpt_log(s, "odp_caps: general 0x%llx rc 0x%x uc 0x%x ud 0x%x xrc 0x%x",
		(unsigned long long)o->general_caps,
		o->per_transport_caps.rc_odp_caps,
		o->per_transport_caps.uc_odp_caps,
		o->per_transport_caps.ud_odp_caps, a.xrc_odp_caps);
}

static void implicit_refused(struct dpt_side *s)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr(s->pd, NULL, SIZE_MAX, LW | ODP);
	CHECK(!mr && errno == EINVAL, "implicit ODP: mr %p errno %d (%s), "
	      "want NULL and EINVAL", (void *)mr, errno, strerror(errno));
	mr = ibv_reg_mr_iova(s->pd, NULL, SIZE_MAX, 0, LW | ODP);
	CHECK(!mr && errno == EINVAL, "implicit ODP (iova): errno %d", errno);
	dpt_log(s, "implicit ODP refused: EINVAL");
}

/* ibv_advise_mr returns the errno and sets it. */
static void want(struct ibv_pd *pd, uint32_t advice, uint32_t flags,
		 struct ibv_sge *sg, uint32_t n, int err, const char *what)
{
	int ret;

	errno = 0;
	ret = ibv_advise_mr(pd, (enum ibv_advise_mr_advice)advice, flags, sg,
			    n);
	CHECK(ret == err && (!err || errno == err), "%s: ibv_advise_mr = %d "
	      "(%s) errno %d, want %d (%s)", what, ret, strerror(ret), errno,
	      err, strerror(err));
}

/* Rss (kB) of the mapping holding p. */
static long rss_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	uintptr_t a = (uintptr_t)p;
	char line[512];
	long kb = -1;
	bool in = false;

	CHECK(f, "open /proc/self/smaps");
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* PREFETCH really maps the pages: gone after MADV_DONTNEED (the data
 * stays in the memfd), back after the advice. */
static void prefetch_populates(struct dpt_side *s)
{
	char *p = mmap(NULL, 16 * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *mr;
	struct ibv_sge sg;
	long before, after;

	CHECK(p != MAP_FAILED, "mmap");
	dpt_fill(p, 16 * PG, 9);
	mr = dpt_mr(s, p, 16 * PG, LW | ODP);
	sg = (struct ibv_sge){ (uintptr_t)p, 16 * PG, mr->lkey };
	if (madvise(p, PG, MADV_POPULATE_READ) < 0 && errno == EINVAL) {
		dpt_log(s, "no MADV_POPULATE_READ (kernel before 5.14): "
			"population not checked");
		want(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sg, 1, 0,
		     "PREFETCH, old kernel");
	} else {
		CHECK(madvise(p, 16 * PG, MADV_DONTNEED) == 0, "DONTNEED");
		before = rss_kb(p);
		want(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sg, 1, 0,
		     "PREFETCH");
		after = rss_kb(p);
		CHECK(before >= 0 && before < 64 && after >= 64, "PREFETCH "
		      "did not populate: Rss %ld kB before, %ld kB after",
		      before, after);
		dpt_log(s, "PREFETCH populated the MR: Rss %ld -> %ld kB",
			before, after);
	}
	CHECK(dpt_check(p, 16 * PG, 9) < 0, "data changed by the advice");
	CHECK(ibv_dereg_mr(mr) == 0, "dereg");
	munmap(p, 16 * PG);
}

static void advise_errors(struct dpt_side *s, struct ibv_mr *odp,
			  struct ibv_pd *pd2)
{
	char *b = odp->addr, *q = dpt_buf(PG), *r = dpt_buf(PG);
	char *t = dpt_buf(PG);
	struct ibv_mr *plain = dpt_mr(s, q, PG, LW);
	struct ibv_mr *ro = dpt_mr(s, r, PG, IBV_ACCESS_REMOTE_READ | ODP);
	struct ibv_mr *other = ibv_reg_mr(pd2, t, PG, LW | ODP);
	struct ibv_sge sg = { (uintptr_t)b, PG, odp->lkey }, *many;
	const uint32_t P = IBV_ADVISE_MR_ADVICE_PREFETCH;
	const uint32_t PW = IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;

	CHECK(other, "reg_mr on pd2: %s", strerror(errno));
	want(s->pd, 99, FLUSH, &sg, 1, EOPNOTSUPP, "advice 99");
	want(s->pd, P, 1u << 1, &sg, 1, EINVAL, "flag 1 << 1");
	want(s->pd, P, FLUSH, &sg, 0, EINVAL, "num_sge 0");
	many = calloc(4096, sizeof(*many));
	CHECK(many, "calloc");
	for (int i = 0; i < 4096; i++)
		many[i] = sg;
	want(s->pd, P, FLUSH, many, 4096, EINVAL, "4096 SGEs");
	want(s->pd, P, FLUSH, many, 4095, 0, "4095 SGEs");
	free(many);
	sg.lkey = plain->lkey, sg.addr = (uintptr_t)q;
	want(s->pd, P, FLUSH, &sg, 1, ENOENT, "a non-ODP MR");
	sg.lkey = odp->lkey ^ 0x5a, sg.addr = (uintptr_t)b;
	want(s->pd, P, FLUSH, &sg, 1, ENOENT, "an unknown lkey");
	sg.lkey = other->lkey, sg.addr = (uintptr_t)t;
	want(s->pd, P, FLUSH, &sg, 1, EPERM, "an ODP MR of another PD");
	want(pd2, P, FLUSH, &sg, 1, 0, "that MR with its own PD");
	sg = (struct ibv_sge){ (uintptr_t)r, PG, ro->lkey };
	want(s->pd, PW, FLUSH, &sg, 1, EPERM, "PREFETCH_WRITE, read-only MR");
	want(s->pd, P, FLUSH, &sg, 1, 0, "PREFETCH, read-only MR");
	sg = (struct ibv_sge){ (uintptr_t)b + LEN - PG, 2 * PG, odp->lkey };
	want(s->pd, P, FLUSH, &sg, 1, EFAULT, "past the MR's end, FLUSH");
	want(s->pd, P, 0, &sg, 1, 0, "past the MR's end, no FLUSH (dropped)");
	sg = (struct ibv_sge){ (uintptr_t)b - 8, 16, odp->lkey };
	want(s->pd, P, FLUSH, &sg, 1, EFAULT, "before the MR's start, FLUSH");
	sg = (struct ibv_sge){ (uintptr_t)b + LEN, 0, odp->lkey };
	want(s->pd, P, FLUSH, &sg, 1, EFAULT, "at the MR's end, FLUSH");
	dpt_log(s, "ibv_advise_mr errors: EOPNOTSUPP, EINVAL x3, ENOENT x2, "
		"EPERM x2, EFAULT x3 (0 without FLUSH)");
	CHECK(ibv_dereg_mr(other) == 0 && ibv_dereg_mr(ro) == 0 &&
	      ibv_dereg_mr(plain) == 0, "dereg");
	free(q);
	free(r);
	free(t);
}

static void rereg(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
		  void *addr, size_t len, int access, const char *what)
{
	int ret = ibv_rereg_mr(mr, flags, pd, addr, len, access);

	CHECK(ret == 0, "%s: ibv_rereg_mr = %d (%s)", what, ret,
	      strerror(errno));
}

/* The advice follows the MR through rereg and dereg. */
static void advise_rereg(struct dpt_side *s, struct ibv_pd *pd2)
{
	char *p = dpt_buf(LEN), *n = dpt_buf(PG);
	struct ibv_mr *mr = dpt_mr(s, p, LEN, LW | ODP);
	const uint32_t P = IBV_ADVISE_MR_ADVICE_PREFETCH;
	struct ibv_sge sg = { (uintptr_t)p, LEN, mr->lkey };
	uint32_t old;

	rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, LW, "drop ODP");
	old = sg.lkey;
	sg.lkey = mr->lkey;
	want(s->pd, P, FLUSH, &sg, 1, ENOENT, "after dropping ON_DEMAND");
	rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, LW | ODP,
	      "ODP again");
	want(s->pd, P, FLUSH, &sg, 1, ENOENT, "the previous lkey");
	sg.lkey = mr->lkey;
	want(s->pd, P, FLUSH, &sg, 1, 0, "ON_DEMAND again, new lkey");
	CHECK(old != mr->lkey, "lkey unchanged");
	rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, n, PG, 0,
	      "new range");
	sg = (struct ibv_sge){ (uintptr_t)n, PG, mr->lkey };
	want(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, FLUSH, &sg, 1, 0,
	     "the new range");
	sg.addr = (uintptr_t)p;
	want(s->pd, P, FLUSH, &sg, 1, EFAULT, "the old range");
	rereg(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0, "to pd2");
	sg = (struct ibv_sge){ (uintptr_t)n, PG, mr->lkey };
	want(s->pd, P, FLUSH, &sg, 1, EPERM, "moved to pd2, old PD");
	want(pd2, P, FLUSH, &sg, 1, 0, "moved to pd2, pd2");
	CHECK(ibv_dereg_mr(mr) == 0, "dereg");
	want(pd2, P, FLUSH, &sg, 1, ENOENT, "after dereg");
	dpt_log(s, "ibv_advise_mr follows rereg (access, translation, PD) "
		"and dereg");
	free(p);
	free(n);
}

static void advise_checks(struct dpt_side *s, struct side *e)
{
	struct ibv_sge sg[2] = {
		{ (uintptr_t)e->buf, PG, e->mr->lkey },
		{ (uintptr_t)e->buf + 2 * PG, 3 * PG, e->mr->lkey },
	};
	struct ibv_pd *pd2 = ibv_alloc_pd(s->ctx);

	CHECK(pd2, "ibv_alloc_pd");
	want(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, sg, 2, 0, "PREFETCH");
	want(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, FLUSH, sg, 2, 0,
	     "PREFETCH_WRITE, FLUSH");
	want(s->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, FLUSH, sg, 1, 0,
	     "PREFETCH_NO_FAULT, FLUSH");
	dpt_log(s, "ibv_advise_mr PREFETCH, PREFETCH_WRITE|FLUSH, "
		"PREFETCH_NO_FAULT on an ODP MR: 0");
	prefetch_populates(s);
	advise_errors(s, e->mr, pd2);
	advise_rereg(s, pd2);
	CHECK(ibv_dealloc_pd(pd2) == 0, "dealloc pd2");
}

static void setup(struct dpt_side *s, struct side *e)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16,
						  .max_sge = 1 } };
	struct info me;

	memset(e, 0, sizeof(*e));
	e->cq = dpt_cq(s, 32, NULL);
	e->ucq = dpt_cq(s, 32, NULL);
	if (s->name == 'B') {
		e->srq = ibv_create_srq(s->pd, &sa);
		CHECK(e->srq, "ibv_create_srq: %s", strerror(errno));
	}
	e->qp = dpt_qp(s, IBV_QPT_RC, e->cq, e->srq, NULL, 1);
	e->uqp = dpt_qp(s, IBV_QPT_UD, e->ucq, NULL, NULL, 1);
	e->buf = dpt_buf(LEN);
	e->ro = dpt_buf(PG);
	e->mr = dpt_mr(s, e->buf, LEN, DPT_ACCESS_ALL | ODP);
	e->ro_mr = dpt_mr(s, e->ro, PG, LW | IBV_ACCESS_REMOTE_READ | ODP);
	dpt_ud_ready(e->uqp, QKEY);
	memset(&me, 0, sizeof(me));
	dpt_conn_fill(s, &me.rc, e->qp, e->mr);
	dpt_conn_fill(s, &me.ud, e->uqp, NULL);
	me.ro_addr = (uintptr_t)e->ro;
	me.ro_rkey = e->ro_mr->rkey;
	dpt_send(s, &me, sizeof(me));
	dpt_recv(s, &e->peer, sizeof(e->peer));
	dpt_connect(e->qp, s, &e->peer.rc, NULL);
}

static void rdma(struct side *e, enum ibv_wr_opcode op, uint32_t off,
		 uint32_t len, uint64_t raddr, uint32_t rkey,
		 enum ibv_wc_status st, const char *what)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + off, len, e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = off, .sg_list = &sge,
				  .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	dpt_post_send(e->qp, &wr);
	dpt_wc(e->cq, &wc, st, -1, what);
}

static uint64_t atomic(struct side *e, enum ibv_wr_opcode op, uint64_t add,
		       uint64_t swap, const char *what)
{
	uint64_t *res = (uint64_t *)(e->buf + 3 * PG);
	struct ibv_sge sge = { (uintptr_t)res, 8, e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 77, .sg_list = &sge,
				  .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	*res = 0;
	wr.wr.atomic.remote_addr = e->peer.rc.addr + 3 * PG;
	wr.wr.atomic.rkey = e->peer.rc.rkey;
	wr.wr.atomic.compare_add = add;
	wr.wr.atomic.swap = swap;
	dpt_post_send(e->qp, &wr);
	dpt_wc(e->cq, &wc, IBV_WC_SUCCESS, -1, what);
	return *res;
}

static void send_buf(struct side *e, struct ibv_qp *qp, struct ibv_cq *cq,
		     uint32_t off, uint32_t len, bool ud, struct ibv_ah *ah)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + off, len, e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = off, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	if (ud) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = e->peer.ud.qpn;
		wr.wr.ud.remote_qkey = QKEY;
	}
	dpt_post_send(qp, &wr);
	dpt_wc(cq, &wc, IBV_WC_SUCCESS, IBV_WC_SEND, ud ? "UD SEND" : "SEND");
}

static int side_a(struct dpt_side *s)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh = { .sgid_index = 0, .hop_limit = 64 } };
	uint64_t b = 0, orig;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct side e;

	caps_check(s);
	implicit_refused(s);
	setup(s, &e);
	advise_checks(s, &e);
	dpt_post_recv(e.qp, 5, e.buf + 5 * PG, PG, e.mr->lkey);
	dpt_sync(s);			/* B's receives and data are ready */
	b = e.peer.rc.addr;
	dpt_fill(e.buf, PG, 1);
	rdma(&e, IBV_WR_RDMA_WRITE, 0, PG, b, e.peer.rc.rkey,
	     IBV_WC_SUCCESS, "WRITE to B's ODP MR");
	memset(e.buf + PG, 0, PG);
	rdma(&e, IBV_WR_RDMA_READ, PG, PG, b + PG, e.peer.rc.rkey,
	     IBV_WC_SUCCESS, "READ from B's ODP MR");
	CHECK(dpt_check(e.buf + PG, PG, 2) < 0, "READ data differs");
	dpt_fill(e.buf + 2 * PG, 3000, 3);
	send_buf(&e, e.qp, e.cq, 2 * PG, 3000, false, NULL);
	orig = atomic(&e, IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 0, "FETCH_ADD");
	CHECK(orig == 100, "FETCH_ADD original %llu, want 100",
	      (unsigned long long)orig);
	orig = atomic(&e, IBV_WR_ATOMIC_CMP_AND_SWP, 105, 777, "CMP_SWP");
	CHECK(orig == 105, "CMP_SWP original %llu, want 105",
	      (unsigned long long)orig);
	memset(e.buf + 4 * PG, 0, PG);
	rdma(&e, IBV_WR_RDMA_READ, 4 * PG, PG, e.peer.ro_addr,
	     e.peer.ro_rkey, IBV_WC_SUCCESS, "READ of B's read-only ODP MR");
	CHECK(dpt_check(e.buf + 4 * PG, PG, 5) < 0, "READ (ro) differs");
	dpt_log(s, "WRITE, READ, SEND, FETCH_ADD, CMP_SWP over ODP MRs: "
		"data checked");
	dpt_sync(s);			/* B checks, then sends back */
	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "RECV from B");
	CHECK(wc.byte_len == 2000 && dpt_check(e.buf + 5 * PG, 2000, 4) < 0,
	      "RECV from B: %u bytes, data differs", wc.byte_len);
	dpt_log(s, "RECV into an ODP MR: data checked");

	aa.grh.dgid = e.peer.ud.gid;
	ah = ibv_create_ah(s->pd, &aa);
	CHECK(ah, "ibv_create_ah: %s", strerror(errno));
	dpt_fill(e.buf + 6 * PG, 256, 6);
	send_buf(&e, e.uqp, e.ucq, 6 * PG, 256, true, ah);
	dpt_sync(s);			/* B got the datagram */

	dpt_fill(e.buf, PG, 8);
	rdma(&e, IBV_WR_RDMA_WRITE, 0, PG, e.peer.ro_addr, e.peer.ro_rkey,
	     IBV_WC_REM_ACCESS_ERR, "WRITE to an ODP MR without REMOTE_WRITE");
	dpt_log(s, "WRITE to B's ODP MR without REMOTE_WRITE: "
		"IBV_WC_REM_ACCESS_ERR");
	dpt_sync(s);
	CHECK(ibv_destroy_ah(ah) == 0, "destroy ah");
	return 0;
}

static int side_b(struct dpt_side *s)
{
	uint64_t *word;
	struct ibv_wc wc;
	struct side e;

	caps_check(s);
	implicit_refused(s);
	setup(s, &e);
	word = (uint64_t *)(e.buf + 3 * PG);
	*word = 100;
	dpt_fill(e.buf + PG, PG, 2);
	dpt_fill(e.ro, PG, 5);
	{
		struct ibv_sge sge = { (uintptr_t)e.buf + 2 * PG, PG,
				       e.mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 2, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		CHECK(ibv_post_srq_recv(e.srq, &wr, &bad) == 0,
		      "ibv_post_srq_recv");
	}
	dpt_post_recv(e.uqp, 4, e.buf + 4 * PG, PG, e.mr->lkey);
	dpt_sync(s);
	dpt_sync(s);			/* A's one-sided work is done */
	CHECK(dpt_check(e.buf, PG, 1) < 0, "WRITE data differs");
	dpt_wc(e.cq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "SRQ RECV from A");
	CHECK(wc.byte_len == 3000 && dpt_check(e.buf + 2 * PG, 3000, 3) < 0,
	      "SRQ RECV: %u bytes, data differs", wc.byte_len);
	CHECK(*word == 777, "atomic word %llu, want 777",
	      (unsigned long long)*word);
	dpt_log(s, "WRITE landed, SEND to the SRQ received, atomics applied "
		"(777), all in ODP MRs");
	dpt_fill(e.buf + 5 * PG, 2000, 4);
	send_buf(&e, e.qp, e.cq, 5 * PG, 2000, false, NULL);
	dpt_wc(e.ucq, &wc, IBV_WC_SUCCESS, IBV_WC_RECV, "UD RECV");
	CHECK(wc.byte_len == 256 + 40 &&
	      dpt_check(e.buf + 4 * PG + 40, 256, 6) < 0,
	      "UD RECV: %u bytes, data differs", wc.byte_len);
	dpt_log(s, "UD datagram into an ODP MR: data checked");
	dpt_sync(s);
	dpt_sync(s);			/* A's refused WRITE */
	CHECK(dpt_check(e.ro, PG, 5) < 0, "the MR without REMOTE_WRITE "
	      "changed");
	dpt_log(s, "ODP MR without REMOTE_WRITE untouched");
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
