/* SPDX-License-Identifier: MIT */
/* Unit tests of opening, naming and entering namespaces that need no root:
 * error paths, ids, and netns_run into the caller's own namespace (which
 * needs no privilege). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "netns/netns.h"

static void test_netns_ns__open_errors(void **state)
{
	(void)state;
	assert_int_equal(netns_open("/nonexistent/netns"), -ENOENT);
	/* Not a namespace at all, and a namespace of the wrong kind. */
	assert_int_equal(netns_open("/dev/null"), -EINVAL);
	assert_int_equal(netns_open("/proc/self/ns/uts"), -EINVAL);
	assert_int_equal(netns_open_pid(-1), -EINVAL);
	assert_int_equal(netns_open_pid(0x7ffffff0), -ESRCH);
}

static void test_netns_ns__open_self_cloexec(void **state)
{
	struct netns_id a, b, c;
	int fd, fd2;

	(void)state;
	fd = netns_open(NULL);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	fd2 = netns_open_pid(getpid());
	assert_true(fd2 >= 0);
	assert_int_equal(netns_id_of_fd(fd, &a), 0);
	assert_int_equal(netns_id_of_fd(fd2, &b), 0);
	assert_int_equal(netns_id_of_pid(0, &c), 0);
	assert_true(netns_id_equal(&a, &b));
	assert_true(netns_id_equal(&a, &c));
	assert_int_equal(netns_id_of_pid(getpid(), &c), 0);
	assert_true(netns_id_equal(&a, &c));
	close(fd);
	close(fd2);
}

static int never_called(void *arg)
{
	(void)arg;
	fail();
	return 0;
}

static void test_netns_ns__bad_fds(void **state)
{
	struct netns_id id;
	int fd;

	(void)state;
	assert_int_equal(netns_id_of_fd(-1, &id), -EBADF);
	assert_int_equal(netns_id_of_pid(0x7ffffff0, &id), -ESRCH);
	assert_int_equal(netns_run(-1, never_called, NULL), -EBADF);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(netns_run(fd, never_called, NULL), -EINVAL);
	assert_int_equal(netns_socket(fd, AF_INET, SOCK_DGRAM, 0), -EINVAL);
	assert_int_equal(netns_watch_open(fd), -EINVAL);
	close(fd);
}

static int report_ns(void *arg)
{
	return netns_id_of_pid(0, arg);
}

static int give_back(void *arg)
{
	return *(int *)arg;
}

static void test_netns_ns__run_in_own_namespace(void **state)
{
	struct netns_id self, seen;
	int fd, v = -ENOTCONN, s;

	(void)state;
	fd = netns_open(NULL);
	assert_true(fd >= 0);
	assert_int_equal(netns_id_of_pid(0, &self), 0);
	assert_int_equal(netns_run(fd, report_ns, &seen), 0);
	assert_true(netns_id_equal(&self, &seen));
	assert_int_equal(netns_run(fd, give_back, &v), -ENOTCONN);
	v = 42;
	assert_int_equal(netns_run(fd, give_back, &v), 42);
	assert_int_equal(netns_run(fd, NULL, NULL), -EINVAL);
	s = netns_socket(fd, AF_INET, SOCK_DGRAM, 0);
	assert_true(s >= 0);
	assert_true(fcntl(s, F_GETFD) & FD_CLOEXEC);
	close(s);
	close(fd);
}

/* A watch on our own namespace needs no privilege; with nothing queued a
 * drain reports no change and does not block. */
static void test_netns_ns__watch_own_namespace(void **state)
{
	int fd, w;

	(void)state;
	fd = netns_open(NULL);
	assert_true(fd >= 0);
	w = netns_watch_open(fd);
	assert_true(w >= 0);
	assert_true(fcntl(w, F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(w, F_GETFL) & O_NONBLOCK);
	assert_int_equal(netns_watch_drain(w), 0);
	close(w);
	close(fd);
	assert_int_equal(netns_watch_drain(-1), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netns_ns__open_errors),
		cmocka_unit_test(test_netns_ns__open_self_cloexec),
		cmocka_unit_test(test_netns_ns__bad_fds),
		cmocka_unit_test(test_netns_ns__run_in_own_namespace),
		cmocka_unit_test(test_netns_ns__watch_own_namespace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
