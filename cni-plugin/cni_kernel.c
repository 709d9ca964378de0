/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/msg.h>

#include "cni-plugin/cni_kernel.h"
#include "netns/netns.h"

/* One request/reply exchange. */
struct xact {
	int (*on_msg)(struct nlmsghdr *nlh, void *arg);
	void *arg;
	int kerr;		/* -errno the kernel answered */
	int done;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct xact *x = arg;

	if (x->on_msg && x->on_msg(nlmsg_hdr(msg), x->arg) < 0)
		return NL_STOP;
	return NL_OK;
}

static int on_end(struct nl_msg *msg, void *arg)
{
	((struct xact *)arg)->done = 1;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct xact *x = arg;

	x->kerr = e->error;
	x->done = 1;
	return NL_STOP;
}

/* Opens a NETLINK_RDMA socket, inside ns_fd when it is >= 0. */
static struct nl_sock *rdma_sock(int ns_fd, int *ret_err)
{
	struct nl_sock *sk = nl_socket_alloc();
	int fd, ret;

	if (!sk) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	if (ns_fd < 0) {
		ret = nl_connect(sk, NETLINK_RDMA);
		ret = ret < 0 ? -EPROTONOSUPPORT : 0;
	} else {
		fd = netns_socket(ns_fd, AF_NETLINK, SOCK_RAW, NETLINK_RDMA);
		ret = fd < 0 ? fd : 0;
		if (fd >= 0 && nl_socket_set_fd(sk, NETLINK_RDMA, fd) < 0) {
			close(fd);
			ret = -EPROTONOSUPPORT;
		}
	}
	if (ret < 0) {
		nl_socket_free(sk);
		*ret_err = ret;
		return NULL;
	}
	return sk;
}

static int transact(struct nl_sock *sk, struct nl_msg *msg, struct xact *x)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	if (!cb || !msg) {
		ret = -ENOMEM;
		goto out_free;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, x);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_end, x);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_end, x);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, x);
	ret = nl_send_auto(sk, msg) < 0 ? -EIO : 0;
	while (ret == 0 && !x->done) {
		/* Two statements: kerr is set by the round's callbacks. */
		int nl_ret = nl_recvmsgs(sk, cb);

		ret = cni_rdmanl_recv_status(nl_ret, x->kerr);
	}
	if (ret == 0)
		ret = x->kerr;
out_free:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return ret;
}

static int no_rdma_netlink(struct cni_err *err, int ret)
{
	return cni_fail(err, CNI_ERR_KERNEL_DEVICE,
			"kernel RDMA netlink is not available (%s): this kernel has no RDMA core (ib_core) loaded, so there are no kernel RDMA devices to hand out",
			strerror(-ret));
}

static int sys_reply(struct nlmsghdr *nlh, void *arg)
{
	return cni_rdmanl_parse_sys(nlh, arg);
}

int cni_kernel_netns_mode(int *ret_mode, struct cni_err *err)
{
	struct xact x = { .on_msg = sys_reply, .arg = ret_mode };
	struct nl_sock *sk;
	int ret;

	*ret_mode = -1;
	sk = rdma_sock(-1, &ret);
	if (!sk)
		return no_rdma_netlink(err, ret);
	ret = transact(sk, cni_rdmanl_sys_get(), &x);
	nl_socket_free(sk);
	if (ret == 0 && *ret_mode < 0)
		ret = -EBADMSG;
	if (ret < 0)
		return cni_fail(err, CNI_ERR_KERNEL_DEVICE,
				"reading the RDMA netns mode over netlink failed: %s",
				strerror(-ret));
	return 0;
}

/* /sys/bus/pci/devices/<pci>/infiniband/<name>: the device of a function. */
static int name_of_pci(const char *pci, char *name, size_t cap)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int ret = -ENODEV;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/infiniband", pci);
	d = opendir(path);
	if (!d)
		return -ENODEV;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= cap)
			continue;
		strcpy(name, de->d_name);
		ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

struct find_arg {
	const char *name;
	struct cni_rdma_dev *dev;
	int found;
};

static int dev_reply(struct nlmsghdr *nlh, void *arg)
{
	struct find_arg *f = arg;
	struct cni_rdma_dev d;

	if (cni_rdmanl_parse_dev(nlh, &d) == 0 && !strcmp(d.name, f->name)) {
		*f->dev = d;
		f->found = 1;
	}
	return 0;
}

int cni_kernel_find(const char *name, const char *pci,
		    struct cni_rdma_dev *ret_dev, struct cni_err *err)
{
	char byname[sizeof(ret_dev->name)];
	struct find_arg f = { .name = name, .dev = ret_dev };
	struct xact x = { .on_msg = dev_reply, .arg = &f };
	struct nl_sock *sk;
	int ret;

	if (!name[0]) {
		if (!pci[0])
			return cni_fail(err, CNI_ERR_INVALID_CONFIG,
					"kernel mode needs \"device\" or a deviceID (PCI address)");
		if (name_of_pci(pci, byname, sizeof(byname)) < 0)
			return cni_fail(err, CNI_ERR_KERNEL_DEVICE,
					"PCI device %s has no RDMA device (no /sys/bus/pci/devices/%s/infiniband)",
					pci, pci);
		f.name = byname;
	}
	sk = rdma_sock(-1, &ret);
	if (!sk)
		return no_rdma_netlink(err, ret);
	ret = transact(sk, cni_rdmanl_dev_dump(), &x);
	nl_socket_free(sk);
	if (ret < 0)
		return cni_fail(err, CNI_ERR_KERNEL_DEVICE,
				"listing RDMA devices over netlink failed: %s",
				strerror(-ret));
	if (!f.found)
		return cni_fail(err, CNI_ERR_KERNEL_DEVICE,
				"RDMA device \"%s\" not found in the host namespace (already given to another pod?)",
				f.name);
	return 0;
}

/* "EOPNOTSUPP" for -EOPNOTSUPP: the kernel's own word for its answer. */
static const char *errname(int ret)
{
	const char *n = strerrorname_np(-ret);

	return n ? n : "?";
}

struct driver_arg {
	uint32_t id;
	int found;
};

static int uverbs_reply(struct nlmsghdr *nlh, void *arg)
{
	struct driver_arg *a = arg;

	if (cni_rdmanl_parse_uverbs(nlh, &a->id) == 0)
		a->found = 1;
	return 0;
}

void cni_kernel_driver(uint32_t index, const char *name, int ns_fd,
		       char *buf, size_t cap)
{
	struct driver_arg a = { 0 };
	struct xact x = { .on_msg = uverbs_reply, .arg = &a };
	char path[PATH_MAX], target[PATH_MAX];
	const char *known;
	struct nl_sock *sk;
	ssize_t n;
	int ret;

	/* A PCI function's driver (mlx5_core, bnxt_en), as the device
	 * plugin reports it. */
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/driver",
		 name);
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = 0;
		snprintf(buf, cap, "%s", strrchr(target, '/') ?
			 strrchr(target, '/') + 1 : target);
		return;
	}
	/* A virtual device (rxe, siw) has none: ask the kernel which
	 * driver serves its uverbs device. */
	snprintf(buf, cap, "unknown");
	sk = rdma_sock(ns_fd, &ret);
	if (!sk)
		return;
	ret = transact(sk, cni_rdmanl_uverbs_get(index), &x);
	nl_socket_free(sk);
	if (ret < 0 || !a.found)
		return;
	known = cni_rdmanl_driver_name(a.id);
	if (known)
		snprintf(buf, cap, "%s", known);
	else
		snprintf(buf, cap, "rdma_driver_id %u", a.id);
}

int cni_kernel_move(uint32_t index, const char *name, int to_ns_fd,
		    int from_ns_fd, struct cni_err *err)
{
	struct xact x = { 0 };
	char driver[64];
	struct nl_sock *sk;
	int ret;

	sk = rdma_sock(from_ns_fd, &ret);
	if (!sk)
		return no_rdma_netlink(err, ret);
	ret = transact(sk, cni_rdmanl_dev_set_netns(index, (uint32_t)to_ns_fd),
		       &x);
	nl_socket_free(sk);
	if (ret == 0)
		return 0;
	cni_kernel_driver(index, name, from_ns_fd, driver, sizeof(driver));
	/* ib_device_set_netns_put() answers EOPNOTSUPP for a driver without
	 * disassociate_ucontext (rxe, siw) or with per-port sysfs groups. */
	if (ret == -EOPNOTSUPP)
		return cni_fail(err, CNI_ERR_KERNEL_DEVICE,
				"RDMA device \"%s\" (driver %s) cannot be moved to another network namespace: the kernel refused with %s (%s): this driver does not support moving its devices between namespaces (it cannot disassociate user contexts)",
				name, driver, errname(ret), strerror(-ret));
	return cni_fail(err, CNI_ERR_KERNEL_DEVICE,
			"moving RDMA device \"%s\" (driver %s) to another network namespace failed: the kernel refused with %s (%s)",
			name, driver, errname(ret), strerror(-ret));
}
