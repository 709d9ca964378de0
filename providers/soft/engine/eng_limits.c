/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_limits.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct eng_limits eng_lim = {
#define ENG_LIMIT_INIT(name, def, lo, hi, help) .name = (def),
	ENG_LIMITS(ENG_LIMIT_INIT)
#undef ENG_LIMIT_INIT
};

struct limit_desc {
	const char *name;
	uint64_t def, lo, hi;
	const char *help;
	size_t off;
};

static const struct limit_desc descs[] = {
#define ENG_LIMIT_DESC(n, d, l, h, t) \
	{ #n, (d), (l), (h), (t), offsetof(struct eng_limits, n) },
	ENG_LIMITS(ENG_LIMIT_DESC)
#undef ENG_LIMIT_DESC
};

int eng_limits_set_one(const char *name, uint64_t value)
{
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++) {
		const struct limit_desc *d = &descs[i];

		if (strcmp(d->name, name) != 0)
			continue;
		if (value < d->lo || value > d->hi)
			return -ERANGE;
		*(uint64_t *)((char *)&eng_lim + d->off) = value;
		return 0;
	}
	return -EINVAL;
}

int eng_limits_set(const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	char name[64], *end;
	unsigned long long v;

	if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof(name))
		return -EINVAL;
	memcpy(name, assignment, eq - assignment);
	name[eq - assignment] = '\0';
	errno = 0;
	v = strtoull(eq + 1, &end, 0);
	if (errno || end == eq + 1 || *end || eq[1] == '-')
		return -ERANGE;
	return eng_limits_set_one(name, v);
}

void eng_limits_help(FILE *out)
{
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++) {
		const struct limit_desc *d = &descs[i];

		fprintf(out, "  %-20s %s (default %" PRIu64 ", %" PRIu64
			"..%" PRIu64 ")\n", d->name, d->help, d->def, d->lo,
			d->hi);
	}
}
