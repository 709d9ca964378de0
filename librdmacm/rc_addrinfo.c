/* SPDX-License-Identifier: MIT */
/*
 * rdma_getaddrinfo / rdma_freeaddrinfo: name and service resolution for
 * RDMA endpoints over the C library's getaddrinfo, in the caller's own
 * network namespace.  A passive lookup fills the source address, an
 * active one the destination (and the source when hints give one); the
 * port space is the hints' or RDMA_PS_TCP, whose QP type is RC (UDP: UD).
 * No route is attached (ai_route stays NULL): rdma_create_ep resolves it.
 */
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "librdmacm/rc_core.h"

static int copy_sa(const struct sockaddr *sa, socklen_t len,
		   struct sockaddr **out, socklen_t *out_len)
{
	*out = malloc(len);
	if (*out == NULL)
		return -ENOMEM;
	memcpy(*out, sa, len);
	*out_len = len;
	return 0;
}

static int eai_to_errno(int eai)
{
	switch (eai) {
	case EAI_MEMORY: return -ENOMEM;
	case EAI_FAMILY: return -EAFNOSUPPORT;
	case EAI_SYSTEM: return -errno;
	default: return -EADDRNOTAVAIL;
	}
}

static int fill_one(struct rdma_addrinfo *ai, const struct addrinfo *g,
		    const struct rdma_addrinfo *hints)
{
	int ps = hints != NULL && hints->ai_port_space ?
		 hints->ai_port_space : RDMA_PS_TCP;

	ai->ai_flags = hints != NULL ? hints->ai_flags : 0;
	ai->ai_family = g->ai_family;
	ai->ai_port_space = ps;
	ai->ai_qp_type = hints != NULL && hints->ai_qp_type ?
			 hints->ai_qp_type :
			 ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC;
	if (ai->ai_flags & RAI_PASSIVE)
		return copy_sa(g->ai_addr, g->ai_addrlen, &ai->ai_src_addr,
			       &ai->ai_src_len);
	if (hints != NULL && hints->ai_src_addr != NULL &&
	    copy_sa(hints->ai_src_addr, hints->ai_src_len, &ai->ai_src_addr,
		    &ai->ai_src_len) < 0)
		return -ENOMEM;
	return copy_sa(g->ai_addr, g->ai_addrlen, &ai->ai_dst_addr,
		       &ai->ai_dst_len);
}

static int lookup(const char *node, const char *service,
		  const struct rdma_addrinfo *hints, struct rdma_addrinfo **res)
{
	struct addrinfo gh = { .ai_socktype = SOCK_STREAM }, *g;
	struct rdma_addrinfo *ai;
	int ret;

	if (node == NULL && service == NULL)
		return -EINVAL;
	if (hints != NULL) {
		if (hints->ai_flags & RAI_PASSIVE)
			gh.ai_flags |= AI_PASSIVE;
		if (hints->ai_flags & RAI_NUMERICHOST)
			gh.ai_flags |= AI_NUMERICHOST;
		if (hints->ai_flags & RAI_FAMILY || hints->ai_family)
			gh.ai_family = hints->ai_family;
	}
	ret = getaddrinfo(node, service, &gh, &g);
	if (ret != 0)
		return eai_to_errno(ret);
	ai = calloc(1, sizeof(*ai));
	ret = ai != NULL ? fill_one(ai, g, hints) : -ENOMEM;
	freeaddrinfo(g);
	if (ret < 0) {
		rdma_freeaddrinfo(ai);
		return ret;
	}
	*res = ai;
	return 0;
}

RC_EXPORT int rdma_getaddrinfo(const char *node, const char *service,
			       const struct rdma_addrinfo *hints,
			       struct rdma_addrinfo **res)
{
	if (res == NULL)
		return rc_ret(-EINVAL);
	return rc_ret(lookup(node, service, hints, res));
}

RC_EXPORT void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res != NULL) {
		struct rdma_addrinfo *next = res->ai_next;

		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
		res = next;
	}
}
