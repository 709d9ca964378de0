/* SPDX-License-Identifier: MIT */
/*
 * Errors of the CNI plugin.  A failing step fills one struct cni_err with a
 * spec error code and a one-line message; main() turns it into the error
 * result on stdout (CNI spec, "Error" section) and a non-zero exit.
 */
#ifndef CNI_ERR_H
#define CNI_ERR_H

/* Error codes of the CNI spec; 100 and up are ours. */
enum cni_code {
	CNI_ERR_INCOMPATIBLE_VERSION	= 1,
	CNI_ERR_UNSUPPORTED_FIELD	= 2,
	CNI_ERR_UNKNOWN_CONTAINER	= 3,
	CNI_ERR_INVALID_ENV		= 4,
	CNI_ERR_IO			= 5,
	CNI_ERR_DECODE			= 6,
	CNI_ERR_INVALID_CONFIG		= 7,
	CNI_ERR_TRY_AGAIN		= 11,
	CNI_ERR_NOT_AVAILABLE		= 50,
	CNI_ERR_NOT_AVAILABLE_DEGRADED	= 51,
	/* Plugin-specific. */
	CNI_ERR_ENGINE			= 100,	/* the engine refused or failed */
	CNI_ERR_NO_INTERFACE		= 101,	/* CNI_IFNAME missing */
	CNI_ERR_KERNEL_DEVICE		= 102,	/* kernel RDMA device problem */
	CNI_ERR_CHECK_MISMATCH		= 103,	/* CHECK found a difference */
};

#define CNI_MSG_MAX	512

struct cni_err {
	int  code;		/* 0 while nothing failed */
	char msg[CNI_MSG_MAX];
	char details[CNI_MSG_MAX];
};

/*
 * Records the first failure (later calls keep the first message, which is
 * the most specific) and returns -EINVAL so callers can write
 * `return cni_fail(err, CNI_ERR_..., "...")`.
 */
int cni_fail(struct cni_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Sets the details string of an error already recorded. */
void cni_fail_details(struct cni_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* CNI_ERR_H */
