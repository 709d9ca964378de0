/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cni-plugin/cni_engine.h"
#include "providers/soft/proto/pv_dev_pages.h"
#include "providers/soft/proto/pv_gid_claim.h"
#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"

int cni_engine_open(struct cni_engine *eng, const char *engine_path,
		    const char *admin_path, struct cni_err *err)
{
	struct pv_ipc_hello req = { .abi_version = PV_IPC_VERSION }, resp;
	const char *path;
	int ret;

	/* Every request of ours is an admin request: they are served on
	 * the admin socket only, $PODVERBS_ADMIN_SOCKET or the one beside
	 * the pod socket's folder (pv_ipc_admin_path_for). */
	path = admin_path && admin_path[0] ? admin_path :
		pv_ipc_admin_socket_path(engine_path, eng->admin_buf,
					 sizeof(eng->admin_buf));
	eng->seq = 0;
	eng->path = path;
	eng->sock = pv_ipc_connect(path);
	if (eng->sock < 0) {
		cni_fail(err, CNI_ERR_TRY_AGAIN,
			 "podverbs engine unreachable at %s: %s", path,
			 strerror(-eng->sock));
		return eng->sock;
	}
	ret = pv_ipc_call(eng->sock, &eng->seq, PV_OP_HELLO, &req, sizeof(req),
			  &resp, sizeof(resp), NULL, NULL, NULL);
	if (ret < 0) {
		cni_fail(err, CNI_ERR_TRY_AGAIN,
			 "podverbs engine at %s did not answer HELLO: %s",
			 path, strerror(-ret));
		close(eng->sock);
		eng->sock = -1;
	}
	return ret;
}

void cni_engine_close(struct cni_engine *eng)
{
	if (eng->sock >= 0)
		close(eng->sock);
	eng->sock = -1;
}

int cni_engine_dev_add(struct cni_engine *eng, const char *netns,
		       const char *ifname, const char *name, uint16_t pkey,
		       const struct pv_ipc_adm_dev_claims *claims,
		       const struct pv_ipc_adm_dev_pod *pod,
		       struct pv_ipc_dev_info *ret_info, struct cni_err *err)
{
	/* The request, the claims, then the pod (pv-soft-abi.h). */
	struct {
		struct pv_adm_dev_add_msg m;
		struct pv_ipc_adm_dev_pod pod;
	} __attribute__((packed)) full;
	struct pv_adm_dev_add_msg msg;
	struct pv_ipc_adm_dev_add *reqp = &msg.req;
	bool with_pod = pod && pod->name[0];
	uint32_t got = 0, len;
	int ret;

	memset(&msg, 0, sizeof(msg));
	if (claims && claims->count) {
		msg.claims = *claims;
		msg.req.flags |= PV_ADM_DEV_ADD_CLAIMS;
	}
	if (with_pod)
		msg.req.flags |= PV_ADM_DEV_ADD_POD;
	if (strlen(netns) >= sizeof(reqp->netns_path) ||
	    strlen(ifname) >= sizeof(reqp->ifname) ||
	    strlen(name) >= sizeof(reqp->name))
		return cni_fail(err, CNI_ERR_INVALID_CONFIG,
				"netns path, interface or device name too long for the engine");
	strcpy(reqp->netns_path, netns);
	strcpy(reqp->ifname, ifname);
	strcpy(reqp->name, name);
	reqp->pkey = pkey;
	memset(ret_info, 0, sizeof(*ret_info));
	len = with_pod ? sizeof(full) :
	      msg.claims.count ? sizeof(msg) : sizeof(msg.req);
	full.m = msg;
	if (with_pod)
		full.pod = *pod;
	ret = pv_ipc_call(eng->sock, &eng->seq, PV_OP_ADM_DEV_ADD, &full, len,
			  ret_info, sizeof(*ret_info), &got, NULL, NULL);
	if (ret == -EEXIST) {
		cni_fail(err, CNI_ERR_ENGINE,
			 "engine: %s already has an RDMA device named \"%s\" or one on interface %s (one device per interface; names are unique per namespace)",
			 netns, name, ifname);
		return -EEXIST;
	}
	if (ret < 0)
		return cni_fail(err, CNI_ERR_ENGINE,
				"engine: creating device \"%s\" on %s in %s failed: %s",
				name, ifname, netns, strerror(-ret));
	if (got < sizeof(*ret_info) || ret_info->dev_id == 0)
		return cni_fail(err, CNI_ERR_ENGINE,
				"engine: malformed reply to ADM_DEV_ADD");
	return 0;
}

int cni_engine_dev_del(struct cni_engine *eng, uint32_t dev_id,
		       struct cni_err *err)
{
	struct pv_ipc_adm_dev_del req;
	int ret;

	memset(&req, 0, sizeof(req));
	req.dev_id = dev_id;
	ret = pv_ipc_call(eng->sock, &eng->seq, PV_OP_ADM_DEV_DEL, &req,
			  sizeof(req), NULL, 0, NULL, NULL, NULL);
	if (ret == -ENOENT || ret == -ENODEV)
		return -ENOENT;
	if (ret < 0)
		return cni_fail(err, CNI_ERR_ENGINE,
				"engine: deleting device %u failed: %s",
				dev_id, strerror(-ret));
	return 0;
}

int cni_engine_dev_list(struct cni_engine *eng,
			struct pv_ipc_adm_dev_list **ret_list,
			struct cni_err *err)
{
	void *buf = malloc(PV_IPC_MAX_PAYLOAD);
	struct pv_ipc_list_req req;
	struct pv_adm_pages pg;
	uint32_t got = 0;
	int ret = buf ? 1 : -ENOMEM;

	/* Every page: a node's pods are more than one reply holds.  The
	 * first goes without a request, as an engine before paging
	 * wants it. */
	pv_adm_pages_init(&pg);
	while (ret == 1) {
		pv_adm_pages_req(&pg, &req);
		ret = pv_ipc_call(eng->sock, &eng->seq, PV_OP_ADM_DEV_LIST,
				  pg.pages ? &req : NULL,
				  pg.pages ? sizeof(req) : 0, buf,
				  PV_IPC_MAX_PAYLOAD, &got, NULL, NULL);
		if (ret == 0)
			ret = pv_adm_pages_take(&pg, buf, got);
	}
	free(buf);
	if (ret < 0) {
		pv_adm_pages_fini(&pg);
		return cni_fail(err, CNI_ERR_ENGINE,
				"engine: listing devices failed: %s",
				strerror(-ret));
	}
	*ret_list = pv_adm_pages_done(&pg);
	return 0;
}

const struct pv_ipc_adm_dev *
cni_engine_find(const struct pv_ipc_adm_dev_list *list, uint32_t dev_id,
		const char *name, const char *ifname, const char *netns)
{
	for (uint32_t i = 0; i < list->count; i++) {
		const struct pv_ipc_dev_info *d = &list->dev[i].info;

		if ((dev_id == 0 || d->dev_id == dev_id) &&
		    !strncmp(d->name, name, sizeof(d->name)) &&
		    !strncmp(d->ifname, ifname, sizeof(d->ifname)) &&
		    (dev_id || !netns[0] || !strncmp(list->dev[i].netns_path, netns,
					   sizeof(list->dev[i].netns_path))))
			return &list->dev[i];
	}
	return NULL;
}

const struct pv_ipc_adm_dev *
cni_engine_find_ns(const struct pv_ipc_adm_dev_list *list, uint64_t ns_dev,
		   uint64_t ns_ino, const char *ifname, const char *name)
{
	for (uint32_t i = 0; i < list->count; i++) {
		const struct pv_ipc_adm_dev *d = &list->dev[i];

		if (d->netns_dev == ns_dev && d->netns_ino == ns_ino &&
		    !strncmp(d->info.ifname, ifname, sizeof(d->info.ifname)) &&
		    (!name || !strncmp(d->info.name, name,
				       sizeof(d->info.name))))
			return d;
	}
	return NULL;
}
