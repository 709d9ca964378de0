/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_netlink.h>

#include "cni-plugin/cni_rdmanl.h"

int cni_rdmanl_recv_status(int nl_ret, int kerr)
{
	if (nl_ret >= 0)
		return 0;
	return kerr < 0 ? kerr : -EIO;
}

uint16_t cni_rdmanl_type(int cmd)
{
	return (uint16_t)RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
}

struct nl_msg *cni_rdmanl_sys_get(void)
{
	return nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_SYS_GET),
				  NLM_F_REQUEST);
}

struct nl_msg *cni_rdmanl_dev_dump(void)
{
	return nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_GET),
				  NLM_F_REQUEST | NLM_F_DUMP);
}

struct nl_msg *cni_rdmanl_dev_set_netns(uint32_t index, uint32_t ns_fd)
{
	struct nl_msg *msg = nlmsg_alloc_simple(
		cni_rdmanl_type(RDMA_NLDEV_CMD_SET),
		NLM_F_REQUEST | NLM_F_ACK);

	if (!msg)
		return NULL;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, index) < 0 ||
	    nla_put_u32(msg, RDMA_NLDEV_NET_NS_FD, ns_fd) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Only the attributes we read; the kernel sends many more. */
static struct nla_policy policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING },
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = { .type = NLA_U8 },
	/* The kernel puts a u32 (nldev_policy), though the uapi comment
	 * says u64. */
	[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID] = { .type = NLA_U32 },
};

static int parse(struct nlmsghdr *nlh, int cmd, struct nlattr **tb)
{
	if (nlh->nlmsg_type != cni_rdmanl_type(cmd))
		return -EBADMSG;
	if (nlmsg_parse(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1, policy) < 0)
		return -EBADMSG;
	return 0;
}

int cni_rdmanl_parse_sys(struct nlmsghdr *nlh, int *ret_mode)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };

	if (parse(nlh, RDMA_NLDEV_CMD_SYS_GET, tb) < 0 ||
	    !tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE])
		return -EBADMSG;
	*ret_mode = nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]) ?
		CNI_RDMA_NETNS_SHARED : CNI_RDMA_NETNS_EXCLUSIVE;
	return 0;
}

int cni_rdmanl_parse_dev(struct nlmsghdr *nlh, struct cni_rdma_dev *ret_dev)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };

	if (parse(nlh, RDMA_NLDEV_CMD_GET, tb) < 0 ||
	    !tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return -EBADMSG;
	ret_dev->index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	if (nla_strlcpy(ret_dev->name, tb[RDMA_NLDEV_ATTR_DEV_NAME],
			sizeof(ret_dev->name)) >= sizeof(ret_dev->name))
		return -ENAMETOOLONG;
	return 0;
}

struct nl_msg *cni_rdmanl_uverbs_get(uint32_t index)
{
	struct nl_msg *msg = nlmsg_alloc_simple(
		cni_rdmanl_type(RDMA_NLDEV_CMD_GET_CHARDEV), NLM_F_REQUEST);

	if (!msg)
		return NULL;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, index) < 0 ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs") < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int cni_rdmanl_parse_uverbs(struct nlmsghdr *nlh, uint32_t *ret_driver_id)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };

	if (parse(nlh, RDMA_NLDEV_CMD_GET_CHARDEV, tb) < 0 ||
	    !tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID])
		return -EBADMSG;
	*ret_driver_id = nla_get_u32(tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID]);
	return 0;
}

/* enum rdma_driver_id (rdma/ib_user_ioctl_verbs.h), named as rdma-core's
 * providers are. */
static const char *const driver_names[] = {
	[RDMA_DRIVER_MLX5] = "mlx5",	[RDMA_DRIVER_MLX4] = "mlx4",
	[RDMA_DRIVER_CXGB3] = "cxgb3",	[RDMA_DRIVER_CXGB4] = "cxgb4",
	[RDMA_DRIVER_MTHCA] = "mthca",	[RDMA_DRIVER_BNXT_RE] = "bnxt_re",
	[RDMA_DRIVER_OCRDMA] = "ocrdma", [RDMA_DRIVER_NES] = "nes",
	[RDMA_DRIVER_IRDMA] = "irdma",	[RDMA_DRIVER_VMW_PVRDMA] = "vmw_pvrdma",
	[RDMA_DRIVER_QEDR] = "qedr",	[RDMA_DRIVER_HNS] = "hns",
	[RDMA_DRIVER_USNIC] = "usnic",	[RDMA_DRIVER_RXE] = "rxe",
	[RDMA_DRIVER_HFI1] = "hfi1",	[RDMA_DRIVER_QIB] = "qib",
	[RDMA_DRIVER_EFA] = "efa",	[RDMA_DRIVER_SIW] = "siw",
	[RDMA_DRIVER_ERDMA] = "erdma",
};

const char *cni_rdmanl_driver_name(uint32_t driver_id)
{
	if (driver_id >= sizeof(driver_names) / sizeof(driver_names[0]))
		return NULL;
	return driver_names[driver_id];
}
