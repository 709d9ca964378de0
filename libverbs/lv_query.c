/* SPDX-License-Identifier: MIT */
/*
 * Device, port, GID and P_Key queries.  The GID table comes whole from the
 * provider on every query (one round trip), so it always reflects the
 * interface's current addresses.
 */
#include <stdlib.h>
#include <string.h>

#include "libverbs/lv_core.h"
#include "libverbs/lv_kern_verbs.h"

/* ibv_query_gid_type reports rdma-core's sysfs GID type values. */
enum {
	LV_GID_TYPE_SYSFS_IB_ROCE_V1 = 0,
	LV_GID_TYPE_SYSFS_ROCE_V2 = 1,
};

static int query_device_all(struct pv_context *ctx,
			    struct ibv_device_attr_ex *attr)
{
	memset(attr, 0, sizeof(*attr));
	return ctx->ops->query_device(ctx, attr);
}

LV_EXPORT int ibv_query_device(struct ibv_context *context,
			       struct ibv_device_attr *device_attr)
{
	if (context && lv_kern_priv(context))
		return lv_k_query_device(context, device_attr);
	struct ibv_device_attr_ex ex;
	int ret;

	if (!context || !device_attr)
		return lv_errno(-EINVAL);
	ret = query_device_all(pv_ctx(context), &ex);
	if (ret < 0)
		return lv_errno(ret);
	*device_attr = ex.orig_attr;
	return 0;
}

int lv_query_device_ex(struct ibv_context *c,
		       const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex ex;
	int ret;

	if (input && input->comp_mask)
		return lv_errno(-EINVAL);
	if (attr_size < sizeof(attr->orig_attr))
		return lv_errno(-EINVAL);
	ret = query_device_all(pv_ctx(c), &ex);
	if (ret < 0)
		return lv_errno(ret);
	/* An app built against a newer header may pass a larger struct:
	 * fields we don't know stay zero. */
	if (attr_size > sizeof(ex)) {
		memset((char *)attr + sizeof(ex), 0, attr_size - sizeof(ex));
		attr_size = sizeof(ex);
	}
	memcpy(attr, &ex, attr_size);
	return 0;
}

static int query_port_all(struct pv_context *ctx, uint8_t port,
			  struct ibv_port_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	return ctx->ops->query_port(ctx, port, attr);
}

int lv_query_port_ex(struct ibv_context *c, uint8_t port,
		     struct ibv_port_attr *attr, size_t attr_len)
{
	struct ibv_port_attr full;
	int ret;

	if (!attr)
		return lv_errno(-EINVAL);
	ret = query_port_all(pv_ctx(c), port, &full);
	if (ret < 0)
		return lv_errno(ret);
	if (attr_len > sizeof(full)) {
		memset((char *)attr + sizeof(full), 0, attr_len - sizeof(full));
		attr_len = sizeof(full);
	}
	memcpy(attr, &full, attr_len);
	return 0;
}

/* The exported symbol behind the ibv_query_port macro: old binaries and
 * the inline fallback call it with the classic struct, which has the same
 * layout as today's. */
#undef ibv_query_port
LV_EXPORT int ibv_query_port(struct ibv_context *context, uint8_t port_num,
			     struct _compat_ibv_port_attr *port_attr)
{
	if (context && lv_kern_priv(context))
		return lv_kern_query_port_ex(context, port_num,
			(struct ibv_port_attr *)port_attr,
			sizeof(struct ibv_port_attr));
	if (!context)
		return lv_errno(-EINVAL);
	return lv_query_port_ex(context, port_num,
				(struct ibv_port_attr *)port_attr,
				sizeof(struct ibv_port_attr));
}

/* Reads the port's GID table into entries (gid_tbl_len of them, unused
 * ones zero); returns the number of valid entries or -errno. */
static int gid_table(struct pv_context *ctx, uint8_t port,
		     struct ibv_gid_entry **ret_entries, int *ret_len)
{
	struct ibv_port_attr pattr;
	struct ibv_gid_entry *e;
	int ret, len;

	ret = query_port_all(ctx, port, &pattr);
	if (ret < 0)
		return ret;
	len = pattr.gid_tbl_len > 0 ? pattr.gid_tbl_len : 1;
	e = calloc(len, sizeof(*e));
	if (!e)
		return -ENOMEM;
	ret = ctx->ops->query_gid_table(ctx, port, e, len);
	if (ret < 0) {
		free(e);
		return ret;
	}
	for (int i = 0; i < len; i++) {
		e[i].gid_index = i;
		e[i].port_num = port;
	}
	*ret_entries = e;
	*ret_len = len;
	return ret > len ? len : ret;
}

/* One entry; -ENODATA for an empty slot inside the table, -EINVAL past it. */
static int gid_entry(struct pv_context *ctx, uint8_t port, uint32_t index,
		     struct ibv_gid_entry *out)
{
	struct ibv_gid_entry *e;
	int valid, len;

	valid = gid_table(ctx, port, &e, &len);
	if (valid < 0)
		return valid;
	if (index >= (uint32_t)len) {
		free(e);
		return -EINVAL;
	}
	*out = e[index];
	free(e);
	return index < (uint32_t)valid ? 0 : -ENODATA;
}

LV_EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port_num,
			    int index, union ibv_gid *gid)
{
	if (context && gid && lv_kern_priv(context))
		return lv_k_query_gid(context, port_num, index, gid);
	struct ibv_gid_entry e;
	int ret;

	if (!context || !gid || index < 0)
		return lv_minus1(-EINVAL);
	ret = gid_entry(pv_ctx(context), port_num, index, &e);
	if (ret == -ENODATA) {
		/* An empty slot reads as the zero GID, as sysfs shows it. */
		memset(gid, 0, sizeof(*gid));
		return 0;
	}
	if (ret < 0)
		return lv_minus1(ret);
	*gid = e.gid;
	return 0;
}

LV_EXPORT int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
				 unsigned int index, int *type)
{
	struct ibv_gid_entry e;
	int ret;

	if (!context || !type)
		return lv_minus1(-EINVAL);
	if (lv_kern_priv(context))
		ret = lv_k_gid_entry(context, port_num, index, &e);
	else
		ret = gid_entry(pv_ctx(context), port_num, index, &e);
	if (ret < 0)
		return lv_minus1(ret);
	*type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ?
		LV_GID_TYPE_SYSFS_ROCE_V2 : LV_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}

LV_EXPORT int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
				uint32_t gid_index, struct ibv_gid_entry *entry,
				uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	int ret;

	if (!context || !entry || flags || entry_size < sizeof(*entry) ||
	    port_num > UINT8_MAX)
		return lv_errno(-EINVAL);
	if (lv_kern_priv(context))
		ret = lv_k_gid_entry(context, (uint8_t)port_num, gid_index, &e);
	else
		ret = gid_entry(pv_ctx(context), port_num, gid_index, &e);
	if (ret < 0)
		return lv_errno(ret);
	memcpy(entry, &e, sizeof(e));
	return 0;
}

LV_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context,
				       struct ibv_gid_entry *entries,
				       size_t max_entries, uint32_t flags,
				       size_t entry_size)
{
	struct ibv_device_attr dattr;
	size_t out = 0;
	int ret;

	if (!context || flags || entry_size < sizeof(*entries))
		return -EINVAL;
	if (lv_kern_priv(context))
		return lv_k_query_gid_table(context, entries, max_entries,
					    entry_size);
	ret = ibv_query_device(context, &dattr);
	if (ret)
		return -ret;
	for (int port = 1; port <= dattr.phys_port_cnt; port++) {
		struct ibv_gid_entry *e;
		int valid, len;

		valid = gid_table(pv_ctx(context), port, &e, &len);
		if (valid < 0)
			return valid;
		for (int i = 0; i < valid; i++, out++) {
			if (out >= max_entries) {
				free(e);
				return -EINVAL;
			}
			memcpy((char *)entries + out * entry_size, &e[i],
			       sizeof(e[i]));
		}
		free(e);
	}
	return (ssize_t)out;
}

LV_EXPORT int ibv_query_pkey(struct ibv_context *context, uint8_t port_num,
			     int index, __be16 *pkey)
{
	if (context && pkey && lv_kern_priv(context))
		return lv_k_query_pkey(context, port_num, index, pkey);
	uint16_t k;
	int ret;

	if (!context || !pkey || index < 0)
		return lv_minus1(-EINVAL);
	ret = pv_ctx(context)->ops->query_pkey(pv_ctx(context), port_num,
					       index, &k);
	if (ret < 0)
		return lv_minus1(ret);
	*pkey = htobe16(k);
	return 0;
}

LV_EXPORT int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num,
				 __be16 pkey)
{
	struct ibv_port_attr pattr;
	int ret;

	if (!context)
		return lv_minus1(-EINVAL);
	ret = query_port_all(pv_ctx(context), port_num, &pattr);
	if (ret < 0)
		return lv_minus1(ret);
	for (int i = 0; i < pattr.pkey_tbl_len; i++) {
		__be16 k;

		if (ibv_query_pkey(context, port_num, i, &k) == 0 && k == pkey)
			return i;
	}
	return lv_minus1(-ENOENT);
}
