/* SPDX-License-Identifier: MIT */
/*
 * MR_REREG (ibv_rereg_mr(3); IBA 11.2.8, the memory management verbs):
 * changes an MR's translation (range, with a new memfd as MR_REG takes),
 * its PD and/or its access rights in place, keeping its handle.
 *
 * The MR as rereg would leave it is checked exactly as MR_REG checks a
 * new one (eng_mr_check: access bits, remote write/atomic needing local
 * write, empty or wrapping ranges, the size limit), and a new range is
 * mapped by the same code (eng_dp_mr_attach_backing: memfd only, sealed,
 * no holes, quota).  Everything that can fail runs before anything
 * changes, so a failed rereg leaves the MR exactly as it was.
 *
 * Both keys change on every successful rereg (the old ones go to the
 * quarantine, eng_mrkey.h): a peer still holding the old rkey misses, as
 * it would after a dereg, and an access with the new rkey is judged
 * against the new rights.  Each chunk of a remote access is checked
 * against the MR as it is when it arrives, so a multi-packet WRITE in
 * flight fails from the first chunk after the rereg on.
 *
 * An MR with users (memory windows bound to it) cannot be reregistered
 * (EBUSY), as it cannot be deregistered.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"

/* The MR as in would leave it, in MR_REG's terms. */
static void rereg_target(const struct eng_mr *mr,
			 const struct pv_ipc_mr_rereg *in,
			 struct pv_ipc_mr_reg *out)
{
	memset(out, 0, sizeof(*out));
	out->access = mr->access;
	out->addr = mr->addr;
	out->length = mr->length;
	out->iova = mr->iova;
	if (in->flags & IBV_REREG_MR_CHANGE_ACCESS)
		out->access = in->access;
	if (in->flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		out->addr = in->addr;
		out->length = in->length;
		out->iova = in->iova;
	}
}

static int prot_of(uint32_t access)
{
	return PROT_READ |
	       ((access & IBV_ACCESS_LOCAL_WRITE) ? PROT_WRITE : 0);
}

/* Same range, new rights: the engine's own mapping follows LOCAL_WRITE
 * (the kernel refuses PROT_WRITE on a memfd the client passed read-only
 * or sealed against writes, so nothing is gained by asking). */
static int reprotect(struct eng_mr *mr, uint32_t from, uint32_t to)
{
	if (!mr->dp || prot_of(from) == prot_of(to))
		return 0;
	if (mprotect(mr->dp->map, mr->dp->map_len, prot_of(to)) < 0)
		return -EACCES;
	return 0;
}

static const struct pv_ipc_mr_backing *backing_of(const struct eng_req *r)
{
	if (r->in_len < sizeof(struct pv_ipc_mr_rereg) +
			sizeof(struct pv_ipc_mr_backing))
		return NULL;
	return (const void *)((const uint8_t *)r->in +
			      sizeof(struct pv_ipc_mr_rereg));
}

/* Maps the new range into scratch->dp (scratch: the MR as it will be). */
static int map_new(struct eng_req *r, const struct eng_mr *mr,
		   const struct pv_ipc_mr_reg *t, struct eng_mr *scratch)
{
	*scratch = *mr;
	scratch->dp = NULL;
	scratch->addr = t->addr;
	scratch->length = t->length;
	scratch->iova = t->iova;
	scratch->access = t->access;
	return eng_dp_mr_attach_backing(r, scratch, backing_of(r));
}

static void commit(struct eng_req *r, struct eng_mr *mr, struct eng_pd *pd,
		   const struct pv_ipc_mr_reg *t, struct eng_dp_mr *new_dp)
{
	if (new_dp) {
		/* Queued wire packets may point into the old mapping. */
		eng_net_tx_purge(r->e, r->c->dev);
		eng_dp_mr_detach(mr);	/* the old length's quota */
		mr->dp = new_dp;
	}
	mr->addr = t->addr;
	mr->length = t->length;
	mr->iova = t->iova;
	mr->access = t->access;
	if (pd != mr->pd) {
		mr->pd->o.users--;
		pd->o.users++;
		mr->pd = pd;
	}
}

int eng_op_mr_rereg(struct eng_req *r)
{
	const struct pv_ipc_mr_rereg *in = r->in;
	struct pv_ipc_mr_reg_resp *out = r->out;
	struct eng_mr *mr = eng_obj_get(r->c, in->mr_handle, PV_OBJ_MR);
	bool xlate = in->flags & IBV_REREG_MR_CHANGE_TRANSLATION;
	struct eng_mr scratch;
	struct pv_ipc_mr_reg t;
	struct eng_pd *pd;
	int ret;

	if (!mr || !in->flags || (in->flags & ~IBV_REREG_MR_FLAGS_SUPPORTED))
		return -EINVAL;
	if (mr->o.users)
		return -EBUSY;
	pd = mr->pd;
	if (in->flags & IBV_REREG_MR_CHANGE_PD) {
		pd = eng_obj_get(r->c, in->pd_handle, PV_OBJ_PD);
		if (!pd)
			return -EINVAL;
	}
	rereg_target(mr, in, &t);
	ret = eng_mr_check(&t);
	if (ret < 0)
		return ret;
	if (!xlate && r->in_nfds)
		return -EINVAL;	/* a memfd only comes with a new range */
	ret = xlate ? map_new(r, mr, &t, &scratch) :
		      reprotect(mr, mr->access, t.access);
	if (ret < 0)
		return ret;
	ret = eng_mrkeys_rekey(&r->c->dev->mrs, mr);
	if (ret < 0) {
		if (xlate)
			eng_dp_mr_detach(&scratch);
		else
			reprotect(mr, t.access, mr->access);
		return eng_limit_hit(ret);
	}
	commit(r, mr, pd, &t, xlate ? scratch.dp : NULL);
	eng_stat_inc(mr_rereg);
	memset(out, 0, sizeof(*out));
	out->handle = mr->o.handle;
	out->lkey = mr->lkey;
	out->rkey = mr->rkey;
	r->out_len = sizeof(*out);
	return 0;
}
