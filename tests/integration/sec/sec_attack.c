/* SPDX-License-Identifier: MIT */
/*
 * A hostile pod speaking the engine IPC directly, for the security tests
 * (tests/integration/sec_*.sh).  The socket is $PODVERBS_ENGINE.
 *
 *   sec-attack linger-op           a lingering TCP socket (SO_LINGER
 *                                  {1, 3600}, send queue full, its peer in
 *                                  a private netns that never reads) passed
 *                                  with DEV_LIST, an op that takes no fd
 *   sec-attack linger-mr DEV       the same socket as MR_REG's memfd
 *   sec-attack linger-queued       two requests, the second carrying the
 *                                  socket, then hang up (run against an
 *                                  engine with max_msgs_per_wakeup=1 that
 *                                  is stopped meanwhile)
 *     (the linger-* modes print "ready", wait for file $SEC_GO when set
 *     (the test stops the engine meanwhile, so that the attacker's own
 *     copy of the socket is gone before the engine's), send, print "sent"
 *     and hold the TCP peer until killed)
 *   sec-attack probe MS            HELLO + DEV_LIST; prints the time of the
 *                                  slowest of 3 DEV_LISTs; exit 0 if every
 *                                  one answered within MS milliseconds
 *   sec-attack hold GO [DELNAME]   connects, forks a holder of the
 *                                  connection, prints the connecting pid
 *                                  and exits; the holder waits until file
 *                                  GO exists, then tries ADM_DEV_LIST,
 *                                  DEV_LIST and (DELNAME) ADM_DEV_DEL and
 *                                  prints what it got
 *   sec-attack flood MAX           opens up to MAX connections (HELLO with
 *                                  its netns), prints "opened N" at the
 *                                  first refusal, holds them until killed
 *   sec-attack flood-raw N SECS    opens N connections that never say
 *                                  HELLO; prints how many the engine keeps
 *                                  after 0.5 s ("kept K") and after SECS
 *                                  more ("kept-later K")
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "providers/soft/pv-soft-ring-abi.h"

static char resp[PV_IPC_MAX_PAYLOAD];

static int die(const char *what, int err)
{
	printf("error %s: %s\n", what, strerror(err < 0 ? -err : err));
	fflush(stdout);
	exit(2);
}

static int connect_engine(void)
{
	int fd = pv_ipc_connect(pv_ipc_socket_path());

	if (fd < 0)
		die("connect", fd);
	return fd;
}

static int call(int sock, uint32_t *seq, uint16_t op, const void *req,
		uint32_t len, const int *fds, int nfds)
{
	return pv_ipc_call_fds(sock, seq, op, req, len, fds, nfds, resp,
			       sizeof(resp), NULL, NULL, NULL);
}

/* HELLO with this thread's netns fd (an engine that wants no fd just
 * drops it). */
static int hello(int sock, uint32_t *seq)
{
	struct pv_ipc_hello h = { .abi_version = PV_IPC_VERSION };
	int ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	int ret = call(sock, seq, PV_OP_HELLO, &h, sizeof(h), &ns,
		       ns >= 0 ? 1 : 0);

	if (ns >= 0)
		close(ns);
	return ret;
}

static void lo_up(void)
{
	struct ifreq ifr = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	strcpy(ifr.ifr_name, "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		die("lo flags", -errno);
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		die("lo up", -errno);
	close(s);
}

/*
 * In a private network namespace: a listener that never accepts nor
 * reads, a connected client whose send queue is full, SO_LINGER {1,
 * 3600}.  Its last close() waits up to an hour for the queue to drain.
 * Returns the client; *ret_peer keeps the listener (and the embryo
 * connection) alive.
 */
static int lingering_socket(int *ret_peer)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct linger l = { .l_onoff = 1, .l_linger = 3600 };
	int small = 4096, one = 1, lfd, cfd;
	socklen_t alen = sizeof(a);
	char chunk[4096] = { 0 };
	long sent = 0;

	if (unshare(CLONE_NEWNET) < 0)
		die("unshare(CLONE_NEWNET)", -errno);
	lo_up();
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) < 0)
		die("listen", -errno);
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(cfd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	if (connect(cfd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("tcp connect", -errno);
	fcntl(cfd, F_SETFL, O_NONBLOCK);
	for (;;) {
		ssize_t n = send(cfd, chunk, sizeof(chunk), MSG_NOSIGNAL);

		if (n > 0) {
			sent += n;
			continue;
		}
		if (n < 0 && errno == EAGAIN)
			break;
		die("tcp send", -errno);
	}
	fcntl(cfd, F_SETFL, 0);
	if (setsockopt(cfd, SOL_SOCKET, SO_LINGER, &l, sizeof(l)) < 0)
		die("SO_LINGER", -errno);
	fprintf(stderr, "lingering socket: %ld bytes queued, peer never "
		"reads\n", sent);
	*ret_peer = lfd;
	return cfd;
}

static void wait_go(void)
{
	const char *go = getenv("SEC_GO");
	struct stat st;

	printf("ready\n");
	fflush(stdout);
	while (go && stat(go, &st) < 0)
		usleep(10000);
}

static void hold_forever(void)
{
	printf("sent\n");
	fflush(stdout);
	for (;;)
		pause();
}

static int linger_op(void)
{
	uint32_t seq = 0;
	int peer, tcp = lingering_socket(&peer), sock = connect_engine();
	int ret;

	/* Send, not call: an engine that blocks in close never answers. */
	wait_go();
	ret = pv_ipc_send(sock, PV_OP_DEV_LIST, ++seq, 0, NULL, 0, &tcp, 1);
	if (ret < 0)
		die("send", ret);
	close(tcp);
	hold_forever();
	return 0;
}

static uint32_t find_dev(int sock, uint32_t *seq, const char *name)
{
	struct pv_ipc_dev_list *l = (struct pv_ipc_dev_list *)resp;
	int ret = call(sock, seq, PV_OP_DEV_LIST, NULL, 0, NULL, 0);

	if (ret < 0)
		die("DEV_LIST", ret);
	for (uint32_t i = 0; i < l->count; i++)
		if (strcmp(l->dev[i].name, name) == 0)
			return l->dev[i].dev_id;
	die("device not visible", -ENODEV);
	return 0;
}

static int linger_mr(const char *dev)
{
	struct {
		struct pv_ipc_mr_reg reg;
		struct pv_ipc_mr_backing b;
	} req;
	struct pv_ipc_dev_ref ref = { .port = 1 };
	static char page[4096] __attribute__((aligned(4096)));
	uint32_t seq = 0, pd;
	int sock, ret, peer, tcp;

	sock = connect_engine();
	if ((ret = hello(sock, &seq)) < 0)
		die("HELLO", ret);
	ref.dev_id = find_dev(sock, &seq, dev);
	if ((ret = call(sock, &seq, PV_OP_CTX_OPEN, &ref, sizeof(ref), NULL,
			0)) < 0)
		die("CTX_OPEN", ret);
	if ((ret = call(sock, &seq, PV_OP_PD_ALLOC, NULL, 0, NULL, 0)) < 0)
		die("PD_ALLOC", ret);
	pd = ((struct pv_ipc_handle *)resp)->handle;
	/* Only now leave the pod's namespace for the TCP pair. */
	tcp = lingering_socket(&peer);
	memset(&req, 0, sizeof(req));
	req.reg.pd_handle = pd;
	req.reg.access = 1;
	req.reg.addr = (uintptr_t)page;
	req.reg.length = sizeof(page);
	req.b.has_fd = 1;
	wait_go();
	ret = pv_ipc_send(sock, PV_OP_MR_REG, ++seq, 0, &req, sizeof(req),
			  &tcp, 1);
	if (ret < 0)
		die("send", ret);
	close(tcp);
	hold_forever();
	return 0;
}

static int linger_queued(void)
{
	uint32_t seq = 0;
	int peer, tcp = lingering_socket(&peer), sock = connect_engine();
	int ret;

	wait_go();
	ret = pv_ipc_send(sock, PV_OP_DEV_LIST, ++seq, 0, NULL, 0, NULL, 0);
	if (ret == 0)
		ret = pv_ipc_send(sock, PV_OP_DEV_LIST, ++seq, 0, NULL, 0,
				  &tcp, 1);
	if (ret < 0)
		die("send", ret);
	close(tcp);
	close(sock);
	hold_forever();
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int probe(int limit_ms)
{
	struct timeval tv = { .tv_sec = 2 };
	double worst = 0;
	uint32_t seq = 0;
	int sock = connect_engine(), ret;

	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ret = hello(sock, &seq);
	if (ret < 0)
		die("HELLO (2 s)", ret);
	for (int i = 0; i < 3; i++) {
		double t0 = now_ms(), dt;

		ret = call(sock, &seq, PV_OP_DEV_LIST, NULL, 0, NULL, 0);
		dt = now_ms() - t0;
		if (ret < 0)
			die("DEV_LIST (2 s)", ret);
		if (dt > worst)
			worst = dt;
	}
	printf("probe: slowest DEV_LIST %.2f ms\n", worst);
	return worst <= limit_ms ? 0 : 1;
}

static void holder(int sock, const char *go, const char *delname)
{
	struct pv_ipc_adm_dev_list *al = (struct pv_ipc_adm_dev_list *)resp;
	struct pv_ipc_dev_list *l = (struct pv_ipc_dev_list *)resp;
	struct pv_ipc_hello h = { .abi_version = PV_IPC_VERSION };
	uint32_t seq = 0;
	struct stat st;
	int ret;

	while (stat(go, &st) < 0)
		usleep(10000);
	/* A HELLO proving nothing: whatever it is given comes from the
	 * engine's idea of who connected. */
	ret = call(sock, &seq, PV_OP_HELLO, &h, sizeof(h), NULL, 0);
	printf("HELLO: %d\n", ret);
	ret = call(sock, &seq, PV_OP_ADM_DEV_LIST, NULL, 0, NULL, 0);
	printf("ADM_DEV_LIST: %s, %u devices\n", ret < 0 ? strerror(-ret) :
	       "ok", ret < 0 ? 0 : al->total);
	ret = call(sock, &seq, PV_OP_DEV_LIST, NULL, 0, NULL, 0);
	printf("DEV_LIST: %s, visible:", ret < 0 ? strerror(-ret) : "ok");
	for (uint32_t i = 0; ret == 0 && i < l->count; i++)
		printf(" %s(%u)", l->dev[i].name, l->dev[i].dev_id);
	printf("\n");
	if (delname) {
		struct pv_ipc_adm_dev_del del = { 0 };

		snprintf(del.name, sizeof(del.name), "%s", delname);
		ret = call(sock, &seq, PV_OP_ADM_DEV_DEL, &del, sizeof(del),
			   NULL, 0);
		printf("ADM_DEV_DEL %s: %s\n", delname,
		       ret < 0 ? strerror(-ret) : "ok");
	}
	fflush(stdout);
}

static int hold(const char *go, const char *delname)
{
	int sock = connect_engine();
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork", -errno);
	if (pid == 0) {
		holder(sock, go, delname);
		_exit(0);
	}
	/* The connecting process goes; its pid is free for the taking. */
	printf("%d\n", (int)getpid());
	fflush(stdout);
	return 0;
}

static int flood(int max)
{
	int n;

	for (n = 0; n < max; n++) {
		uint32_t seq = 0;
		int sock = pv_ipc_connect(pv_ipc_socket_path()), ret;

		if (sock < 0)
			break;
		ret = hello(sock, &seq);
		if (ret < 0) {
			close(sock);
			break;
		}
	}
	printf("opened %d\n", n);
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

static int count_open(int *fds, int n)
{
	int open_n = 0;

	for (int i = 0; i < n; i++) {
		struct pollfd p = { .fd = fds[i], .events = POLLRDHUP };

		if (fds[i] >= 0 && poll(&p, 1, 0) == 0)
			open_n++;
	}
	return open_n;
}

static int flood_raw(int n, int secs)
{
	int *fds = calloc(n, sizeof(*fds));

	if (!fds)
		die("calloc", -ENOMEM);
	for (int i = 0; i < n; i++)
		fds[i] = pv_ipc_connect(pv_ipc_socket_path());
	usleep(500000);
	printf("kept %d\n", count_open(fds, n));
	sleep(secs);
	printf("kept-later %d\n", count_open(fds, n));
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "linger-op"))
		return linger_op();
	if (argc >= 3 && !strcmp(argv[1], "linger-mr"))
		return linger_mr(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "linger-queued"))
		return linger_queued();
	if (argc >= 3 && !strcmp(argv[1], "probe"))
		return probe(atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "hold"))
		return hold(argv[2], argc >= 4 ? argv[3] : NULL);
	if (argc >= 3 && !strcmp(argv[1], "flood"))
		return flood(atoi(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "flood-raw"))
		return flood_raw(atoi(argv[2]), atoi(argv[3]));
	fprintf(stderr, "usage: see the comment at the top of sec_attack.c\n");
	return 2;
}
