/* SPDX-License-Identifier: MIT */
/* Unit tests of the netns pieces that need no root: watch message parsing,
 * and the error paths of opening and naming namespaces. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <cmocka.h>

#include "netns/netns.h"

/* Appends one netlink message with a zeroed payload of plen bytes. */
static size_t put_msg(char *buf, size_t off, uint16_t type, size_t plen)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)(buf + off);

	memset(nh, 0, NLMSG_SPACE(plen));
	nh->nlmsg_len = NLMSG_LENGTH(plen);
	nh->nlmsg_type = type;
	return off + NLMSG_SPACE(plen);
}

static void test_netns_watch__link_and_addr_events(void **state)
{
	static const uint16_t types[] = {
		RTM_NEWLINK, RTM_DELLINK, RTM_NEWADDR, RTM_DELADDR,
	};
	alignas(struct nlmsghdr) char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t len = put_msg(buf, 0, types[i], sizeof(struct ifinfomsg));

		assert_int_equal(netns_watch_parse(buf, len), 1);
	}
}

static void test_netns_watch__other_messages_ignored(void **state)
{
	alignas(struct nlmsghdr) char buf[256];
	size_t len;

	(void)state;
	len = put_msg(buf, 0, RTM_NEWROUTE, sizeof(struct rtmsg));
	len = put_msg(buf, len, RTM_NEWNEIGH, 12);
	len = put_msg(buf, len, NLMSG_NOOP, 0);
	assert_int_equal(netns_watch_parse(buf, len), 0);
	assert_int_equal(netns_watch_parse(buf, 0), 0);
}

/* An event after unrelated messages in the same datagram still counts. */
static void test_netns_watch__event_after_others(void **state)
{
	alignas(struct nlmsghdr) char buf[256];
	size_t len;

	(void)state;
	len = put_msg(buf, 0, RTM_NEWROUTE, sizeof(struct rtmsg));
	len = put_msg(buf, len, RTM_NEWADDR, sizeof(struct ifaddrmsg));
	assert_int_equal(netns_watch_parse(buf, len), 1);
}

/* Truncated or lying headers stop parsing without reading past len. */
static void test_netns_watch__malformed_stops(void **state)
{
	alignas(struct nlmsghdr) char buf[256];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	size_t len;

	(void)state;
	len = put_msg(buf, 0, RTM_NEWLINK, sizeof(struct ifinfomsg));
	assert_int_equal(netns_watch_parse(buf, sizeof(*nh) - 1), 0);
	nh->nlmsg_len = (uint32_t)len + 64;
	assert_int_equal(netns_watch_parse(buf, len), 0);
	nh->nlmsg_len = 4;
	assert_int_equal(netns_watch_parse(buf, len), 0);
}

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netns_watch__link_and_addr_events),
		cmocka_unit_test(test_netns_watch__other_messages_ignored),
		cmocka_unit_test(test_netns_watch__event_after_others),
		cmocka_unit_test(test_netns_watch__malformed_stops),
		cmocka_unit_test(test_netns_ns__open_errors),
		cmocka_unit_test(test_netns_ns__open_self_cloexec),
		cmocka_unit_test(test_netns_ns__bad_fds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
