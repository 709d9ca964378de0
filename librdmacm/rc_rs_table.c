/* SPDX-License-Identifier: MIT */
/*
 * The rsocket table.  An rsocket's number must never be an ordinary fd
 * of the process too (rpoll and rselect take both in one set), so each
 * holds an eventfd open for as long as it lives and is known by that
 * number; the table maps numbers to rsockets.  As with fds, using an
 * rsocket in one thread while rclose'ing it in another is the caller's
 * bug.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "librdmacm/rc_rs.h"

#define RC_RS_TABLE_MAX (1 << 20)	/* the kernel's default fd ceiling */

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rc_rs **table;
static size_t table_len;

/* rdma-core's defaults (rsocket(7)): 384-deep queues, 64 inline bytes,
 * 128 KiB buffers each way. */
static void set_defaults(struct rc_rs *rs)
{
	rs->sq_size = 384;
	rs->rq_size = 384;
	rs->sq_inline = 64;
	rs->sbuf_size = 1 << 17;
	rs->rbuf_size = 1 << 17;
	rs->linger_off = 0;
	rs->keepidle = 7200;
}

static int table_put(struct rc_rs *rs)
{
	size_t fd = (size_t)rs->fd;

	if (fd >= RC_RS_TABLE_MAX)
		return -EMFILE;
	pthread_mutex_lock(&table_lock);
	if (fd >= table_len) {
		size_t n = table_len ? table_len : 64;
		struct rc_rs **t;

		while (n <= fd)
			n *= 2;
		t = realloc(table, n * sizeof(*t));
		if (!t) {
			pthread_mutex_unlock(&table_lock);
			return -ENOMEM;
		}
		memset(t + table_len, 0, (n - table_len) * sizeof(*t));
		table = t;
		table_len = n;
	}
	table[fd] = rs;
	pthread_mutex_unlock(&table_lock);
	return 0;
}

int rc_rs_new(int domain, struct rc_rs **out)
{
	struct rc_rs *rs = calloc(1, sizeof(*rs));
	int ret;

	if (!rs)
		return -ENOMEM;
	rs->fd = eventfd(0, EFD_CLOEXEC);
	if (rs->fd < 0) {
		ret = -errno;
		free(rs);
		return ret;
	}
	rs->domain = domain;
	pthread_mutex_init(&rs->lock, NULL);
	set_defaults(rs);
	rs->reqs_tail = &rs->reqs;
	ret = table_put(rs);
	if (ret < 0) {
		close(rs->fd);
		pthread_mutex_destroy(&rs->lock);
		free(rs);
		return ret;
	}
	*out = rs;
	return 0;
}

int rc_rs_new_child(const struct rc_rs *parent, struct rc_rs **out)
{
	struct rc_rs *rs;
	int ret = rc_rs_new(parent->domain, &rs);

	if (ret < 0)
		return ret;
	rs->sbuf_size = parent->sbuf_size;
	rs->rbuf_size = parent->rbuf_size;
	rs->sq_size = parent->sq_size;
	rs->rq_size = parent->rq_size;
	rs->sq_inline = parent->sq_inline;
	rs->nodelay = parent->nodelay;
	rs->keepalive = parent->keepalive;
	rs->keepidle = parent->keepidle;
	rs->fl_flags = parent->fl_flags;
	rs->iomap_size = parent->iomap_size;
	*out = rs;
	return 0;
}

struct rc_rs *rc_rs_get(int fd)
{
	struct rc_rs *rs = NULL;

	if (fd < 0)
		return NULL;
	pthread_mutex_lock(&table_lock);
	if ((size_t)fd < table_len)
		rs = table[fd];
	pthread_mutex_unlock(&table_lock);
	return rs;
}

void rc_rs_free(struct rc_rs *rs)
{
	if (!rs)
		return;
	pthread_mutex_lock(&table_lock);
	if ((size_t)rs->fd < table_len && table[rs->fd] == rs)
		table[rs->fd] = NULL;
	pthread_mutex_unlock(&table_lock);
	close(rs->fd);
	pthread_mutex_destroy(&rs->lock);
	free(rs);
}
