/* SPDX-License-Identifier: MIT */
/* The metrics endpoint's HTTP request head parser (eng_http_req.h). */
#include <string.h>

#include "providers/soft/engine/eng_http_req.h"

/* RFC 9110 5.6.2 tchar. */
static bool tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The end of the line at s (n bytes): the offset of its LF, or -1. */
static long line_end(const char *s, size_t n)
{
	const char *lf = memchr(s, '\n', n);

	return lf ? lf - s : -1;
}

/* Length of the line's content (without CR LF or a bare LF). */
static size_t content_len(const char *s, long lf)
{
	return lf > 0 && s[lf - 1] == '\r' ? (size_t)lf - 1 : (size_t)lf;
}

static int request_line(const char *s, size_t n, struct eng_http_req *out)
{
	const char *sp1 = memchr(s, ' ', n), *sp2, *t, *v;
	size_t mlen, tlen, plen;

	if (!sp1 || sp1 == s)
		return 400;
	mlen = (size_t)(sp1 - s);
	for (size_t i = 0; i < mlen; i++)
		if (!tchar(s[i]))
			return 400;
	t = sp1 + 1;
	sp2 = memchr(t, ' ', n - (size_t)(t - s));
	if (!sp2 || sp2 == t)
		return 400;
	tlen = (size_t)(sp2 - t);
	for (size_t i = 0; i < tlen; i++)
		if ((unsigned char)t[i] <= 0x20 || (unsigned char)t[i] >= 0x7f)
			return 400;
	v = sp2 + 1;
	if ((size_t)(s + n - v) != 8 || memcmp(v, "HTTP/1.", 7) != 0 ||
	    v[7] < '0' || v[7] > '9')
		return 400;
	if (v[7] != '0' && v[7] != '1')
		return 505;
	if (t[0] != '/')
		return 400;
	plen = strcspn(t, "? ");
	if (plen > tlen)
		plen = tlen;
	if (mlen == 3 && !memcmp(s, "GET", 3))
		out->head = false;
	else if (mlen == 4 && !memcmp(s, "HEAD", 4))
		out->head = true;
	else
		return 405;
	if (plen != 8 || memcmp(t, "/metrics", 8) != 0)
		return 404;
	return 200;
}

/* "name: value" (RFC 9112 5: no space before the colon). */
static bool header_ok(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);

	if (!colon || colon == s)
		return false;
	for (const char *c = s; c < colon; c++)
		if (!tchar(*c))
			return false;
	for (const char *c = colon + 1; c < s + n; c++)
		if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f)
			return false;
	return true;
}

/* Notes the line's value when it is the Authorization field. */
static void note_auth(const char *s, size_t n, struct eng_http_req *out)
{
	static const char name[] = "authorization:";
	size_t nl = sizeof(name) - 1;

	if (n < nl)
		return;
	for (size_t i = 0; i < nl; i++)
		if ((s[i] | 0x20) != name[i])
			return;
	if (out->auth)
		out->auth_many = true;
	out->auth = s + nl;
	out->auth_len = n - nl;
}

int eng_http_req_parse(const char *buf, size_t len, size_t max,
		       struct eng_http_req *out)
{
	size_t n = len < max ? len : max, off;
	long lf = line_end(buf, n);
	int st;

	*out = (struct eng_http_req){ 0 };
	if (memchr(buf, '\0', n))
		return 400;
	if (lf < 0)
		return len >= max ? 414 : 0;
	st = request_line(buf, content_len(buf, lf), out);
	if (st == 400 || st == 505)
		return st;	/* nothing after a bad line is worth reading */
	for (off = (size_t)lf + 1;; off += (size_t)lf + 1) {
		size_t cl;

		lf = line_end(buf + off, n - off);
		if (lf < 0)
			return len >= max ? 431 : 0;
		cl = content_len(buf + off, lf);
		if (cl == 0)
			return st;	/* the empty line: the head is whole */
		if (!header_ok(buf + off, cl))
			return 400;
		note_auth(buf + off, cl, out);
	}
}

const char *eng_http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 505: return "HTTP Version Not Supported";
	default: return "Internal Server Error";
	}
}
