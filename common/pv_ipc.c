/* SPDX-License-Identifier: MIT */
#include "common/pv_ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

const char *pv_ipc_socket_path(void)
{
	const char *p = getenv(PV_IPC_SOCKET_ENV);

	return (p && *p) ? p : PV_IPC_DEFAULT_SOCKET;
}

int pv_ipc_admin_path_for(const char *sock, char *buf, size_t cap)
{
	const char *slash = strrchr(sock, '/');
	int n;

	/* No folder of its own to be a sibling of: name one. */
	if (!slash || slash == sock)
		return -EINVAL;
	n = snprintf(buf, cap, "%.*s-admin/admin.sock", (int)(slash - sock),
		     sock);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

const char *pv_ipc_admin_socket_path(const char *sock, char *buf,
				     size_t cap)
{
	const char *p = getenv(PV_IPC_ADMIN_SOCKET_ENV);

	if (p && *p)
		return p;
	if (pv_ipc_admin_path_for(sock, buf, cap) < 0)
		return PV_IPC_DEFAULT_ADMIN_SOCKET;
	return buf;
}

int pv_ipc_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int pv_ipc_send(int sock, uint16_t op, uint32_t seq, int32_t status,
		const void *payload, uint32_t len, const int *fds, int nfds)
{
	struct pv_msg_hdr hdr = {
		.magic = PV_IPC_MAGIC, .version = PV_IPC_VERSION, .op = op,
		.len = len, .seq = seq, .status = status,
	};
	struct iovec iov[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)payload, .iov_len = len },
	};
	union {
		char buf[CMSG_SPACE(sizeof(int) * PV_IPC_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;

	if (len > PV_IPC_MAX_PAYLOAD || nfds < 0 || nfds > PV_IPC_MAX_FDS)
		return -EINVAL;
	if (nfds > 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == sizeof(hdr) + len ? 0 : -EIO;
}

int pv_ipc_check_hdr(const struct pv_msg_hdr *hdr, size_t got)
{
	if (got < sizeof(*hdr))
		return -EPROTO;
	if (hdr->magic != PV_IPC_MAGIC || hdr->version != PV_IPC_VERSION)
		return -EPROTO;
	if (hdr->len > PV_IPC_MAX_PAYLOAD || got != sizeof(*hdr) + hdr->len)
		return -EPROTO;
	return 0;
}

static void (*drop_fd)(int fd);

void pv_ipc_set_fd_dropper(void (*fn)(int fd))
{
	drop_fd = fn;
}

static void drop(int fd)
{
	if (drop_fd)
		drop_fd(fd);
	else
		close(fd);
}

/* Collects SCM_RIGHTS fds; keeps up to PV_IPC_MAX_FDS when want, drops
 * the rest.  Returns how many were kept. */
static int take_fds(struct msghdr *msg, int *fds, int want)
{
	int kept = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (want && kept < PV_IPC_MAX_FDS)
				fds[kept++] = fd;
			else
				drop(fd);
		}
	}
	return kept;
}

int pv_ipc_recv(int sock, void *buf, size_t cap, int *fds, int *nfds)
{
	/* Room for every fd one message can carry (SCM_MAX_FD, 253) plus
	 * credentials: fds that do not fit are released by the kernel inside
	 * recvmsg, in this thread, where their last close could block. */
	union {
		char buf[CMSG_SPACE(sizeof(int) * 253) +
			 CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct pv_msg_hdr hdr;
	ssize_t n;
	int kept;

	if (nfds)
		*nfds = 0;
	if (cap < sizeof(hdr))
		return -EINVAL;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	kept = take_fds(&msg, fds, fds != NULL);
	if (n == 0)
		goto err_reset;
	memcpy(&hdr, buf, n < (ssize_t)sizeof(hdr) ? (size_t)n : sizeof(hdr));
	if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    pv_ipc_check_hdr(&hdr, (size_t)n) < 0)
		goto err_proto;
	if (nfds)
		*nfds = kept;
	return (int)hdr.len;

err_proto:
	for (int i = 0; i < kept; i++)
		drop(fds[i]);
	return -EPROTO;
err_reset:
	for (int i = 0; i < kept; i++)
		drop(fds[i]);
	return -ECONNRESET;
}

int pv_ipc_call(int sock, uint32_t *seq, uint16_t op, const void *req,
		uint32_t req_len, void *resp, uint32_t resp_cap,
		uint32_t *resp_len, int *fds, int *nfds)
{
	return pv_ipc_call_fds(sock, seq, op, req, req_len, NULL, 0, resp,
			       resp_cap, resp_len, fds, nfds);
}

int pv_ipc_call_fds(int sock, uint32_t *seq, uint16_t op, const void *req,
		    uint32_t req_len, const int *req_fds, int nreq_fds,
		    void *resp, uint32_t resp_cap, uint32_t *resp_len,
		    int *fds, int *nfds)
{
	struct pv_msg_hdr *hdr;
	uint32_t my_seq = ++*seq;
	char *buf;
	int ret;

	ret = pv_ipc_send(sock, op, my_seq, 0, req, req_len, req_fds,
			  nreq_fds);
	if (ret < 0)
		return ret;
	buf = malloc(PV_IPC_MAX_MSG);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		int got_fds[PV_IPC_MAX_FDS], n = 0;

		ret = pv_ipc_recv(sock, buf, PV_IPC_MAX_MSG, got_fds, &n);
		if (ret < 0)
			break;
		hdr = (struct pv_msg_hdr *)buf;
		if (hdr->seq != my_seq || hdr->op != op) {
			/* A stale reply (an earlier call gave up): drop it. */
			for (int i = 0; i < n; i++)
				close(got_fds[i]);
			continue;
		}
		if (resp_len)
			*resp_len = (uint32_t)ret;
		if (resp && resp_cap)
			memcpy(resp, buf + sizeof(*hdr),
			       (uint32_t)ret < resp_cap ? (uint32_t)ret : resp_cap);
		if (fds) {
			memcpy(fds, got_fds, sizeof(int) * n);
			if (nfds)
				*nfds = n;
		} else {
			for (int i = 0; i < n; i++)
				close(got_fds[i]);
		}
		ret = hdr->status;
		break;
	}
	free(buf);
	return ret;
}
