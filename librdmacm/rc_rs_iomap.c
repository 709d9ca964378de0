/* SPDX-License-Identifier: MIT */
/*
 * riomap, riounmap, riowrite: direct writes into a window of the peer's
 * memory, as rsocket(7) describes them.  riomap(PROT_WRITE) registers
 * the caller's buffer for remote writes and tells the peer (an
 * IOMAP_SGL message whose payload lands in entry `index` of the peer's
 * iomap area, sized by its RDMA_IOMAPSIZE); riowrite looks the offset
 * up among the windows the peer mapped for us (a copy of each entry,
 * taken and checked when its IOMAP_SGL message completed, bounded by its
 * own length: rc_rs_peermap.h) and RDMA-writes there, no message, no
 * credit.  Nothing tells the reader a riowrite landed: the applications
 * synchronise themselves (riostream polls a byte).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <rdma/rsocket.h>

#include "librdmacm/rc_core.h"
#include "librdmacm/rc_rs.h"

void rc_rs_maps_free(struct rc_rs *rs)
{
	struct rc_rs_map *m;

	while ((m = rs->maps) != NULL) {
		rs->maps = m->next;
		ibv_dereg_mr(m->mr);
		free(m);
	}
}

static bool index_used(const struct rc_rs *rs, uint32_t i)
{
	for (const struct rc_rs_map *m = rs->maps; m; m = m->next)
		if (m->index == i)
			return true;
	return false;
}

static bool can_write_msg(struct rc_rs *rs)
{
	return !rs->writable || (rs->sqe_avail &&
	       rs->sbuf_avail >= sizeof(struct rc_rs_iomap) &&
	       rs->rx.sseq_no != rs->rx.sseq_comp);
}

static off_t map(struct rc_rs *rs, void *buf, size_t len, off_t offset)
{
	struct rc_rs_iomap e;
	struct rc_rs_map *m;
	uint32_t i;
	int ret;

	if (rs->state != RC_RS_CONNECTED || !rs->writable)
		return -ENOTCONN;
	for (i = 0; i < rs->remote_iomap.length && index_used(rs, i); i++)
		;
	if (i >= rs->remote_iomap.length)
		return -ENOMEM;		/* the peer has no room for it */
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->mr = ibv_reg_mr(rs->id->pd, buf, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!m->mr) {
		ret = -errno;
		free(m);
		return ret;
	}
	m->buf = buf;
	m->len = len;
	m->offset = offset == -1 ? (uintptr_t)buf : (uint64_t)offset;
	m->index = i;
	ret = rc_rs_wait(rs, -1, can_write_msg);
	if (ret == 0 && !rs->writable)
		ret = -ECONNRESET;
	e = (struct rc_rs_iomap){ .offset = m->offset,
		.sge = { .addr = (uintptr_t)buf, .key = m->mr->rkey,
			 .length = (uint32_t)len } };
	if (ret == 0)
		ret = rc_rs_write_iomap(rs, &e, i);
	if (ret < 0) {
		ibv_dereg_mr(m->mr);
		free(m);
		return ret;
	}
	m->next = rs->maps;
	rs->maps = m;
	return (off_t)m->offset;
}

RC_EXPORT off_t riomap(int s, void *buf, size_t len, int prot, int flags,
		       off_t offset)
{
	struct rc_rs *rs = rc_rs_get(s);
	off_t ret;

	if (!rs)
		return rc_ret(-EBADF);
	if (rs->ds)
		return rc_ret(-EOPNOTSUPP);	/* streams only (rsocket(7)) */
	/* Only windows the peer writes into: PROT_WRITE, as rdma-core. */
	if (!buf || !len || len > RC_RS_MSG_DATA_MASK || prot != PROT_WRITE ||
	    flags || offset < -1)
		return rc_ret(-EINVAL);
	pthread_mutex_lock(&rs->lock);
	ret = map(rs, buf, len, offset);
	pthread_mutex_unlock(&rs->lock);
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

RC_EXPORT int riounmap(int s, void *buf, size_t len)
{
	struct rc_rs *rs = rc_rs_get(s);
	struct rc_rs_map **p;
	int ret = -EINVAL;

	if (!rs)
		return rc_ret(-EBADF);
	if (rs->ds)
		return rc_ret(-EOPNOTSUPP);
	pthread_mutex_lock(&rs->lock);
	for (p = &rs->maps; *p; p = &(*p)->next) {
		struct rc_rs_map *m = *p;

		if (m->buf != buf || m->len != len)
			continue;
		*p = m->next;
		ibv_dereg_mr(m->mr);
		free(m);
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&rs->lock);
	return rc_ret(ret);
}

static bool can_write_direct(struct rc_rs *rs)
{
	return !rs->writable ||
	       (rs->sqe_avail && rs->sbuf_avail >= RC_RS_SNDLOWAT);
}

static ssize_t iowrite(struct rc_rs *rs, const uint8_t *buf, size_t count,
		       uint64_t offset, int flags)
{
	uint32_t olen = RC_RS_OLAP_START;
	size_t left = count;
	int ret = 0;

	while (left) {
		uint64_t addr, room;
		uint32_t key, k;

		ret = rc_rs_wait(rs, (rs->fl_flags & O_NONBLOCK) ||
				 (flags & MSG_DONTWAIT) ? 0 : -1,
				 can_write_direct);
		if (ret < 0)
			break;
		if (!rs->writable) {
			ret = -ECONNRESET;
			break;
		}
		/* Only the copies taken as the peer's IOMAP_SGL messages
		 * completed (rc_rs_peermap.h), never the area itself. */
		ret = rc_rs_peermaps_find(&rs->peermaps, offset, &addr, &key,
					  &room);
		if (ret < 0)
			break;
		k = rc_rs_xfer_size(left, &olen, rs->sbuf_avail,
				    room > UINT32_MAX ? UINT32_MAX : (uint32_t)room);
		ret = rc_rs_write_direct(rs, buf, k, addr, key);
		if (ret < 0)
			break;
		buf += k;
		offset += k;
		left -= k;
	}
	return ret < 0 && left == count ? ret : (ssize_t)(count - left);
}

RC_EXPORT size_t riowrite(int s, const void *buf, size_t count, off_t offset,
			  int flags)
{
	struct rc_rs *rs = rc_rs_get(s);
	ssize_t ret;

	if (!rs) {
		errno = EBADF;
		return (size_t)-1;
	}
	if (rs->ds) {
		errno = EOPNOTSUPP;
		return (size_t)-1;
	}
	if ((!buf && count) || offset < 0) {
		errno = EINVAL;
		return (size_t)-1;
	}
	pthread_mutex_lock(&rs->lock);
	if (rs->state != RC_RS_CONNECTED && rs->state != RC_RS_CLOSED)
		ret = -ENOTCONN;
	else
		ret = iowrite(rs, buf, count, (uint64_t)offset, flags);
	pthread_mutex_unlock(&rs->lock);
	if (ret < 0) {
		errno = (int)-ret;
		return (size_t)-1;
	}
	return (size_t)ret;
}
