/* SPDX-License-Identifier: MIT */
/*
 * RDMA netlink (NETLINK_RDMA, client RDMA_NL_NLDEV) messages for kernel
 * devices, built and parsed with libnl-3.  Pure: no sockets here (see
 * cni_kernel.c for the I/O), so unit tests check the bytes.
 *
 * The messages carry attributes right after the netlink header (no genl
 * header); the type is RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command).
 */
#ifndef CNI_RDMANL_H
#define CNI_RDMANL_H

#include <stdint.h>
#include <netlink/msg.h>

/* The RDMA subsystem's namespace mode (RDMA_NLDEV_SYS_ATTR_NETNS_MODE). */
enum cni_rdma_netns_mode {
	CNI_RDMA_NETNS_EXCLUSIVE = 0,
	CNI_RDMA_NETNS_SHARED = 1,
};

/* Requests; NULL when out of memory.  Free with nlmsg_free. */
struct nl_msg *cni_rdmanl_sys_get(void);
struct nl_msg *cni_rdmanl_dev_dump(void);
/* Moves device index into the namespace behind ns_fd. */
struct nl_msg *cni_rdmanl_dev_set_netns(uint32_t index, uint32_t ns_fd);

/*
 * What one nl_recvmsgs() round means: 0 go on, or the -errno to return.
 * When the kernel answered an error, libnl stops with its own code
 * (NL_STOP from the error callback turns e.g. EOPNOTSUPP into
 * -NLE_OPNOTSUPP), so kerr, the kernel's -errno the callback kept, wins
 * over a generic -EIO: the caller's message must carry the kernel's reason.
 */
int cni_rdmanl_recv_status(int nl_ret, int kerr);

/* The netlink type of a command of the NLDEV client. */
uint16_t cni_rdmanl_type(int cmd);

/* Parses a SYS_GET reply; -EBADMSG if the mode is missing. */
int cni_rdmanl_parse_sys(struct nlmsghdr *nlh, int *ret_mode);

/* One device of a GET/dump reply. */
struct cni_rdma_dev {
	uint32_t index;
	char name[64];
};
int cni_rdmanl_parse_dev(struct nlmsghdr *nlh, struct cni_rdma_dev *ret_dev);

/*
 * RDMA_NLDEV_CMD_GET_CHARDEV for the "uverbs" client of device index: the
 * reply carries the driver's id (enum rdma_driver_id), which names drivers
 * with no device/driver link in sysfs (rxe, siw are virtual devices).
 */
struct nl_msg *cni_rdmanl_uverbs_get(uint32_t index);
/* Parses its reply; -EBADMSG without RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID. */
int cni_rdmanl_parse_uverbs(struct nlmsghdr *nlh, uint32_t *ret_driver_id);
/* The short name of an rdma_driver_id ("rxe", "mlx5"); NULL if unknown. */
const char *cni_rdmanl_driver_name(uint32_t driver_id);

#endif /* CNI_RDMANL_H */
