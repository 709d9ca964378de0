/* SPDX-License-Identifier: MIT */
/*
 * The RDMA netlink socket of the kernel device lookup (lv_kern_nl.h): a
 * dump of every device (index, name), then per device the "uverbs" char
 * device with its driver id.  One socket per device list, replies only
 * from the kernel (nl_pid 0) and of our sequence number, each receive
 * bounded by a 1 s timeout, so a kernel without RDMA netlink (or one that
 * never answers) costs an error and the sysfs scan carries on alone.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "libverbs/lv_kern_abi.h"
#include "libverbs/lv_kern_nl.h"

#define LV_NL_BUF 32768

struct nl_sock {
	int fd;
	uint32_t seq;
	uint8_t buf[LV_NL_BUF];
};

static int nl_open(struct nl_sock *s)
{
	struct timeval tv = { .tv_sec = 1 };
	struct sockaddr_nl local = { .nl_family = AF_NETLINK };

	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (s->fd < 0)
		return -errno;
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    bind(s->fd, (struct sockaddr *)&local, sizeof(local))) {
		int err = -errno;

		close(s->fd);
		return err;
	}
	s->seq = (uint32_t)getpid() << 8;
	return 0;
}

static int nl_send(struct nl_sock *s, const uint8_t *msg, int len)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	if (sendto(s->fd, msg, (size_t)len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) != len)
		return errno ? -errno : -EIO;
	return 0;
}

/* One datagram from the kernel into s->buf: its length or -errno. */
static ssize_t nl_recv(struct nl_sock *s)
{
	for (;;) {
		struct sockaddr_nl from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(s->fd, s->buf, sizeof(s->buf), MSG_TRUNC,
				     (struct sockaddr *)&from, &fl);

		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (fl != sizeof(from) || from.nl_pid != 0)
			continue;	/* only the kernel speaks here */
		if ((size_t)n > sizeof(s->buf))
			return -EMSGSIZE;
		return n;
	}
}

static void dev_add(struct lv_kern_nl_dev *devs, int max, int *n,
		    const struct lv_kern_nl_info *m)
{
	if (*n >= max || !(m->have & LV_NL_HAVE_INDEX) ||
	    !(m->have & LV_NL_HAVE_NAME))
		return;
	memset(&devs[*n], 0, sizeof(devs[*n]));
	devs[*n].index = m->dev_index;
	devs[*n].driver_id = RDMA_DRIVER_UNKNOWN;
	memcpy(devs[*n].name, m->dev_name, sizeof(devs[*n].name));
	(*n)++;
}

/* RDMA_NLDEV_CMD_GET dump: the count of devices, or -errno. */
static int dump_devices(struct nl_sock *s, struct lv_kern_nl_dev *devs,
			int max)
{
	uint8_t req[64];
	uint32_t seq = ++s->seq;
	int n = 0, ret = lv_kern_nl_dump_req(req, sizeof(req), seq);

	if (ret < 0 || (ret = nl_send(s, req, ret)) < 0)
		return ret;
	for (;;) {
		struct lv_kern_nl_info m;
		ssize_t len = nl_recv(s);
		size_t off = 0;

		if (len < 0)
			return (int)len;
		while ((ret = lv_kern_nl_next(s->buf, (size_t)len, &off, &m)) > 0) {
			if (m.seq != seq)
				continue;
			if (m.type == NLMSG_DONE)
				return n;
			if (m.type == NLMSG_ERROR)
				return m.error ? m.error : n;
			if (lv_kern_nl_is(&m, RDMA_NLDEV_CMD_GET))
				dev_add(devs, max, &n, &m);
		}
		if (ret < 0)
			return ret;
	}
}

/* Fills d's uverbs name and driver id; -errno when the kernel has none
 * for it (a device without uverbs answers an error). */
static int get_uverbs(struct nl_sock *s, struct lv_kern_nl_dev *d)
{
	uint8_t req[64];
	uint32_t seq = ++s->seq;
	int ret = lv_kern_nl_chardev_req(req, sizeof(req), seq, d->index);

	if (ret < 0 || (ret = nl_send(s, req, ret)) < 0)
		return ret;
	for (;;) {
		struct lv_kern_nl_info m;
		ssize_t len = nl_recv(s);
		size_t off = 0;

		if (len < 0)
			return (int)len;
		while ((ret = lv_kern_nl_next(s->buf, (size_t)len, &off, &m)) > 0) {
			if (m.seq != seq)
				continue;
			if (m.type == NLMSG_ERROR)
				return m.error ? m.error : -ENODATA;
			if (!lv_kern_nl_is(&m, RDMA_NLDEV_CMD_GET_CHARDEV))
				continue;
			if (m.have & LV_NL_HAVE_CHARDEV_NAME)
				memcpy(d->uverbs, m.chardev_name,
				       sizeof(d->uverbs));
			if (m.have & LV_NL_HAVE_DRIVER_ID)
				d->driver_id = m.driver_id;
			return 0;
		}
		if (ret < 0)
			return ret;
	}
}

int lv_kern_nl_devices(struct lv_kern_nl_dev *devs, int max)
{
	/* Heap, not stack: the buffer is 32 KiB and apps' threads are small. */
	struct nl_sock *s = calloc(1, sizeof(*s));
	int n, ret;

	if (!s)
		return -ENOMEM;
	ret = nl_open(s);
	if (ret < 0)
		goto out;
	n = dump_devices(s, devs, max);
	for (int i = 0; i < n; i++)
		get_uverbs(s, &devs[i]);	/* none: found by sysfs alone */
	ret = n;
	close(s->fd);
out:
	free(s);
	return ret;
}
