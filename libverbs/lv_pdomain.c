/* SPDX-License-Identifier: MIT */
/*
 * Thread domains and parent domains on our own devices.  A parent domain
 * is a pv_pd whose inner names the protection domain it wraps; it copies
 * that PD's handle and priv, so every verb that takes a PD (reg_mr,
 * create_qp/_ex, create_srq, create_cq_ex with a PD, create_ah) works
 * with it unchanged and the engine sees the real PD.  The PD and the TD
 * count the parent domains on them: deallocating either while one is
 * left fails with EBUSY, as rdma-core does; a parent domain counts its
 * QPs, CQs and SRQs the same way (their destroy may call its free hook).
 */
#include <errno.h>
#include <stdlib.h>

#include "libverbs/lv_core.h"

#define PD_INIT_MASK (IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS | \
		      IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)

struct ibv_td *lv_alloc_td(struct ibv_context *context,
			   struct ibv_td_init_attr *attr)
{
	struct pv_td *td;

	if (!context || !attr || attr->comp_mask)
		return lv_null_errno(-EINVAL);
	td = calloc(1, sizeof(*td));
	if (!td)
		return lv_null_errno(-ENOMEM);
	td->ibv.context = context;
	atomic_init(&td->users, 0);
	return &td->ibv;
}

int lv_dealloc_td(struct ibv_td *ibv)
{
	struct pv_td *td = (struct pv_td *)ibv;

	if (!td)
		return EINVAL;
	if (atomic_load(&td->users))
		return EBUSY;
	free(td);
	return 0;
}

struct ibv_pd *lv_alloc_parent_domain(struct ibv_context *context,
				      struct ibv_parent_domain_init_attr *attr)
{
	struct pv_pd *pd, *inner;
	bool allocators;

	if (!context || !attr || !attr->pd || (attr->comp_mask & ~PD_INIT_MASK))
		return lv_null_errno(-EINVAL);
	inner = (struct pv_pd *)attr->pd;
	allocators = attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	/* A parent domain of a parent domain, a foreign PD or TD, or one of
	 * the two allocator hooks alone is refused. */
	if (inner->inner || attr->pd->context != context ||
	    (attr->td && attr->td->context != context) ||
	    (allocators && (!attr->alloc || !attr->free)))
		return lv_null_errno(-EINVAL);
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return lv_null_errno(-ENOMEM);
	pd->ibv.context = context;
	pd->ibv.handle = inner->ibv.handle;
	pd->handle = inner->handle;
	pd->priv = inner->priv;
	pd->inner = inner;
	pd->td = (struct pv_td *)attr->td;
	if (allocators) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	atomic_fetch_add(&inner->users, 1);
	if (pd->td)
		atomic_fetch_add(&pd->td->users, 1);
	return &pd->ibv;
}

int lv_dealloc_parent_domain(struct pv_pd *pd)
{
	if (atomic_load(&pd->users))
		return lv_errno(-EBUSY);	/* QPs, CQs or SRQs made from it */
	atomic_fetch_sub(&pd->inner->users, 1);
	if (pd->td)
		atomic_fetch_sub(&pd->td->users, 1);
	free(pd);
	return 0;
}
