/* SPDX-License-Identifier: MIT */
/* Prometheus text exposition, pure (eng_prom_fmt.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/engine/eng_prom_fmt.h"

void eng_prom_init(struct eng_prom_buf *b, size_t max)
{
	*b = (struct eng_prom_buf){ .max = max };
}

void eng_prom_free(struct eng_prom_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

char *eng_prom_take(struct eng_prom_buf *b, size_t *ret_len)
{
	char *p = b->full ? NULL : b->p;

	if (!p)
		eng_prom_free(b);
	*ret_len = p ? b->len : 0;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

static bool grow(struct eng_prom_buf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->full)
		return false;
	if (n > b->max || b->len > b->max - n) {
		b->full = true;
		return false;
	}
	if (b->len + n <= b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	if (cap > b->max)
		cap = b->max;
	p = realloc(b->p, cap);
	if (!p) {
		b->full = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static void put(struct eng_prom_buf *b, const char *s, size_t n)
{
	if (grow(b, n)) {
		memcpy(b->p + b->len, s, n);
		b->len += n;
	}
}

static void puts_(struct eng_prom_buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* One byte of a label value (label: also '"') or of HELP text as its
 * escaped form; returns its length (at most 2). */
static size_t esc_byte(unsigned char c, bool label, char out[2])
{
	if (c == '\\' || (label && c == '"')) {
		out[0] = '\\';
		out[1] = (char)c;
		return 2;
	}
	if (c == '\n') {
		out[0] = '\\';
		out[1] = 'n';
		return 2;
	}
	out[0] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	return 1;
}

size_t eng_prom_escape(const char *value, size_t cap, char *out,
		       size_t out_cap)
{
	size_t o = 0;

	for (size_t i = 0; i < cap && value[i]; i++) {
		char e[2];
		size_t n = esc_byte((unsigned char)value[i], true, e);

		if (o + n >= out_cap) {
			out[o] = '\0';
			return out_cap;
		}
		memcpy(out + o, e, n);
		o += n;
	}
	out[o] = '\0';
	return o;
}

static void put_escaped(struct eng_prom_buf *b, const char *s, size_t cap,
			bool label)
{
	for (size_t i = 0; i < cap && s[i]; i++) {
		char e[2];

		put(b, e, esc_byte((unsigned char)s[i], label, e));
	}
}

bool eng_prom_name_ok(const char *name)
{
	if (!name || !name[0] || (name[0] >= '0' && name[0] <= '9'))
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == ':'))
			return false;
	return true;
}

void eng_prom_family(struct eng_prom_buf *b, const char *name,
		     const char *type, const char *help)
{
	puts_(b, "# HELP ");
	puts_(b, name);
	puts_(b, " ");
	put_escaped(b, help, SIZE_MAX, false);
	puts_(b, "\n# TYPE ");
	puts_(b, name);
	puts_(b, " ");
	puts_(b, type);
	puts_(b, "\n");
}

static void labels(struct eng_prom_buf *b, const char *name,
		   const struct eng_prom_label *l, unsigned nl)
{
	puts_(b, name);
	for (unsigned i = 0; i < nl; i++) {
		puts_(b, i ? "," : "{");
		puts_(b, l[i].name);
		puts_(b, "=\"");
		put_escaped(b, l[i].value, l[i].cap, true);
		puts_(b, "\"");
	}
	if (nl)
		puts_(b, "}");
}

void eng_prom_sample(struct eng_prom_buf *b, const char *name,
		     const struct eng_prom_label *l, unsigned nl, uint64_t v)
{
	char num[24];

	labels(b, name, l, nl);
	snprintf(num, sizeof(num), " %" PRIu64 "\n", v);
	puts_(b, num);
}

void eng_prom_sample_ns(struct eng_prom_buf *b, const char *name,
			const struct eng_prom_label *l, unsigned nl,
			uint64_t ns)
{
	char num[40];

	labels(b, name, l, nl);
	snprintf(num, sizeof(num), " %" PRIu64 ".%09" PRIu64 "\n",
		 ns / 1000000000u, ns % 1000000000u);
	puts_(b, num);
}
