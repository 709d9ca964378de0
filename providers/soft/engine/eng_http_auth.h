/* SPDX-License-Identifier: MIT */
/*
 * Bearer-token check of a metrics request (RFC 6750 section 2.1), pure:
 * the scraper's Authorization value is hostile and the token is secret.
 * The compare takes a time that depends on the token's length only,
 * never on where the first wrong byte is or how long the offer is.
 */
#ifndef ENG_HTTP_AUTH_H
#define ENG_HTTP_AUTH_H

#include <stdbool.h>
#include <stddef.h>

/* The longest token the engine accepts from --metrics-token-file. */
#define ENG_HTTP_TOKEN_MAX 512

/*
 * True when val (vlen bytes: an Authorization field's value, OWS
 * around it allowed) is "Bearer" (any case), one or more spaces and
 * exactly tok (tlen bytes, tlen > 0).  A prefix, an extension or a
 * different scheme of the token is false.
 */
bool eng_http_auth_ok(const char *val, size_t vlen, const char *tok,
		      size_t tlen);

/*
 * Takes the token out of a token file's n bytes: trailing whitespace
 * (a final newline) is dropped; the rest must be 1 to
 * ENG_HTTP_TOKEN_MAX bytes of visible ASCII (RFC 6750 b64token
 * characters).  Returns its length, or -EINVAL.
 */
long eng_http_token_parse(const char *buf, size_t n);

#endif /* ENG_HTTP_AUTH_H */
