/* SPDX-License-Identifier: MIT */
/* Unit tests of GID derivation: IPv4-mapped GIDs, table order with
 * secondary / tentative / link-local mixes, truncation, formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <cmocka.h>

#include "netns/netns.h"

#define SCOPE_GLOBAL	0
#define SCOPE_LINK	253
#define SCOPE_HOST	254

static void add_addr(struct netns_link *l, const char *txt, uint8_t scope,
		     uint32_t flags)
{
	struct netns_addr *a = &l->addrs[l->naddrs++];

	memset(a, 0, sizeof(*a));
	a->family = strchr(txt, ':') ? AF_INET6 : AF_INET;
	assert_int_equal(inet_pton(a->family, txt, a->addr), 1);
	a->prefixlen = a->family == AF_INET ? 24 : 64;
	a->scope = scope;
	a->flags = flags | IFA_F_PERMANENT;
}

static const char *fmt(const struct netns_gid *g)
{
	static char buf[8][40];
	static int next;
	char *b = buf[next++ % 8];

	netns_gid_format(g, b);
	return b;
}

/* The expected text of GID i, checked against our table. */
static void assert_gids(const struct netns_gid *g, int n, const char **want)
{
	int i;

	for (i = 0; want[i]; i++) {
		assert_true(i < n);
		assert_string_equal(fmt(&g[i]), want[i]);
	}
	assert_int_equal(n, i);
}

static void test_netns_gid__ipv4_mapped(void **state)
{
	const uint8_t v4[4] = { 10, 0, 0, 1 };
	struct netns_gid g;

	(void)state;
	memset(&g, 0xaa, sizeof(g));
	netns_gid_from_ipv4(v4, &g);
	for (int i = 0; i < 10; i++)
		assert_int_equal(g.raw[i], 0);
	assert_int_equal(g.raw[10], 0xff);
	assert_int_equal(g.raw[11], 0xff);
	assert_memory_equal(&g.raw[12], v4, 4);
	assert_string_equal(fmt(&g), "0000:0000:0000:0000:0000:ffff:0a00:0001");
}

static void test_netns_gid__ipv6_copied(void **state)
{
	uint8_t v6[16];
	struct netns_gid g;

	(void)state;
	assert_int_equal(inet_pton(AF_INET6, "fe80::1:2:abcd", v6), 1);
	netns_gid_from_ipv6(v6, &g);
	assert_memory_equal(g.raw, v6, 16);
	assert_string_equal(fmt(&g), "fe80:0000:0000:0000:0000:0001:0002:abcd");
}

static void test_netns_gid__format_all_digits(void **state)
{
	struct netns_gid g;
	char buf[48];

	(void)state;
	for (int i = 0; i < 16; i++)
		g.raw[i] = (uint8_t)(0x10 * i + 0xf - i);
	memset(buf, 'X', sizeof(buf));
	netns_gid_format(&g, buf);
	assert_int_equal(strlen(buf), 39);
	assert_string_equal(buf, "0f1e:2d3c:4b5a:6978:8796:a5b4:c3d2:e1f0");
}

/* Primary first even when the kernel lists a secondary or a non-global
 * address before it. */
static void test_netns_gid__primary_ipv4_first(void **state)
{
	struct netns_link l = { 0 };
	struct netns_gid g[NETNS_GID_MAX];
	const char *want[] = {
		"0000:0000:0000:0000:0000:ffff:0a00:0001",
		"0000:0000:0000:0000:0000:ffff:a9fe:0001",
		"0000:0000:0000:0000:0000:ffff:0a00:0002",
		NULL,
	};

	(void)state;
	add_addr(&l, "169.254.0.1", SCOPE_LINK, 0);
	add_addr(&l, "10.0.0.2", SCOPE_GLOBAL, IFA_F_SECONDARY);
	add_addr(&l, "10.0.0.1", SCOPE_GLOBAL, 0);
	/* 169.254/16 is not global, so it is "other IPv4", in kernel order
	 * with the secondary. */
	assert_gids(g, netns_gid_table(&l, g, NETNS_GID_MAX), want);
}

static void test_netns_gid__order_v4_v6_linklocal(void **state)
{
	struct netns_link l = { 0 };
	struct netns_gid g[NETNS_GID_MAX];
	const char *want[] = {
		"0000:0000:0000:0000:0000:ffff:c0a8:0001",
		"0000:0000:0000:0000:0000:ffff:c0a8:0002",
		"2001:0db8:0000:0000:0000:0000:0000:0001",
		"fd00:0000:0000:0000:0000:0000:0000:0001",
		"fe80:0000:0000:0000:0000:0000:0000:0001",
		NULL,
	};

	(void)state;
	/* Deliberately interleaved: order must not follow the input. */
	add_addr(&l, "fe80::1", SCOPE_LINK, 0);
	add_addr(&l, "2001:db8::1", SCOPE_GLOBAL, 0);
	add_addr(&l, "192.168.0.1", SCOPE_GLOBAL, 0);
	add_addr(&l, "fd00::1", SCOPE_GLOBAL, 0);
	add_addr(&l, "192.168.0.2", SCOPE_GLOBAL, IFA_F_SECONDARY);
	assert_gids(g, netns_gid_table(&l, g, NETNS_GID_MAX), want);
}

static void test_netns_gid__tentative_and_dadfailed_skipped(void **state)
{
	struct netns_link l = { 0 };
	struct netns_gid g[NETNS_GID_MAX];
	const char *want[] = {
		"0000:0000:0000:0000:0000:ffff:0a00:0001",
		"2001:0db8:0000:0000:0000:0000:0000:0003",
		NULL,
	};

	(void)state;
	add_addr(&l, "10.0.0.1", SCOPE_GLOBAL, 0);
	add_addr(&l, "2001:db8::1", SCOPE_GLOBAL, IFA_F_TENTATIVE);
	add_addr(&l, "2001:db8::2", SCOPE_GLOBAL, IFA_F_DADFAILED);
	add_addr(&l, "2001:db8::3", SCOPE_GLOBAL, 0);
	add_addr(&l, "fe80::1", SCOPE_LINK, IFA_F_TENTATIVE);
	assert_gids(g, netns_gid_table(&l, g, NETNS_GID_MAX), want);
}

/* For IPv6 the "secondary" bit means a temporary (privacy) address, which
 * is a perfectly usable GID. */
static void test_netns_gid__ipv6_temporary_kept(void **state)
{
	struct netns_link l = { 0 };
	struct netns_gid g[NETNS_GID_MAX];
	const char *want[] = {
		"2001:0db8:0000:0000:0000:0000:0000:0001",
		"2001:0db8:0000:0000:0000:0000:0000:0002",
		NULL,
	};

	(void)state;
	add_addr(&l, "2001:db8::1", SCOPE_GLOBAL, 0);
	add_addr(&l, "2001:db8::2", SCOPE_GLOBAL, IFA_F_TEMPORARY);
	assert_gids(g, netns_gid_table(&l, g, NETNS_GID_MAX), want);
}

/* No global non-secondary IPv4: no index 0 special case, the rest keeps
 * its order. */
static void test_netns_gid__no_primary(void **state)
{
	struct netns_link l = { 0 };
	struct netns_gid g[NETNS_GID_MAX];
	const char *want[] = {
		"0000:0000:0000:0000:0000:ffff:7f00:0001",
		"fe80:0000:0000:0000:0000:0000:0000:0001",
		NULL,
	};

	(void)state;
	add_addr(&l, "fe80::1", SCOPE_LINK, 0);
	add_addr(&l, "127.0.0.1", SCOPE_HOST, 0);
	assert_gids(g, netns_gid_table(&l, g, NETNS_GID_MAX), want);
}

static void test_netns_gid__empty(void **state)
{
	struct netns_link l = { 0 };
	struct netns_gid g[NETNS_GID_MAX];

	(void)state;
	assert_int_equal(netns_gid_table(&l, g, NETNS_GID_MAX), 0);
	assert_int_equal(netns_gid_table(NULL, g, NETNS_GID_MAX), 0);
	add_addr(&l, "10.0.0.1", SCOPE_GLOBAL, 0);
	assert_int_equal(netns_gid_table(&l, g, 0), 0);
}

/* Truncation keeps the head of the order: primary first, link-local lost
 * first; nothing is written past max. */
static void test_netns_gid__max_truncates(void **state)
{
	struct netns_link l = { 0 };
	struct netns_gid g[4];
	const char *want[] = {
		"0000:0000:0000:0000:0000:ffff:0a00:0001",
		"0000:0000:0000:0000:0000:ffff:0a00:0002",
		NULL,
	};

	(void)state;
	add_addr(&l, "fe80::1", SCOPE_LINK, 0);
	add_addr(&l, "2001:db8::1", SCOPE_GLOBAL, 0);
	add_addr(&l, "10.0.0.2", SCOPE_GLOBAL, IFA_F_SECONDARY);
	add_addr(&l, "10.0.0.1", SCOPE_GLOBAL, 0);
	memset(g, 0x5a, sizeof(g));
	assert_gids(g, netns_gid_table(&l, g, 2), want);
	for (size_t i = 0; i < sizeof(g[2].raw); i++)
		assert_int_equal(g[2].raw[i], 0x5a);
	assert_int_equal(netns_gid_table(&l, g, 1), 1);
	assert_string_equal(fmt(&g[0]), want[0]);
}

/* A full address list yields at most NETNS_ADDR_MAX GIDs, and a bogus
 * naddrs is clamped rather than read past the array. */
static void test_netns_gid__full_table(void **state)
{
	struct netns_link l = { 0 };
	struct netns_gid g[NETNS_ADDR_MAX + 4];
	char txt[32];

	(void)state;
	for (int i = 0; i < NETNS_ADDR_MAX; i++) {
		snprintf(txt, sizeof(txt), "10.0.%d.1", i);
		add_addr(&l, txt, SCOPE_GLOBAL, i ? IFA_F_SECONDARY : 0);
	}
	assert_int_equal(netns_gid_table(&l, g, NETNS_ADDR_MAX + 4),
			 NETNS_ADDR_MAX);
	l.naddrs = NETNS_ADDR_MAX + 100;
	assert_int_equal(netns_gid_table(&l, g, NETNS_ADDR_MAX + 4),
			 NETNS_ADDR_MAX);
	assert_string_equal(fmt(&g[NETNS_ADDR_MAX - 1]),
			    "0000:0000:0000:0000:0000:ffff:0a00:0f01");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netns_gid__ipv4_mapped),
		cmocka_unit_test(test_netns_gid__ipv6_copied),
		cmocka_unit_test(test_netns_gid__format_all_digits),
		cmocka_unit_test(test_netns_gid__primary_ipv4_first),
		cmocka_unit_test(test_netns_gid__order_v4_v6_linklocal),
		cmocka_unit_test(test_netns_gid__tentative_and_dadfailed_skipped),
		cmocka_unit_test(test_netns_gid__ipv6_temporary_kept),
		cmocka_unit_test(test_netns_gid__no_primary),
		cmocka_unit_test(test_netns_gid__empty),
		cmocka_unit_test(test_netns_gid__max_truncates),
		cmocka_unit_test(test_netns_gid__full_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
