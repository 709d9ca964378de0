/* SPDX-License-Identifier: MIT */
/*
 * The CM service's common part (eng_cm.h): ids and their handles, the
 * event push, address look-ups.  Calls nothing of the other eng_cm_*.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "common/pv_usdt.h"
#include "providers/soft/proto/pv_ipc_ops.h"
#include "providers/soft/engine/eng_cm.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_reaper.h"
#include "providers/soft/engine/eng_stats.h"

int eng_cm_bad(struct eng_req *r, int err, const char *why)
{
	eng_stat_inc(cm_bad_requests);
	eng_dbg("client %u: %s refused (%d): %s", r->c->id,
		pv_ipc_op_name(r->op), err, why);
	return err;
}

struct eng_cm_id *eng_cm_id_get(struct eng_req *r, uint32_t handle)
{
	struct eng_cm_id *id = NULL;

	if (r->c->cm)
		id = eng_htab_get(&r->c->handles, handle, ENG_OBJ_CM_ID);
	if (!id)
		eng_cm_bad(r, -EINVAL, "no such CM id on this connection");
	return id;
}

/* Ids held by c's pod, over all its connections (a scan: only when the
 * engine holds enough ids for the pod share to matter). */
static bool pod_full(struct eng *e, const struct eng_conn *c)
{
	struct eng_list *pos, *tmp;
	uint32_t n = 0;

	if (e->cm->nids < ENG_CM_IDS_PER_POD)
		return false;
	eng_list_for_each_safe(pos, tmp, &e->cm->ids) {
		struct eng_cm_id *o = eng_container_of(pos, struct eng_cm_id,
						       all_link);

		if (netns_id_equal(&o->conn->ident.ns, &c->ident.ns) &&
		    ++n >= ENG_CM_IDS_PER_POD)
			return true;
	}
	return false;
}

struct eng_cm_id *eng_cm_id_new(struct eng *e, struct eng_conn *c, int *err)
{
	struct eng_cm_id *id;
	int64_t h;

	if (!e->cm) {
		e->cm = calloc(1, sizeof(*e->cm));
		if (!e->cm)
			goto nomem;
		eng_list_init(&e->cm->ids);
	}
	if (c->cm->nids >= ENG_CM_IDS_PER_CONN || e->cm->nids >= ENG_CM_IDS_MAX ||
	    pod_full(e, c)) {
		*err = eng_limit_hit(-ENOSPC);
		return NULL;
	}
	id = calloc(1, sizeof(*id));
	if (!id)
		goto nomem;
	h = eng_htab_add(&c->handles, id, ENG_OBJ_CM_ID);
	if (h < 0) {
		free(id);
		*err = (int)h;
		return NULL;
	}
	id->handle = (uint32_t)h;
	id->conn = c;
	eng_list_add_tail(&e->cm->ids, &id->all_link);
	eng_list_add_tail(&c->cm->ids, &id->conn_link);
	e->cm->nids++;
	c->cm->nids++;
	eng_stat_inc(cm_ids_created);
	eng_stat_inc(cm_ids_live);
	return id;
nomem:
	*err = -ENOMEM;
	return NULL;
}

/* Only the bookkeeping: peers are told first (eng_cm_conn_abort). */
void eng_cm_id_free(struct eng *e, struct eng_cm_id *id)
{
	struct eng_list *pos, *tmp;

	/* Children still pending on this listener lose it. */
	eng_list_for_each_safe(pos, tmp, &e->cm->ids) {
		struct eng_cm_id *o = eng_container_of(pos, struct eng_cm_id,
						       all_link);

		if (o->listener == id)
			o->listener = NULL;
	}
	if (id->listener && id->state == ENG_CMID_REQ_RCVD &&
	    id->listener->pending)
		id->listener->pending--;
	eng_htab_del(&id->conn->handles, id->handle);
	eng_list_del(&id->all_link);
	eng_list_del(&id->conn_link);
	e->cm->nids--;
	id->conn->cm->nids--;
	eng_stat_dec(cm_ids_live);
	free(id);
}

void eng_cm_fini(struct eng *e)
{
	free(e->cm);
	e->cm = NULL;
}

static bool send_one(int fd, const struct pv_cm_event *ev)
{
	return send(fd, ev, sizeof(*ev), MSG_DONTWAIT | MSG_NOSIGNAL) ==
	       (ssize_t)sizeof(*ev);
}

static void evq_poll(struct eng_cm_chan *cm, bool on)
{
	struct epoll_event pe = { .events = EPOLLOUT, .data.ptr = &cm->evp };

	if (on == cm->evq_polled)
		return;
	if (epoll_ctl(cm->e->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL,
		      cm->evp.fd, on ? &pe : NULL) == 0 || !on)
		cm->evq_polled = on;
}

static int evq_push(struct eng_cm_chan *cm, const struct pv_cm_event *ev)
{
	if (cm->evq_len == cm->evq_cap) {
		uint32_t cap = cm->evq_cap ? cm->evq_cap * 2 : 16;
		struct pv_cm_event *q;

		if (cm->evq_cap >= ENG_CM_EVQ_MAX)
			return -ENOSPC;
		q = malloc(cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		for (uint32_t i = 0; i < cm->evq_len; i++)
			q[i] = cm->evq[(cm->evq_head + i) % cm->evq_cap];
		free(cm->evq);
		cm->evq = q;
		cm->evq_cap = cap;
		cm->evq_head = 0;
	}
	cm->evq[(cm->evq_head + cm->evq_len) % cm->evq_cap] = *ev;
	cm->evq_len++;
	return 0;
}

/* Sends queued events in order until the socket is full again. */
static void evq_flush(struct eng_cm_chan *cm)
{
	while (cm->evq_len) {
		if (!send_one(cm->evp.fd, &cm->evq[cm->evq_head]))
			break;
		eng_stat_inc(cm_events_sent);
		cm->evq_head = (cm->evq_head + 1) % cm->evq_cap;
		cm->evq_len--;
	}
	evq_poll(cm, cm->evq_len != 0);
}

void eng_cm_ev_ready(struct eng *e, struct eng_pollable *p, uint32_t events)
{
	struct eng_cm_chan *cm = eng_container_of(p, struct eng_cm_chan, evp);

	(void)e;
	if (cm->evp.fd < 0)
		return;		/* closed earlier in this batch */
	if (events & (EPOLLERR | EPOLLHUP)) {
		cm->evq_len = 0;	/* the client is gone */
		evq_poll(cm, false);
		return;
	}
	evq_flush(cm);
}

void eng_cm_ev_close(struct eng *e, struct eng_cm_chan *cm)
{
	evq_poll(cm, false);
	eng_fd_dispose(cm->evp.fd);
	cm->evp.fd = -1;
	free(cm->evq);
	cm->evq = NULL;
	eng_defer_free(e, cm);
}

void eng_cm_event(struct eng_cm_id *id, uint32_t type, int32_t status,
		  const struct eng_cmid_msg *m)
{
	struct eng_cm_chan *cm = id->conn->cm;
	struct pv_cm_event ev;

	PV_USDT(podverbsd, cm_event, id->conn->id, id->handle, type, status);
	memset(&ev, 0, sizeof(ev));
	ev.event = type;
	ev.status = status;
	ev.id = id->handle;
	ev.cookie = id->cookie;
	ev.dev_id = id->dev_id;
	ev.ps = id->ps;
	ev.src = id->src;
	ev.dst = id->dst;
	memcpy(ev.sgid, id->sgid, 16);
	memcpy(ev.dgid, id->dgid, 16);
	ev.path_mtu = id->path_mtu;
	ev.gid_index = id->gid_index;
	memcpy(ev.dev_name, id->dev_name, sizeof(ev.dev_name));
	if (id->listener && type == PV_CM_EV_CONNECT_REQUEST)
		ev.listen_id = id->listener->handle;
	if (m) {
		ev.p = m->p;
		memcpy(ev.pdata, m->pdata, sizeof(ev.pdata));
	}
	if (!cm->evq_len && send_one(cm->evp.fd, &ev)) {
		eng_stat_inc(cm_events_sent);
		return;
	}
	if (evq_push(cm, &ev) == 0) {
		evq_poll(cm, true);
		return;
	}
	eng_stat_inc(cm_events_dropped);
	eng_warn("client %u: CM event %u for id %#x dropped: %u events "
		 "wait for its channel already", id->conn->id, type,
		 id->handle, cm->evq_len);
}

bool eng_cm_addr_any(const struct pv_cm_addr *a)
{
	static const uint8_t any6[16];
	static const uint8_t any4[16] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(a->addr, any6, 16) || !memcmp(a->addr, any4, 16);
}

static int gid_index_of(const struct eng_dev *d, const uint8_t a[16])
{
	for (uint32_t i = 0; i < d->gid_count && i < PV_GID_TABLE_MAX; i++)
		if (d->gid[i].gid_type == PV_GID_TYPE_ROCE_V2 &&
		    !memcmp(d->gid[i].gid, a, 16))
			return (int)i;
	return -1;
}

struct eng_dev *eng_cm_dev_any(struct eng *e, const uint8_t a[16],
			       uint32_t *ret_index)
{
	for (uint32_t i = e->devs.min; i < e->devs.cap; i++) {
		struct eng_dev *d = e->devs.slot[i];
		int g = d ? gid_index_of(d, a) : -1;

		if (g >= 0) {
			*ret_index = (uint32_t)g;
			return d;
		}
	}
	return NULL;
}

struct eng_dev *eng_cm_dev_of_addr(struct eng *e, const struct eng_conn *c,
				   const uint8_t a[16], uint32_t *ret_index)
{
	struct eng_dev *d = eng_cm_dev_any(e, a, ret_index);

	/* A GID belongs to one device (eng_gid_own.h): the pod's or none. */
	return d && eng_dev_visible(d, c) ? d : NULL;
}

struct eng_cm_id *eng_cm_listener(struct eng *e, const struct netns_id *ns,
				  uint32_t ps, const struct pv_cm_addr *dst)
{
	struct eng_cm_id *wild = NULL;
	struct eng_list *pos, *tmp;

	if (!e->cm)
		return NULL;
	eng_list_for_each_safe(pos, tmp, &e->cm->ids) {
		struct eng_cm_id *l = eng_container_of(pos, struct eng_cm_id,
						       all_link);

		if (l->state != ENG_CMID_LISTEN || l->ps != ps ||
		    l->src.port_be != dst->port_be ||
		    !netns_id_equal(&l->conn->ident.ns, ns))
			continue;
		if (!memcmp(l->src.addr, dst->addr, 16))
			return l;	/* a specific address wins */
		if (eng_cm_addr_any(&l->src) && !wild)
			wild = l;
	}
	return wild;
}
