/* SPDX-License-Identifier: MIT */
/*
 * Everything the engine sends to clients: replies on the control socket
 * and async events on context sockets.  All sends are non-blocking; a
 * client whose socket is full loses that message (counted) rather than
 * stalling the loop for everyone.
 */
#include <errno.h>
#include <sys/socket.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "providers/soft/proto/pv_ipc_ops.h"
#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

void eng_reply(struct eng_conn *c, uint16_t op, uint32_t seq, int32_t status,
	       const void *payload, uint32_t len, const int *fds, int nfds)
{
	int ret = pv_ipc_send(c->poll.fd, op, seq, status, payload, len, fds,
			      nfds);

	if (ret == -EAGAIN || ret == -ENOBUFS) {
		eng_stat_inc(replies_dropped);
		eng_dbg("client %u: reply to %s dropped: socket full", c->id,
			pv_ipc_op_name(op));
	}
	/* Other errors (peer gone) surface as a hangup on the next read. */
}

void eng_event_push(struct eng_conn *c, uint32_t type, uint32_t kind,
		    uint32_t handle)
{
	struct pv_ipc_event ev = {
		.event_type = type, .obj_kind = kind, .handle = handle,
	};
	ssize_t n;

	if (c->ev_fd < 0)
		return;
	n = send(c->ev_fd, &ev, sizeof(ev), MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n == (ssize_t)sizeof(ev)) {
		eng_stat_inc(events_sent);
		eng_hwc_dev_add(c->dev, async_events, 1);
		return;
	}
	eng_stat_inc(events_dropped);
	eng_dbg("client %u: event %u dropped", c->id, type);
}

void eng_event_push_dev(struct eng *e, struct eng_dev *d, uint32_t type,
			uint32_t kind, uint32_t handle)
{
	struct eng_list *pos, *tmp;

	eng_list_for_each_safe(pos, tmp, &e->conns) {
		struct eng_conn *c = eng_container_of(pos, struct eng_conn,
						      link);

		if (c->dev == d)
			eng_event_push(c, type, kind, handle);
	}
}

void eng_qp_event(struct eng_qp *qp, uint32_t type)
{
	struct eng_list *pos, *tmp;

	eng_event_push(qp->o.conn, type, PV_OBJ_QP, qp->o.handle);
	if (!qp->openers.next)
		return;
	eng_list_for_each_safe(pos, tmp, &qp->openers) {
		struct eng_qp_open *op = eng_container_of(pos,
						struct eng_qp_open, link);

		eng_event_push(op->o.conn, type, PV_OBJ_QP, op->o.handle);
	}
}
