/* SPDX-License-Identifier: MIT */
/*
 * rpoll and rselect over rsockets and ordinary fds together.  Each round
 * asks every rsocket for its state (making progress on it) and polls the
 * ordinary fds without waiting; if nothing is ready it arms the
 * rsockets' CQs and sleeps in one poll(2) on the ordinary fds plus each
 * rsocket's completion and CM channels, then looks again.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

#include <rdma/rsocket.h>

#include "librdmacm/rc_core.h"
#include "librdmacm/rc_rs.h"

#define RC_RS_POLL_MAX 65536

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Fills revents of every entry; the count of ready ones. */
static int check(struct pollfd *fds, nfds_t n, struct rc_rs **rss)
{
	int ready = 0;

	for (nfds_t i = 0; i < n; i++) {
		fds[i].revents = 0;
		if (rss[i]) {
			pthread_mutex_lock(&rss[i]->lock);
			fds[i].revents = rc_rs_revents(rss[i], fds[i].events);
			pthread_mutex_unlock(&rss[i]->lock);
		} else if (fds[i].fd >= 0) {
			poll(&fds[i], 1, 0);
		}
		if (fds[i].revents)
			ready++;
	}
	return ready;
}

/* Sleeps until something of the set may have changed, up to ms. */
static int sleep_on(struct pollfd *fds, nfds_t n, struct rc_rs **rss,
		    int ms)
{
	struct pollfd *w = calloc(3 * n + 1, sizeof(*w));
	nfds_t k = 0;
	bool ready = false;

	if (!w)
		return -ENOMEM;
	for (nfds_t i = 0; i < n; i++) {
		int rfd[2], m;

		if (!rss[i]) {
			w[k++] = (struct pollfd){ .fd = fds[i].fd,
						  .events = fds[i].events };
			continue;
		}
		pthread_mutex_lock(&rss[i]->lock);
		if (!rc_rs_arm(rss[i]))
			ready = true;	/* armed now: look again first */
		m = rc_rs_wait_fds(rss[i], rfd);
		pthread_mutex_unlock(&rss[i]->lock);
		for (int j = 0; j < m; j++)
			w[k++] = (struct pollfd){ .fd = rfd[j], .events = POLLIN };
	}
	if (!ready)
		poll(w, k, ms);
	free(w);
	for (nfds_t i = 0; i < n; i++)
		if (rss[i]) {
			pthread_mutex_lock(&rss[i]->lock);
			rc_rs_after_wait(rss[i]);
			pthread_mutex_unlock(&rss[i]->lock);
		}
	return 0;
}

RC_EXPORT int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	long end = now_ms() + (timeout > 0 ? timeout : 0);
	struct rc_rs **rss;
	int ready;

	if (nfds > RC_RS_POLL_MAX || (nfds && !fds))
		return rc_ret(-EINVAL);
	rss = calloc(nfds + 1, sizeof(*rss));
	if (!rss)
		return rc_ret(-ENOMEM);
	for (nfds_t i = 0; i < nfds; i++)
		rss[i] = rc_rs_get(fds[i].fd);
	for (;;) {
		int ms = 1000;

		ready = check(fds, nfds, rss);
		if (ready || !timeout)
			break;
		if (timeout > 0) {
			long left = end - now_ms();

			if (left <= 0)
				break;
			if (left < ms)
				ms = (int)left;
		}
		if (sleep_on(fds, nfds, rss, ms) < 0) {
			ready = -ENOMEM;
			break;
		}
	}
	free(rss);
	return rc_ret(ready);
}

static struct pollfd *sets_to_poll(int nfds, fd_set *r, fd_set *w, fd_set *e,
				   nfds_t *out)
{
	struct pollfd *p = calloc((size_t)nfds + 1, sizeof(*p));
	nfds_t n = 0;

	if (!p)
		return NULL;
	for (int fd = 0; fd < nfds; fd++) {
		short ev = 0;

		if (r && FD_ISSET(fd, r))
			ev |= POLLIN;
		if (w && FD_ISSET(fd, w))
			ev |= POLLOUT;
		if (e && FD_ISSET(fd, e))
			ev |= POLLPRI;
		if (ev)
			p[n++] = (struct pollfd){ .fd = fd, .events = ev };
	}
	*out = n;
	return p;
}

RC_EXPORT int rselect(int nfds, fd_set *r, fd_set *w, fd_set *e,
		      struct timeval *t)
{
	struct pollfd *p;
	nfds_t n;
	int ret, cnt = 0;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return rc_ret(-EINVAL);
	p = sets_to_poll(nfds, r, w, e, &n);
	if (!p)
		return rc_ret(-ENOMEM);
	ret = rpoll(p, n, t ? (int)(t->tv_sec * 1000 + t->tv_usec / 1000) : -1);
	if (ret < 0) {
		free(p);
		return -1;
	}
	if (r)
		FD_ZERO(r);
	if (w)
		FD_ZERO(w);
	if (e)
		FD_ZERO(e);
	for (nfds_t i = 0; i < n; i++) {
		short re = p[i].revents;

		if (r && (p[i].events & POLLIN) && (re & (POLLIN | POLLHUP |
							   POLLERR))) {
			FD_SET(p[i].fd, r);
			cnt++;
		}
		if (w && (p[i].events & POLLOUT) && (re & (POLLOUT | POLLERR))) {
			FD_SET(p[i].fd, w);
			cnt++;
		}
		if (e && (p[i].events & POLLPRI) && (re & POLLPRI)) {
			FD_SET(p[i].fd, e);
			cnt++;
		}
	}
	free(p);
	return cnt;
}
