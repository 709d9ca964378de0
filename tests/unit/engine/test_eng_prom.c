/* SPDX-License-Identifier: MIT */
/* Unit tests of the metrics endpoint's pure parts: the Prometheus text
 * formatter (label escaping, bounds) and the HTTP request head parser
 * (hostile inputs), and the --metrics-listen address parser. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_http_auth.h"
#include "providers/soft/engine/eng_http_req.h"
#include "providers/soft/engine/eng_metrics.h"
#include "providers/soft/engine/eng_prom_fmt.h"

static char *render(struct eng_prom_buf *b, size_t *len)
{
	char *t = eng_prom_take(b, len);
	char *z;

	assert_non_null(t);
	z = malloc(*len + 1);
	assert_non_null(z);
	memcpy(z, t, *len);
	z[*len] = '\0';
	free(t);
	return z;
}

static void test_eng_prom__escapes_label_values(void **state)
{
	struct eng_prom_label l[2] = {
		{ "device", "a\"b\\c\nd", 64 },
		{ "netns", "x\x01y\xc3\xa9z", 64 },
	};
	struct eng_prom_buf b;
	size_t len;
	char *t;

	(void)state;
	eng_prom_init(&b, 1 << 20);
	eng_prom_family(&b, "m_total", "counter", "help \\ with\nnewline");
	eng_prom_sample(&b, "m_total", l, 2, 18446744073709551615ull);
	t = render(&b, &len);
	assert_string_equal(t,
		"# HELP m_total help \\\\ with\\nnewline\n"
		"# TYPE m_total counter\n"
		"m_total{device=\"a\\\"b\\\\c\\nd\",netns=\"x?y??z\"} "
		"18446744073709551615\n");
	free(t);
}

static void test_eng_prom__label_value_bounded_by_cap(void **state)
{
	char raw[4] = { 'a', 'b', 'c', 'd' };	/* no NUL */
	struct eng_prom_label l = { "device", raw, sizeof(raw) };
	struct eng_prom_buf b;
	size_t len;
	char *t;

	(void)state;
	eng_prom_init(&b, 1 << 20);
	eng_prom_sample(&b, "m", &l, 1, 0);
	eng_prom_sample(&b, "n", NULL, 0, 7);
	t = render(&b, &len);
	assert_string_equal(t, "m{device=\"abcd\"} 0\nn 7\n");
	free(t);
}

static void test_eng_prom__nanoseconds_as_exact_seconds(void **state)
{
	struct eng_prom_label l = { "state", "busy", 8 };
	struct eng_prom_buf b;
	size_t len;
	char *t;

	(void)state;
	eng_prom_init(&b, 1 << 20);
	eng_prom_sample_ns(&b, "s_total", &l, 1, 12000345678ull);
	eng_prom_sample_ns(&b, "s_total", NULL, 0, 5);
	t = render(&b, &len);
	assert_string_equal(t, "s_total{state=\"busy\"} 12.000345678\n"
			       "s_total 0.000000005\n");
	free(t);
}

static void test_eng_prom__full_buffer_is_refused_not_cut(void **state)
{
	struct eng_prom_buf b;
	size_t len = 1;

	(void)state;
	eng_prom_init(&b, 64);
	for (int i = 0; i < 10; i++)
		eng_prom_sample(&b, "podverbs_some_long_name_total", NULL, 0,
				(uint64_t)i);
	assert_true(b.full);
	assert_null(eng_prom_take(&b, &len));
	assert_int_equal(len, 0);
}

static void test_eng_prom__escape_into_small_buffer(void **state)
{
	char out[4];

	(void)state;
	assert_int_equal(eng_prom_escape("ab", 8, out, sizeof(out)), 2);
	assert_string_equal(out, "ab");
	/* "a\"" needs 3 bytes + NUL: fits; "ab\"" does not. */
	assert_int_equal(eng_prom_escape("a\"", 8, out, sizeof(out)), 3);
	assert_string_equal(out, "a\\\"");
	assert_int_equal(eng_prom_escape("ab\"", 8, out, sizeof(out)),
			 sizeof(out));
	assert_string_equal(out, "ab");	/* never half an escape */
}

static void test_eng_prom__metric_names(void **state)
{
	(void)state;
	assert_true(eng_prom_name_ok("podverbs_port_sent_pkts_total"));
	assert_true(eng_prom_name_ok("a:b"));
	assert_false(eng_prom_name_ok("9a"));
	assert_false(eng_prom_name_ok("a-b"));
	assert_false(eng_prom_name_ok(""));
}

static int parse(const char *s, size_t max, struct eng_http_req *rq)
{
	return eng_http_req_parse(s, strlen(s), max, rq);
}

static void test_eng_http__accepts_a_scrape(void **state)
{
	struct eng_http_req rq;

	(void)state;
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: x:1\r\n"
			       "Accept: text/plain;version=0.0.4;q=0.5,*/*;"
			       "q=0.1\r\nUser-Agent: Prometheus/2.42.0\r\n\r\n",
			       4096, &rq), 200);
	assert_false(rq.head);
	assert_int_equal(parse("HEAD /metrics?x=1 HTTP/1.0\n\n", 4096, &rq),
			 200);
	assert_true(rq.head);
}

static void test_eng_http__waits_for_the_whole_head(void **state)
{
	struct eng_http_req rq;

	(void)state;
	assert_int_equal(parse("", 4096, &rq), 0);
	assert_int_equal(parse("GET /metr", 4096, &rq), 0);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\n", 4096, &rq), 0);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: a\r\n", 4096,
			       &rq), 0);
}

static void test_eng_http__refuses_hostile_heads(void **state)
{
	static const char nul[] = "GET /metrics HTTP/1.1\r\n\0\r\n\r\n";
	struct eng_http_req rq;
	char big[600];

	(void)state;
	assert_int_equal(parse("POST /metrics HTTP/1.1\r\n\r\n", 4096, &rq),
			 405);
	assert_int_equal(parse("GET /other HTTP/1.1\r\n\r\n", 4096, &rq), 404);
	assert_int_equal(parse("GET /metricsX HTTP/1.1\r\n\r\n", 4096, &rq),
			 404);
	assert_int_equal(parse("GET /metrics HTTP/2.0\r\n\r\n", 4096, &rq), 400);
	assert_int_equal(parse("GET /metrics HTTP/1.9\r\n\r\n", 4096, &rq), 505);
	assert_int_equal(parse("GET /metrics\r\n\r\n", 4096, &rq), 400);
	assert_int_equal(parse("GET  /metrics HTTP/1.1\r\n\r\n", 4096, &rq),
			 400);
	assert_int_equal(parse("GET metrics HTTP/1.1\r\n\r\n", 4096, &rq), 400);
	assert_int_equal(parse("G(T /metrics HTTP/1.1\r\n\r\n", 4096, &rq), 400);
	assert_int_equal(parse("GET /met\x7frics HTTP/1.1\r\n\r\n", 4096, &rq),
			 400);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nNoColon\r\n\r\n",
			       4096, &rq), 400);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nBad Name: x\r\n\r\n",
			       4096, &rq), 400);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nA: \x01\r\n\r\n",
			       4096, &rq), 400);
	assert_int_equal(eng_http_req_parse(nul, sizeof(nul) - 1, 4096, &rq),
			 400);
	/* Longer than max: the line, or the head. */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /", 5);
	assert_int_equal(eng_http_req_parse(big, sizeof(big), 512, &rq), 414);
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	assert_int_equal(eng_http_req_parse(big, sizeof(big), 512, &rq), 431);
	/* Only max bytes are looked at, whatever len says. */
	assert_int_equal(eng_http_req_parse(big, 100, 512, &rq), 0);
}

static void test_eng_metrics__listen_addresses(void **state)
{
	struct sockaddr_storage ss;
	unsigned len;

	(void)state;
	assert_int_equal(eng_metrics_addr_parse("127.0.0.1:9415", &ss, &len),
			 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), 9415);
	assert_int_equal(eng_metrics_addr_parse(":9415", &ss, &len), 0);
	assert_int_equal(((struct sockaddr_in *)&ss)->sin_addr.s_addr, 0);
	assert_int_equal(eng_metrics_addr_parse("[::1]:80", &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(len, sizeof(struct sockaddr_in6));
	assert_int_equal(eng_metrics_addr_parse("127.0.0.1", &ss, &len),
			 -EINVAL);
	assert_int_equal(eng_metrics_addr_parse("1.2.3.4:0", &ss, &len),
			 -EINVAL);
	assert_int_equal(eng_metrics_addr_parse("1.2.3.4:65536", &ss, &len),
			 -EINVAL);
	assert_int_equal(eng_metrics_addr_parse("1.2.3.4:-1", &ss, &len),
			 -EINVAL);
	assert_int_equal(eng_metrics_addr_parse("host:80", &ss, &len),
			 -EINVAL);
	assert_int_equal(eng_metrics_addr_parse("::1:80", &ss, &len), -EINVAL);
	assert_int_equal(eng_metrics_addr_parse(NULL, &ss, &len), -EINVAL);
}

static bool auth(const char *v, const char *tok)
{
	return eng_http_auth_ok(v, strlen(v), tok, strlen(tok));
}

static void test_eng_http__bearer_token(void **state)
{
	struct eng_http_req rq;
	char big[600];

	(void)state;
	assert_true(auth("Bearer s3cr3t", "s3cr3t"));
	assert_true(auth(" bearer   s3cr3t \t", "s3cr3t"));
	assert_false(auth("Bearer s3cr3", "s3cr3t"));	/* a prefix */
	assert_false(auth("Bearer s3cr3tX", "s3cr3t"));
	assert_false(auth("Bearer s3cr3T", "s3cr3t"));
	assert_false(auth("Bearer ", "s3cr3t"));
	assert_false(auth("Bearer", "s3cr3t"));
	assert_false(auth("Basic s3cr3t", "s3cr3t"));
	assert_false(auth("Bearers3cr3t", "s3cr3t"));
	assert_false(auth("s3cr3t", "s3cr3t"));
	assert_false(auth("", "s3cr3t"));
	assert_false(auth("Bearer x", ""));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "Bearer ", 7);
	assert_false(auth(big, "aaaa"));
	/* The parser hands the field over, in any case of its name. */
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: a\r\n"
			       "authoriZation: Bearer tok\r\n\r\n", 4096, &rq),
			 200);
	assert_non_null(rq.auth);
	assert_false(rq.auth_many);
	assert_true(eng_http_auth_ok(rq.auth, rq.auth_len, "tok", 3));
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\n"
			       "Authorization: Bearer tok\r\n"
			       "Authorization: Bearer x\r\n\r\n", 4096, &rq),
			 200);
	assert_true(rq.auth_many);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\n\r\n", 4096, &rq),
			 200);
	assert_null(rq.auth);
}

static void test_eng_http__token_file_contents(void **state)
{
	char big[ENG_HTTP_TOKEN_MAX + 2];

	(void)state;
	assert_int_equal(eng_http_token_parse("abc\n", 4), 3);
	assert_int_equal(eng_http_token_parse("a-b.c_d~e+f/g==\r\n", 17), 15);
	assert_int_equal(eng_http_token_parse("\n", 1), -EINVAL);
	assert_int_equal(eng_http_token_parse("", 0), -EINVAL);
	assert_int_equal(eng_http_token_parse("a b", 3), -EINVAL);
	assert_int_equal(eng_http_token_parse("a\nb", 3), -EINVAL);
	assert_int_equal(eng_http_token_parse("a\0b", 3), -EINVAL);
	memset(big, 'a', sizeof(big));
	assert_int_equal(eng_http_token_parse(big, ENG_HTTP_TOKEN_MAX),
			 ENG_HTTP_TOKEN_MAX);
	assert_int_equal(eng_http_token_parse(big, ENG_HTTP_TOKEN_MAX + 1),
			 -EINVAL);
}

static void test_eng_metrics__loopback_addresses(void **state)
{
	struct sockaddr_storage ss;
	unsigned len;

	(void)state;
	assert_int_equal(eng_metrics_addr_parse("127.0.0.1:9457", &ss, &len), 0);
	assert_true(eng_metrics_addr_loopback(&ss));
	assert_int_equal(eng_metrics_addr_parse("127.8.0.1:9457", &ss, &len), 0);
	assert_true(eng_metrics_addr_loopback(&ss));
	assert_int_equal(eng_metrics_addr_parse("[::1]:9457", &ss, &len), 0);
	assert_true(eng_metrics_addr_loopback(&ss));
	assert_int_equal(eng_metrics_addr_parse(":9457", &ss, &len), 0);
	assert_false(eng_metrics_addr_loopback(&ss));
	assert_int_equal(eng_metrics_addr_parse("10.0.0.1:9457", &ss, &len), 0);
	assert_false(eng_metrics_addr_loopback(&ss));
	assert_int_equal(eng_metrics_addr_parse("[::]:9457", &ss, &len), 0);
	assert_false(eng_metrics_addr_loopback(&ss));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_prom__escapes_label_values),
		cmocka_unit_test(test_eng_prom__label_value_bounded_by_cap),
		cmocka_unit_test(test_eng_prom__nanoseconds_as_exact_seconds),
		cmocka_unit_test(test_eng_prom__full_buffer_is_refused_not_cut),
		cmocka_unit_test(test_eng_prom__escape_into_small_buffer),
		cmocka_unit_test(test_eng_prom__metric_names),
		cmocka_unit_test(test_eng_http__accepts_a_scrape),
		cmocka_unit_test(test_eng_http__waits_for_the_whole_head),
		cmocka_unit_test(test_eng_http__refuses_hostile_heads),
		cmocka_unit_test(test_eng_metrics__listen_addresses),
		cmocka_unit_test(test_eng_http__bearer_token),
		cmocka_unit_test(test_eng_http__token_file_contents),
		cmocka_unit_test(test_eng_metrics__loopback_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
