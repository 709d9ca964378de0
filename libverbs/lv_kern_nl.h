/* SPDX-License-Identifier: MIT */
/*
 * The RDMA netlink lookup of kernel devices, as rdma-core 44's libibverbs
 * does it before falling back to sysfs alone: each device's index, name,
 * uverbs char device and driver id (RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, the
 * only source of the driver of a device with no bound parent: rxe, siw).
 * lv_kern_nl.c is pure (requests and a bounded parser, unit-tested on
 * recorded kernel replies); lv_kern_nlio.c talks to the kernel.
 */
#ifndef LV_KERN_NL_H
#define LV_KERN_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LV_NL_NAME_MAX 64

enum {
	LV_NL_HAVE_INDEX = 1 << 0,
	LV_NL_HAVE_NAME = 1 << 1,
	LV_NL_HAVE_CHARDEV_NAME = 1 << 2,
	LV_NL_HAVE_CHARDEV = 1 << 3,
	LV_NL_HAVE_ABI = 1 << 4,
	LV_NL_HAVE_DRIVER_ID = 1 << 5,
};

/* One message of a reply. */
struct lv_kern_nl_info {
	uint16_t type;		/* nlmsg_type */
	uint32_t seq;
	bool multi;		/* NLM_F_MULTI: part of a dump */
	int error;		/* NLMSG_ERROR: the kernel's -errno, 0 = ack */
	unsigned int have;	/* LV_NL_HAVE_* of the fields below */
	uint32_t dev_index;
	char dev_name[LV_NL_NAME_MAX];
	char chardev_name[LV_NL_NAME_MAX];	/* "uverbs0" */
	uint64_t chardev;	/* the kernel's huge_encode_dev() */
	uint64_t abi;
	uint32_t driver_id;	/* enum rdma_driver_id */
};

/* Requests into buf (cap bytes): the message's length, or -ENOSPC. */
int lv_kern_nl_dump_req(uint8_t *buf, size_t cap, uint32_t seq);
int lv_kern_nl_chardev_req(uint8_t *buf, size_t cap, uint32_t seq,
			   uint32_t index);

/*
 * Parses the message at *off of buf[0..len) into ret and moves *off past
 * it: 1 for a message, 0 at the end of the buffer, -EBADMSG when a length
 * does not fit what is left (nothing after it is trusted).
 */
int lv_kern_nl_next(const uint8_t *buf, size_t len, size_t *off,
		    struct lv_kern_nl_info *ret);
/* Whether m is a reply of NLDEV command cmd. */
bool lv_kern_nl_is(const struct lv_kern_nl_info *m, int cmd);

/* A kernel device as netlink names it (lv_kern_nlio.c). */
struct lv_kern_nl_dev {
	uint32_t index;
	uint32_t driver_id;	/* RDMA_DRIVER_UNKNOWN when not told */
	char name[LV_NL_NAME_MAX];
	char uverbs[LV_NL_NAME_MAX];	/* "" when the device has none */
};

/* The entry of devs[0..n) with uverbs char device uverbs ("uverbs0") and
 * device name ibdev, or NULL (lv_kern_nl.c, pure). */
const struct lv_kern_nl_dev *lv_kern_nl_find(const struct lv_kern_nl_dev *devs,
					     int n, const char *uverbs,
					     const char *ibdev);

/* Every device the kernel lists to this network namespace, up to max:
 * the count, or -errno (no RDMA netlink: the caller falls back to sysfs). */
int lv_kern_nl_devices(struct lv_kern_nl_dev *devs, int max);

#endif /* LV_KERN_NL_H */
