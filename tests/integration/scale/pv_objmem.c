/* SPDX-License-Identifier: MIT */
/*
 * pv-objmem DEV QPS MRS MR_KB: holds verbs objects in stages so a script
 * can read the engine's memory between them (tests/integration/
 * scale_objmem.sh, issue 14's per-device, per-QP and per-MR figures).
 *
 * Stages, each announced by a line "stage NAME" on stdout and left when a
 * line arrives on stdin: "ctx" (device open, a PD and one CQ), "qps" (QPS
 * RC QPs on that CQ, moved to INIT: what an application holds before it
 * connects), "mrs" (MRS MRs of MR_KB KiB each, every page written first,
 * as applications register written buffers).  Then it frees everything
 * and exits 0; any failure prints why and exits 1.  Our libibverbs, the
 * engine at $PODVERBS_ENGINE.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static int stage(const char *name)
{
	char line[16];

	printf("stage %s\n", name);
	fflush(stdout);
	return fgets(line, sizeof(line), stdin) ? 0 : -1;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list && list[i] && !ctx; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

static struct ibv_qp *qp_init(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr m = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	if (qp && ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static int hold(struct ibv_context *ctx, long nqp, long nmr, size_t mr_len)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 256, NULL, NULL, 0) : NULL;
	struct ibv_qp **qp = calloc((size_t)nqp + 1, sizeof(*qp));
	struct ibv_mr **mr = calloc((size_t)nmr + 1, sizeof(*mr));
	void **buf = calloc((size_t)nmr + 1, sizeof(*buf));
	long q = 0, m = 0;
	int ret = 1;

	if (!cq || !qp || !mr || !buf) {
		fprintf(stderr, "pv-objmem: PD/CQ: %s\n", strerror(errno));
		goto out;
	}
	if (stage("ctx"))
		goto out;
	for (; q < nqp; q++)
		if (!(qp[q] = qp_init(pd, cq))) {
			fprintf(stderr, "pv-objmem: QP %ld: %s\n", q,
				strerror(errno));
			goto out;
		}
	if (stage("qps"))
		goto out;
	for (; m < nmr; m++) {
		if (posix_memalign(&buf[m], 4096, mr_len)) {
			fprintf(stderr, "pv-objmem: no memory\n");
			goto out;
		}
		memset(buf[m], 0x5a, mr_len);
		mr[m] = ibv_reg_mr(pd, buf[m], mr_len, IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE);
		if (!mr[m]) {
			fprintf(stderr, "pv-objmem: MR %ld: %s\n", m,
				strerror(errno));
			free(buf[m]);
			goto out;
		}
	}
	ret = stage("mrs") ? 1 : 0;
out:
	while (m-- > 0) {
		ibv_dereg_mr(mr[m]);
		free(buf[m]);
	}
	while (q-- > 0)
		ibv_destroy_qp(qp[q]);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	free(qp);
	free(mr);
	free(buf);
	return ret;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	long nqp, nmr, kb;
	int ret;

	if (argc != 5) {
		fprintf(stderr, "usage: pv-objmem DEV QPS MRS MR_KB\n");
		return 2;
	}
	nqp = strtol(argv[2], NULL, 10);
	nmr = strtol(argv[3], NULL, 10);
	kb = strtol(argv[4], NULL, 10);
	if (nqp < 0 || nmr < 0 || kb < 4 || nqp > 1 << 20 || nmr > 1 << 20 ||
	    kb > 1 << 20) {
		fprintf(stderr, "pv-objmem: counts out of range\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	if (!ctx) {
		fprintf(stderr, "pv-objmem: cannot open %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	ret = hold(ctx, nqp, nmr, (size_t)kb << 10);
	ibv_close_device(ctx);
	return ret;
}
