/* SPDX-License-Identifier: MIT */
/* The engine's seccomp filter (why a deny-list: eng_seccomp.h). */
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>

#include "providers/soft/engine/eng_seccomp.h"

/*
 * Never needed once the engine runs.  Checked against strace of the whole
 * test suite (tests/integration/engine_seccomp.sh re-checks the engine's
 * own calls).  Names unknown on an architecture are skipped.
 */
static const char *const eng_denied[] = {
	/* running other programs; the engine never execs */
	"execve", "execveat",
	/* tracing others; client memory is reached only through the memfds
	 * the engine maps (eng_dp_mem.c), never through a pid */
	"ptrace", "pidfd_getfd", "kcmp", "process_vm_readv",
	"process_vm_writev",
	/* mounts and the new mount API; escaping the mount namespace */
	"mount", "umount", "umount2", "pivot_root", "chroot", "move_mount",
	"open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
	"mount_setattr", "open_by_handle_at", "name_to_handle_at",
	/* new namespaces (setns and clone: argument rules below) */
	"unshare",
	/* kernel modules, kexec, bpf, perf, io_uring */
	"init_module", "finit_module", "delete_module", "create_module",
	"kexec_load", "kexec_file_load", "bpf", "perf_event_open",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	/* keyrings, fanotify, userfaultfd */
	"keyctl", "add_key", "request_key", "fanotify_init", "userfaultfd",
	/* the machine: clock, swap, reboot, accounting, quotas, names */
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd",
	"sethostname", "setdomainname", "syslog", "vhangup",
	"lookup_dcookie", "nfsservctl", "uselib", "sysfs", "_sysctl",
	/* raw hardware and old-ABI oddities */
	"iopl", "ioperm", "vm86", "vm86old", "personality", "mknod",
	"mknodat",
};

#define ENG_CLONE_NEW_FLAGS \
	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
	 CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

/* clone(2)'s flags argument: first everywhere but s390, where the stack
 * pointer comes first. */
#if defined(__s390__) || defined(__s390x__)
#define ENG_CLONE_FLAGS_ARG	SCMP_A1
#else
#define ENG_CLONE_FLAGS_ARG	SCMP_A0
#endif

static int deny_list(scmp_filter_ctx ctx)
{
	int count = 0;

	for (size_t i = 0; i < sizeof(eng_denied) / sizeof(eng_denied[0]);
	     i++) {
		int nr = seccomp_syscall_resolve_name(eng_denied[i]);
		int ret;

		if (nr < 0)	/* unknown here, or not on this architecture */
			continue;
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
		if (ret < 0)
			return ret;
		count++;
	}
	return count;
}

/*
 * Namespaces: netns_run enters a pod's network namespace with
 * setns(fd, CLONE_NEWNET) in a short-lived thread; any other nstype
 * (including 0, "any") is refused.  New namespaces need clone with a
 * CLONE_NEW* flag (refused; one rule per flag, the rules OR together) or
 * clone3, whose flags sit in memory a filter cannot read: clone3 fails
 * with ENOSYS, on which glibc's pthread_create falls back to clone.
 */
static int ns_rules(scmp_filter_ctx ctx)
{
	unsigned long flags = ENG_CLONE_NEW_FLAGS;
	int ret;

	ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 1,
			       SCMP_A1(SCMP_CMP_NE, CLONE_NEWNET));
	while (ret == 0 && flags) {
		unsigned long bit = flags & -flags;

		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				       SCMP_SYS(clone), 1,
				       ENG_CLONE_FLAGS_ARG(SCMP_CMP_MASKED_EQ,
							   bit, bit));
		flags &= ~bit;
	}
	if (ret == 0)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
				       SCMP_SYS(clone3), 0);
	return ret;
}

int eng_seccomp_apply(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int ret, count;

	if (!ctx)
		return -ENOMEM;
	/* Every thread, not only the caller; no_new_privs lets a process
	 * without CAP_SYS_ADMIN load a filter (and the engine never execs). */
	ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (ret == 0)
		ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
	/* A call through another ABI (int 0x80, x32) would slip past a
	 * deny-list written for the native one; the engine makes none. */
	if (ret == 0)
		ret = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				       SCMP_ACT_ERRNO(EPERM));
	if (ret < 0)
		goto out_release;
	count = deny_list(ctx);
	if (count < 0) {
		ret = count;
		goto out_release;
	}
	ret = ns_rules(ctx);
	if (ret == 0)
		ret = seccomp_load(ctx);
	if (ret == 0)
		ret = count;
out_release:
	seccomp_release(ctx);
	return ret;
}
