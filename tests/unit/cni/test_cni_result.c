/* SPDX-License-Identifier: MIT */
/* Unit tests of result JSON: version, error, pass-through conversion, and
 * reading prevResult. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "cni-plugin/cni_result.h"

static const char *prev_text =
	"{\"cniVersion\":\"1.0.0\","
	" \"interfaces\":[{\"name\":\"cni0\",\"mac\":\"aa:bb:cc:dd:ee:ff\"},"
	"  {\"name\":\"veth1\",\"mac\":\"aa:bb:cc:dd:ee:01\"},"
	"  {\"name\":\"eth0\",\"mac\":\"aa:bb:cc:dd:ee:02\",\"sandbox\":\"/run/netns/p1\"}],"
	" \"ips\":[{\"address\":\"10.88.0.5/16\",\"gateway\":\"10.88.0.1\",\"interface\":2},"
	"  {\"address\":\"fd00::5/64\",\"interface\":2},"
	"  {\"address\":\"10.99.0.1/24\",\"interface\":0}],"
	" \"routes\":[{\"dst\":\"0.0.0.0/0\"}],\"dns\":{}}";

static void test_cni_result__version(void **state)
{
	char *s = cni_result_version("1.0.0");
	cJSON *j = cJSON_Parse(s);

	assert_string_equal(cJSON_GetObjectItem(j, "cniVersion")->valuestring, "1.0.0");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "supportedVersions")), 5);
	cJSON_Delete(j);
	free(s);
	s = cni_result_version("7.0.0");
	j = cJSON_Parse(s);
	assert_string_equal(cJSON_GetObjectItem(j, "cniVersion")->valuestring, "1.1.0");
	cJSON_Delete(j);
	free(s);
}

static void test_cni_result__error(void **state)
{
	struct cni_err err = { 0 };
	char *s;
	cJSON *j;

	cni_fail(&err, CNI_ERR_INVALID_ENV, "CNI_%s is not set", "IFNAME");
	cni_fail(&err, CNI_ERR_IO, "later errors do not replace the first");
	cni_fail_details(&err, "d");
	s = cni_result_error("0.4.0", &err);
	j = cJSON_Parse(s);
	assert_string_equal(cJSON_GetObjectItem(j, "cniVersion")->valuestring, "0.4.0");
	assert_int_equal(cJSON_GetObjectItem(j, "code")->valueint, 4);
	assert_string_equal(cJSON_GetObjectItem(j, "msg")->valuestring, "CNI_IFNAME is not set");
	assert_string_equal(cJSON_GetObjectItem(j, "details")->valuestring, "d");
	cJSON_Delete(j);
	free(s);
}

static void test_cni_result__pass_through(void **state)
{
	cJSON *prev = cJSON_Parse(prev_text);
	cJSON *r = cni_result_convert(prev, CNI_V_1_1_0);
	cJSON *ips, *ip;

	assert_string_equal(cJSON_GetObjectItem(r, "cniVersion")->valuestring, "1.1.0");
	/* Only cniVersion differs: nothing added for other plugins. */
	cJSON_ReplaceItemInObject(prev, "cniVersion", cJSON_CreateString("1.1.0"));
	assert_true(cJSON_Compare(prev, r, 1));
	cJSON_Delete(r);

	r = cni_result_convert(prev, CNI_V_0_4_0);
	ips = cJSON_GetObjectItem(r, "ips");
	ip = cJSON_GetArrayItem(ips, 0);
	assert_string_equal(cJSON_GetObjectItem(ip, "version")->valuestring, "4");
	ip = cJSON_GetArrayItem(ips, 1);
	assert_string_equal(cJSON_GetObjectItem(ip, "version")->valuestring, "6");
	/* ...and back: 1.0.0 has no per-IP version. */
	cJSON *back = cni_result_convert(r, CNI_V_1_0_0);

	ip = cJSON_GetArrayItem(cJSON_GetObjectItem(back, "ips"), 0);
	assert_null(cJSON_GetObjectItem(ip, "version"));
	cJSON_Delete(back);
	cJSON_Delete(r);
	cJSON_Delete(prev);
}

static void test_cni_result__find_iface_and_ips(void **state)
{
	cJSON *prev = cJSON_Parse(prev_text);
	struct cni_ip ips[4];
	int i;

	i = cni_result_find_iface(prev, "eth0", "/run/netns/p1");
	assert_int_equal(i, 2);
	/* Another path to the namespace: still found. */
	assert_int_equal(cni_result_find_iface(prev, "eth0", "/proc/1/ns/net"), 2);
	/* Host-side interfaces have no sandbox. */
	assert_true(cni_result_find_iface(prev, "cni0", "") < 0);
	assert_true(cni_result_find_iface(prev, "eth1", "") < 0);
	assert_int_equal(cni_result_ips(prev, i, 0, ips, 4), 2);
	assert_int_equal(ips[0].family, AF_INET);
	assert_int_equal(ips[0].prefixlen, 16);
	assert_memory_equal(ips[0].addr, "\x0a\x58\x00\x05", 4);
	assert_int_equal(ips[1].family, AF_INET6);
	assert_int_equal(ips[1].addr[15], 5);
	cJSON_Delete(prev);
}

static void test_cni_result__ip_parse(void **state)
{
	struct cni_ip ip;

	assert_int_equal(cni_ip_parse("192.168.1.2/24", &ip), 0);
	assert_true(cni_ip_parse("192.168.1.2", &ip) < 0);
	assert_true(cni_ip_parse("192.168.1.2/33", &ip) < 0);
	assert_true(cni_ip_parse("192.168.1.2/", &ip) < 0);
	assert_true(cni_ip_parse("fe80::1/129", &ip) < 0);
	assert_true(cni_ip_parse("x/1", &ip) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cni_result__version),
		cmocka_unit_test(test_cni_result__error),
		cmocka_unit_test(test_cni_result__pass_through),
		cmocka_unit_test(test_cni_result__find_iface_and_ips),
		cmocka_unit_test(test_cni_result__ip_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
