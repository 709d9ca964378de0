/* SPDX-License-Identifier: MIT */
/*
 * Watching a namespace's links and addresses: a raw rtnetlink socket made
 * inside the namespace and subscribed to the link and address groups.  The
 * socket keeps its namespace after the creating thread is gone, so a poll
 * loop in the caller's namespace can watch any number of pods.
 */
#include <errno.h>
#include <stdalign.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "netns/netns.h"

int netns_watch_open(int ns_fd)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR |
			     RTMGRP_IPV6_IFADDR,
	};
	int fd, r;

	fd = netns_socket(ns_fd, AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK,
			  NETLINK_ROUTE);
	if (fd < 0)
		return fd;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		goto err_close_fd;
	}
	return fd;

err_close_fd:
	close(fd);
	return r;
}

int netns_watch_parse(const void *buf, size_t len)
{
	const struct nlmsghdr *nh = buf;
	int changed = 0;

	for (; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
		switch (nh->nlmsg_type) {
		case RTM_NEWLINK:
		case RTM_DELLINK:
		case RTM_NEWADDR:
		case RTM_DELADDR:
			changed = 1;
			break;
		default:
			break;
		}
	}
	return changed;
}

/* Reads per call before yielding to the caller's event loop; whatever is
 * left keeps the fd readable. */
#define NETNS_WATCH_MAX_READS 64

/* Lost notifications (ENOBUFS: the socket overran) and cut messages leave
 * the caller's view stale, so both count as "changed": it re-reads. */
int netns_watch_drain(int watch_fd)
{
	alignas(struct nlmsghdr) char buf[32768];
	int changed = 0;

	for (int reads = 0; reads < NETNS_WATCH_MAX_READS; reads++) {
		struct sockaddr_nl from;
		socklen_t fromlen = sizeof(from);
		ssize_t n;

		n = recvfrom(watch_fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&from, &fromlen);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return changed;
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				changed = 1;
				continue;
			}
			return -errno;
		}
		/* Only the kernel speaks for the kernel: anything else on the
		 * groups (a privileged process in the pod) is ignored. */
		if (fromlen < sizeof(from) || from.nl_family != AF_NETLINK ||
		    from.nl_pid != 0)
			continue;
		if ((size_t)n > sizeof(buf)) {
			changed = 1;
			continue;
		}
		if (netns_watch_parse(buf, (size_t)n))
			changed = 1;
	}
	return changed;
}
