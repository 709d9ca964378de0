/* SPDX-License-Identifier: MIT */
/* The process's open verbs contexts (rc_devices.c) and GID look-ups. */
#ifndef RC_DEV_H
#define RC_DEV_H

#include <sys/socket.h>
#include <infiniband/verbs.h>

/* Every device context, opened once; *out stays valid for the process. */
int rc_dev_snapshot(struct ibv_context ***out, int *num);

/* ctx's default PD (made once), or NULL. */
struct ibv_pd *rc_dev_pd(struct ibv_context *ctx);

/* ctx's default XRC domain (made once, no file), or NULL with errno. */
struct ibv_xrcd *rc_dev_xrcd(struct ibv_context *ctx);

#endif /* RC_DEV_H */
