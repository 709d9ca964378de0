/* SPDX-License-Identifier: MIT */
/* Unit tests of CNI_ARGS lookups (the pod's namespace and name the
 * plugin passes to the engine for metrics labels). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cni-plugin/cni_env.h"

static void test_cni_env__arg_found_among_others(void **state)
{
	const char *a = "IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;"
			"K8S_POD_NAME=web-0;K8S_POD_INFRA_CONTAINER_ID=abc";
	char out[16];

	(void)state;
	assert_int_equal(cni_env_arg(a, "K8S_POD_NAMESPACE", out, sizeof(out)),
			 1);
	assert_string_equal(out, "ns1");
	assert_int_equal(cni_env_arg(a, "K8S_POD_NAME", out, sizeof(out)), 1);
	assert_string_equal(out, "web-0");
	assert_int_equal(cni_env_arg("K8S_POD_NAME=", "K8S_POD_NAME", out,
				     sizeof(out)), 1);
	assert_string_equal(out, "");
}

static void test_cni_env__arg_absent_or_too_long(void **state)
{
	char out[4];

	(void)state;
	assert_int_equal(cni_env_arg(NULL, "K8S_POD_NAME", out, sizeof(out)), 0);
	assert_int_equal(cni_env_arg("", "K8S_POD_NAME", out, sizeof(out)), 0);
	/* A key that is a prefix of another is not it. */
	assert_int_equal(cni_env_arg("K8S_POD_NAMESPACE=x", "K8S_POD_NAME", out,
				     sizeof(out)), 0);
	assert_int_equal(cni_env_arg("K8S_POD_NAME", "K8S_POD_NAME", out,
				     sizeof(out)), 0);
	assert_int_equal(cni_env_arg(";;K8S_POD_NAME=abcd", "K8S_POD_NAME", out,
				     sizeof(out)), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cni_env__arg_found_among_others),
		cmocka_unit_test(test_cni_env__arg_absent_or_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
