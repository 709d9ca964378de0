/* SPDX-License-Identifier: MIT */
/*
 * Client connections: the pod and admin listening sockets, accept with the
 * peer's SO_PEERCRED identity (its network namespace comes later, proven
 * by HELLO), request framing and checks, and dispatch to the handlers.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71	/* Linux 5.14 */
#endif

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "providers/soft/proto/pv_ipc_ops.h"
#include "providers/soft/engine/eng_admission.h"
#include "providers/soft/engine/eng_cm.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_fdcheck.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_dp_settle.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_mr_report.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_mcast.h"
#include "providers/soft/engine/eng_reaper.h"
#include "providers/soft/engine/eng_stats.h"

enum need {
	NEED_NONE,
	NEED_CTX,	/* a context is open (device may be gone) */
	NEED_DEV,	/* a context is open on a live device */
	NEED_ADMIN,	/* root on the admin socket */
};

static const struct {
	eng_handler_fn fn;
	enum need need;
} handlers[PV_OP_MAX + 1] = {
	[PV_OP_HELLO]		= { eng_op_hello, NEED_NONE },
	[PV_OP_DEV_LIST]	= { eng_op_dev_list, NEED_NONE },
	[PV_OP_DEV_QUERY]	= { eng_op_dev_query, NEED_NONE },
	[PV_OP_PORT_QUERY]	= { eng_op_port_query, NEED_NONE },
	[PV_OP_GID_QUERY]	= { eng_op_gid_query, NEED_NONE },
	[PV_OP_PKEY_QUERY]	= { eng_op_pkey_query, NEED_NONE },
	[PV_OP_CTX_OPEN]	= { eng_op_ctx_open, NEED_NONE },
	[PV_OP_CHANNEL_CREATE]	= { eng_op_channel_create, NEED_DEV },
	[PV_OP_CHANNEL_DESTROY]	= { eng_op_channel_destroy, NEED_CTX },
	[PV_OP_PD_ALLOC]	= { eng_op_pd_alloc, NEED_DEV },
	[PV_OP_PD_DEALLOC]	= { eng_op_pd_dealloc, NEED_CTX },
	[PV_OP_MR_REG]		= { eng_op_mr_reg, NEED_DEV },
	[PV_OP_MR_DEREG]	= { eng_op_mr_dereg, NEED_CTX },
	[PV_OP_CQ_CREATE]	= { eng_op_cq_create, NEED_DEV },
	[PV_OP_CQ_RESIZE]	= { eng_op_cq_resize, NEED_DEV },
	[PV_OP_CQ_DESTROY]	= { eng_op_cq_destroy, NEED_CTX },
	[PV_OP_CQ_REQ_NOTIFY]	= { eng_op_cq_req_notify, NEED_DEV },
	[PV_OP_QP_CREATE]	= { eng_op_qp_create, NEED_DEV },
	[PV_OP_QP_MODIFY]	= { eng_op_qp_modify, NEED_DEV },
	[PV_OP_QP_QUERY]	= { eng_op_qp_query, NEED_CTX },
	[PV_OP_QP_DESTROY]	= { eng_op_qp_destroy_drain, NEED_CTX },
	[PV_OP_SRQ_CREATE]	= { eng_op_srq_create, NEED_DEV },
	[PV_OP_SRQ_MODIFY]	= { eng_op_srq_modify, NEED_DEV },
	[PV_OP_SRQ_QUERY]	= { eng_op_srq_query, NEED_CTX },
	[PV_OP_SRQ_DESTROY]	= { eng_op_srq_destroy, NEED_CTX },
	[PV_OP_AH_CREATE]	= { eng_op_ah_create, NEED_DEV },
	[PV_OP_AH_DESTROY]	= { eng_op_ah_destroy_drain, NEED_CTX },
	[PV_OP_QP_MCAST_ATTACH]	= { eng_op_qp_mcast_attach, NEED_DEV },
	[PV_OP_QP_MCAST_DETACH]	= { eng_op_qp_mcast_detach, NEED_CTX },
	[PV_OP_MR_REREG]	= { eng_op_mr_rereg, NEED_DEV },
	[PV_OP_MW_ALLOC]	= { eng_op_mw_alloc, NEED_DEV },
	[PV_OP_MW_DEALLOC]	= { eng_op_mw_dealloc, NEED_CTX },
	[PV_OP_XRCD]		= { eng_op_xrcd, NEED_DEV },
	[PV_OP_QP_OPEN]		= { eng_op_qp_open, NEED_DEV },
	[PV_OP_CTX_MAP]		= { eng_op_ctx_map, NEED_DEV },
	[PV_OP_QP_MAP]		= { eng_op_qp_map, NEED_DEV },
	[PV_OP_CQ_MAP]		= { eng_op_cq_map, NEED_DEV },
	[PV_OP_SRQ_MAP]		= { eng_op_srq_map, NEED_DEV },
	[PV_OP_ADM_DEV_ADD]	= { eng_op_adm_dev_add, NEED_ADMIN },
	[PV_OP_ADM_DEV_DEL]	= { eng_op_adm_dev_del, NEED_ADMIN },
	[PV_OP_ADM_DEV_LIST]	= { eng_op_adm_dev_list, NEED_ADMIN },
	[PV_OP_ADM_OBJ_LIST]	= { eng_op_adm_obj_list, NEED_ADMIN },
	[PV_OP_ADM_STATS]	= { eng_op_adm_stats, NEED_ADMIN },
	[PV_OP_ADM_MR_REPORT]	= { eng_op_adm_mr_report, NEED_ADMIN },
	[PV_OP_ADM_HWC]		= { eng_op_adm_hwc, NEED_ADMIN },
	[PV_OP_CM_OPEN]		= { eng_op_cm_open, NEED_NONE },
	[PV_OP_CM_ID_CREATE]	= { eng_op_cm_id_create, NEED_NONE },
	[PV_OP_CM_ID_DESTROY]	= { eng_op_cm_id_destroy, NEED_NONE },
	[PV_OP_CM_BIND]		= { eng_op_cm_bind, NEED_NONE },
	[PV_OP_CM_RESOLVE_ADDR]	= { eng_op_cm_resolve_addr, NEED_NONE },
	[PV_OP_CM_RESOLVE_ROUTE] = { eng_op_cm_resolve_route, NEED_NONE },
	[PV_OP_CM_LISTEN]	= { eng_op_cm_listen, NEED_NONE },
	[PV_OP_CM_CONNECT]	= { eng_op_cm_connect, NEED_NONE },
	[PV_OP_CM_ACCEPT]	= { eng_op_cm_accept, NEED_NONE },
	[PV_OP_CM_REJECT]	= { eng_op_cm_reject, NEED_NONE },
	[PV_OP_CM_ESTABLISH]	= { eng_op_cm_establish, NEED_NONE },
	[PV_OP_CM_DISCONNECT]	= { eng_op_cm_disconnect, NEED_NONE },
	[PV_OP_CM_OPTION]	= { eng_op_cm_option, NEED_NONE },
	[PV_OP_CM_JOIN]		= { eng_op_cm_join, NEED_NONE },
};

/* Refuses to start over a live engine; removes a stale socket file. */
static int claim_path(const char *path)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = pv_ipc_connect(path);
	if (fd >= 0) {
		close(fd);
		return -EADDRINUSE;
	}
	if (fd != -ECONNREFUSED)
		return fd;
	eng_info("removing stale socket %s", path);
	return unlink(path) < 0 ? -errno : 0;
}

/* mkdir -p of path's parent folder, 0755. */
static int make_parent(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

static void listener_ready(struct eng *e, struct eng_pollable *p,
			   uint32_t events);
static void admin_listener_ready(struct eng *e, struct eng_pollable *p,
				 uint32_t events);
static void accept_timer_ready(struct eng *e, struct eng_pollable *p,
			       uint32_t ev);

/* Binds and listens on path (mode), adding p to the loop. */
static int listen_on(struct eng *e, const char *path, mode_t mode,
		     struct eng_pollable *p,
		     void (*ready)(struct eng *, struct eng_pollable *,
				   uint32_t))
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	ret = claim_path(path);
	if (ret < 0)
		return ret;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		goto err_close_fd;
	if (chmod(path, mode) < 0 || listen(fd, 128) < 0)
		goto err_unlink;
	p->fd = fd;
	p->ready = ready;
	ret = eng_poll_add(e, p);
	if (ret < 0) {
		p->fd = -1;
		errno = -ret;
		goto err_unlink;
	}
	return 0;

err_unlink:
	ret = -errno;
	unlink(path);
	close(fd);
	return ret;
err_close_fd:
	ret = -errno;
	close(fd);
	return ret;
}

int eng_listen(struct eng *e, const char *path)
{
	int ret = make_parent(path);

	if (ret < 0)
		return ret;
	/* Non-root applications in pods connect; what each may do is
	 * decided from what its connection proves (HELLO), never by file
	 * mode.  Admin requests are not served here at all. */
	ret = listen_on(e, path, 0666, &e->listener, listener_ready);
	if (ret < 0)
		return ret;
	/* Made now: when it is needed, there are no fds left to make it. */
	e->accept_timer.fd = timerfd_create(CLOCK_MONOTONIC,
					    TFD_CLOEXEC | TFD_NONBLOCK);
	e->accept_timer.ready = accept_timer_ready;
	if (e->accept_timer.fd >= 0 && eng_poll_add(e, &e->accept_timer) < 0) {
		close(e->accept_timer.fd);
		e->accept_timer.fd = -1;
	}
	snprintf(e->sock_path, sizeof(e->sock_path), "%s", path);
	return 0;
}

/* The admin socket's folder: made 0700, or an existing one that is a
 * real folder of ours (not a symlink), narrowed to 0700. */
static int make_admin_dir(struct eng *e, const char *path)
{
	char dir[sizeof(e->admin_path)];
	char *slash;
	struct stat st;
	int ret;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return -EINVAL;
	*slash = '\0';
	ret = make_parent(dir);
	if (ret < 0)
		return ret;
	if (mkdir(dir, 0700) == 0) {
		e->admin_dir_made = true;
		return 0;
	}
	if (errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return -EPERM;
	return chmod(dir, 0700) < 0 ? -errno : 0;
}

int eng_listen_admin(struct eng *e, const char *path)
{
	int ret;

	if (strlen(path) >= sizeof(e->admin_path))
		return -ENAMETOOLONG;
	ret = make_admin_dir(e, path);
	if (ret < 0)
		return ret;
	ret = listen_on(e, path, 0600, &e->admin_listener,
			admin_listener_ready);
	if (ret < 0)
		return ret;
	snprintf(e->admin_path, sizeof(e->admin_path), "%s", path);
	return 0;
}

void eng_unlisten(struct eng *e)
{
	if (e->listener.fd >= 0) {
		eng_poll_del(e, &e->listener);
		close(e->listener.fd);
		e->listener.fd = -1;
		if (e->sock_path[0])
			unlink(e->sock_path);
	}
	if (e->admin_listener.fd >= 0) {
		eng_poll_del(e, &e->admin_listener);
		close(e->admin_listener.fd);
		e->admin_listener.fd = -1;
		unlink(e->admin_path);
		if (e->admin_dir_made) {
			char *slash = strrchr(e->admin_path, '/');

			*slash = '\0';
			rmdir(e->admin_path);
		}
	}
}

/*
 * Only what the kernel froze at connect: SO_PEERCRED's uid/gid (pid is
 * kept for logs and listings, never looked up).  The namespace is not
 * known until HELLO proves it with an fd of the client's own netns
 * (eng_op_hello): a pid read later may belong to someone else by then.
 */
static void identify(int fd, bool admin_socket, struct eng_ident *id)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	memset(id, 0, sizeof(*id));
	id->uid = (uid_t)-1;
	id->admin_socket = admin_socket;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return;
	id->pid = cred.pid;
	id->uid = cred.uid;
	id->gid = cred.gid;
	len = sizeof(id->ns_cookie);
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &id->ns_cookie,
		       &len) < 0)
		id->ns_cookie = 0;
}

static void resume_accept(struct eng *e);

static void accept_timer_ready(struct eng *e, struct eng_pollable *p,
			       uint32_t ev)
{
	uint64_t ticks;

	if (read(p->fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	resume_accept(e);
}

/* Out of fds with no spare left: stop polling the listeners until a
 * connection goes or 50 ms pass (the reaper frees slots on its own
 * time), or a pending connection would spin the loop. */
static void pause_accept(struct eng *e)
{
	struct eng_pollable *ls[] = { &e->listener, &e->admin_listener };
	struct itimerspec its = { .it_value.tv_nsec = 50 * 1000 * 1000 };

	for (unsigned i = 0; i < 2; i++) {
		struct epoll_event ev = { .events = 0, .data.ptr = ls[i] };

		if (ls[i]->fd >= 0)
			epoll_ctl(e->epfd, EPOLL_CTL_MOD, ls[i]->fd, &ev);
	}
	e->accept_paused = true;
	if (e->accept_timer.fd >= 0)
		timerfd_settime(e->accept_timer.fd, 0, &its, NULL);
}

static void resume_accept(struct eng *e)
{
	struct eng_pollable *ls[] = { &e->listener, &e->admin_listener };

	if (!e->accept_paused)
		return;
	e->accept_paused = false;
	if (e->spare_fd < 0)
		e->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	for (unsigned i = 0; i < 2; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ls[i] };

		if (ls[i]->fd >= 0)
			epoll_ctl(e->epfd, EPOLL_CTL_MOD, ls[i]->fd, &ev);
	}
}

/* Out of fds: a pending connection would keep the listener readable and
 * spin the loop.  Give up the spare fd, accept and drop the connection
 * (to the reaper: fds may be queued on it), take the spare again; with
 * no spare (the reaper still holds the slot), pause accepting. */
static void shed_connection(struct eng *e, int lfd)
{
	int fd;

	eng_stat_inc(clients_rejected);
	eng_stat_inc(limit_hits);
	if (e->spare_fd >= 0) {
		close(e->spare_fd);
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		eng_fd_dispose(fd);
		e->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		eng_warn("out of file descriptors: connection refused");
	}
	if (e->spare_fd < 0)
		pause_accept(e);
}

static void accept_all(struct eng *e, struct eng_pollable *p, bool admin)
{
	for (int i = 0; i < 64; i++) {
		struct eng_ident id;
		int fd = accept4(p->fd, NULL, NULL,
				 SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				shed_connection(e, p->fd);
			else if (errno != EAGAIN && errno != EINTR)
				eng_warn("accept: %s", strerror(errno));
			return;
		}
		identify(fd, admin, &id);
		eng_conn_add(e, fd, &id);
	}
}

static void listener_ready(struct eng *e, struct eng_pollable *p,
			   uint32_t events)
{
	accept_all(e, p, false);
}

static void admin_listener_ready(struct eng *e, struct eng_pollable *p,
				 uint32_t events)
{
	accept_all(e, p, true);
}

static void conn_ready(struct eng *e, struct eng_pollable *p, uint32_t ev)
{
	struct eng_conn *c = eng_container_of(p, struct eng_conn, poll);

	if (eng_conn_serve(e, c, (int)eng_lim.max_msgs_per_wakeup) < 0)
		return;
	if (ev & (EPOLLHUP | EPOLLERR))
		eng_conn_close(e, c);
}

struct eng_conn *eng_conn_add(struct eng *e, int fd,
			      const struct eng_ident *id)
{
	struct eng_conn *c;

	if (eng_admit(e, id) < 0) {
		eng_fd_dispose(fd);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		eng_fd_dispose(fd);
		return NULL;
	}
	c->poll.fd = fd;
	c->poll.ready = conn_ready;
	c->id = ++e->next_conn_id ? e->next_conn_id : ++e->next_conn_id;
	c->ident = *id;
	/* Root on the admin socket, which is never mounted into pods. */
	c->admin = id->admin_socket && id->uid == 0;
	c->ev_fd = -1;
	eng_htab_init(&c->handles);
	eng_list_init(&c->objs);
	if (eng_poll_add(e, &c->poll) < 0) {
		eng_fd_dispose(fd);
		free(c);
		return NULL;
	}
	eng_list_add_tail(&e->conns, &c->link);
	e->nconns++;
	eng_admitted(e, c);
	eng_stat_inc(clients_accepted);
	eng_stat_inc(clients_live);
	eng_dbg("client %u connected: pid %d uid %d netns %s%s", c->id,
		(int)id->pid, (int)id->uid, id->ns_known ? "known" : "unknown",
		c->admin ? " (admin)" : "");
	return c;
}

void eng_conn_close(struct eng *e, struct eng_conn *c)
{
	eng_cm_conn_close(e, c);
	eng_mr_report_exit(c);
	eng_objs_free_all(e, c);
	eng_dp_ctx_free(e, c);
	if (c->dev)
		c->dev->clients--;
	eng_fd_dispose(c->ev_fd);
	eng_htab_fini(&c->handles);
	eng_poll_del(e, &c->poll);
	/* Its receive queue may still hold a client's fds in flight, whose
	 * release could block: off the loop. */
	eng_fd_dispose(c->poll.fd);
	c->poll.fd = -1;
	eng_released(e, c);
	eng_list_del(&c->link);
	e->nconns--;
	eng_stat_inc(clients_closed);
	eng_stat_dec(clients_live);
	eng_dbg("client %u closed", c->id);
	resume_accept(e);
	eng_defer_free(e, c);
}

static int check_access(struct eng_req *r, enum need need)
{
	switch (need) {
	case NEED_NONE:
		return 0;
	case NEED_CTX:
		return r->c->ctx_handle ? 0 : -EINVAL;
	case NEED_DEV:
		if (!r->c->ctx_handle)
			return -EINVAL;
		return r->c->dev ? 0 : -ENODEV;
	case NEED_ADMIN:
		if (r->c->admin)
			return 0;
		eng_stat_inc(requests_denied);
		eng_stat_inc(admin_denied);
		eng_warn("client %u (pid %d uid %d): %s denied: admin "
			 "requests are served to root on the admin socket only",
			 r->c->id, (int)r->c->ident.pid, (int)r->c->ident.uid,
			 pv_ipc_op_name(r->op));
		return -EPERM;
	}
	return -EINVAL;
}

/* The request's fds: no more than the op takes, each of its kind. */
static int check_fds(struct eng_req *r)
{
	enum pv_ipc_fd_kind kind;
	int max = pv_ipc_req_fds(r->op, &kind);

	if (r->in_nfds > max) {
		eng_stat_inc(msgs_fds_refused);
		eng_dbg("client %u: %s with %d fds (takes %d)", r->c->id,
			pv_ipc_op_name(r->op), r->in_nfds, max);
		return -EBADF;
	}
	for (int i = 0; i < r->in_nfds; i++) {
		if (eng_fd_check(r->in_fds[i], kind) < 0) {
			eng_stat_inc(msgs_fds_refused);
			eng_dbg("client %u: %s: fd of the wrong type",
				r->c->id, pv_ipc_op_name(r->op));
			return -EBADF;
		}
	}
	return 0;
}

/* Checks and runs one well-framed request; returns its status. */
static int dispatch(struct eng_req *r)
{
	uint32_t min, max;
	int ret;

	if (pv_ipc_req_size(r->op, &min, &max) < 0 || !handlers[r->op].fn) {
		eng_stat_inc(msgs_unknown_op);
		eng_dbg("client %u: unknown op %u", r->c->id, r->op);
		return -EOPNOTSUPP;
	}
	if (r->in_len < min || r->in_len > max) {
		eng_stat_inc(msgs_malformed);
		eng_dbg("client %u: %s with %u payload bytes", r->c->id,
			pv_ipc_op_name(r->op), r->in_len);
		return -EINVAL;
	}
	ret = check_fds(r);
	if (ret < 0)
		return ret;
	ret = check_access(r, handlers[r->op].need);
	if (ret < 0)
		return ret;
	/* Work posted before the request runs first (eng_dp_settle.c). */
	eng_dp_settle(r);
	ret = handlers[r->op].fn(r);
	if (ret < 0)
		eng_stat_inc(requests_failed);
	return ret;
}

/* After a read of 0 bytes: did the peer close, or send an empty
 * datagram (SOCK_SEQPACKET allows both)? */
static bool peer_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };

	if (poll(&p, 1, 0) < 0)
		return true;
	return p.revents & (POLLHUP | POLLRDHUP | POLLERR);
}

/* Serves one datagram; returns 1 if served, 0 if none queued, or
 * -ECONNRESET when the peer is gone. */
static int serve_one(struct eng *e, struct eng_conn *c, char *buf)
{
	struct pv_msg_hdr *hdr = (struct pv_msg_hdr *)buf;
	struct eng_req r = { .e = e, .c = c, .out = e->reply };
	int len, status;

	memset(hdr, 0, sizeof(*hdr));
	len = pv_ipc_recv(c->poll.fd, buf, PV_IPC_MAX_MSG, r.in_fds,
			  &r.in_nfds);
	if (len == -EAGAIN)
		return 0;
	if (len == -EPROTO) {
		/* Each datagram stands alone: answer if the header is
		 * readable, count it, keep the connection. */
		eng_stat_inc(msgs_malformed);
		eng_dbg("client %u: malformed message", c->id);
		if (hdr->magic == PV_IPC_MAGIC)
			eng_reply(c, hdr->op, hdr->seq, -EPROTO, NULL, 0,
				  NULL, 0);
		return 1;
	}
	if (len == -ECONNRESET && !peer_gone(c->poll.fd)) {
		/* A zero-length datagram reads like end of stream. */
		eng_stat_inc(msgs_malformed);
		return 1;
	}
	if (len < 0)
		return -ECONNRESET;
	eng_stat_inc(requests);
	r.op = hdr->op;
	r.in = buf + sizeof(*hdr);
	r.in_len = (uint32_t)len;
	status = dispatch(&r);
	if (status < 0)
		r.out_len = 0;
	/* Request fds no handler took (MR_REG's memfd is only mapped):
	 * a client's file, whose last close could block. */
	for (int i = 0; i < r.in_nfds; i++)
		eng_fd_dispose(r.in_fds[i]);
	eng_reply(c, r.op, hdr->seq, status, r.out, r.out_len, r.fds, r.nfds);
	/* The client now holds its copies (or the reply was lost). */
	for (int i = 0; i < r.nfds; i++)
		close(r.fds[i]);
	return 1;
}

int eng_conn_serve(struct eng *e, struct eng_conn *c, int budget)
{
	static char buf[PV_IPC_MAX_MSG] __attribute__((aligned(8)));
	int served = 0;

	while (served < budget) {
		int ret = serve_one(e, c, buf);

		if (ret < 0) {
			eng_conn_close(e, c);
			return -ECONNRESET;
		}
		if (ret == 0)
			break;
		served++;
	}
	return served;
}
