/* SPDX-License-Identifier: MIT */
/*
 * The generic life of verbs objects (create with per-client limits,
 * lookup by handle and kind, destroy unless in use, teardown of a closed
 * connection in dependency order) and the simple kinds: PD, MR, AH.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_mr_report.h"
#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"

uint64_t eng_obj_limit(uint32_t kind)
{
	switch (kind) {
	case PV_OBJ_PD:		return eng_lim.max_pd;
	case PV_OBJ_MR:		return eng_lim.max_mr;
	case PV_OBJ_CQ:		return eng_lim.max_cq;
	case PV_OBJ_QP:		return eng_lim.max_qp;
	case PV_OBJ_SRQ:	return eng_lim.max_srq;
	case PV_OBJ_AH:		return eng_lim.max_ah;
	case PV_OBJ_CHANNEL:	return eng_lim.max_channel;
	case PV_OBJ_MW:		return eng_lim.max_mw;
	case PV_OBJ_XRCD:	return eng_lim.max_xrcd;
	}
	return 0;
}

const char *eng_obj_kind_name(uint32_t kind)
{
	static const char *const names[] = {
		[PV_OBJ_NONE] = "none", [PV_OBJ_PD] = "pd", [PV_OBJ_MR] = "mr",
		[PV_OBJ_CQ] = "cq", [PV_OBJ_QP] = "qp", [PV_OBJ_SRQ] = "srq",
		[PV_OBJ_AH] = "ah", [PV_OBJ_CHANNEL] = "channel",
		[PV_OBJ_PORT] = "port", [PV_OBJ_MW] = "mw",
		[PV_OBJ_XRCD] = "xrcd",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

/* The kind an object counts as against the client's limits: an opened
 * QP's handle is a QP handle. */
static uint32_t limit_kind(uint32_t kind)
{
	return kind == ENG_OBJ_QP_OPEN ? PV_OBJ_QP : kind;
}

void *eng_obj_create(struct eng_req *r, uint32_t kind, size_t size,
		     void (*release)(struct eng *, struct eng_obj *), int *err)
{
	struct eng_conn *c = r->c;
	uint32_t lk = limit_kind(kind);
	struct eng_obj *o;
	int64_t h;

	if (c->count[lk] >= eng_obj_limit(lk)) {
		eng_dbg("client %u: %s limit %u reached", c->id,
			eng_obj_kind_name(lk), c->count[lk]);
		*err = eng_limit_hit(-ENOMEM);
		return NULL;
	}
	o = calloc(1, size);
	if (!o) {
		*err = -ENOMEM;
		return NULL;
	}
	h = eng_htab_add(&c->handles, o, (uint16_t)kind);
	if (h < 0) {
		free(o);
		*err = eng_limit_hit(-ENOMEM);
		return NULL;
	}
	o->handle = (uint32_t)h;
	o->kind = kind;
	o->conn = c;
	o->release = release;
	eng_list_add_tail(&c->objs, &o->link);
	c->count[lk]++;
	eng_stat_inc(objects_created);
	eng_stat_inc(objects_live);
	return o;
}

void *eng_obj_get(struct eng_conn *c, uint32_t handle, uint32_t kind)
{
	return eng_htab_get(&c->handles, handle, (uint16_t)kind);
}

static void obj_free(struct eng *e, struct eng_obj *o)
{
	struct eng_conn *c = o->conn;

	if (o->release)
		o->release(e, o);
	eng_htab_del(&c->handles, o->handle);
	eng_list_del(&o->link);
	c->count[limit_kind(o->kind)]--;
	eng_stat_inc(objects_destroyed);
	eng_stat_dec(objects_live);
	free(o);
}

int eng_obj_destroy(struct eng *e, struct eng_obj *o)
{
	if (o->users)
		return -EBUSY;
	obj_free(e, o);
	return 0;
}

/* Users before what they use, so every release finds its targets. */
static const uint32_t teardown_order[] = {
	ENG_OBJ_QP_OPEN, PV_OBJ_QP, PV_OBJ_AH, PV_OBJ_MW, PV_OBJ_SRQ,
	PV_OBJ_MR, PV_OBJ_CQ, PV_OBJ_PD, PV_OBJ_XRCD,
	PV_OBJ_CHANNEL,
};

void eng_objs_free_all(struct eng *e, struct eng_conn *c)
{
	for (size_t k = 0; k < sizeof(teardown_order) / sizeof(uint32_t); k++) {
		struct eng_list *pos, *tmp;

		eng_list_for_each_safe(pos, tmp, &c->objs) {
			struct eng_obj *o = eng_container_of(pos,
						struct eng_obj, link);

			if (o->kind != teardown_order[k])
				continue;
			/* An XRC_RECV QP others opened lives on with them. */
			if (o->hand_over && o->hand_over(e, o))
				continue;
			obj_free(e, o);
		}
	}
}

/* Removes c's QPs and MRs from its device's lookup tables: after a
 * device is deleted nothing can reach them by number; the client may
 * still destroy them by handle. */
void eng_objs_detach_dev(struct eng *e, struct eng_conn *c)
{
	struct eng_list *pos, *tmp;
	struct eng_dev *d = c->dev;

	eng_list_for_each_safe(pos, tmp, &c->objs) {
		struct eng_obj *o = eng_container_of(pos, struct eng_obj, link);

		if (o->kind == PV_OBJ_QP)
			eng_idtab_free(&d->qps, ((struct eng_qp *)o)->qp_num);
		else if (o->kind == PV_OBJ_MR)
			eng_mrkeys_release(&d->mrs, (struct eng_mr *)o);
		else if (o->kind == PV_OBJ_MW)
			eng_mrkeys_mw_release(&d->mrs, (struct eng_mw *)o);
	}
	eng_quota_detach(c);
	eng_mr_report_dev_lost(c);
	d->clients--;
	c->dev = NULL;
	c->dev_lost = true;
}

int eng_op_pd_alloc(struct eng_req *r)
{
	struct pv_ipc_handle *out = r->out;
	struct eng_pd *pd;
	int ret;

	pd = eng_obj_create(r, PV_OBJ_PD, sizeof(*pd), NULL, &ret);
	if (!pd)
		return ret;
	memset(out, 0, sizeof(*out));
	out->handle = pd->o.handle;
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_pd_dealloc(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_pd *pd = eng_obj_get(r->c, in->handle, PV_OBJ_PD);

	if (!pd)
		return -EINVAL;
	return eng_obj_destroy(r->e, &pd->o);
}

static void mr_release(struct eng *e, struct eng_obj *o)
{
	struct eng_mr *mr = (struct eng_mr *)o;

	if (o->conn->dev)
		eng_mrkeys_release(&o->conn->dev->mrs, mr);
	/* Packets queued on the wire may point into the mapping (eng_net.h:
	 * payloads are referenced until the flush): once unmapped, the
	 * address could be another MR's. */
	if (o->conn->dev && mr->dp)
		eng_net_tx_purge(e, o->conn->dev);
	eng_dp_mr_detach(mr);
	mr->pd->o.users--;
}

/* The ibv_access_flags bits a registration may carry outside the optional
 * range (bits 0..7); any other one fails it. */
#define MR_ACCESS_KNOWN							\
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |		\
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |		\
	 IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED |			\
	 IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB)

/* IBA 10.6.3.1 / ibv_reg_mr(3): remote write or atomic access needs
 * local write. */
int eng_mr_check(const struct pv_ipc_mr_reg *in)
{
	uint32_t acc = in->access & ~IBV_ACCESS_OPTIONAL_RANGE;

	if (acc & ~MR_ACCESS_KNOWN)
		return -EINVAL;
	if ((acc & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(acc & IBV_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (in->length == 0 || in->addr + in->length < in->addr ||
	    in->iova + in->length < in->iova)
		return -EINVAL;
	if (in->length > (eng_lim.max_mr_size_mb << 20))
		return eng_limit_hit(-EINVAL);
	return 0;
}

int eng_op_mr_reg(struct eng_req *r)
{
	const struct pv_ipc_mr_reg *in = r->in;
	struct pv_ipc_mr_reg_resp *out = r->out;
	struct eng_pd *pd = eng_obj_get(r->c, in->pd_handle, PV_OBJ_PD);
	struct eng_mr *mr;
	int ret;

	if (!pd)
		return -EINVAL;
	ret = eng_mr_check(in);
	if (ret < 0)
		return ret;
	mr = eng_obj_create(r, PV_OBJ_MR, sizeof(*mr), NULL, &ret);
	if (!mr)
		return ret;
	mr->pd = pd;
	pd->o.users++;
	mr->o.release = mr_release;
	mr->addr = in->addr;
	mr->length = in->length;
	mr->iova = in->iova;
	mr->access = in->access;
	ret = eng_mrkeys_assign(&r->c->dev->mrs, mr);
	if (ret < 0) {
		eng_obj_destroy(r->e, &mr->o);
		return eng_limit_hit(ret);
	}
	ret = eng_dp_mr_attach(r, mr);
	if (ret < 0) {
		eng_obj_destroy(r->e, &mr->o);
		return ret;
	}
	memset(out, 0, sizeof(*out));
	out->handle = mr->o.handle;
	out->lkey = mr->lkey;
	out->rkey = mr->rkey;
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_mr_dereg(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_mr *mr = eng_obj_get(r->c, in->handle, PV_OBJ_MR);

	if (!mr)
		return -EINVAL;
	return eng_obj_destroy(r->e, &mr->o);
}

static void pd_user_release(struct eng *e, struct eng_obj *o)
{
	((struct eng_ah *)o)->pd->o.users--;
}

int eng_op_ah_create(struct eng_req *r)
{
	const struct pv_ipc_ah_create *in = r->in;
	struct pv_ipc_handle *out = r->out;
	struct eng_pd *pd = eng_obj_get(r->c, in->pd_handle, PV_OBJ_PD);
	struct eng_ah *ah;
	int ret;

	if (!pd)
		return -EINVAL;
	/* RoCE addresses always carry a GRH (IBA A17.4.5.1); the source GID
	 * must exist on port 1. */
	if (in->attr.port_num != 1 || !in->attr.is_global ||
	    in->attr.sgid_index >= r->c->dev->gid_count)
		return -EINVAL;
	ah = eng_obj_create(r, PV_OBJ_AH, sizeof(*ah), pd_user_release, &ret);
	if (!ah)
		return ret;
	ah->pd = pd;
	pd->o.users++;
	ah->attr = in->attr;
	memset(out, 0, sizeof(*out));
	out->handle = ah->o.handle;
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_ah_destroy(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_ah *ah = eng_obj_get(r->c, in->handle, PV_OBJ_AH);

	if (!ah)
		return -EINVAL;
	return eng_obj_destroy(r->e, &ah->o);
}
