/* SPDX-License-Identifier: MIT */
/*
 * rdma_get_devices / rdma_free_devices: the verbs contexts of every device
 * the pod sees, opened once and kept for the life of the process (as
 * rdma-core's librdmacm keeps them: ids point at them, so they are never
 * closed under a caller).  The list returned is the caller's to free.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>

#include <rdma/rdma_cma.h>

#include "librdmacm/rc_core.h"
#include "librdmacm/rc_dev.h"

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ibv_context **dev_ctx;	/* NULL-terminated once opened */
static struct ibv_pd **dev_pd;		/* each device's default PD */
static struct ibv_xrcd **dev_xrcd;	/* and XRC domain */
static int dev_num;

/* Opens every device once; devices that fail to open are left out. */
static int open_all(void)
{
	struct ibv_device **list;
	int n, i;

	if (dev_ctx != NULL)
		return 0;
	list = ibv_get_device_list(&n);
	if (list == NULL)
		return -errno;
	dev_ctx = calloc((size_t)n + 1, sizeof(*dev_ctx));
	dev_pd = calloc((size_t)n + 1, sizeof(*dev_pd));
	dev_xrcd = calloc((size_t)n + 1, sizeof(*dev_xrcd));
	if (dev_ctx == NULL || dev_pd == NULL || dev_xrcd == NULL) {
		free(dev_ctx);
		free(dev_pd);
		free(dev_xrcd);
		dev_ctx = NULL;
		dev_pd = NULL;
		dev_xrcd = NULL;
		ibv_free_device_list(list);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct ibv_context *c = ibv_open_device(list[i]);

		if (c != NULL)
			dev_ctx[dev_num++] = c;
	}
	ibv_free_device_list(list);
	return 0;
}

int rc_dev_snapshot(struct ibv_context ***out, int *num)
{
	int ret;

	pthread_mutex_lock(&dev_lock);
	ret = open_all();
	if (ret == 0) {
		*out = dev_ctx;
		*num = dev_num;
	}
	pthread_mutex_unlock(&dev_lock);
	return ret;
}

/* As rdma-core's librdmacm: an id given no PD uses its device's, made
 * once and kept like the context. */
struct ibv_pd *rc_dev_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd = NULL;

	pthread_mutex_lock(&dev_lock);
	for (int i = 0; dev_ctx && i < dev_num; i++) {
		if (dev_ctx[i] != ctx)
			continue;
		if (!dev_pd[i])
			dev_pd[i] = ibv_alloc_pd(ctx);
		pd = dev_pd[i];
		break;
	}
	pthread_mutex_unlock(&dev_lock);
	return pd;
}

/* As rdma-core's librdmacm: an XRC id given no domain uses its device's,
 * a domain of no file (fd -1), made once and kept like the PD. */
struct ibv_xrcd *rc_dev_xrcd(struct ibv_context *ctx)
{
	struct ibv_xrcd_init_attr attr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_xrcd *x = NULL;
	int err = ENODEV;

	pthread_mutex_lock(&dev_lock);
	for (int i = 0; dev_ctx && i < dev_num; i++) {
		if (dev_ctx[i] != ctx)
			continue;
		if (!dev_xrcd[i])
			dev_xrcd[i] = ibv_open_xrcd(ctx, &attr);
		x = dev_xrcd[i];
		err = errno;
		break;
	}
	pthread_mutex_unlock(&dev_lock);
	if (!x)
		errno = err;
	return x;
}

RC_EXPORT struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **all, **copy;
	int n, ret;

	ret = rc_dev_snapshot(&all, &n);
	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	copy = calloc((size_t)n + 1, sizeof(*copy));
	if (copy == NULL)
		return NULL;
	for (int i = 0; i < n; i++)
		copy[i] = all[i];
	if (num_devices != NULL)
		*num_devices = n;
	return copy;
}

RC_EXPORT void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}
