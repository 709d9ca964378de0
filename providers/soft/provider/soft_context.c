/* SPDX-License-Identifier: MIT */
/*
 * Context open/close and the device, port, GID and P_Key queries.
 * CTX_OPEN's reply passes the context's async event socket.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "providers/soft/provider/soft_provider.h"

/* Our data path goes straight into the slots verbs.h calls inline. */
static void install_data_path(struct ibv_context_ops *o)
{
	o->post_send = soft_post_send;
	o->post_recv = soft_post_recv;
	o->post_srq_recv = soft_post_srq_recv;
	o->poll_cq = soft_poll_cq;
	o->req_notify_cq = soft_arm_cq;
}

/* PODVERBS_POLL_YIELD: empty polls in a row before ibv_poll_cq yields
 * the CPU (0 = never, for machines with cores to spare). */
#define SOFT_POLL_YIELD_DEFAULT 1

static uint32_t poll_yield_wanted(void)
{
	const char *e = getenv("PODVERBS_POLL_YIELD");
	char *end;
	unsigned long v;

	if (!e || !*e)
		return SOFT_POLL_YIELD_DEFAULT;
	v = strtoul(e, &end, 10);
	return *end || v > UINT32_MAX ? SOFT_POLL_YIELD_DEFAULT : (uint32_t)v;
}

int soft_open_context(struct pv_context *ctx)
{
	struct pv_ipc_dev_ref ref = { .dev_id = ctx->dev->dev_id };
	struct pv_ipc_handle h;
	struct soft_ctx *sc;
	int fds[PV_IPC_MAX_FDS], nfds = 0;
	uint32_t got = 0;
	int ret;

	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return -ENOMEM;
	sc->dev_id = ctx->dev->dev_id;
	ret = soft_death_init(sc);
	if (ret < 0)
		goto err_free_sc;
	ret = soft_mr_tab_new(&sc->mrs);
	if (ret < 0)
		goto err_free_sc;
	ret = soft_conn_open(&sc->conn, pv_ipc_socket_path());
	if (ret < 0)
		goto err_free_sc;
	ret = soft_call(&sc->conn, PV_OP_CTX_OPEN, &ref, sizeof(ref), &h,
			sizeof(h), &got, fds, &nfds);
	if (ret < 0)
		goto err_close_fds;
	if (nfds != 1) {
		ret = -EPROTO;
		goto err_close_fds;
	}
	sc->doorbell_fd = -1;
	sc->poll_yield = poll_yield_wanted();
	ret = soft_ctx_map(sc);
	if (ret < 0 && ret != -EOPNOTSUPP)
		goto err_close_fds;
	ctx->priv = sc;
	ctx->vctx.context.cmd_fd = sc->conn.fd;
	ctx->vctx.context.async_fd = fds[0];
	ctx->vctx.advise_mr = soft_advise_mr;
	if (sc->page) {
		install_data_path(&ctx->vctx.context.ops);
		soft_mw_install(&ctx->vctx.context.ops);
	}
	return 0;

err_close_fds:
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	soft_conn_close(&sc->conn);
err_free_sc:
	soft_mr_tab_free(sc->mrs);
	soft_death_fini(sc);
	free(sc);
	return ret;
}

void soft_close_context(struct pv_context *ctx)
{
	struct soft_ctx *sc = soft_ctx_of(ctx);

	if (ctx->vctx.context.async_fd >= 0)
		close(ctx->vctx.context.async_fd);
	ctx->vctx.context.async_fd = -1;
	soft_ctx_unmap(sc);
	soft_conn_close(&sc->conn);
	soft_death_fini(sc);
	soft_mr_tab_free(sc->mrs);
	free(sc);
	ctx->priv = NULL;
}

static struct pv_ipc_dev_ref dev_ref(struct pv_context *ctx, uint8_t port)
{
	struct pv_ipc_dev_ref ref = {
		.dev_id = soft_ctx_of(ctx)->dev_id, .port = port,
	};

	return ref;
}

int soft_query_device(struct pv_context *ctx, struct ibv_device_attr_ex *a)
{
	struct pv_ipc_dev_ref ref = dev_ref(ctx, 0);
	struct ibv_device_attr *o = &a->orig_attr;
	struct pv_ipc_dev_attr d;
	int ret;

	ret = soft_call_fixed(&soft_ctx_of(ctx)->conn, PV_OP_DEV_QUERY, &ref,
			      sizeof(ref), &d, sizeof(d));
	if (ret < 0)
		return ret;
	memcpy(o->fw_ver, d.fw_ver, sizeof(o->fw_ver));
	o->fw_ver[sizeof(o->fw_ver) - 1] = '\0';
	o->node_guid = d.node_guid;
	o->sys_image_guid = d.sys_image_guid;
	o->max_mr_size = d.max_mr_size;
	o->page_size_cap = d.page_size_cap;
	o->vendor_id = d.vendor_id;
	o->vendor_part_id = d.vendor_part_id;
	o->hw_ver = d.hw_ver;
	o->max_qp = (int)d.max_qp;
	o->max_qp_wr = (int)d.max_qp_wr;
	o->device_cap_flags = d.device_cap_flags;
	o->max_sge = (int)d.max_sge;
	o->max_sge_rd = (int)d.max_sge_rd;
	o->max_cq = (int)d.max_cq;
	o->max_cqe = (int)d.max_cqe;
	o->max_mr = (int)d.max_mr;
	o->max_mw = (int)d.max_mw;
	o->max_pd = (int)d.max_pd;
	o->max_qp_rd_atom = (int)d.max_qp_rd_atom;
	o->max_qp_init_rd_atom = (int)d.max_qp_init_rd_atom;
	o->max_res_rd_atom = (int)(d.max_qp_rd_atom * d.max_qp);
	o->atomic_cap = d.atomic_cap;
	o->max_ah = (int)d.max_ah;
	o->max_srq = (int)d.max_srq;
	o->max_srq_wr = (int)d.max_srq_wr;
	o->max_srq_sge = (int)d.max_srq_sge;
	o->max_pkeys = (uint16_t)d.max_pkeys;
	o->max_mcast_grp = (int)d.max_mcast_grp;
	o->max_mcast_qp_attach = (int)d.max_mcast_qp_attach;
	o->max_total_mcast_qp_attach = (int)d.max_total_mcast_qp_attach;
	o->local_ca_ack_delay = 15;
	o->phys_port_cnt = (uint8_t)d.phys_port_cnt;
	a->phys_port_cnt_ex = d.phys_port_cnt;
	/* Extended attributes: explicit ODP (soft_odp.c); no timestamps,
	 * TSO, RSS, tag matching, CQ moderation, device memory or PCI
	 * atomics (all stay zero). */
	a->device_cap_flags_ex = d.device_cap_flags;
	soft_odp_caps(a);
	return 0;
}

int soft_query_port(struct pv_context *ctx, uint8_t port,
		    struct ibv_port_attr *a)
{
	struct pv_ipc_dev_ref ref = dev_ref(ctx, port);
	struct pv_ipc_port_attr p;
	int ret;

	ret = soft_call_fixed(&soft_ctx_of(ctx)->conn, PV_OP_PORT_QUERY, &ref,
			      sizeof(ref), &p, sizeof(p));
	if (ret < 0)
		return ret;
	a->state = p.state;
	a->max_mtu = p.max_mtu;
	a->active_mtu = p.active_mtu;
	a->gid_tbl_len = (int)p.gid_tbl_len;
	a->port_cap_flags = p.port_cap_flags;
	a->max_msg_sz = p.max_msg_sz;
	a->pkey_tbl_len = (uint16_t)p.pkey_tbl_len;
	a->phys_state = p.phys_state;
	a->active_width = p.active_width;
	a->active_speed = p.active_speed;
	a->link_layer = p.link_layer;
	a->max_vl_num = 1;
	return 0;
}

int soft_query_gid_table(struct pv_context *ctx, uint8_t port,
			 struct ibv_gid_entry *e, int max)
{
	struct pv_ipc_dev_ref ref = dev_ref(ctx, port);
	struct pv_ipc_gid_table t;
	uint32_t got = 0;
	int n, ret;

	ret = soft_call(&soft_ctx_of(ctx)->conn, PV_OP_GID_QUERY, &ref,
			sizeof(ref), &t, sizeof(t), &got, NULL, NULL);
	if (ret < 0)
		return ret;
	/* The table may come trimmed to its valid entries. */
	if (got < 8 || t.count > PV_GID_TABLE_MAX ||
	    got < 8 + t.count * sizeof(t.gid[0]))
		return -EPROTO;
	n = (int)t.count < max ? (int)t.count : max;
	for (int i = 0; i < n; i++) {
		memcpy(e[i].gid.raw, t.gid[i].gid, sizeof(e[i].gid.raw));
		e[i].gid_type = t.gid[i].gid_type;
		e[i].ndev_ifindex = 0;
	}
	return n;
}

int soft_query_pkey(struct pv_context *ctx, uint8_t port, int index,
		    uint16_t *ret_pkey)
{
	struct pv_ipc_dev_ref ref = dev_ref(ctx, port);
	struct pv_ipc_pkey k;
	int ret;

	ref.index = (uint32_t)index;
	ret = soft_call_fixed(&soft_ctx_of(ctx)->conn, PV_OP_PKEY_QUERY, &ref,
			      sizeof(ref), &k, sizeof(k));
	if (ret < 0)
		return ret;
	*ret_pkey = k.pkey;
	return 0;
}
