/* SPDX-License-Identifier: MIT */
/*
 * CTX_MAP, QP_MAP, CQ_MAP and SRQ_MAP: the engine creates each object's
 * rings in a memfd it maps itself, seals the memfd's size (so a client
 * cannot truncate it under the engine's mapping) and passes it to the
 * client once with the reply.  A CQ resize makes a new ring that the
 * next CQ_MAP passes.
 *
 * Each ring is one engine mapping, and its memfd one engine fd until it
 * is passed, charged to the client's device (eng_quota.h); so is a
 * context's doorbell.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wr.h"
#include "providers/soft/engine/eng_wire_rc.h"
#include "providers/soft/engine/eng_log.h"

#define PAGE_BYTES 4096u

static size_t page_round(size_t n)
{
	return (n + PAGE_BYTES - 1) & ~(size_t)(PAGE_BYTES - 1);
}

/* Charges c one mapping, one fd and size bytes of engine memory: a new
 * ring not yet passed.  A 4M-CQE CQ is 256 MiB of the engine's memfds
 * (touched only as CQEs land): it fits a device's max_dev_ring_mb or is
 * refused with -ENOMEM here, before anything is created. */
static int map_charge(struct eng_conn *c, size_t size)
{
	int ret = eng_quota_take(c, ENG_QUOTA_RING_BYTES, size);

	if (ret < 0)
		return ret;
	ret = eng_quota_take(c, ENG_QUOTA_MAPS, 1);
	if (ret < 0)
		goto put_bytes;
	ret = eng_quota_take(c, ENG_QUOTA_FDS, 1);
	if (ret == 0)
		return 0;
	eng_quota_put(c, ENG_QUOTA_MAPS, 1);
put_bytes:
	eng_quota_put(c, ENG_QUOTA_RING_BYTES, size);
	return ret;
}

static void map_uncharge(struct eng_conn *c, size_t size)
{
	eng_quota_put(c, ENG_QUOTA_RING_BYTES, size);
	eng_quota_put(c, ENG_QUOTA_MAPS, 1);
	eng_quota_put(c, ENG_QUOTA_FDS, 1);
}

/* A sealed, mapped memfd of size bytes (zeroed), charged to c. */
static int map_create(struct eng_conn *c, const char *name, size_t size,
		      struct eng_dp_map *m)
{
	int fd, err;
	void *p;

	size = page_round(size);
	err = map_charge(c, size);
	if (err < 0)
		return err;
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		err = -errno;
		map_uncharge(c, size);
		return err;
	}
	if (ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
	    < 0)
		goto err_close_fd;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto err_close_fd;
	m->base = p;
	m->size = size;
	m->pending_fd = fd;
	m->owner = c;
	return 0;

err_close_fd:
	err = -errno;
	close(fd);
	map_uncharge(c, size);
	return err;
}

void eng_dp_map_release(struct eng_dp_map *m)
{
	if (m->base) {
		munmap(m->base, m->size);
		eng_quota_put(m->owner, ENG_QUOTA_MAPS, 1);
		eng_quota_put(m->owner, ENG_QUOTA_RING_BYTES, m->size);
	}
	if (m->pending_fd >= 0) {
		close(m->pending_fd);
		eng_quota_put(m->owner, ENG_QUOTA_FDS, 1);
	}
	m->base = NULL;
	m->pending_fd = -1;
}

/* Hands the pending memfd to the client with the reply. */
static int map_reply(struct eng_req *r, struct eng_dp_map *m,
		     uint32_t off0, uint32_t off1)
{
	struct pv_ipc_map_resp *out = r->out;

	if (m->pending_fd < 0)
		return -EBUSY;	/* already passed: one mapping per object */
	memset(out, 0, sizeof(*out));
	out->map_size = m->size;
	out->ring_off[0] = off0;
	out->ring_off[1] = off1;
	r->out_len = sizeof(*out);
	r->fds[r->nfds++] = m->pending_fd;	/* closed after the reply */
	m->pending_fd = -1;
	eng_quota_put(m->owner, ENG_QUOTA_FDS, 1);
	return 0;
}

static void doorbell_ready(struct eng *e, struct eng_pollable *p,
			   uint32_t events)
{
	uint64_t v;

	/* The rings are scanned after every epoll batch; only reset it. */
	eng_stat_inc(dp_doorbells);
	if (read(p->fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		eng_dbg("doorbell read: %s", strerror(errno));
}

int eng_op_ctx_map(struct eng_req *r)
{
	struct eng_dp_sched *s = eng_dp_sched_get(r->e);
	struct eng_dp_map m = { .pending_fd = -1 };
	struct eng_dp_ctx *x;
	int ret, dup_fd;

	if (!s)
		return -ENOMEM;
	if (r->c->dp)
		return -EBUSY;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	ret = map_create(r->c, "podverbs-ctx", PAGE_BYTES, &m);
	if (ret < 0)
		goto err_free;
	x->page = m.base;
	x->page->magic = PV_RING_MAGIC;
	x->page->version = PV_RING_VERSION;
	ret = eng_quota_take(r->c, ENG_QUOTA_FDS, 1);	/* the doorbell */
	if (ret < 0)
		goto err_unmap;
	x->db.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	x->db.ready = doorbell_ready;
	if (x->db.fd < 0) {
		ret = -errno;
		goto err_put_db;
	}
	dup_fd = fcntl(x->db.fd, F_DUPFD_CLOEXEC, 0);
	ret = dup_fd < 0 ? -errno : eng_poll_add(r->e, &x->db);
	if (ret < 0)
		goto err_close_db;
	x->conn = r->c;
	r->c->dp = x;
	eng_list_add_tail(&s->ctxs, &x->link);
	/* The page itself is not kept as an fd: mapped is enough. */
	map_reply(r, &m, 0, 0);
	r->fds[r->nfds++] = dup_fd;
	m.base = NULL;
	return 0;

err_close_db:
	if (dup_fd >= 0)
		close(dup_fd);
	close(x->db.fd);
err_put_db:
	eng_quota_put(r->c, ENG_QUOTA_FDS, 1);
err_unmap:
	eng_dp_map_release(&m);
err_free:
	free(x);
	return ret;
}

void eng_dp_ctx_free(struct eng *e, struct eng_conn *c)
{
	struct eng_dp_ctx *x = c->dp;

	if (!x)
		return;
	eng_poll_del(e, &x->db);
	close(x->db.fd);
	munmap(x->page, PAGE_BYTES);
	eng_quota_put(c, ENG_QUOTA_FDS, 1);
	eng_quota_put(c, ENG_QUOTA_MAPS, 1);
	eng_quota_put(c, ENG_QUOTA_RING_BYTES, PAGE_BYTES);
	eng_list_del(&x->link);
	free(x);
	c->dp = NULL;
}

static int qp_rings(struct eng_qp *qp, struct eng_dp_qp *dq,
		    uint32_t *rq_off)
{
	uint32_t sn, se, rn = 0, re = 0;
	size_t sq_bytes, total;
	int ret;

	eng_dp_sq_geom(&qp->init.cap, &sn, &se);
	sq_bytes = eng_dp_ring_bytes(sn, se);
	total = sq_bytes;
	if (!qp->srq && !eng_qpt_xrc(qp->init.qp_type)) {
		eng_dp_rq_geom(qp->init.cap.max_recv_wr,
			       qp->init.cap.max_recv_sge, &rn, &re);
		total += eng_dp_ring_bytes(rn, re);
	}
	ret = map_create(qp->o.conn, "podverbs-qp", total, &dq->map);
	if (ret < 0)
		return ret;
	eng_dp_ring_init(&dq->sq, dq->map.base, sn, se);
	*rq_off = 0;
	if (!qp->srq && !eng_qpt_xrc(qp->init.qp_type)) {
		eng_dp_ring_init(&dq->rq, (uint8_t *)dq->map.base + sq_bytes,
				 rn, re);
		*rq_off = (uint32_t)sq_bytes;
	}
	return 0;
}

int eng_op_qp_map(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_qp *qp = eng_obj_get(r->c, in->handle, PV_OBJ_QP);
	struct eng_dp_sched *s = eng_dp_sched_get(r->e);
	struct eng_dp_qp *dq;
	uint32_t rq_off;
	int ret;

	if (!qp)
		return -EINVAL;
	if (!s)
		return -ENOMEM;
	if (qp->dp)
		return -EBUSY;
	/* The engine's state of the QP (~10 KiB: its WQE copies) counts
	 * with its rings. */
	ret = eng_quota_take(r->c, ENG_QUOTA_RING_BYTES, sizeof(*dq));
	if (ret < 0)
		return ret;
	dq = calloc(1, sizeof(*dq));
	if (!dq) {
		eng_quota_put(r->c, ENG_QUOTA_RING_BYTES, sizeof(*dq));
		return -ENOMEM;
	}
	dq->map.pending_fd = -1;
	ret = qp_rings(qp, dq, &rq_off);
	if (ret < 0) {
		eng_quota_put(r->c, ENG_QUOTA_RING_BYTES, sizeof(*dq));
		free(dq);
		return ret;
	}
	dq->qp = qp;
	qp->dp = dq;
	eng_dp_sched_add(s, dq);
	return map_reply(r, &dq->map, 0, rq_off);
}

void eng_dp_qp_free(struct eng *e, struct eng_qp *qp)
{
	struct eng_dp_qp *dq = qp->dp;

	if (!dq)
		return;
	eng_dp_sched_del(e->dp, dq);
	eng_quota_put(qp->o.conn, ENG_QUOTA_RING_BYTES, sizeof(*dq));
	eng_dp_map_release(&dq->map);
	eng_wire_rc_free(dq);
	free(dq);
	qp->dp = NULL;
}

void eng_dp_qp_move(struct eng *e, struct eng_qp *qp, struct eng_conn *to)
{
	struct eng_dp_qp *dq = qp->dp;
	struct eng_conn *from = qp->o.conn;

	if (!dq) {
		qp->o.conn = to;
		return;
	}
	eng_dp_sched_del(e->dp, dq);
	eng_quota_move(from, to, ENG_QUOTA_RING_BYTES, sizeof(*dq));
	if (dq->map.base) {
		eng_quota_move(from, to, ENG_QUOTA_MAPS, 1);
		eng_quota_move(from, to, ENG_QUOTA_RING_BYTES, dq->map.size);
	}
	if (dq->map.pending_fd >= 0)
		eng_quota_move(from, to, ENG_QUOTA_FDS, 1);
	dq->map.owner = to;
	qp->o.conn = to;
	eng_dp_sched_add(e->dp, dq);
}

static struct eng_dp_cq *cq_ring_new(struct eng_cq *cq, uint32_t cqe,
				     int *err)
{
	struct eng_dp_cq *dc = calloc(1, sizeof(*dc));
	uint32_t n = eng_dp_cq_entries(cqe);

	*err = -ENOMEM;
	if (!dc)
		return NULL;
	dc->map.pending_fd = -1;
	*err = map_create(cq->o.conn, "podverbs-cq",
			  eng_dp_ring_bytes(n, sizeof(struct pv_cqe)),
			  &dc->map);
	if (*err < 0) {
		free(dc);
		return NULL;
	}
	eng_dp_ring_init(&dc->ring, dc->map.base, n, sizeof(struct pv_cqe));
	return dc;
}

int eng_op_cq_map(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_cq *cq = eng_obj_get(r->c, in->handle, PV_OBJ_CQ);
	int ret;

	if (!cq)
		return -EINVAL;
	if (!cq->dp) {
		cq->dp = cq_ring_new(cq, cq->cqe, &ret);
		if (!cq->dp)
			return ret;
	}
	return map_reply(r, &cq->dp->map, 0, 0);
}

void eng_dp_cq_free(struct eng_cq *cq)
{
	if (!cq->dp)
		return;
	eng_dp_map_release(&cq->dp->map);
	free(cq->dp);
	cq->dp = NULL;
}

int eng_dp_cq_resize(struct eng_cq *cq, uint32_t cqe)
{
	struct eng_dp_cq *old = cq->dp, *nw;
	uint32_t cons, pending;
	int ret;

	if (!old)
		return 0;
	cons = __atomic_load_n(&old->ring.hdr->cons, __ATOMIC_ACQUIRE);
	pending = old->ring.own - cons;
	if (pending > old->ring.mask + 1)
		pending = 0;	/* a lying consumer loses its CQEs */
	if (pending > cqe)
		return -EINVAL;	/* ibv_resize_cq(3): can't hold them */
	nw = cq_ring_new(cq, cqe, &ret);
	if (!nw)
		return ret;
	/* Unpolled CQEs move over in order; the client maps the new ring
	 * (CQ_MAP) before it polls again. */
	for (uint32_t i = 0; i < pending; i++) {
		memcpy(eng_dp_ring_entry(&nw->ring, nw->ring.own),
		       eng_dp_ring_entry(&old->ring, cons + i),
		       sizeof(struct pv_cqe));
		eng_dp_ring_produce(&nw->ring);
	}
	nw->ring.hdr->arm = __atomic_load_n(&old->ring.hdr->arm,
					    __ATOMIC_ACQUIRE);
	nw->error = old->error;
	/* From the engine's own flag: the old header is the client's to
	 * scribble on. */
	nw->ring.hdr->overflow = old->error ? 1 : 0;
	eng_dp_cq_free(cq);
	cq->dp = nw;
	return 0;
}

static struct eng_dp_srq *srq_ring_new(const struct eng_srq *srq, int *err)
{
	struct eng_dp_srq *ds = calloc(1, sizeof(*ds));
	uint32_t n, esz;

	*err = -ENOMEM;
	if (!ds)
		return NULL;
	ds->map.pending_fd = -1;
	eng_dp_rq_geom(srq->max_wr, srq->max_sge, &n, &esz);
	*err = map_create(srq->o.conn, "podverbs-srq",
			  eng_dp_ring_bytes(n, esz), &ds->map);
	if (*err < 0) {
		free(ds);
		return NULL;
	}
	eng_dp_ring_init(&ds->ring, ds->map.base, n, esz);
	return ds;
}

int eng_op_srq_map(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_srq *srq = eng_obj_get(r->c, in->handle, PV_OBJ_SRQ);
	int ret;

	if (!srq)
		return -EINVAL;
	if (!srq->dp) {
		srq->dp = srq_ring_new(srq, &ret);
		if (!srq->dp)
			return ret;
	}
	return map_reply(r, &srq->dp->map, 0, 0);
}

void eng_dp_srq_free(struct eng_srq *srq)
{
	if (!srq->dp)
		return;
	eng_dp_map_release(&srq->dp->map);
	free(srq->dp);
	srq->dp = NULL;
}

/* SRQ_MODIFY's IBV_SRQ_MAX_WR past the ring (ibv_modify_srq(3), with
 * IBV_DEVICE_SRQ_RESIZE): a larger ring that the next SRQ_MAP passes.
 * The posted WQEs move over in order, byte for byte (each is still
 * checked when it is fetched, as in the old ring), and the counters
 * carry on from the old ones (the client re-reads its prod from the new
 * header, soft_ring_attach), so a WQE keeps its counter.  A producer
 * counter no honest client can make refuses the resize. */
int eng_dp_srq_resize(struct eng_srq *srq, uint32_t max_wr)
{
	struct eng_dp_srq *old = srq->dp, *nw;
	uint32_t n, esz, keep = srq->max_wr;
	int avail, ret;

	if (!old)
		return 0;
	eng_dp_rq_geom(max_wr, srq->max_sge, &n, &esz);
	if (n <= old->ring.mask + 1)
		return 0;
	if (esz != old->ring.esz)
		return -EINVAL;
	avail = eng_dp_ring_avail(&old->ring);
	if (avail < 0)
		return -EINVAL;
	srq->max_wr = max_wr;
	nw = srq_ring_new(srq, &ret);
	srq->max_wr = keep;
	if (!nw)
		return ret;
	for (uint32_t i = 0; i < (uint32_t)avail; i++) {
		uint32_t c = old->ring.own + i;

		eng_dp_shm_read(eng_dp_ring_entry(&nw->ring, c),
				eng_dp_ring_entry(&old->ring, c), esz);
	}
	nw->ring.own = old->ring.own;
	nw->ring.hdr->cons = old->ring.own;
	__atomic_store_n(&nw->ring.hdr->prod, old->ring.own + (uint32_t)avail,
			 __ATOMIC_RELEASE);
	eng_dp_srq_free(srq);
	srq->dp = nw;
	return 0;
}
