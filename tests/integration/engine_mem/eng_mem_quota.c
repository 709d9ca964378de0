/* SPDX-License-Identifier: MIT */
/*
 * Finding 6 of issue 8 (the memory share), played by a hostile pod that
 * speaks the IPC itself: it tries to take more engine fds, mappings and
 * registered bytes than its device's share, from two connections at once
 * (a share is per device, not per connection), and to register a memfd
 * it never touched (whose pages the engine would allocate, charged to
 * the engine's memory cgroup).
 *
 *   eng-mem-quota untouched           exit 0 if refused (EFAULT)
 *   eng-mem-quota bytes MiB_LIMIT     4 MiB MRs until refused
 *   eng-mem-quota fds LIMIT           completion channels until refused
 *   eng-mem-quota maps LIMIT          4 KiB MRs until refused
 *
 * A flood passes (exit 0) when the engine refuses it, with ENOMEM (EMFILE
 * for fds), at or below LIMIT, and fails (1) when it takes more.  Then it
 * prints "holding" and keeps what it got until stdin closes, so that the
 * test can run another pod's traffic meanwhile.  The socket is
 * $PODVERBS_ENGINE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-ring-abi.h"

#define CONNS		2
#define BIG_MR		(4u << 20)
#define SMALL_MR	4096u

static char resp[PV_IPC_MAX_PAYLOAD];

struct conn {
	int sock;
	uint32_t seq;
	uint32_t pd;
};

static int call(struct conn *c, uint16_t op, const void *req, uint32_t len,
		int fd)
{
	return pv_ipc_call_fds(c->sock, &c->seq, op, req, len, &fd,
			       fd >= 0 ? 1 : 0, resp, sizeof(resp), NULL,
			       NULL, NULL);
}

static void die(const char *what, int err)
{
	printf("error: %s: %s\n", what, strerror(-err));
	exit(3);
}

static void conn_open(struct conn *c)
{
	struct pv_ipc_hello h = { .abi_version = PV_IPC_VERSION };
	struct pv_ipc_dev_list *l = (struct pv_ipc_dev_list *)resp;
	struct pv_ipc_dev_ref ref = { 0 };
	int ret, ns;

	c->sock = pv_ipc_connect(pv_ipc_socket_path());
	if (c->sock < 0)
		die("connect", c->sock);
	/* HELLO proves the namespace with an fd of it, as the provider
	 * does: without one the pod sees no device. */
	ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns >= 0)
		h.flags = PV_HELLO_NETNS;
	ret = call(c, PV_OP_HELLO, &h, sizeof(h), ns);
	if (ns >= 0)
		close(ns);
	if (ret == 0)
		ret = call(c, PV_OP_DEV_LIST, NULL, 0, -1);
	for (uint32_t i = 0; ret == 0 && i < l->count; i++)
		if (strcmp(l->dev[i].name, "rdma0") == 0)
			ref.dev_id = l->dev[i].dev_id;
	if (ret == 0)
		ret = call(c, PV_OP_CTX_OPEN, &ref, sizeof(ref), -1);
	if (ret == 0)
		ret = call(c, PV_OP_PD_ALLOC, NULL, 0, -1);
	if (ret < 0)
		die("open rdma0", ret);
	c->pd = *(uint32_t *)resp;
}

/* A sealable memfd of len bytes; written through when populate. */
static int memfd_new(size_t len, bool populate)
{
	int fd = memfd_create("eng-mem-quota", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	char *p;

	if (fd < 0 || ftruncate(fd, (off_t)len) < 0)
		die("memfd", -errno);
	if (!populate)
		return fd;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap", -errno);
	memset(p, 0x5a, len);
	munmap(p, len);
	return fd;
}

static int mr_reg(struct conn *c, int fd, uint64_t len)
{
	struct {
		struct pv_ipc_mr_reg reg;
		struct pv_ipc_mr_backing backing;
	} req = { .reg = { .pd_handle = c->pd, .access = 1, .length = len,
			   .addr = 0x100000, .iova = 0x100000 },
		  .backing = { .has_fd = 1 } };

	return call(c, PV_OP_MR_REG, &req, sizeof(req), fd);
}

/* One item of the flood on connection c, or -errno. */
static int take_one(struct conn *c, const char *kind, int fd)
{
	if (strcmp(kind, "bytes") == 0)
		return mr_reg(c, fd, BIG_MR);
	if (strcmp(kind, "maps") == 0)
		return mr_reg(c, fd, SMALL_MR);
	return call(c, PV_OP_CHANNEL_CREATE, NULL, 0, -1);
}

static int flood(const char *kind, uint64_t limit)
{
	struct conn c[CONNS] = { 0 };
	bool bytes = strcmp(kind, "bytes") == 0;
	int want = strcmp(kind, "fds") == 0 ? -EMFILE : -ENOMEM;
	uint64_t got = 0, cap = bytes ? limit / (BIG_MR >> 20) : limit;
	int fd = -1, ret = 0;
	char ch;

	for (int i = 0; i < CONNS; i++)
		conn_open(&c[i]);
	if (strcmp(kind, "fds") != 0)
		fd = memfd_new(bytes ? BIG_MR : SMALL_MR, true);
	/* Alternate connections: the share is the device's. */
	while (got <= cap + 64) {
		ret = take_one(&c[got % CONNS], kind, fd);
		if (ret < 0)
			break;
		got++;
	}
	printf("%s: %llu taken over %d connections, then %s (share %llu%s)\n",
	       kind, (unsigned long long)got, CONNS,
	       ret < 0 ? strerror(-ret) : "no refusal",
	       (unsigned long long)limit, bytes ? " MiB" : "");
	if (ret != want || got > cap) {
		printf("FAIL: %s not refused at the device's share\n", kind);
		return 1;
	}
	printf("holding\n");
	fflush(stdout);
	while (read(0, &ch, 1) > 0)
		;
	return 0;
}

static int untouched(void)
{
	struct conn c = { 0 };
	int fd, ret;

	conn_open(&c);
	fd = memfd_new(BIG_MR, false);
	ret = mr_reg(&c, fd, BIG_MR);
	printf("untouched %u MiB memfd: MR_REG %s\n", BIG_MR >> 20,
	       ret < 0 ? strerror(-ret) : "accepted");
	if (ret != -EFAULT) {
		printf("FAIL: an MR over never-written pages was accepted\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "untouched") == 0)
		return untouched();
	if (argc == 3 && (strcmp(argv[1], "bytes") == 0 ||
			  strcmp(argv[1], "fds") == 0 ||
			  strcmp(argv[1], "maps") == 0))
		return flood(argv[1], strtoull(argv[2], NULL, 0));
	return 2;
}
