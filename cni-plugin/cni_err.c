/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "cni-plugin/cni_err.h"

int cni_fail(struct cni_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err->code != 0)
		return -EINVAL;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void cni_fail_details(struct cni_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->details, sizeof(err->details), fmt, ap);
	va_end(ap);
}
