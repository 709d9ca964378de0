/* SPDX-License-Identifier: MIT */
/*
 * The engine's seccomp filter: loaded in a forked child (a filter cannot be
 * removed), which then tries calls the filter refuses and calls the engine
 * keeps making.  The child reports the first wrong result on stderr and
 * through its exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_seccomp.h"

/* Fails the child: prints what went wrong, exits 1. */
#define CHILD_CHECK(cond, what) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "child: %s (errno %d: %s)\n", (what),	\
			errno, strerror(errno));			\
		_exit(1);						\
	}								\
} while (0)

/* ret == -1 with errno == err */
#define CHILD_REFUSED(ret, err, what) \
	CHILD_CHECK((ret) == -1 && errno == (err), what " refused")

static void child_apply(void)
{
	int n = eng_seccomp_apply();

	if (n < 0)
		errno = -n;
	CHILD_CHECK(n > 20, "filter installed with a deny-list");
}

static int seccomp_mode(void)
{
	char line[256];
	int mode = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	fclose(f);
	return mode;
}

/* Runs fn in a forked child; asserts it exited 0. */
static void run_in_child(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void refused_calls(void)
{
	char *const argv[] = { "true", NULL };
	char src[8] = "podverb", dst[8] = { 0 };
	struct iovec l = { dst, sizeof(dst) }, rv = { src, sizeof(src) };
	int fd;
	long r;

	child_apply();
	CHILD_CHECK(seccomp_mode() == 2, "Seccomp: 2 in /proc/self/status");
	CHILD_REFUSED(execve("/bin/true", argv, environ), EPERM, "execve");
	CHILD_REFUSED(ptrace(PTRACE_TRACEME, 0, NULL, NULL), EPERM, "ptrace");
	CHILD_REFUSED(unshare(CLONE_NEWNET), EPERM, "unshare");
	CHILD_REFUSED(mount("none", "/", "tmpfs", 0, NULL), EPERM, "mount");
	CHILD_REFUSED(chroot("/"), EPERM, "chroot");
	CHILD_REFUSED(syscall(SYS_bpf, 0, NULL, 0), EPERM, "bpf");
	CHILD_REFUSED(syscall(SYS_keyctl, 0, 0, 0, 0, 0), EPERM, "keyctl");
	CHILD_REFUSED(syscall(SYS_init_module, NULL, 0, ""), EPERM,
		      "init_module");
	/* Client memory is reached only through memfds the engine maps
	 * (issue 8, finding 2): even its own pid is refused. */
	CHILD_REFUSED(process_vm_readv(getpid(), &l, 1, &rv, 1, 0), EPERM,
		      "process_vm_readv");
	CHILD_REFUSED(process_vm_writev(getpid(), &rv, 1, &l, 1, 0), EPERM,
		      "process_vm_writev");
	/* setns: network namespaces only (the kernel alone would say
	 * EINVAL for a UTS fd passed with the wrong or any type) */
	fd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	CHILD_CHECK(fd >= 0, "open /proc/self/ns/uts");
	CHILD_REFUSED(setns(fd, CLONE_NEWUTS), EPERM, "setns(CLONE_NEWUTS)");
	CHILD_REFUSED(setns(fd, 0), EPERM, "setns(0)");
	close(fd);
	/* clone with a namespace flag; the raw call forks if it is let
	 * through, so a child that appears leaves at once */
	r = syscall(SYS_clone, CLONE_NEWUTS | SIGCHLD, NULL, NULL, NULL, NULL);
	if (r == 0)
		_exit(0);
	CHILD_REFUSED(r, EPERM, "clone(CLONE_NEWUTS)");
}

static void *thread_fn(void *arg)
{
	return arg;
}

/* Exchanges one fd over a SEQPACKET pair with SCM_RIGHTS, as the engine
 * does with its clients. */
static void child_scm_rights(int pass_fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 'x';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	int sp[2];

	CHILD_CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
			       sp) == 0, "socketpair(SEQPACKET)");
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	CHILD_CHECK(sendmsg(sp[0], &m, 0) == 1, "sendmsg(SCM_RIGHTS)");
	CHILD_CHECK(recvmsg(sp[1], &m, MSG_CMSG_CLOEXEC) == 1,
		    "recvmsg(SCM_RIGHTS)");
	close(sp[0]);
	close(sp[1]);
}

static void engine_calls(void)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };
	uint64_t v = 1;
	pthread_t tid;
	void *out = NULL;
	int fd, efd, ep, nl, tfd;
	char *p;
	long r;

	child_apply();
	/* clone3 says ENOSYS, so glibc falls back to clone for threads (a
	 * plain fork if let through: that child leaves at once) */
	r = syscall(SYS_clone3, &ca, sizeof(ca));
	if (r == 0)
		_exit(0);
	CHILD_REFUSED(r, ENOSYS, "clone3");
	CHILD_CHECK(pthread_create(&tid, NULL, thread_fn, &v) == 0,
		    "pthread_create");
	CHILD_CHECK(pthread_join(tid, &out) == 0 && out == &v, "pthread_join");
	fd = memfd_create("pv-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	CHILD_CHECK(fd >= 0, "memfd_create");
	CHILD_CHECK(ftruncate(fd, 4096) == 0, "ftruncate");
	CHILD_CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0,
		    "F_ADD_SEALS");
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHILD_CHECK(p != MAP_FAILED, "mmap");
	CHILD_CHECK(munmap(p, 4096) == 0, "munmap");
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	CHILD_CHECK(efd >= 0 && write(efd, &v, sizeof(v)) == sizeof(v),
		    "eventfd");
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHILD_CHECK(ep >= 0, "epoll_create1");
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	CHILD_CHECK(tfd >= 0, "timerfd_create");
	child_scm_rights(fd);
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	CHILD_CHECK(nl >= 0, "socket(NETLINK_ROUTE)");
	CHILD_CHECK(getrandom(&v, sizeof(v), 0) == sizeof(v), "getrandom");
	/* netns_run's setns into a network namespace (needs CAP_SYS_ADMIN;
	 * the filter must not be what refuses it) */
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	CHILD_CHECK(fd >= 0, "open /proc/self/ns/net");
	if (geteuid() == 0)
		CHILD_CHECK(setns(fd, CLONE_NEWNET) == 0, "setns(CLONE_NEWNET)");
}

static pthread_barrier_t applied;

/* Started before the filter: TSYNC must cover it too. */
static void *early_thread(void *arg)
{
	char *const argv[] = { "true", NULL };

	(void)arg;
	pthread_barrier_wait(&applied);
	CHILD_CHECK(seccomp_mode() == 2, "Seccomp: 2 in the early thread");
	CHILD_REFUSED(execve("/bin/true", argv, environ), EPERM,
		      "execve from a thread started before the filter");
	return NULL;
}

static void other_threads(void)
{
	pthread_t tid;

	pthread_barrier_init(&applied, NULL, 2);
	CHILD_CHECK(pthread_create(&tid, NULL, early_thread, NULL) == 0,
		    "pthread_create");
	child_apply();
	pthread_barrier_wait(&applied);
	CHILD_CHECK(pthread_join(tid, NULL) == 0, "pthread_join");
}

static void test_eng_seccomp__refuses_denied_calls(void **state)
{
	(void)state;
	run_in_child(refused_calls);
}

static void test_eng_seccomp__engine_calls_still_work(void **state)
{
	(void)state;
	run_in_child(engine_calls);
}

static void test_eng_seccomp__covers_threads_started_before(void **state)
{
	(void)state;
	run_in_child(other_threads);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_seccomp__refuses_denied_calls),
		cmocka_unit_test(test_eng_seccomp__engine_calls_still_work),
		cmocka_unit_test(test_eng_seccomp__covers_threads_started_before),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
