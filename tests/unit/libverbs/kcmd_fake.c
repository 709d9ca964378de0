/* SPDX-License-Identifier: MIT */
/* The fake uverbs cmd fd (kcmd_fake.h). */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/unit/libverbs/kcmd_fake.h"

struct kf kf;

static struct verbs_context vctx;
static struct lv_kern_priv priv;

void kf_reset(void)
{
	memset(&kf, 0, sizeof(kf));
	memset(&priv, 0, sizeof(priv));
	memset(&vctx, 0, sizeof(vctx));
	priv.driver_id = RDMA_DRIVER_RXE;
	vctx.priv = (void *)&priv;
	vctx.sz = sizeof(vctx);
	vctx.context.cmd_fd = KF_FD;
	vctx.context.async_fd = -1;
}

struct ibv_context *kf_ctx(void)
{
	return &vctx.context;
}

void kf_out(uint16_t id, uint16_t len, uint64_t value)
{
	if (kf.nouts < KF_MAX_OUTS)
		kf.outs[kf.nouts++] = (struct kf_out){ id, len, value };
}

const struct ib_uverbs_attr *kf_attr(uint16_t id)
{
	for (unsigned int i = 0; i < kf.ihdr.num_attrs && i < 32; i++)
		if (kf.iattrs[i].attr_id == id)
			return &kf.iattrs[i];
	return NULL;
}

uint16_t kf_w16(size_t off)
{
	uint16_t v;

	memcpy(&v, kf.wbuf + off, sizeof(v));
	return v;
}

uint32_t kf_w32(size_t off)
{
	uint32_t v;

	memcpy(&v, kf.wbuf + off, sizeof(v));
	return v;
}

uint64_t kf_w64(size_t off)
{
	uint64_t v;

	memcpy(&v, kf.wbuf + off, sizeof(v));
	return v;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	uint64_t resp;

	if (fd != KF_FD)
		return syscall(SYS_write, fd, buf, n);
	kf.writes++;
	kf.wlen = n;
	memcpy(kf.wbuf, buf, n < sizeof(kf.wbuf) ? n : sizeof(kf.wbuf));
	if (kf.werr) {
		errno = kf.werr;
		return -1;
	}
	if (kf.wresp && n >= 16) {
		memcpy(&resp, (const char *)buf + 8, sizeof(resp));
		memcpy((void *)(uintptr_t)resp, kf.wresp, kf.wresp_len);
	}
	return (ssize_t)n;
}

static void answer(struct ib_uverbs_attr *a, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		for (int j = 0; j < kf.nouts; j++) {
			if (a[i].attr_id != kf.outs[j].id)
				continue;
			if (!kf.outs[j].len)
				a[i].data = kf.outs[j].value;
			else
				memcpy((void *)(uintptr_t)a[i].data,
				       &kf.outs[j].value, kf.outs[j].len);
		}
}

int ioctl(int fd, unsigned long req, ...)
{
	struct ib_uverbs_ioctl_hdr *h;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != KF_FD)
		return (int)syscall(SYS_ioctl, fd, req, arg);
	if (req != RDMA_VERBS_IOCTL) {
		errno = ENOTTY;
		return -1;
	}
	h = arg;
	kf.ioctls++;
	kf.ihdr = *h;
	memcpy(kf.iattrs, h->attrs,
	       (h->num_attrs < 32 ? h->num_attrs : 32) * sizeof(*h->attrs));
	if (kf.ierr) {
		errno = kf.ierr;
		return -1;
	}
	answer(h->attrs, h->num_attrs);
	return 0;
}
