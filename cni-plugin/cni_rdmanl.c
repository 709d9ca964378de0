/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>

#include "cni-plugin/cni_rdmanl.h"

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
