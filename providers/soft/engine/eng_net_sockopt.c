/* SPDX-License-Identifier: MIT */
/* The socket options every RoCEv2 receive socket of the engine sets: the
 * device's unicast sockets (eng_net.c) and its multicast group sockets
 * (eng_net_mcast.c). */
#include <errno.h>
#include <netinet/udp.h>

#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_net_int.h"

int eng_net_set_int(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val)) < 0 ? -errno : 0;
}

/* The receive buffer the kernel granted (rmem_max caps it; the engine
 * has no CAP_NET_ADMIN for SO_RCVBUFFORCE): what READ responses may ask
 * for (eng_rc_read_credit).  0: unknown. */
static uint32_t get_rcvbuf(int fd)
{
	int v = 0;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &l) < 0 || v <= 0)
		return 0;
	return (uint32_t)v;
}

/* What receive needs: the destination (PKTINFO), TOS/TTL for the GRH,
 * drop counts; a large buffer; UDP_GRO, best effort (Linux >= 5.0).  The
 * device's sockets and its multicast group sockets (eng_net_mcast.c). */
int eng_net_sock_rx_options(struct eng_net_sock *s, int fd)
{
	int ret;

	if (s->family == AF_INET) {
		ret = eng_net_set_int(fd, IPPROTO_IP, IP_PKTINFO, 1);
		ret = ret ?: eng_net_set_int(fd, IPPROTO_IP, IP_RECVTOS, 1);
		ret = ret ?: eng_net_set_int(fd, IPPROTO_IP, IP_RECVTTL, 1);
	} else {
		ret = eng_net_set_int(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1);
		ret = ret ?: eng_net_set_int(fd, IPPROTO_IPV6,
					     IPV6_RECVTCLASS, 1);
		ret = ret ?: eng_net_set_int(fd, IPPROTO_IPV6,
					     IPV6_RECVHOPLIMIT, 1);
	}
	ret = ret ?: eng_net_set_int(fd, SOL_SOCKET, SO_RXQ_OVFL, 1);
	if (ret < 0)
		return ret;
	/* Capped by the host's rmem_max. */
	(void)eng_net_set_int(fd, SOL_SOCKET, SO_RCVBUF, 4 << 20);
	s->rcvbuf = get_rcvbuf(fd);
	s->gro = eng_lim.net_rx_gro &&
		 eng_net_set_int(fd, IPPROTO_UDP, UDP_GRO, 1) == 0;
	return 0;
}
