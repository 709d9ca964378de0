/* SPDX-License-Identifier: MIT */
/*
 * The *_MAP ops (pv-soft-ring-abi.h): each reply passes a memfd that we
 * map whole (MAP_SHARED) and whose ring headers we check before use; the
 * fd itself is closed at once (the mapping keeps the memory).  CTX_MAP
 * also passes the context's doorbell eventfd, which we keep.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "providers/soft/provider/soft_provider.h"

/* No ring needs more; a larger map_size is a confused engine. */
#define SOFT_MAP_MAX ((size_t)1 << 30)

void soft_map_release(struct soft_map *m)
{
	if (m->base)
		munmap(m->base, m->size);
	m->base = NULL;
	m->size = 0;
}

static void close_fds(const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/* One *_MAP call: maps the first fd of the reply into m. */
static int map_call(struct soft_ctx *sc, uint16_t op, const void *req,
		    uint32_t req_len, struct pv_ipc_map_resp *resp,
		    struct soft_map *m, int *extra_fd)
{
	int fds[PV_IPC_MAX_FDS], nfds = 0, want = extra_fd ? 2 : 1;
	uint32_t got = 0;
	void *p;
	int ret;

	ret = soft_call(&sc->conn, op, req, req_len, resp, sizeof(*resp),
			&got, fds, &nfds);
	if (ret < 0)
		goto err_close_fds;
	ret = -EPROTO;
	if (got < sizeof(*resp) || nfds != want || resp->map_size == 0 ||
	    resp->map_size > SOFT_MAP_MAX)
		goto err_close_fds;
	p = mmap(NULL, resp->map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fds[0], 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto err_close_fds;
	}
	close(fds[0]);
	m->base = p;
	m->size = resp->map_size;
	if (extra_fd)
		*extra_fd = fds[1];
	return 0;

err_close_fds:
	close_fds(fds, nfds);
	return ret;
}

int soft_ctx_map(struct soft_ctx *sc)
{
	struct pv_ipc_map_resp resp;
	struct soft_map m = { 0 };
	struct pv_ctx_page *page;
	int ret, efd = -1;

	ret = map_call(sc, PV_OP_CTX_MAP, NULL, 0, &resp, &m, &efd);
	if (ret < 0)
		return ret;
	page = m.base;
	if (m.size < sizeof(*page) || page->magic != PV_RING_MAGIC ||
	    page->version != PV_RING_VERSION) {
		soft_map_release(&m);
		close(efd);
		return -EPROTO;
	}
	sc->page = page;
	sc->page_size = m.size;
	sc->doorbell_fd = efd;
	return 0;
}

void soft_ctx_unmap(struct soft_ctx *sc)
{
	struct soft_map m = { .base = sc->page, .size = sc->page_size };

	soft_map_release(&m);
	sc->page = NULL;
	if (sc->doorbell_fd >= 0)
		close(sc->doorbell_fd);
	sc->doorbell_fd = -1;
}

bool soft_ctx_check_alive(struct soft_ctx *sc)
{
	struct pollfd p = { .fd = sc->conn.fd, .events = POLLRDHUP };

	if (atomic_load(&sc->dead))
		return false;
	if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR |
						 POLLNVAL))) {
		atomic_store(&sc->dead, true);
		return false;
	}
	return true;
}

static int map_handle(struct soft_ctx *sc, uint16_t op, uint32_t handle,
		      struct pv_ipc_map_resp *resp, struct soft_map *m)
{
	struct pv_ipc_handle h = { .handle = handle };

	return map_call(sc, op, &h, sizeof(h), resp, m, NULL);
}

/* The least entry size for a WQE header of hdr_len bytes followed by
 * max_sge SGEs or max_inline bytes.  Saturates, so caps too large for any
 * ring fail soft_ring_check: the post paths rely on every attached entry
 * holding that much and don't re-check it per WR. */
static uint32_t wqe_entry_min(size_t hdr_len, uint32_t max_sge,
			      uint32_t max_inline)
{
	uint64_t data = (uint64_t)max_sge * sizeof(struct pv_wqe_sge);
	uint64_t need = hdr_len + (data > max_inline ? data : max_inline);

	return need > UINT32_MAX ? UINT32_MAX : (uint32_t)need;
}

/* Checks and attaches the ring at off of m. */
static int attach(struct soft_map *m, uint32_t off, uint32_t min_entry,
		  uint32_t min_entries, struct soft_ring *r, bool producer)
{
	struct pv_ring_hdr *hdr = (struct pv_ring_hdr *)((char *)m->base + off);
	int ret = soft_ring_check(hdr, m->size, off, min_entry, min_entries);

	if (ret < 0)
		return ret;
	soft_ring_attach(r, hdr, producer);
	return 0;
}

int soft_qp_map(struct soft_ctx *sc, struct pv_qp *qp,
		const struct ibv_qp_cap *cap)
{
	struct pv_ipc_map_resp resp;
	struct soft_qp_dp *d;
	uint32_t sq_entry, rq_entry;
	bool hooked;
	int ret;

	d = pv_pd_alloc_buf(qp->ibv.pd, sizeof(*d), PV_RES_TYPE_QP_DP, &hooked);
	if (!d)
		return -ENOMEM;
	d->hooked = hooked;
	ret = map_handle(sc, PV_OP_QP_MAP, qp->handle, &resp, &d->map);
	if (ret < 0)
		goto err_free;
	sq_entry = wqe_entry_min(sizeof(struct pv_send_wqe),
				 cap->max_send_sge, cap->max_inline_data);
	rq_entry = wqe_entry_min(sizeof(struct pv_recv_wqe),
				 cap->max_recv_sge, 0);
	ret = attach(&d->map, resp.ring_off[0], sq_entry, cap->max_send_wr,
		     &d->sq, true);
	if (ret < 0)
		goto err_unmap;
	/* XRC QPs have no receive queue (IBA 19.2.5). */
	if (!qp->ibv.srq && qp->ibv.qp_type != IBV_QPT_XRC_SEND &&
	    qp->ibv.qp_type != IBV_QPT_XRC_RECV) {
		ret = attach(&d->map, resp.ring_off[1], rq_entry,
			     cap->max_recv_wr, &d->rq, true);
		if (ret < 0)
			goto err_unmap;
	}
	d->max_send_sge = cap->max_send_sge;
	d->max_recv_sge = cap->max_recv_sge;
	d->max_inline = cap->max_inline_data;
	pthread_spin_init(&d->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&d->rq_lock, PTHREAD_PROCESS_PRIVATE);
	qp->priv = d;
	ret = soft_death_track_qp(sc, qp);
	if (ret < 0) {
		soft_qp_unmap(qp);
		return ret;
	}
	return 0;

err_unmap:
	soft_map_release(&d->map);
err_free:
	pv_pd_free_buf(qp->ibv.pd, d, d->hooked, PV_RES_TYPE_QP_DP);
	return ret;
}

void soft_qp_unmap(struct pv_qp *qp)
{
	struct soft_qp_dp *d = qp->priv;

	if (!d)
		return;
	soft_death_untrack_qp(soft_ctx_of(pv_ctx(qp->ibv.context)), qp);
	soft_map_release(&d->map);
	pthread_spin_destroy(&d->sq_lock);
	pthread_spin_destroy(&d->rq_lock);
	pv_pd_free_buf(qp->ibv.pd, d, d->hooked, PV_RES_TYPE_QP_DP);
	qp->priv = NULL;
}

static int cq_attach(struct soft_ctx *sc, struct pv_cq *cq,
		     struct soft_map *m, struct soft_ring *r)
{
	struct pv_ipc_map_resp resp;
	int ret;

	ret = map_handle(sc, PV_OP_CQ_MAP, cq->handle, &resp, m);
	if (ret < 0)
		return ret;
	ret = attach(m, resp.ring_off[0], sizeof(struct pv_cqe),
		     (uint32_t)cq->ibv.cqe, r, false);
	if (ret < 0)
		soft_map_release(m);
	return ret;
}

int soft_cq_map(struct soft_ctx *sc, struct pv_cq *cq)
{
	struct soft_cq_dp *d;
	bool hooked;
	int ret;

	d = pv_pd_alloc_buf(cq->pd, sizeof(*d), PV_RES_TYPE_CQ_DP, &hooked);
	if (!d)
		return -ENOMEM;
	d->hooked = hooked;
	ret = cq_attach(sc, cq, &d->map, &d->ring);
	if (ret < 0) {
		pv_pd_free_buf(cq->pd, d, hooked, PV_RES_TYPE_CQ_DP);
		return ret;
	}
	pthread_spin_init(&d->lock, PTHREAD_PROCESS_PRIVATE);
	cq->priv = d;
	ret = soft_death_track_cq(sc, cq);
	if (ret < 0) {
		soft_cq_unmap(cq);
		return ret;
	}
	return 0;
}

int soft_cq_remap(struct soft_ctx *sc, struct pv_cq *cq)
{
	struct soft_cq_dp *d = cq->priv;
	struct soft_map m = { 0 };
	struct soft_ring r;
	uint32_t arm;
	int ret;

	ret = cq_attach(sc, cq, &m, &r);
	if (ret < 0)
		return ret;
	/* An armed request survives the resize (the engine may have
	 * carried it over already). */
	arm = __atomic_load_n(&d->ring.hdr->arm, __ATOMIC_ACQUIRE);
	if (arm != PV_CQ_ARM_NONE)
		__atomic_store_n(&r.hdr->arm, arm, __ATOMIC_RELEASE);
	soft_map_release(&d->map);
	d->map = m;
	d->ring = r;
	return 0;
}

void soft_cq_unmap(struct pv_cq *cq)
{
	struct soft_cq_dp *d = cq->priv;

	if (!d)
		return;
	soft_death_untrack_cq(soft_ctx_of(pv_ctx(cq->ibv.context)), cq);
	soft_map_release(&d->map);
	pthread_spin_destroy(&d->lock);
	pv_pd_free_buf(cq->pd, d, d->hooked, PV_RES_TYPE_CQ_DP);
	cq->priv = NULL;
}

int soft_srq_map(struct soft_ctx *sc, struct pv_srq *srq, uint32_t max_sge,
		 uint32_t max_wr)
{
	struct pv_ipc_map_resp resp;
	struct soft_srq_dp *d;
	bool hooked;
	int ret;

	d = pv_pd_alloc_buf(srq->ibv.pd, sizeof(*d), PV_RES_TYPE_SRQ_DP,
			    &hooked);
	if (!d)
		return -ENOMEM;
	d->hooked = hooked;
	ret = map_handle(sc, PV_OP_SRQ_MAP, srq->handle, &resp, &d->map);
	if (ret < 0)
		goto err_free;
	ret = attach(&d->map, resp.ring_off[0],
		     wqe_entry_min(sizeof(struct pv_recv_wqe), max_sge, 0),
		     max_wr, &d->ring, true);
	if (ret < 0)
		goto err_unmap;
	d->max_sge = max_sge;
	pthread_spin_init(&d->lock, PTHREAD_PROCESS_PRIVATE);
	srq->priv = d;
	return 0;

err_unmap:
	soft_map_release(&d->map);
err_free:
	pv_pd_free_buf(srq->ibv.pd, d, hooked, PV_RES_TYPE_SRQ_DP);
	return ret;
}

/* After a resize that outgrew the ring: maps the engine's new ring
 * (SRQ_MAP passes it once) in place of the old.  The caller holds the
 * SRQ's lock, so no post lands in the old ring after the engine copied
 * it; the producer counter comes from the new header. */
int soft_srq_remap(struct soft_ctx *sc, struct pv_srq *srq, uint32_t max_wr)
{
	struct soft_srq_dp *d = srq->priv;
	struct pv_ipc_map_resp resp;
	struct soft_map m = { 0 };
	struct soft_ring r;
	int ret;

	ret = map_handle(sc, PV_OP_SRQ_MAP, srq->handle, &resp, &m);
	if (ret < 0)
		return ret;
	ret = attach(&m, resp.ring_off[0],
		     wqe_entry_min(sizeof(struct pv_recv_wqe), d->max_sge, 0),
		     max_wr, &r, true);
	if (ret < 0) {
		soft_map_release(&m);
		return ret;
	}
	soft_map_release(&d->map);
	d->map = m;
	d->ring = r;
	return 0;
}

void soft_srq_unmap(struct pv_srq *srq)
{
	struct soft_srq_dp *d = srq->priv;

	if (!d)
		return;
	soft_map_release(&d->map);
	pthread_spin_destroy(&d->lock);
	pv_pd_free_buf(srq->ibv.pd, d, d->hooked, PV_RES_TYPE_SRQ_DP);
	srq->priv = NULL;
}
