/* SPDX-License-Identifier: MIT */
/* Unit tests of pvctl's output helpers: 64-bit numbers printed exactly
 * (not through a double), engine strings bounded by their field and
 * escaped, GIDs and port states named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/pvctl/pvctl.h"

static char *print(cJSON *doc)
{
	char *s = cJSON_PrintUnformatted(doc);

	assert_non_null(s);
	return s;
}

static void test_pvctl_out__u64_exact(void **state)
{
	cJSON *doc = cJSON_CreateObject();
	char *s;

	assert_true(pvctl_json_u64(doc, "max", UINT64_MAX));
	/* 2^53 + 1: the first integer a double cannot hold. */
	assert_true(pvctl_json_u64(doc, "odd", (1ULL << 53) + 1));
	assert_true(pvctl_json_u64(doc, "zero", 0));
	s = print(doc);
	assert_string_equal(s, "{\"max\":18446744073709551615,"
			    "\"odd\":9007199254740993,\"zero\":0}");
	free(s);
	cJSON_Delete(doc);
}

static void test_pvctl_out__strn_bounded(void **state)
{
	/* A field the engine filled to the brim: no NUL inside. */
	const char field[4] = { 'r', 'd', 'm', 'a' };
	cJSON *doc = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	char *s;

	assert_true(pvctl_json_strn(doc, "name", field, sizeof(field)));
	assert_true(pvctl_json_array_strn(arr, "ab\0cd", 5));
	cJSON_AddItemToObject(doc, "a", arr);
	s = print(doc);
	assert_string_equal(s, "{\"name\":\"rdma\",\"a\":[\"ab\"]}");
	free(s);
	cJSON_Delete(doc);
}

static void test_pvctl_out__escaped_round_trip(void **state)
{
	const char odd[] = "a\"b\\c\x01\n/";
	cJSON *doc = cJSON_CreateObject(), *back;
	char *s;

	assert_true(pvctl_json_strn(doc, "n", odd, sizeof(odd)));
	s = print(doc);
	back = cJSON_Parse(s);
	assert_non_null(back);
	assert_string_equal(cJSON_GetObjectItem(back, "n")->valuestring, odd);
	free(s);
	cJSON_Delete(back);
	cJSON_Delete(doc);
}

static void test_pvctl_out__names(void **state)
{
	uint8_t g[16] = { 0xfe, 0x80, [8] = 0x12, 0x34, [15] = 0x01 };
	char out[40];

	pvctl_gid_str(g, out);
	assert_string_equal(out, "fe80:0000:0000:0000:1234:0000:0000:0001");
	assert_string_equal(pvctl_port_state_str(PV_PORT_ACTIVE), "ACTIVE");
	assert_string_equal(pvctl_port_state_str(PV_PORT_DOWN), "DOWN");
	assert_string_equal(pvctl_port_state_str(0xee), "?");
	assert_string_equal(pvctl_ns_str(""), "(engine)");
	assert_string_equal(pvctl_ns_str("/run/netns/x"), "/run/netns/x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pvctl_out__u64_exact),
		cmocka_unit_test(test_pvctl_out__strn_bounded),
		cmocka_unit_test(test_pvctl_out__escaped_round_trip),
		cmocka_unit_test(test_pvctl_out__names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
