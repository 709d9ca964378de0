/* SPDX-License-Identifier: MIT */
/*
 * Pure parts of the RDMA netlink lookup of kernel devices (no I/O; the
 * socket is lv_kern_nlio.c): the two requests rdma-core 44's libibverbs
 * sends (RDMA_NLDEV_CMD_GET as a dump for every device's index and name,
 * then RDMA_NLDEV_CMD_GET_CHARDEV for the "uverbs" char device of one
 * index, whose reply names the driver: RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID)
 * and a bounded parser of what comes back.  RDMA netlink messages carry
 * their attributes right after the netlink header (no genetlink header);
 * the type is RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command).
 *
 * The kernel's bytes are input like any other: every length is checked
 * against what is left of the buffer before it is read.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <string.h>

#include "libverbs/lv_kern_nl.h"

#define NLA_HDR ((size_t)NLA_ALIGN(sizeof(struct nlattr)))

static uint16_t nldev_type(int cmd)
{
	return (uint16_t)RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
}

/* Appends one attribute at *off: -ENOSPC when buf cannot hold it. */
static int put_attr(uint8_t *buf, size_t cap, size_t *off, uint16_t type,
		    const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDR + len),
			    .nla_type = type };
	size_t total = NLA_ALIGN(NLA_HDR + len);

	if (NLA_HDR + len > UINT16_MAX || *off > cap || cap - *off < total)
		return -ENOSPC;
	memset(buf + *off, 0, total);
	memcpy(buf + *off, &a, sizeof(a));
	memcpy(buf + *off + NLA_HDR, data, len);
	*off += total;
	return 0;
}

static int put_header(uint8_t *buf, size_t cap, uint16_t type, uint16_t flags,
		      uint32_t seq)
{
	struct nlmsghdr h = { .nlmsg_type = type,
			      .nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags),
			      .nlmsg_seq = seq };

	if (cap < NLMSG_HDRLEN)
		return -ENOSPC;
	memset(buf, 0, NLMSG_HDRLEN);
	memcpy(buf, &h, sizeof(h));
	return NLMSG_HDRLEN;
}

static void set_len(uint8_t *buf, size_t len)
{
	uint32_t l = (uint32_t)len;

	memcpy(buf + offsetof(struct nlmsghdr, nlmsg_len), &l, sizeof(l));
}

int lv_kern_nl_dump_req(uint8_t *buf, size_t cap, uint32_t seq)
{
	int n = put_header(buf, cap, nldev_type(RDMA_NLDEV_CMD_GET),
			   NLM_F_DUMP, seq);

	if (n > 0)
		set_len(buf, (size_t)n);
	return n;
}

int lv_kern_nl_chardev_req(uint8_t *buf, size_t cap, uint32_t seq,
			   uint32_t index)
{
	static const char type[] = "uverbs";
	int n = put_header(buf, cap, nldev_type(RDMA_NLDEV_CMD_GET_CHARDEV),
			   0, seq);
	size_t off;

	if (n < 0)
		return n;
	off = (size_t)n;
	if (put_attr(buf, cap, &off, RDMA_NLDEV_ATTR_DEV_INDEX, &index,
		     sizeof(index)) < 0 ||
	    put_attr(buf, cap, &off, RDMA_NLDEV_ATTR_CHARDEV_TYPE, type,
		     sizeof(type)) < 0)
		return -ENOSPC;
	set_len(buf, off);
	return (int)off;
}

/* A NUL-terminated string attribute that fits dst (with its NUL). */
static int get_str(char *dst, size_t cap, const uint8_t *p, size_t len)
{
	size_t n = strnlen((const char *)p, len);

	if (n == len || n >= cap)
		return -EBADMSG;
	memcpy(dst, p, n + 1);
	return 0;
}

/* An integer attribute the kernel sends as u32 or u64. */
static int get_uint(uint64_t *dst, const uint8_t *p, size_t len)
{
	uint32_t v32;

	if (len == sizeof(uint64_t)) {
		memcpy(dst, p, sizeof(*dst));
		return 0;
	}
	if (len != sizeof(v32))
		return -EBADMSG;
	memcpy(&v32, p, sizeof(v32));
	*dst = v32;
	return 0;
}

static int take_attr(struct lv_kern_nl_info *m, uint16_t type,
		     const uint8_t *p, size_t len)
{
	uint64_t v;

	switch (type) {
	case RDMA_NLDEV_ATTR_DEV_INDEX:
		if (get_uint(&v, p, len) < 0 || v > UINT32_MAX)
			return -EBADMSG;
		m->dev_index = (uint32_t)v;
		m->have |= LV_NL_HAVE_INDEX;
		return 0;
	case RDMA_NLDEV_ATTR_DEV_NAME:
		m->have |= LV_NL_HAVE_NAME;
		return get_str(m->dev_name, sizeof(m->dev_name), p, len);
	case RDMA_NLDEV_ATTR_CHARDEV_NAME:
		m->have |= LV_NL_HAVE_CHARDEV_NAME;
		return get_str(m->chardev_name, sizeof(m->chardev_name), p, len);
	case RDMA_NLDEV_ATTR_CHARDEV:
		m->have |= LV_NL_HAVE_CHARDEV;
		return get_uint(&m->chardev, p, len);
	case RDMA_NLDEV_ATTR_CHARDEV_ABI:
		m->have |= LV_NL_HAVE_ABI;
		return get_uint(&m->abi, p, len);
	case RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID:
		if (get_uint(&v, p, len) < 0 || v > UINT32_MAX)
			return -EBADMSG;
		m->driver_id = (uint32_t)v;
		m->have |= LV_NL_HAVE_DRIVER_ID;
		return 0;
	default:
		return 0;	/* newer kernels add attributes: skip */
	}
}

static int parse_attrs(struct lv_kern_nl_info *m, const uint8_t *p,
		       size_t len)
{
	while (len >= NLA_HDR) {
		struct nlattr a;
		size_t step;
		int ret;

		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDR || a.nla_len > len)
			return -EBADMSG;
		ret = take_attr(m, a.nla_type & NLA_TYPE_MASK, p + NLA_HDR,
				a.nla_len - NLA_HDR);
		if (ret < 0)
			return ret;
		step = NLA_ALIGN(a.nla_len);
		if (step >= len)
			return 0;
		p += step;
		len -= step;
	}
	return len ? -EBADMSG : 0;
}

int lv_kern_nl_next(const uint8_t *buf, size_t len, size_t *off,
		    struct lv_kern_nl_info *ret)
{
	struct nlmsghdr h;
	size_t left;

	memset(ret, 0, sizeof(*ret));
	if (*off >= len)
		return 0;
	left = len - *off;
	if (left < NLMSG_HDRLEN)
		return -EBADMSG;
	memcpy(&h, buf + *off, sizeof(h));
	if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > left)
		return -EBADMSG;
	ret->type = h.nlmsg_type;
	ret->seq = h.nlmsg_seq;
	ret->multi = (h.nlmsg_flags & NLM_F_MULTI) != 0;
	if (h.nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr e;

		if (h.nlmsg_len < NLMSG_HDRLEN + sizeof(e))
			return -EBADMSG;
		memcpy(&e, buf + *off + NLMSG_HDRLEN, sizeof(e));
		ret->error = e.error;
	} else if (h.nlmsg_type != NLMSG_DONE && h.nlmsg_type != NLMSG_NOOP) {
		int r = parse_attrs(ret, buf + *off + NLMSG_HDRLEN,
				    h.nlmsg_len - NLMSG_HDRLEN);

		if (r < 0)
			return r;
	}
	*off += NLMSG_ALIGN(h.nlmsg_len) < left ? NLMSG_ALIGN(h.nlmsg_len) : left;
	return 1;
}

bool lv_kern_nl_is(const struct lv_kern_nl_info *m, int cmd)
{
	return m->type == nldev_type(cmd);
}

const struct lv_kern_nl_dev *lv_kern_nl_find(const struct lv_kern_nl_dev *devs,
					     int n, const char *uverbs,
					     const char *ibdev)
{
	for (int i = 0; i < n; i++)
		if (strcmp(devs[i].uverbs, uverbs) == 0 &&
		    strcmp(devs[i].name, ibdev) == 0)
			return &devs[i];
	return NULL;
}
