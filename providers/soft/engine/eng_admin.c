/* SPDX-License-Identifier: MIT */
/*
 * Administrative requests (root in the engine's namespace only; checked
 * by the dispatcher): adding and deleting devices, listings, counters.
 *
 * Listings page.  DEV_LIST and ADM_DEV_LIST (pv_ipc_list_req) start at
 * a device id and stop where the reply is full: 1024 devices take
 * ~770 KiB as ADM entries, far past one message.  ADM_OBJ_LIST's request
 * dev_ref.index is the first entry wanted and the reply's `total` counts
 * all matching entries.
 */
#include <errno.h>
#include <string.h>

#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"

static bool str_ok(const char *s, size_t cap)
{
	return memchr(s, '\0', cap) != NULL;
}

int eng_op_adm_dev_add(struct eng_req *r)
{
	const struct pv_ipc_adm_dev_add *in = r->in;
	struct pv_ipc_adm_dev_claims cl = { 0 };
	struct pv_ipc_adm_dev_pod pod;
	struct eng_dev *d;
	int ret;

	if (!str_ok(in->netns_path, sizeof(in->netns_path)) ||
	    !str_ok(in->ifname, sizeof(in->ifname)) ||
	    !str_ok(in->name, sizeof(in->name)) || !in->ifname[0])
		return -EINVAL;
	/* The low 15 bits name the partition; 0 is not a valid one. */
	if (in->pkey && !(in->pkey & ENG_PKEY_BASE_MASK))
		return -EINVAL;
	/* Copied once, then checked (the request is the client's). */
	if ((in->flags & PV_ADM_DEV_ADD_CLAIMS) &&
	    r->in_len >= sizeof(*in) + sizeof(cl)) {
		memcpy(&cl, (const uint8_t *)r->in + sizeof(*in), sizeof(cl));
		if (cl.count > PV_GID_CLAIM_MAX)
			return -EINVAL;
	}
	memset(&pod, 0, sizeof(pod));
	if ((in->flags & PV_ADM_DEV_ADD_POD) &&
	    r->in_len >= sizeof(*in) + sizeof(cl) + sizeof(pod)) {
		memcpy(&pod, (const uint8_t *)r->in + sizeof(*in) + sizeof(cl),
		       sizeof(pod));
		if (!str_ok(pod.ns, sizeof(pod.ns)) ||
		    !str_ok(pod.name, sizeof(pod.name)))
			return -EINVAL;
	}
	ret = eng_dev_add_claims(r->e, in, &cl, &d);
	if (ret < 0)
		return ret;
	memcpy(d->pod_ns, pod.ns, sizeof(d->pod_ns));
	memcpy(d->pod_name, pod.name, sizeof(d->pod_name));
	d->recorded = true;
	if (r->e->devs_changed)
		r->e->devs_changed(r->e, d, 0);
	eng_dev_info(d, r->out);
	r->out_len = sizeof(struct pv_ipc_dev_info);
	return 0;
}

int eng_op_adm_dev_del(struct eng_req *r)
{
	const struct pv_ipc_adm_dev_del *in = r->in;
	struct eng_dev *d = NULL;
	unsigned matches = 0;
	uint32_t id;

	if (in->dev_id) {
		d = eng_dev_by_id(r->e, in->dev_id);
	} else {
		if (!str_ok(in->name, sizeof(in->name)) || !in->name[0])
			return -EINVAL;
		for (uint32_t i = r->e->devs.min; i < r->e->devs.cap; i++) {
			struct eng_dev *x = r->e->devs.slot[i];

			if (x && strcmp(x->name, in->name) == 0) {
				d = x;
				matches++;
			}
		}
		/* Names are unique per namespace only: ask for the id. */
		if (matches > 1)
			return -ENOTUNIQ;
	}
	if (!d)
		return -ENODEV;
	id = d->id;
	eng_dev_remove(r->e, d);
	if (r->e->devs_changed)
		r->e->devs_changed(r->e, NULL, id);
	return 0;
}

int eng_list_page(const struct eng_req *r, uint32_t fit,
		  struct eng_list_page *pg)
{
	struct pv_ipc_list_req req = { 0 };

	/* The request is optional (empty: the first page, as before
	 * paging), and anything else is exactly one pv_ipc_list_req. */
	if (r->in_len != 0 && r->in_len != sizeof(req)) {
		eng_stat_inc(msgs_malformed);
		return -EINVAL;
	}
	if (r->in_len)
		memcpy(&req, r->in, sizeof(req));
	/* Any cursor is valid (past the end: an empty last page), any
	 * count is cut to what fits. */
	pg->first = req.cursor > r->e->devs.min ? req.cursor : r->e->devs.min;
	pg->max = req.max && req.max < fit ? req.max : fit;
	return 0;
}

int eng_op_adm_dev_list(struct eng_req *r)
{
	struct pv_ipc_adm_dev_list *out = r->out;
	struct eng_list_page pg;
	int ret = eng_list_page(r, (PV_IPC_MAX_PAYLOAD - sizeof(*out)) /
				   sizeof(out->dev[0]), &pg);

	if (ret < 0)
		return ret;
	memset(out, 0, sizeof(*out));
	for (uint32_t i = pg.first; i < r->e->devs.cap; i++) {
		struct eng_dev *d = r->e->devs.slot[i];
		struct pv_ipc_adm_dev *a;

		if (!d)
			continue;
		out->total++;
		if (out->count >= pg.max)
			continue;
		a = &out->dev[out->count++];
		memset(a, 0, sizeof(*a));
		eng_dev_info(d, &a->info);
		a->netns_ino = d->ns.ino;
		a->netns_dev = d->ns.dev;
		memcpy(a->netns_path, d->netns_path, sizeof(a->netns_path));
		a->gid_count = d->gid_count;
		a->clients = d->clients;
		memcpy(a->gid, d->gid, sizeof(a->gid));
	}
	r->out_len = sizeof(*out) + out->count * sizeof(out->dev[0]);
	return 0;
}

static void obj_row(const struct eng_conn *c, const struct eng_obj *o,
		    struct pv_ipc_adm_obj *row)
{
	const struct eng_qp *qp;

	memset(row, 0, sizeof(*row));
	row->dev_id = c->dev_id;
	row->client_id = c->id;
	row->client_pid = (uint32_t)c->ident.pid;
	row->kind = o->kind;
	row->handle = o->handle;
	switch (o->kind) {
	case PV_OBJ_QP:
		row->detail = ((const struct eng_qp *)o)->qp_num;
		row->state = ((const struct eng_qp *)o)->state;
		break;
	case ENG_OBJ_QP_OPEN:	/* a QP handle of an opened XRC_RECV QP */
		row->kind = PV_OBJ_QP;
		qp = ((const struct eng_qp_open *)o)->qp;
		if (qp) {
			row->detail = qp->qp_num;
			row->state = qp->state;
		}
		break;
	case PV_OBJ_MR:
		row->detail = ((const struct eng_mr *)o)->lkey;
		break;
	case PV_OBJ_CQ:
		row->detail = ((const struct eng_cq *)o)->cqe;
		break;
	case PV_OBJ_SRQ:
		row->detail = ((const struct eng_srq *)o)->max_wr;
		break;
	}
}

int eng_op_adm_obj_list(struct eng_req *r)
{
	const struct pv_ipc_dev_ref *ref = r->in;
	struct pv_ipc_adm_obj_list *out = r->out;
	uint32_t max = (PV_IPC_MAX_PAYLOAD - sizeof(*out)) /
		       sizeof(out->obj[0]);
	struct eng_list *cp, *ct, *op, *ot;

	memset(out, 0, sizeof(*out));
	eng_list_for_each_safe(cp, ct, &r->e->conns) {
		struct eng_conn *c = eng_container_of(cp, struct eng_conn,
						      link);

		if (!c->ctx_handle || (ref->dev_id && c->dev_id != ref->dev_id))
			continue;
		eng_list_for_each_safe(op, ot, &c->objs) {
			uint32_t n = out->total++;

			if (n < ref->index || out->count >= max)
				continue;
			obj_row(c, eng_container_of(op, struct eng_obj, link),
				&out->obj[out->count++]);
		}
	}
	r->out_len = sizeof(*out) + out->count * sizeof(out->obj[0]);
	return 0;
}

int eng_op_adm_stats(struct eng_req *r)
{
	struct pv_ipc_stats *out = r->out;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < ENG_STAT_COUNT; i++) {
		struct pv_ipc_stat *s = &out->stat[out->count++];

		memset(s, 0, sizeof(*s));
		strncpy(s->name, eng_stat_name(i), sizeof(s->name) - 1);
		s->value = eng_stats[i];
	}
	r->out_len = sizeof(*out) + out->count * sizeof(out->stat[0]);
	return 0;
}
