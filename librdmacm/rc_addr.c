/* SPDX-License-Identifier: MIT */
/*
 * Addresses: sockaddr <-> the IPC's pv_cm_addr (IPv4 as IPv4-mapped, as
 * RoCEv2 GIDs hold it), source selection by this namespace's own routing,
 * and an id's public view (route, verbs context, port) from the engine's
 * replies and events.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <string.h>
#include <unistd.h>

#include "librdmacm/rc_cm.h"
#include "librdmacm/rc_core.h"
#include "librdmacm/rc_dev.h"

/* The kernel's RDMA CM uses this packet life time on RoCE paths
 * (drivers/infiniband/core/cma.c, CMA_IBOE_PACKET_LIFETIME). */
#define RC_ROCE_PACKET_LIFETIME	16
#define RC_DEFAULT_HOP_LIMIT	64

int rc_addr_from_sa(const struct sockaddr *sa, struct pv_cm_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (!sa)
		return -EINVAL;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)sa;

		out->family = AF_INET;
		out->port_be = s->sin_port;
		out->addr[10] = out->addr[11] = 0xff;
		memcpy(&out->addr[12], &s->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;

		out->family = AF_INET6;
		out->port_be = s->sin6_port;
		out->scope_id = s->sin6_scope_id;
		memcpy(out->addr, &s->sin6_addr, 16);
		return 0;
	}
	return -EAFNOSUPPORT;
}

void rc_addr_to_sa(const struct pv_cm_addr *a, struct sockaddr_storage *out)
{
	memset(out, 0, sizeof(*out));
	if (a->family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)out;

		s->sin_family = AF_INET;
		s->sin_port = a->port_be;
		memcpy(&s->sin_addr, &a->addr[12], 4);
	} else if (a->family == AF_INET6) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)out;

		s->sin6_family = AF_INET6;
		s->sin6_port = a->port_be;
		s->sin6_scope_id = a->scope_id;
		memcpy(&s->sin6_addr, a->addr, 16);
	}
}

/* The address the kernel would send from to reach dst, in this
 * thread's namespace: a connected UDP socket's local name. */
int rc_addr_route_src(const struct sockaddr *dst, struct pv_cm_addr *out)
{
	struct sockaddr_storage ss, local;
	socklen_t len = sizeof(local);
	int fd, ret = 0;

	memcpy(&ss, dst, dst->sa_family == AF_INET ?
	       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	/* Any port routes the same; 0 is refused by connect. */
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons(4791);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(4791);
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&ss, dst->sa_family == AF_INET ?
		    sizeof(struct sockaddr_in) :
		    sizeof(struct sockaddr_in6)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&local, &len) < 0)
		ret = -errno;
	close(fd);
	if (ret < 0)
		return ret == -ENETUNREACH ? -EHOSTUNREACH : ret;
	ret = rc_addr_from_sa((struct sockaddr *)&local, out);
	out->port_be = 0;
	return ret;
}

struct ibv_context *rc_ctx_by_name(const char *name)
{
	struct ibv_context **all;
	int n;

	if (!name[0] || rc_dev_snapshot(&all, &n) < 0)
		return NULL;
	for (int i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(all[i]->device), name))
			return all[i];
	return NULL;
}

static void set_src(struct rc_id *id, const struct pv_cm_addr *src,
		    const uint8_t sgid[16], const char *dev_name)
{
	struct rdma_addr *ra = &id->pub.route.addr;
	char name[PV_NAME_MAX];

	rc_addr_to_sa(src, &ra->src_storage);
	memcpy(ra->addr.ibaddr.sgid.raw, sgid, 16);
	ra->addr.ibaddr.pkey = htobe16(0xffff);
	memcpy(name, dev_name, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	if (name[0]) {
		id->pub.verbs = rc_ctx_by_name(name);
		id->pub.port_num = 1;
	}
}

void rc_id_set_bound(struct rc_id *id, const struct pv_ipc_cm_bound *b)
{
	set_src(id, &b->src, b->sgid, b->dev_name);
	id->gid_index = b->gid_index;
}

/* The one path of a RoCE route, as the kernel's CM fills it. */
static void set_path(struct rc_id *id)
{
	struct ibv_sa_path_rec *p = &id->path;
	struct rdma_ib_addr *ib = &id->pub.route.addr.addr.ibaddr;

	memset(p, 0, sizeof(*p));
	p->dgid = ib->dgid;
	p->sgid = ib->sgid;
	p->pkey = ib->pkey;
	p->hop_limit = RC_DEFAULT_HOP_LIMIT;
	p->reversible = 1;
	p->numb_path = 1;
	p->mtu_selector = 2;	/* exactly (IBA 15.2.5.16) */
	p->mtu = (uint8_t)id->path_mtu;
	p->rate_selector = 2;
	p->rate = IBV_RATE_100_GBPS;
	p->packet_life_time_selector = 2;
	p->packet_life_time = RC_ROCE_PACKET_LIFETIME;
	id->pub.route.path_rec = p;
	id->pub.route.num_paths = 1;
}

void rc_id_set_from_event(struct rc_id *id, const struct pv_cm_event *ev)
{
	struct rdma_addr *ra = &id->pub.route.addr;

	set_src(id, &ev->src, ev->sgid, ev->dev_name);
	id->gid_index = ev->gid_index;
	if (ev->dst.family) {
		rc_addr_to_sa(&ev->dst, &ra->dst_storage);
		memcpy(ra->addr.ibaddr.dgid.raw, ev->dgid, 16);
	}
	if (ev->path_mtu) {
		id->path_mtu = ev->path_mtu;
		set_path(id);
	}
}
