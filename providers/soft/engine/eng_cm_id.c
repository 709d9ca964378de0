/* SPDX-License-Identifier: MIT */
/*
 * The CM service's id requests (eng_cm.h): the event channel, ids,
 * bind (EADDRINUSE, wildcard and specific addresses, ephemeral ports),
 * address and route resolution, listen, options, and the teardown of a
 * connection's ids.  A pod binds only to its own devices' addresses: the
 * engine finds the device from the address, among those the connection's
 * proven namespace sees.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "providers/soft/engine/eng_cm.h"
#include "providers/soft/engine/eng_wire_xport.h"
#include "providers/soft/engine/eng_mcast.h"
#include "providers/soft/engine/eng_csprng.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

/* The client's end goes with the reply; ours is write-only, non-blocking. */
int eng_op_cm_open(struct eng_req *r)
{
	struct pv_ipc_handle *out = r->out;
	struct eng_conn *c = r->c;
	int sv[2];

	if (!c->ident.ns_known || c->unproven || c->admin)
		return eng_cm_bad(r, -EPERM, "CM_OPEN before HELLO proved a netns");
	if (c->cm)
		return eng_cm_bad(r, -EBUSY, "one CM channel per connection");
	c->cm = calloc(1, sizeof(*c->cm));
	if (!c->cm)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		goto err;
	if (shutdown(sv[0], SHUT_RD) < 0 ||
	    fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0) {
		close(sv[0]);
		close(sv[1]);
		goto err;
	}
	c->cm->evp.fd = sv[0];
	c->cm->evp.ready = eng_cm_ev_ready;
	c->cm->e = r->e;
	eng_list_init(&c->cm->ids);
	r->fds[r->nfds++] = sv[1];
	memset(out, 0, sizeof(*out));
	out->handle = c->id;
	r->out_len = sizeof(*out);
	return 0;
err:
	free(c->cm);
	c->cm = NULL;
	return -errno;
}

int eng_op_cm_id_create(struct eng_req *r)
{
	const struct pv_ipc_cm_id_create *in = r->in;
	struct pv_ipc_cm_ref *out = r->out;
	struct eng_cm_id *id;
	int err;

	if (!r->c->cm)
		return eng_cm_bad(r, -EINVAL, "no CM channel (CM_OPEN)");
	if (in->ps != PV_CM_PS_TCP && in->ps != PV_CM_PS_UDP &&
	    in->ps != PV_CM_PS_IB)
		return eng_cm_bad(r, -EPROTONOSUPPORT, "port space");
	if (!eng_cm_qpt_ok(in->ps, in->qp_type))
		return eng_cm_bad(r, -EPROTONOSUPPORT,
				  "QP type not of the port space");
	id = eng_cm_id_new(r->e, r->c, &err);
	if (!id)
		return err;
	id->ps = in->ps;
	id->qp_type = in->qp_type;
	id->cookie = in->cookie;
	memset(out, 0, sizeof(*out));
	out->id = id->handle;
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_cm_id_destroy(struct eng_req *r)
{
	const struct pv_ipc_cm_ref *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id);

	if (!id)
		return -EINVAL;
	eng_cm_conn_abort(r->e, id);
	eng_cm_id_free(r->e, id);
	return 0;
}

/* Two bound ids' addresses overlap: equal, or either a wildcard. */
static bool overlaps(const struct eng_cm_id *a, const struct eng_cm_id *b)
{
	return eng_cm_addr_any(&a->src) || eng_cm_addr_any(&b->src) ||
	       !memcmp(a->src.addr, b->src.addr, 16);
}

/* Port conflicts are per pod namespace and port space, as the kernel's
 * RDMA CM keeps its port tables per net namespace. */
static bool port_taken(struct eng *e, const struct eng_cm_id *id,
		       uint16_t port_be)
{
	struct eng_list *pos, *tmp;

	eng_list_for_each_safe(pos, tmp, &e->cm->ids) {
		struct eng_cm_id *o = eng_container_of(pos, struct eng_cm_id,
						       all_link);

		if (o == id || !o->bound || o->ps != id->ps ||
		    o->src.port_be != port_be ||
		    !netns_id_equal(&o->conn->ident.ns, &id->conn->ident.ns))
			continue;
		if (!overlaps(o, id))
			continue;
		if (id->reuseaddr && o->reuseaddr && o->state != ENG_CMID_LISTEN)
			continue;
		return true;
	}
	return false;
}

static int pick_port(struct eng *e, struct eng_cm_id *id)
{
	uint32_t span = ENG_CM_PORT_HI - ENG_CM_PORT_LO + 1;
	uint32_t start = eng_csprng_below(span);

	for (uint32_t i = 0; i < span; i++) {
		uint16_t p = htons((uint16_t)(ENG_CM_PORT_LO +
					      (start + i) % span));

		if (!port_taken(e, id, p)) {
			id->src.port_be = p;
			return 0;
		}
	}
	return -EADDRINUSE;
}

static void bound_reply(struct eng_req *r, struct eng_cm_id *id)
{
	struct pv_ipc_cm_bound *out = r->out;
	struct eng_dev *d = id->dev_id ? eng_dev_by_id(r->e, id->dev_id) : NULL;

	memset(out, 0, sizeof(*out));
	out->src = id->src;
	out->dev_id = d ? d->id : 0;
	out->gid_index = id->gid_index;
	memcpy(out->sgid, id->sgid, 16);
	if (d)
		memcpy(out->dev_name, d->name, sizeof(out->dev_name));
	out->dev_name[sizeof(out->dev_name) - 1] = '\0';
	r->out_len = sizeof(*out);
}

/* Binds id to a (port 0: an ephemeral one). */
static int do_bind(struct eng_req *r, struct eng_cm_id *id,
		   const struct pv_cm_addr *a)
{
	struct eng_dev *d = NULL;
	uint32_t gi = 0;

	if (a->family != AF_INET && a->family != AF_INET6)
		return eng_cm_bad(r, -EAFNOSUPPORT, "address family");
	if (!eng_cm_addr_any(a)) {
		d = eng_cm_dev_of_addr(r->e, r->c, a->addr, &gi);
		if (!d)
			return eng_cm_bad(r, -EADDRNOTAVAIL,
					  "not an address of this pod's devices");
	}
	id->src = *a;
	id->src.scope_id = 0;
	id->dev_id = d ? d->id : 0;
	memset(id->dev_name, 0, sizeof(id->dev_name));
	if (d)
		memcpy(id->dev_name, d->name, sizeof(id->dev_name) - 1);
	id->gid_index = gi;
	memcpy(id->sgid, a->addr, 16);
	if (a->port_be == 0) {
		if (pick_port(r->e, id) < 0)
			return eng_cm_bad(r, -EADDRINUSE, "no ephemeral port");
	} else if (port_taken(r->e, id, a->port_be)) {
		return -EADDRINUSE;
	}
	id->bound = true;
	id->state = ENG_CMID_BOUND;
	return 0;
}

int eng_op_cm_bind(struct eng_req *r)
{
	const struct pv_ipc_cm_addr *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id);
	int ret;

	if (!id)
		return -EINVAL;
	if (id->state != ENG_CMID_IDLE)
		return eng_cm_bad(r, -EINVAL, "bind: already bound");
	ret = do_bind(r, id, &in->src);
	if (ret == 0)
		bound_reply(r, id);
	return ret;
}

/*
 * The library chose the source in the pod's own namespace (routing); the
 * engine checks it is the pod's and finds the destination's device.  No
 * device of this engine holds it: cross-node, which needs the wire
 * (issue 10): ADDR_ERROR, -EHOSTUNREACH, until then.
 */
int eng_op_cm_resolve_addr(struct eng_req *r)
{
	const struct pv_ipc_cm_addr *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id);
	struct pv_cm_addr src = in->src;
	struct eng_dev *dd;
	uint32_t gi;
	int ret;

	if (!id)
		return -EINVAL;
	if (id->state != ENG_CMID_IDLE && id->state != ENG_CMID_BOUND &&
	    id->state != ENG_CMID_ADDR)
		return eng_cm_bad(r, -EINVAL, "resolve_addr: wrong state");
	if (in->dst.family != AF_INET && in->dst.family != AF_INET6)
		return eng_cm_bad(r, -EAFNOSUPPORT, "destination family");
	if (id->bound && eng_cm_addr_any(&id->src)) {
		/* Bound to the wildcard: the source picks the device. */
		src.port_be = id->src.port_be;
		id->bound = false;
		id->state = ENG_CMID_IDLE;
	}
	if (!id->bound) {
		ret = do_bind(r, id, &src);
		if (ret < 0)
			return ret;
	}
	if (!id->dev_id)
		return eng_cm_bad(r, -EADDRNOTAVAIL, "no source device");
	id->dst = in->dst;
	memcpy(id->dgid, in->dst.addr, 16);
	dd = eng_cm_dev_any(r->e, in->dst.addr, &gi);
	if (eng_mcast_gid_is_group(in->dst.addr))
		/* A group (mckey resolves it before joining): the source's
		 * own device reaches it (eng_mcast.h). */
		dd = eng_cm_dev_of_addr(r->e, r->c, id->src.addr, &gi);
	bound_reply(r, id);
	if (!dd) {
		/* On another node: the library's source choice says the
		 * pod routes there through its interface; the wire must be
		 * up on the source device for that family (the peer's GID
		 * is its address, IPv4-mapped). */
		struct eng_dev *sd = eng_dev_by_id(r->e, id->dev_id);

		if (!sd || !eng_wire_route(r->e, sd, in->dst.addr)) {
			eng_cm_event(id, PV_CM_EV_ADDR_ERROR, -EHOSTUNREACH,
				     NULL);
			return 0;
		}
		id->dst_dev_id = 0;
		id->state = ENG_CMID_ADDR;
		eng_cm_event(id, PV_CM_EV_ADDR_RESOLVED, 0, NULL);
		return 0;
	}
	id->dst_dev_id = dd->id;
	id->state = ENG_CMID_ADDR;
	eng_cm_event(id, PV_CM_EV_ADDR_RESOLVED, 0, NULL);
	return 0;
}

/* Same node: the path is the two ports'; its MTU the smaller one. */
int eng_op_cm_resolve_route(struct eng_req *r)
{
	const struct pv_ipc_cm_ref *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id);
	struct eng_dev *s, *d;

	if (!id)
		return -EINVAL;
	if (id->state != ENG_CMID_ADDR && id->state != ENG_CMID_ROUTE)
		return eng_cm_bad(r, -EINVAL, "resolve_route before addr");
	s = eng_dev_by_id(r->e, id->dev_id);
	d = id->dst_dev_id ? eng_dev_by_id(r->e, id->dst_dev_id) : s;
	if (!s || !d) {
		eng_cm_event(id, PV_CM_EV_ROUTE_ERROR, -ENODEV, NULL);
		return 0;
	}
	id->path_mtu = s->active_mtu < d->active_mtu ? s->active_mtu :
						       d->active_mtu;
	id->state = ENG_CMID_ROUTE;
	eng_cm_event(id, PV_CM_EV_ROUTE_RESOLVED, 0, NULL);
	return 0;
}

int eng_op_cm_listen(struct eng_req *r)
{
	const struct pv_ipc_cm_ref *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id);
	int32_t backlog = (int32_t)in->arg;

	if (!id)
		return -EINVAL;
	if (id->state == ENG_CMID_IDLE) {
		/* As the kernel: an unbound id listens on the wildcard. */
		struct pv_cm_addr any = { .family = AF_INET6 };
		int ret = do_bind(r, id, &any);

		if (ret < 0)
			return ret;
	}
	if (id->state != ENG_CMID_BOUND && id->state != ENG_CMID_LISTEN)
		return eng_cm_bad(r, -EINVAL, "listen: wrong state");
	if (backlog <= 0)
		backlog = ENG_CM_BACKLOG_DEFAULT;
	if (backlog > ENG_CM_BACKLOG_MAX)
		backlog = ENG_CM_BACKLOG_MAX;
	id->backlog = (uint32_t)backlog;
	id->state = ENG_CMID_LISTEN;
	eng_stat_inc(cm_listens);
	return 0;
}

int eng_op_cm_option(struct eng_req *r)
{
	const struct pv_ipc_cm_ref *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id);

	if (!id)
		return -EINVAL;
	switch (in->arg) {
	case PV_CM_OPT_REUSEADDR:
		if (id->state != ENG_CMID_IDLE)
			return -EINVAL;
		id->reuseaddr = in->arg2 != 0;
		return 0;
	case PV_CM_OPT_AFONLY:
		if (id->state != ENG_CMID_IDLE)
			return -EINVAL;
		id->afonly = in->arg2 != 0;
		return 0;
	case PV_CM_OPT_TOS:
		id->tos = (uint8_t)in->arg2;
		return 0;
	case PV_CM_OPT_ACK_TIMEOUT:
		if (in->arg2 > 31)
			return -EINVAL;
		id->ack_timeout = (uint8_t)in->arg2;
		return 0;
	}
	return eng_cm_bad(r, -ENOSYS, "unknown CM option");
}

void eng_cm_conn_close(struct eng *e, struct eng_conn *c)
{
	struct eng_list *pos, *tmp;

	if (!c->cm)
		return;
	eng_list_for_each_safe(pos, tmp, &c->cm->ids) {
		struct eng_cm_id *id = eng_container_of(pos, struct eng_cm_id,
							conn_link);

		eng_cm_conn_abort(e, id);
		eng_cm_id_free(e, id);
	}
	eng_cm_ev_close(e, c->cm);
	c->cm = NULL;
}
