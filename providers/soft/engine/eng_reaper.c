/* SPDX-License-Identifier: MIT */
/* The fd reaper (eng_reaper.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_reaper.h"
#include "providers/soft/engine/eng_stats.h"

#ifndef sigev_notify_thread_id	/* glibc < 2.35 */
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* How long one close may wait before the timer interrupts it. */
#define REAP_CLOSE_NS	(20 * 1000 * 1000)

static struct {
	pthread_mutex_t lock;
	pthread_cond_t more;
	pthread_t thread;
	bool running, stopping;
	int *fds;
	unsigned n, cap;
	int signo;
} rp = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.more = PTHREAD_COND_INITIALIZER,
};

/* The signal's only job is to make a sleeping close return. */
static void on_timer(int sig)
{
	(void)sig;
}

/* No lingering: close returns at once and the kernel finishes (or
 * resets) the connection in the background.  Harmless on non-sockets. */
static void unlinger(int fd)
{
	struct linger l = { 0 };
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
}

static void bounded_close(int fd, timer_t t, bool have_timer)
{
	struct itimerspec arm = { .it_value.tv_nsec = REAP_CLOSE_NS };
	struct itimerspec off = { 0 };

	unlinger(fd);
	if (have_timer)
		timer_settime(t, 0, &arm, NULL);
	/* EINTR: the descriptor is released all the same (close(2)). */
	close(fd);
	if (have_timer)
		timer_settime(t, 0, &off, NULL);
}

static void *reaper_main(void *arg)
{
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID };
	sigset_t only;
	bool have_timer;
	timer_t t;

	(void)arg;
	sev.sigev_signo = rp.signo;
	sev.sigev_notify_thread_id = gettid();
	have_timer = timer_create(CLOCK_MONOTONIC, &sev, &t) == 0;
	sigemptyset(&only);
	sigaddset(&only, rp.signo);
	pthread_sigmask(SIG_UNBLOCK, &only, NULL);
	pthread_mutex_lock(&rp.lock);
	for (;;) {
		int fd;

		while (!rp.n && !rp.stopping)
			pthread_cond_wait(&rp.more, &rp.lock);
		if (!rp.n)
			break;
		fd = rp.fds[--rp.n];
		pthread_mutex_unlock(&rp.lock);
		bounded_close(fd, t, have_timer);
		pthread_mutex_lock(&rp.lock);
	}
	pthread_mutex_unlock(&rp.lock);
	if (have_timer)
		timer_delete(t);
	return NULL;
}

int eng_reaper_start(void)
{
	struct sigaction sa = { .sa_handler = on_timer };	/* no SA_RESTART */
	sigset_t all, old;
	int ret;

	if (rp.running)
		return 0;
	rp.signo = SIGRTMIN;
	sigemptyset(&sa.sa_mask);
	if (sigaction(rp.signo, &sa, NULL) < 0)
		return -errno;
	/* The thread starts with everything blocked; it unblocks only its
	 * timer's signal, so SIGTERM and friends still reach the loop's
	 * signalfd.  The loop thread blocks the timer signal too. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&rp.thread, NULL, reaper_main, NULL);
	sigaddset(&old, rp.signo);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -ret;
	rp.running = true;
	return 0;
}

void eng_fd_dispose(int fd)
{
	if (fd < 0)
		return;
	pthread_mutex_lock(&rp.lock);
	if (rp.running && !rp.stopping) {
		if (rp.n == rp.cap) {
			unsigned cap = rp.cap ? rp.cap * 2 : 64;
			int *f = realloc(rp.fds, cap * sizeof(*f));

			if (f) {
				rp.fds = f;
				rp.cap = cap;
			}
		}
		if (rp.n < rp.cap) {
			rp.fds[rp.n++] = fd;
			pthread_cond_signal(&rp.more);
			pthread_mutex_unlock(&rp.lock);
			eng_stat_inc(fds_reaped);
			return;
		}
	}
	pthread_mutex_unlock(&rp.lock);
	/* No reaper: the best we can do here. */
	unlinger(fd);
	close(fd);
}

unsigned eng_reaper_backlog(void)
{
	unsigned n;

	pthread_mutex_lock(&rp.lock);
	n = rp.n;
	pthread_mutex_unlock(&rp.lock);
	return n;
}

void eng_reaper_stop(void)
{
	struct timespec until;

	if (!rp.running)
		return;
	pthread_mutex_lock(&rp.lock);
	rp.stopping = true;
	pthread_cond_signal(&rp.more);
	pthread_mutex_unlock(&rp.lock);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	if (pthread_timedjoin_np(rp.thread, NULL, &until) != 0) {
		/* Stuck in a close no signal ends; exit will take it. */
		eng_warn("fd reaper did not finish: %u fds left", rp.n);
		pthread_detach(rp.thread);
	}
	rp.running = false;
}
