/* SPDX-License-Identifier: MIT */
/* Unit tests of the CNI environment and network config parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cni-plugin/cni_conf.h"
#include "cni-plugin/cni_env.h"

static const char *const *fake_env;

static const char *fake_get(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = fake_env; *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static int parse(struct cni_conf *c, const char *json, struct cni_err *err)
{
	memset(err, 0, sizeof(*err));
	return cni_conf_parse(c, json, strlen(json), err);
}

static void test_cni_env__full_add(void **state)
{
	static const char *const env[] = {
		"CNI_COMMAND=ADD", "CNI_CONTAINERID=abc-1.2_x",
		"CNI_NETNS=/run/netns/p1", "CNI_IFNAME=eth0",
		"CNI_PATH=/usr/lib/cni", NULL,
	};
	struct cni_err err = { 0 };
	struct cni_env e;

	fake_env = env;
	assert_int_equal(cni_env_command(&e, fake_get, &err), 0);
	assert_int_equal(e.cmd, CNI_CMD_ADD);
	assert_int_equal(cni_env_read(&e, fake_get, &err), 0);
	assert_string_equal(e.containerid, "abc-1.2_x");
	assert_string_equal(e.netns, "/run/netns/p1");
	assert_string_equal(e.ifname, "eth0");
}

static void test_cni_env__missing_names_every_variable(void **state)
{
	static const char *const env[] = { "CNI_COMMAND=CHECK", NULL };
	struct cni_err err = { 0 };
	struct cni_env e;

	fake_env = env;
	assert_int_equal(cni_env_command(&e, fake_get, &err), 0);
	assert_true(cni_env_read(&e, fake_get, &err) < 0);
	assert_int_equal(err.code, CNI_ERR_INVALID_ENV);
	assert_non_null(strstr(err.msg, "CNI_CONTAINERID"));
	assert_non_null(strstr(err.msg, "CNI_NETNS"));
	assert_non_null(strstr(err.msg, "CNI_IFNAME"));
	assert_non_null(strstr(err.msg, "CNI_PATH"));
}

static void test_cni_env__del_without_netns(void **state)
{
	static const char *const env[] = {
		"CNI_COMMAND=DEL", "CNI_CONTAINERID=c1", "CNI_NETNS=",
		"CNI_IFNAME=eth0", "CNI_PATH=/x", NULL,
	};
	struct cni_err err = { 0 };
	struct cni_env e;

	fake_env = env;
	assert_int_equal(cni_env_command(&e, fake_get, &err), 0);
	assert_int_equal(cni_env_read(&e, fake_get, &err), 0);
	assert_string_equal(e.netns, "");
}

static void test_cni_env__bad_command_and_names(void **state)
{
	static const char *const env[] = { "CNI_COMMAND=FOO", NULL };
	struct cni_err err = { 0 };
	struct cni_env e;

	fake_env = env;
	assert_true(cni_env_command(&e, fake_get, &err) < 0);
	assert_int_equal(err.code, CNI_ERR_INVALID_ENV);
	assert_non_null(strstr(err.msg, "FOO"));
	assert_false(cni_ifname_valid("a/b"));
	assert_false(cni_ifname_valid("0123456789abcdef"));
	assert_false(cni_ifname_valid(".."));
	assert_true(cni_ifname_valid("net1"));
	assert_false(cni_containerid_valid("-abc"));
	assert_false(cni_containerid_valid("a b"));
	assert_true(cni_containerid_valid("a.b-c_d"));
}

static void test_cni_conf__defaults(void **state)
{
	struct cni_err err;
	struct cni_conf c;

	assert_int_equal(parse(&c, "{\"cniVersion\":\"1.0.0\",\"name\":\"rdma\",\"type\":\"podverbs\"}", &err), 0);
	assert_int_equal(c.ver, CNI_V_1_0_0);
	assert_int_equal(c.mode, CNI_MODE_SOFT);
	assert_int_equal(c.pkey, 0);
	assert_string_equal(c.state_dir, CNI_DEFAULT_STATE_DIR);
	assert_null(c.prev_result);
	cni_conf_defaults(&c, "eth0", NULL);
	assert_string_equal(c.device_name, "pv_eth0");
	assert_string_equal(c.engine_socket, PV_IPC_DEFAULT_SOCKET);
	cni_conf_free(&c);
	assert_int_equal(parse(&c, "{\"cniVersion\":\"1.1.0\",\"name\":\"r\"}", &err), 0);
	cni_conf_defaults(&c, "e@x", "/tmp/eng.sock");
	assert_string_equal(c.device_name, "pv_e_x");
	assert_string_equal(c.engine_socket, "/tmp/eng.sock");
	cni_conf_free(&c);
}

static void test_cni_conf__pkey_forms(void **state)
{
	struct cni_err err;
	struct cni_conf c;

	assert_int_equal(parse(&c, "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"pkey\":\"0x8001\"}", &err), 0);
	assert_int_equal(c.pkey, 0x8001);
	cni_conf_free(&c);
	assert_int_equal(parse(&c, "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"pkey\":32770}", &err), 0);
	assert_int_equal(c.pkey, 0x8002);
	cni_conf_free(&c);
	static const char *const bad[] = {
		"\"0x8000\"", "0", "\"0x10000\"", "65536", "\"zz\"", "\"\"",
		"1.5", "true", "-1", "\"0x8001x\"",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char json[128];

		snprintf(json, sizeof(json),
			 "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"pkey\":%s}",
			 bad[i]);
		assert_true(parse(&c, json, &err) < 0);
		assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
		assert_non_null(strstr(err.msg, "pkey"));
		cni_conf_free(&c);
	}
}

static void test_cni_conf__errors(void **state)
{
	struct cni_err err;
	struct cni_conf c;

	assert_true(parse(&c, "{\"cniVersion\":", &err) < 0);
	assert_int_equal(err.code, CNI_ERR_DECODE);
	cni_conf_free(&c);
	assert_true(parse(&c, "[1]", &err) < 0);
	assert_int_equal(err.code, CNI_ERR_DECODE);
	cni_conf_free(&c);
	assert_true(parse(&c, "{\"cniVersion\":\"9.9.9\",\"name\":\"n\"}", &err) < 0);
	assert_int_equal(err.code, CNI_ERR_INCOMPATIBLE_VERSION);
	cni_conf_free(&c);
	assert_true(parse(&c, "{\"name\":\"n\"}", &err) < 0);
	assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
	cni_conf_free(&c);
	assert_true(parse(&c, "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"mode\":\"hw\"}", &err) < 0);
	assert_non_null(strstr(err.msg, "mode"));
	cni_conf_free(&c);
	assert_true(parse(&c, "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"deviceName\":\"a b\"}", &err) < 0);
	assert_non_null(strstr(err.msg, "deviceName"));
	cni_conf_free(&c);
	assert_true(parse(&c, "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"stateDir\":\"rel\"}", &err) < 0);
	assert_non_null(strstr(err.msg, "stateDir"));
	cni_conf_free(&c);
	assert_true(parse(&c, "{\"cniVersion\":\"1.0.0\",\"name\":\"-n\"}", &err) < 0);
	assert_non_null(strstr(err.msg, "name"));
	cni_conf_free(&c);
	assert_true(parse(&c, "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"prevResult\":3}", &err) < 0);
	assert_int_equal(err.code, CNI_ERR_DECODE);
	cni_conf_free(&c);
}

static void test_cni_conf__kernel_and_runtime_config(void **state)
{
	struct cni_err err;
	struct cni_conf c;

	assert_int_equal(parse(&c, "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"mode\":\"kernel\",\"deviceID\":\"0000:01:00.0\",\"runtimeConfig\":{\"deviceID\":\"0000:02:00.1\"},\"prevResult\":{\"interfaces\":[]},\"cni.dev/attachments\":[]}", &err), 0);
	assert_int_equal(c.mode, CNI_MODE_KERNEL);
	assert_string_equal(c.device_id, "0000:02:00.1");
	assert_non_null(c.prev_result);
	assert_non_null(c.attachments);
	cni_conf_free(&c);
}

static void test_cni_conf__peek_version(void **state)
{
	char buf[16];
	const char *j = "{\"cniVersion\":\"0.4.0\",\"name\":1}";

	assert_string_equal(cni_conf_peek_version(j, strlen(j), buf, sizeof(buf)), "0.4.0");
	assert_null(cni_conf_peek_version("{", 1, buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cni_env__full_add),
		cmocka_unit_test(test_cni_env__missing_names_every_variable),
		cmocka_unit_test(test_cni_env__del_without_netns),
		cmocka_unit_test(test_cni_env__bad_command_and_names),
		cmocka_unit_test(test_cni_conf__defaults),
		cmocka_unit_test(test_cni_conf__pkey_forms),
		cmocka_unit_test(test_cni_conf__errors),
		cmocka_unit_test(test_cni_conf__kernel_and_runtime_config),
		cmocka_unit_test(test_cni_conf__peek_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
