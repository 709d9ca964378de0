/* SPDX-License-Identifier: MIT */
#include "tests/tools/pv-impair/pvi_io.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23	/* Linux 4.20 */
#endif

static void set_int(int fd, int level, int opt, int val)
{
	/* Best effort: each only saves work or buffers frames in bursts. */
	(void)setsockopt(fd, level, opt, &val, sizeof(val));
}

int pvi_io_open(struct pvi_port *port, const char *name)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct packet_mreq mr = { .mr_type = PACKET_MR_PROMISC };
	struct ifreq ifr = { 0 };
	int ret;

	memset(port, 0, sizeof(*port));
	port->fd = -1;
	if (strlen(name) >= sizeof(port->name))
		return -ENAMETOOLONG;
	strcpy(port->name, name);
	port->ifindex = (int)if_nametoindex(name);
	if (port->ifindex == 0)
		return -ENODEV;
	/* Protocol 0 until bound: no frames of other interfaces queue up
	 * before bind(2) narrows the socket to this one (packet(7)). */
	port->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (port->fd < 0)
		return -errno;
	strcpy(ifr.ifr_name, name);
	if (ioctl(port->fd, SIOCGIFMTU, &ifr) < 0)
		goto err_close_fd;
	port->mtu = ifr.ifr_mtu;
	set_int(port->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1);
	set_int(port->fd, SOL_PACKET, PACKET_QDISC_BYPASS, 1);
	set_int(port->fd, SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20);
	set_int(port->fd, SOL_SOCKET, SO_SNDBUFFORCE, 4 << 20);
	mr.mr_ifindex = port->ifindex;
	if (setsockopt(port->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
		       sizeof(mr)) < 0)
		goto err_close_fd;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = port->ifindex;
	if (bind(port->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		goto err_close_fd;
	return 0;

err_close_fd:
	ret = -errno;
	pvi_io_close(port);
	return ret;
}

void pvi_io_close(struct pvi_port *port)
{
	if (port->fd >= 0)
		close(port->fd);
	port->fd = -1;
}

int pvi_io_recv(struct pvi_port *port, struct pvi_path *path,
		uint64_t now_ns)
{
	struct mmsghdr m[PVI_BATCH];
	struct iovec iov[PVI_BATCH];
	struct sockaddr_ll sll[PVI_BATCH];
	uint32_t idx[PVI_BATCH];
	unsigned n = 0;
	int got, i;

	while (n < PVI_BATCH && pvi_path_get(path, &idx[n]) == 0) {
		iov[n] = (struct iovec){ pvi_path_buf(path, idx[n]),
					 path->frame_max };
		m[n].msg_hdr = (struct msghdr){
			.msg_name = &sll[n], .msg_namelen = sizeof(sll[n]),
			.msg_iov = &iov[n], .msg_iovlen = 1,
		};
		n++;
	}
	/* MSG_TRUNC: msg_len is the frame's real length (packet(7)). */
	got = recvmmsg(port->fd, m, n, MSG_DONTWAIT | MSG_TRUNC, NULL);
	/* ENETDOWN: the link was unplugged (set down), reported once
	 * (packet(7)); frames flow again when it comes back up. */
	if (got < 0)
		got = (errno == EAGAIN || errno == EINTR ||
		       errno == ENETDOWN) ? 0 : -errno;
	for (i = 0; i < got; i++) {
		if (sll[i].sll_pkttype == PACKET_OUTGOING) {
			pvi_path_put(path, idx[i]);
			continue;
		}
		if (m[i].msg_len > path->frame_max ||
		    (m[i].msg_hdr.msg_flags & MSG_TRUNC)) {
			path->st.rx++;
			path->st.trunc++;
			pvi_path_put(path, idx[i]);
			continue;
		}
		pvi_path_input(path, idx[i], m[i].msg_len, now_ns);
	}
	for (i = got > 0 ? got : 0; i < (int)n; i++)
		pvi_path_put(path, idx[i]);
	return got;
}

void pvi_io_kernel_drops(const struct pvi_port *port, struct pvi_path *path)
{
	struct tpacket_stats ts;
	socklen_t len = sizeof(ts);

	/* Reading the counters resets them (packet(7)). */
	if (getsockopt(port->fd, SOL_PACKET, PACKET_STATISTICS, &ts, &len) == 0)
		path->st.kdrop += ts.tp_drops;
}

void pvi_io_send(struct pvi_port *port, struct pvi_path *path)
{
	struct mmsghdr m[PVI_BATCH];
	struct iovec iov[PVI_BATCH];
	uint32_t i = 0;

	while (i < path->nout) {
		uint32_t k = path->nout - i, j;
		int sent;

		if (k > PVI_BATCH)
			k = PVI_BATCH;
		for (j = 0; j < k; j++) {
			uint32_t idx = path->out[i + j];

			iov[j] = (struct iovec){ pvi_path_buf(path, idx),
						 path->len[idx] };
			m[j].msg_hdr = (struct msghdr){ .msg_iov = &iov[j],
							.msg_iovlen = 1 };
		}
		sent = sendmmsg(port->fd, m, k, 0);
		if (sent < 0) {
			if (errno == EINTR)
				continue;
			/* This frame cannot go (ENOBUFS, EMSGSIZE...). */
			path->st.txerr++;
			i++;
			continue;
		}
		for (j = 0; j < (uint32_t)sent; j++) {
			path->st.tx++;
			path->st.tx_bytes += m[j].msg_len;
		}
		i += (uint32_t)sent;
	}
	pvi_path_out_done(path);
}
