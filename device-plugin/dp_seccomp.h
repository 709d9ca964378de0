/* SPDX-License-Identifier: MIT */
/*
 * Self-confinement after start-up (libseccomp).  A deny-list rather than an
 * allow-list: gRPC's internals pick their syscalls by version and kernel,
 * and a missed one would take the node's device plugin down; what we deny
 * is what a compromised plugin would want and the daemon never needs once
 * running (exec, ptrace, mounts, namespaces, modules, bpf, keyrings, ...).
 * Denied calls fail with EPERM; the filter covers every thread (TSYNC).
 */
#ifndef DP_SECCOMP_H
#define DP_SECCOMP_H

/* Installs the filter; 0 or -errno. */
int dp_seccomp_apply(void);

#endif /* DP_SECCOMP_H */
