/* SPDX-License-Identifier: MIT */
/*
 * The head of an HTTP/1.x request to the metrics endpoint (RFC 9112
 * section 2-3, 5), pure: every scraper byte is hostile.  Only what a
 * scrape needs is accepted: GET or HEAD of /metrics (a query string is
 * ignored), HTTP/1.0 or 1.1, header lines of "name: value" without
 * control bytes; bodies are never read.
 */
#ifndef ENG_HTTP_REQ_H
#define ENG_HTTP_REQ_H

#include <stdbool.h>
#include <stddef.h>

struct eng_http_req {
	bool head;		/* HEAD: the answer has no body */
	bool auth_many;		/* more than one Authorization field */
	const char *auth;	/* its value (in buf, not NUL-ended) or NULL */
	size_t auth_len;
};

/*
 * Looks at the len bytes received so far (at most max are ever taken).
 * Returns 0 while the head is incomplete and shorter than max, else the
 * status to answer: 200 (GET/HEAD /metrics), 400 (malformed), 404 (other
 * path), 405 (other method), 414/431 (request line / head longer than
 * max), 505 (other HTTP version).
 */
int eng_http_req_parse(const char *buf, size_t len, size_t max,
		       struct eng_http_req *out);

/* The reason phrase of a status eng_http_req_parse returns (or 500). */
const char *eng_http_reason(int status);

#endif /* ENG_HTTP_REQ_H */
