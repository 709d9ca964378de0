/* SPDX-License-Identifier: MIT */
/*
 * How the engine reaches application memory: only through the memfd
 * that MR_REG passes (the provider moved the pages onto it), mapped into
 * the engine once, at registration, and accessed with plain loads and
 * stores.  Every access is first checked byte-exact against the MR
 * (eng_dp_check.c); nothing of one client is ever mapped into another.
 *
 * An MR without a memfd is refused (EOPNOTSUPP).  Reaching memory by
 * pid (process_vm_readv/writev with the engine's root and
 * CAP_SYS_PTRACE) named a pid, not a process: after the registering
 * process exited and its pid was reused, or after it exec'd a setuid
 * program, the MR reached memory its client could never touch (issue 8,
 * finding 2); and a fault on a client's file mapping (FUSE, NFS,
 * userfaultfd) would have blocked the engine's only thread.  A memfd's
 * pages belong to the memfd, whatever happens to the process.
 *
 * A client could shrink a memfd under the engine's mapping, which would
 * fault the engine (SIGBUS).  So the engine seals the memfd against
 * shrinking (F_SEAL_SHRINK) before mapping it; a file that cannot be
 * sealed (not a memfd, or one created without MFD_ALLOW_SEALING) is
 * refused.  So is a range with holes: the engine's first write would
 * allocate those pages in the engine's memory cgroup, not the pod's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_mr_report.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"

struct eng_mr *eng_dp_mr_find(struct eng_dev *d, uint32_t key,
			      const struct eng_pd *pd, uint64_t va,
			      uint64_t len, uint32_t access)
{
	/* The lkey table only: an rkey is no local key (eng_mrkey.h). */
	struct eng_mr *mr = eng_mrkeys_by_lkey(&d->mrs, key);

	if (!mr || mr->pd != pd)
		return NULL;
	if ((mr->access & access) != access)
		return NULL;
	if (!eng_dp_range_ok(mr->iova, mr->length, va, len))
		return NULL;
	return mr;
}

void eng_dp_mr_seg(const struct eng_mr *mr, uint64_t va, uint32_t len,
		   struct eng_seg *out)
{
	out->len = len;
	out->ptr = mr->dp->base + (va - mr->iova);
}

int eng_dp_copy(const struct eng_seg *dst, uint32_t ndst,
		const struct eng_seg *src, uint32_t nsrc, uint32_t len)
{
	uint32_t di = 0, si = 0, doff = 0, soff = 0;

	while (len) {
		uint32_t n;

		while (di < ndst && doff == dst[di].len) {
			di++;
			doff = 0;
		}
		while (si < nsrc && soff == src[si].len) {
			si++;
			soff = 0;
		}
		if (di == ndst || si == nsrc)
			return -EOVERFLOW;	/* callers checked: a bug */
		n = dst[di].len - doff;
		if (src[si].len - soff < n)
			n = src[si].len - soff;
		if (len < n)
			n = len;
		/* Source and destination may be the same MR (loopback). */
		memmove(dst[di].ptr + doff, src[si].ptr + soff, n);
		doff += n;
		soff += n;
		len -= n;
	}
	return 0;
}

int eng_dp_atomic(const struct eng_seg *s, uint32_t wr_opcode,
		  uint64_t compare_add, uint64_t swap, uint64_t *orig)
{
	uint64_t v;

	if (((uintptr_t)s->ptr & 7) == 0) {
		uint64_t *p = (uint64_t *)(void *)s->ptr;

		if (wr_opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
			v = compare_add;
			__atomic_compare_exchange_n(p, &v, swap, false,
						    __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
			*orig = v;
		} else {
			*orig = __atomic_fetch_add(p, compare_add,
						   __ATOMIC_SEQ_CST);
		}
		return 0;
	}
	/* Atomic with respect to the device only (one engine thread), as
	 * IBV_ATOMIC_HCA promises. */
	memcpy(&v, s->ptr, 8);
	*orig = eng_dp_atomic_apply(wr_opcode, &v, compare_add, swap);
	memcpy(s->ptr, &v, 8);
	return 0;
}

/* Seals fd against shrinking; true if it is (now) sealed. */
static bool seal_shrink(int fd)
{
	int seals;

	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0)
		return true;
	seals = fcntl(fd, F_GET_SEALS);
	return seals >= 0 && (seals & F_SEAL_SHRINK);
}

/* The memfd's pages for [start, end) all exist: none is a hole the
 * engine's first touch would allocate (and charge to the engine's cgroup
 * rather than the pod's).  The provider populates what it shares.  end
 * is the MR's last byte + 1, not the rounded span: a file whose size is
 * not a page multiple ends in an implicit hole. */
static bool range_populated(int fd, uint64_t start, uint64_t end)
{
	off_t hole = lseek(fd, (off_t)start, SEEK_HOLE);

	return hole >= 0 && (uint64_t)hole >= end;
}

static int mr_map(const struct eng_req *r, struct eng_mr *mr, int fd,
		  uint64_t fd_offset, struct eng_dp_mr *dm)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t off = fd_offset & ~(page - 1);
	uint64_t span = fd_offset - off + mr->length;
	int prot = PROT_READ;
	struct stat st;
	void *p;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -EINVAL;
	if (fd_offset + mr->length < fd_offset ||
	    (uint64_t)st.st_size < fd_offset + mr->length)
		return -EINVAL;
	if (!seal_shrink(fd)) {
		eng_dbg("client %u: MR backing is not a sealable memfd: "
			"refused", r->c->id);
		eng_stat_inc(dp_mr_refused_no_memfd);
		return -EOPNOTSUPP;
	}
	span = (span + page - 1) & ~(page - 1);
	if (!range_populated(fd, off, fd_offset + mr->length)) {
		eng_dbg("client %u: MR backing has unpopulated pages: "
			"refused", r->c->id);
		eng_stat_inc(dp_mr_refused_unpopulated);
		return -EFAULT;
	}
	if (mr->access & IBV_ACCESS_LOCAL_WRITE)
		prot |= PROT_WRITE;
	p = mmap(NULL, span, prot, MAP_SHARED, fd, (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	dm->map = p;
	dm->map_len = span;
	dm->base = (uint8_t *)p + (fd_offset - off);
	return 0;
}

int eng_dp_mr_attach(struct eng_req *r, struct eng_mr *mr)
{
	const struct pv_ipc_mr_backing *b = NULL;

	if (r->in_len >= sizeof(struct pv_ipc_mr_reg) + sizeof(*b))
		b = (const void *)((const uint8_t *)r->in +
				   sizeof(struct pv_ipc_mr_reg));
	return eng_dp_mr_attach_backing(r, mr, b);
}

int eng_dp_mr_attach_backing(struct eng_req *r, struct eng_mr *mr,
			     const struct pv_ipc_mr_backing *b)
{
	struct eng_dp_mr *dm;
	int ret;

	if (!b || !b->has_fd) {
		eng_dbg("client %u: MR without a memfd refused (the engine "
			"reaches client memory only through one)", r->c->id);
		eng_stat_inc(dp_mr_refused_no_memfd);
		return -EOPNOTSUPP;
	}
	if (r->in_nfds != 1)
		return -EINVAL;
	/* One engine mapping and its bytes, charged to the client's
	 * device (eng_quota.h). */
	ret = eng_quota_take(r->c, ENG_QUOTA_MAPS, 1);
	if (ret < 0)
		return ret;
	ret = eng_quota_take(r->c, ENG_QUOTA_MR_BYTES, mr->length);
	if (ret < 0)
		goto err_put_map;
	dm = calloc(1, sizeof(*dm));
	ret = dm ? mr_map(r, mr, r->in_fds[0], b->fd_offset, dm) : -ENOMEM;
	if (ret < 0)
		goto err_free;
	mr->dp = dm;
	eng_stat_inc(dp_mr_mapped);
	eng_mr_report_reg(r->c, mr);
	return 0;

err_free:
	free(dm);
	eng_quota_put(r->c, ENG_QUOTA_MR_BYTES, mr->length);
err_put_map:
	eng_quota_put(r->c, ENG_QUOTA_MAPS, 1);
	return ret;
}

void eng_dp_mr_detach(struct eng_mr *mr)
{
	struct eng_dp_mr *dm = mr->dp;

	if (!dm)
		return;
	munmap(dm->map, dm->map_len);
	eng_mr_report_dereg(mr->o.conn, mr);
	eng_quota_put(mr->o.conn, ENG_QUOTA_MR_BYTES, mr->length);
	eng_quota_put(mr->o.conn, ENG_QUOTA_MAPS, 1);
	free(dm);
	mr->dp = NULL;
}
