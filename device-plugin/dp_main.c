// SPDX-License-Identifier: MIT
/*
 * podverbs-device-plugin: start-up, the control loop and shutdown.
 *
 * usage: podverbs-device-plugin [--config FILE] [--check-config]
 * Exit codes: 0 clean exit, 1 runtime failure, 2 bad usage or config,
 * 3 a socket we need is served by another live instance.
 *
 * The control loop (main thread) polls a signalfd (HUP reload, TERM/INT
 * exit), an inotify fd (kubelet recreating its socket, our socket being
 * removed, sysfs fixture changes), a udev monitor, the health timer and
 * the metrics listener.  gRPC calls are answered on their own thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grpc/grpc.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "device-plugin/dp_daemon.h"
#include "device-plugin/dp_discover.h"
#include "device-plugin/dp_grpc_server.h"
#include "device-plugin/dp_health.h"
#include "device-plugin/dp_kubelet.h"
#include "device-plugin/dp_metrics.h"
#include "device-plugin/dp_seccomp.h"

#define DP_DEFAULT_CONFIG	"/etc/podverbs/device-plugin.json"
#define DP_EXIT_CONFIG		2
#define DP_EXIT_IN_USE		3
#define DP_REGISTER_TIMEOUT_MS	3000
#define DP_REGISTER_RETRY_NS	(5ull * 1000000000ull)

void dp_log(const char *fmt, ...)
{
	struct timespec ts;
	struct tm tm;
	char line[1024];
	va_list ap;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = (int)strftime(line, sizeof(line), "%H:%M:%S", &tm);
	n += snprintf(line + n, sizeof(line) - n, ".%03ld dp: ",
		      ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

uint64_t dp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct dp_loop {
	struct dp_daemon *dp;
	const char *config_path;
	int sig_fd, ino_fd, udev_fd, timer_fd, metrics_fd;
	struct dp_udev *udev;
	uint64_t last_register_try;
};

static void register_pool(struct dp_daemon *dp, int i)
{
	if (dp->reg_mode != DP_REG_LEGACY || !dp->srv[i])
		return;
	if (access(dp->cfg->kubelet_socket, F_OK)) {
		dp_log("%s: no kubelet socket at %s yet; will register when it "
		       "appears", dp->cfg->pools[i].resource_name,
		       dp->cfg->kubelet_socket);
		return;
	}
	if (dp_kubelet_wait_listening(dp->cfg->kubelet_socket, 1000)) {
		dp_log("%s: kubelet socket %s not accepting yet; will register "
		       "when it appears", dp->cfg->pools[i].resource_name,
		       dp->cfg->kubelet_socket);
		return;
	}
	dp_kubelet_register(dp, i, DP_REGISTER_TIMEOUT_MS);
}

/* Starts every pool's server.  Returns 0 or an exit code. */
static int start_pools(struct dp_daemon *dp)
{
	char path[DP_PATH_MAX + DP_NAME_MAX + 32], err[512];

	dp->reg_mode = dp_kubelet_mode(dp->cfg);
	dp->npools = dp->cfg->npools;
	for (int i = 0; i < dp->npools; i++) {
		dp_pool_init(&dp->pools[i], &dp->cfg->pools[i]);
		memset(&dp->stats[i], 0, sizeof(dp->stats[i]));
	}
	dp_health_refresh(dp);
	for (int i = 0; i < dp->npools; i++) {
		int ret;

		dp_pool_socket_path(dp, i, path, sizeof(path));
		ret = dp_srv_start(dp, i, path, err, sizeof(err));
		if (ret) {
			dp_log("%s: %s", dp->cfg->pools[i].resource_name, err);
			return ret == -EADDRINUSE ? DP_EXIT_IN_USE : 1;
		}
		dp_log("%s: serving %d devices on %s (%s registration)",
		       dp->cfg->pools[i].resource_name, dp->pools[i].ndev, path,
		       dp->reg_mode == DP_REG_WATCHER ? "plugin watcher"
						      : "legacy");
	}
	for (int i = 0; i < dp->npools; i++)
		register_pool(dp, i);
	return 0;
}

static void stop_pools(struct dp_daemon *dp)
{
	char path[DP_PATH_MAX + DP_NAME_MAX + 32];

	for (int i = 0; i < dp->npools; i++) {
		/* gRPC may leave the file behind; remove it only if it is
		 * still the one we bound, never a successor's. */
		bool ours = dp_srv_socket_intact(dp, i);

		dp_pool_socket_path(dp, i, path, sizeof(path));
		dp_srv_stop(dp, i);
		if (ours)
			unlink(path);
		pthread_mutex_lock(&dp->lock);
		dp_pool_fini(&dp->pools[i]);
		pthread_mutex_unlock(&dp->lock);
	}
}

static void add_watch(int fd, const char *path, uint32_t mask)
{
	if (inotify_add_watch(fd, path, mask) < 0 && errno != ENOENT)
		dp_log("inotify on %s: %s", path, strerror(errno));
}

static void dir_of(const char *path, char *buf, size_t cap)
{
	char *slash;

	snprintf(buf, cap, "%s", path);
	slash = strrchr(buf, '/');
	if (slash && slash != buf)
		*slash = 0;
}

/* (Re)creates the inotify watches for the current config. */
static int setup_inotify(struct dp_loop *l)
{
	const struct dp_config *c = l->dp->cfg;
	const uint32_t dirmask = IN_CREATE | IN_DELETE | IN_MOVED_FROM |
				 IN_MOVED_TO;
	char buf[DP_PATH_MAX + 32];

	if (l->ino_fd >= 0)
		close(l->ino_fd);
	l->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (l->ino_fd < 0)
		return -errno;
	add_watch(l->ino_fd, l->dp->reg_mode == DP_REG_WATCHER ?
		  c->registry_dir : c->plugin_dir, dirmask);
	dir_of(c->kubelet_socket, buf, sizeof(buf));
	add_watch(l->ino_fd, buf, dirmask);
	snprintf(buf, sizeof(buf), "%s/class/infiniband", c->sysfs_root);
	add_watch(l->ino_fd, buf, dirmask);
	snprintf(buf, sizeof(buf), "%s/class/infiniband_verbs", c->sysfs_root);
	add_watch(l->ino_fd, buf, dirmask);
	return 0;
}

static bool registered_with_current(struct dp_daemon *dp, int i)
{
	struct stat st;
	bool same;

	if (stat(dp->cfg->kubelet_socket, &st))
		return false;
	pthread_mutex_lock(&dp->lock);
	same = dp->stats[i].registered && dp->stats[i].kubelet_ino == st.st_ino;
	pthread_mutex_unlock(&dp->lock);
	return same;
}

/* Rebuilds servers whose socket was removed; then registers. */
static void check_sockets(struct dp_loop *l, bool kubelet_new,
			  const bool *gone)
{
	struct dp_daemon *dp = l->dp;
	char path[DP_PATH_MAX + DP_NAME_MAX + 32], err[512];

	for (int i = 0; i < dp->npools; i++) {
		bool rebuilt = false;

		/* A removal event counts even if a new file with a recycled
		 * inode number already took the name. */
		if ((gone && gone[i]) || !dp_srv_socket_intact(dp, i)) {
			dp_pool_socket_path(dp, i, path, sizeof(path));
			dp_log("%s: socket %s is gone; serving it again",
			       dp->cfg->pools[i].resource_name, path);
			dp_srv_stop(dp, i);
			if (dp_srv_start(dp, i, path, err, sizeof(err))) {
				dp_log("%s: %s", dp->cfg->pools[i].resource_name,
				       err);
				continue;
			}
			rebuilt = true;
		}
		if (rebuilt || (kubelet_new && !registered_with_current(dp, i)))
			register_pool(dp, i);
	}
	l->last_register_try = dp_now_ns();
}

/* Notes events on a pool's public socket name: removal marks it gone;
 * any event on it (a replacement too) asks for a check.  Our private bind
 * names (".name.pid") are ignored. */
static bool socket_event(struct dp_daemon *dp,
			 const struct inotify_event *ev, bool *gone)
{
	bool any = false;

	if (ev->name[0] == '.')
		return false;
	for (int i = 0; i < dp->npools; i++) {
		if (strcmp(ev->name, dp->cfg->pools[i].socket_name))
			continue;
		any = true;
		if (ev->mask & (IN_DELETE | IN_MOVED_FROM))
			gone[i] = true;
	}
	return any;
}

static void on_inotify(struct dp_loop *l)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const char *kbase = strrchr(l->dp->cfg->kubelet_socket, '/');
	bool kubelet_new = false, sockets = false, sysfs = false;
	bool gone[DP_MAX_POOLS] = { false };
	ssize_t n;

	kbase = kbase ? kbase + 1 : l->dp->cfg->kubelet_socket;
	while ((n = read(l->ino_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (void *)p;

			if (ev->len && strcmp(ev->name, kbase) == 0 &&
			    (ev->mask & (IN_CREATE | IN_MOVED_TO)))
				kubelet_new = true;
			else if (ev->len && strstr(ev->name, ".sock"))
				sockets |= socket_event(l->dp, ev, gone);
			else
				sysfs = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	if (kubelet_new)
		dp_log("kubelet socket %s (re)created", l->dp->cfg->kubelet_socket);
	if (kubelet_new || sockets)
		check_sockets(l, kubelet_new, gone);
	if (sysfs)
		dp_health_refresh(l->dp);
}

static int open_metrics(struct dp_loop *l)
{
	if (l->metrics_fd >= 0)
		close(l->metrics_fd);
	l->metrics_fd = -1;
	if (!l->dp->cfg->metrics_addr[0])
		return 0;
	l->metrics_fd = dp_metrics_listen(l->dp->cfg->metrics_addr);
	if (l->metrics_fd < 0) {
		dp_log("metrics on %s: %s", l->dp->cfg->metrics_addr,
		       strerror(-l->metrics_fd));
		return l->metrics_fd;
	}
	dp_log("metrics on http://%s/metrics", l->dp->cfg->metrics_addr);
	return 0;
}

static int arm_timer(struct dp_loop *l)
{
	unsigned ms = l->dp->cfg->health_interval_ms;
	struct itimerspec its = {
		.it_interval = { ms / 1000, (long)(ms % 1000) * 1000000 },
		.it_value = { ms / 1000, (long)(ms % 1000) * 1000000 },
	};

	return timerfd_settime(l->timer_fd, 0, &its, NULL) ? -errno : 0;
}

static void reload(struct dp_loop *l)
{
	struct dp_daemon *dp = l->dp;
	struct dp_config *cfg = malloc(sizeof(*cfg)), *old;
	char err[512];

	if (!cfg)
		return;
	if (dp_config_load(l->config_path, cfg, err, sizeof(err))) {
		dp_log("reload refused, keeping the running config: config %s: "
		       "%s", l->config_path, err);
		free(cfg);
		pthread_mutex_lock(&dp->lock);
		dp->reload_failures++;
		pthread_mutex_unlock(&dp->lock);
		return;
	}
	dp_log("reloading %s", l->config_path);
	stop_pools(dp);
	pthread_mutex_lock(&dp->lock);
	old = dp->cfg;
	dp->cfg = cfg;
	dp->reloads++;
	pthread_mutex_unlock(&dp->lock);
	if (start_pools(dp))
		dp_log("reload: some pools could not start");
	if (strcmp(old->metrics_addr, cfg->metrics_addr))
		open_metrics(l);
	setup_inotify(l);
	arm_timer(l);
	free(old);
}

static void on_timer(struct dp_loop *l)
{
	struct dp_daemon *dp = l->dp;
	uint64_t ticks;

	if (read(l->timer_fd, &ticks, sizeof(ticks)) < 0)
		return;
	dp_health_refresh(dp);
	/* Legacy registrations that failed are retried now and then, in case
	 * kubelet came up without us seeing its socket appear. */
	if (dp->reg_mode != DP_REG_LEGACY ||
	    dp_now_ns() - l->last_register_try < DP_REGISTER_RETRY_NS)
		return;
	for (int i = 0; i < dp->npools; i++)
		if (!dp->stats[i].registered &&
		    access(dp->cfg->kubelet_socket, F_OK) == 0) {
			l->last_register_try = dp_now_ns();
			register_pool(dp, i);
		}
}

/* Returns 1 when asked to exit. */
static int on_signal(struct dp_loop *l)
{
	struct signalfd_siginfo si;

	if (read(l->sig_fd, &si, sizeof(si)) != sizeof(si))
		return 0;
	if (si.ssi_signo == SIGHUP) {
		reload(l);
		return 0;
	}
	dp_log("signal %u: shutting down", si.ssi_signo);
	return 1;
}

static void on_udev(struct dp_loop *l)
{
	int n = dp_udev_drain(l->udev);

	if (n <= 0)
		return;
	pthread_mutex_lock(&l->dp->lock);
	l->dp->udev_events += (uint64_t)n;
	pthread_mutex_unlock(&l->dp->lock);
	dp_health_refresh(l->dp);
}

static void run_loop(struct dp_loop *l)
{
	for (;;) {
		struct pollfd pfd[5] = {
			{ .fd = l->sig_fd, .events = POLLIN },
			{ .fd = l->ino_fd, .events = POLLIN },
			{ .fd = l->timer_fd, .events = POLLIN },
			{ .fd = l->metrics_fd, .events = POLLIN },
			{ .fd = l->udev_fd, .events = POLLIN },
		};

		if (poll(pfd, 5, -1) < 0) {
			if (errno == EINTR)
				continue;
			dp_log("poll: %s", strerror(errno));
			return;
		}
		if ((pfd[0].revents & POLLIN) && on_signal(l))
			return;
		if (pfd[1].revents & POLLIN)
			on_inotify(l);
		if (pfd[2].revents & POLLIN)
			on_timer(l);
		if (pfd[3].revents & POLLIN)
			dp_metrics_serve(l->dp, l->metrics_fd);
		if (pfd[4].revents & POLLIN)
			on_udev(l);
	}
}

/* The signals the control loop takes through its signalfd: blocked in
 * every thread, so this one set serves both. */
static void loop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
}

static int setup_loop(struct dp_loop *l)
{
	sigset_t set;

	loop_signals(&set);
	l->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	l->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l->sig_fd < 0 || l->timer_fd < 0 || arm_timer(l))
		return -errno;
	l->udev = dp_udev_open(&l->udev_fd);
	if (!l->udev) {
		dp_log("udev monitor unavailable; relying on sysfs polling");
		l->udev_fd = -1;
	}
	if (setup_inotify(l))
		return -errno;
	return open_metrics(l);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: podverbs-device-plugin [--config FILE] "
		"[--check-config]\n  default config: %s\n", DP_DEFAULT_CONFIG);
}

static int parse_args(int argc, char **argv, const char **config, int *check)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:nh", opts, NULL)) != -1) {
		switch (c) {
		case 'c': *config = optarg; break;
		case 'n': *check = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -EINVAL;
		}
	}
	return optind == argc ? 0 : -EINVAL;
}

static int run(struct dp_daemon *dp, const char *config_path)
{
	struct dp_loop l = { .dp = dp, .config_path = config_path,
			     .sig_fd = -1, .ino_fd = -1, .udev_fd = -1,
			     .timer_fd = -1, .metrics_fd = -1 };
	int rc;

	rc = start_pools(dp);
	if (rc)
		goto out_stop;
	l.last_register_try = dp_now_ns();
	if (setup_loop(&l)) {
		rc = 1;
		goto out_stop;
	}
	if (dp->cfg->seccomp) {
		int ret = dp_seccomp_apply();

		if (ret)
			dp_log("seccomp: %s; running unconfined", strerror(-ret));
		else
			dp_log("seccomp filter installed");
	}
	run_loop(&l);
out_stop:
	stop_pools(dp);
	dp_udev_close(l.udev);
	if (l.sig_fd >= 0)
		close(l.sig_fd);
	if (l.timer_fd >= 0)
		close(l.timer_fd);
	if (l.ino_fd >= 0)
		close(l.ino_fd);
	if (l.metrics_fd >= 0)
		close(l.metrics_fd);
	return rc;
}

int main(int argc, char **argv)
{
	static struct dp_daemon dp = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
	const char *config_path = DP_DEFAULT_CONFIG;
	int check = 0, rc;
	char err[512];
	sigset_t set;

	if (parse_args(argc, argv, &config_path, &check))
		return DP_EXIT_CONFIG;
	dp.cfg = malloc(sizeof(*dp.cfg));
	if (!dp.cfg)
		return 1;
	if (dp_config_load(config_path, dp.cfg, err, sizeof(err))) {
		fprintf(stderr, "podverbs-device-plugin: config %s: %s\n",
			config_path, err);
		return DP_EXIT_CONFIG;
	}
	if (check) {
		printf("config %s: OK, %d pools\n", config_path, dp.cfg->npools);
		return 0;
	}
	/* Block before any thread exists so only the signalfd sees them. */
	loop_signals(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	grpc_init();
	dp.cq = grpc_completion_queue_create_for_next(NULL);
	if (pthread_create(&dp.cq_thread, NULL, dp_srv_thread, &dp)) {
		dp_log("cannot start the gRPC thread");
		return 1;
	}
	rc = run(&dp, config_path);
	grpc_completion_queue_shutdown(dp.cq);
	pthread_join(dp.cq_thread, NULL);
	grpc_completion_queue_destroy(dp.cq);
	grpc_shutdown();
	free(dp.cfg);
	dp_log("exit %d", rc);
	return rc;
}
