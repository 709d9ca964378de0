/* SPDX-License-Identifier: MIT */
#include "tests/tools/pv-impair/pvi_spec.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tools/pv-impair/pvi_rng.h"

void pvi_spec_defaults(struct pvi_dir_cfg cfg[PVI_NDIR])
{
	for (int d = 0; d < PVI_NDIR; d++) {
		memset(&cfg[d], 0, sizeof(cfg[d]));
		cfg[d].hold_frames = 3;
		cfg[d].hold_us = 2000;
	}
}

/* A percentage 0..100 (fractions allowed) as parts per million. */
static int parse_pct(const char *s, uint32_t *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.0 && v <= 100.0))
		return -EINVAL;
	*ret = (uint32_t)lround(v * (PVI_PPM / 100));
	return 0;
}

static int parse_uint(const char *s, uint32_t lo, uint32_t hi, uint32_t *ret)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

static int set_key(struct pvi_dir_cfg *c, const char *key, size_t klen,
		   const char *val)
{
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
	if (KEY("loss"))
		return parse_pct(val, &c->loss_ppm);
	if (KEY("reorder"))
		return parse_pct(val, &c->reorder_ppm);
	if (KEY("dup"))
		return parse_pct(val, &c->dup_ppm);
	if (KEY("corrupt"))
		return parse_pct(val, &c->corrupt_ppm);
	if (KEY("hold"))
		return parse_uint(val, 1, PVI_HOLD_MAX, &c->hold_frames);
	if (KEY("holdus"))
		return parse_uint(val, 1, 1000000, &c->hold_us);
	if (KEY("delay"))
		return parse_uint(val, 0, 1000000, &c->delay_us);
#undef KEY
	return -EINVAL;
}

int pvi_spec_apply(struct pvi_dir_cfg cfg[PVI_NDIR], const char *word)
{
	const char *eq = strchr(word, '=');
	int first = PVI_AB, last = PVI_BA;
	struct pvi_dir_cfg tmp[PVI_NDIR];

	if (!eq || !eq[1])
		return -EINVAL;
	if (strncmp(word, "ab.", 3) == 0) {
		last = PVI_AB;
		word += 3;
	} else if (strncmp(word, "ba.", 3) == 0) {
		first = PVI_BA;
		word += 3;
	}
	/* All or nothing: a bad value leaves cfg as it was. */
	memcpy(tmp, cfg, sizeof(tmp));
	for (int d = first; d <= last; d++) {
		int ret = set_key(&tmp[d], word, (size_t)(eq - word), eq + 1);

		if (ret < 0)
			return ret;
	}
	memcpy(cfg, tmp, sizeof(tmp));
	return 0;
}
