/* SPDX-License-Identifier: MIT */
/*
 * RoCEv2 GIDs from interface addresses (pure: no I/O).
 *
 * A RoCEv2 GID is the IPv6 address the packets carry; IPv4 addresses appear
 * as IPv4-mapped IPv6 (::ffff:a.b.c.d, RFC 4291 2.5.5.2).  The table is
 * dense and its order is part of our contract: index 0 is what
 * applications pick by default, so it is the interface's primary IPv4.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_addr.h>

#include "netns/netns.h"

void netns_gid_from_ipv4(const uint8_t v4[4], struct netns_gid *ret_gid)
{
	memset(ret_gid->raw, 0, sizeof(ret_gid->raw));
	ret_gid->raw[10] = 0xff;
	ret_gid->raw[11] = 0xff;
	memcpy(&ret_gid->raw[12], v4, 4);
}

void netns_gid_from_ipv6(const uint8_t v6[16], struct netns_gid *ret_gid)
{
	memcpy(ret_gid->raw, v6, sizeof(ret_gid->raw));
}

/* Addresses still in (or failed) duplicate detection are not usable yet:
 * the kernel will not send from them either. */
static bool netns_addr_usable(const struct netns_addr *a)
{
	return !(a->flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED));
}

static bool netns_addr_is_v4(const struct netns_addr *a)
{
	return a->family == AF_INET;
}

static bool netns_addr_is_v6_ll(const struct netns_addr *a)
{
	/* fe80::/10 */
	return a->family == AF_INET6 && a->addr[0] == 0xfe &&
	       (a->addr[1] & 0xc0) == 0x80;
}

/* IFA_F_SECONDARY only means "secondary" for IPv4; for IPv6 the same bit
 * marks a temporary (privacy) address. */
static bool netns_addr_is_primary_v4(const struct netns_addr *a)
{
	return netns_addr_is_v4(a) && !(a->flags & IFA_F_SECONDARY) &&
	       a->scope == 0 /* RT_SCOPE_UNIVERSE */;
}

enum netns_gid_class {
	NETNS_GID_SKIP,
	NETNS_GID_V4,
	NETNS_GID_V6_GLOBAL,
	NETNS_GID_V6_LINK,
};

static enum netns_gid_class netns_addr_class(const struct netns_addr *a)
{
	if (!netns_addr_usable(a))
		return NETNS_GID_SKIP;
	if (netns_addr_is_v4(a))
		return NETNS_GID_V4;
	if (a->family != AF_INET6)
		return NETNS_GID_SKIP;
	return netns_addr_is_v6_ll(a) ? NETNS_GID_V6_LINK : NETNS_GID_V6_GLOBAL;
}

static void netns_gid_of_addr(const struct netns_addr *a,
			      struct netns_gid *ret_gid)
{
	if (a->family == AF_INET)
		netns_gid_from_ipv4(a->addr, ret_gid);
	else
		netns_gid_from_ipv6(a->addr, ret_gid);
}

int netns_gid_table(const struct netns_link *link, struct netns_gid *ret_gids,
		    int max)
{
	static const enum netns_gid_class order[] = {
		NETNS_GID_V4, NETNS_GID_V6_GLOBAL, NETNS_GID_V6_LINK,
	};
	int naddrs, primary = -1, n = 0;

	if (!link || !ret_gids || max <= 0)
		return 0;
	naddrs = link->naddrs;
	if (naddrs > NETNS_ADDR_MAX)
		naddrs = NETNS_ADDR_MAX;
	for (int i = 0; i < naddrs; i++) {
		if (netns_addr_usable(&link->addrs[i]) &&
		    netns_addr_is_primary_v4(&link->addrs[i])) {
			primary = i;
			break;
		}
	}
	if (primary >= 0)
		netns_gid_of_addr(&link->addrs[primary], &ret_gids[n++]);
	for (size_t c = 0; c < sizeof(order) / sizeof(order[0]); c++) {
		for (int i = 0; i < naddrs && n < max; i++) {
			if (i == primary ||
			    netns_addr_class(&link->addrs[i]) != order[c])
				continue;
			netns_gid_of_addr(&link->addrs[i], &ret_gids[n++]);
		}
	}
	return n;
}

void netns_gid_format(const struct netns_gid *gid, char *buf)
{
	const uint8_t *r = gid->raw;
	char *p = buf;

	for (int i = 0; i < 8; i++) {
		/* 4 hex digits plus a separator or the terminator: 5 bytes. */
		snprintf(p, 6, i ? ":%02x%02x" : "%02x%02x", r[2 * i],
			 r[2 * i + 1]);
		p += i ? 5 : 4;
	}
}
