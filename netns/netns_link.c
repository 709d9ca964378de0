/* SPDX-License-Identifier: MIT */
/*
 * Reading one interface and its addresses from inside a namespace, with
 * libnl-route-3.  The whole read runs inside netns_run(), so the netlink
 * socket belongs to the target namespace and lives only for the call.
 */
#include <errno.h>
#include <string.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>

#include "netns/netns.h"

/* libnl reports its own codes; callers expect -errno. */
static int netns_nlerr_to_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_SUCCESS:		return 0;
	case NLE_NOMEM:			return -ENOMEM;
	case NLE_OBJ_NOTFOUND:
	case NLE_NODEV:			return -ENODEV;
	case NLE_PERM:			return -EPERM;
	case NLE_NOACCESS:		return -EACCES;
	case NLE_AGAIN:			return -EAGAIN;
	case NLE_INTR:			return -EINTR;
	case NLE_INVAL:
	case NLE_RANGE:			return -EINVAL;
	case NLE_NOADDR:		return -EADDRNOTAVAIL;
	case NLE_BAD_SOCK:		return -EBADF;
	case NLE_OPNOTSUPP:		return -EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:		return -EAFNOSUPPORT;
	case NLE_PROTO_MISMATCH:	return -EPROTO;
	case NLE_MSG_TRUNC:		return -EMSGSIZE;
	case NLE_BUSY:			return -EBUSY;
	default:			return -EIO;
	}
}

struct netns_link_req {
	const char *ifname;
	struct netns_link *link;
};

static void netns_link_fill(struct rtnl_link *nl, struct netns_link *out)
{
	struct nl_addr *mac = rtnl_link_get_addr(nl);
	unsigned int flags = rtnl_link_get_flags(nl);
	uint8_t oper = rtnl_link_get_operstate(nl);
	const char *name = rtnl_link_get_name(nl);

	out->ifindex = rtnl_link_get_ifindex(nl);
	if (name)
		snprintf(out->name, sizeof(out->name), "%s", name);
	out->mtu = rtnl_link_get_mtu(nl);
	out->up = flags & IFF_UP;
	/* The kernel sets IFF_RUNNING for oper state UP and for UNKNOWN
	 * (drivers without carrier reporting, loopback); the oper state
	 * check covers a link whose flags lag behind. */
	out->running = out->up &&
		       ((flags & IFF_RUNNING) || oper == IF_OPER_UP);
	if (mac && nl_addr_get_len(mac) == sizeof(out->mac))
		memcpy(out->mac, nl_addr_get_binary_addr(mac), sizeof(out->mac));
}

/* Copies one address; returns false for families and shapes we skip. */
static bool netns_addr_fill(struct rtnl_addr *na, struct netns_addr *out)
{
	struct nl_addr *local = rtnl_addr_get_local(na);
	int family = rtnl_addr_get_family(na);
	unsigned int len;

	if (!local || (family != AF_INET && family != AF_INET6))
		return false;
	len = nl_addr_get_len(local);
	if (len != (family == AF_INET ? 4u : 16u))
		return false;
	memset(out, 0, sizeof(*out));
	out->family = family;
	memcpy(out->addr, nl_addr_get_binary_addr(local), len);
	out->prefixlen = (uint8_t)rtnl_addr_get_prefixlen(na);
	out->scope = (uint8_t)rtnl_addr_get_scope(na);
	out->flags = rtnl_addr_get_flags(na);
	return true;
}

/* Addresses come out of the cache in dump order, which is the kernel's:
 * IPv4 before IPv6, and per family the order `ip addr` shows. */
static int netns_link_read_addrs(struct nl_sock *sk, struct netns_link *out)
{
	struct nl_cache *cache;
	struct nl_object *obj;
	int r;

	r = rtnl_addr_alloc_cache(sk, &cache);
	if (r < 0)
		return netns_nlerr_to_errno(r);
	for (obj = nl_cache_get_first(cache); obj; obj = nl_cache_get_next(obj)) {
		struct rtnl_addr *na = (struct rtnl_addr *)obj;

		if (out->naddrs >= NETNS_ADDR_MAX)
			break;
		if (rtnl_addr_get_ifindex(na) != out->ifindex)
			continue;
		if (netns_addr_fill(na, &out->addrs[out->naddrs]))
			out->naddrs++;
	}
	nl_cache_free(cache);
	return 0;
}

static int netns_link_get_fn(void *p)
{
	struct netns_link_req *req = p;
	struct rtnl_link *nl = NULL;
	struct nl_sock *sk;
	int r;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0) {
		r = netns_nlerr_to_errno(r);
		goto err_free_sock;
	}
	r = rtnl_link_get_kernel(sk, 0, req->ifname, &nl);
	if (r < 0) {
		r = netns_nlerr_to_errno(r);
		goto err_free_sock;
	}
	netns_link_fill(nl, req->link);
	rtnl_link_put(nl);
	r = netns_link_read_addrs(sk, req->link);

err_free_sock:
	nl_socket_free(sk);	/* closes the socket too */
	return r;
}

int netns_link_get(int ns_fd, const char *ifname, struct netns_link *ret_link)
{
	struct netns_link_req req = { .ifname = ifname, .link = ret_link };
	size_t len;

	if (!ifname || !ret_link)
		return -EINVAL;
	len = strlen(ifname);
	if (len == 0 || len >= NETNS_IFNAME_MAX)
		return -EINVAL;
	memset(ret_link, 0, sizeof(*ret_link));
	return netns_run(ns_fd, netns_link_get_fn, &req);
}
