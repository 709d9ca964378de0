/* SPDX-License-Identifier: MIT */
/*
 * The character device a soft RDMA device names as its ibv_device.dev_name.
 *
 * Libraries such as UCX keep a verbs device only if
 * /dev/infiniband/<dev_name> is a character device they may open read and
 * write (UCX 1.13 src/uct/ib/base/ib_md.c: stat, S_ISCHR, access R_OK|W_OK);
 * a soft device has no kernel uverbs node, so every soft device names one
 * harmless node instead: a twin of /dev/null (char 1:3, mode 0666), which
 * reaches no kernel RDMA code (docs/SECURITY.md).  One fixed name for all
 * soft devices, because a container's devices are decided before its
 * network (Kubernetes' Allocate and podman's --device run before CNI ADD
 * creates the device), so the name must be known without asking the
 * engine.  Functions return 0 or -errno; none logs.
 */
#ifndef PV_DEVNODE_H
#define PV_DEVNODE_H

#define PV_DEVNODE_DIR		"/dev/infiniband"
#define PV_DEVNODE_NAME		"podverbs"
#define PV_DEVNODE_PATH		PV_DEVNODE_DIR "/" PV_DEVNODE_NAME
/* The node's numbers and mode: those of /dev/null (Linux devices.txt). */
#define PV_DEVNODE_MAJOR	1
#define PV_DEVNODE_MINOR	3
#define PV_DEVNODE_MODE		0666

/* 0 when path is a character device PV_DEVNODE_MAJOR:MINOR, -ENOENT when
 * absent, -EEXIST when it is something else. */
int pv_devnode_check(const char *path);

/*
 * Creates <dir>/PV_DEVNODE_NAME (and dir, mode 0755) when absent; an
 * existing correct node is success (idempotent, safe to race), anything
 * else at that path is left alone and gives -EEXIST.  Needs CAP_MKNOD.
 */
int pv_devnode_ensure(const char *dir);

#endif
