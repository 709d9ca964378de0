/* SPDX-License-Identifier: MIT */
/*
 * Context-level entries of the provider ABI: ibv_cmd_query_context (an
 * ioctl-only method, UVERBS_METHOD_QUERY_CONTEXT on the device object:
 * the number of completion vectors and the core's support bits, with
 * the provider's own attributes linked after ours; mlx5 calls it when it
 * imports a context) and ibv_register_driver, the pre-rdma-core-13
 * registration entry that rdma-core keeps as a no-op for old binaries.
 */
#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"
#include "libverbs/lv_ioctl_fill.h"

LV_EXPORT int execute_ioctl(struct ibv_context *context,
			    struct ibv_command_buffer *cmd);
LV_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
					       struct ibv_command_buffer *link);

/* Our two attributes and what a provider may link after them. */
#define LV_QUERY_CTX_ATTRS 32

LV_EXPORT int ibv_cmd_query_context(struct ibv_context *c,
				    struct ibv_command_buffer *driver);
LV_EXPORT int ibv_cmd_query_context(struct ibv_context *c,
				    struct ibv_command_buffer *driver)
{
	LV_IOCTL_BUF(b, LV_QUERY_CTX_ATTRS);
	uint64_t core_support = 0;
	uint32_t vectors = 0;
	int ret;

	if (__ioctl_final_num_attrs(2, driver) > LV_QUERY_CTX_ATTRS)
		return errno = EINVAL;
	lv_ioctl_init(&b.b, LV_QUERY_CTX_ATTRS, UVERBS_OBJECT_DEVICE,
		      UVERBS_METHOD_QUERY_CONTEXT, driver);
	lv_attr_ptr(&b.b, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, &vectors,
		    sizeof(vectors));
	lv_attr_ptr(&b.b, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, &core_support,
		    sizeof(core_support));
	ret = execute_ioctl(c, &b.b);
	if (ret)
		return ret;
	c->num_comp_vectors = (int)vectors;
	lv_vdev(c->device)->core_support = core_support;
	return 0;
}

typedef struct ibv_device *(*lv_legacy_driver_init)(const char *path,
						     int abi_version);

LV_EXPORT void ibv_register_driver(const char *name,
				   lv_legacy_driver_init init_func);
LV_EXPORT void ibv_register_driver(const char *name,
				   lv_legacy_driver_init init_func)
{
	/* Drivers register through verbs_register_driver_34 since
	 * rdma-core 13; old binaries call this only to silence a warning
	 * of the libibverbs they were built for. */
}
