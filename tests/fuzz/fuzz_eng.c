/* SPDX-License-Identifier: MIT */
/* The engine fixture of the fuzz targets (see fuzz_eng.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "providers/soft/engine/eng_log.h"
#include "tests/fuzz/fuzz_eng.h"

static const struct netns_id fz_ns = { .dev = 4, .ino = 4026530001u };

void fz_eng_global_init(void)
{
	/* Every rejected input would log a line: errors only. */
	eng_log_level = ENG_LOG_ERR;
	/* Logs of errors go to stderr; libFuzzer keeps its own output. */
}

static void fake_link(struct netns_link *l)
{
	memset(l, 0, sizeof(*l));
	l->ifindex = 2;
	memcpy(l->name, "eth0", 5);
	l->mtu = 1500;
	l->up = l->running = true;
	memcpy(l->mac, "\x02\x11\x22\x33\x44\x55", 6);
	l->naddrs = 1;
	l->addrs[0].family = 2;	/* AF_INET */
	memcpy(l->addrs[0].addr, "\x0a\x00\x00\x01", 4);
	l->addrs[0].prefixlen = 24;
}

int fz_eng_setup(struct fz_eng *f)
{
	struct eng_ident id = { .pid = getpid(), .uid = 1000,
				.ns_known = true, .ns = fz_ns };
	struct netns_link l;
	int sv[2];

	f->conn = NULL;
	f->cli = -1;
	f->seq = 0;
	f->nfds = 0;
	if (eng_init(&f->e) < 0)
		return -1;
	fake_link(&l);
	if (eng_dev_register(&f->e, -1, &fz_ns, "/fake/ns", "rdma0", 0, &l,
			     &f->dev) < 0)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		goto fail;
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	f->conn = eng_conn_add(&f->e, sv[0], &id);
	f->cli = sv[1];
	if (!f->conn)
		goto fail;
	return 0;
fail:
	fz_eng_teardown(f);
	return -1;
}

void fz_eng_drop_fds(struct fz_eng *f)
{
	for (int i = 0; i < f->nfds; i++)
		close(f->fds[i]);
	f->nfds = 0;
}

void fz_eng_teardown(struct fz_eng *f)
{
	fz_eng_drop_fds(f);
	if (f->cli >= 0)
		close(f->cli);
	f->cli = -1;
	/* eng_fini closes the connections still open and frees devices. */
	eng_fini(&f->e);
	f->conn = NULL;
}

/* Drains every reply (and async message) queued; keeps the first. */
static int read_replies(struct fz_eng *f)
{
	int status = -EAGAIN, got = 0;

	for (;;) {
		char scratch[PV_IPC_MAX_MSG] __attribute__((aligned(8)));
		int fds[PV_IPC_MAX_FDS], nfds = 0;
		char *buf = got ? scratch : f->reply;
		int len = pv_ipc_recv(f->cli, buf, PV_IPC_MAX_MSG, fds, &nfds);

		if (len < 0)
			break;
		if (!got) {
			f->reply_len = len;
			status = ((struct pv_msg_hdr *)buf)->status;
			memcpy(f->fds, fds, sizeof(fds));
			f->nfds = nfds;
			got = 1;
		} else {
			for (int i = 0; i < nfds; i++)
				close(fds[i]);
		}
	}
	if (!got)
		f->reply_len = -EAGAIN;
	return status;
}

int fz_eng_send_raw(struct fz_eng *f, const void *msg, size_t len,
		    const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * PV_IPC_MAX_FDS)] = { 0 };
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	fz_eng_drop_fds(f);
	if (!f->conn)
		return -ECONNRESET;
	if (nfds > 0) {
		struct cmsghdr *cm;

		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfds);
	}
	if (sendmsg(f->cli, &mh, MSG_NOSIGNAL) < 0)
		return -errno;
	if (eng_conn_serve(&f->e, f->conn, 1) < 0) {
		/* Closed and freed by the engine (deferred free). */
		f->conn = NULL;
		read_replies(f);
		return -ECONNRESET;
	}
	return read_replies(f);
}

int fz_eng_call(struct fz_eng *f, uint16_t op, const void *req, uint32_t len,
		const int *fds, int nfds)
{
	static char msg[PV_IPC_MAX_MSG] __attribute__((aligned(8)));
	struct pv_msg_hdr h = { .magic = PV_IPC_MAGIC,
				.version = PV_IPC_VERSION, .op = op,
				.len = len, .seq = ++f->seq };

	if (len > PV_IPC_MAX_PAYLOAD)
		len = h.len = PV_IPC_MAX_PAYLOAD;
	memcpy(msg, &h, sizeof(h));
	if (len)
		memcpy(msg + sizeof(h), req, len);
	return fz_eng_send_raw(f, msg, sizeof(h) + len, fds, nfds);
}
