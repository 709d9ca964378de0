/* SPDX-License-Identifier: MIT */
/*
 * Prometheus text exposition format 0.0.4 (prometheus.io/docs/
 * instrumenting/exposition_formats), pure: no I/O.  Text goes into a
 * growing buffer bounded by its max; past it the buffer is marked full
 * and stays so (the caller answers 500 rather than a cut exposition).
 *
 * Label values are escaped as the format says (\\ \" \n); bytes that are
 * not printable ASCII become '?' (names and paths come from admins and
 * pods' interfaces: the exposition stays valid UTF-8 whatever they hold).
 * HELP text escapes \\ and \n.
 */
#ifndef ENG_PROM_FMT_H
#define ENG_PROM_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct eng_prom_buf {
	char *p;
	size_t len, cap, max;
	bool full;		/* max reached or out of memory */
};

struct eng_prom_label {
	const char *name;	/* [a-zA-Z_][a-zA-Z0-9_]*, ours */
	const char *value;	/* any bytes, up to cap or a NUL */
	size_t cap;
};

void eng_prom_init(struct eng_prom_buf *b, size_t max);
void eng_prom_free(struct eng_prom_buf *b);
/* Takes ownership of the text away from b (caller frees); NULL if full. */
char *eng_prom_take(struct eng_prom_buf *b, size_t *ret_len);

/* "# HELP name help" and "# TYPE name type" (type: counter, gauge). */
void eng_prom_family(struct eng_prom_buf *b, const char *name,
		     const char *type, const char *help);
/* "name{l1="v1",...} value" */
void eng_prom_sample(struct eng_prom_buf *b, const char *name,
		     const struct eng_prom_label *l, unsigned nl, uint64_t v);
/* The same with a value of ns nanoseconds, written in seconds exactly
 * ("12.000345678": no floating point). */
void eng_prom_sample_ns(struct eng_prom_buf *b, const char *name,
			const struct eng_prom_label *l, unsigned nl,
			uint64_t ns);
/* Escapes value (up to cap or NUL) into out (out_cap > 0, always NUL
 * terminated); returns the bytes written, or out_cap when it did not
 * fit (out then holds a prefix that ends on a whole escape). */
size_t eng_prom_escape(const char *value, size_t cap, char *out,
		       size_t out_cap);
/* A metric name is [a-zA-Z_:][a-zA-Z0-9_:]*. */
bool eng_prom_name_ok(const char *name);

#endif /* ENG_PROM_FMT_H */
