/* SPDX-License-Identifier: MIT */
/*
 * Kernel RDMA device discovery from sysfs under a configurable root (tests
 * point it at fixture trees copying real hardware's layout), and a libudev
 * monitor that tells the daemon when to look again.
 *
 * Layout read (all relative to the root):
 *   class/infiniband/<ibdev>/device -> the PCI function folder with
 *       vendor, device, numa_node, driver -> .../drivers/<name>, net/<if>/
 *   class/infiniband/<ibdev>/ports/<n>/{state,link_layer}
 *   class/infiniband_verbs/uverbs<N>/ibdev, class/infiniband_mad/umad<N>/ibdev
 *   virtual devices (rxe; no "device" link): class/infiniband/<ibdev>/parent
 *       or ports/1/gid_attrs/ndevs/0 name the netdev; NUMA from
 *       class/net/<if>/device/numa_node or the device above it
 */
#ifndef DP_DISCOVER_H
#define DP_DISCOVER_H

#include <stdbool.h>

#define DP_MAX_KDEVS 64

struct dp_kdev {
	char name[64];		/* RDMA device, e.g. mlx5_0 */
	char pci_addr[32];	/* 0000:3b:00.0, "" when not PCI */
	char vendor[8];		/* 4 lower-case hex digits */
	char device_id[8];
	char driver[32];
	char netdev[16];	/* first interface of the function */
	char link_layer[16];	/* port 1: "Ethernet" / "InfiniBand" */
	int numa;		/* -1 when unknown */
	int port_active;	/* 1 when any port is ACTIVE */
	int uverbs;		/* N of uverbsN, -1 none */
	int umad;		/* N of umadN (port 1), -1 none */
};

/* Scans sysfs_root; fills up to max devices sorted by name.  Returns the
 * count (>= 0; a missing class folder means none) or -errno. */
int dp_discover_scan(const char *sysfs_root, struct dp_kdev *out, int max);

/* libudev monitor on infiniband, infiniband_verbs and net events.
 * Returns an opaque handle (NULL when udev is unavailable) and its fd. */
struct dp_udev;
struct dp_udev *dp_udev_open(int *ret_fd);
/* Drains pending events; returns how many concerned RDMA or net. */
int dp_udev_drain(struct dp_udev *u);
void dp_udev_close(struct dp_udev *u);

#endif /* DP_DISCOVER_H */
