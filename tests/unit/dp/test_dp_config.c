/* SPDX-License-Identifier: MIT */
/* Unit tests of the device plugin's JSON config: defaults, a full config,
 * and errors that must name the offending key. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "device-plugin/dp_config.h"

static struct dp_config cfg;
static char err[512];

static void test_dp_config__defaults(void **state)
{
	(void)state;
	assert_int_equal(dp_config_parse("{}", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.npools, 1);
	assert_int_equal(cfg.pools[0].kind, DP_POOL_SOFT);
	assert_string_equal(cfg.pools[0].resource_name, "podverbs.io/soft-rdma");
	assert_string_equal(cfg.pools[0].socket_name, "podverbs-soft-rdma.sock");
	assert_int_equal(cfg.pools[0].slots, 64);
	assert_string_equal(cfg.plugin_dir, "/var/lib/kubelet/device-plugins");
	assert_string_equal(cfg.kubelet_socket,
			    "/var/lib/kubelet/device-plugins/kubelet.sock");
	assert_string_equal(cfg.registry_dir, "/var/lib/kubelet/plugins_registry");
	assert_string_equal(cfg.engine_socket, "/run/podverbs/engine.sock");
	assert_string_equal(cfg.container_engine_dir, "/run/podverbs");
	assert_int_equal(cfg.reg_mode, DP_REG_AUTO);
	assert_true(cfg.seccomp);
}

static void test_dp_config__full(void **state)
{
	const char *json =
		"{\"pluginDir\":\"/tmp/x\",\"registration\":\"legacy\","
		"\"engineSocket\":\"/e/eng.sock\",\"healthIntervalMs\":250,"
		"\"metricsAddress\":\"127.0.0.1:9999\",\"seccomp\":false,"
		"\"soft\":{\"resourceName\":\"ex.com/soft\",\"count\":8},"
		"\"kernelPools\":[{\"resourceName\":\"ex.com/mlx\","
		"\"mode\":\"shared\",\"slotsPerDevice\":4,\"umad\":true,"
		"\"selectors\":{\"vendors\":[\"0x15b3\"],\"deviceIDs\":[\"1017\"],"
		"\"drivers\":[\"mlx5_core\"],\"ifNames\":[\"ens1f0\"],"
		"\"linkTypes\":[\"ether\"],\"rdmaDevices\":[\"mlx5_0\"]}},"
		"{\"resourceName\":\"ex.com/ib\",\"slotsPerDevice\":9,"
		"\"selectors\":{\"linkTypes\":[\"infiniband\"]}}]}";

	(void)state;
	assert_int_equal(dp_config_parse(json, &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.kubelet_socket, "/tmp/x/kubelet.sock");
	assert_string_equal(cfg.container_engine_dir, "/e");
	assert_int_equal(cfg.reg_mode, DP_REG_LEGACY);
	assert_int_equal(cfg.health_interval_ms, 250);
	assert_false(cfg.seccomp);
	assert_int_equal(cfg.npools, 3);
	assert_int_equal(cfg.pools[0].slots, 8);
	assert_int_equal(cfg.pools[1].kind, DP_POOL_KERNEL);
	assert_int_equal(cfg.pools[1].mode, DP_MODE_SHARED);
	assert_int_equal(cfg.pools[1].slots, 4);
	assert_true(cfg.pools[1].umad);
	assert_string_equal(cfg.pools[1].socket_name, "podverbs-mlx.sock");
	assert_int_equal(cfg.pools[1].sel.vendors.n, 1);
	assert_string_equal(cfg.pools[1].sel.rdma_devices.v[0], "mlx5_0");
	/* Exclusive (the default) means one slot whatever was asked. */
	assert_int_equal(cfg.pools[2].mode, DP_MODE_EXCLUSIVE);
	assert_int_equal(cfg.pools[2].slots, 1);
}

static void test_dp_config__soft_disabled(void **state)
{
	(void)state;
	assert_int_equal(dp_config_parse("{\"soft\":{\"count\":0}}", &cfg, err,
					 sizeof(err)), 0);
	assert_int_equal(cfg.npools, 0);
}

/* Each bad config fails with -EINVAL and a message containing the key. */
static void test_dp_config__errors_name_the_key(void **state)
{
	static const struct {
		const char *json, *want;
	} cases[] = {
		{ "{\"pluginDri\":\"/x\"}", "unknown key \"pluginDri\"" },
		{ "{\"registration\":\"maybe\"}", "registration:" },
		{ "{\"healthIntervalMs\":\"fast\"}", "healthIntervalMs: expected an integer" },
		{ "{\"healthIntervalMs\":1}", "healthIntervalMs: 1 is out of range" },
		{ "{\"soft\":{\"count\":-1}}", "soft.count" },
		{ "{\"soft\":{\"resourceName\":\"noslash\"}}", "soft.resourceName" },
		{ "{\"soft\":{\"cnt\":3}}", "soft: unknown key \"cnt\"" },
		{ "{\"kernelPools\":{}}", "kernelPools: expected an array" },
		{ "{\"kernelPools\":[{\"resourceName\":\"a/b\",\"selectors\":{}},"
		  "{\"resourceName\":\"a/c\",\"mode\":\"bogus\",\"selectors\":{}}]}",
		  "kernelPools[1].mode: \"bogus\"" },
		{ "{\"kernelPools\":[{\"resourceName\":\"a/b\",\"selectors\":"
		  "{\"vendors\":[\"15b3\",\"xyz\"]}}]}",
		  "kernelPools[0].selectors.vendors[1]: \"xyz\" is not 4 hex digits" },
		{ "{\"kernelPools\":[{\"resourceName\":\"a/b\",\"selectors\":"
		  "{\"linkTypes\":[\"token-ring\"]}}]}",
		  "kernelPools[0].selectors.linkTypes[0]" },
		{ "{\"kernelPools\":[{\"resourceName\":\"a/b\",\"selectors\":"
		  "{\"colour\":[\"red\"]}}]}",
		  "kernelPools[0].selectors: unknown key \"colour\"" },
		{ "{\"kernelPools\":[{\"resourceName\":\"a/b\"}]}",
		  "kernelPools[0].selectors: missing" },
		{ "{\"kernelPools\":[{\"selectors\":{}}]}",
		  "kernelPools[0].resourceName: missing" },
		{ "{\"kernelPools\":[{\"resourceName\":\"a/b\",\"slotsPerDevice\":0,"
		  "\"selectors\":{}}]}", "kernelPools[0].slotsPerDevice" },
		{ "{\"soft\":{\"resourceName\":\"x.io/r\"},\"kernelPools\":"
		  "[{\"resourceName\":\"y.io/r\",\"selectors\":{}}]}",
		  "kernelPools[0].resourceName: \"y.io/r\" clashes" },
		{ "{\"metricsAddress\":\"0.0.0.0:9456\"}", "metricsAddress" },
		{ "{\"engineSocket\":\"rel/eng.sock\"}", "engineSocket" },
		{ "{\"seccomp\":1}", "seccomp: expected true or false" },
		{ "{\"pluginDir\":", "not valid JSON" },
		{ "[]", "top level" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = 0;
		assert_int_equal(dp_config_parse(cases[i].json, &cfg, err,
						 sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].want))
			fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, err,
				 cases[i].want);
	}
}

static void test_dp_config__split_addr(void **state)
{
	char host[64];
	unsigned port;

	(void)state;
	assert_int_equal(dp_config_split_addr("127.0.0.1:80", host, sizeof(host),
					      &port), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 80);
	assert_int_equal(dp_config_split_addr("[::1]:9", host, sizeof(host),
					      &port), 0);
	assert_int_equal(dp_config_split_addr("10.0.0.1:80", host, sizeof(host),
					      &port), -EINVAL);
	assert_int_equal(dp_config_split_addr("127.0.0.1:0", host, sizeof(host),
					      &port), -EINVAL);
	assert_int_equal(dp_config_split_addr("127.0.0.1", host, sizeof(host),
					      &port), -EINVAL);
}

static void test_dp_config__load_missing_file(void **state)
{
	(void)state;
	assert_int_equal(dp_config_load("/nonexistent/dp.json", &cfg, err,
					sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/dp.json"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dp_config__defaults),
		cmocka_unit_test(test_dp_config__full),
		cmocka_unit_test(test_dp_config__soft_disabled),
		cmocka_unit_test(test_dp_config__errors_name_the_key),
		cmocka_unit_test(test_dp_config__split_addr),
		cmocka_unit_test(test_dp_config__load_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
