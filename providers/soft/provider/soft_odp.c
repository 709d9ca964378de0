/* SPDX-License-Identifier: MIT */
/*
 * On-demand paging on a soft device, and ibv_advise_mr(3).
 *
 * The engine reaches an MR's memory only through the memfd the provider
 * shares (soft_mr_share.c), and never pins it: its pages are ordinary
 * shared memfd pages, charged to the pod, which the kernel may swap like
 * any other.  So an IBV_ACCESS_ON_DEMAND MR registers exactly as any MR
 * does (explicit ODP) and serves every operation.  Implicit ODP -- one MR
 * over the whole address space, ibv_reg_mr(pd, NULL, SIZE_MAX, ...) --
 * would need the engine to reach memory never shared with it: it is not
 * advertised (no IBV_ODP_SUPPORT_IMPLICIT) and fails with EINVAL, as the
 * kernel's mlx5 driver refuses it on a device without that capability.
 *
 * ibv_advise_mr checks its arguments as the kernel's uverbs and mlx5
 * driver do (drivers/infiniband/core/uverbs_std_types_mr.c,
 * drivers/infiniband/hw/mlx5/odp.c), in their order:
 *   - num_sge 0, or more SGEs than one ioctl attribute carries: EINVAL;
 *     sg_list NULL: EFAULT (the kernel's copy would fault);
 *   - a flag other than IBV_ADVISE_MR_FLAG_FLUSH: EINVAL;
 *   - an advice other than PREFETCH, PREFETCH_WRITE, PREFETCH_NO_FAULT:
 *     EOPNOTSUPP;
 *   - per SGE: an lkey that is no MR of this context, or an MR without
 *     ON_DEMAND: ENOENT; an MR of another PD: EPERM; PREFETCH_WRITE on
 *     an MR without a writing right: EPERM;
 *   - a range outside the MR: EFAULT with FLUSH; without it the advice
 *     is asynchronous in the kernel and such an SGE is silently dropped,
 *     and so it is here.
 * Then it does what a prefetch means here: MADV_POPULATE_READ (PREFETCH)
 * or MADV_POPULATE_WRITE (PREFETCH_WRITE) over the application's own
 * pages of each range, which are the shared memfd pages, so that the
 * engine's first access finds them resident.  PREFETCH_NO_FAULT maps
 * nothing (it only takes pages already present).  A kernel before 5.14
 * lacks MADV_POPULATE_* (EINVAL): the advice is then a no-op, quietly.
 * The work is synchronous either way; FLUSH only decides whether a
 * failure is reported (EFAULT) or dropped.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "providers/soft/provider/soft_provider.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* One ioctl attribute's length is 16 bits: rdma-core cannot marshal more
 * SGEs than this and fails the call with EINVAL before the kernel. */
#define SOFT_ADVISE_MAX_SGE (UINT16_MAX / sizeof(struct ibv_sge))

/* The rights that make an MR's pages writable (the kernel's
 * ib_access_writable()). */
#define SOFT_ACCESS_WRITABLE						\
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |		\
	 IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND)

bool soft_odp_implicit(const void *addr, size_t length, unsigned int access)
{
	return (access & IBV_ACCESS_ON_DEMAND) && !addr && length == SIZE_MAX;
}

/* What is true of an ODP MR on each transport is what is true of any MR
 * there (the engine treats them alike); listed are the operations the
 * integration tests run with ODP MRs (datapath_odp.sh) or with MRs on
 * that transport (UC: pingpong_uc.sh; XRC: datapath_xrc.sh). */
void soft_odp_caps(struct ibv_device_attr_ex *a)
{
	a->odp_caps.general_caps = IBV_ODP_SUPPORT;
	a->odp_caps.per_transport_caps.rc_odp_caps =
		IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
		IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
		IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;
	a->odp_caps.per_transport_caps.uc_odp_caps =
		IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;
	a->odp_caps.per_transport_caps.ud_odp_caps =
		IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;
	a->xrc_odp_caps = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_SRQ_RECV;
}

int soft_odp_check_args(uint32_t advice, uint32_t flags,
			const struct ibv_sge *sg_list, uint32_t num_sge)
{
	if (num_sge == 0 || num_sge > SOFT_ADVISE_MAX_SGE)
		return -EINVAL;
	if (!sg_list)
		return -EFAULT;
	if (flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH)
		return -EINVAL;
	if (advice != IBV_ADVISE_MR_ADVICE_PREFETCH &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return -EOPNOTSUPP;
	return 0;
}

/* [*ret_start, *ret_end): the application's addresses of the SGE's range
 * (the SGE names the MR's iova space). */
int soft_odp_check_sge(const struct soft_mr *m, uint32_t pd_handle,
		       uint32_t advice, const struct ibv_sge *sge,
		       uintptr_t *ret_start, uintptr_t *ret_end)
{
	uint64_t off;

	if (!(m->access & IBV_ACCESS_ON_DEMAND))
		return -ENOENT;
	if (m->pd_handle != pd_handle)
		return -EPERM;
	if (advice == IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    !(m->access & SOFT_ACCESS_WRITABLE))
		return -EPERM;
	if (sge->addr < m->iova)
		return -EFAULT;
	off = sge->addr - m->iova;
	if (off >= m->length || m->length - off < sge->length)
		return -EFAULT;
	*ret_start = m->addr + (uintptr_t)off;
	*ret_end = *ret_start + sge->length;
	return 0;
}

/* Populates the pages of [start, end); -errno, 0 where the kernel lacks
 * the advice. */
static int populate(uintptr_t start, uintptr_t end, int advice)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t s = start & ~(pg - 1);
	uintptr_t e = (end + pg - 1) & ~(pg - 1);

	if (e <= s)
		return 0;
	for (int tries = 0; tries < 8; tries++) {
		if (madvise((void *)s, e - s, advice) == 0)
			return 0;
		if (errno == EINVAL)
			return 0;
		if (errno != EINTR && errno != EAGAIN)
			return -errno;
	}
	return -EAGAIN;
}

static int advise_one(struct soft_mr_tab *t, uint32_t pd_handle,
		      uint32_t advice, bool flush, const struct ibv_sge *sge)
{
	uintptr_t start = 0, end = 0;
	struct soft_mr m;
	int ret;

	ret = soft_mr_tab_find(t, sge->lkey, &m);
	if (ret == 0)
		ret = soft_odp_check_sge(&m, pd_handle, advice, sge, &start,
					 &end);
	if (ret == -EFAULT && !flush)
		return 0;
	if (ret < 0 || advice == IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return ret;
	ret = populate(start, end,
		       advice == IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE ?
		       MADV_POPULATE_WRITE : MADV_POPULATE_READ);
	/* Unmapped or unreadable pages: the range is no longer the MR's. */
	if (ret == -ENOMEM || ret == -EFAULT)
		ret = -EFAULT;
	return flush ? ret : 0;
}

/* sge: the SGE refused, or -1 for the call's own arguments. */
static void advise_debug(int err, long sge)
{
	static const char *const why[] = {
		[EINVAL] = "num_sge 0 or over 4095, or a flag other than "
			   "FLUSH",
		[EOPNOTSUPP] = "advice is not PREFETCH, PREFETCH_WRITE or "
			       "PREFETCH_NO_FAULT",
		[ENOENT] = "lkey of no on-demand MR of this context",
		[EPERM] = "MR of another PD, or PREFETCH_WRITE on an MR "
			  "without a writing right",
		[EFAULT] = "range outside the MR, its pages unmapped, or "
			   "sg_list NULL",
	};
	const char *w = err > 0 && (size_t)err < sizeof(why) / sizeof(why[0]) &&
			why[err] ? why[err] : "";

	if (!getenv("PODVERBS_DEBUG"))
		return;
	if (sge < 0)
		fprintf(stderr, "podverbs: ibv_advise_mr: %s: %s\n",
			strerror(err), w);
	else
		fprintf(stderr, "podverbs: ibv_advise_mr: sge %ld: %s: %s\n",
			sge, strerror(err), w);
}

int soft_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	struct soft_ctx *sc = soft_ctx_of(pv_ctx(pd->context));
	uint32_t pd_handle = ((struct pv_pd *)pd)->handle;
	bool flush = flags & IBV_ADVISE_MR_FLAG_FLUSH;
	uint32_t i;
	int ret;

	ret = soft_odp_check_args((uint32_t)advice, flags, sg_list, num_sge);
	if (ret < 0) {
		advise_debug(-ret, -1);
		errno = -ret;
		return -ret;
	}
	for (i = 0; i < num_sge; i++) {
		ret = advise_one(sc->mrs, pd_handle, (uint32_t)advice, flush,
				 &sg_list[i]);
		if (ret < 0) {
			advise_debug(-ret, (long)i);
			errno = -ret;
			return -ret;
		}
	}
	return 0;
}
