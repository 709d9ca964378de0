/* SPDX-License-Identifier: MIT */
/*
 * Once its input is read, the plugin confines itself to the system calls
 * it still needs (files under stateDir, the engine socket, netlink, netns
 * work in a short-lived thread).  Anything else fails with EPERM rather
 * than killing the process, so the runtime still gets an error result.
 * PODVERBS_CNI_NO_SECCOMP=1 skips it (debugging, strace -f).
 */
#ifndef CNI_SECCOMP_H
#define CNI_SECCOMP_H

/* Returns 0 or -errno. */
int cni_seccomp_confine(void);

#endif /* CNI_SECCOMP_H */
