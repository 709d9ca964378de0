/* SPDX-License-Identifier: MIT */
/*
 * Kernel device contexts: ibv_open_device on a provider's device opens
 * its /dev/infiniband/uverbsN (the cmd fd) and hands it to the provider's
 * alloc_context, which calls back _verbs_init_and_alloc_context,
 * verbs_set_ops and ibv_cmd_get_context; closing calls its free_context,
 * which ends in verbs_uninit_context.  Semantics of rdma-core 44's
 * device.c and dummy_ops.c.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"

/* RDMAV_ALLOW_DISASSOC_DESTROY: a destroy failing with EIO (device gone)
 * counts as done.  A data object in rdma-core's ABI: providers read it. */
LV_EXPORT bool verbs_allow_disassociate_destroy;

static uint32_t log_level;
static FILE *log_fp;

LV_EXPORT void __verbs_log(struct verbs_context *ctx, uint32_t level,
			   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
LV_EXPORT void __verbs_log(struct verbs_context *ctx, uint32_t level,
			   const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (level > log_level || !log_fp)
		return;
	va_start(ap, fmt);
	vfprintf(log_fp, fmt, ap);
	va_end(ap);
	errno = saved;
}

/* VERBS_LOG_LEVEL / VERBS_LOG_FILE, RDMAV_ALLOW_DISASSOC_DESTROY, read
 * once when the first kernel context opens. */
static void read_env(void)
{
	const char *lvl = getenv("VERBS_LOG_LEVEL");
	const char *file = getenv("VERBS_LOG_FILE");

	verbs_allow_disassociate_destroy =
		getenv("RDMAV_ALLOW_DISASSOC_DESTROY") ||
		getenv("MLX4_DEVICE_FATAL_CLEANUP");
	if (!lvl)
		return;
	log_level = (uint32_t)strtoul(lvl, NULL, 0);
	log_fp = file ? fopen(file, "ae") : NULL;
	if (!log_fp)
		log_fp = stderr;
}

static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* The ibv_context_ops slots apps call inline: never NULL. */
static int dummy_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	return -EOPNOTSUPP;
}

static int dummy_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return EOPNOTSUPP;
}

static int dummy_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			   struct ibv_send_wr **bad)
{
	*bad = wr;
	return EOPNOTSUPP;
}

static int dummy_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad)
{
	*bad = wr;
	return EOPNOTSUPP;
}

static int dummy_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad)
{
	*bad = wr;
	return EOPNOTSUPP;
}

static int init_context(struct verbs_context *v, struct ibv_device *device,
			int cmd_fd, uint32_t driver_id)
{
	struct ibv_context *c = &v->context;
	struct lv_kern_priv *priv = calloc(1, sizeof(*priv));

	if (!priv) {
		errno = ENOMEM;
		return -1;
	}
	lv_kern_dev_hold(device);
	c->device = device;
	c->cmd_fd = cmd_fd;
	c->async_fd = -1;
	pthread_mutex_init(&c->mutex, NULL);
	c->abi_compat = __VERBS_ABI_IS_EXTENDED;
	v->sz = sizeof(*v);
	priv->driver_id = driver_id;
	v->priv = (void *)priv;
	c->ops.poll_cq = dummy_poll_cq;
	c->ops.req_notify_cq = dummy_req_notify_cq;
	c->ops.post_send = dummy_post_send;
	c->ops.post_recv = dummy_post_recv;
	c->ops.post_srq_recv = dummy_post_srq_recv;
	return 0;
}

LV_EXPORT void *_verbs_init_and_alloc_context(struct ibv_device *device,
					      int cmd_fd, size_t alloc_size,
					      struct verbs_context *offset,
					      uint32_t driver_id);
LV_EXPORT void *_verbs_init_and_alloc_context(struct ibv_device *device,
					      int cmd_fd, size_t alloc_size,
					      struct verbs_context *offset,
					      uint32_t driver_id)
{
	uintptr_t off = (uintptr_t)offset;
	char *drv;

	if (off + sizeof(struct verbs_context) > alloc_size ||
	    !lv_kern_is_dev(device)) {
		close(cmd_fd);
		errno = EINVAL;
		return NULL;
	}
	drv = calloc(1, alloc_size);
	if (!drv) {
		close(cmd_fd);
		errno = ENOMEM;
		return NULL;
	}
	if (init_context((struct verbs_context *)(drv + off), device, cmd_fd,
			 driver_id)) {
		close(cmd_fd);
		free(drv);
		return NULL;
	}
	return drv;
}

LV_EXPORT void verbs_uninit_context(struct verbs_context *v);
LV_EXPORT void verbs_uninit_context(struct verbs_context *v)
{
	free(v->priv);
	v->priv = NULL;
	if (v->context.cmd_fd != -1)
		close(v->context.cmd_fd);
	if (v->context.async_fd != -1)
		close(v->context.async_fd);
	lv_kern_dev_put(v->context.device);
}

/* Every non-NULL op goes to our private table; those apps call inline
 * (verbs.h reads them from ibv_context_ops or verbs_context) also go to
 * their public slot. */
#define PUB_CTX(name) do { if (ops->name) c->ops.name = ops->name; } while (0)
#define PUB_V(name) do { if (ops->name) v->name = ops->name; } while (0)

LV_EXPORT void verbs_set_ops(struct verbs_context *v,
			     const struct verbs_context_ops *ops);
LV_EXPORT void verbs_set_ops(struct verbs_context *v,
			     const struct verbs_context_ops *ops)
{
	struct lv_kern_priv *priv = (struct lv_kern_priv *)v->priv;
	struct ibv_context *c = &v->context;
	void *const *src = (void *const *)ops;
	void **dst = (void **)&priv->ops;

	for (size_t i = 0; i < LV_KOPS_NUM; i++)
		if (src[i])
			dst[i] = src[i];
	PUB_CTX(alloc_mw); PUB_CTX(bind_mw); PUB_CTX(dealloc_mw);
	PUB_CTX(poll_cq); PUB_CTX(post_recv); PUB_CTX(post_send);
	PUB_CTX(post_srq_recv); PUB_CTX(req_notify_cq);
	PUB_V(advise_mr); PUB_V(alloc_dm); PUB_V(alloc_null_mr);
	PUB_V(alloc_parent_domain); PUB_V(alloc_td);
	PUB_V(attach_counters_point_flow); PUB_V(create_counters);
	PUB_V(close_xrcd); PUB_V(create_flow_action_esp);
	PUB_V(create_qp_ex); PUB_V(create_rwq_ind_table);
	PUB_V(create_srq_ex); PUB_V(create_wq); PUB_V(dealloc_td);
	PUB_V(destroy_counters); PUB_V(destroy_flow_action);
	PUB_V(destroy_rwq_ind_table); PUB_V(destroy_wq); PUB_V(free_dm);
	PUB_V(get_srq_num); PUB_V(modify_cq); PUB_V(modify_flow_action_esp);
	PUB_V(modify_qp_rate_limit); PUB_V(modify_wq); PUB_V(open_qp);
	PUB_V(open_xrcd); PUB_V(post_srq_ops); PUB_V(query_device_ex);
	PUB_V(query_rt_values); PUB_V(read_counters); PUB_V(reg_dm_mr);
	if (ops->create_flow)
		v->ibv_create_flow = ops->create_flow;
	if (ops->destroy_flow)
		v->ibv_destroy_flow = ops->destroy_flow;
}

/* What the core fills in a CQ the provider made (rdma-core's
 * verbs_init_cq): the fields ibv_get_cq_event/ack and destroy rely on. */
LV_EXPORT void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
			     struct ibv_comp_channel *channel,
			     void *cq_context);
LV_EXPORT void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
			     struct ibv_comp_channel *channel,
			     void *cq_context)
{
	cq->context = context;
	cq->channel = channel;
	if (channel) {
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	cq->cq_context = cq_context;
	cq->comp_events_completed = 0;
	cq->async_events_completed = 0;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
}

/* O_RDWR: providers mmap the cmd fd (rxe's queues, mlx5's UAR). */
static int open_cdev(const struct verbs_sysfs_dev *sd)
{
	char path[IBV_SYSFS_PATH_MAX];
	const char *dir = getenv("PODVERBS_KERN_CDEV_DIR");
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir :
		 "/dev/infiniband", sd->sysfs_name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* The node must be the device sysfs named (a renamed or stale
	 * node would talk to another device). */
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) ||
	    st.st_rdev != sd->sysfs_cdev) {
		close(fd);
		errno = ENODEV;
		return -1;
	}
	return fd;
}

LV_EXPORT struct ibv_context *verbs_open_device(struct ibv_device *device,
						void *private_data);
LV_EXPORT struct ibv_context *verbs_open_device(struct ibv_device *device,
						void *private_data)
{
	struct verbs_device *vdev = lv_vdev(device);
	struct verbs_context *v;
	int fd;

	if (!lv_kern_is_dev(device))
		return lv_null_errno(-EINVAL);
	pthread_once(&env_once, read_env);
	fd = open_cdev(vdev->sysfs);
	if (fd < 0)
		return NULL;
	/* fd is the provider's now: it closes it if alloc_context fails. */
	v = vdev->ops->alloc_context(device, fd, private_data);
	if (!v)
		return NULL;
	v->query_port = lv_kern_query_port_ex;
	v->create_cq_ex = lv_kern_create_cq_ex;
	if (v->context.async_fd == -1 &&
	    lv_cmd_alloc_async_fd(&v->context) != 0) {
		lv_kern_close(&v->context);
		return NULL;
	}
	return &v->context;
}

int lv_kern_close(struct ibv_context *c)
{
	const struct verbs_context_ops *ops = lv_kops(c);

	if (ops->free_context)
		ops->free_context(c);
	return 0;
}
