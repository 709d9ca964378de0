/* SPDX-License-Identifier: MIT */
/*
 * The plugin's side of the engine IPC (providers/soft/pv-soft-abi.h):
 * HELLO, ADM_DEV_ADD, ADM_DEV_DEL, ADM_DEV_LIST over one connection.
 * Errors come back as -errno and a message in struct cni_err.
 */
#ifndef CNI_ENGINE_H
#define CNI_ENGINE_H

#include <stdint.h>

#include "cni-plugin/cni_err.h"
#include "providers/soft/pv-soft-abi.h"

struct cni_engine {
	int sock;
	uint32_t seq;
	const char *path;		/* the admin socket in use */
	char admin_buf[PV_PATH_MAX];
};

/* Connects to admin_path, or when that is "" to the admin socket that
 * goes with pod socket engine_path ($PODVERBS_ADMIN_SOCKET, else "<its
 * folder>-admin/admin.sock"), and says HELLO.  Unreachable: -errno and code 11 (try again). */
int cni_engine_open(struct cni_engine *eng, const char *engine_path,
		    const char *admin_path, struct cni_err *err);
void cni_engine_close(struct cni_engine *eng);

/* Creates the soft device for ifname in netns; -EEXIST (with a message)
 * when the engine has one there or the name is taken.  claims (NULL or
 * count 0: none) are the GIDs of the attachment's assigned addresses,
 * which the device then owns even against a squatter (eng_gid_own.h).
 * pod (NULL or empty name: none) labels the device's metrics. */
int cni_engine_dev_add(struct cni_engine *eng, const char *netns,
		       const char *ifname, const char *name, uint16_t pkey,
		       const struct pv_ipc_adm_dev_claims *claims,
		       const struct pv_ipc_adm_dev_pod *pod,
		       struct pv_ipc_dev_info *ret_info, struct cni_err *err);

/* Deletes a device by id; -ENOENT (no error recorded) if it is gone. */
int cni_engine_dev_del(struct cni_engine *eng, uint32_t dev_id,
		       struct cni_err *err);

/* All devices; *ret_list is malloc'ed (free it). */
int cni_engine_dev_list(struct cni_engine *eng,
			struct pv_ipc_adm_dev_list **ret_list,
			struct cni_err *err);

/*
 * Pure: the device of list that is this attachment's: name and ifname
 * match, and dev_id if it is not 0, else the namespace path (if not "").
 * NULL when there is none.
 */
const struct pv_ipc_adm_dev *
cni_engine_find(const struct pv_ipc_adm_dev_list *list, uint32_t dev_id,
		const char *name, const char *ifname, const char *netns);

/*
 * Pure: the device of list on interface ifname of the namespace whose
 * identity is (ns_dev, ns_ino) (the engine allows one there), if its name
 * is name (any name when name is NULL).  NULL when there is none.
 */
const struct pv_ipc_adm_dev *
cni_engine_find_ns(const struct pv_ipc_adm_dev_list *list, uint64_t ns_dev,
		   uint64_t ns_ino, const char *ifname, const char *name);

#endif /* CNI_ENGINE_H */
