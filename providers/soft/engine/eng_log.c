/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum eng_log_level eng_log_level = ENG_LOG_INFO;

static const char *const names[] = { "error", "warn", "info", "debug" };

int eng_log_parse_level(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0 || (s[0] == '0' + i && !s[1]))
			return i;
	if (strcmp(s, "warning") == 0)
		return ENG_LOG_WARN;
	return -EINVAL;
}

void eng_log(enum eng_log_level level, const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n;

	if (level > eng_log_level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line), "%02d:%02d:%02d.%03ld podverbsd: %s: ",
		     tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
		     names[level]);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	/* One write per line so concurrent writers never interleave. */
	fprintf(stderr, "%s\n", line);
}
