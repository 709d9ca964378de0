/* SPDX-License-Identifier: MIT */
/* Unit tests of watch message parsing (no sockets, no root). */
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netns_watch__link_and_addr_events),
		cmocka_unit_test(test_netns_watch__other_messages_ignored),
		cmocka_unit_test(test_netns_watch__event_after_others),
		cmocka_unit_test(test_netns_watch__malformed_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
