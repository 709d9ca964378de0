/* SPDX-License-Identifier: MIT */
/*
 * The commands (CNI spec, "Operations").  Each fills ctx->err on failure
 * and may set ctx->out (malloc'ed text for stdout).
 */
#ifndef CNI_CMD_H
#define CNI_CMD_H

#include <cjson/cJSON.h>

#include "cni-plugin/cni_conf.h"
#include "cni-plugin/cni_env.h"
#include "cni-plugin/cni_err.h"
#include "cni-plugin/cni_state.h"

struct cni_ctx {
	struct cni_env env;
	struct cni_conf conf;
	struct cni_err err;
	char *out;
};

int cni_cmd_add(struct cni_ctx *ctx);
int cni_cmd_del(struct cni_ctx *ctx);
int cni_cmd_check(struct cni_ctx *ctx);
int cni_cmd_gc(struct cni_ctx *ctx);
int cni_cmd_status(struct cni_ctx *ctx);

/* Puts the attachment's state key in key (CNI_STATE_KEY_MAX bytes) and
 * takes its lock (cni_state_lock): the lock fd, or -errno with ctx->err
 * set. */
int cni_attachment_lock(struct cni_ctx *ctx, char *key);

struct netns_link;

/* Opens CNI_NETNS (netns_open): the fd, or -errno with ctx->err set
 * (code 4). */
int cni_pod_netns_open(struct cni_ctx *ctx);

/* Reads CNI_IFNAME inside ns_fd (netns_link_get); on failure ctx->err is
 * set (code 101). */
int cni_pod_link_get(struct cni_ctx *ctx, int ns_fd,
		     struct netns_link *ret_link);

/*
 * Undoes what the state record st of attachment key in state folder dir
 * records (engine device, moved kernel device, the claim); things already
 * gone count as undone.  netns is the namespace path to use ("" when the
 * runtime gave none).  Used by DEL, GC and a repeated ADD.
 */
int cni_teardown(const char *dir, const char *key, const struct cni_state *st,
		 const char *netns, struct cni_err *err);

/* Pure: whether (cid, ifname) is in a GC attachment list
 * ([{"containerID": ..., "ifname": ...}, ...]). */
int cni_gc_is_valid(const cJSON *attachments, const char *cid,
		    const char *ifname);

/* Pure: a GC attachment list is an array of such objects. */
int cni_gc_list_valid(const cJSON *attachments);

#endif /* CNI_CMD_H */
