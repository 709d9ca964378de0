/* SPDX-License-Identifier: MIT */
/* The metrics endpoint's bearer-token check (eng_http_auth.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "providers/soft/engine/eng_http_auth.h"

/* RFC 6750 2.1 b64token: ALPHA DIGIT "-" "." "_" "~" "+" "/", then "="s. */
static bool b64tok_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("-._~+/=", c));
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

bool eng_http_auth_ok(const char *val, size_t vlen, const char *tok,
		      size_t tlen)
{
	static const char scheme[] = "bearer";
	size_t i = 0, sl = sizeof(scheme) - 1;
	unsigned diff;

	if (!val || !tok || tlen == 0)
		return false;
	while (vlen && (val[vlen - 1] == ' ' || val[vlen - 1] == '\t'))
		vlen--;
	while (i < vlen && (val[i] == ' ' || val[i] == '\t'))
		i++;
	if (vlen - i <= sl)
		return false;
	for (size_t k = 0; k < sl; k++)
		if (lower(val[i + k]) != scheme[k])
			return false;
	i += sl;
	if (val[i] != ' ')
		return false;
	while (i < vlen && val[i] == ' ')
		i++;
	val += i;
	vlen -= i;
	/* Constant time in tlen: every token byte is looked at once, an
	 * offer of another length differs in diff, never in the loop. */
	diff = vlen != tlen;
	for (size_t k = 0; k < tlen; k++)
		diff |= (unsigned char)tok[k] ^
			(unsigned char)(k < vlen ? val[k] : 0);
	return diff == 0;
}

long eng_http_token_parse(const char *buf, size_t n)
{
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
		     buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	if (n == 0 || n > ENG_HTTP_TOKEN_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!b64tok_char(buf[i]))
			return -EINVAL;
	return (long)n;
}
