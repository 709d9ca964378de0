/* SPDX-License-Identifier: MIT */
/* One line per event on stderr: "podverbsd: <level>: message". */
#ifndef ENG_LOG_H
#define ENG_LOG_H

enum eng_log_level {
	ENG_LOG_ERR	= 0,
	ENG_LOG_WARN	= 1,
	ENG_LOG_INFO	= 2,
	ENG_LOG_DEBUG	= 3,
};

extern enum eng_log_level eng_log_level;

/* Parses "error", "warn", "info", "debug" (or 0..3); -EINVAL otherwise. */
int eng_log_parse_level(const char *s);

void eng_log(enum eng_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define eng_err(...)	eng_log(ENG_LOG_ERR, __VA_ARGS__)
#define eng_warn(...)	eng_log(ENG_LOG_WARN, __VA_ARGS__)
#define eng_info(...)	eng_log(ENG_LOG_INFO, __VA_ARGS__)
#define eng_dbg(...)	eng_log(ENG_LOG_DEBUG, __VA_ARGS__)

#endif /* ENG_LOG_H */
