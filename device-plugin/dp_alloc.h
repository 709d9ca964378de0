/* SPDX-License-Identifier: MIT */
/*
 * What a container gets for its device IDs (Allocate), and the CDI spec
 * file describing the same edits for CDI-aware runtimes.
 *
 * Soft pool: the engine socket's folder is bind-mounted read-only (connect
 * on a socket needs no write access to the mount) and PODVERBS_ENGINE
 * points at the socket inside it.
 * Kernel pool: /dev/infiniband/uverbsN of every distinct device, rdma_cm,
 * umadN when the pool asks for it; PODVERBS_DEVICES_<RESOURCE> holds a JSON
 * array describing the allocated devices.
 */
#ifndef DP_ALLOC_H
#define DP_ALLOC_H

#include <stddef.h>

#include "deviceplugin_v1beta1.pb-c.h"
#include "device-plugin/dp_arena.h"
#include "device-plugin/dp_config.h"
#include "device-plugin/dp_pool.h"

/*
 * Builds the response for one container in arena a.  Returns 0, -EINVAL
 * (unknown or empty ID list; message in err) or -ENOMEM.
 */
int dp_alloc_container(const struct dp_config *cfg, const struct dp_pool *p,
		       char *const *ids, size_t nids, struct dp_arena *a,
		       V1beta1__ContainerAllocateResponse **ret,
		       char *err, size_t errlen);

/* Env variable carrying the kernel devices' JSON, from the resource name:
 * podverbs.io/mlx -> PODVERBS_DEVICES_PODVERBS_IO_MLX. */
void dp_alloc_env_name(const char *resource, char *buf, size_t cap);

/* CDI spec path of a pool: <cdiSpecDir>/podverbs-<name>.json. */
void dp_alloc_cdi_path(const struct dp_config *cfg,
		       const struct dp_pool_config *pc, char *buf, size_t cap);

/* Writes the pool's CDI spec atomically (temp file + rename); 0 or -errno.
 * Does nothing when cdiSpecDir is empty. */
int dp_alloc_write_cdi(const struct dp_config *cfg, const struct dp_pool *p);

#endif /* DP_ALLOC_H */
