/* SPDX-License-Identifier: MIT */
/*
 * One process, several RDMA devices at once (issue 16: a pod with a soft
 * and a kernel device).  kboth-loop lists every device its libibverbs
 * sees, opens each device named on the command line (all contexts stay
 * open together), and on each one connects two RC QPs to each other
 * through the device's own GID: a loopback over that device's wire path
 * (the kernel's rxe for a kernel device, our engine for a soft one).  On
 * each QP pair it moves ITERS rounds of an RDMA WRITE of SIZE bytes, then
 * a SEND of the same buffer into a posted receive, and checks every byte
 * of both landings.  The devices' rounds interleave, so each device's
 * traffic runs while the other device's objects are live.
 *
 *   usage: kboth-loop [-n ITERS] [-s SIZE] DEV:GIDX [DEV:GIDX...]
 *          kboth-loop -l      (the list only)
 *
 * Prints "devices: ..." (the list), "indexes: NAME=INDEX ..." (each one's
 * ibv_get_device_index: the kernel's index for a kernel device), one
 * "path: NAME DEV_PATH IBDEV_PATH" line per listed device, one "DEV: ..."
 * line per device opened with
 * its node GUID, GID and bytes checked, and "kboth-loop: OK"; exits 1 on
 * the first failure with what failed.
 */
#include <endian.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEVS 4
#define POLL_MS 30000

struct loop_dev {
	const char *name;
	int gidx;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;	/* [src | write dst | recv dst] */
	uint8_t *buf;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	uint64_t checked;
};

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "kboth-loop: FAIL: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static struct ibv_device *find_dev(struct ibv_device **list, const char *name)
{
	for (; *list; list++)
		if (strcmp(ibv_get_device_name(*list), name) == 0)
			return *list;
	return NULL;
}

static void modify(struct loop_dev *d, struct ibv_qp *qp,
		   struct ibv_qp_attr *a, int mask, const char *to)
{
	int rc = ibv_modify_qp(qp, a, mask);

	if (rc)
		die("%s: QP %u to %s: %s", d->name, qp->qp_num, to,
		    strerror(rc));
}

/* RESET -> INIT -> RTR -> RTS, its peer being the pair's other QP. */
static void connect_qp(struct loop_dev *d, struct ibv_qp *qp, uint32_t peer)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	modify(d, qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = d->mtu;
	a.dest_qp_num = peer;
	a.rq_psn = 0x1234;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = d->gid;
	a.ah_attr.grh.sgid_index = (uint8_t)d->gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	modify(d, qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER, "RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x1234;
	a.timeout = 16;		/* 268 ms: a TCG guest stalls at times */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	modify(d, qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	       "RTS");
}

static void open_dev(struct ibv_device **list, struct loop_dev *d,
		     size_t size)
{
	struct ibv_qp_init_attr qa;
	struct ibv_port_attr pa;
	struct ibv_device *dev = find_dev(list, d->name);
	int rc;

	if (!dev)
		die("%s: not in the device list", d->name);
	d->ctx = ibv_open_device(dev);
	if (!d->ctx)
		die("%s: ibv_open_device: %s", d->name, strerror(errno));
	rc = ibv_query_port(d->ctx, 1, &pa);
	if (rc)
		die("%s: ibv_query_port: %s", d->name, strerror(rc));
	if (pa.state != IBV_PORT_ACTIVE)
		die("%s: port 1 is not active (%d)", d->name, pa.state);
	d->mtu = pa.active_mtu;
	rc = ibv_query_gid(d->ctx, 1, d->gidx, &d->gid);
	if (rc)
		die("%s: ibv_query_gid %d: %s", d->name, d->gidx, strerror(rc));
	d->pd = ibv_alloc_pd(d->ctx);
	d->cq = d->pd ? ibv_create_cq(d->ctx, 16, NULL, NULL, 0) : NULL;
	if (!d->cq)
		die("%s: PD or CQ: %s", d->name, strerror(errno));
	/* Anonymous pages: what both device kinds can register. */
	d->buf = aligned_alloc(4096, (3 * size + 4095) / 4096 * 4096);
	if (!d->buf)
		die("%s: buffer: %s", d->name, strerror(errno));
	d->mr = ibv_reg_mr(d->pd, d->buf, 3 * size, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!d->mr)
		die("%s: ibv_reg_mr: %s", d->name, strerror(errno));
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = d->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 1;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	for (int i = 0; i < 2; i++) {
		d->qp[i] = ibv_create_qp(d->pd, &qa);
		if (!d->qp[i])
			die("%s: ibv_create_qp: %s", d->name, strerror(errno));
	}
	connect_qp(d, d->qp[0], d->qp[1]->qp_num);
	connect_qp(d, d->qp[1], d->qp[0]->qp_num);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Waits for one completion of wr_id with success and opcode op. */
static void wait_wc(struct loop_dev *d, uint64_t wr_id, enum ibv_wc_opcode op)
{
	double end = now_ms() + POLL_MS;
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(d->cq, 1, &wc)) == 0)
		if (now_ms() > end)
			die("%s: no completion of wr %llu in %d ms", d->name,
			    (unsigned long long)wr_id, POLL_MS);
	if (n < 0)
		die("%s: ibv_poll_cq: %d", d->name, n);
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id || wc.opcode != op)
		die("%s: wr %llu: status %s, opcode %d (want wr %llu, opcode %d)",
		    d->name, (unsigned long long)wc.wr_id,
		    ibv_wc_status_str(wc.status), wc.opcode,
		    (unsigned long long)wr_id, op);
}

static void post_send(struct loop_dev *d, enum ibv_wr_opcode op,
		      size_t size, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)d->buf, .length = (uint32_t)size,
		.lkey = d->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
	}, *bad;
	int rc;

	if (op == IBV_WR_RDMA_WRITE) {
		wr.wr.rdma.remote_addr = (uintptr_t)d->buf + size;
		wr.wr.rdma.rkey = d->mr->rkey;
	}
	rc = ibv_post_send(d->qp[0], &wr, &bad);
	if (rc)
		die("%s: ibv_post_send: %s", d->name, strerror(rc));
}

static void check(struct loop_dev *d, const uint8_t *got, size_t size,
		  const char *what, int round)
{
	for (size_t i = 0; i < size; i++)
		if (got[i] != d->buf[i])
			die("%s: round %d: %s byte %zu is %#x, want %#x",
			    d->name, round, what, i, got[i], d->buf[i]);
	d->checked += size;
}

/* One round: QP 0 writes the source into the write area, then sends it
 * into the receive QP 1 posted on the receive area. */
static void round_trip(struct loop_dev *d, size_t size, int round)
{
	uint8_t *wdst = d->buf + size, *rdst = d->buf + 2 * size;
	struct ibv_sge sge = {
		.addr = (uintptr_t)rdst, .length = (uint32_t)size,
		.lkey = d->mr->lkey,
	};
	struct ibv_recv_wr rwr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1 },
			   *bad;
	int rc;

	for (size_t i = 0; i < size; i++)
		d->buf[i] = (uint8_t)(i * 7 + (size_t)round * 13 + d->gidx);
	memset(wdst, 0, size);
	memset(rdst, 0, size);
	rc = ibv_post_recv(d->qp[1], &rwr, &bad);
	if (rc)
		die("%s: ibv_post_recv: %s", d->name, strerror(rc));
	post_send(d, IBV_WR_RDMA_WRITE, size, 1);
	wait_wc(d, 1, IBV_WC_RDMA_WRITE);
	check(d, wdst, size, "RDMA WRITE", round);
	post_send(d, IBV_WR_SEND, size, 2);
	/* The send's and the receive's completions, in either order. */
	for (int seen = 0; seen != 3;) {
		double end = now_ms() + POLL_MS;
		struct ibv_wc wc;
		int n;

		while ((n = ibv_poll_cq(d->cq, 1, &wc)) == 0)
			if (now_ms() > end)
				die("%s: round %d: SEND incomplete (%d)",
				    d->name, round, seen);
		if (n < 0 || wc.status != IBV_WC_SUCCESS ||
		    (wc.wr_id != 2 && wc.wr_id != 3))
			die("%s: round %d: SEND wc %llu: %s", d->name, round,
			    (unsigned long long)wc.wr_id,
			    n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
		seen |= wc.wr_id == 2 ? 1 : 2;
		if (wc.wr_id == 3 && wc.byte_len != size)
			die("%s: round %d: received %u bytes, want %zu",
			    d->name, round, wc.byte_len, size);
	}
	check(d, rdst, size, "SEND", round);
}

static void close_dev(struct loop_dev *d)
{
	for (int i = 0; i < 2; i++)
		if (ibv_destroy_qp(d->qp[i]))
			die("%s: ibv_destroy_qp", d->name);
	if (ibv_dereg_mr(d->mr) || ibv_destroy_cq(d->cq) ||
	    ibv_dealloc_pd(d->pd) || ibv_close_device(d->ctx))
		die("%s: teardown", d->name);
	free(d->buf);
}

static void print_list(struct ibv_device **list)
{
	printf("devices:");
	for (struct ibv_device **d = list; *d; d++)
		printf(" %s", ibv_get_device_name(*d));
	printf("\nindexes:");
	for (struct ibv_device **d = list; *d; d++)
		printf(" %s=%d", ibv_get_device_name(*d),
		       ibv_get_device_index(*d));
	printf("\n");
	for (struct ibv_device **d = list; *d; d++)
		printf("path: %s %s %s\n", ibv_get_device_name(*d),
		       (*d)->dev_path, (*d)->ibdev_path);
}

int main(int argc, char **argv)
{
	struct loop_dev devs[MAX_DEVS];
	struct ibv_device **list;
	char gid[64];
	size_t size = 4096;
	int iters = 20, n = 0, opt, list_only = 0;

	while ((opt = getopt(argc, argv, "ln:s:")) != -1) {
		if (opt == 'l')
			list_only = 1;
		else if (opt == 'n')
			iters = atoi(optarg);
		else if (opt == 's')
			size = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (iters < 1 || size < 1 || size > (1u << 24) ||
	    (optind == argc && !list_only) || argc - optind > MAX_DEVS) {
		fprintf(stderr, "usage: %s [-n ITERS] [-s SIZE] DEV:GIDX...\n",
			argv[0]);
		return 2;
	}
	memset(devs, 0, sizeof(devs));
	for (int i = optind; i < argc; i++, n++) {
		char *colon = strchr(argv[i], ':');

		devs[n].name = argv[i];
		devs[n].gidx = colon ? atoi(colon + 1) : 0;
		if (colon)
			*colon = '\0';
	}
	list = ibv_get_device_list(NULL);
	if (!list)
		die("ibv_get_device_list: %s", strerror(errno));
	print_list(list);
	if (list_only) {
		ibv_free_device_list(list);
		return 0;
	}
	for (int i = 0; i < n; i++)
		open_dev(list, &devs[i], size);
	ibv_free_device_list(list);	/* open contexts keep their devices */
	for (int r = 0; r < iters; r++)
		for (int i = 0; i < n; i++)
			round_trip(&devs[i], size, r);
	for (int i = 0; i < n; i++) {
		const uint8_t *g = devs[i].gid.raw;

		snprintf(gid, sizeof(gid), "%02x%02x:%02x%02x:...:%u.%u.%u.%u",
			 g[0], g[1], g[2], g[3], g[12], g[13], g[14], g[15]);
		printf("%s: node_guid %016llx, gid[%d] %s, %d rounds of %zu "
		       "bytes, %llu bytes checked\n", devs[i].name,
		       (unsigned long long)be64toh(
			       ibv_get_device_guid(devs[i].ctx->device)),
		       devs[i].gidx, gid, iters, size,
		       (unsigned long long)devs[i].checked);
	}
	for (int i = 0; i < n; i++)
		close_dev(&devs[i]);
	printf("kboth-loop: OK\n");
	return 0;
}
