// SPDX-License-Identifier: MIT
/*
 * gRPC plumbing: servers, the completion queue loop, unary calls and
 * ListAndWatch streams.  Every object waiting on the completion queue
 * starts with a struct dp_tag saying what it is; the loop dispatches on it.
 */
#include "device-plugin/dp_grpc_server.h"

#include <errno.h>
#include <fcntl.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "device-plugin/dp_rpc.h"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

enum dp_tag_kind {
	DP_TAG_NEW_CALL,
	DP_TAG_UNARY_DONE,
	DP_TAG_WATCH_SEND,
	DP_TAG_WATCH_CLOSE,
	DP_TAG_SHUTDOWN,
};

struct dp_tag {
	enum dp_tag_kind kind;
};

/* One outstanding "tell me about the next call" per method. */
struct dp_req {
	struct dp_tag tag;
	struct dp_srv *srv;
	enum dp_method m;
	grpc_call *call;
	gpr_timespec deadline;
	grpc_metadata_array md;
	grpc_byte_buffer *payload;
};

struct dp_unary {
	struct dp_tag tag;
	struct dp_srv *srv;
	grpc_call *call;
	grpc_byte_buffer *resp;
	grpc_slice details;
	int cancelled;
};

struct dp_watch {
	struct dp_tag send_tag;
	struct dp_tag close_tag;
	struct dp_srv *srv;
	grpc_call *call;
	grpc_byte_buffer *msg;
	uint64_t sent_gen;
	bool send_busy, close_done, started;
	int cancelled;
	struct dp_watch *next;
};

struct dp_srv {
	struct dp_tag shutdown_tag;
	struct dp_daemon *dp;
	int pool;
	grpc_server *server;
	void *methods[DP_M_COUNT];
	struct dp_req reqs[DP_M_COUNT];
	int live;		/* pending reqs + unary calls + streams */
	struct dp_watch *watches;
	bool stopping, shutdown_seen;
	char path[DP_PATH_MAX + DP_NAME_MAX + 32];
	ino_t ino;
	dev_t dev;
};

int dp_srv_claim_path(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, ret;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	ret = ret ? -errno : 0;
	close(fd);
	if (ret == 0)
		return -EADDRINUSE;	/* someone serves it: not ours to take */
	if (ret != -ECONNREFUSED)
		return ret;
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

/* Asks for the next call of method m.  Caller holds the lock. */
static void request_next(struct dp_srv *s, enum dp_method m)
{
	struct dp_req *r = &s->reqs[m];
	grpc_call_error e;

	if (s->stopping)
		return;
	r->call = NULL;
	r->payload = NULL;
	grpc_metadata_array_init(&r->md);
	e = grpc_server_request_registered_call(s->server, s->methods[m],
		&r->call, &r->deadline, &r->md,
		m == DP_M_LIST_AND_WATCH ? NULL : &r->payload,
		s->dp->cq, s->dp->cq, &r->tag);
	if (e == GRPC_CALL_OK)
		s->live++;
	else
		dp_log("%s: request_call: %s", s->path,
		       grpc_call_error_to_string(e));
}

static void srv_put(struct dp_srv *s)
{
	s->live--;
	if (s->stopping && s->shutdown_seen && s->live == 0)
		pthread_cond_broadcast(&s->dp->cond);
}

/* Starts the next send on a stream when its list moved on. */
static void watch_kick(struct dp_watch *w)
{
	struct dp_daemon *dp = w->srv->dp;
	const struct dp_pool *p = &dp->pools[w->srv->pool];
	grpc_op ops[2];
	int n = 0;

	if (w->send_busy || w->close_done || (w->started && w->sent_gen == p->gen))
		return;
	w->msg = dp_rpc_list(dp, w->srv->pool);
	if (!w->msg)
		return;
	memset(ops, 0, sizeof(ops));
	if (!w->started) {
		ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
		n++;
	}
	ops[n].op = GRPC_OP_SEND_MESSAGE;
	ops[n].data.send_message.send_message = w->msg;
	n++;
	if (grpc_call_start_batch(w->call, ops, n, &w->send_tag, NULL) !=
	    GRPC_CALL_OK) {
		grpc_byte_buffer_destroy(w->msg);
		w->msg = NULL;
		return;
	}
	w->started = true;
	w->send_busy = true;
	w->sent_gen = p->gen;
	dp->stats[w->srv->pool].list_updates++;
}

void dp_srv_notify(struct dp_daemon *dp, int i)
{
	struct dp_srv *s = dp->srv[i];

	if (!s)
		return;
	for (struct dp_watch *w = s->watches; w; w = w->next)
		watch_kick(w);
}

static void watch_free_if_done(struct dp_watch *w)
{
	struct dp_srv *s = w->srv;
	struct dp_watch **pp;

	if (w->send_busy || !w->close_done)
		return;
	for (pp = &s->watches; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	s->dp->stats[s->pool].streams--;
	grpc_call_unref(w->call);
	free(w);
	srv_put(s);
}

static void watch_start(struct dp_srv *s, grpc_call *call)
{
	struct dp_watch *w = calloc(1, sizeof(*w));
	grpc_op op;

	if (!w) {
		grpc_call_cancel(call, NULL);
		grpc_call_unref(call);
		return;
	}
	w->send_tag.kind = DP_TAG_WATCH_SEND;
	w->close_tag.kind = DP_TAG_WATCH_CLOSE;
	w->srv = s;
	w->call = call;
	memset(&op, 0, sizeof(op));
	op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	op.data.recv_close_on_server.cancelled = &w->cancelled;
	if (grpc_call_start_batch(call, &op, 1, &w->close_tag, NULL) !=
	    GRPC_CALL_OK) {
		grpc_call_unref(call);
		free(w);
		return;
	}
	w->next = s->watches;
	s->watches = w;
	s->live++;
	s->dp->stats[s->pool].streams++;
	watch_kick(w);
}

static void unary_start(struct dp_srv *s, enum dp_method m, grpc_call *call,
			grpc_byte_buffer *req)
{
	struct dp_unary *u = calloc(1, sizeof(*u));
	char details[512] = "";
	grpc_status_code st;
	grpc_op ops[4];
	int n = 0;

	if (!u) {
		grpc_call_cancel(call, NULL);
		grpc_call_unref(call);
		return;
	}
	u->tag.kind = DP_TAG_UNARY_DONE;
	u->srv = s;
	u->call = call;
	st = dp_rpc_unary(s->dp, s->pool, m, req, &u->resp, details,
			  sizeof(details));
	if (st != GRPC_STATUS_OK)
		dp_log("%s: %s failed: %s",
		       s->dp->cfg->pools[s->pool].resource_name,
		       dp_rpc_method_path(m), details);
	u->details = grpc_slice_from_copied_string(details);
	memset(ops, 0, sizeof(ops));
	ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
	if (st == GRPC_STATUS_OK && u->resp) {
		ops[n].op = GRPC_OP_SEND_MESSAGE;
		ops[n++].data.send_message.send_message = u->resp;
	}
	ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
	ops[n].data.send_status_from_server.status = st;
	ops[n++].data.send_status_from_server.status_details =
		st == GRPC_STATUS_OK ? NULL : &u->details;
	ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	ops[n++].data.recv_close_on_server.cancelled = &u->cancelled;
	if (grpc_call_start_batch(call, ops, n, &u->tag, NULL) != GRPC_CALL_OK) {
		dp_log("%s: start_batch failed", dp_rpc_method_path(m));
		grpc_call_unref(call);
		if (u->resp)
			grpc_byte_buffer_destroy(u->resp);
		grpc_slice_unref(u->details);
		free(u);
		return;
	}
	s->live++;
}

static void on_new_call(struct dp_req *r, int ok)
{
	struct dp_srv *s = r->srv;
	grpc_call *call = r->call;
	grpc_byte_buffer *payload = r->payload;

	grpc_metadata_array_destroy(&r->md);
	if (ok && call) {
		if (r->m == DP_M_LIST_AND_WATCH)
			watch_start(s, call);
		else
			unary_start(s, r->m, call, payload);
	} else if (call) {
		grpc_call_unref(call);
	}
	if (payload)
		grpc_byte_buffer_destroy(payload);
	request_next(s, r->m);
	srv_put(s);
}

static void on_event(struct dp_daemon *dp, struct dp_tag *t, int ok)
{
	struct dp_unary *u;
	struct dp_watch *w;
	struct dp_srv *s;

	pthread_mutex_lock(&dp->lock);
	switch (t->kind) {
	case DP_TAG_NEW_CALL:
		on_new_call(container_of(t, struct dp_req, tag), ok);
		break;
	case DP_TAG_UNARY_DONE:
		u = container_of(t, struct dp_unary, tag);
		s = u->srv;
		grpc_call_unref(u->call);
		if (u->resp)
			grpc_byte_buffer_destroy(u->resp);
		grpc_slice_unref(u->details);
		free(u);
		srv_put(s);
		break;
	case DP_TAG_WATCH_SEND:
		w = container_of(t, struct dp_watch, send_tag);
		w->send_busy = false;
		grpc_byte_buffer_destroy(w->msg);
		w->msg = NULL;
		if (!ok)	/* peer gone: make sure the close side ends */
			grpc_call_cancel(w->call, NULL);
		else
			watch_kick(w);
		watch_free_if_done(w);
		break;
	case DP_TAG_WATCH_CLOSE:
		w = container_of(t, struct dp_watch, close_tag);
		w->close_done = true;
		watch_free_if_done(w);
		break;
	case DP_TAG_SHUTDOWN:
		s = container_of(t, struct dp_srv, shutdown_tag);
		s->shutdown_seen = true;
		srv_put(s);	/* drops the hold dp_srv_stop took */
		break;
	}
	pthread_mutex_unlock(&dp->lock);
}

void *dp_srv_thread(void *arg)
{
	struct dp_daemon *dp = arg;

	for (;;) {
		grpc_event ev = grpc_completion_queue_next(dp->cq,
			gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);

		if (ev.type == GRPC_QUEUE_SHUTDOWN)
			break;
		if (ev.type == GRPC_OP_COMPLETE)
			on_event(dp, ev.tag, ev.success);
	}
	return NULL;
}

static int srv_create(struct dp_srv *s, const char *path, char *err,
		      size_t errlen)
{
	grpc_server_credentials *creds;
	char addr[sizeof(s->path) + 32];
	bool watcher = s->dp->reg_mode == DP_REG_WATCHER;
	int port;

	s->server = grpc_server_create(NULL, NULL);
	for (int m = 0; m < DP_M_COUNT; m++) {
		if (!watcher && (m == DP_M_REG_GET_INFO || m == DP_M_REG_NOTIFY))
			continue;
		s->methods[m] = grpc_server_register_method(s->server,
			dp_rpc_method_path(m), NULL,
			m == DP_M_LIST_AND_WATCH ? GRPC_SRM_PAYLOAD_NONE :
			GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
	}
	grpc_server_register_completion_queue(s->server, s->dp->cq, NULL);
	snprintf(addr, sizeof(addr), "unix:%s", path);
	creds = grpc_insecure_server_credentials_create();
	port = grpc_server_add_http2_port(s->server, addr, creds);
	grpc_server_credentials_release(creds);
	if (port == 0) {
		snprintf(err, errlen, "%s: gRPC could not listen there", path);
		grpc_server_destroy(s->server);
		return -EADDRNOTAVAIL;
	}
	grpc_server_start(s->server);
	return 0;
}

/* gRPC binds a private name first, then the socket is renamed into place
 * without replacing anything (RENAME_NOREPLACE).  gRPC unlinks the path it
 * bound when the server shuts down; binding a private name means that
 * unlink can never hit the public path, which may by then belong to
 * another instance. */
static void private_path(const char *path, char *buf, size_t cap)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0;

	snprintf(buf, cap, "%.*s/.%s.%d", dirlen, path, slash ? slash + 1 : path,
		 (int)getpid());
}

static int publish(struct dp_daemon *dp, int i, const char *tmp,
		   const char *path, char *err, size_t errlen)
{
	struct dp_srv *s = dp->srv[i];
	struct stat st;

	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE)) {
		int ret = -errno;

		snprintf(err, errlen, "%s: %s", path, ret == -EEXIST ?
			 "in use by another live instance; refusing to "
			 "replace it" : strerror(-ret));
		dp_srv_stop(dp, i);
		return ret == -EEXIST ? -EADDRINUSE : ret;
	}
	if (stat(path, &st) == 0) {
		s->ino = st.st_ino;
		s->dev = st.st_dev;
	}
	return 0;
}

int dp_srv_start(struct dp_daemon *dp, int i, const char *path, char *err,
		 size_t errlen)
{
	char tmp[sizeof(((struct dp_srv *)0)->path) + 16];
	struct dp_srv *s;
	int ret;

	ret = dp_srv_claim_path(path);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path,
			 ret == -EADDRINUSE ? "in use by another live instance; "
			 "refusing to replace it" : ret == -EEXIST ?
			 "exists and is not a socket" : strerror(-ret));
		return ret;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->shutdown_tag.kind = DP_TAG_SHUTDOWN;
	s->dp = dp;
	s->pool = i;
	snprintf(s->path, sizeof(s->path), "%s", path);
	for (int m = 0; m < DP_M_COUNT; m++) {
		s->reqs[m].tag.kind = DP_TAG_NEW_CALL;
		s->reqs[m].srv = s;
		s->reqs[m].m = (enum dp_method)m;
	}
	private_path(path, tmp, sizeof(tmp));
	unlink(tmp);		/* a leftover of a dead process of our pid */
	ret = srv_create(s, tmp, err, errlen);
	if (ret) {
		free(s);
		return ret;
	}
	pthread_mutex_lock(&dp->lock);
	dp->srv[i] = s;
	for (int m = 0; m < DP_M_COUNT; m++)
		if (s->methods[m])
			request_next(s, (enum dp_method)m);
	pthread_mutex_unlock(&dp->lock);
	return publish(dp, i, tmp, path, err, errlen);
}

void dp_srv_stop(struct dp_daemon *dp, int i)
{
	struct dp_srv *s;

	pthread_mutex_lock(&dp->lock);
	s = dp->srv[i];
	if (!s) {
		pthread_mutex_unlock(&dp->lock);
		return;
	}
	s->stopping = true;
	s->live++;		/* held until the shutdown tag arrives */
	grpc_server_shutdown_and_notify(s->server, dp->cq, &s->shutdown_tag);
	grpc_server_cancel_all_calls(s->server);
	while (!(s->shutdown_seen && s->live == 0))
		pthread_cond_wait(&dp->cond, &dp->lock);
	dp->srv[i] = NULL;
	dp->stats[i].registered = false;
	pthread_mutex_unlock(&dp->lock);
	grpc_server_destroy(s->server);
	free(s);
}

bool dp_srv_socket_intact(struct dp_daemon *dp, int i)
{
	struct dp_srv *s = dp->srv[i];
	struct stat st;

	if (!s)
		return false;
	if (stat(s->path, &st))
		return false;
	return st.st_ino == s->ino && st.st_dev == s->dev;
}
