/* SPDX-License-Identifier: MIT */
/*
 * Kernel RDMA devices for "mode": "kernel": read the RDMA subsystem's
 * namespace mode, find a device by name or PCI address, and move it
 * between namespaces, all over RDMA netlink.  The kernel moves a device
 * back to the initial namespace by itself when the pod's namespace dies.
 */
#ifndef CNI_KERNEL_H
#define CNI_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "cni-plugin/cni_err.h"
#include "cni-plugin/cni_rdmanl.h"

/* enum cni_rdma_netns_mode; code 102 when RDMA netlink is missing. */
int cni_kernel_netns_mode(int *ret_mode, struct cni_err *err);

/* The device named name, or the one on PCI function pci (name ""). */
int cni_kernel_find(const char *name, const char *pci,
		    struct cni_rdma_dev *ret_dev, struct cni_err *err);

/*
 * Moves device index into the namespace to_ns_fd.  from_ns_fd is the
 * namespace the device is in now (its netlink socket is made there), or
 * -1 for ours.
 */
int cni_kernel_move(uint32_t index, const char *name, int to_ns_fd,
		    int from_ns_fd, struct cni_err *err);

/*
 * The driver of device index/name, for messages: sysfs device/driver of
 * a PCI function, else the uverbs driver id over RDMA netlink (asked in
 * ns_fd, -1 for ours); "unknown" when neither answers.
 */
void cni_kernel_driver(uint32_t index, const char *name, int ns_fd,
		       char *buf, size_t cap);

#endif /* CNI_KERNEL_H */
