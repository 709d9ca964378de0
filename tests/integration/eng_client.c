/* SPDX-License-Identifier: MIT */
/*
 * A tiny engine client for the engine integration tests, speaking the IPC
 * directly (no libibverbs):
 *
 *   eng-client list            prints "ID NAME STATE" per visible device
 *   eng-client open NAME       opens NAME's context; exit status says if
 *                              it could (0) or not (1, errno printed)
 *   eng-client hold NAME       opens NAME, creates PD, MR, CQ, channel,
 *                              SRQ, AH, QP (to INIT), prints "ready", then
 *                              prints "event T" for each async event until
 *                              killed (or the engine goes away)
 *
 * The socket is $PODVERBS_ENGINE (or the default).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "providers/soft/pv-soft-ring-abi.h"

static int sock = -1;
static uint32_t seq;
static char resp[PV_IPC_MAX_PAYLOAD];

static int call(uint16_t op, const void *req, uint32_t len, int *fd)
{
	int fds[PV_IPC_MAX_FDS], n = 0;
	int ret = pv_ipc_call(sock, &seq, op, req, len, resp, sizeof(resp),
			      NULL, fds, &n);

	if (fd)
		*fd = n > 0 ? fds[0] : -1;
	else
		for (int i = 0; i < n; i++)
			close(fds[i]);
	return ret;
}

static void die(const char *what, int err)
{
	printf("error %s: %s\n", what, strerror(-err));
	exit(1);
}

static uint32_t find_dev(const char *name)
{
	struct pv_ipc_dev_list *l = (struct pv_ipc_dev_list *)resp;
	int ret = call(PV_OP_DEV_LIST, NULL, 0, NULL);

	if (ret < 0)
		die("DEV_LIST", ret);
	for (uint32_t i = 0; i < l->count; i++)
		if (strcmp(l->dev[i].name, name) == 0)
			return l->dev[i].dev_id;
	return 0;
}

static uint32_t make(uint16_t op, const void *req, uint32_t len,
		     const char *what)
{
	int ret = call(op, req, len, NULL);

	if (ret < 0)
		die(what, ret);
	return *(uint32_t *)resp;
}

/* MR_REG over a populated, sealable memfd: the engine takes no other. */
static void reg_mr(uint32_t pd)
{
	static const char page[4096];
	struct {
		struct pv_ipc_mr_reg reg;
		struct pv_ipc_mr_backing backing;
	} req = { .reg = { .pd_handle = pd, .access = 1, .length = 4096,
			   .addr = (uintptr_t)resp },
		  .backing = { .has_fd = 1 } };
	int fd = memfd_create("eng-client-mr", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	int ret;

	if (fd < 0 || pwrite(fd, page, sizeof(page), 0) != sizeof(page))
		die("memfd", -errno);
	ret = pv_ipc_call_fds(sock, &seq, PV_OP_MR_REG, &req, sizeof(req),
			      &fd, 1, resp, sizeof(resp), NULL, NULL, NULL);
	close(fd);
	if (ret < 0)
		die("MR_REG", ret);
}

static void create_objects(void)
{
	struct pv_ipc_cq_create cq = { .cqe = 64 };
	struct pv_ipc_srq srq = { .max_wr = 16, .max_sge = 1 };
	struct pv_ipc_ah_create ah = { .attr = { .port_num = 1,
						 .is_global = 1 } };
	struct pv_ipc_qp_create qp = { .qp_type = 2, .cap = {
		.max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
		.max_recv_sge = 1 } };
	struct pv_ipc_qp_modify m = { .attr_mask = 1 | 8 | 16 | 32,
				      .attr = { .qp_state = 1, .port_num = 1 } };
	uint32_t pd;
	int ch = -1;

	pd = make(PV_OP_PD_ALLOC, NULL, 0, "PD_ALLOC");
	srq.pd_handle = ah.pd_handle = qp.pd_handle = pd;
	reg_mr(pd);
	if (call(PV_OP_CHANNEL_CREATE, NULL, 0, &ch) < 0)
		die("CHANNEL_CREATE", -EIO);
	cq.channel_handle = *(uint32_t *)resp;
	qp.send_cq_handle = qp.recv_cq_handle =
		make(PV_OP_CQ_CREATE, &cq, sizeof(cq), "CQ_CREATE");
	make(PV_OP_SRQ_CREATE, &srq, sizeof(srq), "SRQ_CREATE");
	/* An AH needs a GID; skip it on a device without addresses. */
	if (call(PV_OP_AH_CREATE, &ah, sizeof(ah), NULL) < 0)
		printf("note: no AH (no GID)\n");
	m.qp_handle = make(PV_OP_QP_CREATE, &qp, sizeof(qp), "QP_CREATE");
	make(PV_OP_QP_MODIFY, &m, sizeof(m), "QP_MODIFY");
}

static int hold(int evfd)
{
	struct pollfd p[2] = { { .fd = evfd, .events = POLLIN },
			       { .fd = sock, .events = POLLIN } };

	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct pv_ipc_event ev;

		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents & (POLLHUP | POLLIN)) {
			printf("engine gone\n");
			return 0;
		}
		if (read(evfd, &ev, sizeof(ev)) == sizeof(ev)) {
			printf("event %u\n", ev.event_type);
			fflush(stdout);
		}
	}
}

int main(int argc, char **argv)
{
	struct pv_ipc_hello h = { .abi_version = PV_IPC_VERSION };
	struct pv_ipc_dev_ref ref = { 0 };
	int ret, evfd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return 2;
	sock = pv_ipc_connect(pv_ipc_socket_path());
	if (sock < 0)
		die("connect", sock);
	/* The namespace is proven with an fd of our own (finding 4). */
	{
		int ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);

		h.flags = PV_HELLO_NETNS;
		ret = pv_ipc_call_fds(sock, &seq, PV_OP_HELLO, &h, sizeof(h),
				      &ns, ns >= 0, resp, sizeof(resp), NULL,
				      NULL, NULL);
		if (ns >= 0)
			close(ns);
	}
	if (ret < 0)
		die("HELLO", ret);
	if (strcmp(argv[1], "list") == 0) {
		struct pv_ipc_dev_list *l = (struct pv_ipc_dev_list *)resp;

		ret = call(PV_OP_DEV_LIST, NULL, 0, NULL);
		if (ret < 0)
			die("DEV_LIST", ret);
		for (uint32_t i = 0; i < l->count; i++)
			printf("%u %s %u\n", l->dev[i].dev_id, l->dev[i].name,
			       l->dev[i].port_state);
		return 0;
	}
	if (argc < 3)
		return 2;
	ref.dev_id = find_dev(argv[2]);
	if (argc > 3)	/* an explicit id: probe a device we can't list */
		ref.dev_id = (uint32_t)atoi(argv[3]);
	ret = call(PV_OP_CTX_OPEN, &ref, sizeof(ref), &evfd);
	if (ret < 0)
		die("CTX_OPEN", ret);
	if (strcmp(argv[1], "open") == 0)
		return 0;
	create_objects();
	return hold(evfd);
}
