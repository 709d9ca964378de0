/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <seccomp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <linux/nsfs.h>
#include <termios.h>

#include "cni-plugin/cni_seccomp.h"

/*
 * Found by running every command under `strace -f` (see
 * tests/integration/cni_seccomp.sh).  Names unknown on an architecture are
 * skipped (e.g. open(2) on aarch64).
 */
static const char *const allowed[] = {
	/* stdio, files and the state folder */
	"read", "write", "readv", "writev", "pread64", "pwrite64", "close",
	"open", "openat", "fstat", "newfstatat", "stat", "lstat", "statx",
	"lseek", "fcntl", "flock", "fsync", "fdatasync", "ftruncate",
	"getdents64", "unlink", "unlinkat", "rename", "renameat", "renameat2",
	"mkdir", "mkdirat", "access", "faccessat", "faccessat2", "readlink",
	"readlinkat", "dup", "dup3", "link", "linkat",
	/* engine socket and netlink */
	"socket", "connect", "bind", "getsockname", "getsockopt",
	"setsockopt", "sendmsg", "recvmsg", "sendto", "recvfrom", "poll",
	"ppoll",
	/* namespace work in a short-lived thread (netns_run) */
	"setns", "clone", "clone3", "set_robust_list", "get_robust_list",
	"rseq", "futex", "sched_yield", "sched_getaffinity", "gettid",
	"madvise", "membarrier",
	/* memory, signals, time, exit */
	"mmap", "munmap", "mprotect", "mremap", "brk", "rt_sigprocmask",
	"rt_sigaction", "rt_sigreturn", "sigaltstack", "tgkill", "exit",
	"exit_group", "getpid", "getuid", "geteuid", "getgid", "getegid",
	"clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday",
	"time", "getrandom", "uname", "prlimit64",
};

int cni_seccomp_confine(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	int ret = 0;

	if (!ctx)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		int nr = seccomp_syscall_resolve_name(allowed[i]);

		if (nr == __NR_SCMP_ERROR)
			continue;
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (ret < 0)
			goto out_release;
	}
	/* stdio asks whether stdout is a terminal; netns_open checks that
	 * it opened a network namespace.  No other ioctl. */
	ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
			       SCMP_A1(SCMP_CMP_EQ, TCGETS));
	if (ret == 0)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_EQ, NS_GET_NSTYPE));
	if (ret == 0)
		ret = seccomp_load(ctx);
out_release:
	seccomp_release(ctx);
	return ret;
}
