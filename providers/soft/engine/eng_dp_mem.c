/* SPDX-License-Identifier: MIT */
/*
 * How the engine reaches application memory.  An MR registered with a
 * memfd backing (the provider moved the pages onto a memfd) is mapped
 * into the engine once, at registration, and accessed with plain loads
 * and stores; any other MR is reached with process_vm_readv/writev on
 * the registering process.  Every access is first checked byte-exact
 * against the MR (eng_dp_check.c); nothing of one client is ever mapped
 * into another.
 *
 * A client could shrink a memfd under the engine's mapping, which would
 * fault the engine (SIGBUS).  So the engine seals the memfd against
 * shrinking (F_SEAL_SHRINK) before mapping it; a memfd that cannot be
 * sealed (created without MFD_ALLOW_SEALING) is not mapped, and the MR
 * falls back to process_vm.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_ibv.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"

#define WR_ATOMIC_CMP_AND_SWP	5
#define BOUNCE_BYTES		(64 * 1024)

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
	uint64_t off = va - mr->iova;

	out->len = len;
	if (mr->dp && mr->dp->base) {
		out->ptr = mr->dp->base + off;
		out->pid = 0;
		out->va = 0;
	} else {
		out->ptr = NULL;
		out->pid = mr->o.conn->ident.pid;
		out->va = mr->addr + off;
	}
}

/* process_vm_* may move fewer bytes than asked; loop until done. */
static int pvm(pid_t pid, uint8_t *local, uint64_t remote, size_t n,
	       bool write)
{
	while (n) {
		struct iovec l = { .iov_base = local, .iov_len = n };
		struct iovec r = { .iov_base = (void *)(uintptr_t)remote,
				   .iov_len = n };
		ssize_t got = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
				    : process_vm_readv(pid, &l, 1, &r, 1, 0);

		if (got <= 0)
			return got < 0 ? -errno : -EFAULT;
		local += got;
		remote += (uint64_t)got;
		n -= (size_t)got;
	}
	return 0;
}

static int copy_chunk(const struct eng_seg *d, uint32_t doff,
		      const struct eng_seg *s, uint32_t soff, uint32_t n)
{
	static uint8_t bounce[BOUNCE_BYTES];
	int ret;

	if (d->ptr && s->ptr) {
		/* Source and destination may be the same MR (loopback). */
		memmove(d->ptr + doff, s->ptr + soff, n);
		return 0;
	}
	if (d->ptr)
		return pvm(s->pid, d->ptr + doff, s->va + soff, n, false);
	if (s->ptr)
		return pvm(d->pid, s->ptr + soff, d->va + doff, n, true);
	while (n) {
		uint32_t k = n < BOUNCE_BYTES ? n : BOUNCE_BYTES;

		ret = pvm(s->pid, bounce, s->va + soff, k, false);
		if (ret == 0)
			ret = pvm(d->pid, bounce, d->va + doff, k, true);
		if (ret < 0)
			return ret;
		soff += k;
		doff += k;
		n -= k;
	}
	return 0;
}

int eng_dp_copy(const struct eng_seg *dst, uint32_t ndst,
		const struct eng_seg *src, uint32_t nsrc, uint32_t len)
{
	uint32_t di = 0, si = 0, doff = 0, soff = 0;

	while (len) {
		uint32_t n;
		int ret;

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
		ret = copy_chunk(&dst[di], doff, &src[si], soff, n);
		if (ret < 0)
			return ret;
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
	int ret;

	if (s->ptr && ((uintptr_t)s->ptr & 7) == 0) {
		uint64_t *p = (uint64_t *)(void *)s->ptr;

		if (wr_opcode == WR_ATOMIC_CMP_AND_SWP) {
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
	if (s->ptr) {
		memcpy(&v, s->ptr, 8);
		*orig = eng_dp_atomic_apply(wr_opcode, &v, compare_add, swap);
		memcpy(s->ptr, &v, 8);
		return 0;
	}
	ret = pvm(s->pid, (uint8_t *)&v, s->va, 8, false);
	if (ret < 0)
		return ret;
	*orig = eng_dp_atomic_apply(wr_opcode, &v, compare_add, swap);
	return pvm(s->pid, (uint8_t *)&v, s->va, 8, true);
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

static int mr_map(struct eng_mr *mr, int fd, uint64_t fd_offset,
		  struct eng_dp_mr *dm)
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
		eng_dbg("MR backing memfd cannot be sealed: using "
			"process_vm for it");
		return 0;
	}
	span = (span + page - 1) & ~(page - 1);
	if (mr->access & ENG_ACCESS_LOCAL_WRITE)
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
	const struct pv_ipc_mr_backing *b;
	struct eng_dp_mr *dm;
	int ret;

	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return -ENOMEM;
	dm->pid = r->c->ident.pid;
	mr->dp = dm;
	if (r->in_len < sizeof(struct pv_ipc_mr_reg) + sizeof(*b)) {
		eng_stat_inc(dp_mr_pvm);
		return 0;
	}
	b = (const void *)((const uint8_t *)r->in +
			   sizeof(struct pv_ipc_mr_reg));
	if (!b->has_fd) {
		eng_stat_inc(dp_mr_pvm);
		return 0;
	}
	if (r->in_nfds != 1)
		return -EINVAL;
	ret = mr_map(mr, r->in_fds[0], b->fd_offset, dm);
	if (ret < 0)
		return ret;
	if (dm->base)
		eng_stat_inc(dp_mr_mapped);
	else
		eng_stat_inc(dp_mr_pvm);
	return 0;
}

void eng_dp_mr_detach(struct eng_mr *mr)
{
	struct eng_dp_mr *dm = mr->dp;

	if (!dm)
		return;
	if (dm->map)
		munmap(dm->map, dm->map_len);
	free(dm);
	mr->dp = NULL;
}
