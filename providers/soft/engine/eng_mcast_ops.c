/* SPDX-License-Identifier: MIT */
/* ATTACH_MCAST / DETACH_MCAST requests: what a client may name (eng_mcast.h). */
#include "providers/soft/engine/eng_mcast.h"

#include <errno.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

static int refuse(int err, const char *why, const struct eng_req *r)
{
	eng_stat_inc(mcast_refused);
	eng_dbg("client %u: %s refused: %s", r->c->id,
		r->op == PV_OP_QP_MCAST_ATTACH ? "attach_mcast" :
		"detach_mcast", why);
	return err;
}

/* Only a UD QP of this connection (handles are per connection: another
 * pod's QP cannot be named), only a group GID. */
static struct eng_qp *mcast_qp(struct eng_req *r,
			       const struct pv_ipc_qp_mcast *in)
{
	struct eng_qp *qp = eng_obj_get(r->c, in->qp_handle, PV_OBJ_QP);

	if (!qp || qp->init.qp_type != IBV_QPT_UD ||
	    !eng_mcast_gid_is_group(in->gid))
		return NULL;
	return qp;
}

int eng_op_qp_mcast_attach(struct eng_req *r)
{
	const struct pv_ipc_qp_mcast *in = r->in;
	struct eng_qp *qp = mcast_qp(r, in);
	const char *why = "";
	int ret;

	if (!qp)
		return refuse(-EINVAL, "not a UD QP of this client, or not "
			      "a multicast GID", r);
	ret = eng_mcast_attach(r->e, qp, in->gid, &why);
	return ret < 0 ? refuse(ret, why, r) : 0;
}

int eng_op_qp_mcast_detach(struct eng_req *r)
{
	const struct pv_ipc_qp_mcast *in = r->in;
	struct eng_qp *qp = mcast_qp(r, in);

	if (!qp || eng_mcast_detach(r->e, qp, in->gid) < 0)
		return refuse(-EINVAL, "not attached", r);
	return 0;
}
