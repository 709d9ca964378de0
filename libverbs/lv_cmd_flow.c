/* SPDX-License-Identifier: MIT */
/*
 * Steering flows, flow actions and flow counters (IBVERBS_PRIVATE_34), as
 * rdma-core 44's cmd.c, cmd_flow.c, cmd_flow_action.c and cmd_counters.c:
 * a flow is created over the extended write ABI from the app's
 * ibv_flow_spec list, each spec rewritten in the kernel's layout
 * (ib_user_verbs.h's ib_uverbs_flow_spec_*); its destroy goes by ioctl
 * with the write fallback; flow actions and counters exist on the ioctl
 * ABI only.  0 or a positive errno.
 */
#include <stdlib.h>
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern.h"
#include "libverbs/lv_cmd.h"
#include "libverbs/lv_cmd_attr.h"

LV_EXPORT int execute_ioctl(struct ibv_context *context,
			    struct ibv_command_buffer *cmd);

/* How one ibv_flow_spec kind becomes the kernel's.  Fixed kinds copy
 * `copy` bytes of value and mask from their offsets; sized kinds (min
 * set) take the filter size from the spec's own size: a filter longer
 * than the kernel's must mask nothing past it. */
struct spec_kind {
	uint32_t type;
	uint32_t ktype;			/* type sent (ipv4_ext goes as ipv4) */
	uint16_t ksize;			/* the kernel spec's size */
	uint16_t kmask;			/* its mask's offset (value at 8) */
	uint16_t val, mask;		/* offsets in the ibv spec */
	uint16_t copy;			/* fixed: bytes of value and of mask */
	uint16_t min;			/* sized: the kernel filter's bytes */
	bool inner;			/* may carry IBV_FLOW_SPEC_INNER */
};

#define KSPEC(t) sizeof(struct ib_uverbs_flow_spec_##t), \
	offsetof(struct ib_uverbs_flow_spec_##t, mask)
#define ISPEC(t) offsetof(struct ibv_flow_spec_##t, val), \
	offsetof(struct ibv_flow_spec_##t, mask)

/* The legacy IPv4 spec of rdma-core: source and destination only. */
#define KIPV4_SIZE (8 + 2 * 8)

static const struct spec_kind spec_kinds[] = {
	{ IBV_FLOW_SPEC_ETH, IBV_FLOW_SPEC_ETH, KSPEC(eth), ISPEC(eth),
	  sizeof(struct ibv_flow_eth_filter), 0, true },
	{ IBV_FLOW_SPEC_IPV4, IBV_FLOW_SPEC_IPV4, KIPV4_SIZE, 16, ISPEC(ipv4),
	  sizeof(struct ibv_flow_ipv4_filter), 0, true },
	{ IBV_FLOW_SPEC_IPV4_EXT, IBV_FLOW_SPEC_IPV4, KSPEC(ipv4),
	  ISPEC(ipv4_ext), 0, offsetof(struct ib_uverbs_flow_ipv4_filter, flags)
	  + 1, true },
	{ IBV_FLOW_SPEC_IPV6, IBV_FLOW_SPEC_IPV6, KSPEC(ipv6), ISPEC(ipv6), 0,
	  offsetof(struct ib_uverbs_flow_ipv6_filter, hop_limit) + 1, true },
	{ IBV_FLOW_SPEC_ESP, IBV_FLOW_SPEC_ESP, KSPEC(esp), ISPEC(esp),
	  sizeof(struct ib_uverbs_flow_spec_esp_filter), 0, true },
	{ IBV_FLOW_SPEC_TCP, IBV_FLOW_SPEC_TCP, KSPEC(tcp_udp), ISPEC(tcp_udp),
	  sizeof(struct ibv_flow_tcp_udp_filter), 0, true },
	{ IBV_FLOW_SPEC_UDP, IBV_FLOW_SPEC_UDP, KSPEC(tcp_udp), ISPEC(tcp_udp),
	  sizeof(struct ibv_flow_tcp_udp_filter), 0, true },
	{ IBV_FLOW_SPEC_GRE, IBV_FLOW_SPEC_GRE, KSPEC(gre), ISPEC(gre),
	  sizeof(struct ibv_flow_gre_filter), 0, false },
	{ IBV_FLOW_SPEC_MPLS, IBV_FLOW_SPEC_MPLS, KSPEC(mpls), ISPEC(mpls),
	  sizeof(struct ibv_flow_mpls_filter), 0, true },
	{ IBV_FLOW_SPEC_VXLAN_TUNNEL, IBV_FLOW_SPEC_VXLAN_TUNNEL,
	  KSPEC(tunnel), ISPEC(tunnel), 0,
	  offsetof(struct ib_uverbs_flow_tunnel_filter, tunnel_id) + 4, false },
};

/* The ibv spec's header (enum type, u16 size): 8 bytes. */
#define IB_HDR sizeof(((struct ibv_flow_spec *)0)->hdr)
/* The largest kernel spec (ipv6). */
#define KSPEC_MAX sizeof(struct ib_uverbs_flow_spec_ipv6)

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static int filter_spec(const struct spec_kind *k, const uint8_t *ib,
		       size_t ib_size, uint8_t *kern)
{
	size_t fs, n;

	if (k->min) {
		if (ib_size < IB_HDR)
			return EINVAL;
		fs = (ib_size - IB_HDR) / 2;
		if (fs < k->min)
			return EINVAL;
		if (!all_zero(ib + k->val + fs + k->min, fs - k->min))
			return EOPNOTSUPP;
		n = k->min;
		memcpy(kern + 8, ib + k->val, n);
		memcpy(kern + k->kmask, ib + k->val + fs, n);
		return 0;
	}
	if (ib_size < (size_t)k->mask + k->copy)
		return EINVAL;
	memcpy(kern + 8, ib + k->val, k->copy);
	memcpy(kern + k->kmask, ib + k->mask, k->copy);
	return 0;
}

/* The ibv spec's header; the app's specs are packed at 4-byte steps, so
 * every field is read by copy, never through the union's 8-byte type. */
static void spec_hdr(const uint8_t *spec, uint32_t *type, uint16_t *size)
{
	memcpy(type, spec + offsetof(struct ibv_flow_spec, hdr.type),
	       sizeof(*type));
	memcpy(size, spec + offsetof(struct ibv_flow_spec, hdr.size),
	       sizeof(*size));
}

/* The handle of the verbs object an action spec points at (the ibv
 * object is the first member of verbs_flow_action/verbs_counters). */
static int action_handle(const uint8_t *spec, size_t ib_size, size_t off,
			 size_t handle_off, uint32_t *handle)
{
	const void *obj;

	if (ib_size < off + sizeof(obj))
		return EINVAL;
	memcpy(&obj, spec + off, sizeof(obj));
	if (!obj)
		return EINVAL;
	memcpy(handle, (const uint8_t *)obj + handle_off, sizeof(*handle));
	return 0;
}

/* Pure: one ibv spec (ib_size bytes by its header) into kern (room for
 * KSPEC_MAX, zeroed); the kernel spec's size in *ksize. */
int lv_flow_spec_to_kern(const void *spec, size_t ib_size, void *kern,
			 size_t *ksize);
int lv_flow_spec_to_kern(const void *spec, size_t ib_size, void *kern,
			 size_t *ksize)
{
	struct ib_uverbs_flow_spec_hdr *h = kern;
	uint32_t type, base;
	uint16_t size;
	int ret;

	if (ib_size < IB_HDR)
		return EINVAL;
	spec_hdr(spec, &type, &size);
	base = type & ~(uint32_t)IBV_FLOW_SPEC_INNER;
	for (size_t i = 0; i < sizeof(spec_kinds) / sizeof(spec_kinds[0]);
	     i++) {
		const struct spec_kind *k = &spec_kinds[i];

		if (k->type != base || (base != type && !k->inner))
			continue;
		ret = filter_spec(k, spec, ib_size, kern);
		if (ret)
			return ret;
		h->type = k->ktype | (type & IBV_FLOW_SPEC_INNER);
		h->size = k->ksize;
		*ksize = k->ksize;
		return 0;
	}
	h->type = type;
	switch (type) {
	case IBV_FLOW_SPEC_ACTION_TAG: {
		struct ib_uverbs_flow_spec_action_tag *t = kern;
		size_t off = offsetof(struct ibv_flow_spec_action_tag, tag_id);

		if (ib_size < off + sizeof(t->tag_id))
			return EINVAL;
		memcpy(&t->tag_id, (const uint8_t *)spec + off,
		       sizeof(t->tag_id));
		*ksize = sizeof(*t);
		break;
	}
	case IBV_FLOW_SPEC_ACTION_DROP:
		*ksize = sizeof(struct ib_uverbs_flow_spec_action_drop);
		break;
	case IBV_FLOW_SPEC_ACTION_HANDLE: {
		struct ib_uverbs_flow_spec_action_handle *a = kern;

		ret = action_handle(spec, ib_size,
				    offsetof(struct ibv_flow_spec_action_handle,
					     action),
				    offsetof(struct verbs_flow_action, handle),
				    &a->handle);
		if (ret)
			return ret;
		*ksize = sizeof(*a);
		break;
	}
	case IBV_FLOW_SPEC_ACTION_COUNT: {
		struct ib_uverbs_flow_spec_action_count *a = kern;

		ret = action_handle(spec, ib_size,
				    offsetof(struct ibv_flow_spec_counter_action,
					     counters),
				    offsetof(struct verbs_counters, handle),
				    &a->handle);
		if (ret)
			return ret;
		*ksize = sizeof(*a);
		break;
	}
	default:
		return EINVAL;
	}
	h->size = (uint16_t)*ksize;
	return 0;
}

struct flow_req {
	struct lv_ex_hdr h;
	struct ib_uverbs_create_flow core;
};

LV_EXPORT int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
				  struct ibv_flow_attr *flow_attr, void *ucmd,
				  size_t ucmd_size);
LV_EXPORT int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
				  struct ibv_flow_attr *flow_attr, void *ucmd,
				  size_t ucmd_size)
{
	struct ib_uverbs_create_flow_resp resp;
	const uint8_t *ib = (const uint8_t *)(flow_attr + 1);
	size_t room = sizeof(struct flow_req) +
		      (size_t)flow_attr->num_of_specs * KSPEC_MAX;
	struct flow_req *req;
	uint8_t *kern;
	size_t core;
	int ret = 0;

	req = calloc(1, room + ucmd_size);
	if (!req) {
		errno = ENOMEM;
		return ENOMEM;
	}
	req->core.qp_handle = qp->handle;
	req->core.flow_attr.type = (uint32_t)flow_attr->type;
	req->core.flow_attr.priority = flow_attr->priority;
	req->core.flow_attr.num_of_specs = flow_attr->num_of_specs;
	req->core.flow_attr.port = flow_attr->port;
	req->core.flow_attr.flags = flow_attr->flags;
	kern = (uint8_t *)(req + 1);
	for (unsigned int i = 0; i < flow_attr->num_of_specs; i++) {
		size_t ksize = 0;
		uint32_t type;
		uint16_t size;

		spec_hdr(ib, &type, &size);
		ret = lv_flow_spec_to_kern(ib, size, kern, &ksize);
		if (ret)
			break;
		req->core.flow_attr.size += (uint16_t)ksize;
		kern += ksize;
		ib += size;
	}
	if (ret) {
		free(req);
		errno = ret;
		return ret;
	}
	core = (size_t)(kern - (uint8_t *)req);
	if (ucmd && ucmd_size)
		memcpy(kern, ucmd, ucmd_size);
	else
		ucmd_size = 0;
	ret = lv_cmd_write_ex_full(qp->context, IB_USER_VERBS_EX_CMD_CREATE_FLOW,
				   req, core, core + ucmd_size, &resp,
				   sizeof(resp), sizeof(resp));
	free(req);
	if (ret)
		return ret;
	flow_id->context = qp->context;
	flow_id->handle = resp.flow_handle;
	return 0;
}

LV_EXPORT int ibv_cmd_destroy_flow(struct ibv_flow *flow_id);
LV_EXPORT int ibv_cmd_destroy_flow(struct ibv_flow *flow_id)
{
	struct lv_cmdb c;
	int ret;

	lv_cmdb_init(&c, UVERBS_OBJECT_FLOW, UVERBS_METHOD_FLOW_DESTROY, 1,
		     NULL);
	lv_attr_in_obj(&c, UVERBS_ATTR_DESTROY_FLOW_HANDLE, flow_id->handle);
	if (lv_cmd_ioctl_fallback(flow_id->context, LV_KOP_BIT(destroy_flow),
				  &c, &ret) == LV_FB_WRITE) {
		struct ib_uverbs_destroy_flow core = {
			.flow_handle = flow_id->handle,
		};

		ret = lv_cmd_write_ex(flow_id->context,
				      IB_USER_VERBS_EX_CMD_DESTROY_FLOW, NULL, 0,
				      &core, sizeof(core), NULL, 0, 0);
	}
	return lv_cmd_destroy_ret(ret);
}

static void esp_attrs(struct lv_cmdb *c,
		      const struct ibv_flow_action_esp_attr *esp)
{
	struct ib_uverbs_attr *a;

	if (esp->comp_mask & IBV_FLOW_ACTION_ESP_MASK_ESN)
		lv_attr_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_ESN, &esp->esn,
			   sizeof(esp->esn));
	if (esp->keymat_ptr) {
		a = lv_attr_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT,
			       esp->keymat_ptr, esp->keymat_len);
		a->attr_data.enum_data.elem_id = (uint8_t)esp->keymat_proto;
	}
	if (esp->replay_ptr) {
		a = lv_attr_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY,
			       esp->replay_ptr, esp->replay_len);
		a->attr_data.enum_data.elem_id = (uint8_t)esp->replay_proto;
	}
	/* LP64: the encap's pointers already read as the kernel's u64s. */
	if (esp->esp_encap)
		lv_attr_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_ENCAP, esp->esp_encap,
			   sizeof(struct ib_uverbs_flow_action_esp_encap));
	if (esp->esp_attr)
		lv_attr_in(c, UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS, esp->esp_attr,
			   sizeof(struct ib_uverbs_flow_action_esp));
}

LV_EXPORT int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
				struct ibv_flow_action_esp_attr *attr,
				struct verbs_flow_action *flow_action,
				struct ibv_command_buffer *driver);
LV_EXPORT int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
				struct ibv_flow_action_esp_attr *attr,
				struct verbs_flow_action *flow_action,
				struct ibv_command_buffer *driver)
{
	struct ib_uverbs_attr *handle;
	struct lv_cmdb c;

	lv_cmdb_init(&c, UVERBS_OBJECT_FLOW_ACTION,
		     UVERBS_METHOD_FLOW_ACTION_ESP_CREATE, 6, driver);
	handle = lv_attr_out_obj(&c, UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE);
	esp_attrs(&c, attr);
	if (execute_ioctl(ctx, &c.b))
		return errno;
	flow_action->action.context = ctx;
	flow_action->type = LV_FLOW_ACTION_ESP;
	flow_action->handle = (uint32_t)handle->data;
	return 0;
}

LV_EXPORT int ibv_cmd_modify_flow_action_esp(
		struct verbs_flow_action *flow_action,
		struct ibv_flow_action_esp_attr *attr,
		struct ibv_command_buffer *driver);
LV_EXPORT int ibv_cmd_modify_flow_action_esp(
		struct verbs_flow_action *flow_action,
		struct ibv_flow_action_esp_attr *attr,
		struct ibv_command_buffer *driver)
{
	struct lv_cmdb c;

	lv_cmdb_init(&c, UVERBS_OBJECT_FLOW_ACTION,
		     UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY, 6, driver);
	lv_attr_in_obj(&c, UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE,
		       flow_action->handle);
	esp_attrs(&c, attr);
	return execute_ioctl(flow_action->action.context, &c.b);
}

LV_EXPORT int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action);
LV_EXPORT int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action)
{
	struct lv_cmdb c;

	lv_cmdb_init(&c, UVERBS_OBJECT_FLOW_ACTION,
		     UVERBS_METHOD_FLOW_ACTION_DESTROY, 1, NULL);
	lv_attr_in_obj(&c, UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE,
		       action->handle);
	return lv_cmd_destroy_ret(execute_ioctl(action->action.context, &c.b));
}

LV_EXPORT int ibv_cmd_create_counters(struct ibv_context *context,
				      struct ibv_counters_init_attr *init_attr,
				      struct verbs_counters *vcounters,
				      struct ibv_command_buffer *link);
LV_EXPORT int ibv_cmd_create_counters(struct ibv_context *context,
				      struct ibv_counters_init_attr *init_attr,
				      struct verbs_counters *vcounters,
				      struct ibv_command_buffer *link)
{
	struct ib_uverbs_attr *handle;
	struct lv_cmdb c;
	int ret;

	if (init_attr->comp_mask)
		return EOPNOTSUPP;
	lv_cmdb_init(&c, UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE,
		     1, link);
	handle = lv_attr_out_obj(&c, UVERBS_ATTR_CREATE_COUNTERS_HANDLE);
	ret = execute_ioctl(context, &c.b);
	if (ret)
		return ret;
	vcounters->counters.context = context;
	vcounters->handle = (uint32_t)handle->data;
	return 0;
}

LV_EXPORT int ibv_cmd_destroy_counters(struct verbs_counters *vcounters);
LV_EXPORT int ibv_cmd_destroy_counters(struct verbs_counters *vcounters)
{
	struct lv_cmdb c;

	lv_cmdb_init(&c, UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_DESTROY,
		     1, NULL);
	lv_attr_in_obj(&c, UVERBS_ATTR_DESTROY_COUNTERS_HANDLE,
		       vcounters->handle);
	return lv_cmd_destroy_ret(execute_ioctl(vcounters->counters.context,
						&c.b));
}

LV_EXPORT int ibv_cmd_read_counters(struct verbs_counters *vcounters,
				    uint64_t *counters_value,
				    uint32_t ncounters, uint32_t flags,
				    struct ibv_command_buffer *link);
LV_EXPORT int ibv_cmd_read_counters(struct verbs_counters *vcounters,
				    uint64_t *counters_value,
				    uint32_t ncounters, uint32_t flags,
				    struct ibv_command_buffer *link)
{
	struct lv_cmdb c;

	lv_cmdb_init(&c, UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ, 3,
		     link);
	lv_attr_in_obj(&c, UVERBS_ATTR_READ_COUNTERS_HANDLE, vcounters->handle);
	lv_attr_out(&c, UVERBS_ATTR_READ_COUNTERS_BUFF, counters_value,
		    (size_t)ncounters * sizeof(*counters_value));
	lv_attr_in_u32(&c, UVERBS_ATTR_READ_COUNTERS_FLAGS, flags);
	return execute_ioctl(vcounters->counters.context, &c.b);
}
