// SPDX-License-Identifier: MIT
#include "device-plugin/dp_seccomp.h"

#include <errno.h>
#include <seccomp.h>
#include <stddef.h>

static const char *const dp_denied[] = {
	"execve", "execveat", "ptrace", "process_vm_readv",
	"process_vm_writev", "mount", "umount2", "pivot_root", "chroot",
	"setns", "unshare", "kexec_load", "kexec_file_load", "init_module",
	"finit_module", "delete_module", "bpf", "perf_event_open", "keyctl",
	"add_key", "request_key", "reboot", "swapon", "swapoff",
	"open_by_handle_at", "name_to_handle_at", "userfaultfd", "acct",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "iopl",
	"ioperm", "quotactl", "mknod", "mknodat", "personality",
	"fanotify_init", "move_mount", "fsopen", "fsmount", "fspick",
	"open_tree", "lookup_dcookie", "vhangup", "sethostname",
	"setdomainname",
};

int dp_seccomp_apply(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int ret;

	if (!ctx)
		return -ENOMEM;
	ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (!ret)
		ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
	for (size_t i = 0; !ret && i < sizeof(dp_denied) / sizeof(dp_denied[0]);
	     i++) {
		int nr = seccomp_syscall_resolve_name(dp_denied[i]);

		if (nr == __NR_SCMP_ERROR)
			continue;	/* not on this architecture */
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
	}
	if (!ret)
		ret = seccomp_load(ctx);
	seccomp_release(ctx);
	return ret;
}
