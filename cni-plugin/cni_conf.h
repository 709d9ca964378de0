/* SPDX-License-Identifier: MIT */
/*
 * The network configuration on stdin (CNI spec, "Network configuration"
 * and "Plugin configuration").  Pure: no I/O.
 *
 * Our keys:
 *   pkey          P_Key of the network: integer or string ("0x8001").
 *                 Absent: the default partition 0xffff.
 *   deviceName    RDMA device name seen in the pod.  Absent: "pv_<ifname>"
 *                 (stable per attachment, unique per pod namespace).
 *   mode          "soft" (default): a soft device of the engine.
 *                 "kernel": move a kernel RDMA device into the pod.
 *   device        kernel mode: the RDMA device name (e.g. "mlx5_0").
 *   deviceID      kernel mode: PCI address; runtimeConfig.deviceID wins.
 *   engineSocket  default $PODVERBS_ENGINE, then /run/podverbs/engine.sock.
 *                 Requests go to the admin socket that goes with it:
 *                 $PODVERBS_ADMIN_SOCKET, else "<its folder>-admin/
 *                 admin.sock" (/run/podverbs-admin/admin.sock).
 *   adminSocket   names that admin socket instead.
 *   stateDir      default /var/lib/cni/podverbs.
 */
#ifndef CNI_CONF_H
#define CNI_CONF_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "cni-plugin/cni_err.h"
#include "providers/soft/pv-soft-abi.h"

enum cni_ver {
	CNI_V_UNKNOWN = -1,
	CNI_V_0_3_0 = 0,
	CNI_V_0_3_1,
	CNI_V_0_4_0,
	CNI_V_1_0_0,
	CNI_V_1_1_0,
	CNI_V_COUNT,
};

enum cni_mode {
	CNI_MODE_SOFT = 0,
	CNI_MODE_KERNEL,
};

#define CNI_NETNAME_MAX		64
#define CNI_DEVNAME_MAX		PV_NAME_MAX
#define CNI_KDEV_MAX		64
#define CNI_PCI_MAX		32
#define CNI_DIR_MAX		200

#define CNI_DEFAULT_STATE_DIR	"/var/lib/cni/podverbs"
#define CNI_LATEST_VERSION	"1.1.0"

struct cni_conf {
	enum cni_ver ver;
	const char *version;		/* points into root */
	char name[CNI_NETNAME_MAX];
	uint16_t pkey;			/* 0: engine default 0xffff */
	char device_name[CNI_DEVNAME_MAX];	/* "" until defaulted */
	enum cni_mode mode;
	char kernel_device[CNI_KDEV_MAX];
	char device_id[CNI_PCI_MAX];
	char engine_socket[PV_PATH_MAX];	/* "" until defaulted */
	char admin_socket[PV_PATH_MAX];	/* "": beside engine_socket */
	char state_dir[CNI_DIR_MAX];
	cJSON *root;			/* owns the document */
	const cJSON *prev_result;	/* in root, NULL when absent */
	const cJSON *attachments;	/* GC list in root, NULL when absent */
};

/* "1.0.0" → CNI_V_1_0_0; CNI_V_UNKNOWN otherwise. */
enum cni_ver cni_version_parse(const char *s);
const char *cni_version_str(enum cni_ver v);

/* Best effort, for error results: the cniVersion of a document that may be
 * invalid; NULL when there is none.  Copies into buf. */
const char *cni_conf_peek_version(const char *json, size_t len, char *buf,
				  size_t cap);

/*
 * Parses the configuration.  Errors: 6 (not JSON), 1 (cniVersion not
 * supported), 7 (a key missing or invalid; the message names the key).
 * On success the caller owns conf->root (cni_conf_free).
 */
int cni_conf_parse(struct cni_conf *conf, const char *json, size_t len,
		   struct cni_err *err);
void cni_conf_free(struct cni_conf *conf);

/* Fills device_name and engine_socket defaults.  engine_env is
 * $PODVERBS_ENGINE or NULL. */
void cni_conf_defaults(struct cni_conf *conf, const char *ifname,
		       const char *engine_env);

/* Pure: a P_Key from JSON (number or "0x8001"/"32769" string). */
int cni_pkey_parse(const cJSON *item, uint16_t *ret_pkey);

#endif /* CNI_CONF_H */
