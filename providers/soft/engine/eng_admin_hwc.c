/* SPDX-License-Identifier: MIT */
/*
 * ADM_HWC: the NIC-style counters (eng_hwc.h) of the devices' ports and
 * of their QPs, named in the reply so tools need no table.  Rows page as
 * ADM_OBJ_LIST's do: the request's index is the first row wanted, the
 * reply's total counts every matching row.
 */
#include <string.h>

#include "providers/soft/engine/eng_obj.h"

struct hwc_fill {
	struct pv_ipc_adm_hwc_list *out;
	uint8_t *rows;
	uint32_t first, max;
};

static size_t row_size(void)
{
	return sizeof(struct pv_ipc_adm_hwc_row) + 8 * ENG_HWC_COUNT;
}

static void put_row(struct hwc_fill *f, uint32_t dev_id, uint32_t qpn,
		    uint32_t client, const struct eng_hwc *hw)
{
	uint32_t n = f->out->total++;
	struct pv_ipc_adm_hwc_row *row;

	if (n < f->first || f->out->count >= f->max)
		return;
	row = (void *)(f->rows + (size_t)f->out->count++ * row_size());
	row->dev_id = dev_id;
	row->qp_num = qpn;
	row->client_id = client;
	row->flags = qpn ? 0 : PV_HWC_ROW_PORT;
	memcpy(row->value, hw->v, sizeof(hw->v));
}

/* Every QP of d's connections (qpn 0) or the one numbered qpn. */
static void put_qps(struct eng *e, struct hwc_fill *f, struct eng_dev *d,
		    uint32_t qpn)
{
	struct eng_list *cp, *ct, *op, *ot;

	eng_list_for_each_safe(cp, ct, &e->conns) {
		struct eng_conn *c = eng_container_of(cp, struct eng_conn,
						      link);

		if (c->dev != d)
			continue;
		eng_list_for_each_safe(op, ot, &c->objs) {
			struct eng_obj *o = eng_container_of(op, struct eng_obj,
							     link);
			struct eng_qp *qp = (struct eng_qp *)o;

			if (o->kind != PV_OBJ_QP || (qpn && qp->qp_num != qpn))
				continue;
			put_row(f, d->id, qp->qp_num, c->id, &qp->hw);
		}
	}
}

int eng_op_adm_hwc(struct eng_req *r)
{
	struct pv_ipc_adm_hwc_req in;
	struct pv_ipc_adm_hwc_list *out = r->out;
	size_t names = (size_t)ENG_HWC_COUNT * PV_HWC_NAME_MAX;
	struct hwc_fill f = { .out = out };
	char *name;

	memcpy(&in, r->in, sizeof(in));	/* read once */
	memset(out, 0, sizeof(*out));
	out->ncounters = ENG_HWC_COUNT;
	name = (char *)(out + 1);
	memset(name, 0, names);
	for (unsigned i = 0; i < ENG_HWC_COUNT; i++)
		strncpy(name + i * PV_HWC_NAME_MAX, eng_hwc_name(i),
			PV_HWC_NAME_MAX - 1);
	f.rows = (uint8_t *)name + names;
	f.first = in.index;
	f.max = (uint32_t)((PV_IPC_MAX_PAYLOAD - sizeof(*out) - names) /
			   row_size());
	for (uint32_t i = r->e->devs.min; i < r->e->devs.cap; i++) {
		struct eng_dev *d = r->e->devs.slot[i];

		if (!d || (in.dev_id && d->id != in.dev_id))
			continue;
		if (!in.qp_num)
			put_row(&f, d->id, 0, 0, &d->hw);
		if (in.qp_num || (in.flags & PV_ADM_HWC_QPS))
			put_qps(r->e, &f, d, in.qp_num & 0xffffff);
	}
	r->out_len = (uint32_t)(sizeof(*out) + names +
				(size_t)out->count * row_size());
	return 0;
}
