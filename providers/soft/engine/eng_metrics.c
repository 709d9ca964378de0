/* SPDX-License-Identifier: MIT */
/*
 * The metrics endpoint's sockets (eng_metrics.h): a TCP listener, up to
 * metrics_conns scrape connections and one timer that drops those past
 * their deadline.  Everything is non-blocking and runs on the loop
 * thread; a scraper controls nothing but its own connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "providers/soft/engine/eng_http_auth.h"
#include "providers/soft/engine/eng_http_req.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_metrics.h"
#include "providers/soft/engine/eng_stats.h"

struct eng_mconn {
	struct eng_pollable poll;
	struct eng_list link;		/* in eng_metrics.conns */
	uint64_t deadline_ns;
	size_t in_len;
	char *out;			/* the whole answer, once known */
	size_t out_len, out_off;
	char in[];			/* metrics_req_bytes */
};

struct eng_metrics {
	struct eng_pollable listen;
	struct eng_pollable timer;
	struct eng_list conns;
	uint32_t nconns;
	const char *token_file;		/* NULL: no auth (loopback/insecure) */
	struct stat token_st;		/* the file the token came from */
	size_t token_len;
	char token[ENG_HTTP_TOKEN_MAX];
};

/* Reads the token file into mx (when it changed, or force).  The token
 * itself is never logged.  0, or -errno with mx's old token kept. */
static int token_load(struct eng_metrics *mx, bool force)
{
	char buf[ENG_HTTP_TOKEN_MAX + 64];
	struct stat st;
	ssize_t n;
	long tl;
	int fd, ret = 0;

	if (stat(mx->token_file, &st) < 0)
		return -errno;
	if (!force && st.st_dev == mx->token_st.st_dev &&
	    st.st_ino == mx->token_st.st_ino &&
	    st.st_size == mx->token_st.st_size &&
	    st.st_mtim.tv_sec == mx->token_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == mx->token_st.st_mtim.tv_nsec)
		return 0;
	fd = open(mx->token_file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out_close;
	}
	n = read(fd, buf, sizeof(buf));
	if (n < 0) {
		ret = -errno;
		goto out_close;
	}
	tl = eng_http_token_parse(buf, (size_t)n);
	if (tl < 0 || (size_t)n == sizeof(buf)) {
		ret = -EINVAL;
		goto out_close;
	}
	memcpy(mx->token, buf, (size_t)tl);
	mx->token_len = (size_t)tl;
	mx->token_st = st;
out_close:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return ret;
}

static bool req_authorized(const struct eng_metrics *mx,
			   const struct eng_http_req *rq)
{
	if (!mx->token_file)
		return true;
	if (!rq->auth || rq->auth_many)
		return false;
	return eng_http_auth_ok(rq->auth, rq->auth_len, mx->token,
				mx->token_len);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void conn_close(struct eng *e, struct eng_mconn *m)
{
	eng_poll_del(e, &m->poll);
	close(m->poll.fd);
	m->poll.fd = -1;
	eng_list_del(&m->link);
	e->metrics->nconns--;
	free(m->out);
	m->out = NULL;
	eng_defer_free(e, m);
}

/* Sends what the socket takes; true when the answer is all out. */
static bool conn_flush(struct eng_mconn *m)
{
	while (m->out_off < m->out_len) {
		ssize_t n = send(m->poll.fd, m->out + m->out_off,
				 m->out_len - m->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return false;
		if (n <= 0) {
			m->out_off = m->out_len;	/* peer gone */
			return true;
		}
		m->out_off += (size_t)n;
	}
	return true;
}

/* The answer to a parsed head: status line, headers, body (GET 200). */
static void conn_answer(struct eng *e, struct eng_mconn *m, int st,
			const struct eng_http_req *rq)
{
	struct eng_prom_buf b;
	char *body = NULL, head[256];
	size_t blen = 0;
	int hl;

	if (st == 200 && !req_authorized(e->metrics, rq))
		st = 401;
	if (st == 200) {
		eng_prom_init(&b, eng_lim.metrics_body_bytes);
		eng_metrics_body(e, &b);
		body = eng_prom_take(&b, &blen);
		if (!body)
			st = 500;
		else
			eng_stat_inc(metrics_scrapes);
	} else if (st == 401) {
		eng_stat_inc(metrics_unauthorized);
	} else {
		eng_stat_inc(metrics_bad_requests);
	}
	hl = snprintf(head, sizeof(head),
		      "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n%s"
		      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
		      st, eng_http_reason(st), st == 200 ?
		      "text/plain; version=0.0.4; charset=utf-8" :
		      "text/plain; charset=utf-8", st == 401 ?
		      "WWW-Authenticate: Bearer realm=\"podverbs\"\r\n" : "",
		      blen);
	if (rq->head || st != 200)
		blen = 0;
	m->out = malloc((size_t)hl + blen);
	if (!m->out) {
		free(body);
		conn_close(e, m);
		return;
	}
	memcpy(m->out, head, (size_t)hl);
	if (blen)
		memcpy(m->out + hl, body, blen);
	free(body);
	m->out_len = (size_t)hl + blen;
	m->out_off = 0;
	if (conn_flush(m)) {
		conn_close(e, m);
		return;
	}
	/* The rest when the socket has room (level-triggered EPOLLOUT). */
	struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = &m->poll };

	if (epoll_ctl(e->epfd, EPOLL_CTL_MOD, m->poll.fd, &ev) < 0)
		conn_close(e, m);
}

static void conn_ready(struct eng *e, struct eng_pollable *p, uint32_t ev)
{
	struct eng_mconn *m = eng_container_of(p, struct eng_mconn, poll);
	size_t max = eng_lim.metrics_req_bytes;
	struct eng_http_req rq;
	ssize_t n;
	int st;

	if (m->out) {			/* answering: only EPOLLOUT matters */
		if (conn_flush(m) || (ev & (EPOLLERR | EPOLLHUP)))
			conn_close(e, m);
		return;
	}
	n = recv(p->fd, m->in + m->in_len, max - m->in_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {			/* closed before a whole head */
		conn_close(e, m);
		return;
	}
	m->in_len += (size_t)n;
	st = eng_http_req_parse(m->in, m->in_len, max, &rq);
	if (st)
		conn_answer(e, m, st, &rq);
}

static void listen_ready(struct eng *e, struct eng_pollable *p, uint32_t ev)
{
	struct eng_metrics *mx = e->metrics;
	struct eng_mconn *m;
	int fd;

	/* A few per turn: the data path is not starved by a connect flood. */
	for (int i = 0; i < 8; i++) {
		fd = accept4(p->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		m = mx->nconns < eng_lim.metrics_conns ?
		    calloc(1, sizeof(*m) + eng_lim.metrics_req_bytes) : NULL;
		if (!m) {
			eng_stat_inc(metrics_refused);
			close(fd);
			continue;
		}
		m->poll.fd = fd;
		m->poll.ready = conn_ready;
		m->deadline_ns = now_ns() +
				 eng_lim.metrics_timeout_ms * 1000000ull;
		if (eng_poll_add(e, &m->poll) < 0) {
			close(fd);
			free(m);
			continue;
		}
		eng_list_add_tail(&mx->conns, &m->link);
		mx->nconns++;
	}
}

static void timer_ready(struct eng *e, struct eng_pollable *p, uint32_t ev)
{
	struct eng_list *pos, *tmp;
	uint64_t exp, now = now_ns();

	if (read(p->fd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		eng_dbg("metrics timer: %s", strerror(errno));
	if (e->metrics->token_file) {
		int ret = token_load(e->metrics, false);

		if (ret < 0) {
			eng_stat_inc(metrics_token_reload_failed);
			eng_dbg("metrics token file %s: %s (old token kept)",
				e->metrics->token_file, strerror(-ret));
		}
	}
	eng_list_for_each_safe(pos, tmp, &e->metrics->conns) {
		struct eng_mconn *m = eng_container_of(pos, struct eng_mconn,
						       link);

		if (now >= m->deadline_ns) {
			eng_stat_inc(metrics_dropped_slow);
			conn_close(e, m);
		}
	}
}

static int open_timer(struct eng *e, struct eng_metrics *mx)
{
	/* A tick of a tenth of the timeout: a deadline is kept within
	 * 10 % (the timer costs nothing while no one scrapes). */
	uint64_t tick = eng_lim.metrics_timeout_ms * 100000ull;
	struct itimerspec its = {
		.it_interval = { tick / 1000000000ull, tick % 1000000000ull },
		.it_value = { tick / 1000000000ull, tick % 1000000000ull },
	};

	mx->timer.fd = timerfd_create(CLOCK_MONOTONIC,
				      TFD_NONBLOCK | TFD_CLOEXEC);
	if (mx->timer.fd < 0)
		return -errno;
	mx->timer.ready = timer_ready;
	if (timerfd_settime(mx->timer.fd, 0, &its, NULL) < 0)
		return -errno;
	return eng_poll_add(e, &mx->timer);
}

static int open_listener(struct eng *e, struct eng_metrics *mx,
			 const struct sockaddr_storage *ss, unsigned len)
{
	int one = 1;

	mx->listen.fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK |
			       SOCK_CLOEXEC, 0);
	if (mx->listen.fd < 0)
		return -errno;
	mx->listen.ready = listen_ready;
	setsockopt(mx->listen.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(mx->listen.fd, (const struct sockaddr *)ss, len) < 0 ||
	    listen(mx->listen.fd, 64) < 0)
		return -errno;
	return eng_poll_add(e, &mx->listen);
}

int eng_metrics_listen(struct eng *e, const char *addr,
		       const char *token_file, bool insecure)
{
	struct sockaddr_storage ss;
	struct eng_metrics *mx;
	unsigned len;
	int ret;

	ret = eng_metrics_addr_parse(addr, &ss, &len);
	if (ret < 0)
		return ret;
	if (!token_file && !insecure && !eng_metrics_addr_loopback(&ss))
		return -EACCES;
	mx = calloc(1, sizeof(*mx));
	if (!mx)
		return -ENOMEM;
	mx->token_file = token_file;
	if (token_file && (ret = token_load(mx, true)) < 0) {
		free(mx);
		return ret == -EINVAL ? -EBADMSG : ret;
	}
	mx->listen.fd = mx->timer.fd = -1;
	eng_list_init(&mx->conns);
	e->metrics = mx;
	ret = open_listener(e, mx, &ss, len);
	if (ret == 0)
		ret = open_timer(e, mx);
	if (ret < 0)
		eng_metrics_fini(e);
	return ret;
}

void eng_metrics_fini(struct eng *e)
{
	struct eng_metrics *mx = e->metrics;
	struct eng_list *pos, *tmp;

	if (!mx)
		return;
	eng_list_for_each_safe(pos, tmp, &mx->conns)
		conn_close(e, eng_container_of(pos, struct eng_mconn, link));
	if (mx->listen.fd >= 0) {
		eng_poll_del(e, &mx->listen);
		close(mx->listen.fd);
	}
	if (mx->timer.fd >= 0) {
		eng_poll_del(e, &mx->timer);
		close(mx->timer.fd);
	}
	explicit_bzero(mx->token, sizeof(mx->token));
	free(mx);
	e->metrics = NULL;
}

bool eng_metrics_addr_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

		return IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
	}
	return false;
}

int eng_metrics_addr_parse(const char *s, struct sockaddr_storage *ss,
			   unsigned *len)
{
	const char *colon = s ? strrchr(s, ':') : NULL;
	char host[64], *end;
	unsigned long port;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (!colon || !colon[1])
		return -EINVAL;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || port == 0 || port > 65535 || colon[1] == '-' ||
	    colon[1] == '+' || colon[1] == ' ')
		return -EINVAL;
	hl = (size_t)(colon - s);
	if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		if (hl - 2 >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, hl - 2);
		host[hl - 2] = '\0';
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return -EINVAL;
		*len = sizeof(*a);
		return 0;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hl);
	host[hl] = '\0';
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	if (hl && inet_pton(AF_INET, host, &a->sin_addr) != 1)
		return -EINVAL;
	*len = sizeof(*a);
	return 0;
}
