/* SPDX-License-Identifier: MIT */
/* The two-sided test harness (see dpt.h). */
#include "dpt.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A test that hangs is a failure, never a stuck test run. */
#define DPT_ALARM_SECS 60

static char dpt_me = '?';

void dpt_fail(const char *file, int line, const char *cond,
	      const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL [%c] %s:%d: %s: ", dpt_me, file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(NULL);
	_exit(1);
}

void dpt_log(struct dpt_side *s, const char *fmt, ...)
{
	va_list ap;

	printf("[%c] ", s->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void dpt_send(struct dpt_side *s, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(s->sock, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		CHECK(n > 0, "write to peer: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

void dpt_recv(struct dpt_side *s, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(s->sock, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		CHECK(n > 0, "peer side went away (%s)",
		      n ? strerror(errno) : "EOF");
		p += n;
		len -= (size_t)n;
	}
}

void dpt_sync(struct dpt_side *s)
{
	char c = 's';

	dpt_send(s, &c, 1);
	dpt_recv(s, &c, 1);
}

void dpt_swap(struct dpt_side *s, const struct dpt_conn *mine,
	      struct dpt_conn *theirs)
{
	dpt_send(s, mine, sizeof(*mine));
	dpt_recv(s, theirs, sizeof(*theirs));
}

/* Enters the pod's namespace and opens its (only) device. */
static void dpt_open(struct dpt_side *s, const char *netns)
{
	struct ibv_device **list;
	struct ibv_port_attr pa;
	int fd, n;

	s->home_netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	CHECK(s->home_netns >= 0, "open own netns: %s", strerror(errno));
	fd = open(netns, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0, "open %s: %s", netns, strerror(errno));
	CHECK(setns(fd, CLONE_NEWNET) == 0, "setns %s: %s", netns,
	      strerror(errno));
	close(fd);
	list = ibv_get_device_list(&n);
	CHECK(list && n >= 1, "no RDMA device in %s", netns);
	s->ctx = ibv_open_device(list[0]);
	CHECK(s->ctx, "ibv_open_device: %s", strerror(errno));
	ibv_free_device_list(list);
	s->pd = ibv_alloc_pd(s->ctx);
	CHECK(s->pd, "ibv_alloc_pd: %s", strerror(errno));
	CHECK(ibv_query_gid(s->ctx, 1, 0, &s->gid) == 0, "ibv_query_gid");
	CHECK(ibv_query_port(s->ctx, 1, &pa) == 0, "ibv_query_port");
	CHECK(pa.state == IBV_PORT_ACTIVE, "port state %d", pa.state);
	s->mtu = pa.active_mtu;
}

static int dpt_run_side(struct dpt_side *s, const char *netns, dpt_side_fn fn)
{
	dpt_me = s->name;
	alarm(DPT_ALARM_SECS);
	dpt_open(s, netns);
	return fn(s);
}

int dpt_main(int argc, char **argv, dpt_side_fn side_a, dpt_side_fn side_b)
{
	struct dpt_side a = { .name = 'A', .argc = argc - 3, .argv = argv + 3 };
	struct dpt_side b = { .name = 'B', .argc = argc - 3, .argv = argv + 3 };
	int sv[2], st, rc;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: %s NETNS_A NETNS_B [ARGS...]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("socketpair");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		const char *eng_b = getenv("PODVERBS_ENGINE_B");

		/* Side B's pod may be served by another engine (another
		 * node's, tests/lib/pods.sh's cross-node pass); the library
		 * reads PODVERBS_ENGINE when it first looks for devices. */
		if (eng_b && *eng_b)
			setenv("PODVERBS_ENGINE", eng_b, 1);
		close(sv[0]);
		b.sock = sv[1];
		_exit(dpt_run_side(&b, argv[2], side_b) ? 1 : 0);
	}
	close(sv[1]);
	a.sock = sv[0];
	a.peer_pid = pid;
	rc = dpt_run_side(&a, argv[1], side_a);
	alarm(DPT_ALARM_SECS);
	if (waitpid(pid, &st, 0) != pid)
		st = -1;
	if (side_b && !(WIFEXITED(st) && WEXITSTATUS(st) == 0) &&
	    !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && a.peer_pid == 0)) {
		fprintf(stderr, "FAIL: side B ended with status 0x%x\n", st);
		rc = 1;
	}
	printf("%s\n", rc ? "FAIL" : "PASS");
	return rc ? 1 : 0;
}

struct ibv_cq *dpt_cq(struct dpt_side *s, int depth,
		      struct ibv_comp_channel *ch)
{
	struct ibv_cq *cq = ibv_create_cq(s->ctx, depth, NULL, ch, 0);

	CHECK(cq, "ibv_create_cq(%d): %s", depth, strerror(errno));
	return cq;
}

struct ibv_qp *dpt_qp(struct dpt_side *s, enum ibv_qp_type type,
		      struct ibv_cq *cq, struct ibv_srq *srq,
		      const struct ibv_qp_cap *cap, int sq_sig_all)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = type,
		.sq_sig_all = sq_sig_all,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 64 },
	};
	struct ibv_qp *qp;

	if (cap)
		ia.cap = *cap;
	qp = ibv_create_qp(s->pd, &ia);
	CHECK(qp, "ibv_create_qp(type %d): %s", type, strerror(errno));
	return qp;
}

void *dpt_buf(size_t len)
{
	void *p = NULL;

	CHECK(posix_memalign(&p, 4096, len ? len : 1) == 0, "memalign");
	memset(p, 0, len);
	return p;
}

struct ibv_mr *dpt_mr(struct dpt_side *s, void *buf, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(s->pd, buf, len, access);

	CHECK(mr, "ibv_reg_mr(%zu, 0x%x): %s", len, access, strerror(errno));
	return mr;
}

/* The PSN each QP told its peer (dpt_conn_fill), which the peer expects
 * (its rq_psn) and so is the QP's sq_psn (dpt_connect): the wire checks
 * PSNs, same-node never did. */
static struct { uint32_t qpn, psn; } own_psn[256];

static uint32_t own_psn_of(uint32_t qpn)
{
	for (size_t i = 0; i < sizeof(own_psn) / sizeof(own_psn[0]); i++)
		if (own_psn[i].qpn == qpn)
			return own_psn[i].psn;
	return 0;
}

void dpt_conn_fill(struct dpt_side *s, struct dpt_conn *c,
		   struct ibv_qp *qp, struct ibv_mr *mr)
{
	static size_t next;

	memset(c, 0, sizeof(*c));
	c->qpn = qp ? qp->qp_num : 0;
	c->psn = (uint32_t)(lrand48() & 0xffffff);
	if (qp) {
		own_psn[next].qpn = qp->qp_num;
		own_psn[next].psn = c->psn;
		next = (next + 1) % (sizeof(own_psn) / sizeof(own_psn[0]));
	}
	c->gid = s->gid;
	if (mr) {
		c->addr = (uintptr_t)mr->addr;
		c->rkey = mr->rkey;
		c->len = (uint32_t)mr->length;
	}
}

static void dpt_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		       const char *to)
{
	int rc = ibv_modify_qp(qp, a, mask);

	CHECK(rc == 0, "modify QP %u to %s: %s", qp->qp_num, to, strerror(rc));
}

void dpt_connect(struct ibv_qp *qp, struct dpt_side *s,
		 const struct dpt_conn *peer, const struct dpt_qp_opts *o)
{
	static const struct dpt_qp_opts defaults;
	struct ibv_qp_attr a;
	int access;

	if (!o)
		o = &defaults;
	access = o->access == -1 ? 0 : o->access ? o->access : DPT_ACCESS_ALL;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = (unsigned)access;
	dpt_modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_ACCESS_FLAGS, "INIT");

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = s->mtu;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = peer->psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = o->min_rnr_timer ? o->min_rnr_timer : 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = 0;
	a.ah_attr.grh.hop_limit = 64;
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	dpt_modify(qp, &a, mask, "RTR");

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = own_psn_of(qp->qp_num);
	a.timeout = o->timeout ? o->timeout : 12;
	a.retry_cnt = o->retry_cnt ? o->retry_cnt : 7;
	a.rnr_retry = o->rnr_retry == 0xff ? 0 : o->rnr_retry ? o->rnr_retry : 7;
	a.max_rd_atomic = 4;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	dpt_modify(qp, &a, mask, "RTS");
}

void dpt_ud_ready(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = qkey,
	};

	dpt_modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_QKEY, "INIT");
	a.qp_state = IBV_QPS_RTR;
	dpt_modify(qp, &a, IBV_QP_STATE, "RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	dpt_modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS");
}

void dpt_post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr,
		   uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;
	int rc = ibv_post_recv(qp, &wr, &bad);

	CHECK(rc == 0, "ibv_post_recv: %s", strerror(rc));
}

void dpt_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int rc = ibv_post_send(qp, wr, &bad);

	CHECK(rc == 0, "ibv_post_send(opcode %d): %s", wr->opcode,
	      strerror(rc));
}

static long dpt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int dpt_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms)
{
	long end = dpt_now_ms() + ms;
	int got = 0;

	while (got < n) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		CHECK(r >= 0, "ibv_poll_cq returned %d", r);
		got += r;
		if (got < n) {
			if (dpt_now_ms() > end)
				break;
			sched_yield();
		}
	}
	return got;
}

void dpt_wc(struct ibv_cq *cq, struct ibv_wc *wc, enum ibv_wc_status status,
	    int opcode, const char *what)
{
	CHECK(dpt_poll(cq, wc, 1, 10000) == 1, "%s: no completion in 10 s",
	      what);
	CHECK(wc->status == status, "%s: status %s (%d), expected %s",
	      what, ibv_wc_status_str(wc->status), wc->status,
	      ibv_wc_status_str(status));
	CHECK(opcode < 0 || status != IBV_WC_SUCCESS ||
	      (int)wc->opcode == opcode, "%s: opcode %d, expected %d", what,
	      wc->opcode, opcode);
}

void dpt_no_wc(struct ibv_cq *cq, int ms, const char *what)
{
	struct ibv_wc wc;

	CHECK(dpt_poll(cq, &wc, 1, ms) == 0,
	      "%s: unexpected completion wr_id %llu status %s opcode %d", what,
	      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
	      wc.opcode);
}

enum ibv_qp_state dpt_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int rc = ibv_query_qp(qp, &a, IBV_QP_STATE, &ia);

	CHECK(rc == 0, "ibv_query_qp: %s", strerror(rc));
	return a.qp_state;
}

const char *dpt_state_str(enum ibv_qp_state st)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return (unsigned)st < sizeof(names) / sizeof(names[0]) ?
	       names[st] : "?";
}

void dpt_fill(void *buf, size_t len, unsigned seed)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 8));
}

int dpt_check(const void *buf, size_t len, unsigned seed)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		if (p[i] != (unsigned char)(seed * 131u + i * 7u + (i >> 8)))
			return (int)i;
	return -1;
}
