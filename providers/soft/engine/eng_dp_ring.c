/* SPDX-License-Identifier: MIT */
/*
 * Ring geometry, counters and work-request validation (pure: no I/O).
 * The application owns one counter of each ring; the engine reads it
 * once per look and rejects values no honest producer can make.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_wr.h"

uint32_t eng_dp_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v && p < (1u << 31))
		p <<= 1;
	return p;
}

void eng_dp_sq_geom(const struct pv_ipc_qp_cap *cap, uint32_t *num,
		    uint32_t *esz)
{
	uint32_t body = cap->max_send_sge * sizeof(struct pv_wqe_sge);

	if (cap->max_inline_data > body)
		body = cap->max_inline_data;
	*num = eng_dp_pow2(cap->max_send_wr ? cap->max_send_wr : 1);
	*esz = eng_dp_pow2(sizeof(struct pv_send_wqe) + body);
}

void eng_dp_rq_geom(uint32_t max_wr, uint32_t max_sge, uint32_t *num,
		    uint32_t *esz)
{
	*num = eng_dp_pow2(max_wr ? max_wr : 1);
	*esz = eng_dp_pow2(sizeof(struct pv_recv_wqe) +
			   max_sge * sizeof(struct pv_wqe_sge));
}

uint32_t eng_dp_cq_entries(uint32_t cqe)
{
	return eng_dp_pow2(cqe + 1);
}

size_t eng_dp_ring_bytes(uint32_t num, uint32_t esz)
{
	size_t n = sizeof(struct pv_ring_hdr) + (size_t)num * esz;

	return (n + PV_CACHELINE - 1) & ~(size_t)(PV_CACHELINE - 1);
}

void eng_dp_ring_init(struct eng_ring *r, void *mem, uint32_t num,
		      uint32_t esz)
{
	struct pv_ring_hdr *h = mem;

	memset(h, 0, sizeof(*h));
	h->magic = PV_RING_MAGIC;
	h->version = PV_RING_VERSION;
	h->entry_size = esz;
	h->num_entries = num;
	h->entries_off = sizeof(*h);
	r->hdr = h;
	r->ents = (uint8_t *)mem + sizeof(*h);
	r->mask = num - 1;
	r->esz = esz;
	r->own = 0;
}

int eng_dp_ring_avail(const struct eng_ring *r)
{
	uint32_t prod = __atomic_load_n(&r->hdr->prod, __ATOMIC_ACQUIRE);
	uint32_t n = prod - r->own;

	return n > r->mask + 1 ? -EPROTO : (int)n;
}

void *eng_dp_ring_entry(const struct eng_ring *r, uint32_t counter)
{
	return r->ents + (size_t)(counter & r->mask) * r->esz;
}

void eng_dp_ring_consume(struct eng_ring *r)
{
	r->own++;
	__atomic_store_n(&r->hdr->cons, r->own, __ATOMIC_RELEASE);
}

int eng_dp_ring_space(const struct eng_ring *r)
{
	uint32_t cons = __atomic_load_n(&r->hdr->cons, __ATOMIC_ACQUIRE);
	uint32_t used = r->own - cons;

	return used > r->mask + 1 ? -EPROTO : (int)(r->mask + 1 - used);
}

void eng_dp_ring_produce(struct eng_ring *r)
{
	r->own++;
	__atomic_store_n(&r->hdr->prod, r->own, __ATOMIC_RELEASE);
}

int eng_dp_send_wqe_check(const struct pv_send_wqe *w, uint32_t qp_type,
			  const struct pv_ipc_qp_cap *cap, uint32_t esz)
{
	uint64_t body;

	if (!eng_wr_valid_for(w->opcode, qp_type))
		return -EINVAL;
	if (w->send_flags & IBV_SEND_INLINE) {
		/* Inline data makes no sense for reads and atomics. */
		if (!eng_wr_may_inline(w->opcode) ||
		    w->inline_len > cap->max_inline_data)
			return -EINVAL;
		body = w->inline_len;
	} else {
		if (w->num_sge > cap->max_send_sge)
			return -EINVAL;
		body = (uint64_t)w->num_sge * sizeof(struct pv_wqe_sge);
	}
	return sizeof(*w) + body <= esz ? 0 : -EINVAL;
}

int eng_dp_recv_wqe_check(const struct pv_recv_wqe *w, uint32_t max_sge,
			  uint32_t esz)
{
	if (w->num_sge > max_sge ||
	    sizeof(*w) + (uint64_t)w->num_sge * sizeof(struct pv_wqe_sge) > esz)
		return -EINVAL;
	return 0;
}

void eng_dp_shm_read(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
	/* dst escapes and memory is clobbered: every later use of the copy
	 * must load the copy, never src again. */
	__asm__ __volatile__("" : : "r"(dst) : "memory");
}

int eng_dp_recv_wqe_fetch(const struct eng_ring *r, uint32_t max_sge,
			  struct eng_dp_rwqe *out)
{
	const uint8_t *ent = eng_dp_ring_entry(r, r->own);
	struct pv_recv_wqe h;

	eng_dp_shm_read(&h, ent, sizeof(h));
	if (eng_dp_recv_wqe_check(&h, max_sge, r->esz) < 0 ||
	    h.num_sge > ENG_SGE_MAX)
		return -EINVAL;
	out->wr_id = h.wr_id;
	out->num_sge = h.num_sge;
	eng_dp_shm_read(out->sge, ent + sizeof(h),
			(size_t)h.num_sge * sizeof(out->sge[0]));
	return 0;
}

int eng_dp_send_wqe_fetch(const struct eng_ring *r, uint32_t qp_type,
			  const struct pv_ipc_qp_cap *cap,
			  struct eng_dp_swqe *out)
{
	const uint8_t *ent = eng_dp_ring_entry(r, r->own);
	size_t body;

	eng_dp_shm_read(&out->w, ent, sizeof(out->w));
	if (eng_dp_send_wqe_check(&out->w, qp_type, cap, r->esz) < 0)
		return -EINVAL;
	if (out->w.send_flags & IBV_SEND_INLINE) {
		if (out->w.inline_len > ENG_INLINE_MAX)
			return -EINVAL;
		body = out->w.inline_len;
	} else {
		if (out->w.num_sge > ENG_SGE_MAX)
			return -EINVAL;
		body = (size_t)out->w.num_sge * sizeof(out->sge[0]);
	}
	eng_dp_shm_read(out->inl, ent + sizeof(out->w), body);
	return 0;
}
