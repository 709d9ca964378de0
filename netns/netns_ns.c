/* SPDX-License-Identifier: MIT */
/*
 * Opening namespaces, naming them, and running work inside them.
 *
 * setns(CLONE_NEWNET) switches only the calling thread, so work in another
 * namespace runs in a thread created for it and joined at once: no thread of
 * the caller is ever left in a foreign namespace, and sockets made there keep
 * their namespace after the thread is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "netns/netns.h"

/* The calling thread's namespace; threads of ours never switch, so this is
 * the process's own except inside a netns_run callback. */
#define NETNS_SELF_PATH "/proc/thread-self/ns/net"

/* Refuses fds that are not network namespaces, so setns() later cannot
 * silently join some other kind of namespace. */
static int netns_check_type(int fd)
{
	int type = ioctl(fd, NS_GET_NSTYPE);

	if (type < 0)
		return errno == ENOTTY || errno == EINVAL ? -EINVAL : -errno;
	return type == CLONE_NEWNET ? 0 : -EINVAL;
}

int netns_open(const char *path)
{
	int fd, r;

	if (!path || !*path)
		path = NETNS_SELF_PATH;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	r = netns_check_type(fd);
	if (r < 0)
		goto err_close_fd;
	return fd;

err_close_fd:
	close(fd);
	return r;
}

int netns_open_pid(pid_t pid)
{
	char path[64];
	int fd;

	if (pid < 0)
		return -EINVAL;
	if (pid == 0)
		return netns_open(NULL);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	fd = netns_open(path);
	return fd == -ENOENT ? -ESRCH : fd;
}

static void netns_id_from_stat(const struct stat *st, struct netns_id *ret_id)
{
	ret_id->dev = (uint64_t)st->st_dev;
	ret_id->ino = (uint64_t)st->st_ino;
}

int netns_id_of_fd(int ns_fd, struct netns_id *ret_id)
{
	struct stat st;

	if (!ret_id)
		return -EINVAL;
	if (fstat(ns_fd, &st) < 0)
		return -errno;
	netns_id_from_stat(&st, ret_id);
	return 0;
}

int netns_id_of_pid(pid_t pid, struct netns_id *ret_id)
{
	char path[64];
	struct stat st;

	if (!ret_id || pid < 0)
		return -EINVAL;
	if (pid == 0)
		snprintf(path, sizeof(path), "%s", NETNS_SELF_PATH);
	else
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	/* stat() follows the magic link to the nsfs inode. */
	if (stat(path, &st) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	netns_id_from_stat(&st, ret_id);
	return 0;
}

struct netns_run_ctx {
	int ns_fd;
	int (*fn)(void *arg);
	void *arg;
	int ret;
};

static void *netns_run_thread(void *p)
{
	struct netns_run_ctx *ctx = p;

	if (setns(ctx->ns_fd, CLONE_NEWNET) < 0) {
		ctx->ret = -errno;
		return NULL;
	}
	ctx->ret = ctx->fn(ctx->arg);
	return NULL;
}

static bool netns_is_current(int ns_fd)
{
	struct netns_id want = { 0 }, cur = { 0 };

	return netns_id_of_fd(ns_fd, &want) == 0 &&
	       netns_id_of_pid(0, &cur) == 0 && netns_id_equal(&want, &cur);
}

int netns_run(int ns_fd, int (*fn)(void *arg), void *arg)
{
	struct netns_run_ctx ctx = { .ns_fd = ns_fd, .fn = fn, .arg = arg };
	sigset_t all, old;
	pthread_t tid;
	int r;

	if (ns_fd < 0)
		return -EBADF;
	if (!fn)
		return -EINVAL;
	r = netns_check_type(ns_fd);
	if (r < 0)
		return r;
	/* Already there: no switch needed, and none of setns()'s privilege
	 * (CAP_SYS_ADMIN) either, so unprivileged callers can use their own
	 * namespace's fd. */
	if (netns_is_current(ns_fd))
		return fn(arg);
	/* The worker starts with every signal blocked: handlers keep running
	 * on the caller's threads, never inside the foreign namespace. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&tid, NULL, netns_run_thread, &ctx);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0)
		return -r;
	r = pthread_join(tid, NULL);
	if (r != 0)
		return -r;
	return ctx.ret;
}

struct netns_socket_args {
	int domain;
	int type;
	int protocol;
};

static int netns_socket_fn(void *p)
{
	const struct netns_socket_args *a = p;
	int fd = socket(a->domain, a->type | SOCK_CLOEXEC, a->protocol);

	return fd < 0 ? -errno : fd;
}

int netns_socket(int ns_fd, int domain, int type, int protocol)
{
	struct netns_socket_args a = {
		.domain = domain, .type = type, .protocol = protocol,
	};

	return netns_run(ns_fd, netns_socket_fn, &a);
}
