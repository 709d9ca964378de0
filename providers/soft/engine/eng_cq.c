/* SPDX-License-Identifier: MIT */
/* Completion queues: depth within limits, optional completion channel,
 * arming for one notification (ibv_req_notify_cq). */
#include <errno.h>
#include <string.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"

static void cq_release(struct eng *e, struct eng_obj *o)
{
	struct eng_cq *cq = (struct eng_cq *)o;

	if (cq->channel)
		cq->channel->o.users--;
	eng_dp_cq_free(cq);
}

static int cq_depth_check(uint32_t cqe)
{
	if (cqe == 0)
		return -EINVAL;
	if (cqe > eng_lim.max_cqe)
		return eng_limit_hit(-EINVAL);
	return 0;
}

int eng_op_cq_create(struct eng_req *r)
{
	const struct pv_ipc_cq_create *in = r->in;
	struct pv_ipc_cq_resp *out = r->out;
	struct eng_channel *ch = NULL;
	struct eng_cq *cq;
	int ret;

	ret = cq_depth_check(in->cqe);
	if (ret < 0)
		return ret;
	/* One completion vector (num_comp_vectors = 1). */
	if (in->comp_vector != 0)
		return -EINVAL;
	if (in->channel_handle) {
		ch = eng_obj_get(r->c, in->channel_handle, PV_OBJ_CHANNEL);
		if (!ch)
			return -EINVAL;
	}
	cq = eng_obj_create(r, PV_OBJ_CQ, sizeof(*cq), cq_release, &ret);
	if (!cq)
		return ret;
	cq->channel = ch;
	if (ch)
		ch->o.users++;
	cq->cqe = in->cqe;
	cq->comp_vector = in->comp_vector;
	memset(out, 0, sizeof(*out));
	out->handle = cq->o.handle;
	out->cqe = cq->cqe;
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_cq_resize(struct eng_req *r)
{
	const struct pv_ipc_cq_create *in = r->in;
	struct pv_ipc_cq_resp *out = r->out;
	struct eng_cq *cq = eng_obj_get(r->c, in->cq_handle, PV_OBJ_CQ);
	int ret;

	if (!cq)
		return -EINVAL;
	ret = cq_depth_check(in->cqe);
	if (ret < 0)
		return ret;
	ret = eng_dp_cq_resize(cq, in->cqe);
	if (ret < 0)
		return ret;
	cq->cqe = in->cqe;
	memset(out, 0, sizeof(*out));
	out->handle = cq->o.handle;
	out->cqe = cq->cqe;
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_cq_destroy(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_cq *cq = eng_obj_get(r->c, in->handle, PV_OBJ_CQ);

	if (!cq)
		return -EINVAL;
	return eng_obj_destroy(r->e, &cq->o);
}

int eng_op_cq_req_notify(struct eng_req *r)
{
	const struct pv_ipc_cq_notify *in = r->in;
	struct eng_cq *cq = eng_obj_get(r->c, in->cq_handle, PV_OBJ_CQ);

	if (!cq)
		return -EINVAL;
	/* Arming for "next completion" wins over "solicited only" when
	 * both were asked before an event (IBA 11.4.2.2). */
	if (!cq->armed)
		cq->solicited_only = in->solicited_only != 0;
	else if (!in->solicited_only)
		cq->solicited_only = false;
	cq->armed = true;
	eng_dp_cq_arm(cq, cq->solicited_only);
	return 0;
}
