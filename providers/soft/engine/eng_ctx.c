/* SPDX-License-Identifier: MIT */
/*
 * Requests of any client about devices: HELLO, listing and querying the
 * devices of its own namespace, opening a context and completion
 * channels.  A device of another namespace answers -ENODEV, exactly as a
 * device that does not exist.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_reaper.h"
#include "providers/soft/engine/eng_stats.h"

/*
 * The client's network namespace, from an fd of its own
 * /proc/thread-self/ns/net passed with HELLO (already checked to be a
 * netns by the dispatcher): opening it needed no rights the client lacks
 * in that namespace, and nothing can swap it afterwards, unlike a pid
 * looked up later.  Once proven it cannot change.
 */
static int prove_ns(struct eng_req *r)
{
	struct eng_conn *c = r->c;
	struct netns_id ns;
	int ret;

	if (r->in_nfds != 1)
		return 0;
	ret = netns_id_of_fd(r->in_fds[0], &ns);
	if (ret < 0) {
		eng_stat_inc(hello_ns_refused);
		return ret;
	}
	if (c->ident.ns_known) {
		if (netns_id_equal(&ns, &c->ident.ns))
			return 0;
		eng_stat_inc(hello_ns_refused);
		return -EBUSY;
	}
	c->ident.ns = ns;
	c->ident.ns_known = true;
	eng_stat_inc(hello_ns_proven);
	eng_conn_proven(r->e, c);
	return 0;
}

int eng_op_hello(struct eng_req *r)
{
	const struct pv_ipc_hello *in = r->in;
	struct pv_ipc_hello *out = r->out;
	int ret;

	if (in->abi_version != PV_IPC_VERSION)
		return -EPROTONOSUPPORT;
	ret = prove_ns(r);
	if (ret < 0)
		return ret;
	memset(out, 0, sizeof(*out));
	out->abi_version = PV_IPC_VERSION;
	if (r->c->ident.ns_known)
		out->flags |= PV_HELLO_NETNS;
	out->client_id = r->c->id;
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_dev_list(struct eng_req *r)
{
	struct pv_ipc_dev_list *out = r->out;
	struct eng_list_page pg;
	int ret = eng_list_page(r, (PV_IPC_MAX_PAYLOAD - sizeof(*out)) /
				   sizeof(out->dev[0]), &pg);

	if (ret < 0)
		return ret;
	memset(out, 0, sizeof(*out));
	for (uint32_t i = pg.first; i < r->e->devs.cap; i++) {
		struct eng_dev *d = r->e->devs.slot[i];

		if (!eng_dev_visible(d, r->c))
			continue;
		if (out->count >= pg.max) {
			out->flags |= PV_LIST_MORE;
			break;
		}
		eng_dev_info(d, &out->dev[out->count++]);
	}
	r->out_len = sizeof(*out) + out->count * sizeof(out->dev[0]);
	return 0;
}

/* The device a dev_ref names, if this client may see it. */
static struct eng_dev *ref_dev(struct eng_req *r)
{
	const struct pv_ipc_dev_ref *ref = r->in;
	struct eng_dev *d = eng_dev_by_id(r->e, ref->dev_id);

	if (!eng_dev_visible(d, r->c))
		return NULL;
	return d;
}

int eng_op_dev_query(struct eng_req *r)
{
	struct eng_dev *d = ref_dev(r);

	if (!d)
		return -ENODEV;
	eng_dev_attr(d, r->out);
	r->out_len = sizeof(struct pv_ipc_dev_attr);
	return 0;
}

int eng_op_port_query(struct eng_req *r)
{
	const struct pv_ipc_dev_ref *ref = r->in;
	struct eng_dev *d = ref_dev(r);

	if (!d)
		return -ENODEV;
	if (ref->port != 1)
		return -EINVAL;
	eng_dev_port_attr(d, r->out);
	r->out_len = sizeof(struct pv_ipc_port_attr);
	return 0;
}

int eng_op_gid_query(struct eng_req *r)
{
	const struct pv_ipc_dev_ref *ref = r->in;
	struct eng_dev *d = ref_dev(r);
	struct pv_ipc_gid_table *out = r->out;

	if (!d)
		return -ENODEV;
	if (ref->port != 1)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->count = d->gid_count;
	memcpy(out->gid, d->gid, sizeof(out->gid));
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_pkey_query(struct eng_req *r)
{
	const struct pv_ipc_dev_ref *ref = r->in;
	struct eng_dev *d = ref_dev(r);
	struct pv_ipc_pkey *out = r->out;

	if (!d)
		return -ENODEV;
	if (ref->port != 1 || ref->index != 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->pkey = d->pkey;
	r->out_len = sizeof(*out);
	return 0;
}

/* A socketpair whose engine end is non-blocking; the peer goes to the
 * client with the reply.  Returns 0 or -errno. */
static int make_push_socket(struct eng_req *r, int *ret_engine_end)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if (shutdown(sv[0], SHUT_RD) < 0 ||
	    (fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0)) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		return err;
	}
	*ret_engine_end = sv[0];
	r->fds[r->nfds++] = sv[1];
	return 0;
}

int eng_op_ctx_open(struct eng_req *r)
{
	struct eng_dev *d = ref_dev(r);
	struct pv_ipc_handle *out = r->out;
	struct eng_conn *c = r->c;
	int64_t h;
	int ret;

	if (!d)
		return -ENODEV;
	/* One context per connection: objects carry no device reference,
	 * they belong to the connection's context. */
	if (c->ctx_handle)
		return -EBUSY;
	h = eng_htab_add(&c->handles, c, ENG_OBJ_CTX);
	if (h < 0)
		return (int)h;
	ret = make_push_socket(r, &c->ev_fd);
	if (ret < 0) {
		eng_htab_del(&c->handles, (uint32_t)h);
		return ret;
	}
	c->ctx_handle = (uint32_t)h;
	c->dev = d;
	c->dev_id = d->id;
	d->clients++;
	memset(out, 0, sizeof(*out));
	out->handle = c->ctx_handle;
	r->out_len = sizeof(*out);
	eng_dbg("client %u (pid %d) opened %s", c->id, (int)c->ident.pid,
		d->name);
	return 0;
}

static void channel_release(struct eng *e, struct eng_obj *o)
{
	struct eng_channel *ch = (struct eng_channel *)o;

	if (ch->fd >= 0) {
		eng_fd_dispose(ch->fd);
		eng_quota_put(o->conn, ENG_QUOTA_FDS, 1);
	}
}

int eng_op_channel_create(struct eng_req *r)
{
	struct pv_ipc_handle *out = r->out;
	struct eng_channel *ch;
	int ret;

	ch = eng_obj_create(r, PV_OBJ_CHANNEL, sizeof(*ch), channel_release,
			    &ret);
	if (!ch)
		return ret;
	ch->fd = -1;
	/* The engine's end is an fd held for the device (eng_quota.h). */
	ret = eng_quota_take(r->c, ENG_QUOTA_FDS, 1);
	if (ret == 0) {
		ret = make_push_socket(r, &ch->fd);
		if (ret < 0)
			eng_quota_put(r->c, ENG_QUOTA_FDS, 1);
	}
	if (ret < 0) {
		eng_obj_destroy(r->e, &ch->o);
		return ret;
	}
	memset(out, 0, sizeof(*out));
	out->handle = ch->o.handle;
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_channel_destroy(struct eng_req *r)
{
	const struct pv_ipc_handle *in = r->in;
	struct eng_channel *ch = eng_obj_get(r->c, in->handle, PV_OBJ_CHANNEL);

	if (!ch)
		return -EINVAL;
	return eng_obj_destroy(r->e, &ch->o);
}
